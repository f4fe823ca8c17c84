"""The Review page's own parts."""
