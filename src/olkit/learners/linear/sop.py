"""Second-order Perceptron (Cesa-Bianchi, Conconi, Gentile 2005), ALGORITHMS.md C5."""
from ...registry import register
from .base import LinearLearner


@register("sop", "Second-order Perceptron: perceptron in the metric of the data correlation matrix "
                 "(Cesa-Bianchi et al. 2005)")
class SOP(LinearLearner):
    """Second-order Perceptron (binary).

    Predicts ŷ_t = sign(vᵀ(A + x_t x_tᵀ)⁻¹x_t) with v = Σ y_s x_s and A = aI + Σ x_s x_sᵀ over the past
    mistakes (Sherman–Morrison keeps A⁻¹); on a mistake v ← v + y_t x_t and A ← A + x_t x_tᵀ.

    Parameters
    ----------
    a : float, default 1
        Regulariser, A = aI initially (C5). LIBOL initialises its SOP matrix, which holds A⁻¹, to aI
        instead; the two agree for LIBOL's default a = 1, the only value its experiments use.
    covariance : {"full", "diagonal"}, default "full"
        "diagonal" keeps A diagonal (A_jj += x_j²) and predicts with diag(A + x∘x)⁻¹: O(nnz) per round.
    compat : {"none", "libol"}, default "none"
        "libol": commit A ← A + x_t x_tᵀ on *every* round, as LIBOL's SOP.m and SOP_c.cpp do (the paper
        adds mistaken instances only; ALGORITHMS.md C5 [IMPL-DIFF]). #updates stay the mistakes.

    ``coef_`` is the current w = A⁻¹v (without the next instance's term); ``decision_function`` applies
    SOP's own prediction vᵀ(A + xxᵀ)⁻¹x to each row, so it is not ``X @ coef_.T``.

    References
    ----------
    Cesa-Bianchi, N., Conconi, A., Gentile, C. (2005). A second-order perceptron algorithm.
    SIAM J. Computing 34(3).
    """

    _rule = "sop"
    _multiclass = False

    def __init__(self, a=1.0, covariance="full", compat="none"):
        self.a = a
        self.covariance = covariance
        self.compat = compat

    def _linear_spec(self):
        # A⁻¹ starts at I/a: the model's covariance slot holds A⁻¹
        return {**super()._linear_spec(), "a": 1.0 / float(self.a)}
