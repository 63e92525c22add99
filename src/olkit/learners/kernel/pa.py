"""Passive-Aggressive learners PA, PA-I, PA-II (Crammer et al. 2006), kernelised.

Whenever the hinge loss ℓ_t = max(0, 1 − y_t f(x_t)) is positive, add x_t with weight y_t τ_t
(ALGORITHMS.md A5; SCW paper eqs (1)–(2)):

* PA:    τ = ℓ_t / κ(x_t, x_t)
* PA-I:  τ = min(C, ℓ_t / κ(x_t, x_t))
* PA-II: τ = ℓ_t / (κ(x_t, x_t) + 1/(2C))

A zero-norm example (κ(x_t, x_t) ≤ 1e-12, possible with the linear kernel) cannot change f and is skipped.
"""
from ..._compile import njit
from ...registry import register
from .base import EPS, KernelLearner, check_C
from .support_set import sv_append

PA_PLAIN, PA_I, PA_II = 0, 1, 2


@njit
def pa_update(sv, st, s, t, kself, y, f, mistake):
    variant, C = st.prm[0], st.prm[1]
    loss = 1.0 - y * f
    if loss <= 0.0 or kself <= EPS:
        return False
    if variant == PA_PLAIN:
        tau = loss / kself
    elif variant == PA_I:
        tau = min(C, loss / kself)
    else:
        tau = loss / (kself + 1.0 / (2.0 * C))
    j = sv_append(sv, s, t, kself, y)
    sv.coef[j, 0] = y * tau
    return True


class _PABase(KernelLearner):
    _rule = "pa"
    _variant = PA_PLAIN

    def __init__(self, C=5.0, kernel="gaussian", sigma=8.0, degree=3, coef0=1.0, compat="none"):
        self.C = C
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)

    def _check_params(self):
        super()._check_params()
        check_C(self.C)

    def _rule_params(self):
        return [float(self._variant), float(self.C)]


_PA_DOC = """{title}

    Parameters
    ----------
    C : float, default 5
        Aggressiveness (penalty) parameter; C = 5 in DUOL JMLR §5.1.
    kernel : {{"gaussian", "linear", "poly"}}, default "gaussian"
    sigma : float, default 8
        Gaussian width, κ(x, z) = exp(−‖x − z‖²/(2σ²)).
    degree, coef0 : polynomial kernel (x·z + coef0)^degree.
    compat : "none"

    References
    ----------
    Crammer, Dekel, Keshet, Shalev-Shwartz, Singer (2006). Online passive-aggressive algorithms. JMLR 7.
    """


@register("pa", "Passive-Aggressive: on hinge loss add x_t with step loss/k(x_t,x_t) (Crammer et al. 2006)")
class PA(_PABase):
    """PA: τ = ℓ/κ(x_t, x_t).

    Parameters
    ----------
    kernel : {"gaussian", "linear", "poly"}, default "gaussian"
    sigma : float, default 8
        Gaussian width, κ(x, z) = exp(−‖x − z‖²/(2σ²)).
    degree, coef0 : polynomial kernel (x·z + coef0)^degree.
    compat : "none"

    References
    ----------
    Crammer, Dekel, Keshet, Shalev-Shwartz, Singer (2006). Online passive-aggressive algorithms. JMLR 7.
    """

    _variant = PA_PLAIN

    def __init__(self, kernel="gaussian", sigma=8.0, degree=3, coef0=1.0, compat="none"):
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)

    def _check_params(self):
        KernelLearner._check_params(self)

    def _rule_params(self):
        return [float(PA_PLAIN), 0.0]


@register("pa1", "PA-I: hinge-loss step min(C, loss/k(x_t,x_t)) (Crammer et al. 2006)")
class PA1(_PABase):
    __doc__ = _PA_DOC.format(title="PA-I: τ = min(C, ℓ/κ(x_t, x_t)).")
    _variant = PA_I


@register("pa2", "PA-II: hinge-loss step loss/(k(x_t,x_t) + 1/(2C)) (Crammer et al. 2006)")
class PA2(_PABase):
    __doc__ = _PA_DOC.format(title="PA-II: τ = ℓ/(κ(x_t, x_t) + 1/(2C)).")
    _variant = PA_II
