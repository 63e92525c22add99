"""The compiled block loop of the linear (primal) learners and the table of their step rules.

``linear_block`` is the inner part of the one online protocol (:mod:`olkit.protocol`) for linear
models. The stream is CSR (a dense input is converted once; its rows simply have every index), so the
same loop serves 300-feature dense rows and 100,000-feature sparse ones, and a first-order or diagonal
update touches only the row's non-zeros. Per example it

1. computes the scores f_r = w_r·x (w is stored as W·s with a lazy global scale s, so ROMMA's and ALMA's
   rescaling of w costs O(1) instead of O(d));
2. predicts (binary: ŷ = +1 iff f ≥ 0; multiclass: argmax, ties → smallest class index), counts the
   mistake, and forms the joint-feature view of the round (ALGORITHMS.md C16): binary Δ = y x on the one
   output; multiclass Δ = +x on the true class y and −x on the best wrong class s;
3. computes m = w·Δ and v = ΔᵀΣΔ (first order: Σ = I; diagonal; full, per class = block-diagonal);
4. asks the learner's step rule for (triggered, α, γ, β, c, κ) and applies
   w ← γ w + α ΣΔ, then the covariance update (full: Σ ← κ(Σ − β uuᵀ) with u = ΣΔ restricted to the
   class; diagonal: Σ_jj ← κ Σ_jj/(1 + c Σ_jj x_j²), or NHERD's "exact"/"drop" variants).

SOP (C5) predicts with the covariance updated by x_t, so it has its own branch.
"""
import math

from ..._compile import fma, njit
from ...base import EPS
from .first_order import CSCALE, N2, NORM_HI, NORM_LO, WSCALE, alma_step, pa_step, perceptron_step, romma_step
from .steps import arow_step, cw_step, cw_var_step, iellip_step, narow_step, nherd_step

RULE_IDS = {"perceptron": 0, "pa": 1, "romma": 2, "alma": 3, "sop": 4, "cw": 5, "cw-var": 6, "iellip": 7,
            "arow": 8, "nherd": 9, "narow": 10}
SOP, ROMMA, ALMA = RULE_IDS["sop"], RULE_IDS["romma"], RULE_IDS["alma"]

# covariance kinds and diagonal update modes
NO_COV, FULL, DIAGONAL = 0, 1, 2
DIAG_INVERSE, DIAG_SQUARED, DIAG_DROP = 0, 1, 2

# cfg slots
RULE, COV, DIAG_MODE, LIBOL, NORMALISE = 0, 1, 2, 3, 4
N_CFG = 5

# counter slots (the same as the kernel learners')
SEEN, MISTAKES, UPDATES = 0, 1, 2

RESCALE_BELOW = 1e-100


@njit
def step(rule, prm, fst, m, v, dn2, mistake):
    if rule == 0:
        return perceptron_step(prm, fst, m, v, dn2, mistake)
    if rule == 1:
        return pa_step(prm, fst, m, v, dn2, mistake)
    if rule == 2:
        return romma_step(prm, fst, m, v, dn2, mistake)
    if rule == 3:
        return alma_step(prm, fst, m, v, dn2, mistake)
    if rule == 5:
        return cw_step(prm, fst, m, v, dn2, mistake)
    if rule == 6:
        return cw_var_step(prm, fst, m, v, dn2, mistake)
    if rule == 7:
        return iellip_step(prm, fst, m, v, dn2, mistake)
    if rule == 8:
        return arow_step(prm, fst, m, v, dn2, mistake)
    if rule == 9:
        return nherd_step(prm, fst, m, v, dn2, mistake)
    return narow_step(prm, fst, m, v, dn2, mistake)


@njit
def _full_times_x(S, o, idx, val, xs, lo, hi, u):
    """u = Σ_o x (Σ symmetric: a combination of its rows), times the covariance scale xs."""
    u[:] = 0.0
    for p in range(lo, hi):
        a = val[p] * xs
        row = S[o, idx[p]]
        for j in range(u.shape[0]):
            u[j] += a * row[j]


@njit
def _sparse_dot(u, idx, val, xs, lo, hi):
    acc = 0.0
    for p in range(lo, hi):
        acc += u[idx[p]] * val[p] * xs
    return acc


@njit
def _diag_v(D, o, idx, val, xs, lo, hi):
    acc = 0.0
    for p in range(lo, hi):
        x = val[p] * xs
        acc += D[o, idx[p]] * x * x
    return acc


@njit
def _renormalise(W, fst):
    s = fst[WSCALE]
    for j in range(W.shape[0]):
        for o in range(W.shape[1]):
            W[j, o] *= s
    fst[WSCALE] = 1.0
    _exact_norm_reset(W, fst)


@njit
def _move_mean(W, fst, o, sign, alpha, cov, u, idx, val, xs, lo, hi, track_norm):
    """w_o ← w_o + sign·α Σ_o x, with Σ = I (first order) or the dense u = Σ_o x (full covariance).
    ``track_norm``: keep ‖W‖² of the stored entries in double-double precision (see _exact_norm_add)."""
    a = sign * alpha / fst[WSCALE]
    if cov == FULL:
        for j in range(W.shape[0]):
            W[j, o] += a * u[j]
    elif track_norm:
        ah = al = bh = bl = 0.0  # Σ new², Σ old²: two independent chains, combined once
        for p in range(lo, hi):
            j = idx[p]
            old = W[j, o]
            new = old + a * val[p] * xs
            W[j, o] = new
            ah, al = _dd_add_square(ah, al, new, 1.0)
            bh, bl = _dd_add_square(bh, bl, old, 1.0)
        sh, sl = _two_sum(fst[NORM_HI], ah)
        dh, dl = _two_sum(sh, -bh)
        fst[NORM_HI], fst[NORM_LO] = _two_sum(dh, dl + sl + (fst[NORM_LO] + al - bl))
    else:
        for p in range(lo, hi):
            W[idx[p], o] += a * val[p] * xs


@njit
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit
def _dd_add_square(nh, nl, w, sign):
    """(nh + nl) + sign·w² in double-double arithmetic.

    w² = p + e exactly (e from a fused multiply-add) is added with an error-free sum, so ‖W‖² of the
    *stored* entries is tracked to ~1e-32 relative in O(1) per changed entry — as accurate as
    recomputing it (what LIBOL's norm(w) does, O(d) per update) at the cost of the row's non-zeros."""
    p = w * w
    e = fma(w, w, -p)
    s, t = _two_sum(nh, sign * p)
    t += nl + sign * e
    return _two_sum(s, t)


@njit
def _exact_norm_reset(W, fst):
    nh = nl = 0.0
    for j in range(W.shape[0]):
        for o in range(W.shape[1]):
            nh, nl = _dd_add_square(nh, nl, W[j, o], 1.0)
    fst[NORM_HI], fst[NORM_LO] = nh, nl


@njit
def _full_cov_step(Sig, beta, kappa, u):
    """Σ ← κ (Σ − β u uᵀ)."""
    d = Sig.shape[0]
    for i in range(d):
        bi = beta * u[i]
        if bi != 0.0:
            for j in range(d):
                Sig[i, j] = kappa * (Sig[i, j] - bi * u[j])
        elif kappa != 1.0:
            for j in range(d):
                Sig[i, j] *= kappa


@njit
def _diag_step(W, D, fst, o, sign, alpha, mode, beta, c, idx, val, xs, lo, hi, C_nherd):
    """Diagonal covariance, class o: w_o ← w_o + sign·α Σ_o x with the old Σ, then Σ_jj for the row's
    non-zeros — the inverse form Σ_jj/(1 + c Σ_jj x_j²), or NHERD's "exact" Σ_jj/(1 + C x_j² Σ_jj)² and
    "drop" Σ_jj − β (Σ_jj x_j)². (κ is applied by the caller through the covariance scale.)"""
    cs = fst[CSCALE]
    a = sign * alpha * cs / fst[WSCALE]
    for p in range(lo, hi):
        j = idx[p]
        x = val[p] * xs
        djj = D[o, j]
        W[j, o] += a * djj * x
        sjj = djj * cs  # the true Σ_jj
        if mode == DIAG_INVERSE:
            D[o, j] = djj / (1.0 + c * sjj * x * x)
        elif mode == DIAG_SQUARED:
            q = 1.0 + C_nherd * x * x * sjj
            D[o, j] = djj / (q * q)
        else:
            D[o, j] = (sjj - beta * (sjj * x) * (sjj * x)) / cs


@njit
def linear_block(cfg, prm, fst, cnt, W, S, D, u1, u2, fs, indptr, idx, val, y, order, start, stop,
                 scores, mistakes):
    """Predict-then-update for stream positions start..stop-1 (see the module docstring)."""
    rule, cov, mode, libol, normalise = cfg[RULE], cfg[COV], cfg[DIAG_MODE], cfg[LIBOL], cfg[NORMALISE]
    K = W.shape[1]
    n_seen = n_mistakes = n_updates = 0  # counted in registers, stored once at the end
    for pos in range(start, stop):
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
        xs = 1.0  # input scale: ALMA (compat none) works on x̂ = x/‖x‖
        if normalise:
            xs = 1.0 / math.sqrt(xn2) if xn2 > EPS else 0.0
            xn2 = xn2 * xs * xs
        scale = fst[WSCALE] * xs
        n_seen += 1

        if rule == SOP:
            mistake, updated = _sop_round(cfg, W, S, D, u1, idx, val, y, t, lo, hi, pos, scores, mistakes)
            n_mistakes += mistake
            n_updates += updated
            continue

        # the round in joint-feature form: output o1 with sign g1 (and o2 with sign −1, multiclass)
        if K == 1:
            yt = y[t]
            f = f0 * scale
            mistake = (1.0 if f >= 0.0 else -1.0) != yt
            o1, g1, o2 = 0, yt, -1
            m = yt * f
            scores[pos] = f
        else:
            for o in range(K):
                fs[o] *= scale
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
            scores[pos] = m
        mistakes[pos] = mistake
        n_mistakes += mistake
        npairs = 1.0 if o2 < 0 else 2.0
        dn2 = npairs * xn2

        if cov == FULL:
            _full_times_x(S, o1, idx, val, xs, lo, hi, u1)
            v = _sparse_dot(u1, idx, val, xs, lo, hi)
            if o2 >= 0:
                _full_times_x(S, o2, idx, val, xs, lo, hi, u2)
                v += _sparse_dot(u2, idx, val, xs, lo, hi)
        elif cov == DIAGONAL:
            if K == 1:
                v = vd * xs * xs
            else:
                v = _diag_v(D, o1, idx, val, xs, lo, hi) + _diag_v(D, o2, idx, val, xs, lo, hi)
            v *= fst[CSCALE]
        else:
            v = dn2

        triggered, alpha, gamma, beta, c, kappa = step(rule, prm, fst, m, v, dn2, mistake)
        if not triggered:
            continue
        changed = xn2 > 0.0 and (alpha != 0.0 or gamma != 1.0 or (cov != NO_COV and (beta != 0.0 or kappa != 1.0)))
        if libol or changed:
            n_updates += 1
        if not changed:
            continue

        # w ← γ w + α ΣΔ  (lazy scale)
        if gamma == 0.0:
            W[:, :] = 0.0
            fst[WSCALE] = 1.0
            fst[NORM_HI] = 0.0
            fst[NORM_LO] = 0.0
        elif gamma != 1.0:
            fst[WSCALE] *= gamma
            if abs(fst[WSCALE]) < RESCALE_BELOW:
                _renormalise(W, fst)
        if cov == DIAGONAL:  # mean and covariance of each class in one pass over the non-zeros
            _diag_step(W, D, fst, o1, g1, alpha, mode, beta, c, idx, val, xs, lo, hi, prm[0])
            if o2 >= 0:
                _diag_step(W, D, fst, o2, -1.0, alpha, mode, beta, c, idx, val, xs, lo, hi, prm[0])
            if kappa != 1.0:
                fst[CSCALE] *= kappa  # κ scales every Σ_jj: lazily, through the covariance scale
            continue
        if alpha != 0.0:
            _move_mean(W, fst, o1, g1, alpha, cov, u1, idx, val, xs, lo, hi, rule == ROMMA)
            if o2 >= 0:
                _move_mean(W, fst, o2, -1.0, alpha, cov, u2, idx, val, xs, lo, hi, rule == ROMMA)
        if rule == ROMMA:
            # ROMMA's D = ‖x‖²‖w‖² − f² cancels, so ‖w‖² must be that of the stored weights to the last
            # bit (LIBOL recomputes norm(w), O(d) per update); a recurrence or a plain running sum would
            # amplify their rounding (checked against 60-digit arithmetic on an ill-conditioned stream
            # of tests/test_linear_reference.py). The double-double running sum is exact enough, O(nnz).
            fst[N2] = (fst[NORM_HI] + fst[NORM_LO]) * fst[WSCALE] * fst[WSCALE]
        elif rule == ALMA:
            # ‖γw + αΔ‖² = γ²‖w‖² + 2γα m + α²‖Δ‖²: ALMA's ‖w‖ ≤ 1 enters only its projection, no
            # cancellation, so the O(1) recurrence is as accurate as recomputing
            fst[N2] = gamma * gamma * fst[N2] + 2.0 * gamma * alpha * m + alpha * alpha * dn2
        if cov == FULL:
            _full_cov_step(S[o1], beta, kappa, u1)
            if o2 >= 0:
                _full_cov_step(S[o2], beta, kappa, u2)
            if kappa != 1.0:
                for o in range(K):  # classes not in the round are scaled too (IELLIP)
                    if o != o1 and o != o2:
                        S[o] *= kappa
    cnt[SEEN] += n_seen
    cnt[MISTAKES] += n_mistakes
    cnt[UPDATES] += n_updates


@njit
def _sop_round(cfg, W, S, D, u, idx, val, y, t, lo, hi, pos, scores, mistakes):
    """SOP (C5): f = vᵀ(A + xxᵀ)⁻¹x with A⁻¹ kept in S (full) or D (diagonal); W holds v = Σ y x.
    Returns (mistake, counted as an update).

    Full: with u = A⁻¹x and q = xᵀu, f = (v·u)/(1 + q) (Sherman–Morrison). Diagonal: A is kept
    diagonal and f = Σ_j v_j x_j/(A_jj + x_j²). On a mistake v ← v + y x and A ← A + xxᵀ;
    compat="libol" commits A ← A + xxᵀ on every round (LIBOL SOP.m, C5 [IMPL-DIFF]).
    """
    cov, libol = cfg[COV], cfg[LIBOL]
    if cov == FULL:
        _full_times_x(S, 0, idx, val, 1.0, lo, hi, u)
        q = _sparse_dot(u, idx, val, 1.0, lo, hi)
        f = 0.0
        for j in range(W.shape[0]):
            f += W[j, 0] * u[j]
        f /= 1.0 + q
    else:
        f = 0.0
        for p in range(lo, hi):
            j = idx[p]
            x = val[p]
            f += W[j, 0] * x * D[0, j] / (1.0 + D[0, j] * x * x)
    yt = y[t]
    mistake = (1.0 if f >= 0.0 else -1.0) != yt
    scores[pos] = f
    mistakes[pos] = mistake
    if hi == lo or not (mistake or libol):
        return mistake, mistake and libol
    zero = True
    for p in range(lo, hi):
        if val[p] != 0.0:
            zero = False
    if zero:
        return mistake, mistake and libol
    if mistake:
        for p in range(lo, hi):
            W[idx[p], 0] += yt * val[p]
    if cov == FULL:
        Sig = S[0]
        b = 1.0 / (1.0 + q)
        for i in range(Sig.shape[0]):
            bi = b * u[i]
            if bi != 0.0:
                for j in range(Sig.shape[1]):
                    Sig[i, j] -= bi * u[j]
    else:
        for p in range(lo, hi):
            j = idx[p]
            x = val[p]
            D[0, j] = D[0, j] / (1.0 + D[0, j] * x * x)
    return mistake, mistake
