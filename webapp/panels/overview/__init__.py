"""Overview's own parts."""
