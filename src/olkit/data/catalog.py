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
* values rescaled by a constant (``value_scale``), e.g. ``mitface``'s raw grey levels / 255 and
  ``mnist-1vs2-raw``'s pixel / 255 values x 255, or each example histogram-equalised
  (``equalize_histograms``), e.g. ``mitface-histeq``;
* generated data that need no file at all (``generator``), e.g. ``synthetic`` (SCW's synthetic set,
  :func:`olkit.data.synthetic.make_scw_synthetic`).

Derived file datasets go through the same reading and caching as the files they come from; the row
selection and relabelling are applied on top, in file order.

:func:`list_datasets` gives each entry's shape without loading its files: from the ``MANIFEST.json``
beside them in ``OLKIT_DATA`` (``n_examples``, ``n_features``, ``label_values`` per file, trusted only
for a file of the size it records), the derivation applied to those counts. Only the small bundled files
(no manifest) are read, and generated data generated.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .fetch import OFFLINE_ENV, DatasetUnavailable, cache_dir, fetch_file, missing_hint, offline
from .libsvm import check_zero_based, pad_features, read_libsvm
from .sources import FACTS, SOURCES
from .synthetic import GENERATORS

__all__ = [
    "DatasetSpec",
    "CATALOG",
    "load_dataset",
    "fetch_dataset",
    "dataset_info",
    "list_datasets",
    "binary_labels",
    "check_labels_finite",
    "equalize_histograms",
]

DATA_ENV = "OLKIT_DATA"
_BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"
# Bundled copies stored under a different name than in the data directory (the bundled splice is only
# the train split, so the split suffix was dropped).
_BUNDLED_NAMES = {"splice.train.libsvm.bz2": "splice.libsvm.bz2"}
_COMPRESSION_SUFFIXES = (".bz2", ".gz")
_MANIFEST = "MANIFEST.json"


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
    value_scale
        Derived values: ``(numerator, denominator)``, every feature value is multiplied by ``numerator``
        and divided by ``denominator`` after loading (``mitface``: (1, 255), the raw grey levels to
        [0, 1]; ``mnist-1vs2-raw``: (255, 1)). ``None``: values as written in the files.
    equalize_histograms
        Derived values: every example (an image) is histogram-equalised over all its features, zeros
        included (:func:`equalize_histograms`), which puts its values in [0, 1]. Densifies the rows while
        doing so: for image data, which are dense anyway.
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
    generator, empty ``classes`` or ``positive``, a ``positive`` label that ``classes`` removes, or a
    ``value_scale`` that is not two finite numbers > 0.
    """

    name: str
    files: tuple[str, ...]
    n_features: int | None
    paper_shape: str
    source: str
    notes: str
    bundled: bool = False
    row_normalize: bool = False
    value_scale: tuple[float, float] | None = None
    equalize_histograms: bool = False
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
        if self.value_scale is not None:
            scale = tuple(self.value_scale)
            if len(scale) != 2 or not all(isinstance(v, (int, float)) and np.isfinite(v) and v > 0 for v in scale):
                raise ValueError(
                    f"dataset {self.name!r}: value_scale must be (numerator, denominator), two finite "
                    f"numbers > 0, got {self.value_scale!r}"
                )
            object.__setattr__(self, "value_scale", scale)
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
        """How the data are derived, in words (generator, row subset, binarisation, value scaling, histogram
        equalisation, in the order they are applied); ``None`` if as read."""
        parts = []
        if self.generator is not None:
            parts.append(f"generated by {self.generator_call}")
        if self.classes is not None:
            parts.append(f"rows whose raw label is in {{{_label_list(np.asarray(self.classes, float))}}}")
        if self.positive is not None:
            positive = _label_list(np.asarray(self.positive, float))
            parts.append(f"label +1 where the raw label is in {{{positive}}}, else -1")
        if self.value_scale is not None:
            numerator, denominator = self.value_scale
            parts.append(
                "every value"
                + (f" x {numerator:g}" if numerator != 1 else "")
                + (f" / {denominator:g}" if denominator != 1 else "")
            )
        if self.equalize_histograms:
            parts.append("every example histogram-equalised")
        return "; ".join(parts) or None


# Files and their origins: olkit.data.sources (source, checksum, conversion of every file).
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
        DatasetSpec(
            "mitface",
            ("mitface.train.raw.libsvm.bz2",),
            361,
            "DUOL JMLR Tab.1, DUOL NIPS 2009 Tab.4 and SCW Tab.2: MITFace 6977 x 361",
            "MIT CBCL face database #1, training set: 6977 19 x 19 images (2429 faces, 4548 non-faces) as RAW "
            "grey levels 0..255, row-major (aparande/FaceDetection training.pkl); divided by 255 here",
            "Values are the raw grey levels / 255, in [0, 1]. The papers used CBCL's own svm.train.normgrey, "
            "whose images are histogram-equalised and then normalised to [0, 1] (their numbers are reproduced "
            "on equalised images: 'mitface-histeq'); no copy of it was found (MANIFEST 'missing'). Same "
            "images, labels and shape (6977 x 361), but different pixel values: equalisation spreads every "
            "image's grey levels over the whole range, removing most differences of brightness and contrast, "
            "so distances between images, the Gaussian kernel (sigma = 8) and the linear learners' margins "
            "differ, and here every learner errs 2-7 points more than in the papers (docs/reproduction). "
            "Faces are +1, non-faces -1; the file holds the faces first (orderings are random permutations, "
            "so the file order does not matter).",
            value_scale=(1, 255),
        ),
        DatasetSpec(
            "mitface-histeq",
            ("mitface.train.raw.libsvm.bz2",),
            361,
            "DUOL JMLR Tab.1, DUOL NIPS 2009 Tab.4 and SCW Tab.2: MITFace 6977 x 361",
            "The 'mitface' file (MIT CBCL face training set, raw grey levels), every image histogram-equalised "
            "to [0, 1] by olkit.data.equalize_histograms: an emulation of CBCL's svm.train.normgrey",
            "[EMULATION] CBCL describes svm.train.normgrey as histogram-equalised and normalised to [0, 1]; "
            "its exact recipe (rounding, any mask) is unknown and no copy was found, so this entry applies "
            "the textbook per-image equalisation (each pixel -> the fraction of the image's pixels at most "
            "as bright, rescaled so the darkest is 0 and the brightest 1) to the raw images. It is the "
            "version under which the papers' MITFace numbers are reproduced (see docs/reproduction: "
            "duol-binary, duol-nips2009, scw-table3); 'mitface' (raw / 255) is the data as obtained. "
            "Faces +1, non-faces -1, faces first in the file.",
            equalize_histograms=True,
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
            "LIBSVM ijcnn1 (tr + val = 49990 rows) + ijcnn1.t (91701 rows), from X-DataInitiative/tick-datasets",
            "Some entries are written as explicit ':0.0'; they are kept as stored zeros (harmless).",
        ),
        DatasetSpec(
            "codrna",
            ("cod-rna.train.libsvm.bz2",),
            8,
            "SCW Tab.2: codrna 59535 x 8",
            "LIBSVM cod-rna, training part, unscaled (JunfLi-TJU/ACML2021-Journal-Track classification/cod-rna.train)",
            "SCW's codrna exactly: LIBSVM's 59,535-row training file, 19,845 +1 / 39,690 -1 (1:2, as LIBSVM's "
            "cod-rna; not byte-compared with LIBSVM's own file). Unscaled, as LIBSVM distributes it: feature 1 "
            "lies in [-1868, 0], feature 2 in [67, 133], features 3-8 in [0.08, 0.48].",
        ),
        DatasetSpec(
            "cod-rna",
            ("cod-rna.train.libsvm.bz2",),
            8,
            "Ahpatron Tab.1: 271617 x 8 (train + test); SCW Tab.2: codrna 59535 x 8 (the train file: 'codrna')",
            "LIBSVM cod-rna, training part, unscaled (JunfLi-TJU/ACML2021-Journal-Track classification/cod-rna.train)",
            "The Ahpatron paper's name for the same file as 'codrna' (SCW's 59,535 rows exactly). Only the "
            "59,535-row training part: the Ahpatron paper used train + test (271,617 rows), whose test part "
            "could not be obtained, so Ahpatron numbers on it are on 22 % of the paper's stream (same class "
            "ratio 1:2).",
        ),
        # --- DUOL (JMLR) Table 3, multiclass ----------------------------------------------------------
        DatasetSpec(
            "usps",
            ("usps.train.libsvm.bz2",),
            256,
            "DUOL JMLR Tab.3: 7291 x 256 x 10; SCW Tab.2: 7291 x 256 (1 vs all)",
            "USPS (Hull) 7291-image training set, derived from niuers/Learning-From-Data-A-Short-Course data/usps.h5",
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
            "The 60000-image training file (mnist.train) is used by 'mnist-1vs2' (SCW's 'mnist 1 vs 2').",
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
            "The training file only, as in the paper; 'letter-all' adds the 5000-row test split (20000 rows).",
        ),
        DatasetSpec(
            "letter-all",
            ("letter.train.libsvm.bz2", "letter.test.libsvm.bz2"),
            16,
            "UCI letter: 20000 x 16 x 26 (train 15000 + test 5000); DUOL JMLR Tab.3 uses the train split ('letter')",
            "LIBSVM letter.scale (LGuitron/LIBOL-python) + its 5000-row test split rebuilt from UCI letter "
            "(R mlbench LetterRecognition, cross-checked with KEEL), scaled like letter.scale",
            "For papers that use train + test (none of the tables reproduced here does: DUOL's letter is the "
            "15,000-row train split). The test rows are the 5,000 UCI rows not in letter.train, written with "
            "letter.train's exact formatting (re-rendering letter.train that way is byte-identical), in UCI "
            "order: LIBSVM's letter.scale.t row order is unknown (irrelevant under random orderings).",
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
            "Generated by olkit.data.make_scw_synthetic (docs/algorithms/evaluation.md#synthetic-data): the "
            "synthetic data 'described in Crammer et al. 2008', noise-free",
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
            "Generated by olkit.data.make_scw_synthetic (docs/algorithms/evaluation.md#synthetic-data) with "
            "label noise 0.1, as SCW's '0.1 noise' synthetic set",
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
            ("mnist.train.libsvm.bz2", "mnist.test.libsvm.bz2"),
            784,
            "SCW Tab.2: 14867 x 784",
            "MNIST 60000 training + 10000 test images (mnist.train, mnist.test: the official IDX files as "
            "LIBSVM's mnist.scale, pixel / 255), rows of digits 1 and 2 only",
            "Digits 1 and 2 of all 70,000 MNIST images (train then test, in file order): 14,867 examples as "
            "in the paper (7,877 ones: 6,742 train + 1,135 test; 6,990 twos: 5,958 + 1,032). Digit 1 -> -1, "
            "digit 2 -> +1 (the smaller label is -1, as binary_labels does). Values are pixel / 255 (LIBSVM's "
            "mnist.scale recipe). Padded to the 784 pixels of SCW's table (the largest feature index present "
            "is 780; the border columns are always empty).",
            classes=(1, 2),
            positive=(2,),
        ),
        DatasetSpec(
            "mnist-1vs2-raw",
            ("mnist.train.libsvm.bz2", "mnist.test.libsvm.bz2"),
            784,
            "SCW Tab.2: 14867 x 784",
            "As 'mnist-1vs2' (digits 1 and 2 of MNIST train + test), values x 255: the raw grey levels 0..255 "
            "of the IDX files on LeCun's MNIST page, which SCW's footnote 2 names as its source",
            "The version behind SCW's Table 3 numbers: with linear models and Sigma_1 = I the value scale "
            "changes the second-order learners' behaviour (AROW, NHERD, NAROW err far less on pixel / 255; "
            "see docs/reproduction/scw-table3). The files hold pixel / 255 printed with 6 significant digits, "
            "so x 255 gives the grey levels to within 3e-4, not exact integers. Digit 1 -> -1, digit 2 -> +1.",
            classes=(1, 2),
            positive=(2,),
            value_scale=(255, 1),
        ),
    )
}


# --- splits: each file of a dataset with splits, alone (issue 22) ------------------------------------------
# 'a9a' is train + test (the paper's dataset), so scoring a model "on a9a" scores its training data; the
# split names give each part alone, padded to the dataset's declared width so that a model fitted on one
# split reads the other.
_SPLITS = (
    # name, file, width, what the split is, the catalog entry (or entries) holding it
    ("splice.train", "splice.train.libsvm.bz2", 60, "LIBSVM splice's 1000-row train split", "'splice' (the same rows)"),
    ("splice.test", "splice.test.libsvm.bz2", 60, "LIBSVM splice.t, 2175 rows", "none"),
    ("w7a.train", "w7a.train.libsvm.bz2", 300, "LIBSVM w7a, 24692 rows", "'w7a' (the same rows)"),
    ("w7a.test", "w7a.test.libsvm.bz2", 300, "LIBSVM w7a.t, 25057 rows", "none"),
    ("w8a.train", "w8a.train.libsvm.bz2", 300, "LIBSVM w8a, 49749 rows", "'w8a' (the same rows)"),
    ("w8a.test", "w8a.test.libsvm.bz2", 300, "LIBSVM w8a.t, 14951 rows", "none"),
    ("a9a.train", "a9a.train.libsvm.bz2", 123, "LIBSVM a9a, 32561 rows", "'a9a' (train + test)"),
    (
        "a9a.test",
        "a9a.test.libsvm.bz2",
        123,
        "LIBSVM a9a.t, 16281 rows (feature 123 never used, padded)",
        "'a9a' (train + test)",
    ),
    ("ijcnn1.train", "ijcnn1.train.libsvm.bz2", 22, "LIBSVM ijcnn1 tr + val, 49990 rows", "'ijcnn1' (train + test)"),
    ("ijcnn1.test", "ijcnn1.test.libsvm.bz2", 22, "LIBSVM ijcnn1.t, 91701 rows", "'ijcnn1' (train + test)"),
    ("usps.train", "usps.train.libsvm.bz2", 256, "USPS 7291-image training set", "'usps' (the same rows)"),
    ("usps.test", "usps.test.libsvm.bz2", 256, "USPS 2007-image test set", "none"),
    (
        "mnist.train",
        "mnist.train.libsvm.bz2",
        784,
        "MNIST 60000 training images, pixel / 255",
        "'mnist-1vs2' (digits 1 and 2 of train + test)",
    ),
    (
        "mnist.test",
        "mnist.test.libsvm.bz2",
        784,
        "MNIST 10000 test images, pixel / 255",
        "'mnist' (the same rows, 778 features: the largest index present)",
    ),
    ("dna.train", "dna.train.libsvm.bz2", 180, "LIBSVM dna.scale, 2000 rows", "'dna' (the same rows)"),
    ("dna.test", "dna.test.libsvm.bz2", 180, "LIBSVM dna.scale.t, 1186 rows", "none"),
    ("letter.train", "letter.train.libsvm.bz2", 16, "LIBSVM letter.scale, 15000 rows", "'letter' (the same rows)"),
    (
        "letter.test",
        "letter.test.libsvm.bz2",
        16,
        "letter's 5000-row test split, rebuilt from UCI letter",
        "'letter-all' (train + test)",
    ),
    (
        "dorothea.train",
        "dorothea.train.libsvm.bz2",
        100000,
        "DOROTHEA training part, 800 rows, raw binary",
        "'dorothea' (train + valid, unit-norm rows) and 'dorothea-raw'",
    ),
    (
        "dorothea.valid",
        "dorothea.valid.libsvm.bz2",
        100000,
        "DOROTHEA validation part, 350 rows, raw binary",
        "'dorothea' (train + valid, unit-norm rows) and 'dorothea-raw'",
    ),
)
CATALOG.update(
    (
        name,
        DatasetSpec(
            name,
            (file,),
            width,
            f"split of {name.split('.')[0]}: {what}",
            SOURCES[file].source,
            f"The file {file} alone, as it is (no derivation), padded to {width} features, so that a model "
            f"fitted on one split of {name.split('.')[0]} reads another. In the catalog's paper datasets: {holder}.",
            bundled=name == "splice.train",
        ),
    )
    for name, file, width, what, holder in _SPLITS
)


def fetch_dataset(name: str, *, quiet: bool = False) -> list[tuple[str, Path, str]]:
    """Make the files of the catalog dataset ``name`` present, downloading the missing ones.

    Returns one ``(file, path, how)`` per file, ``how`` being ``"downloaded"`` or where it already was
    (``"bundled"``, ``"OLKIT_DATA"``, ``"cache"``); empty for generated data. Each download is announced
    by one line on stderr (where it went) unless ``quiet``. Raises ``ValueError`` for an
    unknown name, :class:`~olkit.data.fetch.DatasetUnavailable` when a file cannot be downloaded (one
    line: what to download, from where, where to put it), ``ValueError`` for a checksum mismatch.
    """
    spec = CATALOG.get(name)
    if spec is None:
        raise ValueError(f"unknown dataset {name!r}; valid names: {', '.join(sorted(CATALOG))}")
    if spec.generator is not None:
        return []
    found = [_find_file(spec, file) for file in spec.files]
    missing = [file for file, (path, _) in zip(spec.files, found) if path is None]
    paths: list = [path for path, _ in found]  # every one a Path once the missing ones are fetched
    if missing:
        paths = _fetch_missing(name, spec, paths, missing, True, quiet=quiet)
    return [
        (file, path, "downloaded" if file in missing else where)
        for file, path, (_, where) in zip(spec.files, paths, found)
    ]


def load_dataset(
    name_or_path: str | os.PathLike,
    n_features: int | None = None,
    zero_based: bool | str = False,
    download: bool | None = None,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Load a catalog dataset by name, or a LIBSVM file by path.

    Parameters
    ----------
    name_or_path
        A key of :data:`CATALOG` (which wins over a file of the same name in the working directory), or
        the path of a LIBSVM file (plain, ``.gz`` or ``.bz2``).
    n_features
        Number of columns, overriding the catalog's declared dimension; must be at least the largest
        feature index present.
    zero_based
        For a file given by path: its feature indices start at 0 (``True``), at 1 (``False``, LIBSVM's
        convention) or ``"auto"`` (0-based if some index is 0), as in scikit-learn's
        ``load_svmlight_file`` (see :func:`olkit.data.read_libsvm`). Catalog files are 1-based: a catalog
        name with anything but ``False`` is an error.

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64, shape (n_examples, n_features)
        Generated datasets too are returned as CSR, like every other.
    y : ndarray of float64, shape (n_examples,)
        Raw labels as written in the files (see :func:`binary_labels`), except for derived datasets: -1/+1
        where the entry binarises (``positive``) and for generated data.

    Loaded data are cached in-process (keyed by the resolved files, their modification times,
    ``n_features`` and ``zero_based``, or by the generator's arguments); each call returns fresh copies, so
    callers may modify what they get. Derived datasets select and relabel rows of the cached file data.

    Raises
    ------
    ValueError
        Unknown name that is not a file (the message lists the catalog), a catalog dataset whose files
        are neither bundled nor in ``OLKIT_DATA`` nor in the download cache and cannot be downloaded
        (:class:`~olkit.data.fetch.DatasetUnavailable`: one line saying what to download, from where and
        where to put it), a download whose checksum does not match, unreadable data (see
        :func:`read_libsvm`), a ``zero_based`` other than ``False``, ``True``, ``"auto"``, or one that is not
        ``False`` for a catalog name.
    """
    name, files, width, zero_based = _resolve(name_or_path, n_features, zero_based, download)
    X, y = _load_shared(name, files, width, zero_based)
    X = X.copy()
    spec = CATALOG.get(name)
    if spec is not None and spec.value_scale is not None:
        numerator, denominator = spec.value_scale
        if numerator != 1:
            X.data *= numerator
        X.data /= denominator
    if spec is not None and spec.equalize_histograms:
        X = equalize_histograms(X)
    if spec is not None and spec.row_normalize:
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        # each row times 1/‖row‖, in place: the numbers of diag(1/‖row‖) @ X, while the product's output
        # lists each row's indices in reverse (dorothea's rows then had to be sorted again by every learner)
        X.data *= np.repeat(1.0 / np.where(norms > 0, norms, 1.0), np.diff(X.indptr))
    return X, y.copy()


def dataset_info(name_or_path: str | os.PathLike, zero_based: bool | str = False) -> dict:
    """Describe a dataset: size, classes, files and how it relates to the paper's version.

    Loads the data (through the same cache as :func:`load_dataset`; ``zero_based`` as there). ``label_counts``
    maps each raw label (an ``int`` when integral) to its number of examples, after any derivation;
    ``paper_shape``, ``source``, ``notes`` and ``derivation`` are ``None`` for a file that is not in the
    catalog (and ``derivation`` for a catalog entry read as it is). ``files`` is empty for generated data.
    """
    name, files, width, zero_based = _resolve(name_or_path, None, zero_based)
    X, y = _load_shared(name, files, width, zero_based)
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
    """Every catalog entry with where its files are and its shape, without loading the files.

    ``availability`` is ``"bundled"`` (all files ship with olkit; generated datasets count as bundled),
    ``"OLKIT_DATA"`` (all found, some in the ``OLKIT_DATA`` directory), ``"cache"`` (all found, some in the
    download cache and none in ``OLKIT_DATA``) or ``"missing"``; ``paths`` holds the files found and
    ``missing_files`` the names not found; ``fetchable`` says whether olkit can download every missing
    file (:mod:`olkit.data.fetch`; True when nothing is missing). ``derivation`` says how a derived or
    generated entry is made (``None`` for the others). ``shape`` is the data's actual size as loading
    would give it, ``{"n_examples", "n_features", "n_classes"}``, beside the paper's (``paper_shape``):
    from the ``MANIFEST.json`` of the data directory (see the module docstring), else from the catalog's own
    record of the file (:data:`olkit.data.sources.FACTS`, for a file of the recorded size), from the small
    bundled files themselves, or from the generator; ``None`` where none of these knows (a file that is
    missing, or of another size than recorded). ``shape_from`` says which (``"MANIFEST.json"``,
    ``"catalog"``, ``"bundled files"``, ``"generated"``, or ``None``; joined by ``" + "`` when mixed).
    """
    entries = []
    for spec in CATALOG.values():
        found = [] if spec.generator is not None else [(file, *_find_file(spec, file)) for file in spec.files]
        missing = [file for file, path, _ in found if path is None]
        if missing:
            availability = "missing"
        elif all(where == "bundled" for _, _, where in found):
            availability = "bundled"
        elif any(where == DATA_ENV for _, _, where in found):
            availability = DATA_ENV
        else:
            availability = "cache"
        shape, shape_from = (None, None) if missing else _known_shape(spec, found)
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
                "fetchable": all(file in SOURCES and SOURCES[file].fetchable for file in missing),
                "derivation": spec.derivation,
                "shape": shape,
                "shape_from": shape_from,
            }
        )
    return entries


def _known_shape(spec: DatasetSpec, found) -> tuple[dict | None, str | None]:
    """(shape, where it comes from) of :func:`list_datasets` for an entry whose files were all ``found``
    (``(file, path, where)`` triples); (None, None) if a file is neither bundled nor in a manifest."""
    if spec.generator is not None:
        X, y = _generate(spec.generator, spec.generator_kwargs)
        width = spec.n_features if spec.n_features is not None else X.shape[1]
        return {"n_examples": X.shape[0], "n_features": width, "n_classes": int(np.unique(y).size)}, "generated"
    facts, sources = [], set()
    fact: dict | None
    for _, path, where in found:
        if where == "bundled":
            fact, source = _file_facts(path), "bundled files"
        else:
            fact, source = _manifest_facts(path), _MANIFEST
            if fact is None:
                fact, source = _catalog_facts(path), "catalog"
        if fact is None:
            return None, None
        facts.append(fact)
        sources.add(source)
    counts: dict[float, int] = {}
    for fact in facts:
        for label, count in fact["label_counts"].items():
            counts[label] = counts.get(label, 0) + count
    if spec.classes is not None:
        counts = {label: c for label, c in counts.items() if label in spec.classes}
    if spec.positive is not None:
        positives = sum(c for label, c in counts.items() if label in spec.positive)
        counts = {1.0: positives, -1.0: sum(counts.values()) - positives}
    width = spec.n_features if spec.n_features is not None else max(fact["n_features"] for fact in facts)
    shape = {
        "n_examples": sum(counts.values()),
        "n_features": width,
        "n_classes": sum(1 for c in counts.values() if c > 0),
    }
    return shape, " + ".join(sorted(sources))


def _manifest_facts(path: Path) -> dict | None:
    """``{"n_features", "label_counts"}`` of a data file from the ``MANIFEST.json`` beside it, if that
    manifest describes a file of this name and of exactly this size; else ``None``."""
    manifest = path.parent / _MANIFEST
    if not manifest.is_file():
        return None
    size = path.stat().st_size
    for entry in _read_manifest(str(manifest), manifest.stat().st_mtime_ns):
        if entry.get("file") == path.name and entry.get("size_bytes") == size:
            try:
                return {
                    "n_features": int(entry["n_features"]),
                    "label_counts": {float(k): int(v) for k, v in entry["label_values"].items()},
                }
            except (KeyError, TypeError, ValueError):
                return None
    return None


def _catalog_facts(path: Path) -> dict | None:
    """``{"n_features", "label_counts"}`` of a catalog file from the catalog's own record
    (:data:`olkit.data.sources.FACTS`), for a file of the catalog's name and exact size (as downloaded and
    verified by olkit.data.fetch); else ``None``."""
    source, fact = SOURCES.get(path.name), FACTS.get(path.name)
    if source is None or fact is None or path.stat().st_size != source.size:
        return None
    n_features, counts = fact
    return {"n_features": n_features, "label_counts": {float(k): int(v) for k, v in counts.items()}}


@functools.lru_cache(maxsize=4)
def _read_manifest(path: str, mtime_ns: int) -> tuple[dict, ...]:
    """The ``files`` entries of a ``MANIFEST.json`` (cached per modification time); () if unreadable."""
    try:
        with open(path) as fh:
            files = json.load(fh).get("files", [])
    except (OSError, ValueError, AttributeError):
        return ()
    return tuple(entry for entry in files if isinstance(entry, dict))


def _file_facts(path: Path) -> dict:
    """``{"n_features", "label_counts"}`` of a (small, bundled) file, read through the parse cache."""
    X, y = read_libsvm(path)
    labels, counts = np.unique(y, return_counts=True)
    return {"n_features": X.shape[1], "label_counts": {float(v): int(c) for v, c in zip(labels, counts)}}


def equalize_histograms(X) -> sp.csr_matrix:
    """Histogram-equalise every row of ``X`` over all its ``d`` values, zeros included (the textbook
    equalisation of an image, continuous instead of 256 grey levels): a value v becomes
    (c(v) - c_min) / (d - c_min), where c(v) counts the row's values <= v and c_min = c(the row's smallest
    value). The darkest pixels become 0, the brightest 1, and the grey levels in between are spread
    by their rank, whatever the image's contrast; a constant row becomes all 0. Returns a new CSR matrix.
    """
    A = X.toarray() if sp.issparse(X) else np.array(X, dtype=np.float64)
    d = A.shape[1]
    out = np.zeros_like(A, dtype=np.float64)
    for i, row in enumerate(A):
        ordered = np.sort(row)
        below = np.searchsorted(ordered, row, side="right")  # c(v) for every value of the row
        c_min = np.searchsorted(ordered, ordered[0], side="right")
        if c_min < d:
            out[i] = (below - c_min) / (d - c_min)
    return sp.csr_matrix(out)


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


def _resolve(
    name_or_path, n_features: int | None, zero_based: bool | str = False, download: bool | None = None
) -> tuple[str, tuple[tuple[str, int, int], ...], int | None, bool | str]:
    """Turn a name or path into ``(name, files, width, zero_based)``, the arguments of :func:`_load_shared`.

    Each file is ``(path, mtime_ns, size)`` so that the cache notices a file that changed on disk. Missing
    catalog files are fetched (``download``: see :func:`load_dataset`).
    """
    zero_based = check_zero_based(zero_based)
    name = os.fspath(name_or_path)
    spec = CATALOG.get(name)
    if spec is None:
        if not os.path.exists(name):  # a directory is reported as such by read_libsvm
            raise ValueError(
                f"unknown dataset {name!r}: not a catalog name and no such file. "
                f"Valid names: {', '.join(sorted(CATALOG))}; or give the path of a LIBSVM file"
            )
        return name, (_stat(name),), n_features, zero_based
    if zero_based is not False:
        raise ValueError(
            f"zero_based={zero_based!r} applies to a LIBSVM file given by path; {name!r} is a catalog "
            "dataset, whose files are 1-based (leave zero_based=False)"
        )
    width = n_features if n_features is not None else spec.n_features
    if spec.generator is not None:
        return name, (), width, False
    found = [_find_file(spec, file)[0] for file in spec.files]
    missing = [file for file, path in zip(spec.files, found) if path is None]
    if missing:
        found = _fetch_missing(name, spec, found, missing, download)
    return name, tuple(_stat(str(path)) for path in found), width, False


def _fetch_missing(
    name: str, spec: DatasetSpec, found: list, missing: list[str], download: bool | None, quiet: bool = False
) -> list:
    """Download the ``missing`` files of ``spec`` (see :mod:`olkit.data.fetch`) and return ``found`` with their
    paths; or raise :class:`~olkit.data.fetch.DatasetUnavailable`, one line saying what to download, from
    where, and where to put it, when downloading is off or some file has no source olkit can fetch."""
    data_dir = os.environ.get(DATA_ENV)
    where = f"{DATA_ENV}={data_dir!r}" if data_dir else f"{DATA_ENV} (unset)"
    head = (
        f"dataset {name!r} needs {', '.join(missing)}, not found in {where}"
        f"{', among the bundled files' if spec.bundled else ''} nor in the download cache {cache_dir()}"
    )
    if download is None:
        download = not offline()
    unfetchable = [file for file in missing if file not in SOURCES or not SOURCES[file].fetchable]
    if not download or unfetchable:
        why = (
            f"olkit cannot download {', '.join(unfetchable)}"
            if unfetchable
            else f"downloading is off ({OFFLINE_ENV} is set)"
            if offline()
            else "downloading is off (download=False)"
        )
        raise DatasetUnavailable(f"{head}; {why}: {missing_hint(missing, None if unfetchable else name)}")
    try:
        fetched = {file: fetch_file(file, quiet=quiet) for file in missing}
    except DatasetUnavailable as exc:  # one hint for every missing file of the dataset
        raise DatasetUnavailable(
            f"{exc.reason}; dataset {name!r} needs {', '.join(missing)}: {missing_hint(missing, name)}", exc.reason
        ) from None
    return [path if path is not None else fetched[file] for file, path in zip(spec.files, found)]


def _find_file(spec: DatasetSpec, file: str) -> tuple[Path | None, str]:
    """Locate one file of ``spec``: ``(path, "bundled" | "OLKIT_DATA" | "cache")``, or ``(None, "missing")``.

    Looked for among the bundled files (bundled entries), then in ``OLKIT_DATA``, then in the download cache
    (:func:`olkit.data.fetch.cache_dir`, where fetched files go when ``OLKIT_DATA`` is unset or read-only).
    """
    if spec.bundled:
        path = _BUNDLED_DIR / _BUNDLED_NAMES.get(file, file)
        if path.is_file():
            return path, "bundled"
    data_dir = os.environ.get(DATA_ENV)
    folders = [(Path(data_dir).expanduser(), DATA_ENV)] if data_dir else []
    folders.append((cache_dir(), "cache"))
    # Users may keep the files decompressed or recompressed; read_libsvm sniffs the format.
    stem = file
    for suffix in _COMPRESSION_SUFFIXES:
        stem = stem.removesuffix(suffix)
    for folder, where in folders:
        for candidate in (file, *(stem + suffix for suffix in _COMPRESSION_SUFFIXES), stem):
            path = folder / candidate
            if path.is_file():
                return path, where
    return None, "missing"


def _stat(path: str) -> tuple[str, int, int]:
    """``(absolute path, mtime_ns, size)``: identifies a file's current content for the cache."""
    info = os.stat(path)
    return os.path.abspath(path), info.st_mtime_ns, info.st_size


@functools.lru_cache(maxsize=16)
def _read_files(
    files: tuple[tuple[str, int, int], ...], width: int | None, zero_based: bool | str = False
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Read and stack ``files`` row-wise, all padded to ``width`` (default: the widest). Cached.

    The cached arrays are shared between calls: public functions copy before handing them out.
    """
    parts = [read_libsvm(path, zero_based=zero_based) for path, _, _ in files]
    if width is None:
        width = max(X.shape[1] for X, _ in parts)
    blocks = [pad_features(X, width, source=path, zero_based=zero_based) for (X, _), (path, _, _) in zip(parts, files)]
    X = blocks[0] if len(blocks) == 1 else sp.vstack(blocks, format="csr")
    y = np.concatenate([labels for _, labels in parts])
    return X, y


def _load_shared(
    name: str, files: tuple[tuple[str, int, int], ...], width: int | None, zero_based: bool | str = False
) -> tuple[sp.csr_matrix, np.ndarray]:
    """The data of ``_resolve``'s result, derived as the catalog entry says. May share cached arrays.

    Generated entries come from :func:`_generate`, file entries from :func:`_read_files`; then the rows
    are selected (``classes``) and relabelled (``positive``), which makes new arrays.
    """
    spec = CATALOG.get(name)
    if spec is not None and spec.generator is not None:
        X, y = _generate(spec.generator, spec.generator_kwargs)
        X = pad_features(X, width, source=f"dataset {name!r}")
    else:
        X, y = _read_files(files, width, zero_based)
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
