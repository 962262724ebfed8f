def comprehension_grad(xs):
    _zp_tape = []
    _zp_tape_1 = []
    # grad of: return sum([v * v for v in xs if v > 0.0])  cases.py:90
    _zp_acc = []
    _zp_trips = 0
    for v in xs:
        _zp_tape.append(v)
        t = v > 0.0
        if t:
            t_1 = _zp_acc + [v * v]
            _zp_acc = t_1
        _zp_trips = _zp_trips + 1
        _zp_tape_1.append(t)
    t_2, _zp_back = _zp_call(sum, (_zp_acc,), (None,), _zp_loc)
    dy_1 = _zp_check_scalar(t_2, _zp_return_loc)
    _, _zp_acc_bar = _zp_back(dy_1)
    xs_bar = None
    for _zp_i in reversed(range(_zp_trips)):
        v_1 = _zp_tape.pop()
        t_3 = _zp_tape_1.pop()
        if t_3:
            t_4 = _zp_split_last(_zp_acc_bar)
            t_5, t_6 = t_4
            if t_6 is not None:
                t_7 = _zp_unbroadcast(t_6 * v_1, v_1)
                t_8 = _zp_unbroadcast(t_6 * v_1, v_1)
                v_bar = t_7 + t_8
            else:
                v_bar = None
            _zp_acc_bar = t_5
        else:
            v_bar = None
        xs_bar = _zp_accum_index(xs_bar, xs, _zp_i, v_bar, False)
    return t_2, (xs_bar,)
