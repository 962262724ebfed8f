def helper_grad(a, b):
    # grad of: return a * b + np.tanh(a)  cases.py:63
    t = a * b
    t_1 = np.tanh(a)
    _zp_y = t + t_1
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    t_2 = _zp_unbroadcast(dy_1, t)
    t_3 = _zp_unbroadcast(dy_1, t_1)
    t_4 = _zp_unbroadcast(t_2 * b, a)
    t_5 = _zp_unbroadcast(t_2 * a, b)
    return _zp_y, (t_3 * (1 - t_1 * t_1) + t_4, t_5)
