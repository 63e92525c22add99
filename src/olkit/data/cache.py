"""The parsed-data cache: a LIBSVM file is parsed once, later reads load its parse from an uncompressed copy.

Parsing a compressed text file takes seconds for the larger benchmarks, loading the parse a fraction of that.
:func:`olkit.data.read_libsvm` (and through it every dataset loaded whole) keeps the parse of each file it
reads as one ``.npz`` entry (the CSR arrays and the labels), keyed by the file's absolute path and the
reading mode (``zero_based``) and valid for one size and modification time of the file.

* **Where**: the directory ``OLKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/olkit/datasets`` (by default
  ``~/.cache/olkit/datasets``). ``OLKIT_CACHE_DIR=off`` turns the cache off: every read parses the file.
* **Bounded**: the entries take at most ``OLKIT_CACHE_MAX_BYTES`` in all (default 2 GiB; a number of bytes,
  optionally with a suffix K, M, G or T, e.g. ``500M``; ``0`` stores nothing). When an entry is added, the
  least recently used ones are removed until the total fits (a load marks its entry as used by setting the
  entry's modification time); a parse larger than the cap is not stored.
* **One entry per file and mode**: storing the parse of a file that changed removes the entries of its
  earlier versions.
* **Safe**: an entry is written to a temporary file in the cache directory and renamed into place, so a
  reader sees a whole entry or none, and the temporary file is removed if the write fails. An entry that
  cannot be read, or that is not a valid CSR matrix with finite values, is ignored: the file is parsed again
  and the entry replaced. A cache that cannot be written (read-only, full) only costs speed.
* **Inspectable**: ``olkit cache info`` (:func:`info`) lists the location, the entries, their sizes, the
  total and the cap; ``olkit cache clear`` (:func:`clear`) removes them.
"""

from __future__ import annotations

import hashlib
import os
import re
import time

import numpy as np
import scipy.sparse as sp

from ..limits import format_bytes, parse_bytes

DIR_ENV = "OLKIT_CACHE_DIR"
MAX_BYTES_ENV = "OLKIT_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 2 * 2**30

_ENTRY = re.compile(r"\.(?:[0-9a-f]{12}-[0-9a-f]{12}|[0-9a-f]{20})\.npz$")
"""An entry's file name: ``NAME.SOURCE-VERSION.npz`` (``NAME.KEY.npz``: the single key of olkit before the
cap, still counted, listed and evicted)."""


def directory() -> str | None:
    """The cache directory, or None when the cache is off (``OLKIT_CACHE_DIR=off``)."""
    base = os.environ.get(DIR_ENV)
    if base == "off":
        return None
    if base:
        return base
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "olkit", "datasets")


def max_bytes() -> int:
    """The cap on the entries' total size: ``OLKIT_CACHE_MAX_BYTES``, else 2 GiB."""
    text = os.environ.get(MAX_BYTES_ENV, "").strip()
    return parse_bytes(text, MAX_BYTES_ENV) if text else DEFAULT_MAX_BYTES


def _keys(path, zero_based):
    """(source key, version key) of a file: which file and mode, which content (size, modification time)."""
    st = os.stat(path)
    mode = "" if zero_based is False else f"|zero_based={zero_based}"
    source = hashlib.sha1(f"{os.path.abspath(path)}{mode}".encode()).hexdigest()[:12]
    version = hashlib.sha1(f"{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:12]
    return source, version


def _entry_path(base, path, zero_based):
    source, version = _keys(path, zero_based)
    return os.path.join(base, f"{os.path.basename(path)}.{source}-{version}.npz")


def load(path, zero_based=False):
    """The cached parse ``(X, y)`` of ``path`` read with ``zero_based``, or None (no cache, no entry, or an
    entry that cannot be read or is not valid: the caller parses the file)."""
    base = directory()
    if base is None:
        return None
    entry = _entry_path(base, path, zero_based)
    if not os.path.isfile(entry):  # (a FIFO or a directory of that name is no entry)
        return None
    try:
        with np.load(entry, allow_pickle=False) as z:
            X, y = _checked(z["data"], z["indices"], z["indptr"], z["shape"], z["y"])
    except Exception:  # noqa: BLE001 — any unreadable or invalid entry (bad zip, bad header, wrong arrays): parse again
        return None
    try:
        os.utime(entry)  # least recently used: a load marks the entry as used
    except OSError:
        pass
    return X, y


def _checked(data, indices, indptr, shape, y):
    """A CSR matrix and labels from an entry's arrays, or ValueError if they do not form a valid, finite one
    (the structure checked as every sparse input is, by :func:`olkit.sparse_check.check_sparse_structure`)."""
    from ..sparse_check import check_sparse_structure

    if shape.shape != (2,) or shape.dtype.kind not in "iu" or (shape < 0).any():
        raise ValueError("bad shape")
    n, d = (int(v) for v in shape)
    if data.dtype != np.float64 or y.dtype != np.float64 or y.shape != (n,):
        raise ValueError("bad arrays")
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    check_sparse_structure(X, what="a cache entry")
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        raise ValueError("non-finite values")
    return X, y


def store(path, X, y, zero_based=False):
    """Keep the parse ``(X, y)`` of ``path``: written atomically, then the entries of the file's earlier
    versions and, least recently used first, those beyond the cap are removed. Never raises for a cache
    that cannot be written."""
    base = directory()
    if base is None:
        return
    size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + y.nbytes
    if size > max_bytes():
        return  # would evict everything and still not fit
    entry = _entry_path(base, path, zero_based)
    try:
        os.makedirs(base, exist_ok=True)
        _write_atomically(entry, data=X.data, indices=X.indices, indptr=X.indptr, shape=np.array(X.shape), y=y)
    except OSError:
        return  # a read-only or full cache directory only costs speed
    prefix = os.path.basename(entry).rsplit("-", 1)[0] + "-"  # NAME.SOURCE-: the same file and mode
    for name, _, _ in _entries(base):
        if name.startswith(prefix) and name != os.path.basename(entry):
            _remove(os.path.join(base, name))
    _evict(base, keep=os.path.basename(entry))


def _write_atomically(target, **arrays):
    """np.savez to ``target`` through :func:`olkit._files.atomic_open` (a temporary file next to it, renamed
    over it, removed if anything fails; one left by a killed writer is removed by a later write)."""
    from .._files import atomic_open

    with atomic_open(target, "wb") as fh:  # a file object: numpy adds no ".npz" to the name
        np.savez(fh, **arrays)


def _remove(path):
    """Remove a file; one already gone (another process evicted it) is no error. Returns whether it was removed."""
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


def _entries(base):
    """[(name, bytes, last used)] of the cache entries in ``base``, least recently used first."""
    found = []
    try:
        with os.scandir(base) as it:
            for item in it:
                if _ENTRY.search(item.name) and item.is_file(follow_symlinks=False):
                    try:
                        st = item.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    found.append((item.name, st.st_size, st.st_mtime))
    except OSError:
        return []
    return sorted(found, key=lambda e: (e[2], e[0]))


def _temporaries(base):
    """[(name, bytes, modification time)] of the temporary files of writes in progress or killed."""
    from .._files import is_temporary

    found = []
    try:
        with os.scandir(base) as it:
            for item in it:
                if is_temporary(item.name) and item.is_file(follow_symlinks=False):
                    st = item.stat(follow_symlinks=False)
                    found.append((item.name, st.st_size, st.st_mtime))
    except OSError:
        return []
    return found


def _evict(base, keep):
    """Remove least recently used entries (never ``keep``) until the total fits the cap (temporary
    files left by killed writers are removed by :func:`olkit._files.atomic_open`'s sweep)."""
    cap = max_bytes()
    entries = _entries(base)
    total = sum(size for _, size, _ in entries)
    for name, size, _ in entries:
        if total <= cap:
            break
        if name != keep and _remove(os.path.join(base, name)):
            total -= size


def info() -> dict:
    """The cache as ``olkit cache info`` shows it: ``directory`` (None when off), ``max_bytes``, ``entries``
    ([{"name", "bytes", "last_used"}], least recently used first), ``total_bytes`` and ``temporary`` (files of
    writes in progress or killed)."""
    base = directory()
    entries = [] if base is None else _entries(base)
    return {
        "directory": base,
        "max_bytes": max_bytes(),
        "entries": [{"name": n, "bytes": s, "last_used": t} for n, s, t in entries],
        "total_bytes": sum(s for _, s, _ in entries),
        "temporary": [] if base is None else [n for n, _, _ in _temporaries(base)],
    }


def clear() -> list:
    """Remove every entry (and temporary file) of the cache; returns [(name, bytes)] of what was removed."""
    base = directory()
    if base is None:
        return []
    removed = []
    for name, size, _ in _entries(base) + _temporaries(base):
        if _remove(os.path.join(base, name)):
            removed.append((name, size))
    return removed


def describe(limit: int | None = 20) -> str:
    """:func:`info` as text (``olkit cache info``): the location, the totals and the ``limit`` most recently
    used entries (``None``: every entry, ``olkit cache info --all``)."""
    state = info()
    if state["directory"] is None:
        return f"parsed-data cache: off ({DIR_ENV}=off)"
    entries = state["entries"][::-1]  # most recently used first
    shown = entries if limit is None else entries[:limit]
    lines = [
        f"parsed-data cache: {state['directory']}",
        f"{len(entries)} entries, {format_bytes(state['total_bytes'])} of at most "
        f"{format_bytes(state['max_bytes'])} ({MAX_BYTES_ENV})" + ("; most recently used first:" if entries else ""),
    ]
    for e in shown:
        used = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e["last_used"]))
        lines.append(f"  {e['name']}  {format_bytes(e['bytes'])}  last used {used}")
    if len(shown) < len(entries):
        rest = entries[len(shown) :]
        lines.append(
            f"  ... and {len(rest)} more, {format_bytes(sum(e['bytes'] for e in rest))} "
            "(olkit cache info --all lists them)"
        )
    if state["temporary"]:
        temporary = state["temporary"]
        lines.append(f"{len(temporary)} temporary file(s) of unfinished writes: {', '.join(temporary)}")
    return "\n".join(lines)
