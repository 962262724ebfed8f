def comprehension_grad(xs):
    _zp_tape = [[]]
    # cases.py:90  return sum([v * v for v in xs if v > 0.0])
    _zp_acc = []
    _zp_trips = 0
    for v in xs:
        _zp_tape.append(v)
        t = v > 0.0
        if t:
            _zp_acc.append(v * v)
        _zp_trips = _zp_trips + 1
        _zp_tape.append(t)
        if len(_zp_tape) > 16384:
            _zp_spill_tape(_zp_tape, 2)
    _zp_y = sum(_zp_acc)
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return sum([v * v for v in xs if v > 0.0])  cases.py:90
    _zp_acc_bar = _zp_sum_cotangent(dy_1, _zp_acc, 0)
    xs_bar = None
    _zp_refills = len(_zp_tape[0]) > 0
    for _zp_i in reversed(range(_zp_trips)):
        if _zp_refills and len(_zp_tape) == 1:
            _zp_refill_tape(_zp_tape)
        t_1 = _zp_tape.pop()
        v_1 = _zp_tape.pop()
        if t_1:
            t_2 = _zp_split_last(_zp_acc_bar)
            t_3, t_4 = t_2
            if t_4 is not None:
                t_5 = _zp_summed_strong_times(t_4, v_1, v_1)
                v_bar = t_5 * 2
            else:
                v_bar = None
            _zp_acc_bar = t_3
        else:
            v_bar = None
        xs_bar = _zp_accum_item(xs_bar, xs, _zp_i, v_bar, False)
    return _zp_y, (xs_bar,)
