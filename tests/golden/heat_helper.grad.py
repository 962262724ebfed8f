def heat_helper_grad(x):
    _zp_written = {}
    _zp_tape = [[]]
    # cases.py:126  u = np.tanh(x)
    u = np.tanh(x)
    u_1 = u
    # cases.py:127  for _ in range(3):
    _zp_spills = _zp_may_spill(_zp_tape, 3, range(3))
    for _ in range(3):
        _zp_tape.append(u_1)
        # cases.py:128  _heat_step(u, 0.25)
        _zp_log_written_arguments(u_1, _zp_written)
        t, _zp_back = _zp_heat_step_pullback(u_1, 0.25)
        _, u_1 = t
        _zp_tape.append(t)
        _zp_tape.append(_zp_back)
        if _zp_spills and len(_zp_tape) > 16384:
            _zp_spill_tape(_zp_tape, 3)
    # cases.py:129  return np.sum(u * u)
    t_1 = u_1 * u_1
    t_shape = _zp_array_shape(t_1)
    _zp_y = np.sum(t_1)
    del t_1
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    _zp_final = _zp_snapshot(_zp_written)
    # grad of: return np.sum(u * u)  cases.py:129
    t_2 = _zp_expand_reduced(dy_1, t_shape, None, False)
    t_3 = _zp_like_input(t_2, t_shape)
    del t_2
    t_4 = _zp_summed_strong_times(t_3, u_1, u_1)
    del t_3
    u_bar = t_4 * 2
    del t_4
    # grad of: for _ in range(3):  cases.py:127
    _zp_refills = len(_zp_tape[0]) > 0
    for _ in reversed(range(3)):
        if _zp_refills and len(_zp_tape) == 1:
            _zp_refill_tape(_zp_tape)
        _zp_back_1 = _zp_tape.pop()
        t_5 = _zp_tape.pop()
        u_2 = _zp_tape.pop()
        # grad of: _heat_step(u, 0.25)  cases.py:128
        t_6 = _zp_unpack_cotangent(t_5, (None, u_bar), None)
        u_bar_1, _ = _zp_back_1(t_6)
        u_bar = _zp_zeros_if_none(u_bar_1, u_2)
    t_7 = (u_bar * (1 - u * u),)
    del u
    _zp_restore_final(_zp_final)
    return _zp_y, t_7
