"""Datasets on demand: download a catalog file, convert it, verify it, and keep it.

:func:`fetch_file` makes one catalog file from its :class:`~olkit.data.sources.FileSource`:

1. each download is fetched by `pooch <https://www.fatiando.org/pooch/>`_ (``pooch.retrieve``) into a
   private staging folder inside the destination; a download whose own hash is known is checked by pooch
   as it arrives (a mismatch is a ``ValueError`` and the download is removed), and a transfer that ends
   early (the connection closed before ``Content-Length`` bytes) is an error, never a file;
2. the recipe turns the downloads into LIBSVM text, compressed by ``bz2`` at level 9;
3. the SHA-256 of that file must be the catalog's (:attr:`FileSource.sha256`), else ``ValueError`` naming
   both hashes, and nothing is kept;
4. the file is moved into the destination in one step (a reader never sees half a file), and one line on
   stderr says where it went.

Where files go (:func:`download_dir`): the directory named by ``OLKIT_DATA`` if it is set and writable,
else the platform's cache folder for olkit (``pooch.os_cache("olkit")``: ``~/.cache/olkit`` on Linux,
``$XDG_CACHE_HOME/olkit`` when set). The loader looks there too (:func:`cache_dir`).

Environment variables: ``OLKIT_DATA_MIRROR`` (a base URL that replaces the origin of every download, the
same relative paths below it), ``OLKIT_DATA_OFFLINE`` (set to 1: never download; a missing file is then
one line saying what to download, from where and where to put it).

Failures are :class:`DatasetUnavailable` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import os
import shutil
import struct
import sys
import tempfile
from pathlib import Path

from .._files import write_bytes
from .sources import SOURCES, FileSource

__all__ = [
    "DatasetUnavailable",
    "fetch_file",
    "download_dir",
    "cache_dir",
    "mirror",
    "offline",
    "missing_hint",
    "convert",
    "MIRROR_ENV",
    "OFFLINE_ENV",
]

DATA_ENV = "OLKIT_DATA"
MIRROR_ENV = "OLKIT_DATA_MIRROR"
OFFLINE_ENV = "OLKIT_DATA_OFFLINE"
TIMEOUT_SECONDS = 60
"""Seconds a download may wait for the server (to connect, and between two pieces of data)."""


class DatasetUnavailable(ValueError):
    """A catalog file is missing and cannot be downloaded now (offline, unreachable, or not fetchable).

    ``reason`` is the first part of the message, without the hint of what to download (the loader gives
    one hint for all the missing files of a dataset).
    """

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason if reason is not None else message


def cache_dir() -> Path:
    """The platform's cache folder for olkit's downloads (``pooch.os_cache("olkit")``), created or not."""
    import platformdirs  # what pooch.os_cache uses; importing pooch itself (and requests) is slower

    return Path(platformdirs.user_cache_dir("olkit"))


def download_dir() -> Path:
    """Where a fetched file goes: ``OLKIT_DATA`` if set and a writable directory, else :func:`cache_dir`."""
    data_dir = os.environ.get(DATA_ENV)
    if data_dir:
        path = Path(data_dir).expanduser()
        if path.is_dir() and os.access(path, os.W_OK | os.X_OK):
            return path
    return cache_dir()


def mirror() -> str | None:
    """The mirror base URL of ``OLKIT_DATA_MIRROR``, or None."""
    return os.environ.get(MIRROR_ENV) or None


def offline() -> bool:
    """Whether downloading is off (``OLKIT_DATA_OFFLINE`` set to anything but ``""``/``0``/``false``/``no``)."""
    return os.environ.get(OFFLINE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def missing_hint(files, name: str | None = None) -> str:
    """One sentence: what to download, from where, and where to put it, for catalog ``files`` not found."""
    where = download_dir()
    steps = []
    for file in files:
        source = SOURCES.get(file)
        if source is None:
            steps.append(f"find {file} (olkit knows no source)")
        elif not source.fetchable:
            steps.append(f"make {file} from {source.source}: {source.how}")
        else:
            urls = " + ".join(source.urls(mirror()))
            if source.recipe == "verbatim":
                steps.append(f"download {urls} as {file.removesuffix('.bz2')}")
            elif source.recipe == "bz2":
                steps.append(f"download {urls} as {file}")
            else:
                steps.append(
                    f"download {urls} and convert it to {file} (recipe {source.recipe!r} of olkit.data.sources)"
                )
    command = f"; or run `olkit datasets --fetch {name}` where the network is reachable" if name else ""
    return (
        f"{'; '.join(steps)}; put {'them' if len(steps) > 1 else 'it'} in {where} "
        f"(or the directory named by {DATA_ENV}){command}"
    )


def fetch_file(file: str, dest: str | os.PathLike | None = None, *, quiet: bool = False) -> Path:
    """Download, convert and verify the catalog file ``file`` into ``dest`` (default :func:`download_dir`).

    Returns the path of the verified file. Raises :class:`DatasetUnavailable` (one line) when the file has
    no source olkit can fetch, downloading is off, or a download fails (server down, unreachable, a
    transfer cut short, an HTTP error), and ``ValueError`` when a checksum does not match (the download's
    or the converted file's; expected and actual are named). Nothing is left behind by a failure.
    """
    source = SOURCES.get(file)
    if source is None:
        raise DatasetUnavailable(f"{file}: olkit knows no source for it")
    if not source.fetchable:
        raise DatasetUnavailable(f"{file} cannot be downloaded by olkit: {missing_hint([file])}")
    if offline():
        raise DatasetUnavailable(
            f"{file} is missing and downloading is off ({OFFLINE_ENV} is set): {missing_hint([file])}"
        )
    dest = Path(dest) if dest is not None else download_dir()
    dest.mkdir(parents=True, exist_ok=True)
    urls = source.urls(mirror())
    staging = Path(tempfile.mkdtemp(prefix=".olkit-fetch-", dir=dest))
    try:
        local = [
            _download(url, download.sha256, staging, i, file)
            for i, (url, download) in enumerate(zip(urls, source.downloads))
        ]
        data = bz2.compress(convert(source, local), 9)
        actual = hashlib.sha256(data).hexdigest()
        if actual != source.sha256:
            raise ValueError(
                f"{file}: SHA-256 of the file made from {' + '.join(urls)} is {actual}, expected "
                f"{source.sha256}; refused (nothing kept)"
            )
        target = dest / file
        write_bytes(target, data)  # olkit's atomic write: a temporary beside the target, renamed into place
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not quiet:
        print(f"olkit: downloaded {file} from {' + '.join(urls)} (SHA-256 verified) to {target}", file=sys.stderr)
    return target


def _download(url: str, known_hash: str | None, staging: Path, index: int, file: str) -> Path:
    """One download by pooch into ``staging``; network failures become one-line DatasetUnavailable."""
    import logging

    import pooch
    import requests

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)  # pooch's own "Downloading ..." line: olkit says it once, at the end
    try:
        name = f"{index}-{url.rstrip('/').rsplit('/', 1)[-1]}"
        downloader = pooch.HTTPDownloader(progressbar=False, timeout=TIMEOUT_SECONDS)
        path = pooch.retrieve(url, known_hash, fname=name, path=staging, downloader=downloader)
    except ValueError as exc:  # pooch: the download's hash does not match
        raise ValueError(f"{file}: download {url} refused: {' '.join(str(exc).split())}") from None
    except (requests.exceptions.RequestException, OSError) as exc:
        reason = f"cannot download {file} from {url}: {_reason(exc)}"
        raise DatasetUnavailable(f"{reason}; {missing_hint([file])}", reason) from None
    finally:
        logger.setLevel(level)
    return Path(path)


def _reason(exc: BaseException) -> str:
    """A short reason for a failed download (the innermost cause, one line)."""
    import requests

    if isinstance(exc, requests.exceptions.HTTPError) and exc.response is not None:
        return f"HTTP {exc.response.status_code} {exc.response.reason}"
    if isinstance(exc, requests.exceptions.Timeout):
        return f"no answer within {TIMEOUT_SECONDS} s"
    text = str(exc)
    for marker, words in (
        ("Connection refused", "connection refused (server down?)"),
        ("Name or service not known", "host not found (offline?)"),
        ("Temporary failure in name resolution", "host not found (offline?)"),
        ("nodename nor servname", "host not found (offline?)"),
        ("IncompleteRead", "transfer cut short"),
        ("Connection broken", "transfer cut short"),
    ):
        if marker in text:
            return words
    return f"{type(exc).__name__}: " + " ".join(text.split())[:200]


# --- recipes --------------------------------------------------------------------------------------------


def convert(source: FileSource, paths: list[Path]) -> bytes:
    """The LIBSVM text that ``source``'s recipe makes from its downloaded ``paths`` (uncompressed)."""
    recipe = source.recipe
    if recipe == "verbatim":
        return _final_newline(Path(paths[0]).read_bytes())
    if recipe == "bz2":
        return _final_newline(bz2.decompress(Path(paths[0]).read_bytes()))
    if recipe == "lines":
        assert source.lines is not None, f"{source.file}: the recipe 'lines' needs the lines to keep"
        first, last = source.lines
        lines = Path(paths[0]).read_bytes().splitlines(keepends=True)
        if len(lines) < last:
            raise ValueError(f"{source.file}: the download has {len(lines)} lines, lines {first}-{last} expected")
        return _final_newline(b"".join(lines[first - 1 : last]))
    if recipe == "dense":
        return _dense_to_libsvm(Path(paths[0]).read_bytes())
    if recipe == "arff":
        return _arff_to_libsvm(Path(paths[0]).read_bytes(), dict(source.label_map), source.file)
    if recipe == "idx":
        return _idx_to_libsvm(Path(paths[0]).read_bytes(), Path(paths[1]).read_bytes(), source.file)
    if recipe == "indices":
        return _indices_to_libsvm(Path(paths[0]).read_bytes(), Path(paths[1]).read_bytes(), source.file)
    if recipe == "mat":
        return _mat_to_libsvm(paths[0], source.variables, source.file)
    raise ValueError(f"{source.file}: olkit does not convert recipe {recipe!r}")


def _final_newline(data: bytes) -> bytes:
    return data if not data or data.endswith(b"\n") else data + b"\n"


def _is_zero(token: bytes) -> bool:
    try:
        return float(token) == 0.0
    except ValueError:
        return False


def _features(values) -> list[bytes]:
    return [b"%d:%s" % (j, value) for j, value in enumerate(values, 1) if not _is_zero(value)]


def _dense_to_libsvm(data: bytes) -> bytes:
    """'label v1 v2 ...' per line -> 'label 1:v1 2:v2 ...', value tokens verbatim, zeros omitted."""
    out = []
    for line in data.splitlines():
        tokens = line.split()
        if tokens:
            out.append(b" ".join([tokens[0], *_features(tokens[1:])]) + b"\n")
    return b"".join(out)


def _arff_to_libsvm(data: bytes, labels: dict[str, str], file: str) -> bytes:
    """The @data rows of an ARFF file: numeric attributes as features (verbatim, zeros omitted), the last
    attribute (nominal) mapped to a label by ``labels``."""
    out, in_data = [], False
    for number, raw in enumerate(data.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(b"%"):
            continue
        if not in_data:
            in_data = line.lower() == b"@data"
            continue
        *values, nominal = [token.strip() for token in line.split(b",")]
        label = labels.get(nominal.strip(b"'\"").decode("ascii", "replace"))
        if label is None:
            raise ValueError(f"{file}: ARFF line {number}: unknown class {nominal!r}; known: {', '.join(labels)}")
        out.append(b" ".join([label.encode(), *_features(values)]) + b"\n")
    if not out:
        raise ValueError(f"{file}: the ARFF download has no @data rows")
    return b"".join(out)


def _idx_to_libsvm(images_gz: bytes, labels_gz: bytes, file: str) -> bytes:
    """MNIST IDX images and labels (gzip-compressed) as LIBSVM text: label = digit, feature index = pixel
    position + 1, value = pixel / 255 printed with %g, zeros omitted."""
    import numpy as np

    images, labels = gzip.decompress(images_gz), gzip.decompress(labels_gz)
    magic, count, rows, cols = struct.unpack(">IIII", images[:16])
    label_magic, label_count = struct.unpack(">II", labels[:8])
    if (
        magic != 2051
        or label_magic != 2049
        or count != label_count
        or len(images) != 16 + count * rows * cols
        or len(labels) != 8 + count
    ):
        raise ValueError(f"{file}: the downloads are not matching MNIST IDX image and label files")
    pixels = np.frombuffer(images, dtype=np.uint8, offset=16).reshape(count, rows * cols)
    texts = [b"%g" % (v / 255) for v in range(256)]
    out = []
    for digit, row in zip(labels[8:], pixels):
        nonzero = np.flatnonzero(row)
        out.append(b" ".join([b"%d" % digit, *(b"%d:%s" % (j + 1, texts[row[j]]) for j in nonzero)]) + b"\n")
    return b"".join(out)


def _pm1(value, file: str) -> bytes:
    """A binary label as LIBSVM text: +1 / -1."""
    number = float(value)
    if number not in (1.0, -1.0):
        raise ValueError(f"{file}: label {value!r} is neither +1 nor -1")
    return b"+1" if number > 0 else b"-1"


def _binary_row(label: bytes, columns) -> bytes:
    return b" ".join([label, *(b"%d:1" % j for j in sorted(columns))]) + b"\n"


def _indices_to_libsvm(data: bytes, labels: bytes, file: str) -> bytes:
    """Rows of active 1-based indices + one label per line -> 'label j:1 ...' (indices increasing)."""
    rows, values = data.splitlines(), labels.split()
    while rows and not rows[-1].strip():
        rows.pop()
    if len(rows) != len(values):
        raise ValueError(f"{file}: {len(rows)} rows of indices but {len(values)} labels")
    return b"".join(_binary_row(_pm1(label, file), {int(j) for j in row.split()}) for row, label in zip(rows, values))


def _mat_to_libsvm(path, variables: tuple[str, ...], file: str) -> bytes:
    """A MATLAB file's binary matrix and labels (``variables``: their names) -> 'label j:1 ...' per row."""
    import numpy as np
    import scipy.io
    import scipy.sparse as sp

    matrix_name, labels_name = variables
    try:
        contents = scipy.io.loadmat(path, variable_names=list(variables))
    except (NotImplementedError, ValueError, OSError) as exc:
        raise ValueError(f"{file}: cannot read the MATLAB file: {exc}") from None
    if matrix_name not in contents or labels_name not in contents:
        raise ValueError(f"{file}: the MATLAB file lacks {matrix_name} or {labels_name}")
    X = sp.csr_matrix(contents[matrix_name])
    y = np.asarray(contents[labels_name]).ravel()
    if X.shape[0] != y.size:
        raise ValueError(f"{file}: {X.shape[0]} rows but {y.size} labels")
    X.eliminate_zeros()
    if X.nnz and not np.all(X.data == 1):
        raise ValueError(f"{file}: the matrix is not binary")
    return b"".join(
        _binary_row(_pm1(label, file), (X.indices[X.indptr[i] : X.indptr[i + 1]] + 1).tolist())
        for i, label in enumerate(y)
    )
