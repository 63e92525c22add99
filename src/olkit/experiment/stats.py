"""The statistics of the reproduction pages: one paired t-test, and mean ± std over orderings.

Every comparison of two algorithms on a page is paired: both ran on the same orderings (the same
permutations of the same data), so the test is on the per-ordering differences. ``paired_ttest`` is the
only place that calls ``scipy.stats.ttest_rel``; the bold marks of a table (``best_by_ttest``), the
lower–equal–higher counts of a sweep, the Δ and p of a comparison section and the acceptance claims all read
its result.
"""

import warnings
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05
"""The significance level of every test on the pages (two-sided, 95 %)."""


@dataclass(frozen=True)
class PairedTest:
    """The result of :func:`paired_ttest` on run lists ``a`` and ``b`` (same orderings, same order)."""

    n: int
    """The number of pairs (orderings)."""
    mean_diff: float
    """The mean of ``a − b``."""
    p_value: float
    """The two-sided p of the paired t-test; NaN when it is undefined (see :func:`paired_ttest`)."""
    identical: bool
    """Every difference is exactly zero (the same runs, e.g. the same learner under two labels)."""
    a_lower: bool
    """``mean(a) < mean(b)`` (compared as means, as the pages always did)."""

    @property
    def sign(self):
        """0 for identical runs, else −1 when ``a``'s mean is lower and +1 otherwise."""
        return 0 if self.identical else (-1 if self.a_lower else 1)

    def significant(self, alpha=ALPHA):
        """p < alpha; False when p is NaN (identical runs, fewer than 2 pairs, a NaN in the runs)."""
        return bool(self.p_value < alpha)


def paired_ttest(a, b):
    """The paired two-sided t-test of run lists ``a`` and ``b`` (``scipy.stats.ttest_rel(a, b)``).

    Edge cases, all decided here:

    * **identical runs** (every ``a − b`` is 0, which includes the zero-variance, zero-mean case): p is NaN
      and ``identical`` is true — nothing to test; callers treat it as "not different" (bold in a table,
      "equal" in a sweep's count);
    * **n < 2** (one ordering): p is NaN — a t-test needs two pairs; never significant;
    * **zero variance, non-zero mean** (every ordering differs by the same amount): t = ±inf and p = 0, scipy's
      answer (given here without calling scipy, which warns of precision loss) — a consistent difference,
      significant. (Before this module the acceptance claims of the
      budgeted-learner page printed "p nan" here while the comparison sections printed scipy's 0; no
      committed page has such a pair, so no page changed when the two were made one.)
    * **NaN in either list**: p is NaN (scipy's default ``nan_policy="propagate"``), not identical.

    ``mean_diff`` is the mean of ``a − b`` in every case (NaN if a run is NaN).
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = a - b
    identical = not np.any(d)
    if d.size < 2 or identical:
        p = float("nan")
    elif np.all(d == d[0]):  # zero variance, non-zero mean: t = ±inf (scipy's answer, without its precision warning)
        p = 0.0
    else:
        from scipy.stats import ttest_rel

        with warnings.catch_warnings():  # differences equal up to rounding: a huge t, a tiny p (no warning needed)
            warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
            p = float(ttest_rel(a, b).pvalue)
    return PairedTest(
        n=int(d.size),
        mean_diff=float(d.mean()) if d.size else float("nan"),
        p_value=p,
        identical=bool(identical),
        a_lower=bool(a.mean() < b.mean()) if d.size else False,
    )


def best_by_ttest(results, alpha=ALPHA):
    """Algorithms whose mistake rates are not significantly worse than the best mean's (paired t-test over
    the common orderings, two-sided, 95%), as the SCW paper marks its best results in bold: the best
    itself, every algorithm with identical runs, and every one whose test against the best has p ≥ alpha
    (with one ordering, or p NaN otherwise, an algorithm that differs is not bold)."""
    rates = {r["algorithm"]: np.array([run["mistake_rate"] for run in r["runs"]]) for r in results}
    best = min(rates, key=lambda name: rates[name].mean())
    bold = set()
    for name, values in rates.items():
        test = paired_ttest(values, rates[best])
        if test.identical or test.p_value >= alpha:
            bold.add(name)
    return bold


def mean_std(values):
    """[mean, std] of ``values`` over orderings (std with ddof = 1; 0.0 for a single value)."""
    v = np.asarray(values, dtype=float)
    return [float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0]


def summarize_runs(runs):
    """Mean ± std (over orderings) of mistake %, #SV, #updates; mean mistakes and diagnostics counters."""
    row = {
        "mistake_pct": mean_std([100 * r["mistake_rate"] for r in runs]),
        "n_sv": mean_std([r["n_sv"] for r in runs]),
        "n_updates": mean_std([r["n_updates"] for r in runs]),
        "mistakes": float(np.mean([r["mistakes"] for r in runs])),
        "orderings": len(runs),
        "seconds": mean_std([r["seconds"] for r in runs]),
    }
    keys = [k for k in runs[0].get("diagnostics", {}) if isinstance(runs[0]["diagnostics"][k], (int, float))]
    if keys:
        row["diagnostics"] = {k: mean_std([r["diagnostics"][k] for r in runs]) for k in keys}
    return row
