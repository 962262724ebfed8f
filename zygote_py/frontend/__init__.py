"""frontend package."""
