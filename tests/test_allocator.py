"""zp.retain_freed_memory (allocator.py): an explicit, process-wide opt-in, so it is
only ever called in a child process here."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_retain_freed_memory_applies_and_gradients_stay_right(tmp_path):
    code = textwrap.dedent("""
        import numpy as np
        import zygote_py as zp
        print(zp.retain_freed_memory())
        x = np.linspace(-1.0, 1.0, 5)
        g, = zp.gradient(lambda x: np.sum(np.tanh(x) ** 2), x)
        t = np.tanh(x)
        print(np.allclose(g, 2 * t * (1 - t * t), rtol=1e-12, atol=0))
    """)
    script = tmp_path / "opt_in.py"  # a file: zygote_py reads the lambda's source
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    # musl or another libc says False; the gradient is right either way
    assert out[0] in ("True", "False") and out[1] == "True"
