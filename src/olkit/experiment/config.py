"""Reading an experiment config and the paper tables it is compared with (shared by the reproduction and
its page parts, :mod:`olkit.experiment.reproduce` and :mod:`olkit.experiment.budget_report`).

A config's settings for one algorithm on one dataset are layered: ``[settings]``, then
``[per_dataset.<dataset>.settings]`` (each for the parameters the algorithm has), then
``[params.<algorithm>]`` and ``[per_dataset.<dataset>.params.<algorithm>]``.
"""

import json
import tomllib
from importlib import resources

from ..params import nearest_name
from .backend import check as check_backend
from .runner import registry_name

PAPER_TABLES = {
    "duol_jmlr_table2": "duol_jmlr_table2.json",
    "scw_icml_table3": "scw_icml_table3.json",
    "duol_jmlr_table4": "duol_jmlr_table4.json",
}


def paper_values(key, meta=False):
    """Reference numbers of a paper table: {dataset: {algorithm: {"mistake_pct": [m, s], ...}}}
    (``papers/<key>.json`` unless :data:`PAPER_TABLES` names the file); ``meta=True``: the "_" keys
    (source, per-dataset settings of the paper) instead."""
    with resources.files("olkit.experiment.papers").joinpath(PAPER_TABLES.get(key, f"{key}.json")).open() as fh:
        return {k: v for k, v in json.load(fh).items() if k.startswith("_") == meta}


def paper_table(config):
    """The paper's rows for the config's datasets: :func:`paper_values` of ``config["paper"]``, plus a row
    for each dataset that ``paper_datasets`` maps to a paper dataset (e.g. ``mitface-histeq`` shown beside
    the paper's MITFace row, like ``mitface``)."""
    if not config.get("paper"):  # a comparative page of our own numbers (no paper table)
        return {}
    paper = paper_values(config["paper"])
    for ours, theirs in config.get("paper_datasets", {}).items():
        if theirs in paper:
            paper.setdefault(ours, paper[theirs])
    return paper


class ConfigError(ValueError):
    """A mistake in an experiment config (an unknown key, algorithm or parameter), found when the config
    is read, before anything runs; the message starts with "config error:"."""

    def __init__(self, message, source=None):
        super().__init__(f"config error: {source + ': ' if source else ''}{message}")


def load_config(path):
    """The config at ``path``, checked (:func:`validate_config`)."""
    try:
        with open(path, "rb") as fh:
            config = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read it: {exc.strerror}", path) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", path) from None
    validate_config(config, path)
    return config


CONFIG_KEYS = {
    "title",
    "paper",
    "output",
    "notes",
    "datasets",
    "algorithms",
    "optional_algorithms",
    "repeats",
    "seed",
    "seed_per_ordering",
    "tune",
    "settings",
    "params",
    "select",
    "per_dataset",
    "count",
    "digits",
    "bold_best",
    "report_wall_time",
    "protocol_text",
    "paper_rows",
    "paper_datasets",
    "acceptance",
    "rho_sweep",
    "backend",
    "scheduler",
}
"""The top-level keys of a config; a section named ``*_sweep``, ``*_comparison`` or ``*_diagnostic`` is an
analysis (:func:`olkit.experiment.reproduce.section_kind`) with the keys of :data:`SECTION_KEYS`."""
SECTION_KEYS = {
    "sweep": {
        "title",
        "text",
        "parameter",
        "values",
        "algorithms",
        "reference",
        "datasets",
        "repeats",
        "parameter_of",
        "inherit",
        "claims",
        "highlight",
        "paper_grid",
        "mark",
        "ticks",
        "y_label",
    },
    "comparison": {"title", "text", "algorithms", "datasets", "repeats", "inherit", "paper"},
    "diagnostic": {"title", "text", "algorithm", "diagnostic", "label", "paper"},
    "rho_sweep": {"algorithm", "rho", "datasets", "repeats"},
    "per_dataset": {"settings", "params", "select", "note"},
}
REQUIRED = {
    "sweep": ("parameter", "values", "algorithms"),
    "comparison": ("algorithms",),
    "diagnostic": ("algorithm", "diagnostic"),
    "rho_sweep": ("algorithm", "rho", "datasets"),
}
SCALE_NAMES = ("1/sqrt(T)", "1/T^2")
"""The grid scales of ``[select]`` (:data:`olkit.experiment.reproduce.SCALES`)."""


def _unknown(keys, valid, where, source, what="key"):
    for key in keys:
        if key not in valid:
            near = nearest_name(key, sorted(valid))
            hint = f"did you mean {near!r}? " if near else ""
            raise ConfigError(
                f"{where}unknown {what} {key!r}; {hint}(valid {what}s: {', '.join(sorted(valid))})", source
            )


def _section(name):
    for kind in ("sweep", "comparison", "diagnostic"):
        if name.endswith(f"_{kind}") and name != "rho_sweep":
            return kind
    return None


def validate_config(config, source=None):
    """Check a config before anything runs: required and unknown keys, every algorithm name (registered or
    listed in ``optional_algorithms``), the parameter names of ``[params]``, ``[select]`` and the sweeps,
    ``[settings]`` keys and grid scales. A mistake raises :class:`ConfigError`; datasets are not checked
    here (one that cannot be loaded is reported on the page as not run). Parameters are the algorithms' own:
    ``fit``'s ``shuffle`` and ``random_state`` are unknown keys here (the runs follow the config's orderings)."""
    from ..registry import get, names

    for key in ("title", "datasets", "algorithms"):
        if key not in config:
            raise ConfigError(f"missing key {key!r}", source)
    _unknown([k for k in config if _section(k) is None], CONFIG_KEYS, "", source)
    try:  # without ``paper`` the page compares our own runs only (e.g. an algorithm no paper has run)
        paper = paper_values(config["paper"]) if "paper" in config else {}
    except (FileNotFoundError, ModuleNotFoundError):
        raise ConfigError(f"paper = {config['paper']!r}: no such paper table", source) from None
    mapped = config.get("paper_datasets", {})
    if not isinstance(mapped, dict) or not all(isinstance(v, str) for v in mapped.values()):
        raise ConfigError("paper_datasets must map dataset names to the paper table's dataset names", source)
    for ours, theirs in mapped.items():
        if theirs not in paper:
            raise ConfigError(
                f"paper_datasets: {ours} = {theirs!r} is not a dataset of paper table "
                f"{config['paper']!r} (its datasets: {', '.join(paper)})",
                source,
            )
    for key in ("datasets", "algorithms", "optional_algorithms"):
        if not isinstance(config.get(key, []), list) or not all(isinstance(v, str) for v in config.get(key, [])):
            raise ConfigError(f"{key} must be a list of names", source)
    for key in ("repeats", "seed"):
        value = config.get(key, 1)
        if not isinstance(value, int) or isinstance(value, bool) or value < (1 if key == "repeats" else 0):
            raise ConfigError(f"{key} must be an integer >= {1 if key == 'repeats' else 0}, got {value!r}", source)
    for key in ("tune", "seed_per_ordering", "bold_best", "report_wall_time"):
        if not isinstance(config.get(key, False), bool):
            raise ConfigError(f"{key} must be true or false, got {config[key]!r}", source)
    for key in ("backend", "scheduler"):  # issue 10 item 5 (olkit.experiment.backend)
        if not isinstance(config.get(key, ""), str):
            raise ConfigError(f"{key} must be a string, got {config[key]!r}", source)
    try:
        check_backend(config.get("backend"), config.get("scheduler"), prefix="")
    except ValueError as exc:
        raise ConfigError(str(exc), source) from None
    optional = set(config.get("optional_algorithms", ()))
    known = set(names())

    def parameters(name, where):
        """The parameter names of algorithm label ``name`` (None: optional and not in this build)."""
        if name in optional and registry_name(name) not in known:
            return None
        try:
            return set(get(registry_name(name))._algorithm_param_names())
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}", source) from None

    def check_params(table, where, grid=False):
        for name, values in table.items():
            valid = parameters(name, f"{where}.{name}")
            if valid is not None:
                _unknown(values, valid, f"[{where}.{name}] ", source, "parameter")
            for key, spec in values.items() if grid else ():
                if isinstance(spec, dict) and spec.get("scale", SCALE_NAMES[0]) not in SCALE_NAMES:
                    raise ConfigError(
                        f"[{where}.{name}] {key}: unknown scale {spec['scale']!r}; known: {', '.join(SCALE_NAMES)}",
                        source,
                    )

    for name in config["algorithms"]:
        parameters(name, "algorithms")
    for kind, _rule, name in _acceptance_names(config.get("acceptance", {}), source):
        parameters(name, f"[[acceptance.{kind}]]")
    every_parameter = set().union(*(get(n)._algorithm_param_names() for n in known))
    _unknown(config.get("settings", {}), every_parameter, "[settings] ", source, "parameter")
    check_params(config.get("params", {}), "params")
    check_params(config.get("select", {}), "select", grid=True)
    for dataset, local in config.get("per_dataset", {}).items():
        _unknown(local, SECTION_KEYS["per_dataset"], f"[per_dataset.{dataset}] ", source)
        _unknown(local.get("settings", {}), every_parameter, f"[per_dataset.{dataset}.settings] ", source, "parameter")
        check_params(local.get("params", {}), f"per_dataset.{dataset}.params")
        check_params(local.get("select", {}), f"per_dataset.{dataset}.select", grid=True)
    for name, section in config.items():
        kind = "rho_sweep" if name == "rho_sweep" else _section(name)
        if kind is None:
            continue
        if not isinstance(section, dict):
            raise ConfigError(f"{name} must be a table ([{name}])", source)
        _unknown(section, SECTION_KEYS[kind], f"[{name}] ", source)
        for key in REQUIRED[kind]:
            if key not in section:
                raise ConfigError(f"[{name}]: missing key {key!r}", source)
        algos = (
            section.get("algorithms", [])
            + section.get("reference", [])
            + [section.get("algorithm")] * ("algorithm" in section)
        )
        for algo in algos:
            parameters(algo, f"[{name}] algorithms")
        if kind == "sweep" or kind == "rho_sweep":
            swept = section.get("algorithms", [section.get("algorithm")])
            for algo in swept:
                key = section.get("parameter_of", {}).get(algo, section.get("parameter", "rho"))
                valid = parameters(algo, f"[{name}] algorithms")
                if valid is not None and key not in valid:
                    raise ConfigError(f"[{name}]: {algo} has no parameter {key!r} (list it under 'reference')", source)


ACCEPTANCE_KINDS = ("table", "within_spread", "within", "lower_than", "larger_set", "comparison")
"""The rule kinds of ``[acceptance]`` (:data:`olkit.experiment.acceptance.KINDS`, rendered in this order)."""
ACCEPTANCE_COLUMNS = ("within", "below")
"""The column kinds of an ``[[acceptance.table]]`` rule."""


def _acceptance_names(rules, source):
    """(kind, rule, algorithm name) for every algorithm an ``[acceptance]`` table names, after checking its
    shape: a table of known kinds, each a list of rules (tables), a ``table`` rule's columns of known kinds."""
    if not isinstance(rules, dict):
        raise ConfigError(
            f"acceptance must be a table of rules ([[acceptance.<kind>]]: "
            f"{', '.join(ACCEPTANCE_KINDS)}), got {rules!r}",
            source,
        )
    _unknown(rules, set(ACCEPTANCE_KINDS), "[acceptance] ", source, "rule kind")
    out = []
    for kind, items in rules.items():
        if not isinstance(items, list) or not all(isinstance(rule, dict) for rule in items):
            raise ConfigError(f"acceptance.{kind} must be a list of tables ([[acceptance.{kind}]])", source)
        for rule in items:
            names = [
                rule.get("algorithm"),
                rule.get("than"),
                *rule.get("others", []),
                *rule.get("require", []),
                *rule.get("best_of", []),
                *rule.get("lower", []),
            ]
            for col in rule.get("columns", []) if kind == "table" else ():
                if col.get("kind") not in ACCEPTANCE_COLUMNS:
                    raise ConfigError(
                        f"[[acceptance.table]] column kind {col.get('kind')!r}; known: {', '.join(ACCEPTANCE_COLUMNS)}",
                        source,
                    )
                names += [col.get("algorithm"), col.get("other")]
            out += [(kind, rule, name) for name in dict.fromkeys(names) if name is not None]
    return out


def per_dataset(config, dataset):
    """The config's ``[per_dataset.<dataset>]`` table (``settings``, ``params``, ``select``, ``note``)."""
    return config.get("per_dataset", {}).get(dataset, {}) if dataset is not None else {}


def algorithm_settings(config, name, dataset=None):
    """[settings] and then [per_dataset.<dataset>.settings] for the parameters the algorithm has, then its
    own [params.<name>] and [per_dataset.<dataset>.params.<name>]. A value "default" removes the key
    (the learner's default applies: e.g. B = "default" keeps a Projectron unbudgeted)."""
    from ..registry import get

    valid = set(get(registry_name(name))._algorithm_param_names())
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
