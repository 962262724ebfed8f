"""ad package."""
