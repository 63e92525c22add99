"""DUOL: Double Updating Online Learning (Zhao, Hoi, Jin; NIPS 2009, JMLR 2011) and its variants.

On a margin error (ℓ_t = 1 − y_t f(x_t) > 0), DUOL adds x_t and also updates the weight of one existing
support vector x_b, the *auxiliary example*: among the SVs that are still margin errors (F_i ≤ 1, with
cached margins F_i = y_i f(x_i)), the one most in conflict with x_t, b = argmin_i y_i y_t κ(x_i, x_t).
If w_ab = y_t y_b κ(x_t, x_b) ≤ −ρ, both weights are set by the dual problem (1) of JMLR §3.3:

    max  ℓ_a γ_a + ℓ_b d − ½ k_a γ_a² − ½ k_b d² − w_ab γ_a d
    s.t. 0 ≤ γ_a ≤ C,  −γ̂_b ≤ d ≤ C − γ̂_b

(k_a = κ(x_t, x_t), k_b = κ(x_b, x_b), ℓ_b = 1 − F_b, γ̂_b the current weight of x_b); otherwise a single
PA-I step γ_t = min(C, ℓ_t/k_a). Then γ_t y_t is the new SV's coefficient, γ_b ← γ̂_b + d, and every
cached margin is updated, F_i += y_i (y_t γ_a κ(x_i, x_t) + y_b d κ(x_i, x_b)), using the SV Gram cache.
(Specification: docs/algorithms/duol.md and its variants' pages.)

Solvers of problem (1):

* ``duol``: exact, Proposition 2's four-case closed form, with the generic 2-variable box-QP solver as
  fallback (degenerate Δ = k_a k_b − w_ab² = 0, or floating-point gaps between the cases);
* ``duol-appr``: Theorem 1's approximate optimum γ_t = 1/(1−ρ), γ_b = γ̂_b + 1/(1−ρ), both clipped to
  C (the NIPS paper clips; γ_b ≤ C is required for the dual-ascent argument);
* ``duol-iter``: one pass of coordinate ascent, γ_a = clip(ℓ_a/k_a, 0, C), then
  d = clip((ℓ_b − w_ab γ_a)/k_b, −γ̂_b, C − γ̂_b) (the natural reading of JMLR §5.1 (iii));
* ``duol-rand``: the auxiliary SV drawn uniformly from S_{t−1} on every margin error (the double update
  is applied unconditionally, our reading of JMLR §5.3), solved by the generic box-QP solver because
  w_ab > 0 and ℓ_b < 0 are possible there.

``variant="nips2009"`` is the NIPS 2009 algorithm: candidates need F_i ≤ 0, the argmin is strict with
w_min starting at 0 (only w_i < 0 qualify), the double update is γ_t = min(C, 1/(1−ρ)),
γ_b = min(C, γ̂_b + 1/(1−ρ)), and the single update is γ_t = min(C, 1).

Floating point: after an unclipped step an SV's margin is exactly 1 in exact arithmetic, so F_i ≤ 1 is
decided by the last bit of a kernel value. ``tol`` (default 1e-9) makes the tests F_i ≤ 1 + tol and
ℓ_t > tol, which gives the exact-arithmetic result independent of summation order; ``tol=0`` is the
literal reading. (The NIPS candidate test is F_i ≤ tol.) Ties in the argmin take the *last* minimiser
(JMLR Algorithm 1 compares with ≤).

Diagnostics (docs/algorithms/duol.md#strong-and-weak-double-updates): double updates, and on mistake rounds with a
double update the strong ones (w_ab ≤ −ρ, F_b ≤ 0, C ≥ γ̂_b + 1/(1−ρ)) and the weak ones (otherwise w_ab ≤ −ρ,
F_b ≤ 1 + tol, C ≥ γ̂_b + ρ), the M_d^s and M_d^w of JMLR Theorem 4 and Figure 4.

Slow reference: tests/reference/kernel_binary.py (``duol``) and tests/reference/kernel_multiclass.py
(``run_reference``, multiclass).
"""

import math
from typing import ClassVar, NamedTuple

from ..._compile import max2, min2, njit_helper, njit_inline
from ..._rng import next_index
from ...params import NON_NEGATIVE, POSITIVE, POWERS_OF_TWO, SEED, Interval, Options
from ...spec import register
from ..records import rule_params
from .base import DIAG, EPS, KernelLearner
from .duol_scans import (
    first_tied,
    first_unrelated_candidate,
    label_weights,
    listed_margins,
    listed_weights,
    lists,
    tied_pick,
)
from .engine import relevant_pair
from .gram import load_gram_row, load_gram_row_related
from .members import list_members
from .multiclass import h_dot, set_direction
from .pa import paper_C
from .support_set import N
from .sv_edit import set_coef, sv_append

EXACT, APPR, ITER, RAND = 0, 1, 2, 3
JMLR, NIPS2009 = 0, 1
VARIANTS = {"jmlr": JMLR, "nips2009": NIPS2009}


class DUOLParams(NamedTuple):
    """Parameters of DUOL and its variants (binary and M-DUOL)."""

    C: float
    rho: float  # a double update needs w_min ≤ −ρ
    tol: float  # losses and margins within tol count as zero (ties)
    variant: int  # JMLR or NIPS2009
    solver: int  # EXACT, APPR, ITER or RAND


# diagnostic counter slots
D_DOUBLE, D_STRONG, D_WEAK, D_FALLBACK = DIAG, DIAG + 1, DIAG + 2, DIAG + 3


@njit_inline
def qp_objective(la, lb, qa, qb, w, ga, d):
    return la * ga + lb * d - 0.5 * qa * ga * ga - 0.5 * qb * d * d - w * ga * d


@njit_inline
def _clip(v, lo, hi):
    return min2(max2(v, lo), hi)


@njit_inline
def _best_on_line(l_free, q_free, cross, fixed, lo, hi):
    """argmax over the free variable z ∈ [lo, hi] of l_free z − ½ q_free z² − cross·fixed·z."""
    slope = l_free - cross * fixed
    if q_free <= EPS:
        return hi if slope > 0.0 else lo
    return _clip(slope / q_free, lo, hi)


@njit_helper
def solve_box_qp(la, lb, qa, qb, w, ga_lo, ga_hi, d_lo, d_hi):
    """Exact maximiser of the concave 2-variable QP on a box (docs/algorithms/duol.md#generic-box-qp-solver).

    maximise la·γ + lb·d − ½ qa γ² − ½ qb d² − w γ d on [ga_lo, ga_hi] × [d_lo, d_hi], for a positive
    semi-definite [[qa, w], [w, qb]]. If the unconstrained optimum is inside the box it is the answer;
    otherwise the maximum lies on an edge, and each edge is a 1-D clipped problem.
    """
    det = qa * qb - w * w
    if det > EPS * qa * qb and qa > 0.0 and qb > 0.0:
        ga = (qb * la - w * lb) / det
        d = (qa * lb - w * la) / det
        if ga_lo <= ga <= ga_hi and d_lo <= d <= d_hi:
            return ga, d
    best_ga, best_d = ga_lo, d_lo
    best = -math.inf
    for edge in range(4):
        if edge < 2:
            ga = ga_lo if edge == 0 else ga_hi
            d = _best_on_line(lb, qb, w, ga, d_lo, d_hi)
        else:
            d = d_lo if edge == 2 else d_hi
            ga = _best_on_line(la, qa, w, d, ga_lo, ga_hi)
        h = qp_objective(la, lb, qa, qb, w, ga, d)
        if h > best:
            best, best_ga, best_d = h, ga, d
    return best_ga, best_d


@njit_helper
def duol_closed_form(la, lb, qa, qb, w, C, gb_hat):
    """Proposition 2 (binary: qa = k_a, qb = k_b) / Proposition 5 (M-DUOL: qa = 2k_a, qb = 2k_b).

    Valid for ℓ_a, ℓ_b ≥ 0, qa, qb > 0, w ≤ 0. Returns (γ_a, d, case) with case 1..4, or case 0 when no
    case applies (degenerate Δ = 0 or a floating-point gap) and the generic solver must be used.
    """
    return duol_closed_form_box(la, lb, qa, qb, w, C, gb_hat, C)


@njit_helper
def duol_closed_form_box(la, lb, qa, qb, w, C, gb_hat, Cb):
    """:func:`duol_closed_form` with γ_a ≤ ``C`` and the auxiliary weight γ̂_b + d ≤ ``Cb`` (each its example's
    s·C, docs/algorithms/duol.md#weights): the same four cases with C − γ̂_b read as Cb − γ̂_b."""
    Ch = Cb - gb_hat
    if qa * C + w * Ch - la < 0.0 and qb * Ch + w * C - lb < 0.0:  # Case 1: both at the upper bound
        return C, Ch, 1
    d2 = (lb - w * C) / qb
    if (w * w * C - w * lb - qa * qb * C + qb * la) / qb > 0.0 and -gb_hat <= d2 <= Ch:  # Case 2
        return C, d2, 2
    g3 = (la - w * Ch) / qa
    if 0.0 <= g3 <= C and lb - qb * Ch - w * g3 > 0.0:  # Case 3
        return g3, Ch, 3
    det = qa * qb - w * w
    if det > EPS * qa * qb:  # Case 4: interior optimum
        ga = (qb * la - w * lb) / det
        d = (qa * lb - w * la) / det
        if 0.0 <= ga <= C and -gb_hat <= d <= Ch:
            return ga, d, 4
    return 0.0, 0.0, 0


@njit_inline
def tie_bound(w_min, tol):
    """The largest weight tied with the minimum w_min (docs/algorithms/duol.md#ties): w_min + tol·|w_min|, or w_min
    itself when it is infinite (kernel values that overflow: −inf + tol·inf would be NaN, tying nothing). A
    *relative* tolerance: the same exact value can differ in its last bit between code paths (block product,
    single dot, Gram cache), while on data with large raw values distinct w_i of order 1e-12 must stay
    distinct."""
    return w_min + tol * abs(w_min) if abs(w_min) < math.inf else w_min


@njit_helper
def solve_double(solver, variant, la, lb, qa, qb, w, C, gb_hat, rho, unit, st, Cb):
    """(γ_a, d) of the double update: problem (1) (binary, unit = 1) or (5) (M-DUOL, unit = ½) written as
    max la γ + lb d − ½ qa γ² − ½ qb d² − w γ d (qa = k_a/unit, qb = k_b/unit), on the box 0 ≤ γ ≤ C,
    −γ̂_b ≤ d ≤ Cb − γ̂_b (C = s_t·C and Cb = s_b·C with the examples' weights, docs/algorithms/duol.md#weights)."""
    if variant == NIPS2009 or solver == APPR:
        step = unit / (1.0 - rho)  # Theorem 1 (binary) / Theorem 5 (M-DUOL) optimum, clipped to C
        return min2(C, step), min2(Cb, gb_hat + step) - gb_hat
    if solver == ITER:
        ga = _clip(la / qa, 0.0, C)
        d = _clip((lb - w * ga) / qb, -gb_hat, Cb - gb_hat) if qb > EPS else 0.0
        return ga, d
    if solver == EXACT:
        ga, d, case = duol_closed_form_box(la, lb, qa, qb, w, C, gb_hat, Cb)
        if case != 0:
            return ga, d
        st.cnt[D_FALLBACK] += 1
    return solve_box_qp(la, lb, qa, qb, w, 0.0, C, -gb_hat, Cb - gb_hat)


@njit_inline
def duol_gate(prm, Y, t, y, f, kself, mistake, coef, hw, n):
    """The rounds :func:`duol_update` and :func:`duol_rand_update` act on (the engine's gate): a loss
    1 − y f above prm.tol and κ(x_t, x_t) > EPS."""
    return not (1.0 - y * f[0] <= prm.tol or kself <= EPS)


@njit_inline
def mduol_gate(prm, Y, t, y, f, kself, mistake, coef, hw, n):
    """The rounds :func:`mduol_update` acts on: a relevant and an irrelevant class exist, the loss
    1 − (f_r − f_s) is above prm.tol and κ(x_t, x_t) > EPS."""
    r, w = relevant_pair(Y, t, f)
    return r >= 0 and w >= 0 and not (1.0 - (f[r] - f[w]) <= prm.tol or kself <= EPS)


@njit_helper
def duol_update(sv, st, s, t, kself, y, f, mistake):
    """Binary DUOL (JMLR Algorithm 1, NIPS 2009 Algorithm 1), DUOL_appr, DUOL_iter."""
    tol, variant = st.prm.tol, st.prm.variant
    loss = 1.0 - y * f[0]
    if loss <= tol or kself <= EPS:
        return False
    n = sv.meta[N]
    # -- auxiliary example (JMLR Algorithm 1 lines 8-15; NIPS Algorithm 1 lines 7-14)
    # JMLR: candidates F_i ≤ 1; NIPS: F_i ≤ 0 and only w_i < 0 qualify (w_min starts at 0)
    F_max = 1.0 + tol if variant == JMLR else tol
    w_start = math.inf if variant == JMLR else 0.0
    w_min = label_weights(y, sv.y, sv.krow, sv.F, F_max, w_start, sv.grow, n)  # w_i in sv.grow (scratch)
    b = tied_pick(sv.grow, sv.F, F_max, n, tie_bound(w_min, tol), variant == JMLR) if w_min < w_start else -1
    return _binary_step(sv, st, s, t, kself, y, f[0], mistake, loss, b, w_min)


@njit_helper
def duol_rand_update(sv, st, s, t, kself, y, f, mistake):
    """DUOL_rand (JMLR §5.3): the auxiliary SV drawn uniformly from the current SVs (a rule of its own, so
    that only DUOL_rand compiles the generator)."""
    loss = 1.0 - y * f[0]
    if loss <= st.prm.tol or kself <= EPS:
        return False
    n = sv.meta[N]
    b = next_index(st.rng, n) if n > 0 else -1
    return _binary_step(sv, st, s, t, kself, y, f[0], mistake, loss, b, -math.inf)


@njit_inline
def _binary_step(sv, st, s, t, kself, y, f, mistake, loss, b, w_min):
    """The update of binary DUOL once the auxiliary SV b (−1: none) and its weight w_min are chosen: the
    double update if b ≥ 0 and w_min ≤ −ρ, else the single PA-I step. The example's weight s_t makes its box
    [0, s_t C], and the auxiliary SV's box is its own example's [0, s_b C] (docs/algorithms/duol.md#weights)."""
    C0, rho, tol = st.prm.C, st.prm.rho, st.prm.tol
    C = C0 * s.sw[t]
    variant, solver = st.prm.variant, st.prm.solver
    krow = sv.krow
    double = b >= 0 and w_min <= -rho
    if double:
        yb = sv.y[b]
        w_ab = y * yb * krow[b]
        gb_hat = sv.coef[b, 0] * yb
        Fb = sv.F[b]
        Cb = C0 * sv.sw[b]
        if mistake:  # Theorem 4's strong / weak double updates (diagnostics only)
            if w_ab <= -rho and Fb <= 0.0 and Cb >= gb_hat + 1.0 / (1.0 - rho):
                st.cnt[D_STRONG] += 1
            elif w_ab <= -rho and Fb <= 1.0 + tol and Cb >= gb_hat + rho:
                st.cnt[D_WEAK] += 1
    j = sv_append(sv, s, t, kself, y)
    sv.F[j] = y * f
    if not double:
        gamma = min2(C, 1.0) if variant == NIPS2009 else min2(C, loss / kself)  # PA-I step
        set_coef(sv, j, 0, gamma * y)
        for i in range(j + 1):
            sv.F[i] += sv.y[i] * y * gamma * krow[i]
        return True
    st.cnt[D_DOUBLE] += 1
    ga, d = solve_double(solver, variant, loss, 1.0 - Fb, kself, sv.kself[b], w_ab, C, gb_hat, rho, 1.0, st, Cb)
    set_coef(sv, j, 0, ga * y)
    set_coef(sv, b, 0, (gb_hat + d) * yb)
    load_gram_row(sv, b, s)
    for i in range(j + 1):
        sv.F[i] += sv.y[i] * (y * ga * krow[i] + yb * d * sv.grow[i])
    return True


@njit_helper
def mduol_auxiliary(sv, st, b, r, w, mistake):
    """(r_b, s_b, w_ab, γ̂_b, F_b) of the auxiliary SV b of an M-DUOL double update for the direction H_t = (r, w),
    w_ab = (H_t·H_b) κ(x_t, x_b) (the kernel row in ``sv.krow``); on a mistake round it counts the strong and
    weak double updates of JMLR Theorems 5-6 (diagnostics only), with b's own bound s_b C
    (docs/algorithms/duol.md#weights)."""
    C, rho, tol = st.prm.C * sv.sw[b], st.prm.rho, st.prm.tol
    rb, sb = sv.hr[b], sv.hs[b]
    w_ab = h_dot(r, w, rb, sb) * sv.krow[b]
    gb_hat = sv.coef[b, rb]
    Fb = sv.F[b]
    if mistake:
        if Fb <= 0.0 and C >= gb_hat + 1.0 / (2.0 * (1.0 - rho)):
            st.cnt[D_STRONG] += 1
        elif Fb <= 1.0 + tol and C >= gb_hat + rho / 2.0:
            st.cnt[D_WEAK] += 1
    return rb, sb, w_ab, gb_hat, Fb


@njit_helper
def mduol_round_start(st, s, t, kself, f):
    """The start of an M-DUOL round (duol, duol-budget): the example's box C = s_t C (docs/algorithms/duol.md#weights)
    and its relevant pair (r, w) with the margin f_r − f_w. ``go`` is False where the round changes nothing: no
    pair (a multi-label example with every or no label), a loss 1 − margin ≤ tol, or κ(x_t, x_t) ≤ EPS.
    Returns (go, C, r, w, margin)."""
    C = st.prm.C * s.sw[t]
    r, w = relevant_pair(s.Y, t, f)
    if r < 0 or w < 0:
        return False, C, r, w, 0.0
    margin = f[r] - f[w]
    return not (1.0 - margin <= st.prm.tol or kself <= EPS), C, r, w, margin


@njit_helper
def mduol_update(sv, st, s, t, kself, y, f, mistake):
    """M-DUOL (JMLR §4.2, Algorithm 2, Prop. 5; docs/algorithms/duol.md#multiclass-and-multi-label), multiclass and
    multi-label.

    SV i holds γ_i H_i with H_i = e_{r_i} − e_{s_i} and the cached margin F_i = f_{r_i}(x_i) − f_{s_i}(x_i).

    Only the SVs whose direction shares a class with H_t (the support set's member lists of r_t and s_t,
    about 4/K of the SVs) have a non-zero weight (H_t·H_i) κ(x_t, x_i) and a margin that x_t's step
    changes; the others' weight is exactly 0. So the auxiliary argmin runs over the member lists, and
    the others matter only when 0 is within the tie tolerance of the minimum (then the first of them
    that is a candidate competes for the first-index tie rule): the choice, and every margin, are those
    of the pass over all SVs, bit for bit.
    """
    C0, rho, tol, solver = st.prm.C, st.prm.rho, st.prm.tol, st.prm.solver
    go, C, r, w, margin = mduol_round_start(st, s, t, kself, f)
    if not go:
        return False
    loss = 1.0 - margin
    list_members(sv)
    n = sv.meta[N]
    krow, hr, hs, F = sv.krow, sv.hr, sv.hs, sv.F
    lr, cr, lw, cw = lists(sv, r, w)
    F_max = 1.0 + tol
    # -- auxiliary example: argmin (H_t·H_i) κ(x_t, x_i) over the SVs with F_i ≤ 1 (Algorithm 2), ties to the first
    # the weights of r's list in sv.grow, of w's in sv.gnorm2 (scratch until the Gram row below)
    wr, ww = sv.grow, sv.gnorm2
    w_min = min2(listed_weights(lr, cr, 1, w, krow, F, F_max, wr), listed_weights(lw, cw, -1, r, krow, F, F_max, ww))
    other = n  # the first candidate that shares no class with H_t (weight 0), when it can be the pick
    if not w_min + tol * abs(w_min) < 0.0:
        other = first_unrelated_candidate(r, w, hr, hs, F, F_max, n)
        if other < n:
            w_min = min2(w_min, 0.0)
    b = -1
    if w_min < math.inf:
        bound = tie_bound(w_min, tol)
        b = min2(first_tied(lr, wr, F, F_max, bound, n), first_tied(lw, ww, F, F_max, bound, n))
        if 0.0 <= bound:
            b = min2(b, other)
    double = 0 <= b < n and w_min <= -2.0 * rho  # b = n: none found tied (NaN kernel values from overflow)
    if double:
        rb, sb, w_ab, gb_hat, Fb = mduol_auxiliary(sv, st, b, r, w, mistake)
    j = sv_append(sv, s, t, kself, float(r))
    F[j] = margin
    if not double:
        gamma = min2(C, loss / (2.0 * kself))
        set_direction(sv, j, r, w, gamma)
        list_members(sv)
        lr, cr, lw, cw = lists(sv, r, w)
        listed_margins(F, lr, cr, 1, w, krow, gamma, -1, -1, -1)
        listed_margins(F, lw, cw, -1, r, krow, gamma, r, -1, -1)
        return True
    st.cnt[D_DOUBLE] += 1
    Cb = C0 * sv.sw[b]  # the auxiliary SV's own box [0, s_b C]
    ga, d = solve_double(
        solver, JMLR, loss, 1.0 - Fb, 2.0 * kself, 2.0 * sv.kself[b], w_ab, C, gb_hat, rho, 0.5, st, Cb
    )
    set_direction(sv, j, r, w, ga)
    set_direction(sv, b, rb, sb, gb_hat + d)
    list_members(sv)
    m = load_gram_row_related(sv, b, s, rb, sb)  # κ(x_b, x_i) where H_b·H_i ≠ 0, packed
    # F_i += γ_a (H_t·H_i) κ(x_t, x_i) + d (H_b·H_i) κ(x_b, x_i): first the SVs sharing a class with H_t only,
    # then those sharing one with H_b (both terms in one expression)
    lr, cr, lw, cw = lists(sv, r, w)
    if r != rb and r != sb:  # (else every SV of the list shares a class with H_b)
        listed_margins(F, lr, cr, 1, w, krow, ga, rb, sb, -1)
    if w != rb and w != sb:
        listed_margins(F, lw, cw, -1, r, krow, ga, r, rb, sb)
    grow, sel = sv.grow, sv.gsel
    for k in range(m):
        i = sel[k]
        ri, si = hr[i], hs[i]
        F[i] += ga * h_dot(r, w, ri, si) * krow[i] + d * h_dot(rb, sb, ri, si) * grow[k]
    return True


class _DUOLBase(KernelLearner):
    _update = staticmethod(duol_update)
    _update_multi = staticmethod(mduol_update)
    _update_gate = staticmethod(duol_gate)
    _update_gate_multi = staticmethod(mduol_gate)
    _gram = "bounded"
    _member_lists = True
    _average_writes = "written"  # every coefficient write goes through set_coef: the new SV's and b's
    _solver = EXACT
    _kernel_data: ClassVar[tuple[str, ...]] = ("binary", "multiclass", "multilabel")
    _parameter_constraints = {
        "C": [POSITIVE, None],
        "rho": [Interval(0, 1, closed="left"), None],
        "tol": [NON_NEGATIVE],
    }

    def _variant(self):
        return JMLR

    def _C(self):
        return paper_C(self)

    def _rho(self):
        if self.rho is not None:
            return float(self.rho)
        return 0.2 if self._variant() == NIPS2009 else 0.0

    def _resolved_params(self):
        return {**self._algorithm_params(), "C": self._C(), "rho": self._rho()}

    def _rule_params(self):
        return rule_params(
            DUOLParams, C=self._C(), rho=self._rho(), tol=self.tol, variant=self._variant(), solver=self._solver
        )

    def diagnostics(self):
        cnt = self.state_.cnt
        return {
            "double_updates": int(cnt[D_DOUBLE]),
            "strong_double_updates": int(cnt[D_STRONG]),
            "weak_double_updates": int(cnt[D_WEAK]),
            "qp_fallbacks": int(cnt[D_FALLBACK]),
        }


_PARAMS_DOC = """
    Parameters
    ----------
    C : float > 0 or None, default None
        Upper bound of every weight γ_i. None means the paper's setting: C = 5 on binary data (DUOL JMLR
        §5.1, NIPS §4.1), C = 10 on multiclass and multi-label data (JMLR §5.5).
    rho : float in [0, 1) or None, default None
        Double-update threshold: update x_b only if w_ab ≤ −ρ (binary, w_ab = y_t y_b κ(x_t, x_b)) or
        w_ab ≤ −2ρ (M-DUOL, w_ab = (H_t·H_b) κ(x_t, x_b)). None means the paper's setting, 0 (JMLR §5.1,
        §5.5){nips_rho}.
    tol : float, default 1e-9
        Floating-point tolerance of the candidate test F_i ≤ 1 + tol, of the update test ℓ_t > tol and of
        the ties of the auxiliary argmin (relative: w_i ≤ w_min + tol·|w_min|; binary JMLR takes the last
        tied SV, NIPS 2009 and M-DUOL the first). ``tol=0`` is the literal reading (results then depend on
        the last bit of kernel values).{extra}
    kernel : {{"gaussian", "linear", "poly"}}, default "gaussian"
    sigma : float, default 8
        Gaussian width, κ(x, z) = exp(−‖x − z‖²/(2σ²)) (σ = 8 in the DUOL experiments).
    degree, coef0 : int, float
        The polynomial kernel (x·z + coef0)^degree.
    compat : {{"none"}}, default "none"
        No reference-code mode: the papers' algorithm as specified.

    Multiclass and multi-label data (``y`` an n × K 0/1 indicator matrix for label sets) run M-DUOL
    (JMLR §4.2, Algorithm 2): SV i carries γ_i H_i, H_i = e_{{r_i}} − e_{{s_i}} (worst relevant, best
    irrelevant class at its round), the double update solves problem (5) (Prop. 5 for ``duol``; for
    ``duol-appr`` γ = min(C, 1/(2(1−ρ))) and for ``duol-iter`` the coordinate steps with 2κ — both readings
    of JMLR §5.5 not printed in the paper (docs/algorithms/duol-appr.md#settled-questions), inferred from Theorem 5's
    optimum and from the binary variants).

    Attributes
    ----------
    diagnostics() : double updates, strong and weak double updates on mistakes (binary: JMLR Thm. 4,
        Fig. 4; M-DUOL: Thms. 5–6), and how often the closed form fell back to the generic solver.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> res = olkit.evaluate_online(olkit.make("{name}"), X, y)
    >>> round(res.mistake_rate, 3)  # german in file order: deterministic
    {rate}

    References
    ----------
    Zhao, Hoi, Jin (2011). Double updating online learning. JMLR 12, 1587–1615.
    Zhao, Hoi, Jin (2009). DUOL: a double updating approach for online learning. NIPS 22.
"""

_DATA = ("binary", "multiclass", "multilabel")
_SOURCES = {
    "C": "DUOL JMLR §5.1 (binary 5), §5.5 (multiclass 10)",
    "rho": "DUOL JMLR §5.1 (0); NIPS §4.1 (0.2)",
    "sigma": "DUOL JMLR §5.1 (σ = 8)",
    "tol": "docs/algorithms/duol.md#settled-questions (rounding decides the literal algorithm)",
}
_C_GRID = (("C", POWERS_OF_TWO),)


@register(
    "duol",
    "DUOL: double updating online learning, exact double update (Zhao, Hoi, Jin 2011); multiclass/multi-label: M-DUOL",
    data=_DATA,
    tuning=_C_GRID,
    sources=_SOURCES,
    position=80,
    weight="C ← s·C: the example's dual box [0, sC]; an auxiliary SV keeps its own box [0, s_b C]",
    weight_repeats=False,
    sweep={
        "cases": [{"variant": "nips2009"}, {"rho": 0.2, "C": 0.5}],
        "grid": {"variant": ["jmlr", "nips2009"], "rho": [None, 0.2], "C": [None, 0.5]},
    },
)
class DUOL(_DUOLBase):
    __doc__ = (
        "DUOL with the exact double update (JMLR Proposition 2; M-DUOL: Proposition 5); "
        "``variant='nips2009'`` gives the NIPS 2009 algorithm (binary).\n"
        + _PARAMS_DOC.format(
            name="duol",
            rate="0.307",
            nips_rho=", or 0.2 with variant='nips2009' (NIPS §4.1)",
            extra='\n    variant : {"jmlr", "nips2009"}, default "jmlr"\n'
            "        JMLR 2011 Algorithm 1, or NIPS 2009 Algorithm 1 (see the module docstring).",
        )
    )
    _parameter_constraints = {"variant": [Options(tuple(VARIANTS))]}

    def __init__(
        self,
        C=None,
        rho=None,
        variant="jmlr",
        tol=1e-9,
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
        self.rho = rho
        self.variant = variant
        self.tol = tol
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _variant(self):
        return VARIANTS[self.variant]

    def _n_outputs(self):
        if self.variant == "nips2009" and (len(self.classes_) > 2 or self.multilabel_):
            raise ValueError(
                "duol: variant='nips2009' is the binary algorithm of the NIPS 2009 paper; "
                "multiclass and multi-label data run M-DUOL (variant='jmlr')"
            )
        return super()._n_outputs()


class _DUOLVariant(_DUOLBase):
    def __init__(
        self,
        C=None,
        rho=None,
        tol=1e-9,
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
        self.rho = rho
        self.tol = tol
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )


@register(
    "duol-appr",
    "DUOL_appr: double update with the approximate steps 1/(1-rho), clipped to C (JMLR 2011)",
    data=_DATA,
    tuning=_C_GRID,
    sources=_SOURCES,
    position=90,
    weight="C ← s·C: γ_t = min(sC, 1/(1−ρ)); an auxiliary SV keeps its own bound s_b C",
    weight_repeats=False,
    sweep={"cases": [{"rho": 0.2}], "grid": {"rho": [None, 0.2], "C": [None, 1.0]}},
)
class DUOLAppr(_DUOLVariant):
    __doc__ = (
        "DUOL_appr (JMLR §5.1 (i)): γ_t = min(C, 1/(1−ρ)), γ_b = min(C, γ̂_b + 1/(1−ρ)) "
        "(M-DUOL_appr: 1/(2(1−ρ))).\n" + _PARAMS_DOC.format(name="duol-appr", rate="0.306", nips_rho="", extra="")
    )
    _solver = APPR


@register(
    "duol-iter",
    "DUOL_iter: double update by one pass of coordinate ascent (JMLR 2011)",
    data=_DATA,
    tuning=_C_GRID,
    sources=_SOURCES,
    position=100,
    weight="C ← s·C: the example's dual box [0, sC]; an auxiliary SV keeps its own box [0, s_b C]",
    weight_repeats=False,
    sweep={"cases": [{"C": 0.5}], "grid": {"rho": [None, 0.2], "C": [None, 0.5]}},
)
class DUOLIter(_DUOLVariant):
    __doc__ = "DUOL_iter (JMLR §5.1 (iii)): step for x_t first, then for the auxiliary example.\n" + _PARAMS_DOC.format(
        name="duol-iter", rate="0.36", nips_rho="", extra=""
    )
    _solver = ITER
    # One pass of the heuristic coordinate step does not reach scikit-learn's 83% training accuracy on its
    # toy blobs (the paper also finds DUOL_iter "performs unstably", JMLR §5.3).
    _poor_score = True


@register(
    "duol-rand",
    "DUOL_rand: exact double update with a uniformly random auxiliary SV (JMLR 2011 §5.3)",
    tuning=_C_GRID,
    sources=_SOURCES,
    position=110,
    weight="C ← s·C: the example's dual box [0, sC]; an auxiliary SV keeps its own box [0, s_b C]",
    weight_repeats=False,
    sweep={"cases": [{"seed": 5, "C": 1.0}], "grid": {"rho": [None, 0.2], "C": [None, 1.0], "seed": [0, 5]}},
)
class DUOLRand(_DUOLBase):
    __doc__ = (
        "DUOL_rand (JMLR §5.3, binary): the auxiliary SV is drawn uniformly from the current SVs.\n"
        + _PARAMS_DOC.format(
            name="duol-rand", rate="0.323", nips_rho="", extra="\n    seed : int, default 0\n        Seed of the draws."
        )
    )
    _solver = RAND
    _update = staticmethod(duol_rand_update)
    _kernel_data = ("binary",)
    _parameter_constraints = {"seed": [SEED]}

    def __init__(
        self,
        C=None,
        rho=None,
        tol=1e-9,
        seed=0,
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
        self.rho = rho
        self.tol = tol
        self.seed = seed
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _seed(self):
        return int(self.seed)
