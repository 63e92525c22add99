"""Slow, literal references of the budgeted kernel learners (docs/algorithms/avp.md … bogdpp.md, lifted by
docs/algorithms/multiclass.md#budgeted-learners).

Written from the text of the specification pages (docs/algorithms/<name>.md, their update-rule and multiclass
sections) — *not* from olkit's code; nothing
here imports olkit. Every learner is one plain loop over the stream:

    F(x_t) = Σ_i A_i κ(x_i, x_t) with the model of round t−1  →  predict / count  →  update,

with every stored point's coefficient row A_i kept explicitly, in **arrival order** (a kept SV keeps its
place, a new SV goes last; "oldest", "k-th SV" and cumulative sums over SVs all use this order).

One code path for binary and multiclass data (docs/algorithms/multiclass.md#budgeted-learners):

* binary (labels ±1): K' = 1, row A_i = (α_i), direction D_t = (y_t), margin m_t = y_t f(x_t), c_D = 1,
  ŷ_t = +1 iff f ≥ 0 (docs/algorithms/conventions.md#ties);
* multiclass (labels 0..K−1, K ≥ 3): K' = K, ŷ_t = argmax F (ties → smallest index), s_t = argmax_{s≠y_t} F_s
  (ties → smallest index), D_t = H_t = e_{y_t} − e_{s_t}, m_t = Γ_t = F_{y_t} − F_{s_t}, c_D = 2.

A counted mistake is ŷ_t ≠ y_t. Scores recorded are F(x_t) before the round's update. #SV = stored rows that
are not all zero at the end; #updates as defined per learner. Random draws: SplitMix64 seeded with ``seed``
(the same generator as ``reference.kernel_binary.SplitMix64``), ``uniform()`` = (z >> 11)·2⁻⁵³,
``index(n)`` = min(⌊uniform()·n⌋, n − 1), drawn only where stated.

Kernel values are explicit pair-wise evaluations over the stream, computed once into a T×T table
(``G[s, t] = κ(x_s, x_t)``; integer features make ‖x_s − x_t‖² exact; κ(x, x) = 1).

Readings where the text leaves room (the specification pages win over any summary):

* BOGD (docs/algorithms/bogd.md#update-rule): the clip |A_i[r]| ≤ ηγ is applied on budget rounds only (append,
  then enforce the bound), after the append (the new row is clipped too); rows appended while |S| < B are not clipped.
* BOGD++ (docs/algorithms/bogdpp.md#update-rule): on a budget round the kept rows are rescaled by (1 − ηλ)/(1 −
  p_i), *then* clipped, and ηD_t is appended after the clip (binary and multiclass alike): the new row is not
  clipped. ``clip_new=True`` gives BOGD's order (append, then clip every row); the two differ only when γ < 1. p is
  computed from the rows before the decay (p is scale-free); the (1 − ηλ) decay of that round is the one inside the
  rescale, not applied a second time (unlike AHP's R code, docs/algorithms/bogdpp.md#ahp-r).
* Projectron (docs/algorithms/projectron.md): the first SV counts as an addition. Projectron++
  (docs/algorithms/projectronpp.md): N_Σ = c_D·max(κ_t − δ², 0), δ in the paper rule is the per-class residual, a
  margin round with N_Σ ≤ 1e-12 does not update.
* Ahpatron (docs/algorithms/ahpatron.md): ‖f_t‖ is the tracked norm before the round; if N = 0 the merged rows are
  left unscaled and ‖f̄‖² = N² (never reached on the test streams).
* Forgetron (docs/algorithms/forgetron.md): φ = −2c/(b + √max(b² − 4ac, 0)) is the root of g in (0, 1) in the
  cancellation-free form (the same root for a > 0, a = 0 and a < 0).

Exact-arithmetic ties — three places where floating point would otherwise decide what exact arithmetic decides (the
streams have many duplicate rows): (1) scores are exact sums of the products A_i[r]·κ(x_i, x_t) (``math.fsum``), so
duplicate SVs with opposite coefficients cancel to exactly 0 whatever their arrival order (then ŷ = +1 / the
smallest index, as docs/algorithms/conventions.md#ties says for f = 0); (2) Projectron's d* for a duplicate of an SV
is e_j and δ² = 0 exactly (``_project``), so a projection that cancels a coefficient leaves exactly 0; (3)
Projectron++'s margin test treats a loss within MARGIN_TIE of 0 as no margin error.

The invariants of docs/algorithms/budget-family.md#invariants are asserted inside the loop, every round: |S| ≤ B;
Σ_r A_i[r] = 0 for every multiclass row; the tracked ‖f‖² of AVP / Ahpatron equals tr(AᵀK_S A); ‖f‖ ≤ U; Ahpatron's
‖f̄_t‖ = ‖f_t‖ right after a halving's rescale and |S| = B/2 + 1 after the round; Forgetron φ ∈ (0, 1] and Q ≤
15M/32; Projectron's K⁻¹ is the inverse of K_S; BOGD(++) coefficients within ηγ after a clip; BOGD++'s p a
distribution.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .kernel_binary import SplitMix64

MARGIN_TIE = 1e-9
"""Exact-arithmetic ties (see the module docstring). Projectron++'s margin step τ = ℓ/N on a point x_t whose projection
residual is 0 (a duplicate of an SV) puts the margin of x_t at exactly 1 in exact arithmetic; when the same
point comes again with the same label its loss is 0, but in floating point it is a few ulps either way, and
the wrong sign takes a margin step of rounding size (and counts an update). A loss ℓ_t ≤ MARGIN_TIE·max(1,
scale of the scores) is no margin error — the rule of olkit's MIRA (``MARGIN_TIE`` in
``olkit/learners/kernel/mira.py``) and of ``reference.kernel_multiclass``. On the integer-feature test
streams no loss comes that close to 0 except by such a tie."""

LEARNERS = ("avp", "ahpatron", "projectron", "projectron++", "forgetron", "rbp", "bogd", "bogd++")


def gram(X, sigma):
    """T×T Gaussian table κ(x_s, x_t) = exp(−‖x_s − x_t‖²/(2σ²)) from the explicit differences."""
    X = np.asarray(X, float)
    T = len(X)
    G = np.empty((T, T))
    for i in range(T):
        G[i] = np.exp(-np.sum((X - X[i]) ** 2, axis=1) / (2.0 * sigma**2))
    return G


def argmax_first(f):
    """argmax with ties to the smallest index."""
    best = 0
    for c in range(1, len(f)):
        if f[c] > f[best]:
            best = c
    return best


def uniform(rng):
    """SplitMix64 uniform in [0, 1): (z >> 11)·2⁻⁵³."""
    return (rng.next_u64() >> 11) * 2.0**-53


def index(rng, n):
    """SplitMix64 uniform index in 0..n−1."""
    return min(math.floor(uniform(rng) * n), n - 1)


@dataclass
class BudgetRef:
    flags: np.ndarray  # per-round mistake flags (ŷ_t ≠ y_t)
    scores: np.ndarray  # per-round F(x_t) before the update: (T,) binary, (T, K) multiclass
    n_sv: int
    n_updates: int
    diagnostics: dict  # what olkit's ``clf.diagnostics()`` must report
    events: dict = field(default_factory=dict)  # case counters (which branches the stream reached)
    max_sv: int = 0  # largest |S| seen at the end of any round
    pts: list = field(default_factory=list)  # final SVs in arrival order: stream positions (0-based)
    rows: list = field(default_factory=list)  # … and their coefficient rows A_i


class Model:
    """The support set in arrival order: stream positions ``pts``, rows ``A`` (lists, index = arrival rank),
    per-SV label ``lab`` and competitor ``comp`` (multiclass H_i = e_lab − e_comp; binary lab = y_i)."""

    def __init__(self, G, Kp):
        self.G, self.Kp = G, Kp
        self.pts, self.A, self.lab, self.comp = [], [], [], []

    @property
    def n(self):
        return len(self.pts)

    def kvec(self, t):
        """k_t = (κ(x_i, x_t))_i over the SVs, arrival order."""
        return np.array([self.G[p, t] for p in self.pts])

    def score_at(self, t):
        """F(x_t) = Σ_i A_i κ(x_i, x_t): the products A_i[r]·κ(x_i, x_t) summed exactly (``math.fsum``, one
        rounding), so that terms that cancel in exact arithmetic — a duplicate SV with the opposite
        coefficient — cancel here too whatever their order (see EXACT_SUMS)."""
        return np.array(
            [math.fsum(self.A[i][r] * self.G[p, t] for i, p in enumerate(self.pts)) for r in range(self.Kp)]
        )

    def append(self, t, row, lab=0, comp=-1):
        self.pts.append(t)
        self.A.append(np.array(row, float))
        self.lab.append(lab)
        self.comp.append(comp)

    def delete(self, j):
        for lst in (self.pts, self.A, self.lab, self.comp):
            del lst[j]

    def scale(self, c):
        self.A = [a * c for a in self.A]

    def KS(self):
        return np.array([[self.G[p, q] for q in self.pts] for p in self.pts]).reshape(self.n, self.n)

    def norm2(self):
        """‖f‖² = tr(AᵀK_S A) (docs/algorithms/multiclass.md#budgeted-learners)."""
        if self.n == 0:
            return 0.0
        Am = np.array(self.A)
        return float(np.trace(Am.T @ self.KS() @ Am))

    def n_nonzero(self):
        return sum(1 for a in self.A if np.any(a != 0.0))


def _close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def run_reference(
    name, X, y, *, sigma, K=None, seed=0, fit_intercept=False, intercept_scaling=1.0, sample_weight=None, **params
):
    """Run budgeted learner ``name`` (one of LEARNERS) over the stream X (dense), y.

    ``K=None``: binary, y ∈ {−1, +1}; otherwise multiclass with labels 0..K−1 (K ≥ 3).
    ``params``: the learner's parameters with olkit's names (unset → the defaults of the brief).
    ``sample_weight``: the example weights s_t (None: all 1); each page's section *Weights*
    (docs/algorithms/avp.md#weights …): the step times s_t (AVP/Ahpatron λs_t, the Perceptrons' s_t, BOGD's ηs_t,
    the Projectron++ cap s_t, the Forgetron's M += s_t); a weight-0 round is predicted and recorded, nothing else.
    """
    if name not in LEARNERS:
        raise ValueError(name)
    X = np.asarray(X, float)
    y = np.asarray(y).astype(int)
    T = len(y)
    binary = K is None
    if binary:
        assert set(np.unique(y)) <= {-1, 1}
        Kp, cD = 1, 1.0
    else:
        assert K >= 3 and y.min() >= 0 and y.max() < K
        Kp, cD = K, 2.0
    G = gram(X, sigma) + (float(intercept_scaling) ** 2 if fit_intercept else 0.0)  # κ + c² (options.md)
    S = Model(G, Kp)
    rng = SplitMix64(seed)
    p = dict(params)

    # ---- parameters and their defaults
    B = p.pop("B", 600)
    if name == "avp":
        U = p.pop("U", math.inf)
        lam = p.pop("lam", None)
        lam = (1.0 if binary else 0.5) if lam is None else lam
        eps = p.pop("epsilon", 0.75)
        B = math.inf
    elif name == "ahpatron":
        U = p.pop("U", None)
        if U is None:
            U = math.sqrt(B) / 2 if binary else math.sqrt(B / 8)
        lam = p.pop("lam", None)
        if lam is None:
            lam = U / (2 * math.sqrt(B)) if binary else U / (2 * math.sqrt(2 * B))
        eps = p.pop("epsilon", 0.5)
        ridge = p.pop("eta", 0.0005)
        assert B % 2 == 0
    elif name in ("projectron", "projectron++"):
        eta = p.pop("eta", 0.9)
        squared = p.pop("threshold_on_squared", False)
        rule = p.pop("margin_rule", "dogma") if name == "projectron++" else None
        B = math.inf
    elif name in ("bogd", "bogd++"):
        eta = p.pop("eta", 0.5)
        reg = p.pop("lam", 1e-5)
        gamma = p.pop("gamma", 1.0)
        # BOGD++ budget round (docs/algorithms/bogdpp.md#update-rule): clip the kept rows and *then* append ηD_t;
        # clip_new=True clips after the append (BOGD's order).
        clip_new = p.pop("clip_new", name == "bogd")
    p.pop("seed", None)
    assert not p, f"unknown parameters {p}"

    flags, scores = [], []
    n_updates = 0
    ev = dict.fromkeys(
        [
            "projections",
            "additions",
            "margin_updates",
            "margin_rejected",
            "halvings",
            "n_T",
            "removals",
            "phi<1",
            "clips",
            "p_clamped",
            "scaled_to_U",
            "N=0",
            "ridge_tiny",
        ],
        0,
    )
    norm2 = 0.0  # tracked ‖f‖² (AVP, Ahpatron)
    Kinv = None  # Projectron(++) K_S⁻¹
    Q, M, phi_min = 0.0, 0, 1.0  # Forgetron
    max_sv = 0

    for t in range(T):
        yt = int(y[t])
        F = S.score_at(t)
        kt = G[t, t]
        if binary:
            f = F[0]
            yhat = 1 if f >= 0 else -1
            D = np.array([float(yt)])
            m = yt * f
            st = -1
            scores.append(f)
        else:
            yhat = argmax_first(F)
            st = argmax_first(np.where(np.arange(K) == yt, -np.inf, F))  # argmax over s ≠ y_t, ties → smallest
            D = np.zeros(K)
            D[yt], D[st] = 1.0, -1.0
            m = F[yt] - F[st]
            scores.append(F.copy())
        mistake = yhat != yt
        flags.append(int(mistake))
        s_t = 1.0 if sample_weight is None else float(sample_weight[t])
        lw = lam * s_t if name in ("avp", "ahpatron") else None

        if s_t == 0.0:
            pass  # weight 0: predicted and counted, not learned
        # ------------------------------------------------------------------ AVP
        elif name == "avp":
            if m < 1 - eps:
                S.append(t, lw * D, yt, st)
                norm2 += 2 * lw * m + cD * lw**2 * kt
                if math.sqrt(max(norm2, 0.0)) > U:
                    S.scale(U / math.sqrt(norm2))
                    norm2 = U * U
                    ev["scaled_to_U"] += 1
                n_updates += 1

        # ------------------------------------------------------------------ Ahpatron
        elif name == "ahpatron":
            if m < 1 - eps:
                n_updates += 1
                if m > 0:
                    ev["n_T"] += 1
                if S.n < B:
                    S.append(t, lw * D, yt, st)
                    norm2 += 2 * lw * m + cD * lw**2 * kt
                else:
                    # 1. split by ‖A_i‖₂: keep the B/2 largest, ties by arrival order; kept keep their order
                    w = [float(np.linalg.norm(a)) for a in S.A]
                    ranked = sorted(range(S.n), key=lambda i: (-w[i], i))
                    keep = sorted(ranked[: B // 2])
                    drop = sorted(ranked[B // 2 :])
                    K2 = np.array([[G[S.pts[i], S.pts[j]] for j in keep] for i in keep])
                    K21 = np.array([[G[S.pts[i], S.pts[j]] for j in drop] for i in keep])
                    A1 = np.array([S.A[j] for j in drop])
                    A2 = np.array([S.A[i] for i in keep])
                    # 2. Θ* = (K_2 + ηI)⁻¹ K_21 A_1 (eq. (9))
                    Theta = np.linalg.solve(K2 + ridge * np.eye(len(keep)), K21 @ A1)
                    # 3. A_2' = A_2 + Θ*, N = sqrt(tr(A_2'ᵀ K_2 A_2'))
                    A2p = A2 + Theta
                    N2 = float(np.trace(A2p.T @ K2 @ A2p))
                    N = math.sqrt(max(N2, 0.0))
                    # 4. rescale to the sphere of radius c_t U = ‖f_t‖ (tracked norm before the round)
                    f_norm = math.sqrt(max(norm2, 0.0))
                    if N > 0:
                        A2pp = (f_norm / N) * A2p
                        base2 = norm2
                    else:
                        A2pp = A2p
                        base2 = N2
                        ev["N=0"] += 1
                    keep_pts = [S.pts[i] for i in keep]
                    keep_lab = [S.lab[i] for i in keep]
                    keep_comp = [S.comp[i] for i in keep]
                    S.pts, S.A, S.lab, S.comp = keep_pts, [row.copy() for row in A2pp], keep_lab, keep_comp
                    ev["halvings"] += 1
                    if N > 0:  # invariant: ‖f̄_t‖ = c_t U = ‖f_t‖
                        assert _close(math.sqrt(max(S.norm2(), 0.0)), f_norm), (t, S.norm2(), norm2)
                    # 5. append λD_t with m̄ = D_t·F̄(x_t) of the new coefficients; project to U below
                    mbar = float(D @ S.score_at(t))
                    S.append(t, lw * D, yt, st)
                    norm2 = base2 + 2 * lw * mbar + cD * lw**2 * kt
                    assert S.n == B // 2 + 1
                if math.sqrt(max(norm2, 0.0)) > U:
                    S.scale(U / math.sqrt(norm2))
                    norm2 = U * U
                    ev["scaled_to_U"] += 1

        # ------------------------------------------------------------------ Projectron(++)
        elif name in ("projectron", "projectron++"):
            if m <= 0:
                n_updates += 1
                if S.n == 0:
                    S.append(t, s_t * D, yt, st)
                    Kinv = np.array([[1.0 / kt]])
                    ev["additions"] += 1
                else:
                    d, delta2 = _project(S, Kinv, t)
                    delta = math.sqrt(delta2)
                    if (delta2 <= eta) if squared else (delta <= eta):
                        for i in range(S.n):
                            S.A[i] = S.A[i] + d[i] * s_t * D
                        ev["projections"] += 1
                    else:
                        n0 = S.n
                        S.append(t, s_t * D, yt, st)
                        v = np.append(d, -1.0)
                        Kn = np.zeros((n0 + 1, n0 + 1))
                        Kn[:n0, :n0] = Kinv
                        Kinv = Kn + np.outer(v, v) / delta2
                        ev["additions"] += 1
                        # invariant: Kinv is the inverse of K_S (loose: K_S can be ill-conditioned)
                        resid = np.abs(Kinv @ S.KS() - np.eye(S.n)).max()
                        assert resid < 1e-6 * max(1.0, np.abs(Kinv).max()), (t, resid)
            elif name == "projectron++" and 1.0 - m > MARGIN_TIE * max(1.0, _scale(F, yt, st)) and S.n > 0:
                ell = 1.0 - m
                d, delta2 = _project(S, Kinv, t)
                delta = math.sqrt(delta2)
                N = cD * max(kt - delta2, 0.0)
                tau = None
                if N > 1e-12:
                    if rule == "dogma":
                        if ell - delta2 / eta > 0:
                            tau = min(ell / N, s_t, 2 * (ell - delta2 / eta) / N)
                    else:  # "paper"
                        tau_c = min(ell / N, s_t)
                        if tau_c * (2 * ell - tau_c * N - 2 * delta / eta) >= 0:
                            tau = tau_c
                if tau is not None:
                    for i in range(S.n):
                        S.A[i] = S.A[i] + tau * d[i] * D
                    ev["margin_updates"] += 1
                    n_updates += 1
                else:
                    ev["margin_rejected"] += 1

        # ------------------------------------------------------------------ Forgetron
        elif name == "forgetron":
            if m <= 0:
                n_updates += 1
                M += s_t
                S.append(t, s_t * D, yt, st)
                if S.n > B:
                    r = 0  # oldest SV
                    xr = S.pts[r]
                    Fp = S.score_at(xr)  # F'(x_r), the model after the append
                    if binary:
                        sig = abs(S.A[r][0])
                        mu = S.lab[r] * Fp[0]
                    else:
                        sig = abs(S.A[r][S.lab[r]])
                        mu = 0.5 * (Fp[S.lab[r]] - Fp[S.comp[r]])
                    a = sig * sig - 2 * sig * mu
                    b = 2 * sig
                    c = Q - 15.0 * M / 32.0
                    if a + b + c <= 0:
                        phi = 1.0
                    else:
                        phi = -2 * c / (b + math.sqrt(max(b * b - 4 * a * c, 0.0)))
                    assert 0 < phi <= 1, (t, phi)
                    S.scale(phi)
                    Q += (sig * phi) ** 2 + 2 * sig * phi - 2 * (sig * phi) * (phi * mu)
                    S.delete(r)
                    assert Q <= 15.0 * M / 32.0 + 1e-9, (t, Q, M)
                    ev["removals"] += 1
                    ev["phi<1"] += phi < 1
                    phi_min = min(phi_min, phi)

        # ------------------------------------------------------------------ RBP
        elif name == "rbp":
            if mistake:
                n_updates += 1
                if S.n == B:
                    S.delete(index(rng, B))
                    ev["removals"] += 1
                S.append(t, s_t * D, yt, st)

        # ------------------------------------------------------------------ BOGD
        elif name == "bogd":
            S.scale(1 - eta * reg)
            if m < 1:
                n_updates += 1
                if S.n < B:
                    S.append(t, eta * s_t * D, yt, st)
                else:
                    S.delete(index(rng, B))
                    ev["removals"] += 1
                    S.scale(B / (B - 1))
                    S.append(t, eta * s_t * D, yt, st)
                    ev["clips"] += _clip_rows(S.A, eta * gamma, range(S.n))

        # ------------------------------------------------------------------ BOGD++
        elif name == "bogd++":
            if m < 1 and S.n == B:
                w = np.array([float(np.linalg.norm(a)) * math.sqrt(G[q, q]) for a, q in zip(S.A, S.pts)])
                tot = float(w.sum())
                if tot == 0:
                    pr = np.full(B, 1.0 / B)
                else:
                    pr = 1 - (B - 1) / tot * w
                    if np.any(pr < 0):
                        pr = np.maximum(pr, 0.0)
                        pr = pr / pr.sum()
                        ev["p_clamped"] += 1
                assert np.all(pr >= 0) and abs(pr.sum() - 1) < 1e-9, pr
                u = uniform(rng)
                cum, j = 0.0, B - 1
                for i in range(B):
                    cum += pr[i]
                    if cum > u:
                        j = i
                        break
                decay = 1 - eta * reg
                S.A = [S.A[i] * decay / (1 - pr[i]) if i != j else S.A[i] for i in range(B)]
                S.delete(j)
                ev["removals"] += 1
                n_updates += 1
                if clip_new:
                    S.append(t, eta * s_t * D, yt, st)
                    ev["clips"] += _clip_rows(S.A, eta * gamma, range(S.n))
                else:
                    ev["clips"] += _clip_rows(S.A, eta * gamma, range(S.n))
                    S.append(t, eta * s_t * D, yt, st)
            else:
                S.scale(1 - eta * reg)
                if m < 1:
                    n_updates += 1
                    S.append(t, eta * s_t * D, yt, st)

        # ---- invariants, every round
        assert S.n <= B, (t, S.n, B)
        max_sv = max(max_sv, S.n)
        if not binary:
            for a in S.A:
                assert abs(a.sum()) <= 1e-9 * max(1.0, np.abs(a).max()), (t, a)
        if name in ("avp", "ahpatron"):
            exact = S.norm2()
            assert _close(norm2, exact), (t, norm2, exact)
            assert math.sqrt(max(norm2, 0.0)) <= U * (1 + 1e-12)

    if name == "avp":
        diag = {"projections": ev["scaled_to_U"], "norm": math.sqrt(max(norm2, 0.0))}
    elif name == "ahpatron":
        diag = {"n_T": ev["n_T"], "halvings": ev["halvings"], "norm": math.sqrt(max(norm2, 0.0))}
    elif name == "projectron":
        diag = {"projections": ev["projections"], "additions": ev["additions"]}
    elif name == "projectron++":
        diag = {"projections": ev["projections"], "additions": ev["additions"], "margin_updates": ev["margin_updates"]}
    elif name == "forgetron":
        diag = {"removals": ev["removals"], "Q": Q, "M": M, "phi_min": phi_min}
    elif name == "rbp":
        diag = {"removals": ev["removals"]}
    else:  # BOGD(++): also the number of entries changed by the clip
        diag = {"removals": ev["removals"], "clipped": ev["clips"]}
    return budget_result(flags, scores, S, n_updates, diag, ev, max_sv)


def _project(S, Kinv, t):
    """(d*, δ²): d* = K_S⁻¹k_t, δ² = max(κ_t − k_tᵀd*, 0) (docs/algorithms/projectron.md#update-rule). When x_t is a
    stored SV's input (a duplicate row), exact arithmetic gives d* = e_j and δ² = 0 (k_t is column j of K_S, K_S
    invertible):
    use that instead of the rounded product, so that a projection onto a duplicate cancels coefficients
    exactly, as the specification's arithmetic does (see the module docstring)."""
    for j, p in enumerate(S.pts):
        if np.array_equal(S.G[p], S.G[t]) and S.G[p, t] == S.G[t, t]:
            d = np.zeros(S.n)
            d[j] = 1.0
            return d, 0.0
    k = S.kvec(t)
    d = Kinv @ k
    return d, max(S.G[t, t] - float(k @ d), 0.0)


def _scale(F, yt, st):
    """Scale of the scores in the margin test: |f| (binary) or |F_y| + |F_s| (multiclass)."""
    return abs(F[0]) if st < 0 else abs(F[yt]) + abs(F[st])


def _clip_rows(A, bound, rows):
    """Clip entrywise |A_i[r]| ≤ bound (sign kept); returns the number of entries changed."""
    changed = 0
    for i in rows:
        over = np.abs(A[i]) > bound
        if np.any(over):
            changed += int(over.sum())
            A[i] = np.clip(A[i], -bound, bound)
        assert np.all(np.abs(A[i]) <= bound)
    return changed


# ---------------------------------------------------------------------------------------------------------
# Streams
# ---------------------------------------------------------------------------------------------------------
def stream(seed, n=70, K=4, d=3):
    """Integer features in {−2..2}^d, ~30 % rows repeating an earlier row (with the same or another label).

    K ≥ 3: y ∈ {0..K−1} from a noisy linear rule, the first K rounds see every class once (as
    ``reference.kernel_multiclass.stream``). K = 2: y ∈ {−1, +1} from a noisy linear rule, the first two
    rounds see both labels.
    """
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, d)).astype(float)
    dup = rng.random(n) < 0.3
    for t in np.flatnonzero(dup):
        if t > 0:
            X[t] = X[rng.integers(t)]
    score = X @ rng.normal(size=d) * 1.3 + rng.normal(size=n)
    if K == 2:
        y = np.where(score >= 0, 1, -1)
        y[:2] = [1, -1]
        return X, y
    y = score.round().astype(int) % K
    y[:K] = np.arange(K)
    return X, y


def budget_result(flags, scores, S, n_updates, diag, ev, max_sv):
    """The :class:`BudgetRef` of a finished run of model ``S``."""
    return BudgetRef(
        np.array(flags, dtype=int),
        np.array(scores),
        S.n_nonzero(),
        n_updates,
        diag,
        ev,
        max_sv,
        list(S.pts),
        [a.copy() for a in S.A],
    )
