"""The ``olkit`` command: run algorithms on datasets, list algorithms and datasets.

    olkit run ALGO [ALGO ...] --data NAME_OR_PATH [--kernel K] [--set KEY=VALUE ...]
              [--repeats N] [--seed S | --order FILE] [--format table|json|csv|markdown|latex] [--out DIR]
              [--tune]
    olkit tune ALGO [ALGO ...] --data NAME_OR_PATH [--kernel K] [--set KEY=VALUE ...] [--seed S | --order FILE]
              [--format table|json]
    olkit list [ALGO ...] [--verbose] [--format table|json]
    olkit datasets [--fetch NAME ...]
    olkit train ALGO --data TRAIN --model FILE [--kernel K] [--set KEY=VALUE ...]
    olkit train [ALGO] --model FILE --continue --data MORE
    olkit predict --model FILE --data TEST [--out PREDICTIONS]
    olkit cache info|clear
    olkit warmup [ALGO ...] [--kernel K] [--set KEY=VALUE ...] [--quiet]

A LIBSVM file given as --data is read 1-based (LIBSVM's convention); ``--zero-based`` reads it 0-based,
``--zero-based auto`` decides from the file (0-based if some index is 0), as scikit-learn's
``load_svmlight_file(zero_based=...)``.

User mistakes (unknown algorithm, bad parameter, unreadable data, label problems, bad options) print
one line on stderr, ``olkit: error: ...``, and exit with status 2 — never a traceback. Ctrl-C prints one
line, ``olkit: interrupted``, and exits with status 130 (with ``--out``, every finished run stays stored for
``--resume``); a warning is one line, ``olkit: warning: ...``.
"""

import argparse
import contextlib
import gc
import json
import os
import sys
import warnings

FORMATS = ("table", "json", "csv", "markdown", "latex")
DEFAULT_REPEATS = 20


class UsageError(Exception):
    pass


class _StoreGiven(argparse.Action):
    """Store the value and remember that the option was given (``args.given``): ``--stream`` refuses an
    explicit ``--seed`` even when it equals the default."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.given = getattr(namespace, "given", set()) | {option_string}


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the command's one-line errors (no usage block): ``olkit: error: ...``, status 2."""

    def error(self, message):
        self.exit(2, f"olkit: error: {message} (see `{self.prog} --help`)\n")


def parse_settings(items, kernel=None):
    """{KEY: value} of the --set KEY=VALUE items and of --kernel K (the key "kernel"). One key given two
    different values (two --set, or --set kernel= and --kernel) is an error naming both options; equal
    values are fine."""
    from .params import parse_value

    given = []
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        given.append((key.strip(), parse_value(value.strip()), f"--set {item}"))
    if kernel is not None:
        given.append(("kernel", kernel, f"--kernel {kernel}"))
    settings, option_of = {}, {}
    for key, value, option in given:
        same = settings.get(key) == value and isinstance(settings.get(key), bool) == isinstance(value, bool)
        if key in settings and not same:
            raise UsageError(f"{option_of[key]} and {option} give {key} two different values; give one")
        settings[key], option_of[key] = value, option
    return settings


def command_settings(args):
    """--set values, plus --kernel (the kernel of every kernel learner)."""
    return parse_settings(args.set, args.kernel)


def check_options(args):
    """The option values argparse cannot check; each error names the option and what is valid."""
    repeats = getattr(args, "repeats", None)
    if repeats is not None:
        from .experiment.orders import check_repeats

        check_repeats(repeats, "--repeats")
    if args.order and repeats is not None and repeats > 1:
        raise UsageError(
            f"--repeats {repeats} cannot be combined with --order: an order file is one run "
            "(drop --repeats, or use --seed S for random orderings)"
        )
    if args.seed < 0:
        raise UsageError(f"--seed must be an integer >= 0, got {args.seed}")
    if args.jobs == 0:
        raise UsageError(
            "--jobs must be a number of processes >= 1, or negative to count back from the "
            "number of cores (-1: all cores), got 0"
        )
    from .experiment.backend import check

    check(args.backend, args.scheduler)  # issue 10 item 5


def add_zero_based(command):
    """The ``--zero-based [auto]`` option of a command that reads --data."""
    command.add_argument(
        "--zero-based",
        nargs="?",
        const=True,
        default=False,
        choices=("auto",),
        metavar="auto",
        help="the --data LIBSVM file's feature indices start at 0 (default: at 1, LIBSVM's "
        "convention); '--zero-based auto': 0-based if some index is 0, else 1-based (as "
        "scikit-learn's load_svmlight_file)",
    )


def zero_based(args):
    """--zero-based for reading --data (False, True or "auto"); refused with a catalog dataset, whose files
    are 1-based."""
    from .data import CATALOG

    if args.zero_based is not False and args.data in CATALOG:
        raise UsageError(
            f"--zero-based applies to a LIBSVM file given by path; --data {args.data} is a catalog "
            "dataset, whose files are 1-based (drop --zero-based)"
        )
    return args.zero_based


def index_range(args, n):
    """The feature indices a --data file may use to fit a model of ``n`` features, as the file numbers them."""
    return {False: f"1..{n}", True: f"0..{n - 1}"}.get(args.zero_based, f"0..{n - 1} (0-based) or 1..{n}")


@contextlib.contextmanager
def widest_line(args):
    """A learner state refused for the width of the --data file (:class:`olkit.limits.StateTooLarge`, e.g. a
    line ``+1 2147483647:1``) names the file's line that holds the widest index."""
    from .limits import StateTooLarge

    try:
        yield
    except StateTooLarge as exc:
        if exc.width is None or not os.path.isfile(args.data):
            raise
        from .data.libsvm import line_of_index

        candidates = {False: [exc.width], True: [exc.width - 1]}.get(args.zero_based, [exc.width, exc.width - 1])
        for index in candidates:
            line = line_of_index(args.data, index)
            if line is not None:
                raise UsageError(
                    f"{args.data}:{line}: feature index {index} makes the data {exc.width} features wide: {exc}"
                ) from None
        raise


def read_order(path, n):
    """An ``--order`` file, refused unless it is an ordering of the ``n`` examples (the rule and the messages of
    :func:`olkit.protocol.check_order`, which ``evaluate_online(order=...)`` applies, naming the file)."""
    from .experiment.orders import read_order_file
    from .protocol import check_order

    order = read_order_file(path)
    try:
        return check_order(order, n, what=f"--order {path}")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


DATA_EXTENSIONS = (
    ".libsvm",
    ".svm",
    ".svmlight",
    ".txt",
    ".dat",
    ".bz2",
    ".gz",
    ".t",
    ".tr",
    ".train",
    ".test",
    ".scale",
)
"""File extensions that make a --data value a path (LIBSVM files as the LIBSVM site names them)."""


def check_data_arg(data):
    """--data before anything reads it: a path-looking value (a directory separator, or a LIBSVM file
    extension) that does not exist is "no such file" (not an unknown catalog name), and a FIFO or device is
    refused (reading one could block forever). Catalog names and directories are left to the loader."""
    from .data import CATALOG

    if not data:
        raise UsageError("--data is empty; give a dataset name (see `olkit datasets`) or a LIBSVM file path")
    if data in CATALOG:
        if os.path.exists(data):  # issue 22: split names such as a9a.test may also be local file names
            warn(f"--data {data} is a catalog dataset; the file {data} here is not read (give ./{data} to read it)")
        return
    try:
        mode = os.stat(data).st_mode
    except FileNotFoundError:
        looks_like_path = any(sep in data for sep in (os.sep, os.altsep, "/") if sep) or data.lower().endswith(
            DATA_EXTENSIONS
        )
        if looks_like_path:
            raise UsageError(f"--data {data}: no such file") from None
        return  # the loader says: unknown dataset, with the valid names
    except OSError as exc:
        raise UsageError(f"--data {data}: cannot read it: {exc.strerror}") from None
    _refuse_special("--data", data, mode, "a LIBSVM file (plain text, .gz or .bz2)")


def _refuse_special(option, path, mode, expected):
    """UsageError for a FIFO, device or socket given as a file to read (a directory is left to the reader)."""
    from ._files import file_kind

    kind = file_kind(mode)
    if kind is not None and kind != "a directory":
        raise UsageError(f"{option} {path} is {kind}, not a regular file; expected {expected}")


def check_paths(args):
    """The file and directory options of every command, before anything runs: --out and --model may not
    be empty (``--out ''`` would write into the working directory), --data as :func:`check_data_arg`."""
    for option in ("out", "model"):
        value = getattr(args, option, None)
        if value is not None and not value.strip():
            what = "a directory" if args.command == "run" else "a file"
            raise UsageError(f"--{option} is empty; give {what}")
    if getattr(args, "data", None) is not None:
        check_data_arg(args.data)
    if getattr(args, "order", None) and os.path.exists(args.order):
        _refuse_special("--order", args.order, os.stat(args.order).st_mode, "an order file (one index per line)")


def prepare_out_dir(path):
    """Create the ``--out`` directory before anything runs, so that a bad path fails at once."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(
            f"--out {path} is an existing file; --out names a directory (created if missing; "
            "result files already in it are overwritten)"
        )
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {path}: cannot create the directory: {exc.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"--out {path}: the directory is not writable")


def fixed_by_user(algorithm, settings):
    """{parameter: value} of ``algorithm``'s tuning grid that ``settings`` (--set, --kernel) fix: not tuned."""
    from .experiment.runner import registry_name
    from .registry import spec

    return {key: settings[key] for key, _ in spec(registry_name(algorithm)).tuning if key in settings}


def tuning_words(params, trace, fixed):
    """ "C=2, eta=0.85", "eta=0.85 (C=1 fixed by --set)" or "nothing to tune (C=1, eta=0.7 fixed by --set)"."""
    tuned = ", ".join(f"{key}={_show(params[key])}" for key in dict.fromkeys(t["parameter"] for t in trace))
    kept = ", ".join(f"{key}={_show(value)}" for key, value in fixed.items())
    words = tuned or "nothing to tune"
    return f"{words} ({kept} fixed by --set)" if kept else words


def build_parser():
    parser = ArgumentParser(
        prog="olkit",
        description="Online classification: kernel, second-order "
        "linear and budgeted learners, and the papers' experiments.",
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"olkit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    quiet = {
        "action": "store_true",
        "help": "no progress bar or compile notice on stderr (shown only when stderr "
        "is a terminal, or with OLKIT_PROGRESS=1)",
    }
    run = sub.add_parser("run", help="run algorithms online on a dataset")
    run.add_argument("algorithms", nargs="+", metavar="ALGO")
    run.add_argument("--data", required=True, help="dataset name (see `olkit datasets`) or LIBSVM file path")
    run.add_argument("--kernel", help="kernel of every kernel learner (gaussian, linear, poly)")
    run.add_argument("--set", action="append", metavar="KEY=VALUE", help="parameter for every algorithm that has it")
    run.add_argument(
        "--repeats", type=int, help=f"random orderings (default {DEFAULT_REPEATS}, as in the papers; not with --order)"
    )
    group = run.add_mutually_exclusive_group()
    group.add_argument(
        "--seed", type=int, default=0, action=_StoreGiven, help="seed of the orderings (ordering r uses seed+r), >= 0"
    )
    group.add_argument(
        "--order",
        metavar="FILE",
        help="one 0-based example index per line, each example exactly "
        "once (a file with duplicate, missing or out-of-range indices is refused); a single run",
    )
    run.add_argument("--format", choices=FORMATS, default="table")
    run.add_argument(
        "--out",
        metavar="DIR",
        help="also write results (JSON, table, curve plot) into DIR, created "
        "if missing; files of the same name already in DIR are overwritten",
    )
    run.add_argument("--jobs", type=int, help="parallel processes (default: automatic; -1: all cores)")
    run.add_argument(
        "--tune",
        action="store_true",
        help="first select parameters as the SCW experiments did "
        "(grids of docs/algorithms/evaluation.md#parameter-selection, one pass per candidate on the "
        "first ordering); parameters fixed by --set are not tuned",
    )
    # issue 9 (result store, olkit.experiment.store): --out DIR keeps every finished run in DIR/.cells
    run.add_argument("--quiet", "-q", **quiet)
    run.add_argument(
        "--resume",
        action="store_true",
        help="with --out: reuse the finished runs a previous "
        "(e.g. killed) run stored in DIR/.cells, compute only the others",
    )
    # issue 10 item 6: out-of-core streams (olkit.stream)
    run.add_argument(
        "--stream",
        action="store_true",
        help="one run in file order, reading the LIBSVM file in "
        "chunks, never whole (memory: one chunk plus the model); a first scanning pass finds the "
        "width and the classes. Not with --repeats > 1, --seed, --order, --tune, --out",
    )
    add_zero_based(run)
    run.add_argument(
        "--chunk-size", type=int, default=None, metavar="N", help="with --stream: examples per chunk (default 100000)"
    )
    tune = sub.add_parser(
        "tune", help="select parameters as the SCW experiments did (docs/algorithms/evaluation.md#parameter-selection)"
    )
    tune.add_argument("algorithms", nargs="+", metavar="ALGO")
    tune.add_argument("--data", required=True, help="dataset name (see `olkit datasets`) or LIBSVM file path")
    tune.add_argument("--kernel", help="kernel of every kernel learner (gaussian, linear, poly)")
    tune.add_argument("--set", action="append", metavar="KEY=VALUE", help="fixed parameter values (not tuned)")
    group = tune.add_mutually_exclusive_group()
    group.add_argument("--seed", type=int, default=0, help="the validation ordering is permutation seed S (>= 0)")
    group.add_argument(
        "--order",
        metavar="FILE",
        help="validation ordering: one 0-based index per line, each example exactly once (otherwise refused)",
    )
    tune.add_argument("--format", choices=("table", "json"), default="table")
    tune.add_argument("--quiet", "-q", **quiet)
    add_zero_based(tune)
    tune.add_argument("--jobs", type=int, help="parallel processes over candidates (default: automatic; -1: all cores)")
    for command in (run, tune):  # issue 10 item 5: olkit.experiment.backend
        command.add_argument(
            "--backend",
            metavar="NAME",
            help="where parallel runs go: loky (local processes, "
            "the default) or dask (a Dask cluster; extra olkit[dask])",
        )
        command.add_argument(
            "--scheduler",
            metavar="ADDRESS",
            help="with --backend dask: the scheduler's address "
            "(e.g. tcp://host:8786); without it, a local cluster of --jobs (default 2) processes",
        )
    lst = sub.add_parser("list", help="list the algorithms; with ALGO names (or --verbose), their full specs")
    lst.add_argument("algorithms", nargs="*", metavar="ALGO", help="show the full spec of these algorithms")
    lst.add_argument("--verbose", "-v", action="store_true", help="show the full spec of every algorithm")
    lst.add_argument("--format", choices=("table", "json"), default="table")
    datasets = sub.add_parser(
        "datasets", help="list the dataset catalog and where each dataset is found; --fetch NAME ... downloads datasets"
    )
    datasets.add_argument(
        "--fetch",
        nargs="+",
        metavar="NAME",
        help="download the missing files of these catalog "
        "datasets (into OLKIT_DATA if set and writable, else the platform's cache folder), "
        "verify their SHA-256 and say where they went",
    )
    # issue 10: models on disk (olkit.persist)
    train = sub.add_parser(
        "train",
        help="one online pass in file order over a dataset, then save the model",
        description="One online pass in file order over a dataset, then save the model. For a model to deploy: "
        "--set fit_intercept=true learns a bias (the papers' learners have none; use it when the classes are not "
        "centred around the origin, e.g. data with all-zero rows), and --set average=true makes the saved model "
        "predict with the average of its models over the pass (docs/algorithms/options.md).",
    )
    train.add_argument(
        "algorithm",
        nargs="?",
        metavar="ALGO",
        help="the algorithm (optional with --continue: the model's; if given it must match)",
    )
    train.add_argument("--data", required=True, help="dataset name (see `olkit datasets`) or LIBSVM file path")
    train.add_argument(
        "--model",
        required=True,
        metavar="FILE",
        help="model file to write (.npz; with --continue: read, then overwritten)",
    )
    train.add_argument("--kernel", help="kernel of a kernel learner (gaussian, linear, poly)")
    train.add_argument("--set", action="append", metavar="KEY=VALUE", help="parameter of the algorithm")
    train.add_argument("--quiet", "-q", **quiet)
    train.add_argument(
        "--continue",
        dest="resume",
        action="store_true",
        help="load --model and keep learning on --data (the model keeps its parameters)",
    )
    train.add_argument(
        "--stream",
        action="store_true",
        help="read the LIBSVM file --data in chunks, never whole "
        "(a first scanning pass finds the width and the classes)",
    )
    add_zero_based(train)
    train.add_argument(
        "--chunk-size", type=int, default=None, metavar="N", help="with --stream: examples per chunk (default 100000)"
    )
    predict = sub.add_parser("predict", help="predict the labels of a dataset with a saved model")
    predict.add_argument("--model", required=True, metavar="FILE", help="model file written by `olkit train`")
    predict.add_argument(
        "--data",
        required=True,
        help="dataset name (see `olkit datasets`) or LIBSVM file path; "
        "a file whose largest feature index exceeds the model's width is refused, a narrower one "
        "(LIBSVM files need not reach the last features) is padded with zeros, with a warning",
    )
    predict.add_argument("--out", metavar="FILE", help="write one predicted label per line into FILE")
    add_zero_based(predict)
    # issue 21 item 6: the parsed-data cache (olkit.data.cache)
    cache = sub.add_parser(
        "cache",
        help="show or empty the parsed-data cache of LIBSVM files (OLKIT_CACHE_DIR, "
        "at most OLKIT_CACHE_MAX_BYTES, default 2G)",
    )
    cache.add_argument(
        "action",
        choices=("info", "clear"),
        help="info: location, total and cap, the 20 most recently used entries; clear: remove every entry",
    )
    cache.add_argument("--all", action="store_true", help="info: list every entry; clear: name every file removed")
    # issue 25: compiling ahead of time (olkit.warmup)
    warmup = sub.add_parser(
        "warmup",
        help="compile the algorithms' loops ahead of time into the compile cache (e.g. for CI images, Dask workers)",
        description="Compile (or load from the compile cache) everything a run of each algorithm uses: binary, "
        "multiclass and multi-label data where the algorithm learns from them, dense and sparse input, its default "
        "kernel (and --kernel K, --set values), and the scores of predict, on tiny synthetic data (no dataset is "
        "read). Prints one "
        "line per algorithm with the seconds it took, then the total. The cache is OLKIT_NUMBA_CACHE (a directory; "
        "'off' keeps nothing, which makes a warm-up useless), see docs/guide/reproducibility.md#the-compile-cache.",
    )
    warmup.add_argument(
        "algorithms", nargs="*", metavar="ALGO", help="algorithms to compile (default: every algorithm of `olkit list`)"
    )
    warmup.add_argument(
        "--kernel",
        help="also compile this kernel (gaussian, linear, poly) for every learner that has it; without ALGO, "
        "learners that do not offer the kernel are compiled with their default only",
    )
    warmup.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="also compile the algorithms with these parameter values (as `olkit run --set`: e.g. "
        "covariance=diagonal, average=true, fit_intercept=true, compat=...), which may select other compiled loops",
    )
    warmup.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="print the total line only (no line per algorithm, no compile notice on stderr)",
    )
    return parser


def cmd_warmup(args):
    """``olkit warmup [ALGO ...]``: compile ahead of time (olkit.warmup)."""
    from . import _compile
    from .warmup import variants, warm_up

    settings = parse_settings(args.set)
    try:
        todo = variants(args.algorithms or None, args.kernel, settings)
    except ValueError as exc:
        raise UsageError(f"{exc}; `olkit list` describes them") from None
    if not _compile.CACHE:
        warn(
            "OLKIT_NUMBA_CACHE=off: the compiled code is kept in this process only, later processes compile "
            "again (unset it, or give a directory, to fill the cache)"
        )
    width = max(len(name) for name in todo)
    total = 0.0
    for name, runs in todo.items():  # each algorithm once, its variants together
        took = sum(warm_up(name, params) for params in runs)
        total += took
        if not args.quiet:
            given = ", ".join(f"{k}={v}" for params in runs[1:] for k, v in params.items())
            extra = f"  (defaults and {given})" if given else ""
            print(f"{name:{width}s}  {took:7.2f} s{extra}", flush=True)
    where = os.environ.get("NUMBA_CACHE_DIR") if _compile.CACHE else "off"
    print(f"{'total':{width}s}  {total:7.2f} s  ({len(todo)} algorithm(s); compile cache: {where})")


def cmd_run(args):
    if args.stream or args.chunk_size is not None:
        return cmd_run_stream(args)
    from .data import load_dataset
    from .experiment.runner import run_experiment
    from .report.tables import format_results

    settings = command_settings(args)
    base = zero_based(args)
    if args.out:
        prepare_out_dir(args.out)
    X, y = load_dataset(args.data, zero_based=base)
    order = (args.order, read_order(args.order, X.shape[0])) if args.order else None
    name = os.path.basename(args.data) if os.path.sep in args.data else args.data
    # issue 9: the result store of --out (--resume reads it)
    from .experiment.store import run_out_store

    store = run_out_store(args.out, args.resume)
    try:
        doc = run_experiment(
            name,
            args.algorithms,
            X,
            y,
            settings=settings,
            repeats=args.repeats or DEFAULT_REPEATS,
            seed=args.seed,
            order=order,
            n_jobs=args.jobs,
            tune=args.tune,
            store=store,
        )
    except KeyboardInterrupt:
        if store is None:
            raise
        store.discard_interrupted_writes()
        raise KeyboardInterrupt(
            f"the finished runs are kept in {store.directory}; rerun with --resume to reuse them"
        ) from None
    if args.resume:
        print(f"olkit: {store.summary()}", file=sys.stderr)
    print(format_results(doc, args.format))
    if args.tune and args.format == "table":
        chosen = [
            f"{r['algorithm']}: {tuning_words(r['params'], r['tuning'], fixed_by_user(r['algorithm'], settings))}"
            for r in doc["results"]
        ]
        print("\ntuned: " + "; ".join(chosen))
    if args.out:
        write_outputs(doc, args.out, args.format)


DEFAULT_CHUNK_SIZE = 100_000


def _stream_path(args):
    """--data of --stream: a LIBSVM file (catalog names are refused: they may be generated or several files),
    and --chunk-size checked."""
    if not args.stream:
        raise UsageError("--chunk-size needs --stream")
    chunk = DEFAULT_CHUNK_SIZE if args.chunk_size is None else args.chunk_size
    if chunk < 1:
        raise UsageError(f"--chunk-size must be >= 1, got {chunk}")
    if not os.path.isfile(args.data):
        raise UsageError(
            f"--stream reads a LIBSVM file; --data {args.data} is not a file (catalog datasets are "
            "loaded whole: drop --stream)"
        )
    return args.data, chunk


def _stream_table(name, results, info, what):
    from .report.tables import kernel_note, text_table

    return (
        f"{name} ({info['n_examples']} examples, {info['n_features']} features, {len(info['labels'])} classes; "
        f"{what}, file order, streamed)\n"
        + text_table(
            ["Algorithm", "Mistake (%)", "#SV", "#Updates", "Time (s)"],
            [
                [
                    res.algorithm,
                    f"{100 * res.mistake_rate:.3f}",
                    str(res.n_sv),
                    str(res.n_updates),
                    f"{res.seconds:.3f}",
                ]
                for res in results
            ],
        )
        + "\n"
        + kernel_note([(res.algorithm, res.params) for res in results])
    )


def cmd_run_stream(args):
    """``olkit run ALGO --data FILE --stream``: one online pass per algorithm in file order, the file read in
    chunks (olkit.stream); the same mistakes, #SV, #updates as the in-memory run in file order."""
    from .data.libsvm import scan_libsvm
    from .experiment.runner import refuse_fit_order_params
    from .kernels import describe as describe_kernel
    from .registry import make
    from .stream import evaluate_libsvm_stream

    refused = [
        opt
        for opt, on in (
            ("--repeats > 1", (args.repeats or 1) > 1),
            ("--order", args.order),
            ("--seed", "--seed" in getattr(args, "given", ())),
            ("--tune", args.tune),
            ("--out", args.out),
            ("--resume", args.resume),
        )
        if on
    ]
    if refused:
        raise UsageError(f"--stream is one run in file order; it cannot be combined with {', '.join(refused)}")
    if args.format not in ("table", "json"):
        raise UsageError(f"--stream prints --format table or json, not {args.format}")
    path, chunk = _stream_path(args)
    from .experiment.runner import split_params

    settings = command_settings(args)
    refuse_fit_order_params(settings)
    # each algorithm takes the --set values it has, as in `olkit run`; bad names / parameters: before reading
    learners = [make(algo, **params) for algo, params in split_params(args.algorithms, settings)]
    info = scan_libsvm(path, chunk, zero_based(args))
    name = os.path.basename(path)
    results = []
    for clf in learners:
        with widest_line(args):
            res, _ = evaluate_libsvm_stream(
                clf,
                path,
                chunk,
                n_features=info["n_features"],
                classes=info["labels"],
                n_examples=info["n_examples"],
                zero_based=info["zero_based"],
            )
        results.append(res)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "dataset": name,
                    "n_examples": info["n_examples"],
                    "n_features": info["n_features"],
                    "classes": info["labels"].tolist(),
                    "order": "file order (streamed)",
                    "chunk_size": chunk,
                    "results": [
                        {
                            "algorithm": r.algorithm,
                            "params": r.params,
                            "kernel": describe_kernel(r.params),
                            **r.to_dict(),
                        }
                        for r in results
                    ],
                },
                indent=1,
                default=str,
            )
        )
        return
    print(_stream_table(name, results, info, "1 run"))


def cmd_train_stream(args, clf):
    """``olkit train ... --stream``: the pass of ``olkit train`` with the file read in chunks; returns
    (res, n_features, name)."""
    from .data.libsvm import scan_libsvm
    from .stream import evaluate_libsvm_stream

    path, chunk = _stream_path(args)
    info = scan_libsvm(path, chunk, zero_based(args))
    if args.resume:
        check_width(args, info["n_features"], clf.n_features_in_)
        unknown = sorted(set(info["labels"].tolist()) - set(clf.classes_.tolist()))
        if unknown:
            raise UsageError(
                f"--data {args.data} has label(s) {', '.join(map(_label_text, unknown[:5]))} that are "
                f"not among the model's classes ({', '.join(map(_label_text, clf.classes_))})"
            )
        res, _ = evaluate_libsvm_stream(
            clf,
            path,
            chunk,
            n_features=clf.n_features_in_,
            classes=clf.classes_,
            reset=False,
            zero_based=info["zero_based"],
        )
        return res, clf.n_features_in_, os.path.basename(path)
    with widest_line(args):
        res, _ = evaluate_libsvm_stream(
            clf, path, chunk, n_features=info["n_features"], classes=info["labels"], zero_based=info["zero_based"]
        )
    return res, info["n_features"], os.path.basename(path)


def cmd_tune(args):
    from .data import load_dataset
    from .experiment.orders import validation_order
    from .experiment.runner import split_params
    from .experiment.tuning import tune
    from .report.tables import text_table

    settings = command_settings(args)
    specs = split_params(args.algorithms, settings)
    X, y = load_dataset(args.data, zero_based=zero_based(args))
    order = read_order(args.order, X.shape[0]) if args.order else validation_order(X.shape[0], args.seed)
    out = []
    for algo, params in specs:
        chosen, trace = tune(algo, X, y, order, params, n_jobs=args.jobs)  # parameters set by --set: not tuned
        out.append({"algorithm": algo, "params": chosen, "tuning": trace})
    if args.format == "json":
        print(
            json.dumps(
                {"dataset": args.data, "validation_order": args.order or f"seed:{args.seed}", "results": out}, indent=1
            )
        )
        return
    rows = []
    for entry in out:
        chosen = tuning_words(entry["params"], entry["tuning"], fixed_by_user(entry["algorithm"], settings))
        tried = "; ".join(f"{t['parameter']}={t['value']:g}:{t['mistakes']}" for t in entry["tuning"]) or "-"
        rows.append([entry["algorithm"], chosen, tried])
    print(text_table(["algorithm", "chosen", "candidate: mistakes"], rows))


def _model_data(args, n_features=None):
    """(X, y, name) of --data; X padded with empty columns to a model's ``n_features`` (a LIBSVM file has as
    many columns as its largest feature index), refused if it has more."""
    import scipy.sparse as sp

    from .data import load_dataset

    X, y = load_dataset(args.data, zero_based=zero_based(args))
    name = os.path.basename(args.data) if os.path.sep in args.data else args.data
    if n_features is not None and X.shape[1] != n_features:
        check_width(args, X.shape[1], n_features)
        X = sp.csr_matrix(X)
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
    return X, y, name


def check_width(args, width, n_features):
    """--data of ``width`` columns (a LIBSVM file: its largest feature index) for a model of ``n_features``:
    wider is refused; narrower is legitimate in LIBSVM (a file need not reach the last features), so the
    missing columns are taken as zeros, with one warning line (a file meant for another model is narrower
    too)."""
    if width > n_features:
        raise UsageError(
            f"--data {args.data} has {width} features, but the model {args.model} was trained on "
            f"{n_features}: the data must use feature indices {index_range(args, n_features)}"
        )
    if width < n_features:
        warn(
            f"--data {args.data} has {width} features (its largest feature index), the model {args.model} "
            f"{n_features}: the {n_features - width} missing feature(s) are taken as 0 (a LIBSVM file need not "
            "reach the last features; check that the file is meant for this model)"
        )


def _load_model(path):
    from .persist import load

    if not os.path.exists(path):
        raise UsageError(f"--model {path}: no such file")
    return load(path)


def _label_text(value):
    """A label as a line of a predictions file: 1 (not 1.0) for integral numbers, strings as they are."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def cmd_train(args):
    """``olkit train``: evaluate_online in file order (the online protocol), then save the model."""
    import numpy as np

    from .persist import save
    from .protocol import evaluate_online
    from .registry import make
    from .report.tables import kernel_note, text_table

    settings = command_settings(args)
    if args.resume:
        if settings:
            raise UsageError(
                "--set / --kernel cannot be combined with --continue: a model keeps the parameters it was trained with"
            )
        clf = _load_model(args.model)
        if args.algorithm and args.algorithm != clf.algorithm_name:
            raise UsageError(
                f"--model {args.model} is a {clf.algorithm_name} model, not {args.algorithm} "
                "(leave ALGO out with --continue)"
            )
        if clf.multilabel_:
            raise UsageError(f"--model {args.model} is a multi-label model; olkit train reads single-label data")
        streamed = args.stream or args.chunk_size is not None  # issue 10 item 6: labels checked by the scan
        X, y, name = (None, clf.classes_, None) if streamed else _model_data(args, clf.n_features_in_)
        unknown = sorted(set(np.unique(y).tolist()) - set(clf.classes_.tolist()))
        if unknown:
            raise UsageError(
                f"--data {args.data} has label(s) {', '.join(map(_label_text, unknown[:5]))} that are "
                f"not among the model's classes ({', '.join(map(_label_text, clf.classes_))})"
            )
    else:
        if not args.algorithm:
            raise UsageError("train needs an algorithm (see `olkit list`), or --continue to resume a saved model")
        from .experiment.runner import refuse_fit_order_params

        refuse_fit_order_params(settings)
        clf = make(args.algorithm, **settings)
        if not (args.stream or args.chunk_size is not None):
            X, y, name = _model_data(args)
    from .progress import example_bar

    if args.stream or args.chunk_size is not None:  # issue 10 item 6: the file read in chunks
        res, width, name = cmd_train_stream(args, clf)
    else:
        with example_bar(X.shape[0], f"{clf.algorithm_name} train"), widest_line(args):
            res = evaluate_online(clf, X, y, reset=not args.resume)
        width = X.shape[1]
    folder = os.path.dirname(os.path.abspath(args.model))
    if not os.path.isdir(folder):
        raise UsageError(f"--model {args.model}: the directory {folder} does not exist")
    try:
        save(clf, args.model)
    except OSError as exc:
        raise UsageError(f"--model {args.model}: cannot write the model: {exc.strerror or exc}") from None
    what = "continued" if args.resume else "1 run"
    print(
        f"{name} ({res.n_examples} examples, {width} features, {len(clf.classes_)} classes; {what}, "
        f"file order{', streamed' if args.stream else ''})"
    )
    print(
        text_table(
            ["Algorithm", "Mistake (%)", "#SV", "#Updates", "Time (s)"],
            [
                [
                    clf.algorithm_name,
                    f"{100 * res.mistake_rate:.3f}",
                    str(res.n_sv),
                    str(res.n_updates),
                    f"{res.seconds:.3f}",
                ]
            ],
        )
    )
    print(kernel_note([(clf.algorithm_name, clf.get_params())]))
    print(f"model saved to {args.model} ({clf.n_seen_} examples seen in all)")


def cmd_predict(args):
    """``olkit predict``: the labels of --data under a saved model; the accuracy where the file's labels
    are among the model's classes."""
    import numpy as np

    from ._files import atomic_open

    clf = _load_model(args.model)
    if clf.multilabel_:
        raise UsageError(f"--model {args.model} is a multi-label model; olkit predict reads single-label data")
    X, y, name = _model_data(args, clf.n_features_in_)
    pred = clf.predict(X)
    n = len(pred)
    if args.out:
        try:
            with atomic_open(args.out) as fh:
                fh.writelines(_label_text(v) + "\n" for v in pred)
        except OSError as exc:
            raise UsageError(f"--out {args.out}: cannot write the predictions: {exc.strerror or exc}") from None
    known = np.isin(y, clf.classes_)
    classes = ", ".join(map(_label_text, clf.classes_))
    shown = ", ".join(map(_label_text, np.unique(y[~known])[:5]))
    print(f"{name}: {n} examples predicted by the {clf.algorithm_name} model {args.model}")
    if not known.any():
        print(
            f"no accuracy: the file's labels ({shown}) are not among the model's classes ({classes}) — an "
            "unlabelled file?"
        )
    else:
        right = int(np.sum(pred[known] == y[known]))
        scope = (
            ""
            if known.all()
            else (
                f" on the {int(known.sum())} examples whose label is one of the model's "
                f"classes ({classes}); {int((~known).sum())} have other labels ({shown})"
            )
        )
        print(f"accuracy {right / known.sum():.4f} ({right} of {int(known.sum())} right){scope}")
    if args.out:
        print(f"predictions written to {args.out} (one label per line)")


def cmd_cache(args):
    """``olkit cache info|clear``: the parsed-data cache (olkit.data.cache)."""
    from .data import cache
    from .limits import format_bytes

    if args.action == "info":
        print(cache.describe(limit=None if args.all else 20))
        return
    if cache.directory() is None:
        print(f"the parsed-data cache is off ({cache.DIR_ENV}=off): nothing to remove")
        return
    removed = cache.clear()
    print(f"removed {len(removed)} file(s), {format_bytes(sum(size for _, size in removed))}, from {cache.directory()}")
    for name, size in removed if args.all else ():
        print(f"  {name}  {format_bytes(size)}")


def write_outputs(doc, out_dir, fmt):
    """The files of ``--out``, each written atomically (olkit._files): two runs writing the same DIR at once
    leave one run's whole file, never a mix or a truncated one."""
    from ._files import atomic_open, write_text
    from .report.plots import plot_curves
    from .report.tables import format_results

    stem = os.path.join(out_dir, doc["dataset"])
    try:
        with atomic_open(stem + ".json") as fh:
            json.dump(doc, fh, indent=1)
        if fmt != "json":
            ext = {"table": "txt", "markdown": "md", "latex": "tex", "csv": "csv"}[fmt]
            write_text(f"{stem}.{ext}", format_results(doc, fmt) + "\n")
        plot_curves(doc, stem + "-curves.png")
    except OSError as exc:
        raise UsageError(
            f"--out {out_dir}: cannot write {exc.filename or 'the results'}: {exc.strerror or exc}"
        ) from None


def _resolved_defaults(spec):
    """{data kind: resolved_params() of a default learner on that kind of data} — the values the defaults
    stand for where they depend on the data (DUOL's C=None: 5 binary, 10 multiclass)."""
    import numpy as np

    out = {}
    for kind in spec.data:
        learner = spec.cls()
        learner.classes_ = np.array([-1, 1]) if kind == "binary" else np.arange(3)
        learner.multilabel_ = kind == "multilabel"
        try:
            out[kind] = learner.resolved_params()
        except (AttributeError, ValueError):  # resolvable only on real data: show the plain default
            out[kind] = learner.get_params()
    return out


def _plain(value):
    """A parameter value for JSON: numbers as numbers, except inf / nan as strings (not valid JSON)."""
    import math

    return str(value) if isinstance(value, float) and not math.isfinite(value) else value


def _show(value):
    """A value as text: short floats where exact (8, 0.0625, 1e-09), strings quoted."""
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return repr(value) if isinstance(value, str) else str(value)


def _default_words(default, resolved):
    """The default as it applies: "5 (binary) / 10 (multiclass, multilabel) (resolved from None)" where the
    declared default (DUOL's C=None) resolves differently per data kind, "0 (resolved from None)" where it
    resolves to one value, the declared default itself where nothing is resolved."""
    by_value = {}
    for kind, value in resolved.items():
        by_value.setdefault(_show(value), []).append(kind)
    if list(by_value) == [_show(default)]:
        return _show(default)
    if len(by_value) == 1:
        words = next(iter(by_value))
    else:
        words = " / ".join(f"{value} ({', '.join(kinds)})" for value, kinds in by_value.items())
    return f"{words} (resolved from {_show(default)})"


def _constraint_words(spec, param):
    """What ``param`` accepts, in the words of the validation errors (olkit.params)."""
    from .params import Interval, Options, _describe, _resolve

    constraints = spec.constraints.get(param)
    if constraints is None:
        return "(no declared constraint)"
    learner = spec.cls()
    words = _describe([r for c in constraints for r in _resolve(c, learner)])
    dynamic = any(callable(c) and not isinstance(c, (Interval, Options)) for c in constraints)
    return words + (" (at the defaults; depends on the other parameters)" if dynamic else "")


def _spec_record(spec):
    """The full spec of one algorithm as plain data (the JSON of ``olkit list --format json``)."""
    resolved = _resolved_defaults(spec)
    meanings = spec.meanings
    params = {}
    for param, default in spec.defaults.items():
        values = {kind: _plain(r[param]) for kind, r in resolved.items()}
        params[param] = {
            "meaning": meanings.get(param, ""),
            "default": _plain(default),
            "default_in_words": _default_words(default, values),
            "resolved_default": values,
            "valid": _constraint_words(spec, param),
            "source": spec.sources.get(param),
        }
    return {
        "name": spec.name,
        "description": spec.description,
        "data": list(spec.data),
        "page": spec.page,
        "parameters": params,
        "tuning": [{"parameter": key, "candidates": [_plain(v) for v in values]} for key, values in spec.tuning],
    }


def _spec_text(record):
    from .report.tables import text_table

    rows = [[name, p["default_in_words"], p["valid"], p["source"] or "-"] for name, p in record["parameters"].items()]
    lines = [
        f"{record['name']}: {record['description']}",
        f"  data: {', '.join(record['data'])}",
        f"  specification: {record['page']}",
        "  parameters:",
    ]
    width = max((len(name) for name in record["parameters"]), default=0)
    lines += [f"    {name:{width}s}  {p['meaning'] or '-'}" for name, p in record["parameters"].items()]
    lines.append("  defaults and valid values:")
    table = text_table(["parameter", "default", "valid values", "default from"], rows)
    lines += ["    " + line.rstrip() for line in table.splitlines()]
    if record["tuning"]:
        lines.append("  tuning (one pass per candidate on a validation ordering, one parameter at a time):")
        lines += [f"    {t['parameter']}: {', '.join(_show(v) for v in t['candidates'])}" for t in record["tuning"]]
    else:
        lines.append("  tuning: none (the defaults are used)")
    return "\n".join(lines)


def cmd_list(args):
    """``olkit list``: name, data kinds and description of every algorithm; ``olkit list ALGO ...`` or
    ``--verbose``: the full spec (parameters, defaults and their sources, constraints, tuning grid)."""
    from .registry import names, spec

    chosen = [spec(name) for name in args.algorithms]  # an unknown name: ValueError with the nearest name
    full = bool(chosen) or args.verbose
    specs = chosen or [spec(name) for name in names()]
    if args.format == "json":
        records = [
            _spec_record(s) if full else {"name": s.name, "description": s.description, "data": list(s.data)}
            for s in specs
        ]
        print(json.dumps({"algorithms": records}, indent=1))
        return
    if full:
        print("\n\n".join(_spec_text(_spec_record(s)) for s in specs))
        return
    width = max(len(s.name) for s in specs)
    kinds = max(len(", ".join(s.data)) for s in specs)
    for s in specs:
        print(f"{s.name:{width}s}  {', '.join(s.data):{kinds}s}  {s.description}")
    print("\n(olkit list ALGO [ALGO ...] shows parameters, defaults, constraints and tuning grids)")


def shape_words(shape):
    """ "1000 x 24, 2 classes" (a dataset's shape), or "?" when it is not known without loading the files."""
    if shape is None:
        return "?"
    return f"{shape['n_examples']} x {shape['n_features']}, {shape['n_classes']} classes"


def cmd_datasets(args):
    """``olkit datasets``: the catalog, each dataset's shape (from the data directory's MANIFEST.json, the
    bundled files or the generator, not by loading the files) beside the paper's, and its files; a missing
    dataset that olkit can download is "fetchable". ``--fetch NAME ...`` downloads (issue 22)."""
    from .data import list_datasets
    from .data.fetch import download_dir
    from .report.tables import text_table

    if args.fetch:
        return fetch_datasets(args.fetch)
    entries = list_datasets()

    def available(d):
        return "fetchable" if d["availability"] == "missing" and d["fetchable"] else d["availability"]

    rows = [
        [
            d["name"],
            available(d),
            "-" if d["availability"] == "missing" else shape_words(d["shape"]),
            d["paper_shape"],
            " + ".join(d["files"]),
        ]
        for d in entries
    ]
    print(text_table(["dataset", "available", "shape (ours)", "paper shape", "files"], rows))
    unknown = [d["name"] for d in entries if d["shape"] is None and d["availability"] != "missing"]
    if unknown:
        print(
            f"\n(shape ?: no MANIFEST.json describes the files of {', '.join(unknown)}; `olkit.dataset_info(NAME)` "
            "loads them and tells)"
        )
    if any(d["availability"] == "missing" and d["fetchable"] for d in entries):
        print(
            f"\n(fetchable: downloaded on first use, or now by `olkit datasets --fetch NAME ...`, into "
            f"{download_dir()}; missing: olkit cannot download it, `olkit run ... --data NAME` says where to get it)"
        )
    if not os.environ.get("OLKIT_DATA"):
        print("\n(OLKIT_DATA is not set: datasets are looked for among the bundled files and in the download cache)")


def fetch_datasets(names):
    """``olkit datasets --fetch NAME ...``: every file of each dataset present, downloaded where missing
    (one stderr line per download says where it went; one stdout line per file already there)."""
    from .data import CATALOG, fetch_dataset

    unknown = [name for name in names if name not in CATALOG]
    if unknown:
        raise UsageError(f"--fetch: unknown dataset(s) {', '.join(unknown)}; see `olkit datasets`")
    for name in names:
        results = fetch_dataset(name)
        if not results:
            print(f"{name}: generated, nothing to download")
        for file, path, how in results:
            if how != "downloaded":
                print(f"{name}: {file} already present ({how}): {path}")


def warn(text):
    """One warning line on stderr: ``olkit: warning: ...``."""
    print(f"olkit: warning: {text}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` of the command: a Python warning as one line (:func:`warn`)."""
    warn(message)


def main(argv=None):
    """Run the command of ``argv``; the exit status: 0, 2 for a user mistake (one ``olkit: error:`` line),
    130 for Ctrl-C (one ``olkit: interrupted`` line; finished runs of ``--out`` stay stored)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            return _main(args)
        except KeyboardInterrupt as exc:
            print(f"olkit: interrupted{f' ({exc})' if str(exc) else ''}", file=sys.stderr)
            return 130


PROGRESS_COMMANDS = ("run", "tune", "train", "warmup")
"""The commands that report progress on stderr (on a terminal, or with OLKIT_PROGRESS=1; issue 10)."""


def _main(args):
    handler = {
        "run": cmd_run,
        "tune": cmd_tune,
        "list": cmd_list,
        "datasets": cmd_datasets,
        "train": cmd_train,
        "predict": cmd_predict,
        "cache": cmd_cache,
        "warmup": cmd_warmup,
    }[args.command]
    try:
        check_paths(args)  # issue 21: empty paths, missing files, FIFOs and devices
        if args.command in PROGRESS_COMMANDS:
            from .progress import activate

            activate(quiet=args.quiet)
        if args.command in ("run", "tune"):
            check_options(args)
            if args.backend == "dask" and not getattr(args, "stream", False):
                from .experiment.backend import use

                with use(args.backend, args.scheduler, args.jobs):
                    handler(args)
                return 0
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
