"""The kernel learners' benchmark (``--only kernel_learners``): duol, pa1, perceptron on w7a, mushrooms and
a9a (plus a9a's train file in file order, the reference point of a compiled C++ toolbox). Every
configuration runs in its own subprocess (:func:`worker_kernel`): learning time (best of 3), mistakes, #SV,
peak RSS and, in the same process, the kernel-row lower bound (benchmarks/kernel_bound.py) for the data as
loaded (CSR) and densified, the learner again on the densified data, and the ratios time / lower bound.
The multiclass and dorothea benchmarks (``multiclass_kernel.py``, ``dorothea.py``) use the same worker.
"""

import time

from harness import REPEATS, fmt, now_iso, peak_rss_mb, run_worker, text_table, worker_record, write_json

DENSE_LIMIT_MB = 500  # densify only below this size
DUOL_A9A_PREFIX = 10000  # prefix measured to project DUOL's time on a9a
DUOL_A9A_LIMIT = 180.0  # skip when one projected run exceeds this (seconds)
SINGLE_REPEAT_ABOVE = 60.0  # a projected run longer than this is timed once, not 3 times
GRAM_LIMIT_GB = 8.0  # skip a run whose projected SV Gram cache exceeds this

KOL_REFERENCE = {
    "text": "a compiled C++ toolbox (KOL) runs the kernel Perceptron on a9a (σ = 8, file order, 6,901 SV) "
    "in 5.8 s of CPU on this machine, lower bound 0.78 s",
    "toolbox": "KOL (compiled C++)",
    "algorithm": "perceptron",
    "dataset": "a9a",
    "sigma": 8.0,
    "order": "file",
    "n_sv": 6901,
    "cpu_seconds": 5.8,
    "lower_bound_seconds": 0.78,
    "note": "6,901 SV is what olkit's perceptron makes on a9a's train file alone (32,561 rows, file order); "
    "olkit's catalog a9a is train + test (48,842 rows, 10,244 SV), so the like-for-like comparison "
    "is the row 'a9a-train' (the first 32,561 rows of the catalog a9a = the a9a.train file).",
}
A9A_TRAIN_ROWS = 32561


class PhaseTimer:
    """Splits a learner's run into block products (SupportSet.dots), support-set growth
    (SupportSet.reserve: reallocation and copies, e.g. of DUOL's Gram cache) and the compiled loop
    (engine.kernel_block: kernel transform, SVs added inside the block, prediction, update rule).
    Everything else (input conversion, row slicing, Python) is ``other``.

    Installed by wrapping the two functions; costs two clock reads per block of 256 examples. If the
    library's internals change and the hooks are gone, ``available`` stays False and nothing is wrapped.
    """

    def __init__(self):
        self.available = False
        self.reset()

    def reset(self):
        self.dots = 0.0
        self.reserve = 0.0
        self.loop = 0.0
        self.blocks = 0

    def install(self):
        import time as _time

        try:
            from olkit.learners.kernel import base, support_set

            orig_dots = support_set.SupportSet.dots
            orig_reserve = support_set.SupportSet.reserve
            orig_loop = base.KernelLearner._loop
        except (ImportError, AttributeError):
            return
        timer = self

        def reserve(self_, *args, **kwargs):
            t0 = _time.perf_counter()
            out = orig_reserve(self_, *args, **kwargs)
            timer.reserve += _time.perf_counter() - t0
            return out

        def dots(self_, rows):
            t0 = _time.perf_counter()
            out = orig_dots(self_, rows)
            timer.dots += _time.perf_counter() - t0
            return out

        def loop(self_):
            compiled = orig_loop(self_)

            def kernel_block(*args):
                t0 = _time.perf_counter()
                out = compiled(*args)
                if len(args) >= 7 and args[6] > args[5]:  # not the empty warm-up call (start == stop)
                    timer.loop += _time.perf_counter() - t0
                    timer.blocks += 1
                return out

            return kernel_block

        support_set.SupportSet.dots = dots
        support_set.SupportSet.reserve = reserve
        base.KernelLearner._loop = loop
        self.available = True

    def snapshot(self, seconds):
        if not self.available or self.blocks == 0:
            return None
        other = seconds - self.dots - self.reserve - self.loop

        def share(x):
            return x / seconds if seconds > 0 else None

        return {
            "block_products_seconds": self.dots,
            "reserve_seconds": self.reserve,
            "compiled_loop_seconds": self.loop,
            "other_seconds": other,
            "blocks": self.blocks,
            "block_products_share": share(self.dots),
            "reserve_share": share(self.reserve),
            "compiled_loop_share": share(self.loop),
            "other_share": share(other),
        }


def _one_run(olkit, algo, X, y, order, timer):
    """One fresh run of ``algo``; returns (record, learner)."""
    clf = olkit.make(algo)
    timer.reset()
    c0 = time.process_time()
    w0 = time.perf_counter()
    res = olkit.evaluate_online(clf, X, y, order=order)
    call_wall = time.perf_counter() - w0
    call_cpu = time.process_time() - c0
    record = {
        "seconds": res.seconds,
        "call_wall_seconds": call_wall,
        "call_cpu_seconds": call_cpu,
        "mistakes": res.mistakes,
        "mistake_rate": res.mistake_rate,
        "n_sv": res.n_sv,
        "n_updates": res.n_updates,
        "n_stored": int(clf.support_.n),
        "phases": timer.snapshot(res.seconds),
        "diagnostics": res.diagnostics,
        "input": "csr" if _issparse(X) else "dense",
        "engine_storage": "csr" if getattr(clf.support_, "sparse", None) else "dense",
        "gram_cache": bool(getattr(clf.support_, "use_gram", False)),
    }
    return record, clf


def _issparse(X):
    import scipy.sparse as sp

    return sp.issparse(X)


def _summarise_runs(runs, n):
    """Best of the runs (by learning seconds) plus what every run agreed on."""
    best = min(runs, key=lambda r: r["seconds"])
    out = {
        "input": best["input"],
        "engine_storage": best["engine_storage"],
        "gram_cache": best["gram_cache"],
        "repeats": len(runs),
        "seconds": best["seconds"],
        "seconds_all": [r["seconds"] for r in runs],
        "examples_per_second": n / best["seconds"] if best["seconds"] > 0 else None,
        "call_cpu_seconds": best["call_cpu_seconds"],
        "call_wall_seconds": best["call_wall_seconds"],
        "cpu_over_wall": best["call_cpu_seconds"] / best["call_wall_seconds"],
        "mistakes": best["mistakes"],
        "mistake_rate": best["mistake_rate"],
        "n_sv": best["n_sv"],
        "n_stored": best["n_stored"],
        "n_updates": best["n_updates"],
        "deterministic": len({(r["mistakes"], r["n_sv"], r["n_updates"]) for r in runs}) == 1,
        "phases": best["phases"],
    }
    if best["diagnostics"]:
        out["diagnostics"] = best["diagnostics"]
    return out


def _bound_summary(details):
    """Best of several single-repetition bound measurements (taken in different rounds)."""
    best = min(details, key=lambda d: d["seconds"])
    keep = (
        "seconds",
        "dot_seconds",
        "kernel_seconds",
        "entries",
        "computed_entries",
        "sparse",
        "transform",
        "seconds_by_transform",
    )
    out = {k: best[k] for k in keep if k in best}
    out["repeats"] = len(details)
    out["all_seconds"] = [d["seconds"] for d in details]
    out["ns_per_entry"] = best["seconds"] / best["entries"] * 1e9 if best.get("entries") else None
    return out


def worker_kernel(spec):
    """One configuration: learner runs, lower bounds, densified runs. Returns a JSON-able dict.

    The repetitions are interleaved: round r runs the learner on the data as loaded, the lower bounds
    and the learner on the densified data, one after the other, so that every quantity of a ratio is
    sampled in the same time windows (the machine's load changes over seconds); each is the best of
    its rounds.
    """
    import numpy as np
    import scipy.sparse as sp

    import olkit
    from kernel_bound import expansion_floor, kernel_row_lower_bound_detail

    t_start = time.perf_counter()
    out = worker_record(spec, ("name", "dataset", "algorithm"))
    t0 = time.perf_counter()
    X, y = olkit.load_dataset(spec["dataset"])
    out["load_seconds"] = time.perf_counter() - t0
    if spec.get("rows"):
        X, y = X[: spec["rows"]], y[: spec["rows"]]
        out["rows"] = f"first {spec['rows']} rows of {spec['dataset']}"
    if not sp.issparse(X):
        raise RuntimeError(f"load_dataset({spec['dataset']!r}) returned {type(X).__name__}, expected CSR")
    X = sp.csr_matrix(X)
    n, d = X.shape
    out.update(
        n=n,
        d=d,
        nnz=int(X.nnz),
        density=X.nnz / (n * d),
        csr_mb=(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20,
        dense_mb=n * d * 8 / 2**20,
    )
    if spec["order"] == "file":
        order = np.arange(n)
        out["order"] = "file"
    else:
        order = np.random.default_rng(spec["seed"]).permutation(n)
        out["order"] = f"random (np.random.default_rng({spec['seed']}).permutation(n))"
    out["peak_rss_mb_after_load"] = peak_rss_mb()
    timer = PhaseTimer()
    timer.install()
    repeats = spec.get("repeats", REPEATS)
    allow_dense_run = True

    # -- projection on a prefix (DUOL on a9a): skip when one run would take too long
    if spec.get("project"):
        prefix = min(spec["project"]["prefix"], n)
        clf = olkit.make(spec["algorithm"])
        # the prefix as a stream of its own (evaluate_online takes an ordering of every row)
        res = olkit.evaluate_online(clf, X[order[:prefix]], y[order[:prefix]])
        scale = n / prefix
        proj_sv = clf.support_.n * scale
        proj = {
            "prefix": prefix,
            "prefix_seconds": res.seconds,
            "prefix_n_sv": res.n_sv,
            "prefix_n_stored": int(clf.support_.n),
            "projected_n_sv": proj_sv,
            "projected_seconds": res.seconds * scale**2,
            "model": "time ∝ T·#SV with #SV ∝ T (quadratic in T); #SV linear in T",
            "limit_seconds": spec["project"]["limit"],
        }
        uses_gram = bool(getattr(clf.support_, "use_gram", False))
        proj["gram_cache_in_prefix_run"] = uses_gram
        proj["projected_gram_gb_if_cached"] = proj_sv**2 * 8 / 1e9
        del clf
        out["projection"] = proj
        if proj["projected_seconds"] > spec["project"]["limit"]:
            out["skipped"] = True
            out["reason"] = (
                f"projected learning time {proj['projected_seconds']:.0f} s (from {prefix} examples in "
                f"{res.seconds:.2f} s, quadratic scaling) exceeds {spec['project']['limit']:.0f} s"
            )
            return out
        if uses_gram and proj["projected_gram_gb_if_cached"] > GRAM_LIMIT_GB:
            out["skipped"] = True
            out["reason"] = (
                f"projected SV Gram cache {proj['projected_gram_gb_if_cached']:.1f} GB exceeds {GRAM_LIMIT_GB} GB"
            )
            return out
        if proj["projected_seconds"] > SINGLE_REPEAT_ABOVE:
            repeats = 1
            out["repeats_note"] = f"projected run > {SINGLE_REPEAT_ABOVE:.0f} s: timed once"
        if proj["projected_gram_gb_if_cached"] > GRAM_LIMIT_GB:
            allow_dense_run = False  # dense input always keeps DUOL's Gram cache

    # -- first run on the data as loaded (CSR): its peak RSS, and the SV arrival times for the bounds
    if spec.get("never_densify") and not sp.issparse(X):
        raise RuntimeError("dorothea must be passed as CSR")
    out["passed_sparse"] = bool(sp.issparse(X))
    record, clf = _one_run(olkit, spec["algorithm"], X, y, order, timer)
    runs = [record]
    out["peak_rss_mb"] = peak_rss_mb()  # one run on the data as loaded (plus the loaded data)
    arrival = np.asarray(clf.support_.added[: clf.support_.n]).copy()
    kp = np.asarray(clf._kernel_spec().params()).copy()
    if not np.all(np.diff(arrival) >= 0):
        out["warning_arrival_unsorted"] = True
    sv_n = clf.support_.n
    directions = None  # multiclass SVs γ_i (e_r − e_s): the expansion floor is measured over their directions
    if clf.support_.n_outputs > 1 and np.all(clf.support_.hr[:sv_n] >= 0):
        directions = (clf.support_.hr[:sv_n].copy(), clf.support_.hs[:sv_n].copy())
    del clf

    # -- the ordered stream for the bounds; densified copies when small enough
    X_ord = X[order]
    densify = not spec.get("never_densify") and out["dense_mb"] < DENSE_LIMIT_MB
    Xd = Xd_ord = None
    if densify:
        Xd = X.toarray()
        Xd_ord = Xd[order]
        if sp.issparse(Xd):
            raise RuntimeError("densified data is still sparse")
    dense_run = densify and allow_dense_run
    storage = record["engine_storage"]
    matching = "bound_dense" if storage == "dense" and densify else "bound_csr"
    X_match = Xd_ord if matching == "bound_dense" else X_ord
    bounds = {"bound_csr": [], "bound_dense": [], "bound_olkit_transform": []}
    floors = []
    dense_runs = []
    for r in range(repeats):
        if r > 0:
            record, clf = _one_run(olkit, spec["algorithm"], X, y, order, timer)
            del clf
            runs.append(record)
        bounds["bound_csr"].append(kernel_row_lower_bound_detail(X_ord, arrival, kp, repeats=1))
        if densify:
            bounds["bound_dense"].append(kernel_row_lower_bound_detail(Xd_ord, arrival, kp, repeats=1))
        # the bound with olkit's own (scalar) kernel transform, for the storage the learner used
        bounds["bound_olkit_transform"].append(
            kernel_row_lower_bound_detail(X_match, arrival, kp, repeats=1, transform="olkit")
        )
        if directions is not None:
            floors.append(expansion_floor(arrival, n, *directions, repeats=1))
        if dense_run:
            record_d, clf = _one_run(olkit, spec["algorithm"], Xd, y, order, timer)
            del clf
            dense_runs.append(record_d)
    del X_ord, Xd_ord, X_match
    learner = _summarise_runs(runs, n)
    out["learner"] = learner
    if spec.get("project"):
        out["projection"]["actual_over_projected"] = learner["seconds"] / out["projection"]["projected_seconds"]
    for key, details in bounds.items():
        if details:
            out[key] = _bound_summary(details)
    out["ratio_csr"] = learner["seconds"] / out["bound_csr"]["seconds"]
    if densify:
        out["ratio_dense"] = learner["seconds"] / out["bound_dense"]["seconds"]
    out["bound_matching_engine"] = matching
    out["ratio_matching"] = learner["seconds"] / out[matching]["seconds"]
    if floors:
        bound = out[matching]["seconds"]
        out["expansion_floor"] = {
            "seconds": min(floors),
            "all_seconds": floors,
            "what": "the K scores' scatter loop alone over the run's entries (kernel_bound.expansion_floor)",
        }
        out["ratio_bound_plus_expansion_floor"] = (bound + min(floors)) / bound
        out["ratio_to_bound_plus_expansion_floor"] = learner["seconds"] / (bound + min(floors))
    if dense_run:
        dense = _summarise_runs(dense_runs, n)
        out["learner_dense_input"] = dense
        out["ratio_dense_input"] = dense["seconds"] / out["bound_dense"]["seconds"]
        out["same_result_dense_input"] = (dense["mistakes"], dense["n_sv"]) == (learner["mistakes"], learner["n_sv"])
    elif densify:
        out["learner_dense_input_skipped"] = "projected SV Gram cache too large for a dense run"
    else:
        out["learner_dense_input_skipped"] = (
            "never densified (dorothea)"
            if spec.get("never_densify")
            else f"dense matrix {out['dense_mb']:.0f} MB ≥ {DENSE_LIMIT_MB} MB"
        )
    del Xd
    out["peak_rss_mb_final"] = peak_rss_mb()
    out["wall_seconds"] = time.perf_counter() - t_start
    return out


def kernel_jobs(quick):
    algos = ("duol", "pa1", "perceptron")
    jobs = []
    datasets = ("mushrooms",) if quick else ("w7a", "mushrooms", "a9a")
    for ds in datasets:
        for algo in algos:
            spec = {"name": f"{ds}/{algo}/random", "dataset": ds, "algorithm": algo, "order": "random", "seed": 0}
            if ds == "a9a" and algo == "duol":
                spec["project"] = {"prefix": DUOL_A9A_PREFIX, "limit": DUOL_A9A_LIMIT}
            jobs.append(spec)
        if ds == "a9a":
            jobs.append({"name": "a9a/perceptron/file", "dataset": "a9a", "algorithm": "perceptron", "order": "file"})
            jobs.append(
                {
                    "name": "a9a-train/perceptron/file",
                    "dataset": "a9a",
                    "rows": A9A_TRAIN_ROWS,
                    "algorithm": "perceptron",
                    "order": "file",
                }
            )
    return jobs


def kol_comparison(results):
    out = {}
    for key, name in (
        ("a9a_full_file_order", "a9a/perceptron/file"),
        ("a9a_train_file_order", "a9a-train/perceptron/file"),
    ):
        r = next((r for r in results if r.get("name") == name and "learner" in r), None)
        if r is None:
            continue
        L = r["learner"]
        out[key] = {
            "n": r["n"],
            "n_sv": L["n_sv"],
            "same_n_sv_as_kol": L["n_sv"] == KOL_REFERENCE["n_sv"],
            "seconds": L["seconds"],
            "call_cpu_seconds": L["call_cpu_seconds"],
            "ratio_to_kol_5.8s": L["seconds"] / KOL_REFERENCE["cpu_seconds"],
            "cpu_ratio_to_kol_5.8s": L["call_cpu_seconds"] / KOL_REFERENCE["cpu_seconds"],
            "bound_dense_seconds": r.get("bound_dense", {}).get("seconds"),
            "bound_dense_over_kol_bound_0.78s": (
                r["bound_dense"]["seconds"] / KOL_REFERENCE["lower_bound_seconds"] if "bound_dense" in r else None
            ),
        }
    out["note"] = (
        "ratio_to_kol_5.8s = our learning seconds (wall, one BLAS thread) / KOL's 5.8 s of CPU; < 1 means "
        "faster. Only a9a_train_file_order is like-for-like (same rows, same 6,901 SV)."
    )
    return out


def bench(quick):
    """Every kernel configuration (mushrooms only with --quick); writes kernel_learners.json."""
    started = now_iso()
    results = []
    for spec in kernel_jobs(quick):
        print(f"  [kernel_learners] {spec['name']} ...", flush=True)
        r = run_worker(spec, "kernel")
        results.append(r)
        print("    " + one_line(r), flush=True)
    hashes = {r.get("olkit_source_hash") for r in results if r.get("olkit_source_hash")}
    payload = {
        "settings": {
            "repeats": REPEATS,
            "dense_limit_mb": DENSE_LIMIT_MB,
            "kernel": "gaussian sigma=8",
            "C": 5,
            "block": 256,
            "blas_threads": 1,
            "duol_a9a": {
                "prefix": DUOL_A9A_PREFIX,
                "limit_seconds": DUOL_A9A_LIMIT,
                "single_repeat_above_seconds": SINGLE_REPEAT_ABOVE,
            },
        },
        "reference": KOL_REFERENCE,
        "kol_comparison": kol_comparison(results),
        "source_changed_during_run": len(hashes) > 1,
        "results": results,
    }
    path = write_json("kernel_learners", quick, started, payload)
    print(kernel_table(results))
    return path, results


def one_line(r):
    if "error" in r:
        return f"ERROR: {r['error']}"
    if r.get("skipped"):
        return f"skipped: {r['reason']}"
    L = r["learner"]
    s = (
        f"{L['seconds']:.3f} s, {L['n_sv']} SV, {L['mistakes']} mistakes, rss {r['peak_rss_mb']:.0f} MB, "
        f"bound csr {r['bound_csr']['seconds']:.3f} s"
    )
    if "bound_dense" in r:
        s += f", bound dense {r['bound_dense']['seconds']:.3f} s"
    if "learner_dense_input" in r:
        s += f", dense learner {r['learner_dense_input']['seconds']:.3f} s"
    if "expansion_floor" in r:
        s += (
            f", ratio {r['ratio_matching']:.2f}; scores' scatter alone {r['expansion_floor']['seconds']:.3f} s: "
            f"bound + scatter = {r['ratio_bound_plus_expansion_floor']:.2f} x bound"
        )
    return s


def kernel_table(results):
    header = [
        "config",
        "store",
        "SV",
        "err%",
        "sec",
        "cpu/wall",
        "ex/s",
        "RSS MB",
        "LB csr",
        "ratio",
        "LB dense",
        "ratio",
        "dense sec",
        "ratio",
        "prod/grow/loop/other %",
    ]
    rows = []
    notes = []
    for r in results:
        if "error" in r or r.get("skipped"):
            notes.append(f"{r['name']}: {r.get('error') or 'skipped: ' + r['reason']}")
            continue
        L = r["learner"]
        D = r.get("learner_dense_input")
        ph = L.get("phases") or {}
        if ph:
            split = "/".join(
                f"{100 * (ph.get(k) or 0):.0f}"
                for k in ("block_products_share", "reserve_share", "compiled_loop_share", "other_share")
            )
        else:
            split = "-"
        rows.append(
            [
                r["name"],
                L["engine_storage"],
                L["n_sv"],
                fmt(100 * L["mistake_rate"], ".2f"),
                fmt(L["seconds"]),
                fmt(L.get("cpu_over_wall"), ".2f"),
                fmt(L["examples_per_second"], ".0f"),
                fmt(r["peak_rss_mb"], ".0f"),
                fmt(r["bound_csr"]["seconds"]),
                fmt(r["ratio_csr"], ".2f"),
                fmt(r.get("bound_dense", {}).get("seconds")),
                fmt(r.get("ratio_dense"), ".2f"),
                fmt(D["seconds"]) if D else "-",
                fmt(r.get("ratio_dense_input"), ".2f"),
                split,
            ]
        )
    text = text_table(header, rows)
    if notes:
        text += "\n" + "\n".join(notes)
    return text
