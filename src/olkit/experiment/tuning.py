"""Parameter selection as in the SCW experiments (docs/algorithms/evaluation.md#parameter-selection; LIBOL
``CV_algorithm.m``).

For each learner, each tuned parameter in turn (C first, then η — one at a time, the others fixed at
their current values): one online pass over the whole dataset in a fixed validation ordering per
candidate value, keep the value with the fewest cumulative mistakes; ties go to the later (larger)
value, as LIBOL's ``<=`` comparison does. Candidates of one parameter run in parallel (joblib).

The grids are the registry entries' ``tuning`` (each algorithm's file declares its own; see
:data:`olkit.params.POWERS_OF_TWO`, ``CONFIDENCES``, ``DECAYS``): C of PA-I, PA-II, NHERD, SCW-I, SCW-II
and DUOL, r of AROW and b of NAROW over 2^-4..2^4; η of CW, CW-var, SCW-I, SCW-II over 0.55..0.95; b of
IELLIP over 0.1..0.9. Learners without a tuned parameter (Perceptron, PA, ROMMA, agg-ROMMA, ALMA, SOP —
LIBOL fixes SOP's a = 1) keep their values.

Settled uncertainty (docs/algorithms/evaluation.md#parameter-selection: the paper does not describe its procedure): we
follow LIBOL's ``CV_algorithm.m``; the validation ordering is the first ordering of the runs (``seed:<seed>``)
in the runner and the reproduction, or any ordering given to :func:`tune` / ``olkit tune --order``.
"""

from .. import progress
from ..protocol import evaluate_online
from ..registry import get, make, spec
from . import backend
from .orders import validation_order  # noqa: F401  (the validation ordering of tune)


def _mistakes(name, params, X, y, order):
    return evaluate_online(make(name, **params), X, y, order=order).mistakes


def tune(name, X, y, order, params=None, grids=None, n_jobs=None):
    """Select the parameters of ``name`` on (X, y) presented in ``order``.

    Parameters
    ----------
    name : str
        The algorithm's registered name.
    X, y : the data and their labels.
    order : array of int
        The validation ordering (0-based indices), one online pass per candidate.
    params : dict, optional
        Fixed parameters: a parameter given here is not tuned (``olkit tune --set C=1`` tunes only η of
        SCW); the trace is empty when nothing is left to tune.
    grids : dict, optional
        {algorithm: ((parameter, candidates), ...)}; default: the registry entry's ``tuning``.
    n_jobs : int, optional
        joblib processes over the candidates (default: all cores for large data, else 1).

    Returns
    -------
    (params, trace): the parameters with the chosen values, and one record per candidate
    ``{"parameter", "value", "mistakes"}`` in evaluation order.
    """
    params = dict(params or {})
    valid = set(get(name)._get_param_names())
    trace = []
    grid = spec(name).tuning if grids is None else grids.get(name, ())
    grid = [(key, candidates) for key, candidates in grid if key not in params]  # a given value is fixed
    for key, candidates in grid:
        if key not in valid:
            raise ValueError(f"cannot tune {key!r}: {name} has no such parameter")
        trials = [{**params, key: value} for value in candidates]
        jobs = backend.jobs(n_jobs, X.shape[0] * len(trials))  # issue 10 item 5: loky or a Dask cluster
        if jobs == 1:
            results = (_mistakes(name, trial, X, y, order) for trial in trials)
        else:
            results = backend.run_tasks(jobs, _mistakes, ((name, trial, X, y, order) for trial in trials))
        counts = []
        with progress.bar(len(trials), f"tuning {name} {key}", "candidate") as bar:  # per finished candidate
            for count in results:
                counts.append(count)
                bar.update()
        best = None
        for value, count in zip(candidates, counts):
            trace.append({"parameter": key, "value": value, "mistakes": int(count)})
            if best is None or count <= best[1]:  # ties: the later value (LIBOL)
                best = (value, count)
        params[key] = best[0]
    return params, trace
