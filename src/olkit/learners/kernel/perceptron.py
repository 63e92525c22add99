"""Kernel Perceptron (Rosenblatt 1958; kernelised as in Kivinen, Smola & Williamson 2001) and, on
multiclass data, Crammer & Singer's ultraconservative perceptrons (JMLR 2003).

Binary: on every mistake (ŷ_t ≠ y_t) the example is added as a support vector with weight y_t,
f ← f + y_t κ(x_t, ·) (docs/algorithms/perceptron.md#update-rule; DUOL JMLR §2, §5.1).

Multiclass (docs/algorithms/perceptron.md#multiclass-and-multi-label; DUOL JMLR §5.5): the error set is
E_t = {r ≠ y_t : f_r(x_t) ≥ f_{y_t}(x_t)} (Crammer–Singer's ≥). If E_t ≠ ∅, x_t is added with coefficient vector τ:
τ_{y_t} = +1 and, for r ∈ E_t, by ``multiclass_update``:

* "max":     τ_r = −1 for the highest-scoring r ∈ E_t only (ties → the smallest class index);
* "uniform": τ_r = −1/|E_t|;
* "prop":    τ_r = −(f_r − f_y)/Σ_{r'∈E_t}(f_{r'} − f_y); when that sum is 0 (every error is a tie)
  it falls back to "uniform" (settles the unspecified tie handling, docs/algorithms/perceptron.md#settled-questions).

Σ_r τ_r = 0. The update fires on E_t ≠ ∅ (C&S's default), so a round whose tie is resolved in favour
of y_t (not a mistake under the ties-to-the-smallest-index rule) can still update.

Slow reference: tests/reference/kernel_binary.py (``perceptron``), tests/reference/kernel_multiclass.py
(``run_reference``, multiclass) and, with the linear kernel, tests/reference/linear.py (``first_order``).
"""

from typing import NamedTuple

from ..._compile import njit_helper
from ...params import Options
from ...spec import register
from ..linear.perceptron import PERCEPTRON_PRIMAL
from ..records import rule_params
from .base import KernelLearner
from .sv_edit import sv_append

MAX, UNIFORM, PROP = 0, 1, 2
MULTICLASS_UPDATES = {"max": MAX, "uniform": UNIFORM, "prop": PROP}


class PerceptronParams(NamedTuple):
    """Parameters of the kernel perceptron."""

    multiclass_update: int  # MAX, UNIFORM or PROP


@njit_helper
def perceptron_update(sv, st, s, t, kself, y, f, mistake):
    wt = s.sw[t]  # the step α = s_t: a weighted mistake (docs/algorithms/perceptron.md#weights)
    if f.shape[0] == 1:  # binary: f ← f + s_t y_t κ(x_t, ·) on a mistake
        if not mistake:
            return False
        j = sv_append(sv, s, t, kself, y)
        sv.coef[j, 0] = y * wt
        return True
    mode = st.prm.multiclass_update
    yi = int(y)
    fy = f[yi]
    size, worst, total = 0, -1, 0.0
    for r in range(f.shape[0]):
        if r != yi and f[r] >= fy:  # E_t
            size += 1
            total += f[r] - fy
            if worst < 0 or f[r] > f[worst]:
                worst = r
    if size == 0:
        return False
    j = sv_append(sv, s, t, kself, y)
    sv.coef[j, yi] = 1.0 * wt
    if mode == MAX:
        sv.coef[j, worst] = -1.0 * wt
        return True
    for r in range(f.shape[0]):
        if r != yi and f[r] >= fy:
            if mode == PROP and total > 0.0:
                sv.coef[j, r] = -(f[r] - fy) / total * wt
            else:
                sv.coef[j, r] = -1.0 / size * wt
    return True


@register(
    "perceptron",
    "Kernel Perceptron: add x_t with weight y_t on every mistake (Rosenblatt 1958); "
    "multiclass: Crammer-Singer max/uniform/prop",
    data=("binary", "multiclass"),
    sources={"sigma": "DUOL JMLR §5.1 (σ = 8)", "multiclass_update": "Crammer & Singer 2003; DUOL JMLR Table 4"},
    position=10,
    weight="the step α = s: a mistake adds s·y_t κ(x_t, ·) (multiclass: s times the Crammer-Singer τ)",
    weight_repeats=False,
    sweep={
        "cases": [
            {"multiclass_update": "prop"},
            {"multiclass_update": "uniform", "kernel": "poly", "degree": 2, "coef0": 1.0},
        ],
        "grid": {"multiclass_update": ["max", "uniform", "prop"]},
    },
)
class KernelPerceptron(KernelLearner):
    """Kernel Perceptron; on multiclass data Crammer & Singer's ultraconservative perceptrons.

    Parameters
    ----------
    multiclass_update : {"max", "uniform", "prop"}, default "max"
        How the error set shares the negative update on multiclass data (see the module docstring;
        DUOL JMLR Table 4 reports all three). Ignored on binary data.
    kernel : {"gaussian", "linear", "poly"}, default "gaussian"
    sigma : float, default 8
        Gaussian width, κ(x, z) = exp(−‖x − z‖²/(2σ²)) (DUOL JMLR §5.1).
    degree, coef0 : polynomial kernel (x·z + coef0)^degree.
    compat : "none"; with kernel="linear" also "libol" (no difference: LIBOL's Perceptron.m is the same rule).

    With ``kernel="linear"`` the primal form runs (an explicit w ← w + y_t x_t,
    docs/algorithms/perceptron.md#linear-form), and multiclass data use the max-score multi-prototype update
    (w_y += x, w_s −= x, s the predicted class; Crammer & Singer 2003, LIBOL M_PerceptronM).

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
    Crammer, K., Singer, Y. (2003). Ultraconservative online algorithms for multiclass problems. JMLR 3.
    """

    _average_writes = "appended"  # the rule sets only the coefficients of the SV it appends

    _update = staticmethod(perceptron_update)
    _linear_rule = PERCEPTRON_PRIMAL
    _kernel_data = ("binary", "multiclass")
    _parameter_constraints = {"multiclass_update": [Options(tuple(MULTICLASS_UPDATES))]}

    def __init__(
        self,
        multiclass_update="max",
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
        self.multiclass_update = multiclass_update
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _check_params(self):
        super()._check_params()
        if self._primal() and self.multiclass_update != "max":
            raise ValueError(
                f"perceptron: multiclass_update={self.multiclass_update!r} has no primal form; with "
                "kernel='linear' only 'max' runs (use kernel='poly', degree=1, coef0=0 for the "
                "linear kernel in dual form)"
            )

    def _rule_params(self):
        return rule_params(PerceptronParams, multiclass_update=MULTICLASS_UPDATES[self.multiclass_update])
