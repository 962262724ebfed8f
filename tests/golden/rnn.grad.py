def rnn_grad(W_h, W_x, b, xs):
    _zp_tape = [[]]
    # cases.py:99  h = np.zeros((xs.shape[1], W_h.shape[0]))
    h = np.zeros((xs.shape[1], W_h.shape[0]))
    # cases.py:100  for t in range(xs.shape[0]):
    tmp = xs.shape[0]
    _zp_spills = _zp_may_spill(_zp_tape, 8, range(tmp))
    for t in range(tmp):
        _zp_tape.append(h)
        # cases.py:101  h = np.tanh(h @ W_h.T + xs[t] @ W_x.T + b)
        T_1 = W_h.T
        tmp_1 = h @ T_1
        t_shape = _zp_array_shape(tmp_1)
        tmp_2 = xs[t]
        T_2 = W_x.T
        tmp_3 = tmp_2 @ T_2
        t_shape_1 = _zp_array_shape(tmp_3)
        tmp_4 = tmp_1 + tmp_3
        t_shape_2 = _zp_array_shape(tmp_4)
        h = np.tanh(tmp_4 + b)
        _zp_tape.append(h)
        _zp_tape.append(t_shape_2)
        _zp_tape.append(t_shape)
        _zp_tape.append(t_shape_1)
        _zp_tape.append(tmp_2)
        _zp_tape.append(T_2)
        _zp_tape.append(T_1)
        if _zp_spills and len(_zp_tape) > 16384:
            _zp_spill_tape(_zp_tape, 8)
    # cases.py:102  return np.sum(h ** 2)
    tmp_5 = h ** 2
    _zp_y = np.sum(tmp_5)
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return np.sum(h ** 2)  cases.py:102
    tmp_6 = _zp_expand_reduced(dy_1, tmp_5, None, False)
    tmp_7 = _zp_like_input(tmp_6, tmp_5)
    del tmp_5, tmp_6
    h_bar = tmp_7 * 2 * h
    del tmp_7
    b_bar, W_x_bar, xs_bar, W_h_bar = None, None, None, None
    # grad of: for t in range(xs.shape[0]):  cases.py:100
    _zp_refills = len(_zp_tape[0]) > 0
    for t_1 in reversed(range(tmp)):
        if _zp_refills and len(_zp_tape) == 1:
            _zp_refill_tape(_zp_tape)
        T_3 = _zp_tape.pop()
        T_4 = _zp_tape.pop()
        tmp_8 = _zp_tape.pop()
        t_shape_3 = _zp_tape.pop()
        t_shape_4 = _zp_tape.pop()
        t_shape_5 = _zp_tape.pop()
        h_1 = _zp_tape.pop()
        h_2 = _zp_tape.pop()
        # grad of: h = np.tanh(h @ W_h.T + xs[t] @ W_x.T + b)  cases.py:101
        tmp_9 = h_bar * (1 - h_1 * h_1)
        tmp_10 = _zp_unbroadcast(tmp_9, t_shape_5)
        tmp_11 = _zp_unbroadcast(tmp_9, b)
        b_bar = _zp_accum_owned(b_bar, tmp_11)
        tmp_12 = _zp_unbroadcast(tmp_10, t_shape_4)
        tmp_13 = _zp_unbroadcast(tmp_10, t_shape_3)
        tmp_14 = _zp_matmul_cotangent_a(tmp_13, tmp_8, T_4)
        T_bar = _zp_matmul_cotangent_b(tmp_13, tmp_8, T_4)
        W_x_bar = _zp_accum_owned(W_x_bar, T_bar.T)
        xs_bar = _zp_accum_index(xs_bar, xs, t_1, tmp_14, False)
        h_bar = _zp_matmul_cotangent_a(tmp_12, h_2, T_3)
        T_bar_1 = _zp_matmul_cotangent_b(tmp_12, h_2, T_3)
        W_h_bar = _zp_accum_owned(W_h_bar, T_bar_1.T)
    return _zp_y, (W_h_bar, W_x_bar, b_bar, xs_bar)
