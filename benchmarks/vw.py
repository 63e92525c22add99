"""Vowpal Wabbit, the peer that ``linear_learners`` (``benchmarks/linear.py``) and ``peers``
(``benchmarks/peers.py``) both run: its arguments, the stream in its text format, its Python learn loop and its
own C++ driver (on the text file or on a cache file). Every function takes the imported ``vowpalwabbit`` module,
so that a machine without it runs the rest of a benchmark (:func:`available` says why it is missing).
"""

import gc
import time

VW_ARGS = "--loss_function hinge --binary --noconstant -b 18 --quiet"
"""Hinge loss, ±1 predictions (so ``sum_loss`` counts mistakes), no constant feature (olkit has no intercept),
2^18 hashed weights (more than any dataset's features), VW's default adaptive, normalised, invariant SGD."""
VW_CHUNK = 16384  # examples parsed (untimed) before each timed learn loop


def available():
    """None when ``import vowpalwabbit`` works, else ``"not installed: <reason>"``."""
    try:
        import vowpalwabbit  # noqa: F401

        return None
    except Exception as exc:  # noqa: BLE001
        return f"not installed: {type(exc).__name__}: {exc}"


def version():
    from importlib import metadata

    return metadata.version("vowpalwabbit")


def text_lines(X, y_pm, order):
    """The stream X[order] in VW's text format, one line per example: ``±1 |f j:value ...``."""
    indptr, idx, val = X.indptr, X.indices, X.data
    lines = []
    for t in order:
        lo, hi = indptr[t], indptr[t + 1]
        feats = " ".join(f"{j}:{v:.17g}" for j, v in zip(idx[lo:hi].tolist(), val[lo:hi].tolist()))
        lines.append(f"{int(y_pm[t])} |f {feats}")
    return lines


def write_text(path, lines):
    """The lines as a VW text file (values with 17 significant digits)."""
    with open(path, "w") as fh:
        fh.write("\n".join(lines))
        fh.write("\n")


def learn_only(vowpalwabbit, lines, raw, args=VW_ARGS):
    """One pass, the examples pre-parsed (untimed) in chunks of VW_CHUNK, then ``learn`` timed per chunk.

    raw=False times the public ``Workspace.learn(ex)``; raw=True the C++ binding it ends in
    (``pylibvw.vw.learn(ws, ex)``), without pyvw's Python-side type checks. The prediction VW stores in
    the example during ``learn`` is the one made before the update (progressive validation).
    """
    from vowpalwabbit import pyvw

    ws = vowpalwabbit.Workspace(args)
    learn = pyvw.pylibvw.vw.learn if raw else ws.learn
    seconds = 0.0
    parse_seconds = 0.0
    mistakes = 0
    for start in range(0, len(lines), VW_CHUNK):
        chunk = lines[start : start + VW_CHUNK]
        t0 = time.perf_counter()
        gc.disable()
        try:
            exs = [ws.parse(line) for line in chunk]
        finally:
            gc.enable()
        parse_seconds += time.perf_counter() - t0
        if raw:
            t0 = time.perf_counter()
            for ex in exs:
                learn(ws, ex)
            seconds += time.perf_counter() - t0
        else:
            t0 = time.perf_counter()
            for ex in exs:
                learn(ex)
            seconds += time.perf_counter() - t0
        for ex, line in zip(exs, chunk):
            label = 1.0 if line[0] != "-" else -1.0
            mistakes += (1.0 if ex.get_simplelabel_prediction() > 0 else -1.0) != label
            ws.finish_example(ex)
    ws.finish()
    return {"seconds": seconds, "python_parse_seconds": parse_seconds, "mistakes": int(mistakes)}


def call_overhead(vowpalwabbit, lines, args=VW_ARGS):
    """Time of a loop making one trivial pybind call per example (what a per-example Python loop costs
    before VW does any work)."""
    from vowpalwabbit import pyvw

    ws = vowpalwabbit.Workspace(args)
    exs = [ws.parse(line) for line in lines[:VW_CHUNK]]
    f = pyvw.pylibvw.example.get_simplelabel_label
    t0 = time.perf_counter()
    for ex in exs:
        f(ex)
    per_example = (time.perf_counter() - t0) / len(exs)
    for ex in exs:
        ws.finish_example(ex)
    ws.finish()
    return per_example


def driver(vowpalwabbit, data_args, args=VW_ARGS):
    """VW's own C++ driver, as the ``vw`` command line runs it, on the data ``data_args`` names
    (``-d file.vw`` for the text file; ``-d file.vw --cache_file file.cache`` reads the cache when it exists):
    pyvw runs the parser (VW's parser thread reading and parsing the input + learning) inside
    ``Workspace(args + ' ' + data_args)``, so that call is timed, and the construction of the same Workspace
    without data (set-up only) is timed next to it and subtracted (``seconds``). ``sum_loss`` with --binary is
    the progressive 0/1 loss, i.e. the mistakes."""
    t0 = time.perf_counter()
    empty = vowpalwabbit.Workspace(args)
    init = time.perf_counter() - t0
    empty.finish()
    c0 = time.process_time()
    t0 = time.perf_counter()
    ws = vowpalwabbit.Workspace(f"{args} {data_args}")
    total = time.perf_counter() - t0
    cpu = time.process_time() - c0
    if not ws.parser_ran:
        t0 = time.perf_counter()
        ws.run_parser()
        total += time.perf_counter() - t0
    out = {
        "seconds": max(total - init, 1e-9),
        "with_init_seconds": total,
        "init_seconds": init,
        "cpu_seconds_with_init": cpu,
        "mistakes": int(round(ws.get_sum_loss())),
        "examples": int(round(ws.get_weighted_examples())),
    }
    ws.finish()
    return out
