"""IR-to-IR cleanup transformations (folding, pruning, dead code)."""
