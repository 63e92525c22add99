"""Slow, literal references of the remaining ``compat`` modes of docs/algorithms/budget-family.md#compat-modes:
POMDR ``compat="ahp-r"`` (the AHP authors' ``POMDR.R``), NOGD ``compat="ahp-r"`` (``NOGD.R``) and NOGD
``compat="lsokl"`` (LSOKL's ``binary/NysGD.m`` and ``multiclass/NyGD.m``).

Written from the text of docs/algorithms/pomdr.md#ahp-r, docs/algorithms/nogd.md#ahp-r,
docs/algorithms/nogd.md#lsokl and the reference files they name (read for the facts only: alg4ml/Ahpatron
``POMDR.R`` and ``NOGD.R``, jingcoco/Online-Kernel-Learning ``binary/NysGD.m`` and ``multiclass/NyGD.m``) — *not*
from olkit's code; nothing here imports olkit. Each reference keeps its code's own round structure (what counts as a
mistake, when it updates, the order of its steps) with olkit's parameter names; where a code would stop or divide by
0 the reference takes olkit's documented reading (marked "olkit:").

Kernel values: the T×T table of ``reference.budget_compat.kernel_table`` (Gaussian from explicit differences, or
the polynomial kernel, to exercise the R scripts' κ(x, x) = 1). The one discrete use of Gaussian kernel values in
POMDR.R — the nearest permanent SV, a first index of the maximum, where rounding decides between SVs at the same
distance — takes them exactly as the script computes them (``r_kernel``). Scores of the kernel expansions are exact sums
(``math.fsum``, as in ``reference.budget``).

POMDR ``ahp-r`` (binary), round t = 1..T:

* round 1: a mistake; x_1 stored with (U/√3)y_1; ‖f‖ = U/√3, K⁻¹ = [1], Σδ = 1 (κ(x, x) = 1);
* every later round: λ_t = U/√(3 + Σδ) (times coe after the first merge), the hint h = (1/m) Σ_τ y_τ κ(x_τ, x_t)
  over the last m = min(t − 1, M) examples, F̃ = f(x_t) + λ_t h, ŷ = −1 iff F̃ < 0; on y F̃ < 1:
  - phase 1: β* = K⁻¹k_t, δ² = max(1 − β*·k_t, 0); if √δ² ≤ a the projected step with tem = Gβ* (G: the SV Gram
    with a unit diagonal), tem1 = tem·β*, tem2 = (1/m)Σ_τ y_τ κ_Sᵀ(x_τ)β* (window oldest first while m < M, newest
    first when m = M; at round 2 y_1 β*_1), Σδ += max(tem1 − 2y tem2, 0), tem3 = tem·α, α += λ y β*,
    ‖f‖ = √(‖f‖² + 2yλ tem3 + λ² tem1); else x_t added with λy (K⁻¹ by the block formula with δ²),
    ‖f‖ = √(‖f‖² + 2yλ f(x_t) + λ²), Σδ += max(1 − 2y h, 0); then ‖f‖ > U → α·U/‖f‖;
  - phase 2: x_t added as above (no ALD test), projected to U, Σδ += max(1 − 2y h, 0); if |S| > B/2 now, the
    nearest permanent SV is recorded for x_t: the first index of the maximum (R's ``which(k == max(k))[1]``) of
    the script's own kernel values over the first B/2 (``r_kernel``; ties → the oldest);
    if |S| = B: the merge — the SVs beyond B/2 with a recorded nearest SV are added into it in position order,
    the others (phase-1 SVs beyond B/2) are dropped; Σδ = 0; ‖f‖² = αᵀG_Bα (unit diagonal), α·U/‖f‖, ‖f‖ = U
    (``choices`` lists every nearest-SV choice: round, permanent SVs, rank chosen);
  - the end of a phase-1 round that leaves |S| = B0 ends phase 1 (from round 2 on).

NOGD ``ahp-r`` (binary): round 1 a mistake, x_1 stored with ηy_1; stage 1 on y f < 1 appends ηy_t; the round
whose append makes |S| = B eigen-decomposes the SV Gram with a unit diagonal (numpy ``eigh``, eigenvalues in
descending order, each eigenvector's sign fixed so that its first entry of magnitude ≥ 1/(2√B) is positive),
keeps the top k eigenpairs with λ > 1e-12·λ_max, sets w₀_j = √D_j Σ_i V[j, i] α_i (row j of V, the script's
transposition) and φ(x) = D_j^{−1/2} V[:, j]ᵀ k_S(x); the same x_t is scored by w₀·φ(x_t) (a mistake of either
prediction counts once; the recorded score is the stage-1 one) and on y w·φ < 1 steps w += ηy φ(x_t). Later
rounds are linear OGD on φ. k = None → max(1, ⌊0.2B⌋) (the script's index 1:r with r = 0.2B).

NOGD ``lsokl``: NysGD.m / NyGD.m — prediction sign(f), sign(0) → +1 (binary) / argmax with ties to the smallest
index; update on y f < 1 / Γ < 1; stage 1 appends ηy_t (ηH_t); the first margin error with |S| = B takes the
top-k eigenpairs (``eigs``), M = D^{−1/2}Vᵀ, w = α·pinv(M) and that round's step w += ηD_t(M k_t)ᵀ with k_t the
round's stage-1 kernel vector; later rounds linear OGD on M k_S(x).
"""

import math

import numpy as np

from .budget import BudgetRef, Model, _close, argmax_first
from .budget_compat import _project_unit, kernel_table
from .pomdr import resolve

EIGEN_FLOOR = 1e-12


class ScriptFails(ArithmeticError):
    """The reference code would stop or produce NaN here (e.g. POMDR.R's √ of a negative ‖f‖² under a kernel whose
    κ(x, x) ≠ 1): the stream is not used for comparisons."""


def _sqrt(v):
    if v < 0:
        raise ScriptFails(f"sqrt({v})")
    return math.sqrt(v)


# ---------------------------------------------------------------------------------------------------------
# POMDR.R
# ---------------------------------------------------------------------------------------------------------
def _events():
    return dict.fromkeys(
        [
            "projections",
            "dup_projections",
            "additions",
            "merges",
            "merged_rows",
            "dropped_rows",
            "merges_with_drops",
            "scaled_to_U",
            "phase2_rounds",
            "round1_forced",
            "no_update",
            "window_full_projections",
            "round2_projection",
            "phase2_from_round",
            "tie_choices",
        ],
        0,
    )


def r_kernel(X, s, t, sigma):
    """κ(x_s, x_t) as ``POMDR.R`` computes it, ``exp(colSums((s − x)²)/(−2σ²))``: each difference s_k − x_k and
    its square rounded to double, the column sum accumulated by R's ``colSums`` in long double (exact whenever the
    squares span few binades, then rounded once: modelled by ``math.fsum``), divided by −2·(σ·σ), then exp. Equal
    distances give equal values however the features are ordered — unlike ‖s‖² + ‖x‖² − 2s·x or a pairwise sum,
    whose rounding depends on the rows (non-integer features)."""
    d2 = math.fsum((a - b) * (a - b) for a, b in zip(X[s], X[t]))
    return math.exp(d2 / (-2.0 * (sigma * sigma)))


def run_pomdr_ahp_r(
    X, y, *, kernel="gaussian", sigma=1.0, degree=2, coef0=1.0, U=25.0, B=600, B0=None, M=15, coe=0.1, a=None, T=None
):
    """POMDR.R over the stream X (dense), y ∈ {−1, +1}. Returns a :class:`reference.budget.BudgetRef` (scores:
    the optimistic F̃; diagnostics as olkit's ``diagnostics()``; ``trace``: per-round |S|, phase, Σδ, ‖f‖)."""
    X = np.asarray(X, float)
    y = np.asarray(y).astype(int)
    n_rounds = len(y)
    assert set(np.unique(y)) <= {-1, 1}
    B0, a = resolve(n_rounds if T is None else T, B, B0, a)
    assert B % 2 == 0 and 2 <= B0 < B and M >= 0 and U > 0
    half = B // 2
    G = kernel_table(X, kernel, sigma, degree, coef0)
    rows = X.tolist()
    S = Model(G, 1)
    ev = _events()

    def unit_gram():
        return np.array([[1.0 if i == j else G[p, q] for j, q in enumerate(S.pts)] for i, p in enumerate(S.pts)])

    # ---- the first instance
    lam = U / math.sqrt(3.0)
    S.append(0, [lam * y[0]])
    flags, scores = [1], [0.0]
    ev["round1_forced"] += y[0] == 1  # f = 0 would predict +1 = y_1
    Kinv = np.array([[1.0]])
    norm = lam
    sumd = 1.0
    phase, merged = 1, False
    nearest = {}  # stream position of an SV → arrival rank of its nearest permanent SV
    choices = []  # (t, the permanent SVs' stream positions, the rank chosen)
    projections = additions = merges = 0
    n_updates = 1
    trace = [{"n": 1, "phase": 1, "sum_delta": sumd, "norm": norm}]

    for t in range(1, n_rounds):
        yt = int(y[t])
        window = list(range(max(0, t - M), t))  # stream positions, oldest first
        m = len(window)
        h = math.fsum(y[tau] * G[tau, t] for tau in window) / m if m else 0.0
        lam = U / math.sqrt(3.0 + sumd)
        if merged:
            lam *= coe
        f = S.score_at(t)[0]
        fx = f + lam * h
        scores.append(fx)
        flags.append(int((-1 if fx < 0 else 1) != yt))
        ev["phase2_rounds"] += phase == 2
        if yt * fx < 1:
            n_updates += 1
            alpha = np.array([A[0] for A in S.A])
            if phase == 1:
                beta, kd = _project_unit(S, Kinv, t)
                delta2 = max(1.0 - kd, 0.0)
                if math.sqrt(delta2) <= a:
                    tem = unit_gram() @ beta
                    tem1 = float(tem @ beta)
                    if m == 0:  # olkit: M = 0, no hint (R divides by 0)
                        tem2 = 0.0
                    elif t == 1:  # the window is x_1, the only SV
                        tem2 = y[0] * beta[0]
                        ev["round2_projection"] += 1
                    else:
                        order = window if m < M else window[::-1]
                        ev["window_full_projections"] += m == M
                        tem2 = 0.0
                        for tau in order:
                            tem2 += y[tau] * float(np.array([G[p, tau] for p in S.pts]) @ beta)
                        tem2 = tem2 / m
                    sumd += max(tem1 - 2.0 * yt * tem2, 0.0)
                    tem3 = float(tem @ alpha)
                    for i in range(S.n):
                        S.A[i] = S.A[i] + lam * yt * beta[i]
                    norm = _sqrt(norm**2 + 2 * yt * lam * tem3 + lam**2 * tem1)
                    projections += 1
                    ev["projections"] += 1
                    ev["dup_projections"] += int(delta2 == 0.0)
                else:
                    n0 = S.n
                    S.append(t, [lam * yt])
                    v = np.append(beta, -1.0)
                    Kn = np.zeros((n0 + 1, n0 + 1))
                    Kn[:n0, :n0] = Kinv
                    Kinv = Kn + np.outer(v, v) / delta2
                    norm = _sqrt(norm**2 + 2 * yt * lam * f + lam**2)
                    sumd += max(1.0 - 2.0 * yt * h, 0.0)
                    additions += 1
                    ev["additions"] += 1
                if norm > U:
                    S.scale(U / norm)
                    norm = U
                    ev["scaled_to_U"] += 1
            else:
                S.append(t, [lam * yt])
                norm = _sqrt(norm**2 + 2 * yt * lam * f + lam**2)
                if norm > U:
                    S.scale(U / norm)
                    norm = U
                    ev["scaled_to_U"] += 1
                sumd += max(1.0 - 2.0 * yt * h, 0.0)
                additions += 1
                ev["additions"] += 1
                if S.n > half:
                    if kernel == "gaussian":
                        k = [r_kernel(rows, S.pts[j], t, sigma) for j in range(half)]
                    else:
                        k = [G[S.pts[j], t] for j in range(half)]
                    nearest[t] = argmax_first(k)
                    ev["tie_choices"] += k.count(max(k)) > 1
                    choices.append((t, S.pts[:half], nearest[t]))
                if S.n == B:
                    pts, A = list(S.pts), [r.copy() for r in S.A]
                    S.pts, S.A = pts[:half], A[:half]
                    S.lab, S.comp = S.lab[:half], S.comp[:half]
                    dropped = 0
                    for r in range(half, B):  # position order
                        if pts[r] in nearest:
                            S.A[nearest[pts[r]]] = S.A[nearest[pts[r]]] + A[r]
                            ev["merged_rows"] += 1
                        else:  # a phase-1 SV beyond B/2: no nearest SV
                            dropped += 1
                    ev["dropped_rows"] += dropped
                    ev["merges_with_drops"] += dropped > 0
                    sumd = 0.0
                    merged = True
                    alpha = np.array([r[0] for r in S.A])
                    norm2 = float(alpha @ unit_gram() @ alpha)
                    if norm2 < 0:
                        raise ScriptFails(f"merged ‖f‖² = {norm2}")
                    if norm2 > 0:  # olkit: N = 0 leaves α (R divides by 0)
                        S.scale(U / math.sqrt(norm2))
                        norm = U
                    else:
                        norm = 0.0
                    merges += 1
                    ev["merges"] += 1
                    assert S.n == half
        else:
            ev["no_update"] += 1
        if phase == 1 and S.n == B0:
            phase = 2
            ev["phase2_from_round"] = t + 2
        # ---- invariants
        assert S.n < B
        assert norm <= U * (1 + 1e-12)
        if kernel == "gaussian":  # κ(x, x) = 1: the tracked norm is the model's
            assert _close(norm**2, S.norm2()), (t, norm**2, S.norm2())
        trace.append({"n": S.n, "phase": phase, "sum_delta": sumd, "norm": norm})

    diag = {
        "phase": phase,
        "merges": merges,
        "projections": projections,
        "additions": additions + 1,
        "sum_delta": float(sumd),
        "norm": float(norm),
    }
    ref = BudgetRef(
        np.array(flags, dtype=int),
        np.array(scores),
        S.n_nonzero(),
        n_updates,
        diag,
        ev,
        max(tr["n"] for tr in trace),
        list(S.pts),
        [r.copy() for r in S.A],
    )
    ref.trace = trace
    ref.choices = choices
    return ref


# ---------------------------------------------------------------------------------------------------------
# NOGD.R and LSOKL NysGD.m / NyGD.m
# ---------------------------------------------------------------------------------------------------------
def canonical_signs(V):
    """Each column's first entry of magnitude ≥ 1/(2√n) made positive; returns (V, the smallest distance of any
    entry's magnitude to that threshold — how far the choice is from rounding)."""
    n = V.shape[0]
    thr = 0.5 / math.sqrt(n)
    V = V.copy()
    margin = min(abs(abs(v) - thr) for v in V.ravel())
    for j in range(n):
        first = next(i for i in range(n) if abs(V[i, j]) >= thr)
        if V[first, j] < 0:
            V[:, j] = -V[:, j]
    return V, margin


def nogd_ahp_r(X, y, *, eta, B, k=None, sigma=1.0, floor=EIGEN_FLOOR):
    """NOGD.R over the stream X (dense), y ∈ {−1, +1}.

    Returns dict(scores, mistakes, n_updates, n_sv, transition (1-based round, 0 if none), rank, W, M, SV,
    min_gap: the smallest gap between consecutive eigenvalues over λ_max, sign_margin (see canonical_signs),
    kept_ratio, events)."""
    X = np.asarray(X, float)
    y = np.asarray(y).astype(int)
    G = kernel_table(X, "gaussian", sigma)
    r = max(1, math.floor(0.2 * B)) if k is None else k
    pts, alpha = [0], [eta * y[0]]
    mistakes, scores = [1], [0.0]
    n_updates = 1
    ev = {
        "round1_forced": int(y[0] == 1),
        "transition_mistake_only_stage2": 0,
        "transition_mistake_only_stage1": 0,
        "transition_step": 0,
        "stage2_updates": 0,
    }
    w = M = None
    transition, rank = 0, 0
    min_gap = sign_margin = math.inf
    kept_ratio = 1.0
    for t in range(1, len(y)):
        yt = int(y[t])
        if w is None:
            f = math.fsum(a * G[p, t] for a, p in zip(alpha, pts))
            scores.append(f)
            err = int((-1 if f < 0 else 1) != yt)
            changed = False
            if yt * f < 1:
                pts.append(t)
                alpha.append(eta * yt)
                changed = True
                if len(pts) == B:  # the transition, in the same round
                    Gs = np.array([[1.0 if i == j else G[p, q] for j, q in enumerate(pts)] for i, p in enumerate(pts)])
                    lam, V = np.linalg.eigh(Gs)
                    lam, V = lam[::-1], V[:, ::-1]
                    V, sign_margin = canonical_signs(V)
                    min_gap = float(np.min(np.abs(np.diff(lam)))) / lam[0]
                    keep = [j for j in range(min(r, B)) if lam[j] > floor * lam[0]]
                    rank = len(keep)
                    kept_ratio = lam[rank - 1] / lam[0]
                    a = np.array(alpha)
                    w = np.array([math.sqrt(lam[j]) * float(V[j, :] @ a) for j in range(rank)])  # row j of V
                    M = np.array([V[:, j] / math.sqrt(lam[j]) for j in range(rank)])
                    transition = t + 1
                    phi = M @ np.array([G[p, t] for p in pts])
                    f2 = float(w @ phi)
                    err2 = int((-1 if f2 < 0 else 1) != yt)
                    ev["transition_mistake_only_stage2"] += err2 and not err
                    ev["transition_mistake_only_stage1"] += err and not err2
                    err = err or err2
                    if yt * f2 < 1:
                        w = w + eta * yt * phi
                        ev["transition_step"] += 1
        else:
            phi = M @ np.array([G[p, t] for p in pts])
            f = float(w @ phi)
            scores.append(f)
            err = int((-1 if f < 0 else 1) != yt)
            changed = yt * f < 1
            if changed:
                w = w + eta * yt * phi
                ev["stage2_updates"] += 1
        mistakes.append(err)
        n_updates += changed
    return {
        "scores": np.array(scores),
        "mistakes": np.array(mistakes, dtype=int),
        "n_updates": n_updates,
        "n_sv": len(pts),
        "transition": transition,
        "rank": rank,
        "W": w,
        "M": M,
        "SV": X[pts],
        "A": np.array(alpha),
        "min_gap": min_gap,
        "sign_margin": sign_margin,
        "kept_ratio": kept_ratio,
        "events": ev,
    }


def nogd_lsokl(X, y, *, eta, B, k, sigma, n_classes=2):
    """NysGD.m (binary, y ∈ {−1, +1}) / NyGD.m (n_classes ≥ 3, y ∈ 0..K−1) over the stream X (dense).

    Returns dict(scores (T × K'), mistakes, n_updates, n_sv, transition, rank, W, M, SV, gap: (λ_k − λ_{k+1})/λ_max
    at the cut (inf if nothing is cut), kept_ratio)."""
    X = np.asarray(X, float)
    y = np.asarray(y).astype(int)
    G = kernel_table(X, "gaussian", sigma)
    multi = n_classes >= 3
    Kp = n_classes if multi else 1
    pts, alpha = [], []  # alpha: rows of length K'
    w = M = None
    transition, rank = 0, 0
    gap, kept_ratio = math.inf, 1.0
    scores = np.zeros((len(y), Kp))
    mistakes = np.zeros(len(y), dtype=int)
    n_updates = 0
    for t in range(len(y)):
        kt = np.array([G[p, t] for p in pts])
        if w is None:
            F = np.array([math.fsum(alpha[i][c] * kt[i] for i in range(len(pts))) for c in range(Kp)])
        else:
            F = w @ (M @ kt)
        scores[t] = F
        if multi:
            yt = int(y[t])
            mistakes[t] = argmax_first(F) != yt
            others = [c for c in range(Kp) if c != yt]
            s = others[argmax_first([F[c] for c in others])]
            margin = F[yt] - F[s]
            D = np.zeros(Kp)
            D[yt], D[s] = 1.0, -1.0
        else:
            yt = int(y[t])
            mistakes[t] = (1 if F[0] >= 0 else -1) != yt  # sign(0) → +1
            margin = yt * F[0]
            D = np.array([float(yt)])
        if margin >= 1:
            continue
        n_updates += 1
        if w is None and len(pts) < B:
            pts.append(t)
            alpha.append(eta * D)
            continue
        if w is None:  # the switch: eigs(k_hat, k), w = α·pinv(M)
            Gs = np.array([[G[p, q] for q in pts] for p in pts])
            lam, V = np.linalg.eigh(Gs)
            lam, V = lam[::-1], V[:, ::-1]
            rank = min(k, B)
            gap = (lam[rank - 1] - lam[rank]) / lam[0] if rank < B else math.inf
            kept_ratio = lam[rank - 1] / lam[0]
            M = np.diag(lam[:rank] ** -0.5) @ V[:, :rank].T
            w = np.array(alpha).T @ np.linalg.pinv(M)  # K' × k
            transition = t + 1
        w = w + eta * np.outer(D, M @ kt)  # that round's kernel vector
    return {
        "scores": scores,
        "mistakes": mistakes,
        "n_updates": n_updates,
        "n_sv": len(pts),
        "transition": transition,
        "rank": rank,
        "W": w,
        "M": M,
        "SV": X[pts],
        "gap": gap,
        "kept_ratio": kept_ratio,
    }
