"""The experiment runner: algorithms × orderings on one dataset, in parallel, summarised.

Each run is one :func:`olkit.evaluate_online` pass over a random ordering (or a given one). Runs are
independent, so they are spread over processes with joblib; every process limits BLAS to one thread
(kernel learners do so themselves), which on a small machine is much faster than threaded BLAS inside a
per-example loop. The output is the ``olkit run --format json`` document of DESIGN.md §2.3.
"""
import numpy as np

from ..protocol import evaluate_online
from ..registry import get, make
from .orders import make_orders

SUMMARY_KEYS = ("mistake_rate", "n_sv", "n_updates", "seconds")


def registry_name(label):
    """The algorithm of a result label: "perceptron:prop" is ``perceptron`` shown as "perceptron:prop"
    (one algorithm run with several settings in one table, e.g. DUOL Table 4's Max / Uniform / Prop)."""
    return label.split(":", 1)[0]


def split_params(algorithms, settings):
    """Apply ``settings`` to every algorithm that has the parameter; a key none has is an error."""
    used = set()
    specs = []
    known = set()
    for name in algorithms:
        valid = set(get(registry_name(name))._get_param_names())
        known |= valid
        params = {k: v for k, v in settings.items() if k in valid}
        used.update(params)
        make(registry_name(name), **params)  # validate now, before anything runs
        specs.append((name, params))
    unused = sorted(set(settings) - used)
    if unused:
        import difflib

        hints = [f"{k!r} (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(k, known, 1)) else
                 repr(k) for k in unused]
        raise ValueError(f"parameter(s) {', '.join(hints)} belong to none of {', '.join(algorithms)}; valid "
                         f"parameters: {', '.join(sorted(known))}")
    return specs


def run_one(name, params, X, y, order, label, n_checkpoints=20):
    """One online run; returns the JSON run record plus the curve."""
    learner = make(registry_name(name), **params)
    res = evaluate_online(learner, X, y, order=order, order_label=label, n_checkpoints=n_checkpoints)
    record = res.to_dict()
    record["curve"] = {"x": res.curve_x.tolist(), "mistake_rate": res.curve_y.tolist()}
    return record, res.params


def _summary(runs):
    values = {k: np.array([r[k] for r in runs], dtype=float) for k in SUMMARY_KEYS}
    mean = {k: float(v.mean()) for k, v in values.items()}
    std = {k: float(v.std(ddof=1)) if len(v) > 1 else 0.0 for k, v in values.items()}
    return mean, std


def _jobs(n_jobs, work):
    if n_jobs is not None:
        return n_jobs
    return 1 if work < 400_000 else -1  # process start-up costs more than small runs


def per_ordering_seed(name, params, seed):
    """``params`` with the learner's ``seed`` set to ``seed`` when the learner has one and ``params`` does
    not fix it (randomised learners draw afresh for every ordering, as every run of the papers did)."""
    if seed is None or "seed" in params or "seed" not in get(registry_name(name))._get_param_names():
        return params
    return {**params, "seed": int(seed)}


def run_algorithms(specs, X, y, orders, n_jobs=None, n_checkpoints=20, tune=False, learner_seeds=None):
    """Run every (algorithm, params) of ``specs`` on every ordering; one result entry per algorithm.

    With ``tune=True`` each algorithm's parameters are first selected as in the SCW experiments
    (:mod:`olkit.experiment.tuning`) on the first ordering, and each result carries a ``"tuning"`` list
    (parameter, value, mistakes per candidate; empty when the algorithm has nothing to tune).
    ``learner_seeds`` (one per ordering): the randomised learners (a ``seed`` parameter the spec does not
    set) run ordering r with seed ``learner_seeds[r]``, recorded as the run's ``"seed"``; the result's
    ``params`` are the first ordering's.
    """
    traces = {}
    if tune:
        from .tuning import tune as select

        tuned = []
        for name, params in specs:
            params, traces[name] = select(name, X, y, orders[0][1], params, n_jobs=n_jobs)
            tuned.append((name, params))
        specs = tuned
    seeds = list(learner_seeds) if learner_seeds is not None else [None] * len(orders)
    tasks = [(name, per_ordering_seed(name, params, seed), label, order) for name, params in specs
             for (label, order), seed in zip(orders, seeds)]
    n_jobs = _jobs(n_jobs, X.shape[0] * len(tasks))
    if n_jobs == 1:
        outputs = [run_one(name, params, X, y, order, label, n_checkpoints)
                   for name, params, label, order in tasks]
    else:
        from joblib import Parallel, delayed

        outputs = Parallel(n_jobs=n_jobs)(delayed(run_one)(name, params, X, y, order, label, n_checkpoints)
                                          for name, params, label, order in tasks)
    results = []
    for i, (name, _) in enumerate(specs):
        chunk = outputs[i * len(orders):(i + 1) * len(orders)]
        runs = [record for record, _ in chunk]
        if learner_seeds is not None and "seed" in chunk[0][1]:
            for record, (_, params) in zip(runs, chunk):
                record["seed"] = params["seed"]
        mean, std = _summary(runs)
        curve_x = runs[0]["curve"]["x"]
        curve_mean = np.mean([r["curve"]["mistake_rate"] for r in runs], axis=0).tolist()
        results.append({"algorithm": name, "params": chunk[0][1], "runs": runs, "mean": mean, "std": std,
                        "curve": {"x": curve_x, "mistake_rate": curve_mean}})
        if name in traces:
            results[-1]["tuning"] = traces[name]
    return results


def run_experiment(dataset, algorithms, X, y, settings=None, repeats=20, seed=0, order=None,
                   n_jobs=None, n_checkpoints=20, tune=False):
    """The full ``olkit run`` document for ``algorithms`` on (X, y); ``tune`` as :func:`run_algorithms`."""
    specs = split_params(algorithms, settings or {})
    if order is not None:
        orders = [(f"file:{order[0]}", order[1])]
    else:
        orders = make_orders(X.shape[0], repeats, seed)
    results = run_algorithms(specs, X, y, orders, n_jobs=n_jobs, n_checkpoints=n_checkpoints, tune=tune)
    classes = np.unique(y)
    return {"dataset": dataset, "n_examples": int(X.shape[0]), "n_features": int(X.shape[1]),
            "n_classes": int(classes.size), "results": results}
