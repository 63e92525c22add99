"""Models on disk without pickle: :func:`save` and :func:`load` (issue 10).

>>> import olkit, numpy as np, tempfile, os
>>> X, y = olkit.load_dataset("german")
>>> clf = olkit.make("pa1").partial_fit(X[:500], y[:500])
>>> path = os.path.join(tempfile.mkdtemp(), "pa1.npz")
>>> olkit.save(clf, path)
>>> again = olkit.load(path)
>>> bool(np.array_equal(again.decision_function(X[500:]), clf.decision_function(X[500:])))
True

Format (version 1)
------------------
One ``.npz`` file (``numpy.savez_compressed``, a zip of ``.npy`` arrays), read back with
``numpy.load(path, allow_pickle=False)``: no pickle, no object arrays anywhere. It holds

* ``__header__``: a uint8 array, the UTF-8 bytes of a JSON object::

    {"format": "olkit-model", "format_version": 1, "olkit_version": "0.1.0",
     "algorithm": "duol", "params": {...get_params()...},
     "classes": {"kind": "int" | "float" | "str" | "bool", "dtype": "<i8", "values": [...]},
     "multilabel": false, "n_features_in": 24,
     "state": {...}, "arrays": {"support_.coef": {"dtype": "<f8", "shape": [412, 1]}, ...}}

  ``params`` holds JSON-safe values: None, booleans, integers, strings, finite floats, and
  ``{"float": "inf" | "-inf" | "nan"}`` for the others (a ``random_state`` that is a RandomState cannot be
  saved). ``arrays`` is the manifest: name, dtype and shape of every other array of the file.
* one array per name of the manifest: the learner's state.

``state`` describes every attribute of the learner that is not a parameter (the fitted attributes ending in
``_`` — ``classes_``, ``multilabel_``, ``n_features_in_``, ``state_``, ``support_``, ``model_`` — and the few
private ones a learner sets when it starts a stream, e.g. POMDR's stream length), found generically in the
learner's ``__dict__``. Each value is encoded as a JSON node:

* ``null``, booleans, integers, strings: as themselves; floats ``{"float": repr}``;
* an array: ``{"array": NAME}`` (NAME in the manifest, e.g. ``state_.cnt``);
* a tuple: ``{"tuple": [node, ...]}``;
* a named state tuple (RuleState, LinearState, NOGDState, FOGDState, ...): ``{"namedtuple":
  "module:Name", "fields": {field: node}}`` — only classes defined in olkit are loaded;
* the support set of a kernel learner: ``{"support_set": {attribute: node}, "capacity": c, "pool_capacity": p}``
  — what its pickling keeps (the used part of each array: n SVs, the non-zeros in use), rebuilt on load
  by the same code, then grown to the saved capacities so that the model grows as the saved one would;
* the linear model of a primal learner: ``{"linear_model": {attribute: node}}`` (all but the compiled
  rule, which is the learner's own);
* ``{"ref": NAME}``: the same object as the attribute NAME encoded before it (``state_`` of a linear
  learner is ``model_.state``).

Loading checks the file before building anything: an olkit model file of a version this olkit reads, a
registered algorithm, valid parameters (the one validation path), every array of the manifest present
with its dtype and shape, every array the state names in the manifest. Errors are ValueErrors of one line
naming the file.
"""
import json
import math
import os
import zipfile
import zlib

import numpy as np

from .protocol import serialised

FORMAT = "olkit-model"
FORMAT_VERSION = 1
HEADER_KEY = "__header__"


class _Bad(Exception):
    """A problem of the file's content (turned into a ValueError naming the file)."""


# ---- JSON-safe scalar values ----------------------------------------------------------------------------
def _scalar(value, what):
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    raise ValueError(f"{what} = {value!r} ({type(value).__name__}) cannot be saved: olkit model files hold "
                     "None, booleans, numbers and strings")


def _unscalar(node):
    if isinstance(node, dict):
        if set(node) != {"float"} or not isinstance(node["float"], str):
            raise _Bad(f"unreadable value {node!r}")
        try:
            return float(node["float"])
        except ValueError:
            raise _Bad(f"unreadable number {node['float']!r}") from None
    return node


# ---- saving ------------------------------------------------------------------------------------------------
class _Writer:
    def __init__(self):
        self.arrays = {}
        self.seen = {}  # id(object) -> name of its first encoding (shared objects are saved once)
        self.keep = []  # keep encoded objects alive, so that ids stay unique

    def encode(self, value, name):
        from .learners.kernel.support_set import SupportSet
        from .learners.linear.model import LinearModel

        if value is None or isinstance(value, (bool, int, str, float, np.generic)):
            return _scalar(value, name)
        if id(value) in self.seen:
            return {"ref": self.seen[id(value)]}
        self.seen[id(value)] = name
        self.keep.append(value)
        if isinstance(value, np.ndarray):
            if value.dtype.kind not in "biufcUS":
                raise ValueError(f"{name}: arrays of dtype {value.dtype} cannot be saved without pickle")
            self.arrays[name] = np.ascontiguousarray(value)
            return {"array": name}
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            cls = type(value)
            if not cls.__module__.startswith("olkit."):
                raise ValueError(f"{name}: state tuple {cls.__qualname__} is not olkit's")
            return {"namedtuple": f"{cls.__module__}:{cls.__qualname__}",
                    "fields": {f: self.encode(v, f"{name}.{f}") for f, v in zip(value._fields, value)}}
        if isinstance(value, (tuple, list)):
            return {"tuple": [self.encode(v, f"{name}.{i}") for i, v in enumerate(value)]}
        if isinstance(value, SupportSet):
            capacity, pool_capacity = int(value.capacity), len(value.indices)
            state = value.__getstate__()  # the used part only (its pickling)
            return {"support_set": {k: self.encode(v, f"{name}.{k}") for k, v in state.items() if k != "krow"},
                    "capacity": capacity, "pool_capacity": pool_capacity}
        if isinstance(value, LinearModel):
            return {"linear_model": {k: self.encode(v, f"{name}.{k}") for k, v in vars(value).items() if k != "rule"}}
        raise ValueError(f"{name}: a {type(value).__name__} cannot be saved in an olkit model file")


def _classes_header(classes):
    kind = {"b": "bool", "i": "int", "u": "int", "f": "float", "U": "str", "S": "bytes"}.get(classes.dtype.kind)
    if kind is None:
        raise ValueError(f"labels of dtype {classes.dtype} cannot be saved (numbers or strings only)")
    values = [v.decode("latin-1") if isinstance(v, bytes) else _scalar(v, "classes_") for v in classes.tolist()]
    return {"kind": kind, "dtype": classes.dtype.str, "values": values}


@serialised
def save(model, path):
    """Write a fitted olkit learner to ``path`` (one ``.npz`` file, no pickle; see the module docstring).

    The file is written whole or not at all (a temporary file renamed over ``path``)."""
    from . import __version__
    from ._files import atomic_open
    from .base import OnlineClassifier

    if not isinstance(model, OnlineClassifier):
        raise TypeError(f"olkit.save: expected an olkit learner, got {type(model).__name__}")
    if not hasattr(model, "classes_") or not hasattr(model, "state_"):
        raise ValueError(f"olkit.save: this {model.algorithm_name} learner is not fitted (call fit or partial_fit "
                         f"first); nothing to save to {path}")
    model._check_state_params()  # a parameter changed since fit: the state is not the parameters' model
    param_names = set(model._get_param_names())
    params = {k: _scalar(v, f"parameter {k}") for k, v in model.get_params().items()}
    writer = _Writer()
    state = {k: writer.encode(v, k) for k, v in vars(model).items() if k not in param_names}
    header = {"format": FORMAT, "format_version": FORMAT_VERSION, "olkit_version": __version__,
              "algorithm": model.algorithm_name, "params": params, "classes": _classes_header(model.classes_),
              "multilabel": bool(getattr(model, "multilabel_", False)), "n_features_in": int(model.n_features_in_),
              "state": state,
              "arrays": {k: {"dtype": a.dtype.str, "shape": list(a.shape)} for k, a in writer.arrays.items()}}
    blob = np.frombuffer(json.dumps(header, allow_nan=False).encode("utf-8"), dtype=np.uint8)
    with atomic_open(path, "wb") as fh:  # a file object: numpy adds no ".npz" to the name
        np.savez_compressed(fh, **{HEADER_KEY: blob}, **writer.arrays)


# ---- loading -----------------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, arrays, manifest, learner):
        self.arrays = arrays
        self.manifest = manifest
        self.learner = learner
        self.objects = {}  # name -> decoded object (for "ref")

    def decode(self, node, name):
        if node is None or isinstance(node, (bool, int, float, str)):  # a finite float is written bare (_scalar)
            return node
        if not isinstance(node, dict) or len(node) == 0:
            raise _Bad(f"{name}: unreadable state entry {node!r}"[:200])
        if "float" in node:
            return _unscalar(node)
        if "ref" in node:
            if node["ref"] not in self.objects:
                raise _Bad(f"{name}: refers to {node['ref']!r}, which the file does not define before it")
            return self.objects[node["ref"]]
        value = self._decode_object(node, name)
        self.objects[name] = value
        return value

    def _decode_object(self, node, name):
        from .learners.kernel.support_set import SupportSet
        from .learners.linear.model import LinearModel

        if "array" in node:
            key = node["array"]
            if key not in self.manifest:
                raise _Bad(f"array {key!r} of the state is not in the manifest")
            return self.arrays[key]
        if "tuple" in node:
            return tuple(self.decode(v, f"{name}.{i}") for i, v in enumerate(node["tuple"]))
        if "namedtuple" in node:
            cls = _state_tuple_class(node["namedtuple"])
            fields = node.get("fields")
            if not isinstance(fields, dict) or list(fields) != list(cls._fields):
                raise _Bad(f"{name}: the fields of {cls.__name__} must be {', '.join(cls._fields)}")
            return cls(*(self.decode(fields[f], f"{name}.{f}") for f in cls._fields))
        if "support_set" in node:
            state = {k: self.decode(v, f"{name}.{k}") for k, v in node["support_set"].items()}
            sv = SupportSet.__new__(SupportSet)
            try:
                sv.__setstate__(state)
                sv.restore_capacity(int(node["capacity"]), int(node["pool_capacity"]))
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                raise _Bad(f"{name}: inconsistent support set ({exc})") from None
            return sv
        if "linear_model" in node:
            model = LinearModel.__new__(LinearModel)
            for k, v in node["linear_model"].items():
                setattr(model, k, self.decode(v, f"{name}.{k}"))
            model.rule = self.learner._linear_spec()["rule"]
            return model
        raise _Bad(f"{name}: unknown kind of state entry ({', '.join(map(str, node))})")


def _state_tuple_class(spec):
    import importlib

    module, _, qualname = str(spec).partition(":")
    if not module.startswith("olkit.") or not qualname.isidentifier():
        raise _Bad(f"state tuple {spec!r} is not one of olkit's")
    try:
        cls = getattr(importlib.import_module(module), qualname)
    except (ImportError, AttributeError):
        raise _Bad(f"state tuple {spec!r} does not exist in this olkit") from None
    if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
        raise _Bad(f"{spec!r} is not a state tuple")
    return cls


def _read_header(npz):
    if HEADER_KEY not in npz.files:
        raise _Bad("not an olkit model file (no header)")
    raw = npz[HEADER_KEY]
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise _Bad("not an olkit model file (the header is not a byte array)")
    try:
        header = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise _Bad("not an olkit model file (unreadable header)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise _Bad("not an olkit model file")
    version = header.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _Bad(f"unreadable format version {version!r}")
    if version > FORMAT_VERSION or version < 1:
        raise _Bad(f"format version {version} is not readable by olkit "
                   f"{_olkit_version()} (it reads version {FORMAT_VERSION}; the file was written by olkit "
                   f"{header.get('olkit_version', '?')})")
    for key, kind in (("algorithm", str), ("params", dict), ("state", dict), ("arrays", dict),
                      ("classes", dict), ("n_features_in", int), ("multilabel", bool)):
        if not isinstance(header.get(key), kind):
            raise _Bad(f"the header's {key!r} is missing or not a {kind.__name__}")
    return header


def _olkit_version():
    from . import __version__

    return __version__


def _check_arrays(npz, manifest):
    arrays = {}
    for key, entry in manifest.items():
        if key not in npz.files:
            raise _Bad(f"array {key!r} of the manifest is missing")
        try:
            arr = npz[key]
        except ValueError:
            raise _Bad(f"array {key!r} is not a plain numeric or text array (pickled objects are refused)") from None
        if not isinstance(entry, dict) or arr.dtype.str != entry.get("dtype") or list(arr.shape) != entry.get("shape"):
            raise _Bad(f"array {key!r} is {arr.dtype.str} {list(arr.shape)}, the manifest says "
                       f"{entry.get('dtype') if isinstance(entry, dict) else entry} "
                       f"{entry.get('shape') if isinstance(entry, dict) else ''}")
        if arr.dtype.kind not in "biufcUS":
            raise _Bad(f"array {key!r} has dtype {arr.dtype}, which an olkit model never holds")
        arrays[key] = np.array(arr)  # writable, owned
    extra = sorted(set(npz.files) - set(manifest) - {HEADER_KEY})
    if extra:
        raise _Bad(f"array(s) {', '.join(extra[:5])} are not in the manifest")
    return arrays


def load(path):
    """Read a learner written by :func:`save`: it predicts as the saved one did and continues learning
    (``partial_fit``) exactly as it would have. Only ``numpy.load(..., allow_pickle=False)`` is used."""
    from .registry import make

    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
    except FileNotFoundError:
        raise FileNotFoundError(f"model file {path} not found") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the model file: {exc.strerror or exc}") from None
    if magic != b"PK\x03\x04":  # every .npz is a zip archive; anything else np.load would try to unpickle
        raise ValueError(f"{path}: not an olkit model file (not an .npz archive)")
    try:
        npz = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not an olkit model file (damaged .npz archive: {exc})") from None
    try:
        with npz:
            header = _read_header(npz)
            arrays = _check_arrays(npz, header["arrays"])
        params = {k: _unscalar(v) for k, v in header["params"].items()}
        try:
            learner = make(header["algorithm"], **params)
        except ValueError as exc:
            raise _Bad(str(exc)) from None
        reader = _Reader(arrays, header["arrays"], learner)
        for key, node in header["state"].items():
            if not isinstance(key, str) or key in params or key.startswith("__"):
                raise _Bad(f"state entry {key!r} is not a fitted attribute")
            setattr(learner, key, reader.decode(node, key))
        _check_learner(learner, header)
        learner._after_load()
    except _Bad as exc:
        raise ValueError(f"{path}: invalid olkit model file: {exc}") from None
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise ValueError(f"{path}: damaged olkit model file ({type(exc).__name__}: {exc})") from None
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        raise ValueError(f"{path}: invalid olkit model file: {type(exc).__name__}: {exc}") from None
    return learner


def _check_learner(learner, header):
    """The loaded state agrees with the header and has the layout a fresh learner of the same algorithm,
    parameters and data shape would have (same state tuples, fields, dtypes and dimensions)."""
    for attr in ("classes_", "state_", "n_features_in_", "multilabel_"):
        if not hasattr(learner, attr):
            raise _Bad(f"the state has no {attr}")
    classes = learner.classes_
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size < 2:
        raise _Bad("classes_ must be an array of at least 2 labels")
    if _classes_header(classes) != header["classes"]:
        raise _Bad("the header's classes differ from the classes_ array")
    if learner.n_features_in_ != header["n_features_in"] or learner.multilabel_ != header["multilabel"]:
        raise _Bad("the header's n_features_in / multilabel differ from the state")
    fresh = type(learner)(**learner.get_params())
    fresh.classes_, fresh.multilabel_, fresh.n_features_in_ = classes, learner.multilabel_, learner.n_features_in_
    sparse = getattr(getattr(learner, "support_", None), "sparse", False)
    import scipy.sparse as sp

    X = sp.csr_matrix((1, learner.n_features_in_)) if sparse else np.zeros((1, learner.n_features_in_))
    fresh._new_state(X)
    _same_layout(fresh.state_, learner.state_, "state_")
    for attr in ("model_", "support_"):
        a, b = getattr(fresh, attr, None), getattr(learner, attr, None)
        if (a is None) != (b is None) or type(a) is not type(b):
            raise _Bad(f"{attr} is {type(b).__name__}, expected {type(a).__name__}")
    if getattr(learner, "model_", None) is not None:
        for k in ("W", "S", "D", "u1", "u2", "fs", "cfg"):
            _same_layout(getattr(fresh.model_, k), getattr(learner.model_, k), f"model_.{k}", shape=True)
        if learner.model_.state is not learner.state_ and isinstance(learner.state_, type(learner.model_.state)):
            raise _Bad("state_ must be model_.state")
    if getattr(learner, "support_", None) is not None:
        sv = learner.support_
        if (sv.n_features, sv.n_outputs) != (learner.n_features_in_, fresh.support_.n_outputs) or sv.coef.ndim != 2:
            raise _Bad("the support set does not match the number of features / outputs")


def _same_layout(a, b, name, shape=False):
    if isinstance(a, tuple):
        if type(a) is not type(b):
            raise _Bad(f"{name} is a {type(b).__name__}, expected {type(a).__name__}")
        for f, x, y in zip(a._fields, a, b):
            _same_layout(x, y, f"{name}.{f}", shape)
        return
    if not isinstance(b, np.ndarray) or a.dtype != b.dtype or a.ndim != b.ndim:
        raise _Bad(f"{name} has the wrong dtype or dimensions")
    if (shape or a.ndim == 1 and name.endswith((".cnt", ".cfg"))) and a.shape != b.shape:
        raise _Bad(f"{name} has shape {b.shape}, expected {a.shape}")
