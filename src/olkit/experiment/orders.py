"""Orderings of a stream: the random permutations of the runs, the validation ordering of parameter
selection, and ordering files (``olkit run --order FILE``, DESIGN.md §2.3).

A module of its own so that the runner and the tuning both use it without importing each other.
"""
import numpy as np


def make_orders(n, repeats=20, seed=0):
    """``repeats`` random permutations of 0..n-1; ordering r is drawn from seed + r ("seed:<seed+r>")."""
    return [(f"seed:{seed + r}", np.random.default_rng(seed + r).permutation(n)) for r in range(repeats)]


def validation_order(n, seed):
    """The validation ordering of parameter selection in the runner: the first run ordering ("seed:<seed>")."""
    return make_orders(n, 1, seed)[0][1]


def read_order_file(path):
    """An ordering file: one 0-based example index per line."""
    try:
        order = np.loadtxt(path, dtype=np.int64, ndmin=1, comments="#")
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read order file {path}: {exc}") from None
    if order.size == 0:
        raise ValueError(f"order file {path} holds no indices")
    return order  # the indices are checked against the data by evaluate_online
