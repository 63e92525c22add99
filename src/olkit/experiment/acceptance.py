"""Acceptance criteria of the reproduction pages, as data: the ``[acceptance]`` table of every config in
``experiments/*.toml`` lists its rules, and ``acceptance`` renders them as the page's "Acceptance summary"
(tables and one-line verdicts). A config without ``[acceptance]`` has no acceptance summary.

Rule kinds (``olkit.experiment.config.ACCEPTANCE_KINDS``; each documented in ``acceptance_rules``): ``table``
(per-dataset columns of
"within N points of the paper" and "below another algorithm", the DUOL and SCW pages), ``within_spread``
(the best of a group within the run-to-run spread of another, SCW's noisy synthetic claim), ``within``,
``lower_than`` (with the paired t-test, ``olkit.experiment.stats.paired_ttest``), ``larger_set`` and
``comparison`` (the Ahpatron page).
"""

import math

from .budget_report import budget_of, fmt_ms, paper_row, row_of
from .config import available_algorithms, paper_values
from .stats import paired_ttest


def acceptance(docs, paper, config, extra=None):
    """The page's acceptance summary: the config's ``[acceptance]`` rules (:func:`acceptance_rules`), or []
    when the config has none."""
    return acceptance_rules(docs, paper, config.get("acceptance", {}), extra or {}, config)


def _runs_pct(row):
    return [100 * run["mistake_rate"] for run in row["runs"]]


def _pct(value):
    """A mistake rate in % as the DUOL and SCW tables print it; "—" when there is none."""
    return "—" if value is None or math.isnan(value) else f"{value:.3f}"


def _mean_pct(doc, algorithm):
    row = row_of(doc, algorithm)
    return None if row is None else 100 * row["mean"]["mistake_rate"]


def table_lines(docs, paper, rule):
    """A ``table`` rule: one row per dataset whose table has the ``require``d algorithms, one group of cells
    per column:

    * ``within``: ours (%), the paper's (%), and whether |ours − paper| ≤ ``points`` (default 1.5) — "yes",
      "NO", or "—" when either number is missing (the headers: "<label> ours (%)", ``paper_label``
      (default "paper"), "|Δ| ≤ <points>");
    * ``below``: the other algorithm's mean (%) and whether ours is lower ("yes", "NO"; "—" when either is
      missing; the headers: ``other_label``, ``label``).
    """
    head = ["dataset"]
    for col in rule["columns"]:
        if col["kind"] == "within":
            head += [
                f"{col.get('label', col['algorithm'])} ours (%)",
                col.get("paper_label", "paper"),
                f"|Δ| ≤ {col.get('points', 1.5):g}",
            ]
        else:
            head += [
                col.get("other_label", f"{col['other']} ours (%)"),
                col.get("label", f"{col['algorithm']} < {col['other']}"),
            ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for doc in docs:
        if any(row_of(doc, a) is None for a in rule.get("require", [])):
            continue
        cells = [doc["dataset"]]
        for col in rule["columns"]:
            ours = _mean_pct(doc, col["algorithm"])
            if col["kind"] == "within":
                p = paper.get(doc["dataset"], {}).get(col["algorithm"], {}).get("mistake_pct", [None])[0]
                ok = None if ours is None or p is None else abs(ours - p) <= col.get("points", 1.5)
                cells += [_pct(ours), _pct(p), "—" if ok is None else ("yes" if ok else "NO")]
            else:
                other = _mean_pct(doc, col["other"])
                ok = None if ours is None or other is None else ours < other
                cells += [_pct(other), "—" if ok is None else ("yes" if ok else "NO")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def within_spread_lines(docs, paper, rule):
    """A ``within_spread`` rule on one dataset: the best mean of ``best_of`` at most ``than``'s plus the
    spread (the larger of the two stds), read so because the paper's own numbers put them that close; and
    every consecutive pair of ``lower`` in increasing order of mean. One paragraph, after a blank line;
    nothing when the dataset or an algorithm is missing."""
    best_of, than, lower = list(rule["best_of"]), rule["than"], list(rule.get("lower", []))
    labels = rule.get("labels", {})
    names = list(dict.fromkeys(best_of + [than] + lower))
    lines = []
    for doc in docs:
        if doc["dataset"] != rule["dataset"]:
            continue
        res = {r["algorithm"]: r for r in doc["results"]}
        if not all(k in res for k in names):
            continue
        mean = {k: 100 * res[k]["mean"]["mistake_rate"] for k in names}
        std = {k: 100 * res[k]["std"]["mistake_rate"] for k in names}
        best = min(best_of, key=mean.get)
        gap = mean[best] - mean[than]
        spread = max(std[best], std[than])
        p_gap = paper.get(rule["dataset"], {})
        paper_gap = (
            (min(p_gap[k]["mistake_pct"][0] for k in best_of) - p_gap[than]["mistake_pct"][0])
            if p_gap
            else float("nan")
        )
        label = lambda k: labels.get(k, k)  # noqa: E731
        best_label, than_label = rule.get("best_label", "best"), label(than)
        orders = "; ".join(
            f"{label(a)} < {label(b)}: {'yes' if mean[a] < mean[b] else 'NO'}" for a, b in zip(lower, lower[1:])
        )
        lines += [
            "",
            f"{rule.get('title', rule['dataset'])} (paper: {rule['claim']}): "
            + ", ".join(f"{label(k)} {mean[k]:.2f} %" for k in names)
            + ". "
            f"The paper's own {rule.get('paper_label', 'table')} has the best {best_label} {paper_gap:+.2f} "
            f"points from {than_label}, so '{best_label} ≤ {than_label}' is read as 'within the run-to-run "
            f"spread': best {best_label} − {than_label} = {gap:+.2f} points, spread (larger std) {spread:.2f}: "
            f"{'yes' if gap <= spread else 'NO'}" + (f"; {orders}." if orders else "."),
        ]
    return lines


def _verdict(flag):
    return "—" if flag is None else ("yes" if flag else "**no**")


def acceptance_rules(docs, paper, rules, extra, config):
    """The config's ``[acceptance]`` rules, in the order of the kinds below (each kind's rules in config order):

    * ``table``: [{columns, require}] — one row per dataset (only those whose table has every algorithm of
      ``require``), columns of checks: ``{kind = "within", algorithm, points, label}`` (ours, the paper's,
      |Δ| ≤ points) and ``{kind = "below", algorithm, other, label, other_label}`` (the other's mean, and
      whether the algorithm's mean is lower): :func:`table_lines`;
    * ``within_spread``: [{dataset, best_of, than, lower, labels, claim, title, best_label, paper_label}] —
      the best mean of ``best_of`` at most ``than``'s plus the run-to-run spread (the larger std), and the
      means of ``lower`` in increasing order: :func:`within_spread_lines`;
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
    for rule in rules.get("table", []):
        lines += table_lines(docs, paper, rule)
    for rule in rules.get("within_spread", []):
        lines += within_spread_lines(docs, paper, rule)
    for rule in rules.get("within", []):
        algo, pts = rule["algorithm"], rule.get("points", 1.5)
        lines += [
            f"**{algo}: mean AMR within {pts:g} points of the paper's Table** — "
            + rule.get("text", "the reproduction criterion."),
            "",
            "| dataset | ours (%) | paper (%) | Δ | within |",
            "|---|---|---|---|---|",
        ]
        held = total = 0
        for doc in docs:
            r, p = row_of(doc, algo), paper.get(doc["dataset"], {}).get(algo)
            if r is None or not p:
                continue
            ours = 100 * r["mean"]["mistake_rate"]
            ok = abs(ours - p["mistake_pct"][0]) <= pts
            held, total = held + ok, total + 1
            lines.append(
                f"| {doc['dataset']} | {fmt_ms((ours, 100 * r['std']['mistake_rate']))} | "
                f"{fmt_ms(p['mistake_pct'])} | {ours - p['mistake_pct'][0]:+.2f} | {_verdict(ok)} |"
            )
        lines += ["", f"Holds on {held} of {total} datasets.", ""]
    for rule in rules.get("lower_than", []):
        algo = rule["algorithm"]
        others, absent = available_algorithms(config, list(rule["others"]))
        if not others:
            lines += [
                f"**Claim: {algo} has a lower AMR than {', '.join(absent)}** — "
                + rule.get("text", "")
                + f" Not checked: {', '.join(absent)} is not in this build.",
                "",
            ]
            continue
        lines += [
            f"**Claim: {algo} has a lower AMR than {', '.join(others)}** — " + rule.get("text", ""),
            "",
            "| dataset | "
            + f"{algo} (%) | "
            + " | ".join(f"{o} (%): Δ, p" for o in others)
            + " | holds (ours) | holds (paper's numbers) |",
            "|---|---|" + "---|" * len(others) + "---|---|",
        ]
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
                test = paired_ttest(_runs_pct(r), _runs_pct(ro))
                diff, p = test.mean_diff, test.p_value
                ok &= diff < 0
                cells.append(f"{100 * ro['mean']['mistake_rate']:.2f}: {diff:+.2f}, p {p:.2g}")
                if algo in pref and o in pref:
                    ok_paper &= pref[algo]["mistake_pct"][0] < pref[o]["mistake_pct"][0]
                else:
                    ok_paper = None if ok_paper is True else ok_paper
            held, total = held + ok, total + 1
            lines.append(
                f"| {doc['dataset']} | {100 * r['mean']['mistake_rate']:.2f} | "
                + " | ".join(cells)
                + f" | {_verdict(ok)} | {_verdict(ok_paper)} |"
            )
        lines += [
            "",
            f"Holds on {held} of {total} datasets (Δ = {algo} − the other, points; p: paired "
            "two-sided t-test over the orderings)."
            + (f" Not run (not in this build): {', '.join(absent)}." if absent else ""),
            "",
        ]
    for rule in rules.get("larger_set", []):
        algo, than, factor = rule["algorithm"], rule["than"], rule.get("factor", 2)
        where = rule.get("datasets")
        lines += [
            f"**Claim: {algo} needs a far larger active set than {than}'s budget** (ratio ≥ {factor:g}) — "
            + rule.get("text", ""),
            "",
            f"| dataset | {algo} #SV ours | {than} budget | ratio ours | AMR ours: {algo} / {than} | "
            f"paper: #SV / budget | ratio paper | holds (ours) | holds (paper) |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
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
            lines.append(
                f"| {doc['dataset']} | {r['mean']['n_sv']:.0f} | {b:g} | {ratio:.2f} | "
                f"{100 * r['mean']['mistake_rate']:.2f} / {100 * t['mean']['mistake_rate']:.2f} | "
                + (f"{pa['budget']:g} / {pt['budget']:g} | {pr:.2f} | " if pr else "— | — | ")
                + f"{_verdict(ratio >= factor)} | {_verdict(pr >= factor if pr else None)} |"
            )
        lines += [
            "",
            f"Holds on {held} of {total} datasets"
            + (f" (the datasets the paper names: {', '.join(where)})" if where else "")
            + ".",
            "",
        ]
    for rule in rules.get("comparison", []):
        name, algo, than = rule["section"], rule["algorithm"], rule["than"]
        table = extra.get("comparisons", {}).get(name)
        if not table:
            continue
        pap = paper_values(config[name]["paper"]) if config[name].get("paper") else {}
        lines += [
            f"**Claim: {algo} has a lower AMR than {than} on the same or a smaller budget** — " + rule.get("text", ""),
            "",
            f"| dataset | {algo}: B, AMR (%) | {than}: B or #SV, AMR (%) | Δ (p) | holds (ours) | "
            "paper: Δ, B vs B | holds (paper) |",
            "|---|---|---|---|---|---|---|",
        ]
        held = total = 0
        for dataset, doc in table.items():
            ra, rt = doc["rows"].get(algo), doc["rows"].get(than)
            if ra is None or rt is None:
                continue
            ba = budget_of(ra["params"])[1] or ra["n_sv"][0]
            bt = budget_of(rt["params"])[1] or rt["n_sv"][0]
            diff = (
                doc["versus"][algo]["mean_diff"]
                if algo in doc["versus"]
                else ra["mistake_pct"][0] - rt["mistake_pct"][0]
            )
            pv = doc["versus"].get(algo, {}).get("p_value", float("nan"))
            ok = diff < 0 and ba <= bt
            pa, pt = paper_row(pap.get(dataset, {}), algo, config), paper_row(pap.get(dataset, {}), than, config)
            ok_p = pa["mistake_pct"][0] < pt["mistake_pct"][0] and pa["budget"] <= pt["budget"] if pa and pt else None
            held, total = held + ok, total + 1
            lines.append(
                f"| {dataset} | {ba:g}, {ra['mistake_pct'][0]:.2f} | {bt:.0f}, {rt['mistake_pct'][0]:.2f} | "
                f"{diff:+.2f} ({pv:.2g}) | {_verdict(ok)} | "
                + (
                    f"{pa['mistake_pct'][0] - pt['mistake_pct'][0]:+.2f}, {pa['budget']:g} vs {pt['budget']:g} | "
                    if ok_p is not None
                    else "— | "
                )
                + f"{_verdict(ok_p)} |"
            )
        lines += ["", f"Holds on {held} of {total} datasets.", ""]
    return lines
