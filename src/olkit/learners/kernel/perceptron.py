"""Kernel Perceptron (Rosenblatt 1958; kernelised as in Kivinen, Smola & Williamson 2001).

On every mistake (ŷ_t ≠ y_t) the example is added as a support vector with weight y_t:
f ← f + y_t κ(x_t, ·) (ALGORITHMS.md A1; DUOL JMLR §2, §5.1).
"""
from ..._compile import njit
from ...registry import register
from .base import KernelLearner
from .support_set import sv_append


@njit
def perceptron_update(sv, st, s, t, kself, y, f, mistake):
    if not mistake:
        return False
    j = sv_append(sv, s, t, kself, y)
    sv.coef[j, 0] = y  # f ← f + y_t κ(x_t, ·)
    return True


@register("perceptron", "Kernel Perceptron: add x_t with weight y_t on every mistake (Rosenblatt 1958)")
class KernelPerceptron(KernelLearner):
    """Kernel Perceptron.

    Parameters
    ----------
    kernel : {"gaussian", "linear", "poly"}, default "gaussian"
    sigma : float, default 8
        Gaussian width, κ(x, z) = exp(−‖x − z‖²/(2σ²)) (DUOL JMLR §5.1).
    degree, coef0 : polynomial kernel (x·z + coef0)^degree.
    compat : "none"; with kernel="linear" also "libol" (no difference: LIBOL's Perceptron.m is C1).

    With ``kernel="linear"`` the primal form runs (an explicit w ← w + y_t x_t, ALGORITHMS.md C1), and
    multiclass data use the max-score multi-prototype update (w_y += x, w_s −= x, s the predicted class;
    Crammer & Singer 2003, LIBOL M_PerceptronM).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> olkit.evaluate_online(olkit.make("perceptron"), X, y).mistakes > 0
    True

    References
    ----------
    Rosenblatt, F. (1958). The perceptron. Psychological Review 65(6).
    Kivinen, Smola, Williamson (2004). Online learning with kernels. IEEE TSP 52(8).
    """

    _rule = "perceptron"
    _linear_rule = "perceptron"

    def __init__(self, kernel="gaussian", sigma=8.0, degree=3, coef0=1.0, compat="none"):
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
