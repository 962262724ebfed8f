def closure_grad(x):
    # cases.py:76  g = lambda t: f(t) + 1.0  # noqa: E731
    t = x * 3.0 + 1.0
    # cases.py:74  return t * scale
    t_1 = x * 3.0
    # cases.py:77  return g(x) * f(x)
    _zp_y = t * t_1
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return g(x) * f(x)  cases.py:77
    t_2 = _zp_summed_strong_times(dy_1, t_1, t)
    t_3 = _zp_summed_strong_times(dy_1, t, t_1)
    return _zp_y, (t_3 * 3.0 + t_2 * 3.0,)
