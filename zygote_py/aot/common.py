"""What the parts of the standalone-module builder share: its error, and how it
tells zygote_py's own objects, closures, hashable objects and files apart."""

from __future__ import annotations

import sys

from ..errors import ZygoteError


class NotStandalone(ZygoteError):
    """Something the function reads cannot be written into a module without zygote_py."""


def not_standalone_utility(obj) -> tuple | None:
    """(message, location, hint) refusing one of zygote_py's reverse-mode utilities, which
    a standalone module cannot hold: zp.checkpointed compiles f's pullback while the
    backward pass runs, zp.hook, zp.retain and zp.no_grad are zygote_py's own objects
    whose meaning the standalone runtime does not copy.  None for anything else."""
    from ..hooks import checkpointed, hook, retain
    from ..rules.untracked import no_grad

    if getattr(obj, "_zp_untracked", None) is not None:
        name = f"a function decorated with zp.no_grad ({getattr(obj, '__qualname__', obj)})"
    elif obj is no_grad:
        name = "zp.no_grad"
    elif obj is checkpointed or obj is hook or obj is retain:
        name = f"zp.{obj.__name__}"
    else:
        return None
    return (f"{name} cannot be written into a standalone module (zygote-py grad)", None,
            "differentiate this code with zp.gradient / zp.pullback in a program that imports "
            "zygote_py; docs/api.md says which utilities standalone modules support")


def is_internal(obj) -> bool:
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "zygote_py"


def is_closure(fn) -> bool:
    """fn is defined inside another function, or captures its variables.  A method's
    `__class__` cell (made for `super()`) does not count: the class statement holds it,
    and the copied class makes it again."""
    return "<locals>" in fn.__qualname__ or any(name != "__class__" for name in fn.__code__.co_freevars)


def hashable(obj) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def display_path(filename: str, module_name: str | None) -> str:
    """A file as its module path (`corpus/calls.py`): the same on every machine and checkout."""
    module = sys.modules.get(module_name or "")
    if module is not None and getattr(module, "__file__", None) == filename and module_name != "__main__":
        tail = "/__init__.py" if filename.endswith("__init__.py") else ".py"
        return module_name.replace(".", "/") + tail
    return filename.replace("\\", "/").rsplit("/", 1)[-1]
