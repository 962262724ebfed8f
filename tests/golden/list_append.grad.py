def list_append_grad(x):
    _zp_tape = [[]]
    # cases.py:81  hs = []
    hs = []
    h = x
    # cases.py:83  for t in range(3):
    _zp_spills = _zp_may_spill(_zp_tape, 1, range(3))
    for _ in range(3):
        # cases.py:84  h = np.tanh(h * 1.5)
        h = np.tanh(h * 1.5)
        # cases.py:85  hs.append(h)
        hs.append(h)
        _zp_tape.append(h)
        if _zp_spills and len(_zp_tape) > 16384:
            _zp_spill_tape(_zp_tape, 1)
    # cases.py:86  return np.sum(np.stack(hs))
    tmp = np.stack(hs)
    t_shape = _zp_array_shape(tmp)
    _zp_y = np.sum(tmp)
    del tmp
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return np.sum(np.stack(hs))  cases.py:86
    tmp_1 = _zp_expand_reduced(dy_1, t_shape, None, False)
    tmp_2 = _zp_like_input(tmp_1, t_shape)
    del tmp_1
    tmp_3 = list(np.moveaxis(tmp_2, 0, 0))
    del tmp_2
    if type(hs) is _zp_list:
        hs_bar = tmp_3
    else:
        hs_bar = tuple(tmp_3)
    del hs, tmp_3
    h_bar = None
    # grad of: for t in range(3):  cases.py:83
    _zp_refills = len(_zp_tape[0]) > 0
    for _ in reversed(range(3)):
        if _zp_refills and len(_zp_tape) == 1:
            _zp_refill_tape(_zp_tape)
        h_1 = _zp_tape.pop()
        # grad of: hs.append(h)  cases.py:85
        tmp_4 = _zp_split_last(hs_bar)
        hs_bar, tmp_5 = tmp_4
        h_bar_1 = _zp_accum(h_bar, tmp_5)
        # grad of: h = np.tanh(h * 1.5)  cases.py:84
        if h_bar_1 is not None:
            v_bar = h_bar_1 * (1 - h_1 * h_1)
        else:
            v_bar = None
        if v_bar is not None:
            h_bar = v_bar * 1.5
        else:
            h_bar = None
    return _zp_y, (h_bar,)
