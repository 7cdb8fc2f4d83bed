"""Links: connection."""
