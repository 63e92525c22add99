"""Algorithm registry: the registry entry is the algorithm's spec (DESIGN.md §1, as in SOL's registry).

Every learner registers itself by name with :func:`register`, giving a one-line description, the kinds of
data it learns from, its tuning grid and the paper source of its defaults. Its parameters, their
defaults and their constraints are read from the class (``__init__`` and ``_parameter_constraints``), so
the entry and the code cannot disagree. ``olkit list``, the CLI, validation, tuning, the reproduction
runner, the tests and the benchmarks read the registry: there is no second list to keep in sync.

Importing this module imports no learner; :func:`names` / :func:`get` load them on first use.
"""
import inspect
from dataclasses import dataclass, field

_REGISTRY = {}

DATA_KINDS = ("binary", "multiclass", "multilabel")


@dataclass(frozen=True)
class Spec:
    """What the registry knows of an algorithm."""

    name: str
    description: str
    cls: type
    data: tuple = ("binary",)
    """Kinds of data it learns from: "binary", "multiclass", "multilabel"."""
    tuning: tuple = ()
    """((parameter, candidates), ...) in tuning order (ALGORITHMS.md E2); empty: nothing is tuned."""
    sources: dict = field(default_factory=dict)
    """{parameter: the paper and table its default comes from}."""

    @property
    def defaults(self):
        sig = inspect.signature(self.cls.__init__)
        return {p: sig.parameters[p].default for p in self.cls._get_param_names()}

    @property
    def constraints(self):
        return self.cls._all_constraints()


def register(name, description, *, data=("binary",), tuning=(), sources=None):
    """Class decorator: register a learner class under ``name`` (⚑ DESIGN.md §2.2 names)."""
    unknown = set(data) - set(DATA_KINDS)
    if unknown:
        raise RuntimeError(f"{name}: unknown data kinds {sorted(unknown)}")

    def decorate(cls):
        if name in _REGISTRY:
            raise RuntimeError(f"algorithm name {name!r} registered twice")
        spec = Spec(name, description, cls, tuple(data), tuple(tuning), dict(sources or {}))
        cls.algorithm_name = name
        cls.description = description
        cls.spec = spec
        _REGISTRY[name] = spec
        return cls

    return decorate


def _load_learners():
    from . import learners  # noqa: F401  (importing the package registers every learner)


def names():
    """All registered algorithm names, in registration order."""
    _load_learners()
    return list(_REGISTRY)


def spec(name):
    """The :class:`Spec` of ``name``; ValueError listing the valid names otherwise."""
    _load_learners()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; valid algorithms: {', '.join(_REGISTRY)}") from None


def get(name):
    """The learner class registered under ``name``."""
    return spec(name).cls


def make(name, **params):
    """Create the learner ``name`` with ``params``; unknown or invalid parameters raise ValueError."""
    cls = get(name)
    valid = cls._get_param_names()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"{name}: unknown parameter(s) {', '.join(unknown)}; "
                         f"valid parameters: {', '.join(valid)}")
    learner = cls(**params)
    learner._validate_params()
    return learner


def defaults(name):
    """{parameter: default value} of a registered algorithm."""
    return spec(name).defaults
