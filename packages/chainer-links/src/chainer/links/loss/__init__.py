"""Links: loss."""
