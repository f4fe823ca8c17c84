"""The Learn page's own parts."""
