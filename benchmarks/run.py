#!/usr/bin/env python
"""olkit benchmark suite (``make bench``).

    .venv/bin/python benchmarks/run.py                    # everything (about 8-10 minutes)
    .venv/bin/python benchmarks/run.py --quick            # mushrooms, a9a linear, start-up (about 2 minutes)
    .venv/bin/python benchmarks/run.py --only startup     # one benchmark (repeatable, or comma list)

Benchmarks (see benchmarks/README.md for what each number means):

* ``kernel_learners``: duol, pa1, perceptron on w7a, mushrooms, a9a (plus a9a's train file in file
  order, the reference point of a compiled C++ toolbox). Every configuration runs in its own
  subprocess: learning time (best of 3), mistakes, #SV, peak RSS, and, in the same process, the
  kernel-row lower bound (benchmarks/kernel_bound.py) for the data as loaded (CSR) and densified,
  the learner again on the densified data, and the ratios time / lower bound.
* ``dorothea``: the three learners on dorothea (100,000 sparse features), CSR only.
* ``linear_learners`` (benchmarks/linear.py): the linear learners (first-order with kernel="linear",
  second-order with diagonal and full covariance) on a9a, w8a, ijcnn1, usps-1vsall and dorothea, each
  configuration in its own subprocess next to a compiled PA-I floor (same process, same CSR arrays and
  ordering): examples/s, ratio to the floor vs the targets, mistakes, updates, peak RSS; plus Vowpal Wabbit
  (if installed) on the same streams. --quick: a9a only.
* ``budget_learners`` (benchmarks/budget.py): every budgeted learner on ijcnn1 (B = 600, σ = 1): learning
  seconds, per-segment time (10 segments), RSS growth, ratio to the budget's kernel-row bound; ijcnn1 x10
  (1.4 M examples) for ahpatron, bogd, fogd, nogd (memory flat in T).
* ``startup``: wall time of the process ``olkit run pa1 --data german`` (first run, then 7 warm
  runs) and of ``python -c "import olkit"``; and of ``olkit run duol --data german --repeats 1`` cold
  (an empty compile cache each run) and warm (``cli_duol``).

Each benchmark writes ``benchmarks/results/<name>.json`` (``<name>_quick.json`` with --quick) with the
machine, the date, the command and the results, and prints a table.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
MARKER = "@@OLKIT-BENCH-RESULT@@ "

BENCHMARKS = ("kernel_learners", "multiclass_kernel", "dorothea", "linear_learners", "budget_learners", "startup")
QUICK_BENCHMARKS = ("kernel_learners", "linear_learners", "startup")

REPEATS = 3                     # best of 3 for every timing (learner runs and lower bounds)
DENSE_LIMIT_MB = 500            # densify only below this size
WORKER_TIMEOUT = 1800           # seconds per subprocess
DUOL_A9A_PREFIX = 10000         # prefix measured to project DUOL's time on a9a
DUOL_A9A_LIMIT = 180.0          # skip when one projected run exceeds this (seconds)
SINGLE_REPEAT_ABOVE = 60.0      # a projected run longer than this is timed once, not 3 times
GRAM_LIMIT_GB = 8.0             # skip a run whose projected SV Gram cache exceeds this
STARTUP_WARM_RUNS = 15

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


# ---------------------------------------------------------------------------------------------------
# helpers shared by the parent and the workers
# ---------------------------------------------------------------------------------------------------

def sanitize(text):
    """Remove machine-specific absolute paths from text that goes into a results file."""
    if text is None:
        return None
    text = str(text)
    for prefix, repl in ((str(REPO), "."), (str(REPO.parent), ".."), (os.path.expanduser("~"), "~")):
        if prefix and prefix not in ("/", "."):
            text = text.replace(prefix, repl)
    return text


def display_path(path):
    """A path as written into results: relative to the repository when inside it, else its name."""
    p = Path(os.path.abspath(path))  # not resolved: a venv's python is a symlink out of the repository
    try:
        return os.path.relpath(p, REPO) if p.is_relative_to(REPO) else p.name
    except (OSError, ValueError):
        return p.name


def child_env():
    """Environment of every subprocess: OLKIT_DATA defaults to ../shared/data next to the repo."""
    env = os.environ.copy()
    if not env.get("OLKIT_DATA"):
        guess = REPO.parent / "shared" / "data"
        if guess.is_dir():
            env["OLKIT_DATA"] = str(guess)
    return env


def worker_record(spec, keys):
    """The start of a worker's result: the spec's ``keys``, the load average and olkit's source hash."""
    out = {key: spec.get(key) for key in keys}
    out["load_average_at_start"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    try:
        from olkit._compile import _source_hash

        out["olkit_source_hash"] = _source_hash()
    except Exception:  # noqa: BLE001 (diagnostic only)
        pass
    return out


def peak_rss_mb():
    import resource

    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    return kb / (1024.0 if sys.platform != "darwin" else 1024.0 * 1024.0)


# ---------------------------------------------------------------------------------------------------
# worker side: one configuration in its own process
# ---------------------------------------------------------------------------------------------------

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
        share = (lambda x: x / seconds if seconds > 0 else None)
        return {"block_products_seconds": self.dots, "reserve_seconds": self.reserve,
                "compiled_loop_seconds": self.loop, "other_seconds": other, "blocks": self.blocks,
                "block_products_share": share(self.dots), "reserve_share": share(self.reserve),
                "compiled_loop_share": share(self.loop), "other_share": share(other)}


def _one_run(olkit, algo, X, y, order, timer):
    """One fresh run of ``algo``; returns (record, learner)."""
    clf = olkit.make(algo)
    timer.reset()
    c0 = time.process_time()
    w0 = time.perf_counter()
    res = olkit.evaluate_online(clf, X, y, order=order)
    call_wall = time.perf_counter() - w0
    call_cpu = time.process_time() - c0
    record = {"seconds": res.seconds, "call_wall_seconds": call_wall, "call_cpu_seconds": call_cpu,
              "mistakes": res.mistakes, "mistake_rate": res.mistake_rate, "n_sv": res.n_sv,
              "n_updates": res.n_updates, "n_stored": int(clf.support_.n),
              "phases": timer.snapshot(res.seconds), "diagnostics": res.diagnostics,
              "input": "csr" if _issparse(X) else "dense",
              "engine_storage": "csr" if getattr(clf.support_, "sparse", None) else "dense",
              "gram_cache": bool(getattr(clf.support_, "use_gram", False))}
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
    keep = ("seconds", "dot_seconds", "kernel_seconds", "entries", "computed_entries", "sparse", "transform",
            "seconds_by_transform")
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
    out.update(n=n, d=d, nnz=int(X.nnz), density=X.nnz / (n * d),
               csr_mb=(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20, dense_mb=n * d * 8 / 2**20)
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
        res = olkit.evaluate_online(clf, X, y, order=order[:prefix])
        scale = n / prefix
        proj_sv = clf.support_.n * scale
        proj = {"prefix": prefix, "prefix_seconds": res.seconds, "prefix_n_sv": res.n_sv,
                "prefix_n_stored": int(clf.support_.n), "projected_n_sv": proj_sv,
                "projected_seconds": res.seconds * scale ** 2,
                "model": "time ∝ T·#SV with #SV ∝ T (quadratic in T); #SV linear in T",
                "limit_seconds": spec["project"]["limit"]}
        uses_gram = bool(getattr(clf.support_, "use_gram", False))
        proj["gram_cache_in_prefix_run"] = uses_gram
        proj["projected_gram_gb_if_cached"] = proj_sv ** 2 * 8 / 1e9
        del clf
        out["projection"] = proj
        if proj["projected_seconds"] > spec["project"]["limit"]:
            out["skipped"] = True
            out["reason"] = (f"projected learning time {proj['projected_seconds']:.0f} s (from {prefix} examples in "
                             f"{res.seconds:.2f} s, quadratic scaling) exceeds {spec['project']['limit']:.0f} s")
            return out
        if uses_gram and proj["projected_gram_gb_if_cached"] > GRAM_LIMIT_GB:
            out["skipped"] = True
            out["reason"] = (f"projected SV Gram cache {proj['projected_gram_gb_if_cached']:.1f} GB exceeds "
                             f"{GRAM_LIMIT_GB} GB")
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
            kernel_row_lower_bound_detail(X_match, arrival, kp, repeats=1, transform="olkit"))
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
        out["expansion_floor"] = {"seconds": min(floors), "all_seconds": floors,
                                  "what": "the K scores' scatter loop alone over the run's entries (kernel_bound."
                                          "expansion_floor)"}
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
        out["learner_dense_input_skipped"] = ("never densified (dorothea)" if spec.get("never_densify")
                                              else f"dense matrix {out['dense_mb']:.0f} MB ≥ {DENSE_LIMIT_MB} MB")
    del Xd
    out["peak_rss_mb_final"] = peak_rss_mb()
    out["wall_seconds"] = time.perf_counter() - t_start
    return out


def worker_main(kind, spec_json):
    sys.path.insert(0, str(HERE))
    spec = json.loads(spec_json)
    if kind == "kernel":
        result = worker_kernel(spec)
    elif kind == "machine":
        result = machine_info()
    elif kind in ("linear", "vw"):
        import linear

        result = linear.main_worker(kind, spec)
    elif kind == "budget":
        import budget

        result = budget.main_worker(kind, spec)
    else:
        raise SystemExit(f"unknown worker kind {kind!r}")
    sys.stdout.write(MARKER + json.dumps(result) + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------------------
# parent side
# ---------------------------------------------------------------------------------------------------

def run_worker(spec, kind="kernel"):
    """Run one configuration in a fresh interpreter; returns its result dict (or an error record)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, json.dumps(spec)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=WORKER_TIMEOUT, env=child_env(),
                              cwd=str(REPO))
    except subprocess.TimeoutExpired:
        return {**spec, "error": f"timed out after {WORKER_TIMEOUT} s"}
    wall = time.perf_counter() - t0
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            result = json.loads(line[len(MARKER):])
            result["process_wall_seconds"] = wall
            return result
    return {**spec, "error": f"worker exited with status {proc.returncode}",
            "stderr_tail": sanitize(proc.stderr[-3000:]), "stdout_tail": sanitize(proc.stdout[-1000:])}


def machine_info():
    from importlib import metadata

    import numpy  # noqa: F401  (loads numpy's BLAS so that threadpoolctl sees it)
    import scipy.linalg  # noqa: F401  (and scipy's, if it has its own)
    from threadpoolctl import threadpool_info

    versions = {}
    for pkg in ("numpy", "scipy", "numba", "llvmlite", "threadpoolctl", "scikit-learn", "olkit"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    blas = []
    for info in threadpool_info():
        entry = {k: v for k, v in info.items() if k != "filepath"}
        entry["library"] = Path(info.get("filepath", "")).name
        blas.append(entry)
    cpu_model = None
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        mem_gb = None
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": cpu_model or platform.processor(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": affinity,
        "memory_gb": round(mem_gb, 1) if mem_gb else None,
        "python": platform.python_version(),
        "versions": versions,
        "blas": blas,
        "env": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                               "NUMBA_NUM_THREADS") if os.environ.get(k)},
        "olkit_data_set": bool(child_env().get("OLKIT_DATA")),
    }


def git_info():
    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=str(REPO), capture_output=True, text=True,
                                  timeout=20).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    status = git("status", "--porcelain", "src")
    return {"commit": git("rev-parse", "HEAD"), "src_modified_files": len(status.splitlines()) if status else 0}


def write_json(name, quick, started, payload):
    RESULTS.mkdir(parents=True, exist_ok=True)
    doc = {
        "benchmark": name,
        "quick": quick,
        "date": started,
        "finished": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": " ".join([display_path(sys.executable), "benchmarks/run.py", *sys.argv[1:]]),
        "machine": MACHINE,
        "git": git_info(),
        "load_average_start_end": [LOAD_START, list(os.getloadavg()) if hasattr(os, "getloadavg") else None],
    }
    doc.update(payload)
    path = RESULTS / (f"{name}_quick.json" if quick else f"{name}.json")
    tmp = path.with_suffix(".json.tmp")
    with open(tmp, "w") as fh:
        json.dump(doc, fh, indent=1, default=str)
        fh.write("\n")
    os.replace(tmp, path)
    return path


def now_iso():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


# ---- kernel learners ---------------------------------------------------------------------------------

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
            jobs.append({"name": "a9a-train/perceptron/file", "dataset": "a9a", "rows": A9A_TRAIN_ROWS,
                         "algorithm": "perceptron", "order": "file"})
    return jobs


def kol_comparison(results):
    out = {}
    for key, name in (("a9a_full_file_order", "a9a/perceptron/file"),
                      ("a9a_train_file_order", "a9a-train/perceptron/file")):
        r = next((r for r in results if r.get("name") == name and "learner" in r), None)
        if r is None:
            continue
        L = r["learner"]
        out[key] = {
            "n": r["n"], "n_sv": L["n_sv"], "same_n_sv_as_kol": L["n_sv"] == KOL_REFERENCE["n_sv"],
            "seconds": L["seconds"], "call_cpu_seconds": L["call_cpu_seconds"],
            "ratio_to_kol_5.8s": L["seconds"] / KOL_REFERENCE["cpu_seconds"],
            "cpu_ratio_to_kol_5.8s": L["call_cpu_seconds"] / KOL_REFERENCE["cpu_seconds"],
            "bound_dense_seconds": r.get("bound_dense", {}).get("seconds"),
            "bound_dense_over_kol_bound_0.78s": (r["bound_dense"]["seconds"] / KOL_REFERENCE["lower_bound_seconds"]
                                                 if "bound_dense" in r else None),
        }
    out["note"] = ("ratio_to_kol_5.8s = our learning seconds (wall, one BLAS thread) / KOL's 5.8 s of CPU; < 1 means "
                   "faster. Only a9a_train_file_order is like-for-like (same rows, same 6,901 SV).")
    return out


def bench_kernel_learners(quick):
    started = now_iso()
    results = []
    for spec in kernel_jobs(quick):
        print(f"  [kernel_learners] {spec['name']} ...", flush=True)
        r = run_worker(spec)
        results.append(r)
        print("    " + one_line(r), flush=True)
    hashes = {r.get("olkit_source_hash") for r in results if r.get("olkit_source_hash")}
    payload = {
        "settings": {"repeats": REPEATS, "dense_limit_mb": DENSE_LIMIT_MB, "kernel": "gaussian sigma=8",
                     "C": 5, "block": 256, "blas_threads": 1,
                     "duol_a9a": {"prefix": DUOL_A9A_PREFIX, "limit_seconds": DUOL_A9A_LIMIT,
                                  "single_repeat_above_seconds": SINGLE_REPEAT_ABOVE}},
        "reference": KOL_REFERENCE,
        "kol_comparison": kol_comparison(results),
        "source_changed_during_run": len(hashes) > 1,
        "results": results,
    }
    path = write_json("kernel_learners", quick, started, payload)
    print(kernel_table(results))
    return path, results


def bench_multiclass_kernel(quick):
    """M-DUOL and multiclass PA-I on the DUOL Table 4 datasets mnist and letter (σ = 8, C = 10):
    learning seconds and the ratio to the kernel-row lower bound measured in the same process."""
    started = now_iso()
    results = []
    datasets = ("letter",) if quick else ("mnist", "letter")
    for ds in datasets:
        for algo in ("duol", "pa1"):
            spec = {"name": f"{ds}/{algo}/random", "dataset": ds, "algorithm": algo, "order": "random", "seed": 0}
            print(f"  [multiclass_kernel] {spec['name']} ...", flush=True)
            r = run_worker(spec)
            results.append(r)
            print("    " + one_line(r), flush=True)
    payload = {"settings": {"repeats": REPEATS, "kernel": "gaussian sigma=8", "C": "10 (paper's multiclass)",
                            "block": 256, "blas_threads": 1}, "results": results}
    path = write_json("multiclass_kernel", quick, started, payload)
    print(kernel_table(results))
    return path, results


def bench_dorothea(quick):
    started = now_iso()
    results = []
    for algo in ("duol", "pa1", "perceptron"):
        spec = {"name": f"dorothea/{algo}/random", "dataset": "dorothea", "algorithm": algo, "order": "random",
                "seed": 0, "never_densify": True}
        print(f"  [dorothea] {spec['name']} ...", flush=True)
        r = run_worker(spec)
        results.append(r)
        print("    " + one_line(r), flush=True)
    payload = {"settings": {"repeats": REPEATS, "kernel": "gaussian sigma=8", "C": 5, "input": "CSR, never densified"},
               "results": results}
    path = write_json("dorothea", quick, started, payload)
    print(kernel_table(results))
    return path, results


def one_line(r):
    if "error" in r:
        return f"ERROR: {r['error']}"
    if r.get("skipped"):
        return f"skipped: {r['reason']}"
    L = r["learner"]
    s = (f"{L['seconds']:.3f} s, {L['n_sv']} SV, {L['mistakes']} mistakes, rss {r['peak_rss_mb']:.0f} MB, "
         f"bound csr {r['bound_csr']['seconds']:.3f} s")
    if "bound_dense" in r:
        s += f", bound dense {r['bound_dense']['seconds']:.3f} s"
    if "learner_dense_input" in r:
        s += f", dense learner {r['learner_dense_input']['seconds']:.3f} s"
    if "expansion_floor" in r:
        s += (f", ratio {r['ratio_matching']:.2f}; scores' scatter alone {r['expansion_floor']['seconds']:.3f} s: "
              f"bound + scatter = {r['ratio_bound_plus_expansion_floor']:.2f} x bound")
    return s


def fmt(x, spec=".3g"):
    if x is None:
        return "-"
    if isinstance(x, float):
        return format(x, spec)
    return str(x)


def text_table(header, rows):
    widths = [max(len(str(h)), *(len(str(row[i])) for row in rows)) if rows else len(str(h))
              for i, h in enumerate(header)]
    lines = ["  ".join(str(h).rjust(w) for h, w in zip(header, widths)),
             "  ".join("-" * w for w in widths)]
    for row in rows:
        lines.append("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


def kernel_table(results):
    header = ["config", "store", "SV", "err%", "sec", "cpu/wall", "ex/s", "RSS MB", "LB csr", "ratio", "LB dense",
              "ratio", "dense sec", "ratio", "prod/grow/loop/other %"]
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
            split = "/".join(f"{100 * (ph.get(k) or 0):.0f}" for k in
                             ("block_products_share", "reserve_share", "compiled_loop_share", "other_share"))
        else:
            split = "-"
        rows.append([r["name"], L["engine_storage"], L["n_sv"], fmt(100 * L["mistake_rate"], ".2f"),
                     fmt(L["seconds"]), fmt(L.get("cpu_over_wall"), ".2f"), fmt(L["examples_per_second"], ".0f"),
                     fmt(r["peak_rss_mb"], ".0f"),
                     fmt(r["bound_csr"]["seconds"]), fmt(r["ratio_csr"], ".2f"),
                     fmt(r.get("bound_dense", {}).get("seconds")), fmt(r.get("ratio_dense"), ".2f"),
                     fmt(D["seconds"]) if D else "-", fmt(r.get("ratio_dense_input"), ".2f"), split])
    text = text_table(header, rows)
    if notes:
        text += "\n" + "\n".join(notes)
    return text


# ---- budgeted learners (benchmarks/budget.py) -------------------------------------------------------

def bench_budget_learners(quick):
    sys.path.insert(0, str(HERE))
    import budget

    started = now_iso()
    results = []
    for spec in budget.jobs(quick):
        print(f"  [budget_learners] {spec['name']} ...", flush=True)
        r = run_worker(spec, "budget")
        results.append(r)
        print("    " + budget.line(r), flush=True)
    payload = {
        "settings": {"dataset": "ijcnn1 (141,691 x 22), one ordering (seed 0); ijcnn1x10: 10 copies, shuffled",
                     "B": budget.B, "D_fogd": budget.D, "sigma": budget.SIGMA, "segments": budget.SEGMENTS,
                     "bound": "T x B Gaussian kernel entries by blocked BLAS against B fixed rows, exp included "
                              "(benchmarks/kernel_bound.py), same process",
                     "targets": {"flatness_after_fill": 1.3, "ratio_to_bound": 2.0, "ratio_to_kol": 1 / 3,
                                 "rss_growth_difference_mb": 50}},
        "summary": budget.summary(results),
        "results": results,
    }
    path = write_json("budget_learners", quick, started, payload)
    print(json.dumps(payload["summary"], indent=1))
    return path, results


# ---- linear learners (benchmarks/linear.py) ---------------------------------------------------------

def bench_linear_learners(quick):
    sys.path.insert(0, str(HERE))
    import linear

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
        print("    " + linear_line(r), flush=True)
    hashes = {r.get("olkit_source_hash") for r in results if r.get("olkit_source_hash")}
    payload = {
        "settings": {
            "repeats": REPEATS, "timing": "best of 3; floor and learner interleaved in the same process",
            "order": f"np.random.default_rng({linear.SEED}).permutation(n), one per dataset, for every learner",
            "C": linear.C, "targets_ratio_to_floor": linear.TARGETS,
            "floor": "benchmarks/linear.py pa1_floor: plain numba @njit(cache=True) CSR loop of binary PA-I",
            "first_order": list(linear.FIRST_ORDER), "second_order": list(linear.SECOND_ORDER),
            "csr_datasets": list(linear.QUICK_CSR_DATASETS if quick else linear.CSR_DATASETS),
            "full_covariance_datasets": [] if quick else [linear.FULL_DATASET, *linear.CSR_DATASETS],
            "memory_dataset": None if quick else linear.MEMORY_DATASET,
            "vowpalwabbit_args": linear.VW_ARGS,
            "restrictions": ("--quick: a9a only (first-order + diagonal), VW on a9a" if quick else
                             "full covariance on usps-1vsall (with diagonal next to it), a9a, w8a, ijcnn1 (not "
                             "dorothea: a 100,000 x 100,000 covariance is refused by olkit); VW on a9a, w8a, "
                             "ijcnn1, dorothea"),
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
            print(f"target {kind} ratio >= {k['target']}: {k['passed']}/{k['rows']} pass (CPU-time ratio: "
                  f"{k['passed_cpu']}/{k['rows']}); worst "
                  f"{k['worst']['name']} {k['worst']['ratio_to_floor']:.2f}"
                  + (f"; failed: {', '.join(k['failed'])}" if k["failed"] else ""))
    print(f"floor = olkit pa1 (mistakes and updates) on every dataset: {summ['floor_equals_pa1_everywhere']}")
    return path, results


def linear_line(r):
    if "error" in r:
        return f"ERROR: {r['error']}"
    if r.get("kind") == "vowpalwabbit":
        if "learn_only" not in r:
            return str(r.get("vowpalwabbit"))
        return ("vw learn-only {:.3g} ex/s (raw binding {:.3g}), driver {:.3g} ex/s, {} mistakes; floor {:.3g} ex/s"
                .format(r["learn_only"]["examples_per_second"], r["learn_only_raw"]["examples_per_second"],
                        r["driver"]["examples_per_second"], r["learn_only"]["mistakes"],
                        r["floor"]["examples_per_second"]))
    L = r["learner"]
    return (f"{L['examples_per_second']:.3g} ex/s, floor {r['floor']['examples_per_second']:.3g} ex/s, ratio "
            f"{r['ratio_to_floor']:.2f}, {L['mistakes']} mistakes, {L['n_updates']} updates, "
            f"rss {r['peak_rss_mb']:.0f} MB")


# ---- start-up ---------------------------------------------------------------------------------------

def _time_process(cmd, timeout=900, env=None):
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env or child_env(),
                              cwd=str(REPO))
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, None, "", f"timed out after {timeout} s"
    except OSError as exc:
        return time.perf_counter() - t0, None, "", str(exc)
    return time.perf_counter() - t0, proc.returncode, proc.stdout, proc.stderr


def _series(cmd, warm_runs):
    first, rc, out, err = _time_process(cmd)
    if rc != 0:
        return {"ok": False, "returncode": rc, "first_seconds": first, "stderr_tail": sanitize(err[-2000:]),
                "stdout_tail": sanitize(out[-500:])}
    warm = []
    failures = 0
    for _ in range(warm_runs):
        t, rc_w, _o, _e = _time_process(cmd)
        if rc_w != 0:
            failures += 1
            continue
        warm.append(t)
    return {"ok": True, "first_seconds": first, "warm_seconds": warm,
            "warm_median_seconds": statistics.median(warm) if warm else None,
            "warm_min_seconds": min(warm) if warm else None, "warm_failures": failures,
            "stdout_head": sanitize("\n".join(out.splitlines()[:12]))}


def bench_startup(quick):
    started = now_iso()
    args = ["run", "pa1", "--data", "german"]
    candidates = []
    on_path = shutil.which("olkit")
    if on_path:
        candidates.append(("olkit on PATH", [on_path, *args], "olkit " + " ".join(args)))
    else:
        venv_script = Path(sys.executable).parent / "olkit"
        if venv_script.exists():
            candidates.append(("olkit console script of this environment (olkit is not on PATH)",
                               [str(venv_script), *args], f"{display_path(venv_script)} " + " ".join(args)))
    candidates.append(("python -m olkit.cli", [sys.executable, "-m", "olkit.cli", *args],
                       f"{display_path(sys.executable)} -m olkit.cli " + " ".join(args)))
    attempts = []
    cli = None
    for label, cmd, shown in candidates:
        print(f"  [startup] {shown} ...", flush=True)
        series = _series(cmd, STARTUP_WARM_RUNS)
        series.update(how=label, command=shown)
        attempts.append(series)
        if series["ok"]:
            cli = series
            break
        print(f"    failed (status {series['returncode']}): {series['stderr_tail'][-300:]}", flush=True)
    duol = _startup_duol(candidates)
    print("  [startup] python -c 'import olkit' ...", flush=True)
    imp = _series([sys.executable, "-c", "import olkit"], STARTUP_WARM_RUNS)
    imp["command"] = f"{display_path(sys.executable)} -c 'import olkit'"
    base = _series([sys.executable, "-c", "pass"], STARTUP_WARM_RUNS)
    base["command"] = f"{display_path(sys.executable)} -c 'pass'"
    payload = {
        "settings": {"warm_runs": STARTUP_WARM_RUNS, "timing": "wall time of subprocess.run around the whole process",
                     "first_run": "the first run of the series (cold-ish: OS file cache and numba cache as found)"},
        "cli": cli if cli else {"ok": False, "failure": "every way of running the CLI failed; see attempts"},
        "cli_attempts": attempts,
        "cli_duol": duol,
        "import_olkit": imp,
        "python_baseline": base,
    }
    path = write_json("startup", quick, started, payload)
    rows = []
    for label, s in (("olkit run pa1 --data german", cli), ("python -c 'import olkit'", imp),
                     ("python -c 'pass'", base)):
        if s and s.get("ok"):
            rows.append([label, fmt(s["first_seconds"]), fmt(s["warm_median_seconds"]), fmt(s["warm_min_seconds"])])
        else:
            rows.append([label, "FAILED", "-", "-"])
    print(text_table(["process", "first s", "warm median s", "warm min s"], rows))
    if duol.get("ok"):
        print(text_table(["process", "cold min s", "cold median s", "warm min s", "warm median s"],
                         [[duol["command"], fmt(duol["cold_min_seconds"]), fmt(duol["cold_median_seconds"]),
                           fmt(duol["warm_min_seconds"]), fmt(duol["warm_median_seconds"])]]))
    else:
        print(f"olkit run duol: FAILED ({duol.get('failure')})")
    return path, payload


STARTUP_DUOL_ARGS = ["run", "duol", "--data", "german", "--repeats", "1"]
STARTUP_COLD_RUNS = 3


def _startup_duol(candidates):
    """``olkit run duol --data german --repeats 1``: cold (each run with its own empty compile cache,
    OLKIT_NUMBA_CACHE = a fresh directory: everything DUOL's run needs is compiled) and warm (a fixed
    cache directory, filled by one run that is not counted)."""
    import tempfile

    exe = next((cmd[: -len(["run", "pa1", "--data", "german"])] for label, cmd, shown in candidates
                if label != "python -m olkit.cli"), None) or [sys.executable, "-m", "olkit.cli"]
    shown = ("olkit " if exe[0] != sys.executable else "python -m olkit.cli ") + " ".join(STARTUP_DUOL_ARGS)
    cmd = [*exe, *STARTUP_DUOL_ARGS]
    out = {"command": shown, "cold_runs": STARTUP_COLD_RUNS, "warm_runs": STARTUP_WARM_RUNS,
           "cold": "each run with its own empty OLKIT_NUMBA_CACHE directory (the whole compile)",
           "warm": "one fixed OLKIT_NUMBA_CACHE directory, filled by a first run that is not counted"}
    with tempfile.TemporaryDirectory(prefix="olkit-startup-") as root:
        cold = []
        for k in range(STARTUP_COLD_RUNS):
            env = child_env()
            env["OLKIT_NUMBA_CACHE"] = os.path.join(root, f"cold{k}")
            env.pop("NUMBA_CACHE_DIR", None)
            print(f"  [startup] {shown} (cold {k + 1}/{STARTUP_COLD_RUNS}) ...", flush=True)
            t, rc, o, e = _time_process(cmd, env=env)
            if rc != 0:
                return {**out, "ok": False, "failure": f"status {rc}", "stderr_tail": sanitize(e[-2000:])}
            cold.append(t)
        env = child_env()
        env["OLKIT_NUMBA_CACHE"] = os.path.join(root, "warm")
        env.pop("NUMBA_CACHE_DIR", None)
        _time_process(cmd, env=env)
        print(f"  [startup] {shown} (warm x{STARTUP_WARM_RUNS}) ...", flush=True)
        warm = [t for t, rc, _o, _e in (_time_process(cmd, env=env) for _ in range(STARTUP_WARM_RUNS)) if rc == 0]
    out.update(ok=True, cold_seconds=cold, cold_min_seconds=min(cold), cold_median_seconds=statistics.median(cold),
               warm_seconds=warm, warm_min_seconds=min(warm) if warm else None,
               warm_median_seconds=statistics.median(warm) if warm else None,
               warm_failures=STARTUP_WARM_RUNS - len(warm))
    return out


# ---- main -------------------------------------------------------------------------------------------

MACHINE = None
LOAD_START = None


def main(argv=None):
    global MACHINE, LOAD_START
    parser = argparse.ArgumentParser(description="olkit benchmark suite; results go to benchmarks/results/")
    parser.add_argument("--quick", action="store_true",
                        help="mushrooms (kernel), a9a (linear) + start-up (about 2 minutes)")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help=f"run only this benchmark ({', '.join(BENCHMARKS)}); repeatable or comma-separated")
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "SPEC"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(*args.worker)
        return 0
    selected = list(QUICK_BENCHMARKS if args.quick else BENCHMARKS)
    if args.only:
        wanted = [w.strip() for item in args.only for w in item.split(",") if w.strip()]
        unknown = [w for w in wanted if w not in BENCHMARKS]
        if unknown:
            parser.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
        selected = [b for b in BENCHMARKS if b in wanted]
    if not child_env().get("OLKIT_DATA") and any(b != "startup" for b in selected):
        print("warning: OLKIT_DATA is not set and ../shared/data was not found; datasets beyond the bundled ones are "
              "downloaded on first use (olkit.data.fetch)", file=sys.stderr)
    LOAD_START = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    # in a child process: importing numpy here would start OpenBLAS thread pools in this process, which
    # measurably slowed the start-up benchmark's child processes on a 2-core machine (median 0.83 s vs 0.66 s)
    MACHINE = run_worker({}, "machine")
    MACHINE.pop("process_wall_seconds", None)
    t0 = time.perf_counter()
    print(f"olkit benchmarks: {', '.join(selected)}{' (quick)' if args.quick else ''}; "
          f"{MACHINE['cpu_count']} CPUs, load {LOAD_START}", flush=True)
    written = []
    runners = {"kernel_learners": bench_kernel_learners, "multiclass_kernel": bench_multiclass_kernel,
               "dorothea": bench_dorothea,
               "linear_learners": bench_linear_learners, "budget_learners": bench_budget_learners,
               "startup": bench_startup}
    for name in selected:
        print(f"\n== {name} ==", flush=True)
        path, _ = runners[name](args.quick)
        written.append(path)
    print(f"\nwrote {', '.join(display_path(p) for p in written)} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
