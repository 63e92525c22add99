"""Compiling ahead of time: ``olkit warmup [ALGO ...]`` (issue 25).

A process that runs an algorithm for the first time on a machine compiles its block loop (seconds per
loop) and stores the machine code in the compile cache (docs/guide/reproducibility.md#the-compile-cache);
later processes load it. :func:`warm_up` does that first compile up front, e.g. while a CI image or the image
of Dask workers is built, so that no run, test or worker pays it later, and no two processes compile the
same loop at once.

For each algorithm it runs a short online run (:func:`olkit.evaluate_online`, the protocol a run of
``olkit run`` follows: the learner's warm-up, then a pass) on tiny synthetic data, once for each kind of data
the learner learns from (binary; multiclass and multi-label where it has them) and each storage of the input
(dense rows; dense rows of integers from 0 to 255, for which a kernel learner whose Gram cache may be dropped
compiles its loop with a byte copy of its SVs, ``SupportSet.admit``; and sparse rows too sparse to be
densified), under its default parameters and, for a
learner with a ``kernel`` parameter, under each kernel asked for. No dataset is read. Everything a run
with those settings compiles is then in the cache: the block loop and the compiled helpers a pass calls
from Python, and the scores of ``predict`` / ``decision_function`` (``olkit predict``). Other parameter
values that select another compiled rule (e.g. a ``--set`` option) compile on their first run as before.
"""

import time

import numpy as np
import scipy.sparse as sp

N_ROWS = 12
"""Examples of the synthetic streams (every class appears; a few updates happen)."""
STORAGES = ("dense", "indicator", "sparse")
"""The inputs of the synthetic streams: dense rows, dense 0/1 rows, sparse rows (see the module docstring)."""
N_FEATURES = 60
"""Width of the synthetic streams: the sparse one, one or two non-zeros per row (density < 0.04), stays
sparse in every learner (the kernel learners densify only streams of density >= 0.1)."""


def streams():
    """{(kind, storage): (X, y)}: the tiny synthetic streams, for kind in binary, multiclass, multilabel and
    storage in :data:`STORAGES` (fixed, not random: the same on every machine)."""
    rows = np.arange(N_ROWS)
    dense = np.zeros((N_ROWS, N_FEATURES))
    dense[rows, rows % N_FEATURES] = 1.0
    dense[rows, (3 * rows + 1) % N_FEATURES] = -0.5
    sparse = sp.csr_matrix(dense)
    indicator = (dense != 0.0).astype(np.float64)
    labels = {
        "binary": np.where(rows % 2 == 0, 1, -1),
        "multiclass": rows % 3,
        "multilabel": np.stack([rows % 2 == 0, rows % 3 == 0, rows % 2 == 1], axis=1).astype(np.int8),
    }
    out = {}
    for kind, y in labels.items():
        out[kind, "dense"] = (dense, y)
        out[kind, "indicator"] = (indicator, y)
        out[kind, "sparse"] = (sparse, y)
    return out


def kinds(learner):
    """The kinds of data ``learner`` (under its parameters) learns from, of :data:`olkit.spec.DATA_KINDS`."""
    found = ["binary"]
    if learner._multiclass:
        found.append("multiclass")
    if learner._multilabel:
        found.append("multilabel")
    return found


def variants(names=None, kernel=None, settings=None):
    """{name: [params, ...]} in the order given: each algorithm under its defaults (``{}``), and under the
    ``settings`` it has (``--set`` values, plus ``kernel`` as the key "kernel") where they are not all its
    defaults already. ``names`` None: every registered algorithm, with the settings it has and accepts (FOGD, e.g.,
    has the Gaussian kernel only: a ``kernel="linear"`` leaves it at its defaults). Given names: an unknown name, a
    setting none of them has, or a value a named algorithm does not accept, is a ValueError naming what is valid
    (as ``olkit run``)."""
    from .experiment.runner import split_params
    from .registry import defaults, get, make
    from .registry import names as all_names

    settings = {**(settings or {}), **({} if kernel is None else {"kernel": kernel})}
    if names:
        given = split_params(names, settings)  # validates names, keys and values
    else:
        given = []
        for name in all_names():
            valid = get(name)._get_param_names()
            # the values it accepts (not a kernel it does not offer, say), if it accepts them together
            params = {k: v for k, v in settings.items() if k in valid and _accepts(make, name, {k: v})}
            given.append((name, params if _accepts(make, name, params) else {}))
    out: dict[str, list[dict]] = {}
    for name, params in given:
        runs = out.setdefault(name, [{}])
        own = defaults(name)
        if any(own.get(k) != v for k, v in params.items()) and params not in runs:
            runs.append(params)
    return out


def _accepts(make, name, params):
    """Whether algorithm ``name`` takes ``params`` (``make`` raises no ValueError)."""
    try:
        make(name, **params)
    except ValueError:
        return False
    return True


def warm_up(name, params=None):
    """Compile (or load from the cache) everything a run of algorithm ``name`` with ``params`` uses, and its
    predictions, on every kind of data it learns from, dense and sparse input. Returns the seconds it took."""
    from .protocol import evaluate_online
    from .registry import make

    start = time.perf_counter()
    data = streams()
    for kind in kinds(make(name, **(params or {}))):
        for storage in STORAGES:
            X, y = data[kind, storage]
            learner = make(name, **(params or {}))
            evaluate_online(learner, X, y, n_checkpoints=1)
            learner.decision_function(X)  # the scores of predict (olkit predict, a saved model) on this storage
    return time.perf_counter() - start
