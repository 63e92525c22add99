"""Passive-Aggressive learners PA, PA-I, PA-II (Crammer et al. 2006), kernelised; binary, multiclass and
multi-label.

Binary (docs/algorithms/pa.md#update-rule; SCW paper eqs (1)–(2)): whenever the hinge loss ℓ_t = max(0, 1 − y_t f(x_t))
is positive, add x_t with weight y_t τ_t:

* PA:    τ = ℓ_t / κ(x_t, x_t)
* PA-I:  τ = min(C, ℓ_t / κ(x_t, x_t))
* PA-II: τ = ℓ_t / (κ(x_t, x_t) + 1/(2C))

Multiclass and multi-label (docs/algorithms/pa1.md#multiclass-and-multi-label, the "max-loss" multi-prototype form;
DUOL JMLR §5.5): with r_t the worst-scoring relevant class and s_t the best-scoring irrelevant one (ties → the
smallest index), ℓ_t = [1 − (f_{r_t}(x_t) − f_{s_t}(x_t))]_+; on ℓ_t > 0, x_t is added with coefficient +τ for r_t and
−τ for s_t, where κ_t is replaced by 2κ_t = ‖H_t‖²κ_t (PA-II: ℓ/(2κ_t + 1/(2C))).

A zero-norm example (κ(x_t, x_t) ≤ 1e-12, possible with the linear kernel) cannot change f and is skipped.

Slow reference: tests/reference/kernel_binary.py (``pa``), tests/reference/kernel_multiclass.py (``run_reference``,
multiclass) and, with the linear kernel, tests/reference/linear.py (``first_order``).
"""

from ..._compile import min2, njit_helper, njit_inline
from ...params import POSITIVE, POWERS_OF_TWO
from ...spec import register
from ..linear.pa import PA_I, PA_II, PA_PLAIN, PA_PRIMAL, PAParams
from ..records import rule_params
from .base import EPS, KernelLearner
from .engine import relevant_pair
from .multiclass import set_direction
from .sv_edit import sv_append


@njit_inline
def pa_step(variant, C, loss, q):
    """τ of PA / PA-I / PA-II for loss ℓ and squared norm q of the update direction."""
    if variant == PA_PLAIN:
        return loss / q
    if variant == PA_I:
        return min2(C, loss / q)
    return loss / (q + 1.0 / (2.0 * C))


@njit_helper
def pa_update(sv, st, s, t, kself, y, f, mistake):
    # C_t = s_t C: the example's loss counts s_t times (docs/algorithms/pa1.md#weights); plain PA reads no C, its
    # weight only switches the example on (docs/algorithms/pa.md#weights)
    variant, C = st.prm.variant, st.prm.C * s.sw[t]
    if kself <= EPS:
        return False
    if f.shape[0] == 1:
        loss = 1.0 - y * f[0]
        if loss <= 0.0:
            return False
        j = sv_append(sv, s, t, kself, y)
        sv.coef[j, 0] = y * pa_step(variant, C, loss, kself)
        return True
    r, w = relevant_pair(s.Y, t, f)
    if r < 0 or w < 0:
        return False
    loss = 1.0 - (f[r] - f[w])
    if loss <= 0.0:
        return False
    j = sv_append(sv, s, t, kself, y)
    set_direction(sv, j, r, w, pa_step(variant, C, loss, 2.0 * kself))
    return True


BINARY_C, MULTICLASS_C, LIBOL_C = 5.0, 10.0, 1.0


def paper_C(learner):
    """C as used when ``C=None``: 5 on binary data (DUOL JMLR §5.1), 10 on multiclass and multi-label
    data (DUOL JMLR §5.5), LIBOL's 1 with compat="libol"."""
    if learner.C is not None:
        return learner.C
    if learner.compat == "libol":
        return LIBOL_C
    classes = getattr(learner, "classes_", None)
    multi = classes is not None and (len(classes) > 2 or getattr(learner, "multilabel_", False))
    return MULTICLASS_C if multi else BINARY_C


class _PABase(KernelLearner):
    _update = staticmethod(pa_update)
    _linear_rule = PA_PRIMAL
    _kernel_data = ("binary", "multiclass", "multilabel")
    _variant = PA_PLAIN
    _average_writes = "appended"  # the rule sets only the coefficients of the SV it appends
    _parameter_constraints = {"C": [POSITIVE, None]}

    def __init__(
        self,
        C=None,
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
        self.C = C
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _C(self):
        return paper_C(self)

    def _rule_params(self):
        return rule_params(PAParams, variant=self._variant, C=self._C())

    def _resolved_params(self):
        return {**self._algorithm_params(), "C": self._C()}


_PA_DOC = """{title}

    Parameters
    ----------
{C}    kernel : {{"gaussian", "linear", "poly"}}, default "gaussian"
    sigma : float, default 8
        Gaussian width, κ(x, z) = exp(−‖x − z‖²/(2σ²)) (σ = 8 in the DUOL experiments).
    degree, coef0 : polynomial kernel (x·z + coef0)^degree.
    compat : "none"; with kernel="linear" also "libol" (LIBOL's PA*.m follow the linear form exactly; only the
        default C changes).

    Multiclass and multi-label data use the max-loss multi-prototype update (see the module docstring);
    multi-label ``y`` is an n × K 0/1 indicator matrix. With ``kernel="linear"`` the primal form runs
    (docs/algorithms/pa1.md#linear-form, κ_t = ‖x_t‖²; multiclass: w_y += τx, w_s −= τx with ‖Δ‖² = 2‖x‖², Crammer et
    al. 2006 §7; LIBOL M_PA*; single-label only).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> olkit.make("pa1").fit(X, y).resolved_params()["C"]
    5.0

    References
    ----------
    Crammer, Dekel, Keshet, Shalev-Shwartz, Singer (2006). Online passive-aggressive algorithms. JMLR 7.
    """

_C_DOC = """    C : float > 0 or None, default None
        Aggressiveness (penalty) parameter. None means the paper's setting: C = 5 on binary data (DUOL
        JMLR §5.1), C = 10 on multiclass and multi-label data (DUOL JMLR §5.5), or LIBOL's default C = 1
        with ``compat="libol"``.
"""

_DATA = ("binary", "multiclass", "multilabel")
_C_SOURCE = {
    "C": "DUOL JMLR §5.1 (binary 5), §5.5 (multiclass 10); LIBOL 1 under compat='libol'",
    "sigma": "DUOL JMLR §5.1 (σ = 8)",
}


@register(
    "pa",
    "Passive-Aggressive: on hinge loss add x_t with step loss/k(x_t,x_t) (Crammer et al. 2006)",
    data=_DATA,
    sources={"sigma": _C_SOURCE["sigma"]},
    position=20,
    weight="on/off: the projection onto ℓ = 0 is the same for any s > 0; s = 0 skips the example",
    weight_repeats=True,
)
class PA(_PABase):
    __doc__ = _PA_DOC.format(title="PA: τ = ℓ/κ(x_t, x_t) (multiclass: ℓ/(2κ_t)).", C="").replace(
        """    >>> olkit.make("pa1").fit(X, y).resolved_params()["C"]
    5.0""",
        """    >>> olkit.make("pa").fit(X, y).n_support_ > 0
    True""",
    )

    _variant = PA_PLAIN
    _primal_poor_score = True  # uncapped steps: 0.79 on scikit-learn's binary blobs after one pass
    _parameter_constraints = {}

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
        return rule_params(PAParams, variant=PA_PLAIN, C=0.0)

    def _resolved_params(self):  # plain PA has no C to resolve
        return self._algorithm_params()


@register(
    "pa1",
    "PA-I: hinge-loss step min(C, loss/k(x_t,x_t)) (Crammer et al. 2006)",
    data=_DATA,
    tuning=(("C", POWERS_OF_TWO),),
    sources=_C_SOURCE,
    position=30,
    weight="C ← s·C: PA-I's step min(sC, ℓ/κ_t) (binary: k repetitions give min(kC, ℓ/κ_t) too)",
    weight_repeats=True,
    sweep={"cases": [{"C": 0.5}], "grid": {"C": [None, 0.1, 10.0]}},
)
class PA1(_PABase):
    __doc__ = _PA_DOC.format(title="PA-I: τ = min(C, ℓ/κ(x_t, x_t)) (multiclass: min(C, ℓ/(2κ_t))).", C=_C_DOC)
    _variant = PA_I


@register(
    "pa2",
    "PA-II: hinge-loss step loss/(k(x_t,x_t) + 1/(2C)) (Crammer et al. 2006)",
    data=_DATA,
    tuning=(("C", POWERS_OF_TWO),),
    sources=_C_SOURCE,
    position=40,
    weight="C ← s·C: PA-II's step ℓ/(κ_t + 1/(2sC))",
    weight_repeats=False,
    sweep={"cases": [{"C": 0.5}], "grid": {"C": [None, 0.1, 10.0]}},
)
class PA2(_PABase):
    __doc__ = _PA_DOC.format(title="PA-II: τ = ℓ/(κ(x_t, x_t) + 1/(2C)) (multiclass: ℓ/(2κ_t + 1/(2C))).", C=_C_DOC)
    _variant = PA_II
