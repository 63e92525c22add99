"""Parameter selection of the reproduction configs: the grids of ``[select.<algorithm>]`` (selection *in
hindsight*, as the budgeted-learner papers did), the values a table row selected, and the sweep sections'
specifications. Nothing here runs a learner: ``olkit.experiment.reproduce`` runs the grid points and
hands their results to ``select_in_hindsight``.
"""

import math

import numpy as np

from .config import per_dataset

SCALES = {"1/sqrt(T)": lambda n: 1.0 / math.sqrt(n), "1/T^2": lambda n: 1.0 / n**2}
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
        out.append(
            {
                "parameter": key,
                "grid": list(values),
                "scale": scale,
                "values": [v * factor for v in values] if factor else list(values),
            }
        )
    return out


def select_in_hindsight(results, grid):
    """The result of lowest mean mistake rate among ``results`` (one per grid point, same orderings; ties:
    the first in grid order), with "selected" (the chosen values) and "selection" (the grid and every
    point's summary) added."""
    keys = [g["parameter"] for g in grid]
    best = int(np.argmin([r["mean"]["mistake_rate"] for r in results]))
    row = dict(results[best])
    row["selected"] = {k: row["params"][k] for k in keys}
    row["selection"] = {
        "grid": grid,
        "chosen": best,
        "candidates": [
            {
                "params": {k: r["params"][k] for k in keys},
                "mistake_pct": [100 * r["mean"]["mistake_rate"], 100 * r["std"]["mistake_rate"]],
                "n_sv": [r["mean"]["n_sv"], r["std"]["n_sv"]],
                "seconds": r["mean"]["seconds"],
            }
            for r in results
        ],
    }
    return row


def selected_params(table_doc, label, inherit=None):
    """The values selected in hindsight for the table row ``label`` (or the row ``inherit`` maps it to)."""
    source = (inherit or {}).get(label, label)
    for r in (table_doc or {}).get("results", []):
        if r["algorithm"] == source:
            return dict(r.get("selected", {}))
    return {}


def sweep_spec(section):
    """(parameter, values, swept algorithms, reference algorithms) of a sweep section of the config.

    A sweep section has ``parameter``, ``values``, ``algorithms`` (each must have the parameter) and
    optionally ``reference`` (algorithms without it, run once at their table settings and shown flat),
    ``datasets`` and ``repeats``. The §5.4 section's form ``algorithm = "duol"``, ``rho = [...]`` is the
    same sweep with ``parameter = "rho"``.
    """
    if "parameter" in section:
        return (
            section["parameter"],
            [float(v) for v in section["values"]],
            list(section["algorithms"]),
            list(section.get("reference", [])),
        )
    return "rho", [float(v) for v in section["rho"]], [section["algorithm"]], []
