"""Links: model."""
