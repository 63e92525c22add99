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

__version__ = "0.1.0"

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


def __getattr__(name):
    if name in _EXPORTS:
        module, attr = _EXPORTS[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'olkit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
