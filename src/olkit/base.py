"""The estimator base class shared by every olkit learner.

Every learner is a scikit-learn classifier (docs/dev/architecture.md#python-api): ``fit`` is one online
pass over the data, shuffled first unless ``shuffle=False`` (as scikit-learn's SGDClassifier, Perceptron and
PassiveAggressiveClassifier do), ``partial_fit`` continues the stream in the given order (chunks give the
result of one pass, up to the rounding of dot products),
``predict``/``decision_function`` use the current model, ``get_params``/``set_params`` follow the
scikit-learn conventions. The class implements scikit-learn's estimator protocol without importing
scikit-learn at module level: importing scikit-learn costs about a second, which would dominate a
command-line run on a small dataset. scikit-learn is imported lazily where its own types are needed
(tags, NotFittedError, the data-conversion warning).

Input validation happens once, here, at the boundary; the compiled loops never validate.
"""

import inspect
import numbers
import re
import textwrap
import warnings
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np
import scipy.sparse as sp

from .params import BOOLEAN, CLASS_WEIGHT, RANDOM_STATE, Interval, Options, nearest_name, validate_params
from .protocol import serialised
from .weights import check_sample_weight, example_weights

if TYPE_CHECKING:
    from ._typing import ArrayLike, MatrixLike

COMPAT_CHOICES = ("none",)

FIT_ORDER_PARAMS = ("shuffle", "random_state")
"""Parameters of every learner that only choose the order of ``fit``'s pass (scikit-learn's). The online
protocol (``partial_fit``, :func:`olkit.evaluate_online`, ``olkit run``/``tune``, experiment configs)
presents the stream in its own order and ignores them, so they are not parameters of the algorithm: the
registry's listings (``olkit list``, ``Spec.defaults``) and ``resolved_params`` leave them out."""

FIT_ORDER_PARAMS_DOC = """\
shuffle : bool, default True
    ``fit`` presents the rows in a random order (``rng.permutation(n)``), as scikit-learn's
    SGDClassifier, Perceptron and PassiveAggressiveClassifier do: on a file sorted by class, one pass in
    file order ends with the last class's rows and learns little else. False: one pass in the given
    order (the online protocol). ``partial_fit`` and :func:`olkit.evaluate_online` never shuffle.
random_state : None, int >= 0 or numpy.random.RandomState, default None
    The pass order of ``fit`` when ``shuffle`` is True (``sklearn.utils.check_random_state``: None
    draws from numpy's global generator, an int gives the same order on every fit). It is not the
    ``seed`` of a randomised algorithm (DUOL_rand, RBP, BOGD, FOGD), which the learner keeps itself.
"""
"""The numpydoc text of :data:`FIT_ORDER_PARAMS`, written once: ``OnlineClassifier._complete_docstring``
appends it to the Parameters section of every registered learner's docstring."""

MODEL_OPTIONS = ("fit_intercept", "intercept_scaling", "average", "class_weight")
"""Options every learner has beyond its paper's rule (docs/algorithms/options.md). Their defaults give the
paper's learner, so every held result stands; they change the model, so they are parameters of the algorithm
(recorded with the model, ``set_params`` after fit refused), but the registry's listings (``olkit list``,
``Spec.defaults``) leave them out and ``resolved_params`` (the run JSON) shows only those set to another value."""

MODEL_OPTIONS_DEFAULTS = {"fit_intercept": False, "intercept_scaling": 1.0, "average": False, "class_weight": None}
PARAMS_ADDED_SINCE = {"class_weight": None}
"""Parameters a model file written by an earlier olkit (format 3) may not record, with the value its model was
built with (no class weights then, docs/algorithms/options.md#weights): :meth:`OnlineClassifier._after_load` fills
them in (the file's parameters lack them too, so the loaded learner has these defaults)."""

MODEL_OPTIONS_DOC = """\
fit_intercept : bool, default False
    Learn a bias b as well: f(x) = w·x + b. The papers' learners have none (False keeps them exactly);
    turn it on when the classes are not balanced around the origin, e.g. data with all-zero rows (which
    score f = 0 without a bias). Linear learners learn a weight on a constant feature c =
    ``intercept_scaling`` (a second-order learner gives it its own variance); kernel learners use the
    kernel κ(x, z) + c² (docs/algorithms/options.md#fit_intercept).
intercept_scaling : float in (0, 1e100], default 1
    c, the value of the constant feature; the bias learns at the rate c² relative to the weights.
average : bool or int >= 0, default False
    ``predict`` and ``decision_function`` use the averaged model, the mean of the models after each round
    (scikit-learn's ``average``): True averages from the first example, an int n from the n-th example
    seen on (0 and False: no average, the last model). The online mistake rate is always the last
    model's (the protocol's predict-then-update). docs/algorithms/options.md#average.
class_weight : None, "balanced" or dict {label: weight}, default None
    Weights of the examples of each class, multiplying ``sample_weight`` (scikit-learn's meaning): a dict
    gives the listed classes their weight and the others 1; "balanced" gives class c the weight
    n / (K n_c) over the labels of the call that starts the model (``fit``, ``evaluate_online``; a call
    that continues one refuses it). Binary and multiclass data. What a weight does to a round is written on
    the algorithm's page (docs/algorithms/options.md#weights).
"""
"""The numpydoc text of :data:`MODEL_OPTIONS`, written once and added to every registered learner's docstring."""

SPEC_PAGE = "docs/algorithms/{slug}.md"
"""The specification page of an algorithm, relative to the repository root (slug: the registered name with
every ``+`` replaced by ``p``); the documentation site renders it as a link."""

SEEN, MISTAKES, UPDATES = 0, 1, 2
"""Slots of a learner's running counters ``state_.cnt``: examples seen, mistakes, updates (then, from
slot 3, algorithm diagnostics)."""
N_COUNTERS = 8

EPS = 1e-12
"""Library-wide guard: a denominator ≤ EPS (relative to its scale) counts as zero
(docs/algorithms/conventions.md#numerical-guards)."""

MARGIN_TIE = 1e-9
"""A margin loss within this (relative to the scores) of 0 is no margin error: when a margin is exactly 1
in exact arithmetic (e.g. a point just updated returns), rounding must not decide whether a step of ~1e-16
is taken (MIRA, Projectron++)."""


def all_finite(arrays):
    """True if no floating-point array among ``arrays`` holds NaN or infinity."""
    return all(np.isfinite(a).all() for a in arrays if a.dtype.kind == "f")


def _plain_labels(values, limit=10):
    """Labels as text for a message: plain values ("-1, 1", not "np.int64(-1)"), at most ``limit`` (None: all)."""
    values = list(values)
    shown = [v.item() if isinstance(v, np.generic) else v for v in values[:limit]]
    return ", ".join(map(str, shown)) + (", ..." if len(shown) < len(values) else "")


def _label_array(values, what="y"):
    """``values`` as a label array. Labels must be all numbers or all strings: mixed ones cannot be ordered
    (numpy's ``unique`` raises a TypeError), and a list of them would silently become strings."""
    arr = np.asarray(values)
    if arr.dtype.kind == "O" or (arr.dtype.kind in "US" and not isinstance(values, np.ndarray)):
        examples = {}  # kind of label -> its first example
        for v in np.asarray(values, dtype=object).ravel():
            kind = "string" if isinstance(v, (str, bytes)) else "number" if isinstance(v, numbers.Number) else None
            examples.setdefault(kind or type(v).__name__, v)
        if len(examples) > 1 or not set(examples) <= {"string", "number"}:
            shown = " and ".join(
                f"{v!r} ({kind})" if kind == "string" else f"{_plain_labels([v])} ({kind})"
                for kind, v in examples.items()
            )
            raise ValueError(f"{what} mixes label types: {shown}; the labels must be all numbers or all strings")
    return arr


def _classes_argument(classes):
    """``partial_fit``'s ``classes`` as a sorted label array; ValueError if they are not a 1-D list of finite,
    distinct labels (scikit-learn would silently merge a repeated label, and keep NaN as a class no label
    can ever match)."""
    labels = _label_array(classes, "classes")
    if labels.ndim != 1:
        raise ValueError(f"classes must be a 1-D list of labels, got an array of shape {labels.shape}")
    if labels.dtype.kind in "fc" and not np.all(np.isfinite(labels)):
        raise ValueError(
            f"classes=[{_plain_labels(labels)}] holds NaN or infinity; the classes must be finite, distinct labels"
        )
    unique, counts = np.unique(labels, return_counts=True)
    if unique.size != labels.size:
        raise ValueError(
            f"classes=[{_plain_labels(labels)}] repeats {_plain_labels(unique[counts > 1])}; the "
            "classes must be distinct labels"
        )
    return unique


def _same_value(a, b):
    """Two parameter values are the same: equal, and both or neither a boolean (True is not the integer 1)."""
    if a is b:
        return True
    if isinstance(a, (bool, np.bool_)) != isinstance(b, (bool, np.bool_)):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def _plain(value):
    """A parameter value for a message (``0.5``, not ``np.float64(0.5)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


_SECTION = re.compile(r"^([ \t]*)([A-Z][A-Za-z ]+)\n\1-{3,}[ \t]*\n?", re.MULTILINE)
_PARAM_HEADER = re.compile(r"\*{0,2}[A-Za-z_]\w*(\s*,\s*\*{0,2}[A-Za-z_]\w*)*(\s+:(\s.*)?)?$")
_NOTES_BEFORE = ("References", "Examples")


def _sections(doc):
    """``doc`` split into its preamble and its numpydoc sections: (preamble, [[name, indent, body], ...])."""
    found = list(_SECTION.finditer(doc))
    preamble = doc[: found[0].start()] if found else doc
    sections = [
        [m.group(2), m.group(1), doc[m.end() : found[i + 1].start() if i + 1 < len(found) else len(doc)]]
        for i, m in enumerate(found)
    ]
    return preamble, sections


def _join(preamble, sections, indent):
    out = preamble.rstrip() + "\n"
    for name, ind, body in sections:
        out += f"\n{ind}{name}\n{ind}{'-' * len(name)}\n{body.strip(chr(10)).rstrip()}\n"
    return out + indent


def _split_parameters(body, indent):
    """The Parameters section's body as (parameter entries, prose paragraphs): a paragraph that starts at the
    parameters' indentation with a line that is no ``name : type`` header is prose, not a parameter."""
    params, prose, current, in_prose = [], [], None, False
    for line in body.split("\n"):
        if not line.strip():
            in_prose = False
            (current if current is not None else params).append(line)
            continue
        deeper = len(line) - len(line.lstrip()) > len(indent)
        if not deeper and not in_prose and _PARAM_HEADER.match(line.strip()):
            current = params
            params.append(line)
        elif not deeper and not in_prose:
            in_prose = True
            prose.append([line])
            current = prose[-1]
        else:
            current = prose[-1] if in_prose else params
            current.append(line)
    return "\n".join(params).strip("\n"), ["\n".join(p).strip("\n") for p in prose]


def _normalised_docstring(doc):
    """``doc`` (a numpydoc docstring) with :data:`FIT_ORDER_PARAMS_DOC` at the end of its Parameters section
    (created when there is none), and any prose paragraph of that section (text that documents no
    parameter) moved to the Notes section, so that the Parameters section lists the parameters only."""
    indent = _body_indent(doc)
    preamble, sections = _sections(doc)
    params = next((s for s in sections if s[0] == "Parameters"), None)
    if params is None:
        params = ["Parameters", indent, ""]
        sections.insert(0, params)
    entries, prose = _split_parameters(params[2], params[1])
    if not re.search(r"^[ \t]*fit_intercept : ", entries, re.MULTILINE):
        entries = (entries + "\n" if entries else "") + textwrap.indent(MODEL_OPTIONS_DOC, params[1]).rstrip()
    if not re.search(r"^[ \t]*shuffle : ", entries, re.MULTILINE):
        entries = (entries + "\n" if entries else "") + textwrap.indent(FIT_ORDER_PARAMS_DOC, params[1]).rstrip()
    params[2] = entries
    if prose:
        notes = next((s for s in sections if s[0] == "Notes"), None)
        if notes is None:
            at = next((i for i, s in enumerate(sections) if s[0] in _NOTES_BEFORE), len(sections))
            notes = ["Notes", params[1], ""]
            sections.insert(at, notes)
        notes[2] = "\n\n".join(prose + ([notes[2].strip("\n")] if notes[2].strip() else []))
    return _join(preamble, sections, indent)


def _with_spec_line(doc, page):
    """``doc`` with the paragraph ``Specification: <page>.`` after its summary (its first paragraph)."""
    line = f"Specification: {page}."
    if line in doc:
        return doc
    parts = re.split(r"\n[ \t]*\n", doc, maxsplit=1)
    indent = _body_indent(doc)
    if len(parts) == 1:
        return doc.rstrip() + "\n\n" + indent + line + "\n" + indent
    return parts[0] + "\n\n" + indent + line + "\n\n" + parts[1]


def _body_indent(doc):
    """The indentation of the lines after a docstring's first line."""
    for text in doc.splitlines()[1:]:
        if text.strip():
            return text[: len(text) - len(text.lstrip())]
    return "    "


class OnlineClassifier:
    """Base class: parameters, labels, input validation and the scikit-learn API.

    Subclasses implement ``_check_params``, ``_new_state(X)`` (a fresh model for data like X),
    ``_engine_input(X)``, the block hooks used by :func:`olkit.protocol.run_online` (the
    predict-then-update loop itself) and ``_decision(X)``.

    Every learner has two parameters of ``fit`` besides its own, ``shuffle`` and ``random_state``
    (``FIT_ORDER_PARAMS``, the last two of each ``__init__``). Their text, ``FIT_ORDER_PARAMS_DOC``, is
    written once and added to every registered learner's Parameters section by ``_complete_docstring``,
    with the link to the learner's specification page.

    Notes
    -----
    Thread safety: one learner may be shared by several threads. ``fit``, ``partial_fit``, ``predict``,
    ``decision_function``, ``score``, ``set_params``, :func:`olkit.evaluate_online` and :func:`olkit.save`
    each hold the learner's own lock (:func:`olkit.protocol.learner_lock`) from start to end, so concurrent
    calls run one at a time, whole: the model is that of some sequential order of the calls (chunks passed
    to ``partial_fit`` from several threads are learned in the order the threads got the lock). Different
    learners never wait for each other.

    Parameters of a fitted model: the model is built for the parameters it was fitted with (the rule's
    constants, the kernel, the covariance, the budget and the seed are in its state). After ``set_params``
    changes one, ``fit`` starts afresh with the new value; ``partial_fit``, ``predict``,
    ``decision_function``, ``score`` and :func:`olkit.save` refuse with a ValueError naming the parameter,
    its fitted and its new value.

    Column names: fitted on a pandas DataFrame with string column names, the learner records them as
    ``feature_names_in_`` and checks them at every later call, as scikit-learn does
    (``sklearn.utils.validation._check_feature_names``: reordered, unknown or missing columns raise its
    ValueError; data without names after names, or the reverse, warn).
    """

    algorithm_name: ClassVar[str] = None  # type: ignore[assignment]  # every registered learner's name (olkit.spec)
    description: ClassVar[str] = ""
    compat_choices: tuple[str, ...] = COMPAT_CHOICES
    _shared_option_names: ClassVar[tuple[str, ...]] = MODEL_OPTIONS
    """What :attr:`olkit.spec.Spec.defaults` leaves out (spec.py imports nothing of olkit)."""

    @classmethod
    def _complete_docstring(cls, name):
        """Complete the class docstring of the learner registered as ``name`` (called by
        :func:`olkit.spec.register`): :data:`FIT_ORDER_PARAMS_DOC` at the end of its Parameters section (the
        parameters every learner shares, written once), prose of that section moved to its Notes (so the
        section lists parameters only, as numpydoc reads it), and a line naming its specification page
        (:data:`SPEC_PAGE`) after the summary. Idempotent."""
        doc = cls.__doc__ or cls.description or name
        cls.__doc__ = _with_spec_line(_normalised_docstring(doc), SPEC_PAGE.format(slug=name.replace("+", "p")))

    # ---- parameters (scikit-learn protocol) -----------------------------------------------------
    @classmethod
    def _get_param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        )

    @classmethod
    def _algorithm_param_names(cls):
        """The parameters of the algorithm: all but :data:`FIT_ORDER_PARAMS` (what the registry lists)."""
        return [name for name in cls._get_param_names() if name not in FIT_ORDER_PARAMS]

    def _set_options(self, *, fit_intercept, intercept_scaling, average, class_weight, shuffle, random_state):
        """Store the options every learner has (:data:`MODEL_OPTIONS`, :data:`FIT_ORDER_PARAMS`; called by each
        learner's __init__)."""
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.average = average
        self.class_weight = class_weight
        self.shuffle = shuffle
        self.random_state = random_state

    def _average_start(self):
        """The example count from which the average runs (1 for ``average=True``), or 0: no average."""
        if self.average is True:
            return 1
        return int(self.average or 0)

    def _averages(self):
        """Whether this learner, with its parameters, keeps an averaged model (docs/algorithms/options.md#average)."""
        return False

    def _intercept_constant(self):
        """c, the constant of the bias term, or 0.0 without one (``fit_intercept=False``)."""
        return float(self.intercept_scaling) if self.fit_intercept else 0.0

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._get_param_names()}

    def _algorithm_params(self):
        """{parameter: value} of the algorithm's parameters (no :data:`FIT_ORDER_PARAMS`)."""
        return {name: getattr(self, name) for name in self._algorithm_param_names()}

    @serialised
    def set_params(self, **params):
        """Set parameters. Unknown names raise ValueError here; values are checked by the one validation
        path (:func:`olkit.params.validate_params`) when the learner is used, as scikit-learn requires."""
        self._check_param_names(params)
        for key, value in params.items():
            setattr(self, key, value)
        return self

    @classmethod
    def _check_param_names(cls, params):
        """ValueError for names that are not parameters: the valid ones, and the nearest to each typo."""
        valid = cls._get_param_names()
        unknown = sorted(set(params) - set(valid), key=str)
        if not unknown:
            return
        hints = [f"{near!r} for {key!r}" for key in unknown if (near := nearest_name(key, valid))]
        hint = f"; did you mean {', '.join(hints)}?" if hints else ""
        raise ValueError(
            f"{cls.algorithm_name or cls.__name__}: unknown parameter(s) {', '.join(map(str, unknown))}; "
            f"valid parameters: {', '.join(valid)}{hint}"
        )

    def __repr__(self):
        sig = inspect.signature(type(self).__init__)
        changed = []
        for name in self._get_param_names():
            value = getattr(self, name)
            default = sig.parameters[name].default
            if not (value is default or (np.isscalar(value) and np.isscalar(default) and value == default)):
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(multi_class=self._multiclass, poor_score=self._poor_score),
            input_tags=InputTags(sparse=True, allow_nan=False),
            requires_fit=True,
        )

    _estimator_type = "classifier"
    _block_size: ClassVar[int | None] = None  # examples per call of the compiled loop (None: olkit.protocol.BLOCK_SIZE)
    _multiclass = False
    _multilabel = False
    _score_columns_2d = False  # the compiled loop writes scores as an (n, K) array even when K = 1
    _poor_score = False  # True where one online pass is known to fit scikit-learn's toy data poorly

    def __sklearn_is_fitted__(self):
        return hasattr(self, "classes_")

    # ---- parameter checks (the one validation path, see olkit.params) ------------------------------
    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "compat": [lambda self: Options(tuple(self.compat_choices))],
        "fit_intercept": [BOOLEAN],
        "intercept_scaling": [
            Interval(0, 1e100, closed="right", why="c² is added to kernel values and must stay finite")
        ],
        # a learner without an averaged model (docs/algorithms/options.md#average) accepts only "no average"
        "average": [
            lambda self: (
                [BOOLEAN, Interval(0, 2**62, integer=True)]
                if self._averages()
                else [
                    Options((False, 0), why="this learner keeps no averaged model: docs/algorithms/options.md#average")
                ]
            )
        ],
        "class_weight": CLASS_WEIGHT,
        "shuffle": [BOOLEAN],
        "random_state": RANDOM_STATE,
    }
    """{parameter: [constraint, ...]}; subclasses add theirs (merged along the class hierarchy)."""

    @classmethod
    def _all_constraints(cls):
        merged = {}
        for klass in reversed(cls.__mro__):
            merged.update(vars(klass).get("_parameter_constraints", {}))
        return merged

    def _validate_params(self):
        """Raise one ValueError naming the algorithm, the bad parameter, its value and what is valid."""
        validate_params(self)
        self._check_params()

    def _check_params(self):
        """Checks that involve several parameters (after each one passed its constraints)."""

    def _score_columns(self):
        """Columns of the per-round scores: K on multiclass / multi-label data where the learner keeps K
        outputs, else 1."""
        return 1

    def _after_load(self):
        """Called by :func:`olkit.persist.load` on the checked state (persist has checked every attribute
        against a fresh learner's layout, ``feature_names_in_`` included, but the record below): bring the state
        of a model file written by an earlier olkit up to what this one keeps, and check the record of the
        parameters the state was built with (a file written before they were recorded: the file's parameters,
        which :func:`olkit.save` always wrote as they were at fit). A subclass that adds its own steps calls
        this first."""
        record = getattr(self, "_state_params", None)
        if record is None:
            self._state_params = self._params_record()
            self._check_state_params()
            return
        names = self._algorithm_param_names()
        if isinstance(record, tuple) and all(
            isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in record
        ):
            have = [p[0] for p in record]
            added = [k for k in names if k not in have and k in PARAMS_ADDED_SINCE]
            if added and [k for k in names if k not in added] == have:  # a file written before they existed
                values = dict(record) | {k: PARAMS_ADDED_SINCE[k] for k in added}
                record = self._state_params = tuple((k, values[k]) for k in names)
        if not (
            isinstance(record, tuple)
            and all(
                isinstance(p, tuple) and len(p) == 2 and isinstance(p[1], (type(None), bool, int, float, str, dict))
                for p in record
            )
            and [p[0] for p in record] == names
        ):
            raise ValueError(
                f"{self.algorithm_name}: the record of the parameters the model was built with "
                "(_state_params) is damaged"
            )
        self._check_state_params()

    def _check_state(self):
        """Called by :mod:`olkit.persist` (load and save) on a state whose layout and support set were checked:
        raise ValueError naming any further value the compiled rule indexes with or loops to that is out of
        range (default: none beyond those)."""

    # ---- undoing a refused round (see olkit.protocol.run_online) --------------------------------------
    def _state_arrays(self):
        """The arrays of ``state_``: every field but the rule's parameter record ``prm``, which rounds never change
        (and which may hold infinite values, e.g. U = ∞)."""
        return [getattr(self.state_, f) for f in self.state_._fields if f != "prm"]

    def _save_model(self):
        """A copy of everything a block of rounds can change (here: the arrays of ``state_``)."""
        return [a.copy() for a in self._state_arrays()]

    def _restore_model(self, saved):
        """Put back a :meth:`_save_model` copy, in place."""
        for a, b in zip(self._state_arrays(), saved):
            a[...] = b

    def _model_is_finite(self):
        """True if no value of the model is NaN or infinite."""
        return all_finite(self._state_arrays())

    # ---- labels ------------------------------------------------------------------------------------
    def _set_classes(self, y, classes=None):
        if y.ndim == 2:  # multi-label: an n × K 0/1 indicator matrix (scikit-learn's format)
            self.multilabel_ = True
            self.classes_ = np.arange(y.shape[1])
            return
        self.multilabel_ = False
        labels = np.unique(y) if classes is None else _classes_argument(classes)
        if labels.size < 2:
            shown = _plain_labels(labels)
            raise ValueError(
                f"Classifier can't train when only one class is present (found class "
                f"{shown}); the data need two classes for {self.algorithm_name}"
            )
        if labels.size > 2 and not self._multiclass:
            raise ValueError(
                f"Only binary classification is supported by {self.algorithm_name}; the data have "
                f"{labels.size} classes ({_plain_labels(labels)})"
            )
        self.classes_ = labels

    def _encode_labels(self, y):
        """Binary: smallest label → −1, the other → +1; multiclass: the index in ``classes_``;
        multi-label: the 0/1 indicator matrix. Unknown labels raise ValueError."""
        if getattr(self, "multilabel_", False):
            if y.ndim != 2 or y.shape[1] != len(self.classes_):
                raise ValueError(
                    f"{self.algorithm_name} was set up for multi-label data with "
                    f"{len(self.classes_)} labels; y must be an n x {len(self.classes_)} 0/1 matrix"
                )
            return y.astype(np.int8)
        if y.ndim == 2:
            raise ValueError(f"{self.algorithm_name} was set up for single-label data; got a label matrix")
        classes = self.classes_
        pos = np.searchsorted(classes, y)
        pos_clipped = np.minimum(pos, len(classes) - 1)
        unknown = classes[pos_clipped] != y
        if np.any(unknown):
            bad = np.unique(np.asarray(y)[unknown])[:5]
            raise ValueError(
                f"unknown label(s) {_plain_labels(bad)}; the classifier was set up "
                f"with classes {_plain_labels(classes)}"
            )
        if len(classes) > 2:
            return pos.astype(np.float64)  # multiclass: the class index in classes_
        return np.where(pos == 1, 1.0, -1.0)

    # ---- input validation ------------------------------------------------------------------------
    def _validate_X(self, X, reset):
        """X as the learner's input (dense float64 C array or canonical CSR), checked against the fitted model
        when ``reset`` is False: its width, its column names and the parameters the model was built with."""
        self._check_feature_names(X, reset)
        if not reset:
            self._check_state_params()
        if sp.issparse(X):
            from .sparse_check import valid_csr

            X = valid_csr(X)  # structure checked at O(nnz); no copy when X is already a canonical CSR
            if np.iscomplexobj(X.data):
                raise ValueError("Complex data not supported")
            X = X.astype(np.float64, copy=False)
            values = X.data
        else:
            if hasattr(X, "__array__") or isinstance(X, (list, tuple)):
                arr = np.asarray(X)
            else:
                raise ValueError(f"X must be an array-like or a scipy sparse matrix, got {type(X).__name__}")
            if np.iscomplexobj(arr):
                raise ValueError("Complex data not supported")
            if arr.dtype == object:
                try:
                    arr = arr.astype(np.float64)
                except (TypeError, ValueError) as exc:
                    raise TypeError(f"X must contain numbers: {exc}") from None
            if arr.ndim != 2:
                raise ValueError(
                    f"Expected a 2D array for X, got a {arr.ndim}D array of shape {arr.shape}. "
                    "Reshape your data either using X.reshape(-1, 1) if it has a single "
                    "feature or X.reshape(1, -1) if it contains a single sample"
                )
            X = np.ascontiguousarray(arr, dtype=np.float64)
            values = X
        if X.shape[0] == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
        if X.shape[1] == 0:
            raise ValueError(f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
        if not np.all(np.isfinite(values)):
            raise ValueError("Input X contains NaN or infinity; online learners need finite features")
        if reset:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input"
            )
        return X

    def _check_feature_names(self, X, reset):
        """Record (``reset``) or check ``feature_names_in_`` as scikit-learn does, with its own helper. Only data
        with column names (a DataFrame) or a learner fitted on such data need it: plain arrays and matrices
        never import scikit-learn here (a second of start-up for the command line)."""
        if not (hasattr(X, "columns") or hasattr(X, "__dataframe__") or hasattr(self, "feature_names_in_")):
            return
        from sklearn.utils.validation import _check_feature_names

        _check_feature_names(self, X, reset=reset)
        if reset and hasattr(self, "feature_names_in_"):
            # a str array (scikit-learn keeps an object array): olkit.save writes str arrays, never objects
            self.feature_names_in_ = self.feature_names_in_.astype(str)

    # ---- the parameters a model is built with -------------------------------------------------------
    def _params_record(self):
        """((name, value), ...) of the algorithm's parameters, in name order: what ``_state_params`` holds (a
        tuple of pairs, which :func:`olkit.save` writes like any other state)."""
        return tuple(self._algorithm_params().items())

    def _reset_model(self, X):
        """A fresh model for data like X (``_new_state``), remembering the parameters it is built with."""
        self._new_state(X)
        self._state_params = self._params_record()

    def _check_state_params(self):
        """ValueError if a parameter differs from the value the model was built with (``set_params`` after
        fit): continuing, predicting or saving would use a state built for other parameters. A few
        microseconds: it runs at every call (River's learn_one is one partial_fit of one row)."""
        record = getattr(self, "_state_params", None)
        if record is None:
            return  # no model built by this learner's fit or partial_fit yet
        for name, fitted in record:  # the record's form is checked where it can come from a file (_after_load)
            now = getattr(self, name)
            if not _same_value(now, fitted):
                raise ValueError(
                    f"{self.algorithm_name}: parameter {name} is {_plain(now)}, but the model was built "
                    f"with {name}={_plain(fitted)}; call fit to start afresh or set it back "
                    f"(set_params({name}={_plain(fitted)}))"
                )

    def _validate_y(self, y, n) -> np.ndarray:
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        if not sp.issparse(y):
            y = _label_array(y)
        if y.ndim == 2 and y.shape[1] == 1:
            from sklearn.exceptions import DataConversionWarning

            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; using y.ravel()",
                DataConversionWarning,
                stacklevel=3,
            )
            y = y.ravel()
        if y.ndim == 2 and self._multilabel:
            if sp.issparse(y):
                y = y.toarray()
            if y.shape[0] != n:
                raise ValueError(f"X and y have mismatched lengths: {n} samples in X, {y.shape[0]} label rows in y")
            if y.shape[1] < 2 or not np.all((y == 0) | (y == 1)):
                raise ValueError(
                    "a multi-label y must be an n x K indicator matrix of 0/1 with K >= 2 "
                    "(e.g. from sklearn.preprocessing.MultiLabelBinarizer)"
                )
            return y.astype(np.int8)
        if y.ndim != 1:
            if y.ndim == 2:
                from .spec import SPECS

                multilabel = ", ".join(name for name, spec in SPECS.items() if "multilabel" in spec.data)
                raise ValueError(
                    f"y of shape {y.shape} is a label matrix; {self.algorithm_name} learns from "
                    f"one label per example (multi-label learners: {multilabel}, with a non-linear "
                    "kernel)"
                )
            raise ValueError(f"y must be one-dimensional, got shape {y.shape}")
        if len(y) != n:
            raise ValueError(f"X and y have mismatched lengths: {n} samples in X, {len(y)} labels in y")
        if y.dtype.kind in "fc":
            if not np.all(np.isfinite(y)):
                raise ValueError("y contains NaN or infinity; labels must be finite class labels")
            if np.any(y != np.round(y)):
                raise ValueError(
                    "Unknown label type: continuous. Online classifiers need discrete "
                    "class labels (e.g. -1/+1 or 0..k-1), not real-valued targets"
                )
        elif y.dtype.kind not in "iubUSO":
            raise ValueError(f"Unknown label type: {y.dtype}")
        return y

    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet; call fit or partial_fit first"
            )

    # ---- scikit-learn API ------------------------------------------------------------------------
    @serialised
    def fit(self, X: "MatrixLike", y: "ArrayLike", sample_weight: "ArrayLike | None" = None) -> Self:
        """Reset the model and make one online pass over (X, y): in a random order drawn from
        ``random_state`` when ``shuffle`` is True (the default), else in the given order.

        ``sample_weight``: a weight >= 0 per example (None: all 1), multiplied by ``class_weight``; what a
        weight does is the algorithm's (its page, section Weights). Weight 0: predicted, not learned."""
        from .protocol import run_online

        self._validate_params()
        X = self._validate_X(X, reset=True)
        y = self._validate_y(y, X.shape[0])
        weights = check_sample_weight(sample_weight, X.shape[0], self.algorithm_name)  # before the model is reset
        if X.shape[0] and not weights.any():
            raise ValueError(
                f"{self.algorithm_name}: every sample weight is zero, so fit would learn nothing (sample weights must "
                "contain at least one non-zero number; partial_fit and evaluate_online accept a chunk of zeros)"
            )
        self._set_classes(y)
        self._reset_model(X)
        y_internal = self._encode_labels(y)
        weights = example_weights(self, y, sample_weight, whole_stream=True)
        run_online(self, X, y_internal, self._fit_order(X.shape[0]), weights)
        return self

    def _fit_order(self, n):
        """The order of ``fit``'s pass: ``check_random_state(random_state).permutation(n)`` when
        ``shuffle``, else 0..n-1."""
        if not self.shuffle:
            return np.arange(n)
        from sklearn.utils import check_random_state

        seed = self.random_state
        if isinstance(seed, numbers.Real):  # an integer-valued seed (validated), e.g. 3 or 3.0
            seed = int(seed)
        return check_random_state(seed).permutation(n)

    @serialised
    def partial_fit(
        self,
        X: "MatrixLike",
        y: "ArrayLike",
        classes: "ArrayLike | None" = None,
        sample_weight: "ArrayLike | None" = None,
    ) -> Self:
        """Continue the online pass with (X, y); ``classes`` fixes the label set on the first call.
        ``sample_weight`` as in :meth:`fit` (``class_weight="balanced"`` is refused here: a chunk is not the
        whole stream)."""
        from .protocol import run_online

        first = not hasattr(self, "classes_")
        if first:
            self._validate_params()
        X = self._validate_X(X, reset=first)
        y = self._validate_y(y, X.shape[0])
        if first:
            self._set_classes(y, classes)
            self._reset_model(X)
        elif classes is not None and not np.array_equal(_classes_argument(classes), self.classes_):
            raise ValueError(
                f"classes=[{_plain_labels(classes, None)}] differs from the classes of the first "
                f"partial_fit call ([{_plain_labels(self.classes_, None)}])"
            )
        y_internal = self._encode_labels(y)
        weights = example_weights(self, y, sample_weight, whole_stream=False)
        run_online(self, X, y_internal, np.arange(X.shape[0]), weights)
        return self

    @serialised
    def decision_function(self, X: "MatrixLike") -> np.ndarray:
        """Score of every row under the current model: binary f(x), shape (n,) (positive means
        ``classes_[1]``); multiclass (n, n_classes), one column per class of ``classes_``.

        A row whose score is not finite in float64 (values so large that the kernel or the dot product
        overflows) raises a ValueError naming it, never a NaN score."""
        self._check_fitted()
        X = self._validate_X(X, reset=False)
        scores = self._decision(X)
        bad = ~np.isfinite(scores)
        if bad.any():
            rows = np.flatnonzero(bad.reshape(len(scores), -1).any(axis=1))
            values = abs(X[rows[0]]).max()
            raise ValueError(
                f"{self.algorithm_name}: the score of row {rows[0]} of X is NaN or infinite in float64 "
                f"({len(rows)} row(s) affected; its largest feature magnitude is {values:.3g}): "
                "rescale the features as the training data were"
            )
        return scores

    @serialised
    def predict(self, X: "MatrixLike") -> np.ndarray:
        """Predicted labels. Binary: a score of exactly 0 predicts the positive class; multiclass: the
        class of the largest score, ties to the smallest class (docs/algorithms/conventions.md#ties). Multi-label: the
        0/1 indicator matrix of the label set {c : f_c(x) > 0} — the classes pushed above the zero-sum
        average by the updates along H = e_r − e_s — or, when no score is positive, the top class alone
        (a predicted label set is never empty)."""
        scores = self.decision_function(X)
        if getattr(self, "multilabel_", False):
            out = (scores > 0).astype(np.int64)
            empty = ~out.any(axis=1)
            out[np.flatnonzero(empty), np.argmax(scores[empty], axis=1)] = 1
            return out
        if scores.ndim == 2:
            return self.classes_[np.argmax(scores, axis=1)]
        return self.classes_[(scores >= 0).astype(int)]

    @serialised
    def score(self, X: "MatrixLike", y: "ArrayLike") -> float:
        """Accuracy of ``predict`` on (X, y) (multi-label: the fraction of exactly right label sets)."""
        pred = self.predict(X)
        y = self._validate_y(y, pred.shape[0])
        if pred.ndim == 2:
            return float(np.mean(np.all(pred == y, axis=1)))
        return float(np.mean(pred == y.ravel()))

    # ---- running counts (they live in the model, so a stream can be resumed) --------------------------
    @property
    def n_seen_(self):
        return int(self.state_.cnt[SEEN])

    @property
    def n_mistakes_(self):
        return int(self.state_.cnt[MISTAKES])

    @property
    def n_updates_(self):
        return int(self.state_.cnt[UPDATES])

    def _counts(self):
        return self.state_.cnt.copy()

    def resolved_params(self):
        """The algorithm's parameters as used (defaults that depend on other parameters filled in; not
        ``fit``'s :data:`FIT_ORDER_PARAMS`, which no online run uses, nor the :data:`MODEL_OPTIONS` left at
        their defaults, so that a run of the paper's learner reports the paper's parameters only)."""
        return self._without_default_options(self._resolved_params())

    def _resolved_params(self):
        """Every algorithm parameter with the defaults that depend on others filled in (a learner with such
        defaults overrides this)."""
        return self._algorithm_params()

    @staticmethod
    def _without_default_options(params):
        """``params`` without the :data:`MODEL_OPTIONS` that have their default value."""
        return {
            k: v
            for k, v in params.items()
            if not (k in MODEL_OPTIONS_DEFAULTS and _same_value(v, MODEL_OPTIONS_DEFAULTS[k]))
        }

    def diagnostics(self):
        """Algorithm-specific running counts (e.g. DUOL's strong/weak double updates)."""
        return {}

    if TYPE_CHECKING:  # hooks every family's base class provides (kernel/base.py, linear/base.py, budget/fogd.py)

        def _engine_input(self, X: Any) -> Any: ...

        def _decision(self, X: Any) -> np.ndarray: ...

        def _warm_up(self, X: Any, y_internal: np.ndarray) -> None:
            """Compile (or load) what learning data like the run's ``X`` runs, before any timing; learns nothing."""

        @property
        def n_support_(self) -> int: ...
