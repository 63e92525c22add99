"""Reading LIBSVM / svmlight text files.

A LIBSVM file holds one example per line::

    label index:value index:value ...   # optional comment

with 1-based, strictly increasing integer feature indices; absent features are zero. Files may be plain
text or compressed with gzip or bzip2 (recognised by their first bytes, so the file name does not matter).

Parsing is done by :func:`sklearn.datasets.load_svmlight_file` (compiled, fast). Its errors carry no line
number ("could not convert string to float: b'abc'"), so when it fails, or when the file holds NaN or
infinite numbers that it accepts silently, the file is scanned again line by line in pure Python to name
the first offending line. The slow scan only ever runs on files that are already known to be bad.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import hashlib
import math
import os
import zlib
from typing import BinaryIO

import numpy as np
import scipy.sparse as sp

__all__ = ["read_libsvm", "pad_features"]

_EXPECTED = "expected 'label index:value ...' with 1-based increasing integer indices"
# sklearn stores feature indices in a C int, so larger ones overflow there.
_MAX_INDEX = 2**31 - 1


def read_libsvm(path: str | os.PathLike, n_features: int | None = None) -> tuple[sp.csr_matrix, np.ndarray]:
    """Read a LIBSVM / svmlight file (plain, ``.gz`` or ``.bz2``).

    Parameters
    ----------
    path
        The file. Compression is detected from the content, not the name.
    n_features
        Number of columns of the result. ``None`` means the largest feature index present. A larger value
        pads with empty columns (e.g. a9a's test file never uses feature 123 of its 123); a value smaller
        than an index in the file is an error.

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64, shape (n_examples, n_features)
        Always sparse, whatever the density, so a 100,000-feature file is never densified.
    y : ndarray of float64, shape (n_examples,)
        The labels exactly as written in the file (no mapping to -1/+1 or 0..k-1).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        A malformed line (the message gives ``path:line`` and the reason), a NaN or infinite label or
        value, a file with no examples, or ``n_features`` smaller than the largest index; a directory, an
        unreadable file, or a corrupt or truncated ``.gz`` / ``.bz2`` (the message names the file).
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such LIBSVM file", path)
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory; expected a LIBSVM file (plain text, .gz or .bz2)")
    cached = _cache_load(path)
    if cached is not None:
        X, y = cached
    else:
        X, y = _parse(path)
        _cache_store(path, X, y)
    return pad_features(X, n_features, source=path), y


def _parse(path):
    # imported here: importing scikit-learn takes about a second, too much for a warm command-line run
    from sklearn.datasets import load_svmlight_file

    try:
        try:
            with _open_binary(path) as stream:
                X, y = load_svmlight_file(stream, zero_based=False, dtype=np.float64)
        except (ValueError, OverflowError) as exc:
            raise _first_bad_line_error(path, fallback=str(exc)) from exc
    except (OSError, EOFError, zlib.error) as exc:  # also while _first_bad_line_error reads the file again
        raise _unreadable_error(path, exc) from exc
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        raise _first_bad_line_error(path, fallback="NaN or infinite label or value")
    if X.shape[0] == 0:
        raise ValueError(f"{path}: no examples (the file is empty or holds only comments and blank lines)")
    return X, y


# ---- parsed-file cache ---------------------------------------------------------------------------
# Parsing a compressed text file (seconds for the larger benchmarks) is done once; later reads load the
# CSR arrays from an .npz file keyed by the file's absolute path, size and modification time.
# OLKIT_CACHE_DIR=off disables it.

def _cache_path(path):
    base = os.environ.get("OLKIT_CACHE_DIR")
    if base == "off":
        return None
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "olkit", "datasets")
    st = os.stat(path)
    key = hashlib.sha1(f"{os.path.abspath(path)}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:20]
    return os.path.join(base, f"{os.path.basename(path)}.{key}.npz")


def _cache_load(path):
    cache = _cache_path(path)
    if cache is None or not os.path.exists(cache):
        return None
    try:
        with np.load(cache) as z:
            X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
            return X, z["y"]
    except (OSError, ValueError, KeyError):
        return None  # unreadable cache entry: parse the file again


def _cache_store(path, X, y):
    cache = _cache_path(path)
    if cache is None:
        return
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        tmp = f"{cache}.{os.getpid()}.tmp.npz"
        np.savez(tmp, data=X.data, indices=X.indices, indptr=X.indptr, shape=np.array(X.shape), y=y)
        os.replace(tmp, cache)
    except OSError:
        pass  # a read-only or full cache directory only costs speed


def pad_features(X: sp.csr_matrix, n_features: int | None, source: str) -> sp.csr_matrix:
    """Return ``X`` widened to ``n_features`` columns (``None``: unchanged).

    The new columns are empty; the data arrays are shared, not copied. ``source`` names the data in the
    error raised when ``X`` already has more columns than ``n_features``.
    """
    if n_features is None or n_features == X.shape[1]:
        return X
    if n_features < X.shape[1]:
        raise ValueError(
            f"{source}: n_features={n_features} but the data use feature index {X.shape[1]} (indices are 1-based)"
        )
    return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))


def _compression(path: str) -> str | None:
    """"gzip", "bzip2" or None (plain text), from the file's magic bytes."""
    with open(path, "rb") as raw:
        magic = raw.read(3)
    if magic[:2] == b"\x1f\x8b":
        return "gzip"
    if magic == b"BZh":
        return "bzip2"
    return None


def _open_binary(path: str) -> BinaryIO:
    """Open ``path`` for binary reading, decompressing gzip or bzip2 as its magic bytes say."""
    kind = _compression(path)
    if kind == "gzip":
        return gzip.open(path, "rb")
    if kind == "bzip2":
        return bz2.open(path, "rb")
    return open(path, "rb")


def _unreadable_error(path: str, exc: BaseException) -> ValueError:
    """The error for a file that cannot be read: the operating system refused (permission, I/O error), or
    its compressed stream is corrupt (bad data, CRC) or truncated (EOFError)."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return ValueError(f"{path}: cannot be read: {exc.strerror}")
    kind = _compression(path) or "compressed"
    return ValueError(f"{path}: corrupt or truncated {kind} file ({exc}); expected a complete LIBSVM file, plain "
                      "or compressed with gzip or bzip2")


def _first_bad_line_error(path: str, fallback: str) -> ValueError:
    """Build the error for a file known to be bad, naming its first malformed line.

    ``fallback`` (sklearn's own message) is used only if the line-by-line scan finds nothing, which would
    mean the two parsers disagree; the error is then still raised, just without a line number.
    """
    with _open_binary(path) as stream:
        for lineno, line in enumerate(stream, start=1):
            reason = _line_problem(line)
            if reason is not None:
                return ValueError(f"{path}:{lineno}: malformed LIBSVM line: {reason}; {_EXPECTED}")
    return ValueError(f"{path}: cannot be read as LIBSVM: {fallback}; {_EXPECTED}")


def _line_problem(line: bytes) -> str | None:
    """Return why ``line`` is not a valid LIBSVM line, or ``None`` if it is.

    Mirrors the tokenisation of sklearn's reader (text after ``#`` is a comment, whitespace separates
    tokens, an optional ``qid:...`` may follow the label) so that both agree on which lines are valid,
    and additionally rejects NaN and infinite numbers.
    """
    tokens = line.split(b"#", 1)[0].split()
    if not tokens:
        return None
    label, features = tokens[0], tokens[1:]
    try:
        label_value = float(label)
    except ValueError:
        return f"bad label {_show(label)}"
    if not math.isfinite(label_value):
        return f"label {_show(label)} is NaN or infinite"
    if features and features[0].startswith(b"qid"):
        if b":" not in features[0]:
            return f"token {_show(features[0])} has no ':'"
        features = features[1:]
    previous = 0
    for token in features:
        if b":" not in token:
            return f"token {_show(token)} has no ':'"
        index_text, value_text = token.split(b":", 1)
        try:
            index = int(index_text)
        except ValueError:
            return f"index {_show(index_text)} is not an integer"
        if index < 1:
            return f"index {index} is < 1 (indices are 1-based)"
        if index > _MAX_INDEX:
            return f"index {index} is too large (at most {_MAX_INDEX})"
        if index <= previous:
            return f"indices not increasing ({index} after {previous})"
        try:
            value = float(value_text)
        except ValueError:
            return f"value {_show(value_text)} of index {index} is not a number"
        if not math.isfinite(value):
            return f"value {_show(value_text)} of index {index} is NaN or infinite"
        previous = index
    return None


def _show(token: bytes, limit: int = 40) -> str:
    """Quote a token for an error message, shortened so a garbage line cannot flood the terminal."""
    text = token.decode("utf-8", errors="replace")
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)
