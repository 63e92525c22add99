"""Slow, readable reference implementations of the kernel binary learners (docs/algorithms/conventions.md and
the pages of the kernel binary learners).

Written from the text of the specification, ``docs/algorithms/`` (and, where the text leaves a choice open, from the
settled choices stated in the module docstrings of ``olkit.learners.kernel``), *not* from olkit's code: the
point is an independent second reading of the specification. Nothing here imports olkit.

Every learner is a plain loop over the stream, one round at a time:

    score f_t(x_t) with the model of round t−1  →  predict / count  →  update.

Conventions used throughout (conventions.md):

* labels are mapped to ±1 with the smallest raw label → −1 (olkit's documented coding);
* ŷ_t = +1 iff f_t(x_t) ≥ 0, a mistake is ŷ_t ≠ y_t (conventions.md#prediction-and-mistakes);
* hinge loss ℓ_t = max(0, 1 − y_t f_t(x_t)) (conventions.md#losses);
* the model is f(·) = Σ_i a_i κ(x_i, ·) over the stored expansion points, in storage order
(conventions.md#kernel-model-representation);
* #SV = number of stored points whose coefficient is non-zero, #updates = number of rounds in which the
  model changed (conventions.md#support-vectors-and-updates);
* numerical guard: an example with κ(x_t, x_t) ≤ 1e-12 (a zero vector under the linear kernel) is skipped
  by the PA family, ROMMA, ALMA and DUOL (conventions.md#numerical-guards, pa.md).

For speed the kernel values of the whole stream are computed once, as a T×T matrix ``K`` (``K[s, t] =
κ(x_s, x_t)`` for stream positions s, t); :func:`kernel_value` is the pair-wise definition it follows.
"""

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

ZERO_NORM = (
    1e-12  # conventions.md#numerical-guards / pa.md: κ(x_t, x_t) ≤ 1e-12 → the example cannot change f, skip the update
)

DUAL_LINEAR = {"kernel": "poly", "degree": 1, "coef0": 0.0}
"""The linear kernel in dual (support-vector) form: olkit runs kernel="linear" in primal form."""


# ---------------------------------------------------------------------------------------------------------
# Kernels (conventions.md#kernels)
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KernelParams:
    kernel: str = "gaussian"
    sigma: float = 8.0
    degree: int = 3
    coef0: float = 1.0
    offset: float = 0.0  # c² of fit_intercept: the kernel κ + c² (options.md#fit_intercept)


def kernel_value(x, z, kp, same=False):
    """κ(x, z) for one pair (conventions.md#kernels).

    Gaussian exp(−d²/(2σ²)) with d² = ‖x‖² + ‖z‖² − 2 x·z clamped at ≥ 0, and κ(x, x) = 1 exactly
    (``same=True``); linear x·z; polynomial (x·z + coef0)^degree.
    """
    return _kernel_value(x, z, kp, same) + kp.offset


def _kernel_value(x, z, kp, same):
    if kp.kernel == "linear":
        return float(np.dot(x, z))
    if kp.kernel == "poly":
        return float((np.dot(x, z) + kp.coef0) ** kp.degree)
    if kp.kernel == "gaussian":
        if same:
            return 1.0
        d2 = max(0.0, float(np.dot(x, x) + np.dot(z, z) - 2.0 * np.dot(x, z)))
        return math.exp(-d2 / (2.0 * kp.sigma**2))
    raise ValueError(kp.kernel)


def kernel_matrix(A, B, kp, same=False):
    """Matrix of :func:`kernel_value` over the rows of A and B (vectorised; ``same`` → A is B, diagonal
    is κ(x, x))."""
    A = np.asarray(A, float)
    B = np.asarray(B, float)
    dots = A @ B.T
    if kp.kernel == "linear":
        K = dots
    elif kp.kernel == "poly":
        K = (dots + kp.coef0) ** kp.degree
    elif kp.kernel == "gaussian":
        na = np.einsum("ij,ij->i", A, A)
        nb = np.einsum("ij,ij->i", B, B)
        d2 = np.maximum(na[:, None] + nb[None, :] - 2.0 * dots, 0.0)
        K = np.exp(-d2 / (2.0 * kp.sigma**2))
        if same:
            np.fill_diagonal(K, 1.0)
    else:
        raise ValueError(kp.kernel)
    return np.array(K, dtype=float) + kp.offset


def dense_rows(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=float)


def encode_labels(y):
    """Smallest raw label → −1, the other → +1."""
    y = np.asarray(y)
    classes = np.unique(y)
    assert classes.size == 2, "binary references only"
    return np.where(y == classes[1], 1.0, -1.0)


def predict_sign(f):
    """conventions.md#prediction-and-mistakes: ŷ = +1 iff f ≥ 0."""
    return 1.0 if f >= 0 else -1.0


# ---------------------------------------------------------------------------------------------------------
# Result of a reference run
# ---------------------------------------------------------------------------------------------------------
@dataclass
class RefResult:
    mistakes: int
    n_updates: int
    scores: np.ndarray  # f_t(x_t) before the update of round t, stream order
    sv_rows: list  # stream positions of the stored expansion points, storage order
    coef: np.ndarray  # their signed coefficients a_i
    X: np.ndarray  # dense stream rows (for decision_function)
    kp: KernelParams
    y_pm: np.ndarray  # the stream's labels coded ±1
    normalised: bool = False  # ALMA: the model is Σ a_i k̂(x_i, ·) with the normalised kernel
    diagnostics: dict = field(default_factory=dict)

    @property
    def n_sv(self):
        return int(np.count_nonzero(self.coef))

    def decision_function(self, Xnew):
        """f(x) of the final model on new rows (ALMA: w(x̂), the normalised-kernel expansion, alma.md)."""
        Xnew = dense_rows(Xnew)
        if not self.sv_rows:
            return np.zeros(Xnew.shape[0])
        S = self.X[self.sv_rows]
        K = kernel_matrix(S, Xnew, self.kp)
        if self.normalised:
            ks = np.array([kernel_value(s, s, self.kp, same=True) for s in S])
            kx = np.array([kernel_value(x, x, self.kp, same=True) for x in Xnew])
            with np.errstate(divide="ignore", invalid="ignore"):
                K = K / np.sqrt(ks[:, None] * kx[None, :])
            K[:, kx <= ZERO_NORM] = 0.0
        return np.asarray(self.coef) @ K


class _Stream:
    """The stream in order: dense rows, ±1 labels, and K[s, t] = κ(x_s, x_t) (K[t, t] = κ(x_t, x_t))."""

    def __init__(self, X, y, kp):
        self.X = dense_rows(X)
        self.y = encode_labels(y)
        self.kp = kp
        self.T = self.X.shape[0]
        self.K = kernel_matrix(self.X, self.X, kp, same=True)
        self.kself = np.array([kernel_value(x, x, kp, same=True) for x in self.X])
        np.fill_diagonal(self.K, self.kself)


def _kp(kernel="gaussian", sigma=8.0, degree=3, coef0=1.0, fit_intercept=False, intercept_scaling=1.0):
    c = float(intercept_scaling) if fit_intercept else 0.0
    return KernelParams(kernel, float(sigma), int(degree), float(coef0), c * c)


def _score(st, rows, coef, t):
    """f(x_t) = Σ_i a_i κ(x_i, x_t) (conventions.md#kernel-model-representation)."""
    if not rows:
        return 0.0
    return float(np.dot(coef, st.K[rows, t]))


# ---------------------------------------------------------------------------------------------------------
# Kernel Perceptron (perceptron.md)
# ---------------------------------------------------------------------------------------------------------
def _weights(sample_weight, T):
    """The example weights s_t (options.md#weights): None = every weight 1 (the unweighted rule)."""
    return np.ones(T) if sample_weight is None else np.asarray(sample_weight, float)


def perceptron(X, y, sample_weight=None, **kernel):
    st = _Stream(X, y, _kp(**kernel))
    sw = _weights(sample_weight, st.T)
    rows, coef, scores = [], [], []
    mistakes = updates = 0
    for t in range(st.T):
        yt = st.y[t]
        f = _score(st, rows, coef, t)
        scores.append(f)
        if predict_sign(f) != yt:  # perceptron.md: update iff ŷ_t ≠ y_t
            mistakes += 1
            if sw[t] == 0.0:  # options.md#weights: weight 0 is predicted and counted, not learned
                continue
            rows.append(t)  # append x_t with a_t = s_t y_t (perceptron.md#weights: the step α = s_t)
            coef.append(sw[t] * yt)
            updates += 1
    return RefResult(mistakes, updates, np.array(scores), rows, np.array(coef, float), st.X, st.kp, st.y)


# ---------------------------------------------------------------------------------------------------------
# PA, PA-I, PA-II (pa.md)
# ---------------------------------------------------------------------------------------------------------
def pa(X, y, variant="pa", C=5.0, sample_weight=None, **kernel):
    st = _Stream(X, y, _kp(**kernel))
    sw = _weights(sample_weight, st.T)
    rows, coef, scores = [], [], []
    mistakes = updates = 0
    for t in range(st.T):
        yt, kt = st.y[t], st.kself[t]
        f = _score(st, rows, coef, t)
        scores.append(f)
        mistakes += predict_sign(f) != yt
        loss = max(0.0, 1.0 - yt * f)  # conventions.md#losses
        Ct = sw[t] * C  # pa1.md#weights, pa2.md#weights: C_t = s_t C; plain PA: s_t only switches the example on
        if loss > 0 and kt > ZERO_NORM and sw[t] > 0:  # pa.md: update iff ℓ_t > 0; guard κ_t = 0 → skip
            if variant == "pa":
                tau = loss / kt  # PA:    τ = ℓ/κ_t
            elif variant == "pa1":
                tau = min(Ct, loss / kt)  # PA-I:  τ = min(C_t, ℓ/κ_t)
            elif variant == "pa2":
                tau = loss / (kt + 1.0 / (2.0 * Ct))  # PA-II: τ = ℓ/(κ_t + 1/(2C_t))
            else:
                raise ValueError(variant)
            rows.append(t)
            coef.append(yt * tau)  # a_t = y_t τ_t
            updates += 1
    return RefResult(mistakes, updates, np.array(scores), rows, np.array(coef, float), st.X, st.kp, st.y)


# ---------------------------------------------------------------------------------------------------------
# ROMMA and agg-ROMMA (romma.md / agg-romma.md)
# ---------------------------------------------------------------------------------------------------------
def romma(X, y, aggressive=False, romma_reset_case=False, compat="none", sample_weight=None, **kernel):
    st = _Stream(X, y, _kp(**kernel))
    sw = _weights(sample_weight, st.T)  # romma.md#weights: s_t > 0 changes nothing, s_t = 0 skips the example
    rows, coef, scores = [], [], []
    N2 = 0.0  # ‖w‖²_H
    mistakes = updates = 0
    events = {"resets": 0, "parallel_skips": 0}
    for t in range(st.T):
        yt, kt = st.y[t], st.kself[t]
        f = _score(st, rows, coef, t)
        scores.append(f)
        mistake = predict_sign(f) != yt
        mistakes += mistake
        # romma.md: ROMMA updates iff mistake; agg-romma.md: agg-ROMMA iff y_t f < 1 (margin error)
        wants = (yt * f < 1.0) if aggressive else mistake
        if not wants or kt <= ZERO_NORM or sw[t] == 0.0:
            continue
        A = kt * N2
        if N2 == 0.0:
            # romma.md first update: w ← y_t κ(x_t,·)/κ_t, N2 = 1/κ_t; compat="libol": w ← y_t κ(x_t,·), N2 = κ_t
            if compat == "libol":
                rows, coef, N2 = [t], [yt], kt
            else:
                rows, coef, N2 = [t], [yt / kt], 1.0 / kt
            updates += 1
            continue
        if aggressive and romma_reset_case and yt * f >= A:
            # agg-romma.md case 1 (only the margin constraint active): discard all SVs, w ← y_t κ(x_t,·)/κ_t
            rows, coef, N2 = [t], [yt / kt], 1.0 / kt
            updates += 1
            events["resets"] += 1
            continue
        D = A - f * f
        if D <= 1e-12 * A:  # romma.md: x_t ∥ w → skip (olkit docstring: D ≤ 1e-12·A)
            events["parallel_skips"] += 1
            continue
        c = (A - yt * f) / D  # romma.md: c = (A − y_t f)/D
        d = N2 * (yt - f) / D  #     d = N2 (y_t − f)/D
        coef = [c * a for a in coef]  #     w ← c·w + d·κ(x_t,·)
        rows = rows + [t]
        coef.append(d)
        N2 = c * c * N2 + 2.0 * c * d * f + d * d * kt  # N2 ← c² N2 + 2 c d f + d² κ_t
        updates += 1
    res = RefResult(mistakes, updates, np.array(scores), rows, np.array(coef, float), st.X, st.kp, st.y)
    res.events = events
    return res


# ---------------------------------------------------------------------------------------------------------
# ALMA_2(α) (alma.md)
# ---------------------------------------------------------------------------------------------------------
def alma(X, y, alpha=0.9, C=math.sqrt(2.0), p=2, sample_weight=None, **kernel):
    assert p == 2
    st = _Stream(X, y, _kp(**kernel))
    sw = _weights(sample_weight, st.T)
    B = 1.0 / alpha  # alma.md: B = 1/α
    rows, coef, scores = [], [], []  # w = Σ a_i k̂(x_i, ·)
    N = 0.0  # ‖w‖
    k = 1  # counts updates, starts at 1
    mistakes = updates = 0
    for t in range(st.T):
        yt, kt = st.y[t], st.kself[t]
        # f = w(x̂_t) = Σ a_i κ(x_i,x_t)/sqrt(κ_ii κ_t) (normalised kernel k̂); a zero-norm x̂_t is undefined,
        # its score is taken as 0 (every κ(x_i, x_t) is 0 then anyway under the linear kernel).
        if rows and kt > ZERO_NORM:
            f = float(sum(a * st.K[i, t] / math.sqrt(st.kself[i] * kt) for i, a in zip(rows, coef)))
        else:
            f = 0.0
        scores.append(f)
        mistakes += predict_sign(f) != yt
        gamma_k = B / math.sqrt(k)  # γ_k = B/√k
        eta_k = C / math.sqrt(k) * sw[t]  # η_k = C/√k, times s_t (alma.md#weights)
        if yt * f <= (1.0 - alpha) * gamma_k and kt > ZERO_NORM and sw[t] > 0:
            rows = rows + [t]  # w' = w + η_k y_t k̂(x_t, ·)
            coef = coef + [eta_k * yt]
            n2 = N * N + 2.0 * eta_k * yt * f + eta_k * eta_k  # ‖w'‖² = N² + 2η y f + η²
            nrm = math.sqrt(max(n2, 0.0))  # conventions.md#numerical-guards clamp
            scale = max(1.0, nrm)
            coef = [a / scale for a in coef]  # w ← w'/max(1, ‖w'‖)
            N = nrm / scale
            k += 1
            updates += 1
    return RefResult(
        mistakes, updates, np.array(scores), rows, np.array(coef, float), st.X, st.kp, st.y, normalised=True
    )


# ---------------------------------------------------------------------------------------------------------
# duol.md generic solver: exact maximiser of a 2-variable QP on a box, by enumeration
# ---------------------------------------------------------------------------------------------------------
def qp_objective(la, lb, qa, qb, w, ga, d):
    """h(γ, d) = ℓ_a γ + ℓ_b d − ½ q_a γ² − ½ q_b d² − w γ d (duol.md problem (1); q = k binary, 2k multiclass)."""
    return la * ga + lb * d - 0.5 * qa * ga * ga - 0.5 * qb * d * d - w * ga * d


def _clip(v, lo, hi):
    return min(max(v, lo), hi)


def box_qp_enumerate(la, lb, qa, qb, w, ga_lo, ga_hi, d_lo, d_hi):
    """Maximise :func:`qp_objective` on [ga_lo, ga_hi] × [d_lo, d_hi] (q_a, q_b ≥ 0).

    Candidates: the 4 corners; on each of the 4 edges the 1-D maximiser (h restricted to an edge is a
    concave parabola when its q > 0, so its maximiser is the clipped stationary point; when q = 0 it is
    linear and a corner wins); and the interior stationary point when it exists and is in the box. The
    global maximum lies at one of them (interior maximiser, or on the boundary = union of the edges),
    so the best candidate is exact. Ties between equal candidates keep the first.
    """
    cands = [(ga_lo, d_lo), (ga_lo, d_hi), (ga_hi, d_lo), (ga_hi, d_hi)]
    for g in (ga_lo, ga_hi):  # edges γ = const: ∂h/∂d = ℓ_b − q_b d − w γ = 0
        if qb > 0:
            cands.append((g, _clip((lb - w * g) / qb, d_lo, d_hi)))
    for d in (d_lo, d_hi):  # edges d = const: ∂h/∂γ = ℓ_a − q_a γ − w d = 0
        if qa > 0:
            cands.append((_clip((la - w * d) / qa, ga_lo, ga_hi), d))
    det = qa * qb - w * w
    if det > 0:  # interior stationary point of [[q_a, w], [w, q_b]] z = ℓ
        g = (qb * la - w * lb) / det
        d = (qa * lb - w * la) / det
        if ga_lo <= g <= ga_hi and d_lo <= d <= d_hi:
            cands.append((g, d))
    best, best_h = None, -math.inf
    for g, d in cands:
        h = qp_objective(la, lb, qa, qb, w, g, d)
        if h > best_h:
            best, best_h = (g, d), h
    return best


# ---------------------------------------------------------------------------------------------------------
# duol-rand.md randomness: SplitMix64 (the generator olkit documents for DUOL_rand)
# ---------------------------------------------------------------------------------------------------------
class SplitMix64:
    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.state = int(seed) & self.MASK

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def index(self, n):
        u = (self.next_u64() >> 11) * 2.0**-53
        return min(int(math.floor(u * n)), n - 1)


# ---------------------------------------------------------------------------------------------------------
# duol.md and its variants. DUOL and its variants
# ---------------------------------------------------------------------------------------------------------
def duol(X, y, solver="exact", variant="jmlr", C=5.0, rho=None, tol=1e-9, seed=0, sample_weight=None, **kernel):
    """DUOL (duol.md), DUOL_appr (duol-appr.md), DUOL_iter (duol-iter.md), DUOL_rand (duol-rand.md), NIPS 2009 DUOL
    (duol.md end), counters (duol.md).

    ``solver``: "exact" | "appr" | "iter" | "rand"; ``variant``: "jmlr" | "nips2009" (with "exact").
    ``sample_weight``: the example weights s_t (None: all 1; docs/algorithms/duol.md#weights): the new example's box
    [0, s_t C], the auxiliary SV's own [0, s_b C]; a weight-0 round is predicted and counted, nothing else.
    """
    C0 = C
    st = _Stream(X, y, _kp(**kernel))
    nips = variant == "nips2009"
    if rho is None:
        rho = 0.2 if nips else 0.0
    rng = SplitMix64(seed) if solver == "rand" else None
    rows = []  # stream position of each SV
    gam = []  # γ_i ≥ 0 (a_i = γ_i y_i)
    box = []  # each SV's own bound s_i C
    F = []  # cached margins F_i = y_i f(x_i)
    scores = []
    mistakes = updates = 0
    n_double = n_strong = n_weak = 0
    events = dict.fromkeys(["ga=C", "ga=0", "ga inside", "d=hi", "d=lo", "d inside", "degenerate"], 0)
    for t in range(st.T):
        yt, ka = st.y[t], st.kself[t]
        # step 1: f = f_{t−1}(x_t), k_i = κ(x_i, x_t)
        k_row = [st.K[i, t] for i in rows]
        f = float(sum(g * st.y[i] * k for g, i, k in zip(gam, rows, k_row)))
        scores.append(f)
        mistake = predict_sign(f) != yt
        mistakes += mistake
        s_t = 1.0 if sample_weight is None else float(sample_weight[t])
        if s_t == 0.0:  # weight 0: predicted and counted, not learned
            continue
        C = C0 * s_t  # this round's box [0, s_t C]
        loss = max(0.0, 1.0 - yt * f)
        if not loss > tol:  # step 2 (with tol): no change
            continue
        if ka <= ZERO_NORM:  # conventions.md#numerical-guards guard: zero-norm example skipped
            continue
        # step 3: auxiliary example b
        b, w_min = None, None
        if solver == "rand":
            if rows:  # duol-rand.md: uniform over S_{t−1} (all stored points)
                b = rng.index(len(rows))
                w_min = st.y[rows[b]] * yt * k_row[b]
        elif nips:
            w_min = 0.0  # NIPS: F_i ≤ 0 (≤ tol), strict "<", w_min starts at 0
            for j, i in enumerate(rows):
                if F[j] <= tol:
                    wj = st.y[i] * yt * k_row[j]
                    if wj < w_min:
                        w_min, b = wj, j
        else:
            w_min = math.inf  # JMLR: F_i ≤ 1 (≤ 1 + tol), "≤ w_min" → last minimiser
            for j, i in enumerate(rows):
                if F[j] <= 1.0 + tol:
                    wj = st.y[i] * yt * k_row[j]
                    if wj <= w_min:
                        w_min, b = wj, j
        double = b is not None and (solver == "rand" or w_min <= -rho)
        # step 4: append t with F_t = y_t f (before the cache update)
        rows.append(t)
        gam.append(0.0)
        box.append(C)
        F.append(yt * f)
        if double:
            Cb = box[b]  # the auxiliary SV's own bound s_b C
            ib = rows[b]
            yb, kb = st.y[ib], st.kself[ib]
            w_ab = yt * yb * k_row[b]  # w_ab = y_t y_b κ(x_t, x_b)
            la, lb = loss, 1.0 - F[b]  # ℓ_a = ℓ_t, ℓ_b = 1 − F_b
            gb_hat, Fb_old = gam[b], F[b]
            if nips:  # NIPS Algorithm 1
                ga = min(C, 1.0 / (1.0 - rho))
                d = min(Cb, gb_hat + 1.0 / (1.0 - rho)) - gb_hat
            elif solver in ("exact", "rand"):  # problem (1), exact (duol.md / duol-rand.md generic box QP)
                ga, d = box_qp_enumerate(la, lb, ka, kb, w_ab, 0.0, C, -gb_hat, Cb - gb_hat)
            elif solver == "appr":  # duol-appr.md: γ_t = min(C, 1/(1−ρ)), γ_b = min(C, γ̂_b + 1/(1−ρ))
                ga = min(C, 1.0 / (1.0 - rho))
                d = min(Cb, gb_hat + 1.0 / (1.0 - rho)) - gb_hat
            elif solver == "iter":  # duol-iter.md: one pass of coordinate ascent
                ga = _clip(la / ka, 0.0, C)
                d = _clip((lb - w_ab * ga) / kb, -gb_hat, Cb - gb_hat)
            else:
                raise ValueError(solver)
            gam[-1] = ga
            gam[b] = gb_hat + d
            events["ga=C" if ga == C else ("ga=0" if ga == 0 else "ga inside")] += 1
            events["d=hi" if d == Cb - gb_hat else ("d=lo" if d == -gb_hat else "d inside")] += 1
            events["degenerate"] += ka * kb == w_ab * w_ab
            # cache update for all i ∈ S (including t): F_i += y_i y_t γ_a κ(x_i,x_t) + y_i y_b d κ(x_i,x_b)
            for j, i in enumerate(rows):
                F[j] += st.y[i] * yt * ga * st.K[i, t] + st.y[i] * yb * d * st.K[i, ib]
            n_double += 1
            if mistake:  # duol.md counters, mistake rounds with a double update only
                if w_ab <= -rho and Fb_old <= 0.0 and Cb >= gb_hat + 1.0 / (1.0 - rho):
                    n_strong += 1
                elif w_ab <= -rho and Fb_old <= 1.0 + tol and Cb >= gb_hat + rho:
                    n_weak += 1
        else:  # step 6: single PA-I update (NIPS: min(C, 1))
            gt = min(C, 1.0) if nips else min(C, loss / ka)
            gam[-1] = gt
            for j, i in enumerate(rows):
                F[j] += st.y[i] * yt * gt * st.K[i, t]
        updates += 1
    coef = np.array([g * st.y[i] for g, i in zip(gam, rows)], float)
    diag = {"double_updates": n_double, "strong_double_updates": n_strong, "weak_double_updates": n_weak}
    res = RefResult(mistakes, updates, np.array(scores), rows, coef, st.X, st.kp, st.y, diagnostics=diag)
    res.gamma = np.array(gam, float)
    res.F = np.array(F, float)
    res.events = events
    return res


# ---------------------------------------------------------------------------------------------------------
# Online-SVM (dual coordinate ascent over the working set) (online-svm.md)
# ---------------------------------------------------------------------------------------------------------
def online_svm(X, y, C=5.0, tol=1e-3, working_set="margin", max_sweeps=1000, sample_weight=None, **kernel):
    st = _Stream(X, y, _kp(**kernel))
    sw = _weights(sample_weight, st.T)
    rows = []  # working set W, storage (= arrival) order
    gam = np.zeros(0)  # dual variables γ_s ∈ [0, s_s C] (online-svm.md#weights: the loss of example s weighs s_s C)
    g = np.zeros(0)  # margins g_s = y_s f(x_s)
    scores = []
    mistakes = updates = 0
    for t in range(st.T):
        yt = st.y[t]
        f = float(np.dot(gam * st.y[rows], st.K[rows, t])) if rows else 0.0
        scores.append(f)
        mistakes += predict_sign(f) != yt
        loss = max(0.0, 1.0 - yt * f)
        # "margin": W holds the examples that were margin errors on arrival; "all": every example
        if sw[t] == 0.0:  # options.md#weights: predicted and counted, not learned (never in the working set)
            continue
        if working_set == "all" or loss > 0:
            rows.append(t)
            gam = np.append(gam, 0.0)
            g = np.append(g, yt * f)
        if not loss > 0:  # ℓ_t = 0: the previous solution stays optimal
            continue
        ys = st.y[rows]
        changed = False
        for _sweep in range(max_sweeps):
            swept_change = False
            for i in range(len(rows)):  # sweep i = 1..|W| in storage order
                kii = st.kself[rows[i]]
                if kii <= ZERO_NORM:  # conventions.md#numerical-guards: zero-norm example, its γ cannot change f → skip
                    continue
                Ci = C * sw[rows[i]]  # the box of example rows[i]
                if (gam[i] < Ci and g[i] < 1.0 - tol) or (gam[i] > 0 and g[i] > 1.0 + tol):
                    delta = _clip((1.0 - g[i]) / kii, -gam[i], Ci - gam[i])
                    if delta != 0.0:
                        gam[i] += delta
                        g += ys * ys[i] * delta * st.K[rows, rows[i]]  # g_j += y_j y_i Δ κ_ij
                        swept_change = True
            changed |= swept_change
            if not swept_change:
                break
        updates += changed
    coef = gam * st.y[rows] if rows else np.zeros(0)
    res = RefResult(mistakes, updates, np.array(scores), rows, np.array(coef, float), st.X, st.kp, st.y)
    res.gamma = gam.copy()
    res.F = g.copy()
    return res


# ---------------------------------------------------------------------------------------------------------
# Registry: olkit name + params → reference call
# ---------------------------------------------------------------------------------------------------------
def run_reference(name, X, y, **params):
    """Run the reference of olkit learner ``name`` with olkit-style parameters."""
    p = dict(params)
    if "C" in p and p["C"] is None:
        p["C"] = 5.0  # C=None: the paper's binary setting (DUOL JMLR §5.1)
    if name == "perceptron":
        return perceptron(X, y, **p)
    if name in ("pa", "pa1", "pa2"):
        return pa(X, y, variant=name, **p)
    if name == "romma":
        return romma(X, y, aggressive=False, **p)
    if name == "agg-romma":
        return romma(X, y, aggressive=True, **p)
    if name == "alma":
        return alma(X, y, **p)
    if name == "duol":
        return duol(X, y, solver="exact", **p)
    if name == "duol-appr":
        return duol(X, y, solver="appr", **p)
    if name == "duol-iter":
        return duol(X, y, solver="iter", **p)
    if name == "duol-rand":
        return duol(X, y, solver="rand", **p)
    if name == "online-svm":
        return online_svm(X, y, **p)
    raise KeyError(name)


# ---------------------------------------------------------------------------------------------------------
# Random test streams (shared by the reference tests)
# ---------------------------------------------------------------------------------------------------------
LABEL_SETS = ((-1, 1), (0, 1), (2, 7))


def random_stream(seed, n, d, sparse=False, density=0.3, flip=0.1, label_set=(-1, 1), n_test=6):
    """A noisy linear rule: y = sign(x·u + 0.3 ε), 10 % of the labels flipped (mistakes and margin errors).

    Features ~ N(0, 1.5²/d) so that ‖x − z‖² is O(1) whatever d. Sparse streams keep each entry with
    probability ``density`` but never produce an all-zero row (a duplicate point makes a tie of exact
    arithmetic, see the tests) and are returned as CSR. Returns (X, y_raw, X_test).
    """
    rng = np.random.default_rng(seed)

    def draw(m):
        Z = rng.normal(size=(m, d)) * 1.5 / math.sqrt(d)
        if sparse:
            mask = rng.random((m, d)) < density
            for r in range(m):
                if not mask[r].any():
                    mask[r, rng.integers(d)] = True
            Z = Z * mask
        return Z

    X = draw(n)
    u = rng.normal(size=d)
    margin = X @ u + 0.3 * rng.normal(size=n)
    s = np.where(margin >= 0, 1, -1)
    s = np.where(rng.random(n) < flip, -s, s)
    s[0], s[1] = -1, 1  # both classes present
    lo, hi = label_set
    y = np.where(s > 0, hi, lo)
    Xt = draw(n_test)
    if sparse:
        return sp.csr_matrix(X), y, sp.csr_matrix(Xt)
    return X, y, Xt
