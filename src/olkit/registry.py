"""Algorithm registry: every learner registers itself by name with a one-line description.

The command line (``olkit list``), the runner and the docs list algorithms from here, so there is no
second list to keep in sync (as in SOL's registry).
"""
import inspect

_REGISTRY = {}


def register(name, description):
    """Class decorator: register a learner class under ``name`` (⚑ DESIGN.md §2.2 names)."""

    def decorate(cls):
        if name in _REGISTRY:
            raise RuntimeError(f"algorithm name {name!r} registered twice")
        cls.algorithm_name = name
        cls.description = description
        _REGISTRY[name] = cls
        return cls

    return decorate


def _load_learners():
    from . import learners  # noqa: F401  (importing the package registers every learner)


def names():
    """All registered algorithm names, in registration order."""
    _load_learners()
    return list(_REGISTRY)


def get(name):
    """The learner class registered under ``name``; ValueError listing the valid names otherwise."""
    _load_learners()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; valid algorithms: {', '.join(_REGISTRY)}") from None


def make(name, **params):
    """Create the learner ``name`` with ``params``; unknown or invalid parameters raise ValueError."""
    cls = get(name)
    valid = cls._get_param_names()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for algorithm {name!r}; "
                         f"valid parameters: {', '.join(valid)}")
    learner = cls(**params)
    learner._validate_params()
    return learner


def defaults(name):
    """{parameter: default value} of a registered algorithm."""
    cls = get(name)
    sig = inspect.signature(cls.__init__)
    return {p: sig.parameters[p].default for p in cls._get_param_names()}
