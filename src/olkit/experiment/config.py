"""Reading an experiment config and the paper tables it is compared with (shared by the reproduction and
its page parts, :mod:`olkit.experiment.reproduce` and :mod:`olkit.experiment.budget_report`).

A config's settings for one algorithm on one dataset are layered: ``[settings]``, then
``[per_dataset.<dataset>.settings]`` (each for the parameters the algorithm has), then
``[params.<algorithm>]`` and ``[per_dataset.<dataset>.params.<algorithm>]``.
"""
import json
import tomllib
from importlib import resources

from .runner import registry_name

PAPER_TABLES = {"duol_jmlr_table2": "duol_jmlr_table2.json", "scw_icml_table3": "scw_icml_table3.json",
                "duol_jmlr_table4": "duol_jmlr_table4.json"}


def paper_values(key, meta=False):
    """Reference numbers of a paper table: {dataset: {algorithm: {"mistake_pct": [m, s], ...}}}
    (``papers/<key>.json`` unless :data:`PAPER_TABLES` names the file); ``meta=True``: the "_" keys
    (source, per-dataset settings of the paper) instead."""
    with resources.files("olkit.experiment.papers").joinpath(PAPER_TABLES.get(key, f"{key}.json")).open() as fh:
        return {k: v for k, v in json.load(fh).items() if k.startswith("_") == meta}


def load_config(path):
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def per_dataset(config, dataset):
    """The config's ``[per_dataset.<dataset>]`` table (``settings``, ``params``, ``select``, ``note``)."""
    return config.get("per_dataset", {}).get(dataset, {}) if dataset is not None else {}


def algorithm_settings(config, name, dataset=None):
    """[settings] and then [per_dataset.<dataset>.settings] for the parameters the algorithm has, then its
    own [params.<name>] and [per_dataset.<dataset>.params.<name>]. A value "default" removes the key
    (the learner's default applies: e.g. B = "default" keeps a Projectron unbudgeted)."""
    from ..registry import get

    valid = set(get(registry_name(name))._get_param_names())
    local = per_dataset(config, dataset)
    params = {k: v for k, v in config.get("settings", {}).items() if k in valid}
    params.update({k: v for k, v in local.get("settings", {}).items() if k in valid})
    params.update(config.get("params", {}).get(name, {}))
    params.update(local.get("params", {}).get(name, {}))
    return {k: v for k, v in params.items() if not (isinstance(v, str) and v == "default")}


def available_algorithms(config, names):
    """(names to run, names left out): a name listed in the config's ``optional_algorithms`` whose
    algorithm the registry does not have (yet) is left out, to be stated on the page; any other unknown
    name stays, and is an error when it runs."""
    from ..registry import names as registered

    known = set(registered())
    optional = set(config.get("optional_algorithms", ()))
    absent = [n for n in names if n in optional and registry_name(n) not in known]
    return [n for n in names if n not in absent], absent
