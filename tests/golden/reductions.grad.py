def reductions_grad(x):
    # cases.py:106  m = np.mean(x, axis=0, keepdims=True)
    m = np.mean(x, axis=0, keepdims=True)
    m_shape = _zp_array_shape(m)
    # cases.py:107  return np.sum((x - m) ** 2) + np.max(x)
    t = x - m
    del m
    t_1 = t ** 2
    t_2 = np.sum(t_1)
    t_shape = _zp_array_shape(t_2)
    t_3 = np.max(x)
    _zp_y = t_2 + t_3
    del t_2
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return np.sum((x - m) ** 2) + np.max(x)  cases.py:107
    t_4 = _zp_unbroadcast(dy_1, t_shape)
    t_5 = _zp_unbroadcast(dy_1, t_3)
    t_6 = np.equal(x, t_3)
    x_bar = _zp_like_input(t_6 * (t_5 / np.sum(t_6, axis=None, keepdims=True, dtype=t_3.dtype)), x)
    del t_3, t_5, t_6
    t_7 = _zp_expand_reduced(t_4, t_1, None, False)
    del t_4
    t_8 = _zp_like_input(t_7, t_1)
    del t_1, t_7
    t_9 = t_8 * 2 * t
    del t, t_8
    t_10 = _zp_unbroadcast(t_9, x)
    t_11 = _zp_unbroadcast(t_9, m_shape)
    del t_9
    m_bar = -t_11
    del t_11
    x_bar_1 = _zp_accum(x_bar, t_10)
    del t_10, x_bar
    # grad of: m = np.mean(x, axis=0, keepdims=True)  cases.py:106
    t_12 = _zp_reduced_size(x, 0)
    t_13 = _zp_expand_reduced(m_bar / t_12, x, 0, True)
    del m_bar, t_12
    t_14 = _zp_like_input(t_13, x)
    del t_13
    x_bar_2 = _zp_accum(x_bar_1, t_14)
    return _zp_y, (x_bar_2,)
