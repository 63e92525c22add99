"""Algorithm registry: the registry entry is the algorithm's spec, as in SOL's registry
(docs/dev/architecture.md#the-registry-entry-is-the-spec).

Every learner registers itself by name with :func:`register`, giving a one-line description, the kinds of
data it learns from, its tuning grid, the paper source of its defaults, its position in the listing and
its sweep (what the property tests and the fuzz run it with). Its parameters, their defaults and their
constraints are read from the class (``__init__`` and ``_parameter_constraints``), its family from the
subpackage of its module, so the entry and the code cannot disagree. ``olkit list``, the CLI, validation,
tuning, the reproduction runner, the tests, the fuzz and the benchmarks read the registry: there is no
second list to keep in sync (tests/test_registry_lists.py).

The spec and the ``register`` decorator live in :mod:`olkit.spec` (which the learners import); this
module is the lookup. Importing it imports no learner; :func:`names` / :func:`get` load them on first use.
"""

from typing import TYPE_CHECKING, Any

from .params import nearest_name
from .spec import DATA_KINDS, SPECS, Spec, register  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    from .base import OnlineClassifier


def _load_learners():
    from . import learners  # noqa: F401  (importing the package registers every learner)


def names() -> list[str]:
    """All registered algorithm names, in listing order (their specs' ``position``)."""
    _load_learners()
    return list(SPECS)


def spec(name):
    """The :class:`Spec` of ``name``; ValueError listing the valid names otherwise."""
    _load_learners()
    try:
        return SPECS[name]
    except (KeyError, TypeError):
        valid = list(SPECS)
        near = nearest_name(name, valid)
        listing = f"valid algorithms: {', '.join(valid)}"
        hint = f"did you mean {near!r}? ({listing})" if near else listing
        raise ValueError(f"unknown algorithm {name!r}; {hint}") from None


def get(name: str) -> "type[OnlineClassifier]":
    """The learner class registered under ``name``."""
    return spec(name).cls


def make(name: str, **params: Any) -> "OnlineClassifier":
    """Create the learner ``name`` with ``params``; unknown or invalid parameters raise ValueError."""
    cls = get(name)
    cls._check_param_names(params)
    learner = cls(**params)
    learner._validate_params()
    return learner


def budgeted():
    """Names of the learners whose model size a parameter bounds under their defaults (see
    :func:`olkit.spec.budgeted_names`), every learner registered."""
    from .spec import budgeted_names

    _load_learners()
    return budgeted_names()


def defaults(name):
    """{parameter: default value} of a registered algorithm."""
    return spec(name).defaults
