"""Orderings of a stream: the random permutations of the runs, the validation ordering of parameter
selection, and ordering files (``olkit run --order FILE``, docs/dev/architecture.md#the-olkit-run-command).

A module of its own so that the runner and the tuning both use it without importing each other.
"""

from collections.abc import Sequence

import numpy as np

MAX_REPEATS = 10_000
"""Most orderings of one experiment: every ordering's run record (with its curve) is kept in the results
document and, with ``--out``, as a cell file — 10,000 orderings are already far more than any paper's 20."""


def check_repeats(repeats, option="repeats"):
    """ValueError unless ``repeats`` is an integer 1..:data:`MAX_REPEATS` (``option`` names it)."""
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"{option} must be >= 1, got {repeats!r}")
    if repeats > MAX_REPEATS:
        raise ValueError(
            f"{option} must be <= {MAX_REPEATS}, got {repeats}: each ordering is one run whose record "
            "(with its curve) is kept in the results (the papers use 20)"
        )


class Orderings(Sequence):
    """``repeats`` random permutations of 0..n-1, drawn one at a time when asked for: item r is
    ("seed:<seed+r>", ``np.random.default_rng(seed + r).permutation(n)``), so nothing of size
    n × repeats is ever built (issue 21) and each ordering is the same, bit for bit, wherever it is drawn."""

    def __init__(self, n, repeats, seed):
        check_repeats(repeats)
        self.n, self.repeats, self.seed = int(n), int(repeats), int(seed)

    def __len__(self):
        return self.repeats

    def __getitem__(self, r):
        if isinstance(r, slice):
            return [self[i] for i in range(*r.indices(self.repeats))]
        r = range(self.repeats)[r]  # IndexError outside; negative indices count from the end
        return f"seed:{self.seed + r}", np.random.default_rng(self.seed + r).permutation(self.n)

    @property
    def labels(self):
        """The orderings' labels, without drawing them."""
        return [f"seed:{self.seed + r}" for r in range(self.repeats)]

    def __repr__(self):
        return f"Orderings(n={self.n}, repeats={self.repeats}, seed={self.seed})"


def make_orders(n, repeats=20, seed=0):
    """``repeats`` random permutations of 0..n-1 as a lazy sequence of (label, ordering) (:class:`Orderings`);
    ordering r is drawn from seed + r ("seed:<seed+r>")."""
    return Orderings(n, repeats, seed)


def labels_of(orders):
    """The labels of a sequence of (label, ordering): without drawing the orderings of :class:`Orderings`."""
    return orders.labels if isinstance(orders, Orderings) else [label for label, _ in orders]


def validation_order(n, seed):
    """The validation ordering of parameter selection in the runner: the first run ordering ("seed:<seed>")."""
    return make_orders(n, 1, seed)[0][1]


def read_order_file(path):
    """An ordering file: one 0-based example index per line (``#`` starts a comment), as written: integers, or
    floats when an index is written as one. The indices are checked by :func:`olkit.protocol.check_order`
    (the one rule of ``evaluate_online(order=...)`` and ``--order FILE``), an empty file included."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # numpy's "input contained no data": refused by the check
            try:
                return np.loadtxt(path, dtype=np.int64, ndmin=1, comments="#")
            except ValueError:  # "3.0", "1e2", "0.5": read as floats, judged by the check like the library's
                return np.loadtxt(path, dtype=float, ndmin=1, comments="#")
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read order file {path}: {exc}") from None
