"""Loading a generated program as a module, and blanking its own names out of error
messages (used by oracle.py and forward_oracle.py alike, so it sits below both)."""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import sys
import warnings

_counter = itertools.count()


def load_module(source: str, directory: str, stem: str = "prog"):
    """Write `source` to a fresh file (a new name each time: linecache and
    zygote_py's cache key on file names) and import it."""
    name = f"_zpfuzz_{stem}_{os.getpid()}_{next(_counter)}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with warnings.catch_warnings():  # shrunk candidates may be odd (`0.5[1]`)
        warnings.simplefilter("ignore")
        spec.loader.exec_module(module)
    return module


# names the generator makes up (v12, acc3, a0_x, ...) and the temp module names
_IDENT = re.compile(
    r"\b(?:(?:v|t|a|p|q|g|h|k|i|j|u|d|c|xs|vs|fs|acc|buf|row|layer|fn|hs|al|obj|srt|mk)\d+"
    r"(?:_[xv])?|_?zpfuzz_\w+)\b"
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def normalise(message: str) -> str:
    """An error message with the program's own names and numbers blanked out."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    first = _IDENT.sub("<name>", first)
    first = re.sub(r"/\S+\.py", "<file>", first)
    return _NUMBER.sub("N", first)[:160]
