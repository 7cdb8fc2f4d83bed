"""Links: model/vision."""
