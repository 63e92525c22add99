"""The ``olkit`` command: run algorithms on datasets, list algorithms and datasets.

    olkit run ALGO [ALGO ...] --data NAME_OR_PATH [--kernel K] [--set KEY=VALUE ...]
              [--repeats N] [--seed S | --order FILE] [--format table|json|csv|markdown|latex] [--out DIR]
              [--tune]
    olkit tune ALGO [ALGO ...] --data NAME_OR_PATH [--kernel K] [--set KEY=VALUE ...] [--seed S | --order FILE]
              [--format table|json]
    olkit list
    olkit datasets

User mistakes (unknown algorithm, bad parameter, unreadable data, label problems) print one line on
stderr and exit with status 2 — never a traceback.
"""
import argparse
import gc
import json
import os
import sys

FORMATS = ("table", "json", "csv", "markdown", "latex")


class UsageError(Exception):
    pass


def parse_value(text):
    """--set values: int, float, true/false, none, or a string."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_settings(items):
    settings = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        settings[key.strip()] = parse_value(value.strip())
    return settings


def command_settings(args):
    """--set values, plus --kernel (the kernel of every kernel learner)."""
    settings = parse_settings(args.set)
    if args.kernel:
        settings["kernel"] = args.kernel
    return settings


def build_parser():
    parser = argparse.ArgumentParser(prog="olkit", description="Online classification: kernel, second-order "
                                     "linear and budgeted learners, and the papers' experiments.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run algorithms online on a dataset")
    run.add_argument("algorithms", nargs="+", metavar="ALGO")
    run.add_argument("--data", required=True, help="dataset name (see `olkit datasets`) or LIBSVM file path")
    run.add_argument("--kernel", help="kernel of every kernel learner (gaussian, linear, poly)")
    run.add_argument("--set", action="append", metavar="KEY=VALUE", help="parameter for every algorithm that has it")
    run.add_argument("--repeats", type=int, default=20, help="random orderings (default 20, as in the papers)")
    group = run.add_mutually_exclusive_group()
    group.add_argument("--seed", type=int, default=0, help="seed of the orderings (ordering r uses seed+r)")
    group.add_argument("--order", metavar="FILE", help="one 0-based example index per line; a single run")
    run.add_argument("--format", choices=FORMATS, default="table")
    run.add_argument("--out", metavar="DIR", help="also write results (JSON, table, curve plot) into DIR")
    run.add_argument("--jobs", type=int, help="parallel processes (default: automatic)")
    run.add_argument("--tune", action="store_true", help="first select parameters as the SCW experiments did "
                     "(grids of ALGORITHMS.md E2, one pass per candidate on the first ordering)")
    tune = sub.add_parser("tune", help="select parameters as the SCW experiments did (ALGORITHMS.md E2)")
    tune.add_argument("algorithms", nargs="+", metavar="ALGO")
    tune.add_argument("--data", required=True, help="dataset name (see `olkit datasets`) or LIBSVM file path")
    tune.add_argument("--kernel", help="kernel of every kernel learner (gaussian, linear, poly)")
    tune.add_argument("--set", action="append", metavar="KEY=VALUE", help="fixed parameter values")
    group = tune.add_mutually_exclusive_group()
    group.add_argument("--seed", type=int, default=0, help="the validation ordering is permutation seed S")
    group.add_argument("--order", metavar="FILE", help="validation ordering: one 0-based index per line")
    tune.add_argument("--format", choices=("table", "json"), default="table")
    tune.add_argument("--jobs", type=int, help="parallel processes over candidates (default: automatic)")
    sub.add_parser("list", help="list algorithms with their parameters")
    sub.add_parser("datasets", help="list the dataset catalog and where each dataset is found")
    return parser


def cmd_run(args):
    from .data import load_dataset
    from .experiment.runner import read_order_file, run_experiment
    from .report.tables import format_results

    if args.repeats < 1:
        raise UsageError(f"--repeats must be >= 1, got {args.repeats}")
    settings = command_settings(args)
    X, y = load_dataset(args.data)
    order = (args.order, read_order_file(args.order)) if args.order else None
    name = os.path.basename(args.data) if os.path.sep in args.data else args.data
    doc = run_experiment(name, args.algorithms, X, y, settings=settings, repeats=args.repeats, seed=args.seed,
                         order=order, n_jobs=args.jobs, tune=args.tune)
    print(format_results(doc, args.format))
    if args.out:
        write_outputs(doc, args.out, args.format)


def cmd_tune(args):
    from .data import load_dataset
    from .experiment.runner import read_order_file, split_params
    from .experiment.tuning import tune, validation_order
    from .report.tables import text_table

    specs = split_params(args.algorithms, command_settings(args))
    X, y = load_dataset(args.data)
    order = read_order_file(args.order) if args.order else validation_order(X.shape[0], args.seed)
    out = []
    for algo, params in specs:
        chosen, trace = tune(algo, X, y, order, params, n_jobs=args.jobs)
        out.append({"algorithm": algo, "params": chosen, "tuning": trace})
    if args.format == "json":
        print(json.dumps({"dataset": args.data, "validation_order": args.order or f"seed:{args.seed}",
                          "results": out}, indent=1))
        return
    rows = []
    for entry in out:
        tuned = dict.fromkeys(t["parameter"] for t in entry["tuning"])
        chosen = ", ".join(f"{key}={entry['params'][key]:g}" for key in tuned) or "(nothing to tune)"
        tried = "; ".join(f"{t['parameter']}={t['value']:g}:{t['mistakes']}" for t in entry["tuning"]) or "-"
        rows.append([entry["algorithm"], chosen, tried])
    print(text_table(["algorithm", "chosen", "candidate: mistakes"], rows))


def write_outputs(doc, out_dir, fmt):
    from .report.plots import plot_curves
    from .report.tables import format_results

    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, doc["dataset"])
    with open(stem + ".json", "w") as fh:
        json.dump(doc, fh, indent=1)
    if fmt != "json":
        ext = {"table": "txt", "markdown": "md", "latex": "tex", "csv": "csv"}[fmt]
        with open(f"{stem}.{ext}", "w") as fh:
            fh.write(format_results(doc, fmt) + "\n")
    plot_curves(doc, stem + "-curves.png")


def cmd_list(_args):
    from .registry import defaults, get, names

    for name in names():
        cls = get(name)
        params = ", ".join(f"{k}={v!r}" for k, v in defaults(name).items())
        print(f"{name:12s} {cls.description}\n{'':12s} parameters: {params}")


def cmd_datasets(_args):
    from .data import list_datasets
    from .report.tables import text_table

    rows = [[d["name"], d["availability"], d["paper_shape"], " + ".join(d["files"])] for d in list_datasets()]
    print(text_table(["dataset", "available", "paper shape", "files"], rows))
    if not os.environ.get("OLKIT_DATA"):
        print("\n(OLKIT_DATA is not set: only the bundled datasets are available)")


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = {"run": cmd_run, "tune": cmd_tune, "list": cmd_list, "datasets": cmd_datasets}[args.command]
    try:
        handler(args)
    except (UsageError, ValueError, FileNotFoundError) as exc:
        print(f"olkit: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 0


def run():
    """Console-script entry point: :func:`main` in a process tuned for a short command.

    Importing numba and SciPy allocates millions of objects, and numba's first call of cached code sets
    up large typing registries; the cyclic garbage collector walks them again and again, and once more
    at exit (together ~0.4 s of a 1 s ``olkit run pa1 --data german``). A short-lived process does not
    need that: collect rarely, and move everything to the permanent generation before exiting
    (atexit handlers still run).
    """
    gc.set_threshold(100_000, 50, 100)
    try:
        code = main()
    finally:
        gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
