"""Bounded resources: a learner's state that cannot fit is refused before it is allocated, and a kernel model
that grows without bound says so once.

**State sizes.** A learner's state has sizes set by the data's width d (a linear learner's weights, d × K; a
diagonal covariance, d; a full covariance, d²; the d-long scatter buffer a kernel learner uses for sparse
rows) and by its parameters (NOGD's k × B Nyström map, FOGD's d × D directions). A LIBSVM file's width is its
largest feature index, so one line ``+1 2147483647:1`` makes d = 2³¹ − 1 even though the file is tiny: the
data stay sparse (CSR never allocates O(d)), but a dense d-vector would take 16 GiB. Each learner computes
the bytes its state needs before allocating anything and calls :func:`check_state_bytes`, which refuses
more than :func:`state_limit_bytes` with one ``ValueError`` naming the learner, what needs the memory, how
much, where the width comes from (:func:`widest_feature`) and the cheaper choice (``covariance='diagonal'``,
a budgeted learner, a smaller B or D, features renumbered to the ones in use).

The limit is half of the machine's physical memory (``os.sysconf("SC_PHYS_PAGES") * SC_PAGE_SIZE``): the
data, the per-block copies and the rest of the process need the other half, and a larger state would be
paged out or killed instead of failing cleanly. The environment variable ``OLKIT_MAX_STATE_BYTES`` sets
another limit (a number of bytes, optionally with a binary suffix: ``8G``, ``512M``).

**Support-set growth.** See :class:`SupportSetGrowthWarning`.
"""

import os
import re
import warnings

import numpy as np
import scipy.sparse as sp

STATE_LIMIT_ENV = "OLKIT_MAX_STATE_BYTES"

_SUFFIXES = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_bytes(text, variable):
    """A byte count from an environment variable: ``"2147483648"``, ``"2G"``, ``"512M"``, ``"1.5T"`` (binary
    suffixes K, M, G, T, optionally followed by ``iB`` or ``B``). ValueError naming ``variable`` otherwise."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([KMGT]?)(?:I?B)?\s*", str(text), flags=re.IGNORECASE)
    if match is None:
        raise ValueError(
            f"{variable}={text!r} is not a size; expected a number of bytes, optionally with a "
            f"suffix K, M, G or T (e.g. 2G)"
        )
    return int(float(match.group(1)) * _SUFFIXES[match.group(2).upper()])


def format_bytes(n):
    """``n`` bytes for a message: "16.0 GiB", "3.1 MiB", "800 bytes"."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"


def physical_memory_bytes():
    """The machine's physical memory, or None where the operating system does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def state_limit_bytes():
    """The most bytes one learner's state may take: ``OLKIT_MAX_STATE_BYTES`` if set, else half of the
    physical memory (1 TiB where the operating system does not report it)."""
    text = os.environ.get(STATE_LIMIT_ENV, "").strip()
    if text:
        return parse_bytes(text, STATE_LIMIT_ENV)
    memory = physical_memory_bytes()
    return memory // 2 if memory else 2**40


def _limit_words():
    source = (
        f"set by {STATE_LIMIT_ENV}"
        if os.environ.get(STATE_LIMIT_ENV, "").strip()
        else f"half of the physical memory; {STATE_LIMIT_ENV} sets another limit"
    )
    return f"the {format_bytes(state_limit_bytes())} a learner's state may take ({source})"


class StateTooLarge(ValueError):
    """A learner's state that cannot fit (:func:`check_state_bytes`). ``width`` is the data's width d when the
    width is what makes it too large (the command line then names the file's line holding the widest
    index), else None."""

    def __init__(self, message, width=None):
        super().__init__(message)
        self.width = width


def check_state_bytes(algorithm, what, nbytes, cheaper, width=None):
    """Refuse, before allocating, a state of ``nbytes`` bytes over :func:`state_limit_bytes`
    (:class:`StateTooLarge`, a ValueError).

    ``what`` says which part of the state needs them and why (e.g. "the weights of a linear model on the
    data's width d=..."; a callable giving that text is called only to word a refusal, e.g. for
    :func:`width_words`, which costs O(nnz)), ``cheaper`` the choice that needs less (e.g. "use
    covariance='diagonal'"; also as a callable); ``width``: the data's width when the state is d-sized."""
    if nbytes > state_limit_bytes():
        what = what() if callable(what) else what
        cheaper = cheaper() if callable(cheaper) else cheaper
        raise StateTooLarge(
            f"{algorithm}: {what} would take {format_bytes(nbytes)}, more than {_limit_words()}; {cheaper}", width
        )


def widest_feature(X):
    """Where a matrix's width comes from: ``(row, column)`` of a non-zero in its last used column, or None
    (dense X, no non-zero). O(nnz) for CSR; used only to word a refusal."""
    if not sp.issparse(X) or X.nnz == 0:
        return None
    X = X.tocsr()
    at = int(np.argmax(X.indices))
    return int(np.searchsorted(X.indptr, at, side="right") - 1), int(X.indices[at])


def width_words(X):
    """The data's width for a message: "the data's width d=2147483647 (largest feature: column 2147483646,
    row 1 of X; 3 columns in use)"; for dense X just the width."""
    d = X.shape[1]
    found = widest_feature(X)
    if found is None:
        return f"the data's width d={d}"
    row, column = found
    used = np.unique(X.tocsr().indices).size
    empty = "" if column == d - 1 else f", columns {column + 1}..{d - 1} empty padding"
    return f"the data's width d={d} (largest feature: column {column}, row {row} of X; {used} columns in use{empty})"


RENUMBER = "renumber the features to the ones in use (a LIBSVM file's width is its largest feature index)"
"""The cheaper choice when only the width makes a state too large."""


# ---- support-set growth --------------------------------------------------------------------------------------

SV_WARNING_THRESHOLD = 20_000
"""SVs after which an unbudgeted kernel learner warns (see :class:`SupportSetGrowthWarning`)."""


class SupportSetGrowthWarning(UserWarning):
    """An unbudgeted kernel learner's support set passed :data:`SV_WARNING_THRESHOLD` (20,000) support vectors.

    A kernel model f(·) = Σ_i a_i κ(x_i, ·) of a learner without a budget (pa1, perceptron, duol, ...: every
    kernel learner whose support set has no bound) keeps every example it updated on, so on a long stream its
    memory and the time of every prediction grow with the number of SVs (pa1 on 80,000 random examples: 62,000
    SVs, 48 → 313 µs per example). At 20,000 SVs the time per example is already several times that of the
    first thousand, while a budgeted learner (ahpatron, bogd, fogd, forgetron, nogd, pomdr, rbp, or
    projectron with B) keeps it constant. The warning is given once per learner, between two blocks of the
    online loop (never inside compiled code), and names the budgeted learners of the registry.
    """


_warned = None  # learners that gave the warning (a WeakSet: nothing is kept alive, nothing is saved with them)


def warn_support_growth(learner, n_sv):
    """Warn once per ``learner`` when its unbudgeted support set holds at least :data:`SV_WARNING_THRESHOLD` SVs."""
    global _warned
    if n_sv < SV_WARNING_THRESHOLD:
        return
    import weakref

    if _warned is None:
        _warned = weakref.WeakSet()
    if learner in _warned:
        return
    _warned.add(learner)
    from .spec import budgeted_names as budgeted

    warnings.warn(
        f"{learner.algorithm_name}: the kernel model holds {n_sv} support vectors (olkit warns from "
        f"{SV_WARNING_THRESHOLD}) and has no budget: its memory and its time per example grow with every "
        f"update; a budgeted learner keeps them bounded ({', '.join(budgeted())})",
        SupportSetGrowthWarning,
        stacklevel=2,
    )
