#!/usr/bin/env python
"""Mutation fuzzer of olkit model files (issue 21, item 1): a model file is untrusted input.

Valid model files are built for every registered algorithm (``olkit.registry`` is the only list: binary,
3-class where the algorithm learns multiclass data, dense and sparse rows, and the primal form
``kernel="linear"`` where there is one), then mutated, each mutated file derived from ``(--seed, index)``
alone:

* bit flips anywhere in the raw file, or a truncation;
* an array element set to ±10^9, 2^62, −1, 0, a count ± 1, NaN, ±inf, 1e308, ... (index arrays, counters,
  coefficients, the rule parameters, ...), an array reshaped or recast, two arrays swapped (the manifest
  following the edit or not), a member's .npy header rewritten to claim another shape;
* a field of the JSON header replaced (by −1, 10^12, a string, a list, a nested list, NaN, ...) or deleted.

Each mutated file goes to a worker process (a pool of ``--jobs``) that runs ``olkit.load``, then
``decision_function``, ``predict``, ``partial_fit`` on fresh rows of the model's width and labels, and
``olkit.save`` (whose file must load again). Outcomes: *works* (all steps ran), *refused* (load raised a
ValueError: the file is invalid), *refused later* (a later step raised a ValueError); failures: *error* (any
other exception: an IndexError is an out-of-range access the load checks let through, seen because the
workers run the compiled code with ``NUMBA_BOUNDSCHECK=1``, in a compile cache of their own), *crash* (the
worker died) and *hang* (no answer within ``--timeout`` s). A failing file is kept as a reproducer.

    python tools/fuzz_models.py                      # 20,000 files (make fuzz)
    python tools/fuzz_models.py --files 200 --algorithms pa1,scw1 --jobs 1 --out fuzz_models_small.json

The summary (``--out``) holds the counts per outcome and per algorithm, the most frequent refusal messages
and every failure with its mutation and reproducer file. Exit status 1 when any file failed.
"""

import argparse
import collections
import io
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zipfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = "__header__"
FAILURES = ("error", "crash", "hang")
VALUES = [10**9, -(10**9), 2**62, -(2**62), -1, 0, 1, np.nan, np.inf, -np.inf, 1e308, -1e308, 0.5, 1e-300]


# ---- valid files -------------------------------------------------------------------------------------------
def base_models(folder, algorithms=None):
    """Save a small fitted model per registered algorithm and kind of data; returns {tag: (algorithm, path)}."""
    import warnings

    import scipy.sparse as sp

    import olkit
    from olkit.registry import names, spec

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y2 = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    y3 = np.argmax(X[:, :3], axis=1)
    Xs = sp.csr_matrix(sp.hstack([sp.csr_matrix(X), sp.random(60, 295, density=0.02, random_state=1)]))
    out = {}
    for name in names():
        if algorithms and name not in algorithms:
            continue
        cls = spec(name).cls
        kinds = [("bin", X, y2), ("sparse", Xs, y2)]
        if "multiclass" in spec(name).data:
            kinds.append(("mc", X, y3))
        variants = [{}] + ([{"kernel": "linear"}] if getattr(cls, "_linear_rule", None) is not None else [])
        for params in variants:
            for kind, XX, yy in kinds:
                learner = olkit.make(name, **params)
                small = {k: v for k, v in {"B": 20, "B0": 5, "D": 64}.items() if k in learner.get_params()}
                learner.set_params(**small)
                try:
                    learner.partial_fit(XX, yy, classes=np.unique(yy))
                except ValueError:
                    continue
                tag = f"{name}-{kind}" + ("-linear" if params else "")
                path = os.path.join(folder, tag + ".npz")
                olkit.save(learner, path)
                out[tag] = (name, path)
    return out


def read(path):
    with np.load(path, allow_pickle=False) as npz:
        content = {key: npz[key] for key in npz.files}
    return json.loads(content.pop(HEADER).tobytes()), content


def pack(header, arrays, compress):
    blob = np.frombuffer(json.dumps(header).encode(), np.uint8)
    buf = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(buf, **{HEADER: blob}, **arrays)
    return buf.getvalue()


# ---- mutations ---------------------------------------------------------------------------------------------
def manifest(arrays):
    return {k: {"dtype": a.dtype.str, "shape": list(a.shape)} for k, a in arrays.items()}


def json_paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from json_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from json_paths(v, path + (i,))


def pick_value(rng, a=None):
    v = VALUES[rng.integers(len(VALUES))]
    if a is not None and a.size and rng.random() < 0.3:  # near the array's own values: a count ± 1
        top = (
            np.max(a[np.isfinite(a)])
            if a.dtype.kind == "f" and np.isfinite(a).any()
            else (np.max(a) if a.dtype.kind != "f" else 0)
        )
        v = int(np.nan_to_num(top, posinf=0, neginf=0)) + int(rng.integers(-1, 3))
    return v


def edit_value(rng, header, arrays):
    keys = [k for k, a in arrays.items() if a.size]
    if rng.random() < 0.5:  # indices, counters, flags: what compiled code indexes with
        keys = [k for k in keys if arrays[k].dtype.kind in "iu"] or keys
    if not keys:
        return "no array to edit"
    key = keys[rng.integers(len(keys))]
    a = arrays[key].copy()
    flat = a.reshape(-1)
    i = int(rng.integers(flat.size))
    v = pick_value(rng, a)
    if a.dtype.kind in "iub":
        if isinstance(v, float) and not np.isfinite(v):
            v = 2**62 if v > 0 else -(2**62)
        v = int(np.clip(int(v), np.iinfo(a.dtype).min, np.iinfo(a.dtype).max)) if a.dtype.kind != "b" else bool(v)
    elif a.dtype.kind in "US":
        v = str(v)
    flat[i] = v
    arrays[key] = a
    header["arrays"] = manifest(arrays)
    return f"{key}[{i}] = {v!r}"


def reshape(rng, header, arrays):
    key = list(arrays)[rng.integers(len(arrays))]
    a = arrays[key]
    choice = rng.integers(4)
    if choice == 0 and a.ndim:
        shape = list(a.shape)
        axis = int(rng.integers(a.ndim))
        shape[axis] = max(0, shape[axis] + int(rng.choice([-1, 1, 5, -shape[axis]])))
        b = np.resize(a, shape) if np.prod(shape) else np.zeros(shape, a.dtype)
        what = f"{key} reshaped {a.shape} -> {tuple(shape)}"
    elif choice == 1:
        dtype = [np.float64, np.int64, np.float32, np.int32, np.uint8][rng.integers(5)]
        b = a.astype(dtype) if a.dtype.kind not in "US" else a
        what = f"{key} recast {a.dtype} -> {np.dtype(dtype)}"
    elif choice == 2:
        b = a.reshape(-1)
        what = f"{key} flattened {a.shape}"
    else:
        b = np.zeros((0,) * max(a.ndim, 1), a.dtype)
        what = f"{key} emptied"
    arrays[key] = b
    if rng.random() < 0.7:
        header["arrays"] = manifest(arrays)
        what += " (manifest follows)"
    return what


def swap(rng, header, arrays):
    keys = list(arrays)
    if len(keys) < 2:
        return "nothing to swap"
    i, j = rng.choice(len(keys), 2, replace=False)
    a, b = keys[i], keys[j]
    arrays[a], arrays[b] = arrays[b], arrays[a]
    if rng.random() < 0.7:
        header["arrays"] = manifest(arrays)
    return f"swapped {a} and {b}"


def edit_json(rng, header, arrays):
    paths = [p for p in json_paths(header) if p and (p[0] != "arrays" or rng.random() < 0.2)]
    path = paths[rng.integers(len(paths))]
    parent = header
    for k in path[:-1]:
        parent = parent[k]
    pool = [
        None,
        -1,
        0,
        1,
        10**9,
        10**12,
        -(10**12),
        2**70,
        "x",
        "",
        [],
        {},
        True,
        1.5,
        {"float": "nan"},
        {"float": "inf"},
        [[[[1]]]],
        {"array": "support_.meta"},
        {"ref": "state_"},
        "olkit.base:RuleState",
    ]
    if rng.random() < 0.15 and isinstance(parent, dict):
        del parent[path[-1]]
        return f"header {'.'.join(map(str, path))} deleted"
    value = pool[rng.integers(len(pool))]
    parent[path[-1]] = value
    return f"header {'.'.join(map(str, path))} = {json.dumps(value)}"


def npy_header_edit(rng, raw):
    """Rewrite the .npy header of one member (stored, uncompressed file) to claim another shape."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zin:
        infos = zin.infolist()
        target = infos[rng.integers(len(infos))]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zout:
            for info in infos:
                data = zin.read(info)
                if info is target:
                    end = data.index(b"\n") + 1
                    shape = [(10**12,), (-5,), (3, -1), (2**40, 2**40), (0,), (7,), ()][rng.integers(7)]
                    head = data[10:end].decode("latin1")
                    start = head.index("'shape': ") + len("'shape': ")
                    stop = head.index(")", start) + 1
                    text = head[:start] + repr(tuple(shape)) + head[stop:]
                    text = text.rstrip("\n").rstrip() + " " * 4
                    text += " " * (-(len(text) + 11) % 64) + "\n"
                    data = data[:8] + len(text).to_bytes(2, "little") + text.encode("latin1") + data[end:]
                zout.writestr(info.filename, data)
    return out.getvalue(), f"{target.filename} .npy header claims shape {shape}"


def mutate(base, rng):
    """(bytes, description) of a mutation of the base file ``(header, arrays)``."""
    header, arrays = json.loads(json.dumps(base[0])), dict(base[1])
    kind = rng.random()
    steps = []
    if kind < 0.12:  # raw bytes: bit flips or truncation
        raw = bytearray(pack(header, arrays, compress=rng.random() < 0.5))
        if rng.random() < 0.3:
            cut = int(rng.integers(len(raw)))
            return bytes(raw[:cut]), f"truncated at {cut} of {len(raw)} bytes"
        flips = int(rng.integers(1, 9))
        for _ in range(flips):
            pos = int(rng.integers(len(raw)))
            raw[pos] ^= 1 << int(rng.integers(8))
        return bytes(raw), f"{flips} bit flips"
    if kind < 0.18:
        raw, what = npy_header_edit(rng, pack(header, arrays, compress=False))
        return raw, what
    for _ in range(1 + (rng.random() < 0.3) + (rng.random() < 0.1)):
        r = rng.random()
        op = edit_value if r < 0.55 else reshape if r < 0.67 else swap if r < 0.72 else edit_json
        steps.append(op(rng, header, arrays))
    return pack(header, arrays, compress=rng.random() < 0.5), "; ".join(steps)


# ---- the worker: load, predict, learn, save ----------------------------------------------------------------
def exercise(path, scratch):
    import scipy.sparse as sp

    import olkit

    try:
        clf = olkit.load(path)
    except ValueError as exc:
        return {"outcome": "refused", "message": str(exc).split(": ", 1)[-1][:300]}
    except Exception as exc:  # noqa: BLE001  (anything else is a failure of the load checks)
        return failure("load", exc)
    step = "data"
    try:
        rng = np.random.default_rng(0)
        d = clf.n_features_in_
        X = (
            sp.random(20, d, density=min(1.0, 8 / d), random_state=0, format="csr")
            if d > 50
            else rng.normal(size=(20, d))
        )
        if clf.multilabel_:
            y = rng.integers(0, 2, size=(20, len(clf.classes_)))
        else:
            y = clf.classes_[rng.integers(0, len(clf.classes_), size=20)]
        for step in ("decision_function", "predict", "partial_fit", "save", "reload"):
            if step == "decision_function":
                scores = clf.decision_function(X)
            elif step == "predict":
                clf.predict(X)
            elif step == "partial_fit":
                clf.partial_fit(X, y)
            elif step == "save":
                olkit.save(clf, scratch)
            else:
                olkit.load(scratch)
    except ValueError as exc:
        return {"outcome": "refused later", "step": step, "message": str(exc)[:300]}
    except Exception as exc:  # noqa: BLE001
        return failure(step, exc)
    return {"outcome": "works", "finite": bool(np.isfinite(scores).all())}


def failure(step, exc):
    frames = traceback.extract_tb(exc.__traceback__)[-4:]
    return {
        "outcome": "error",
        "step": step,
        "type": type(exc).__name__,
        "message": str(exc)[:300],
        "where": [f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in frames],
    }


def worker():
    """Read file paths on stdin, answer one JSON line each (Ctrl-C is the parent's: it ends the run after the
    files in progress)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    scratch = os.path.join(tempfile.mkdtemp(prefix="olkit-fuzz-worker-"), "saved.npz")
    for line in sys.stdin:
        print(json.dumps(exercise(line.strip(), scratch)), flush=True)


class Worker:
    def __init__(self, env):
        self.env = env
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            text=True,
            bufsize=1,
        )
        self.stderr = collections.deque(maxlen=20)
        threading.Thread(target=lambda: [self.stderr.append(x) for x in self.proc.stderr], daemon=True).start()

    def run(self, path, timeout):
        try:
            self.proc.stdin.write(path + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return self.died()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            self.start()
            return {"outcome": "hang", "message": f"no answer within {timeout} s"}
        line = self.proc.stdout.readline()
        if not line:
            return self.died()
        return json.loads(line)

    def died(self):
        rc = self.proc.wait()
        time.sleep(0.1)
        tail = " | ".join(list(self.stderr)[-3:])[-300:]
        self.start()
        return {"outcome": "crash", "message": f"worker ended with status {rc}: {tail}"}

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def bounds_checked_env():
    """The workers' environment: numba's bounds checking on, in a compile cache of its own (bounds-checked
    machine code must not mix with the normal cache)."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", PYTHONPATH=os.path.join(ROOT, "src"))
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    env["OLKIT_NUMBA_CACHE"] = os.path.join(xdg, "olkit", "numba-boundscheck")
    env.pop("NUMBA_CACHE_DIR", None)
    return env


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "results", "fuzz_models.json"))
    parser.add_argument("--algorithms", default="", help="comma-separated subset (default: every registered one)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per file before it counts as a hang")
    parser.add_argument("--no-boundscheck", action="store_true", help="run the workers without NUMBA_BOUNDSCHECK")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker()
    started = time.time()
    work = tempfile.mkdtemp(prefix="olkit-fuzz-models-")
    keep = os.path.splitext(args.out)[0] + "_reproducers"
    algorithms = set(filter(None, args.algorithms.split(",")))
    bases = base_models(work, algorithms)
    contents = {tag: read(path) for tag, (_, path) in bases.items()}
    tags = sorted(bases)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")) if args.no_boundscheck else bounds_checked_env()
    print(
        f"{len(tags)} valid files ({', '.join(tags[:4])}, ...); {args.files} mutations on {args.jobs} workers"
        f"{'' if args.no_boundscheck else ' (NUMBA_BOUNDSCHECK=1)'}",
        flush=True,
    )
    counts, per_algorithm = collections.Counter(), collections.defaultdict(collections.Counter)
    messages, failures, later = collections.Counter(), [], []
    lock, next_index = threading.Lock(), iter(range(args.files))

    def run_worker():
        w = Worker(env)
        try:
            while True:
                with lock:
                    i = next(next_index, None)
                if i is None:
                    return
                rng = np.random.default_rng([args.seed, i])
                tag = tags[rng.integers(len(tags))]
                raw, what = mutate(contents[tag], rng)
                path = os.path.join(work, f"m{i}.npz")
                with open(path, "wb") as fh:
                    fh.write(raw)
                result = w.run(path, args.timeout)
                outcome = result["outcome"]
                with lock:
                    counts[outcome] += 1
                    per_algorithm[bases[tag][0]][outcome] += 1
                    if outcome in ("refused", "refused later"):
                        messages[f"{outcome}: " + _message_kind(result["message"])] += 1
                    if outcome == "refused later" and len(later) < 50:  # loaded, then refused: worth a look
                        later.append({"index": i, "base": tag, "mutation": what, **result})
                    if outcome in FAILURES:
                        os.makedirs(keep, exist_ok=True)
                        kept = os.path.join(keep, f"{tag}-{i}.npz")
                        shutil.copy(path, kept)
                        failures.append(
                            {"index": i, "base": tag, "mutation": what, "file": os.path.relpath(kept, ROOT), **result}
                        )
                        print(f"FAIL {i} {tag}: {what}: {result}", flush=True)
                    done = sum(counts.values())
                    if done % 1000 == 0:
                        print(f"{done} files: {dict(counts)} ({time.time() - started:.0f} s)", flush=True)
                os.unlink(path)
        finally:
            w.close()

    def write_summary(finished):
        with lock:
            summary = {
                "files": args.files,
                "files_done": sum(counts.values()),
                "finished": finished,
                "seed": args.seed,
                "jobs": args.jobs,
                "boundscheck": not args.no_boundscheck,
                "valid_files": tags,
                "seconds": round(time.time() - started, 1),
                "counts": dict(counts),
                "failures_total": sum(counts[k] for k in FAILURES),
                "per_algorithm": {k: dict(v) for k, v in sorted(per_algorithm.items())},
                "messages": dict(messages.most_common(60)),
                "failures": list(failures),
                "refused_later": list(later),
            }
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out + ".tmp", "w") as fh:
            json.dump(summary, fh, indent=1)
            fh.write("\n")
        os.replace(args.out + ".tmp", args.out)
        return summary

    threads = [threading.Thread(target=run_worker, daemon=True) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    try:  # the summary so far every minute, so that a long run stopped early (Ctrl-C) still reports
        while any(t.is_alive() for t in threads):
            threads[0].join(60) if threads[0].is_alive() else time.sleep(1)
            write_summary(False)
    except KeyboardInterrupt:
        with lock:
            for _ in next_index:  # no further files
                pass
        print("interrupted: the summary holds the files done so far", flush=True)
    summary = write_summary(not any(t.is_alive() for t in threads) and summary_complete(counts, args.files))
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({k: summary[k] for k in ("files_done", "counts", "failures_total", "seconds")}))
    return 1 if summary["failures_total"] else 0


def summary_complete(counts, files):
    return sum(counts.values()) == files


def _message_kind(message):
    """A refusal message without its numbers and file names (to count kinds of refusals)."""
    import re

    return re.sub(r"-?\d[\d.e+-]*", "N", message)[:120]


if __name__ == "__main__":
    sys.exit(main())
