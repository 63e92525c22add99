"""Slow, readable reference implementations of the linear online learners (docs/algorithms/conventions.md,
the algorithm pages of docs/algorithms/ and docs/algorithms/linear-family.md).

Written from the text of the specification (now the pages under ``docs/algorithms/``) and the conventions
fixed for olkit's linear learners (listed below), *not* from olkit's code: the point is an independent
second reading of the specification. Nothing here imports olkit.

One plain loop over the stream, one round at a time:

    score with the model of round t−1  →  predict / count  →  trigger?  →  update.

Conventions (docs/algorithms/conventions.md and the settled olkit choices):

* Binary (2 classes): the smallest raw label → −1, the other → +1. f = w·x, ŷ = +1 iff f ≥ 0
  (conventions.md), margin m = y f, recorded score f.
* Multiclass (≥ 3 classes, index r in sorted-label order): f_r = w_r·x, ŷ = argmax_r f_r (ties → smallest
  index), s = argmax_{r≠y} f_r (ties → smallest index), m = f_y − f_s, recorded scores f (one per class).
* Every rule is written once, in the joint feature space of linear-family.md#multiclass: the model is a
  matrix W (n_out × d), the example enters through Δ (n_out × d) with Δ = [y x] (binary, n_out = 1) or
  Δ_y = x, Δ_s = −x, other rows 0 (multiclass). Then m = ⟨W, Δ⟩, ‖Δ‖² = ‖x‖² (binary) or 2‖x‖²
  (multiclass), and a step is W += α Δ.
  Second-order learners keep one covariance per output row (block-diagonal Σ, linear-family.md#multiclass):
  v = Σ_r Δ_rᵀ Σ_r Δ_r, μ_r += α Σ_r Δ_r, Σ_r ← Σ_r − β Σ_r Δ_r Δ_rᵀ Σ_r (full) or
  Σ_r,jj ← Σ_r,jj/(1 + c Σ_r,jj Δ_rj²) (diagonal, linear-family.md), for the touched rows r (binary: 0;
  multiclass: y, s). IELLIP's division by (1 − c) applies to the whole joint Σ, i.e. also to the blocks of
  the classes not in the round.
* ALMA multiclass: Δ̂ = e_y⊗x̂ − e_s⊗x̂ (x normalised, not Δ; ‖Δ̂‖² = 2), projection of the whole W.
* SOP: coef = A⁻¹v, cov = A⁻¹, and the final model's decision function is SOP's own prediction rule
  (A + xxᵀ)⁻¹v·x on each new x.
* Guards (docs/algorithms/linear-family.md#numerical-guards): ‖Δ‖² ≤ 1e-12 skips first-order steps (PA,
  ROMMA, ALMA under compat="none"); v ≤ 1e-12 skips second-order steps; square roots of rounding residues
  are clamped at 0.
* #updates: compat="none" → rounds in which the model (W/μ, Σ, SOP's v and A) changed, found by comparing
  the arrays before and after the round; compat="libol" → rounds in which the trigger fired (LIBOL's loss
  l_t > 0, docs/algorithms/linear-family.md#counting-updates), even when the step was degenerate.
"""

import math
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np
import scipy.sparse as sp

ZERO = 1e-12  # guard on ‖Δ‖² (first order) and v = ΔᵀΣΔ (second order)
ROMMA_EPS = 1e-12  # romma.md: D ≤ 1e-12·‖x‖²‖w‖² → skip
NEAR_TIE = 1e-9  # a trigger quantity this close to 0 (relative) is decided by rounding: counted in events

FIRST_ORDER = ("perceptron", "pa", "pa1", "pa2", "romma", "agg-romma", "alma")
SECOND_ORDER = ("sop", "cw", "cw-var", "iellip", "arow", "nherd", "narow", "scw1", "scw2")


@dataclass
class RefResult:
    mistakes: int
    flags: np.ndarray  # int8 per round, stream order
    n_updates: int
    scores: np.ndarray  # per-round score before the update (binary f, multiclass m), stream order
    coef: np.ndarray  # (n_out, d): w / μ (SOP: A⁻¹v)
    cov: np.ndarray = None  # full (n_out, d, d) / diagonal (n_out, d); None for first-order learners
    events: dict = field(default_factory=dict)
    decision: object = None  # f(x) of the final model on a dense row, when it is not coef·x (SOP)

    def decision_function(self, Xnew):
        Xnew = dense_rows(Xnew)
        if self.decision is not None:
            return np.array([self.decision(x) for x in Xnew])
        F = Xnew @ self.coef.T
        return F[:, 0] if F.shape[1] == 1 else F


def dense_rows(X):
    return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=float)


def phi_of(eta):
    """φ = Φ⁻¹(η) (cw.md)."""
    return NormalDist().inv_cdf(eta)


class _Problem:
    """Label coding (conventions.md, linear-family.md#multiclass) and the joint-feature quantities of one round."""

    def __init__(self, y_raw):
        y_raw = np.asarray(y_raw)
        self.classes = np.unique(y_raw)
        k = self.classes.size
        assert k >= 2
        self.binary = k == 2
        self.n_out = 1 if self.binary else k
        idx = np.searchsorted(self.classes, y_raw)
        self.y = np.where(idx == 1, 1.0, -1.0) if self.binary else idx

    def round(self, W, x, t):
        """Returns (score, mistake, y, Δ, touched rows)."""
        if self.binary:
            yt = self.y[t]
            f = float(W[0] @ x)
            y_hat = 1.0 if f >= 0 else -1.0  # conventions.md
            D = (yt * x)[None, :]
            return f, y_hat != yt, yt, D, [0]
        yt = int(self.y[t])
        f = W @ x
        y_hat = int(np.argmax(f))  # ties → smallest index
        g = f.copy()
        g[yt] = -np.inf
        s = int(np.argmax(g))  # best wrong class, ties → smallest index
        D = np.zeros_like(W)
        D[yt] = x  # Δ = e_y⊗x − e_s⊗x (linear-family.md)
        D[s] = -x
        return f, y_hat != yt, yt, D, [yt, s]


# ---------------------------------------------------------------------------------------------------------
# First-order learners (perceptron.md, pa*.md, romma.md, agg-romma.md, alma.md with the linear kernel),
# multiclass through Δ (docs/algorithms/linear-family.md#multiclass)
# ---------------------------------------------------------------------------------------------------------
def first_order(
    name,
    X,
    y_raw,
    order,
    compat="none",
    C=None,
    alpha=0.9,
    C_alma=math.sqrt(2.0),
    p=2,
    romma_reset_case=False,
    alma_delta="x-hat",
    sample_weight=None,
):
    # alma_delta: "x-hat" (Δ built from x̂, the olkit convention) or "unit" (Δ/‖Δ‖, an alternative reading)
    P = _Problem(y_raw)
    X = X[order]
    ys = np.asarray(order)
    T, d = X.shape
    # the weight of each round (options.md#weights; None: every weight 1), in stream order
    sw = np.ones(T) if sample_weight is None else np.asarray(sample_weight, float)[ys]
    W = np.zeros((P.n_out, d))
    scores, flags = [], []
    upd_none = upd_libol = 0
    k = 1  # ALMA update counter (alma.md), starts at 1
    B = 1.0 / alpha  # alma.md: B = 1/α
    events = {"resets": 0, "parallel_skips": 0, "near_ties": 0}
    for t in range(T):
        x = X[t]
        xin = x
        if name == "alma" and compat != "libol":
            nx2 = float(x @ x)
            xin = x / math.sqrt(nx2) if nx2 > ZERO else np.zeros_like(x)  # alma.md: x̂ = x/‖x‖
        score, mistake, yt, D, _ = P.round(W, xin, ys[t])
        scores.append(score)
        flags.append(int(mistake))
        m = float(np.sum(W * D))  # m = y f (binary) / f_y − f_s (multiclass)
        kap = float(np.sum(D * D))  # ‖Δ‖² = ‖x‖² or 2‖x‖²
        W_old = W.copy()
        fired = False
        s = sw[t]
        if s == 0.0:  # options.md#weights: predicted and counted, not learned
            pass
        elif name == "perceptron":
            # perceptron.md: update iff ŷ ≠ y: w += y x   (multiclass: w_y += x, w_s −= x); perceptron.md#weights:
            # the step is s
            if mistake:
                fired = True
                W = W + s * D
        elif name in ("pa", "pa1", "pa2"):
            # pa.md, pa1.md, pa2.md: update iff ℓ = 1 − m > 0
            loss = max(0.0, 1.0 - m)
            if loss > 0:
                fired = True
                if kap > ZERO:  # guard κ_t = 0 → skip
                    Ct = s * C if C is not None else None  # pa1.md#weights, pa2.md#weights: C_t = s C (PA: no C)
                    if name == "pa":
                        tau = loss / kap  # τ = ℓ/κ
                    elif name == "pa1":
                        tau = min(Ct, loss / kap)  # τ = min(C_t, ℓ/κ)
                    else:
                        tau = loss / (kap + 1.0 / (2.0 * Ct))  # τ = ℓ/(κ + 1/(2C_t))
                    W = W + tau * D
        elif name in ("romma", "agg-romma"):
            # romma.md (ROMMA: update iff mistake) / agg-romma.md (iff m < 1), in the joint space
            wants = mistake if name == "romma" else (m < 1.0)
            if wants:
                fired = True
                N2 = float(np.sum(W * W))  # ‖w‖² computed directly
                A = kap * N2
                if kap <= ZERO:
                    if compat == "libol" and N2 == 0.0:
                        W = W + D  # LIBOL's w ← w + y x (here x = 0: no change)
                elif N2 == 0.0:
                    if compat == "libol":
                        W = W + D  # romma.md, compat="libol": w ← w + y x
                    else:
                        W = D / kap  # romma.md: w ← y x/‖x‖²
                elif name == "agg-romma" and romma_reset_case and m >= A:  # an explicit request wins over compat
                    W = D / kap  # agg-romma.md reset case: only the margin constraint active
                    events["resets"] += 1
                else:
                    Dd = A - m * m  # D = ‖x‖²‖w‖² − f²
                    if Dd <= ROMMA_EPS * A:
                        events["parallel_skips"] += 1  # x ∥ w: skip
                    else:
                        c = (A - m) / Dd  # c = (A − y f)/D
                        dd = N2 * (1.0 - m) / Dd  # d = N2(y − f)/D, times y: the step is d·Δ
                        W = c * W + dd * D
        elif name == "alma":
            # alma.md (p = 2): γ_k = B/√k, η_k = C/√k; update iff m ≤ (1 − α)γ_k
            gamma_k = B / math.sqrt(k)
            eta_k = C_alma / math.sqrt(k) * s  # alma.md#weights: the step η_k s
            if m <= (1.0 - alpha) * gamma_k:
                fired = True
                if compat == "libol" or kap > ZERO:
                    Dh = D if alma_delta == "x-hat" else D / math.sqrt(kap)
                    Wp = W + eta_k * Dh  # w' = w + η_k y x̂
                    nrm = math.sqrt(float(np.sum(Wp * Wp)))
                    W = Wp / max(1.0, nrm)  # w ← w'/max(1, ‖w'‖)
                    k += 1  # k counts updates
        else:
            raise ValueError(name)
        if name in ("pa", "pa1", "pa2", "agg-romma"):
            events["near_ties"] += abs(1.0 - m) <= NEAR_TIE
        upd_libol += fired
        upd_none += bool(np.any(W != W_old))
        assert np.all(np.isfinite(W))
    flags = np.array(flags, np.int8)
    return RefResult(
        int(flags.sum()), flags, upd_libol if compat == "libol" else upd_none, np.array(scores), W, None, events
    )


# ---------------------------------------------------------------------------------------------------------
# SOP, docs/algorithms/sop.md (binary only)
# ---------------------------------------------------------------------------------------------------------
def sop(X, y_raw, order, a=1.0, covariance="full", compat="none", sample_weight=None):
    """``sample_weight``: the weight s of each example (indexed like y_raw; None: all 1), sop.md#weights: the example
    counts s times in v and A (v += s y x, A += s x xᵀ); weight 0 is predicted, not learned."""
    P = _Problem(y_raw)
    if not P.binary:
        raise ValueError("sop is binary-only")
    X = X[order]
    ys = np.asarray(order)
    T, d = X.shape
    full = covariance == "full"
    v = np.zeros(d)  # Σ over mistakes of y x
    A = a * np.eye(d) if full else np.full(d, float(a))  # A = aI + Σ x xᵀ
    scores, flags = [], []
    upd_none = upd_libol = 0
    for t in range(T):
        x = X[t]
        yt = P.y[ys[t]]
        if full:
            w_t = np.linalg.solve(A + np.outer(x, x), v)  # w_t = (A + x xᵀ)⁻¹ v
            f = float(w_t @ x)
        else:
            f = float(np.sum(v * x / (A + x * x)))  # diag(A + x∘x)⁻¹
        y_hat = 1.0 if f >= 0 else -1.0
        mistake = y_hat != yt
        scores.append(f)
        flags.append(int(mistake))
        s = 1.0 if sample_weight is None else float(sample_weight[ys[t]])
        if s == 0.0:
            continue  # options.md#weights: predicted and counted, not learned
        v_old, A_old = v.copy(), A.copy()
        xx = s * (np.outer(x, x) if full else x * x)  # sop.md#weights: s copies of x xᵀ
        if compat == "libol":
            A = A + xx  # sop.md#compat-modes: LIBOL commits on every round
            if mistake:
                v = v + s * yt * x
        elif mistake:
            v = v + s * yt * x  # sop.md: v += y x; A ← A + x xᵀ (weighted: s times)
            A = A + xx
        upd_libol += mistake
        upd_none += bool(np.any(v != v_old) or np.any(A != A_old))
    flags = np.array(flags, np.int8)
    coef = (np.linalg.solve(A, v) if full else v / A)[None, :]  # coef_ = A⁻¹v
    cov = (np.linalg.inv(A) if full else 1.0 / A)[None]  # covariance_ = A⁻¹

    def decision(x):
        """SOP's own prediction on a new x: (A + xxᵀ)⁻¹v · x (diagonal: Σ_j v_j x_j/(A_jj + x_j²))."""
        if full:
            return float(x @ np.linalg.solve(A + np.outer(x, x), v))
        return float(np.sum(v * x / (A + x * x)))

    return RefResult(
        int(flags.sum()), flags, upd_libol if compat == "libol" else upd_none, np.array(scores), coef, cov, {}, decision
    )


# ---------------------------------------------------------------------------------------------------------
# Gaussian-weight learners (μ, Σ), docs/algorithms/{cw-var,cw,iellip,arow,nherd,narow,scw1,scw2}.md,
# multiclass with block-diagonal Σ (docs/algorithms/linear-family.md#multiclass)
# ---------------------------------------------------------------------------------------------------------
def second_order(
    name,
    X,
    y_raw,
    order,
    covariance="full",
    compat="none",
    a=1.0,
    eta=None,
    C=None,
    r=1.0,
    b=None,
    c=0.1,
    diagonal="project",
    sample_weight=None,
):
    """``sample_weight``: the weight s of each example (indexed like y_raw; None: all 1), each page's section Weights:
    CW, CW-var on/off; SCW-I/II and NHERD C → sC; AROW r → r/s, NAROW r_t → r_t/s; IELLIP's precision
    (1 − c)Σ⁻¹ + s c ggᵀ. Weight 0: predicted and counted, not learned (IELLIP's c still decays)."""
    P = _Problem(y_raw)
    X = X[order]
    ys = np.asarray(order)
    T, d = X.shape
    full = covariance == "full"
    mu = np.zeros((P.n_out, d))
    S = np.array([a * np.eye(d) for _ in range(P.n_out)]) if full else np.full((P.n_out, d), float(a))
    if name in ("cw", "cw-var", "scw1", "scw2"):
        phi = phi_of(eta)
        psi = 1.0 + phi * phi / 2.0  # ψ = 1 + φ²/2
        zeta = 1.0 + phi * phi  # ζ = 1 + φ²
    c_t = c  # IELLIP: c_t = c·b^(t−1) at round t
    # cw.md#degenerate-rounds: CW and CW-var step on every v > 0 with a diagonal Σ (v a sum of non-negative
    # terms); a full Σ's v carries the rounding of its downdates, so there (and for the others) v ≤ 1e-12 is none
    v_floor = 0.0 if name in ("cw", "cw-var") and not full else ZERO
    scores, flags = [], []
    upd_none = upd_libol = 0
    events = {"alpha_capped": 0, "near_ties": 0}
    for t in range(T):
        x = X[t]
        score, mistake, yt, D, touched = P.round(mu, x, ys[t])
        scores.append(score)
        flags.append(int(mistake))
        s = 1.0 if sample_weight is None else float(sample_weight[ys[t]])
        if s == 0.0:  # options.md#weights: predicted and counted, not learned; a schedule by round moves on
            if name == "iellip":
                c_t = c_t * b
            continue
        Cs = None if C is None else s * C  # scw1.md, scw2.md, nherd.md#weights: C → sC
        m = float(np.sum(mu * D))
        if full:
            SD = np.array([S[q] @ D[q] for q in range(P.n_out)])  # Σ_r Δ_r
        else:
            SD = S * D
        v = float(np.sum(D * SD))  # v = Σ_r Δ_rᵀ Σ_r Δ_r
        mu_old, S_old = mu.copy(), S.copy()
        fired = False
        alpha = beta = cdiag = 0.0
        diag_rule = "inverse"
        if name == "cw-var":
            # cw-var.md: update iff m < φ v
            if m < phi * v:
                fired = True
                if v > v_floor:
                    disc = (1.0 + 2.0 * phi * m) ** 2 - 8.0 * phi * (m - phi * v)
                    alpha = (-(1.0 + 2.0 * phi * m) + math.sqrt(max(disc, 0.0))) / (4.0 * phi * v)
                    cdiag = 2.0 * alpha * phi
                    beta = cdiag / (1.0 + cdiag * v)
        elif name in ("cw", "scw1", "scw2"):
            # cw.md / scw1.md / scw2.md: update iff ℓ^φ = φ√v − m > 0
            if phi * math.sqrt(max(v, 0.0)) - m > 0:
                fired = True
                if v > v_floor:
                    if name == "scw2":
                        n = v + 1.0 / (2.0 * Cs)  # n = v + 1/(2C)
                        if compat == "libol":
                            # scw2.md#compat-modes: LIBOL SCW2.m literally
                            gamma = math.sqrt(
                                max(phi**4 * m * m * v * 2.0 + 4.0 * n * v * phi * phi * (n + v * phi * 2.0), 0.0)
                            )
                        else:
                            gamma = phi * math.sqrt(
                                max(phi * phi * m * m * v * v + 4.0 * n * v * (n + v * phi * phi), 0.0)
                            )
                        alpha = max(
                            0.0, (-(2.0 * m * n + phi * phi * m * v) + gamma) / (2.0 * (n * n + n * v * phi * phi))
                        )
                    else:
                        alpha = max(
                            0.0,
                            (-m * psi + math.sqrt(max(m * m * phi**4 / 4.0 + v * phi * phi * zeta, 0.0))) / (v * zeta),
                        )
                        if name == "scw1" and alpha > Cs:
                            alpha = Cs  # scw1.md: α = min{C, …}
                            events["alpha_capped"] += 1
                    t_ = alpha * v * phi
                    w_ = -t_ + math.sqrt(max(t_ * t_ + 4.0 * v, 0.0))  # √u = w/2, u = ¼(−αvφ + sqrt(…))²
                    if math.isfinite(w_) and w_ >= 2.0**-20 * t_:
                        u = 0.25 * w_**2
                        beta = alpha * phi / (math.sqrt(u) + v * alpha * phi)
                        cdiag = alpha * phi / math.sqrt(u) if u > 0 else 0.0
                    else:  # w cancelled (cw.md, numerics): c = 2p(p + sqrt(p² + 1/v)), p = αφ/2; β = c/(1 + cv)
                        p_ = 0.5 * alpha * phi
                        cdiag = 2.0 * p_ * (p_ + math.hypot(p_, 1.0 / math.sqrt(v)))
                        beta = cdiag / (1.0 + cdiag * v)
        elif name == "arow":
            # arow.md: update iff ℓ = 1 − m > 0; β = 1/(v + r), α = ℓβ; diagonal c = 1/r
            loss = max(0.0, 1.0 - m)
            if loss > 0:
                fired = True
                if v > ZERO:
                    r_s = r / s  # arow.md#weights: r → r/s
                    beta = 1.0 / (v + r_s)
                    alpha = loss * beta
                    cdiag = 1.0 / r_s
        elif name == "narow":
            # narow.md: update iff 1 − m > 0; if v > 1/b: r_t = v/(bv − 1), AROW step with r_t; else none
            loss = max(0.0, 1.0 - m)
            if loss > 0:
                fired = True
                if v > ZERO and v > 1.0 / b:
                    r_t = v / (b * v - 1.0) / s  # narow.md#weights: r_t → r_t/s
                    beta = 1.0 / (v + r_t)
                    alpha = loss * beta
                    cdiag = 1.0 / r_t
        elif name == "nherd":
            # nherd.md: update iff 1 − m > 0; α = ℓ/(v + 1/C)
            loss = max(0.0, 1.0 - m)
            if loss > 0:
                fired = True
                if v > ZERO:
                    alpha = loss / (v + 1.0 / Cs)
                    beta = (Cs * Cs * v + 2.0 * Cs) / (1.0 + Cs * v) ** 2  # full
                    cdiag = Cs * Cs * v + 2.0 * Cs  # diag-project
                    diag_rule = {"project": "inverse", "exact": "nherd-exact", "drop": "nherd-drop"}[diagonal]
        elif name == "iellip":
            # iellip.md: on a mistake with v > 0 (guard v > 1e-12)
            if mistake:
                fired = True
                if v > ZERO:
                    al = (1.0 - m) / math.sqrt(v)  # α = (1 − m)/√v
                    G = D / math.sqrt(v)  # g = y x/√v
                    if full:
                        SG = np.array([S[q] @ G[q] for q in range(P.n_out)])
                    else:
                        SG = S * G
                    mu = mu + al * SG  # w += α Σ g
                    # Σ ← (Σ − c Σ g gᵀ Σ)/(1 − c) on the joint (block-diagonal) Σ (iellip.md): the blocks of
                    # the classes not in the round (multiclass) are divided by (1 − c) too
                    # iellip.md#weights: Σ'⁻¹ = (1 − c)Σ⁻¹ + s c g gᵀ; with gᵀΣg = 1 (Sherman–Morrison)
                    # Σ' = (Σ − s c/(1 − c + s c) Σ g gᵀ Σ)/(1 − c)
                    bs = s * c_t / (1.0 - c_t + s * c_t)
                    for q in range(P.n_out):
                        if q not in touched:
                            S[q] = S[q] / (1.0 - c_t)
                        elif full:
                            S[q] = (S[q] - bs * np.outer(SG[q], SG[q])) / (1.0 - c_t)
                        else:  # Σ_jj ← Σ_jj/((1−c) + s c Σ_jj g_j²)
                            S[q] = S[q] / ((1.0 - c_t) + s * c_t * S[q] * G[q] ** 2)
            c_t = c_t * b  # c decays after every round
        else:
            raise ValueError(name)
        if not all(math.isfinite(z) for z in (alpha, beta, cdiag)):  # cw.md#degenerate-rounds: not representable
            alpha = beta = 0.0
        if name != "iellip" and fired and v > v_floor and (alpha != 0.0 or beta != 0.0):
            mu = mu + alpha * SD  # μ_r += α Σ_r Δ_r (old Σ)
            for q in touched:
                if full:
                    S[q] = S[q] - beta * np.outer(SD[q], SD[q])  # Σ ← Σ − β Σ Δ Δᵀ Σ
                elif diag_rule == "inverse":
                    S[q] = S[q] / (1.0 + cdiag * S[q] * D[q] ** 2)  # Σ_jj/(1 + c Σ_jj Δ_j²)
                elif diag_rule == "nherd-exact":
                    S[q] = S[q] / (1.0 + Cs * D[q] ** 2 * S[q]) ** 2  # Σ_jj/(1 + C x_j² Σ_jj)²
                elif diag_rule == "nherd-drop":
                    S[q] = S[q] - (S[q] * D[q]) ** 2 * (Cs * Cs * v + 2.0 * Cs) / (1.0 + Cs * v) ** 2
        if name in ("cw", "scw1", "scw2"):
            q, scale = phi * math.sqrt(max(v, 0.0)) - m, abs(m) + phi * math.sqrt(max(v, 0.0))
        elif name == "cw-var":
            q, scale = phi * v - m, abs(m) + phi * v
        elif name in ("arow", "narow", "nherd"):
            q, scale = 1.0 - m, 1.0
        else:
            q, scale = 1.0, 0.0
        events["near_ties"] += 0 < scale and abs(q) <= NEAR_TIE * scale  # decided by rounding
        upd_libol += fired
        upd_none += bool(np.any(mu != mu_old) or np.any(S != S_old))
        assert np.all(np.isfinite(mu)) and np.all(np.isfinite(S))
    flags = np.array(flags, np.int8)
    return RefResult(
        int(flags.sum()), flags, upd_libol if compat == "libol" else upd_none, np.array(scores), mu, S, events
    )


# olkit defaults (docs/algorithms/linear-family.md#libol-defaults / the olkit conventions)
DEFAULTS = {
    "cw": {"eta": 0.7, "a": 1.0},
    "cw-var": {"eta": 0.7, "a": 1.0},
    "iellip": {"a": 1.0, "b": 0.3, "c": 0.1},
    "arow": {"r": 1.0, "a": 1.0},
    "nherd": {"C": 1.0, "a": 1.0, "diagonal": "project"},
    "narow": {"b": 1.0, "a": 1.0},
    "scw1": {"eta": 0.75, "C": 1.0, "a": 1.0},
    "scw2": {"eta": 0.9, "C": 1.0, "a": 1.0},
    "sop": {"a": 1.0},
}


def run_linear_reference(name, X_dense, y_raw, order=None, **params):
    """Run the reference learner ``name`` (olkit names and parameters) over X[order]; returns RefResult.

    ``kernel``/``seed`` parameters are accepted and ignored (first-order learners take kernel="linear").
    """
    X = dense_rows(X_dense)
    y_raw = np.asarray(y_raw)
    if order is None:
        order = np.arange(X.shape[0])
    order = np.asarray(order, dtype=np.int64)
    params = dict(params)
    params.pop("kernel", None)
    params.pop("seed", None)
    compat = params.pop("compat", "none")
    if name in FIRST_ORDER:
        if name == "alma":
            if "C" in params:
                params["C_alma"] = params.pop("C")
        elif name in ("pa1", "pa2"):
            if params.get("C") is None:
                params["C"] = 1.0 if compat == "libol" else 5.0
        return first_order(name, X, y_raw, order, compat=compat, **params)
    if name in SECOND_ORDER:
        full = dict(DEFAULTS[name])
        full.update(params)
        if name == "sop":
            return sop(X, y_raw, order, compat=compat, **full)
        return second_order(name, X, y_raw, order, compat=compat, **full)
    raise ValueError(f"unknown learner {name!r}")


# ---------------------------------------------------------------------------------------------------------
# Random streams
# ---------------------------------------------------------------------------------------------------------
def random_stream(
    seed,
    n,
    d,
    n_classes=2,
    sparse=False,
    density=0.4,
    flip=0.1,
    zero_frac=0.0,
    scale=1.0,
    label_set=None,
    one_feature=False,
    n_test=6,
):
    """A noisy linear rule. Binary: y = sign(x·u + 0.3ε); multiclass: y = argmax_r (x·u_r + 0.3ε_r); a
    fraction ``flip`` of the labels replaced by another class. Features ~ scale·N(0, 1.5²/d).
    ``sparse``: each entry kept with probability ``density`` but at least two per row, returned as CSR (a
    row with one non-zero is parallel to every such row on the same feature: after an update whose
    constraint is active — PA, agg-ROMMA, CW, SCW-I, CW-var — a later parallel row can sit exactly on the
    trigger boundary, where the last bit decides whether it updates);
    ``zero_frac``: that fraction of rows (never rows 0..k−1) set to exactly 0; ``one_feature``: exactly one
    non-zero entry per row. Every class occurs. Returns (X, y_raw, X_test).
    """
    rng = np.random.default_rng(seed)
    k = n_classes

    def draw(m):
        Z = rng.normal(size=(m, d)) * 1.5 * scale / math.sqrt(d)
        if one_feature:
            mask = np.zeros((m, d), bool)
            mask[np.arange(m), rng.integers(d, size=m)] = True
            Z = Z * mask * math.sqrt(d)
        elif sparse:
            mask = rng.random((m, d)) < density
            for i in range(m):
                while mask[i].sum() < min(2, d):
                    mask[i, rng.integers(d)] = True
            Z = Z * mask
        return Z

    X = draw(n)
    if k == 2:
        u = rng.normal(size=d)
        s = (X @ u + 0.3 * scale * rng.normal(size=n) >= 0).astype(int)
    else:
        U = rng.normal(size=(k, d))
        s = np.argmax(X @ U.T + 0.3 * scale * rng.normal(size=(n, k)), axis=1)
    flipped = rng.random(n) < flip
    s = np.where(flipped, (s + rng.integers(1, k, size=n)) % k, s)
    s[:k] = rng.permutation(k)  # every class present
    if zero_frac > 0:
        zero = rng.random(n) < zero_frac
        zero[:k] = False
        X[zero] = 0.0
    if label_set is None:
        label_set = tuple(range(k))
    y = np.asarray(label_set)[s]
    Xt = draw(n_test)
    if sparse:
        return sp.csr_matrix(X), y, sp.csr_matrix(Xt)
    return X, y, Xt
