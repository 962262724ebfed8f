def mlp_grad(W1, b1, W2, x):
    # grad of: h = np.tanh(x @ W1 + b1)  cases.py:94
    t = x @ W1
    t_1 = np.tanh(t + b1)
    # grad of: return np.sum((h @ W2) ** 2) / x.shape[0]  cases.py:95
    t_2 = t_1 @ W2
    t_3 = t_2 ** 2
    t_4 = np.sum(t_3)
    t_5 = x.shape[0]
    _zp_y = t_4 / t_5
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    t_6 = _zp_unbroadcast(dy_1 / t_5, t_4)
    t_7 = _zp_expand_reduced(t_6, t_3, None, False)
    t_8 = _zp_like_input(t_7, t_3)
    t_9 = t_8 * 2 * t_2
    t_10 = _zp_matmul_cotangent_a(t_9, t_1, W2)
    t_11 = _zp_matmul_cotangent_b(t_9, t_1, W2)
    # grad of: h = np.tanh(x @ W1 + b1)  cases.py:94
    t_12 = t_10 * (1 - t_1 * t_1)
    t_13 = _zp_unbroadcast(t_12, t)
    t_14 = _zp_unbroadcast(t_12, b1)
    t_15 = _zp_matmul_cotangent_a(t_13, x, W1)
    t_16 = _zp_matmul_cotangent_b(t_13, x, W1)
    return _zp_y, (t_16, t_14, t_11, t_15)
