"""autograd.builtins: autograd's differentiable container constructors are Python's own here.

zygote_py differentiates the builtins `tuple`, `list`, `dict`, `isinstance`
and `type` directly (no boxes to see through), so the names map to them.
"""

import builtins as _python

dict = _python.dict
isinstance = _python.isinstance
list = _python.list
tuple = _python.tuple
type = _python.type
