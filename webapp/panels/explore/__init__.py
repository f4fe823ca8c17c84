"""The Explore page's own parts."""
