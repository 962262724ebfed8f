"""One registry of the structures zygote_py walks: containers, records and objects.

Every walk over a user's value -- is it active, what is its gradient, what are
its parameters, which layers does it hold -- asks this package what the value
is made of, so that a tuple, a NamedTuple, a dataclass or an object with
`__slots__` means the same thing to all of them.  Each type falls in one kind,
decided once per type (see `registry._classify`):

  leaf      ints, bools, strings, None, functions, modules, classes: never active
  scalar    floats and complex numbers (Python and NumPy): active
  array     NumPy arrays: active when their dtype is float or complex
  tuple, list, dict             children by position / key
  record    NamedTuple and collections.namedtuple: children by position
  object    anything else: children are its instance attributes (__dict__,
            then __slots__), so dataclasses (frozen or slotted) are objects
  custom    a class registered with `register_structure`: its own flatten

Cotangents.  Inside generated code a cotangent is *internal*: None (zero), a
number or array for a leaf, a tuple or list for a tuple, list or record
(positionally, None where a child has none), a dict for a dict, and a dict of
attribute name -> cotangent for an object, a record read by attribute or a
custom kind.  `accumulate` adds two internal cotangents; `finalize` turns one
into the gradient the user sees, shaped like the argument: a float for a
float, an owned array of the argument's shape and dtype, the same container
type, the same NamedTuple type, a dict of attribute name -> gradient for an
object, and `unflatten` of the children's gradients for a custom kind.

`registry.py` holds the kinds, the registration and the walks over children
(`children`, `is_active`); `cotangents.py` accumulation and `finalize`;
`flat.py` flatten and unflatten.
"""

from .cotangents import accumulate, child_cotangent, finalize, keyed_cotangent, zeros_like
from .flat import TreeDef, flatten, unflatten
from .registry import (
    ARRAY,
    CUSTOM,
    DICT,
    LEAF,
    LIST,
    OBJECT,
    RECORD,
    SCALAR,
    TUPLE,
    StructureError,
    children,
    is_active,
    kind_of,
    register_structure,
)

__all__ = [
    "ARRAY", "CUSTOM", "DICT", "LEAF", "LIST", "OBJECT", "RECORD", "SCALAR", "TUPLE",
    "StructureError", "TreeDef", "accumulate", "child_cotangent", "children", "finalize",
    "flatten", "is_active", "keyed_cotangent", "kind_of", "register_structure", "unflatten",
    "zeros_like",
]
