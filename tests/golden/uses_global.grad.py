def uses_global_grad(x):
    # cases.py:111  return np.sum(W_GLOBAL @ x)
    W_GLOBAL_1 = W_GLOBAL
    t = W_GLOBAL_1 @ x
    t_shape = _zp_array_shape(t)
    _zp_y = np.sum(t)
    del t
    dy_1 = _zp_check_scalar(_zp_y, _zp_return_loc)
    # grad of: return np.sum(W_GLOBAL @ x)  cases.py:111
    t_1 = _zp_expand_reduced(dy_1, t_shape, None, False)
    t_2 = _zp_like_input(t_1, t_shape)
    del t_1
    x_bar = _zp_matmul_cotangent_b(t_2, W_GLOBAL_1, x)
    return _zp_y, (x_bar,)
