"""The algorithm spec and the ``register`` decorator (docs/dev/architecture.md#the-registry-entry-is-the-spec).

Every learner module registers its class here with :func:`register`. This module imports nothing of
olkit, so the learners depend on it and not on the lookup functions of :mod:`olkit.registry` (which
load the learners): the two directions stay apart and there is no import cycle.
"""

import inspect
import math
import re
from dataclasses import dataclass, field

SPECS: dict[str, "Spec"] = {}
"""{name: Spec} of every registered algorithm, always in listing order (``Spec.position``), whatever the
order in which the learner modules were imported."""

DATA_KINDS = ("binary", "multiclass", "multilabel")

FAMILIES = ("kernel", "budget", "linear")
"""The learner families: the subpackages of ``olkit.learners`` (a learner's family is the subpackage its
module is in, ``Spec.family``). Importing ``olkit.learners`` imports every module of each."""


@dataclass(frozen=True)
class Sweep:
    """The options the property tests (tests/test_properties.py) and the fuzz (``make fuzz``, tests/fuzzing)
    run an algorithm with, beyond what its parameters say themselves (its kernels, covariance forms and
    compat modes are read from its defaults and constraints)."""

    small: dict = field(default_factory=dict)
    """The defaults made small for the tests: a budget of a few SVs, a few random features, the defaults
    that depend on the data's length fixed."""
    cases: tuple = ()
    """Further configurations of the property tests ({parameter: value} each, over ``small``)."""
    compat: dict = field(default_factory=dict)
    """{compat mode: the options the property tests give it} (over ``small``)."""
    grid: dict = field(default_factory=dict)
    """{parameter: candidate values} the fuzz draws from, in this order (the order of the draws: a fuzz run
    is replayed from its seed, so a new entry goes last)."""
    length_dependent: tuple = ()
    """Parameters whose default is a function of the length of the first data given: a stream fed in
    chunks equals one pass only when they are set."""


@dataclass(frozen=True)
class Spec:
    """What the registry knows of an algorithm."""

    name: str
    description: str
    cls: type
    data: tuple = ("binary",)
    """Kinds of data it learns from: "binary", "multiclass", "multilabel"."""
    tuning: tuple = ()
    """((parameter, candidates), ...) in tuning order (docs/algorithms/evaluation.md#parameter-selection); empty:
    nothing is tuned."""
    sources: dict = field(default_factory=dict)
    """{parameter: the paper and table its default comes from}."""
    position: float = math.inf
    """The algorithm's place in the listing (``olkit list``, :func:`olkit.registry.names`, the order of
    :data:`SPECS`): ascending, ties by name; the built-in learners are numbered 10, 20, ... so that a new one
    finds a place between two without renumbering (without a position it comes last)."""
    sweep: Sweep = field(default_factory=Sweep)
    """The options the property tests and the fuzz run it with."""
    weight: str = ""
    """What an example's weight s > 0 does to the algorithm's round, in one line (e.g. "C ← s·C"); its page's
    section *Weights* says it in full (docs/algorithms/options.md#weights)."""
    weight_repeats: bool = False
    """True where an integer weight k gives, on binary data, the model of k repetitions of the example in a row (up
    to rounding; the family's tests/test_weights_*.py check it). Multiclass rounds may update another pair of
    classes on a repeat, so there the flag promises nothing (the page says)."""

    @property
    def family(self):
        """ "kernel", "budget" or "linear" (:data:`FAMILIES`): the subpackage of ``olkit.learners`` its class
        is defined in; "" for a class defined elsewhere."""
        parts = self.cls.__module__.split(".")
        return parts[2] if len(parts) > 3 and parts[:2] == ["olkit", "learners"] else ""

    @property
    def defaults(self):
        """{parameter: default} of the algorithm's parameters; not ``fit``'s ``shuffle`` and ``random_state``
        (:data:`olkit.base.FIT_ORDER_PARAMS`), which every learner has and no online run uses, nor the options
        every learner shares beyond its paper's rule (:data:`olkit.base.MODEL_OPTIONS`)."""
        sig = inspect.signature(self.cls.__init__)
        shared = getattr(self.cls, "_shared_option_names", ())
        return {p: sig.parameters[p].default for p in self.cls._algorithm_param_names() if p not in shared}

    @property
    def constraints(self):
        return self.cls._all_constraints()

    @property
    def page(self):
        """The algorithm's specification page, relative to the repository root (``+`` spelled ``p``:
        ``bogd++`` -> ``docs/algorithms/bogdpp.md``)."""
        return f"docs/algorithms/{self.name.replace('+', 'p')}.md"

    @property
    def meanings(self):
        """{parameter: the first sentence of its entry in the class docstring's Parameters section}, the
        one-line meaning ``olkit list NAME`` shows."""
        return parameter_meanings(self.cls.__doc__ or "")


def _is_underline(line):
    text = line.strip()
    return bool(text) and set(text) == {"-"}


_ABBREVIATIONS = ("eq", "eqs", "e.g", "i.e", "cf", "vs", "al", "Prop", "Fig", "Thm", "Alg", "Sec", "resp")


def _first_sentence(text):
    """``text`` up to the first full stop that ends a sentence (not one of "eq. (4)", "e.g. ", "Prop. 2")."""
    for match in re.finditer(r"\. ", text):
        words = text[: match.start()].split()
        if not words or words[-1].lstrip("(") not in _ABBREVIATIONS:
            return text[: match.start() + 1]
    return text


def parameter_meanings(doc):
    """{name: first sentence of its description} of a numpydoc docstring's Parameters section (an entry
    ``a, b : type`` names two parameters)."""
    lines = inspect.cleandoc(doc).splitlines()
    meanings, names, text, kind, inside = {}, [], [], "", False

    def flush():
        joined = " ".join(text) or kind  # an entry without a description: its type says what it is
        sentence = _first_sentence(joined)
        for name in names:
            meanings[name] = sentence

    for i, line in enumerate(lines):
        heading = i + 1 < len(lines) and line.strip() and not line[0].isspace() and _is_underline(lines[i + 1])
        if heading:
            if inside:
                break
            inside = line.strip() == "Parameters"
            continue
        if not inside or _is_underline(line) or not line.strip():
            continue
        if not line[0].isspace():  # "name : type, default ...", or free text ending the entry before it
            flush()
            head, colon, kind = line.partition(" : ")
            candidates = [n.strip() for n in head.split(",")]
            names = candidates if all(n.isidentifier() for n in candidates) else []
            text, kind = [], kind.strip()
        elif names:
            text.append(line.strip())
    if inside:
        flush()
    return meanings


def register(
    name,
    description,
    *,
    data=("binary",),
    tuning=(),
    sources=None,
    position=math.inf,
    sweep=None,
    weight="",
    weight_repeats=False,
):
    """Class decorator: register a learner class under ``name`` (the naming contract:
    docs/dev/architecture.md#algorithm-and-parameter-names) at ``position`` in the listing; ``sweep``: the
    fields of a :class:`Sweep` (a dict); ``weight``, ``weight_repeats``: what an example's weight does
    (:attr:`Spec.weight`)."""
    unknown = set(data) - set(DATA_KINDS)
    if unknown:
        raise RuntimeError(f"{name}: unknown data kinds {sorted(unknown)}")
    sweep = Sweep(**{k: tuple(v) if k in ("cases", "length_dependent") else v for k, v in (sweep or {}).items()})

    def decorate(cls):
        if name in SPECS:
            raise RuntimeError(f"algorithm name {name!r} registered twice")
        spec = Spec(
            name,
            description,
            cls,
            tuple(data),
            tuple(tuning),
            dict(sources or {}),
            position,
            sweep,
            weight,
            weight_repeats,
        )
        cls.algorithm_name = name
        cls.description = description
        cls.spec = spec
        complete = getattr(cls, "_complete_docstring", None)
        if complete is not None:  # olkit's learners: the shared parameters and the specification page
            complete(name)
        SPECS[name] = spec
        listed = sorted(SPECS.values(), key=lambda s: (s.position, s.name))
        SPECS.clear()
        SPECS.update((s.name, s) for s in listed)
        return cls

    return decorate


def budgeted_names():
    """Names of the registered learners whose model size a parameter bounds under their defaults (a budget
    ``B``, FOGD's ``D`` random features): the alternatives to a kernel learner without a budget, whose support
    set grows with every update (:class:`olkit.limits.SupportSetGrowthWarning`). Reads :data:`SPECS` as it is
    (a learner calling it was registered with the whole package); :func:`olkit.registry.budgeted` loads the
    learners first."""
    return [name for name, s in SPECS.items() if any(s.defaults.get(p) is not None for p in ("B", "D"))]
