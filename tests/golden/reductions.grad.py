def reductions_grad(x):
    # grad of: m = np.mean(x, axis=0, keepdims=True)  cases.py:106
    t = np.mean(x, axis=0, keepdims=True)
    # grad of: return np.sum((x - m) ** 2) + np.max(x)  cases.py:107
    t_1 = x - t
    t_2 = t_1 ** 2
    t_3 = np.sum(t_2)
    t_4 = np.max(x)
    _zp_y = t_3 + t_4
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    t_5 = _zp_unbroadcast(dy_1, t_3)
    t_6 = _zp_unbroadcast(dy_1, t_4)
    t_7 = np.equal(x, t_4)
    t_8 = _zp_like_input(t_7 * (t_6 / np.sum(t_7, axis=None, keepdims=True, dtype=t_4.dtype)), x)
    t_9 = _zp_expand_reduced(t_5, t_2, None, False)
    t_10 = _zp_like_input(t_9, t_2)
    t_11 = t_10 * 2 * t_1
    t_12 = _zp_unbroadcast(t_11, x)
    t_13 = _zp_unbroadcast(-t_11, t)
    t_14 = _zp_accum(t_8, t_12)
    # grad of: m = np.mean(x, axis=0, keepdims=True)  cases.py:106
    t_15 = _zp_reduced_size(x, 0)
    t_16 = _zp_expand_reduced(t_13 / t_15, x, 0, True)
    t_17 = _zp_like_input(t_16, x)
    t_18 = _zp_accum(t_14, t_17)
    return _zp_y, (t_18,)
