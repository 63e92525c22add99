"""olkit — online classification: kernel (DUOL), second-order linear (SCW) and budgeted learners.

>>> import olkit
>>> X, y = olkit.load_dataset("german")
>>> res = olkit.evaluate_online(olkit.make("duol"), X, y)
>>> 0.2 < res.mistake_rate < 0.45
True

The public names are imported on first use (PEP 562), so ``import olkit.cli`` stays light and the
command line can tune the garbage collector before numba and SciPy are imported. Every module with
compiled code imports :mod:`olkit._compile` first, which chooses the numba cache directory.
"""

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
"""The version of olkit, written here only: the package metadata (pyproject.toml), ``olkit --version`` and the
header of every saved model read it."""

_EXPORTS = {
    "make": ("registry", "make"),
    "algorithms": ("registry", "names"),
    "evaluate_online": ("protocol", "evaluate_online"),
    "OnlineResult": ("protocol", "OnlineResult"),
    "load_dataset": ("data", "load_dataset"),
    "dataset_info": ("data", "dataset_info"),
    "list_datasets": ("data", "list_datasets"),
    "fetch_dataset": ("data", "fetch_dataset"),
    "save": ("persist", "save"),
    "load": ("persist", "load"),
    "SupportSetGrowthWarning": ("limits", "SupportSetGrowthWarning"),
    "UnlearnableExample": ("protocol", "UnlearnableExample"),
}

__all__ = [*_EXPORTS, "__version__"]

if TYPE_CHECKING:  # what __getattr__ imports on first use, spelled out for type checkers (tests/test_packaging.py)
    from .data import dataset_info as dataset_info
    from .data import fetch_dataset as fetch_dataset
    from .data import list_datasets as list_datasets
    from .data import load_dataset as load_dataset
    from .limits import SupportSetGrowthWarning as SupportSetGrowthWarning
    from .persist import load as load
    from .persist import save as save
    from .protocol import OnlineResult as OnlineResult
    from .protocol import UnlearnableExample as UnlearnableExample
    from .protocol import evaluate_online as evaluate_online
    from .registry import make as make
    from .registry import names as algorithms  # noqa: F401  (olkit.algorithms)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module, attr = _EXPORTS[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'olkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
