"""Example weights: ``sample_weight`` and the ``class_weight`` option, checked and combined into one weight per
example (docs/algorithms/options.md#weights).

The weight of example t is s_t = sample_weight[t] · class_weight[y_t] (scikit-learn's product). What a weight
does to a round is each algorithm's and is written on its page (section *Weights*); two things hold for
every algorithm: s_t = 1 everywhere is the unweighted learner bit for bit, and s_t = 0 means the example is
predicted (its mistake counts in the online mistake rate) but not learned from.
"""

import numbers

import numpy as np

BALANCED = "balanced"


def check_sample_weight(sample_weight, n, algorithm):
    """``sample_weight`` as an (n,) float64 array (None: ones; a number: that weight for every example).
    ValueError naming the entry unless every weight is a finite number >= 0."""
    if sample_weight is None:
        return np.ones(n)
    if isinstance(sample_weight, (bool, np.bool_)):
        raise ValueError(f"{algorithm}: sample_weight must be numbers, got a boolean")
    if isinstance(sample_weight, numbers.Real):
        sample_weight = np.full(n, sample_weight, dtype=np.float64)
    try:
        arr = np.asarray(sample_weight)
    except Exception as exc:  # noqa: BLE001  (a ragged list and the like)
        raise ValueError(f"{algorithm}: sample_weight must be a 1-d array of n = {n} numbers ({exc})") from None
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise ValueError(f"{algorithm}: sample_weight must be numbers, got an array of dtype {arr.dtype}")
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"{algorithm}: sample_weight.shape == {arr.shape}, expected ({n},): one weight per example of X"
        )
    arr = np.array(arr, dtype=np.float64)  # a copy: the caller's array is never changed
    bad = np.flatnonzero(~(np.isfinite(arr) & (arr >= 0.0)))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{algorithm}: sample_weight[{i}] = {float(arr[i])!r}; every weight must be a finite number >= 0 "
            f"({bad.size} entr{'y is' if bad.size == 1 else 'ies are'} not)"
        )
    return arr


def class_weights(class_weight, classes, y, algorithm, whole_stream):
    """The weight of each class of ``classes`` (an array, 1 for a class a dict leaves out), or None for
    ``class_weight=None``. "balanced" is n / (K · n_c) over ``y`` (scikit-learn's formula), which must hold
    the whole stream (``whole_stream``: the call starts the model, as ``fit`` does); a class absent from y
    gets weight 1 there. ValueError for a dict key that is not a class."""
    if class_weight is None:
        return None
    if isinstance(class_weight, str):  # "balanced" (validated)
        if not whole_stream:
            raise ValueError(
                f'{algorithm}: class_weight="balanced" needs the labels of the whole stream, and this call '
                "continues a model (partial_fit, or evaluate_online with reset=False); compute the weights "
                'once with sklearn.utils.class_weight.compute_class_weight("balanced", classes=..., y=...) '
                "on a large enough sample of labels and pass them as a dict {label: weight}"
            )
        codes = np.searchsorted(classes, y)
        counts = np.bincount(codes, minlength=len(classes)).astype(np.float64)
        out = np.ones(len(classes))
        present = counts > 0
        out[present] = len(y) / (np.count_nonzero(present) * counts[present])
        return out
    known = {(c.item() if isinstance(c, np.generic) else c) for c in classes}
    unknown = [k for k in class_weight if (k.item() if isinstance(k, np.generic) else k) not in known]
    if unknown:
        shown = ", ".join(map(repr, unknown[:5]))
        raise ValueError(
            f"{algorithm}: class_weight names label(s) {shown} that are not among the classes "
            f"({', '.join(map(str, sorted(known, key=str)[:10]))})"
        )
    out = np.ones(len(classes))
    for k, w in class_weight.items():
        out[np.searchsorted(classes, k)] = float(w)
    return out


def example_weights(learner, y, sample_weight, whole_stream):
    """s_t = sample_weight[t] · class_weight[y_t] for each example of a call: an (n,) float64 array (ones
    for an unweighted call). ``y``: the validated labels (a 2-d indicator matrix for multi-label data, where
    ``class_weight`` is refused)."""
    n = y.shape[0]
    weights = check_sample_weight(sample_weight, n, learner.algorithm_name)
    if learner.class_weight is None:
        return weights
    if y.ndim == 2:
        raise ValueError(
            f"{learner.algorithm_name}: class_weight applies to binary and multiclass labels, not to multi-label "
            "data (a row has several labels); weight the examples with sample_weight"
        )
    per_class = class_weights(learner.class_weight, learner.classes_, y, learner.algorithm_name, whole_stream)
    return weights * per_class[np.searchsorted(learner.classes_, y)]


__all__ = ["BALANCED", "check_sample_weight", "class_weights", "example_weights"]
