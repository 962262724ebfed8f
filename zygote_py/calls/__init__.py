"""Run-time dispatch: what a call means, from the object there while the gradient runs.

The compiler places most callees from the source; a method of an argument, a callable
held in a container or an operator between objects can only be decided from the object
that is there when generated code runs.

`dispatch` (with `flat_calls`, the calls' operands laid flat, and `protocols`, Python's
operator protocol and NumPy's hand-off to objects) resolves such a call in reverse mode
and returns its value and pullback; `implicit` fills the Grads of a Params call from the
reads generated code reports.  `forward_dispatch` is dispatch's counterpart in forward mode,
with `forward_objects`, the tangents of written attributes.  When gradient code is
differentiated again, `forward_dispatched` follows its dispatched calls in forward mode and
`reverse_dispatched` in reverse mode.

These sit above the derivative rules (rules/), which they look up; the helpers that
generated code and the rules call sit below them, in runtime/.
"""
