"""Models on disk without pickle: :func:`save` and :func:`load` (issue 10).

>>> import olkit, numpy as np, tempfile, os
>>> X, y = olkit.load_dataset("german")
>>> clf = olkit.make("pa1").partial_fit(X[:500], y[:500])
>>> path = os.path.join(tempfile.mkdtemp(), "pa1.npz")
>>> olkit.save(clf, path)
>>> again = olkit.load(path)
>>> bool(np.array_equal(again.decision_function(X[500:]), clf.decision_function(X[500:])))
True

Format (version 3)
------------------
One ``.npz`` file (``numpy.savez_compressed``, a zip of ``.npy`` arrays), read back with
``numpy.load(path, allow_pickle=False)``: no pickle, no object arrays anywhere. It holds

* ``__header__``: a uint8 array, the UTF-8 bytes of a JSON object::

    {"format": "olkit-model", "format_version": 3, "olkit_version": "<olkit.__version__>",
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

A model file is untrusted input (people share them). Loading checks it before anything is allocated,
decompressed or handed to compiled code (issue 21):

1. a regular file (a FIFO or a device is refused unopened), a zip of at most MAX_MEMBERS plain ``.npy``
   members, stored or deflated, none claiming more than deflate can expand;
2. the JSON header: at most MAX_HEADER_BYTES (checked from the zip directory, unread), nested at most
   MAX_NESTING deep (checked without recursion), a format version this olkit reads, no unknown entries;
3. the layout: a fresh learner of the header's algorithm and parameters (the registry's one validation
   path), labels (distinct, finite, sorted) and width builds its state (``_new_state``); the header's state
   must have the same outline (attributes, state tuples and fields, support set or linear model and their
   settings) and the manifest exactly the dtypes and shapes that outline implies for the header's number of
   SVs (:meth:`SupportSet.saved_shapes`); the capacities the set will grow to must fit in memory;
4. each member's ``.npy`` header (read alone): plain dtype, non-negative shape, the data exactly the rest of
   the zip entry, and equal to the manifest — only then is the member decompressed;
5. the values (:func:`_check_values`, also run by :func:`save` on the learner it writes, so that save never
   writes a file that load refuses): every index and loop bound of the support set in range
   (:meth:`SupportSet.check_loaded`) and of the learner's own state (its ``_check_state``), counters
   non-negative, values finite wherever the state is finite, rule parameters and configuration equal to
   what the parameters give.

Every refusal is one ValueError of one line naming the file, the member and what is wrong.

A file of this format version written by an earlier olkit may lack what was added since: the attributes of
:data:`BACKFILLED_ATTRIBUTES` and the support-set arrays of :data:`BACKFILLED_SUPPORT_ARRAYS` (the examples'
weights, all 1 before weights existed); the learner's record of parameters may lack those of
``olkit.base.PARAMS_ADDED_SINCE`` (``class_weight``). They are filled in with what the file's model was learnt with,
then checked like the rest.
"""

import json
import math
import os
import zipfile
import zlib
from typing import TYPE_CHECKING

import numpy as np

from .protocol import serialised

if TYPE_CHECKING:
    from .base import OnlineClassifier

FORMAT = "olkit-model"
FORMAT_VERSION = 3
"""3: models keep their averages (issue 24; a linear model's fst and cfg grew); 2: the rule parameters saved by
name (issue 23)."""
_OLDER_FORMATS = {
    1: "olkit before the rule parameters were saved by name",
    2: "olkit before averaged models and fit_intercept",
}
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
    if isinstance(value, dict):  # class_weight {label: weight}: JSON keys are strings, so a list of pairs
        return {"pairs": [[_scalar(k, f"{what} key"), _scalar(v, f"{what}[{k!r}]")] for k, v in value.items()]}
    raise ValueError(
        f"{what} = {value!r} ({type(value).__name__}) cannot be saved: olkit model files hold "
        "None, booleans, numbers, strings and {label: number} dicts"
    )


def _unscalar(node):
    if isinstance(node, dict) and set(node) == {"pairs"}:
        pairs = node["pairs"]
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise _Bad(f"unreadable {{label: weight}} pairs {pairs!r}"[:200])
        out = {}
        for key, value in pairs:
            key = _unscalar(key)
            if not isinstance(key, (bool, int, float, str)) or key in out:
                raise _Bad(f"unreadable or repeated label {key!r} in {{label: weight}} pairs"[:200])
            out[key] = _unscalar(value)
            if isinstance(out[key], dict):
                raise _Bad("a {label: weight} pair holds a nested value")
        return out
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

        if value is None or isinstance(value, (bool, int, str, float, np.generic, dict)):
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
            return {
                "namedtuple": f"{cls.__module__}:{cls.__qualname__}",
                "fields": {f: self.encode(v, f"{name}.{f}") for f, v in zip(value._fields, value)},
            }
        if isinstance(value, (tuple, list)):
            return {"tuple": [self.encode(v, f"{name}.{i}") for i, v in enumerate(value)]}
        if isinstance(value, SupportSet):
            capacity, pool_capacity = int(value.capacity), len(value.indices)
            state = value.__getstate__()  # the used part only (its pickling)
            return {
                "support_set": {k: self.encode(v, f"{name}.{k}") for k, v in state.items() if k != "krow"},
                "capacity": capacity,
                "pool_capacity": pool_capacity,
            }
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
def save(model: "OnlineClassifier", path: str | os.PathLike) -> None:
    """Write a fitted olkit learner to ``path`` (one ``.npz`` file, no pickle; see the module docstring).

    The file is written whole or not at all (a temporary file renamed over ``path``)."""
    from . import __version__
    from ._files import atomic_open
    from .base import OnlineClassifier

    if not isinstance(model, OnlineClassifier):
        raise TypeError(f"olkit.save: expected an olkit learner, got {type(model).__name__}")
    if not hasattr(model, "classes_") or not hasattr(model, "state_"):
        raise ValueError(
            f"olkit.save: this {model.algorithm_name} learner is not fitted (call fit or partial_fit "
            f"first); nothing to save to {path}"
        )
    path = os.fspath(path)
    try:  # a parameter changed since fit: the state is not the parameters' model
        model._check_state_params()
    except ValueError as exc:
        raise ValueError(
            f"olkit.save: {path}: this {model.algorithm_name} learner's state does not match its "
            f"parameters ({exc}); nothing was written"
        ) from None
    param_names = set(model._get_param_names())
    params = {k: _scalar(v, f"parameter {k}") for k, v in model.get_params().items()}
    writer = _Writer()
    state = {k: writer.encode(v, k) for k, v in vars(model).items() if k not in param_names}
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "olkit_version": __version__,
        "algorithm": model.algorithm_name,
        "params": params,
        "classes": _classes_header(model.classes_),
        "multilabel": bool(getattr(model, "multilabel_", False)),
        "n_features_in": int(model.n_features_in_),
        "state": state,
        "arrays": {k: {"dtype": a.dtype.str, "shape": list(a.shape)} for k, a in writer.arrays.items()},
    }
    try:  # the checks of load: never write a file that load refuses
        _check_learner(model, header)
        _check_values(model, _Layout(header), writer.arrays)
    except _Bad as exc:
        raise ValueError(
            f"olkit.save: {path}: this {model.algorithm_name} learner's state does not match its "
            f"parameters or is invalid ({exc}); fit it again, or set the parameters it was "
            "fitted with back"
        ) from None
    blob = np.frombuffer(json.dumps(header, allow_nan=False).encode("utf-8"), dtype=np.uint8)
    with atomic_open(path, "wb") as fh:  # a file object: numpy adds no ".npz" to the name
        # the arrays are keyword arguments; numpy's stub checks such a mapping against allow_pickle's type
        np.savez_compressed(fh, **{HEADER_KEY: blob}, **writer.arrays)  # type: ignore[arg-type]


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
        if "float" in node or "pairs" in node:
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
                _check_growth(sv, node["capacity"], name)
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


def _check_growth(sv, capacity, name):
    """A capacity the set can have reached: it doubles at most, from what the examples seen (its clock) and a
    block of rows asked for (see ``SupportSet.reserve``), so a file claiming 10^9 slots for a few SVs is
    refused whatever the machine's memory."""
    from .learners.kernel.support_set import CLOCK

    reach = 2 * (max(int(sv.meta[CLOCK]), 0) + sv.n + 1 + (1 << 16)) + 1
    if capacity > reach:
        raise _Bad(
            f"{name}: capacity {capacity} is more than a set of {sv.n} SVs that saw {int(sv.meta[CLOCK]) + 1} "
            f"examples can have grown to ({reach})"
        )


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


# ---- reading a file that nobody vouches for -----------------------------------------------------------------
# A model file is untrusted input (people share them): nothing is allocated, decompressed or handed to
# compiled code before it is known to fit the layout the header's algorithm builds.
MAX_HEADER_BYTES = 4 << 20
"""The JSON header of a real model is a few KB (parameters, labels, the state's outline)."""
MAX_NESTING = 32
"""Deepest nesting of the header's JSON (a real header nests about 6 deep)."""
MAX_MEMBERS = 256
MAX_DEFLATE_RATIO = 1100
"""Deflate expands at most about 1032:1: a member claiming more is not what numpy wrote."""
HEADER_KEYS = {
    "format",
    "format_version",
    "olkit_version",
    "algorithm",
    "params",
    "classes",
    "multilabel",
    "n_features_in",
    "state",
    "arrays",
}
OPTIONAL_ATTRIBUTES = {"feature_names_in_"}
"""Fitted attributes a learner has only after some fits (column names of a DataFrame): 1-D text arrays of
n_features_in_ entries."""
BACKFILLED_ATTRIBUTES = {"_state_params"}
"""Attributes a file written by an earlier olkit may lack: the learner's ``_after_load`` fills them in and
checks them (a tuple of (name, scalar) pairs: no array, nothing a compiled loop reads)."""
BACKFILLED_SUPPORT_ARRAYS = {"sw"}
"""Per-SV arrays of a support set that a file written by an earlier olkit (format 3) may lack: the support set's
``__setstate__`` fills them in (``sw``, the examples' weights, docs/algorithms/options.md#weights: all 1, the only
weight there was) and :meth:`SupportSet.check_loaded` checks them like the saved ones."""
MAX_COUNT = 1 << 62
"""Counters stay below this: a learner can add to them for centuries without overflowing int64."""
FEATURE_AXES = (("support_.X", 1), ("model_.W", 0), ("state_.U", 0))
"""(array, axis): the arrays whose size follows the number of features, checked before anything is built."""


def _open_regular(path):
    """Open ``path`` for reading if it is a regular file: a FIFO would block forever, a device never end."""
    from ._files import file_kind

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"model file {path} not found") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the model file: {exc.strerror or exc}") from None
    kind = file_kind(mode)
    if kind is not None:
        raise ValueError(f"{path}: not an olkit model file ({kind}; a model is a regular .npz file)")
    try:
        fh = open(path, "rb")  # noqa: SIM115  (returned open: the caller's with-block closes it)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the model file: {exc.strerror or exc}") from None
    if fh.read(4) != b"PK\x03\x04":  # every .npz is a zip archive; anything else np.load would try to unpickle
        fh.close()
        raise ValueError(f"{path}: not an olkit model file (not an .npz archive)")
    fh.seek(0)
    return fh


def _members(zf):
    """{array name: ZipInfo} of the archive's members, refused unless each is a plain .npy entry that
    numpy could have written (stored or deflated, not encrypted, a possible expansion ratio)."""
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise _Bad(f"{len(infos)} members (an olkit model has at most {MAX_MEMBERS})")
    members = {}
    for info in infos:
        name = info.filename[:-4] if info.filename.endswith(".npy") else None
        if name is None or name in members:
            raise _Bad(f"member {info.filename!r} is not one .npy array of the model")
        if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _Bad(f"member {name}: encrypted or compressed in a way numpy does not write")
        limit = (
            info.compress_size
            if info.compress_type == zipfile.ZIP_STORED
            else MAX_DEFLATE_RATIO * info.compress_size + 1024
        )
        if info.file_size > limit:
            raise _Bad(
                f"member {name}: claims {info.file_size} bytes from {info.compress_size} compressed "
                "(more than deflate can expand)"
            )
        members[name] = info
    return members


def _nesting(text):
    """Deepest nesting of brackets in JSON text (outside strings), without parsing it recursively."""
    import re

    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text).encode("utf-8", "replace")
    codes = np.frombuffer(bare, np.uint8)
    steps = np.isin(codes, (ord("["), ord("{"))).astype(np.int64) - np.isin(codes, (ord("]"), ord("}")))
    return int(np.cumsum(steps).max(initial=0))


def _no_constant(name):
    raise _Bad(f"the header holds {name}, which is not JSON")


def _read_header(zf, members):
    """The JSON header, read only if its size is that of a header and parsed only if not nested absurdly."""
    info = members.get(HEADER_KEY)
    if info is None:
        raise _Bad("not an olkit model file (no header)")
    if info.file_size > MAX_HEADER_BYTES:
        raise _Bad(
            f"member {HEADER_KEY}: {info.file_size} bytes, more than a header's {MAX_HEADER_BYTES} (refused unread)"
        )
    dtype, shape = _npy_header(zf, info, HEADER_KEY)
    if dtype != np.uint8 or len(shape) != 1:
        raise _Bad("not an olkit model file (the header is not a byte array)")
    raw = _read_member(zf, info, HEADER_KEY)
    try:
        text = raw.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        raise _Bad("not an olkit model file (unreadable header)") from None
    depth = _nesting(text)
    if depth > MAX_NESTING:
        raise _Bad(f"the header nests {depth} deep (an olkit header nests at most {MAX_NESTING})")
    try:
        header = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise _Bad("not an olkit model file (unreadable header)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise _Bad("not an olkit model file")
    version = header.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _Bad(f"unreadable format version {version!r}"[:200])
    if version in _OLDER_FORMATS:
        raise _Bad(
            f"format version {version} ({_OLDER_FORMATS[version]}) is no longer read "
            f"by olkit {_olkit_version()}: fit the model again and save it"
        )
    if version > FORMAT_VERSION or version < 1:
        raise _Bad(
            f"format version {version} is not readable by olkit "
            f"{_olkit_version()} (it reads version {FORMAT_VERSION}; the file was written by olkit "
            f"{str(header.get('olkit_version', '?'))[:40]})"
        )
    for key, kind in (
        ("algorithm", str),
        ("params", dict),
        ("state", dict),
        ("arrays", dict),
        ("classes", dict),
        ("n_features_in", int),
        ("multilabel", bool),
    ):
        if not isinstance(header.get(key), kind) or (kind is int and isinstance(header[key], bool)):
            raise _Bad(f"the header's {key!r} is missing or not a {kind.__name__}")
    unknown = sorted(set(header) - HEADER_KEYS)
    if unknown:
        raise _Bad(f"the header has unknown entries {', '.join(map(repr, unknown[:5]))}"[:200])
    return header


def _olkit_version():
    from . import __version__

    return __version__


def _npy_header(zf, info, name):
    """(dtype, shape) from a member's .npy header, reading nothing else; refused unless the dtype is plain
    numbers or text, the shape non-negative integers, and the data exactly the rest of the entry."""
    try:
        with zf.open(info) as fh:
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
            else:
                raise _Bad(f"member {name}: .npy format version {version} is not one numpy writes for olkit")
            offset = fh.tell()
    except (ValueError, TypeError, SyntaxError):
        raise _Bad(f"member {name}: unreadable .npy header") from None
    if dtype.hasobject or dtype.kind not in "biufcUS" or dtype.fields is not None or dtype.subdtype is not None:
        raise _Bad(f"member {name}: dtype {dtype} is not a plain numeric or text array (pickled objects are refused)")
    if not isinstance(shape, tuple) or len(shape) > 3 or any(not isinstance(k, int) or k < 0 for k in shape):
        raise _Bad(f"member {name}: invalid shape {shape!r} (dimensions must be non-negative integers)"[:200])
    if fortran and len(shape) > 1:
        raise _Bad(f"member {name}: Fortran-ordered, which olkit never writes")
    size = math.prod(shape) * dtype.itemsize
    if offset + size != info.file_size:
        raise _Bad(
            f"member {name}: its header declares {list(shape)} {dtype.str} ({size} bytes), the zip entry "
            f"holds {info.file_size - offset} bytes of data"
        )
    return dtype, shape


def _read_member(zf, info, name):
    """The array of a member whose header was checked (its size is known and bounded)."""
    with zf.open(info) as fh:
        arr = np.lib.format.read_array(fh, allow_pickle=False)
    return np.array(arr)  # writable, owned


def _classes_from_header(entry):
    """The labels the header declares: distinct, finite and sorted (as ``np.unique`` leaves them)."""
    kind, dtype, values = entry.get("kind"), entry.get("dtype"), entry.get("values")
    if (
        kind not in ("bool", "int", "float", "str", "bytes")
        or not isinstance(dtype, str)
        or not isinstance(values, list)
    ):
        raise _Bad("the header's classes are unreadable")
    try:
        dtype = np.dtype(dtype)
        if dtype.kind not in "biufUS" or dtype.hasobject:
            raise TypeError
        if kind == "bytes":
            values = [v.encode("latin-1") for v in values]
        classes = np.array([_unscalar(v) for v in values], dtype=dtype)
    except (TypeError, ValueError, OverflowError, AttributeError, UnicodeError):
        raise _Bad("the header's classes are unreadable") from None
    if classes.ndim != 1 or classes.size < 2:
        raise _Bad("classes_ must be an array of at least 2 labels")
    if classes.dtype.kind in "fc" and not np.isfinite(classes).all():
        raise _Bad(f"the classes {_shown(classes)} include NaN or infinity")
    if not np.all(classes[1:] > classes[:-1]):
        raise _Bad(f"the classes {_shown(classes)} are not distinct and sorted")
    return classes


def _shown(values, limit=5):
    return "[" + ", ".join(map(str, values[:limit].tolist())) + (", ...]" if len(values) > limit else "]")


# ---- the layout the header's algorithm builds --------------------------------------------------------------
class _Layout:
    """What a file of the header's algorithm, parameters, labels and width must hold, from a fresh learner of
    the same kind (its ``_new_state``: the one description of the state; no second list to keep in sync).

    ``arrays``: {name: (dtype str, shape)} of every array; ``derived``: arrays whose values follow from the
    parameters and the data shape (rule parameters, configuration, random features), which the file must
    repeat exactly."""

    def __init__(self, header):
        from .registry import make

        params = {k: _unscalar(v) for k, v in header["params"].items()}
        try:
            fresh = make(header["algorithm"], **params)
        except ValueError as exc:
            raise _Bad(str(exc)) from None
        self.params = params
        d = header["n_features_in"]
        if not 1 <= d < 2**31:
            raise _Bad(f"n_features_in = {d} is not a number of features (1..{2**31 - 1})")
        classes = _classes_from_header(header["classes"])
        manifest = header["arrays"]
        for name, entry in manifest.items():
            if not (
                isinstance(entry, dict)
                and isinstance(entry.get("dtype"), str)
                and isinstance(entry.get("shape"), list)
                and all(isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in entry["shape"])
            ):
                raise _Bad(f"array {name!r}: unreadable manifest entry"[:200])
        for name, axis in FEATURE_AXES:  # the width backs the allocations that follow it
            shape = manifest.get(name, {}).get("shape", [])
            width = d + (name == "model_.W" and fresh.fit_intercept is True)  # the constant feature of an intercept
            if len(shape) > axis and shape[axis] != width:
                raise _Bad(f"{name} has {shape[axis]} features, the header says n_features_in = {d}")
        if header["multilabel"] and not np.array_equal(classes, np.arange(classes.size)):
            raise _Bad("a multi-label model's classes must be 0..K-1")
        fresh.classes_, fresh.multilabel_, fresh.n_features_in_ = classes, header["multilabel"], d
        node = header["state"].get("support_")
        sparse = (
            isinstance(node, dict)
            and isinstance(node.get("support_set"), dict)
            and node["support_set"].get("sparse") is True
        )
        import scipy.sparse as sp

        X = sp.csr_matrix((1, d)) if sparse else np.zeros((1, d))
        try:
            fresh._reset_model(X)  # the state and the record of the parameters it is built with
        except MemoryError:
            raise _Bad(f"the state of {header['algorithm']} on {d} features does not fit in memory") from None
        except (ValueError, OverflowError) as exc:
            raise _Bad(f"no {header['algorithm']} state can have this shape: {exc}") from None
        writer = _Writer()
        names = set(fresh._get_param_names())
        self.state = {k: writer.encode(v, k) for k, v in vars(fresh).items() if k not in names}
        self.fresh_sets = {k: v for k, v in vars(fresh).items() if type(v).__name__ == "SupportSet"}
        self.migrated = tuple(getattr(type(fresh), "_migrated_support_settings", ()))
        self.arrays = {k: (a.dtype.str, a.shape) for k, a in writer.arrays.items()}
        self.derived = {k: a for k, a in writer.arrays.items() if k.endswith(".cfg") or k == "state_.U"}
        self.rule_params = fresh.state_.prm  # the parameter record (olkit.learners.records) the parameters give
        self.classes, self.n_features = classes, d
        from .limits import state_limit_bytes

        self.memory = state_limit_bytes()  # what a learner may build (olkit.limits): more cannot be loaded
        self.match(header["state"], manifest)

    def match(self, state, manifest):
        """The header's state has the fresh learner's outline (attributes, state tuples and their fields,
        support set or linear model and their settings), and its manifest the shapes that outline implies."""
        missing = [k for k in self.state if k not in state and k not in BACKFILLED_ATTRIBUTES]
        if missing:
            raise _Bad(f"the state has no {missing[0]}")
        for key, node in state.items():
            if key in OPTIONAL_ATTRIBUTES and key not in self.state:
                if node != {"array": key}:
                    raise _Bad(f"{key} must be an array")
                self.arrays[key] = (None, None)  # text of any length: checked below
                continue
            if key not in self.state:
                raise _Bad(f"state entry {key!r} is not a fitted attribute of this algorithm"[:200])
            if key in BACKFILLED_ATTRIBUTES:  # a record of scalars, checked by the learner's _after_load
                continue
            self._match(node, self.state[key], key, manifest)
        expected = dict(self.arrays)
        for name in sorted(set(manifest) - set(expected)):
            raise _Bad(f"array {name!r} is not part of this algorithm's state"[:200])
        for name, (dtype, shape) in expected.items():
            entry = manifest.get(name)
            if entry is None:
                raise _Bad(f"array {name!r} of the state is not in the manifest")
            if name in OPTIONAL_ATTRIBUTES:
                if entry["dtype"][1:2] not in ("U", "S") or entry["shape"] != [self.n_features]:
                    raise _Bad(f"{name} must be a 1-D array of text, one entry per feature")
                continue
            if entry["dtype"] != dtype:
                raise _Bad(f"{name} has dtype {entry['dtype']}, expected {dtype}")
            if tuple(entry["shape"]) != tuple(shape):
                raise _Bad(f"{name} has shape {tuple(entry['shape'])}, expected {tuple(shape)}")
        total = sum(math.prod(e["shape"]) * np.dtype(e["dtype"]).itemsize for e in manifest.values())
        if total > self.memory:
            raise _Bad(
                f"the arrays declare {total} bytes, more than this machine's memory allows one "
                "learner's state (olkit.limits.state_limit_bytes)"
            )

    def _match(self, node, fresh, name, manifest):
        if not isinstance(fresh, dict) or "float" in fresh:  # a scalar: the same kind of value

            def kind(v):
                return "float" if isinstance(v, (dict, float)) else type(v).__name__

            if kind(node) != kind(fresh):
                raise _Bad(f"{name} is {str(node)[:40]}, expected a {kind(fresh)}")
            return
        if not isinstance(node, dict) or set(node) != set(fresh):
            raise _Bad(f"{name} is a {_node_kind(node)}, this algorithm's state has a {_node_kind(fresh)} there")
        if "array" in fresh or "ref" in fresh:
            if node != fresh:
                raise _Bad(f"{name} must be {fresh}, not {str(node)[:60]}")
        elif "namedtuple" in fresh:
            if (
                node["namedtuple"] != fresh["namedtuple"]
                or not isinstance(node["fields"], dict)
                or list(node["fields"]) != list(fresh["fields"])
            ):
                raise _Bad(
                    f"{name} is a {str(node['namedtuple'])[:60]} with fields {list(node['fields'])[:8]}, "
                    f"this algorithm's state is a {fresh['namedtuple']} with {list(fresh['fields'])}"
                )
            for f in fresh["fields"]:
                self._match(node["fields"][f], fresh["fields"][f], f"{name}.{f}", manifest)
        elif "tuple" in fresh:
            if not isinstance(node["tuple"], list) or node["tuple"] != fresh["tuple"]:
                raise _Bad(f"{name} must be {fresh['tuple']}")
        elif "linear_model" in fresh:
            self._match_settings(node["linear_model"], fresh["linear_model"], name, manifest, ())
        elif "support_set" in fresh:
            self._match_support_set(node, fresh, name, manifest)
        else:
            raise _Bad(f"{name}: unknown kind of state entry")

    def _match_settings(self, node, fresh, name, manifest, free):
        """The entries of a support set or linear model: the same attributes, its settings (scalars) equal
        but for those in ``free``."""
        if not isinstance(node, dict) or set(node) != set(fresh):
            extra = sorted(set(node) ^ set(fresh)) if isinstance(node, dict) else ["?"]
            raise _Bad(f"{name} has different attributes than this algorithm's ({', '.join(extra[:5])})")
        for k, v in fresh.items():
            if isinstance(v, dict) and ("array" in v or "ref" in v or "namedtuple" in v):
                self._match(node[k], v, f"{name}.{k}", manifest)
            elif k not in free and node[k] != v:
                raise _Bad(f"{name}.{k} is {str(node[k])[:40]}, this algorithm with these parameters has {v}")

    def _match_support_set(self, node, fresh, name, manifest):
        entries, fresh_entries = node["support_set"], fresh["support_set"]
        if not isinstance(entries, dict):
            raise _Bad(f"{name}: unreadable support set")
        free = (
            ("capacity",)
            + (
                ("use_gram",)
                if fresh_entries.get("use_gram") and fresh_entries.get("gram_limit_bytes") is not None
                else ()
            )
            + self.migrated
        )
        for k in BACKFILLED_SUPPORT_ARRAYS & set(fresh_entries) - set(entries):  # an earlier olkit's file
            fresh_entries = {key: v for key, v in fresh_entries.items() if key != k}
            del self.arrays[f"{name}.{k}"]
        self._match_settings(entries, fresh_entries, name, manifest, free)
        n, capacity, pool_capacity = entries["capacity"], node["capacity"], node["pool_capacity"]
        for what, v in (("number of SVs", n), ("capacity", capacity), ("pool capacity", pool_capacity)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise _Bad(f"{name}: the {what} {str(v)[:40]} is not a count")
        if capacity < n:
            raise _Bad(f"{name}: capacity {capacity} is smaller than its {n} SVs")
        sv = self.fresh_sets[name]
        pool_shape = manifest.get(f"{name}.indices", {}).get("shape", [0])
        pool = pool_shape[0] if pool_shape else 0
        if (
            pool > n * sv.n_features
            or (not sv.sparse and (pool or pool_capacity))
            or (sv.sparse and pool_capacity < pool)
        ):
            raise _Bad(f"{name}: {pool} pooled non-zeros do not fit {n} SVs of {sv.n_features} features")
        sv.use_gram = entries["use_gram"] is True
        need = sv.grown_bytes(capacity, pool_capacity)
        if need > self.memory:
            raise _Bad(
                f"{name}: capacity {capacity} (pool {pool_capacity}) needs {need} bytes, more than "
                "this machine's memory allows one learner's state (olkit.limits.state_limit_bytes)"
            )
        for k, shape in sv.saved_shapes(n, pool, capacity).items():
            key = f"{name}.{k}"
            if key in self.arrays:
                self.arrays[key] = (self.arrays[key][0], shape)


def _node_kind(node):
    if isinstance(node, dict) and node:
        return next(iter(node)).replace("_", " ")
    return type(node).__name__


def _read_arrays(zf, members, manifest):
    """Every array of the manifest: its .npy header agrees with the manifest before its data are read."""
    for key in manifest:
        if key not in members:
            raise _Bad(f"array {key!r} of the manifest is missing")
    extra = sorted(set(members) - set(manifest) - {HEADER_KEY})
    if extra:
        raise _Bad(f"array(s) {', '.join(extra[:5])} are not in the manifest"[:200])
    for key, entry in manifest.items():  # every header first: nothing is decompressed from a file refused later
        dtype, shape = _npy_header(zf, members[key], key)
        if dtype.str != entry["dtype"] or list(shape) != entry["shape"]:
            raise _Bad(
                f"array {key!r} is {dtype.str} {list(shape)}, the manifest says {entry['dtype']} {entry['shape']}"
            )
    return {key: _read_member(zf, members[key], key) for key in manifest}


_ARCHIVE_ERRORS = (OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError)
"""What reading a damaged or unsupported zip archive raises (zipfile's own errors and the decompressors')."""


def load(path: str | os.PathLike) -> "OnlineClassifier":
    """Read a learner written by :func:`save`: it predicts as the saved one did and continues learning
    (``partial_fit``) exactly as it would have. Only ``numpy``'s .npy reader is used, never pickle, and
    the file is checked before anything is built from it (see the module docstring)."""
    from .registry import make

    path = os.fspath(path)
    fh = _open_regular(path)
    try:
        zf = zipfile.ZipFile(fh)
    except (ValueError, *_ARCHIVE_ERRORS) as exc:
        fh.close()
        raise ValueError(f"{path}: not an olkit model file (damaged .npz archive: {exc})"[:400]) from None
    try:
        with fh, zf:
            members = _members(zf)
            header = _read_header(zf, members)
            layout = _Layout(header)
            arrays = _read_arrays(zf, members, header["arrays"])
        learner = make(header["algorithm"], **layout.params)
        reader = _Reader(arrays, header["arrays"], learner)
        for key, node in header["state"].items():
            if not isinstance(key, str) or key in layout.params or key.startswith("__"):
                raise _Bad(f"state entry {key!r} is not a fitted attribute"[:200])
            setattr(learner, key, reader.decode(node, key))
        _check_learner(learner, header)
        _check_values(learner, layout, arrays)
        learner._after_load()
    except _Bad as exc:
        raise ValueError(f"{path}: invalid olkit model file: {exc}") from None
    except _ARCHIVE_ERRORS as exc:
        raise ValueError(f"{path}: damaged olkit model file ({type(exc).__name__}: {exc})") from None
    except MemoryError:
        raise ValueError(f"{path}: invalid olkit model file: its state does not fit in memory") from None
    except (KeyError, TypeError, AttributeError, IndexError, ValueError, OverflowError) as exc:
        raise ValueError(f"{path}: invalid olkit model file: {type(exc).__name__}: {exc}"[:400]) from None
    return learner


def _check_learner(learner, header):
    """The loaded state agrees with the header (labels, width, multi-label flag)."""
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
    if getattr(learner, "model_", None) is not None and learner.model_.state is not learner.state_:
        raise _Bad("state_ must be model_.state")


def _check_values(learner, layout, arrays):
    """What compiled code reads from the state is safe to read: every index in range (the support set's
    :meth:`~olkit.learners.kernel.support_set.SupportSet.check_loaded`, the learner's ``_check_state``),
    counters non-negative, values finite wherever the algorithm's state is finite, and what follows from the
    parameters (the rule's parameter record, which may hold infinite values, e.g. U = inf, and some arrays)
    equal to it."""
    expected = learner._rule_params() if getattr(learner, "support_", None) is not None else layout.rule_params
    got = learner.state_.prm  # (a kernel learner's record with the stream's own values, e.g. POMDR's width)
    if got != expected or [type(v) for v in got] != [type(v) for v in expected]:
        raise _Bad(f"state_.prm = {str(got)[:200]} differs from what the parameters give ({str(expected)[:200]})")
    for name, expected in layout.derived.items():
        got = arrays[name]
        if got.shape != expected.shape or not np.array_equal(got, expected):
            raise _Bad(f"{name} = {_shown(got)} differs from what the parameters give ({_shown(expected)})")
    for name, a in arrays.items():
        if name.startswith("support_.") or a.dtype.kind not in "fiu":
            continue
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise _Bad(f"{name} holds NaN or infinite values")
        if name.endswith(".cnt") and a.size and (a.min() < 0 or a.max() >= MAX_COUNT):
            raise _Bad(f"{name} holds a count outside 0..{MAX_COUNT - 1}")
    sv = getattr(learner, "support_", None)
    budget = learner._max_support() if sv is not None else None
    if budget is not None and sv.n > budget:
        raise _Bad(f"support_ holds {sv.n} SVs, more than the budget's {budget}")
    if sv is not None:  # the clock is the round index of the last example seen (arrival times are ≤ it)
        from .base import SEEN
        from .learners.kernel.support_set import CLOCK

        clock, seen = int(sv.meta[CLOCK]), int(learner.state_.cnt[SEEN])
        if not (clock == 0 and seen <= 1 or 0 <= clock < seen):
            raise _Bad(f"support_.meta[CLOCK] = {clock} is not the last round of the {seen} examples seen")
    try:
        if sv is not None:
            sv.check_loaded(class_labels=sv.n_outputs > 1 and not learner.multilabel_)
        learner._check_state()
    except ValueError as exc:
        raise _Bad(str(exc)) from None
