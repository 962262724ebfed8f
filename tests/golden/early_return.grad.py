def early_return_grad(x, n):
    _zp_tape = [[]]
    _zp_return, _zp_retval, _zp_trips = False, None, 0
    # cases.py:44  for i in range(n):
    _zp_spills = _zp_may_spill(_zp_tape, 2, range(n))
    for _ in range(n):
        # cases.py:45  if x > 5.0:
        t = x > 5.0
        if t:
            _zp_return_1, _zp_retval = True, x
        else:
            _zp_return_1 = _zp_return
        if _zp_return_1:
            _zp_return = _zp_return_1
        else:
            # cases.py:47  x = x * 2.0
            x = x * 2.0
            _zp_return = False
        _zp_trips = _zp_trips + 1
        _zp_tape.append(_zp_return_1)
        _zp_tape.append(t)
        if _zp_spills and len(_zp_tape) > 16384:
            _zp_spill_tape(_zp_tape, 2)
        if _zp_return:
            break
    # cases.py:44  for i in range(n):
    if _zp_return:
        _zp_retval_1 = _zp_retval
    else:
        # cases.py:48  return -x
        _zp_retval_1 = -x
    dy_1 = _zp_check_scalar(_zp_retval_1, _zp_return_loc)
    # grad of: for i in range(n):  cases.py:44
    if _zp_return:
        _zp_retval_bar, x_bar = dy_1, None
    else:
        # grad of: return -x  cases.py:48
        x_bar = -dy_1
        _zp_retval_bar = None
    # grad of: for i in range(n):  cases.py:44
    _zp_refills = len(_zp_tape[0]) > 0
    for _ in reversed(range(n)[slice(None, _zp_trips)]):
        if _zp_refills and len(_zp_tape) == 1:
            _zp_refill_tape(_zp_tape)
        t_1 = _zp_tape.pop()
        _zp_return_2 = _zp_tape.pop()
        # grad of: if x > 5.0:  cases.py:45
        if _zp_return_2:
            x_bar_1 = x_bar
        else:
            # grad of: x = x * 2.0  cases.py:47
            if x_bar is not None:
                x_bar_1 = x_bar * 2.0
            else:
                x_bar_1 = None
        # grad of: if x > 5.0:  cases.py:45
        if t_1:
            x_bar = _zp_accum(x_bar_1, _zp_retval_bar)
            _zp_retval_bar = None
        else:
            x_bar = x_bar_1
    return _zp_retval_1, (x_bar, None)
