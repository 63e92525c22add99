"""What the budgeted learners share: the multi-prototype lift of docs/algorithms/multiclass.md#budgeted-learners,
row operations on
the support set, removal in arrival order, and the base class with the parameters every one of them has.

One code path for binary and multiclass data (the same page). The model is a coefficient matrix A (one row A_i per
SV, scores F(x) = Σ_i A_i κ(x_i, x)); on binary data A has K' = 1 column and the direction of an update is D_t =
y_t; on data with K ≥ 3 classes A has K columns and D_t = H_t = e_{y_t} − e_{s_t}, with s_t the best-scoring other
class (ties to the smallest index). The margin is m_t = D_t·F(x_t) (= y_t f(x_t), or Γ_t = f_{y_t} − f_{s_t}) and
c_D = ‖D_t‖² (1 or 2). Every binary formula of the learner pages reads with y_t → D_t, y_t f → m_t, |α_i| → ‖A_i‖₂
and λ²κ_t → c_D λ²κ_t. The norm is ‖f‖² = tr(AᵀK_S A).

Choices that remove "the oldest" or "the k-th SV" use the support set's arrival order
(``sv.arrival``), so they do not depend on where block boundaries fell.

``compat`` modes (docs/algorithms/budget-family.md#compat-modes): a learner that reproduces a reference
implementation lists its
values in ``_kernel_compat`` and describes each in ``_compat_rules`` (:class:`CompatRule`): the compiled rule
it runs on binary and on multiclass data, the mistake test it needs where the reference counts mistakes
differently (DOGMA's sign(0) = 0), and whether round 1 always counts as a mistake (the AHP R scripts). A
default run (``compat="none"``) compiles exactly the default rule and the default mistake test.
"""

import math
from typing import ClassVar, NamedTuple

import numpy as np

from ..._compile import njit_helper, njit_inline
from ...base import MISTAKES, SEEN
from ...params import SEED, Interval, Options
from ..kernel.base import DIAG, EPS, KernelLearner
from ..kernel.engine import relevant_pair
from ..kernel.multiclass import set_direction
from ..kernel.stream import BINARY, MULTICLASS
from ..kernel.support_set import N
from ..kernel.sv_edit import set_coef, sv_append, sv_remove, sv_scale

BUDGET = Interval(2, None, integer=True)
"""A budget B ≥ 2 (removal rules need B − 1 ≥ 1 other SVs)."""

POSITIVE_OR_INF = Interval(0, None, closed="neither")
"""A radius U > 0; ``math.inf`` (no projection) is accepted separately."""

RADIUS = [POSITIVE_OR_INF, Options((math.inf,)), None]
"""U > 0, ``math.inf`` (no ball), or None (the learner's paper setting)."""

D0 = DIAG
"""First diagnostic counter slot of the budgeted rules."""


class BudgetParams(NamedTuple):
    """Parameters of the rules whose only parameter is the budget (RBP, Forgetron)."""

    B: int  # at most B SVs


@njit_helper
def margin_direction(s, t, y, f):
    """(r, c, m_t, c_D): binary (0, −1, y_t f(x_t), 1); multiclass (y_t, s_t, Γ_t, 2)
    (docs/algorithms/multiclass.md#budgeted-learners)."""
    if f.shape[0] == 1:
        return 0, -1, y * f[0], 1.0
    r, c = relevant_pair(s.Y, t, f)
    return r, c, f[r] - f[c], 2.0


@njit_inline
def margin_of(Y, t, y, f):
    """m_t of :func:`margin_direction` from plain arrays (for the gates)."""
    if f.shape[0] == 1:
        return y * f[0]
    r, c = relevant_pair(Y, t, f)
    return f[r] - f[c]


@njit_inline
def epsilon_margin_gate(prm, Y, t, y, f, kself, mistake, coef, hw, n):
    """Gate of the rules that act iff m_t < 1 − ε (ε = ``prm.epsilon``) and κ(x_t, x_t) > EPS (AVP, Ahpatron)."""
    return not (margin_of(Y, t, y, f) >= 1.0 - prm.epsilon or kself <= EPS)


@njit_inline
def nonpositive_margin_gate(prm, Y, t, y, f, kself, mistake, coef, hw, n):
    """Gate of the rules that act iff m_t ≤ 0 and κ(x_t, x_t) > EPS (Forgetron)."""
    return not (margin_of(Y, t, y, f) > 0.0 or kself <= EPS)


@njit_inline
def mistake_gate(prm, Y, t, y, f, kself, mistake, coef, hw, n):
    """Gate of the rules that act on mistakes only (RBP)."""
    return mistake


@njit_helper
def append_direction(sv, s, t, kself, y, r, c, v):
    """Store x_t as a new SV with the row v·D_t and return its slot (``sv.krow`` holds its kernel row)."""
    if c < 0:
        j = sv_append(sv, s, t, kself, y)
        set_coef(sv, j, 0, v * y)  # recorded at once in the averaged model (sv_edit.set_coef)
        return j
    j = sv_append(sv, s, t, kself, float(r))
    set_direction(sv, j, r, c, v)
    return j


@njit_helper
def add_along(sv, d, y, r, c, v):
    """A_i += v d_i D_t for every SV i (a projected step, d = K_S⁻¹k_t); multiclass rows lose their
    two-entry form (the scores then read the whole row)."""
    n = sv.meta[N]
    if c < 0:
        g = v * y
        for i in range(n):
            sv.coef[i, 0] += g * d[i]
        return
    for i in range(n):
        sv.coef[i, r] += v * d[i]
        sv.coef[i, c] -= v * d[i]
        sv.hr[i] = -1


@njit_helper
def scale_row(sv, i, factor):
    """A_i ← factor·A_i."""
    for q in range(sv.coef.shape[1]):
        sv.coef[i, q] *= factor
    sv.hw[i] *= factor


@njit_helper
def row_norm(sv, i):
    """‖A_i‖₂ (binary |α_i|)."""
    acc = 0.0
    for q in range(sv.coef.shape[1]):
        acc += sv.coef[i, q] * sv.coef[i, q]
    return math.sqrt(acc)


@njit_helper
def clip_entries(sv, bound):
    """|A_i[r]| ≤ bound for every entry, sign kept (BOGD's coefficient bound ηγ). Returns the number of
    entries clipped."""
    n = sv.meta[N]
    clipped = _clip_flat(sv.coef.reshape(-1), n * sv.coef.shape[1], bound)  # rows 0..n−1 of a C-ordered array
    for i in range(n):
        if sv.hr[i] >= 0:
            sv.hw[i] = sv.coef[i, sv.hr[i]]
    return clipped


@njit_helper
def _clip_flat(a, m, bound):
    """a[k] ← clamp(a[k], −bound, bound) for k < m (one vectorised loop); returns how many changed."""
    clipped = 0
    for k in range(m):
        v = a[k]
        c = min(max(v, -bound), bound)
        clipped += c != v
        a[k] = c
    return clipped


@njit_helper
def remove_by_age(sv, k):
    """Remove the k-th oldest SV (k = 0: the oldest)."""
    sv_remove(sv, sv.arrival[k])


@njit_helper
def project_to_ball(sv, norm2, U):
    """Proj_U: scale f onto ‖f‖ ≤ U when ‖f‖² = norm2 exceeds U²; returns the new ‖f‖²."""
    if norm2 > U * U:
        sv_scale(sv, U / math.sqrt(norm2))
        return U * U
    return norm2


@njit_helper
def rescale_norm(sv, norm2, target):
    """Scale every coefficient so that ‖f‖ = target (‖f‖² = norm2 now); a zero model is left as it is.
    Returns the new ‖f‖²."""
    if norm2 > 0.0:
        sv_scale(sv, target / math.sqrt(norm2))
        return target * target
    return max(norm2, 0.0)


@njit_helper
def gram_blocks(sv, keep, drop):
    """(K₂, K₂₁): the SV Gram cache on the kept slots, and kept × dropped (the cache must be mirrored)."""
    h, r = keep.shape[0], drop.shape[0]
    K2 = np.empty((h, h))
    K21 = np.empty((h, r))
    for a in range(h):
        for b in range(h):
            K2[a, b] = sv.gram[keep[a], keep[b]]
        for b in range(r):
            K21[a, b] = sv.gram[keep[a], drop[b]]
    return K2, K21


@njit_helper
def clip_above(sv, bound):
    """A_i[r] ← min(A_i[r], bound) for every entry (LSOKL-mc ``BOGD.m``'s one-sided bound; negative entries
    are not bounded). A row changed this way is no longer a direction γH (``hr = −1``). Returns the number
    of entries changed."""
    clipped = 0
    for i in range(sv.meta[N]):
        changed = False
        for q in range(sv.coef.shape[1]):
            if sv.coef[i, q] > bound:
                sv.coef[i, q] = bound
                clipped += 1
                changed = True
        if changed and sv.hr[i] >= 0:
            sv.hr[i] = -1
    return clipped


# ---- compat: DOGMA's mistake (docs/algorithms/budget-family.md#dogma) ----------------------------------------------


@njit_inline
def dogma_binary_mistake(s, t, f):
    """DOGMA: sign(f) ≠ y with sign(0) = 0, i.e. y f ≤ 0 (f = 0 is always a mistake)."""
    return s.y[t] * f[0] <= 0.0


@njit_inline
def dogma_multiclass_mistake(s, t, f):
    """DOGMA ``k_perceptron_multi_train.m``: f_y ≤ max_{c≠y} f_c (Γ_t ≤ 0; a tie for the top is a mistake)."""
    y = int(s.y[t])
    for c in range(f.shape[0]):
        if c != y and f[c] >= f[y]:
            return True
    return False


DOGMA_MISTAKES = {BINARY: dogma_binary_mistake, MULTICLASS: dogma_multiclass_mistake}
"""The mistake tests of ``compat="dogma"`` by data kind (see :func:`olkit.learners.kernel.engine.block_loop`)."""


class CompatRule(NamedTuple):
    """What one ``compat`` value changes in a budgeted learner (docs/algorithms/budget-family.md#compat-modes)."""

    binary: object
    """The compiled rule on binary data."""
    multiclass: object = None
    """The compiled rule on multiclass data; None: the reference code has no multiclass form (ValueError)."""
    mistakes: dict | None = None
    """{data kind: compiled mistake test} where the reference counts mistakes unlike
    docs/algorithms/conventions.md#ties; None: that page's."""
    first_round_mistake: bool = False
    """Round 1 always counts as a mistake (the AHP R scripts start their loop at round 2 with error = 1)."""
    source: str = ""
    """The reference files, for messages."""


def model_norm2(support):
    """tr(AᵀK_S A), ‖f‖² recomputed from scratch (tests and diagnostics; O(#SV²) kernel values)."""
    n = support.n
    if n == 0:
        return 0.0
    A = support.coef[:n]
    return float(np.sum(A * (support.gram_matrix() @ A)))


class BudgetLearner(KernelLearner):
    """Base of the budgeted kernel learners (binary and multiclass by the lift of
    docs/algorithms/multiclass.md#budgeted-learners).

    Defaults are the Ahpatron experiments' settings: the Gaussian kernel with σ = 1 (AHP "Experiments"; σ = 2
    for w8a and a9a).
    """

    _kernel_data: ClassVar[tuple[str, ...]] = ("binary", "multiclass")
    _parameter_constraints = {"B": [BUDGET], "seed": [SEED]}

    def _multiclass_model(self):
        return self._n_outputs() > 1

    def _max_support(self):
        return int(self.B) + 1 if getattr(self, "B", None) is not None else None

    def _seed(self):
        return int(getattr(self, "seed", 0))

    def _counter(self, slot):
        return int(self.state_.cnt[D0 + slot])

    # ---- compat modes (docs/algorithms/budget-family.md#compat-modes) ----------------------------------------------
    _compat_rules: ClassVar[dict[str, CompatRule]] = {}
    """{compat value: CompatRule} of the values in ``_kernel_compat`` other than "none"."""

    def _compat_rule(self):
        return None if self.compat == "none" else self._compat_rules[self.compat]

    def _update_rule(self):
        rule = self._compat_rule()
        if rule is None:
            return super()._update_rule()
        return rule.multiclass if self._multiclass_model() else rule.binary

    def _make_stream(self, X, y_internal, weights=None):
        rule = self._compat_rule()
        if (
            rule is not None
            and weights is not None
            and self._update_rule() is not super()._update_rule()
            and np.any((weights != 0.0) & (weights != 1.0))
        ):
            raise ValueError(
                f"{self.algorithm_name}: compat={self.compat!r} reproduces {rule.source}, which has no example "
                "weights; weights other than 0 and 1 need compat='none' (docs/algorithms/options.md#weights)"
            )
        return super()._make_stream(X, y_internal, weights)

    def _mistake_tests(self):
        rule = self._compat_rule()
        return None if rule is None else rule.mistakes

    def _new_state(self, X):
        rule = self._compat_rule()
        if rule is not None and self._multiclass_model() and rule.multiclass is None:
            usable = ["'none'"] + [repr(c) for c, r in self._compat_rules.items() if r.multiclass is not None]
            raise ValueError(
                f"{self.algorithm_name}: compat={self.compat!r} ({rule.source}) has no multiclass form; "
                f"the data have {len(self.classes_)} classes (use compat={' or '.join(usable)})"
            )
        super()._new_state(X)

    def _learn_block(self, stream, X, order, start, stop, scores, mistakes):
        rule = self._compat_rule()
        first = rule is not None and rule.first_round_mistake and stop > start and self.state_.cnt[SEEN] == 0
        super()._learn_block(stream, X, order, start, stop, scores, mistakes)
        if first and not mistakes[start]:  # the AHP R scripts count round 1 as a mistake whatever f_1 = 0 says
            mistakes[start] = 1
            self.state_.cnt[MISTAKES] += 1
