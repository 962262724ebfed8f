"""How the reverse transform treats reads of module data and calls of user code.

The core of the transform knows nothing of implicit parameters.  It asks a
`ConstantReads` object (or a subclass) at the few points where the
implicit-parameter feature changes what happens, the way Zygote passes a
`Context{I}` whose methods do nothing when `I` is false:
  - which primal values are roots besides the active arguments (`roots`);
  - whether a call may read parameters itself, so that it is differentiated
    even with no active argument (`may_read_parameters`), and whether a call of a
    registered rule must be refused (`check_rule_call`: odeint's rule cannot follow
    the parameters its derivative function reads);
  - a getattr that is a read of its own rather than an attribute of a
    differentiated value (`adjoint_read`);
  - a call of a closure that must go through run-time dispatch
    (`calls_through_dispatch`), and what to do with the cotangent of the cells
    a called function captured (`captured_cotangent`).
`ConstantReads` is the plain variant: module data and captured cells are
constants and none of this costs anything.  The params feature subclasses it
(../implicit.py) and registers the adjoint of `global` reads there.
"""

from __future__ import annotations


class ConstantReads:
    """The plain variant: globals, module data and captured cells are constants."""

    implicit = False  # the variant of the callees' pullbacks to ask for

    def roots(self, fn) -> tuple[list[int], list[tuple]]:
        """(ids of values that are inputs besides the active arguments, guards on them)."""
        return [], []

    def may_read_parameters(self, op, arrays=None) -> bool:
        """Whether op runs code that may read a parameter itself (arrays: the ids of the
        values known to be arrays or numbers, whose methods are NumPy's)."""
        return False

    def check_rule_call(self, rule, op) -> None:
        """Refuse a call of a registered rule this variant cannot differentiate (none here)."""

    def runs_calls_plainly(self) -> bool:
        """Whether a call of user code with no varied operand runs as plain Python in this
        variant (then objects.check_underived_calls guards its result)."""
        return True

    def adjoint_read(self, builder, op) -> bool:
        """Emit the adjoint of a getattr that reads module data; False when it is not one."""
        return False

    def calls_through_dispatch(self, fn) -> bool:
        """Whether a call of the user function fn must be resolved at run time."""
        return False

    def captured_cotangent(self, builder, fn, g) -> None:
        """g is the cotangent of the cells fn captured (from a dynamic call of fn)."""
