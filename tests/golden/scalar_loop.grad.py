def scalar_loop_grad(x):
    _zp_tape = [[]]
    # cases.py:19  for i in range(10):
    _zp_spills = _zp_may_spill(_zp_tape, 6, range(10))
    for _ in range(10):
        _zp_tape.append(x)
        # cases.py:20  x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
        t = np.sin(x)
        t_1 = t * x
        t_shape = _zp_array_shape(t_1)
        t_2 = 0.5 * np.cos(x)
        t_shape_1 = _zp_array_shape(t_2)
        t_3 = 1 + x * x
        t_4 = t_2 / t_3
        x = t_1 + t_4
        _zp_tape.append(t_shape)
        _zp_tape.append(t_4)
        _zp_tape.append(t_shape_1)
        _zp_tape.append(t_3)
        _zp_tape.append(t)
        if _zp_spills and len(_zp_tape) > 16384:
            _zp_spill_tape(_zp_tape, 6)
    dy_1 = _zp_check_scalar(x, _zp_return_loc)
    x_bar = dy_1
    # grad of: for i in range(10):  cases.py:19
    _zp_refills = len(_zp_tape[0]) > 0
    for _ in reversed(range(10)):
        if _zp_refills and len(_zp_tape) == 1:
            _zp_refill_tape(_zp_tape)
        t_5 = _zp_tape.pop()
        t_6 = _zp_tape.pop()
        t_shape_2 = _zp_tape.pop()
        t_7 = _zp_tape.pop()
        t_shape_3 = _zp_tape.pop()
        x_1 = _zp_tape.pop()
        # grad of: x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)  cases.py:20
        t_8 = _zp_unbroadcast(x_bar, t_shape_3)
        t_9 = _zp_unbroadcast(x_bar, t_7)
        t_10 = _zp_strong_zero(t_9, t_9 / t_6)
        t_11 = _zp_unbroadcast(t_10, t_shape_2)
        t_12 = _zp_strong_zero(t_10, -t_10 * t_7)
        t_13 = _zp_unbroadcast(t_12, t_6)
        t_14 = _zp_summed_strong_times(t_13, x_1, x_1)
        t_15 = _zp_summed_strong_times(t_8, x_1, t_5)
        t_16 = _zp_summed_strong_times(t_8, t_5, x_1)
        x_bar = t_14 * 2 + -(t_11 * 0.5) * np.sin(x_1) + t_16 + t_15 * np.cos(x_1)
    return x, (x_bar,)
