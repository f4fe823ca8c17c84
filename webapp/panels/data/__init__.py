"""The Data page's own parts."""
