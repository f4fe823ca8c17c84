"""The Labels page's own parts."""
