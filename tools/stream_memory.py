#!/usr/bin/env python
"""Acceptance measurement of issue 10, item 6 (out-of-core streams): peak memory of a streamed run.

Generates a LIBSVM file of --rows rows (default 2,000,000; in /tmp unless --file), then runs, each in its own
process (peak RSS from os.wait4, i.e. the child's own maximum resident set size):

* streamed:  ``olkit run ALGO --data FILE --stream [--chunk-size N] --format json``
* in memory: ``olkit run ALGO --data FILE --order IDENTITY --format json`` (the same file order, loaded whole)
* baseline:  the streamed command on a 1,000-row file (interpreter, numba, SciPy: the fixed cost)

and prints the peak RSS and the mistakes / updates of both (they must be equal). The parsed-file cache is
off (OLKIT_CACHE_DIR=off) so that both runs parse the text.

    .venv/bin/python tools/stream_memory.py [--rows 2000000] [--algo scw1] [--chunk-size 100000] [--keep]
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def generate(path, rows, d=200, per_row=12, seed=0, block=100_000):
    """A binary problem with labels -1/+1, ``per_row`` sparse features of ``d`` per row, written in blocks."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    fmt = "%d " + " ".join(["%d:%.4f"] * per_row) + "\n"
    with open(path, "w") as fh:
        for start in range(0, rows, block):
            m = min(block, rows - start)
            idx = np.sort(np.argsort(rng.random((m, d)), axis=1)[:, :per_row], axis=1)
            val = rng.normal(size=(m, per_row))
            label = np.where((w[idx] * val).sum(1) + 0.5 * rng.normal(size=m) >= 0, 1, -1)
            cols = np.empty((m, 1 + 2 * per_row), dtype=object)
            cols[:, 0] = label
            cols[:, 1::2] = idx + 1
            cols[:, 2::2] = val
            fh.write("".join(fmt % tuple(row) for row in cols))


def measure(cmd):
    """(peak RSS in MiB, stdout, seconds) of ``cmd`` run in a child process."""
    env = dict(os.environ, OLKIT_CACHE_DIR="off")
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()}")
    return usage.ru_maxrss / 1024, out.decode(), seconds  # ru_maxrss is in KiB on Linux


def main():
    if sys.argv[1:2] == ["--generate"]:
        generate(sys.argv[2], int(sys.argv[3]), seed=int(sys.argv[4]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--algo", default="scw1")
    ap.add_argument("--chunk-size", type=int, default=100_000)
    ap.add_argument("--file", default=None, help="LIBSVM file to write (default /tmp/olkit-stream-ROWS.libsvm)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    args = ap.parse_args()
    path = args.file or f"/tmp/olkit-stream-{args.rows}.libsvm"
    small, order = path + ".small", path + ".order"
    olkit = [sys.executable, "-m", "olkit"]
    t = time.perf_counter()
    # generated in a child process: Linux keeps a forked child's peak RSS from its parent's pages, so this
    # process must stay small for the measures below to be the commands' own
    me = os.path.abspath(__file__)
    for file, rows, seed in ((path, args.rows, 0), (small, 1000, 1)):
        subprocess.run([sys.executable, me, "--generate", file, str(rows), str(seed)], check=True)
    with open(order, "w") as fh:
        fh.write("\n".join(map(str, range(args.rows))) + "\n")
    print(
        f"{path}: {args.rows} rows, {os.path.getsize(path) / 2**20:.0f} MiB of text "
        f"(generated in {time.perf_counter() - t:.0f} s)"
    )
    try:
        base, _, _ = measure(olkit + ["run", args.algo, "--data", small, "--stream", "--format", "json"])
        s_rss, s_out, s_sec = measure(
            olkit
            + ["run", args.algo, "--data", path, "--stream", "--chunk-size", str(args.chunk_size), "--format", "json"]
        )
        m_rss, m_out, m_sec = measure(olkit + ["run", args.algo, "--data", path, "--order", order, "--format", "json"])
    finally:
        if not args.keep:
            for f in (path, small, order):
                if os.path.exists(f):
                    os.remove(f)
    s = json.loads(s_out)["results"][0]
    m = json.loads(m_out)["results"][0]["runs"][0]
    print(f"{'run':34s} {'peak RSS (MiB)':>14s} {'mistakes':>9s} {'updates':>9s} {'wall (s)':>9s}")
    print(f"{'baseline (1,000 rows, --stream)':34s} {base:14.0f}")
    print(
        f"{f'--stream --chunk-size {args.chunk_size}':34s} {s_rss:14.0f} {s['mistakes']:9d} {s['n_updates']:9d} "
        f"{s_sec:9.1f}"
    )
    print(f"{'in memory (file order, --order)':34s} {m_rss:14.0f} {m['mistakes']:9d} {m['n_updates']:9d} {m_sec:9.1f}")
    same = (s["mistakes"], s["n_updates"], s["n_sv"]) == (m["mistakes"], m["n_updates"], m["n_sv"])
    print(
        f"same mistakes, updates and #SV: {same}; streamed peak above baseline: {s_rss - base:.0f} MiB, "
        f"in memory: {m_rss - base:.0f} MiB"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
