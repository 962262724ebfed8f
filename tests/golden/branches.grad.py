def branches_grad(x):
    # grad of: if x > 0.0:  cases.py:25
    t = x > 0.0
    if t:
        # grad of: y = x * x  cases.py:26
        y = x * x
    else:
        # grad of: elif x < -1.0:  cases.py:27
        t_1 = x < -1.0
        if t_1:
            # grad of: y = -x  cases.py:28
            y = -x
        else:
            # grad of: y = math.sin(x)  cases.py:30
            y = math.sin(x)
    _zp_y = y * 2.0
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return y * 2.0  cases.py:31
    t_2 = dy_1 * 2.0
    # grad of: y = math.sin(x)  cases.py:30
    if t:
        # grad of: y = x * x  cases.py:26
        t_3 = _zp_unbroadcast(t_2 * x, x)
        t_4 = _zp_unbroadcast(t_2 * x, x)
        x_bar = t_3 + t_4
    else:
        # grad of: y = math.sin(x)  cases.py:30
        if t_1:
            # grad of: y = -x  cases.py:28
            x_bar = -t_2
        else:
            # grad of: y = math.sin(x)  cases.py:30
            x_bar = t_2 * math.cos(x)
    return _zp_y, (x_bar,)
