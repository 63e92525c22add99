"""Data for olkit: LIBSVM file reading and the catalog of the papers' benchmark datasets.

>>> from olkit.data import load_dataset, binary_labels
>>> X, y = load_dataset("mushrooms")          # bundled; scipy CSR float64, raw labels 1/2
>>> X.shape
(8124, 112)
>>> y_pm1, classes = binary_labels(y)         # 1 -> -1, 2 -> +1
>>> classes.tolist()
[1.0, 2.0]

Large files can be read in chunks, never whole: ``for X, y in iter_libsvm(path, chunk_size=100_000): ...``
(see :func:`iter_libsvm`). Files with 0-based feature indices: ``read_libsvm(path, zero_based=True)`` (or
``"auto"``), likewise ``load_dataset``, ``iter_libsvm`` and ``scan_libsvm``, as scikit-learn's
``load_svmlight_file``.

Datasets outside the package are found in the directory named by the environment variable ``OLKIT_DATA``
or in the download cache; a missing one is downloaded, converted and verified by SHA-256 on first use
(:mod:`olkit.data.fetch`, :func:`fetch_dataset`; ``OLKIT_DATA_OFFLINE=1`` turns that off). Any other
argument to :func:`load_dataset` is taken as the path of a LIBSVM file. A dataset with splits has one
name per split besides the whole: ``a9a`` is train + test, ``a9a.train`` and ``a9a.test`` each part.

The SCW (ICML 2012) datasets include derived and generated catalog entries (``usps-1vsall``,
``mnist-1vs2``, ``mitface``, ``mitface-histeq``, ``synthetic``, ``synthetic-noise``; see
:class:`DatasetSpec`), and the synthetic generator itself is :func:`make_scw_synthetic` (dense arrays,
labels -1/+1):

>>> X, y = load_dataset("synthetic")          # generated; CSR like every catalog dataset, labels -1/+1
>>> X.shape
(5000, 20)
"""

from .catalog import (
    CATALOG,
    DatasetSpec,
    binary_labels,
    check_labels_finite,
    dataset_info,
    equalize_histograms,
    fetch_dataset,
    list_datasets,
    load_dataset,
)
from .libsvm import iter_libsvm, read_libsvm, scan_libsvm
from .synthetic import make_scw_synthetic

__all__ = [
    "read_libsvm",
    "iter_libsvm",
    "scan_libsvm",
    "load_dataset",
    "dataset_info",
    "fetch_dataset",
    "list_datasets",
    "binary_labels",
    "check_labels_finite",
    "equalize_histograms",
    "CATALOG",
    "DatasetSpec",
    "make_scw_synthetic",
]
