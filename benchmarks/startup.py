"""The start-up benchmark (``--only startup``): wall time of the process ``olkit run pa1 --data german``
(first run, then warm runs) and of ``python -c "import olkit"``; and of ``olkit run duol --data german
--repeats 1`` cold (an empty compile cache each run) and warm (``cli_duol``), against the import floor
(``python -c "import numpy, scipy.sparse, numba"``: what any run imports before olkit does anything), with
where a cold run's time goes (``cold_breakdown``: compile and LLVM CPU seconds from numba's compile
events, LLVM's pass timings of the block loop). With ``OLKIT_BENCH_BASELINE_SRC`` set to another checkout's
``src`` directory, every DUOL run is paired with the same run of that code (A/B in the same minutes).
Also the numba upgrade check's second half (``make test`` is the first).

``python benchmarks/startup.py --probe ARGS…`` is the in-process probe the breakdown runs (an olkit command
line with numba's compile events recorded; prints one JSON line).
"""

import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from harness import child_env, display_path, fmt, now_iso, sanitize, series, text_table, time_process, write_json

STARTUP_WARM_RUNS = 15
STARTUP_DUOL_ARGS = ["run", "duol", "--data", "german", "--repeats", "1"]
STARTUP_COLD_RUNS = 5
IMPORT_FLOOR = "import numpy, scipy.sparse, numba"
NUMBA_ONE_CALL_SCRIPT = """import numpy, scipy.sparse, numba


@numba.njit(cache=True)
def one(x):
    return x + 1


one(1)
"""
"""The import floor's imports and the first call of one cached compiled function, as a script (numba loads its
lowering registries and the cache machinery on a process's first compiled call, whatever the function). Not a
floor of olkit's warm run: measured above that run (1.9-2.1 s against 1.6 s, same minutes), for reasons not
known yet."""
BASELINE_ENV = "OLKIT_BENCH_BASELINE_SRC"
"""Another checkout's ``src`` directory: the DUOL cold and warm runs alternate with runs of that code (same
interpreter, ``PYTHONPATH`` pointing at it), so that both are measured in the same minutes."""


def bench(quick):
    """The CLI, ``import olkit`` and a bare interpreter, then DUOL cold and warm; writes startup.json."""
    started = now_iso()
    args = ["run", "pa1", "--data", "german"]
    candidates = []
    on_path = shutil.which("olkit")
    if on_path:
        candidates.append(("olkit on PATH", [on_path, *args], "olkit " + " ".join(args)))
    else:
        venv_script = Path(sys.executable).parent / "olkit"
        if venv_script.exists():
            candidates.append(
                (
                    "olkit console script of this environment (olkit is not on PATH)",
                    [str(venv_script), *args],
                    f"{display_path(venv_script)} " + " ".join(args),
                )
            )
    candidates.append(
        (
            "python -m olkit.cli",
            [sys.executable, "-m", "olkit.cli", *args],
            f"{display_path(sys.executable)} -m olkit.cli " + " ".join(args),
        )
    )
    attempts = []
    cli = None
    for label, cmd, shown in candidates:
        print(f"  [startup] {shown} ...", flush=True)
        attempt = series(cmd, STARTUP_WARM_RUNS)
        attempt.update(how=label, command=shown)
        attempts.append(attempt)
        if attempt["ok"]:
            cli = attempt
            break
        print(f"    failed (status {attempt['returncode']}): {attempt['stderr_tail'][-300:]}", flush=True)
    duol = _startup_duol(candidates)
    print("  [startup] python -c 'import olkit' ...", flush=True)
    imp = series([sys.executable, "-c", "import olkit"], STARTUP_WARM_RUNS)
    imp["command"] = f"{display_path(sys.executable)} -c 'import olkit'"
    base = series([sys.executable, "-c", "pass"], STARTUP_WARM_RUNS)
    base["command"] = f"{display_path(sys.executable)} -c 'pass'"
    print(f"  [startup] python -c '{IMPORT_FLOOR}' ...", flush=True)
    floor = series([sys.executable, "-c", IMPORT_FLOOR], STARTUP_WARM_RUNS)
    floor["command"] = f"{display_path(sys.executable)} -c '{IMPORT_FLOOR}'"
    if duol.get("ok") and floor.get("ok"):
        duol["warm_median_over_import_floor"] = duol["warm_median_seconds"] / floor["warm_median_seconds"]
        duol["warm_median_minus_import_floor_seconds"] = duol["warm_median_seconds"] - floor["warm_median_seconds"]
    print("  [startup] imports + one cached njit call ...", flush=True)
    numba_one_call = _numba_one_call()
    if duol.get("ok") and numba_one_call.get("ok"):
        duol["warm_median_over_numba_one_call"] = duol["warm_median_seconds"] / numba_one_call["warm_median_seconds"]
        duol["warm_median_minus_numba_one_call_seconds"] = (
            duol["warm_median_seconds"] - numba_one_call["warm_median_seconds"]
        )
    print("  [startup] cold breakdown (numba compile events) ...", flush=True)
    breakdown = _cold_breakdown()
    payload = {
        "settings": {
            "warm_runs": STARTUP_WARM_RUNS,
            "timing": "wall time of subprocess.run around the whole process",
            "first_run": "the first run of the series (cold-ish: OS file cache and numba cache as found)",
        },
        "cli": cli if cli else {"ok": False, "failure": "every way of running the CLI failed; see attempts"},
        "cli_attempts": attempts,
        "cli_duol": duol,
        "import_olkit": imp,
        "python_baseline": base,
        "import_floor": floor,
        "numba_one_call": numba_one_call,
        "cold_breakdown": breakdown,
    }
    path = write_json("startup", quick, started, payload)
    rows = []
    for label, s in (
        ("olkit run pa1 --data german", cli),
        ("python -c 'import olkit'", imp),
        (f"python -c '{IMPORT_FLOOR}'", floor),
        ("imports + one cached njit call (a script)", numba_one_call),
        ("python -c 'pass'", base),
    ):
        if s and s.get("ok"):
            rows.append([label, fmt(s["first_seconds"]), fmt(s["warm_median_seconds"]), fmt(s["warm_min_seconds"])])
        else:
            rows.append([label, "FAILED", "-", "-"])
    print(text_table(["process", "first s", "warm median s", "warm min s"], rows))
    if duol.get("ok"):
        print(
            text_table(
                ["process", "cold min s", "cold median s", "warm min s", "warm median s"],
                [
                    [
                        duol["command"],
                        fmt(duol["cold_min_seconds"]),
                        fmt(duol["cold_median_seconds"]),
                        fmt(duol["warm_min_seconds"]),
                        fmt(duol["warm_median_seconds"]),
                    ]
                ],
            )
        )
    else:
        print(f"olkit run duol: FAILED ({duol.get('failure')})")
    return path, payload


def _numba_one_call():
    """:data:`NUMBA_ONE_CALL_SCRIPT` as a file in a fresh directory (its cache beside it, filled by the first run,
    which the warm runs do not count)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="olkit-numba-one-call-") as tmp:
        script = Path(tmp) / "numba_one_call.py"
        script.write_text(NUMBA_ONE_CALL_SCRIPT)
        out = series([sys.executable, str(script)], STARTUP_WARM_RUNS)
    out["command"] = f"{display_path(sys.executable)} numba_one_call.py (benchmarks/startup.py NUMBA_ONE_CALL_SCRIPT)"
    return out


def _startup_duol(candidates):
    """``olkit run duol --data german --repeats 1``: cold (each run with its own empty compile cache,
    OLKIT_NUMBA_CACHE = a fresh directory: everything DUOL's run needs is compiled) and warm (a fixed
    cache directory, filled by one run that is not counted). With :data:`BASELINE_ENV` set, each run is
    followed by the same run of the baseline's code (its own cache directories), and the result holds both."""
    import tempfile

    module = [sys.executable, "-m", "olkit.cli"]
    baseline = os.environ.get(BASELINE_ENV)
    # With a baseline both sides run python -m olkit.cli: the console script imports the installed (editable)
    # olkit, PYTHONPATH only redirects python -m, and the launcher alone moved a cold run by 0.5-0.8 s here
    # (CPython 3.11 maps and unmaps 16 KiB chunks of its frame stack as the compile's recursion crosses their
    # boundaries, and how often depends on the stack's depth where olkit starts).
    console = (
        cmd[: -len(["run", "pa1", "--data", "german"])]
        for label, cmd, _ in candidates
        if label != "python -m olkit.cli"
    )
    exe = module if baseline else next(console, None) or module
    shown = ("olkit " if exe[0] != sys.executable else "python -m olkit.cli ") + " ".join(STARTUP_DUOL_ARGS)
    sides = {"this": [*exe, *STARTUP_DUOL_ARGS]}
    if baseline:
        sides["baseline"] = [*module, *STARTUP_DUOL_ARGS]
    out = {
        "command": shown,
        "cold_runs": STARTUP_COLD_RUNS,
        "warm_runs": STARTUP_WARM_RUNS,
        "cold": "each run with its own empty OLKIT_NUMBA_CACHE directory (the whole compile)",
        "warm": "one fixed OLKIT_NUMBA_CACHE directory, filled by a first run that is not counted",
    }
    if baseline:
        out["baseline_src"] = display_path(Path(baseline))
        out["pairing"] = "each run of this code is followed by the same run of the baseline's (A/B, same minutes)"

    def env_for(side, cache):
        env = child_env()
        env["OLKIT_NUMBA_CACHE"] = cache
        env.pop("NUMBA_CACHE_DIR", None)
        if side == "baseline":
            env["PYTHONPATH"] = os.pathsep.join(p for p in (baseline, env.get("PYTHONPATH")) if p)
        return env

    times = {side: {"cold": [], "warm": []} for side in sides}
    with tempfile.TemporaryDirectory(prefix="olkit-startup-") as root:
        for k in range(STARTUP_COLD_RUNS):
            for side, cmd in sides.items():
                print(f"  [startup] {shown} ({side}, cold {k + 1}/{STARTUP_COLD_RUNS}) ...", flush=True)
                t, rc, o, e = time_process(cmd, env=env_for(side, os.path.join(root, f"{side}-cold{k}")))
                if rc != 0:
                    return {**out, "ok": False, "failure": f"{side}: status {rc}", "stderr_tail": sanitize(e[-2000:])}
                times[side]["cold"].append(t)
        for side, cmd in sides.items():
            time_process(cmd, env=env_for(side, os.path.join(root, f"{side}-warm")))
        print(f"  [startup] {shown} (warm x{STARTUP_WARM_RUNS}) ...", flush=True)
        for _ in range(STARTUP_WARM_RUNS):
            for side, cmd in sides.items():
                t, rc, _o, _e = time_process(cmd, env=env_for(side, os.path.join(root, f"{side}-warm")))
                if rc == 0:
                    times[side]["warm"].append(t)
    out["ok"] = True
    out.update(_summary(times["this"]))
    if baseline:
        out["baseline"] = _summary(times["baseline"])
        out["cold_median_over_baseline"] = out["cold_median_seconds"] / out["baseline"]["cold_median_seconds"]
        out["warm_median_over_baseline"] = out["warm_median_seconds"] / out["baseline"]["warm_median_seconds"]
    return out


def _summary(times):
    cold, warm = times["cold"], times["warm"]
    return {
        "cold_seconds": cold,
        "cold_min_seconds": min(cold),
        "cold_median_seconds": statistics.median(cold),
        "warm_seconds": warm,
        "warm_min_seconds": min(warm) if warm else None,
        "warm_median_seconds": statistics.median(warm) if warm else None,
        "warm_failures": STARTUP_WARM_RUNS - len(warm),
    }


def _cold_breakdown():
    """One more cold ``olkit run duol`` in a process that records numba's compile events (:func:`probe`)."""
    import json
    import tempfile

    with tempfile.TemporaryDirectory(prefix="olkit-startup-probe-") as root:
        env = child_env()
        env["OLKIT_NUMBA_CACHE"] = root
        env.pop("NUMBA_CACHE_DIR", None)
        t, rc, o, e = time_process([sys.executable, __file__, "--probe", *STARTUP_DUOL_ARGS], env=env)
    if rc != 0:
        return {"ok": False, "failure": f"status {rc}", "stderr_tail": sanitize(e[-2000:])}
    return {"ok": True, "wall_seconds": t, **json.loads(o.strip().splitlines()[-1])}


def probe(argv):
    """Run the olkit command line ``argv`` in this process and print (one JSON line) where its CPU time went:
    importing olkit, the command, numba's compiles (the outermost compile's span, all functions, the CPU inside
    LLVM — numba's ``numba:llvm_lock`` event), the CPU of each compiled function's own work (its span less
    the compiles it started), and the shares of LLVM's pass groups for the block loop (numba's pass timings).
    CPU time (``time.process_time``), not wall time: the machine is shared."""
    import collections
    import json

    os.environ["NUMBA_LLVM_PASS_TIMINGS"] = "1"
    from numba.core import event

    clock = time.process_time
    stack, own, llvm = [], collections.Counter(), [0.0]
    outer = [0.0]

    class Compiles(event.Listener):
        def on_start(self, ev):
            disp = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
            stack.append([getattr(getattr(disp, "py_func", None), "__qualname__", "?"), clock(), 0.0])

        def on_end(self, ev):
            name, started, children = stack.pop()
            span = clock() - started
            own[name] += span - children
            if stack:
                stack[-1][2] += span
            else:
                outer[0] += span

    class Llvm(event.Listener):
        def on_start(self, ev):
            self.started = clock()

        def on_end(self, ev):
            llvm[0] += clock() - self.started

    event.register("numba:compile", Compiles())
    event.register("numba:llvm_lock", Llvm())
    c0 = clock()
    import olkit.cli

    c1 = clock()
    try:
        olkit.cli.main(argv)
    except SystemExit:
        pass
    c2 = clock()
    passes = {}
    for modname, module in list(sys.modules.items()):
        if modname.startswith("olkit_loop_"):  # olkit_loop_<template>_<digest>: the loop is module.<template>
            disp = getattr(module, modname[len("olkit_loop_") :].rsplit("_", 1)[0])
            for cres in disp.overloads.values():
                timings = cres.metadata.get("llvm_pass_timings") if cres.metadata else None
                if timings is None:
                    continue
                groups = collections.Counter()
                for rec in timings:
                    kind = rec.name.split(" on ")[0] if rec.name.startswith("Function passes") else rec.name
                    groups[kind] += rec.timings.get_total_time()
                total = sum(groups.values())
                passes[disp.py_func.__name__] = {k: round(v / total, 3) for k, v in groups.items()} if total else {}
    print(
        json.dumps(
            {
                "cpu_import_olkit_seconds": c1 - c0,
                "cpu_command_seconds": c2 - c1,
                "cpu_compile_seconds": outer[0],
                "cpu_llvm_seconds": llvm[0],
                "compiled_functions": len(own),
                "cpu_own_seconds_top": {k: round(v, 3) for k, v in own.most_common(12)},
                "llvm_pass_shares_of_the_loop": passes,
            }
        )
    )


if __name__ == "__main__":
    if sys.argv[1:2] != ["--probe"]:
        raise SystemExit("usage: startup.py --probe OLKIT-ARGS...  (the benchmark itself: benchmarks/run.py)")
    probe(sys.argv[2:])
