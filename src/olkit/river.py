"""River adapter: any olkit learner as a River classifier (``learn_one`` / ``predict_one`` on dicts).

>>> from river import evaluate, metrics, stream          # doctest: +SKIP
>>> import olkit
>>> from olkit.river import RiverClassifier
>>> X, y = olkit.load_dataset("german")
>>> model = RiverClassifier(olkit.make("pa"))
>>> evaluate.progressive_val_score(stream.iter_array(X.toarray(), y), model, metrics.Accuracy())  # doctest: +SKIP

River (https://riverml.xyz) is an optional dependency (``pip install olkit[river]``); ``import olkit`` never
imports it, this module does. The wrapper calls the learner's ``partial_fit`` with one row per
``learn_one`` and its ``predict`` with one row per ``predict_one``, so a River stream gives exactly the
predictions and mistakes :func:`olkit.evaluate_online` gives on the same rows in the same order
(tests/test_river.py checks this). The cost is olkit's per-call overhead (input validation, a few tens
of microseconds per call): fine for River use, slow next to ``evaluate_online`` on a whole array.

Features
--------
olkit learners work on fixed-width numeric vectors, River passes ``{feature name: value}`` dicts. The
columns are fixed once:

* ``features=[...]`` fixes them (in that order) up front;
* otherwise the keys of the first example given to ``learn_one`` fix them, sorted when the names can be
  compared (so the model does not depend on the key order of that dict; ``stream.iter_array`` names the
  columns 0..d-1, which keeps the array's order), else in the dict's order.

A feature missing from an example is 0 (sparse dicts, as in River). A feature outside the fixed columns
cannot be learned (the learner's dimension is fixed by its first ``partial_fit``): ``new_features``
says what happens — ``"warn"`` (default): ignored, with one warning naming them the first time; ``"ignore"``:
ignored silently; ``"raise"``: ValueError naming them. Ignoring is River's convention (its
``check_estimator`` feeds examples whose feature set changes and expects them to be handled); the warning
is there because a sparse stream whose first dict lacks some features would otherwise lose them
silently — pass ``features`` for such streams. Values must be numbers (or booleans).

Labels
------
The learner's class set is fixed by its first ``partial_fit``, whereas River reveals labels one at a
time:

* ``classes=[...]`` fixes the labels up front (required for more than two classes; a superset of the
  labels that occur is fine). A label outside them raises ValueError.
* ``classes=None`` (default): a binary problem whose two labels are the first two distinct labels seen.
  Until the second label has appeared, the examples are kept (copied) and ``predict_one`` returns the one
  label seen; when the second label arrives, the kept examples and the new one are learned in stream order,
  so from then on the model is exactly the learner's model on that stream. A third label raises ValueError
  (pass ``classes``). Before any example, ``predict_one`` returns None (River's "no prediction").

Labels are ordered as ``sorted`` orders them (numpy's order for numbers and strings, so the binary tie
rule — a score of 0 predicts the larger label, ``classes_[1]`` — and multiclass ties — the smallest label —
are the learner's own; labels that cannot be compared are ordered by type name and ``repr``). The learner
sees the label indices, so any hashable labels (bools, strings, ...) work.

With ``classes`` given, ``predict_one`` before any ``learn_one`` returns the learner's prediction with an
empty model (binary learners: ``classes[1]``, the tie rule), made by a throw-away copy of the learner,
so the first prediction of a stream matches :func:`olkit.evaluate_online` too.

Probabilities
-------------
olkit learners give scores (margins), not probabilities, so ``predict_proba_one`` is not provided: River's
base class raises NotImplementedError, which River's checks and evaluation accept for label-only
classifiers (metrics such as Accuracy use ``predict_one``; ROCAUC/LogLoss need probabilities).
"""

from __future__ import annotations

import warnings

import numpy as np
from river import base

from .weights import check_sample_weight

__all__ = ["RiverClassifier"]

_NEW_FEATURES = ("warn", "ignore", "raise")


def _ordered(names):
    """``sorted(names)``, or the given order when the names cannot be compared."""
    names = list(names)
    try:
        return sorted(names)
    except TypeError:
        return names


def _sorted_labels(labels):
    labels = list(dict.fromkeys(labels))  # distinct, first occurrence kept
    try:
        return sorted(labels)
    except TypeError:
        return sorted(labels, key=lambda v: (type(v).__qualname__, repr(v)))


def _shown(values, limit=5):
    values = list(values)
    text = ", ".join(repr(v) for v in values[:limit])
    return text + (f", ... ({len(values)} in all)" if len(values) > limit else "")


class RiverClassifier(base.Classifier):
    """An olkit learner as a River classifier.

    Parameters
    ----------
    learner
        An olkit learner, e.g. ``olkit.make("duol")``. It is used as a template and never modified: the
        wrapper learns with a fresh copy (``sklearn.base.clone``), available as ``learner_`` once created.
    features
        Feature names fixing the columns, in order. None: the keys of the first learned example.
    classes
        The labels, fixed up front (required for more than two classes). None: binary, the first two
        labels seen.
    new_features
        What to do with a feature outside the fixed columns: ``"warn"`` (ignore it, warn once),
        ``"ignore"`` or ``"raise"`` (ValueError).

    Attributes
    ----------
    learner_
        The olkit learner being trained (None until the class set is known and an example was learned).
    features_
        The fixed feature names, in column order (None until fixed).
    classes_
        The labels in the learner's order (None until known).

    Examples
    --------
    >>> import olkit
    >>> from olkit.river import RiverClassifier
    >>> model = RiverClassifier(olkit.make("pa", kernel="linear"))
    >>> model.learn_one({"a": 1.0, "b": 0.0}, True)
    >>> model.learn_one({"a": 0.0, "b": 1.0}, False)
    >>> model.predict_one({"a": 1.0}), model.predict_one({"b": 1.0})
    (True, False)
    """

    def __init__(
        self, learner, features: tuple | None = None, classes: tuple | None = None, new_features: str = "warn"
    ):
        from .base import OnlineClassifier

        if not isinstance(learner, OnlineClassifier):
            raise TypeError(f"learner must be an olkit learner (e.g. olkit.make('pa')), got {type(learner).__name__}")
        if new_features not in _NEW_FEATURES:
            raise ValueError(f"new_features must be one of {', '.join(map(repr, _NEW_FEATURES))}, got {new_features!r}")
        self.learner = learner
        self.features = features
        self.classes = classes
        self.new_features = new_features

        self.learner_ = None
        self.features_ = None
        self.classes_ = None
        self._columns = None  # feature name -> column
        self._row = None  # the (1, d) row buffer, reused by every call
        self._codes = None  # label -> index in classes_
        self._pending: list = []  # classes=None, one label seen so far: copies of the rows learned
        self._pending_label = None
        self._pending_weights: list = []  # their weights
        self._warned = False

        if features is not None:
            names = list(features)
            if not names or len(set(names)) != len(names):
                raise ValueError("features must be a non-empty list of distinct feature names")
            self._set_columns(names)
        if classes is not None:
            labels = _sorted_labels(classes)
            if len(labels) < 2:
                raise ValueError(f"classes must hold at least two distinct labels, got [{_shown(labels)}]")
            if len(labels) > 2 and not learner.__sklearn_tags__().classifier_tags.multi_class:
                raise ValueError(
                    f"{learner.algorithm_name} is a binary learner; classes has {len(labels)} labels ({_shown(labels)})"
                )
            self._set_classes(labels)

    # ---- River's estimator protocol ----------------------------------------------------------------
    @classmethod
    def _unit_test_params(cls):
        from .registry import make

        yield {"learner": make("pa")}
        yield {"learner": make("duol"), "classes": (0, 1, 2)}

    @property
    def _raw_memory_usage(self) -> int:
        """Bytes of the wrapper, its learner and their state, measured as River measures a model (each object
        reachable through :func:`gc.get_referents` once, its :func:`sys.getsizeof`, plus a NumPy array's buffer),
        with olkit's compiled functions left out as River leaves out functions, classes and modules: they are code
        shared by every learner of the process, not this model's state. Their object graph also reaches numba's
        JIT engine, which keeps weak proxies to the code libraries it compiled; once one of those is discarded the
        proxy is dead, and River's own walk stops on it with ``ReferenceError`` (seen in ``check_estimator``'s
        memory check, depending on what the process compiled before)."""
        import gc
        import sys
        import types
        import weakref

        from numba.core.dispatcher import Dispatcher

        proxies = (weakref.ProxyType, weakref.CallableProxyType)
        code = (type, types.ModuleType, types.FunctionType, Dispatcher)
        seen: set[int] = set()
        size = 0
        pending: list = [self]
        while pending:
            visit = []
            for obj in pending:
                # a proxy first, by its exact type: isinstance() on a dead proxy raises ReferenceError
                if type(obj) in proxies or isinstance(obj, code) or id(obj) in seen:
                    continue
                seen.add(id(obj))
                size += sys.getsizeof(obj) + (obj.nbytes if isinstance(obj, np.ndarray) else 0)
                visit.append(obj)
            pending = gc.get_referents(*visit)
        return size

    @property
    def _multiclass(self) -> bool:
        return self.classes is not None and len(self.classes_) > 2  # type: ignore[arg-type]  # set with classes

    # ---- set-up --------------------------------------------------------------------------------------
    def _set_columns(self, names):
        self.features_ = list(names)
        self._columns = {name: j for j, name in enumerate(self.features_)}
        self._row = np.zeros((1, len(self.features_)))

    def _set_classes(self, labels):
        self.classes_ = list(labels)
        self._codes = {label: i for i, label in enumerate(self.classes_)}

    def _new_learner(self, labels=None):
        """A fresh copy of the learner, for the wrapper's labels (``labels``, else ``classes_``): the inner
        learner sees the class codes 0..K-1, so a ``class_weight`` dict keyed by labels is re-keyed by code."""
        from sklearn.base import clone

        learner = clone(self.learner)
        weights = getattr(learner, "class_weight", None)
        if isinstance(weights, dict):
            labels = list(self.classes_ if labels is None else labels)
            unknown = [k for k in weights if k not in labels]
            if unknown:
                raise ValueError(
                    f"class_weight names label(s) {_shown(unknown)} that are not among the classifier's labels "
                    f"[{_shown(labels)}]"
                )
            learner.set_params(class_weight={labels.index(k): w for k, w in weights.items()})
        return learner

    def _fill(self, x, columns, row):
        """Write x into ``row`` (zeros elsewhere), applying the ``new_features`` rule."""
        row.fill(0.0)
        try:
            idx = [columns[name] for name in x]
            values = list(x.values())
        except KeyError:
            new = [name for name in x if name not in columns]
            self._new_feature_rule(new)
            idx = [columns[name] for name in x if name in columns]
            values = [v for name, v in x.items() if name in columns]
        try:
            row[0, idx] = values
        except (TypeError, ValueError):
            bad = [name for name, v in x.items() if name in columns and not _is_number(v)]
            shown = ", ".join(f"{n!r}={x[n]!r}" for n in bad[:5])
            raise ValueError(f"feature values must be numbers: {shown}") from None
        return row

    def _new_feature_rule(self, new):
        if self.new_features == "raise":
            raise ValueError(
                f"feature(s) not among the {len(self._columns)} fixed columns: {_shown(new)} "
                "(the columns are fixed by `features` or by the first learned example)"
            )
        if self.new_features == "warn" and not self._warned:
            self._warned = True
            warnings.warn(
                f"RiverClassifier ignores feature(s) outside its {len(self._columns)} fixed columns: "
                f"{_shown(new)} (columns are fixed by `features` or by the first learned example; "
                "new_features='ignore' silences this warning)",
                UserWarning,
                stacklevel=3,
            )

    # ---- learning and prediction ---------------------------------------------------------------------
    def learn_one(self, x, y, w=1.0, **kwargs) -> None:
        """Learn (x, y) with weight ``w`` (River's sample weight; the learner's ``sample_weight``,
        docs/algorithms/options.md#weights; 0: the example is not learned)."""
        if self._columns is None:
            self._set_columns(_ordered(x))
        row = self._fill(x, self._columns, self._row)
        weight = check_sample_weight([w], 1, self.learner.algorithm_name)
        if self.learner_ is not None:
            self.learner_.partial_fit(row, np.array([self._code(y)]), sample_weight=weight)
            return
        if self.classes_ is not None:  # classes given: the first example
            learner = self._new_learner()
            classes = np.arange(len(self.classes_))
            learner.partial_fit(row, np.array([self._code(y)]), classes=classes, sample_weight=weight)
            self.learner_ = learner
            return
        # classes=None: keep the examples until the second label appears
        if not self._pending or y == self._pending_label:
            if not self._pending:
                self._pending_label = y
            self._pending.append(row[0].copy())
            self._pending_weights.append(weight[0])
            return
        labels = _sorted_labels([self._pending_label, y])
        X = np.vstack([*self._pending, row[0]])
        codes = np.full(len(X), labels.index(self._pending_label))
        codes[-1] = labels.index(y)
        learner = self._new_learner(labels)
        weights = np.array([*self._pending_weights, weight[0]])
        # may refuse a row: then nothing changes here
        learner.partial_fit(X, codes, classes=np.arange(2), sample_weight=weights)
        self._set_classes(labels)
        self.learner_ = learner
        self._pending, self._pending_label, self._pending_weights = [], None, []

    def _code(self, y):
        try:
            return self._codes[y]
        except (KeyError, TypeError):
            hint = (
                "pass classes=[...] to RiverClassifier for more than two labels"
                if self.classes is None
                else "the labels were fixed by `classes`"
            )
            raise ValueError(
                f"unknown label {y!r}: the classifier's labels are [{_shown(self.classes_)}] ({hint})"
            ) from None

    def predict_one(self, x, **kwargs):
        if self.learner_ is not None:
            return self.classes_[int(self.learner_.predict(self._fill(x, self._columns, self._row))[0])]
        if self._pending:
            return self._pending_label
        if self.classes_ is None:
            return None
        # classes given, nothing learned yet: the empty model's prediction, from a throw-away learner (the
        # learner's own cold start, e.g. the binary tie rule), leaving this wrapper unchanged
        if self._columns is not None:
            columns, row = self._columns, self._row
        else:
            names = _ordered(x)
            columns, row = {name: j for j, name in enumerate(names)}, np.zeros((1, max(len(names), 1)))
        row = self._fill(x, columns, row)
        learner = self._new_learner()  # partial_fit's first-call set-up, without the update
        learner._validate_params()
        X = learner._validate_X(row, reset=True)
        learner._set_classes(np.zeros(1, np.int64), np.arange(len(self.classes_)))
        learner._new_state(X)
        return self.classes_[int(learner.predict(X)[0])]


def _is_number(v):
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True
