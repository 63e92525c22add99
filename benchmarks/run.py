#!/usr/bin/env python
"""olkit benchmark suite (``make bench``).

    .venv/bin/python benchmarks/run.py                    # everything (about 13-15 minutes)
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
* ``peers`` (benchmarks/peers.py): olkit's linear pa1, perceptron and AROW against River, scikit-learn and Vowpal
  Wabbit on a9a, w8a, ijcnn1 (one progressive pass, same ordering, interleaved in one process): examples/s,
  mistake rate, ratio to olkit; the kernel learners against VW's --ksvm on a prefix of a9a. --quick: a9a only.
* ``startup``: wall time of the process ``olkit run pa1 --data german`` (first run, then 7 warm
  runs) and of ``python -c "import olkit"``; and of ``olkit run duol --data german --repeats 1`` cold
  (an empty compile cache each run) and warm (``cli_duol``).

Each benchmark writes ``benchmarks/results/<name>.json`` (``<name>_quick.json`` with --quick) with the
machine, the date, the command and the results, and prints a table.

This file is the command line only: each benchmark is a module of this directory with a ``bench(quick)``
(:data:`BENCHMARKS`), the worker processes, results files and tables are ``harness.py``, and
``--worker KIND SPEC`` (internal) runs one configuration in a fresh interpreter for them (:data:`WORKERS`).
"""

import argparse
import importlib
import json
import sys
import time

import harness

BENCHMARKS = {
    "kernel_learners": "kernel",
    "multiclass_kernel": "multiclass_kernel",
    "dorothea": "dorothea",
    "linear_learners": "linear",
    "budget_learners": "budget",
    "startup": "startup",
    "peers": "peers",
}
"""Benchmark name (``--only NAME``, the results file's name) → the module of this directory whose
``bench(quick)`` runs it, in the order a full run takes them."""
QUICK_BENCHMARKS = ("kernel_learners", "linear_learners", "startup")
WORKERS = {
    "kernel": ("kernel", "worker_kernel"),
    "linear": ("linear", "main_worker"),
    "vw": ("linear", "main_worker"),
    "budget": ("budget", "main_worker"),
    "peers": ("peers", "main_worker"),
    "machine": ("harness", "machine_info"),
}
"""Worker kind (``harness.run_worker(spec, kind)``) → (module, function) run in the child process."""


def worker_main(kind, spec_json):
    """The child process of :func:`harness.run_worker`: one configuration, its result on one marked line."""
    spec = json.loads(spec_json)
    if kind not in WORKERS:
        raise SystemExit(f"unknown worker kind {kind!r}")
    module, function = WORKERS[kind]
    fn = getattr(importlib.import_module(module), function)
    result = fn() if kind == "machine" else fn(kind, spec) if function == "main_worker" else fn(spec)
    sys.stdout.write(harness.MARKER + json.dumps(result) + "\n")
    sys.stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description="olkit benchmark suite; results go to benchmarks/results/")
    parser.add_argument(
        "--quick", action="store_true", help="mushrooms (kernel), a9a (linear) + start-up (about 2 minutes)"
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help=f"run only this benchmark ({', '.join(BENCHMARKS)}); repeatable or comma-separated",
    )
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
    if not harness.child_env().get("OLKIT_DATA") and any(b != "startup" for b in selected):
        print(
            "warning: OLKIT_DATA is not set and ../shared/data was not found; datasets beyond the bundled ones are "
            "downloaded on first use (olkit.data.fetch)",
            file=sys.stderr,
        )
    machine, load_start = harness.start()
    t0 = time.perf_counter()
    print(
        f"olkit benchmarks: {', '.join(selected)}{' (quick)' if args.quick else ''}; "
        f"{machine['cpu_count']} CPUs, load {load_start}",
        flush=True,
    )
    written = []
    for name in selected:
        print(f"\n== {name} ==", flush=True)
        path, _ = importlib.import_module(BENCHMARKS[name]).bench(args.quick)
        written.append(path)
    print(f"\nwrote {', '.join(harness.display_path(p) for p in written)} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
