def mlp_grad(W1, b1, W2, x):
    # cases.py:94  h = np.tanh(x @ W1 + b1)
    t = x @ W1
    t_shape = _zp_array_shape(t)
    h = np.tanh(t + b1)
    del t
    # cases.py:95  return np.sum((h @ W2) ** 2) / x.shape[0]
    t_1 = h @ W2
    t_2 = t_1 ** 2
    t_3 = np.sum(t_2)
    t_shape_1 = _zp_array_shape(t_3)
    t_4 = x.shape[0]
    _zp_y = t_3 / t_4
    del t_3
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return np.sum((h @ W2) ** 2) / x.shape[0]  cases.py:95
    t_5 = _zp_strong_zero(dy_1, dy_1 / t_4)
    del t_4
    t_6 = _zp_unbroadcast(t_5, t_shape_1)
    del t_5
    t_7 = _zp_expand_reduced(t_6, t_2, None, False)
    del t_6
    t_8 = _zp_like_input(t_7, t_2)
    del t_2, t_7
    t_9 = t_8 * 2 * t_1
    del t_1, t_8
    h_bar = _zp_matmul_cotangent_a(t_9, h, W2)
    W2_bar = _zp_matmul_cotangent_b(t_9, h, W2)
    del t_9
    # grad of: h = np.tanh(x @ W1 + b1)  cases.py:94
    t_10 = h_bar * (1 - h * h)
    del h, h_bar
    t_11 = _zp_unbroadcast(t_10, t_shape)
    b1_bar = _zp_unbroadcast(t_10, b1)
    del t_10
    x_bar = _zp_matmul_cotangent_a(t_11, x, W1)
    W1_bar = _zp_matmul_cotangent_b(t_11, x, W1)
    return _zp_y, (W1_bar, b1_bar, W2_bar, x_bar)
