"""Confidence-weighted learners: CW (exact and variance forms), SCW-I and SCW-II (SCW ICML 2012),
ALGORITHMS.md C6, C7, C12, C13. The weights are a Gaussian N(μ, Σ); φ = Φ⁻¹(η)."""
from ...base import check_number
from ...registry import register
from ..kernel.base import KernelLearner
from .base import COVARIANCE_DOC, LinearLearner, check_eta, phi_of
from .steps import CW_EXACT, SCW_I, SCW_II

_COMMON = COVARIANCE_DOC.format(c="β/(1 − βv)")


class _CWBase(LinearLearner):
    _rule = "cw"
    _variant = CW_EXACT

    def _check_params(self):
        super()._check_params()
        check_eta(self.eta)

    def _rule_params(self):
        C = getattr(self, "C", 1.0)
        return [phi_of(self.eta), float(C), float(self._variant), float(self.compat == "libol")]


@register("cw", "CW (exact): confidence-weighted learning, Pr[correct] >= eta under N(mu, Sigma) "
                "(Crammer, Dredze, Pereira 2008)")
class CW(_CWBase):
    __doc__ = """Exact confidence-weighted learning (the "CW" of the SCW paper, §2.3).

    Update iff φ√v − m > 0, ψ = 1 + φ²/2, ζ = 1 + φ²:
    α = max(0, (−mψ + sqrt(m²φ⁴/4 + vφ²ζ))/(vζ)), u = ¼(−αvφ + sqrt(α²v²φ² + 4v))²,
    β = αφ/(√u + vαφ), μ ← μ + αΣΔ, Σ ← Σ − βΣΔΔᵀΣ (diagonal: c = αφ/√u — not SOL's inverted √u).

    Parameters
    ----------
    eta : float in (0.5, 1), default 0.7
        Confidence η (LIBOL default 0.7; the SCW experiments select it from 0.55..0.95).
""" + _COMMON + """
    compat : {"none", "libol"} — "libol" counts rounds with positive loss as updates (no other difference).

    References
    ----------
    Crammer, K., Dredze, M., Pereira, F. (2008). Exact convex confidence-weighted learning. NIPS.
    Wang, J., Zhao, P., Hoi, S. C. H. (2012). Exact soft confidence-weighted learning. ICML.
    """

    def __init__(self, eta=0.7, a=1.0, covariance="full", compat="none"):
        self.eta = eta
        self.a = a
        self.covariance = covariance
        self.compat = compat


@register("cw-var", "CW (variance form): the original confidence-weighted update (Dredze, Crammer, "
                    "Pereira 2008)")
class CWVar(_CWBase):
    __doc__ = """Confidence-weighted learning, variance form (ICML 2008).

    Constraint m ≥ φv; update iff m < φv:
    α = [−(1 + 2φm) + sqrt((1 + 2φm)² − 8φ(m − φv))]/(4φv), μ ← μ + αΣΔ, Σ⁻¹ ← Σ⁻¹ + 2αφ ΔΔᵀ.

    Parameters
    ----------
    eta : float in (0.5, 1), default 0.7
""" + _COMMON + """
    compat : {"none", "libol"} — LIBOL has no variance-form CW; "libol" only counts rounds with positive
        loss as updates.

    References
    ----------
    Dredze, M., Crammer, K., Pereira, F. (2008). Confidence-weighted linear classification. ICML.
    """

    _rule = "cw-var"

    def __init__(self, eta=0.7, a=1.0, covariance="full", compat="none"):
        self.eta = eta
        self.a = a
        self.covariance = covariance
        self.compat = compat

    def _rule_params(self):
        return [phi_of(self.eta)]


class _SCWBase(KernelLearner):
    """SCW-I / SCW-II: linear (primal, full or diagonal covariance) with kernel="linear", the default;
    kernel SCW (ALGORITHMS.md C14, :mod:`olkit.learners.kernel.scw`) with any other kernel."""

    _linear_rule = "cw"      # primal form
    _matrices = ("pair",)    # kernel form: π over the SVs

    @property
    def _update(self):  # kernel form (imported here: the kernel rule imports the linear CW step)
        from ..kernel.scw import kernel_scw_update

        return kernel_scw_update
    _variant = SCW_I

    def __init__(self, eta, C=1.0, a=1.0, covariance="full", kernel="linear", sigma=8.0, degree=3, coef0=1.0,
                 compat="none"):
        self.eta = eta
        self.C = C
        self.a = a
        self.covariance = covariance
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)

    @property
    def compat_choices(self):
        return ("none", "libol")

    def _check_params(self):
        super()._check_params()
        check_eta(self.eta)
        check_number("C", self.C, low=0, low_open=True)
        self._check_covariance()
        if not self._primal() and self.covariance != "full":
            raise ValueError(f"covariance={self.covariance!r} needs kernel='linear'; kernel SCW keeps its "
                             f"covariance in the span of the support vectors (full), use covariance='full'")

    def _cw_params(self):
        return [phi_of(self.eta), float(self.C), float(self._variant), float(self.compat == "libol")]

    def _rule_params(self):
        return self._cw_params() + [float(self.a)]

    def _linear_spec(self):
        return dict(rule="cw", prm=self._cw_params(), covariance=self.covariance, a=float(self.a),
                    libol=self.compat == "libol")


_SCW_PARAMS = """    eta : float in (0.5, 1), default {eta}
        Confidence η (LIBOL default {eta}; the SCW experiments select it from 0.55..0.95).
    C : float > 0, default 1
        Aggressiveness (LIBOL default 1; selected from 2^-4..2^4).
{common}
    kernel : {{"linear", "gaussian", "poly"}}, default "linear"
        "linear" runs the primal form; any other kernel runs kernel SCW (§4.2, ALGORITHMS.md C14):
        μ and Σ kept in the span of the support vectors, O(#SV²) per round, binary data only.
    sigma, degree, coef0 : kernel parameters (Gaussian exp(−‖x−z‖²/(2σ²)); polynomial (x·z + coef0)^degree).
"""


@register("scw1", "SCW-I: soft confidence-weighted learning, CW with a hinge-capped step min(C, .) "
                  "(Wang, Zhao, Hoi 2012)")
class SCW1(_SCWBase):
    __doc__ = """SCW-I (SCW Proposition 1, eq. (4)).

    Update iff ℓ^φ = φ√v − m > 0: α = min(C, max(0, (−mψ + sqrt(m²φ⁴/4 + vφ²ζ))/(vζ))),
    u = ¼(−αvφ + sqrt(α²v²φ² + 4v))², β = αφ/(√u + vαφ), μ ← μ + αΣΔ, Σ ← Σ − βΣΔΔᵀΣ (β from the
    capped α; diagonal: c = αφ/√u).

    Parameters
    ----------
""" + _SCW_PARAMS.format(eta=0.75, common=_COMMON) + """    compat : {"none", "libol"} — "libol" counts rounds with positive loss as updates (LIBOL's SCW.m
        follows eq. (4) exactly).

    References
    ----------
    Wang, J., Zhao, P., Hoi, S. C. H. (2012). Exact soft confidence-weighted learning. ICML.
    """

    _variant = SCW_I

    def __init__(self, eta=0.75, C=1.0, a=1.0, covariance="full", kernel="linear", sigma=8.0, degree=3,
                 coef0=1.0, compat="none"):
        super().__init__(eta, C, a, covariance, kernel, sigma, degree, coef0, compat)


@register("scw2", "SCW-II: soft confidence-weighted learning with a squared-hinge slack "
                  "(Wang, Zhao, Hoi 2012)")
class SCW2(_SCWBase):
    __doc__ = """SCW-II (SCW Proposition 2, eq. (5)).

    n = v + 1/(2C), γ = φ sqrt(φ²m²v² + 4nv(n + vφ²)), α = max(0, (−(2mn + φ²mv) + γ)/(2(n² + nvφ²))),
    then u, β and the updates as SCW-I (no cap on α). The formula was re-derived (ALGORITHMS.md C13):
    the paper is right.

    Parameters
    ----------
""" + _SCW_PARAMS.format(eta=0.9, common=_COMMON) + """    compat : {"none", "libol"}
        "libol" reproduces LIBOL's SCW2.m, which has two typos inside the square root
        (sqrt(φ⁴m²v·2 + 4nvφ²(n + vφ·2)) for φ·sqrt(φ²m²v² + 4nv(n + vφ²)); C13 [IMPL-DIFF]), and counts
        rounds with positive loss as updates.

    References
    ----------
    Wang, J., Zhao, P., Hoi, S. C. H. (2012). Exact soft confidence-weighted learning. ICML.
    """

    _variant = SCW_II

    def __init__(self, eta=0.9, C=1.0, a=1.0, covariance="full", kernel="linear", sigma=8.0, degree=3,
                 coef0=1.0, compat="none"):
        super().__init__(eta, C, a, covariance, kernel, sigma, degree, coef0, compat)
