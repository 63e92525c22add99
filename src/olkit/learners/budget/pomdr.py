"""POMDR (Li & Liao, AAAI 2023), as implemented in the Ahpatron authors' ``POMDR.R`` (spec:
docs/algorithms/pomdr.md). The AAAI paper's text was not available; the rule follows the code used for AHP Table 2.

An optimistic budgeted learner. The hint Ĥ_t(·) = (1/m) Σ_τ D_τ κ(x_τ, ·) averages the last
m = min(t − 1, M) *examples* (not SVs) with the directions D_τ computed at their rounds, and the learner
predicts with the optimistic scores F̃ = F(x_t) + λ_t Ĥ_t(x_t) (ŷ_t, s_t and Γ̃_t from F̃; the recorded
scores are F̃). Step λ_t = U/√(3c_D + Σδ), after the first merge coe·U/√(3c_D + Σδ).

* Round 1: x_1 is stored with (U/√(3c_D))·D_1, and Σδ = c_D.
* Phase 1, until |S| reaches B0: on m̃_t < 1, the ALD test with K_S⁻¹ (kept by the block formula):
  β* = K_S⁻¹k_t, δ² = κ_t − β*·k_t. If √δ² ≤ a: the projected step A ← A + λ_t β* D_tᵀ (no new SV),
  Σδ += max(c_D N_t − 2(1/m) Σ_τ (D_t·D_τ) Σ_j β*_j κ(x_j, x_τ), 0) with N_t = β*ᵀK_Sβ* = k_tᵀβ*;
  else x_t is added with λ_t D_t and Σδ += max(c_Dκ_t − 2D_t·Ĥ_t(x_t), 0).
* Phase 2: every m̃_t < 1 adds x_t with λ_t D_t, Σδ += max(c_Dκ_t − 2D_t·Ĥ_t(x_t), 0). When |S| = B, every SV
  after the first B/2 (arrival order; those are permanent) is merged into its nearest permanent SV
  (argmax_j κ(x_j, x_r), ties to the oldest: A_nearest += A_r), |S| = B/2, Σδ = 0, and f is rescaled to
  ‖f‖ = U exactly; λ_t then carries the factor coe.

After every change ‖f‖² is updated (docs/algorithms/multiclass.md#budgeted-learners: adding v at x_t: 2v·F(x_t) +
‖v‖²κ_t; a projected step:
2v·F(x_t) + ‖v‖²N_t, with F(x_t) the model's own scores, without the hint) and f projected onto ‖f‖ ≤ U.
Merging recomputes ‖f‖² = tr(AᵀK_S A). Nearest permanent SVs are found at the merge, from the SV Gram
cache (the permanent SVs never change input, so this equals recording them on insertion).

Defaults (``POMDR.R``): U = 25, B = 600, B0 = round(10 ln T), M = 15, coe = 0.1, a = 1/√T, σ = 1. T is
the length of the first data given (``fit``, ``olkit run``); set ``B0`` and ``a`` explicitly when feeding a
stream in chunks. The hint window keeps copies of the last M inputs (dense, O(M·d) memory).

Diagnostics: ``phase``, ``merges``, ``projections``, ``additions``, ``sum_delta`` (Σδ), ``norm``.

``compat="ahp-r"`` follows ``POMDR.R`` to the letter (binary; docs/algorithms/pomdr.md#ahp-r; details in the class
docstring):
round 1 always a mistake, κ(x, x) taken as 1, the script's projected-step forms, at the first merge the
phase-1 SVs beyond B/2 dropped instead of merged, and the nearest permanent SVs chosen from the script's own
kernel values (the first of exact ties, which repeated rows make common).

Slow reference: tests/reference/pomdr.py (``run_pomdr``); the ``compat`` mode: tests/reference/pomdr_compat.py
(``run_pomdr_ahp_r``).
"""

import math
from typing import NamedTuple

import numpy as np

from ..._compile import njit_helper
from ...kernels import exp_nonpositive, kernel_from_dot
from ...params import POSITIVE, Interval
from ...spec import register
from ..kernel.base import EPS, SEEN
from ..kernel.gram import sync_gram
from ..kernel.multiclass import h_dot
from ..kernel.support_set import N
from ..kernel.sv_edit import sv_remove_set
from ..linear.engine import _two_sum
from ..records import rule_params
from .common import (
    D0,
    BudgetLearner,
    CompatRule,
    add_along,
    append_direction,
    margin_direction,
    project_to_ball,
    rescale_norm,
)
from .projectron import add_with_inverse, project

PROJECTIONS, ADDITIONS, MERGES = 0, 1, 2  # diagnostic slots
# fst slots: ‖f‖², Σδ, phase, merged, λ_t, window count, window head, then F(x_t) (K'), Ĥ(x_t) (K'), window
NORM2, SUMD, PHASE, MERGED, LAM, WCOUNT, WHEAD, HEAD = 0, 1, 2, 3, 4, 5, 6, 7


class POMDRParams(NamedTuple):
    """Parameters of POMDR, resolved for the stream."""

    U: float
    B: int  # budget
    B0: int  # SVs kept before the first merge
    M: int  # window of the last M examples
    coe: float  # λ_t's factor after a merge
    a: float  # ALD threshold
    K: int  # scores per example (1 binary, else the classes)
    d: int  # features
    r_div: float  # compat="ahp-r" with the Gaussian kernel: POMDR.R's divisor −2·(σ·σ); 0 otherwise


@njit_helper
def _window_entry(st, k):
    """Offset of window entry k in ``st.fst``: [d1, d2, ‖x‖², x (d values)] (d1 = y_τ binary, or (r, s))."""
    K, d = st.prm.K, st.prm.d
    return HEAD + 2 * K + k * (3 + d)


@njit_helper
def _row_dot(s, indptr, t, w, off):
    """x_t · w for the window copy w = st.fst[off : off + d]. ``indptr``: ``s.indptr``, None for a dense stream (its
    run compiles no sparse branch, :data:`~olkit.learners.kernel.stream.Stream`)."""
    acc = 0.0
    if s.X.shape[0] > 0:
        x = s.X[t]
        for q in range(x.shape[0]):
            acc += x[q] * w[off + q]
    elif indptr is not None:
        for q in range(indptr[t], indptr[t + 1]):
            acc += s.data[q] * w[off + s.indices[q]]
    return acc


@njit_helper
def _sv_dot(sv, indices, j, w, off, d):
    """x_j · w for SV j and the window copy at ``off``. ``indices``: ``sv.indices``, None for dense SVs (their run
    compiles no sparse branch, :data:`~olkit.learners.kernel.support_set.SVArrays`)."""
    acc = 0.0
    if sv.X.shape[0] > 0:
        for q in range(d):
            acc += sv.X[j, q] * w[off + q]
    elif indices is not None:
        for q in range(sv.start[j], sv.stop[j]):
            acc += sv.data[q] * w[off + indices[q]]
    return acc


@njit_helper
def pomdr_scores(sv, st, s, t, kself, f):
    """F̃ = F(x_t) + λ_t Ĥ_t(x_t); keeps F(x_t), Ĥ_t(x_t) and λ_t for the rule."""
    K = f.shape[0]
    cD = 1.0 if K == 1 else 2.0
    U, coe = st.prm.U, st.prm.coe
    lam = U / math.sqrt(3.0 * cD + st.fst[SUMD])
    if st.fst[MERGED] > 0:
        lam *= coe
    st.fst[LAM] = lam
    hint = st.fst[HEAD + K : HEAD + 2 * K]
    for q in range(K):
        st.fst[HEAD + q] = f[q]
        hint[q] = 0.0
    m = int(st.fst[WCOUNT])
    if m == 0:
        return
    w = st.fst
    for k in range(m):
        off = _window_entry(st, k)
        kv = kernel_from_dot(s.kp, _row_dot(s, s.indptr, t, w, off + 3), s.norm2[t], w[off + 2])
        if K == 1:
            hint[0] += w[off] * kv
        else:
            hint[int(w[off])] += kv
            hint[int(w[off + 1])] -= kv
    for q in range(K):
        hint[q] = hint[q] / m
        f[q] = f[q] + lam * hint[q]


@njit_helper
def _push_window(st, s, indptr, t, y, r, c):
    """Store (x_t, D_t) as the newest of the last M examples (``indptr``: as in :func:`_row_dot`)."""
    M, d = st.prm.M, st.prm.d
    if M == 0:
        return
    head = int(st.fst[WHEAD])
    off = _window_entry(st, head)
    w = st.fst
    w[off] = y if c < 0 else float(r)
    w[off + 1] = 0.0 if c < 0 else float(c)
    w[off + 2] = s.norm2[t]
    for q in range(d):
        w[off + 3 + q] = 0.0
    if s.X.shape[0] > 0:
        for q in range(d):
            w[off + 3 + q] = s.X[t, q]
    elif indptr is not None:
        for q in range(indptr[t], indptr[t + 1]):
            w[off + 3 + s.indices[q]] = s.data[q]
    st.fst[WHEAD] = (head + 1) % M
    st.fst[WCOUNT] = min(st.fst[WCOUNT] + 1.0, float(M))


@njit_helper
def _projected_hint(sv, st, s, y, r, c):
    """(1/m) Σ_τ (D_t·D_τ) Σ_j β*_j κ(x_j, x_τ) (β* in ``sv.grow``)."""
    m = int(st.fst[WCOUNT])
    if m == 0:
        return 0.0
    n, d = sv.meta[N], st.prm.d
    w = st.fst
    total = 0.0
    for k in range(m):
        off = _window_entry(st, k)
        dd = y * w[off] if c < 0 else h_dot(r, c, int(w[off]), int(w[off + 1]))
        if dd == 0.0:
            continue
        acc = 0.0
        for j in range(n):
            acc += sv.grow[j] * kernel_from_dot(
                s.kp, _sv_dot(sv, sv.indices, j, w, off + 3, d), sv.norm2[j], w[off + 2]
            )
        total += dd * acc
    return total / m


@njit_helper
def _r_sq_dist(sv, indices, a, b, d, w, base_s, base_c):
    """``POMDR.R``'s squared distance of SVs a and b, colSums((x_a − x_b)²): each difference and its square
    rounded to double, their sum exact and rounded once. R accumulates the column sum in long double, which is
    exact whenever the squares span few binades (features taking a few values), and so is Ogita, Rump and
    Oishi's Sum2 used here; SVs at the same distance then get the same value whatever their order of
    features — unlike ‖x_a‖² + ‖x_b‖² − 2x_a·x_b, whose rounding depends on the rows. Sparse rows: x_b is in
    the dense work vector ``w`` and (base_s, base_c) is the Sum2 state of Σ_{k∈b} x_bk²; the terms
    (x_ak − w_k)² − w_k² for k ∈ a complete the same exact sum. ``indices``: as in :func:`_sv_dot`."""
    if sv.X.shape[0] > 0 or indices is None:
        s, c = 0.0, 0.0
        for k in range(d):
            dk = sv.X[a, k] - sv.X[b, k]
            if dk != 0.0:  # a zero term leaves the sum as it is
                s, e = _two_sum(s, dk * dk)
                c += e
        return s + c
    s, c = base_s, base_c
    for q in range(sv.start[a], sv.stop[a]):
        wk = w[indices[q]]
        dk = sv.data[q] - wk
        s, e = _two_sum(s, dk * dk)
        c += e
        s, e = _two_sum(s, -(wk * wk))
        c += e
    return s + c


@njit_helper
def _nearest(sv, indices, j, half, r_div, d, w):
    """Slot of the permanent SV (the first ``half`` in arrival order) nearest to SV j: the first index of the
    maximum of κ(x_q, x_j), from the SV Gram cache (mirrored), or with ``r_div`` < 0 (compat="ahp-r", Gaussian)
    from ``POMDR.R``'s own values exp(colSums((x_q − x_j)²)/r_div), r_div = −2·(σ·σ): rounding decides a first
    index of the maximum between SVs at the same distance (exact ties abound on data with repeated rows or
    features taking a few values), so it must be the script's rounding. ``w``: a zero work vector of d
    entries for sparse SVs (zero again on return)."""
    best = sv.arrival[0]
    if r_div >= 0.0:
        for q in range(1, half):
            if sv.gram[j, sv.arrival[q]] > sv.gram[j, best]:
                best = sv.arrival[q]
        return best
    # Only SVs whose cached value is within the rounding of the expanded form of the cache's maximum can be
    # the script's maximum or tie with it: its error in γ‖x − z‖² is at most (d + 3)ε·2(‖x‖² + ‖z‖²)γ, taken
    # 8 times over (every entry when that reaches 1/2); the others are not worth the script's O(d) sum.
    gmax, nmax = 0.0, 0.0
    for q in range(half):
        gmax = max(gmax, sv.gram[j, sv.arrival[q]])
        nmax = max(nmax, sv.norm2[sv.arrival[q]])
    slack = 16.0 * (d + 3) * 2.0**-52 * (nmax + sv.norm2[j]) / -r_div + 2.0**-48
    floor = gmax * (1.0 - slack) if slack < 0.5 else -1.0
    bs, bc = 0.0, 0.0
    if (
        indices is not None
    ):  # sparse SVs (``indices``: as in :func:`_sv_dot`): x_j into w, and the Sum2 state of its squares
        for q in range(sv.start[j], sv.stop[j]):
            v = sv.data[q]
            w[indices[q]] = v
            bs, e = _two_sum(bs, v * v)
            bc += e
    kbest = -1.0
    for q in range(half):
        p = sv.arrival[q]
        if sv.gram[j, p] < floor:
            continue
        kv = exp_nonpositive(_r_sq_dist(sv, indices, p, j, d, w, bs, bc) / r_div)
        if kv > kbest:
            best, kbest = p, kv
    if indices is not None:
        for q in range(sv.start[j], sv.stop[j]):
            w[indices[q]] = 0.0
    return best


@njit_helper
def _merge(sv, half, first, unit_diagonal, r_div, d):
    """Merge every SV after the first ``half`` (arrival order) into its nearest permanent SV (:func:`_nearest`),
    in position order; the SVs at positions half..first−1 are dropped without merging (``POMDR.R``'s phase-1
    SVs beyond B/2 at its first merge; the default passes first = half). Returns tr(AᵀK_S A) of what is left
    (with a unit Gram diagonal when ``unit_diagonal``: the script's κ(x, x) = 1)."""
    sync_gram(sv)
    n = sv.meta[N]
    K = sv.coef.shape[1]
    w = np.zeros(d if r_div < 0.0 and sv.X.shape[0] == 0 else 0)
    for p in range(first, n):
        j = sv.arrival[p]
        best = _nearest(sv, sv.indices, j, half, r_div, d, w)
        for col in range(K):
            sv.coef[best, col] += sv.coef[j, col]
        if K > 1:
            sv.hr[best] = -1
    sv_remove_set(sv, sv.arrival[half:n].copy())
    n = sv.meta[N]
    norm2 = 0.0
    for a in range(n):
        for b in range(n):
            acc = 0.0
            for col in range(K):
                acc += sv.coef[a, col] * sv.coef[b, col]
            norm2 += (1.0 if unit_diagonal and a == b else sv.gram[a, b]) * acc
    return norm2


@njit_helper
def _next_phase(sv, st, B0, B, U, ahp_r):
    """After an update: phase 1 ends when |S| reaches B0; in phase 2 a full budget is merged down to B/2 and
    f rescaled to ‖f‖ = U, the hint sum restarting. ``ahp_r``: POMDR.R's merge (unit kernel diagonal; at
    the first merge the phase-1 SVs beyond B/2 are dropped, not merged; the nearest permanent SVs from the
    script's kernel values, :func:`_nearest`)."""
    n = sv.meta[N]
    if st.fst[PHASE] == 1.0 and n >= B0:
        st.fst[PHASE] = 2.0
    elif st.fst[PHASE] == 2.0 and n >= B:
        half = B // 2
        first = max(half, B0) if ahp_r and st.fst[MERGED] == 0.0 else half
        r_div = st.prm.r_div if ahp_r else 0.0
        norm2 = _merge(sv, half, first, ahp_r, r_div, st.prm.d)
        st.fst[SUMD] = 0.0
        st.fst[MERGED] = 1.0
        st.fst[NORM2] = rescale_norm(sv, norm2, U)
        st.cnt[D0 + MERGES] += 1


@njit_helper
def pomdr_update(sv, st, s, t, kself, y, f, mistake):
    U, B, B0 = st.prm.U, st.prm.B, st.prm.B0
    a_ald = st.prm.a
    K = f.shape[0]
    r, c, mt, cD = margin_direction(s, t, y, f)  # from the optimistic scores F̃
    raw = st.fst[HEAD : HEAD + K]
    hint = st.fst[HEAD + K : HEAD + 2 * K]
    m_raw = y * raw[0] if c < 0 else raw[r] - raw[c]
    d_hint = y * hint[0] if c < 0 else hint[r] - hint[c]
    wt = s.sw[t]  # the loss gradient times s_t: the step λ_t s_t (docs/algorithms/pomdr.md#weights)
    lam = st.fst[LAM] * wt
    updated = False
    # round 1, the first example learned (phase 0 until then; rounds of weight 0 before it are not learned,
    # docs/algorithms/pomdr.md#weights): store x_1 with (U/√(3c_D))·D_1
    if st.fst[PHASE] == 0.0:
        v = U / math.sqrt(3.0 * cD) * wt
        append_direction(sv, s, t, kself, y, r, c, v)
        sv.mats[0, 0, 0] = 1.0 / kself if kself > EPS else 0.0
        st.fst[NORM2] = v * v * cD * kself
        st.fst[SUMD] = cD
        st.fst[PHASE] = 1.0 if B0 > 1 else 2.0
        st.cnt[D0 + ADDITIONS] += 1
        updated = True
    elif mt < 1.0 and kself > EPS:
        norm2 = st.fst[NORM2]
        if st.fst[PHASE] == 1.0:
            delta2, kd = project(sv, kself)
            if math.sqrt(delta2) <= a_ald:  # projected step
                st.fst[SUMD] += max(cD * kd - 2.0 * _projected_hint(sv, st, s, y, r, c), 0.0)
                norm2 += 2.0 * lam * m_raw + lam * lam * cD * kd
                add_along(sv, sv.grow, y, r, c, lam)
                st.cnt[D0 + PROJECTIONS] += 1
            else:
                st.fst[SUMD] += max(cD * kself - 2.0 * d_hint, 0.0)
                norm2 += 2.0 * lam * m_raw + cD * lam * lam * kself
                add_with_inverse(sv, s, t, kself, y, r, c, delta2, lam)
                st.cnt[D0 + ADDITIONS] += 1
        else:
            st.fst[SUMD] += max(cD * kself - 2.0 * d_hint, 0.0)
            norm2 += 2.0 * lam * m_raw + cD * lam * lam * kself
            append_direction(sv, s, t, kself, y, r, c, lam)
            st.cnt[D0 + ADDITIONS] += 1
        st.fst[NORM2] = project_to_ball(sv, norm2, U)
        updated = True
    if updated:
        _next_phase(sv, st, B0, B, U, False)
    _push_window(st, s, s.indptr, t, y, r, c)
    return updated


# ---- compat="ahp-r": the AHP authors' POMDR.R (docs/algorithms/pomdr.md#ahp-r) -------------------------------------


@njit_helper
def _projected_hint_ahp_r(sv, st, s):
    """``POMDR.R``'s tem2 = (1/m) Σ_τ y_τ Σ_j β*_j κ(x_j, x_τ) (β* in ``sv.grow``): the window oldest first while
    it fills (m < M: the script's loop over rounds 1..i−1) and newest first once full (its loop over i − r);
    at round 2 the script writes y_1 β*_1 (κ(x_1, x_1) taken as 1)."""
    m = int(st.fst[WCOUNT])
    if m == 0:
        return 0.0
    M, head = st.prm.M, int(st.fst[WHEAD])
    if st.cnt[SEEN] == 2:  # the window is x_1 alone, the only SV
        return st.fst[_window_entry(st, 0)] * sv.grow[0]
    n, d = sv.meta[N], st.prm.d
    w = st.fst
    total = 0.0
    for q in range(m):
        k = q if m < M else (head - 1 - q + M) % M
        off = _window_entry(st, k)
        acc = 0.0
        for j in range(n):
            acc += (
                kernel_from_dot(s.kp, _sv_dot(sv, sv.indices, j, w, off + 3, d), sv.norm2[j], w[off + 2]) * sv.grow[j]
            )
        total += w[off] * acc
    return total / m


@njit_helper
def _unit_gram_forms(sv):
    """(βᵀGβ, (Gβ)·α) with G the SV Gram matrix with a unit diagonal (the script's ``Gram``), β in ``sv.grow``:
    the script's tem1 and tem3 of a projected step."""
    sync_gram(sv)
    n = sv.meta[N]
    tem1 = 0.0
    tem3 = 0.0
    for a in range(n):
        acc = 0.0
        for b in range(n):
            acc += (1.0 if a == b else sv.gram[a, b]) * sv.grow[b]
        tem1 += acc * sv.grow[a]
        tem3 += acc * sv.coef[a, 0]
    return tem1, tem3


@njit_helper
def pomdr_ahp_r_update(sv, st, s, t, kself, y, f, mistake):
    """``POMDR.R`` (binary): κ(x, x) taken as 1 (x_1 stored with (U/√3)y_1, ‖f‖ = U/√3, K⁻¹ = [1]; δ² =
    1 − k_tᵀβ*; ‖f‖² += 2λy f_t(x_t) + λ² on an addition; Σδ += max(1 − 2y h_t(x_t), 0)); a projected step
    with the script's tem1 = β*ᵀGβ*, tem3 = (Gβ*)·α (unit-diagonal G) and its window order; at the first
    merge the phase-1 SVs beyond B/2 (no nearest permanent SV recorded) are dropped; the merged norm from
    the permanent SVs' unit-diagonal Gram."""
    U, B, B0 = st.prm.U, st.prm.B, st.prm.B0
    a_ald = st.prm.a
    raw, hint, lam = st.fst[HEAD], st.fst[HEAD + 1], st.fst[LAM]
    updated = False
    if st.fst[PHASE] == 0.0:  # the script's first instance (the first learned: weight-0 rounds are not)
        v = U / math.sqrt(3.0)
        append_direction(sv, s, t, kself, y, 0, -1, v)
        sv.mats[0, 0, 0] = 1.0
        st.fst[NORM2] = v * v
        st.fst[SUMD] = 1.0
        st.fst[PHASE] = 1.0
        st.cnt[D0 + ADDITIONS] += 1
        updated = True
    elif y * f[0] < 1.0:
        norm2 = st.fst[NORM2]
        if st.fst[PHASE] == 1.0:
            delta2, _ = project(sv, 1.0)  # δ² = max(1 − k_tᵀβ*, 0)
            if math.sqrt(delta2) <= a_ald:  # projected step
                tem1, tem3 = _unit_gram_forms(sv)
                tem2 = _projected_hint_ahp_r(sv, st, s)
                st.fst[SUMD] += max(tem1 - 2.0 * y * tem2, 0.0)
                norm2 += 2.0 * y * lam * tem3 + lam * lam * tem1
                add_along(sv, sv.grow, y, 0, -1, lam)
                st.cnt[D0 + PROJECTIONS] += 1
            else:
                add_with_inverse(sv, s, t, kself, y, 0, -1, delta2, lam)
                norm2 += 2.0 * y * lam * raw + lam * lam
                st.fst[SUMD] += max(1.0 - 2.0 * y * hint, 0.0)
                st.cnt[D0 + ADDITIONS] += 1
        else:
            append_direction(sv, s, t, kself, y, 0, -1, lam)
            norm2 += 2.0 * y * lam * raw + lam * lam
            st.fst[SUMD] += max(1.0 - 2.0 * y * hint, 0.0)
            st.cnt[D0 + ADDITIONS] += 1
        st.fst[NORM2] = project_to_ball(sv, norm2, U)
        updated = True
    if updated:
        _next_phase(sv, st, B0, B, U, True)
    _push_window(st, s, s.indptr, t, y, 0, -1)
    return updated


_AHP_R = CompatRule(pomdr_ahp_r_update, first_round_mistake=True, source="the AHP R script POMDR.R")


@register(
    "pomdr",
    "POMDR: optimistic budgeted kernel learning with ALD projections and merging of the "
    "newer half of the SVs (Li & Liao 2023; the AHP authors' POMDR.R)",
    data=("binary", "multiclass"),
    sources={
        "U": "POMDR.R (25)",
        "B": "POMDR.R (600)",
        "B0": "POMDR.R (round(10 ln T))",
        "M": "POMDR.R (15)",
        "coe": "POMDR.R (0.1)",
        "a": "POMDR.R (1/√T)",
        "sigma": "AHP Experiments (σ = 1)",
    },
    position=260,
    weight="λ_t ← s·λ_t: the gradient s D_tκ(x_t,·) in the step; the hint and Σδ stay on unit directions",
    weight_repeats=False,
    sweep={
        "small": {"B": 4, "B0": 2, "a": 0.3},
        "cases": [{"B": 4, "B0": 1, "M": 0}],
        "compat": {"ahp-r": {"B": 6, "B0": 2}},
        "length_dependent": ("B0", "a"),
        "grid": {"B": [2, 3, 4, 6, 8], "B0": [1, 2, 3, None], "a": [0.1, 0.5, None], "M": [15, 0, 3], "U": [25.0, 1.0]},
    },
)
class POMDR(BudgetLearner):
    """POMDR (Li & Liao, AAAI 2023), the rule of the Ahpatron authors' ``POMDR.R``.

    Parameters
    ----------
    U : float > 0, default 25
        Radius of the ball ‖f‖ ≤ U.
    B : int >= 2, default 600
        Budget; when full, the newer B/2 SVs are merged into the older B/2.
    B0 : int >= 1 or None, default None
        SVs of phase 1 (ALD projections), < B. None: round(10 ln T), T the length of the first data given
        (at most B/2: the phase-1 SVs are meant to be among the permanent half).
    M : int >= 0, default 15
        Hint window (the last M examples).
    coe : float > 0, default 0.1
        Factor of the step after the first merge.
    a : float >= 0 or None, default None
        ALD threshold: project when √δ² ≤ a. None: 1/√T.
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).
    compat : {"none", "ahp-r"}, default "none"
        "ahp-r" reproduces the AHP authors' R script ``POMDR.R`` (alg4ml/Ahpatron; docs/algorithms/pomdr.md#ahp-r),
        binary
        data only, B even, B0 ≥ 2. Round 1 always counts as a mistake (x_1 is always stored, as by default);
        prediction ŷ = −1 iff F̃ < 0 (as by default); κ(x, x) is taken as 1 in the formulas (round 1: ‖f‖ = U/√3,
        K⁻¹ = [1]; δ² = 1 − k_tᵀβ*; an addition adds 2λ_t y_t f_t(x_t) + λ_t² to ‖f‖² and max(1 − 2y_t h_t(x_t), 0)
        to Σδ; the SV Gram matrices have a unit diagonal); a projected step adds 2λ_t y_t (Gβ*)·α + λ_t² β*ᵀGβ*
        to ‖f‖² and max(β*ᵀGβ* − 2y_t⟨Pκ_t, h_t⟩, 0) to Σδ, ⟨Pκ_t, h_t⟩ summed over the window oldest first
        while it fills and newest first once full, divided by m (at round 2: y_1 β*_1). The nearest permanent
        SV is recorded only for SVs added in phase 2 beyond position B/2: at the *first* merge the phase-1 SVs
        at positions B/2 + 1 … B0 (when B0 > B/2) are dropped, not merged (later merges merge every SV beyond
        B/2). Merging adds coefficients in position order, recomputes ‖f‖ from the permanent SVs' Gram (unit
        diagonal) and rescales to ‖f‖ = U exactly; Σδ is reset to 0 after the round's own increment. As by
        default: λ_t = U/√(3 + Σδ) at the start of each round (times coe after the first merge), h_t(x_t) =
        (1/m)Σ over the last m = min(t − 1, M) examples, phase 1 ends right after the first round that leaves
        |S| = B0, and ‖f‖ is updated with f_t(x_t) without the hint. Where the script fails, olkit keeps its
        own reading: B odd (the script indexes with B/2), B0 = 1 (the script's test k == B0 never holds again
        once round 2 adds an SV, and phase 1 then grows S without bound), phase 2 before round M + 1, i.e. B0 < M (the
        script's phase-2 window (t − M):(t − 1) then starts before round 1: it stops, or at t = M divides the
        M − 1 earlier examples by M; olkit averages the m = t − 1 earlier examples), M = 0 (the script divides by 0; no
        hint), a merged norm of 0 (the script divides by 0;
        olkit leaves the coefficients and ‖f‖ = 0). Kernel values come from olkit's ‖s‖² + ‖x‖² − 2s·x, not
        the script's direct differences (see ahpatron's compat), a difference in the last bits — except for the
        nearest permanent SV, the first index of the maximum, where those bits decide between SVs at exactly the
        same distance (repeated rows, features taking a few values): with the Gaussian kernel it is chosen from
        the script's values exp(colSums((s − x)²)/(−2σ²)), the squared differences summed exactly and rounded
        once as R's long-double column sum does whenever it is exact.

    Diagnostics: ``phase``, ``merges``, ``projections``, ``additions``, ``sum_delta``, ``norm``.

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> olkit.evaluate_online(olkit.make("pomdr", B=100, sigma=8), X, y).n_sv <= 100
    True

    References
    ----------
    Li, J., Liao, S. (2023). Improved regret bounds for online kernel selection under bandit feedback /
    POMDR (AAAI 2023), as implemented in alg4ml/Ahpatron ``POMDR.R``.
    """

    _update = staticmethod(pomdr_update)
    _score_hook = staticmethod(pomdr_scores)
    _kernel_compat = ("none", "ahp-r")
    _compat_rules = {"ahp-r": _AHP_R}
    _gram = "cache"
    _matrices = ("kinv",)
    _parameter_constraints = {
        "U": [POSITIVE],
        "B0": [Interval(1, None, integer=True), None],
        "M": [Interval(0, None, integer=True)],
        "coe": [POSITIVE],
        "a": [Interval(0, None), None],
    }

    def __init__(
        self,
        U=25.0,
        B=600,
        B0=None,
        M=15,
        coe=0.1,
        a=None,
        kernel="gaussian",
        sigma=1.0,
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
        self.U = U
        self.B = B
        self.B0 = B0
        self.M = M
        self.coe = coe
        self.a = a
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _new_state(self, X):
        self._stream_length = max(int(X.shape[0]), 2)
        self._n_features = int(X.shape[1])
        super()._new_state(X)
        if self._B0() >= int(self.B):
            raise ValueError(f"pomdr: B0={self._B0()} must be smaller than B={self.B} (phase 1 ends at B0 SVs)")
        if self.compat == "ahp-r" and self._B0() < 2:
            raise ValueError(
                f"pomdr: compat='ahp-r' needs B0 >= 2, got B0={self._B0()} (POMDR.R ends phase 1 when "
                "|S| == B0 after round 2 or later; with B0 = 1 and an SV added at round 2 it never does)"
            )

    def _check_params(self):
        super()._check_params()
        if self.compat == "ahp-r" and int(self.B) % 2:
            raise ValueError(
                f"pomdr: parameter B={self.B!r} is not valid with compat='ahp-r': POMDR.R needs an even "
                "budget (it indexes the permanent half with B/2)"
            )

    def _check_state(self):
        """The stream's own values and the window of the last M examples: its count and head index the
        window, and on multiclass data its entries hold class indices (read as indices of the hint)."""
        T, d = self._stream_length, self._n_features
        if not isinstance(T, int) or isinstance(T, bool) or T < 2 or d != self.n_features_in_:
            raise ValueError(f"pomdr: stream length {T!r} / width {d!r} are not those of a stream")
        fst, K, M, n = self.state_.fst, self._n_outputs(), int(self.M), self.support_.n
        phase = fst[PHASE]  # the rule merges only in phase 2, when |S| reaches B: any other phase would overflow
        if not (phase == 0.0 and n == 0 or phase == 1.0 and 0 < n < self._B0() or phase == 2.0 and 0 < n < int(self.B)):
            raise ValueError(
                f"state_.fst: phase {phase} with {n} SVs (phase 1 holds fewer than B0 = {self._B0()}, "
                f"phase 2 fewer than B = {self.B})"
            )
        m, head = fst[WCOUNT], fst[WHEAD]
        if not (m == int(m) and 0 <= m <= M and head == int(head) and 0 <= head < max(M, 1)):
            raise ValueError(f"state_.fst: window count {m} / head {head} outside 0..{M}")
        if K > 1:
            offsets = HEAD + 2 * K + np.arange(int(m)) * (3 + d)  # the entries' offsets (see _window_entry)
            codes = np.concatenate([fst[offsets], fst[offsets + 1]])
            if codes.size and np.any((codes != np.floor(codes)) | (codes < 0) | (codes >= K)):
                raise ValueError(f"state_.fst: a window entry's class is not one of 0..{K - 1}")

    def _B0(self):
        if self.B0 is not None:
            return int(self.B0)
        return min(int(round(10.0 * math.log(self._stream_length))), int(self.B) // 2)

    def _a(self):
        return float(self.a) if self.a is not None else 1.0 / math.sqrt(self._stream_length)

    def _rule_params(self):
        sigma = float(self.sigma)
        r_div = -2.0 * (sigma * sigma) if self.compat == "ahp-r" and self.kernel == "gaussian" else 0.0
        return rule_params(
            POMDRParams,
            U=self.U,
            B=self.B,
            B0=self._B0(),
            M=self.M,
            coe=self.coe,
            a=self._a(),
            K=self._n_outputs(),
            d=self._n_features,
            r_div=r_div,
        )

    def _initial_fst(self):
        K, M, d = self._n_outputs(), int(self.M), self._n_features
        return [0.0] * (HEAD + 2 * K + M * (3 + d))

    def _resolved_params(self):
        out = self._algorithm_params()
        if getattr(self, "_stream_length", None):
            out.update(B0=self._B0(), a=self._a())
        return out

    def diagnostics(self):
        fst = self.state_.fst
        return {
            "phase": int(fst[PHASE]),
            "merges": self._counter(MERGES),
            "projections": self._counter(PROJECTIONS),
            "additions": self._counter(ADDITIONS),
            "sum_delta": float(fst[SUMD]),
            "norm": math.sqrt(fst[NORM2]),
        }
