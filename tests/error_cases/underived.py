"""Calls whose rule has no derivative for one of their real-valued arguments,
made with that argument depending on the inputs: a silent zero if allowed."""

import numpy as np

from . import RAN


def quantile_active_q(x, q):
    RAN.append("quantile_active_q")
    return np.quantile(x, q)  # ERR


def norm_active_order(x, p):
    RAN.append("norm_active_order")
    return np.linalg.norm(x, ord=p)  # ERR


def pad_active_constant(x, c):
    RAN.append("pad_active_constant")
    return np.sum(np.pad(x, 1, constant_values=c))  # ERR


def max_active_default(x, d):
    RAN.append("max_active_default")
    return max([], default=d) + x  # ERR


def nan_to_num_active_fill(x, s):
    RAN.append("nan_to_num_active_fill")
    return np.sum(np.nan_to_num(x, nan=s))  # ERR


def max_with_where(x):
    RAN.append("max_with_where")
    return np.max(x, where=x > 0.5, initial=0.0)  # ERR


def interp_with_period(v):
    RAN.append("interp_with_period")
    return np.interp(0.3, np.array([0.0, 0.5]), v, period=1.0)  # ERR


def std_method_with_where(x):
    RAN.append("std_method_with_where")
    return x.std(where=np.array([True, False, True, True]))  # ERR


def interp_constant_knots(v):
    return np.interp(0.3, np.array([0.0, 0.5, 1.0]), v**2)


class Holder:
    def __init__(self, values):
        self.values = values

    def get(self):
        return self.values


def max_with_where_of_a_method_result(holder):
    # what a method returns is not known to be an array: np.max is dispatched while running
    a = holder.get()
    return np.max(a, where=a > 0.5, initial=0.0)  # ERR


def quantile_active_q_of_a_method_result(holder):
    # np.quantile is dispatched while running (its operands are not known to be arrays)
    v = holder.get()
    return np.quantile(v, v[0])  # ERR


def sum_active_initial(x, c):
    RAN.append("sum_active_initial")
    return np.sum(x, initial=c)  # ERR


def max_method_active_initial(x, c):
    RAN.append("max_method_active_initial")
    return x.max(initial=c)  # ERR


def var_active_mean(x, m):
    RAN.append("var_active_mean")
    return np.var(x, mean=m)  # ERR
