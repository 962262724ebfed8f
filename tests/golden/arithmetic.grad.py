def arithmetic_grad(x, y):
    # cases.py:15  return x * y + x / (1.0 + y * y) - 2.0 * x
    t = x * y
    t_shape = _zp_array_shape(t)
    t_1 = 1.0 + y * y
    t_2 = x / t_1
    t_3 = t + t_2
    del t
    t_shape_1 = _zp_array_shape(t_3)
    t_4 = 2.0 * x
    t_shape_2 = _zp_array_shape(t_4)
    _zp_y = t_3 - t_4
    del t_3, t_4
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return x * y + x / (1.0 + y * y) - 2.0 * x  cases.py:15
    t_5 = _zp_unbroadcast(dy_1, t_shape_1)
    t_6 = _zp_unbroadcast(dy_1, t_shape_2)
    t_7 = _zp_unbroadcast(t_5, t_shape)
    t_8 = _zp_unbroadcast(t_5, t_2)
    del t_5
    t_9 = _zp_strong_zero(t_8, t_8 / t_1)
    del t_8
    t_10 = _zp_unbroadcast(t_9, x)
    t_11 = _zp_strong_zero(t_9, -t_9 * t_2)
    del t_2, t_9
    t_12 = _zp_unbroadcast(t_11, t_1)
    del t_1, t_11
    t_13 = _zp_summed_strong_times(t_12, y, y)
    del t_12
    t_14 = _zp_summed_strong_times(t_7, y, x)
    t_15 = _zp_summed_strong_times(t_7, x, y)
    return _zp_y, (-t_6 * 2.0 + t_10 + t_14, t_13 * 2 + t_15)
