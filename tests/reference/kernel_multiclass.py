"""Slow, literal references of the multiclass / multi-label kernel learners (docs/algorithms/multiclass.md, the
multiclass sections of the kernel learners' pages, docs/algorithms/duol.md#ties).

Written from the text of the specification (``docs/algorithms/multiclass.md`` and the multiclass sections) and, where
the text leaves a choice open,
from the readings stated in olkit's module docstrings (``mira.py``: the margin-infused QP and the
``update`` gate; ``duol.py``: the M-DUOL_appr / M-DUOL_iter steps) — *not* from olkit's code. Nothing
here imports olkit.

Every learner is a plain loop over the stream, one round at a time:

    f_c(x_t) = Σ_i A_i[c] κ(x_i, x_t) with the model of round t−1  →  predict / count  →  update,

with the coefficient vector A_i ∈ R^K of every stored point kept explicitly (for the M-DUOL forms
A_i = γ_i H_i, with the direction H_i = e_{r_i} − e_{s_i} fixed at insertion and the cached margin F_i).

Conventions (multiclass.md):

* single-label: ŷ_t = argmax_c f_c(x_t), ties to the smallest class index; a mistake is ŷ_t ≠ y_t;
* multi-label: r_t = argmin_{r∈Y_t} f_r (worst relevant), s_t = argmax_{s∉Y_t} f_s (best irrelevant), ties
  to the smallest index; a mistake is f_{r_t} ≤ f_{s_t} (Γ_t ≤ 0); no pair (Y_t empty or full) → no
  mistake, no update;
* ℓ_t = [1 − (f_{r_t} − f_{s_t})]_+; ‖H‖² = 2.

Kernel values are explicit pair-wise evaluations, computed once per stream into a T×T table (``G[s, t]
= κ(x_s, x_t)`` for stream positions s, t). Streams have small integer features so ‖x − z‖² is exact.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .kernel_binary import box_qp_enumerate

SIGMA = 1.5
"""σ of the random test streams (tests/test_kernel_multiclass_reference.py)."""


def gram(X, sigma=SIGMA):
    """T×T table of the Gaussian κ over the stream (conventions.md#kernels): exp(−‖x_s − x_t‖²/(2σ²)) from the explicit
    differences x_s − x_t (integer features make ‖x_s − x_t‖² exact)."""
    T = len(X)
    G = np.empty((T, T))
    gamma = 1.0 / (2 * sigma**2)
    for i in range(T):
        G[i] = np.exp(-np.sum((X - X[i]) ** 2, axis=1) * gamma)
    return G


# ---------------------------------------------------------------------------------------------------------
# multiclass.md helpers
# ---------------------------------------------------------------------------------------------------------
def argmax_first(f):
    """argmax with ties to the smallest index (MATLAB ``max``)."""
    best = 0
    for c in range(1, len(f)):
        if f[c] > f[best]:
            best = c
    return best


def worst_best_pair(Yrow, f):
    """(r_t, s_t) of multiclass.md: worst relevant / best irrelevant class, ties to the smallest index; (−1, −1) if
    either set is empty."""
    r = s = -1
    for c in range(len(f)):
        if Yrow[c]:
            if r < 0 or f[c] < f[r]:
                r = c
        elif s < 0 or f[c] > f[s]:
            s = c
    if r < 0 or s < 0:
        return -1, -1
    return r, s


def hdot(a, b):
    """H_a·H_b for H = e_r − e_s given as pairs (r, s) (multiclass.md; in {−2, …, 2})."""
    return (a[0] == b[0]) + (a[1] == b[1]) - (a[0] == b[1]) - (a[1] == b[0])


def clip(v, lo, hi):
    return min(max(v, lo), hi)


# ---------------------------------------------------------------------------------------------------------
# mira.md: MIRA's QP, solved by bisection on θ
# ---------------------------------------------------------------------------------------------------------
MARGIN_TIE = 1e-9
"""Exact-arithmetic ties of the margin tests. A point repeated right after an unclipped update with the
same label has margin *exactly* 1 in exact arithmetic: MIRA (update="margin", κ_t = 1): the new scores are
f'_y = θ + 1 and f'_r ≤ θ, so f'_y − 1 = max_{r≠y} f'_r and τ = 0; PA / PA-I: f'_r − f'_s = margin + ℓ = 1,
so ℓ = 0. In floating point the difference is a few ulps either way, decided by how τ and the scores were
rounded (kernel `exp`, summation order, bisection here vs sorted breakpoints in olkit), and the wrong sign
adds a spurious SV with |τ| ~ 1e-16. The reference decides such ties as exact arithmetic does: a loss
within MARGIN_TIE of 0 is 0 (no update). On these integer-feature streams no margin comes that close to 1
except by an exact tie (the DUOL forms have their own ``tol`` for the same reason,
docs/algorithms/duol.md#settled-questions)."""


def mira_tau_bisect(f, y, A, C, tie=MARGIN_TIE):
    """τ minimising ½ A Σ τ_r² + Σ B_r τ_r, B_r = f_r − δ_{r,y}, s.t. τ_r ≤ C δ_{r,y}, Σ τ_r = 0.

    τ_r = min(C δ_{r,y}, θ − B_r/A) where θ is the root of g(θ) = Σ_r min(C δ_{r,y}, θ − B_r/A), a
    continuous non-decreasing function; found by bisection down to adjacent floating-point numbers. Returns
    None when τ = 0 is optimal: f_y − 1 ≥ max_{r≠y} f_r, decided as in exact arithmetic (see MARGIN_TIE).
    """
    K = len(f)
    if f[y] - 1.0 >= max(f[r] for r in range(K) if r != y) - tie:
        return None
    ub = [C if r == y else 0.0 for r in range(K)]
    B = [f[r] - (1.0 if r == y else 0.0) for r in range(K)]

    def g(theta):
        return sum(min(ub[r], theta - B[r] / A) for r in range(K))

    lo = min(b / A for b in B) - C - 1.0  # every term linear and < 0 → g(lo) < 0
    hi = max(B[r] / A + ub[r] for r in range(K))  # every term at its bound → g(hi) = C > 0
    assert g(lo) < 0.0 < g(hi)
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if g(mid) < 0.0:
            lo = mid
        else:
            hi = mid
    theta = lo if abs(g(lo)) <= abs(g(hi)) else hi
    return np.array([min(ub[r], theta - B[r] / A) for r in range(K)])


# ---------------------------------------------------------------------------------------------------------
# The per-round loop
# ---------------------------------------------------------------------------------------------------------
@dataclass
class MultiRef:
    flags: np.ndarray
    scores: np.ndarray
    n_sv: int
    n_updates: int
    events: dict = field(default_factory=dict)


def run_reference(
    name,
    X,
    Y,
    *,
    C=None,
    rho=0.0,
    mode="max",
    update="mistake",
    tol=1e-9,
    multilabel=False,
    sigma=SIGMA,
    fit_intercept=False,
    intercept_scaling=1.0,
    sample_weight=None,
):
    """Run learner ``name`` over the stream (X dense, Y an n×K 0/1 indicator matrix).

    ``sample_weight``: the example weights (options.md#weights; None: every weight 1); a weight-0 round is
    predicted and counted, not learned.

    name: "perceptron" (mode max|uniform|prop, perceptron.md), "mira" (update mistake|margin, mira.md), "pa" | "pa1" |
    "pa2" (pa1.md), "duol" | "duol-appr" | "duol-iter" (duol.md). ``C=None`` → the defaults (MIRA 1, otherwise 10).
    DUOL forms: the example weight s_t of docs/algorithms/duol.md#weights gives the new example's box [0, s_t C], and
    each stored point keeps its own [0, s_i C] for when it is the auxiliary one.
    """
    X = np.asarray(X, float)
    Y = np.asarray(Y)
    T, K = Y.shape
    if C is None:
        C = 1.0 if name == "mira" else 10.0
    G = gram(X, sigma) + (float(intercept_scaling) ** 2 if fit_intercept else 0.0)  # κ + c² (options.md)
    pts = []  # stream position of each stored point
    A = []  # coefficient vector A_i ∈ R^K (every learner but the DUOL forms)
    H, gam, F = [], [], []  # DUOL forms: direction (r_i, s_i), γ_i ≥ 0, cached margin F_i = f(x_i)·H_i
    duol = name.startswith("duol")
    box = []  # DUOL forms: each stored point's bound s_i C
    flags, scores = [], []
    n_updates = 0
    sw = np.ones(T) if sample_weight is None else np.asarray(sample_weight, float)
    ev = dict.fromkeys(
        [
            "double",
            "single",
            "degenerate",
            "rho_blocked",
            "ga=C",
            "d=0",
            "gb=C",
            "tie_b",
            "tau_y=C",
            "mira_skip",
            "tiny_loss",
        ],
        0,
    )

    def coef(j):
        if not duol:
            return A[j]
        a = np.zeros(K)
        a[H[j][0]], a[H[j][1]] = gam[j], -gam[j]
        return a

    for t in range(T):
        k = [G[p, t] for p in pts]
        f = np.zeros(K)
        for j in range(len(pts)):
            f = f + coef(j) * k[j]
        scores.append(f.copy())
        Yrow = Y[t]
        if multilabel:
            r, s = worst_best_pair(Yrow, f)
            mistake = r >= 0 and f[r] <= f[s]
        else:
            y = int(np.flatnonzero(Yrow)[0])
            mistake = argmax_first(f) != y
        flags.append(int(mistake))
        kt = G[t, t]
        if sw[t] == 0.0:
            continue

        # ---- perceptron.md: Crammer–Singer ultraconservative perceptrons (single-label)
        if name == "perceptron":
            E = [c for c in range(K) if c != y and f[c] >= f[y]]
            if not E:
                continue
            tau = np.zeros(K)
            tau[y] = 1.0
            if mode == "max":
                top = max(f[c] for c in E)
                tau[min(c for c in E if f[c] == top)] = -1.0
            else:
                tot = sum(f[c] - f[y] for c in E)
                for c in E:
                    tau[c] = -(f[c] - f[y]) / tot if (mode == "prop" and tot > 0) else -1.0 / len(E)
            pts.append(t), A.append(tau * sw[t])  # perceptron.md#weights: the step times s_t
            n_updates += 1
            continue

        # ---- mira.md: MIRA (single-label), margin-infused QP; gate: prediction mistakes or every round
        if name == "mira":
            if update == "mistake" and not mistake:
                continue
            Ct = C * sw[t]  # mira.md#weights: C_t = s_t C
            tau = mira_tau_bisect(f, y, kt, Ct)
            if tau is None:
                ev["mira_skip"] += 1
                continue
            ev["tau_y=C"] += bool(tau[y] == Ct)
            pts.append(t), A.append(tau)
            n_updates += 1
            continue

        # ---- multiclass.md pair for the max-loss forms
        if not multilabel:
            r, s = worst_best_pair(Yrow, f)
        if r < 0:
            continue
        loss = 1.0 - (f[r] - f[s])

        # ---- pa1.md: multiclass PA / PA-I / PA-II
        if name in ("pa", "pa1", "pa2"):
            ev["tiny_loss"] += bool(abs(loss) <= MARGIN_TIE)
            if not loss > MARGIN_TIE:  # ℓ_t > 0, an exact-arithmetic tie ℓ_t = 0 decided as 0
                continue
            Ct = C * sw[t]  # pa1.md#weights: C_t = s_t C (plain PA reads no C)
            if name == "pa":
                g = loss / (2.0 * kt)
            elif name == "pa1":
                g = min(Ct, loss / (2.0 * kt))
            else:
                g = loss / (2.0 * kt + 1.0 / (2.0 * Ct))
            a = np.zeros(K)
            a[r], a[s] = g, -g
            pts.append(t), A.append(a)
            n_updates += 1
            continue

        # ---- duol.md: M-DUOL (exact / appr / iter), Algorithm 2 with the duol.md relative tie rule (first tied)
        assert duol, name
        Ct = C * float(sw[t])  # the example's box [0, s_t C] (duol.md#weights)
        if not loss > tol:
            continue
        Ht = (r, s)
        w = [hdot(Ht, H[i]) * k[i] for i in range(len(pts))]
        cand = [i for i in range(len(pts)) if F[i] <= 1.0 + tol]
        b, w_min = -1, math.inf
        if cand:
            w_min = min(w[i] for i in cand)
            tied = [i for i in cand if w[i] <= w_min + tol * abs(w_min)]
            b = tied[0]
            ev["tie_b"] += len(tied) > 1
        double = b >= 0 and w_min <= -2.0 * rho
        ev["rho_blocked"] += b >= 0 and not double
        # append t with F_t = W·H_t (before the cache update)
        pts.append(t), H.append(Ht), gam.append(0.0), F.append(f[r] - f[s]), box.append(Ct)
        if double:
            pb = pts[b]
            kb = G[pb, pb]
            w_ab = w[b]
            gb_hat, Cb = gam[b], box[b]  # the auxiliary point keeps its own box [0, s_b C]
            la, lb = loss, 1.0 - F[b]
            if name == "duol":  # problem (5): exact maximiser (independent enumeration oracle)
                ga, d = box_qp_enumerate(la, lb, 2.0 * kt, 2.0 * kb, w_ab, 0.0, Ct, -gb_hat, Cb - gb_hat)
            elif name == "duol-appr":  # γ_t = min(C, 1/(2(1−ρ))), γ_b = min(C, γ̂_b + 1/(2(1−ρ)))
                step = 1.0 / (2.0 * (1.0 - rho))
                ga = min(Ct, step)
                d = min(Cb, gb_hat + step) - gb_hat
            elif name == "duol-iter":  # coordinate steps: γ_a first, then d with the updated margin
                ga = clip(la / (2.0 * kt), 0.0, Ct)
                d = clip((lb - w_ab * ga) / (2.0 * kb), -gb_hat, Cb - gb_hat)
            else:
                raise ValueError(name)
            ev["double"] += 1
            ev["degenerate"] += bool((2.0 * kt) * (2.0 * kb) == w_ab * w_ab)
            ev["ga=C"] += ga == Ct
            ev["d=0"] += d == 0
            ev["gb=C"] += gb_hat + d == Cb
        else:
            ga, d = min(Ct, loss / (2.0 * kt)), 0.0
            ev["single"] += 1
            b = -1
        gam[-1] = ga
        if b >= 0:
            gam[b] = gb_hat + d
        # F_i += γ_a (H_t·H_i) κ(x_t, x_i) + d (H_b·H_i) κ(x_b, x_i) for every stored point (t included)
        for i in range(len(pts)):
            F[i] += ga * hdot(Ht, H[i]) * G[t, pts[i]]
            if b >= 0:
                F[i] += d * hdot(H[b], H[i]) * G[pts[b], pts[i]]
        n_updates += 1

    if duol:
        n_sv = sum(1 for g in gam if g != 0.0)
    else:
        n_sv = sum(1 for a in A if np.any(a != 0.0))
    return MultiRef(np.array(flags), np.array(scores), n_sv, n_updates, ev)


# ---------------------------------------------------------------------------------------------------------
# Streams
# ---------------------------------------------------------------------------------------------------------
def stream(seed, n=70, K=4, d=3, multilabel=False):
    """Integer features in {−2..2}^d, ~30 % rows repeating an earlier row (with the same or another label).

    Single-label: y ∈ {0..K−1} from a noisy linear rule, the first K rounds see every class once.
    Multi-label: an n×K indicator matrix, each class relevant w.p. 0.35 plus one forced class.
    """
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, d)).astype(float)
    dup = rng.random(n) < 0.3
    for t in np.flatnonzero(dup):
        if t > 0:
            X[t] = X[rng.integers(t)]
    if multilabel:
        Y = (rng.random((n, K)) < 0.35).astype(int)
        Y[np.arange(n), rng.integers(K, size=n)] = 1
        return X, Y
    y = (X @ rng.normal(size=d) * 1.3 + rng.normal(size=n)).round().astype(int) % K
    y[:K] = np.arange(K)
    return X, y
