"""The compiled block loop of the linear (primal) learners, built over each algorithm's step rule.

``linear_block`` is the inner part of the one online protocol (:mod:`olkit.protocol`) for linear models,
written once as a template: :meth:`PrimalRule.loop` compiles it for one algorithm's pieces (see
:func:`olkit._compile.compile_loop`), so the loop holds no algorithm-specific branch and no list of all
rules, and a run compiles only the rule it uses. The stream is CSR (a dense input is converted once; its
rows simply have every index), so the same loop serves 300-feature dense rows and 100,000-feature sparse
ones, and a first-order or diagonal update touches only the row's non-zeros. Per example it

1. computes the scores f_r = w_r·x (w is stored as W·s with a lazy global scale s, so ROMMA's and ALMA's
   rescaling of w costs O(1) instead of O(d)) and ‖x‖²; the rule's ``input_scale`` may rescale x
   (ALMA runs on x̂ = x/‖x‖);
2. records the K scores (binary: K = 1), predicts (binary: ŷ = +1 iff f ≥ 0; multiclass: argmax,
   ties → smallest class index), counts the mistake, and forms the joint-feature view of the round
   (docs/algorithms/linear-family.md#multiclass): binary Δ = y x on the one output; multiclass Δ = +x
   on the true class y and −x on the best wrong class s;
3. computes m = w·Δ and v = ΔᵀΣΔ (first order: Σ = I; diagonal; full, per class = block-diagonal);
4. asks the rule's ``step`` for (triggered, α, γ, β, c, κ) and applies w ← γ w + α ΣΔ (through the
   rule's ``move_mean``), the rule's ``after_update`` (ROMMA's and ALMA's ‖w‖²), then the covariance
   update (full: Σ ← κ(Σ − β uuᵀ) with u = ΣΔ restricted to the class; diagonal:
   Σ_jj ← κ Σ_jj/(1 + c Σ_jj x_j²), or NHERD's "exact"/"drop" variants).

A rule whose round is not of this shape (SOP predicts with the covariance updated by x_t) gives its own
block function with the same signature (``PrimalRule.block``).

Every step rule has the signature ``step(prm, fst, m, v, dn2, mistake, wt)`` (``prm``: the rule's parameter
record, see :mod:`olkit.learners.records`) and returns a :class:`Step` ``(triggered, alpha, gamma, beta, c,
kappa)``; ``wt`` > 0 is the example's weight (docs/algorithms/options.md#weights: each rule says on its page what
a weight does; a round of weight 0 never reaches the rule); ``triggered`` is LIBOL's "loss l_t > 0" (what
``compat="libol"`` counts as an update). A second-order rule returns β = c/(1 + cv) with c its inverse-form
constant (Σ⁻¹ ← Σ⁻¹ + c ΔΔᵀ) for both covariance forms: ρ = 1/(1 + cv) bounds the full and "drop" diagonals
from below (see :func:`_full_cov_step`).
"""

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..._compile import compile_loop, fma, min2, njit_helper, njit_inline, prefetch
from ...base import MISTAKES, SEEN, UPDATES

# fst slots shared by every linear rule (see model.py): weight scale s (w = s·W), ‖w‖², covariance
# scale, rule-specific scalar (ALMA's k, IELLIP's c_t), ‖W‖² of the stored weights as a double-double, then the
# average's bookkeeping (see :func:`begin_averaged_round`): q, the number of rounds added, and whether the
# current model is still to be added
WSCALE, N2, CSCALE, AUX, NORM_HI, NORM_LO, AVG_Q, AVG_N, AVG_PENDING = 0, 1, 2, 3, 4, 5, 6, 7, 8
N_FST = 9


class Step(NamedTuple):
    """What a step rule decides for one round: w ← γw + αΣΔ; Σ⁻¹ ← Σ⁻¹ + cΔΔᵀ (β = c/(1 + cv) in the
    covariance form), then Σ ← κΣ."""

    triggered: bool  # LIBOL's "loss l_t > 0" (what compat="libol" counts as an update)
    alpha: float
    gamma: float
    beta: float
    c: float
    kappa: float


NO_STEP = Step(False, 0.0, 1.0, 0.0, 0.0, 1.0)
TRIGGERED_NO_STEP = Step(True, 0.0, 1.0, 0.0, 0.0, 1.0)  # LIBOL's loss is positive, but the model cannot change

# covariance kinds and diagonal update modes
NO_COV, FULL, DIAGONAL = 0, 1, 2
DIAG_INVERSE, DIAG_SQUARED, DIAG_DROP = 0, 1, 2

# cfg slots: covariance kind, diagonal mode, LIBOL's update count, the example count from which the model is
# averaged (0: no average)
COV, DIAG_MODE, LIBOL, AVG_START = 0, 1, 2, 3
N_CFG = 4


RESCALE_BELOW = 1e-100

PREFETCH_AHEAD = 16
"""Rounds ahead of the current one whose row start (``indptr``), label and weight the block loop asks the CPU to
fetch; the row's first indices and values are fetched :data:`PREFETCH_ROW_AHEAD` rounds ahead (by then its
``indptr`` entry is in cache). On a stream larger than the cache, visited in a random order, each round otherwise
waits for two dependent memory loads (the row's start, then its entries): PA-I on w8a × 8 ran at 0.73–0.95 of the
benchmark's plain loop without the hints, 1.17–1.49 with them (docs/algorithms/linear-family.md#sparse-input)."""
PREFETCH_ROW_AHEAD = 8
PREFETCH_ROW_ENTRIES = 64
"""How many of that row's entries are asked for (every cache line of its indices and values: only the first line
left the rest of a row of 14 non-zeros (a9a) to wait on; PA-I on a9a in a random order ran at the plain loop's
speed with the first line, 3-5 times faster with every line); a longer row's rest is left to the hardware
prefetcher, which follows a sequential run by itself (docs/algorithms/linear-family.md#sparse-input)."""


@njit_helper
def _full_times_x(S, o, idx, val, xs, lo, hi, u):
    """u = Σ_o x (Σ symmetric: a combination of its rows), times the covariance scale xs."""
    u[:] = 0.0
    for p in range(lo, hi):
        a = val[p] * xs
        row = S[o, idx[p]]
        for j in range(u.shape[0]):
            u[j] += a * row[j]


@njit_helper
def _sparse_dot(u, idx, val, xs, lo, hi):
    acc = 0.0
    for p in range(lo, hi):
        acc += u[idx[p]] * val[p] * xs
    return acc


@njit_helper
def _diag_v(D, o, idx, val, xs, lo, hi):
    acc = 0.0
    for p in range(lo, hi):
        x = val[p] * xs
        acc += D[o, idx[p]] * x * x
    return acc


@njit_inline
def prefetch_rounds(indptr, idx, val, y, sw, order, pos, stop):
    """Hints only (no value depends on them), at the start of round ``pos`` of a block loop: the row start, label
    and weight of round pos + :data:`PREFETCH_AHEAD`, the first indices and values of the row of round
    pos + :data:`PREFETCH_ROW_AHEAD` (docs/algorithms/linear-family.md#sparse-input)."""
    if pos + PREFETCH_AHEAD < stop:
        ta = order[pos + PREFETCH_AHEAD]
        prefetch(indptr, ta)
        prefetch(y, ta)
        prefetch(sw, ta)
    if pos + PREFETCH_ROW_AHEAD < stop:
        ta = order[pos + PREFETCH_ROW_AHEAD]
        lo_a = indptr[ta]
        hi_a = min2(indptr[ta + 1], lo_a + PREFETCH_ROW_ENTRIES)
        if hi_a > lo_a:
            prefetch_span(idx, lo_a, hi_a)
            prefetch_span(val, lo_a, hi_a)


@njit_inline
def prefetch_span(a, lo, hi):
    """Hints for every cache line of a[lo:hi] (lo < hi): one every 8 entries (64 bytes of float64; int32
    indices get two per line, which costs nothing) and the last entry's (the run need not start on a line)."""
    for q in range(lo, hi, 8):
        prefetch(a, q)
    prefetch(a, hi - 1)


@njit_helper
def _renormalise(W, fst):
    s = fst[WSCALE]
    for j in range(W.shape[0]):
        for o in range(W.shape[1]):
            W[j, o] *= s
    fst[WSCALE] = 1.0
    fst[AVG_Q] /= s  # the average's P + qW is unchanged (see begin_averaged_round)
    _exact_norm_reset(W, fst)


@njit_helper
def begin_averaged_round(fst):
    """The average's bookkeeping at the start of a round (docs/algorithms/options.md#average).

    The sum of the averaged models Σ_t w_t (w_t = s_t W_t, the model after round t) is kept as P + q·W for the
    stored W: a change δ of W (in any round) sets P ← P − qδ (:func:`_average_change`), a lazy rescale of s
    changes nothing, a renormalisation (W ← sW, s ← 1) sets q ← q/s. Each round's model is added at the start
    of the next round, q ← q + s (a pending flag; the model after the last round is added when read), so
    that a round's own changes of W and s are all in the model it adds. The loop calls it from the
    ``cfg[AVG_START]``-th example seen on."""
    if fst[AVG_PENDING] != 0.0:
        fst[AVG_Q] += fst[WSCALE]
        fst[AVG_N] += 1.0
    fst[AVG_PENDING] = 1.0


@njit_helper
def _average_change(P, q, o, a, cov, u, idx, val, xs, lo, hi):
    """P_o ← P_o − q δ for the change δ = a·(Σx) of the stored W_o (full covariance: δ = a·u; otherwise a·x)."""
    if cov == FULL:
        for j in range(P.shape[0]):
            P[j, o] -= q * (a * u[j])
    else:
        for p in range(lo, hi):
            P[idx[p], o] -= q * (a * val[p] * xs)


@njit_inline
def _move_mean(W, fst, o, sign, alpha, cov, u, idx, val, xs, lo, hi, track_norm):
    """w_o ← w_o + sign·α Σ_o x, with Σ = I (first order) or the dense u = Σ_o x (full covariance).
    ``track_norm``: keep ‖W‖² of the stored entries in double-double precision (see _sum2_square)."""
    a = sign * alpha / fst[WSCALE]
    if cov == FULL:
        for j in range(W.shape[0]):
            W[j, o] += a * u[j]
    elif track_norm:
        ah = al = bh = bl = 0.0  # Σ new², Σ old²: two independent chains (see _sum2_square), combined once
        for p in range(lo, hi):
            j = idx[p]
            old = W[j, o]
            new = old + a * val[p] * xs
            W[j, o] = new
            ah, al = _sum2_square(ah, al, new)
            bh, bl = _sum2_square(bh, bl, old)
        sh, sl = _two_sum(fst[NORM_HI], ah)
        dh, dl = _two_sum(sh, -bh)
        fst[NORM_HI], fst[NORM_LO] = _two_sum(dh, dl + sl + (fst[NORM_LO] + al - bl))
    else:
        for p in range(lo, hi):
            W[idx[p], o] += a * val[p] * xs


@njit_helper
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit_helper
def _sum2_square(s, c, w):
    """One step of Ogita, Rump & Oishi's Sum2 (2005) over exact squares: s + c accumulates w² = p + e (e from a
    fused multiply-add), s by an error-free sum and c, the errors, in plain double. The result is as
    accurate as a sum in twice the precision: error ≤ u|Σ| + (n u)² Σ w² for n terms, ~1e-26 relative for
    the ~1,000 non-zeros of a dorothea row, far below the last bit of ‖w‖² (1e-22 for all 100,000 entries).
    Half the operations of a double-double renormalised at every term, which made agg-ROMMA's step 4x a
    plain one."""
    p = w * w
    s, q = _two_sum(s, p)
    return s, c + (q + fma(w, w, -p))


@njit_helper
def _exact_norm_reset(W, fst):
    nh = nl = 0.0
    for j in range(W.shape[0]):
        for o in range(W.shape[1]):
            nh, nl = _sum2_square(nh, nl, W[j, o])
    fst[NORM_HI], fst[NORM_LO] = _two_sum(nh, nl)


@njit_helper
def _bound_by_cauchy_schwarz(Sig, u, v):
    """u = Σx kept within the bound every positive semi-definite Σ satisfies (issue 9, item 1):
    u_i² = (e_iᵀΣx)² ≤ Σ_ii·xᵀΣx = Σ_ii v. Once rank-one downdates have cancelled (cv ≫ 1/ε: the variance
    left along the rows seen is below the rounding of Σ's O(1) entries), Σ keeps off-diagonal residues of
    ~ε·a next to diagonals of ~a/(cv) and is no longer semi-definite; u then grows past its bound by many
    orders of magnitude, and the mean step αu and the downdate βuuᵀ fed it back until Σ and μ overflowed
    (rows of ~1e36..1e145). An entry more than twice its bound — impossible in exact arithmetic, and far
    beyond rounding, which leaves the bound's tight cases (a row along one axis, repeated rows) within a
    few ulps — is set to the bound ±sqrt(Σ_ii max(v, 0)); every other entry is left as computed, so runs
    that never reach that state are bit for bit as before. With u bounded, |βu_i u_j| ≤ 4βv·sqrt(Σ_iiΣ_jj)
    ≤ 4·sqrt(Σ_iiΣ_jj): the downdate can no longer blow Σ up."""
    vp = max(v, 0.0)
    for i in range(u.shape[0]):
        ui = u[i]
        sii = max(Sig[i, i], 0.0)
        if ui * ui > 4.0 * (sii * vp):
            u[i] = math.copysign(math.sqrt(sii) * math.sqrt(vp), ui)


@njit_helper
def _add_scaled_matrix(P, q, W):
    """P += q·W, entry by entry (the array expression ``P += q * W`` would allocate q·W, and compile numba's
    broadcasting checks and the formatting of their error message: seconds of a cold start)."""
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            P[i, j] += q * W[i, j]


@njit_helper
def _scale_matrix(A, k):
    """A ← k·A in place, entry by entry, for the reason of :func:`_add_scaled_matrix`."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] *= k


@njit_helper
def _zero_matrix(A):
    """A ← 0 in place, entry by entry, for the reason of :func:`_add_scaled_matrix`."""
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            A[i, j] = 0.0


@njit_helper
def _full_cov_step(Sig, beta, kappa, u, rho):
    """Σ ← κ (Σ − β u uᵀ), u = Σx, β = c/(1 + cv) for the rule's inverse-form constant c (Σ⁻¹ += c xxᵀ),
    ρ = 1/(1 + cv) = 1 − βv (computed as 1/(1 + cv), without the cancellation of 1 − βv).

    The diagonal stays non-negative (issue 9, item 1): for a positive semi-definite Σ, Cauchy–Schwarz
    gives u_i² = (e_iᵀΣx)² ≤ Σ_ii·xᵀΣx = Σ_ii v, so in exact arithmetic Σ_ii − βu_i² ≥ Σ_ii(1 − βv) = ρΣ_ii
    > 0 (multiclass: v sums both classes' quadratic forms, which only lowers ρ; the bound holds). When x
    lies along a direction where Σ has almost no variance left (cv ≫ 1), βu_i² ≈ Σ_ii and the rounded
    difference cancels; a computed Σ_ii ≤ 0 — impossible in exact arithmetic, the unambiguous sign of
    that cancellation — is replaced by the bound κρΣ_ii, which is nearer the exact value. Every other
    entry is the formula's, bit for bit (including (βu_i)·u_j, which leaves Σ symmetric only to the
    rounding of one product, as before): the held results (SCW Table 3, LIBOL-compatible runs) were
    computed with it, and CW on noisy data, or CW/SCW on rows that repeat (whose trigger sits exactly on
    its boundary), change mistakes or #updates on a change of the last bit — also from replacing a
    diagonal that is positive but rounded below the bound, which therefore stays.
    """
    d = Sig.shape[0]
    for i in range(d):
        bi = beta * u[i]
        if bi != 0.0:
            floor = rho * Sig[i, i]
            for j in range(d):
                Sig[i, j] = kappa * (Sig[i, j] - bi * u[j])
            if Sig[i, i] <= 0.0:
                Sig[i, i] = kappa * floor
        elif kappa != 1.0:
            for j in range(d):
                Sig[i, j] *= kappa


@njit_inline
def _diag_step(W, P, D, fst, o, sign, alpha, mode, beta, c, idx, val, xs, lo, hi, C_nherd, rho):
    """Diagonal covariance, class o: w_o ← w_o + sign·α Σ_o x with the old Σ, then Σ_jj for the row's
    non-zeros — the inverse form Σ_jj/(1 + c Σ_jj x_j²), or NHERD's "exact" Σ_jj/(1 + C x_j² Σ_jj)² and
    "drop" Σ_jj − β (Σ_jj x_j)². (κ is applied by the caller through the covariance scale.)

    "drop" is kept at or above its exact lower bound ρΣ_jj, ρ = 1/(1 + cv) = 1 − βv (issue 9, item 1): with
    v = Σ_k Σ_kk x_k² ≥ Σ_jj x_j², Σ_jj − β(Σ_jj x_j)² = Σ_jj(1 − βΣ_jj x_j²) ≥ Σ_jj(1 − βv) = ρΣ_jj ≥ 0 in
    exact arithmetic, while the rounded difference cancels (and could go negative) when one feature carries
    almost all of v and cv ≫ 1. max(formula, ρΣ_jj) is the formula wherever it respects the bound."""
    cs = fst[CSCALE]
    a = sign * alpha * cs / fst[WSCALE]
    if P.shape[0]:  # the average's P moves with W in the same pass (δ_j = a Σ_jj x_j, the Σ before the update)
        q = fst[AVG_Q]
        for p in range(lo, hi):
            j = idx[p]
            x = val[p] * xs
            djj = D[o, j]
            inc = a * djj * x
            W[j, o] += inc
            P[j, o] -= q * inc
            D[o, j] = _diag_entry(djj, x, cs, mode, c, beta, C_nherd, rho)
        return
    for p in range(lo, hi):
        j = idx[p]
        x = val[p] * xs
        djj = D[o, j]
        W[j, o] += a * djj * x
        D[o, j] = _diag_entry(djj, x, cs, mode, c, beta, C_nherd, rho)


@njit_inline
def _diag_entry(djj, x, cs, mode, c, beta, C_nherd, rho):
    """The stored Σ_jj after the update (see :func:`_diag_step`; ``cs`` the covariance scale)."""
    sjj = djj * cs  # the true Σ_jj
    if mode == DIAG_INVERSE:
        return djj / (1.0 + c * sjj * x * x)
    if mode == DIAG_SQUARED:
        q = 1.0 + C_nherd * x * x * sjj
        return djj / (q * q)
    return max(sjj - beta * (sjj * x) * (sjj * x), rho * sjj) / cs


@njit_helper
def unit_input_scale(prm, xn2):
    """Default: the rule works on x itself."""
    return 1.0


@njit_inline
def move_mean_plain(W, P, fst, o, sign, alpha, cov, u, idx, val, xs, lo, hi):
    """Default: w_o ← w_o + sign·α Σ_o x (and the average's P, when it is kept, in the same pass)."""
    if P.shape[0]:
        _move_mean_averaged(W, P, fst[AVG_Q], o, sign * alpha / fst[WSCALE], cov, u, idx, val, xs, lo, hi)
    else:
        _move_mean(W, fst, o, sign, alpha, cov, u, idx, val, xs, lo, hi, False)


@njit_inline
def _move_mean_averaged(W, P, q, o, a, cov, u, idx, val, xs, lo, hi):
    """W_o ← W_o + δ and P_o ← P_o − qδ in one pass, δ = a·(Σx): the same W as :func:`_move_mean` (the same
    products), and P as :func:`_average_change` (measured on a9a × 8, linear PA-I: a second pass cost 26 %)."""
    if cov == FULL:
        for j in range(W.shape[0]):
            inc = a * u[j]
            W[j, o] += inc
            P[j, o] -= q * inc
    else:
        for p in range(lo, hi):
            j = idx[p]
            inc = a * val[p] * xs
            W[j, o] += inc
            P[j, o] -= q * inc


@njit_helper
def move_mean_tracking_norm(W, P, fst, o, sign, alpha, cov, u, idx, val, xs, lo, hi):
    """w_o ← w_o + sign·α x, keeping ‖W‖² of the stored entries exact (double-double, see
    :func:`_sum2_square`) — for rules whose step cancels in ‖w‖² (ROMMA)."""
    if P.shape[0]:
        _average_change(P, fst[AVG_Q], o, sign * alpha / fst[WSCALE], cov, u, idx, val, xs, lo, hi)
    _move_mean(W, fst, o, sign, alpha, cov, u, idx, val, xs, lo, hi, True)


@njit_helper
def no_after_update(fst, gamma, alpha, m, dn2):
    """Default: no scalar state follows the mean update."""


@njit_helper
def no_unlearned_round(prm, fst):
    """Default: a round of weight 0 changes no state of the rule."""


@njit_helper
def no_squared_diagonal(prm, wt):
    """Default: the rule has no "exact" (squared) diagonal form; its C is never read."""
    return 0.0


def linear_block(
    cfg, prm, fst, cnt, W, P, S, D, u1, u2, fs, indptr, idx, val, y, sw, order, start, stop, scores, mistakes
):
    """Predict-then-update for stream positions start..stop-1 (see the module docstring). ``P``: the average's
    correction (see :func:`begin_averaged_round`), empty (0 × 0) when no average is kept."""
    cov, mode, libol, avg_start = cfg[COV], cfg[DIAG_MODE], cfg[LIBOL], cfg[AVG_START]
    K = W.shape[1]
    n_seen = n_mistakes = n_updates = 0  # counted in registers, stored once at the end
    for pos in range(start, stop):
        prefetch_rounds(indptr, idx, val, y, sw, order, pos, stop)
        if avg_start > 0 and cnt[SEEN] + n_seen + 1 >= avg_start:
            begin_averaged_round(fst)
        t = order[pos]
        lo, hi = indptr[t], indptr[t + 1]
        # scores and ‖x‖² in one pass over the row's non-zeros (binary: one weight column)
        xn2 = 0.0
        vd = 0.0  # binary diagonal covariance: xᵀDx in the same pass
        if K == 1:
            f0 = 0.0
            if cov == DIAGONAL:
                for p in range(lo, hi):
                    j = idx[p]
                    x = val[p]
                    f0 += W[j, 0] * x
                    xn2 += x * x
                    vd += D[0, j] * x * x
            else:
                for p in range(lo, hi):
                    x = val[p]
                    f0 += W[idx[p], 0] * x
                    xn2 += x * x
        else:
            f0 = 0.0
            for o in range(K):
                fs[o] = 0.0
            for p in range(lo, hi):
                j = idx[p]
                x = val[p]
                xn2 += x * x
                for o in range(K):
                    fs[o] += W[j, o] * x
        xs = input_scale(prm, xn2)  # noqa: F821  (bound by PrimalRule.loop)
        xn2 = xn2 * xs * xs
        scale = fst[WSCALE] * xs
        n_seen += 1

        # the round in joint-feature form: output o1 with sign g1 (and o2 with sign −1, multiclass)
        if K == 1:
            yt = y[t]
            f = f0 * scale
            mistake = (1.0 if f >= 0.0 else -1.0) != yt
            o1, g1, o2 = 0, yt, -1
            m = yt * f
            scores[pos, 0] = f
        else:
            for o in range(K):
                fs[o] *= scale
                scores[pos, o] = fs[o]
            yc = int(y[t])
            best = 0
            for o in range(1, K):
                if fs[o] > fs[best]:
                    best = o
            mistake = best != yc
            o2 = 1 if yc == 0 else 0
            for o in range(K):
                if o != yc and fs[o] > fs[o2]:
                    o2 = o
            o1, g1 = yc, 1.0
            m = fs[yc] - fs[o2]
        mistakes[pos] = mistake
        n_mistakes += mistake
        wt = sw[t]
        if wt == 0.0:  # weight 0: predicted and counted, not learned (docs/algorithms/options.md#weights)
            unlearned_round(prm, fst)  # noqa: F821  (a schedule by round number moves on: IELLIP's c_t)
            continue
        npairs = 1.0 if o2 < 0 else 2.0
        dn2 = npairs * xn2

        v1 = v2 = 0.0  # full covariance: xᵀΣ_o x of each class of the round
        if cov == FULL:
            _full_times_x(S, o1, idx, val, xs, lo, hi, u1)
            v = v1 = _sparse_dot(u1, idx, val, xs, lo, hi)
            if o2 >= 0:
                _full_times_x(S, o2, idx, val, xs, lo, hi, u2)
                v2 = _sparse_dot(u2, idx, val, xs, lo, hi)
                v += v2
        elif cov == DIAGONAL:
            if K == 1:
                v = vd * xs * xs
            else:
                v = _diag_v(D, o1, idx, val, xs, lo, hi) + _diag_v(D, o2, idx, val, xs, lo, hi)
            v *= fst[CSCALE]
        else:
            v = dn2

        r = step(prm, fst, m, v, dn2, mistake, wt)  # noqa: F821
        alpha, gamma, beta, c, kappa = r.alpha, r.gamma, r.beta, r.c, r.kappa
        if not r.triggered:
            continue
        changed = xn2 > 0.0 and (alpha != 0.0 or gamma != 1.0 or (cov != NO_COV and (beta != 0.0 or kappa != 1.0)))
        if libol or changed:
            n_updates += 1
        if not changed:
            continue

        # w ← γ w + α ΣΔ  (lazy scale)
        if gamma == 0.0:
            if P.shape[0]:  # W ← 0: P + qW keeps the sum
                _add_scaled_matrix(P, fst[AVG_Q], W)
            _zero_matrix(W)
            fst[WSCALE] = 1.0
            fst[NORM_HI] = 0.0
            fst[NORM_LO] = 0.0
        elif gamma != 1.0:
            fst[WSCALE] *= gamma
            if abs(fst[WSCALE]) < RESCALE_BELOW:
                _renormalise(W, fst)
        # ρ = 1/(1 + cv) = 1 − βv: the exact lower bound of Σ_jj'/Σ_jj (before κ) of the full and "drop" forms
        rho = 1.0 / (1.0 + c * v) if cov != NO_COV else 1.0
        if cov == DIAGONAL:  # mean and covariance of each class in one pass over the non-zeros
            C_sq = squared_diagonal_C(prm, wt)  # noqa: F821
            _diag_step(W, P, D, fst, o1, g1, alpha, mode, beta, c, idx, val, xs, lo, hi, C_sq, rho)
            if o2 >= 0:
                _diag_step(W, P, D, fst, o2, -1.0, alpha, mode, beta, c, idx, val, xs, lo, hi, C_sq, rho)
            if kappa != 1.0:
                fst[CSCALE] *= kappa  # κ scales every Σ_jj: lazily, through the covariance scale
            continue
        if cov == FULL:  # u = Σx within its Cauchy–Schwarz bound before it moves the mean and Σ
            _bound_by_cauchy_schwarz(S[o1], u1, v1)
            if o2 >= 0:
                _bound_by_cauchy_schwarz(S[o2], u2, v2)
        if alpha != 0.0:
            move_mean(W, P, fst, o1, g1, alpha, cov, u1, idx, val, xs, lo, hi)  # noqa: F821
            if o2 >= 0:
                move_mean(W, P, fst, o2, -1.0, alpha, cov, u2, idx, val, xs, lo, hi)  # noqa: F821
        after_update(fst, gamma, alpha, m, dn2)  # noqa: F821
        if cov == FULL:
            _full_cov_step(S[o1], beta, kappa, u1, rho)
            if o2 >= 0:
                _full_cov_step(S[o2], beta, kappa, u2, rho)
            if kappa != 1.0:
                for o in range(K):  # classes not in the round are scaled too (IELLIP)
                    if o != o1 and o != o2:
                        _scale_matrix(S[o], kappa)
    cnt[SEEN] += n_seen
    cnt[MISTAKES] += n_mistakes
    cnt[UPDATES] += n_updates


_RULES: dict[str, "PrimalRule"] = {}
"""The rules of the algorithm modules loaded so far, by name (for unpickling; not a list of all rules)."""


def rule_named(module, name):
    """The PrimalRule ``name`` defined in ``module``."""
    import importlib

    importlib.import_module(module)
    return _RULES[name]


@dataclass(frozen=True)
class PrimalRule:
    """An algorithm's primal form as the engine sees it: its compiled pieces (module-level njit
    functions) and, in Python, how its model scores new rows.

    ``step`` is the rule; ``input_scale(prm, xn2)`` the factor applied to x (ALMA: 1/‖x‖);
    ``move_mean`` how the mean moves (ROMMA keeps ‖W‖² exact); ``after_update(fst, γ, α, m, ‖Δ‖²)``
    scalar state that follows the update; ``squared_diagonal_C(prm, wt)`` the C of the diagonal form
    Σ_jj/(1 + C x_j² Σ_jj)² (NHERD's "exact") for an example of weight ``wt``; ``unlearned_round(prm, fst)``
    what a round of weight 0, which never reaches ``step``, still moves (a schedule by round number: IELLIP's
    c_t); ``block``: a whole block function of the same signature as :func:`linear_block`, for a rule whose
    round has another shape (SOP).
    """

    name: str
    step: object = None
    input_scale: object = unit_input_scale
    move_mean: object = move_mean_plain
    after_update: object = no_after_update
    squared_diagonal_C: object = no_squared_diagonal
    unlearned_round: object = no_unlearned_round
    block: object = None

    def __post_init__(self):
        _RULES[self.name] = self

    def __reduce__(self):  # pickled by reference: (module defining the rule, its name)
        return rule_named, ((self.block or self.step).py_func.__module__, self.name)

    def loop(self):
        """The compiled block function of this rule."""
        if self.block is not None:
            return self.block
        return compile_loop(
            linear_block,
            step=self.step,
            input_scale=self.input_scale,
            move_mean=self.move_mean,
            after_update=self.after_update,
            squared_diagonal_C=self.squared_diagonal_C,
            unlearned_round=self.unlearned_round,
        )

    def weights(self, model):
        """(n_outputs, d): the weight vectors (mean μ)."""
        return (model.W * model.state.fst[WSCALE]).T.copy()

    def decision(self, model, X, W=None):
        """Scores of the CSR rows X under the model, or under the weights W (d × n_outputs, e.g. the
        average): (n, n_outputs)."""
        return np.asarray(X @ (model.W * model.state.fst[WSCALE] if W is None else W))
