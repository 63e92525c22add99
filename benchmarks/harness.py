"""The benchmark harness (``benchmarks/run.py`` and every benchmark module use it): worker processes, the
machine and git description, the JSON results files, peak RSS, process timers and text tables.

A benchmark module (``kernel.py``, ``linear.py``, ...) has a ``bench(quick)`` that runs its configurations,
each in a fresh interpreter (:func:`run_worker`: ``benchmarks/run.py --worker KIND SPEC``, whose result
comes back on one stdout line after :data:`MARKER`), writes ``benchmarks/results/<name>.json`` with
:func:`write_json` and prints a table.
"""

import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
MARKER = "@@OLKIT-BENCH-RESULT@@ "
REPEATS = 3  # best of 3 for every timing (learner runs and lower bounds)
WORKER_TIMEOUT = 1800  # seconds per subprocess

MACHINE = None
"""The machine's description (:func:`machine_info`, measured in a worker), set by :func:`start`."""
LOAD_START = None
"""The load average when the run started, set by :func:`start`."""


def start():
    """Record the load average and describe the machine (in a child process: importing numpy here would
    start OpenBLAS thread pools in this process, which measurably slowed the start-up benchmark's child
    processes on a 2-core machine, median 0.83 s vs 0.66 s). Every results file carries both."""
    global MACHINE, LOAD_START
    LOAD_START = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    MACHINE = run_worker({}, "machine")
    MACHINE.pop("process_wall_seconds", None)
    return MACHINE, LOAD_START


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
    """The peak resident set size of this process so far, in MB (``ru_maxrss``: kB on Linux, bytes on macOS)."""
    import resource

    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    return kb / (1024.0 if sys.platform != "darwin" else 1024.0 * 1024.0)


def run_worker(spec, kind="kernel"):
    """Run one configuration in a fresh interpreter; returns its result dict (or an error record)."""
    cmd = [sys.executable, str(HERE / "run.py"), "--worker", kind, json.dumps(spec)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=WORKER_TIMEOUT, env=child_env(), cwd=str(REPO)
        )
    except subprocess.TimeoutExpired:
        return {**spec, "error": f"timed out after {WORKER_TIMEOUT} s"}
    wall = time.perf_counter() - t0
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            result = json.loads(line[len(MARKER) :])
            result["process_wall_seconds"] = wall
            return result
    return {
        **spec,
        "error": f"worker exited with status {proc.returncode}",
        "stderr_tail": sanitize(proc.stderr[-3000:]),
        "stdout_tail": sanitize(proc.stdout[-1000:]),
    }


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
        "env": {
            k: os.environ.get(k)
            for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
            if os.environ.get(k)
        },
        "olkit_data_set": bool(child_env().get("OLKIT_DATA")),
    }


def git_info():
    def git(*args):
        try:
            return subprocess.run(
                ["git", *args], cwd=str(REPO), capture_output=True, text=True, timeout=20
            ).stdout.strip()
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


def fmt(x, spec=".3g"):
    if x is None:
        return "-"
    if isinstance(x, float):
        return format(x, spec)
    return str(x)


def text_table(header, rows):
    widths = [
        max(len(str(h)), *(len(str(row[i])) for row in rows)) if rows else len(str(h)) for i, h in enumerate(header)
    ]
    lines = ["  ".join(str(h).rjust(w) for h, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    for row in rows:
        lines.append("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


def time_process(cmd, timeout=900, env=None):
    """(wall seconds, return code or None, stdout, stderr) of one process run to completion."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env or child_env(), cwd=str(REPO)
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, None, "", f"timed out after {timeout} s"
    except OSError as exc:
        return time.perf_counter() - t0, None, "", str(exc)
    return time.perf_counter() - t0, proc.returncode, proc.stdout, proc.stderr


def series(cmd, warm_runs):
    """A first run of ``cmd`` and ``warm_runs`` more: their wall times (start-up benchmarks)."""
    first, rc, out, err = time_process(cmd)
    if rc != 0:
        return {
            "ok": False,
            "returncode": rc,
            "first_seconds": first,
            "stderr_tail": sanitize(err[-2000:]),
            "stdout_tail": sanitize(out[-500:]),
        }
    warm = []
    failures = 0
    for _ in range(warm_runs):
        t, rc_w, _o, _e = time_process(cmd)
        if rc_w != 0:
            failures += 1
            continue
        warm.append(t)
    return {
        "ok": True,
        "first_seconds": first,
        "warm_seconds": warm,
        "warm_median_seconds": statistics.median(warm) if warm else None,
        "warm_min_seconds": min(warm) if warm else None,
        "warm_failures": failures,
        "stdout_head": sanitize("\n".join(out.splitlines()[:12])),
    }
