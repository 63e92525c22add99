"""Declarative parameter constraints: the one validation path of every learner.

Each learner class declares ``_parameter_constraints``, a dict {parameter: [constraint, ...]} in the style
of scikit-learn's ``_parameter_constraints``: a value is valid when it satisfies *one* of the listed
constraints. :func:`validate_params` checks every parameter of a learner and raises one ``ValueError``
naming the algorithm, the parameter, the value and what would be valid. ``make``, ``set_params``, ``fit``,
``partial_fit``, the CLI (``--set``), tuning and experiment configs all end here.

Constraints:

* :class:`Interval` — a finite real (or integer) number in a range; rejects bool, NaN and inf.
* :class:`Options` — one of a fixed set of values (strings, booleans).
* :class:`InstanceOf` — an instance of a type (a ``numpy.random.RandomState`` as ``random_state``).
* ``None`` — the value None (a default resolved from other parameters, e.g. DUOL's C).
* a callable ``learner -> constraint`` (or a list of them) — choices that depend on the learner or the other
  parameters (``compat``, ``average``).
"""

import difflib
import math
import numbers
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    """A finite number in [low, high]; ``closed`` says which ends belong: "both", "left", "right", "neither"."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    integer: bool = False
    even: bool = False
    """An even integer (Ahpatron's budget: the halving keeps B/2 SVs)."""
    why: str = ""
    """Why the range is what it is, added to the error message."""

    def accepts(self, value):
        if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
            return False
        try:
            number = float(value)
        except OverflowError:  # an integer beyond the range of a float
            return False
        if not math.isfinite(number):
            return False
        # an integer parameter must fit the compiled code's 64-bit integers
        if (self.integer or self.even) and not (number.is_integer() and abs(number) < 2.0**63):
            return False
        if self.even and int(value) % 2:
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self):
        kind = "an even integer" if self.even else "an integer" if self.integer else "a number"
        parts = []
        if self.low is not None:
            parts.append(f"{'>=' if self.closed in ('both', 'left') else '>'} {_bound(self.low)}")
        if self.high is not None:
            parts.append(f"{'<=' if self.closed in ('both', 'right') else '<'} {_bound(self.high)}")
        text = f"{kind} {' and '.join(parts)}" if parts else f"a finite {kind[2:] if kind.startswith('a ') else kind}"
        return f"{text} ({self.why})" if self.why else text


def _bound(value):
    """An end of an Interval as text: an int exactly (4294967295, not 4.29497e+09), a float short (1e-154)."""
    return str(value) if isinstance(value, int) else f"{value:g}"


@dataclass(frozen=True)
class Options:
    """One of ``values`` (compared with ==, and by type for booleans)."""

    values: tuple
    why: str = ""
    """Why only these, added to the error message."""

    def accepts(self, value):
        for v in self.values:
            if isinstance(v, bool) or isinstance(value, (bool, np.bool_)):
                if isinstance(v, bool) and isinstance(value, (bool, np.bool_)) and bool(value) == v:
                    return True
            elif isinstance(value, str) == isinstance(v, str) and value == v:
                return True
        return False

    def __str__(self):
        text = "one of " + ", ".join(repr(v) for v in self.values)
        return f"{text} ({self.why})" if self.why else text


POSITIVE = Interval(0, None, closed="neither")
NON_NEGATIVE = Interval(0, None, closed="left")
PROBABILITY_OPEN = Interval(0, 1, closed="neither")
SEED = Interval(0, None, closed="left", integer=True)
SIGMA = Interval(1e-154, 1e153, why="the Gaussian's 1/(2σ²) must be a finite, non-zero float64")
"""Gaussian width σ: beyond these bounds γ = 1/(2σ²) overflows to inf (σ ≲ 7e-155) or underflows towards
0 (σ ≳ 5e153, every kernel value 1), and the kernel values are NaN or meaningless."""
BOOLEAN = Options((True, False))


@dataclass(frozen=True)
class InstanceOf:
    """An instance of ``kind``, described in messages as ``description``."""

    kind: type
    description: str

    def accepts(self, value):
        return isinstance(value, self.kind)

    def __str__(self):
        return self.description


@dataclass(frozen=True)
class ClassWeights:
    """``class_weight`` (scikit-learn's): None, "balanced", or a dict {label: weight} of finite weights >= 0
    (which labels are classes is checked with the data, ``olkit.weights.class_weights``)."""

    def accepts(self, value):
        if value is None or (isinstance(value, str) and value == "balanced"):
            return True
        return isinstance(value, dict) and all(NON_NEGATIVE.accepts(w) for w in value.values())

    def __str__(self):
        return 'None, "balanced" or a dict {label: weight} with finite weights >= 0'


CLASS_WEIGHT = [ClassWeights()]


RANDOM_STATE = [
    None,
    Interval(0, 2**32 - 1, integer=True),
    InstanceOf(np.random.RandomState, "a numpy.random.RandomState"),
]
"""scikit-learn's ``random_state`` (``sklearn.utils.check_random_state``): None (numpy's global generator),
a seed 0..2**32 - 1 (the seeds numpy's RandomState takes), or a RandomState."""


def _resolve(constraint, learner):
    """A constraint as a list of constraints: a callable ``learner -> constraint or list`` is called."""
    if callable(constraint) and not isinstance(constraint, (Interval, Options, InstanceOf, ClassWeights)):
        constraint = constraint(learner)
    return constraint if isinstance(constraint, list) else [constraint]


def _describe(constraints):
    words = ["None" if c is None else str(c) for c in constraints]
    return words[0] if len(words) == 1 else ", or ".join(words)


def check_value(algorithm, name, value, constraints, learner=None):
    """Raise ValueError unless ``value`` satisfies one of ``constraints``."""
    resolved = [r for c in constraints for r in _resolve(c, learner)]
    for c in resolved:
        if c is None:
            if value is None:
                return
        elif c.accepts(value):
            return
    raise ValueError(f"{algorithm}: parameter {name}={value!r} is not valid; {name} must be {_describe(resolved)}")


def validate_params(learner):
    """Check every parameter of ``learner`` against its class's ``_parameter_constraints``."""
    algorithm = learner.algorithm_name or type(learner).__name__
    constraints = learner._all_constraints()
    for name in learner._get_param_names():
        if name in constraints:
            check_value(algorithm, name, getattr(learner, name), constraints[name], learner)


def nearest_name(name, valid):
    """The valid name a mistyped ``name`` most likely meant, or None: a match ignoring case ("SCW1" ->
    "scw1", "c" -> "C"), else the closest by :func:`difflib.get_close_matches`."""
    text = str(name).lower()
    by_lower = {}
    for v in valid:
        by_lower.setdefault(str(v).lower(), v)
    close = difflib.get_close_matches(text, list(by_lower), 1, 0.6)
    return by_lower[close[0]] if close else None


def parse_value(text):
    """A command-line / config value: int, float, bool, None, a JSON object {label: number} (``class_weight``; its
    keys parsed as values too, so ``{"1": 5}`` weighs the label 1 of a LIBSVM file) or the string itself."""
    if not isinstance(text, str):
        return text
    if text.strip().startswith("{"):
        import json

        try:
            mapping = json.loads(text)
        except ValueError:
            return text
        return {parse_value(k): v for k, v in mapping.items()} if isinstance(mapping, dict) else text
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# ---- the tuning grids of docs/algorithms/evaluation.md#parameter-selection (LIBOL's CV_algorithm.m), used by the
# registry entries ----
POWERS_OF_TWO = tuple(2.0**k for k in range(-4, 5))
"""2^-4..2^4: C of PA-I/PA-II/NHERD/SCW/DUOL, r of AROW, b of NAROW."""
CONFIDENCES = tuple(round(0.55 + 0.05 * k, 2) for k in range(9))
"""η of CW, CW-var and SCW: 0.55..0.95 (η = 0.5 gives φ = 0, a degenerate rule; LIBOL's grid starts at
0.55 too)."""
DECAYS = tuple(round(0.1 * k, 1) for k in range(1, 10))
"""b of IELLIP: 0.1..0.9."""
