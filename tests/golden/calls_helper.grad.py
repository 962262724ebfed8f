def calls_helper_grad(x, y):
    # grad of: return helper(x, y) + helper(y, 2.0)  cases.py:67
    t, _zp_back = _zp_helper_pullback(x, y)
    t_1, _zp_back_1 = _zp_helper_pullback_2(y, 2.0)
    _zp_y = t + t_1
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    t_2 = _zp_unbroadcast(dy_1, t)
    t_3 = _zp_unbroadcast(dy_1, t_1)
    t_4, _ = _zp_back_1(t_3)
    t_5, t_6 = _zp_back(t_2)
    t_7 = _zp_accum(t_4, t_6)
    return _zp_y, (t_5, t_7)
