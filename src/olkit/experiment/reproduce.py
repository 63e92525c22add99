"""Reproduce a paper table from an experiment config (``experiments/*.toml``) into a markdown page.

    python -m olkit.experiment.reproduce experiments/duol_binary.toml [--only DATASET ... [--merge]]
                                         [--repeats N] [--jobs N] [--output PAGE.md] [--fresh]

Every finished run is stored as it finishes (``<output dir>/.cells/<page stem>/``,
:mod:`olkit.experiment.store`), so a reproduction that is killed loses no finished run: rerunning the
same command reuses them and computes only the rest (``--fresh``: recompute everything). A config
mistake is reported as ``config error: ...`` before anything runs; a dataset that cannot be loaded is
listed as not run, and a run that fails (a refused parameter) as failed, while the rest completes.

``--only DATASET ... --merge`` adds datasets to a page without running the others again: the listed
datasets (their table and analyses) are run, and every other dataset of the config keeps its results
from the page's JSON (``<page>.json``, the last run's) exactly as they are; the page is written from the
union (:func:`merge_previous`).

For every dataset the page shows our mean ± std beside the paper's value and the difference, states
which datasets could not be run and why, and links the online-curve figures. Configs are data, not code
(as SOL's experiment options): dataset list, algorithms, settings, repeats, analyses.

Analyses beside the table, each a config section run on the datasets whose table ran: ``[<name>_sweep]``
with ``parameter``/``values``/``algorithms`` (and ``reference``: algorithms without the parameter, shown
flat) sweeps one parameter, with a figure per dataset (DUOL JMLR Figure 3's C sweep); ``[<name>_comparison]``
with ``algorithms`` compares them pairwise on the table's orderings (DUOL vs DUOL_rand); ``[rho_sweep]``
(``algorithm``, ``rho``) is the same sweep rendered as JMLR Figure 4. Runs the table already made on the
same orderings are reused, not repeated.

Budgeted-learner papers (the Ahpatron config) add, all optional and all data:

* ``[per_dataset.<dataset>]``: ``settings`` (e.g. σ, B, D per dataset, applied like ``[settings]``),
  ``params.<algorithm>``, ``select.<algorithm>`` (replaces the grid per parameter), ``note``;
  a parameter value ``"default"`` drops the key (the learner's own default: e.g. an unbudgeted Projectron
  whatever B the dataset sets);
* ``[select.<algorithm>]``: selection *in hindsight* — every grid point (the product of the parameters'
  grids; ``{values = [...], scale = "1/sqrt(T)"}`` multiplies by 1/√T, ``"1/T^2"`` by 1/T²) runs on all the table's orderings
  and the row reports the point of lowest mean mistake rate (ties: the first in grid order), as the
  papers that "choose the best in hindsight" did; every point's mean is on the page;
* ``seed_per_ordering = true``: randomised learners (a ``seed`` parameter the config does not set) draw
  afresh for every ordering (seed + r on ordering r), as the papers' repeated runs did;
* ``optional_algorithms``: names that join the table, sweeps and comparisons when the registry
  (``olkit.registry.names()``) has them and are listed as not run otherwise;
* ``count = "budget"``: the table shows B|D (B or D of the learner, else its final #SV) beside the paper's;
* a ``[<name>_diagnostic]`` section (``algorithm``, ``diagnostic``, ``paper``): a learner diagnostic of
  the table runs beside a paper table (Ahpatron's |N_T|); a ``*_comparison`` or ``*_sweep`` section
  inherits the table's selected values (``inherit`` maps other labels to a table row), a sweep's
  ``parameter_of`` renames the swept parameter per algorithm (FOGD's D for B), a comparison with a
  ``paper`` key is shown beside that paper table;
* ``[acceptance]`` as rules (``within``, ``lower_than``, ``larger_set``, ``comparison``; see
  :func:`acceptance_rules`) instead of a paper's named function.
"""
import argparse
import datetime
import itertools
import json
import math
import os
import platform
import sys
import time

import numpy as np

from .._files import atomic_open, save_figure, write_text
from ..data import CATALOG, load_dataset
from .backend import BackendError
from .config import (  # noqa: F401
    PAPER_TABLES,
    ConfigError,
    algorithm_settings,
    available_algorithms,
    load_config,
    paper_table,
    paper_values,
    per_dataset,
    validate_config,
)
from .orders import labels_of, make_orders
from .runner import (
    RunFailed,
    check_failures,
    failure_text,
    registry_name,
    run_algorithms,
    split_params,
)
from .store import CellStore

COUNT_LABELS = {"n_sv": "#SV", "n_updates": "#updates"}


SCALES = {"1/sqrt(T)": lambda n: 1.0 / math.sqrt(n), "1/T^2": lambda n: 1.0 / n ** 2}
"""Grid scales by the number of examples T: OGD step sizes 10^k/√T (AHP), BOGD's λ = 2^k/T²."""


def selection_grid(config, name, dataset, n_examples):
    """The grid of ``[select.<name>]`` (``[per_dataset.<dataset>.select.<name>]`` replaces it per
    parameter) on a dataset of ``n_examples``: [{"parameter", "grid" (as written), "scale", "values"
    (the values run: grid × scale(T))}], in the config's order; [] when nothing is selected."""
    grid = dict(config.get("select", {}).get(name, {}))
    grid.update(per_dataset(config, dataset).get("select", {}).get(name, {}))
    out = []
    for key, spec in grid.items():
        values, scale = (spec["values"], spec.get("scale")) if isinstance(spec, dict) else (spec, None)
        if scale is not None and scale not in SCALES:
            raise ValueError(f"[select.{name}] {key}: unknown scale {scale!r}; known: {', '.join(SCALES)}")
        factor = SCALES[scale](n_examples) if scale else None
        out.append({"parameter": key, "grid": list(values), "scale": scale,
                    "values": [v * factor for v in values] if factor else list(values)})
    return out


def select_in_hindsight(results, grid):
    """The result of lowest mean mistake rate among ``results`` (one per grid point, same orderings; ties:
    the first in grid order), with "selected" (the chosen values) and "selection" (the grid and every
    point's summary) added."""
    keys = [g["parameter"] for g in grid]
    best = int(np.argmin([r["mean"]["mistake_rate"] for r in results]))
    row = dict(results[best])
    row["selected"] = {k: row["params"][k] for k in keys}
    row["selection"] = {"grid": grid, "chosen": best, "candidates": [
        {"params": {k: r["params"][k] for k in keys}, "mistake_pct": [100 * r["mean"]["mistake_rate"],
                                                                       100 * r["std"]["mistake_rate"]],
         "n_sv": [r["mean"]["n_sv"], r["std"]["n_sv"]], "seconds": r["mean"]["seconds"]} for r in results]}
    return row


def selected_params(table_doc, label, inherit=None):
    """The values selected in hindsight for the table row ``label`` (or the row ``inherit`` maps it to)."""
    source = (inherit or {}).get(label, label)
    for r in (table_doc or {}).get("results", []):
        if r["algorithm"] == source:
            return dict(r.get("selected", {}))
    return {}


def learner_seeds(config, repeats):
    """With ``seed_per_ordering = true``: the randomised learners' seed for each ordering (ordering r,
    drawn from seed + r, runs them with seed + r), else None (their configured or default seed)."""
    return [config.get("seed", 0) + r for r in range(repeats)] if config.get("seed_per_ordering") else None


def run_dataset(config, dataset, repeats, n_jobs=None, store=None, data=None):
    """The table of one dataset: {"dataset", "n_examples", "n_features", "n_classes", "results"}, and
    "failed" (the failed results, :func:`olkit.experiment.runner.run_algorithms`) when an algorithm
    failed — it leaves the table, the others complete. ``data``: (X, y) if already loaded; ``store``: the
    result store."""
    X, y = data if data is not None else load_dataset(dataset)
    orders = make_orders(X.shape[0], repeats, config.get("seed", 0))
    names, _ = available_algorithms(config, config["algorithms"])
    specs, groups = [], []
    for name in names:
        base = algorithm_settings(config, name, dataset)
        grid = selection_grid(config, name, dataset, X.shape[0])
        points = [dict(zip([g["parameter"] for g in grid], combo))
                  for combo in itertools.product(*[g["values"] for g in grid])]  # [{}] without a grid
        groups.append((name, len(specs), len(points), grid))
        specs += [(name, {**base, **point}) for point in points]
    split_params(names, {})  # validates the names
    # tune = true: parameter selection on the first ordering (docs/algorithms/evaluation.md#parameter-selection);
    # [select]: in hindsight
    results = run_algorithms(specs, X, y, orders, n_jobs=n_jobs, tune=config.get("tune", False),
                             learner_seeds=learner_seeds(config, repeats), store=store)
    rows = []
    for name, start, count, grid in groups:  # a failed grid point leaves the selection (and is reported)
        done = [r for r in results[start:start + count] if "failed" not in r]
        if done:
            rows.append(select_in_hindsight(done, grid) if grid else done[0])
    doc = {"dataset": dataset, "n_examples": int(X.shape[0]), "n_features": int(X.shape[1]),
           "n_classes": int(np.unique(y).size), "results": rows}
    failed = [r for r in results if "failed" in r]
    if failed:
        doc["failed"] = failed
    return doc


def sweep_spec(section):
    """(parameter, values, swept algorithms, reference algorithms) of a sweep section of the config.

    A sweep section has ``parameter``, ``values``, ``algorithms`` (each must have the parameter) and
    optionally ``reference`` (algorithms without it, run once at their table settings and shown flat),
    ``datasets`` and ``repeats``. The §5.4 section's form ``algorithm = "duol"``, ``rho = [...]`` is the
    same sweep with ``parameter = "rho"``.
    """
    if "parameter" in section:
        return (section["parameter"], [float(v) for v in section["values"]], list(section["algorithms"]),
                list(section.get("reference", [])))
    return "rho", [float(v) for v in section["rho"]], [section["algorithm"]], []


def _runs_of(doc, name, labels):
    """The runs of ``name`` on the orderings ``labels`` in an already computed table document, or None."""
    for r in (doc or {}).get("results", []):
        if r["algorithm"] == name:
            by_order = {run["order"]: run for run in r["runs"]}
            if all(label in by_order for label in labels):
                return [by_order[label] for label in labels], r["params"]
    return None


def summarize_runs(runs):
    """Mean ± std (over orderings) of mistake %, #SV, #updates; mean mistakes and diagnostics counters."""
    def mean_std(values):
        v = np.asarray(values, dtype=float)
        return [float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0]

    row = {"mistake_pct": mean_std([100 * r["mistake_rate"] for r in runs]),
           "n_sv": mean_std([r["n_sv"] for r in runs]), "n_updates": mean_std([r["n_updates"] for r in runs]),
           "mistakes": float(np.mean([r["mistakes"] for r in runs])), "orderings": len(runs),
           "seconds": mean_std([r["seconds"] for r in runs])}
    keys = [k for k in runs[0].get("diagnostics", {}) if isinstance(runs[0]["diagnostics"][k], (int, float))]
    if keys:
        row["diagnostics"] = {k: mean_std([r["diagnostics"][k] for r in runs]) for k in keys}
    return row


def parameter_sweep(config, name, dataset, repeats, n_jobs=None, table_doc=None, store=None):
    """Sweep one parameter (config section ``name``, see :func:`sweep_spec`) on one dataset.

    Every swept algorithm runs with its table settings (``algorithm_settings``) except the parameter, set
    to each value, on the first ``repeats`` orderings of the table (the same permutations). Reference
    algorithms are taken from ``table_doc`` (the dataset's table runs on those orderings) when it has
    them, else run. Returns {"parameter", "values", "orderings", "seconds" (wall clock), "algorithms":
    {algorithm: [row per value]}, "reference": {algorithm: row}}, rows as :func:`summarize_runs` with
    "value" (swept) or "params" (reference).
    """
    from ..registry import get

    parameter, values, swept, reference = sweep_spec(config[name])
    section = config[name]
    param_of = section.get("parameter_of", {})  # e.g. FOGD's D swept as the others' B
    inherit = section.get("inherit", {})
    swept, absent = available_algorithms(config, swept)
    reference, absent_ref = available_algorithms(config, reference)
    start = time.perf_counter()
    X, y = load_dataset(dataset)
    orders = make_orders(X.shape[0], repeats, config.get("seed", 0))
    labels = labels_of(orders)
    specs = []
    for algo in swept:
        key = param_of.get(algo, parameter)
        if key not in get(registry_name(algo))._get_param_names():
            raise ValueError(f"[{name}]: {algo} has no parameter {key!r} (list it under 'reference')")
        base = {**algorithm_settings(config, algo, dataset), **selected_params(table_doc, algo, inherit)}
        specs += [(algo, {**base, key: value}) for value in values]
    ref_rows, todo = {}, []
    for algo in reference:
        found = _runs_of(table_doc, algo, labels)
        if found:
            ref_rows[algo] = {**summarize_runs(found[0]), "params": found[1], "reused": True}
        else:
            todo.append((algo, {**algorithm_settings(config, algo, dataset),
                                **selected_params(table_doc, algo, inherit)}))
    results = check_failures(run_algorithms(specs + todo, X, y, orders, n_jobs=n_jobs,
                                            learner_seeds=learner_seeds(config, repeats), store=store))
    table = {algo: [] for algo in swept}
    for (algo, params), res in zip(specs, results):
        table[algo].append({"value": params[param_of.get(algo, parameter)], **summarize_runs(res["runs"]),
                            "mistake_pct_runs": [100 * r["mistake_rate"] for r in res["runs"]]})
    for (algo, _), res in zip(todo, results[len(specs):]):
        ref_rows[algo] = {**summarize_runs(res["runs"]), "params": res["params"], "reused": False}
    out = {"parameter": parameter, "values": values, "orderings": repeats,
           "seconds": time.perf_counter() - start, "algorithms": table,
           "reference": {algo: ref_rows[algo] for algo in reference}}
    inherited = {algo: selected_params(table_doc, algo, inherit) for algo in swept + reference}
    if any(inherited.values()) or param_of or absent or absent_ref:
        out.update(inherited={a: v for a, v in inherited.items() if v}, parameter_of=param_of,
                   not_run=absent + absent_ref)
    return out


def paired_comparison(config, name, dataset, repeats, n_jobs=None, table_doc=None, store=None):
    """Algorithms of config section ``name`` (``algorithms``: the first is the reference) on the same
    orderings, compared pairwise; the table's runs are reused when ``table_doc`` has them on those
    orderings. Returns {"orderings", "seconds", "rows": {algorithm: summary + "mistake_pct_runs"},
    "versus": {algorithm: {"mean_diff", "p_value", "reference_better"}}} (diff = algorithm − reference,
    points; p of the paired two-sided t-test; reference_better = orderings where the reference errs less).
    """
    from scipy.stats import ttest_rel

    algos, absent = available_algorithms(config, list(config[name]["algorithms"]))
    inherit = config[name].get("inherit", {})
    settings = {algo: {**algorithm_settings(config, algo, dataset), **selected_params(table_doc, algo, inherit)}
                for algo in algos}
    start = time.perf_counter()
    X, y = load_dataset(dataset)
    orders = make_orders(X.shape[0], repeats, config.get("seed", 0))
    labels = labels_of(orders)
    runs, reused, todo = {}, [], []
    for algo in algos:
        found = _runs_of(table_doc, algo, labels)
        if found:
            runs[algo] = found[0]
            reused.append(algo)
        else:
            todo.append((algo, settings[algo]))
    for (algo, _), res in zip(todo, check_failures(run_algorithms(todo, X, y, orders, n_jobs=n_jobs, store=store,
                                                                  learner_seeds=learner_seeds(config, repeats)))):
        runs[algo] = res["runs"]
    rows = {algo: {**summarize_runs(runs[algo]), "params": settings[algo],
                   "mistake_pct_runs": [100 * r["mistake_rate"] for r in runs[algo]]} for algo in algos}
    ref = np.array(rows[algos[0]]["mistake_pct_runs"])
    versus = {}
    for algo in algos[1:]:
        other = np.array(rows[algo]["mistake_pct_runs"])
        diff = other - ref
        p = float(ttest_rel(other, ref).pvalue) if len(diff) > 1 and np.any(diff) else float("nan")
        versus[algo] = {"mean_diff": float(diff.mean()), "p_value": p, "reference_better": int(np.sum(diff > 0)),
                        "ties": int(np.sum(diff == 0))}
    out = {"orderings": repeats, "seconds": time.perf_counter() - start, "reused": reused, "rows": rows,
           "versus": versus}
    if absent:
        out["not_run"] = absent
    return out

def rho_sweep(config, dataset, repeats, n_jobs=None, store=None):
    """JMLR §5.4: M, M_d^w(ρ), M_d^s(ρ) of DUOL, averaged over orderings, for each ρ."""
    sweep = parameter_sweep(config, "rho_sweep", dataset, repeats, n_jobs, store=store)
    (rows,) = sweep["algorithms"].values()
    return [{"rho": r["value"], "M": r["mistakes"], "M_d_weak": r["diagnostics"]["weak_double_updates"][0],
             "M_d_strong": r["diagnostics"]["strong_double_updates"][0]} for r in rows]


def _fmt(mean, std, digits):
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def best_by_ttest(results, alpha=0.05):
    """Algorithms whose mistake rates are not significantly worse than the best mean's (paired t-test
    over the common orderings, two-sided, 95%), as the SCW paper marks its best results in bold."""
    from scipy.stats import ttest_rel

    rates = {r["algorithm"]: np.array([run["mistake_rate"] for run in r["runs"]]) for r in results}
    best = min(rates, key=lambda name: rates[name].mean())
    bold = set()
    for name, values in rates.items():
        if not np.any(values - rates[best]):  # identical runs (includes the best itself)
            bold.add(name)
        elif len(values) > 1 and ttest_rel(values, rates[best]).pvalue >= alpha:
            bold.add(name)
    return bold


def dataset_section(doc, paper, fig_rel, config):
    if config.get("count") == "budget":  # budgeted learners: B|D beside the paper's (budget_report)
        from .budget_report import budget_dataset_section

        not_run = {**not_run_reasons(config), **{r["algorithm"]: "failed, see below" for r in doc.get("failed", [])}}
        return budget_dataset_section(doc, paper, paper_values(config["paper"], meta=True), config, not_run,
                                      len(doc["results"][0]["runs"]))
    count = config.get("count", "n_sv")
    label = COUNT_LABELS[count]
    lines = [f"### {doc['dataset']} ({doc['n_examples']} × {doc['n_features']})", ""]
    spec = CATALOG.get(doc["dataset"])
    if spec is not None and spec.notes:
        lines += [f"Data: {spec.notes}", ""]
    tuned = [r for r in doc["results"] if r.get("tuning")]
    if tuned:
        chosen = "; ".join(f"{r['algorithm']}: " + ", ".join(f"{k}={r['params'][k]:g}" for k in
                                                           dict.fromkeys(t["parameter"] for t in r["tuning"]))
                           for r in tuned)
        lines += [f"Selected parameters (one pass per candidate on ordering seed:{config.get('seed', 0)}): {chosen}.", ""]
    bold = best_by_ttest(doc["results"]) if config.get("bold_best") else set()
    lines += [f"| Algorithm | Mistake (%) ours | paper | Δ (points) | {label} ours | paper | Δ | Time (s) ours | paper |",
              "|---|---|---|---|---|---|---|---|---|"]
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
        lines.append(f"| {r['algorithm']} | {ours} | {pm} | {dm} | {_fmt(c, cs, 2)} | {pc} | {dc} | "
                     f"{r['mean']['seconds']:.3f} | {pt} |")
    if bold:
        lines += ["", "Bold: the lowest mean mistake rate and every algorithm not significantly different from it "
                  "(paired t-test over the orderings, 95%)."]
    lines += ["", f"![online mistake rate on {doc['dataset']}]({fig_rel})", ""]
    return lines


def failed_lines(failed):
    """The failed results of a dataset's table (:func:`run_dataset`): algorithm, parameters and why."""
    if not failed:
        return []
    return ["Failed runs (left out of the table above; everything else ran):", ""] + [
        f"- **{r['algorithm']}** {r['params']}: {failure_text(r)}" for r in failed] + [""]


def not_run_reasons(config):
    """{algorithm: why it is not on the page} for the config's optional algorithms this build lacks."""
    _, absent = available_algorithms(config, config["algorithms"])
    return {a: "not in this build's registry" for a in absent}


def acceptance(docs, paper, config, extra=None):
    """The issue's reproduction criteria for the config's paper: a table of rules
    (:func:`olkit.experiment.budget_report.acceptance_rules`) or a paper's named function."""
    if isinstance(config.get("acceptance"), dict):
        from .budget_report import acceptance_rules

        return acceptance_rules(docs, paper, config["acceptance"], extra or {}, config)
    if config.get("acceptance") == "scw":
        return acceptance_scw(docs, paper)
    return acceptance_duol(docs, paper)


def acceptance_scw(docs, paper):
    """SCW-I and SCW-II within 1.5 points of the paper; on noisy synthetic data SCW ≤ AROW < CW."""
    lines = ["| dataset | SCW-I ours (%) | paper | |Δ| ≤ 1.5 | SCW-II ours (%) | paper | |Δ| ≤ 1.5 |",
             "|---|---|---|---|---|---|---|"]
    for doc in docs:
        res = {r["algorithm"]: 100 * r["mean"]["mistake_rate"] for r in doc["results"]}
        cells = [doc["dataset"]]
        for name in ("scw1", "scw2"):
            p = paper.get(doc["dataset"], {}).get(name, {}).get("mistake_pct", [float("nan")])[0]
            ours = res.get(name, float("nan"))
            verdict = "yes" if abs(ours - p) <= 1.5 else ("—" if np.isnan(p) else "NO")
            cells += [f"{ours:.3f}", f"{p:.3f}" if not np.isnan(p) else "—", verdict]
        lines.append("| " + " | ".join(cells) + " |")
    for doc in docs:
        if doc["dataset"] != "synthetic-noise":
            continue
        res = {r["algorithm"]: r for r in doc["results"]}
        if not all(k in res for k in ("scw1", "scw2", "arow", "cw")):
            continue
        mean = {k: 100 * res[k]["mean"]["mistake_rate"] for k in ("scw1", "scw2", "arow", "cw")}
        std = {k: 100 * res[k]["std"]["mistake_rate"] for k in ("scw1", "scw2", "arow", "cw")}
        best_scw = min(("scw1", "scw2"), key=mean.get)
        gap = mean[best_scw] - mean["arow"]
        spread = max(std[best_scw], std["arow"])
        p_gap = paper.get("synthetic-noise", {})
        paper_gap = (min(p_gap["scw1"]["mistake_pct"][0], p_gap["scw2"]["mistake_pct"][0])
                     - p_gap["arow"]["mistake_pct"][0]) if p_gap else float("nan")
        lines += ["", f"Noisy synthetic data (paper: SCW ≤ AROW < CW): SCW-I {mean['scw1']:.2f} %, SCW-II "
                  f"{mean['scw2']:.2f} %, AROW {mean['arow']:.2f} %, CW {mean['cw']:.2f} %. "
                  f"The paper's own Table 3 has the best SCW {paper_gap:+.2f} points from AROW, so 'SCW ≤ AROW' "
                  f"is read as 'within the run-to-run spread': best SCW − AROW = {gap:+.2f} points, spread "
                  f"(larger std) {spread:.2f}: {'yes' if gap <= spread else 'NO'}; "
                  f"AROW < CW: {'yes' if mean['arow'] < mean['cw'] else 'NO'}."]
    return lines


def acceptance_duol(docs, paper):
    """DUOL within 1.5 points of the paper, and DUOL below PA-I (the issue's reproduction criteria)."""
    lines = ["| dataset | DUOL ours (%) | DUOL paper (%) | |Δ| ≤ 1.5 | PA-I ours (%) | DUOL < PA-I |", "|---|---|---|---|---|---|"]
    for doc in docs:
        res = {r["algorithm"]: 100 * r["mean"]["mistake_rate"] for r in doc["results"]}
        if "duol" not in res:
            continue
        p = paper.get(doc["dataset"], {}).get("duol", {}).get("mistake_pct", [float("nan")])[0]
        ok = abs(res["duol"] - p) <= 1.5
        below = res["duol"] < res.get("pa1", float("inf"))
        lines.append(f"| {doc['dataset']} | {res['duol']:.3f} | {p:.3f} | {'yes' if ok else 'NO'} | "
                     f"{res.get('pa1', float('nan')):.3f} | {'yes' if below else 'NO'} |")
    return lines


def plot_rho_sweep(sweeps, path):
    from ..report.plots import _pyplot

    plt = _pyplot()
    n = len(sweeps)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, (dataset, table) in zip(axes.ravel(), sweeps.items()):
        rho = [r["rho"] for r in table]
        ax.plot(rho, [r["M"] for r in table], "o-", label="M")
        ax.plot(rho, [r["M_d_weak"] for r in table], "s-", label="M_d^w(ρ)")
        ax.plot(rho, [r["M_d_strong"] for r in table], "^-", label="M_d^s(ρ)")
        ax.set_title(dataset)
        ax.set_xlabel("ρ")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def reproduce(config_path, only=None, repeats=None, n_jobs=None, output=None, fresh=False, merge=False):
    """Run the config file and write its markdown page; returns (page path, result documents)."""
    command = f"make reproduce  (python -m olkit.experiment.reproduce {config_path})"
    if only or repeats or output:
        command = "python -m olkit.experiment.reproduce " + " ".join(sys.argv[1:])
    return reproduce_config(load_config(config_path), command, only, repeats, n_jobs, output, fresh, merge)


def reproduce_config(config, command, only=None, repeats=None, n_jobs=None, output=None, fresh=False, merge=False):
    """:func:`run_config` on the config's ``backend`` / ``scheduler`` (:func:`olkit.experiment.backend.use`:
    local joblib processes, or a Dask cluster; issue 10 item 5)."""
    from . import backend

    validate_config(config)
    with backend.use(config.get("backend"), config.get("scheduler"), n_jobs):
        return run_config(config, command, only, repeats, n_jobs, output, fresh, merge)


def run_config(config, command, only=None, repeats=None, n_jobs=None, output=None, fresh=False, merge=False):
    """Run an experiment config (a dict as in experiments/*.toml) and write its markdown page.

    The config is checked first (:func:`olkit.experiment.config.validate_config`: a mistake is a
    :class:`ConfigError` before anything runs). Every finished run is kept in the result store
    ``<output dir>/.cells/<page stem>/`` (:mod:`olkit.experiment.store`) as it finishes and reused by
    the next run, so a killed reproduction loses no finished run; ``fresh=True`` recomputes them all. A
    complete run of the whole config (no ``only``, no ``repeats``, no dataset skipped) then removes the
    stored runs it did not use. A dataset that cannot be loaded is listed as not run, a failed run as
    failed; the rest completes. ``merge=True`` (with ``only``) keeps the other datasets' results from the
    page's previous JSON (:func:`merge_previous`).
    """
    from ..report.plots import plot_curves

    validate_config(config)
    if merge and not only:
        raise ConfigError("--merge adds the datasets of --only to the page's last results; give --only DATASET ...")
    if merge and repeats and repeats != config.get("repeats", 20):
        raise ConfigError(f"--merge keeps the page's other datasets at the config's {config.get('repeats', 20)} "
                          f"orderings; --repeats {repeats} would mix two protocols on one page")
    whole = not only and not repeats
    repeats = repeats or config.get("repeats", 20)
    output = output or config.get("output")
    if not output:
        raise ConfigError("missing key 'output' (the page to write; or give --output)")
    out_dir = os.path.dirname(output) or "."
    fig_dir = os.path.join(out_dir, "figures")
    os.makedirs(fig_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(output))[0]
    store = CellStore(os.path.join(out_dir, ".cells", stem), reuse=not fresh)
    paper = paper_table(config)
    previous = read_previous(output) if merge else None  # before anything runs: a missing page fails at once
    datasets = [d for d in config["datasets"] if not only or d in only]
    docs, skipped = [], []
    start = time.perf_counter()
    for dataset in datasets:
        try:
            data = load_dataset(dataset)
        except (ValueError, OSError, EOFError) as exc:  # the dataset's files are missing or unreadable here
            skipped.append((dataset, str(exc)))
            continue
        doc = run_dataset(config, dataset, repeats, n_jobs, store=store, data=data)
        if not doc["results"]:
            skipped.append((dataset, "every algorithm failed: " + "; ".join(
                f"{r['algorithm']}: {failure_text(r)}" for r in doc["failed"])))
            continue
        fig = os.path.join(fig_dir, f"{stem}-{dataset}-curves.png")
        plot_curves(doc, fig, title=f"{dataset}: online mistake rate ({repeats} orderings)")
        doc["figure"] = os.path.relpath(fig, out_dir)
        docs.append(doc)
        print(f"[reproduce] {dataset} done ({time.perf_counter() - start:.0f} s since the start)", file=sys.stderr)
    sweeps, failed = {}, []
    if "rho_sweep" in config:
        for dataset in config["rho_sweep"]["datasets"]:
            if dataset in [d["dataset"] for d in docs]:
                try:
                    sweeps[dataset] = rho_sweep(config, dataset, config["rho_sweep"].get("repeats", repeats), n_jobs,
                                                store)
                except RunFailed as exc:
                    failed.append({"section": "rho_sweep", "dataset": dataset, "error": str(exc)})
    extra = run_sections(config, docs, repeats, n_jobs, fig_dir, out_dir, stem, store)
    if failed or extra.get("failed"):
        extra["failed"] = failed + extra.get("failed", [])
    if config.get("report_wall_time"):
        extra["wall_seconds"] = time.perf_counter() - start
    if merge:
        docs, skipped, sweeps, extra = merge_previous(config, previous, datasets, docs, skipped, sweeps, extra)
        extra["merged"] = previous.get("merged", []) + [{"date": datetime.date.today().isoformat(),
                                                         "command": command, "datasets": datasets}]
    if sweeps:
        plot_rho_sweep(sweeps, os.path.join(fig_dir, f"{stem}-rho-sweep.png"))
    page = render_page(config, docs, skipped, sweeps, paper, repeats, command, stem, output, extra)
    write_text(output, page)
    with atomic_open(os.path.splitext(output)[0] + ".json") as fh:
        json.dump({"config": config, "results": docs, "rho_sweep": sweeps, **extra,
                   "page": {"command": command, "repeats": repeats, "skipped": skipped}}, fh, indent=1)
    if whole and not skipped:
        store.prune()
    print(f"[reproduce] {store.summary()}", file=sys.stderr)
    return output, docs


def read_previous(output):
    """The JSON a run saved beside the page ``output`` (for ``--merge``); ConfigError if there is none."""
    path = os.path.splitext(output)[0] + ".json"
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--merge needs the page's last results, {path}: {getattr(exc, 'strerror', None) or exc}") from None


def merge_previous(config, previous, ran, docs, skipped, sweeps, extra):
    """The union of this run, on the datasets ``ran``, and the ``previous`` run (the page's JSON) on the
    config's other datasets, whose results are taken as they are: (docs, skipped, rho sweeps, extra), each
    in the config's dataset order. Datasets no longer in the config are dropped; the analyses are merged
    per dataset, and a learner diagnostic table (read from the table runs) is made again from the union."""
    order = {d: i for i, d in enumerate(config["datasets"])}
    ran = set(ran)

    def union(old, new):
        kept = {d: v for d, v in (old or {}).items() if d in order and d not in ran}
        return dict(sorted({**kept, **new}.items(), key=lambda item: order.get(item[0], len(order))))

    by_name = union({d["dataset"]: d for d in previous.get("results", [])}, {d["dataset"]: d for d in docs})
    old_skipped = {s[0]: tuple(s) for s in previous.get("page", {}).get("skipped", [])}
    skipped = list(union(old_skipped, {d: (d, why) for d, why in skipped}).values())
    sweeps = union(previous.get("rho_sweep", {}), sweeps)
    merged = {k: v for k, v in extra.items() if k not in ("sweeps", "comparisons", "diagnostics", "failed",
                                                            "wall_seconds", "merged")}
    for key in ("sweeps", "comparisons"):
        names = list(dict.fromkeys([*previous.get(key, {}), *extra.get(key, {})]))
        merged[key] = {name: union(previous.get(key, {}).get(name), extra.get(key, {}).get(name, {}))
                       for name in names if name in config}
    failed = [f for f in previous.get("failed", []) if f["dataset"] in order and f["dataset"] not in ran]
    if failed + extra.get("failed", []):
        merged["failed"] = failed + extra.get("failed", [])
    if "wall_seconds" in extra:
        merged["wall_seconds"] = extra["wall_seconds"] + previous.get("wall_seconds", 0.0)
    docs = list(by_name.values())
    for name in extra.get("diagnostics", {}):
        from .budget_report import diagnostic_table

        merged.setdefault("diagnostics", {})[name] = diagnostic_table(config[name], docs)
    return docs, skipped, sweeps, merged


def render_from_json(path, output=None):
    """Write the page again from the JSON a run saved beside it (e.g. after editing the ``.notes.md``),
    without running anything; returns the page path."""
    with open(path) as fh:
        data = json.load(fh)
    config = data["config"]
    output = output or os.path.splitext(path)[0] + ".md"
    meta = data.get("page", {})
    extra = {k: data[k] for k in ("sweeps", "comparisons", "diagnostics", "wall_seconds", "failed", "merged")
             if k in data}
    page = render_page(config, data["results"], [tuple(s) for s in meta.get("skipped", [])], data.get("rho_sweep", {}),
                       paper_table(config), meta.get("repeats", config.get("repeats", 20)),
                       meta.get("command", "python -m olkit.experiment.reproduce"),
                       os.path.splitext(os.path.basename(output))[0], output, extra)
    write_text(output, page)
    return output


def section_kind(name, section):
    """"sweep" for a ``*_sweep`` section with a ``parameter`` (the §5.4 ``rho_sweep`` form is rendered as
    before), "comparison" for a ``*_comparison`` section, else None."""
    if not isinstance(section, dict):
        return None
    if name.endswith("_sweep") and "parameter" in section:
        return "sweep"
    if name.endswith("_comparison") and "algorithms" in section:
        return "comparison"
    if name.endswith("_diagnostic") and "diagnostic" in section:
        return "diagnostic"
    return None


def run_sections(config, docs, repeats, n_jobs, fig_dir, out_dir, stem, store=None):
    """The config's generic analyses, on the datasets whose table ran: {"sweeps": {section: {dataset:
    parameter_sweep document (+ "figure")}}, "comparisons": {section: {dataset: paired_comparison
    document}}}, in config order; "failed": [{"section", "dataset", "error"}] for an analysis with a
    failed run (the others complete)."""
    from ..report.plots import plot_sweep

    by_name = {d["dataset"]: d for d in docs}
    out = {"sweeps": {}, "comparisons": {}}
    for name, section in config.items():
        kind = section_kind(name, section)
        if kind is None:
            continue
        if kind == "diagnostic":  # read from the table's runs, nothing to run
            from .budget_report import diagnostic_table

            out.setdefault("diagnostics", {})[name] = diagnostic_table(section, docs)
            continue
        n = section.get("repeats", repeats)
        for dataset in section.get("datasets", config["datasets"]):
            if dataset not in by_name:
                continue
            try:
                run = paired_comparison if kind == "comparison" else parameter_sweep
                doc = run(config, name, dataset, n, n_jobs, by_name[dataset], store)
            except RunFailed as exc:
                out.setdefault("failed", []).append({"section": name, "dataset": dataset, "error": str(exc)})
                continue
            if kind == "comparison":
                out["comparisons"].setdefault(name, {})[dataset] = doc
            else:
                fig = os.path.join(fig_dir, f"{stem}-{dataset}-{name.replace('_', '-')}.png")
                table_settings = {**config.get("settings", {}), **per_dataset(config, dataset).get("settings", {})}
                mark = section.get("mark", table_settings.get(doc["parameter"]))  # the table's value
                labels = {a: f"{a} ({p})" for a, p in doc.get("parameter_of", {}).items()}
                plot_sweep(doc, fig, title=f"{dataset}: {section.get('y_label', 'mistake rate')} vs {doc['parameter']} "
                           f"({n} orderings)", mark=mark, highlight=section.get("highlight", ()), labels=labels,
                           ticks=section.get("ticks", False))
                doc["figure"] = os.path.relpath(fig, out_dir)
                out["sweeps"].setdefault(name, {})[dataset] = doc
            print(f"[reproduce] {name} {dataset} done ({doc['seconds']:.0f} s)", file=sys.stderr)
    return out


def _fmt_value(v):
    """A swept value: 2^k for powers of two (the C grids), else as is."""
    if v > 0 and float(np.log2(v)).is_integer() and v != 1 and (v < 1 or v > 2):
        return f"2^{int(np.log2(v))}"
    return f"{v:g}"


def comparison_section(name, section, table, paper):
    algos = list(section["algorithms"])
    first = next(iter(table.values()))
    ref = algos[0]
    lines = [f"## {section.get('title', name)}", ""]
    if section.get("text"):
        lines += [section["text"].strip(), ""]
    lines += [f"{first['orderings']} orderings per dataset (the first {first['orderings']} of the table's); runs of {', '.join(first['reused']) or 'no algorithm'} are the table's own. Settings: "
              + "; ".join(f"{a} {first['rows'][a]['params']}" for a in algos) + ". Mean ± std over the orderings; "
              f"Δ = algorithm − {ref} (points); p: paired two-sided t-test over the orderings; "
              f"'{ref} lower' counts the orderings where {ref} errs less.", ""]
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
    diag = [k for k in ("double_updates", "strong_double_updates", "weak_double_updates")
            if all(k in doc["rows"][a].get("diagnostics", {}) for doc in table.values() for a in algos)]
    labels = {"double_updates": "double updates", "strong_double_updates": "strong (M_d^s)",
              "weak_double_updates": "weak (M_d^w)"}
    cols = [("#SV", lambda r: _fmt(*r["n_sv"], 1)), ("mistakes", lambda r: f"{r['mistakes']:.1f}")]
    cols += [(labels[k], lambda r, k=k: _fmt(*r["diagnostics"][k], 1)) for k in diag]
    lines += ["", "| dataset | algorithm | " + " | ".join(c for c, _ in cols) + " |", "|---|---|" + "---|" * len(cols)]
    for dataset, doc in table.items():
        for a in algos:
            lines.append(f"| {dataset} | {a} | " + " | ".join(f(doc["rows"][a]) for _, f in cols) + " |")
    if diag:
        lines += ["", "Double updates: margin-error rounds on which an auxiliary SV was updated too; strong and weak "
                  "(JMLR Theorem 4) are counted on mistake rounds only "
                  "(docs/algorithms/duol.md#strong-and-weak-double-updates)."]
    return lines + [""]


def _versus(a, b, alpha=0.05):
    """Lower / equal / higher mean of run lists ``a`` vs ``b`` (paired, same orderings), and whether the
    difference is significant (paired two-sided t-test); equal = identical runs."""
    from scipy.stats import ttest_rel

    a, b = np.asarray(a), np.asarray(b)
    if not np.any(a - b):
        return 0, False
    sign = -1 if a.mean() < b.mean() else 1
    return sign, len(a) > 1 and bool(ttest_rel(a, b).pvalue < alpha)


def sweep_claims_duol(table):
    """JMLR §5.3's statements about Figure 3, checked on our C sweep, one row per dataset."""
    lines = ["| dataset | DUOL vs DUOL_rand | DUOL vs DUOL_iter | DUOL vs DUOL_appr | DUOL lowest of all | "
             "DUOL's best C (mistake %) | DUOL at the largest C (lowest of all?) | paper: DUOL's best C |",
             "|---|---|---|---|---|---|---|---|"]
    for dataset, sw in table.items():
        algos = sw["algorithms"]
        if "duol" not in algos:
            continue
        duol = [r["mistake_pct"][0] for r in algos["duol"]]
        n = len(duol)

        def versus(other, algos=algos):
            if other not in algos:
                return "—"
            res = [_versus(d["mistake_pct_runs"], o["mistake_pct_runs"]) for d, o in zip(algos["duol"], algos[other])]
            count = {s: sum(1 for sign, _ in res if sign == s) for s in (-1, 0, 1)}
            sig = {s: sum(1 for sign, ok in res if sign == s and ok) for s in (-1, 1)}
            return f"{count[-1]}–{count[0]}–{count[1]} (sig. {sig[-1]}–{sig[1]})"

        refs = [r["mistake_pct"][0] for r in sw["reference"].values()]
        lowest = [all(d <= rows[i]["mistake_pct"][0] for rows in algos.values()) and all(d <= x for x in refs)
                  for i, d in enumerate(duol)]
        best = int(np.argmin(duol))
        expect = "smaller C better" if dataset in ("german", "w7a") else "large C (> 10)"
        lines.append(f"| {dataset} | {versus('duol-rand')} | {versus('duol-iter')} | {versus('duol-appr')} | "
                     f"{sum(lowest)}/{n} | {_fmt_value(sw['values'][best])} ({duol[best]:.3f}) | "
                     f"{_fmt_value(sw['values'][-1])}: {duol[-1]:.3f} ({'yes' if lowest[-1] else 'no'}) | {expect} |")
    return lines + ["", "DUOL vs X: at how many grid values DUOL's mean mistake rate is lower–equal (identical runs)–"
                    "higher than X's, and in parentheses how many of the lower and higher are significant (paired "
                    "t-test over the orderings, 95%). Lowest of all: DUOL's mean is at most every swept and "
                    "reference algorithm's at that C."]


def sweep_section(name, section, table):
    first = next(iter(table.values()))
    parameter, values = first["parameter"], first["values"]
    swept = list(first["algorithms"])
    reference = list(first["reference"])
    grid = ", ".join(_fmt_value(v) for v in values)
    lines = [f"## {section.get('title', name)}", ""]
    if section.get("text"):
        lines += [section["text"].strip(), ""]
    lines += [f"Grid (ours): {parameter} ∈ {{{grid}}} ({len(values)} values). "
              + (f"The paper's grid: {section['paper_grid']}. " if section.get("paper_grid") else "")
              + f"{first['orderings']} orderings per value: the first {first['orderings']} of the table's, so every "
              f"point is on the same permutations. Other parameters as in the table. Swept: {', '.join(swept)}. "
              + (f"Shown as flat reference lines (no parameter {parameter}; table settings, same orderings): "
                 f"{', '.join(reference)}. " if reference else "")
              + f"Wall clock ({os.cpu_count()} CPUs, shared): "
              + ", ".join(f"{d} {doc['seconds']:.0f} s" for d, doc in table.items())
              + f"; total {sum(doc['seconds'] for doc in table.values()):.0f} s.", ""]
    if first.get("inherited") or first.get("parameter_of") or first.get("not_run"):
        from .budget_report import pname

        lines += [" ".join(filter(None, [
            ("Swept as " + ", ".join(f"{a}'s {p}" for a, p in first["parameter_of"].items()) + f" = {parameter}."
             if first.get("parameter_of") else ""),
            ("The values selected in hindsight for the table are kept at every point (per dataset): "
             + "; ".join(f"{d}: " + ", ".join(f"{a} " + ", ".join(f"{pname(k)} = {v:.4g}" for k, v in sel.items())
                                             for a, sel in doc.get("inherited", {}).items())
                         for d, doc in table.items() if doc.get("inherited")) + "."
             if any(doc.get("inherited") for doc in table.values()) else ""),
            (f"Not run (not in this build): {', '.join(first['not_run'])}." if first.get("not_run") else "")])), ""]
    if section.get("claims") == "duol_fig3":
        lines += ["### What §5.3 says about Figure 3, checked", ""] + sweep_claims_duol(table) + [""]
    lines += [f"### Best {parameter} per algorithm (lowest mean mistake %, ties → smaller {parameter})", "",
              "| dataset | " + " | ".join(swept) + " |", "|---|" + "---|" * len(swept)]
    for dataset, sw in table.items():
        cells = []
        for a in swept:
            rows = sw["algorithms"][a]
            i = int(np.argmin([r["mistake_pct"][0] for r in rows]))
            cells.append(f"{_fmt_value(rows[i]['value'])} ({rows[i]['mistake_pct'][0]:.2f})")
        lines.append(f"| {dataset} | " + " | ".join(cells) + " |")
    lines.append("")
    for dataset, sw in table.items():
        lines += [f"### {dataset}", "", f"![mistake rate vs {parameter} on {dataset}]({sw['figure']})", "",
                  f"Mistake (%), mean ± std over {sw['orderings']} orderings; bold: the algorithm's best {parameter}.", "",
                  "| algorithm | " + " | ".join(_fmt_value(v) for v in sw["values"]) + " |",
                  "|---|" + "---|" * len(sw["values"])]
        for a, rows in sw["algorithms"].items():
            best = int(np.argmin([r["mistake_pct"][0] for r in rows]))
            cells = [_fmt(*r["mistake_pct"], 2) for r in rows]
            cells[best] = f"**{cells[best]}**"
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        for a, row in sw["reference"].items():
            lines.append(f"| {a} (no {parameter}) | " + " | ".join([_fmt(*row["mistake_pct"], 2)] * len(sw["values"]))
                         + " |")
        lines.append("")
    return lines


def selection_paragraph(config):
    """How the config selects parameters in hindsight: the grids, stated as such."""
    from .budget_report import grid_label, pname

    def grids(select):
        parts = []
        for algo, grid in select.items():
            specs = []
            for key, spec in grid.items():
                values, scale = (spec["values"], spec.get("scale")) if isinstance(spec, dict) else (spec, None)
                specs.append(f"{pname(key)} ∈ {{{', '.join(grid_label(v, scale) for v in values)}}}")
            parts.append(f"{algo}: {'; '.join(specs)}")
        return parts

    local = [f"{d}: {', '.join(grids(s['select']))}" for d, s in config.get("per_dataset", {}).items()
             if s.get("select")]
    return ["## Parameter selection: in hindsight", "",
            "**Selection in hindsight, as the paper did:** for each algorithm with a grid, every grid point "
            "runs on all the orderings of the table, and the table reports the point with the lowest mean "
            "AMR over those same orderings (ties: the first in grid order). This is optimistic for every "
            "algorithm with a grid alike (no held-out data); each dataset's section lists every grid point's "
            "mean. T = the dataset's number of examples. Grids: " + " · ".join(grids(config["select"])) + "."
            + (" Grids replaced on some datasets (see their notes): " + " · ".join(local) + "." if local else ""), ""]


def render_page(config, docs, skipped, sweeps, paper, repeats, command, stem, output, extra=None):
    notes_path = os.path.splitext(config.get("notes", output))[0] + ".notes.md"
    lines = [f"# {config['title']}", "",
             f"Generated {datetime.date.today().isoformat()} by `{command}` "
             f"(olkit, Python {platform.python_version()}, {platform.machine()}).", ""]
    if (extra or {}).get("merged"):  # datasets added with --merge: the others' rows are an earlier run's
        lines += ["Datasets run with `--merge` into an earlier run's page (every other dataset's results, "
                  "analyses included, are that earlier run's, unchanged): " + "; ".join(
                      f"{m['date']}: {', '.join(m['datasets'])} (`{m['command']}`)" for m in extra["merged"]) + ".", ""]
    lines += [f"Protocol: {repeats} random orderings per dataset (ordering r drawn from seed {config.get('seed', 0)} + r), "
              f"settings {config.get('settings', {})}, per-algorithm overrides {config.get('params', {})}"
              + (", per-dataset settings " + str({d: v.get("settings", {}) for d, v in config["per_dataset"].items()})
                 + " and overrides " + str({d: v["params"] for d, v in config["per_dataset"].items() if v.get("params")})
                 if config.get("per_dataset") else "") + ". "
              + " ".join(config.get("protocol_text", "Mistake rate is the online cumulative mistake rate; #SV the final "
                                    "number of support vectors, #updates the number of updating rounds; time is learning "
                                    "time only (the papers' times are MATLAB, so only their ratios are "
                                    "comparable).").split()), ""]
    if os.path.exists(notes_path):  # hand-written discussion of the differences, kept beside the page
        with open(notes_path) as fh:
            lines += [fh.read().rstrip(), ""]
    if config.get("select"):
        lines += selection_paragraph(config)
    absent = not_run_reasons(config)
    if absent:
        lines += [f"Not run: {', '.join(absent)} (listed in `optional_algorithms`, not in this build's registry, "
                  "`olkit.registry.names()`; it joins the table when it is registered). The paper's rows are "
                  "shown.", ""]
    if "wall_seconds" in (extra or {}):
        lines += [f"Wall clock of the whole run: {extra['wall_seconds'] / 60:.1f} min on {os.cpu_count()} "
                  "CPUs (shared with other work, so timings are noisy).", ""]
    lines += ["## Acceptance summary", ""] + acceptance(docs, paper, config, extra) + [""]
    if skipped:
        lines += ["## Datasets not run", ""] + [f"- **{d}**: {why}" for d, why in skipped] + [""]
    if (extra or {}).get("failed"):
        lines += ["## Analyses not run (a run failed)", ""] + [f"- **{f['section']}** on {f['dataset']}: {f['error']}"
                                                               for f in extra["failed"]] + [""]
    missing = sorted(set(paper) - set(config["datasets"]))
    if missing:
        lines += [f"Paper datasets not in olkit's catalog: {', '.join(missing)} (no copy of them was found; "
                  "`olkit datasets` lists what can be had).", ""]
    lines += ["## Results per dataset", ""]
    for doc in docs:
        lines += dataset_section(doc, paper, doc["figure"], config) + failed_lines(doc.get("failed", []))
    extra = extra or {}
    for name, section in config.items():
        if name in extra.get("comparisons", {}) and section.get("paper"):
            from .budget_report import budget_comparison_section

            lines += budget_comparison_section(name, section, extra["comparisons"][name], paper_values(section["paper"]),
                                               config)
        elif name in extra.get("comparisons", {}):
            lines += comparison_section(name, section, extra["comparisons"][name], paper)
        elif name in extra.get("sweeps", {}):
            lines += sweep_section(name, section, extra["sweeps"][name])
        elif name in extra.get("diagnostics", {}):
            from .budget_report import diagnostic_section

            lines += diagnostic_section(name, section, extra["diagnostics"][name],
                                        paper_values(section["paper"]) if section.get("paper") else {})
    if sweeps:
        lines += ["## §5.4: double updates vs ρ (JMLR Figure 4)", "",
                  f"![M, M_d^w and M_d^s vs rho](figures/{stem}-rho-sweep.png)", "",
                  "| dataset | ρ | M | M_d^w(ρ) | M_d^s(ρ) |", "|---|---|---|---|---|"]
        for dataset, table in sweeps.items():
            lines += [f"| {dataset} | {r['rho']:.1f} | {r['M']:.1f} | {r['M_d_weak']:.1f} | {r['M_d_strong']:.1f} |"
                      for r in table]
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--only", nargs="+", metavar="DATASET")
    parser.add_argument("--merge", action="store_true", help="with --only: keep the other datasets' results from "
                        "the page's last JSON and write the page from the union (adds datasets to a page)")
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--output")
    parser.add_argument("--fresh", action="store_true", help="recompute every run instead of reusing the finished "
                        "runs stored in <output dir>/.cells/<page stem>/ (by a run that was killed, say)")
    parser.add_argument("--render-only", action="store_true",
                        help="rewrite the page from the JSON of the last run (CONFIG: that .json file)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar or compile notice on stderr "
                        "(shown only when stderr is a terminal, or with OLKIT_PROGRESS=1)")
    args = parser.parse_args(argv)
    from .. import progress

    progress.activate(quiet=args.quiet)
    if args.render_only:
        try:
            print(render_from_json(args.config, args.output))
        except (OSError, ValueError, KeyError) as exc:  # not a page's JSON (e.g. the TOML config was given)
            print(f"--render-only needs the JSON a run saved beside its page (e.g. docs/reproduction/"
                  f"duol-multiclass.json); cannot read {args.config}: {type(exc).__name__}: {exc}", file=sys.stderr)
            sys.exit(2)
        return
    try:
        page, _ = reproduce(args.config, only=args.only, repeats=args.repeats, n_jobs=args.jobs, output=args.output,
                            fresh=args.fresh, merge=args.merge)
    except (ConfigError, BackendError) as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback; the finished runs are in the result store
        print("reproduce: interrupted (the finished runs are kept in the result store, <output dir>/.cells; rerun "
              "the same command to reuse them)", file=sys.stderr)
        sys.exit(130)
    print(page)


if __name__ == "__main__":
    main()
