"""The experiment runner: algorithms × orderings on one dataset, in parallel, summarised.

Each run is one :func:`olkit.evaluate_online` pass over a random ordering (or a given one). Runs are
independent, so they are spread over processes with joblib; every process limits BLAS to one thread
(kernel learners do so themselves), which on a small machine is much faster than threaded BLAS inside a
per-example loop. The output is the ``olkit run --format json`` document of
docs/dev/architecture.md#the-olkit-run-command.

With a result store (:mod:`olkit.experiment.store`) every finished run is saved as it finishes and a
stored run is reused instead of computed. A run that fails (a refused parameter, an example the learner
refuses) fails alone: its algorithm's result says why (``"failed"``) and the other runs go on.
"""

import numpy as np

from .. import progress
from ..base import FIT_ORDER_PARAMS
from ..kernels import describe as describe_kernel
from ..params import nearest_name
from ..protocol import evaluate_online
from ..registry import get, make
from . import backend
from .orders import labels_of, make_orders
from .store import array_digest, save_cell

SUMMARY_KEYS = ("mistake_rate", "n_sv", "n_updates", "seconds")


def registry_name(label):
    """The algorithm of a result label: "perceptron:prop" is ``perceptron`` shown as "perceptron:prop"
    (one algorithm run with several settings in one table, e.g. DUOL Table 4's Max / Uniform / Prop)."""
    return label.split(":", 1)[0]


def split_params(algorithms, settings):
    """Apply ``settings`` to every algorithm that has the parameter; a key none has is an error, and so is
    ``fit``'s ``shuffle`` / ``random_state`` (an online run follows the protocol order, never fit's)."""
    used = set()
    specs = []
    known = set()
    for name in algorithms:
        cls = get(registry_name(name))
        valid = set(cls._get_param_names())
        known |= set(cls._algorithm_param_names())
        params = {k: v for k, v in settings.items() if k in valid}
        used.update(params)
        make(registry_name(name), **params)  # validate now, before anything runs
        specs.append((name, params))
    refuse_fit_order_params(settings)
    unused = sorted(set(settings) - used)
    if unused:
        hints = [f"{k!r} (did you mean {near!r}?)" if (near := nearest_name(k, known)) else repr(k) for k in unused]
        raise ValueError(
            f"parameter(s) {', '.join(hints)} belong to none of {', '.join(algorithms)}; valid "
            f"parameters: {', '.join(sorted(known))}"
        )
    return specs


def refuse_fit_order_params(settings):
    """ValueError for ``shuffle`` / ``random_state`` (:data:`olkit.base.FIT_ORDER_PARAMS`): they order the pass
    of ``fit`` only; a run of the runner is :func:`olkit.evaluate_online` over the protocol's orderings, which
    would silently ignore them."""
    given = [key for key in FIT_ORDER_PARAMS if key in settings]
    if given:
        shown = ", ".join(f"{key}={settings[key]!r}" for key in given)
        raise ValueError(
            f"{shown}: shuffle and random_state only order the pass of fit (as in scikit-learn); "
            "olkit run and tune follow the online protocol's order: --order FILE, or random "
            "orderings drawn from --seed S"
        )


def run_one(name, params, X, y, order, label, n_checkpoints=20):
    """One online run; returns the JSON run record plus the curve."""
    learner = make(registry_name(name), **params)
    res = evaluate_online(learner, X, y, order=order, order_label=label, n_checkpoints=n_checkpoints)
    record = res.to_dict()
    record["curve"] = {"x": res.curve_x.tolist(), "mistake_rate": res.curve_y.tolist()}
    return record, res.params


def error_text(exc):
    """A failed run's reason: a ValueError's message (the documented refusals), else type and message."""
    return str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"


def run_cell(name, params, X, y, order, label, n_checkpoints=20, path=None):
    """One task of :func:`run_algorithms`: {"run": record, "params": resolved} or, if the run fails,
    {"error": reason}. A finished run is saved at ``path`` (its cell in the result store) at once, in
    the process that ran it."""
    try:
        record, resolved = run_one(name, params, X, y, order, label, n_checkpoints)
    except Exception as exc:  # noqa: BLE001 — one failed run must not stop the others
        return {"error": error_text(exc)}
    cell = {"algorithm": name, "order": label, "run": record, "params": resolved}
    return save_cell(path, cell) if path else cell


def _summary(runs):
    values = {k: np.array([r[k] for r in runs], dtype=float) for k in SUMMARY_KEYS}
    mean = {k: float(v.mean()) for k, v in values.items()}
    std = {k: float(v.std(ddof=1)) if len(v) > 1 else 0.0 for k, v in values.items()}
    return mean, std


def per_ordering_seed(name, params, seed):
    """``params`` with the learner's ``seed`` set to ``seed`` when the learner has one and ``params`` does
    not fix it (randomised learners draw afresh for every ordering, as every run of the papers did)."""
    if seed is None or "seed" in params or "seed" not in get(registry_name(name))._get_param_names():
        return params
    return {**params, "seed": int(seed)}


def run_tasks(tasks, X, y, orders, n_jobs=None, n_checkpoints=20, store=None):
    """The cell (:func:`run_cell`) of every task (name, params, r) — ``r`` the index of its (label,
    ordering) in ``orders`` — taken from ``store`` when it has it, else computed — serially or with joblib
    — and stored as soon as it is done. An ordering is drawn when its task is looked up in a reused
    store or dispatched (``orders`` may be a lazy :class:`olkit.experiment.orders.Orderings`): never all
    of them at once."""
    cells = [None] * len(tasks)
    labels = labels_of(orders)
    data = array_digest(X, y) if store is not None else None
    order_digests = {}

    def cell_path(i, order):
        """The store's file of task i (None without a store); ``order`` its ordering, drawn."""
        if store is None:
            return None
        name, params, r = tasks[i]
        if r not in order_digests:
            order_digests[r] = array_digest(np.asarray(order, dtype=np.int64))
        return store.path(data, registry_name(name), params, labels[r], order_digests[r], n_checkpoints)

    if store is not None and store.reuse:  # which runs are stored: every ordering drawn (one at a time) now
        for i, (_, _, r) in enumerate(tasks):
            cells[i] = store.load(cell_path(i, orders[r][1] if r not in order_digests else None))
    todo = [i for i, cell in enumerate(cells) if cell is None]

    def arguments(i):
        name, params, r = tasks[i]
        order = orders[r][1]
        return name, params, X, y, order, labels[r], n_checkpoints, cell_path(i, order)

    n_jobs = backend.jobs(n_jobs, X.shape[0] * len(todo))  # issue 10 item 5: loky or a Dask cluster
    done = []
    # one local run: progress per block of examples (olkit.progress; nothing when it is off)
    if len(todo) == 1 and not backend.distributed():
        args = arguments(todo[0])
        with progress.example_bar(len(args[4]), f"{args[0]} run"):
            done.append(run_cell(*args))
    elif not todo:
        pass
    elif n_jobs == 1:
        with progress.bar(len(todo), "runs", "run") as bar:
            for i in todo:
                done.append(run_cell(*arguments(i)))
                bar.update()
    else:
        cells_done = backend.run_tasks(n_jobs, run_cell, (arguments(i) for i in todo))
        with progress.bar(len(todo), "runs", "run") as bar:  # per finished cell, in this (the parent) process
            for cell in cells_done:
                done.append(cell)
                bar.update()
    for i, cell in zip(todo, done):
        cells[i] = cell
    if store is not None:
        store.count(reused=len(tasks) - len(todo), computed=len(todo))
    return cells


def run_algorithms(specs, X, y, orders, n_jobs=None, n_checkpoints=20, tune=False, learner_seeds=None, store=None):
    """Run every (algorithm, params) of ``specs`` on every ordering; one result entry per algorithm.

    With ``tune=True`` each algorithm's parameters are first selected as in the SCW experiments
    (:mod:`olkit.experiment.tuning`) on the first ordering, and each result carries a ``"tuning"`` list
    (parameter, value, mistakes per candidate; empty when the algorithm has nothing to tune).
    ``learner_seeds`` (one per ordering): the randomised learners (a ``seed`` parameter the spec does not
    set) run ordering r with seed ``learner_seeds[r]``, recorded as the run's ``"seed"``; the result's
    ``params`` are the first ordering's. ``store``: a :class:`olkit.experiment.store.CellStore` — stored
    runs are reused, the others stored as they finish.

    An algorithm with a failed run (or failed tuning) gets ``{"algorithm", "params", "orderings",
    "failed": [{"order", "error"}]}`` instead of its runs (:func:`failure_text`); the others are complete.
    """
    traces, failed = {}, {}
    if tune:
        from .tuning import tune as select

        tuned = []
        for name, params in specs:
            try:
                params, traces[name] = select(name, X, y, orders[0][1], params, n_jobs=n_jobs)
            except Exception as exc:  # noqa: BLE001 — this algorithm fails, the others run
                failed[len(tuned)] = [{"order": f"tuning on {orders[0][0]}", "error": error_text(exc)}]
            tuned.append((name, params))
        specs = tuned
    seeds = list(learner_seeds) if learner_seeds is not None else [None] * len(orders)
    tasks = [
        (name, per_ordering_seed(name, params, seed), r)
        for i, (name, params) in enumerate(specs)
        if i not in failed
        for r, seed in zip(range(len(orders)), seeds)
    ]
    cells = iter(run_tasks(tasks, X, y, orders, n_jobs, n_checkpoints, store))
    labels = labels_of(orders)
    results = []
    for i, (name, params) in enumerate(specs):
        chunk = [] if i in failed else [next(cells) for _ in labels]
        errors = failed.get(i) or [
            {"order": label, "error": c["error"]} for label, c in zip(labels, chunk) if "error" in c
        ]
        if errors:
            results.append(
                {
                    "algorithm": name,
                    "params": params,
                    "kernel": describe_kernel(params),
                    "orderings": len(orders),
                    "failed": errors,
                }
            )
            continue
        runs = [c["run"] for c in chunk]
        if learner_seeds is not None and "seed" in chunk[0]["params"]:
            for record, c in zip(runs, chunk):
                record["seed"] = c["params"]["seed"]
        mean, std = _summary(runs)
        curve_x = runs[0]["curve"]["x"]
        curve_mean = np.mean([r["curve"]["mistake_rate"] for r in runs], axis=0).tolist()
        results.append(
            {
                "algorithm": name,
                "params": chunk[0]["params"],
                "kernel": describe_kernel(chunk[0]["params"]),
                "runs": runs,
                "mean": mean,
                "std": std,
                "curve": {"x": curve_x, "mistake_rate": curve_mean},
            }
        )
        if name in traces:
            results[-1]["tuning"] = traces[name]
    return results


def failure_text(result):
    """Why a failed result (:func:`run_algorithms`) failed: each reason once, with the orderings it
    failed on."""
    by_reason = {}
    for f in result["failed"]:
        by_reason.setdefault(f["error"], []).append(f["order"])

    def where(orders):
        return "every ordering" if len(orders) == result["orderings"] > 1 else ", ".join(orders)

    return "; ".join(f"{reason} (on {where(orders)})" for reason, orders in by_reason.items())


class RunFailed(ValueError):
    """Runs of an experiment failed (the message says which and why); the other runs completed."""


def check_failures(results):
    """Raise :class:`RunFailed` naming every failed result, if there is one; else return ``results``."""
    bad = [r for r in results if "failed" in r]
    if bad:
        raise RunFailed("; ".join(f"{r['algorithm']} {r['params']}: {failure_text(r)}" for r in bad))
    return results


def run_experiment(
    dataset,
    algorithms,
    X,
    y,
    settings=None,
    repeats=20,
    seed=0,
    order=None,
    n_jobs=None,
    n_checkpoints=20,
    tune=False,
    store=None,
):
    """The full ``olkit run`` document for ``algorithms`` on (X, y); ``tune`` and ``store`` as
    :func:`run_algorithms`. A failed run is an error (after the other runs finished, and were stored)."""
    specs = split_params(algorithms, settings or {})
    if order is not None:
        orders = [(f"file:{order[0]}", order[1])]
    else:
        orders = make_orders(X.shape[0], repeats, seed)
    results = check_failures(
        run_algorithms(specs, X, y, orders, n_jobs=n_jobs, n_checkpoints=n_checkpoints, tune=tune, store=store)
    )
    classes = np.unique(y)
    return {
        "dataset": dataset,
        "n_examples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_classes": int(classes.size),
        "results": results,
    }
