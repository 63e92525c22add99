"""Synthetic data for the SCW (ICML 2012) experiments.

>>> from olkit.data import make_scw_synthetic
>>> X, y = make_scw_synthetic(n_samples=1000, noise=0.1, seed=3)
>>> X.shape, X.dtype, y.dtype
((1000, 20), dtype('float64'), dtype('int64'))
>>> sorted(set(y.tolist()))
[-1, 1]

The catalog entries ``synthetic`` and ``synthetic-noise`` (see :mod:`olkit.data.catalog`) are this
generator with fixed arguments; :data:`GENERATORS` is the table through which the catalog finds it by name.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["make_scw_synthetic", "GENERATORS"]

_SIN45 = _COS45 = math.sqrt(0.5)


def make_scw_synthetic(
    n_samples: int = 5000,
    n_features: int = 20,
    noise: float = 0.0,
    s_long: float = 1.0,
    s_short: float = 0.1,
    noise_var: float = 2.0,
    seed=0,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw the SCW paper's synthetic data set ("described in Crammer et al. 2008";
    docs/algorithms/evaluation.md#synthetic-data).

    **[UNCERTAIN]** The original text of Crammer, Dredze, Pereira (2008) was not available; the structure
    below is recalled from that paper and from AROW (2009), see docs/algorithms/evaluation.md#synthetic-data. The
    constants that could not be checked (``s_long``, ``s_short``, ``noise_var`` and whether the last is a variance or
    a standard deviation) are parameters, and their defaults are placeholders, not the paper's values.

    Construction, for each example independently:

    * ``(x1, x2) = R_45 @ diag(s_long, s_short) @ z`` with ``z ~ N(0, I_2)`` and ``R_45`` the rotation by
      45 degrees: a zero-mean Gaussian ellipse whose long axis is the diagonal direction ``(1, 1)/sqrt(2)``;
    * ``x3 .. x_d`` i.i.d. ``N(0, noise_var)`` (``noise_var`` is the *variance*): irrelevant features;
    * ``y = sign(-sin45 * x1 + cos45 * x2)`` (a value of exactly 0 gives ``+1``): the sign of the coordinate
      along the short axis, i.e. the separator is the line through the origin parallel to the long axis.
      **Without label noise the data are linearly separable through the origin**, by
      ``w = (-sin45, cos45, 0, ..., 0)``;
    * with probability ``noise`` each label is flipped, independently ("0.1 noise" in SCW/AROW). Online
      mistake rates are then measured against the flipped labels, as presented to the learner.

    Parameters
    ----------
    n_samples
        Number of examples, an integer >= 1 (SCW Table 2: 5000).
    n_features
        Dimension d, an integer >= 2 (SCW Table 2: 20); the first two features carry the signal.
    noise
        Probability of flipping each label, 0 <= noise <= 1.
    s_long, s_short
        Standard deviations along the long and the short axis of the ellipse, both > 0 (placeholders).
    noise_var
        Variance of each irrelevant feature ``x3 .. x_d``, >= 0 (placeholder; the recalled description says 2).
    seed
        Anything :func:`numpy.random.default_rng` accepts (an int, ``None``, a ``Generator``...).

    Returns
    -------
    X : ndarray of float64, shape (n_samples, n_features)
    y : ndarray of int64, shape (n_samples,), values in {-1, +1}

    The random draws are made in a fixed order (z, then the irrelevant features, then one uniform per
    label for the flips, drawn whatever ``noise`` is), so for one seed the data with and without label
    noise have identical ``X`` and their labels differ exactly at the flipped examples.

    Raises
    ------
    ValueError
        A parameter outside its valid range (the message names it and the range).
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    n_features = _check_int("n_features", n_features, 2)
    noise = _check_real("noise", noise, 0.0, 1.0, "0 <= noise <= 1")
    s_long = _check_real("s_long", s_long, 0.0, math.inf, "s_long > 0", open_low=True)
    s_short = _check_real("s_short", s_short, 0.0, math.inf, "s_short > 0", open_low=True)
    noise_var = _check_real("noise_var", noise_var, 0.0, math.inf, "noise_var >= 0")

    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n_samples, 2))
    # R_45 @ diag(s_long, s_short), applied to every row z_i.
    rotation = np.array([[_COS45, -_SIN45], [_SIN45, _COS45]])
    mixing = rotation * np.array([s_long, s_short])
    X = np.empty((n_samples, n_features), dtype=np.float64)
    X[:, :2] = z @ mixing.T
    X[:, 2:] = math.sqrt(noise_var) * rng.standard_normal((n_samples, n_features - 2))
    flip = rng.random(n_samples) < noise

    score = -_SIN45 * X[:, 0] + _COS45 * X[:, 1]
    y = np.where(score >= 0.0, 1, -1).astype(np.int64)
    y[flip] = -y[flip]
    return X, y


# Generators a catalog entry may name (DatasetSpec.generator); each returns (X dense, y) and takes keywords.
GENERATORS = {"make_scw_synthetic": make_scw_synthetic}


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_real(name: str, value, low: float, high: float, valid: str, open_low: bool = False) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        value = float(value)
        ok = (value > low if open_low else value >= low) and value <= high
    if not ok:
        raise ValueError(f"{name} must be a finite number with {valid}, got {value!r}")
    return value
