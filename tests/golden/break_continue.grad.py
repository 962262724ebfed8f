def break_continue_grad(xs):
    _zp_tape = [[]]
    _zp_tape_1 = [[]]
    _zp_tape_2 = [[]]
    s, _zp_break, _zp_trips = 0.0, False, 0
    # cases.py:53  for v in xs:
    for v in xs:
        _zp_tape_2.append(s)
        _zp_tape_2.append(v)
        # cases.py:54  if v < 0.0:
        if v < 0.0:
            _zp_continue = True
        else:
            _zp_continue = False
        t = _zp_break or _zp_continue
        if not t:
            # cases.py:56  if s > 3.0:
            if s > 3.0:
                _zp_break_1 = True
            else:
                _zp_break_1 = False
            if _zp_break_1:
                _zp_break = _zp_break_1
            else:
                # cases.py:58  s += v * v
                t_1 = v * v
                t_shape = _zp_array_shape(t_1)
                s = s + t_1
                _zp_tape.append(t_shape)
                if len(_zp_tape) > 16384:
                    _zp_spill_tape(_zp_tape, 1)
                _zp_break = False
            _zp_tape_1.append(_zp_break_1)
            if len(_zp_tape_1) > 16384:
                _zp_spill_tape(_zp_tape_1, 1)
        _zp_trips = _zp_trips + 1
        _zp_tape_2.append(t)
        if len(_zp_tape_2) > 16384:
            _zp_spill_tape(_zp_tape_2, 3)
        if _zp_break:
            break
    dy_1 = _zp_check_scalar(s, _zp_return_loc)
    s_bar, xs_bar = dy_1, None
    # grad of: for v in xs:  cases.py:53
    _zp_refills = len(_zp_tape_2[0]) > 0
    for _zp_i in reversed(range(_zp_trips)):
        if _zp_refills and len(_zp_tape_2) == 1:
            _zp_refill_tape(_zp_tape_2)
        t_2 = _zp_tape_2.pop()
        v_1 = _zp_tape_2.pop()
        s_1 = _zp_tape_2.pop()
        # grad of: if v < 0.0:  cases.py:54
        if t_2:
            v_bar = None
        else:
            if len(_zp_tape_1) == 1:
                _zp_refill_tape(_zp_tape_1)
            _zp_break_2 = _zp_tape_1.pop()
            # grad of: if s > 3.0:  cases.py:56
            if _zp_break_2:
                v_bar = None
            else:
                if len(_zp_tape) == 1:
                    _zp_refill_tape(_zp_tape)
                t_shape_1 = _zp_tape.pop()
                # grad of: s += v * v  cases.py:58
                t_3 = _zp_unbroadcast(s_bar, s_1)
                t_4 = _zp_unbroadcast(s_bar, t_shape_1)
                t_5 = _zp_summed_strong_times(t_4, v_1, v_1)
                v_bar = t_5 * 2
                s_bar = t_3
        # grad of: for v in xs:  cases.py:53
        xs_bar = _zp_accum_item(xs_bar, xs, _zp_i, v_bar, False)
    return s, (xs_bar,)
