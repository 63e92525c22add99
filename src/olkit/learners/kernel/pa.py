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


DUOL_C, LIBOL_C = 5.0, 1.0


class _PABase(KernelLearner):
    _rule = "pa"
    _linear_rule = "pa"
    _variant = PA_PLAIN

    def __init__(self, C=None, kernel="gaussian", sigma=8.0, degree=3, coef0=1.0, compat="none"):
        self.C = C
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)

    def _C(self):
        """C as used: the given value; by default 5 (DUOL JMLR §5.1), or LIBOL's 1 with compat="libol"."""
        if self.C is None:
            return LIBOL_C if self.compat == "libol" else DUOL_C
        return self.C

    def _check_params(self):
        super()._check_params()
        check_C(self._C())

    def _rule_params(self):
        return [float(self._variant), float(self._C())]

    def resolved_params(self):
        return {**self.get_params(), "C": self._C()}


_PA_DOC = """{title}

    Parameters
    ----------
    C : float or None, default None
        Aggressiveness (penalty) parameter. None means the paper's setting: C = 5 (DUOL JMLR §5.1), or
        LIBOL's default C = 1 with ``compat="libol"``.
    kernel : {{"gaussian", "linear", "poly"}}, default "gaussian"
    sigma : float, default 8
        Gaussian width, κ(x, z) = exp(−‖x − z‖²/(2σ²)).
    degree, coef0 : polynomial kernel (x·z + coef0)^degree.
    compat : "none"; with kernel="linear" also "libol" (LIBOL's PA*.m follow C2 exactly; only the
        default C changes).

    With ``kernel="linear"`` the primal form runs (ALGORITHMS.md C2, κ_t = ‖x_t‖²); multiclass data use
    the max-score update w_y += τx, w_s −= τx with ‖Δ‖² = 2‖x‖² (Crammer et al. 2006 §7; LIBOL M_PA*).

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
    compat : "none"; with kernel="linear" also "libol" (LIBOL's PA*.m follow C2 exactly; only the
        default C changes).

    With ``kernel="linear"`` the primal form runs (ALGORITHMS.md C2, κ_t = ‖x_t‖²); multiclass data use
    the max-score update w_y += τx, w_s −= τx with ‖Δ‖² = 2‖x‖² (Crammer et al. 2006 §7; LIBOL M_PA*).

    References
    ----------
    Crammer, Dekel, Keshet, Shalev-Shwartz, Singer (2006). Online passive-aggressive algorithms. JMLR 7.
    """

    _variant = PA_PLAIN
    _primal_poor_score = True  # uncapped steps: 0.79 on scikit-learn's binary blobs after one pass

    def __init__(self, kernel="gaussian", sigma=8.0, degree=3, coef0=1.0, compat="none"):
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)

    def _check_params(self):
        KernelLearner._check_params(self)

    def _rule_params(self):
        return [float(PA_PLAIN), 0.0]

    def resolved_params(self):  # plain PA has no C to resolve
        return self.get_params()


@register("pa1", "PA-I: hinge-loss step min(C, loss/k(x_t,x_t)) (Crammer et al. 2006)")
class PA1(_PABase):
    __doc__ = _PA_DOC.format(title="PA-I: τ = min(C, ℓ/κ(x_t, x_t)).")
    _variant = PA_I


@register("pa2", "PA-II: hinge-loss step loss/(k(x_t,x_t) + 1/(2C)) (Crammer et al. 2006)")
class PA2(_PABase):
    __doc__ = _PA_DOC.format(title="PA-II: τ = ℓ/(κ(x_t, x_t) + 1/(2C)).")
    _variant = PA_II
