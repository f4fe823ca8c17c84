"""The Growth page's own parts."""
