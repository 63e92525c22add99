"""ROMMA and aggressive ROMMA (Li & Long 1999/2002), kernelised (docs/algorithms/romma.md,
docs/algorithms/agg-romma.md).

w_{t+1} = argmin ‖w‖² s.t. ⟨w, w_t⟩ ≥ ‖w_t‖² and y_t w(x_t) ≥ 1. With f = w_t(x_t), κ_t = κ(x_t, x_t),
N2 = ‖w_t‖², A = κ_t N2 and D = A − f², both constraints active give

    w ← c·w + d·κ(x_t, ·),  c = (A − y_t f)/D,  d = N2 (y_t − f)/D,
    ‖w‖² ← c² N2 + 2 c d f + d² κ_t.

ROMMA updates on mistakes (ŷ ≠ y), agg-ROMMA on margin errors (y f < 1). The first update (N2 = 0) is the
min-norm solution w = y_t κ(x_t, ·)/κ_t. D ≤ 1e-12·A (x_t parallel to w) skips the round, as LIBOL does.

Settled uncertainties:

* agg-ROMMA's case "only the margin constraint active" (y_t f ≥ A: discard all SVs, w = y κ(x_t,·)/κ_t)
  follows from the KKT conditions but LIBOL's ``aROMMA.m`` never uses it, and the DUOL paper's agg-ROMMA
  SV counts (same order as PA-I's) show the reference experiments did not either, so it is off by
  default (``romma_reset_case=False``).
* ``compat="libol"`` reproduces LIBOL's first update w ← w + y_t x_t (no division by κ_t).

With ``kernel="linear"`` the primal form runs (docs/algorithms/romma.md#linear-form: w kept explicitly, the rescaling
c·w as a lazy global scale, ‖w‖² recomputed after each update as LIBOL does); multiclass data use the joint feature map
Δ = e_y⊗x − e_s⊗x (docs/algorithms/linear-family.md).

Slow reference: tests/reference/kernel_binary.py (``romma``) and, with the linear kernel, tests/reference/linear.py
(``first_order``).
"""

from ..._compile import njit_helper
from ...params import BOOLEAN
from ...spec import register
from ..linear.romma import ROMMA_PRIMAL, ROMMAParams
from ..records import rule_params
from .base import EPS, KernelLearner
from .sv_edit import sv_append, sv_clear, sv_scale


@njit_helper
def romma_update(sv, st, s, t, kself, y, fv, mistake):
    # a weight s_t > 0 changes nothing: the two constraints do not depend on it, so it only switches the example on
    # (docs/algorithms/romma.md#weights; the loop skips s_t = 0)
    f = fv[0]
    aggressive, reset_case, libol_first = st.prm.aggressive, st.prm.reset_case, st.prm.libol_first
    triggered = (y * f < 1.0) if aggressive else mistake
    if not triggered or kself <= EPS:
        return False
    N2 = st.fst[0]
    if N2 <= 0.0:  # first update: min-norm w with y w(x_t) = 1
        j = sv_append(sv, s, t, kself, y)
        if libol_first:
            sv.coef[j, 0] = y
            st.fst[0] = kself
        else:
            sv.coef[j, 0] = y / kself
            st.fst[0] = 1.0 / kself
        return True
    A = kself * N2
    if aggressive and reset_case and y * f >= A:  # only y w(x_t) ≥ 1 active: restart from x_t
        sv_clear(sv)
        j = sv_append(sv, s, t, kself, y)
        sv.coef[j, 0] = y / kself
        st.fst[0] = 1.0 / kself
        return True
    D = A - f * f
    if D <= EPS * A:
        return False
    c = (A - y * f) / D
    d = N2 * (y - f) / D
    sv_scale(sv, c)
    j = sv_append(sv, s, t, kself, y)
    sv.coef[j, 0] = d
    st.fst[0] = c * c * N2 + 2.0 * c * d * f + d * d * kself
    return True


class _ROMMABase(KernelLearner):
    _update = staticmethod(romma_update)
    _linear_rule = ROMMA_PRIMAL
    _primal_poor_score = True  # measured: 0.65 (multiclass) / 0.83 (binary) on scikit-learn's blobs
    _kernel_compat = ("none", "libol")

    def _initial_fst(self):
        return [0.0]


@register(
    "romma",
    "ROMMA: relaxed online maximum-margin update on mistakes (Li & Long 2002)",
    position=50,
    weight="on/off: the two constraints do not depend on s > 0; s = 0 skips the example",
    weight_repeats=True,
)
class ROMMA(_ROMMABase):
    """ROMMA (Relaxed Online Maximum Margin Algorithm), kernelised; updates on mistakes.

    Parameters
    ----------
    kernel : {"gaussian", "linear", "poly"}, default "gaussian"
    sigma : float, default 8
        Gaussian width, κ(x, z) = exp(−‖x − z‖²/(2σ²)).
    degree, coef0 : polynomial kernel (x·z + coef0)^degree.
    compat : {"none", "libol"}
        "libol": first update w = y_t κ(x_t, ·) as LIBOL's ROMMA.m (no division by κ_t).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("romma"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.304

    References
    ----------
    Li, Y., Long, P. M. (2002). The relaxed online maximum margin algorithm. Machine Learning 46.
    """

    def __init__(
        self,
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
        return rule_params(ROMMAParams, aggressive=False, reset_case=False, libol_first=self.compat == "libol")


@register(
    "agg-romma",
    "aggressive ROMMA: the ROMMA update on every margin error y f < 1 (Li & Long 2002)",
    position=60,
    weight="on/off: the two constraints do not depend on s > 0; s = 0 skips the example",
    weight_repeats=True,
    sweep={"cases": [{"romma_reset_case": True}], "grid": {"romma_reset_case": [False, True]}},
)
class AggROMMA(_ROMMABase):
    """Aggressive ROMMA, kernelised; updates whenever y_t f(x_t) < 1.

    Parameters
    ----------
    romma_reset_case : bool, default False
        Use the KKT case y_t f ≥ κ_t‖w‖² (discard every SV and restart from x_t). Off by default, as in
        LIBOL and, judging by their SV counts, the DUOL experiments.
    kernel, sigma, degree, coef0, compat : as :class:`ROMMA`.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("agg-romma"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.299

    References
    ----------
    Li, Y., Long, P. M. (2002). The relaxed online maximum margin algorithm. Machine Learning 46.
    """

    def __init__(
        self,
        romma_reset_case=False,
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
        self.romma_reset_case = romma_reset_case
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    _parameter_constraints = {"romma_reset_case": [BOOLEAN]}

    def _rule_params(self):
        return rule_params(
            ROMMAParams, aggressive=True, reset_case=self.romma_reset_case, libol_first=self.compat == "libol"
        )
