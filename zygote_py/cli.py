"""The `zygote-py` command (also `python -m zygote_py`).

    zygote-py ir FILE.py:FUNC        the function's SSA form, as text
    zygote-py source FILE.py:FUNC    its generated gradient code
    zygote-py --version

Errors print as `FILE:LINE:COL: error: message`, the source line and a caret,
with exit status 1 (2 for usage errors); never a traceback for a user's mistake.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from . import __version__
from .errors import ZygoteError


class TargetError(Exception):
    """The FILE.py:FUNC or package.module:FUNC target cannot be loaded."""


def load_target(target: str):
    if ":" not in target:
        raise TargetError(f"target {target!r} must look like path/to/file.py:func or package.module:func")
    where, _, name = target.rpartition(":")
    if where.endswith(".py"):
        path = Path(where).resolve()
        if not path.exists():
            raise TargetError(f"{where}: no such file")
        # a file inside a package is imported as part of it (relative imports work)
        parts, folder = [path.stem], path.parent
        while (folder / "__init__.py").exists():
            parts.insert(0, folder.name)
            folder = folder.parent
        sys.path.insert(0, str(folder))
        where = ".".join(parts)
    try:
        module = importlib.import_module(where)
    except ImportError as err:
        raise TargetError(f"cannot import {where}: {err}") from None
    except Exception as err:  # the user's module raised while being imported
        raise TargetError(f"importing {where} raised {type(err).__name__}: {err}") from None
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise TargetError(f"{where} has no function {name!r}")
        obj = getattr(obj, part)
    return obj


def _format_error(err: ZygoteError) -> str:
    if err.loc is None:
        return f"error: {err.message}" + (f"\nhint: {err.hint}" if err.hint else "")
    lines = [f"{err.loc}: error: {err.message}"]
    excerpt = err.loc.excerpt()
    if excerpt:
        lines.append(excerpt)
    if err.hint:
        lines.append(f"hint: {err.hint}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="zygote-py",
        description="Source-transformation reverse-mode AD for Python and NumPy.",
        epilog="examples:\n  zygote-py ir model.py:loss\n  zygote-py source model.py:loss",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"zygote-py {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    ir = sub.add_parser("ir", help="print the SSA form of a function",
                        epilog="example: zygote-py ir model.py:loss")
    ir.add_argument("target", help="path/to/file.py:func or package.module:func")
    src = sub.add_parser("source", help="print the generated gradient code of a function",
                         epilog="example: zygote-py source model.py:loss --wrt W,b")
    src.add_argument("target")
    src.add_argument("--wrt", help="comma-separated parameter names (default: all)")
    src.add_argument("--mode", choices=("grad", "pullback"), default="grad")
    args = parser.parse_args(argv)
    try:
        fn = load_target(args.target)
        if args.command == "ir":
            from .compiler import COMPILER
            from .ir.printer import format_function

            sys.stdout.write(format_function(COMPILER.lowered_ir(fn)))
        else:
            from .api import grad_source

            wrt = args.wrt.split(",") if args.wrt else None
            sys.stdout.write(grad_source(fn, wrt=wrt, mode=args.mode))
    except ZygoteError as err:
        print(_format_error(err), file=sys.stderr)
        return 1
    except TargetError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
