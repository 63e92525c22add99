"""The dataset catalog: the papers' benchmark datasets by name, and the label conventions.

A catalog entry names the LIBSVM files that together form one dataset of the papers, so that its size
matches the paper's table (a9a is train + test = 48,842 rows, w7a the train file alone, ...). Files are
looked for

1. among the files bundled inside the package (small datasets the demo and the tests need), then
2. in the directory named by the environment variable ``OLKIT_DATA`` (compressed ``.bz2``, ``.gz`` or plain,
   whichever is there).

Anything that is not a catalog name is taken as the path of a LIBSVM file. Labels are returned as written
in the files; :func:`binary_labels` maps a two-class label vector to -1/+1.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .libsvm import pad_features, read_libsvm

__all__ = [
    "DatasetSpec",
    "CATALOG",
    "load_dataset",
    "dataset_info",
    "list_datasets",
    "binary_labels",
    "check_labels_finite",
]

DATA_ENV = "OLKIT_DATA"
_BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"
# Bundled copies stored under a different name than in the data directory (the bundled splice is only
# the train split, so the split suffix was dropped).
_BUNDLED_NAMES = {"splice.train.libsvm.bz2": "splice.libsvm.bz2"}
_COMPRESSION_SUFFIXES = (".bz2", ".gz")


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of the papers and the files that form it.

    Attributes
    ----------
    name
        Catalog name (what ``load_dataset`` and ``olkit run --data`` accept).
    files
        LIBSVM file names in the data directory, concatenated row-wise in this order.
    n_features
        Declared dimension; every file is padded to it. ``None``: the largest feature index present.
    paper_shape
        The paper(s) and table giving the dataset's size, and that size.
    source
        Which version of the data the files are and where they come from.
    notes
        Differences from the paper's version, and anything a user of the numbers should know.
    bundled
        Whether the files ship inside the package.
    row_normalize
        Scale every example to unit Euclidean norm after loading (the preprocessing under which the
        paper's numbers are reproduced; stated in ``notes``). Sparse rows stay sparse.
    """

    name: str
    files: tuple[str, ...]
    n_features: int | None
    paper_shape: str
    source: str
    notes: str
    bundled: bool = False
    row_normalize: bool = False


# Shapes, sources and differences come from ../shared/data/MANIFEST.json.
CATALOG: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        # --- DUOL (JMLR) Table 1, binary -------------------------------------------------------------
        DatasetSpec(
            "sonar",
            ("sonar_scale.libsvm.bz2",),
            60,
            "DUOL JMLR Tab.1: 208 x 60",
            "UCI sonar (LIBOL/LIBOL data/sonar.arff) min-max scaled to [-1, 1] per feature, "
            "as LIBSVM's sonar_scale (svm-scale defaults)",
            "DUOL's sonar is LIBSVM's sonar_scale: DUOL errs about 33% here (paper 34.3%) but about 48% on "
            "the raw UCI values (see sonar-raw). Printed digits may differ slightly from LIBSVM's own file.",
            bundled=True,
        ),
        DatasetSpec(
            "sonar-raw",
            ("sonar.libsvm.bz2",),
            60,
            "DUOL JMLR Tab.1: 208 x 60 (the paper used the scaled version)",
            "UCI sonar converted from LIBOL/LIBOL data/sonar.arff, values as-is in [0, 1]",
            "Raw, unscaled values: not what DUOL reports on (use sonar). Labels Mine=+1, Rock=-1.",
        ),
        DatasetSpec(
            "splice",
            ("splice.train.libsvm.bz2",),
            60,
            "DUOL JMLR Tab.1: 1000 x 60",
            "LIBSVM splice, train split (rows 1-1000 of ambroiseodt/tsim data/splice.txt)",
            "Unscaled values 1..4 (LIBSVM's splice_scale is (v - 2.5) / 1.5); 517 +1 / 483 -1 as LIBSVM's "
            "train file. The test split (splice.test, 2175 rows) is not part of the paper's dataset.",
            bundled=True,
        ),
        DatasetSpec(
            "german",
            ("german.libsvm.bz2",),
            24,
            "DUOL JMLR Tab.1: 1000 x 24",
            "LIBSVM german.numer_scale (LIBOL/KOL python/german)",
            "The [-1, 1]-scaled german.numer_scale, not the raw german.numer.",
            bundled=True,
        ),
        DatasetSpec(
            "mushrooms",
            ("mushrooms.libsvm.bz2",),
            112,
            "DUOL JMLR Tab.1: 8124 x 112",
            "LIBSVM mushrooms (ambroiseodt/tsim data/mushrooms.txt)",
            "Labels are 1/2 as in LIBSVM; binary_labels maps 1 -> -1 and 2 -> +1.",
            bundled=True,
        ),
        DatasetSpec(
            "dorothea",
            ("dorothea.train.libsvm.bz2", "dorothea.valid.libsvm.bz2"),
            100000,
            "DUOL JMLR Tab.1: 1150 x 100000 (train 800 + valid 350)",
            "NIPS 2003 feature-selection challenge DOROTHEA: train from wzkhan89/TOCDMB_Sourcecode "
            "data/dorothea.mat, valid from the official text and label files",
            "Train (800) + validation (350): the whole labelled set, since the challenge's test labels were "
            "never released. Rows scaled to unit L2 norm: on the raw binary features (909 ones per row) the "
            "sigma = 8 Gaussian kernel between distinct examples is about 4e-6, every learner degenerates to "
            "the majority class (9.8% error, every example an SV), while with unit-norm rows the DUOL paper's "
            "numbers are reproduced (5 orderings: Perceptron 13.15% vs paper 13.26%, PA-I 17.79 vs 17.50, "
            "DUOL 11.53 vs 11.76, with matching SV counts). The raw data are 'dorothea-raw'.",
            row_normalize=True,
        ),
        DatasetSpec(
            "dorothea-raw",
            ("dorothea.train.libsvm.bz2", "dorothea.valid.libsvm.bz2"),
            100000,
            "DUOL JMLR Tab.1: 1150 x 100000 (train 800 + valid 350)",
            "NIPS 2003 feature-selection challenge DOROTHEA: train from wzkhan89/TOCDMB_Sourcecode "
            "data/dorothea.mat, valid from the official text and label files",
            "Raw binary features (train + validation, about 1% dense; nnz equals the official check-sums). "
            "Not the paper's preprocessing: see 'dorothea'.",
        ),
        DatasetSpec(
            "w7a",
            ("w7a.train.libsvm.bz2",),
            300,
            "DUOL JMLR Tab.1: 24692 x 300",
            "LIBSVM w7a (zhengqu-x/IPALM datas/matrix_w7a)",
            "Train file only, as in the paper (w7a.test, 25057 rows, is not used).",
        ),
        # --- Ahpatron Table 1 / SCW Table 2, binary ---------------------------------------------------
        DatasetSpec(
            "w8a",
            ("w8a.train.libsvm.bz2",),
            300,
            "Ahpatron Tab.1: 49749 x 300",
            "LIBSVM w8a (unc-optimization/AccSPD data/w8a)",
            "Train file only, as in the paper (w8a.test, 14951 rows, is not used).",
        ),
        DatasetSpec(
            "a9a",
            ("a9a.train.libsvm.bz2", "a9a.test.libsvm.bz2"),
            123,
            "Ahpatron Tab.1: 48842 x 123 (train + test)",
            "LIBSVM a9a + a9a.t (LIBOL/KOL sample_dataset)",
            "Train (32561) + test (16281). The test file never uses feature 123, so both are padded to the "
            "declared 123 features.",
        ),
        DatasetSpec(
            "ijcnn1",
            ("ijcnn1.train.libsvm.bz2", "ijcnn1.test.libsvm.bz2"),
            22,
            "SCW Tab.2 / Ahpatron Tab.1: 141691 x 22 (train + test)",
            "LIBSVM ijcnn1 (tr + val = 49990 rows) + ijcnn1.t (91701 rows), "
            "from X-DataInitiative/tick-datasets",
            "Some entries are written as explicit ':0.0'; they are kept as stored zeros (harmless).",
        ),
        # --- DUOL (JMLR) Table 3, multiclass ----------------------------------------------------------
        DatasetSpec(
            "usps",
            ("usps.train.libsvm.bz2",),
            256,
            "DUOL JMLR Tab.3: 7291 x 256 x 10; SCW Tab.2: 7291 x 256 (1 vs all)",
            "USPS (Hull) 7291-image training set, derived from niuers/Learning-From-Data-A-Short-Course "
            "data/usps.h5",
            "Not LIBSVM's file: values equal ESL's zip.train in [-1, 1] (3 decimals) and labels are digit + 1 "
            "(1..10) as in LIBSVM's usps, but the row order may differ. For SCW's '1 vs all' digit 1 is label 2.",
        ),
        DatasetSpec(
            "mnist",
            ("mnist.test.libsvm.bz2",),
            None,
            "DUOL JMLR Tab.3: 10000 x 780 x 10",
            "MNIST t10k, converted from the official IDX files (via ambroiseodt/tsim) like LIBSVM's "
            "mnist.scale.t: value = pixel / 255, feature index = pixel index + 1",
            "10000 x 778, not 780: 778 is the largest feature index in the test file (LIBSVM's mnist.scale.t "
            "has 778 as well); the paper's 780 is the training file's maximum. Labels are the digits 0..9. "
            "SCW's 'mnist 1 vs 2' needs the 60000-image training set, which is not available.",
        ),
        DatasetSpec(
            "dna",
            ("dna.train.libsvm.bz2",),
            180,
            "DUOL JMLR Tab.3: 2000 x 180 x 3",
            "LIBSVM dna.scale (zpli0320/dataset)",
            "Train file only, as in the paper (dna.test, 1186 rows, is not used).",
        ),
        DatasetSpec(
            "segment",
            ("segment.libsvm.bz2",),
            19,
            "DUOL JMLR Tab.3: 2310 x 19 x 7",
            "LIBSVM segment.scale (LGuitron/LIBOL-python)",
            "Same values as LIBOL's segment.mat.",
        ),
        DatasetSpec(
            "letter",
            ("letter.train.libsvm.bz2",),
            16,
            "DUOL JMLR Tab.3: 15000 x 16 x 26",
            "LIBSVM letter.scale, 15000-row training file (LGuitron/LIBOL-python)",
            "The 5000-row letter.scale.t is not available (and not used by the paper).",
        ),
        DatasetSpec(
            "vehicle",
            ("vehicle.libsvm.bz2",),
            18,
            "DUOL JMLR Tab.3: 846 x 18 x 4",
            "Statlog vehicle from R's mlbench (Debian r-cran-mlbench 2.1-3-1), min-max scaled to [-1, 1] "
            "per feature as svm-scale does for LIBSVM's vehicle.scale",
            "Not LIBSVM's file: the scaling is emulated and the labels are opel=1, saab=2, bus=3, van=4; "
            "LIBSVM's row order and class numbering may differ.",
        ),
    )
}


def load_dataset(name_or_path: str | os.PathLike, n_features: int | None = None) -> tuple[sp.csr_matrix, np.ndarray]:
    """Load a catalog dataset by name, or a LIBSVM file by path.

    Parameters
    ----------
    name_or_path
        A key of :data:`CATALOG` (which wins over a file of the same name in the working directory), or
        the path of a LIBSVM file (plain, ``.gz`` or ``.bz2``).
    n_features
        Number of columns, overriding the catalog's declared dimension; must be at least the largest
        feature index present.

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64, shape (n_examples, n_features)
    y : ndarray of float64, shape (n_examples,)
        Raw labels as written in the files (see :func:`binary_labels`).

    Loaded data are cached in-process (keyed by the resolved files, their modification times and
    ``n_features``); each call returns fresh copies, so callers may modify what they get.

    Raises
    ------
    ValueError
        Unknown name that is not a file (the message lists the catalog), a catalog dataset whose files
        are neither bundled nor in ``OLKIT_DATA``, or unreadable data (see :func:`read_libsvm`).
    """
    name, files, width = _resolve(name_or_path, n_features)
    X, y = _read_files(files, width)
    X = X.copy()
    spec = CATALOG.get(name)
    if spec is not None and spec.row_normalize:
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        X = sp.csr_matrix(sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X)
    return X, y.copy()


def dataset_info(name_or_path: str | os.PathLike) -> dict:
    """Describe a dataset: size, classes, files and how it relates to the paper's version.

    Loads the data (through the same cache as :func:`load_dataset`). ``label_counts`` maps each raw
    label (an ``int`` when integral) to its number of examples; ``paper_shape``, ``source`` and ``notes``
    are ``None`` for a file that is not in the catalog.
    """
    name, files, width = _resolve(name_or_path, None)
    X, y = _read_files(files, width)
    labels, counts = np.unique(y, return_counts=True)
    spec = CATALOG.get(name)
    return {
        "name": name,
        "n_examples": X.shape[0],
        "n_features": X.shape[1],
        "n_classes": len(labels),
        "label_counts": {_label_value(v): int(c) for v, c in zip(labels, counts)},
        "nnz": int(X.nnz),
        "files": [path for path, _, _ in files],
        "paper_shape": spec.paper_shape if spec else None,
        "source": spec.source if spec else None,
        "notes": spec.notes if spec else None,
    }


def list_datasets() -> list[dict]:
    """Every catalog entry with where its files are, without loading them.

    ``availability`` is ``"bundled"`` (all files ship with olkit), ``"OLKIT_DATA"`` (all found, some in
    the ``OLKIT_DATA`` directory) or ``"missing"``; ``paths`` holds the files found and ``missing_files``
    the names not found.
    """
    entries = []
    for spec in CATALOG.values():
        found = [(file, *_find_file(spec, file)) for file in spec.files]
        missing = [file for file, path, _ in found if path is None]
        if missing:
            availability = "missing"
        elif all(where == "bundled" for _, _, where in found):
            availability = "bundled"
        else:
            availability = DATA_ENV
        entries.append(
            {
                "name": spec.name,
                "files": list(spec.files),
                "n_features": spec.n_features,
                "paper_shape": spec.paper_shape,
                "source": spec.source,
                "notes": spec.notes,
                "bundled": spec.bundled,
                "availability": availability,
                "paths": [str(path) for _, path, _ in found if path is not None],
                "missing_files": missing,
            }
        )
    return entries


def binary_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """Map a two-class label vector to -1/+1: the smaller raw label becomes -1, the other +1.

    Returns ``(y_pm1, classes)`` with ``y_pm1`` float64 and ``classes`` the two raw labels in increasing
    order (``classes[0]`` -> -1, ``classes[1]`` -> +1), so e.g. mushrooms' 1/2 become -1/+1 and -1/+1
    stay as they are.

    Raises ``ValueError`` for NaN/infinite labels and for anything other than exactly two classes.
    """
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"labels must be a 1-D array, got shape {y.shape}")
    check_labels_finite(y)
    classes = np.unique(y)
    if len(classes) == 0:
        raise ValueError("binary labels needed but there are no labels")
    if len(classes) == 1:
        raise ValueError(f"binary labels needed but one class only: every label is {_label_list(classes)}")
    if len(classes) > 2:
        raise ValueError(f"binary labels needed but {len(classes)} classes found: {_label_list(classes)}")
    return np.where(y == classes[1], 1.0, -1.0), classes


def check_labels_finite(y, what: str = "labels") -> None:
    """Raise ``ValueError`` if ``y`` holds a NaN or infinite value (``what`` names it in the message)."""
    bad = ~np.isfinite(np.asarray(y, dtype=np.float64))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what}: {int(bad.sum())} NaN or infinite value(s), the first at example {first} (0-based)")


def _resolve(name_or_path, n_features: int | None) -> tuple[str, tuple[tuple[str, int, int], ...], int | None]:
    """Turn a name or path into ``(name, files, width)``; ``files`` and ``width`` are for :func:`_read_files`.

    Each file is ``(path, mtime_ns, size)`` so that the cache notices a file that changed on disk.
    """
    name = os.fspath(name_or_path)
    spec = CATALOG.get(name)
    if spec is None:
        if not os.path.isfile(name):
            raise ValueError(
                f"unknown dataset {name!r}: not a catalog name and no such file. "
                f"Valid names: {', '.join(sorted(CATALOG))}; or give the path of a LIBSVM file"
            )
        return name, (_stat(name),), n_features
    found = [_find_file(spec, file)[0] for file in spec.files]
    missing = [file for file, path in zip(spec.files, found) if path is None]
    if missing:
        data_dir = os.environ.get(DATA_ENV)
        where = f"{DATA_ENV}={data_dir!r}" if data_dir else f"{DATA_ENV} (unset)"
        raise ValueError(
            f"dataset {name!r} needs {', '.join(missing)}, not found in {where}"
            f"{' nor among the bundled files' if spec.bundled else ''}; "
            f"set the environment variable {DATA_ENV} to the directory holding {'them' if len(missing) > 1 else 'it'}"
        )
    width = n_features if n_features is not None else spec.n_features
    return name, tuple(_stat(str(path)) for path in found), width


def _find_file(spec: DatasetSpec, file: str) -> tuple[Path | None, str]:
    """Locate one file of ``spec``: ``(path, "bundled" | "OLKIT_DATA")``, or ``(None, "missing")``."""
    if spec.bundled:
        path = _BUNDLED_DIR / _BUNDLED_NAMES.get(file, file)
        if path.is_file():
            return path, "bundled"
    data_dir = os.environ.get(DATA_ENV)
    if data_dir:
        # Users may keep the files decompressed or recompressed; read_libsvm sniffs the format.
        stem = file
        for suffix in _COMPRESSION_SUFFIXES:
            stem = stem.removesuffix(suffix)
        for candidate in (file, *(stem + suffix for suffix in _COMPRESSION_SUFFIXES), stem):
            path = Path(data_dir).expanduser() / candidate
            if path.is_file():
                return path, DATA_ENV
    return None, "missing"


def _stat(path: str) -> tuple[str, int, int]:
    """``(absolute path, mtime_ns, size)``: identifies a file's current content for the cache."""
    info = os.stat(path)
    return os.path.abspath(path), info.st_mtime_ns, info.st_size


@functools.lru_cache(maxsize=16)
def _read_files(files: tuple[tuple[str, int, int], ...], width: int | None) -> tuple[sp.csr_matrix, np.ndarray]:
    """Read and stack ``files`` row-wise, all padded to ``width`` (default: the widest). Cached.

    The cached arrays are shared between calls: public functions copy before handing them out.
    """
    parts = [read_libsvm(path) for path, _, _ in files]
    if width is None:
        width = max(X.shape[1] for X, _ in parts)
    blocks = [pad_features(X, width, source=path) for (X, _), (path, _, _) in zip(parts, files)]
    X = blocks[0] if len(blocks) == 1 else sp.vstack(blocks, format="csr")
    y = np.concatenate([labels for _, labels in parts])
    return X, y


def _label_value(value: float) -> int | float:
    """A raw label as ``int`` when integral (labels are nearly always small integers), else ``float``."""
    return int(value) if float(value).is_integer() else float(value)


def _label_list(classes: np.ndarray, limit: int = 20) -> str:
    """The labels for an error message, e.g. ``"1, 2, 3"`` (at most ``limit`` of them)."""
    shown = ", ".join(str(_label_value(v)) for v in classes[:limit])
    return shown + (", ..." if len(classes) > limit else "")
