"""Benchmark ``linear_learners``: olkit's linear (primal) online learners against a compiled floor.

Run from ``benchmarks/run.py`` (``--only linear_learners``); this module holds the worker side (one
configuration per fresh subprocess) and the job list, the summary and the table used by the parent.

* ``csr``: every first-order learner (``kernel="linear"``) and every second-order learner with
  ``covariance="diagonal"`` on a9a, w8a and ijcnn1 (CSR);
* ``full_covariance``: the second-order learners with ``covariance="full"`` and, for comparison,
  ``"diagonal"`` on usps-1vsall (d = 256); also full on a9a, w8a, ijcnn1 (d = 123, 300, 22);
* ``memory``: every learner (diagonal for the second-order ones) on dorothea (100,000 sparse features);
  with the ijcnn1 rows of ``csr`` this gives peak memory and speed of the diagonal learners on a wide and a
  long dataset;
* ``long``: w8a repeated 8 times (vertically stacked, 398k rows, shuffled as one stream) for PA-I and the
  diagonal SCW-I (and the other first-order / diagonal learners): a run is long enough (~0.1 s) that per-call
  overhead and timer noise do not dominate; its own targets (:data:`LONG_TARGETS`);
* ``vowpalwabbit``: Vowpal Wabbit (hinge loss), one progressive pass in the same order, if installed.

The floor (:func:`pa1_floor`) is a plain compiled CSR loop of binary PA-I written here. Every worker
runs it side by side with the learner it measures (same process, same CSR arrays, same ordering,
rounds interleaved: floor, learner, floor, learner, ...) and reports
``ratio_to_floor = examples_per_second / floor_examples_per_second``, each the best of 3.
"""

import os
import sys
import tempfile
import time

import numpy as np

from harness import peak_rss_mb
from vw import VW_ARGS
from vw import available as vw_available  # noqa: F401  (bench() calls linear.vw_available)
from vw import call_overhead as _vw_call_overhead
from vw import driver as _vw_driver
from vw import learn_only as _vw_learn_only
from vw import text_lines as _vw_lines
from vw import write_text as _vw_write_text

SEED = 1  # np.random.default_rng(1).permutation(n): one ordering per dataset
C = 1.0  # PA-I / PA-II aggressiveness (and the floor's)
REPEATS = 3  # best of 3 for every timing
TARGETS = {"first_order": 0.5, "diagonal": 0.25}  # minimum examples/s ratio to the floor
LONG_DATASET, LONG_REPEAT = "w8a", 8  # the "long" group: w8a × 8 (398k rows)
LONG_TARGETS = {"pa1": 1.0, "scw1": 0.8}
"""Targets of the ``long`` group (issue 25): PA-I at the plain loop's speed, the diagonal SCW-I at 0.8 of it; the
group's other rows keep their kind's target (:data:`TARGETS`)."""


def has_primal_form(cls):
    """A kernel learner with a primal form (``kernel="linear"`` runs its ``_linear_rule`` on an explicit w)."""
    return getattr(cls, "_linear_rule", None) is not None


def is_second_order(cls):
    """A second-order linear learner: it keeps a covariance (diagonal or full), a ``covariance`` parameter."""
    return "covariance" in cls._get_param_names()


def is_linear(cls):
    """The learners this benchmark is about: every learner with a primal form or a covariance."""
    return has_primal_form(cls) or is_second_order(cls)


EXCLUDED = {}
"""{registered name: why} of linear learners (:func:`is_linear`) deliberately not benchmarked; none today."""


def _learner_lists():
    """(first-order, second-order) names, from the registry in its order: the lists are never written by hand
    (tests/test_benchmark_lists.py checks that every linear learner is in one or in :data:`EXCLUDED`)."""
    from olkit import registry

    linear = [n for n in registry.names() if is_linear(registry.get(n)) and n not in EXCLUDED]
    second = tuple(n for n in linear if is_second_order(registry.get(n)))
    return tuple(n for n in linear if n not in second), second


FIRST_ORDER, SECOND_ORDER = _learner_lists()
"""The first-order learners (run with ``kernel="linear"``) and the second-order ones (diagonal and full
covariance), derived from the registry (:func:`_learner_lists`)."""
LONG_LEARNERS = FIRST_ORDER + SECOND_ORDER
"""The ``long`` group's rows: every first-order learner and every second-order one with a diagonal covariance."""
CSR_DATASETS = ("a9a", "w8a", "ijcnn1")
QUICK_CSR_DATASETS = ("a9a",)
FULL_DATASET = "usps-1vsall"
MEMORY_DATASET = "dorothea"
VW_DATASETS = ("a9a", "w8a", "ijcnn1", "dorothea")
QUICK_VW_DATASETS = ("a9a",)


# ---------------------------------------------------------------------------------------------------
# the floor
# ---------------------------------------------------------------------------------------------------


def _njit():
    import olkit  # noqa: F401  (sets numba's cache directory before numba is imported)

    # isort: split
    from numba import njit

    return njit(cache=True)


@_njit()
def pa1_floor(indptr, idx, val, y, order, C, w):
    """Binary PA-I over ``X[order]`` (CSR arrays, labels ±1, w updated in place).

    Per example: f = w·x over the row's non-zeros (‖x‖² in the same pass), ŷ = +1 iff f ≥ 0, count the
    mistake, loss = 1 − y f; if loss > 0 (and ‖x‖² > 0): τ = min(C, loss/‖x‖²), w += τ y x.
    Returns (mistakes, updates).
    """
    mistakes = 0
    updates = 0
    for pos in range(order.shape[0]):
        t = order[pos]
        lo = indptr[t]
        hi = indptr[t + 1]
        f = 0.0
        xn2 = 0.0
        for p in range(lo, hi):
            x = val[p]
            f += w[idx[p]] * x
            xn2 += x * x
        yt = y[t]
        if (1.0 if f >= 0.0 else -1.0) != yt:
            mistakes += 1
        loss = 1.0 - yt * f
        if loss > 0.0 and xn2 > 1e-12:
            tau = min(C, loss / xn2)
            a = yt * tau
            updates += 1
            for p in range(lo, hi):
                w[idx[p]] += a * val[p]
    return mistakes, updates


def load(dataset, repeat=1):
    """(X CSR float64 with sorted indices, raw labels, labels ±1, ordering) as every worker uses them; ``repeat``
    > 1 stacks the dataset that many times (rows and labels) before the ordering is drawn over all the rows."""
    import scipy.sparse as sp

    import olkit

    X, y = olkit.load_dataset(dataset)
    if not sp.issparse(X):
        raise RuntimeError(f"load_dataset({dataset!r}) returned {type(X).__name__}, expected CSR")
    X = sp.csr_matrix(X).astype(np.float64)
    X.sum_duplicates()  # also sorts the indices (olkit does the same; it then uses these arrays as they are)
    if not X.has_sorted_indices:
        X.sort_indices()
    if repeat > 1:
        X = sp.vstack([X] * repeat, format="csr")
        y = np.tile(y, repeat)
        if not X.has_sorted_indices:
            X.sort_indices()
    classes = np.unique(y)
    if classes.size != 2:
        raise RuntimeError(f"{dataset} has {classes.size} classes; this benchmark is binary")
    y_pm = np.where(y == classes[1], 1.0, -1.0)  # olkit's binary coding: the larger label is +1
    order = np.random.default_rng(SEED).permutation(X.shape[0]).astype(np.int64)
    return X, y, y_pm, order


class Floor:
    """The floor on one dataset: warmed up on construction, ``run()`` times one pass."""

    def __init__(self, X, y_pm, order):
        self.X, self.y_pm, self.order = X, y_pm, order
        self.d = X.shape[1]
        self.n = len(order)
        t0 = time.perf_counter()
        pa1_floor(X.indptr, X.indices, X.data, y_pm, order[:1], C, np.zeros(self.d))  # load / compile
        self.warm_up_seconds = time.perf_counter() - t0
        self.runs = []

    def fresh_input(self):
        """Fresh copies of the stream's arrays, made (untimed) the way the learner's are: evaluate_online's
        validation copies X (``X.astype(np.float64)``), the labels (encoding) and the ordering just before
        its clock starts, so the learner always reads freshly written arrays (in cache as far as they fit,
        in newly allocated pages). The floor gets the same, rather than one allocation for all its runs."""
        X = self.X.astype(np.float64)
        return X.indptr, X.indices, X.data, self.y_pm.copy(), self.order.astype(np.int64)

    def run(self):
        args = self.fresh_input()
        w = np.zeros(self.d)
        c0 = time.thread_time()
        t0 = time.perf_counter()
        mistakes, updates = pa1_floor(*args, C, w)
        seconds = time.perf_counter() - t0
        cpu = time.thread_time() - c0
        self.runs.append({"seconds": seconds, "cpu_seconds": cpu, "mistakes": int(mistakes), "updates": int(updates)})
        return seconds

    def summary(self):
        best = min(r["seconds"] for r in self.runs)
        best_cpu = min(r["cpu_seconds"] for r in self.runs)
        return {
            "seconds": best,
            "seconds_all": [r["seconds"] for r in self.runs],
            "examples_per_second": self.n / best,
            "cpu_seconds": best_cpu,
            "cpu_seconds_all": [r["cpu_seconds"] for r in self.runs],
            "cpu_examples_per_second": self.n / best_cpu if best_cpu > 0 else None,
            "mistakes": self.runs[0]["mistakes"],
            "updates": self.runs[0]["updates"],
            "C": C,
            "deterministic": len({(r["mistakes"], r["updates"]) for r in self.runs}) == 1,
            "warm_up_seconds": self.warm_up_seconds,
        }


# ---------------------------------------------------------------------------------------------------
# worker: one olkit learner configuration
# ---------------------------------------------------------------------------------------------------


class ProtocolCpuTimer:
    """Thread CPU time of ``olkit.protocol.run_online`` (the span ``res.seconds`` measures in wall time),
    by wrapping it: CPU time does not count the time the process was preempted, so the CPU-time ratio
    to the floor is robust to other processes taking the core (not to cache/memory-bandwidth sharing)."""

    def __init__(self):
        self.available = False
        self.cpu = None

    def install(self):
        try:
            from olkit import protocol

            orig = protocol.run_online
        except (ImportError, AttributeError):
            return
        timer = self

        def run_online(*args, **kwargs):
            c0 = time.thread_time()
            out = orig(*args, **kwargs)
            timer.cpu = time.thread_time() - c0
            return out

        protocol.run_online = run_online
        self.available = True


class LoopTimer:
    """Times the calls of the compiled block loop (``LinearModel.learn_block``) inside a learner's run,
    so that ``res.seconds`` splits into the compiled loop and everything else of ``run_online``
    (input conversion, allocation of the per-round arrays, the BLAS thread limit, Python per block).
    Installed by wrapping the method; if it is gone, ``available`` stays False."""

    def __init__(self):
        self.available = False
        self.reset()

    def reset(self):
        self.loop = 0.0
        self.calls = 0

    def install(self):
        try:
            from olkit.learners.linear import model

            orig = model.LinearModel.learn_block
        except (ImportError, AttributeError):
            return
        timer = self

        def learn_block(self_, X, y_internal, order, start, stop, scores, mistakes):
            t0 = time.perf_counter()
            out = orig(self_, X, y_internal, order, start, stop, scores, mistakes)
            if stop > start:  # not the empty warm-up call
                timer.loop += time.perf_counter() - t0
                timer.calls += 1
            return out

        model.LinearModel.learn_block = learn_block
        self.available = True


def make_learner(olkit, algorithm, covariance):
    if algorithm in FIRST_ORDER:
        params = {"kernel": "linear"}
        if algorithm in ("pa1", "pa2"):
            params["C"] = C
    else:
        params = {"covariance": covariance}
    return olkit.make(algorithm, **params), params


def worker_linear(spec):
    """One (dataset, learner, covariance) configuration, floor and learner interleaved, best of 3."""
    t_start = time.perf_counter()
    import olkit
    from harness import worker_record

    out = worker_record(spec, ("name", "group", "dataset", "algorithm", "covariance", "kind"))
    t0 = time.perf_counter()
    X, y, y_pm, order = load(spec["dataset"], spec.get("repeat", 1))
    out["load_seconds"] = time.perf_counter() - t0
    n, d = X.shape
    out["repeat"] = spec.get("repeat", 1)
    out.update(
        n=n,
        d=d,
        nnz=int(X.nnz),
        nnz_per_row=X.nnz / n,
        csr_mb=(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20,
        order=f"random (np.random.default_rng({SEED}).permutation(n))",
    )
    floor = Floor(X, y_pm, order)
    out["peak_rss_mb_before_learner"] = peak_rss_mb()  # interpreter + numba + data (+ compiled floor)

    timer = LoopTimer()
    timer.install()
    cpu_timer = ProtocolCpuTimer()
    cpu_timer.install()
    runs = []
    clf = params = None
    for r in range(REPEATS):  # each round: the learner, then the floor
        clf, params = make_learner(olkit, spec["algorithm"], spec.get("covariance"))
        timer.reset()
        cpu_timer.cpu = None
        c0 = time.process_time()
        w0 = time.perf_counter()
        res = olkit.evaluate_online(clf, X, y, order=order)
        call_wall = time.perf_counter() - w0
        call_cpu = time.process_time() - c0
        runs.append(
            {
                "seconds": res.seconds,
                "mistakes": res.mistakes,
                "n_updates": res.n_updates,
                "call_wall_seconds": call_wall,
                "call_cpu_seconds": call_cpu,
                "loop_seconds": timer.loop if timer.available else None,
                "loop_calls": timer.calls,
                "cpu_seconds": cpu_timer.cpu,
            }
        )
        if r == 0:  # before the floor's input copies can raise the high-water mark
            out["peak_rss_mb"] = peak_rss_mb()
            out["learner_rss_increase_mb"] = out["peak_rss_mb"] - out["peak_rss_mb_before_learner"]
        floor.run()
    out["peak_rss_mb_final"] = peak_rss_mb()
    model = getattr(clf, "model_", None)
    if model is not None:
        out["model_mb"] = sum(a.nbytes for a in (model.W, model.S, model.D, model.u1, model.u2)) / 2**20
        out["engine"] = "linear (LinearModel)"
    else:
        out["engine"] = type(clf).__name__
    out["params"] = params

    best = min(runs, key=lambda r: r["seconds"])
    learner = {
        "repeats": len(runs),
        "seconds": best["seconds"],
        "seconds_all": [r["seconds"] for r in runs],
        "examples_per_second": n / best["seconds"],
        "mistakes": best["mistakes"],
        "mistake_rate": best["mistakes"] / n,
        "n_updates": best["n_updates"],
        "deterministic": len({(r["mistakes"], r["n_updates"]) for r in runs}) == 1,
        "call_wall_seconds": best["call_wall_seconds"],
        "call_cpu_seconds": best["call_cpu_seconds"],
        "cpu_over_wall": best["call_cpu_seconds"] / best["call_wall_seconds"],
    }
    if best["loop_seconds"] is not None:
        learner["compiled_loop_seconds"] = best["loop_seconds"]
        learner["compiled_loop_calls"] = best["loop_calls"]
        learner["outside_loop_seconds"] = best["seconds"] - best["loop_seconds"]
        learner["outside_loop_share"] = (best["seconds"] - best["loop_seconds"]) / best["seconds"]
        learner["loop_examples_per_second"] = n / best["loop_seconds"] if best["loop_seconds"] > 0 else None
    out["learner"] = learner
    fl = floor.summary()
    out["floor"] = fl
    out["ratio_to_floor"] = learner["examples_per_second"] / fl["examples_per_second"]
    if learner.get("loop_examples_per_second"):
        out["loop_ratio_to_floor"] = learner["loop_examples_per_second"] / fl["examples_per_second"]
    cpus = [r["cpu_seconds"] for r in runs if r["cpu_seconds"]]
    if cpus and fl["cpu_examples_per_second"]:
        learner["cpu_seconds"] = min(cpus)
        learner["cpu_seconds_all"] = cpus
        learner["cpu_examples_per_second"] = n / min(cpus)
        out["cpu_ratio_to_floor"] = learner["cpu_examples_per_second"] / fl["cpu_examples_per_second"]
    out["target"] = spec.get("target", TARGETS.get(spec["kind"]))
    out["meets_target"] = None if out["target"] is None else bool(out["ratio_to_floor"] >= out["target"])
    out["meets_target_cpu"] = (
        None
        if out["target"] is None or "cpu_ratio_to_floor" not in out
        else bool(out["cpu_ratio_to_floor"] >= out["target"])
    )
    if spec["algorithm"] == "pa1":
        out["floor_equals_pa1"] = {
            "mistakes": fl["mistakes"] == learner["mistakes"],
            "updates": fl["updates"] == learner["n_updates"],
        }
        # what the BLAS thread limit that run_online enters once per run costs (part of outside_loop)
        from olkit.protocol import one_blas_thread

        costs = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            with one_blas_thread():
                pass
            costs.append(time.perf_counter() - t0)
        out["blas_limit_context_seconds"] = min(costs)
    out["wall_seconds"] = time.perf_counter() - t_start
    return out


# ---------------------------------------------------------------------------------------------------
# worker: Vowpal Wabbit on one dataset
# ---------------------------------------------------------------------------------------------------


def worker_vw(spec):
    t_start = time.perf_counter()
    out = {
        "name": spec["name"],
        "group": "vowpalwabbit",
        "dataset": spec["dataset"],
        "algorithm": "vowpalwabbit",
        "kind": "vowpalwabbit",
    }
    try:
        from importlib import metadata

        import vowpalwabbit

        out["vowpalwabbit_version"] = metadata.version("vowpalwabbit")
    except Exception as exc:  # noqa: BLE001
        out["vowpalwabbit"] = f"not installed: {type(exc).__name__}: {exc}"
        return out
    X, y, y_pm, order = load(spec["dataset"])
    n, d = X.shape
    out.update(n=n, d=d, nnz=int(X.nnz), order=f"random (np.random.default_rng({SEED}).permutation(n))", args=VW_ARGS)
    floor = Floor(X, y_pm, order)
    t0 = time.perf_counter()
    lines = _vw_lines(X, y_pm, order)
    out["write_text_seconds"] = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="olkit-vw-") as tmp:
        path = os.path.join(tmp, f"{spec['dataset']}.vw")
        _vw_write_text(path, lines)
        out["file_mb"] = os.path.getsize(path) / 2**20
        learn_runs, raw_runs, driver_runs = [], [], []
        for _ in range(REPEATS):
            floor.run()
            learn_runs.append(_vw_learn_only(vowpalwabbit, lines, raw=False))
            raw_runs.append(_vw_learn_only(vowpalwabbit, lines, raw=True))
            driver_runs.append(_vw_driver(vowpalwabbit, f"-d {path}"))
        overhead = _vw_call_overhead(vowpalwabbit, lines)
    fl = floor.summary()
    out["floor"] = fl

    def summarise(runs, what):
        best = min(runs, key=lambda r: r["seconds"])
        s = dict(best)
        s["what"] = what
        s["seconds_all"] = [r["seconds"] for r in runs]
        s["examples_per_second"] = n / best["seconds"]
        s["ratio_to_floor"] = s["examples_per_second"] / fl["examples_per_second"]
        s["mistake_rate"] = best["mistakes"] / n
        s["deterministic"] = len({r["mistakes"] for r in runs}) == 1
        return s

    out["learn_only"] = summarise(
        learn_runs,
        "Workspace.learn(ex) in a Python loop over examples parsed before "
        "the clock (pyvw type checks + pybind call + VW learn)",
    )
    out["learn_only_raw"] = summarise(
        raw_runs,
        "pylibvw.vw.learn(ws, ex) in a Python loop over examples parsed before the clock (pybind call + VW learn)",
    )
    out["driver"] = summarise(
        driver_runs,
        "VW's C++ driver reading the text file (parse + learn): "
        "Workspace(args + ' -d file') minus Workspace(args) (set-up only)",
    )
    out["python_call_overhead_seconds_per_example"] = overhead
    out["learn_only_raw_minus_call_overhead_examples_per_second"] = n / max(
        out["learn_only_raw"]["seconds"] - overhead * n, 1e-12
    )
    out["wall_seconds"] = time.perf_counter() - t_start
    return out


# ---------------------------------------------------------------------------------------------------
# parent side: jobs, summary, table
# ---------------------------------------------------------------------------------------------------


def jobs(quick):
    """(worker kind, spec) for every configuration."""
    out = []

    def add(group, dataset, algorithm, covariance=None, repeat=1, target=None):
        kind = "first_order" if algorithm in FIRST_ORDER else covariance
        name = (
            f"{dataset}"
            + (f"x{repeat}" if repeat > 1 else "")
            + f"/{algorithm}"
            + (f"/{covariance}" if covariance else "")
        )
        spec = {
            "name": name,
            "group": group,
            "dataset": dataset,
            "algorithm": algorithm,
            "covariance": covariance,
            "kind": kind,
            "repeat": repeat,
        }
        if target is not None:
            spec["target"] = target
        out.append(("linear", spec))

    for ds in QUICK_CSR_DATASETS if quick else CSR_DATASETS:
        for algo in FIRST_ORDER:
            add("csr", ds, algo)
        for algo in SECOND_ORDER:
            add("csr", ds, algo, "diagonal")
    if not quick:
        add("full_covariance", FULL_DATASET, "pa1")  # the floor check on dense 256-feature rows
        for algo in SECOND_ORDER:
            add("full_covariance", FULL_DATASET, algo, "full")
            add("full_covariance", FULL_DATASET, algo, "diagonal")
        for ds in CSR_DATASETS:  # d = 123, 300, 22: cheap enough (< 0.2 s a run), diagonal rows are in "csr"
            for algo in SECOND_ORDER:
                add("full_covariance", ds, algo, "full")
        for algo in FIRST_ORDER:
            add("memory", MEMORY_DATASET, algo)
        for algo in SECOND_ORDER:
            add("memory", MEMORY_DATASET, algo, "diagonal")
        for algo in LONG_LEARNERS:
            cov = None if algo in FIRST_ORDER else "diagonal"
            add("long", LONG_DATASET, algo, cov, LONG_REPEAT, LONG_TARGETS.get(algo))
    for ds in QUICK_VW_DATASETS if quick else VW_DATASETS:
        out.append(("vw", {"name": f"{ds}/vowpalwabbit", "dataset": ds, "algorithm": "vowpalwabbit"}))
    return out


def summary(results):
    """Targets, the floor check and the worst ratios, from the worker results."""
    rows = [r for r in results if "learner" in r]
    checks = {r["name"].split("/")[0]: r["floor_equals_pa1"] for r in rows if "floor_equals_pa1" in r}  # w8a, w8ax8
    out = {
        "floor_equals_pa1": checks,
        "floor_equals_pa1_everywhere": bool(checks) and all(c["mistakes"] and c["updates"] for c in checks.values()),
    }
    long_rows = [r for r in rows if r.get("group") == "long"]
    if long_rows:
        out["long"] = {
            r["name"]: {
                "target": r["target"],
                "ratio_to_floor": r["ratio_to_floor"],
                "cpu_ratio_to_floor": r.get("cpu_ratio_to_floor"),
                "meets_target": r["meets_target"],
                "meets_target_cpu": r.get("meets_target_cpu"),
            }
            for r in long_rows
        }
    for kind, target in TARGETS.items():
        sel = [r for r in rows if r["kind"] == kind and r.get("group") != "long"]
        if not sel:
            continue
        worst = min(sel, key=lambda r: r["ratio_to_floor"])
        out[kind] = {
            "target": target,
            "rows": len(sel),
            "passed": sum(bool(r["meets_target"]) for r in sel),
            "failed": [r["name"] for r in sel if not r["meets_target"]],
            "passed_cpu": sum(bool(r.get("meets_target_cpu")) for r in sel),
            "failed_cpu": [r["name"] for r in sel if not r.get("meets_target_cpu")],
            "worst": {"name": worst["name"], "ratio_to_floor": worst["ratio_to_floor"]},
            "median_ratio": float(np.median([r["ratio_to_floor"] for r in sel])),
        }
    mem = [r for r in rows if r["dataset"] in (MEMORY_DATASET, "ijcnn1") and r["kind"] == "diagonal"]
    out["diagonal_memory"] = {
        r["name"]: {
            "peak_rss_mb": r["peak_rss_mb"],
            "peak_rss_mb_before_learner": r["peak_rss_mb_before_learner"],
            "learner_rss_increase_mb": r["learner_rss_increase_mb"],
            "model_mb": r.get("model_mb"),
            "examples_per_second": r["learner"]["examples_per_second"],
        }
        for r in mem
    }
    return out


def _f(x, spec):
    return "-" if x is None else format(x, spec)


def table(results, text_table):
    header = [
        "config",
        "err%",
        "updates",
        "ex/s",
        "floor ex/s",
        "ratio",
        "target",
        "pass",
        "cpu ratio",
        "pass",
        "outside %",
        "cpu/wall",
        "RSS MB",
        "+MB",
    ]
    rows = []
    notes = []
    for r in results:
        if "error" in r:
            notes.append(f"{r['name']}: ERROR {r['error']}")
            continue
        if r.get("kind") == "vowpalwabbit":
            continue
        L, F = r["learner"], r["floor"]
        ok = "-" if r["meets_target"] is None else ("PASS" if r["meets_target"] else "FAIL")
        ok_cpu = "-" if r.get("meets_target_cpu") is None else ("PASS" if r["meets_target_cpu"] else "FAIL")
        rows.append(
            [
                r["name"],
                _f(100 * L["mistake_rate"], ".2f"),
                L["n_updates"],
                _f(L["examples_per_second"], ".3g"),
                _f(F["examples_per_second"], ".3g"),
                _f(r["ratio_to_floor"], ".2f"),
                _f(r["target"], ".2f"),
                ok,
                _f(r.get("cpu_ratio_to_floor"), ".2f"),
                ok_cpu,
                _f(100 * L["outside_loop_share"], ".0f") if "outside_loop_share" in L else "-",
                _f(L["cpu_over_wall"], ".2f"),
                _f(r["peak_rss_mb"], ".0f"),
                _f(r["learner_rss_increase_mb"], ".1f"),
            ]
        )
        if "floor_equals_pa1" in r:
            eq = r["floor_equals_pa1"]
            notes.append(
                f"{r['name'].split('/')[0]}: floor mistakes {F['mistakes']} / updates {F['updates']} vs olkit pa1 "
                f"{L['mistakes']} / {L['n_updates']}: "
                f"{'EQUAL' if eq['mistakes'] and eq['updates'] else 'DIFFERENT'}"
            )
    text = text_table(header, rows)
    vw_rows = []
    for r in results:
        if r.get("kind") != "vowpalwabbit" or "error" in r:
            continue
        if "learn_only" not in r:
            notes.append(f"{r['name']}: {r.get('vowpalwabbit')}")
            continue
        for key in ("learn_only", "learn_only_raw", "driver"):
            s = r[key]
            vw_rows.append(
                [
                    f"{r['dataset']}/vw/{key}",
                    _f(100 * s["mistake_rate"], ".2f"),
                    _f(s["examples_per_second"], ".3g"),
                    _f(r["floor"]["examples_per_second"], ".3g"),
                    _f(s["ratio_to_floor"], ".2f"),
                ]
            )
    if vw_rows:
        text += "\n\nVowpal Wabbit (" + VW_ARGS + "), progressive mistakes, same order:\n"
        text += text_table(["config", "err%", "ex/s", "floor ex/s", "ratio"], vw_rows)
    if notes:
        text += "\n" + "\n".join(notes)
    return text


def main_worker(kind, spec):
    if kind == "linear":
        return worker_linear(spec)
    if kind == "vw":
        return worker_vw(spec)
    raise SystemExit(f"unknown worker kind {kind!r}")


if __name__ == "__main__":  # one configuration by hand: python benchmarks/linear.py a9a pa1 [diagonal|-] [repeat]
    import json

    ds, algo = sys.argv[1], sys.argv[2]
    cov = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    rep = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    kind = "first_order" if algo in FIRST_ORDER else cov
    spec = {
        "name": f"{ds}/{algo}",
        "group": "manual",
        "dataset": ds,
        "algorithm": algo,
        "covariance": cov,
        "kind": kind,
        "repeat": rep,
    }
    if rep == LONG_REPEAT and algo in LONG_TARGETS:
        spec["target"] = LONG_TARGETS[algo]
    print(json.dumps(worker_vw(spec) if algo == "vowpalwabbit" else worker_linear(spec), indent=1))


# ---------------------------------------------------------------------------------------------------
# the benchmark (run.py --only linear_learners)
# ---------------------------------------------------------------------------------------------------


def bench(quick):
    """Every linear configuration (a9a only with --quick) and VW; writes linear_learners.json."""
    from harness import now_iso, run_worker, sanitize, text_table, write_json

    linear = sys.modules[__name__]
    started = now_iso()
    results = []
    vw_missing = sanitize(linear.vw_available())
    for kind, spec in linear.jobs(quick):
        if kind == "vw" and vw_missing:
            r = {**spec, "group": "vowpalwabbit", "kind": "vowpalwabbit", "vowpalwabbit": vw_missing}
            print(f"  [linear_learners] {spec['name']}: {vw_missing}", flush=True)
            results.append(r)
            continue
        print(f"  [linear_learners] {spec['name']} ...", flush=True)
        r = run_worker(spec, kind)
        results.append(r)
        print("    " + line(r), flush=True)
    hashes = {r.get("olkit_source_hash") for r in results if r.get("olkit_source_hash")}
    payload = {
        "settings": {
            "repeats": REPEATS,
            "timing": "best of 3; floor and learner interleaved in the same process",
            "order": f"np.random.default_rng({linear.SEED}).permutation(n), one per dataset, for every learner",
            "C": linear.C,
            "targets_ratio_to_floor": linear.TARGETS,
            "floor": "benchmarks/linear.py pa1_floor: plain numba @njit(cache=True) CSR loop of binary PA-I",
            "first_order": list(linear.FIRST_ORDER),
            "second_order": list(linear.SECOND_ORDER),
            "csr_datasets": list(linear.QUICK_CSR_DATASETS if quick else linear.CSR_DATASETS),
            "full_covariance_datasets": [] if quick else [linear.FULL_DATASET, *linear.CSR_DATASETS],
            "memory_dataset": None if quick else linear.MEMORY_DATASET,
            "long": None if quick else f"{linear.LONG_DATASET} x {linear.LONG_REPEAT} (stacked, one random order)",
            "long_targets": linear.LONG_TARGETS,
            "vowpalwabbit_args": linear.VW_ARGS,
            "restrictions": (
                "--quick: a9a only (first-order + diagonal), VW on a9a"
                if quick
                else "full covariance on usps-1vsall (with diagonal next to it), a9a, w8a, ijcnn1 (not "
                "dorothea: a 100,000 x 100,000 covariance is refused by olkit); VW on a9a, w8a, "
                "ijcnn1, dorothea"
            ),
        },
        "vowpalwabbit": vw_missing or "installed",
        "summary": linear.summary(results),
        "source_changed_during_run": len(hashes) > 1,
        "results": results,
    }
    path = write_json("linear_learners", quick, started, payload)
    print(linear.table(results, text_table))
    summ = payload["summary"]
    for kind in linear.TARGETS:
        if kind in summ:
            k = summ[kind]
            print(
                f"target {kind} ratio >= {k['target']}: {k['passed']}/{k['rows']} pass (CPU-time ratio: "
                f"{k['passed_cpu']}/{k['rows']}); worst "
                f"{k['worst']['name']} {k['worst']['ratio_to_floor']:.2f}"
                + (f"; failed: {', '.join(k['failed'])}" if k["failed"] else "")
            )
    for name, k in summ.get("long", {}).items():
        if name.split("/")[1] in linear.LONG_TARGETS:
            print(
                f"target long {name} ratio >= {k['target']}: {'PASS' if k['meets_target'] else 'FAIL'} "
                f"({k['ratio_to_floor']:.2f}; CPU-time ratio {_f(k['cpu_ratio_to_floor'], '.2f')})"
            )
    print(f"floor = olkit pa1 (mistakes and updates) on every dataset: {summ['floor_equals_pa1_everywhere']}")
    return path, results


def line(r):
    """One configuration's result on one line (the progress output)."""
    if "error" in r:
        return f"ERROR: {r['error']}"
    if r.get("kind") == "vowpalwabbit":
        if "learn_only" not in r:
            return str(r.get("vowpalwabbit"))
        return (
            "vw learn-only {:.3g} ex/s (raw binding {:.3g}), driver {:.3g} ex/s, {} mistakes; floor {:.3g} ex/s".format(
                r["learn_only"]["examples_per_second"],
                r["learn_only_raw"]["examples_per_second"],
                r["driver"]["examples_per_second"],
                r["learn_only"]["mistakes"],
                r["floor"]["examples_per_second"],
            )
        )
    L = r["learner"]
    return (
        f"{L['examples_per_second']:.3g} ex/s, floor {r['floor']['examples_per_second']:.3g} ex/s, ratio "
        f"{r['ratio_to_floor']:.2f}, {L['mistakes']} mistakes, {L['n_updates']} updates, "
        f"rss {r['peak_rss_mb']:.0f} MB"
    )
