"""runtime/tapes.py: a long tape spills into typed blocks and reads back every value
with its own type and bits, in last-in-first-out order."""

from array import array

import numpy as np

from zygote_py.runtime.tapes import SPILL_AT, new_tape, open_tape, refill_tape, spill_tape


def _drain(tape):
    """Pop everything, refilling as generated code does (before a pop, once only item 0 is left)."""
    out = []
    while len(tape) > 1 or tape[0]:
        if len(tape) == 1:
            refill_tape(tape)
        out.append(tape.pop())
    return out


def test_float64_scalars_spill_into_a_float64_array_and_come_back_as_float64():
    values = [np.float64(v) for v in np.random.default_rng(0).normal(size=10)]
    tape = new_tape()
    tape.extend(values)
    spill_tape(tape)
    assert len(tape) == 1
    ((width, n, [(kind, block)]),) = tape[0]
    assert (width, n) == (1, len(values))
    assert kind == "float64" and isinstance(block, np.ndarray) and block.nbytes == 8 * len(values)
    back = _drain(tape)
    assert back == values[::-1]
    assert all(type(v) is np.float64 for v in back)


def test_python_floats_spill_into_array_d_and_come_back_as_floats():
    values = [0.1 * k for k in range(7)] + [float("inf"), -0.0]
    tape = new_tape()
    tape.extend(values)
    spill_tape(tape)
    ((_, _, [(kind, block)]),) = tape[0]
    assert kind == "float" and isinstance(block, array)
    back = _drain(tape)
    assert [v.hex() for v in back] == [v.hex() for v in values[::-1]]  # -0.0 and inf exactly
    assert all(type(v) is float for v in back)


def test_a_mix_of_kinds_stays_as_objects_and_comes_back_unchanged():
    arr = np.arange(3.0)
    values = [1.0, np.float64(2.0), arr, (1, 2), None, 3]
    tape = new_tape()
    tape.extend(values)
    spill_tape(tape)
    assert tape[0][0][2][0][0] == "objects"
    back = _drain(tape)
    assert back[::-1] == values[:2] + [back[-3]] + values[3:]
    assert back[-3] is arr  # the very object
    assert [type(v) for v in back[::-1]] == [type(v) for v in values]


def test_several_blocks_and_values_on_top_read_back_in_reverse_order():
    tape = new_tape()
    pushed = []
    for k in range(50):
        value = np.float64(k) if k < 20 else float(k) if k < 35 else np.float64(k) * 2
        tape.append(value)
        pushed.append(value)
        if len(tape) > 7:
            spill_tape(tape)
    assert len(tape[0]) >= 5
    back = _drain(tape)
    assert back == pushed[::-1]
    assert [type(v) for v in back] == [type(v) for v in pushed[::-1]]


def test_an_opened_copy_reads_everything_and_leaves_the_tape_for_the_next_run():
    tape = new_tape()
    for k in range(30):
        tape.append(np.float64(k))
        if len(tape) > 4:
            spill_tape(tape)
    first = _drain(open_tape(tape))
    second = _drain(open_tape(tape))
    assert first == second == [np.float64(k) for k in range(30)][::-1]


def test_a_million_float64_scalars_take_eight_bytes_each_once_spilled():
    tape = new_tape()
    for k in range(4 * SPILL_AT):
        tape.append(np.float64(k))
        if len(tape) > SPILL_AT:
            spill_tape(tape)
    held = sum(block.nbytes for _, _, [(kind, block)] in tape[0])
    assert all(kind == "float64" for _, _, [(kind, _)] in tape[0])
    assert held >= 8 * 3 * SPILL_AT and len(tape) <= SPILL_AT + 1


def test_iterations_spill_in_columns_each_stored_by_what_it_holds():
    out = np.zeros(4)  # the array a fill loop writes into: the same object every iteration
    tape = new_tape()
    pushed = []
    for k in range(12):
        step = [out, np.float64(k) / 3, float(k), np.arange(2.0) + k]
        tape.extend(step)
        pushed.extend(step)
        if len(tape) > 10:
            spill_tape(tape, 4)
    kinds = [[kind for kind, _ in columns] for _, _, columns in tape[0]]
    assert kinds and all(k == ["same", "float64", "float", "objects"] for k in kinds)
    back = _drain(tape)[::-1]
    assert len(back) == len(pushed)
    for got, want in zip(back, pushed):
        assert type(got) is type(want)
        if isinstance(want, np.ndarray):
            assert got is want
        else:
            assert got == want


class _Real(float):
    pass


def test_a_subclass_of_float_is_not_taken_for_a_float():
    values = [_Real(1.5), 2.5, _Real(3.5)]
    tape = new_tape()
    tape.extend(values)
    spill_tape(tape)
    back = _drain(tape)[::-1]
    assert [type(v) for v in back] == [_Real, float, _Real] and back == values
