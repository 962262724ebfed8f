def helper_grad(a, b):
    # cases.py:63  return a * b + np.tanh(a)
    t = a * b
    t_shape = _zp_array_shape(t)
    t_1 = np.tanh(a)
    _zp_y = t + t_1
    del t
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return a * b + np.tanh(a)  cases.py:63
    t_2 = _zp_unbroadcast(dy_1, t_shape)
    t_3 = _zp_unbroadcast(dy_1, t_1)
    t_4 = _zp_summed_strong_times(t_2, b, a)
    b_bar = _zp_summed_strong_times(t_2, a, b)
    return _zp_y, (t_3 * (1 - t_1 * t_1) + t_4, b_bar)
