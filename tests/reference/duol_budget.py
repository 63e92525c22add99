"""Slow, literal reference of budgeted DUOL (docs/algorithms/duol-budget.md): binary data (``run_reference``), and
multiclass and multi-label data (``run_reference_multi``, budgeted M-DUOL, docs/algorithms/duol-budget.md#multiclass).

Written from the text of the page (its update rule and removal sections), not from olkit's code; nothing here
imports olkit. One plain loop over the stream, the support set kept in **arrival order** (a new SV goes last,
a removal deletes its entry, the others keep their order):

    f(x_t) = Σ_i γ_i y_i κ(x_i, x_t)  →  predict / count  →  DUOL's round  →  if |S| > B, one removal.

DUOL's round (docs/algorithms/duol.md#update-rule) with the page's tie rule: the auxiliary example is, among the
candidates F_i ≤ 1 + tol, the one with w_i = y_i y_t κ(x_i, x_t) ≤ w_min + tol·|w_min| that arrived *last*; problem
(1) is solved by enumeration (``reference.kernel_binary.box_qp_enumerate``). The removal excludes the new SV and,
after a double update, the auxiliary SV; ``oldest`` takes the first remaining SV in arrival order, the other
rules the first (oldest) whose key is within tol·|min| of the smallest key:

* ``smallest``: γ_i √κ(x_i, x_i);
* ``margin``: −(F_i − γ_i κ(x_i, x_i));
* ``dual``: γ_i (1 − F_i + ½ γ_i κ(x_i, x_i)).

Before the removal every cached margin loses the removed term, F_i −= y_i γ_r y_r κ(x_i, x_r).

Kernel values: the T×T table of ``reference.budget.gram`` (integer features: exact squared distances). Scores are
exact sums (``math.fsum``), as in ``reference.budget``. Asserted every round: |S| ≤ B; every cached margin equals
y_i f(x_i) recomputed from the stored model (to 1e-9); 0 ≤ γ_i ≤ s_i C.

Example weights (``sample_weight``, None: all 1; docs/algorithms/duol.md#weights): the new example's box is [0, s_t C]
and every SV keeps its own example's box [0, s_i C], the auxiliary SV's included; a weight-0 round is predicted
and recorded, nothing else (no update, no removal).
"""

import math

import numpy as np

from .budget import BudgetRef, gram
from .kernel_binary import box_qp_enumerate
from .kernel_multiclass import argmax_first, hdot, worst_best_pair

REMOVALS = ("oldest", "smallest", "margin", "dual")


def run_reference(
    X,
    y,
    *,
    sigma,
    B=600,
    C=5.0,
    rho=0.0,
    tol=1e-9,
    removal="oldest",
    fit_intercept=False,
    intercept_scaling=1.0,
    sample_weight=None,
):
    """Budgeted DUOL on the stream X (dense), y ∈ {−1, +1}; returns a :class:`reference.budget.BudgetRef`."""
    assert removal in REMOVALS
    X = np.asarray(X, float)
    y = np.asarray(y).astype(int)
    assert set(np.unique(y)) <= {-1, 1}
    G = gram(X, sigma) + (float(intercept_scaling) ** 2 if fit_intercept else 0.0)  # κ + c² (options.md)
    T = len(y)
    pts, gam, F = [], [], []  # arrival order: stream position, weight γ_i ≥ 0, cached margin F_i = y_i f(x_i)
    box = []  # and each SV's bound s_i C
    flags, scores = [], []
    n_updates = n_double = n_strong = n_weak = n_removed = 0
    ev = dict.fromkeys(["removals", "aux_kept", "double", "ties"], 0)
    max_sv = 0
    for t in range(T):
        yt, kt = int(y[t]), G[t, t]
        f = math.fsum(g * y[p] * G[p, t] for g, p in zip(gam, pts))
        scores.append(f)
        mistake = (1 if f >= 0 else -1) != yt
        flags.append(int(mistake))
        s_t = 1.0 if sample_weight is None else float(sample_weight[t])
        Ct = C * s_t
        loss = 1.0 - yt * f
        if s_t == 0.0 or loss <= tol or kt <= 1e-12:
            continue
        # auxiliary example: the last-arrived tied minimiser among the candidates F_i ≤ 1 + tol
        w = [y[p] * yt * G[p, t] for p in pts]
        cand = [j for j in range(len(pts)) if F[j] <= 1.0 + tol]
        b = None
        w_min = math.inf
        if cand:
            w_min = min(w[j] for j in cand)
            bound = w_min + tol * abs(w_min) if abs(w_min) < math.inf else w_min
            tied = [j for j in cand if w[j] <= bound]
            ev["ties"] += len(tied) > 1
            b = tied[-1]
        double = b is not None and w_min <= -rho
        pts.append(t)
        gam.append(0.0)
        F.append(yt * f)
        box.append(Ct)
        if double:
            pb = pts[b]
            yb, kb = int(y[pb]), G[pb, pb]
            w_ab = yt * yb * G[t, pb]
            gb_hat, Fb, Cb = gam[b], F[b], box[b]
            ga, d = box_qp_enumerate(loss, 1.0 - Fb, kt, kb, w_ab, 0.0, Ct, -gb_hat, Cb - gb_hat)
            gam[-1] = ga
            gam[b] = gb_hat + d
            for j, p in enumerate(pts):
                F[j] += y[p] * yt * ga * G[p, t] + y[p] * yb * d * G[p, pb]
            n_double += 1
            ev["double"] += 1
            if mistake:
                if w_ab <= -rho and Fb <= 0.0 and Cb >= gb_hat + 1.0 / (1.0 - rho):
                    n_strong += 1
                elif w_ab <= -rho and Fb <= 1.0 + tol and Cb >= gb_hat + rho:
                    n_weak += 1
        else:
            gt = min(Ct, loss / kt)
            gam[-1] = gt
            for j, p in enumerate(pts):
                F[j] += y[p] * yt * gt * G[p, t]
        n_updates += 1
        if len(pts) > B:
            new = len(pts) - 1
            others = [j for j in range(len(pts)) if j != new and not (double and j == b)]
            if removal == "oldest":
                r = others[0]
            else:
                keys = {}
                for j in others:
                    g, kj = gam[j], G[pts[j], pts[j]]
                    if removal == "smallest":
                        keys[j] = g * math.sqrt(kj)
                    elif removal == "margin":
                        keys[j] = -(F[j] - g * kj)
                    else:
                        keys[j] = g * (1.0 - F[j] + 0.5 * g * kj)
                k_min = min(keys.values())
                bound = k_min + tol * abs(k_min)
                r = next(j for j in others if keys[j] <= bound)
            ev["aux_kept"] += double and others[0] != 0 and b == 0  # the oldest was the auxiliary SV, kept
            pr, ar = pts[r], gam[r] * y[pts[r]]
            for j, p in enumerate(pts):
                F[j] -= y[p] * ar * G[p, pr]
            for lst in (pts, gam, F, box):
                del lst[r]
            n_removed += 1
            ev["removals"] += 1
        # invariants
        assert len(pts) <= B, (t, len(pts), B)
        max_sv = max(max_sv, len(pts))
        for j, p in enumerate(pts):
            exact = y[p] * math.fsum(g * y[q] * G[q, p] for g, q in zip(gam, pts))
            assert abs(F[j] - exact) <= 1e-9 * max(1.0, abs(exact)), (t, j, F[j], exact)
            assert 0.0 <= gam[j] <= box[j] * (1 + 1e-12), (t, j, gam[j])
    rows = [np.array([g * y[p]]) for g, p in zip(gam, pts)]
    diag = {
        "double_updates": n_double,
        "strong_double_updates": n_strong,
        "weak_double_updates": n_weak,
        "removals": n_removed,
    }
    return BudgetRef(
        np.array(flags, dtype=int),
        np.array(scores),
        sum(1 for g in gam if g != 0.0),
        n_updates,
        diag,
        ev,
        max_sv,
        list(pts),
        rows,
    )


def run_reference_multi(
    X,
    Y,
    *,
    sigma,
    B=600,
    C=10.0,
    rho=0.0,
    tol=1e-9,
    removal="oldest",
    multilabel=False,
    fit_intercept=False,
    intercept_scaling=1.0,
    sample_weight=None,
):
    """Budgeted M-DUOL (docs/algorithms/duol-budget.md#multiclass) on the stream X (dense) with labels Y: class
    indices 0..K−1 (single-label) or an n×K 0/1 indicator matrix (``multilabel=True``).

    The support set in arrival order: stream position, direction H_i = (r_i, s_i), weight γ_i ≥ 0 and cached
    margin F_i = f(x_i)·H_i. Round t: scores f_c(x_t) = Σ_i γ_i (H_i)_c κ(x_i, x_t) (in arrival order); the pair
    (r_t, s_t) (worst relevant, best irrelevant, ties to the smallest index); a loss ℓ_t = 1 − (f_r − f_s) above
    tol updates: the auxiliary example is, among the candidates F_i ≤ 1 + tol, the *first arrived* with
    w_i = (H_t·H_i) κ(x_i, x_t) ≤ w_min + tol·|w_min|; if w_min ≤ −2ρ problem (5) (enumeration), else the step
    γ_t = min(C, ℓ_t/(2κ_t)); every F_i updated; then, if |S| > B, one removal among the SVs other than the new
    one and the auxiliary one of a double update, with ‖H_i‖² = 2 in the keys:

    * ``smallest``: γ_i √(2κ(x_i, x_i));
    * ``margin``: −(F_i − 2γ_i κ(x_i, x_i));
    * ``dual``: γ_i (1 − F_i + γ_i κ(x_i, x_i));

    ties (within tol·|min|) to the oldest; before it every cached margin loses the removed term,
    F_i −= γ_r (H_r·H_i) κ(x_i, x_r). Asserted every round: |S| ≤ B, every F_i equals f(x_i)·H_i recomputed, the
    scores sum to 0, 0 ≤ γ_i ≤ s_i C. ``sample_weight`` as in :func:`run_reference` (boxes [0, s_t C], each SV its own).
    """
    assert removal in REMOVALS
    X = np.asarray(X, float)
    Y = np.asarray(Y)
    if multilabel:
        K = Y.shape[1]
    else:
        K = int(Y.max()) + 1
        Y = np.eye(K, dtype=int)[Y.astype(int)]
    G = gram(X, sigma) + (float(intercept_scaling) ** 2 if fit_intercept else 0.0)  # κ + c² (options.md)
    T = len(Y)
    pts, H, gam, F, box = [], [], [], [], []  # arrival order (box: each SV's bound s_i C)
    flags, scores = [], []
    n_updates = n_double = n_strong = n_weak = n_removed = 0
    ev = dict.fromkeys(["removals", "aux_kept", "double", "ties", "unrelated_b"], 0)
    max_sv = 0

    def scores_at(p):
        # f = Σ_i A_i κ(x_i, x_p) summed in arrival order, as reference.kernel_multiclass (not an exact sum: classes
        # whose scores tie in exact arithmetic, e.g. repeated rows, then tie here too as they do in olkit)
        f = np.zeros(K)
        for g, h, q in zip(gam, H, pts):
            a = np.zeros(K)
            a[h[0]], a[h[1]] = g, -g
            f = f + a * G[q, p]
        return f

    for t in range(T):
        f = scores_at(t)
        scores.append(f)
        Yrow = Y[t]
        r, s = worst_best_pair(Yrow, f)
        if multilabel:
            mistake = r >= 0 and f[r] <= f[s]
        else:
            mistake = argmax_first(f) != int(np.flatnonzero(Yrow)[0])
        flags.append(int(mistake))
        if r < 0:
            continue
        kt = G[t, t]
        s_t = 1.0 if sample_weight is None else float(sample_weight[t])
        Ct = C * s_t
        loss = 1.0 - (f[r] - f[s])
        if s_t == 0.0 or loss <= tol or kt <= 1e-12:
            continue
        Ht = (r, s)
        w = [hdot(Ht, H[j]) * G[p, t] for j, p in enumerate(pts)]
        cand = [j for j in range(len(pts)) if F[j] <= 1.0 + tol]
        b, w_min = None, math.inf
        if cand:
            w_min = min(w[j] for j in cand)
            bound = w_min + tol * abs(w_min) if abs(w_min) < math.inf else w_min
            tied = [j for j in cand if w[j] <= bound]
            ev["ties"] += len(tied) > 1
            b = tied[0]
        double = b is not None and w_min <= -2.0 * rho
        pts.append(t), H.append(Ht), gam.append(0.0), F.append(f[r] - f[s]), box.append(Ct)
        if double:
            pb = pts[b]
            kb = G[pb, pb]
            w_ab = w[b]
            gb_hat, Fb, Cb = gam[b], F[b], box[b]
            ga, d = box_qp_enumerate(loss, 1.0 - Fb, 2.0 * kt, 2.0 * kb, w_ab, 0.0, Ct, -gb_hat, Cb - gb_hat)
            gam[-1] = ga
            gam[b] = gb_hat + d
            for j, p in enumerate(pts):
                F[j] += ga * hdot(Ht, H[j]) * G[t, p]
                F[j] += d * hdot(H[b], H[j]) * G[pb, p]
            n_double += 1
            ev["double"] += 1
            ev["unrelated_b"] += w_ab == 0.0
            if mistake:
                if Fb <= 0.0 and Cb >= gb_hat + 1.0 / (2.0 * (1.0 - rho)):
                    n_strong += 1
                elif Fb <= 1.0 + tol and Cb >= gb_hat + rho / 2.0:
                    n_weak += 1
        else:
            gt = min(Ct, loss / (2.0 * kt))
            gam[-1] = gt
            for j, p in enumerate(pts):
                F[j] += gt * hdot(Ht, H[j]) * G[t, p]
        n_updates += 1
        if len(pts) > B:
            new = len(pts) - 1
            others = [j for j in range(len(pts)) if j != new and not (double and j == b)]
            if removal == "oldest":
                rm = others[0]
            else:
                keys = {}
                for j in others:
                    g, kj = gam[j], G[pts[j], pts[j]]
                    if removal == "smallest":
                        keys[j] = g * math.sqrt(2.0 * kj)
                    elif removal == "margin":
                        keys[j] = -(F[j] - 2.0 * g * kj)
                    else:
                        keys[j] = g * (1.0 - F[j] + g * kj)
                k_min = min(keys.values())
                bound = k_min + tol * abs(k_min)
                rm = next(j for j in others if keys[j] <= bound)
            ev["aux_kept"] += double and b == 0
            pr = pts[rm]
            for j, p in enumerate(pts):
                F[j] -= gam[rm] * hdot(H[rm], H[j]) * G[p, pr]
            for lst in (pts, H, gam, F, box):
                del lst[rm]
            n_removed += 1
            ev["removals"] += 1
        # invariants
        assert len(pts) <= B, (t, len(pts), B)
        max_sv = max(max_sv, len(pts))
        for j, p in enumerate(pts):
            fp = scores_at(p)
            exact = fp[H[j][0]] - fp[H[j][1]]
            assert abs(F[j] - exact) <= 1e-9 * max(1.0, abs(exact)), (t, j, F[j], exact)
            assert 0.0 <= gam[j] <= box[j] * (1 + 1e-12), (t, j, gam[j])
        assert abs(math.fsum(f)) <= 1e-9 * max(1.0, float(np.abs(f).max())), (t, f)
    rows = []
    for g, h in zip(gam, H):
        a = np.zeros(K)
        a[h[0]], a[h[1]] = g, -g
        rows.append(a)
    diag = {
        "double_updates": n_double,
        "strong_double_updates": n_strong,
        "weak_double_updates": n_weak,
        "removals": n_removed,
    }
    return BudgetRef(
        np.array(flags, dtype=int),
        np.array(scores),
        sum(1 for g in gam if g != 0.0),
        n_updates,
        diag,
        ev,
        max_sv,
        list(pts),
        rows,
    )
