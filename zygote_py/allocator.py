"""An explicit opt-in: ask glibc's malloc to keep freed memory for reuse.

A gradient keeps the forward pass's arrays until the backward pass has read them,
so every call allocates and frees several megabytes.  With its default settings
glibc returns much of that memory to the operating system at the end of each call
(it trims the top of the heap, and unmaps blocks above its mmap threshold), and the
next call takes a page fault for every 4 kB it touches again.  On the MLP benchmark
that is about a third of the gradient's time (docs/performance.md).

`retain_freed_memory()` raises the two thresholds that decide this.  The setting
belongs to the process, not to zygote_py: it changes how every library in the
process allocates, for the rest of its life, and it makes the process keep the high
water mark of its heap.  So zygote_py never calls it by itself; a training script
may call it once at start.  The same effect without code:
`MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_MMAP_THRESHOLD_=33554432 python train.py`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

# mallopt parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# glibc refuses mmap thresholds above 32 MB on 64-bit systems (HEAP_MAX / 2)
_MMAP_THRESHOLD_MAX = 32 * 1024 * 1024


def retain_freed_memory(trim_threshold: int = 1 << 30,
                        mmap_threshold: int = _MMAP_THRESHOLD_MAX) -> bool:
    """Keep up to `trim_threshold` bytes of freed heap for reuse, and serve blocks below
    `mmap_threshold` bytes from the heap (process-wide; see the module docstring).

    Returns True where the settings were applied (Linux with glibc), False elsewhere
    (macOS, Windows, musl), where nothing is changed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    mmap_threshold = min(int(mmap_threshold), _MMAP_THRESHOLD_MAX)
    # mallopt answers 1 where it took the setting, 0 where it refused it
    ok = mallopt(_M_MMAP_THRESHOLD, mmap_threshold) == 1
    return mallopt(_M_TRIM_THRESHOLD, min(int(trim_threshold), 2**31 - 1)) == 1 and ok
