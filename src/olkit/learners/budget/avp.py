"""AVP, the Aggressive Variant of Perceptron (Ahpatron AAAI 2024, Algorithm 1; spec: docs/algorithms/avp.md).

On every round with m_t < 1 − ε (a margin error, not only a mistake) x_t is added with the row λD_t, and
f is projected back onto the ball ‖f‖ ≤ U:

    f_{t+1} = Proj_U(f_t + λ D_t κ(x_t, ·)),   Proj_U(g) = min{1, U/‖g‖} g,

with ‖f‖² tracked incrementally, ‖f + λD_tκ(x_t,·)‖² = ‖f‖² + 2λm_t + c_Dλ²κ_t
(docs/algorithms/multiclass.md#budgeted-learners). AVP is the
unbudgeted learner the Ahpatron analysis starts from (O(|S|) per round; not run in the AHP experiments).

Settings (AHP Corollaries 1–2, Theorem 3: λ/2 < ε < 1 and λ < 2 on binary data): Corollary 1 is U = ∞,
λ = 1, ε ∈ (½, 1). The multiclass direction has ‖H_tκ(x_t,·)‖² = 2κ_t, so Corollary 1 becomes λ = ½ there
(the K = 2 map of docs/algorithms/multiclass.md#budgeted-learners: multiclass (λ, U) ≡ binary (2λ, √2U)).

Slow reference: tests/reference/budget.py (``run_reference``).
"""

import math
from typing import NamedTuple

from ..._compile import njit_helper
from ...params import PROBABILITY_OPEN, Interval
from ...spec import register
from ..kernel.base import EPS
from ..records import rule_params
from .common import (
    D0,
    RADIUS,
    BudgetLearner,
    append_direction,
    epsilon_margin_gate,
    margin_direction,
    project_to_ball,
)

PROJECTIONS = 0  # diagnostic slot: rounds that scaled f back onto the ball


class AVPParams(NamedTuple):
    """Parameters of AVP, resolved."""

    lam: float  # step λ
    epsilon: float  # update iff m_t < 1 − ε
    U: float  # radius of the projection ball


@njit_helper
def avp_update(sv, st, s, t, kself, y, f, mistake):
    lam, eps, U = st.prm.lam * s.sw[t], st.prm.epsilon, st.prm.U  # the step λ s_t (docs/algorithms/avp.md#weights)
    r, c, m, cD = margin_direction(s, t, y, f)
    if m >= 1.0 - eps or kself <= EPS:
        return False
    append_direction(sv, s, t, kself, y, r, c, lam)
    norm2 = st.fst[0] + 2.0 * lam * m + cD * lam * lam * kself  # ‖f + λD_tκ(x_t,·)‖²
    st.fst[0] = project_to_ball(sv, norm2, U)
    st.cnt[D0 + PROJECTIONS] += norm2 > U * U
    return True


@register(
    "avp",
    "AVP: aggressive Perceptron, add lam*y_t*k(x_t,.) when y_t f(x_t) < 1 - epsilon, project onto "
    "||f|| <= U (Ahpatron AAAI 2024 Alg. 1)",
    data=("binary", "multiclass"),
    sources={
        "U": "AHP Corollary 1 (U = ∞)",
        "lam": "AHP Corollary 1 (λ = 1; multiclass ½, docs/algorithms/avp.md#multiclass-and-multi-label)",
        "epsilon": "AHP Corollary 1 (ε ∈ (½, 1)); 0.75 is our choice, the middle of the interval",
        "sigma": "AHP Experiments (σ = 1)",
    },
    position=180,
    weight="λ ← s·λ: the new row λ s D_t, then the projection onto ‖f‖ ≤ U",
    weight_repeats=False,
    sweep={"cases": [{"U": 2.0}], "grid": {"U": [math.inf, 2.0], "lam": [None, 0.3], "epsilon": [0.75, 0.5]}},
)
class AVP(BudgetLearner):
    """AVP (Ahpatron AAAI 2024, Algorithm 1): unbudgeted aggressive Perceptron with a norm ball.

    Parameters
    ----------
    U : float > 0 or math.inf, default inf
        Radius of the ball ‖f‖ ≤ U (Corollary 1: U = ∞).
    lam : float > 0 or None, default None
        Step size λ of an update. None means Corollary 1's λ = 1 on binary data and its multiclass image λ = ½
        (docs/algorithms/avp.md#multiclass-and-multi-label).
    epsilon : float in (0, 1), default 0.75
        Update on m_t < 1 − ε. Theorem 3 needs λ/2 < ε < 1 (multiclass λ < ε < 1); 0.75 is the middle of
        Corollary 1's interval (½, 1) — the paper gives no value.
    kernel, sigma, degree, coef0
        The kernel (σ = 1 as in the AHP experiments).
    compat : {"none"}, default "none"
        No reference-code mode: the paper's algorithm as specified.

    Diagnostics: ``projections``, the rounds where f was scaled back onto the ball.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> olkit.evaluate_online(olkit.make("avp", sigma=8), X, y).mistake_rate < 0.4
    True

    References
    ----------
    Liao, S., Li, J. et al. (2024). Ahpatron: A new budgeted online kernel learning machine with tighter
    mistake bound. AAAI 2024.
    """

    _update = staticmethod(avp_update)
    _update_gate = staticmethod(epsilon_margin_gate)
    _parameter_constraints = {
        "U": RADIUS[:2],
        "lam": [Interval(0, None, closed="neither"), None],
        "epsilon": [PROBABILITY_OPEN],
    }

    def __init__(
        self,
        U=math.inf,
        lam=None,
        epsilon=0.75,
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
        self.U = U
        self.lam = lam
        self.epsilon = epsilon
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _lam(self):
        if self.lam is not None:
            return float(self.lam)
        return 0.5 if self._multiclass_model() else 1.0

    def _rule_params(self):
        return rule_params(AVPParams, lam=self._lam(), epsilon=self.epsilon, U=self.U)

    def _resolved_params(self):
        return {**self._algorithm_params(), "lam": self._lam()}

    def diagnostics(self):
        return {"projections": self._counter(PROJECTIONS), "norm": math.sqrt(self.state_.fst[0])}
