def calls_helper_grad(x, y):
    # cases.py:67  return helper(x, y) + helper(y, 2.0)
    t, _zp_back = _zp_helper_pullback(x, y)
    t_shape = _zp_array_shape(t)
    t_1, _zp_back_1 = _zp_helper_pullback_2(y, 2.0)
    t_shape_1 = _zp_array_shape(t_1)
    _zp_y = t + t_1
    del t, t_1
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return helper(x, y) + helper(y, 2.0)  cases.py:67
    t_2 = _zp_unbroadcast(dy_1, t_shape)
    t_3 = _zp_unbroadcast(dy_1, t_shape_1)
    y_bar, _ = _zp_back_1(t_3)
    del _zp_back_1, t_3
    x_bar, t_4 = _zp_back(t_2)
    del _zp_back, t_2
    y_bar_1 = _zp_accum(y_bar, t_4)
    return _zp_y, (x_bar, y_bar_1)
