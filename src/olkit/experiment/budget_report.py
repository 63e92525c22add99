"""The reproduction page's parts for budgeted learners (the Ahpatron config,
docs/algorithms/evaluation.md#ahpatron-protocol): the table with B|D beside the paper's, the selection in hindsight, a
learner diagnostic beside a paper table
(|N_T|) and a comparison beside a paper table (Table 5). The acceptance rules are
:mod:`olkit.experiment.acceptance`, the rest of the page :mod:`olkit.experiment.page`.

Everything here reads documents that :mod:`olkit.experiment.reproduce` made; nothing runs learners.
"""

import math

import numpy as np

from ..data import CATALOG
from .config import per_dataset
from .stats import mean_std

GREEK = {"epsilon": "ε", "eta": "η", "sigma": "σ", "lam": "λ", "gamma": "γ"}


def pname(key):
    """A parameter's name as the papers write it (ε, η, σ, λ, γ; others as is)."""
    return GREEK.get(key, key)


def fmt_ms(pair, digits=2):
    return f"{pair[0]:.{digits}f} ± {pair[1]:.{digits}f}"


def grid_label(raw, scale):
    """A grid value as the config writes it: 10^k/√T for the 1/√T-scaled step sizes, else the value."""
    if scale == "1/sqrt(T)":
        k = math.log10(raw) if raw > 0 else float("nan")
        return f"10^{round(k)}/√T" if abs(k - round(k)) < 1e-9 else f"{raw:g}/√T"
    if scale == "1/T^2":
        return f"{raw:g}/T²"
    return f"{raw:g}" if isinstance(raw, (int, float)) else str(raw)


def selected_label(row):
    """ "ε = 0.9" / "η = 10^2/√T (0.266)" for a row selected in hindsight, "" otherwise."""
    sel = row.get("selection")
    if not sel:
        return ""
    cand = sel["candidates"][sel["chosen"]]["params"]
    parts = []
    for g in sel["grid"]:
        raw = g["grid"][g["values"].index(cand[g["parameter"]])]
        label = grid_label(raw, g["scale"])
        if g["scale"]:
            label += f" ({cand[g['parameter']]:.3g})"
        parts.append(f"{pname(g['parameter'])} = {label}")
    return ", ".join(parts)


def budget_of(params):
    """("B" | "D", value) of a learner's budget (B, else D, when set), or (None, None): unbudgeted."""
    for key in ("B", "D"):
        if params.get(key) is not None:
            return key, params[key]
    return None, None


def paper_row(ref, label, config):
    """The paper's row for a result label: its own, else the row ``paper_rows`` maps it to (e.g. the
    paper's Projectron++ beside ``projectron++:ahp-r``, the variant of the authors' code)."""
    return ref.get(label) or ref.get(config.get("paper_rows", {}).get(label, ""))


def row_of(doc, algorithm):
    return next((r for r in doc["results"] if r["algorithm"] == algorithm), None)


def _budget_cell(params, n_sv_mean):
    key, value = budget_of(params)
    return f"{value:g}" if key else f"{n_sv_mean:.0f} (#SV)"


def selection_lines(doc, repeats):
    """The per-dataset table of the selection in hindsight: every grid point's mean AMR."""
    rows = [r for r in doc["results"] if r.get("selection")]
    if not rows:
        return []
    lines = [
        f"Selected **in hindsight** (as the paper did): each grid point ran on the same {repeats} "
        "orderings as the table, and the row reports the point with the lowest mean AMR (ties: the "
        "first in grid order). Mean AMR (%) per grid point, the selected one in bold:",
        "",
        "| algorithm | selected | mean AMR (%) per grid point |",
        "|---|---|---|",
    ]
    for r in rows:
        sel = r["selection"]
        unbudgeted = budget_of(r["params"])[0] is None  # show the active set each point needed
        cells = []
        for i, cand in enumerate(sel["candidates"]):
            chosen = [(g, g["grid"][g["values"].index(cand["params"][g["parameter"]])]) for g in sel["grid"]]
            label = ", ".join(f"{pname(g['parameter'])}={grid_label(value, g['scale'])}" for g, value in chosen)
            text = f"{label}: {cand['mistake_pct'][0]:.2f}" + (f" ({cand['n_sv'][0]:.0f} SV)" if unbudgeted else "")
            cells.append(f"**{text}**" if i == sel["chosen"] else text)
        lines.append(f"| {r['algorithm']} | {selected_label(r)} | {' · '.join(cells)} |")
    return lines + [""]


def budget_dataset_section(doc, paper, paper_meta, config, not_run, repeats):
    """One dataset of a budgeted-learner table: settings, selection, AMR | B|D | #SV | time beside the
    paper's, the paper's rows of algorithms not run, the curves figure."""
    dataset = doc["dataset"]
    digits = config.get("digits", 2)
    lines = [f"### {dataset} ({doc['n_examples']} × {doc['n_features']})", ""]
    spec = CATALOG.get(dataset)
    if spec is not None and spec.notes:
        lines += [f"Data: {spec.notes}", ""]
    local = per_dataset(config, dataset)
    settings = {**config.get("settings", {}), **local.get("settings", {})}
    if settings:
        paper_sigma = paper_meta.get("_sigma", {}).get(dataset)
        lines += [
            "Settings on this dataset: "
            + ", ".join(
                f"{pname(k)} = {v:g}" if isinstance(v, (int, float)) else f"{pname(k)} = {v}"
                for k, v in settings.items()
            )
            + " (B for the budgeted learners, D for FOGD)"
            + (f"; the paper's σ = {paper_sigma:g}." if paper_sigma is not None else ".")
            + (f" {local['note'].strip()}" if local.get("note") else ""),
            "",
        ]
    lines += selection_lines(doc, repeats)
    ref = paper.get(dataset, {})
    lines += [
        "| Algorithm | AMR (%) ours | paper | Δ (points) | B\\|D ours | paper | #SV ours (final) | "
        "Time (s) ours | paper | selected |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in doc["results"]:
        m, s = 100 * r["mean"]["mistake_rate"], 100 * r["std"]["mistake_rate"]
        p = paper_row(ref, r["algorithm"], config)
        pm = fmt_ms(p["mistake_pct"], digits) if p else "—"
        dm = f"{m - p['mistake_pct'][0]:+.{digits}f}" if p else "—"
        pb = f"{p['budget']:g}" if p else "—"
        pt = f"{p['seconds']:.2f}" if p else "—"
        lines.append(
            f"| {r['algorithm']} | {fmt_ms((m, s), digits)} | {pm} | {dm} | "
            f"{_budget_cell(r['params'], r['mean']['n_sv'])} | {pb} | {r['mean']['n_sv']:.0f} | "
            f"{r['mean']['seconds']:.2f} | {pt} | {selected_label(r)} |"
        )
    ran = {r["algorithm"] for r in doc["results"]}
    for algo, p in ref.items():
        if algo in ran:
            continue
        why = not_run.get(algo, "not in this config")
        lines.append(
            f"| {algo} | not run ({why}) | {fmt_ms(p['mistake_pct'], digits)} | — | — | {p['budget']:g} | — | "
            f"— | {p['seconds']:.2f} | |"
        )
    lines += [
        "",
        "B|D: the budget B (D = the number of random features for FOGD); for the unbudgeted "
        "Projectrons the mean final active-set size, marked #SV, as the paper's column. Time: learning "
        "seconds of one run (ours: compiled code on a shared machine; the paper's: R), so only "
        "ratios compare.",
        "",
        f"![online mistake rate on {dataset}]({doc['figure']})",
        "",
    ]
    return lines


def diagnostic_table(section, docs):
    """{dataset: {"mean", "std", "runs", "T", "mistakes", "selected"}} of ``section["diagnostic"]`` of
    ``section["algorithm"]`` over the table's runs."""
    algo, key = section["algorithm"], section["diagnostic"]
    out = {}
    for doc in docs:
        r = row_of(doc, algo)
        if r is None:
            continue
        vals = [run.get("diagnostics", {}).get(key) for run in r["runs"]]
        if any(v is None for v in vals):
            continue
        mean, std = mean_std(vals)
        out[doc["dataset"]] = {
            "mean": mean,
            "std": std,
            "runs": vals,
            "T": doc["n_examples"],
            "mistakes": float(np.mean([run["mistakes"] for run in r["runs"]])),
            "selected": r.get("selected", {}),
        }
    return out


def diagnostic_section(name, section, table, paper):
    """A diagnostic of the table's runs beside a paper table ({dataset: {algorithm: {key, "T"}}})."""
    algo, key = section["algorithm"], section["diagnostic"]
    label = section.get("label", key)
    lines = [f"## {section.get('title', name)}", ""]
    if section.get("text"):
        lines += [section["text"].strip(), ""]
    lines += [
        f"| dataset | T ours | {label} ours (mean ± std) | {label}/T ours (%) | |M_T| ours | paper | T paper | "
        f"{label}/T paper (%) | ours / paper |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for dataset, d in table.items():
        p = paper.get(dataset, {}).get(algo, {})
        pv, pT = p.get(key), p.get("T")
        sel = ", ".join(f"{pname(k)} = {v:g}" for k, v in d["selected"].items())
        lines.append(
            f"| {dataset}{f' ({sel})' if sel else ''} | {d['T']} | {d['mean']:.0f} ± {d['std']:.0f} | "
            f"{100 * d['mean'] / d['T']:.1f} | {d['mistakes']:.0f} | "
            + (f"{pv:g} | {pT} | {100 * pv / pT:.1f} | {d['mean'] / pv:.2f} |" if pv else "— | — | — | — |")
        )
    for dataset, rows in paper.items():
        if dataset not in table and key in rows.get(algo, {}):
            p = rows[algo]
            lines.append(
                f"| {dataset} (not run) | — | — | — | — | {p[key]:g} | {p.get('T', '—')} | "
                + (f"{100 * p[key] / p['T']:.1f}" if p.get("T") else "—")
                + " | — |"
            )
    return lines + [""]


def budget_comparison_section(name, section, table, paper, config):
    """A comparison section beside a paper table: per dataset and algorithm AMR, budget, time, and the
    paired difference of each algorithm against the first."""
    algos = list(section["algorithms"])
    ref = algos[0]
    first = next(iter(table.values()))
    lines = [f"## {section.get('title', name)}", ""]
    if section.get("text"):
        lines += [section["text"].strip(), ""]
    lines += [
        f"{first['orderings']} orderings per dataset (the first {first['orderings']} of the table's); runs of "
        f"{', '.join(first['reused']) or 'no algorithm'} are the table's own. Δ = algorithm − {ref} (points), "
        "p: paired two-sided t-test over the orderings.",
        "",
        "| dataset | algorithm | B ours | AMR (%) ours | paper | Δ vs paper | B paper | Time (s) ours | paper | "
        f"Δ vs {ref} (p) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for dataset, doc in table.items():
        ref_p = paper.get(dataset, {})
        for a in algos:
            if a not in doc["rows"]:
                continue
            row = doc["rows"][a]
            p = paper_row(ref_p, a, config)
            key, value = budget_of(row["params"])
            b = f"{value:g}" if key else f"{row['n_sv'][0]:.0f} (#SV)"
            vs = doc["versus"].get(a)
            pm = fmt_ms(p["mistake_pct"]) if p else "—"
            dp = f"{row['mistake_pct'][0] - p['mistake_pct'][0]:+.2f}" if p else "—"
            pb = f"{p['budget']:g}" if p else "—"
            pt = f"{p['seconds']:.2f}" if p else "—"
            vsc = f"{vs['mean_diff']:+.2f} ({vs['p_value']:.2g})" if vs else "—"
            lines.append(
                f"| {dataset} | {a} | {b} | {fmt_ms(row['mistake_pct'])} | {pm} | {dp} | {pb} | "
                f"{row['seconds'][0]:.2f} | {pt} | {vsc} |"
            )
    for dataset, rows in paper.items():
        if dataset not in table:
            lines += [
                f"| {dataset} (not run) | {a} | — | — | {fmt_ms(p['mistake_pct'])} | — | {p['budget']:g} | — | "
                f"{p['seconds']:.2f} | — |"
                for a, p in rows.items()
            ]
    return lines + [""]
