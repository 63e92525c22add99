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
  grids; ``{values = [...], scale = "1/sqrt(T)"}`` multiplies by 1/√T, ``"1/T^2"`` by 1/T²) runs on all the table's
  orderings
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
  :func:`olkit.experiment.acceptance.acceptance_rules`).

Every config states its acceptance criteria as data (``[[acceptance.<kind>]]``, the DUOL and SCW pages'
``table`` and ``within_spread`` rules too); a config without them has no acceptance summary.

This module is the driver: it runs a config's tables and analyses, merges a previous run's results, and
writes the page and its JSON. The parts have one module each: statistics :mod:`olkit.experiment.stats`,
parameter selection :mod:`olkit.experiment.selection`, the page :mod:`olkit.experiment.page` (with
:mod:`olkit.experiment.budget_report` and :mod:`olkit.experiment.acceptance`), the figures
:mod:`olkit.report.plots`.
"""

import argparse
import datetime
import itertools
import json
import os
import sys
import time

import numpy as np

from .._files import atomic_open, write_text
from ..data import load_dataset
from .backend import BackendError
from .budget_report import diagnostic_table
from .config import (  # noqa: F401  (load_config, paper_values: the names the tests and notebooks import from here)
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
from .page import render_page
from .runner import (
    RunFailed,
    check_failures,
    failure_text,
    registry_name,
    run_algorithms,
    split_params,
)
from .selection import select_in_hindsight, selected_params, selection_grid, sweep_spec
from .stats import paired_ttest, summarize_runs
from .store import CellStore


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
        points = [
            dict(zip([g["parameter"] for g in grid], combo))
            for combo in itertools.product(*[g["values"] for g in grid])
        ]  # [{}] without a grid
        groups.append((name, len(specs), len(points), grid))
        specs += [(name, {**base, **point}) for point in points]
    split_params(names, {})  # validates the names
    # tune = true: parameter selection on the first ordering (docs/algorithms/evaluation.md#parameter-selection);
    # [select]: in hindsight
    results = run_algorithms(
        specs,
        X,
        y,
        orders,
        n_jobs=n_jobs,
        tune=config.get("tune", False),
        learner_seeds=learner_seeds(config, repeats),
        store=store,
    )
    rows = []
    for _name, start, count, grid in groups:  # a failed grid point leaves the selection (and is reported)
        done = [r for r in results[start : start + count] if "failed" not in r]
        if done:
            rows.append(select_in_hindsight(done, grid) if grid else done[0])
    doc = {
        "dataset": dataset,
        "n_examples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "n_classes": int(np.unique(y).size),
        "results": rows,
    }
    failed = [r for r in results if "failed" in r]
    if failed:
        doc["failed"] = failed
    return doc


def _runs_of(doc, name, labels):
    """The runs of ``name`` on the orderings ``labels`` in an already computed table document, or None."""
    for r in (doc or {}).get("results", []):
        if r["algorithm"] == name:
            by_order = {run["order"]: run for run in r["runs"]}
            if all(label in by_order for label in labels):
                return [by_order[label] for label in labels], r["params"]
    return None


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
            todo.append(
                (algo, {**algorithm_settings(config, algo, dataset), **selected_params(table_doc, algo, inherit)})
            )
    results = check_failures(
        run_algorithms(
            specs + todo, X, y, orders, n_jobs=n_jobs, learner_seeds=learner_seeds(config, repeats), store=store
        )
    )
    table = {algo: [] for algo in swept}
    for (algo, params), res in zip(specs, results):
        table[algo].append(
            {
                "value": params[param_of.get(algo, parameter)],
                **summarize_runs(res["runs"]),
                "mistake_pct_runs": [100 * r["mistake_rate"] for r in res["runs"]],
            }
        )
    for (algo, _), res in zip(todo, results[len(specs) :]):
        ref_rows[algo] = {**summarize_runs(res["runs"]), "params": res["params"], "reused": False}
    out = {
        "parameter": parameter,
        "values": values,
        "orderings": repeats,
        "seconds": time.perf_counter() - start,
        "algorithms": table,
        "reference": {algo: ref_rows[algo] for algo in reference},
    }
    inherited = {algo: selected_params(table_doc, algo, inherit) for algo in swept + reference}
    if any(inherited.values()) or param_of or absent or absent_ref:
        out.update(
            inherited={a: v for a, v in inherited.items() if v}, parameter_of=param_of, not_run=absent + absent_ref
        )
    return out


def paired_comparison(config, name, dataset, repeats, n_jobs=None, table_doc=None, store=None):
    """Algorithms of config section ``name`` (``algorithms``: the first is the reference) on the same
    orderings, compared pairwise; the table's runs are reused when ``table_doc`` has them on those
    orderings. Returns {"orderings", "seconds", "rows": {algorithm: summary + "mistake_pct_runs"},
    "versus": {algorithm: {"mean_diff", "p_value", "reference_better"}}} (diff = algorithm − reference,
    points; p of the paired two-sided t-test; reference_better = orderings where the reference errs less).
    """
    algos, absent = available_algorithms(config, list(config[name]["algorithms"]))
    inherit = config[name].get("inherit", {})
    settings = {
        algo: {**algorithm_settings(config, algo, dataset), **selected_params(table_doc, algo, inherit)}
        for algo in algos
    }
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
    for (algo, _), res in zip(
        todo,
        check_failures(
            run_algorithms(todo, X, y, orders, n_jobs=n_jobs, store=store, learner_seeds=learner_seeds(config, repeats))
        ),
    ):
        runs[algo] = res["runs"]
    rows = {
        algo: {
            **summarize_runs(runs[algo]),
            "params": settings[algo],
            "mistake_pct_runs": [100 * r["mistake_rate"] for r in runs[algo]],
        }
        for algo in algos
    }
    ref = np.array(rows[algos[0]]["mistake_pct_runs"])
    versus = {}
    for algo in algos[1:]:
        other = np.array(rows[algo]["mistake_pct_runs"])
        diff = other - ref
        test = paired_ttest(other, ref)
        versus[algo] = {
            "mean_diff": test.mean_diff,
            "p_value": test.p_value,
            "reference_better": int(np.sum(diff > 0)),
            "ties": int(np.sum(diff == 0)),
        }
    out = {
        "orderings": repeats,
        "seconds": time.perf_counter() - start,
        "reused": reused,
        "rows": rows,
        "versus": versus,
    }
    if absent:
        out["not_run"] = absent
    return out


def rho_sweep(config, dataset, repeats, n_jobs=None, store=None):
    """JMLR §5.4: M, M_d^w(ρ), M_d^s(ρ) of DUOL, averaged over orderings, for each ρ."""
    sweep = parameter_sweep(config, "rho_sweep", dataset, repeats, n_jobs, store=store)
    (rows,) = sweep["algorithms"].values()
    return [
        {
            "rho": r["value"],
            "M": r["mistakes"],
            "M_d_weak": r["diagnostics"]["weak_double_updates"][0],
            "M_d_strong": r["diagnostics"]["strong_double_updates"][0],
        }
        for r in rows
    ]


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
        raise ConfigError(
            f"--merge keeps the page's other datasets at the config's {config.get('repeats', 20)} "
            f"orderings; --repeats {repeats} would mix two protocols on one page"
        )
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
            skipped.append(
                (
                    dataset,
                    "every algorithm failed: "
                    + "; ".join(f"{r['algorithm']}: {failure_text(r)}" for r in doc["failed"]),
                )
            )
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
                    sweeps[dataset] = rho_sweep(
                        config, dataset, config["rho_sweep"].get("repeats", repeats), n_jobs, store
                    )
                except RunFailed as exc:
                    failed.append({"section": "rho_sweep", "dataset": dataset, "error": str(exc)})
    extra = run_sections(config, docs, repeats, n_jobs, fig_dir, out_dir, stem, store)
    if failed or extra.get("failed"):
        extra["failed"] = failed + extra.get("failed", [])
    if config.get("report_wall_time"):
        extra["wall_seconds"] = time.perf_counter() - start
    if merge:
        docs, skipped, sweeps, extra = merge_previous(config, previous, datasets, docs, skipped, sweeps, extra)
        extra["merged"] = previous.get("merged", []) + [
            {"date": datetime.date.today().isoformat(), "command": command, "datasets": datasets}
        ]
    if sweeps:
        from ..report.plots import plot_rho_sweep

        plot_rho_sweep(sweeps, os.path.join(fig_dir, f"{stem}-rho-sweep.png"))
    page = render_page(config, docs, skipped, sweeps, paper, repeats, command, stem, output, extra)
    write_text(output, page)
    with atomic_open(os.path.splitext(output)[0] + ".json") as fh:
        json.dump(
            {
                "config": config,
                "results": docs,
                "rho_sweep": sweeps,
                **extra,
                "page": {"command": command, "repeats": repeats, "skipped": skipped},
            },
            fh,
            indent=1,
        )
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
        raise ConfigError(
            f"--merge needs the page's last results, {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from None


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
    merged = {
        k: v
        for k, v in extra.items()
        if k not in ("sweeps", "comparisons", "diagnostics", "failed", "wall_seconds", "merged")
    }
    for key in ("sweeps", "comparisons"):
        names = list(dict.fromkeys([*previous.get(key, {}), *extra.get(key, {})]))
        merged[key] = {
            name: union(previous.get(key, {}).get(name), extra.get(key, {}).get(name, {}))
            for name in names
            if name in config
        }
    failed = [f for f in previous.get("failed", []) if f["dataset"] in order and f["dataset"] not in ran]
    if failed + extra.get("failed", []):
        merged["failed"] = failed + extra.get("failed", [])
    if "wall_seconds" in extra:
        merged["wall_seconds"] = extra["wall_seconds"] + previous.get("wall_seconds", 0.0)
    docs = list(by_name.values())
    for name in extra.get("diagnostics", {}):
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
    extra = {
        k: data[k] for k in ("sweeps", "comparisons", "diagnostics", "wall_seconds", "failed", "merged") if k in data
    }
    page = render_page(
        config,
        data["results"],
        [tuple(s) for s in meta.get("skipped", [])],
        data.get("rho_sweep", {}),
        paper_table(config),
        meta.get("repeats", config.get("repeats", 20)),
        meta.get("command", "python -m olkit.experiment.reproduce"),
        os.path.splitext(os.path.basename(output))[0],
        output,
        extra,
    )
    write_text(output, page)
    return output


def section_kind(name, section):
    """ "sweep" for a ``*_sweep`` section with a ``parameter`` (the §5.4 ``rho_sweep`` form is rendered as
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
                plot_sweep(
                    doc,
                    fig,
                    title=f"{dataset}: {section.get('y_label', 'mistake rate')} vs {doc['parameter']} ({n} orderings)",
                    mark=mark,
                    highlight=section.get("highlight", ()),
                    labels=labels,
                    ticks=section.get("ticks", False),
                )
                doc["figure"] = os.path.relpath(fig, out_dir)
                out["sweeps"].setdefault(name, {})[dataset] = doc
            print(f"[reproduce] {name} {dataset} done ({doc['seconds']:.0f} s)", file=sys.stderr)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--only", nargs="+", metavar="DATASET")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="with --only: keep the other datasets' results from "
        "the page's last JSON and write the page from the union (adds datasets to a page)",
    )
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--output")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="recompute every run instead of reusing the finished "
        "runs stored in <output dir>/.cells/<page stem>/ (by a run that was killed, say)",
    )
    parser.add_argument(
        "--render-only",
        action="store_true",
        help="rewrite the page from the JSON of the last run (CONFIG: that .json file)",
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress bar or compile notice on stderr "
        "(shown only when stderr is a terminal, or with OLKIT_PROGRESS=1)",
    )
    args = parser.parse_args(argv)
    from .. import progress

    progress.activate(quiet=args.quiet)
    if args.render_only:
        try:
            print(render_from_json(args.config, args.output))
        except (OSError, ValueError, KeyError) as exc:  # not a page's JSON (e.g. the TOML config was given)
            print(
                f"--render-only needs the JSON a run saved beside its page (e.g. docs/reproduction/"
                f"duol-multiclass.json); cannot read {args.config}: {type(exc).__name__}: {exc}",
                file=sys.stderr,
            )
            sys.exit(2)
        return
    try:
        page, _ = reproduce(
            args.config,
            only=args.only,
            repeats=args.repeats,
            n_jobs=args.jobs,
            output=args.output,
            fresh=args.fresh,
            merge=args.merge,
        )
    except (ConfigError, BackendError) as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback; the finished runs are in the result store
        print(
            "reproduce: interrupted (the finished runs are kept in the result store, <output dir>/.cells; rerun "
            "the same command to reuse them)",
            file=sys.stderr,
        )
        sys.exit(130)
    print(page)


if __name__ == "__main__":
    main()
