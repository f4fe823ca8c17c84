"""The Leaks page's own parts."""
