#!/usr/bin/env python
"""Property fuzzer of olkit (issue 9, item 5; issue 21, item 3): random streams through every registered
algorithm, with numba's bounds checking on.

Each *run* is one algorithm with sampled options (kernels, σ fixed or at the data's scale, covariance
forms, small budgets B = 2…8, D ≤ 16 random features, compat modes, ...) on one random stream; the stream
and the options derive from ``(--seed, run index)`` alone, so any run can be replayed on its own
(``--replay``). A stream has n ≤ 60 rows, d ≤ 8 features, a magnitude 10^e with e uniform in [-300, 300]
(a quarter of the streams in [-4, 4]) applied to all rows, to a tenth of the rows, per feature
(10^(e+s_j), |s_j| ≤ 3) or to small integers; duplicate rows, zero rows, sparse rows; dense or CSR storage,
float64 or float32, or (5 %) another scipy format (csc, coo, bsr, dia, lil, dok; matrix or array); 1–5
classes with ±1, integer, float or string labels, or a multi-label matrix. 5 % of the streams are
structurally invalid sparse matrices (``fuzzing.streams.MALFORMED``: indices out of range or negative, indptr
decreasing, short or past the end, data too short, float indices; CSR, CSC, COO).

The compiled code runs with numba's bounds checking (``NUMBA_BOUNDSCHECK=1``, set here before numba is
imported, compiled into a cache directory of its own; ``--no-boundscheck`` turns it off): an index outside
an array raises an IndexError, recorded as *out_of_bounds* with a reproducer, never silent memory damage.
A worker process that dies (a crash outside the checked code) is recorded as *crash*. Checks:

* one pass ``olkit.evaluate_online``: only ValueError may be raised (numba's IndexError: *out_of_bounds*;
  any other exception: *crash*);
* a malformed stream: ``fit``, ``partial_fit``, ``evaluate_online``, ``predict`` and ``decision_function``
  each raise a ValueError saying the matrix is not valid (else *invariant*);
* the per-round scores, the final ``decision_function`` and the model (weights, SV coefficients,
  covariance) are finite (else *nonfinite*);
* invariants (else *invariant*): counts agree (mistakes = Σ flags = ``n_mistakes_``, ``n_seen_`` = n),
  score shapes, predictions among the classes, budgets (|S| ≤ B), a non-negative covariance diagonal;
* the same stream in 1–3 random cuts (``partial_fit`` with ``classes`` for the first chunk, then
  ``evaluate_online(reset=False)``) gives the one-pass run (else *chunked*): the same mistake flags, update
  counts and final scores, scores to RTOL of their scale (the largest Σ|terms| of a score, so that scores
  that cancel are compared at the precision of their terms); when the runs part at a decision tied within
  that tolerance, the rest is not compared. A ValueError in one pass must be one in chunks too;
* a run slower than ``--time-limit`` seconds, twice (the first time may be a first compile), is a *timeout*;
  a run that never returns to Python is ended by a watchdog after 2 × the limit + 30 s and recorded as *hang*.

A ValueError (too few classes, multiclass data for a binary learner, ...) is an accepted outcome; its
messages are counted in the summary. The summary (JSON, ``--out``) has the counts per outcome, per
algorithm and per magnitude, the issue's acceptance counts, the distinct ValueError messages, a *work
list* (one entry per algorithm and kind of failure: runs, magnitudes, options, a reproducer) and the first
``--examples`` runs of each outcome with a reproducer: a self-contained snippet on the shortest failing
prefix of the stream (literal data when small). The exit status is 1 when any run failed (after the summary
is written), 0 otherwise.

The stream generator, the options of a run and the checks are the test helper package ``tests/fuzzing``
(``streams``, ``options``, ``checks``), which tests/test_properties.py imports too; this script is the
command line: worker processes, the watchdog, reproducers and the summary.

    python tools/fuzz.py                      # 20,000 runs, bounds-checked (make fuzz)
    python tools/fuzz.py --runs 2000 --jobs 2 --algorithms pa,scw2 --exponents=-4,4
    python tools/fuzz.py --replay 1234        # one run, in this process: its record and reproducer
"""

import argparse
import collections
import json
import math
import os
import re
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "fuzz.json"

sys.path.insert(0, str(ROOT / "tests"))  # the generator and the checks: the test helper package tests/fuzzing
from fuzzing.checks import FAILURES, OUTCOMES, _sliceable, evaluate_run, run_case  # noqa: E402
from fuzzing.options import sample_run, sample_weights  # noqa: E402
from fuzzing.streams import EXPONENTS, KINDS, OTHER_FORMATS, build_stream  # noqa: E402

# ---------------------------------------------------------------------------------------------------------
# Workers (each run under the soft time limit of fuzzing.checks.run_case) and a hard watchdog (a run that
# never returns to Python)
# ---------------------------------------------------------------------------------------------------------
_CURRENT = {"case": None, "start": 0.0}


def _watchdog(hard_limit, hang_dir):
    while True:
        time.sleep(1.0)
        case, start = _CURRENT["case"], _CURRENT["start"]
        if case is not None and time.monotonic() - start > hard_limit:
            path = Path(hang_dir) / f"hang-{os.getpid()}-{case['index']}.json"
            path.write_text(json.dumps({"case": case, "seconds": time.monotonic() - start}))
            os._exit(70)


_WATCHDOG = []


def run_batch(cases, time_limit, hang_dir):
    """Run ``cases`` in this (worker) process. Before each run the case is written to
    ``hang_dir/current-<pid>.json``: if the process dies, the parent knows which runs were under way."""
    if hang_dir and not _WATCHDOG:
        hard = 2 * (time_limit or 60) + 30
        thread = threading.Thread(target=_watchdog, args=(hard, hang_dir), daemon=True)
        thread.start()
        _WATCHDOG.append(thread)
    warnings.simplefilter("ignore")
    marker = Path(hang_dir) / f"current-{os.getpid()}.json" if hang_dir else None
    out = []
    for case in cases:
        if marker is not None:
            marker.write_text(json.dumps(case))
        _CURRENT["case"], _CURRENT["start"] = case, time.monotonic()
        out.append(run_case(case, time_limit))
        _CURRENT["case"] = None
    if marker is not None:
        marker.unlink(missing_ok=True)
    return out


def _importable_self():
    """This module as an importable module: run as a script it is ``__main__``, whose functions loky would
    send by value, with fresh globals for every task (a new watchdog thread per batch); imported by name,
    the workers import it once."""
    if __name__ != "__main__":
        return sys.modules[__name__]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fuzz

    return fuzz


def _died(case, message):
    return {
        **case,
        "outcome": "crash",
        "seconds": None,
        "info": {"kind": "the worker process died", "type": "WorkerDied", "message": message},
    }


def run_all(cases, jobs, time_limit, batch_size=25, progress=True):
    """Records of every case, in parallel worker processes (joblib's loky executor). When a worker dies
    (the watchdog ended a hung run, or the process crashed), the runs under way are found from the
    workers' marker files: a hung run is recorded as "hang", a run that kills its process on its own
    (replayed alone to find out) as a crash; the other cases are resubmitted."""
    from joblib.externals.loky import get_reusable_executor

    worker = _importable_self()
    batches = {i: cases[i : i + batch_size] for i in range(0, len(cases), batch_size)}
    records = {}
    start = time.monotonic()

    shown = [0.0]

    def show():
        if progress and (time.monotonic() - shown[0] > 10 or len(records) == len(cases)):
            shown[0] = time.monotonic()
            print(f"{len(records)}/{len(cases)} runs, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)

    stalls = 0
    with tempfile.TemporaryDirectory(prefix="olkit-fuzz-") as hang_dir:
        while batches:
            if stalls > 3:  # workers keep dying without a culprit: give up on the rest, recorded as crashes
                for batch in batches.values():
                    for case in batch:
                        records.setdefault(case["index"], _died(case, "workers kept dying; not run"))
                break
            before = len(records)
            executor = get_reusable_executor(max_workers=jobs, timeout=600)
            futures = {
                executor.submit(worker.run_batch, batch, time_limit, hang_dir): key for key, batch in batches.items()
            }
            broken = False
            for fut in _as_completed(futures):
                try:
                    recs = fut.result()
                except Exception:  # noqa: BLE001  (a worker died)
                    broken = True
                    continue
                for rec in recs:
                    records[rec["index"]] = rec
                del batches[futures[fut]]
                show()
            if not broken:
                break
            hung = set()
            for path in Path(hang_dir).glob("hang-*.json"):
                data = json.loads(path.read_text())
                case = data["case"]
                records[case["index"]] = {
                    **case,
                    "outcome": "hang",
                    "seconds": round(data["seconds"], 1),
                    "info": {
                        "kind": "never returned",
                        "message": "no result after the hard limit, not even by the "
                        "soft time limit (the watchdog ended the worker)",
                    },
                }
                hung.add(case["index"])
                path.unlink()
            suspects = []
            for path in Path(hang_dir).glob("current-*.json"):
                case = json.loads(path.read_text())
                path.unlink()
                if case["index"] not in records:
                    suspects.append(case)
            if not hung:  # no watchdog report: replay each run under way alone to find the one that kills
                for case in suspects:
                    try:
                        alone = get_reusable_executor(max_workers=1, timeout=600, reuse=False)
                        rec = alone.submit(worker.run_batch, [case], time_limit, hang_dir).result()[0]
                    except Exception:  # noqa: BLE001
                        rec = _died(case, "the worker process died during this run")
                    records[case["index"]] = rec
                    for path in Path(hang_dir).glob("current-*.json"):
                        path.unlink()
            for key in list(batches):
                rest = [c for c in batches[key] if c["index"] not in records]
                if rest:
                    batches[key] = rest
                else:
                    del batches[key]
            stalls = stalls + 1 if len(records) == before else 0
            show()
    return [records[c["index"]] for c in cases if c["index"] in records]


def _as_completed(futures):
    from concurrent.futures import as_completed

    return as_completed(list(futures))


# ---------------------------------------------------------------------------------------------------------
# Reproducers and the summary
# ---------------------------------------------------------------------------------------------------------
def prefix_cuts(cuts, m):
    """The cuts of a run restricted to its first m rounds (at least one cut)."""
    return [c for c in cuts if c < m] or [max(1, m // 2)]


def shortest_failing_prefix(rec):
    """The shortest prefix of the stream with the same outcome (and, for crashes, the same exception)."""
    X, y = build_stream(rec["stream"])
    X = _sliceable(X)
    w = sample_weights(rec.get("weights"), X.shape[0])
    want = (rec["outcome"], rec["info"].get("kind"))
    best = X.shape[0]
    for m in range(2, X.shape[0]):
        cuts = prefix_cuts(rec["cuts"], m)
        try:
            outcome, info = evaluate_run(
                rec["algorithm"], rec["params"], X[:m], y[:m], cuts, None if w is None else w[:m]
            )
        except Exception:  # noqa: BLE001, S112  (a prefix that fails otherwise is not the reproducer)
            continue
        if (outcome, info.get("kind")) == want:
            best = m
            break
    return best


def _literal(v):
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, float) and not math.isfinite(v):
        return f"float({str(v)!r})"
    return repr(v)


def reproducer(rec, prefix=None):
    """A Python snippet that replays the run (on its shortest failing prefix)."""
    X, y = build_stream(rec["stream"])
    literal = not rec["stream"].get("malformed") and rec["stream"]["format"].rstrip("32") in ("dense", "csr")
    m = prefix or X.shape[0]
    if literal:
        X, y = X[:m], y[:m]
    dense = X.toarray() if sp.issparse(X) and literal else np.asarray(X) if literal else None
    params = ", ".join(f"{k}={_literal(v)}" for k, v in rec["params"].items())
    found = f"{rec['info'].get('type', '')} {rec['info'].get('message', '')}".strip().replace("\n", " ")[:300]
    lines = [
        f"# fuzz run {rec['index']}: {rec['outcome']}: {found}",
        "import numpy as np",
        "import scipy.sparse as sp",
        "import olkit",
        "",
    ]
    if literal and dense.size <= 240:
        dtype = "np.float32" if dense.dtype == np.float32 else "float"
        rows = ",\n     ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in dense)
        lines.append(f"X = np.array([{rows}], dtype={dtype})")
        if sp.issparse(X):
            lines.append("X = sp.csr_matrix(X)")
        lines.append(f"y = np.array({np.asarray(y).tolist()!r})")
    else:
        lines += [
            "import sys; sys.path.insert(0, 'tests')  # from the repository root",
            "from fuzzing.streams import build_stream",
            f"X, y = build_stream({json.dumps(rec['stream'])})",
        ]
        if literal:
            lines.append(f"X, y = X[:{m}], y[:{m}]")
    lines.append(f"clf = olkit.make({rec['algorithm']!r}{', ' if params else ''}{params})")
    w = sample_weights(rec.get("weights"), X.shape[0])
    if w is not None:
        lines.append(f"w = np.array({[float(v) for v in w[:m]]!r})  # sample_weight")
    weighted = "" if w is None else ", sample_weight=w"
    kind = rec["outcome"]
    if kind == "chunked":
        cuts = prefix_cuts(rec["cuts"], m)
        lines += [
            f"one = olkit.evaluate_online(clf, X, y{weighted})",
            f"chunks = olkit.make({rec['algorithm']!r}{', ' if params else ''}{params})",
            f"edges = [0, *{cuts!r}, {m}]",
            "chunks.partial_fit(X[:edges[1]], y[:edges[1]], classes=np.unique(y)"
            + ("" if w is None else ", sample_weight=w[:edges[1]]")
            + ")",
            (
                "rest = [olkit.evaluate_online(chunks, X[a:b], y[a:b], reset=False"
                + ("" if w is None else ", sample_weight=w[a:b]")
                + ")\n        for a, b in zip(edges[1:-1], edges[2:])]"
            ),
            "print(one.mistake_flags[edges[1]:], np.concatenate([r.mistake_flags for r in rest]))",
            "print(one.scores[edges[1]:], np.concatenate([r.scores for r in rest]))",
        ]
    else:
        lines += [f"res = olkit.evaluate_online(clf, X, y{weighted})", "print(res.scores, clf.decision_function(X))"]
    return "\n".join(lines)


def decade_bin(e, width=25):
    lo = (e // width) * width
    return f"1e{lo:+d}..1e{lo + width - 1:+d}"


def _normalise(message):
    """A ValueError message with its numbers and label lists blanked out, to count kinds of messages."""
    message = re.sub(r"classes \([^)]*\)", "classes (...)", message)
    message = re.sub(r"found class [^)]*\)", "found class ...)", message)
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", message)[:200]


def _option_summary(recs):
    """The options a group of failing runs had: {parameter: {value: count}} for the parameters that vary."""
    seen = collections.defaultdict(collections.Counter)
    for r in recs:
        for k, v in r["params"].items():
            seen[k][repr(v) if not isinstance(v, float) or k != "sigma" else "…"] += 1
        for k in ("kind", "format", "labels"):
            seen[f"stream.{k}"][r["stream"][k]] += 1
        seen["stream.classes"][r["stream"]["classes"]] += 1
    return {k: dict(c.most_common()) for k, c in sorted(seen.items())}


def _example(r):
    """A failing run with its reproducer. The shortest failing prefix is searched in this process, so not for
    a run that killed its worker (it could kill this process too), nor for a malformed stream (no prefix)."""
    prefix = None
    died = r["info"].get("type") == "WorkerDied"
    if r["outcome"] not in ("timeout", "hang") and not died and not r["stream"].get("malformed"):
        try:
            prefix = shortest_failing_prefix(r)
        except Exception:  # noqa: BLE001
            prefix = None
    return {
        "index": r["index"],
        "algorithm": r["algorithm"],
        "params": r["params"],
        "stream": r["stream"],
        "cuts": r["cuts"],
        "weights": r.get("weights"),
        "info": r["info"],
        "prefix": prefix,
        "reproducer": reproducer(r, prefix),
    }


def summarise(records, args, seconds, examples):
    """The JSON summary of a fuzz session."""
    counts = collections.Counter(r["outcome"] for r in records)
    by_alg = collections.defaultdict(collections.Counter)
    by_exp = collections.defaultdict(collections.Counter)
    by_bin = collections.defaultdict(collections.Counter)
    groups = collections.defaultdict(list)  # (outcome, algorithm, kind) -> failing records
    value_errors = collections.Counter()
    info_counts = collections.Counter()
    info_bins = collections.defaultdict(collections.Counter)
    first = collections.defaultdict(list)
    for r in records:
        o = r["outcome"]
        by_alg[r["algorithm"]][o] += 1
        e = r["stream"]["exponent"]
        by_exp[e][o] += 1
        by_bin[decade_bin(e)][o] += 1
        if o == "value_error":
            value_errors[_normalise(r["info"].get("message", ""))] += 1
        if o in FAILURES:
            groups[(o, r["algorithm"], r["info"].get("kind", "?"))].append(r)
            if len(first[o]) < examples:
                first[o].append(r)
        for flag in ("all_zero_scores", "chunks_skipped", "chunks_parted_at_tie", "runtime_warnings"):
            if r["info"].get(flag):
                info_counts[flag] += 1
                info_bins[flag][decade_bin(e)] += 1
    exps = [r["stream"]["exponent"] for r in records]
    work = []
    for (o, alg, kind), recs in sorted(groups.items(), key=lambda kv: (FAILURES.index(kv[0][0]), kv[0][1], kv[0][2])):
        e = sorted({r["stream"]["exponent"] for r in recs})
        work.append(
            {
                "outcome": o,
                "algorithm": alg,
                "kind": kind,
                "runs": len(recs),
                "exponents": [e[0], e[-1]],
                "exponent_values": e,
                "options": _option_summary(recs),
                "example": recs[0]["index"],
                "message": recs[0]["info"].get("message", ""),
            }
        )
    summary = {
        "command": " ".join(sys.argv),
        "seed": args.seed,
        "runs": len(records),
        "jobs": args.jobs,
        "time_limit": args.time_limit,
        "seconds": round(seconds, 1),
        "streams_tried": len(records),
        "exponent_range": [min(exps), max(exps)] if exps else None,
        "failures": sum(counts[k] for k in FAILURES),
        "acceptance": {  # issue 9: 0 crashes, 0 NaN/inf scores, 0 non-ValueError exceptions
            "non_value_error_exceptions": counts.get("crash", 0),
            "nonfinite_scores_or_model": counts.get("nonfinite", 0),
            "hangs_or_timeouts": counts.get("hang", 0) + counts.get("timeout", 0),
            "other_property_failures": counts.get("invariant", 0) + counts.get("chunked", 0),
        },
        "boundscheck": os.environ.get("NUMBA_BOUNDSCHECK") == "1",
        "acceptance_issue21": {  # issue 21: bounds-checked, 0 out-of-range accesses, 0 crashes, 0 NaN/inf models
            "out_of_range_accesses": counts.get("out_of_bounds", 0),
            "crashes": counts.get("crash", 0),
            "workers_died": sum(r["info"].get("type") == "WorkerDied" for r in records),
            "nonfinite_scores_or_model": counts.get("nonfinite", 0),
            "malformed_sparse_streams": sum(bool(r["stream"].get("malformed")) for r in records),
            "malformed_sparse_refused": sum(
                bool(r["stream"].get("malformed")) and r["outcome"] == "value_error" for r in records
            ),
            "other_scipy_format_streams": sum(r["stream"]["format"].split("_")[0] in OTHER_FORMATS for r in records),
        },
        "counts": {k: counts.get(k, 0) for k in OUTCOMES},
        "by_algorithm": {a: dict(c) for a, c in sorted(by_alg.items())},
        "by_decade_bin": {b: dict(c) for b, c in sorted(by_bin.items(), key=lambda kv: int(kv[0][2:].split(".")[0]))},
        "by_exponent": {str(e): dict(c) for e, c in sorted(by_exp.items())},
        "work_list": work,
        "value_error_messages": dict(value_errors.most_common(40)),
        "info": dict(info_counts),
        "info_by_decade_bin": {
            flag: dict(sorted(c.items(), key=lambda kv: int(kv[0][2:].split(".")[0]))) for flag, c in info_bins.items()
        },
        "slowest": [
            {"index": r["index"], "algorithm": r["algorithm"], "seconds": r["seconds"]}
            for r in sorted(records, key=lambda r: -(r["seconds"] or 0))[:5]
        ],
        "examples": {},
    }
    for o, recs in first.items():
        summary["examples"][o] = [_example(r) for r in recs]
    # one reproducer for every entry of the work list (its first run)
    by_index = {r["index"]: r for r in records}
    done = {ex["index"]: ex for exs in summary["examples"].values() for ex in exs}
    for item in work[:200]:
        ex = done.get(item["example"]) or _example(by_index[item["example"]])
        item["prefix"], item["reproducer"] = ex["prefix"], ex["reproducer"]
    return summary


def print_table(summary, file=sys.stdout):
    c = summary["counts"]
    print(
        f"\nolkit fuzz: {summary['runs']} runs in {summary['seconds']:.0f} s (seed {summary['seed']}), "
        f"magnitudes 1e{summary['exponent_range'][0]}..1e{summary['exponent_range'][1]}",
        file=file,
    )
    print("  " + ", ".join(f"{k} {c[k]}" for k in OUTCOMES), file=file)
    cols = ("ok", "value_error") + FAILURES
    head = "".join(f"{k:>12}" for k in cols)
    print(f"  {'algorithm':<16}{head}", file=file)
    for alg, cnt in summary["by_algorithm"].items():
        print(f"  {alg:<16}" + "".join(f"{cnt.get(k, 0):>12}" for k in cols), file=file)
    print(f"  {'magnitude':<16}{head}", file=file)
    for b, cnt in summary["by_decade_bin"].items():
        print(f"  {b:<16}" + "".join(f"{cnt.get(k, 0):>12}" for k in cols), file=file)
    if summary["work_list"]:
        print("  failures by algorithm and kind (runs, magnitudes 1e..):", file=file)
        for w in summary["work_list"]:
            span = f"1e{w['exponents'][0]}..1e{w['exponents'][1]}"
            print(f"    {w['outcome']:<10} {w['algorithm']:<13} {w['runs']:>5}  {span}  {w['kind']}", file=file)
    acc = summary["acceptance"]
    print(
        f"  acceptance (issue 9): {acc['non_value_error_exceptions']} non-ValueError exceptions, "
        f"{acc['nonfinite_scores_or_model']} runs with NaN/inf scores or model, {acc['hangs_or_timeouts']} "
        f"hangs/timeouts; other property failures (invariants, chunks != one pass): "
        f"{acc['other_property_failures']}",
        file=file,
    )
    acc = summary["acceptance_issue21"]
    print(
        f"  acceptance (issue 21, bounds checking {'on' if summary['boundscheck'] else 'OFF'}): "
        f"{acc['out_of_range_accesses']} out-of-range accesses, {acc['crashes']} crashes "
        f"({acc['workers_died']} workers died), {acc['nonfinite_scores_or_model']} NaN/inf; malformed sparse "
        f"streams refused {acc['malformed_sparse_refused']}/{acc['malformed_sparse_streams']}; "
        f"{acc['other_scipy_format_streams']} streams in other scipy formats",
        file=file,
    )
    print(f"  failures: {summary['failures']}", file=file)


def bounds_checked():
    """Turn on numba's bounds checking for this process and the workers it starts (before numba is imported):
    an index outside an array in compiled code then raises IndexError (outcome *out_of_bounds*) instead of
    reading or writing memory the array does not own. The checked code is compiled into a cache directory of
    its own (olkit._compile keys it ``<hash>-boundscheck``; a ``NUMBA_CACHE_DIR`` set by the user gets the
    suffix here), never mixed with the normal cache."""
    if "numba" in sys.modules:
        raise RuntimeError("bounds checking must be set before numba is imported")
    os.environ["NUMBA_BOUNDSCHECK"] = "1"
    if os.environ.get("NUMBA_CACHE_DIR") and not os.environ["NUMBA_CACHE_DIR"].endswith("-boundscheck"):
        os.environ["NUMBA_CACHE_DIR"] += "-boundscheck"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20000, help="algorithm runs (default 20000)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--time-limit",
        type=float,
        default=600.0,
        help="seconds per run before it counts as a timeout (default 600; a first attempt over the "
        "limit, e.g. a first bounds-checked compile on a busy machine, is run once more)",
    )
    parser.add_argument("--algorithms", default="", help="comma-separated algorithm names (default: all)")
    parser.add_argument(
        "--exponents",
        default=f"{EXPONENTS[0]},{EXPONENTS[1]}",
        help="magnitudes 10^e with e in LO,HI (default %(default)s)",
    )
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help="stream kinds: uniform (every row at 10^e), outlier-rows (a tenth of the rows at 10^e), "
        "feature-scales (feature j at 10^(e+s_j), |s_j| <= 3), integer (small integers x 10^e); "
        "default %(default)s",
    )
    parser.add_argument("--out", default=str(DEFAULT_OUT), help=f"summary JSON (default {DEFAULT_OUT})")
    parser.add_argument("--examples", type=int, default=5, help="reproducers kept per failure kind (default 5)")
    parser.add_argument("--replay", type=int, default=None, help="run one run index in this process and print it")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--round-robin",
        action="store_true",
        help="take the algorithms in turn instead of at random (every one in the fewest runs)",
    )
    parser.add_argument(
        "--no-boundscheck",
        dest="boundscheck",
        action="store_false",
        help="run the normally compiled code (default: numba's bounds checking on, with its own "
        "compile cache; the first run compiles every loop again)",
    )
    args = parser.parse_args(argv)
    if args.boundscheck:
        bounds_checked()
    if args.runs < 1 or args.jobs < 1:
        parser.error("--runs and --jobs must be >= 1")

    try:
        exponents = tuple(int(v) for v in args.exponents.split(","))
        assert len(exponents) == 2 and exponents[0] <= exponents[1]
    except (ValueError, AssertionError):
        parser.error(f"--exponents must be LO,HI (integers, LO <= HI), got {args.exponents!r}")

    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or set(kinds) - set(KINDS):
        parser.error(f"--kinds: choose among {', '.join(KINDS)}")

    from olkit import registry

    names = registry.names()
    if args.algorithms:
        chosen = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        unknown = [a for a in chosen if a not in names]
        if unknown:
            parser.error(f"unknown algorithm(s) {', '.join(unknown)}; valid: {', '.join(names)}")
        names = chosen

    if args.replay is not None:
        case = sample_run(args.seed, args.replay, names, exponents, kinds, args.round_robin, weights=True)
        rec = run_case(case, args.time_limit)
        print(json.dumps(rec, indent=1, default=str))
        print(reproducer(rec))
        return 0 if rec["outcome"] not in FAILURES else 1

    cases = [
        sample_run(args.seed, i, names, exponents, kinds, args.round_robin, weights=True) for i in range(args.runs)
    ]
    start = time.monotonic()
    records = run_all(cases, args.jobs, args.time_limit, progress=not args.quiet)
    seconds = time.monotonic() - start
    summary = summarise(records, args, seconds, args.examples)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1, default=str) + "\n")
    print_table(summary)
    print(f"summary: {out}")
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
