"""SCW-I and SCW-II (Wang, Zhao, Hoi, ICML 2012), docs/algorithms/scw1.md and docs/algorithms/scw2.md:
the learners, and the compiled rule of kernel SCW (§4.2, Lemma 1).

``scw1``/``scw2`` run the primal form (:mod:`olkit.learners.linear.scw`, full or diagonal Σ) with the
default ``kernel="linear"`` and kernel SCW with any other kernel.
After round i−1, μ = Σ_p ν_p φ(x_p) and Σ = aI + Σ_pq π_pq φ(x_p)φ(x_q)ᵀ over the SVs. For x_i with
kernel row k: m = y ν·k, c = π k, v = kᵀπk + a κ_ii; α, β as in linear SCW
(docs/algorithms/scw1.md#kernel-scw); if α > 0, x_i joins the SVs and with g = [c; a]:
ν ← [ν; 0] + α y g, π ← [[π, 0], [0, 0]] − β g gᵀ. The coefficients ν are the support set's ``coef`` and
π its SV×SV matrix "pair" (``sv.mats[0]``). O(#SV²) per round.

Slow reference: tests/reference/linear.py (``second_order``): the primal form; kernel SCW with the linear kernel is
checked against the primal form (tests/test_linear_invariants.py).
"""

from typing import NamedTuple

from ..._compile import njit_helper
from ...params import CONFIDENCES, POSITIVE, POWERS_OF_TWO
from ...spec import register
from ..linear.base import CONFIDENCE, COVARIANCE_CONSTRAINTS, COVARIANCE_DOC, phi_of
from ..linear.scw import SCW_I, SCW_II, SCW_RULE, SCWParams, scw_step
from ..records import rule_params
from .base import KernelLearner
from .support_set import N
from .sv_edit import sv_append


class KernelSCWParams(NamedTuple):
    """Parameters of kernel SCW: those of the primal step, and the initial variance a."""

    phi: float
    C: float
    variant: int  # SCW_I or SCW_II
    libol_typo: bool
    a: float


@njit_helper
def kernel_scw_update(sv, st, s, t, kself, y, fv, mistake):
    """prm: :class:`KernelSCWParams` (the fields of :class:`.linear.scw.SCWParams`, read by
    :func:`.linear.scw.scw_step`, and the initial variance a)."""
    f = fv[0]
    n = sv.meta[N]
    a = st.prm.a
    P, krow, g, coef = sv.mats[0], sv.krow, sv.grow, sv.coef
    v = a * kself
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += P[i, j] * krow[j]
        g[i] = acc  # c = π k
        v += krow[i] * acc
    # the weight s_t: C ← s_t·C inside the primal step, as in the linear form (docs/algorithms/scw1.md#weights)
    step = scw_step(st.prm, st.fst, y * f, v, kself, mistake, s.sw[t])
    alpha, beta = step.alpha, step.beta
    if alpha == 0.0:
        return False
    j = sv_append(sv, s, t, kself, y)
    g[j] = a
    for i in range(n + 1):
        coef[i, 0] += alpha * y * g[i]
        bi = beta * g[i]
        for k in range(n + 1):
            P[i, k] -= bi * g[k]
    return True


class _SCWBase(KernelLearner):
    """SCW-I / SCW-II: linear (primal, full or diagonal covariance) with kernel="linear", the default;
    kernel SCW (docs/algorithms/scw1.md#kernel-scw, the rule above) with any other kernel."""

    _linear_rule = SCW_RULE  # primal form
    _update = staticmethod(kernel_scw_update)  # kernel form
    _matrices = ("pair",)  # kernel form: π over the SVs
    _variant = SCW_I
    _parameter_constraints = {**COVARIANCE_CONSTRAINTS, "eta": [CONFIDENCE], "C": [POSITIVE]}

    def __init__(
        self,
        eta,
        C=1.0,
        a=1.0,
        covariance="full",
        kernel="linear",
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
        self.eta = eta
        self.C = C
        self.a = a
        self.covariance = covariance
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    @property
    def compat_choices(self):
        return ("none", "libol")

    def _check_params(self):
        super()._check_params()
        if not self._primal() and self.covariance != "full":
            raise ValueError(
                f"covariance={self.covariance!r} needs kernel='linear'; kernel SCW keeps its "
                f"covariance in the span of the support vectors (full), use covariance='full'"
            )

    def _cw_params(self):
        return dict(phi=phi_of(self.eta), C=self.C, variant=self._variant, libol_typo=self.compat == "libol")

    def _rule_params(self):
        return rule_params(KernelSCWParams, **self._cw_params(), a=self.a)

    def _linear_spec(self):
        return dict(
            rule=SCW_RULE,
            prm=rule_params(SCWParams, **self._cw_params()),
            covariance=self.covariance,
            a=float(self.a),
            libol=self.compat == "libol",
        )


_TUNING = (("C", POWERS_OF_TWO), ("eta", CONFIDENCES))
"""C first, then η (docs/algorithms/linear-family.md#parameter-grids)."""
_SOURCES = {
    "C": "LIBOL default 1 (the SCW experiments select it)",
    "a": "LIBOL default",
    "sigma": "DUOL JMLR §5.1 (σ = 8), for kernel SCW",
}
_COMMON = COVARIANCE_DOC.format(c="αφ/√u")

_SCW_PARAMS = """    eta : float in (0.5, 1), default {eta}
        Confidence η (LIBOL default {eta}; the SCW experiments select it from 0.55..0.95).
    C : float > 0, default 1
        Aggressiveness (LIBOL default 1; selected from 2^-4..2^4).
{common}
    kernel : {{"linear", "gaussian", "poly"}}, default "linear"
        "linear" runs the primal form; any other kernel runs kernel SCW (§4.2, docs/algorithms/scw1.md#kernel-scw):
        μ and Σ kept in the span of the support vectors, O(#SV²) per round, binary data only.
    sigma, degree, coef0 : kernel parameters (Gaussian exp(−‖x−z‖²/(2σ²)); polynomial (x·z + coef0)^degree).
"""


_SCW_END = """
    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("{name}"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    {rate}

    References
    ----------
    Wang, J., Zhao, P., Hoi, S. C. H. (2012). Exact soft confidence-weighted learning. ICML.
    """


@register(
    "scw1",
    "SCW-I: soft confidence-weighted learning, CW with a hinge-capped step min(C, .) (Wang, Zhao, Hoi 2012)",
    data=("binary", "multiclass"),
    tuning=_TUNING,
    sources={**_SOURCES, "eta": "LIBOL default 0.75 (the SCW experiments select it)"},
    position=150,
    sweep={"cases": [{"C": 0.1}], "grid": {"C": [1.0, 0.1, 10.0], "eta": [0.75, 0.9, 0.6]}},
    weight="C ← s·C: SCW-I's cap min(sC, α_CW) (the objective's C·ℓ^φ counts s times); kernel and linear form",
)
class SCW1(_SCWBase):
    __doc__ = (
        """SCW-I (SCW Proposition 1, eq. (4)).

    Update iff ℓ^φ = φ√v − m > 0: α = min(C, max(0, (−mψ + sqrt(m²φ⁴/4 + vφ²ζ))/(vζ))),
    u = ¼(−αvφ + sqrt(α²v²φ² + 4v))², β = αφ/(√u + vαφ), μ ← μ + αΣΔ, Σ ← Σ − βΣΔΔᵀΣ (β from the
    capped α; diagonal: c = αφ/√u).

    Parameters
    ----------
"""
        + _SCW_PARAMS.format(eta=0.75, common=_COMMON)
        + """    compat : {"none", "libol"}, default "none"
        "libol" counts rounds with positive loss as updates (LIBOL's SCW.m
        follows eq. (4) exactly).

"""
        + _SCW_END.format(name="scw1", rate="0.277")
    )

    _variant = SCW_I

    def __init__(
        self,
        eta=0.75,
        C=1.0,
        a=1.0,
        covariance="full",
        kernel="linear",
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
        super().__init__(
            eta,
            C,
            a,
            covariance,
            kernel,
            sigma,
            degree,
            coef0,
            compat,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )


@register(
    "scw2",
    "SCW-II: soft confidence-weighted learning with a squared-hinge slack (Wang, Zhao, Hoi 2012)",
    data=("binary", "multiclass"),
    tuning=_TUNING,
    sources={**_SOURCES, "eta": "LIBOL default 0.9 (the SCW experiments select it)"},
    position=160,
    sweep={"cases": [{"C": 10.0}], "grid": {"C": [1.0, 0.1, 10.0], "eta": [0.75, 0.9, 0.6]}},
    weight="C ← s·C: n = v + 1/(2sC) (the objective's C·(ℓ^φ)² counts s times); kernel and linear form",
)
class SCW2(_SCWBase):
    __doc__ = (
        """SCW-II (SCW Proposition 2, eq. (5)).

    n = v + 1/(2C), γ = φ sqrt(φ²m²v² + 4nv(n + vφ²)), α = max(0, (−(2mn + φ²mv) + γ)/(2(n² + nvφ²))),
    then u, β and the updates as SCW-I (no cap on α). The formula was re-derived
    (docs/algorithms/scw2.md#update-rule): the paper is right.

    Parameters
    ----------
"""
        + _SCW_PARAMS.format(eta=0.9, common=_COMMON)
        + """    compat : {"none", "libol"}
        "libol" reproduces LIBOL's SCW2.m, which has two typos inside the square root
        (sqrt(φ⁴m²v·2 + 4nvφ²(n + vφ·2)) for φ·sqrt(φ²m²v² + 4nv(n + vφ²));
        docs/algorithms/scw2.md#compat-modes), and counts rounds with positive loss as updates.

"""
        + _SCW_END.format(name="scw2", rate="0.282")
    )

    _variant = SCW_II

    def __init__(
        self,
        eta=0.9,
        C=1.0,
        a=1.0,
        covariance="full",
        kernel="linear",
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
        super().__init__(
            eta,
            C,
            a,
            covariance,
            kernel,
            sigma,
            degree,
            coef0,
            compat,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )
