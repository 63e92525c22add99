"""The result store: experiments survive being killed (issue 9).

Every finished run — one (dataset, algorithm, parameters, ordering) cell of an experiment — is saved as
one small JSON file the moment it finishes, by the process that computed it (a joblib worker included),
so a run killed part-way loses only the runs that were still going. A rerun finds the finished cells by
their key and computes only the others; since a cell holds the whole run record (its ``seconds``
included), the resumed tables are the same as those of an uninterrupted run.

* **Key**: a hash of everything a run depends on — the data's content (X and y, not the file name), the
  algorithm, its parameters as given to :func:`olkit.make`, the ordering's label and the ordering itself,
  the number of curve checkpoints, and the code that computes a run (:func:`code_digest`: a change of a
  learner, the protocol or a default gives new keys, so a stale result is never reused).
* **Atomicity**: a cell is written by :func:`olkit._files.atomic_open` (a temporary file in the store's
  directory renamed over its name), so a cell file is either absent or complete. A cell file that is
  unreadable or malformed (not JSON, or not a cell: ``{}``, ``[]``, ``12``, a field of the wrong type —
  :func:`cell_problem`) counts as absent and is computed again, with one :class:`MalformedCellWarning`
  naming the file.
* **Where**: ``<output dir>/.cells/<page stem>/`` for ``python -m olkit.experiment.reproduce``
  (``--fresh`` ignores it), ``<--out DIR>/.cells/`` for ``olkit run --out DIR`` (reused with
  ``--resume`` only: by default ``olkit run`` measures afresh).
* A failed run (a refused parameter, an example the learner refuses) is not stored: a rerun tries it
  again.
"""

import hashlib
import json
import numbers
import os
import warnings
from functools import cache

import numpy as np

FORMAT = 1
"""The cell format; a change gives new keys."""

_NOT_RUN_CODE = ("experiment", "report", "data", "cli.py", "demo.py", "__main__.py", "_files.py")
"""Parts of the package that arrange, read, print or write runs but do not change a run's record (the
data's content is part of the key itself); every other module is in :func:`code_digest`."""


@cache
def code_digest():
    """A hash of the source of the code that computes a run: every module of the package except
    :data:`_NOT_RUN_CODE`, plus the runner (it builds the run record)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = [os.path.join(root, "experiment", "runner.py")]
    for folder, dirs, names in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs if rel != "." or d not in _NOT_RUN_CODE)
        files += [
            os.path.join(folder, n)
            for n in sorted(names)
            if n.endswith(".py") and not (rel == "." and n in _NOT_RUN_CODE)
        ]
    digest = hashlib.blake2b(digest_size=16)
    for path in files:
        digest.update(os.path.relpath(path, root).encode())
        with open(path, "rb") as fh:
            digest.update(fh.read())
    return digest.hexdigest()


def array_digest(*arrays):
    """A hash of the content of arrays (dense, scipy sparse, or label arrays of any dtype)."""
    import scipy.sparse as sp

    digest = hashlib.blake2b(digest_size=16)
    for a in arrays:
        parts = [a.data, a.indices, a.indptr] if sp.issparse(a) else [np.asarray(a)]
        digest.update(repr((type(a).__name__, a.shape)).encode())
        for part in parts:
            digest.update(part.dtype.str.encode())
            if part.dtype == object:
                digest.update(repr(part.tolist()).encode())
            else:
                digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()


def _plain(value):
    """numpy scalars and arrays as plain Python values (for the JSON of keys and cells)."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {value!r}")


def save_cell(path, cell):
    """Write ``cell`` to ``path`` atomically; return it as it reads back (plain JSON types), so a fresh
    cell and a stored one are the same values."""
    from .._files import write_text

    text = json.dumps(cell, default=_plain)
    write_text(path, text)
    return json.loads(text)


class MalformedCellWarning(UserWarning):
    """A cell file of the result store is not a cell (e.g. edited, or written by something else); it is
    ignored and its run computed again."""


_RUN_NUMBERS = ("mistakes", "mistake_rate", "n_updates", "n_sv", "seconds")


def _numbers(values):
    return isinstance(values, list) and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)


def cell_problem(cell):
    """What makes ``cell`` (parsed JSON) not a cell of :func:`olkit.experiment.runner.run_cell`, or None:
    a dict with the strings "algorithm" and "order", a dict "params", and a dict "run" holding the numbers
    mistakes, mistake_rate, n_updates, n_sv, seconds and a curve of two number lists of one length."""
    if not isinstance(cell, dict):
        return f"a JSON {type(cell).__name__}, not an object"
    for key, kind in (("algorithm", str), ("order", str), ("params", dict), ("run", dict)):
        if not isinstance(cell.get(key), kind):
            return f"{key!r} is missing or not a {'string' if kind is str else 'JSON object'}"
    run = cell["run"]
    bad = [key for key in _RUN_NUMBERS if not _numbers([run.get(key)])]
    if bad:
        return f"run {', '.join(map(repr, bad))} missing or not a number"
    curve = run.get("curve")
    if not (
        isinstance(curve, dict)
        and _numbers(curve.get("x"))
        and _numbers(curve.get("mistake_rate"))
        and len(curve["x"]) == len(curve["mistake_rate"])
    ):
        return "run 'curve' is not {'x': [numbers], 'mistake_rate': [numbers]} of one length"
    return None


class CellStore:
    """The finished runs of an experiment, one JSON file per run in ``directory``.

    ``reuse=False`` (a fresh run) stores every run but reads none. ``reused`` and ``computed`` count
    the cells this process took from the store and ran.
    """

    def __init__(self, directory, reuse=True):
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"cannot create the result store {directory}: {exc.strerror}") from None
        self.directory = directory
        self.reuse = reuse
        self.reused = self.computed = 0
        self.used = set()

    def path(self, data, algorithm, params, order_label, order, n_checkpoints):
        """The file of one run: ``data`` is :func:`array_digest` of (X, y), ``order`` the ordering's
        :func:`array_digest`."""
        key = json.dumps(
            {
                "format": FORMAT,
                "code": code_digest(),
                "data": data,
                "algorithm": algorithm,
                "params": params,
                "order": [order_label, order],
                "n_checkpoints": n_checkpoints,
            },
            sort_keys=True,
            default=_plain,
        )
        path = os.path.join(self.directory, hashlib.sha256(key.encode()).hexdigest()[:40] + ".json")
        self.used.add(os.path.basename(path))
        return path

    def load(self, path):
        """The stored cell at ``path``, or None (absent, a fresh run, or unreadable or malformed: then one
        :class:`MalformedCellWarning` naming the file says that its run is computed again)."""
        if not self.reuse:
            return None
        try:
            with open(path, "rb") as fh:
                cell = json.loads(fh.read())
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as exc:
            problem = f"unreadable: {exc.strerror if isinstance(exc, OSError) else 'not valid JSON'}"
        else:
            problem = cell_problem(cell)
            if problem is None:
                return cell
        warnings.warn(
            f"result store: ignoring the malformed cell file {path} ({problem}); its run is computed again",
            MalformedCellWarning,
            stacklevel=2,
        )
        return None

    def count(self, reused, computed):
        self.reused += reused
        self.computed += computed

    def prune(self):
        """Remove the cells this process did not use (stale code or data, other settings), and the
        temporary files of writes a kill interrupted (not those of a live process still writing)."""
        from .._files import is_live_temporary

        for name in os.listdir(self.directory):
            if name not in self.used and not is_live_temporary(name):
                os.unlink(os.path.join(self.directory, name))

    def discard_interrupted_writes(self, wait=2.0):
        """After Ctrl-C: remove the temporary files of cells whose writers were stopped mid-write (a joblib
        worker ended by its pool), waiting up to ``wait`` seconds for writers still ending, so the store holds
        finished runs only."""
        import time

        from .._files import is_temporary, remove_stale_temporaries

        deadline = time.monotonic() + wait
        while True:
            remove_stale_temporaries(self.directory)
            if not any(is_temporary(n) for n in os.listdir(self.directory)) or time.monotonic() >= deadline:
                return
            time.sleep(0.05)

    def summary(self):
        return f"result store {self.directory}: {self.reused} finished run(s) reused, {self.computed} computed"


def run_out_store(out_dir, resume):
    """The store of ``olkit run --out DIR [--resume]``: ``DIR/.cells``, read only with ``--resume``."""
    if out_dir is None:
        if resume:
            raise ValueError("--resume needs --out DIR (the finished runs are stored in DIR/.cells)")
        return None
    return CellStore(os.path.join(out_dir, ".cells"), reuse=resume)
