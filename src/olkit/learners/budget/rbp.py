"""RBP, the Random Budget Perceptron (Cesa-Bianchi & Gentile, COLT 2006; spec: docs/algorithms/rbp.md).

On every mistake ŷ_t ≠ y_t: if |S| = B, a uniformly drawn SV is removed; then x_t is added with the unit
row D_t (binary y_t; multiclass H_t = e_{y_t} − e_{s_t}). O(B) per round. The draw is an index into the
arrival order from olkit's seeded generator (:mod:`olkit._rng`), so results depend on ``seed`` only.

Diagnostics: ``removals``. ``compat="dogma"``: DOGMA's ``k_perceptron(_multi)_train.m`` mistake, sign(0) = 0
(docs/algorithms/rbp.md#dogma).

Slow reference: tests/reference/budget.py (``run_reference``); the ``compat`` mode: tests/reference/budget_compat.py
(``run_compat``).
"""

from ..._compile import njit_helper
from ..._rng import next_index
from ...spec import register
from ..kernel.support_set import N
from ..records import rule_params
from .common import (
    D0,
    DOGMA_MISTAKES,
    BudgetLearner,
    BudgetParams,
    CompatRule,
    append_direction,
    margin_direction,
    mistake_gate,
    remove_by_age,
)

REMOVALS = 0  # diagnostic slot


@njit_helper
def rbp_update(sv, st, s, t, kself, y, f, mistake):
    if not mistake:
        return False
    B = st.prm.B
    r, c, m, cD = margin_direction(s, t, y, f)
    if sv.meta[N] >= B:
        remove_by_age(sv, next_index(st.rng, sv.meta[N]))
        st.cnt[D0 + REMOVALS] += 1
    # the Perceptron's step times s_t (docs/algorithms/rbp.md#weights)
    append_direction(sv, s, t, kself, y, r, c, s.sw[t])
    return True


@register(
    "rbp",
    "Random Budget Perceptron: on a mistake with a full budget remove a random SV, then add x_t "
    "(Cesa-Bianchi & Gentile 2006)",
    data=("binary", "multiclass"),
    sources={"B": "AHP R scripts' budget (600)", "sigma": "AHP Experiments (σ = 1)"},
    position=270,
    weight="the Perceptron step s: the new row s D_t",
    weight_repeats=False,
    sweep={"small": {"B": 4}, "cases": [{"B": 2, "seed": 3}], "grid": {"B": [2, 3, 4, 6, 8], "seed": [0, 3]}},
)
class RBP(BudgetLearner):
    """Random Budget Perceptron (Cesa-Bianchi & Gentile 2006).

    Parameters
    ----------
    B : int >= 2, default 600
        Budget: the most support vectors kept (a random one is dropped when it is full).
    seed : int >= 0, default 0
        Seed of the removals' draws.
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).
    compat : {"none", "dogma"}, default "none"
        "dogma" reproduces Orabona's DOGMA ``k_perceptron_train.m`` / ``k_perceptron_multi_train.m`` with
        ``maxSV`` = B (denizyuret/dogma; docs/algorithms/rbp.md#dogma), binary and multiclass: the mistake that
        counts and triggers the update is sign(f) ≠ y with sign(0) = 0 (y f ≤ 0: f = 0 is a mistake), on
        multiclass data Γ_t ≤ 0 (f_y ≤ max_{c≠y} f_c: a tie for the top is a mistake). The removal is the
        same in distribution (DOGMA overwrites a uniform slot, or appends and deletes a uniform one of the B
        older SVs; olkit draws one of the B SVs before the append, from its own generator).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> olkit.evaluate_online(olkit.make("rbp", B=50, sigma=8), X, y).n_sv
    50

    References
    ----------
    Cesa-Bianchi, N., Gentile, C. (2006). Tracking the best hyperplane with a simple budget Perceptron. COLT.
    """

    _update = staticmethod(rbp_update)
    _average_writes = "written"  # only the SV it appends, after any removal (append_direction writes via set_coef)
    _update_gate = staticmethod(mistake_gate)
    _kernel_compat = ("none", "dogma")
    _compat_rules = {
        "dogma": CompatRule(
            rbp_update,
            rbp_update,
            mistakes=DOGMA_MISTAKES,
            source="DOGMA k_perceptron_train.m / k_perceptron_multi_train.m",
        )
    }

    def __init__(
        self,
        B=600,
        seed=0,
        kernel="gaussian",
        sigma=1.0,
        degree=3,
        coef0=1.0,
        compat="none",
        *,
        fit_intercept=False,
        intercept_scaling=1.0,
        average=False,
        class_weight=None,
        shuffle=True,
        random_state=None,
    ):
        self.B = B
        self.seed = seed
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _rule_params(self):
        return rule_params(BudgetParams, B=self.B)

    def diagnostics(self):
        return {"removals": self._counter(REMOVALS)}
