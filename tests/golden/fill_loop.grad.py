def fill_loop_grad(x):
    _zp_written = {}
    _zp_tape = [[]]
    # cases.py:115  out = np.zeros(len(x))
    out = np.zeros(len(x))
    _zp_log_written(out, _zp_written)
    # cases.py:116  for i in range(len(x)):
    t = len(x)
    out_1 = out
    _zp_spills = _zp_may_spill(_zp_tape, 2, range(t))
    for i in range(t):
        # cases.py:117  out[i] = np.tanh(x[i]) * x[i]
        t_1 = np.tanh(x[i])
        t_2 = x[i]
        t_3 = t_1 * t_2
        out_1[i] = t_3
        _zp_tape.append(t_1)
        _zp_tape.append(t_2)
        if _zp_spills and len(_zp_tape) > 16384:
            _zp_spill_tape(_zp_tape, 2)
    # cases.py:118  return np.sum(out * out)
    t_4 = out_1 * out_1
    del out_1
    t_shape = _zp_array_shape(t_4)
    _zp_y = np.sum(t_4)
    del t_4
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    _zp_final = _zp_snapshot(_zp_written)
    # grad of: return np.sum(out * out)  cases.py:118
    t_5 = _zp_expand_reduced(dy_1, t_shape, None, False)
    t_6 = _zp_like_input(t_5, t_shape)
    del t_5
    t_7 = _zp_summed_strong_times(t_6, out, out)
    del out, t_6
    out_bar = t_7 * 2
    del t_7
    out_bar_1 = _zp_owned_copy(out_bar)
    del out_bar
    x_bar = None
    # grad of: for i in range(len(x)):  cases.py:116
    _zp_refills = len(_zp_tape[0]) > 0
    for i_1 in reversed(range(t)):
        if _zp_refills and len(_zp_tape) == 1:
            _zp_refill_tape(_zp_tape)
        t_8 = _zp_tape.pop()
        t_9 = _zp_tape.pop()
        # grad of: out[i] = np.tanh(x[i]) * x[i]  cases.py:117
        t_10 = out_bar_1[i_1]
        out_bar_1[i_1] = 0.0
        t_11 = _zp_summed_strong_times(t_10, t_8, t_9)
        t_12 = _zp_summed_strong_times(t_10, t_9, t_8)
        x_bar_1 = _zp_accum_index(x_bar, x, i_1, t_12, False)
        x_bar = _zp_accum_index(x_bar_1, x, i_1, t_11 * (1 - t_9 * t_9), False)
    del out_bar_1, t
    t_13 = (x_bar,)
    _zp_restore_final(_zp_final)
    return _zp_y, t_13
