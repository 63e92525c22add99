"""The dataset catalog: the papers' benchmark datasets by name, and the label conventions.

A catalog entry names the LIBSVM files that together form one dataset of the papers, so that its size
matches the paper's table (a9a is train + test = 48,842 rows, w7a the train file alone, ...). Files are
looked for

1. among the files bundled inside the package (small datasets the demo and the tests need), then
2. in the directory named by the environment variable ``OLKIT_DATA`` (compressed ``.bz2``, ``.gz`` or plain,
   whichever is there).

Anything that is not a catalog name is taken as the path of a LIBSVM file. Labels are returned as written
in the files; :func:`binary_labels` maps a two-class label vector to -1/+1.

Some entries are *derived* rather than read as they are (see :class:`DatasetSpec`):

* a subset of a file's classes (``classes``: keep only the rows whose raw label is listed), e.g.
  ``mnist-1vs2``;
* a one-vs-all binarisation (``positive``: +1 for the listed raw labels, -1 for every other), e.g.
  ``usps-1vsall``;
* generated data that need no file at all (``generator``), e.g. ``synthetic`` (SCW's synthetic set,
  :func:`olkit.data.synthetic.make_scw_synthetic`).

Derived file datasets go through the same reading and caching as the files they come from; the row
selection and relabelling are applied on top, in file order.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .libsvm import pad_features, read_libsvm
from .synthetic import GENERATORS

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
    """One dataset of the papers and the files (or the generator) that form it.

    Attributes
    ----------
    name
        Catalog name (what ``load_dataset`` and ``olkit run --data`` accept).
    files
        LIBSVM file names in the data directory, concatenated row-wise in this order. For a generated
        dataset (``generator`` set) nothing is read: left empty, ``files`` is filled with one description
        of the call, ``"generated: make_scw_synthetic(noise=0.1, seed=0)"``, for listings.
    n_features
        Declared dimension; every file is padded to it. ``None``: the largest feature index present.
    paper_shape
        The paper(s) and table giving the dataset's size, and that size.
    source
        Which version of the data the files are and where they come from.
    notes
        Differences from the paper's version, and anything a user of the numbers should know.
    bundled
        Whether the files ship inside the package. Generated datasets need nothing outside the package and
        are always marked bundled.
    row_normalize
        Scale every example to unit Euclidean norm after loading (the preprocessing under which the
        paper's numbers are reproduced; stated in ``notes``). Sparse rows stay sparse.
    classes
        Derived subset: keep only the rows whose raw label is one of these (in file order). ``None``: all.
    positive
        Derived one-vs-all binarisation: the label becomes +1 where the raw label is one of these, -1
        everywhere else (applied after ``classes``; every label in ``positive`` must then be in
        ``classes``). ``None``: labels stay as written in the files.
    generator
        Name of a function in :data:`olkit.data.synthetic.GENERATORS` that makes the data instead of any
        file, called with ``generator_kwargs``; it returns a dense ``X`` and labels, which are then
        loaded like file data (CSR float64, float64 labels). ``None``: the data come from ``files``.
    generator_kwargs
        Keyword arguments of ``generator`` as ``(name, value)`` pairs (a tuple, so the spec stays hashable
        and immutable); :attr:`generator_params` gives them as a dict.

    Raises ``ValueError`` (on construction) for an unknown generator, generator arguments without a
    generator, empty ``classes`` or ``positive``, or a ``positive`` label that ``classes`` removes.
    """

    name: str
    files: tuple[str, ...]
    n_features: int | None
    paper_shape: str
    source: str
    notes: str
    bundled: bool = False
    row_normalize: bool = False
    classes: tuple[float, ...] | None = None
    positive: tuple[float, ...] | None = None
    generator: str | None = None
    generator_kwargs: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self):
        for field in ("classes", "positive"):
            value = getattr(self, field)
            if value is not None:
                value = tuple(value)
                if not value:
                    raise ValueError(f"dataset {self.name!r}: {field} must list at least one raw label (or be None)")
                object.__setattr__(self, field, value)
        if self.classes is not None and self.positive is not None:
            dropped = [v for v in self.positive if v not in self.classes]
            if dropped:
                raise ValueError(
                    f"dataset {self.name!r}: positive label(s) {_label_list(np.asarray(dropped, float))} "
                    f"are not among classes {_label_list(np.asarray(self.classes, float))}"
                )
        object.__setattr__(self, "generator_kwargs", tuple((str(k), v) for k, v in self.generator_kwargs))
        if self.generator is None:
            if self.generator_kwargs:
                raise ValueError(f"dataset {self.name!r}: generator_kwargs given without a generator")
            return
        if self.generator not in GENERATORS:
            raise ValueError(
                f"dataset {self.name!r}: unknown generator {self.generator!r}; "
                f"valid generators: {', '.join(sorted(GENERATORS))}"
            )
        if not self.files:
            object.__setattr__(self, "files", (f"generated: {self.generator_call}",))
        object.__setattr__(self, "bundled", True)

    @property
    def generator_params(self) -> dict[str, Any]:
        """``generator_kwargs`` as a dict (empty for file datasets)."""
        return dict(self.generator_kwargs)

    @property
    def generator_call(self) -> str | None:
        """The generator call as text, e.g. ``"make_scw_synthetic(noise=0.1, seed=0)"``; ``None`` for files."""
        if self.generator is None:
            return None
        args = ", ".join(f"{k}={v!r}" for k, v in self.generator_kwargs)
        return f"{self.generator}({args})"

    @property
    def derivation(self) -> str | None:
        """How the data are derived, in words (generator, row subset, binarisation); ``None`` if as read."""
        parts = []
        if self.generator is not None:
            parts.append(f"generated by {self.generator_call}")
        if self.classes is not None:
            parts.append(f"rows whose raw label is in {{{_label_list(np.asarray(self.classes, float))}}}")
        if self.positive is not None:
            parts.append(f"label +1 where the raw label is in {{{_label_list(np.asarray(self.positive, float))}}}, else -1")
        return "; ".join(parts) or None


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
        DatasetSpec(
            "cod-rna",
            ("cod-rna.train.libsvm.bz2",),
            8,
            "SCW Tab.2: codrna 59535 x 8 (this file); Ahpatron Tab.1: 271617 x 8 (train + test)",
            "LIBSVM cod-rna, training part, unscaled (JunfLi-TJU/ACML2021-Journal-Track classification/cod-rna.train)",
            "SCW's codrna exactly. Only the 59,535-row training part: the Ahpatron paper used train + test "
            "(271,617 rows), whose test part could not be obtained, so Ahpatron numbers on it are on 22 % of "
            "the paper's stream (same class ratio 1:2).",
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
            "(1..10) as in LIBSVM's usps, but the row order may differ. For SCW's '1 vs all' digit 1 is label 2 "
            "(catalog entry 'usps-1vsall').",
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
            "SCW's 'mnist 1 vs 2' needs the 60000-image training set, which is not available ('mnist-1vs2' is a "
            "smaller stand-in taken from this file).",
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
        # --- SCW (ICML 2012) Table 2: synthetic and derived binary datasets -------------------------------
        DatasetSpec(
            "synthetic",
            (),
            20,
            "SCW Tab.2: 5000 x 20",
            "Generated by olkit.data.make_scw_synthetic (ALGORITHMS.md C15): the synthetic data 'described in "
            "Crammer et al. 2008', noise-free",
            "[UNCERTAIN] The original description (Crammer, Dredze, Pereira 2008) was not available: (x1, x2) "
            "is a 45-degree rotated Gaussian with axis stds s_long=1, s_short=0.1, x3..x20 are i.i.d. N(0, 2) "
            "(variance), y = sign(-sin45 x1 + cos45 x2). These constants are placeholders, so mistake rates are "
            "not directly comparable with SCW Table 3. Noise-free: linearly separable through the origin. "
            "Labels are -1/+1.",
            generator="make_scw_synthetic",
            generator_kwargs=(("n_samples", 5000), ("n_features", 20), ("noise", 0.0), ("seed", 0)),
        ),
        DatasetSpec(
            "synthetic-noise",
            (),
            20,
            "SCW Tab.2: 5000 x 20",
            "Generated by olkit.data.make_scw_synthetic (ALGORITHMS.md C15) with label noise 0.1, as SCW's "
            "'0.1 noise' synthetic set",
            "[UNCERTAIN] Same placeholder constants as 'synthetic' (see there), and the same X (same seed); each "
            "label flipped independently with probability 0.1, and mistakes are counted against the flipped "
            "labels. Not directly comparable with SCW Table 3. Labels are -1/+1.",
            generator="make_scw_synthetic",
            generator_kwargs=(("n_samples", 5000), ("n_features", 20), ("noise", 0.1), ("seed", 0)),
        ),
        DatasetSpec(
            "usps-1vsall",
            ("usps.train.libsvm.bz2",),
            256,
            "SCW Tab.2: 7291 x 256 (1 vs all)",
            "The 'usps' entry's file (USPS 7291-image training set, labels digit + 1), binarised one-vs-all",
            "Digit 1 -> +1, all other digits -> -1. The file's raw labels are digit + 1 (1..10, LIBSVM's usps "
            "convention, MANIFEST 'label = digit+1'), so digit 1 is raw label 2 and raw label 1 is digit 0; the "
            "class sizes confirm it (raw 1: 1194, raw 2: 1005 = the zeros and ones of USPS zip.train). "
            "1005 positives, 6286 negatives. Row order may differ from LIBSVM's usps (see 'usps').",
            positive=(2,),
        ),
        DatasetSpec(
            "mnist-1vs2",
            ("mnist.test.libsvm.bz2",),
            784,
            "SCW Tab.2: 14867 x 784",
            "The 'mnist' entry's file (MNIST t10k, labels = digits 0..9), rows of digits 1 and 2 only",
            "NOT the paper's data: built from the 10,000-example MNIST *test* file, giving 2167 examples "
            "(1135 ones, 1032 twos), whereas SCW's 14,867 examples come from the 70,000-image MNIST (the 60k "
            "training set is not available here); numbers are not directly comparable with the paper's. "
            "Digit 1 -> -1, digit 2 -> +1 (the smaller label is -1, as binary_labels does). Padded to the 784 "
            "pixels of SCW's table (the file's largest feature index is 778; the extra columns are empty).",
            classes=(1, 2),
            positive=(2,),
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
        Generated datasets too are returned as CSR, like every other.
    y : ndarray of float64, shape (n_examples,)
        Raw labels as written in the files (see :func:`binary_labels`), except for derived datasets: -1/+1
        where the entry binarises (``positive``) and for generated data.

    Loaded data are cached in-process (keyed by the resolved files, their modification times and
    ``n_features``, or by the generator's arguments); each call returns fresh copies, so callers may modify
    what they get. Derived datasets select and relabel rows of the cached file data.

    Raises
    ------
    ValueError
        Unknown name that is not a file (the message lists the catalog), a catalog dataset whose files
        are neither bundled nor in ``OLKIT_DATA``, or unreadable data (see :func:`read_libsvm`).
    """
    name, files, width = _resolve(name_or_path, n_features)
    X, y = _load_shared(name, files, width)
    X = X.copy()
    spec = CATALOG.get(name)
    if spec is not None and spec.row_normalize:
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        X = sp.csr_matrix(sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X)
    return X, y.copy()


def dataset_info(name_or_path: str | os.PathLike) -> dict:
    """Describe a dataset: size, classes, files and how it relates to the paper's version.

    Loads the data (through the same cache as :func:`load_dataset`). ``label_counts`` maps each raw
    label (an ``int`` when integral) to its number of examples, after any derivation; ``paper_shape``,
    ``source``, ``notes`` and ``derivation`` are ``None`` for a file that is not in the catalog (and
    ``derivation`` for a catalog entry read as it is). ``files`` is empty for generated data.
    """
    name, files, width = _resolve(name_or_path, None)
    X, y = _load_shared(name, files, width)
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
        "derivation": spec.derivation if spec else None,
    }


def list_datasets() -> list[dict]:
    """Every catalog entry with where its files are, without loading them.

    ``availability`` is ``"bundled"`` (all files ship with olkit; generated datasets count as bundled),
    ``"OLKIT_DATA"`` (all found, some in the ``OLKIT_DATA`` directory) or ``"missing"``; ``paths`` holds
    the files found and ``missing_files`` the names not found. ``derivation`` says how a derived or
    generated entry is made (``None`` for the others).
    """
    entries = []
    for spec in CATALOG.values():
        found = [] if spec.generator is not None else [(file, *_find_file(spec, file)) for file in spec.files]
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
                "derivation": spec.derivation,
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
        if not os.path.exists(name):  # a directory is reported as such by read_libsvm
            raise ValueError(
                f"unknown dataset {name!r}: not a catalog name and no such file. "
                f"Valid names: {', '.join(sorted(CATALOG))}; or give the path of a LIBSVM file"
            )
        return name, (_stat(name),), n_features
    width = n_features if n_features is not None else spec.n_features
    if spec.generator is not None:
        return name, (), width
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


def _load_shared(name: str, files: tuple[tuple[str, int, int], ...], width: int | None) -> tuple[sp.csr_matrix, np.ndarray]:
    """The data of ``_resolve``'s result, derived as the catalog entry says. May share cached arrays.

    Generated entries come from :func:`_generate`, file entries from :func:`_read_files`; then the rows
    are selected (``classes``) and relabelled (``positive``), which makes new arrays.
    """
    spec = CATALOG.get(name)
    if spec is not None and spec.generator is not None:
        X, y = _generate(spec.generator, spec.generator_kwargs)
        X = pad_features(X, width, source=f"dataset {name!r}")
    else:
        X, y = _read_files(files, width)
    if spec is None or (spec.classes is None and spec.positive is None):
        return X, y
    if spec.classes is not None:
        keep = np.isin(y, np.asarray(spec.classes, dtype=np.float64))
        if not keep.any():
            raise ValueError(
                f"dataset {name!r}: no example has a raw label in {{{_label_list(np.asarray(spec.classes, float))}}}; "
                f"the labels present are {_label_list(np.unique(y))}"
            )
        X, y = X[keep], y[keep]
    if spec.positive is not None:
        y = np.where(np.isin(y, np.asarray(spec.positive, dtype=np.float64)), 1.0, -1.0)
    return X, y


@functools.lru_cache(maxsize=8)
def _generate(generator: str, kwargs: tuple[tuple[str, Any], ...]) -> tuple[sp.csr_matrix, np.ndarray]:
    """Run a generator of :data:`GENERATORS` and convert its output like file data. Cached (shared arrays)."""
    X, y = GENERATORS[generator](**dict(kwargs))
    X = sp.csr_matrix(np.asarray(X, dtype=np.float64))
    y = np.asarray(y, dtype=np.float64)
    return X, y


def _label_value(value: float) -> int | float:
    """A raw label as ``int`` when integral (labels are nearly always small integers), else ``float``."""
    return int(value) if float(value).is_integer() else float(value)


def _label_list(classes: np.ndarray, limit: int = 20) -> str:
    """The labels for an error message, e.g. ``"1, 2, 3"`` (at most ``limit`` of them)."""
    shown = ", ".join(str(_label_value(v)) for v in classes[:limit])
    return shown + (", ..." if len(classes) > limit else "")
