"""IR-to-IR cleanup transformations (folding, pruning, dead code), one pass per
module, run in a declared order by pipeline.py; simplify.py is the entry point."""
