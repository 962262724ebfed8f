"""Generated code reads like the user's: forward lines quote their source plainly,
adjoint lines say `# grad of:` with the right line (a backward `if` carries the
`if`'s own line), straight-line variables keep their names (`hidden`,
`hidden_bar`), and temporaries never read as versions of a user's `t`."""

from __future__ import annotations

import inspect
import re

import numpy as np
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp


def layer(x, W):
    pre = x @ W
    hidden = np.tanh(pre)
    scores = hidden * 2.0
    loss = np.sum(scores ** 2)
    return loss


def alternating(h, n):
    acc = 0.0
    for i in range(n):
        h = np.sin(h)
        if i % 2 == 0:
            acc = acc + np.sum(h * h)
        else:
            acc = acc - np.mean(h)
    return acc


def recurrent(xs, W, t):
    for k in range(3):
        t = np.tanh(t @ W + xs[k])
    return np.sum(t)


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _label_before(source, statement):
    """The nearest comment above the first line that starts with `statement` (a long
    tape's spill and refill checks, `if len(_zp_tape...`, are not the user's)."""
    lines = source.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(statement)
              and not line.strip().startswith(("if len(_zp_tape", "if _zp_spills", "if _zp_refills")))
    return next(lines[i].strip() for i in range(at - 1, -1, -1) if lines[i].strip().startswith("#"))


def test_backward_if_is_labelled_with_the_if_line():
    source = zp.grad_source(alternating, wrt="h")
    if_line = _line_of(alternating, "if i % 2 == 0:")
    backward = source.split("_zp_check_scalar")[1]
    assert _label_before(backward, "if ") == f"# grad of: if i % 2 == 0:  test_labels_and_names.py:{if_line}"
    # and each branch with its own statement's line
    then_line = _line_of(alternating, "acc = acc + np.sum(h * h)")
    else_line = _line_of(alternating, "acc = acc - np.mean(h)")
    assert f"# grad of: acc = acc + np.sum(h * h)  test_labels_and_names.py:{then_line}" in backward
    assert f"# grad of: acc = acc - np.mean(h)  test_labels_and_names.py:{else_line}" in backward


def test_only_adjoint_code_is_labelled_grad_of():
    source = zp.grad_source(alternating, wrt="h")
    forward, backward = source.split("_zp_check_scalar")
    assert "grad of" not in forward
    loop_line = _line_of(alternating, "for i in range(n):")
    assert f"# test_labels_and_names.py:{loop_line}  for i in range(n):" in forward
    assert f"# grad of: for i in range(n):  test_labels_and_names.py:{loop_line}" in backward
    # a function whose whole adjoint folds into its return still labels it
    text = zp.grad_source(lambda x: np.sin(x) * x)
    assert text.count("# grad of: ") == 1 and "# grad of: text = zp.grad_source(lambda x" in text


def test_straight_line_variables_keep_their_names():
    source = zp.grad_source(layer)
    for statement in ("pre = x @ W", "hidden = np.tanh(pre)", "scores = hidden * 2.0",
                      "hidden_bar = scores_bar * 2.0", "pre_bar = hidden_bar * (1 - hidden * hidden)"):
        assert re.search(rf"^\s*{re.escape(statement)}$", source, re.MULTILINE), (statement, source)
    assert "scores_bar = " in source and "return loss, (x_bar, W_bar)" in source


def test_temporaries_do_not_read_as_versions_of_a_users_t():
    source = zp.grad_source(recurrent)
    user_t = set(re.findall(r"\bt(?:_\d+)?\b", source))
    # every `t`/`t_N` is the user's loop-carried t (forward, tape pops, cotangent loop index)
    assert re.search(r"^\s*t = np\.tanh\(", source, re.MULTILINE)
    assert "t_bar" in source
    temporaries = set(re.findall(r"\btmp(?:_\d+)?\b", source))
    assert temporaries and not (temporaries & user_t)
    # no user `t`: temporaries are plain t, t_1, ...
    assert re.search(r"^\s*t = scores \*\* 2$", zp.grad_source(layer), re.MULTILINE)


def test_relabelled_and_renamed_gradients_still_match_finite_differences():
    rng = np.random.default_rng(3)
    cases = [(layer, (rng.standard_normal((2, 3)), rng.standard_normal((3, 2)))),
             (recurrent, (rng.standard_normal((3, 2)), rng.standard_normal((2, 2)) * 0.5,
                          rng.standard_normal(2)))]
    for fn, args in cases:
        for i, (g, fd, a) in enumerate(zip(zp.gradient(fn, *args), numerical_gradient(fn, args), args)):
            assert_gradient_matches(g, fd, a, f"{fn.__name__} arg{i}")
    (g,) = zp.gradient(lambda h: alternating(h, 3), np.array([0.3, -0.2]))
    (fd,) = numerical_gradient(lambda h: alternating(h, 3), (np.array([0.3, -0.2]),))
    assert_gradient_matches(g, fd, np.zeros(2), "alternating")
