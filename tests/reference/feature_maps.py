"""Slow, literal references of the explicit-feature-map learners: FOGD (docs/algorithms/fogd.md) and NOGD
(docs/algorithms/nogd.md).

Written from the text of those pages and docs/algorithms/multiclass.md#budgeted-learners, not from olkit's
code; nothing here imports olkit. One plain loop over the stream, one round at a time, with the model of
round t−1 for the prediction.

FOGD:

* directions u_1..u_D ~ N(0, σ⁻² I_d), drawn as olkit documents it:
  ``numpy.random.default_rng(seed).standard_normal((d, D)) / sigma`` (column j is u_j);
* z(x) = [cos(u_1·x), …, cos(u_D·x), sin(u_1·x), …, sin(u_D·x)] / √D (no 1/√D for LSOKL's ``FouGD.m``);
* binary (labels ±1): f = w·z, ŷ = +1 iff f ≥ 0, mistake ŷ ≠ y; if y f < 1: w ← w + η y z;
* multiclass (labels 0..K−1): F = W z, ŷ = argmax F (ties → smallest index), s = argmax_{r≠y} F_r (ties →
  smallest index), Γ = F_y − F_s; if Γ < 1: W_y ← W_y + η z, W_s ← W_s − η z.
"""

import math

import numpy as np


def directions(d, D, sigma, seed):
    """U (d × D): column j is u_j ~ N(0, σ⁻² I_d), stored rounded to float32 (as olkit documents)."""
    return (np.random.default_rng(seed).standard_normal((d, D)) / sigma).astype(np.float32)


def fourier_features(x, U, scaled=True):
    """z(x) ∈ R^{2D} from explicit per-direction dot products u_j·x."""
    D = U.shape[1]
    proj = [sum(float(x[k]) * float(U[k, j]) for k in range(len(x)) if x[k] != 0) for j in range(D)]
    cos = [math.cos(p) for p in proj]
    sin = [math.sin(p) for p in proj]
    z = np.array(cos + sin)
    return z / math.sqrt(D) if scaled else z


def argmax_first(f):
    """argmax with ties to the smallest index."""
    best = 0
    for c in range(1, len(f)):
        if f[c] > f[best]:
            best = c
    return best


def fogd(X, y, U, eta, n_classes=2, scaled=True, multiclass=None, intercept=0.0):
    """Run FOGD over the stream (X, y) in row order.

    ``y``: ±1 labels (binary) or class indices 0..K−1. ``multiclass``: use the multiclass rule (default:
    when n_classes ≥ 3; True runs 2-class data with the K = 2 multiclass rule, labels given as 0/1).
    ``intercept`` c > 0 (fit_intercept, docs/algorithms/options.md#fit_intercept): z gets a last entry c.
    Returns dict(scores (T × K'), mistakes (T,), n_updates, W (K' × 2D, or 2D + 1 with an intercept)).
    """
    if multiclass is None:
        multiclass = n_classes >= 3
    D = U.shape[1]
    K = n_classes if multiclass else 1
    width = 2 * D + (intercept != 0.0)
    W = np.zeros((K, width))
    scores = np.zeros((len(y), K))
    mistakes = np.zeros(len(y), dtype=int)
    n_updates = 0
    for t in range(len(y)):
        z = fourier_features(X[t], U, scaled)
        if intercept != 0.0:
            z = np.append(z, intercept)
        F = np.array([sum(W[r, j] * z[j] for j in range(width)) for r in range(K)])
        scores[t] = F
        if not multiclass:
            yt = float(y[t])
            yhat = 1.0 if F[0] >= 0 else -1.0
            mistakes[t] = yhat != yt
            if yt * F[0] < 1:
                W[0] = W[0] + eta * yt * z
                n_updates += 1
            continue
        yt = int(y[t])
        mistakes[t] = argmax_first(F) != yt
        others = [r for r in range(K) if r != yt]
        s = others[argmax_first([F[r] for r in others])]
        if F[yt] - F[s] < 1:
            W[yt] = W[yt] + eta * z
            W[s] = W[s] - eta * z
            n_updates += 1
    return {"scores": scores, "mistakes": mistakes, "n_updates": n_updates, "W": W}


def gaussian(x, xp, sigma):
    """κ(x, x') = exp(−‖x − x'‖²/(2σ²)) (docs/algorithms/conventions.md)."""
    diff = np.asarray(x, float) - np.asarray(xp, float)
    return math.exp(-float(diff @ diff) / (2 * sigma * sigma))


def predict_and_pair(F, yt, multiclass):
    """(mistake, margin m_t, s_t) of docs/algorithms/multiclass.md#budgeted-learners: binary ŷ = +1 iff f ≥ 0, m = y
    f; multiclass ŷ = argmax F (ties → smallest index), s = argmax_{r≠y} F_r (ties → smallest index), m = F_y −
    F_s."""
    if not multiclass:
        yhat = 1.0 if F[0] >= 0 else -1.0
        return yhat != yt, yt * F[0], -1
    y = int(yt)
    others = [r for r in range(len(F)) if r != y]
    s = others[argmax_first([F[r] for r in others])]
    return argmax_first(F) != y, F[y] - F[s], s


def nogd(X, y, eta, B, k, sigma, n_classes=2, multiclass=None, floor=1e-12, offset=0.0, sample_weight=None):
    """Run NOGD (docs/algorithms/nogd.md#update-rule) over the stream (X, y) in row order.

    Stage 1: on m_t < 1 while |S| < B append x_t with the row ηD_t (binary ηy_t; multiclass +η at y_t, −η at
    s_t). At the first margin error with |S| = B: K̂ = V Λ Vᵀ (numpy.linalg.eigh), the top k eigenpairs
    with λ > floor·λ_max; φ(x) = Λ_k^{-1/2} V_kᵀ k_S(x), W = Aᵀ V_k Λ_k^{1/2}; then that round's step
    W += η D_t φ(x_t)ᵀ (D_t from the round's stage-1 scores). Stage 2: F = W φ(x); on m_t < 1 the same step.

    Returns dict(scores, mistakes, n_updates, n_sv, transition (1-based round, 0 if none), rank, W, M, SV,
    gap: (λ_k − λ_{k+1})/λ_max at the cut (inf if nothing is cut), kept_ratio: λ_min kept / λ_max).

    ``sample_weight`` (None: all 1): the example weights s_t of docs/algorithms/nogd.md#weights, the step η s_t in both
    stages (the row η s_t D_t, W += η s_t D_t φ(x_t)ᵀ); a weight-0 round is predicted and recorded, nothing else
    (it does not trigger the transition either).
    """
    if multiclass is None:
        multiclass = n_classes >= 3
    K = n_classes if multiclass else 1
    SV, A = [], []
    stage, transition, rank = 1, 0, 0
    M = W = None
    gap, kept_ratio = math.inf, 1.0
    scores = np.zeros((len(y), K))
    mistakes = np.zeros(len(y), dtype=int)
    n_updates = 0
    for t in range(len(y)):
        kvec = np.array([gaussian(X[t], x, sigma) + offset for x in SV])  # offset: c² of fit_intercept
        if stage == 1:
            F = np.zeros(K)
            for a, kv in zip(A, kvec):
                F = F + a * kv
        else:
            phi = M @ kvec
            F = W @ phi
        scores[t] = F
        mistakes[t], m, s = predict_and_pair(F, float(y[t]) if not multiclass else int(y[t]), multiclass)
        s_t = 1.0 if sample_weight is None else float(sample_weight[t])
        if m >= 1 or s_t == 0.0:
            continue
        n_updates += 1
        step = eta * s_t
        direction = np.zeros(K)
        if multiclass:
            direction[int(y[t])], direction[s] = 1.0, -1.0
        else:
            direction[0] = float(y[t])
        if stage == 1 and len(SV) < B:
            SV.append(np.array(X[t], float))
            A.append(step * direction)
            continue
        if stage == 1:  # the transition
            G = np.array([[gaussian(a, b, sigma) + offset for b in SV] for a in SV])
            lam, V = np.linalg.eigh(G)
            lam, V = lam[::-1], V[:, ::-1]  # descending
            keep = [q for q in range(min(k, len(lam))) if lam[q] > floor * lam[0]]
            rank = len(keep)
            gap = (lam[rank - 1] - lam[rank]) / lam[0] if rank < len(lam) else math.inf
            kept_ratio = lam[rank - 1] / lam[0]
            Vk, Lk = V[:, :rank], lam[:rank]
            M = np.diag(Lk**-0.5) @ Vk.T
            W = np.array(A).T @ Vk @ np.diag(Lk**0.5)
            stage, transition = 2, t + 1
            phi = M @ kvec
        W = W + step * np.outer(direction, phi)
    return {
        "scores": scores,
        "mistakes": mistakes,
        "n_updates": n_updates,
        "n_sv": len(SV),
        "transition": transition,
        "rank": rank,
        "W": W,
        "M": M,
        "SV": np.array(SV),
        "A": np.array(A),
        "gap": gap,
        "kept_ratio": kept_ratio,
    }
