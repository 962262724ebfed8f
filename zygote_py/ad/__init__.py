"""Automatic differentiation: the reverse transform (reverse/: augment, adjoint, tapes and
the adjoint handlers), rule splicing (splice.py) and implicit parameters (implicit.py)."""
