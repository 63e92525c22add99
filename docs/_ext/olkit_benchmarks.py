"""The benchmarks page of the site, generated from ``benchmarks/results/*.json`` (what ``make bench`` writes).

:func:`page` returns the Markdown text of ``docs/benchmarks.md``; the Sphinx extension
(:mod:`olkit_docs`) writes it at every build, so the numbers a reader sees are the numbers in the JSON files,
with the date, the command and the git commit each file records. Run as a script it prints the page::

    python docs/_ext/olkit_benchmarks.py [RESULTS_DIR]
"""

import json
import sys
from pathlib import Path

ORDER = [
    "kernel_learners",
    "dorothea",
    "multiclass_kernel",
    "budget_learners",
    "linear_learners",
    "peers",
    "startup",
    "sparse_check",
    "fuzz",
    "fuzz_models",
]

TITLES = {
    "kernel_learners": "Kernel learners against the kernel-row bound",
    "dorothea": "Wide sparse data (dorothea, never densified)",
    "multiclass_kernel": "Multiclass kernel learners",
    "budget_learners": "Budgeted learners",
    "linear_learners": "Linear learners against a plain compiled loop",
    "peers": "olkit against River, scikit-learn and Vowpal Wabbit",
    "startup": "Start-up time of the command line",
    "sparse_check": "Cost of the sparse-input check",
    "fuzz": "Fuzzing of the learners",
    "fuzz_models": "Fuzzing of the model files",
}


def _num(value, digits=3):
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value:
            return "nan"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value).replace("|", "\\|")


def _pct(value):
    return "–" if value is None else f"{100 * value:.2f}"


def _table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += [
        "| " + " | ".join(_num(c) if not isinstance(c, str) else c.replace("|", "\\|") for c in row) + " |"
        for row in rows
    ]
    return out + [""]


def _provenance(data, file):
    git = data.get("git") or {}
    machine = data.get("machine") or {}
    versions = machine.get("versions") or {}
    commit = git.get("commit") or data.get("commit")
    lines = [f"*Source*: `benchmarks/results/{file}`"]
    if data.get("date"):
        lines.append(f"*Date*: {data['date']}" + (f" (finished {data['finished']})" if data.get("finished") else ""))
    if commit:
        dirty = git.get("src_modified_files")
        lines.append(f"*Commit*: `{commit[:12]}`" + (f" ({dirty} modified files under src/)" if dirty else ""))
    if data.get("command"):
        lines.append(f"*Command*: `{data['command']}`")
    if machine:
        cpus = machine.get("cpus_usable", machine.get("cpu_count", "?"))
        lines.append(
            f"*Machine*: {machine.get('processor', '?')}, {cpus} "
            f"usable CPUs, {_num(machine.get('memory_gb'))} GB, Python {machine.get('python', '?')}"
            + (", " + ", ".join(f"{k} {v}" for k, v in versions.items()) if versions else "")
        )
    if data.get("quick"):
        lines.append("*Quick run* (`benchmarks/run.py --quick`): a subset of the configurations.")
    return [" \\\n".join(lines), ""]


def _kernel_rows(results, extra=False):
    header = [
        "configuration",
        "n",
        "#SV",
        "mistakes (%)",
        "seconds",
        "examples/s",
        "ratio_csr",
        "ratio_dense",
        "ratio_matching",
        "peak RSS (MB)",
    ]
    if extra:
        header.insert(9, "ratio to bound + expansion")
    rows = []
    for r in results:
        learner = r.get("learner") or {}
        if not learner:
            rows.append(
                [r.get("name", "?"), r.get("n"), "skipped: " + str(r.get("skipped", r.get("reason", "")))]
                + [None] * (len(header) - 3)
            )
            continue
        row = [
            r["name"],
            r.get("n"),
            learner.get("n_sv"),
            _pct(learner.get("mistake_rate")),
            learner.get("seconds"),
            learner.get("examples_per_second"),
            r.get("ratio_csr"),
            r.get("ratio_dense"),
            r.get("ratio_matching"),
            r.get("peak_rss_mb"),
        ]
        if extra:
            row.insert(9, r.get("ratio_to_bound_plus_expansion_floor"))
        rows.append(row)
    return _table(header, rows)


def _kernel(data):
    out = [
        "Every ratio is the learner's time divided by a lower bound measured in the same process: the time to",
        "compute the kernel rows the learner needs (`ratio_csr`: sparse products, `ratio_dense`: dense BLAS,",
        "`ratio_matching`: the bound for the storage the learner used). Best of 3, learning time only.",
        "",
    ]
    out += _kernel_rows(
        data.get("results", []), extra=any("ratio_to_bound_plus_expansion_floor" in r for r in data.get("results", []))
    )
    ref, kol = data.get("reference"), data.get("kol_comparison")
    if ref and kol:
        out += [f"**Peer**: {ref.get('text', '')}.", ""]
        rows = [
            [
                key.replace("_", " "),
                v.get("n"),
                v.get("n_sv"),
                v.get("seconds"),
                v.get("call_cpu_seconds"),
                v.get("ratio_to_kol_5.8s"),
                v.get("cpu_ratio_to_kol_5.8s"),
                v.get("bound_dense_over_kol_bound_0.78s"),
            ]
            for key, v in kol.items()
            if isinstance(v, dict)
        ]
        out += _table(
            [
                "run",
                "n",
                "#SV",
                "olkit seconds",
                "olkit CPU seconds",
                "olkit / KOL (wall)",
                "olkit / KOL (CPU)",
                "our bound / KOL's bound",
            ],
            rows,
        )
        if kol.get("note"):
            out += [kol["note"], ""]
    return out


def _budget(data):
    settings = data.get("settings") or {}
    out = [
        f"Setting: {settings.get('dataset', '')}; B = {settings.get('B')}, FOGD D = {settings.get('D_fogd')}, "
        f"σ = {settings.get('sigma')}. Bound: {settings.get('bound', '')}.",
        "",
    ]
    rows = [
        [
            r["name"],
            r.get("n"),
            _pct(r.get("mistake_rate")),
            r.get("n_sv"),
            r.get("learn_seconds"),
            r.get("examples_per_second"),
            r.get("ratio_to_bound"),
            r.get("flatness_after_fill"),
            r.get("peak_rss_mb"),
        ]
        for r in data.get("results", [])
    ]
    out += _table(
        [
            "configuration",
            "n",
            "mistakes (%)",
            "#SV",
            "seconds",
            "examples/s",
            "ratio to bound",
            "flatness after fill",
            "peak RSS (MB)",
        ],
        rows,
    )
    summary = data.get("summary") or {}
    if summary.get("kol_ratios"):
        out += [
            "**Peer** (KOL, the compiled C++ toolbox): olkit's time / KOL's time on the same run "
            "(below 1: olkit is faster).",
            "",
        ]
        out += _table(["learner", "olkit / KOL"], [[k, v] for k, v in summary["kol_ratios"].items()])
    return out


def _linear(data):
    results = [r for r in data.get("results", []) if r.get("group") != "vowpalwabbit"]
    out = [
        "The floor is a plain compiled loop of binary PA-I over the same CSR arrays and ordering",
        "(`benchmarks/linear.py`); the ratio is the learner's examples per second over the floor's, in the same",
        "process (1 = as fast as the plain loop). Targets: ≥ 0.5 first-order, ≥ 0.25 diagonal second-order.",
        "",
    ]
    columns = []
    for r in results:
        key = (r.get("group"), r.get("dataset"))
        if key not in columns:
            columns.append(key)
    learners = []
    table = {}
    for r in results:
        label = r["algorithm"] + (f" ({r['covariance']})" if r.get("covariance") else "")
        if label not in learners:
            learners.append(label)
        table[(label, (r.get("group"), r.get("dataset")))] = r.get("ratio_to_floor")
    header = ["learner"] + [f"{d} ({g.replace('_', ' ')})" for g, d in columns]
    out += _table(header, [[label] + [table.get((label, c)) for c in columns] for label in learners])
    rows = [
        [
            r["name"] + (f" ({r['covariance']})" if r.get("covariance") else ""),
            (r.get("learner") or {}).get("examples_per_second"),
            (r.get("floor") or {}).get("examples_per_second"),
            r.get("ratio_to_floor"),
            r.get("cpu_ratio_to_floor"),
            r.get("target"),
            r.get("meets_target"),
            r.get("peak_rss_mb"),
        ]
        for r in results
    ]
    out += ["All rows:", ""]
    out += _table(
        [
            "configuration",
            "learner examples/s",
            "floor examples/s",
            "ratio",
            "CPU ratio",
            "target",
            "meets",
            "peak RSS (MB)",
        ],
        rows,
    )
    vw = data.get("vowpalwabbit")
    peers = [r for r in data.get("results", []) if r.get("group") == "vowpalwabbit"]
    out += ["**Peer** (Vowpal Wabbit, the same streams): " + (vw if isinstance(vw, str) else "see below") + ".", ""]
    if peers and not isinstance(vw, str):
        rows = []
        for r in peers:
            vals = {k: v for k, v in r.items() if isinstance(v, dict)}
            rows.append(
                [r["name"]]
                + [
                    _num((vals.get(k) or {}).get("examples_per_second"))
                    for k in ("learn_only", "learn_only_raw", "driver")
                ]
            )
        out += _table(
            ["configuration", "learn_only examples/s", "learn_only_raw examples/s", "driver examples/s"], rows
        )
    return out


def _peers(data):
    settings = data.get("settings") or {}
    summary = data.get("summary") or {}
    out = [
        "One progressive pass (predict each example, then learn it) over the same stream (same ordering, labels",
        "±1, no intercept) in one process per dataset, olkit and the peer interleaved, best of the rounds of each",
        "(`benchmarks/peers.py`). *ratio* = olkit's examples/s over the peer's (above 1: olkit is faster); olkit's",
        "time is its learning time, *ratio, whole call* uses the whole `evaluate_online` call (input validation in).",
        "Vowpal Wabbit runs its own algorithm (hinge-loss adaptive SGD), so every olkit learner is compared",
        "with it. Rows with fewer examples ran on a prefix of the stream (their per-example rate is set against",
        "olkit's on the whole stream; the mistake rates are both on that prefix). scikit-learn's one-epoch `fit`",
        "is a batch call (no predictions): only its speed is comparable.",
        "",
    ]
    if summary:
        out += [
            f"Goals: ≥ {_num(summary.get('river_goal'))}× River — lowest ratio "
            f"{_num(summary.get('river_min_ratio'))}, rows meeting it {summary.get('river_rows_meeting_goal')}; "
            f"≥ {_num(summary.get('vw_driver_goal'))}× Vowpal Wabbit's driver at an equal or better mistake "
            "rate — rows where olkit's mistake rate is not worse: "
            f"{', '.join(summary.get('vw_driver_rows_olkit_mistake_rate_not_worse') or []) or 'none'}; "
            f"meeting the goal: {', '.join(summary.get('vw_driver_rows_meeting_goal') or []) or 'none'}.",
            "",
        ]
    rows = [
        [
            r["peer"],
            r["mode"],
            r["dataset"],
            r["learner"],
            r.get("examples_per_second"),
            _pct(r.get("mistake_rate")),
            r.get("olkit_examples_per_second"),
            _pct(r.get("olkit_mistake_rate")),
            r.get("ratio"),
            r.get("ratio_whole_call"),
            r.get("prefix") or "all",
        ]
        for r in data.get("rows", [])
    ]
    out += _table(
        [
            "peer",
            "mode",
            "dataset",
            "learner",
            "peer examples/s",
            "peer mistakes (%)",
            "olkit examples/s",
            "olkit mistakes (%)",
            "ratio",
            "ratio, whole call",
            "examples",
        ],
        rows,
    )
    unavailable = data.get("unavailable") or []
    if unavailable:
        out += ["Not run:", ""]
        out += [
            f"* {u.get('dataset', '')} {u.get('peer')} / {u.get('learner')}: {_num(u.get('status'))}"
            for u in unavailable
        ]
        out += [""]
    for key in ("intercept", "ties", "kernel", "kernel_peers_searched"):
        if settings.get(key):
            out += [f"*{key.replace('_', ' ').capitalize()}*: {_num(settings[key])}.", ""]
    return out


def _startup(data):
    rows = []
    for key in ("cli", "cli_duol", "import_olkit", "import_floor", "numba_one_call", "python_baseline"):
        v = data.get(key)
        if not isinstance(v, dict):
            continue
        rows.append(
            [
                f"`{v.get('command', key)}`",
                v.get("first_seconds", v.get("cold_median_seconds")),
                v.get("warm_median_seconds"),
                v.get("warm_min_seconds"),
            ]
        )
    out = _table(["process", "first / cold (s)", "warm median (s)", "warm min (s)"], rows)
    cold = data.get("cold_breakdown")
    if isinstance(cold, dict) and cold.get("ok"):
        out += [
            "",
            f"*A cold DUOL run's CPU* (numba's compile events): command {_num(cold.get('cpu_command_seconds'))} s, "
            f"of which compiling {_num(cold.get('cpu_compile_seconds'))} s ({cold.get('compiled_functions')} "
            f"functions), inside LLVM {_num(cold.get('cpu_llvm_seconds'))} s.",
            "",
        ]
    return out


def _sparse_check(data):
    rows = [
        [
            f"{r.get('dataset')}/{r.get('algorithm')}",
            r.get("rows"),
            r.get("learning_seconds"),
            r.get("check_share_percent"),
            r.get("validate_X_share_percent"),
        ]
        for r in data.get("results", [])
    ]
    return _table(
        ["configuration", "rows", "learning seconds", "check (% of learning)", "validation (% of learning)"], rows
    )


def _fuzz(data):
    counts = data.get("counts") or {}
    out = [
        f"`{data.get('command', '')}`: {_num(data.get('runs', data.get('files')))} runs in "
        f"{_num(data.get('seconds'))} s.",
        "",
    ]
    out += _table(["outcome", "count"], [[k, v] for k, v in counts.items()])
    for key in ("acceptance", "acceptance_issue21"):
        if isinstance(data.get(key), dict):
            out += _table([key.replace("_", " "), "value"], [[k, v] for k, v in data[key].items()])
    return out


RENDER = {
    "kernel_learners": _kernel,
    "dorothea": _kernel,
    "multiclass_kernel": _kernel,
    "budget_learners": _budget,
    "linear_learners": _linear,
    "peers": _peers,
    "startup": _startup,
    "sparse_check": _sparse_check,
    "fuzz": _fuzz,
    "fuzz_models": _fuzz,
}


def page(results_dir):
    """The Markdown text of the benchmarks page for the JSON files in ``results_dir``."""
    results_dir = Path(results_dir)
    files = {p.stem: p for p in sorted(results_dir.glob("*.json"))}
    names = [n for n in ORDER if n in files] + sorted(n for n in files if n not in ORDER and not n.endswith("_quick"))
    out = [
        "% Generated by docs/_ext/olkit_benchmarks.py from benchmarks/results/*.json at build time: do not edit.",
        "",
        "# Benchmarks",
        "",
        "These tables are rendered from the JSON files that `make bench` (`benchmarks/run.py`) writes to",
        "`benchmarks/results/`, when the site is built: the numbers here are the numbers of those files. Each",
        "section names its file, its date, the commit it measured and the machine. `benchmarks/README.md` in the",
        "repository describes every benchmark and every field. The machine has 2 shared cores, so compare ratios",
        "measured in one process rather than absolute seconds across runs.",
        "",
    ]
    if not names:
        return "\n".join(out + ["No results yet: run `make bench`.", ""])
    for name in names:
        if name.endswith("_quick") and name[: -len("_quick")] in files:
            continue  # a full run exists: the quick one is not shown
        try:
            data = json.loads(files[name].read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            out += [f"## {name}", "", f"`{files[name].name}` could not be read: {exc}.", ""]
            continue
        base = name[: -len("_quick")] if name.endswith("_quick") else name
        out += [f"## {TITLES.get(base, name.replace('_', ' '))}", ""]
        out += _provenance(data, files[name].name)
        render = RENDER.get(base)
        if render is not None:
            try:
                out += render(data)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a new JSON layout: say so, build on
                out += [f"(This file's layout is not rendered: {type(exc).__name__}: {exc}.)", ""]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    sys.stdout.write(page(sys.argv[1] if len(sys.argv) > 1 else root / "benchmarks" / "results"))
