"""olkit — online classification: kernel (DUOL), second-order linear (SCW) and budgeted learners.

>>> import olkit
>>> X, y = olkit.load_dataset("german")
>>> res = olkit.evaluate_online(olkit.make("duol"), X, y)
>>> 0.2 < res.mistake_rate < 0.45
True
"""
from . import _compile  # noqa: F401  (chooses the numba cache directory before numba compiles anything)
from .data import load_dataset, dataset_info, list_datasets
from .protocol import OnlineResult, evaluate_online
from .registry import make, names as algorithms

__version__ = "0.1.0"

__all__ = ["make", "algorithms", "evaluate_online", "OnlineResult", "load_dataset", "dataset_info",
           "list_datasets", "__version__"]
