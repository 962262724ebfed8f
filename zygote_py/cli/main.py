"""The `zygote-py` command (also `python -m zygote_py`).

    zygote-py grad   TARGET [--wrt a,b] [--args SPEC] [--mode pullback] [-o OUT.py]
    zygote-py check  TARGET [--args SPEC] [--seed N] [--tol T]
    zygote-py ir     TARGET
    zygote-py source TARGET [--wrt a,b] [--mode pullback]
    zygote-py --version

TARGET is `path/to/file.py:func` or `package.module:func`.  Errors print as
`FILE:LINE:COL: error: message`, the source line and a caret, with exit
status 1 (2 for usage errors); never a traceback for a user's mistake.
"""

from __future__ import annotations

import argparse
import importlib
import linecache
import sys
import traceback
from pathlib import Path

import numpy as np

from .. import __version__
from .check import SpecError, gradient_errors, parse_spec
from ..errors import SourceLoc, ZygoteError


class TargetError(Exception):
    """The FILE.py:FUNC or package.module:FUNC target cannot be loaded (or run)."""

    def __init__(self, message: str, where: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.where = where
        self.hint = hint


def load_target(target: str):
    if ":" not in target:
        raise TargetError(f"target {target!r} must look like path/to/file.py:func or package.module:func")
    where, _, name = target.rpartition(":")
    shown = where
    if where.endswith(".py"):
        path = Path(where).resolve()
        if not path.exists():
            raise TargetError("no such file", where)
        # a file inside a package is imported as part of it (relative imports work)
        parts, folder = [path.stem], path.parent
        while (folder / "__init__.py").exists():
            parts.insert(0, folder.name)
            folder = folder.parent
        sys.path.insert(0, str(folder))
        where = ".".join(parts)
    try:
        module = importlib.import_module(where)
    except SyntaxError as err:
        raise TargetError(f"cannot import {where}: {err.msg}",
                          f"{err.filename}:{err.lineno}:{err.offset or 1}") from None
    except ImportError as err:
        raise TargetError(f"cannot import {where}: {err}", shown if shown.endswith(".py") else None) from None
    except Exception as err:  # the user's module raised while being imported
        raise _user_exception(err, f"importing {where} raised") from None
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            functions = sorted(k for k, v in vars(module).items() if callable(v) and not k.startswith("_")
                               and getattr(v, "__module__", None) == module.__name__)
            raise TargetError(f"{where} has no function {name!r}", f"{getattr(module, '__file__', where)}:1:1",
                              f"functions it defines: {', '.join(functions[:12]) or 'none'}")
        obj = getattr(obj, part)
    return obj


def _user_exception(err: BaseException, what: str) -> TargetError:
    """An exception the user's code raised, located at the innermost frame outside zygote_py."""
    package = str(Path(__file__).parent)
    frames = [f for f in traceback.extract_tb(err.__traceback__) if not f.filename.startswith(package)
              and not f.filename.startswith("<")]
    if not frames:
        return TargetError(f"{what} {type(err).__name__}: {err}", None)
    frame = frames[-1]
    colno = getattr(frame, "colno", None)  # new in Python 3.11; before, the statement's start
    if colno is None:
        text = linecache.getline(frame.filename, frame.lineno)
        colno = len(text) - len(text.lstrip())
    where = f"{frame.filename}:{frame.lineno}:{colno + 1}"
    return TargetError(f"{what} {type(err).__name__}: {err}", where)


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


def _format_target_error(err: TargetError) -> str:
    if err.where is None:
        text = f"error: {err}"
    else:
        text = f"{err.where}: error: {err}"
        parts = err.where.rsplit(":", 2)
        if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
            excerpt = SourceLoc(parts[0], int(parts[1]), int(parts[2]) - 1).excerpt()
            if excerpt:
                text += "\n" + excerpt
    return text + (f"\nhint: {err.hint}" if err.hint else "")


_EXAMPLES = """examples:
  zygote-py grad model.py:loss -o loss_grad.py          standalone gradient module
  zygote-py grad model.py:loss --wrt W,b --args 3x4,4,scalar -o loss_grad.py
  zygote-py grad model.py:predict --mode pullback        pullback module, to stdout
  zygote-py check model.py:loss --args 3x4,4,scalar      gradient vs finite differences
  zygote-py ir model.py:loss                             the SSA form
  zygote-py source model.py:loss --wrt W                 the generated gradient code

--args SPEC: comma-separated, one item per argument:
  3x4      a random float64 array of shape (3, 4)      4   an array of shape (4,)
  3x4+     the same, with positive entries              scalar (or float): a random float
  0d       a random 0-d array                           int:3   the int 3
  2.5, [1.0, 2.0], true   literal JSON values (a list becomes a float64 array)
  "py:Layer(np.ones((2, 3)), 0.5)"   a Python expression in the target's module"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zygote-py", description="Source-transformation reverse-mode AD for Python and NumPy.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"zygote-py {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    raw = argparse.RawDescriptionHelpFormatter

    def target(p):
        p.add_argument("target", help="path/to/file.py:func or package.module:func")

    def example_args(p, required=False):
        p.add_argument("--args", dest="spec", required=required,
                       help="example arguments (see `zygote-py --help`), e.g. 3x4,4,scalar")
        p.add_argument("--seed", type=int, default=0, help="seed of the random arguments (default 0)")

    grad = sub.add_parser("grad", help="write a standalone gradient module (NumPy + stdlib only)",
                          formatter_class=raw, epilog=(
                              "examples:\n  zygote-py grad model.py:loss -o loss_grad.py\n"
                              "  zygote-py grad pkg.model:loss --wrt W,b --args 3x4,4,scalar\n"
                              "  zygote-py grad model.py:predict --mode pullback -o predict_pb.py\n\n"
                              "The module defines grad_FUNC and value_and_grad_FUNC (or pullback_FUNC).\n"
                              "Methods of arguments and functions passed as values need --args: the\n"
                              "gradient is run once there so their pullbacks can be written out."))
    target(grad)
    grad.add_argument("--wrt", help="comma-separated parameter names (default: all)")
    grad.add_argument("--mode", choices=("grad", "pullback"), default="grad")
    grad.add_argument("-o", "--output", help="file to write (default: standard output)")
    example_args(grad)
    check = sub.add_parser("check", help="compare the gradient with central finite differences",
                           formatter_class=raw, epilog=(
                               "examples:\n  zygote-py check model.py:loss --args 3x4,4,scalar\n"
                               "  zygote-py check model.py:loss --args '[1.0, 2.0],int:3' --tol 1e-8\n\n"
                               "Exit status 1 when both the absolute and relative error exceed --tol."))
    target(check)
    example_args(check, required=True)
    check.add_argument("--tol", type=float, default=1e-6, help="tolerance (default 1e-6)")
    ir = sub.add_parser("ir", help="print the SSA form of a function", formatter_class=raw,
                        epilog="example:\n  zygote-py ir model.py:loss")
    target(ir)
    src = sub.add_parser("source", help="print the generated gradient code of a function",
                         formatter_class=raw, epilog="example:\n  zygote-py source model.py:loss --wrt W,b")
    target(src)
    src.add_argument("--wrt", help="comma-separated parameter names (default: all)")
    src.add_argument("--mode", choices=("grad", "pullback"), default="grad")
    return parser


def _run(args) -> int:
    fn = load_target(args.target)
    wrt = args.wrt.split(",") if getattr(args, "wrt", None) else None
    if args.command == "ir":
        from ..compiler import COMPILER
        from ..ir.printer import format_function

        sys.stdout.write(format_function(COMPILER.lowered_ir(fn)))
        return 0
    if args.command == "source":
        from ..api import grad_source

        sys.stdout.write(grad_source(fn, wrt=wrt, mode=args.mode))
        return 0
    namespace = vars(sys.modules[fn.__module__]) if getattr(fn, "__module__", None) in sys.modules else {}
    values = parse_spec(args.spec, args.seed, namespace) if args.spec is not None else None
    if values is not None:
        _check_arity(fn, values)
    if args.command == "check":
        return _check(fn, values, args.tol)
    from ..aot.module import standalone_module

    try:
        text = standalone_module(fn, wrt=wrt, mode=args.mode, args=values)
    except ZygoteError:
        raise
    except Exception as err:  # raised by the user's function at the example arguments
        raise _user_exception(err, "running the function at --args raised") from None
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def _check_arity(fn, values) -> None:
    import inspect

    fn = getattr(fn, "_zp_original", fn)
    try:
        inspect.signature(fn).bind(*values)
    except TypeError as err:
        code = getattr(fn, "__code__", None)
        where = f"{code.co_filename}:{code.co_firstlineno}:1" if code else None
        raise TargetError(f"--args gives {len(values)} argument(s), which do not fit "
                          f"{getattr(fn, '__name__', 'the function')}: {err}", where,
                          "give one --args item per parameter") from None


def _check(fn, values, tol: float) -> int:
    try:
        y, abs_err, rel_err = gradient_errors(fn, values)
    except ZygoteError:
        raise
    except Exception as err:
        raise _user_exception(err, "running the function raised") from None
    ok = abs_err <= tol or rel_err <= tol
    shown = float(y) if np.ndim(y) == 0 and np.isrealobj(y) else y  # np.float64(0.8) -> 0.8
    print(f"value:                    {shown!r}")
    print(f"largest absolute error:   {abs_err:.3e}")
    print(f"largest relative error:   {rel_err:.3e}")
    print(f"{'ok' if ok else 'FAILED'} (tolerance {tol:g})")
    return 0 if ok else 1


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except SpecError as err:
        parser.error(f"--args: {err}")  # a usage error: exit status 2
    except ZygoteError as err:
        print(_format_error(err), file=sys.stderr)
    except TargetError as err:
        print(_format_target_error(err), file=sys.stderr)
    except OSError as err:  # -o into a missing folder, an unreadable file
        print(f"error: {err}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
