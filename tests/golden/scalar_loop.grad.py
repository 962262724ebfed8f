def scalar_loop_grad(x):
    _zp_tape = []
    _zp_tape_1 = []
    # cases.py:19  for i in range(10):
    for _ in range(10):
        _zp_tape.append(x)
        # cases.py:20  x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
        t = np.sin(x)
        t_1 = t * x
        t_2 = 0.5 * np.cos(x)
        t_3 = 1 + x * x
        t_4 = t_2 / t_3
        x = t_1 + t_4
        _zp_tape_1.append((t_1, t_4, t_2, t_3, t))
    dy_1 = _zp_check_scalar(x, _zp_return_loc)
    x_bar = dy_1
    # grad of: for i in range(10):  cases.py:19
    for _ in reversed(range(10)):
        x_1 = _zp_tape.pop()
        t_5, t_6, t_7, t_8, t_9 = _zp_tape_1.pop()
        # grad of: x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)  cases.py:20
        t_10 = _zp_unbroadcast(x_bar, t_5)
        t_11 = _zp_unbroadcast(x_bar, t_6)
        t_12 = _zp_strong_zero(t_11, t_11 / t_8)
        t_13 = _zp_unbroadcast(t_12, t_7)
        t_14 = _zp_strong_zero(t_12, -t_12 * t_6)
        t_15 = _zp_unbroadcast(t_14, t_8)
        t_16 = _zp_strong_zero(t_15, t_15 * x_1)
        x_bar_1 = _zp_unbroadcast(t_16, x_1)
        t_17 = _zp_strong_zero(t_15, t_15 * x_1)
        t_18 = _zp_unbroadcast(t_17, x_1)
        t_19 = _zp_strong_zero(t_10, t_10 * x_1)
        t_20 = _zp_unbroadcast(t_19, t_9)
        t_21 = _zp_strong_zero(t_10, t_10 * t_9)
        t_22 = _zp_unbroadcast(t_21, x_1)
        x_bar = x_bar_1 + t_18 + -(t_13 * 0.5) * np.sin(x_1) + t_22 + t_20 * np.cos(x_1)
    return x, (x_bar,)
