def branches_grad(x):
    # cases.py:25  if x > 0.0:
    t = x > 0.0
    if t:
        # cases.py:26  y = x * x
        y = x * x
    else:
        # cases.py:27  elif x < -1.0:
        t_1 = x < -1.0
        if t_1:
            # cases.py:28  y = -x
            y = -x
        else:
            # cases.py:30  y = math.sin(x)
            y = math.sin(x)
    # cases.py:31  return y * 2.0
    _zp_y = y * 2.0
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return y * 2.0  cases.py:31
    y_bar = dy_1 * 2.0
    # grad of: if x > 0.0:  cases.py:25
    if t:
        # grad of: y = x * x  cases.py:26
        t_2 = _zp_summed_strong_times(y_bar, x, x)
        x_bar = t_2 * 2
    else:
        # grad of: elif x < -1.0:  cases.py:27
        if t_1:
            # grad of: y = -x  cases.py:28
            x_bar = -y_bar
        else:
            # grad of: y = math.sin(x)  cases.py:30
            x_bar = y_bar * math.cos(x)
    return _zp_y, (x_bar,)
