"""Public dotted names of callables: 'numpy.sin', 'math.exp', 'operator.add'.

The rule registry keys its tables and messages by them, the resolver (resolve.py) and
the errors name a user's call by them.  They depend on nothing of zygote_py, so this
module sits at the bottom of the layers (tests/test_layering.py) and the resolver,
below the rules, can use it without importing the rules package.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any


def qualified_name(obj: Any) -> str:
    """'numpy.sin', 'math.exp', 'operator.add', 'builtins.abs' for a callable."""
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    owner = getattr(obj, "__self__", None)
    if type(owner).__name__ == "ufunc" and not isinstance(obj, type):
        # a ufunc's method: named after the ufunc (numpy.add.reduce, not numpy.ufunc.reduce)
        home = _public_home(owner, owner.__name__) or "numpy"
        return f"{home}.{owner.__name__}.{getattr(obj, '__name__', name)}"
    if module is None and type(obj).__name__ == "ufunc":
        # ufuncs have no __module__: the public module that holds the object itself
        # (scipy.special.gammaln), else numpy's namespace
        module = _public_home(obj, name) or "numpy"
    elif module is None and getattr(obj, "__self__", None) is not None and "." in name:
        # a bound method of a C object (NumPy 1.x's np.random.beta, a method of the global
        # RandomState): the module of the object's class, as NumPy 2 reports it itself
        module = type(obj.__self__).__module__
    if module is None:
        module = "builtins"
    elif not module.startswith(("numpy", "zygote_py")) and \
            any(part.startswith("_") and not part.startswith("__") for part in module.split(".")[1:]):
        # scipy.special._logsumexp.logsumexp: the public scipy.special.logsumexp
        module = _public_home(obj, getattr(obj, "__name__", name)) or module
    if module.startswith("_") and not module.startswith("__"):
        # C accelerator modules: operator.add reports _operator; show the public module.
        module = module[1:]
    if module.startswith("numpy"):
        # np.linalg.inv reports numpy.linalg._linalg, NumPy 1.x's RandomState
        # numpy.random.mtrand: the public path, the same on every NumPy version.
        public = module.split("._")[0]
        public = "numpy.random" if public == "numpy.random.mtrand" else public
        module = public if public != "numpy.core" else "numpy"
    return f"{module}.{name}"


def _public_home(obj: Any, name: str) -> str | None:
    """The shortest public module (no `_private` part) whose attribute `name` is obj."""
    with warnings.catch_warnings():  # deprecated namespaces (scipy.signal.signaltools) warn
        warnings.simplefilter("ignore")
        homes = [mod_name for mod_name, module in list(sys.modules.items())
                 if module is not None and not any(p.startswith("_") for p in mod_name.split("."))
                 and getattr(module, name, None) is obj]
    return min(homes, key=lambda m: (m.count("."), len(m))) if homes else None
