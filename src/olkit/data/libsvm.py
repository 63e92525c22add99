"""Reading LIBSVM / svmlight text files.

A LIBSVM file holds one example per line::

    label index:value index:value ...   # optional comment

with strictly increasing integer feature indices, 1-based by default (``zero_based=True`` reads 0-based
files, ``zero_based="auto"`` decides from the file as scikit-learn's ``load_svmlight_file`` does); absent
features are zero. Files may be plain text or compressed with gzip or bzip2 (recognised by their first
bytes, so the file name does not matter).

Parsing is done by :func:`sklearn.datasets.load_svmlight_file` (compiled, fast). Its errors carry no line
number ("could not convert string to float: b'abc'"), so when it fails, or when the file holds NaN or
infinite numbers that it accepts silently, the file is scanned again line by line in pure Python to name
the first offending line. The slow scan only ever runs on files that are already known to be bad.

:func:`read_libsvm` keeps each parse in the parsed-data cache (:mod:`olkit.data.cache`: ``OLKIT_CACHE_DIR``,
at most ``OLKIT_CACHE_MAX_BYTES``, least recently used entries evicted; ``olkit cache info|clear``); the
chunked readers (:func:`iter_libsvm`, :func:`scan_libsvm`) never use it.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import math
import os
import re
import zlib

import numpy as np
import scipy.sparse as sp

from . import cache

__all__ = ["check_zero_based", "iter_libsvm", "line_of_index", "pad_features", "read_libsvm", "scan_libsvm"]

_EXPECTED = "expected 'label index:value ...' with 1-based increasing integer indices"
# sklearn stores feature indices in a C int, so larger ones overflow there.
_MAX_INDEX = 2**31 - 1


def read_libsvm(
    path: str | os.PathLike, n_features: int | None = None, zero_based: bool | str = False
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Read a LIBSVM / svmlight file (plain, ``.gz`` or ``.bz2``).

    Parameters
    ----------
    path
        The file. Compression is detected from the content, not the name.
    n_features
        Number of columns of the result. ``None`` means the largest feature index present (+1 if the
        indices are 0-based). A larger value pads with empty columns (e.g. a9a's test file never uses
        feature 123 of its 123); a value smaller than an index in the file is an error.
    zero_based
        As in :func:`sklearn.datasets.load_svmlight_file`: ``False`` (the default, LIBSVM's convention):
        indices start at 1, index 1 is column 0 and an index 0 is an error; ``True``: indices start at 0,
        index 0 is column 0; ``"auto"``: 1-based if the file has at least one index and none is 0,
        0-based otherwise.

    The parse is kept in the parsed-data cache (:mod:`olkit.data.cache`), so reading the same unchanged file
    again loads it instead of parsing it.

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64, shape (n_examples, n_features)
        Always sparse, whatever the density, so a 100,000-feature file is never densified (a width of
        2147483647, from one index that large, costs nothing here; a learner refuses a d-sized state that
        cannot fit, see :mod:`olkit.limits`).
    y : ndarray of float64, shape (n_examples,)
        The labels exactly as written in the file (no mapping to -1/+1 or 0..k-1).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        A malformed line (the message gives ``path:line`` and the reason), a NaN or infinite label or
        value, a file with no examples, or ``n_features`` smaller than the largest index; a directory, an
        unreadable file, or a corrupt or truncated ``.gz`` / ``.bz2`` (the message names the file); a
        ``zero_based`` other than ``False``, ``True`` or ``"auto"``.
    """
    zero_based = check_zero_based(zero_based)
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such LIBSVM file", path)
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory; expected a LIBSVM file (plain text, .gz or .bz2)")
    cached = cache.load(path, zero_based)
    if cached is not None:
        X, y = cached
    else:
        X, y = _parse(path, zero_based)
        cache.store(path, X, y, zero_based)
    return pad_features(X, n_features, source=path, zero_based=zero_based), y


def check_zero_based(zero_based):
    """``zero_based`` if it is ``False``, ``True`` or ``"auto"`` (the values of scikit-learn's
    ``load_svmlight_file``), else ``ValueError``."""
    if isinstance(zero_based, (bool, np.bool_)):
        return bool(zero_based)
    if isinstance(zero_based, str) and zero_based == "auto":
        return zero_based
    raise ValueError(
        f"zero_based must be False (1-based indices, LIBSVM's convention), True (0-based) or "
        f"'auto' (0-based if some index is 0), got {zero_based!r}"
    )


def _parse(path, zero_based=False):
    """The whole file as (X, y); ``zero_based="auto"`` is resolved here (:func:`_one_based_after_all`)."""
    try:
        with _open_binary(path) as stream:
            X, y = _parse_block(stream, path, zero_based=zero_based)
    except (OSError, EOFError, zlib.error) as exc:  # also while _first_bad_line_error reads the file again
        raise _unreadable_error(path, exc) from exc
    if X.shape[0] == 0:
        raise ValueError(f"{path}: no examples (the file is empty or holds only comments and blank lines)")
    if zero_based == "auto" and _one_based_after_all(X.indices.min() if X.nnz else None):
        X = _shift_left(X)
    return X, y


def _one_based_after_all(smallest_index):
    """``zero_based="auto"`` (read 0-based) means 1-based after all when the file has an index and none is 0
    (scikit-learn's rule); ``smallest_index`` is the smallest index read, ``None`` if there is none."""
    return smallest_index is not None and smallest_index > 0


def _shift_left(X):
    """X read 0-based from a 1-based file: every index one less, one column fewer."""
    return sp.csr_matrix((X.data, X.indices - 1, X.indptr), shape=(X.shape[0], X.shape[1] - 1))


def _parse_block(source, path, lines=None, first_lineno=1, zero_based=False):
    """Parse LIBSVM text (a binary stream or bytes) with sklearn's compiled reader: (X, y), X as wide as
    its largest index. Used by both :func:`read_libsvm` (the whole file) and :func:`iter_libsvm` (one chunk).

    On a malformed line, or a NaN or infinite number, the text is scanned again line by line to name the
    first bad line as ``path:line``: ``lines`` are the block's lines (``first_lineno`` the file line number
    of the first one); ``None`` means the block is the whole file, read again from ``path``.
    ``zero_based="auto"`` parses 0-based (an index 0 is allowed); the caller shifts a 1-based result.
    """
    # imported here: importing scikit-learn takes about a second, too much for a warm command-line run
    from sklearn.datasets import load_svmlight_file

    if isinstance(source, bytes):
        source = io.BytesIO(source)
    try:
        X, y = load_svmlight_file(source, zero_based=bool(zero_based), dtype=np.float64)
    except (ValueError, OverflowError) as exc:
        raise _first_bad_line_error(path, str(exc), lines, first_lineno, zero_based) from exc
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        raise _first_bad_line_error(path, "NaN or infinite label or value", lines, first_lineno, zero_based)
    return X, y


def _is_example(line: bytes) -> bool:
    """Whether a line holds an example (not blank, not only a comment)."""
    head = line.lstrip()
    return bool(head) and not head.startswith(b"#")


def _raw_chunks(path: str | os.PathLike, chunk_size: int, zero_based: bool | str):
    """(X, y) of each run of ``chunk_size`` example lines of the file, in file order, X as wide as the
    chunk's largest index. Reads ``chunk_size`` lines at a time, never the whole file."""
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be an integer >= 1, got {chunk_size!r}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "no such LIBSVM file", path)
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory; expected a LIBSVM file (plain text, .gz or .bz2)")
    seen = 0
    try:
        with _open_binary(path) as stream:
            lines, rows, first, lineno = [], 0, 1, 0
            for lineno, line in enumerate(stream, start=1):
                lines.append(line)
                if _is_example(line):
                    rows += 1
                    if rows == chunk_size:
                        X, y = _parse_block(b"".join(lines), path, lines, first, zero_based)
                        seen += X.shape[0]
                        yield X, y
                        lines, rows, first = [], 0, lineno + 1
            if rows:
                X, y = _parse_block(b"".join(lines), path, lines, first, zero_based)
                seen += X.shape[0]
                yield X, y
    except (OSError, EOFError, zlib.error) as exc:
        raise _unreadable_error(path, exc) from exc
    if seen == 0:
        raise ValueError(f"{path}: no examples (the file is empty or holds only comments and blank lines)")


def scan_libsvm(path: str | os.PathLike, chunk_size: int = 100_000, zero_based: bool | str = False) -> dict:
    """One reading pass over a LIBSVM file in chunks (memory bounded by ``chunk_size``): its number of
    examples, its width (largest feature index; +1 if 0-based), its sorted distinct labels and whether its
    indices are read 0-based (``zero_based`` as in :func:`read_libsvm`; ``"auto"`` is resolved by this pass).

    Raises the same errors as :func:`read_libsvm` (``path:line`` for a malformed line)."""
    zero_based = check_zero_based(zero_based)
    n, width, labels, smallest = 0, 0, np.empty(0), None
    for X, y in _raw_chunks(path, chunk_size, zero_based):
        n += X.shape[0]
        width = max(width, X.shape[1])
        labels = np.union1d(labels, y)
        if X.nnz:
            smallest = int(X.indices.min()) if smallest is None else min(smallest, int(X.indices.min()))
    if zero_based == "auto":
        zero_based = not _one_based_after_all(smallest)
        width -= 0 if zero_based else 1
    return {"n_examples": n, "n_features": width, "labels": labels, "zero_based": zero_based}


def iter_libsvm(
    path: str | os.PathLike, chunk_size: int = 100_000, n_features: int | None = None, zero_based: bool | str = False
):
    """Read a LIBSVM file (plain, ``.gz`` or ``.bz2``) in chunks, without loading it whole.

    Yields ``(X_chunk, y_chunk)`` in file order: ``X_chunk`` a CSR float64 matrix of ``chunk_size`` rows (the
    last chunk may have fewer; comment and blank lines do not count) and ``n_features`` columns, the same for
    every chunk; ``y_chunk`` the raw labels, as :func:`read_libsvm` gives them. Memory is bounded by the chunk,
    not the file.

    ``n_features=None`` makes a first, scanning pass over the file to find its largest feature index (the
    reading time doubles, the memory stays bounded; :func:`scan_libsvm` gives that pass's result, labels
    included, to a caller that needs them up front). Give ``n_features`` to read the file once; an index
    above it is an error naming the lines. ``zero_based`` is as in :func:`read_libsvm`: ``True`` reads 0-based
    indices (index 0 allowed); ``"auto"`` needs the scanning pass (to see whether some index is 0) even
    with ``n_features`` given.

    Errors are those of :func:`read_libsvm`: ``path:line`` for a malformed line (raised when its chunk is
    reached: the chunks before it were already yielded), a clear message for a corrupt or truncated
    compressed file. This is a generator: nothing is read (and nothing checked) before the first ``next``.
    """
    zero_based = check_zero_based(zero_based)
    if n_features is not None and (
        isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or n_features < 1
    ):
        raise ValueError(f"n_features must be an integer >= 1 or None, got {n_features!r}")
    if n_features is None or zero_based == "auto":
        info = scan_libsvm(path, chunk_size, zero_based)
        n_features = info["n_features"] if n_features is None else n_features
        zero_based = info["zero_based"]
    for X, y in _raw_chunks(path, chunk_size, zero_based):
        yield pad_features(X, int(n_features), source=os.fspath(path), zero_based=zero_based), y


def line_of_index(path: str | os.PathLike, index: int) -> int | None:
    """The number of the first line of a LIBSVM file holding feature ``index`` (as the file writes it), or
    None. A plain pass over the lines, used only to word an error (e.g. the line that makes a file as wide as
    2147483647 features)."""
    token = re.compile(rb"(?:^|\s)%d:" % int(index))
    with _open_binary(os.fspath(path)) as stream:
        for lineno, line in enumerate(stream, start=1):
            if token.search(line.split(b"#", 1)[0]):
                return lineno
    return None


def pad_features(
    X: sp.csr_matrix, n_features: int | None, source: str, zero_based: bool | str = False
) -> sp.csr_matrix:
    """Return ``X`` widened to ``n_features`` columns (``None``: unchanged).

    The new columns are empty; the data arrays are shared, not copied. ``source`` names the data in the
    error raised when ``X`` already has more columns than ``n_features``; ``zero_based`` (as the data were
    read) makes that error number the feature index as the file does.
    """
    if n_features is None or n_features == X.shape[1]:
        return X
    if n_features < X.shape[1]:
        if zero_based == "auto":
            used = f"have {X.shape[1]} features (zero_based='auto')"
        else:
            used = (
                f"use feature index {X.shape[1] - 1} (indices are 0-based)"
                if zero_based
                else f"use feature index {X.shape[1]} (indices are 1-based)"
            )
        raise ValueError(f"{source}: n_features={n_features} but the data {used}")
    return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))


def _compression(path: str | os.PathLike) -> str | None:
    """ "gzip", "bzip2" or None (plain text), from the file's magic bytes. A FIFO, a device or a directory is
    refused before it is opened (reading a FIFO blocks until a writer comes, a device never ends)."""
    from .._files import file_kind

    kind = file_kind(os.stat(path).st_mode)
    if kind is not None:
        raise ValueError(f"{path} is {kind}, not a regular file; a LIBSVM file is plain text, .gz or .bz2")
    with open(path, "rb") as raw:
        magic = raw.read(3)
    if magic[:2] == b"\x1f\x8b":
        return "gzip"
    if magic == b"BZh":
        return "bzip2"
    return None


def _open_binary(path: str | os.PathLike) -> io.BufferedIOBase:
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
    return ValueError(
        f"{path}: corrupt or truncated {kind} file ({exc}); expected a complete LIBSVM file, plain "
        "or compressed with gzip or bzip2"
    )


def _first_bad_line_error(
    path: str, fallback: str, lines=None, first_lineno: int = 1, zero_based: bool = False
) -> ValueError:
    """Build the error for a file (or a block of its ``lines``, the first at line ``first_lineno``) known to
    be bad, naming its first malformed line.

    ``fallback`` (sklearn's own message) is used only if the line-by-line scan finds nothing, which would
    mean the two parsers disagree; the error is then still raised, just without a line number.
    """
    if lines is None:
        with _open_binary(path) as stream:
            found = _first_problem(stream, 1, zero_based)
    else:
        found = _first_problem(lines, first_lineno, zero_based)
    if found is not None:
        lineno, reason = found
        return ValueError(f"{path}:{lineno}: malformed LIBSVM line: {reason}; {_expected(zero_based)}")
    return ValueError(f"{path}: cannot be read as LIBSVM: {fallback}; {_expected(zero_based)}")


def _expected(zero_based: bool | str) -> str:
    if zero_based == "auto":
        return _EXPECTED.replace("1-based", "0-based or 1-based")
    return _EXPECTED.replace("1-based", "0-based") if zero_based else _EXPECTED


def _first_problem(lines, first_lineno: int, zero_based: bool):
    """(line number, reason) of the first bad line of ``lines``, or None."""
    for lineno, line in enumerate(lines, start=first_lineno):
        reason = _line_problem(line, zero_based)
        if reason is not None:
            return lineno, reason
    return None


def _line_problem(line: bytes, zero_based: bool | str = False) -> str | None:
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
    previous = -1  # an index 0 is valid as the first of a 0-based line
    for token in features:
        if b":" not in token:
            return f"token {_show(token)} has no ':'"
        index_text, value_text = token.split(b":", 1)
        try:
            index = int(index_text)
        except ValueError:
            return f"index {_show(index_text)} is not an integer"
        if index < (0 if zero_based else 1):
            return f"index {index} is < 0" if zero_based else f"index {index} is < 1 (indices are 1-based)"
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
