"""ir package."""
