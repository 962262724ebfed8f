"""Ahead-of-time packaging: standalone gradient modules that need only NumPy (used by the CLI)."""
