"""The Markdown page of a reproduction (``olkit.experiment.reproduce``): the header and protocol, the
acceptance summary (``olkit.experiment.acceptance``), a section per dataset (our mean ± std beside the
paper's), and the analyses (sweeps, comparisons, diagnostics, §5.4's ρ table). The budgeted-learner parts
are in ``olkit.experiment.budget_report``.

Everything here reads the documents a run made (or its saved JSON); nothing runs a learner, so a page can
be written again from its JSON (``--render-only``). It lives in ``olkit.experiment``, not in
``olkit.report``: it reads the config helpers and statistics of this package, and ``experiment`` already
imports ``report`` (the plots), so a page module under ``report`` would close an import cycle
(``tests/test_import_cycles.py``).
"""

import datetime
import os
import platform

import numpy as np

from ..data import CATALOG
from .acceptance import acceptance
from .budget_report import budget_comparison_section, budget_dataset_section, diagnostic_section, grid_label, pname
from .config import available_algorithms, paper_values
from .runner import failure_text
from .stats import best_by_ttest, paired_ttest

COUNT_LABELS = {"n_sv": "#SV", "n_updates": "#updates"}


def _fmt(mean, std, digits):
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def _fmt_value(v):
    """A swept value: 2^k for powers of two (the C grids), else as is."""
    if v > 0 and float(np.log2(v)).is_integer() and v != 1 and (v < 1 or v > 2):
        return f"2^{int(np.log2(v))}"
    return f"{v:g}"


def dataset_section(doc, paper, fig_rel, config):
    if config.get("count") == "budget":  # budgeted learners: B|D beside the paper's (budget_report)
        not_run = {**not_run_reasons(config), **{r["algorithm"]: "failed, see below" for r in doc.get("failed", [])}}
        return budget_dataset_section(
            doc,
            paper,
            paper_values(config["paper"], meta=True) if config.get("paper") else {},
            config,
            not_run,
            len(doc["results"][0]["runs"]),
        )
    count = config.get("count", "n_sv")
    label = COUNT_LABELS[count]
    lines = [f"### {doc['dataset']} ({doc['n_examples']} × {doc['n_features']})", ""]
    spec = CATALOG.get(doc["dataset"])
    if spec is not None and spec.notes:
        lines += [f"Data: {spec.notes}", ""]
    tuned = [r for r in doc["results"] if r.get("tuning")]
    if tuned:
        chosen = "; ".join(
            f"{r['algorithm']}: "
            + ", ".join(f"{k}={r['params'][k]:g}" for k in dict.fromkeys(t["parameter"] for t in r["tuning"]))
            for r in tuned
        )
        lines += [
            f"Selected parameters (one pass per candidate on ordering seed:{config.get('seed', 0)}): {chosen}.",
            "",
        ]
    bold = best_by_ttest(doc["results"]) if config.get("bold_best") else set()
    lines += [
        f"| Algorithm | Mistake (%) ours | paper | Δ (points) | {label} ours | paper | Δ | Time (s) ours | paper |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    ref = paper.get(doc["dataset"], {})
    for r in doc["results"]:
        m, s = 100 * r["mean"]["mistake_rate"], 100 * r["std"]["mistake_rate"]
        c, cs = r["mean"][count], r["std"][count]
        p = ref.get(r["algorithm"])
        if p:
            pm = _fmt(*p["mistake_pct"], 3)
            dm = f"{m - p['mistake_pct'][0]:+.3f}"
            pc = _fmt(*p[count], 2)
            dc = f"{c - p[count][0]:+.1f}"
            pt = f"{p['seconds']:.3f}"
        else:
            pm = dm = pc = dc = pt = "—"
        ours = _fmt(m, s, 3)
        if r["algorithm"] in bold:
            ours = f"**{ours}**"
        lines.append(
            f"| {r['algorithm']} | {ours} | {pm} | {dm} | {_fmt(c, cs, 2)} | {pc} | {dc} | "
            f"{r['mean']['seconds']:.3f} | {pt} |"
        )
    if bold:
        lines += [
            "",
            "Bold: the lowest mean mistake rate and every algorithm not significantly different from it "
            "(paired t-test over the orderings, 95%).",
        ]
    lines += ["", f"![online mistake rate on {doc['dataset']}]({fig_rel})", ""]
    return lines


def failed_lines(failed):
    """The failed results of a dataset's table (:func:`run_dataset`): algorithm, parameters and why."""
    if not failed:
        return []
    return (
        ["Failed runs (left out of the table above; everything else ran):", ""]
        + [f"- **{r['algorithm']}** {r['params']}: {failure_text(r)}" for r in failed]
        + [""]
    )


def not_run_reasons(config):
    """{algorithm: why it is not on the page} for the config's optional algorithms this build lacks."""
    _, absent = available_algorithms(config, config["algorithms"])
    return {a: "not in this build's registry" for a in absent}


def comparison_section(name, section, table, paper):
    algos = list(section["algorithms"])
    first = next(iter(table.values()))
    ref = algos[0]
    lines = [f"## {section.get('title', name)}", ""]
    if section.get("text"):
        lines += [section["text"].strip(), ""]
    lines += [
        f"{first['orderings']} orderings per dataset (the first {first['orderings']} of the table's); runs of "
        f"{', '.join(first['reused']) or 'no algorithm'} are the table's own. Settings: "
        + "; ".join(f"{a} {first['rows'][a]['params']}" for a in algos)
        + ". Mean ± std over the orderings; "
        f"Δ = algorithm − {ref} (points); p: paired two-sided t-test over the orderings; "
        f"'{ref} lower' counts the orderings where {ref} errs less.",
        "",
    ]
    head = ["dataset"] + [f"{a} mistake (%)" for a in algos]
    for a in algos[1:]:
        head += [f"Δ {a}", "p", f"{ref} lower"]
    if paper:
        head.append(f"{ref} paper (Table 2)")
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for dataset, doc in table.items():
        cells = [dataset] + [_fmt(*doc["rows"][a]["mistake_pct"], 3) for a in algos]
        for a in algos[1:]:
            v = doc["versus"][a]
            cells += [f"{v['mean_diff']:+.3f}", f"{v['p_value']:.2g}", f"{v['reference_better']}/{doc['orderings']}"]
        if paper:
            p = paper.get(dataset, {}).get(ref, {}).get("mistake_pct")
            cells.append(_fmt(*p, 3) if p else "—")
        lines.append("| " + " | ".join(cells) + " |")
    diag = [
        k
        for k in ("double_updates", "strong_double_updates", "weak_double_updates")
        if all(k in doc["rows"][a].get("diagnostics", {}) for doc in table.values() for a in algos)
    ]
    labels = {
        "double_updates": "double updates",
        "strong_double_updates": "strong (M_d^s)",
        "weak_double_updates": "weak (M_d^w)",
    }
    cols = [("#SV", lambda r: _fmt(*r["n_sv"], 1)), ("mistakes", lambda r: f"{r['mistakes']:.1f}")]
    cols += [(labels[k], lambda r, k=k: _fmt(*r["diagnostics"][k], 1)) for k in diag]
    lines += ["", "| dataset | algorithm | " + " | ".join(c for c, _ in cols) + " |", "|---|---|" + "---|" * len(cols)]
    for dataset, doc in table.items():
        for a in algos:
            lines.append(f"| {dataset} | {a} | " + " | ".join(f(doc["rows"][a]) for _, f in cols) + " |")
    if diag:
        lines += [
            "",
            "Double updates: margin-error rounds on which an auxiliary SV was updated too; strong and weak "
            "(JMLR Theorem 4) are counted on mistake rounds only "
            "(docs/algorithms/duol.md#strong-and-weak-double-updates).",
        ]
    return lines + [""]


def sweep_claims_duol(table):
    """JMLR §5.3's statements about Figure 3, checked on our C sweep, one row per dataset."""
    lines = [
        "| dataset | DUOL vs DUOL_rand | DUOL vs DUOL_iter | DUOL vs DUOL_appr | DUOL lowest of all | "
        "DUOL's best C (mistake %) | DUOL at the largest C (lowest of all?) | paper: DUOL's best C |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for dataset, sw in table.items():
        algos = sw["algorithms"]
        if "duol" not in algos:
            continue
        duol = [r["mistake_pct"][0] for r in algos["duol"]]
        n = len(duol)

        def versus(other, algos=algos):
            if other not in algos:
                return "—"
            # lower / equal (identical runs) / higher mean, and whether significant (paired t-test)
            res = [
                paired_ttest(d["mistake_pct_runs"], o["mistake_pct_runs"]) for d, o in zip(algos["duol"], algos[other])
            ]
            count = {s: sum(1 for t in res if t.sign == s) for s in (-1, 0, 1)}
            sig = {s: sum(1 for t in res if t.sign == s and t.significant()) for s in (-1, 1)}
            return f"{count[-1]}–{count[0]}–{count[1]} (sig. {sig[-1]}–{sig[1]})"

        refs = [r["mistake_pct"][0] for r in sw["reference"].values()]
        lowest = [
            all(d <= rows[i]["mistake_pct"][0] for rows in algos.values()) and all(d <= x for x in refs)
            for i, d in enumerate(duol)
        ]
        best = int(np.argmin(duol))
        expect = "smaller C better" if dataset in ("german", "w7a") else "large C (> 10)"
        lines.append(
            f"| {dataset} | {versus('duol-rand')} | {versus('duol-iter')} | {versus('duol-appr')} | "
            f"{sum(lowest)}/{n} | {_fmt_value(sw['values'][best])} ({duol[best]:.3f}) | "
            f"{_fmt_value(sw['values'][-1])}: {duol[-1]:.3f} ({'yes' if lowest[-1] else 'no'}) | {expect} |"
        )
    return lines + [
        "",
        "DUOL vs X: at how many grid values DUOL's mean mistake rate is lower–equal (identical runs)–"
        "higher than X's, and in parentheses how many of the lower and higher are significant (paired "
        "t-test over the orderings, 95%). Lowest of all: DUOL's mean is at most every swept and "
        "reference algorithm's at that C.",
    ]


def sweep_section(name, section, table):
    first = next(iter(table.values()))
    parameter, values = first["parameter"], first["values"]
    swept = list(first["algorithms"])
    reference = list(first["reference"])
    grid = ", ".join(_fmt_value(v) for v in values)
    lines = [f"## {section.get('title', name)}", ""]
    if section.get("text"):
        lines += [section["text"].strip(), ""]
    lines += [
        f"Grid (ours): {parameter} ∈ {{{grid}}} ({len(values)} values). "
        + (f"The paper's grid: {section['paper_grid']}. " if section.get("paper_grid") else "")
        + f"{first['orderings']} orderings per value: the first {first['orderings']} of the table's, so every "
        f"point is on the same permutations. Other parameters as in the table. Swept: {', '.join(swept)}. "
        + (
            f"Shown as flat reference lines (no parameter {parameter}; table settings, same orderings): "
            f"{', '.join(reference)}. "
            if reference
            else ""
        )
        + f"Wall clock ({os.cpu_count()} CPUs, shared): "
        + ", ".join(f"{d} {doc['seconds']:.0f} s" for d, doc in table.items())
        + f"; total {sum(doc['seconds'] for doc in table.values()):.0f} s.",
        "",
    ]
    if first.get("inherited") or first.get("parameter_of") or first.get("not_run"):
        lines += [
            " ".join(
                filter(
                    None,
                    [
                        (
                            "Swept as "
                            + ", ".join(f"{a}'s {p}" for a, p in first["parameter_of"].items())
                            + f" = {parameter}."
                            if first.get("parameter_of")
                            else ""
                        ),
                        (
                            "The values selected in hindsight for the table are kept at every point (per dataset): "
                            + "; ".join(
                                f"{d}: "
                                + ", ".join(
                                    f"{a} " + ", ".join(f"{pname(k)} = {v:.4g}" for k, v in sel.items())
                                    for a, sel in doc.get("inherited", {}).items()
                                )
                                for d, doc in table.items()
                                if doc.get("inherited")
                            )
                            + "."
                            if any(doc.get("inherited") for doc in table.values())
                            else ""
                        ),
                        (
                            f"Not run (not in this build): {', '.join(first['not_run'])}."
                            if first.get("not_run")
                            else ""
                        ),
                    ],
                )
            ),
            "",
        ]
    if section.get("claims") == "duol_fig3":
        lines += ["### What §5.3 says about Figure 3, checked", ""] + sweep_claims_duol(table) + [""]
    lines += [
        f"### Best {parameter} per algorithm (lowest mean mistake %, ties → smaller {parameter})",
        "",
        "| dataset | " + " | ".join(swept) + " |",
        "|---|" + "---|" * len(swept),
    ]
    for dataset, sw in table.items():
        cells = []
        for a in swept:
            rows = sw["algorithms"][a]
            i = int(np.argmin([r["mistake_pct"][0] for r in rows]))
            cells.append(f"{_fmt_value(rows[i]['value'])} ({rows[i]['mistake_pct'][0]:.2f})")
        lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
    lines.append("")
    for dataset, sw in table.items():
        lines += [
            f"### {dataset}",
            "",
            f"![mistake rate vs {parameter} on {dataset}]({sw['figure']})",
            "",
            f"Mistake (%), mean ± std over {sw['orderings']} orderings; bold: the algorithm's best {parameter}.",
            "",
            "| algorithm | " + " | ".join(_fmt_value(v) for v in sw["values"]) + " |",
            "|---|" + "---|" * len(sw["values"]),
        ]
        for a, rows in sw["algorithms"].items():
            best = int(np.argmin([r["mistake_pct"][0] for r in rows]))
            cells = [_fmt(*r["mistake_pct"], 2) for r in rows]
            cells[best] = f"**{cells[best]}**"
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        for a, row in sw["reference"].items():
            lines.append(
                f"| {a} (no {parameter}) | " + " | ".join([_fmt(*row["mistake_pct"], 2)] * len(sw["values"])) + " |"
            )
        lines.append("")
    return lines


def selection_paragraph(config):
    """How the config selects parameters in hindsight: the grids, stated as such."""

    def grids(select):
        parts = []
        for algo, grid in select.items():
            specs = []
            for key, spec in grid.items():
                values, scale = (spec["values"], spec.get("scale")) if isinstance(spec, dict) else (spec, None)
                specs.append(f"{pname(key)} ∈ {{{', '.join(grid_label(v, scale) for v in values)}}}")
            parts.append(f"{algo}: {'; '.join(specs)}")
        return parts

    local = [
        f"{d}: {', '.join(grids(s['select']))}" for d, s in config.get("per_dataset", {}).items() if s.get("select")
    ]
    return [
        "## Parameter selection: in hindsight",
        "",
        "**Selection in hindsight, as the paper did:** for each algorithm with a grid, every grid point "
        "runs on all the orderings of the table, and the table reports the point with the lowest mean "
        "AMR over those same orderings (ties: the first in grid order). This is optimistic for every "
        "algorithm with a grid alike (no held-out data); each dataset's section lists every grid point's "
        "mean. T = the dataset's number of examples. Grids: "
        + " · ".join(grids(config["select"]))
        + "."
        + (" Grids replaced on some datasets (see their notes): " + " · ".join(local) + "." if local else ""),
        "",
    ]


def render_page(config, docs, skipped, sweeps, paper, repeats, command, stem, output, extra=None):
    notes_path = os.path.splitext(config.get("notes", output))[0] + ".notes.md"
    lines = [
        f"# {config['title']}",
        "",
        f"Generated {datetime.date.today().isoformat()} by `{command}` "
        f"(olkit, Python {platform.python_version()}, {platform.machine()}).",
        "",
    ]
    if (extra or {}).get("merged"):  # datasets added with --merge: the others' rows are an earlier run's
        lines += [
            "Datasets run with `--merge` into an earlier run's page (every other dataset's results, "
            "analyses included, are that earlier run's, unchanged): "
            + "; ".join(f"{m['date']}: {', '.join(m['datasets'])} (`{m['command']}`)" for m in extra["merged"])
            + ".",
            "",
        ]
    lines += [
        f"Protocol: {repeats} random orderings per dataset (ordering r drawn from seed {config.get('seed', 0)} + r), "
        f"settings {config.get('settings', {})}, per-algorithm overrides {config.get('params', {})}"
        + (
            ", per-dataset settings "
            + str({d: v.get("settings", {}) for d, v in config["per_dataset"].items()})
            + " and overrides "
            + str({d: v["params"] for d, v in config["per_dataset"].items() if v.get("params")})
            if config.get("per_dataset")
            else ""
        )
        + ". "
        + " ".join(
            config.get(
                "protocol_text",
                "Mistake rate is the online cumulative mistake rate; #SV the final "
                "number of support vectors, #updates the number of updating rounds; time is learning "
                "time only (the papers' times are MATLAB, so only their ratios are "
                "comparable).",
            ).split()
        ),
        "",
    ]
    if os.path.exists(notes_path):  # hand-written discussion of the differences, kept beside the page
        with open(notes_path) as fh:
            lines += [fh.read().rstrip(), ""]
    if config.get("select"):
        lines += selection_paragraph(config)
    absent = not_run_reasons(config)
    if absent:
        lines += [
            f"Not run: {', '.join(absent)} (listed in `optional_algorithms`, not in this build's registry, "
            "`olkit.registry.names()`; it joins the table when it is registered). The paper's rows are "
            "shown.",
            "",
        ]
    if "wall_seconds" in (extra or {}):
        lines += [
            f"Wall clock of the whole run: {extra['wall_seconds'] / 60:.1f} min on {os.cpu_count()} "
            "CPUs (shared with other work, so timings are noisy).",
            "",
        ]
    lines += ["## Acceptance summary", ""] + acceptance(docs, paper, config, extra) + [""]
    if skipped:
        lines += ["## Datasets not run", ""] + [f"- **{d}**: {why}" for d, why in skipped] + [""]
    if (extra or {}).get("failed"):
        lines += (
            ["## Analyses not run (a run failed)", ""]
            + [f"- **{f['section']}** on {f['dataset']}: {f['error']}" for f in extra["failed"]]
            + [""]
        )
    missing = sorted(set(paper) - set(config["datasets"]))
    if missing:
        lines += [
            f"Paper datasets not in olkit's catalog: {', '.join(missing)} (no copy of them was found; "
            "`olkit datasets` lists what can be had).",
            "",
        ]
    lines += ["## Results per dataset", ""]
    for doc in docs:
        lines += dataset_section(doc, paper, doc["figure"], config) + failed_lines(doc.get("failed", []))
    extra = extra or {}
    for name, section in config.items():
        if name in extra.get("comparisons", {}) and section.get("paper"):
            lines += budget_comparison_section(
                name, section, extra["comparisons"][name], paper_values(section["paper"]), config
            )
        elif name in extra.get("comparisons", {}):
            lines += comparison_section(name, section, extra["comparisons"][name], paper)
        elif name in extra.get("sweeps", {}):
            lines += sweep_section(name, section, extra["sweeps"][name])
        elif name in extra.get("diagnostics", {}):
            lines += diagnostic_section(
                name,
                section,
                extra["diagnostics"][name],
                paper_values(section["paper"]) if section.get("paper") else {},
            )
    if sweeps:
        lines += [
            "## §5.4: double updates vs ρ (JMLR Figure 4)",
            "",
            f"![M, M_d^w and M_d^s vs rho](figures/{stem}-rho-sweep.png)",
            "",
            "| dataset | ρ | M | M_d^w(ρ) | M_d^s(ρ) |",
            "|---|---|---|---|---|",
        ]
        for dataset, table in sweeps.items():
            lines += [
                f"| {dataset} | {r['rho']:.1f} | {r['M']:.1f} | {r['M_d_weak']:.1f} | {r['M_d_strong']:.1f} |"
                for r in table
            ]
        lines.append("")
    return "\n".join(lines)
