"""Links: activation."""
