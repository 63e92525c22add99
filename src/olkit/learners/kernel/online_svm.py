"""Online-SVM, the yardstick of the NIPS 2009 DUOL paper (Shalev-Shwartz & Singer 2006).

After every margin error the dual of  min_f ½‖f‖² + C Σ_{s≤t} max(0, 1 − y_s f(x_s))  (no bias),

    max_{γ ∈ [0, C]^W}  Σ_s γ_s − ½ Σ_{s,r} γ_s γ_r y_s y_r κ(x_s, x_r),

is re-solved over the working set W by dual coordinate ascent until the KKT conditions hold within
``tol`` (docs/algorithms/online-svm.md#update-rule): sweep i = 1..|W| in storage order; if (γ_i < C and g_i < 1 − tol)
or (γ_i > 0 and g_i > 1 + tol), with g_i = y_i f(x_i), take Δ = clip((1 − g_i)/κ_ii, −γ_i, C − γ_i),
γ_i += Δ and g_j += y_j y_i Δ κ_ij for all j; stop after a sweep without change or ``max_sweeps``
sweeps. A round with ℓ_t = 0 keeps the previous solution optimal (γ_t = 0 satisfies the KKT conditions).

Settled uncertainty (the working set): ``working_set="margin"`` (default) holds every example that was a
margin error on arrival; ``"all"`` stores every example, so examples that become margin violators later
are also re-optimised — the exact batch SVM on the prefix at every round (O(t²) memory and time).
#SV counts the examples with γ_s > 0. Slow by design.

Slow reference: tests/reference/kernel_binary.py (``online_svm``).
"""

from typing import NamedTuple

from ..._compile import njit_helper
from ...params import POSITIVE, Interval, Options
from ...spec import register
from ..records import rule_params
from .base import EPS, KernelLearner
from .gram import sync_gram
from .support_set import N
from .sv_edit import sv_append

WORKING_SETS = {"margin": False, "all": True}  # keep every example as an SV ("all") or the margin errors


class OnlineSVMParams(NamedTuple):
    """Parameters of Online-SVM."""

    C: float
    tol: float
    keep_all: bool  # working_set="all"
    max_sweeps: int


@njit_helper
def online_svm_update(sv, st, s, t, kself, y, fv, mistake):
    f = fv[0]
    C, tol, keep_all, max_sweeps = st.prm.C, st.prm.tol, st.prm.keep_all, st.prm.max_sweeps
    loss = 1.0 - y * f
    if loss <= 0.0 and not keep_all:
        return False
    j = sv_append(sv, s, t, kself, y)
    sv.F[j] = y * f
    if loss <= 0.0:
        return False
    sync_gram(sv)  # the coordinate steps read whole Gram rows
    n = sv.meta[N]
    # each SV's box is 0 ≤ γ_i ≤ s_i C, s_i the weight of its example (``sv.sw``, docs/algorithms/online-svm.md#weights)
    F, coef, label, kdiag, gram, box = sv.F, sv.coef, sv.y, sv.kself, sv.gram, sv.sw
    changed = False
    for _ in range(max_sweeps):
        sweep_changed = False
        for i in range(n):
            g = F[i]
            gamma = coef[i, 0] * label[i]
            Ci = C * box[i]  # the box s_i C of SV i
            if not ((gamma < Ci and g < 1.0 - tol) or (gamma > 0.0 and g > 1.0 + tol)) or kdiag[i] <= EPS:
                continue
            delta = min(max((1.0 - g) / kdiag[i], -gamma), Ci - gamma)
            if delta == 0.0:
                continue
            coef[i, 0] = (gamma + delta) * label[i]
            for m in range(n):
                F[m] += label[m] * label[i] * delta * gram[i, m]
            sweep_changed = True
        if not sweep_changed:
            break
        changed = True
    return changed


@register(
    "online-svm",
    "Online-SVM: re-solve the SVM dual over the working set after every margin error (yardstick)",
    position=120,
    weight="C ← s·C for that example: its dual box 0 ≤ γ ≤ sC (k repetitions: the same optimum, up to tol)",
    weight_repeats=False,
    sweep={"cases": [{"working_set": "all", "C": 0.5}], "grid": {"working_set": ["margin", "all"], "C": [5.0, 0.5]}},
)
class OnlineSVM(KernelLearner):
    """Online-SVM by dual coordinate ascent (the "updates all weights" yardstick of DUOL NIPS 2009).

    Parameters
    ----------
    C : float, default 5
        Box constraint 0 ≤ γ ≤ C (C = 5 in NIPS §4.1).
    tol : float, default 1e-3
        KKT tolerance of the coordinate ascent.
    working_set : {"margin", "all"}, default "margin"
        Examples kept in the dual (see the module docstring).
    max_sweeps : int, default 1000
        Bound on coordinate-ascent sweeps per round.
    kernel, sigma, degree, coef0, compat : as the other kernel learners.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("online-svm"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    0.249

    References
    ----------
    Shalev-Shwartz, S., Singer, Y. (2006). Online learning meets optimization in the dual. COLT.
    Zhao, Hoi, Jin (2009). DUOL: a double updating approach for online learning. NIPS 22.
    """

    _update = staticmethod(online_svm_update)
    _gram = "cache"

    def __init__(
        self,
        C=5.0,
        tol=1e-3,
        working_set="margin",
        max_sweeps=1000,
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
        self.tol = tol
        self.working_set = working_set
        self.max_sweeps = max_sweeps
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
        "C": [POSITIVE],
        "tol": [POSITIVE],
        "max_sweeps": [Interval(1, None, integer=True)],
        "working_set": [Options(tuple(WORKING_SETS))],
    }

    def _rule_params(self):
        return rule_params(
            OnlineSVMParams, C=self.C, tol=self.tol, keep_all=WORKING_SETS[self.working_set], max_sweeps=self.max_sweeps
        )
