"""ALMA_p(α) with p = 2 (Gentile 2001), kernelised (docs/algorithms/alma.md).

Normalised kernel k̂(x, z) = κ(x, z)/sqrt(κ(x, x) κ(z, z)) (Gentile normalises x̂ = x/‖x‖; for the
Gaussian kernel k̂ = κ). With k counting updates (from 1), B = 1/α, γ_k = B/√k and η_k = C/√k:
update iff y_t w(x̂_t) ≤ (1 − α) γ_k, then w' = w + η_k y_t k̂(x_t, ·) and w ← w'/max(1, ‖w'‖),
‖w'‖² = ‖w‖² + 2 η_k y_t w(x̂_t) + η_k². Predictions use the last hypothesis (no averaging, as in DUOL
and LIBOL).

Settled uncertainty: DUOL's "C = 5 for all algorithms" is the PA/DUOL penalty; ALMA's own C keeps
Gentile's default √2 (also LIBOL's and SOL's), exposed as ``C``.

With ``kernel="linear"`` the primal form runs (docs/algorithms/alma.md#linear-form: x̂ = x/‖x‖, w explicit, the
projection a lazy global scale); ``compat="libol"`` reproduces LIBOL's ALMA.m, which does not normalise x and updates
iff y f < (1 − α)γ_k (strict). Multiclass data use the joint feature map of x̂ (docs/algorithms/linear-family.md).

Implementation note: SV i is stored with coefficient a_i/sqrt(κ(x_i, x_i)), so the shared expansion
Σ_i coef_i κ(x_i, x_t) equals sqrt(κ_t) w(x̂_t); the recorded score is w(x̂_t).

Slow reference: tests/reference/kernel_binary.py (``alma``) and, with the linear kernel, tests/reference/linear.py
(``first_order``).
"""

import math

import numpy as np

from ..._compile import njit_helper
from ...kernels import kernel_diagonal
from ...params import POSITIVE, Interval, Options
from ...spec import register
from ..linear.alma import ALMA_PRIMAL, ALMAParams
from ..records import rule_params
from .base import EPS, KernelLearner
from .sv_edit import sv_append, sv_scale


@njit_helper
def alma_update(sv, st, s, t, kself, y, fv, mistake):
    f = fv[0]
    alpha, C = st.prm.alpha, st.prm.C
    k = st.fst[1]
    gamma_k = (1.0 / alpha) / math.sqrt(k)
    eta_k = C / math.sqrt(k)
    if y * f > (1.0 - alpha) * gamma_k or kself <= EPS:
        return False
    eta_k = eta_k * s.sw[t]  # the step η_k s_t (docs/algorithms/alma.md#weights)
    norm2 = st.fst[0] * st.fst[0] + 2.0 * eta_k * y * f + eta_k * eta_k
    j = sv_append(sv, s, t, kself, y)
    sv.coef[j, 0] = eta_k * y / math.sqrt(kself)
    norm = math.sqrt(max(norm2, 0.0))
    if norm > 1.0:  # project back onto the unit ball
        sv_scale(sv, 1.0 / norm)
        norm = 1.0
    st.fst[0] = norm
    st.fst[1] = k + 1.0
    return True


@njit_helper
def alma_score(sv, st, s, t, kself, fv):
    """ALMA predicts with the normalised kernel: w(x̂_t) = Σ_i coef_i κ(x_i, x_t)/sqrt(κ_t)."""
    fv[0] = fv[0] / math.sqrt(kself) if kself > EPS else 0.0


@register(
    "alma",
    "ALMA_2(alpha): approximate large-margin updates with projection (Gentile 2001)",
    position=70,
    weight="the step η_k ← s·η_k (then the projection onto the unit ball; k counts updates, not weights)",
    weight_repeats=False,
    sweep={"cases": [{"alpha": 0.5}], "grid": {"alpha": [0.9, 1.0, 0.5], "C": [math.sqrt(2), 1.0]}},
)
class ALMA(KernelLearner):
    """ALMA_p(α), kernelised (p = 2).

    Parameters
    ----------
    alpha : float in (0, 1], default 0.9
        Margin approximation; DUOL JMLR §5.1 uses α = 0.9 (B = 1/α).
    C : float, default √2
        ALMA's own step constant (Gentile's default), not the PA/DUOL penalty.
    p : int, default 2
        Norm parameter; only p = 2 has a kernel form.
    kernel, sigma, degree, coef0 : as the other kernel learners.
    compat : "none"; with kernel="linear" also "libol" (see above).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("alma"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.309

    References
    ----------
    Gentile, C. (2001). A new approximate maximal margin classification algorithm. JMLR 2.
    """

    _update = staticmethod(alma_update)
    _score_hook = staticmethod(alma_score)
    _linear_rule = ALMA_PRIMAL

    def __init__(
        self,
        alpha=0.9,
        C=math.sqrt(2.0),
        p=2,
        kernel="gaussian",
        sigma=8.0,
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
        self.alpha = alpha
        self.C = C
        self.p = p
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    _parameter_constraints = {
        "alpha": [Interval(0, 1, closed="right")],
        "C": [POSITIVE],
        "p": [Options((2,))],  # only p = 2 has a kernel form
    }

    def _rule_params(self):
        return rule_params(ALMAParams, alpha=self.alpha, C=self.C, libol=self.compat == "libol")

    def _linear_spec(self):
        return dict(rule=ALMA_PRIMAL, prm=self._rule_params(), aux=1.0, libol=self.compat == "libol")

    def _initial_fst(self):
        return [0.0, 1.0]  # ‖w‖, k

    def _scores_from_kernel(self, K, norms, kp):
        kself = kernel_diagonal(kp, norms)
        raw = K @ self._model_coef()
        return raw / np.sqrt(np.maximum(kself, EPS))[:, None]
