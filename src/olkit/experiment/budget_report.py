"""The reproduction page's parts for budgeted learners (the Ahpatron config,
docs/algorithms/evaluation.md#ahpatron-protocol): the table with B|D beside the paper's, the selection in hindsight, a learner diagnostic beside a paper table
(|N_T|), a comparison beside a paper table (Table 5), and acceptance as declarative rules.

Everything here reads documents that :mod:`olkit.experiment.reproduce` made; nothing runs learners.
"""
import math

import numpy as np

from ..data import CATALOG
from .config import available_algorithms, paper_values, per_dataset

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
    """"ε = 0.9" / "η = 10^2/√T (0.266)" for a row selected in hindsight, "" otherwise."""
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


def _paired(a, b, alpha=0.05):
    """Mean of a − b (points) and the paired two-sided t-test's p over the common orderings."""
    from scipy.stats import ttest_rel

    a, b = np.asarray(a, float), np.asarray(b, float)
    d = a - b
    p = float(ttest_rel(a, b).pvalue) if d.size > 1 and np.any(d) and np.std(d) > 0 else float("nan")
    return float(d.mean()), p


def _runs_pct(row):
    return [100 * run["mistake_rate"] for run in row["runs"]]


def selection_lines(doc, repeats):
    """The per-dataset table of the selection in hindsight: every grid point's mean AMR."""
    rows = [r for r in doc["results"] if r.get("selection")]
    if not rows:
        return []
    lines = [f"Selected **in hindsight** (as the paper did): each grid point ran on the same {repeats} "
             "orderings as the table, and the row reports the point with the lowest mean AMR (ties: the "
             "first in grid order). Mean AMR (%) per grid point, the selected one in bold:", "",
             "| algorithm | selected | mean AMR (%) per grid point |", "|---|---|---|"]
    for r in rows:
        sel = r["selection"]
        unbudgeted = budget_of(r["params"])[0] is None  # show the active set each point needed
        cells = []
        for i, cand in enumerate(sel["candidates"]):
            label = ", ".join(f"{pname(g['parameter'])}={grid_label(g['grid'][g['values'].index(cand['params'][g['parameter']])], g['scale'])}"
                              for g in sel["grid"])
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
        lines += ["Settings on this dataset: " + ", ".join(f"{pname(k)} = {v:g}" if isinstance(v, (int, float)) else
                                                          f"{pname(k)} = {v}" for k, v in settings.items())
                  + " (B for the budgeted learners, D for FOGD)"
                  + (f"; the paper's σ = {paper_sigma:g}." if paper_sigma is not None else ".")
                  + (f" {local['note'].strip()}" if local.get("note") else ""), ""]
    lines += selection_lines(doc, repeats)
    ref = paper.get(dataset, {})
    lines += ["| Algorithm | AMR (%) ours | paper | Δ (points) | B\\|D ours | paper | #SV ours (final) | "
              "Time (s) ours | paper | selected |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["results"]:
        m, s = 100 * r["mean"]["mistake_rate"], 100 * r["std"]["mistake_rate"]
        p = paper_row(ref, r["algorithm"], config)
        pm = fmt_ms(p["mistake_pct"], digits) if p else "—"
        dm = f"{m - p['mistake_pct'][0]:+.{digits}f}" if p else "—"
        pb = f"{p['budget']:g}" if p else "—"
        pt = f"{p['seconds']:.2f}" if p else "—"
        lines.append(f"| {r['algorithm']} | {fmt_ms((m, s), digits)} | {pm} | {dm} | "
                     f"{_budget_cell(r['params'], r['mean']['n_sv'])} | {pb} | {r['mean']['n_sv']:.0f} | "
                     f"{r['mean']['seconds']:.2f} | {pt} | {selected_label(r)} |")
    ran = {r["algorithm"] for r in doc["results"]}
    for algo, p in ref.items():
        if algo in ran:
            continue
        why = not_run.get(algo, "not in this config")
        lines.append(f"| {algo} | not run ({why}) | {fmt_ms(p['mistake_pct'], digits)} | — | — | {p['budget']:g} | — | "
                     f"— | {p['seconds']:.2f} | |")
    lines += ["", "B|D: the budget B (D = the number of random features for FOGD); for the unbudgeted "
              "Projectrons the mean final active-set size, marked #SV, as the paper's column. Time: learning "
              "seconds of one run (ours: compiled code on a shared machine; the paper's: R), so only "
              "ratios compare.", "", f"![online mistake rate on {dataset}]({doc['figure']})", ""]
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
        v = np.asarray(vals, dtype=float)
        out[doc["dataset"]] = {"mean": float(v.mean()), "std": float(v.std(ddof=1)) if v.size > 1 else 0.0,
                               "runs": vals, "T": doc["n_examples"],
                               "mistakes": float(np.mean([run["mistakes"] for run in r["runs"]])),
                               "selected": r.get("selected", {})}
    return out


def diagnostic_section(name, section, table, paper):
    """A diagnostic of the table's runs beside a paper table ({dataset: {algorithm: {key, "T"}}})."""
    algo, key = section["algorithm"], section["diagnostic"]
    label = section.get("label", key)
    lines = [f"## {section.get('title', name)}", ""]
    if section.get("text"):
        lines += [section["text"].strip(), ""]
    lines += [f"| dataset | T ours | {label} ours (mean ± std) | {label}/T ours (%) | |M_T| ours | paper | T paper | "
              f"{label}/T paper (%) | ours / paper |", "|---|---|---|---|---|---|---|---|---|"]
    for dataset, d in table.items():
        p = paper.get(dataset, {}).get(algo, {})
        pv, pT = p.get(key), p.get("T")
        sel = ", ".join(f"{pname(k)} = {v:g}" for k, v in d["selected"].items())
        lines.append(f"| {dataset}{f' ({sel})' if sel else ''} | {d['T']} | {d['mean']:.0f} ± {d['std']:.0f} | "
                     f"{100 * d['mean'] / d['T']:.1f} | {d['mistakes']:.0f} | "
                     + (f"{pv:g} | {pT} | {100 * pv / pT:.1f} | {d['mean'] / pv:.2f} |" if pv else "— | — | — | — |"))
    for dataset, rows in paper.items():
        if dataset not in table and key in rows.get(algo, {}):
            p = rows[algo]
            lines.append(f"| {dataset} (not run) | — | — | — | — | {p[key]:g} | {p.get('T', '—')} | "
                         + (f"{100 * p[key] / p['T']:.1f}" if p.get("T") else "—") + " | — |")
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
    lines += [f"{first['orderings']} orderings per dataset (the first {first['orderings']} of the table's); runs of "
              f"{', '.join(first['reused']) or 'no algorithm'} are the table's own. Δ = algorithm − {ref} (points), "
              "p: paired two-sided t-test over the orderings.", "",
              "| dataset | algorithm | B ours | AMR (%) ours | paper | Δ vs paper | B paper | Time (s) ours | paper | "
              f"Δ vs {ref} (p) |", "|---|---|---|---|---|---|---|---|---|---|"]
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
            lines.append(f"| {dataset} | {a} | {b} | {fmt_ms(row['mistake_pct'])} | {pm} | {dp} | {pb} | "
                         f"{row['seconds'][0]:.2f} | {pt} | {vsc} |")
    for dataset, rows in paper.items():
        if dataset not in table:
            lines += [f"| {dataset} (not run) | {a} | — | — | {fmt_ms(p['mistake_pct'])} | — | {p['budget']:g} | — | "
                      f"{p['seconds']:.2f} | — |" for a, p in rows.items()]
    return lines + [""]


def _verdict(flag):
    return "—" if flag is None else ("yes" if flag else "**no**")


def acceptance_rules(docs, paper, rules, extra, config):
    """The config's ``[acceptance]`` rules, each a table and a one-line verdict:

    * ``within``: [{algorithm, points}] — our mean AMR within ``points`` of the paper's, per dataset;
    * ``lower_than``: [{algorithm, others, text}] — the algorithm's mean AMR below each of ``others``
      (with the paired t-test's p), ours and in the paper's own numbers;
    * ``larger_set``: [{algorithm, than, factor, datasets}] — the algorithm's final #SV at least
      ``factor`` × the budget of ``than`` (on ``datasets``, default all);
    * ``comparison``: [{section, algorithm, than}] — in a comparison section, the algorithm's AMR below
      ``than``'s on a budget at most ``than``'s (#SV when unbudgeted), ours and the paper's (``paper`` of
      the section).
    """
    lines = []
    for rule in rules.get("within", []):
        algo, pts = rule["algorithm"], rule.get("points", 1.5)
        lines += [f"**{algo}: mean AMR within {pts:g} points of the paper's Table** — "
                  + rule.get("text", "the reproduction criterion."), "",
                  "| dataset | ours (%) | paper (%) | Δ | within |", "|---|---|---|---|---|"]
        held = total = 0
        for doc in docs:
            r, p = row_of(doc, algo), paper.get(doc["dataset"], {}).get(algo)
            if r is None or not p:
                continue
            ours = 100 * r["mean"]["mistake_rate"]
            ok = abs(ours - p["mistake_pct"][0]) <= pts
            held, total = held + ok, total + 1
            lines.append(f"| {doc['dataset']} | {fmt_ms((ours, 100 * r['std']['mistake_rate']))} | "
                         f"{fmt_ms(p['mistake_pct'])} | {ours - p['mistake_pct'][0]:+.2f} | {_verdict(ok)} |")
        lines += ["", f"Holds on {held} of {total} datasets.", ""]
    for rule in rules.get("lower_than", []):
        algo = rule["algorithm"]
        others, absent = available_algorithms(config, list(rule["others"]))
        if not others:
            lines += [f"**Claim: {algo} has a lower AMR than {', '.join(absent)}** — " + rule.get("text", "")
                      + f" Not checked: {', '.join(absent)} is not in this build.", ""]
            continue
        lines += [f"**Claim: {algo} has a lower AMR than {', '.join(others)}** — " + rule.get("text", ""), "",
                  "| dataset | " + f"{algo} (%) | " + " | ".join(f"{o} (%): Δ, p" for o in others)
                  + " | holds (ours) | holds (paper's numbers) |", "|---|---|" + "---|" * len(others) + "---|---|"]
        held = total = 0
        for doc in docs:
            r = row_of(doc, algo)
            if r is None:
                continue
            cells, ok, ok_paper = [], True, True
            pref = paper.get(doc["dataset"], {})
            for o in others:
                ro = row_of(doc, o)
                if ro is None:
                    cells.append("—")
                    continue
                diff, p = _paired(_runs_pct(r), _runs_pct(ro))
                ok &= diff < 0
                cells.append(f"{100 * ro['mean']['mistake_rate']:.2f}: {diff:+.2f}, p {p:.2g}")
                if algo in pref and o in pref:
                    ok_paper &= pref[algo]["mistake_pct"][0] < pref[o]["mistake_pct"][0]
                else:
                    ok_paper = None if ok_paper is True else ok_paper
            held, total = held + ok, total + 1
            lines.append(f"| {doc['dataset']} | {100 * r['mean']['mistake_rate']:.2f} | " + " | ".join(cells)
                         + f" | {_verdict(ok)} | {_verdict(ok_paper)} |")
        lines += ["", f"Holds on {held} of {total} datasets (Δ = {algo} − the other, points; p: paired "
                  "two-sided t-test over the orderings)."
                  + (f" Not run (not in this build): {', '.join(absent)}." if absent else ""), ""]
    for rule in rules.get("larger_set", []):
        algo, than, factor = rule["algorithm"], rule["than"], rule.get("factor", 2)
        where = rule.get("datasets")
        lines += [f"**Claim: {algo} needs a far larger active set than {than}'s budget** (ratio ≥ {factor:g}) — "
                  + rule.get("text", ""), "",
                  f"| dataset | {algo} #SV ours | {than} budget | ratio ours | AMR ours: {algo} / {than} | "
                  f"paper: #SV / budget | ratio paper | holds (ours) | holds (paper) |",
                  "|---|---|---|---|---|---|---|---|---|"]
        held = total = 0
        for doc in docs:
            if where and doc["dataset"] not in where:
                continue
            r, t = row_of(doc, algo), row_of(doc, than)
            if r is None or t is None:
                continue
            _, b = budget_of(t["params"])
            b = b or t["mean"]["n_sv"]
            ratio = r["mean"]["n_sv"] / b
            ref = paper.get(doc["dataset"], {})
            pa, pt = paper_row(ref, algo, config), paper_row(ref, than, config)
            pr = pa["budget"] / pt["budget"] if pa and pt else None
            held, total = held + (ratio >= factor), total + 1
            lines.append(f"| {doc['dataset']} | {r['mean']['n_sv']:.0f} | {b:g} | {ratio:.2f} | "
                         f"{100 * r['mean']['mistake_rate']:.2f} / {100 * t['mean']['mistake_rate']:.2f} | "
                         + (f"{pa['budget']:g} / {pt['budget']:g} | {pr:.2f} | " if pr else "— | — | ")
                         + f"{_verdict(ratio >= factor)} | {_verdict(pr >= factor if pr else None)} |")
        lines += ["", f"Holds on {held} of {total} datasets"
                  + (f" (the datasets the paper names: {', '.join(where)})" if where else "") + ".", ""]
    for rule in rules.get("comparison", []):
        name, algo, than = rule["section"], rule["algorithm"], rule["than"]
        table = extra.get("comparisons", {}).get(name)
        if not table:
            continue
        pap = paper_values(config[name]["paper"]) if config[name].get("paper") else {}
        lines += [f"**Claim: {algo} has a lower AMR than {than} on the same or a smaller budget** — "
                  + rule.get("text", ""), "",
                  f"| dataset | {algo}: B, AMR (%) | {than}: B or #SV, AMR (%) | Δ (p) | holds (ours) | "
                  "paper: Δ, B vs B | holds (paper) |", "|---|---|---|---|---|---|---|"]
        held = total = 0
        for dataset, doc in table.items():
            ra, rt = doc["rows"].get(algo), doc["rows"].get(than)
            if ra is None or rt is None:
                continue
            ba = budget_of(ra["params"])[1] or ra["n_sv"][0]
            bt = budget_of(rt["params"])[1] or rt["n_sv"][0]
            diff = doc["versus"][algo]["mean_diff"] if algo in doc["versus"] else ra["mistake_pct"][0] - rt["mistake_pct"][0]
            pv = doc["versus"].get(algo, {}).get("p_value", float("nan"))
            ok = diff < 0 and ba <= bt
            pa, pt = paper_row(pap.get(dataset, {}), algo, config), paper_row(pap.get(dataset, {}), than, config)
            ok_p = (pa["mistake_pct"][0] < pt["mistake_pct"][0] and pa["budget"] <= pt["budget"]
                    if pa and pt else None)
            held, total = held + ok, total + 1
            lines.append(f"| {dataset} | {ba:g}, {ra['mistake_pct'][0]:.2f} | {bt:.0f}, {rt['mistake_pct'][0]:.2f} | "
                         f"{diff:+.2f} ({pv:.2g}) | {_verdict(ok)} | "
                         + (f"{pa['mistake_pct'][0] - pt['mistake_pct'][0]:+.2f}, {pa['budget']:g} vs "
                            f"{pt['budget']:g} | " if ok_p is not None else "— | ")
                         + f"{_verdict(ok_p)} |")
        lines += ["", f"Holds on {held} of {total} datasets.", ""]
    return lines
