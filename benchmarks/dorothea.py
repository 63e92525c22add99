"""The dorothea benchmark (``--only dorothea``): the kernel benchmark's learners on dorothea's 100,000
sparse features, in the kernel benchmark's worker (:func:`kernel.worker_kernel`), CSR only."""

from harness import REPEATS, now_iso, run_worker, write_json
from kernel import kernel_table, one_line


def bench(quick):
    """duol, pa1, perceptron on dorothea (100,000 sparse features), CSR only (never densified)."""
    started = now_iso()
    results = []
    for algo in ("duol", "pa1", "perceptron"):
        spec = {
            "name": f"dorothea/{algo}/random",
            "dataset": "dorothea",
            "algorithm": algo,
            "order": "random",
            "seed": 0,
            "never_densify": True,
        }
        print(f"  [dorothea] {spec['name']} ...", flush=True)
        r = run_worker(spec, "kernel")
        results.append(r)
        print("    " + one_line(r), flush=True)
    payload = {
        "settings": {"repeats": REPEATS, "kernel": "gaussian sigma=8", "C": 5, "input": "CSR, never densified"},
        "results": results,
    }
    path = write_json("dorothea", quick, started, payload)
    print(kernel_table(results))
    return path, results
