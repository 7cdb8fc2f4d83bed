"""Links: normalization."""
