#!/usr/bin/env python
"""Cost of the structural check of sparse input (issue 21, item 2) as a share of learning time.

Every ``fit`` / ``partial_fit`` / ``predict`` / :func:`olkit.evaluate_online` call checks its sparse input
at O(nnz) (:func:`olkit.sparse_check.check_sparse_structure`: index arrays consistent, every index inside
the matrix). This measures, in one process and on the same CSR matrix, the time of that check against
the learning time of one pass (``OnlineResult.seconds``) of pa1 (linear), scw1 (diagonal covariance) and
duol (Gaussian kernel; on the first ``--duol-rows`` rows, the check timed on that same prefix). Every
timing is the best of ``--repeats``. Target: check / learning < 2 %. For context, the whole input validation
(``_validate_X``: the check, float64 conversion, the finiteness test, and a sorted copy when the rows' indices
are not in canonical order, e.g. the catalog's dorothea) is timed too.

    .venv/bin/python benchmarks/sparse_check.py      # a9a, w8a, ijcnn1, dorothea -> results/sparse_check.json
"""

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import RESULTS, child_env, git_info, machine_info  # noqa: E402

DATASETS = ("a9a", "w8a", "ijcnn1", "dorothea")
LEARNERS = (("pa1", {"kernel": "linear"}, None), ("scw1", {"covariance": "diagonal"}, None), ("duol", {}, "duol_rows"))


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(name, args):
    import olkit
    from olkit.sparse_check import check_sparse_structure

    X, y = olkit.load_dataset(name)
    X = X.tocsr()
    rows = []
    for algo, params, prefix in LEARNERS:
        Xp, yp = (X[: args.duol_rows], y[: args.duol_rows]) if prefix else (X, y)
        learners = [olkit.make(algo, **params) for _ in range(args.repeats)]
        # evaluate_online's seconds are learning time only (validation and compilation come before the clock)
        learn = min(olkit.evaluate_online(learner, Xp, yp).seconds for learner in learners)
        learner = learners[0]
        check = best(lambda Xp=Xp: check_sparse_structure(Xp), args.repeats * 3)
        validate = best(lambda Xp=Xp, learner=learner: learner._validate_X(Xp, reset=False), args.repeats * 3)
        rows.append(
            {
                "dataset": name,
                "algorithm": algo,
                "params": params,
                "rows": Xp.shape[0],
                "features": Xp.shape[1],
                "nnz": int(Xp.nnz),
                "learning_seconds": learn,
                "check_seconds": check,
                "validate_X_seconds": validate,
                "check_share_percent": 100 * check / learn,
                "validate_X_share_percent": 100 * validate / learn,
            }
        )
        r = rows[-1]
        print(
            f"{name:<9} {algo:<5} rows {r['rows']:>6} nnz {r['nnz']:>8}  learning {learn * 1e3:9.2f} ms  "
            f"check {check * 1e3:7.3f} ms ({r['check_share_percent']:.3f} %)  "
            f"_validate_X {validate * 1e3:7.3f} ms ({r['validate_X_share_percent']:.3f} %)",
            flush=True,
        )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--duol-rows", type=int, default=5000, help="rows of DUOL's prefix (default 5000)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS / "sparse_check.json"))
    args = parser.parse_args(argv)
    os.environ.update({k: v for k, v in child_env().items() if k == "OLKIT_DATA"})
    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    load = list(os.getloadavg())
    rows = [r for name in args.datasets.split(",") for r in measure(name, args)]
    command = " ".join(["benchmarks/sparse_check.py", *sys.argv[1:]])
    doc = {
        "benchmark": "sparse_check",
        "date": started,
        "command": command,
        "machine": machine_info(),
        "git": git_info(),
        "load_average_start_end": [load, list(os.getloadavg())],
        "target_share_percent": 2.0,
        "max_check_share_percent": max(r["check_share_percent"] for r in rows),
        "max_validate_X_share_percent": max(r["validate_X_share_percent"] for r in rows),
        "results": rows,
    }
    out = Path(args.out)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    os.replace(tmp, out)
    print(
        f"max check share {doc['max_check_share_percent']:.3f} % (target < 2 %); "
        f"whole _validate_X {doc['max_validate_X_share_percent']:.3f} %; {out}"
    )


if __name__ == "__main__":
    main()
