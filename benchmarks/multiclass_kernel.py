"""The multiclass kernel benchmark (``--only multiclass_kernel``): M-DUOL and multiclass PA-I on mnist and
letter, in the kernel benchmark's worker (:func:`kernel.worker_kernel`)."""

from harness import REPEATS, now_iso, run_worker, write_json
from kernel import kernel_table, one_line


def bench(quick):
    """M-DUOL and multiclass PA-I on the DUOL Table 4 datasets mnist and letter (σ = 8, C = 10):
    learning seconds and the ratio to the kernel-row lower bound measured in the same process."""
    started = now_iso()
    results = []
    datasets = ("letter",) if quick else ("mnist", "letter")
    for ds in datasets:
        for algo in ("duol", "pa1"):
            spec = {"name": f"{ds}/{algo}/random", "dataset": ds, "algorithm": algo, "order": "random", "seed": 0}
            print(f"  [multiclass_kernel] {spec['name']} ...", flush=True)
            r = run_worker(spec, "kernel")
            results.append(r)
            print("    " + one_line(r), flush=True)
    payload = {
        "settings": {
            "repeats": REPEATS,
            "kernel": "gaussian sigma=8",
            "C": "10 (paper's multiclass)",
            "block": 256,
            "blas_threads": 1,
        },
        "results": results,
    }
    path = write_json("multiclass_kernel", quick, started, payload)
    print(kernel_table(results))
    return path, results
