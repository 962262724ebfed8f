def while_loop_grad(x):
    _zp_tape = [[]]
    s, _zp_trips = x, 0
    # cases.py:37  while s < 10.0:
    while s < 10.0:
        # cases.py:38  s = s * 1.5 + x
        t = s * 1.5
        t_shape = _zp_array_shape(t)
        s = t + x
        _zp_trips = _zp_trips + 1
        _zp_tape.append(t_shape)
        if len(_zp_tape) > 16384:
            _zp_spill_tape(_zp_tape, 1)
    dy_1 = _zp_check_scalar(s, _zp_return_loc)
    s_bar, x_bar = dy_1, None
    # grad of: while s < 10.0:  cases.py:37
    _zp_refills = len(_zp_tape[0]) > 0
    for _ in reversed(range(_zp_trips)):
        if _zp_refills and len(_zp_tape) == 1:
            _zp_refill_tape(_zp_tape)
        t_shape_1 = _zp_tape.pop()
        # grad of: s = s * 1.5 + x  cases.py:38
        t_1 = _zp_unbroadcast(s_bar, t_shape_1)
        t_2 = _zp_unbroadcast(s_bar, x)
        x_bar = _zp_accum_owned(x_bar, t_2)
        s_bar = t_1 * 1.5
    # grad of: while s < 10.0:  cases.py:37
    x_bar_1 = _zp_accum(x_bar, s_bar)
    return s, (x_bar_1,)
