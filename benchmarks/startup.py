"""The start-up benchmark (``--only startup``): wall time of the process ``olkit run pa1 --data german``
(first run, then warm runs) and of ``python -c "import olkit"``; and of ``olkit run duol --data german
--repeats 1`` cold (an empty compile cache each run) and warm (``cli_duol``). Also the numba upgrade
check's second half (``make test`` is the first).
"""

import os
import shutil
import statistics
import sys
from pathlib import Path

from harness import child_env, display_path, fmt, now_iso, sanitize, series, text_table, time_process, write_json

STARTUP_WARM_RUNS = 15
STARTUP_DUOL_ARGS = ["run", "duol", "--data", "german", "--repeats", "1"]
STARTUP_COLD_RUNS = 3


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
    }
    path = write_json("startup", quick, started, payload)
    rows = []
    for label, s in (
        ("olkit run pa1 --data german", cli),
        ("python -c 'import olkit'", imp),
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


def _startup_duol(candidates):
    """``olkit run duol --data german --repeats 1``: cold (each run with its own empty compile cache,
    OLKIT_NUMBA_CACHE = a fresh directory: everything DUOL's run needs is compiled) and warm (a fixed
    cache directory, filled by one run that is not counted)."""
    import tempfile

    exe = next(
        (
            cmd[: -len(["run", "pa1", "--data", "german"])]
            for label, cmd, shown in candidates
            if label != "python -m olkit.cli"
        ),
        None,
    ) or [sys.executable, "-m", "olkit.cli"]
    shown = ("olkit " if exe[0] != sys.executable else "python -m olkit.cli ") + " ".join(STARTUP_DUOL_ARGS)
    cmd = [*exe, *STARTUP_DUOL_ARGS]
    out = {
        "command": shown,
        "cold_runs": STARTUP_COLD_RUNS,
        "warm_runs": STARTUP_WARM_RUNS,
        "cold": "each run with its own empty OLKIT_NUMBA_CACHE directory (the whole compile)",
        "warm": "one fixed OLKIT_NUMBA_CACHE directory, filled by a first run that is not counted",
    }
    with tempfile.TemporaryDirectory(prefix="olkit-startup-") as root:
        cold = []
        for k in range(STARTUP_COLD_RUNS):
            env = child_env()
            env["OLKIT_NUMBA_CACHE"] = os.path.join(root, f"cold{k}")
            env.pop("NUMBA_CACHE_DIR", None)
            print(f"  [startup] {shown} (cold {k + 1}/{STARTUP_COLD_RUNS}) ...", flush=True)
            t, rc, o, e = time_process(cmd, env=env)
            if rc != 0:
                return {**out, "ok": False, "failure": f"status {rc}", "stderr_tail": sanitize(e[-2000:])}
            cold.append(t)
        env = child_env()
        env["OLKIT_NUMBA_CACHE"] = os.path.join(root, "warm")
        env.pop("NUMBA_CACHE_DIR", None)
        time_process(cmd, env=env)
        print(f"  [startup] {shown} (warm x{STARTUP_WARM_RUNS}) ...", flush=True)
        warm = [t for t, rc, _o, _e in (time_process(cmd, env=env) for _ in range(STARTUP_WARM_RUNS)) if rc == 0]
    out.update(
        ok=True,
        cold_seconds=cold,
        cold_min_seconds=min(cold),
        cold_median_seconds=statistics.median(cold),
        warm_seconds=warm,
        warm_min_seconds=min(warm) if warm else None,
        warm_median_seconds=statistics.median(warm) if warm else None,
        warm_failures=STARTUP_WARM_RUNS - len(warm),
    )
    return out
