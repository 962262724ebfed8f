"""Which ops may be removed when their results are unused: ir/purity.py, where the
frontend can read it too (frontend/item_effects.py); its names are kept here for the
passes that import them from the analyses."""

from ..ir.purity import is_constant_foldable, is_pure, is_pure_callable  # noqa: F401
