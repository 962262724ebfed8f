"""ad/reverse/adjoint._may_read_output decides from a rule's bytecode whether it reads
its output (else only the output's shape is saved).  Python 3.13 loads two locals in one
instruction (LOAD_FAST_LOAD_FAST, whose argval is a pair): the pair must count, or a rule
that reads its output would be given only a shape (found by .ci/run: the golden files
differed on 3.13 alone)."""

import numpy as np

from zygote_py.ad.reverse.adjoint import _may_read_output
from zygote_py.rules import registry


def reads_output_in_a_pair(g, y, x):
    return g * y  # 3.13: LOAD_FAST_LOAD_FAST (g, y)


def reads_output_alone(g, y, x):
    return y


def ignores_output(g, y, x):
    return g * 2.0 * x


def test_a_read_of_the_output_counts_however_it_is_loaded():
    assert _may_read_output(reads_output_in_a_pair)
    assert _may_read_output(reads_output_alone)
    assert not _may_read_output(ignores_output)


def test_tanh_reads_its_output():
    assert _may_read_output(registry.function_rule(np.tanh).vjp)
