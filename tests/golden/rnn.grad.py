def rnn_grad(W_h, W_x, b, xs):
    _zp_tape = []
    _zp_tape_1 = []
    # grad of: h = np.zeros((xs.shape[1], W_h.shape[0]))  cases.py:99
    h = np.zeros((xs.shape[1], W_h.shape[0]))
    # grad of: for t in range(xs.shape[0]):  cases.py:100
    t_1 = xs.shape[0]
    for t in range(t_1):
        _zp_tape.append(h)
        # grad of: h = np.tanh(h @ W_h.T + xs[t] @ W_x.T + b)  cases.py:101
        T_1 = W_h.T
        t_2 = h @ T_1
        t_3 = xs[t]
        T_2 = W_x.T
        t_4 = t_3 @ T_2
        t_5 = t_2 + t_4
        h = np.tanh(t_5 + b)
        _zp_tape_1.append((h, t_5, t_2, t_4, t_3, T_2, T_1))
    # grad of: return np.sum(h ** 2)  cases.py:102
    t_6 = h ** 2
    _zp_y = np.sum(t_6)
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    t_7 = _zp_expand_reduced(dy_1, t_6, None, False)
    t_8 = _zp_like_input(t_7, t_6)
    h_bar = t_8 * 2 * h
    b_bar, W_x_bar, xs_bar, W_h_bar = None, None, None, None
    # grad of: for t in range(xs.shape[0]):  cases.py:100
    for t_9 in reversed(range(t_1)):
        h_1 = _zp_tape.pop()
        t_10, t_11, t_12, t_13, t_14, T_3, T_4 = _zp_tape_1.pop()
        # grad of: h = np.tanh(h @ W_h.T + xs[t] @ W_x.T + b)  cases.py:101
        t_15 = h_bar * (1 - t_10 * t_10)
        t_16 = _zp_unbroadcast(t_15, t_11)
        t_17 = _zp_unbroadcast(t_15, b)
        b_bar = _zp_accum(b_bar, t_17)
        t_18 = _zp_unbroadcast(t_16, t_12)
        t_19 = _zp_unbroadcast(t_16, t_13)
        t_20 = _zp_matmul_cotangent_a(t_19, t_14, T_3)
        t_21 = _zp_matmul_cotangent_b(t_19, t_14, T_3)
        W_x_bar = _zp_accum(W_x_bar, t_21.T)
        xs_bar = _zp_accum_index(xs_bar, xs, t_9, t_20, False)
        h_bar = _zp_matmul_cotangent_a(t_18, h_1, T_4)
        t_22 = _zp_matmul_cotangent_b(t_18, h_1, T_4)
        W_h_bar = _zp_accum(W_h_bar, t_22.T)
    return _zp_y, (W_h_bar, W_x_bar, b_bar, xs_bar)
