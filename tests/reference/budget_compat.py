"""Slow, literal references of the budgeted learners' ``compat`` modes (docs/algorithms/budget-family.md#compat-modes
and the Compat modes section of each learner's page).

Written from the text of those pages and the reference files they name (read for
the facts only): the AHP authors' R scripts (alg4ml/Ahpatron ``Ahpatron.R``, ``Projectron.R``,
``Projectron++.R``, ``BOGD++.R``), Orabona's DOGMA (denizyuret/dogma ``k_projectron_train.m``,
``k_projectron2_train.m``, ``k_forgetron_st_train.m``, ``k_perceptron_train.m``,
``k_perceptron_multi_train.m``) and the Hoi group's LSOKL (jingcoco/Online-Kernel-Learning ``binary/`` and
``multiclass/`` ``projectron.m``, ``proplus.m``, ``forgetron.m``, ``BOGD.m``) — *not* from olkit's code;
nothing here imports olkit. The plain loop, the model in arrival order, the exact score sums, the SplitMix64
draws and the result record are those of :mod:`reference.budget` (imported, unchanged).

Each reference keeps its code's own round structure (what it counts as a mistake, when it updates), with
olkit's parameter names. Where a reference code would stop, divide by 0 or go complex, the reference takes
the documented olkit reading (each marked "olkit:" below) — streams in the tests avoid none of these except
the rounding-chaotic LSOKL Projectron case of docs/algorithms/budget-family.md#runs-not-expected-to-match (all kernel
values ≥ 0.98), which they do not contain.
Margin tests keep :data:`reference.budget.MARGIN_TIE` (a loss within 1e-9 of 0 is no margin error), as the
default references do: the codes' strict tests are decided by rounding noise there.

Kernel values: the Gaussian from the explicit differences (``reference.budget.gram``), or the polynomial
(x·z + coef0)^degree on the integer features (exact), to exercise the rules that take κ(x, x) as 1 (AHP R)
or reuse the first SV's κ(x, x) (LSOKL).
"""

import math

import numpy as np

from .budget import MARGIN_TIE, Model, SplitMix64, argmax_first, budget_result, gram, index, uniform

CASES = {
    ("ahpatron", "ahp-r"): ("binary",),
    ("projectron", "ahp-r"): ("binary",),
    ("projectron++", "ahp-r"): ("binary",),
    ("bogd++", "ahp-r"): ("binary",),
    ("projectron", "dogma"): ("binary", "multiclass"),
    ("projectron++", "dogma"): ("binary", "multiclass"),
    ("forgetron", "dogma"): ("binary",),
    ("rbp", "dogma"): ("binary", "multiclass"),
    ("projectron", "lsokl"): ("binary", "multiclass"),
    ("projectron++", "lsokl"): ("binary", "multiclass"),
    ("forgetron", "lsokl"): ("binary", "multiclass"),
    ("bogd", "lsokl"): ("binary", "multiclass"),
}
"""(learner, compat) → the data kinds its reference code handles."""


def kernel_table(X, kernel="gaussian", sigma=1.0, degree=2, coef0=1.0):
    """T×T table κ(x_s, x_t)."""
    if kernel == "gaussian":
        return gram(X, sigma)
    X = np.asarray(X, float)
    assert kernel == "poly"
    return (X @ X.T + coef0) ** degree


TIE = 1e-12
"""Relative size of a score difference that the order of a floating-point sum can decide (see ``fragile``)."""


def _robust(terms):
    """True if every order of summing ``terms`` gives the same (exact) value: at most one non-zero term, or two
    that cancel exactly."""
    nz = [v for v in terms if v != 0.0]
    return len(nz) <= 1 or (len(nz) == 2 and nz[0] == -nz[1])


class _Round:
    """Scores and the directions of round t (docs/algorithms/multiclass.md#budgeted-learners; binary D = y).

    ``fragile``: the round's mistake / direction decision rests on two scores (binary: f and 0) closer than
    TIE relative to their terms, where the order of summation could decide it — the reference sums exactly
    (``math.fsum``), olkit in slot order, so such a tie (e.g. two classes with the same mix of scaled SVs) is
    decided by rounding. Streams with a fragile round are not used for comparisons."""

    def __init__(self, S, t, yt, K):
        self.F = S.score_at(t)
        terms = [[S.A[i][r] * S.G[p, t] for i, p in enumerate(S.pts)] for r in range(S.Kp)]
        size = [sum(abs(v) for v in tr) for tr in terms]
        if K is None:
            self.fragile = abs(self.F[0]) <= TIE * size[0] and not _robust(terms[0])
        else:
            self.fragile = any(
                abs(self.F[a] - self.F[b]) <= TIE * (size[a] + size[b])
                and not (_robust(terms[a]) and _robust(terms[b]))
                for a in range(K)
                for b in range(a + 1, K)
            )
        if K is None:
            self.f = self.F[0]
            self.D = np.array([float(yt)])
            self.m = yt * self.f
            self.s = -1
            self.score = self.f
        else:
            self.f = None
            self.s = argmax_first(np.where(np.arange(K) == yt, -np.inf, self.F))
            self.D = np.zeros(K)
            self.D[yt], self.D[self.s] = 1.0, -1.0
            self.m = self.F[yt] - self.F[self.s]
            self.score = self.F.copy()


def _sign0(v):
    return int(v > 0) - int(v < 0)


def run_compat(name, compat, X, y, *, kernel="gaussian", sigma=1.0, degree=2, coef0=1.0, K=None, seed=0, **params):
    """Run ``name`` under ``compat`` over the stream X (dense), y (binary ±1 with K=None, else classes
    0..K−1). Returns a :class:`reference.budget.BudgetRef`."""
    kinds = CASES[(name, compat)]
    assert ("binary" if K is None else "multiclass") in kinds, (name, compat, K)
    X = np.asarray(X, float)
    y = np.asarray(y).astype(int)
    G = kernel_table(X, kernel, sigma, degree, coef0)
    Kp = 1 if K is None else K
    runner = {"ahp-r": _ahp_r, "dogma": _dogma, "lsokl": _lsokl}[compat]
    return runner(name, G, y, K, Kp, seed, dict(params))


def _events():
    return dict.fromkeys(
        [
            "projections",
            "additions",
            "margin_updates",
            "margin_rejected",
            "halvings",
            "n_T",
            "removals",
            "clips",
            "p_clamped",
            "scaled_to_U",
            "median_ties",
            "f0_rounds",
            "first_sv_skipped",
            "wrong_root",
            "phi>1",
            "phi<1",
            "delta_tiny",
            "budget_projections",
            "zeroed_inter",
            "fragile",
            "round1_forced",
            "median_choice_differs",
            "f0_positive",
            "first_sv_waits",
            "update_without_mistake",
            "one_sided_row",
        ],
        0,
    )


def _r_median(v):
    """R's median: the middle value, or the mean of the two middle ones (exact mean, rounded once)."""
    w = sorted(v)
    n = len(w)
    if n % 2:
        return w[n // 2]
    return (w[n // 2 - 1] + w[n // 2]) / 2.0


# ---------------------------------------------------------------------------------------------------------
# compat="ahp-r": the AHP authors' R scripts (binary). Round 1 is always a mistake and always stores x_1;
# later rounds predict ŷ = −1 iff f < 0; κ(x, x) is taken as 1.
# ---------------------------------------------------------------------------------------------------------
def _ahp_r(name, G, y, K, Kp, seed, p):
    assert K is None
    T = len(y)
    S = Model(G, 1)
    rng = SplitMix64(seed)
    ev = _events()
    flags, scores = [], []
    n_updates = 0
    max_sv = 0
    if name == "ahpatron":
        B = p.pop("B", 600)
        U = p.pop("U", None)
        U = math.sqrt(B) / 2 if U is None else U
        lam = p.pop("lam", None)
        lam = U / math.sqrt(4 * B) if lam is None else lam
        eps = p.pop("epsilon", 0.5)
        ridge = p.pop("eta", 0.0005)
        norm_f = 0.0
    elif name in ("projectron", "projectron++"):
        eta = p.pop("eta", 0.9)
        Kinv = None
    else:  # bogd++
        B = p.pop("B", 600)
        eta = p.pop("eta", 0.5)
        reg = p.pop("lam", 1e-5)
        gamma = p.pop("gamma", 1.0)
    p.pop("seed", None)
    assert not p, p

    for t in range(T):
        yt = int(y[t])
        rd = _Round(S, t, yt, None)
        ev["fragile"] += rd.fragile
        f = rd.f
        scores.append(f)
        if t == 0:
            # ---- the scripts' "first instance": error = 1, x_1 stored
            flags.append(1)
            ev["round1_forced"] += yt == 1  # f = 0 would predict +1 = y_1
            n_updates += 1
            if name == "ahpatron":
                S.append(t, [lam * yt])
                norm_f = lam  # norm_f <- lambda (κ = 1), no projection
            elif name in ("projectron", "projectron++"):
                S.append(t, [float(yt)])
                Kinv = np.array([[1.0]])  # Inver_K[1,1] <- 1
                ev["additions"] += 1
            else:
                S.append(t, [eta * yt])
            max_sv = max(max_sv, S.n)
            continue
        flags.append(int((-1 if f < 0 else 1) != yt))
        if f == 0:
            ev["f0_rounds"] += 1

        if name == "ahpatron":  # ---- Ahpatron.R
            if yt * f < 1 - eps:
                n_updates += 1
                if yt * f > 0:
                    ev["n_T"] += 1
                if S.n < B:
                    S.append(t, [lam * yt])
                    norm_f = math.sqrt(max(norm_f**2 + lam**2 + 2 * lam * yt * f, 0.0))
                else:
                    a = [abs(A[0]) for A in S.A]
                    med = _r_median(a)
                    index_ge = [i for i in range(B) if a[i] >= med]  # which(abs_svpara >= med)
                    if len(index_ge) > B // 2:
                        ev["median_ties"] += 1
                    large = index_ge[: B // 2]
                    if large != sorted(sorted(range(B), key=lambda i: (-a[i], i))[: B // 2]):
                        ev["median_choice_differs"] += 1  # not the B/2 largest (ties by age)
                    small = [i for i in range(B) if i not in large]  # setdiff(1:B, large_index)
                    Gram1 = np.array([[1.0 if i == j else G[S.pts[i], S.pts[j]] for j in large] for i in large])
                    Gram12 = np.array([[G[S.pts[i], S.pts[j]] for j in small] for i in large])
                    inv = np.linalg.inv(Gram1 + ridge * np.eye(len(large)))
                    theta = inv @ (Gram12 @ np.array([S.A[j][0] for j in small]))
                    sv = np.array([S.A[i][0] for i in large]) + theta
                    N2 = float(sv @ Gram1 @ sv)  # (< 0 possible: κ = 1 with a non-Gaussian κ)
                    Norm = math.sqrt(N2) if N2 > 0 else 0.0
                    if Norm > 0:  # olkit: N = 0 leaves them (R divides by 0)
                        sv = sv * norm_f / Norm
                    S.pts = [S.pts[i] for i in large]
                    S.A = [np.array([v]) for v in sv]
                    S.lab = [0] * len(large)
                    S.comp = [-1] * len(large)
                    tem_fx = math.fsum(sv[i] * G[S.pts[i], t] for i in range(len(large)))  # kt[large_index]
                    S.append(t, [lam * yt])
                    base = norm_f if Norm > 0 else Norm
                    norm_f = math.sqrt(max(base**2 + lam**2 + 2 * lam * yt * tem_fx, 0.0))
                    ev["halvings"] += 1
                if norm_f > U:
                    S.scale(U / norm_f)
                    norm_f = U
                    ev["scaled_to_U"] += 1

        elif name in ("projectron", "projectron++"):  # ---- Projectron.R / Projectron++.R
            if name == "projectron":
                go = flags[-1] == 1
            else:
                go = yt * f < 1 and not (yt * f > 0 and 1 - yt * f <= MARGIN_TIE * max(1.0, abs(f)))
            if go:
                n_updates += 1
                d, kd = _project_unit(S, Kinv, t)
                inter = 1 - kd
                if abs(inter) < 1e-10:
                    inter = 0.0
                    ev["zeroed_inter"] += 1
                delta = math.sqrt(max(inter, 0.0))  # olkit: R stops on sqrt(negative)
                if delta <= eta:
                    S.A = [S.A[i] + yt * d[i] for i in range(S.n)]
                    ev["projections"] += 1
                else:
                    n0 = S.n
                    S.append(t, [float(yt)])
                    v = np.append(d, -1.0)
                    Kn = np.zeros((n0 + 1, n0 + 1))
                    Kn[:n0, :n0] = Kinv
                    Kinv = Kn + np.outer(v, v) / inter  # 1 − kᵀd*, unclamped
                    ev["additions"] += 1

        else:  # ---- BOGD++.R
            decay = 1 - eta * reg
            S.scale(decay)
            if yt * f < 1:
                n_updates += 1
                if S.n >= B:
                    a = np.array([abs(A[0]) for A in S.A])
                    s_ = (B - 1) / a.sum()
                    pr = 1 - s_ * a
                    if np.any(pr < 0):  # olkit: R's sample() stops; clamp, renormalise
                        pr = np.maximum(pr, 0.0)
                        ev["p_clamped"] += 1
                    pr = pr / pr.sum()
                    u = uniform(rng)
                    cum, j = 0.0, B - 1
                    for i in range(B):
                        cum += pr[i]
                        if cum > u:
                            j = i
                            break
                    S.A = [decay * A / (1 - pr[j]) for A in S.A]  # every coefficient, p of the removed j
                    S.delete(j)
                    ev["removals"] += 1
                    S.append(t, [eta * yt])
                    for i in range(S.n):  # clip, the new one included
                        if abs(S.A[i][0]) > eta * gamma:
                            S.A[i] = np.array([eta * gamma * np.sign(S.A[i][0])])
                            ev["clips"] += 1
                else:
                    S.append(t, [eta * yt])
        max_sv = max(max_sv, S.n)

    if name == "ahpatron":
        diag = {"n_T": ev["n_T"], "halvings": ev["halvings"], "norm": norm_f}
    elif name == "projectron":
        diag = {"projections": ev["projections"], "additions": ev["additions"]}
    elif name == "projectron++":
        diag = {"projections": ev["projections"], "additions": ev["additions"], "margin_updates": 0}
    else:
        diag = {"removals": ev["removals"], "clipped": ev["clips"]}
    return budget_result(flags, scores, S, n_updates, diag, ev, max_sv)


def _project_unit(S, Kinv, t):
    """(d*, kᵀd*) with the R scripts' K⁻¹ (the inverse of the SV Gram with a unit diagonal). A duplicate of SV j
    with κ(x, x) = 1 gives d* = e_j exactly (the exact-arithmetic value; see reference.budget._project)."""
    G = S.G
    if G[t, t] == 1.0:
        for j, q in enumerate(S.pts):
            if G[q, t] == 1.0 and G[q, q] == 1.0 and np.array_equal(G[q], G[t]):
                d = np.zeros(S.n)
                d[j] = 1.0
                return d, 1.0
    k = S.kvec(t)
    d = Kinv @ k
    return d, float(k @ d)


def _project_true(S, Kinv, t):
    """(d*, kᵀd*) with K⁻¹ the inverse of the true SV Gram; a duplicate of SV j gives d* = e_j exactly."""
    G = S.G
    for j, q in enumerate(S.pts):
        if np.array_equal(G[q], G[t]) and G[q, t] == G[t, t]:
            d = np.zeros(S.n)
            d[j] = 1.0
            return d, float(G[q, t])
    k = S.kvec(t)
    d = Kinv @ k
    return d, float(k @ d)


# ---------------------------------------------------------------------------------------------------------
# compat="dogma": DOGMA. A mistake is sign(f) ≠ y with sign(0) = 0 (binary), f_y ≤ max_{c≠y} f_c (multiclass).
# ---------------------------------------------------------------------------------------------------------
def _dogma(name, G, y, K, Kp, seed, p):
    if K is not None and name in ("projectron", "projectron++"):
        return _dogma_projectron_multi(name, G, y, K, p)
    T = len(y)
    S = Model(G, Kp)
    rng = SplitMix64(seed)
    ev = _events()
    flags, scores = [], []
    n_updates = 0
    max_sv = 0
    if name in ("projectron", "projectron++"):
        eta = p.pop("eta", 0.9)
        p.pop("threshold_on_squared", None)
        Kinv = None
    else:
        B = p.pop("B", 600)
        Q, M, phi_min = 0.0, 0, 1.0
    p.pop("seed", None)
    assert not p, p

    for t in range(T):
        yt = int(y[t])
        rd = _Round(S, t, yt, K)
        ev["fragile"] += rd.fragile
        scores.append(rd.score)
        if K is None:
            f = rd.f
            mistake = _sign0(f) != yt
            if f == 0:
                ev["f0_rounds"] += 1
                ev["f0_positive"] += yt == 1  # a mistake only under sign(0) = 0
        else:
            mistake = rd.F[yt] <= max(rd.F[c] for c in range(K) if c != yt)
            if rd.m == 0:
                ev["f0_rounds"] += 1
        flags.append(int(mistake))
        kt = G[t, t]

        if name in ("projectron", "projectron++"):  # ---- k_projectron(2)_train.m
            if yt * f <= 0:
                n_updates += 1
                if S.n == 0:
                    delta = kt  # Kinv = 0: coeff = 0, delta = Kii
                    if delta <= eta:
                        ev["projections"] += 1  # beta + 0: nothing changes
                        ev["first_sv_skipped"] += 1
                    else:
                        S.append(t, [float(yt)])
                        Kinv = np.array([[1.0 / kt]])
                        ev["additions"] += 1
                else:
                    d, kd = _project_true(S, Kinv, t)
                    delta = max(kt - kd, 0.0)
                    if delta <= eta:
                        S.A = [S.A[i] + yt * d[i] for i in range(S.n)]
                        ev["projections"] += 1
                    else:
                        n0 = S.n
                        S.append(t, [float(yt)])
                        v = np.append(d, -1.0)
                        Kn = np.zeros((n0 + 1, n0 + 1))
                        Kn[:n0, :n0] = Kinv
                        Kinv = Kn + np.outer(v, v) / delta
                        ev["additions"] += 1
            elif name == "projectron++" and 0 < yt * f < 1 and 1 - yt * f > MARGIN_TIE * max(1.0, abs(f)):
                loss = 1 - yt * f
                d, kd = _project_true(S, Kinv, t)
                delta = max(kt - kd, 0.0)
                norm_xt = max(kt - delta, 0.0)
                if loss - delta / eta > 0:
                    if norm_xt > 0:
                        alpha = min(min(loss / norm_xt, 1.0), 2 * (loss - delta / eta) / norm_xt)
                    else:
                        alpha = 1.0  # MATLAB: loss/0 = Inf
                    S.A = [S.A[i] + alpha * yt * d[i] for i in range(S.n)]
                    ev["margin_updates"] += 1
                    n_updates += 1
                else:
                    ev["margin_rejected"] += 1

        elif name == "forgetron":  # ---- k_forgetron_st_train.m
            if yt * f <= 0:
                n_updates += 1
                M += 1  # errTot, this round included
                S.append(t, [float(yt)])
                if S.n > B:
                    xr = S.pts[0]
                    fp = S.score_at(xr)[0]
                    beta = S.A[0][0]
                    a = beta**2 - 2 * beta * fp
                    b = 2 * abs(beta)
                    c = Q - 15 / 32 * M
                    dsc = b**2 - 4 * a * c
                    if a > 0 or (a < 0 and dsc > 0 and (-b - math.sqrt(abs(dsc))) / (2 * a) > 1):
                        phi = min(1.0, (-b + math.sqrt(dsc)) / (2 * a))
                    elif a == 0:
                        phi = min(1.0, -c / b)
                    else:
                        phi = 1.0
                    S.scale(phi)
                    fpp = S.score_at(xr)[0]
                    e = abs(S.A[0][0])
                    Q = Q + e**2 + 2 * e - 2 * e * _sign0(S.A[0][0]) * fpp
                    S.delete(0)
                    ev["removals"] += 1
                    ev["phi<1"] += phi < 1
                    phi_min = min(phi_min, phi)

        else:  # ---- k_perceptron(_multi)_train.m, maxSV = B
            if mistake:
                n_updates += 1
                if K is None:
                    if S.n == B:
                        S.delete(index(rng, B))  # a uniform slot gets x_t
                        ev["removals"] += 1
                    S.append(t, [float(yt)])
                else:
                    S.append(t, rd.D, yt, rd.s)  # +1 at y_t, −1 at the max-score other class
                    if S.n > B:
                        S.delete(index(rng, B))  # one of the B older SVs
                        ev["removals"] += 1
        max_sv = max(max_sv, S.n)

    if name == "projectron":
        diag = {"projections": ev["projections"], "additions": ev["additions"]}
    elif name == "projectron++":
        diag = {"projections": ev["projections"], "additions": ev["additions"], "margin_updates": ev["margin_updates"]}
    elif name == "forgetron":
        diag = {"removals": ev["removals"], "Q": Q, "M": M, "phi_min": phi_min}
    else:
        diag = {"removals": ev["removals"]}
    return budget_result(flags, scores, S, n_updates, diag, ev, max_sv)


# ---------------------------------------------------------------------------------------------------------
# compat="lsokl": LSOKL. ŷ = sign(f) with sign(0) → +1 (binary), argmax with ties to the first (multiclass).
# ---------------------------------------------------------------------------------------------------------
def _lsokl(name, G, y, K, Kp, seed, p):
    T = len(y)
    S = Model(G, Kp)
    rng = SplitMix64(seed)
    ev = _events()
    flags, scores = [], []
    n_updates = 0
    max_sv = 0
    B = p.pop("B")
    if name in ("projectron", "projectron++"):
        p.pop("eta", None)  # not used by LSOKL
        U = 0.25 * math.sqrt((B + 1) / math.log(B + 1))
        Kinv = None
        Kid = None
    elif name == "forgetron":
        Q, M, phi_min = 0.0, 0, 1.0
    else:
        eta = p.pop("eta", 0.5)
        reg = p.pop("lam", 1e-5)
        gamma = p.pop("gamma", 1.0)
    p.pop("seed", None)
    assert not p, p

    for t in range(T):
        yt = int(y[t])
        rd = _Round(S, t, yt, K)
        ev["fragile"] += rd.fragile
        scores.append(rd.score)
        if K is None:
            f = rd.f
            yhat = 1 if f >= 0 else -1
        else:
            yhat = argmax_first(rd.F)
        mistake = yhat != yt
        flags.append(int(mistake))
        kt = G[t, t]

        if name in ("projectron", "projectron++"):  # ---- projectron.m / proplus.m
            if S.n == 0:
                ev["first_sv_waits"] += not mistake
                if mistake:
                    S.append(t, rd.D, yt, rd.s)
                    Kid = kt
                    Kinv = np.array([[1.0 / Kid]])
                    ev["additions"] += 1
                    n_updates += 1
            elif mistake:
                n_updates += 1
                d, kd = _project_true(S, Kinv, t)
                dl2 = max(Kid - kd, 0.0)  # olkit: LSOKL's sqrt of a negative → 0
                if S.n == B:
                    S.A = [S.A[i] + d[i] * rd.D for i in range(S.n)]
                    ev["projections"] += 1
                    ev["budget_projections"] += 1
                elif dl2 <= 1e-12 * Kid:  # olkit: LSOKL divides by 0 here
                    S.A = [S.A[i] + d[i] * rd.D for i in range(S.n)]
                    ev["projections"] += 1
                    ev["delta_tiny"] += 1
                else:
                    n0 = S.n
                    S.append(t, rd.D, yt, rd.s)
                    v = np.append(d, -1.0)
                    Kn = np.zeros((n0 + 1, n0 + 1))
                    Kn[:n0, :n0] = Kinv
                    den = math.sqrt(dl2) ** 2 if K is None else dl2  # norm_delta_t^2 / norm_delta_t
                    Kinv = Kn + np.outer(v, v) / den
                    ev["additions"] += 1
            elif name == "projectron++":
                ell = 1 - rd.m
                scale = abs(rd.f) if K is None else abs(rd.F[yt]) + abs(rd.F[rd.s])
                margin = (0 < ell < 1) if K is None else ell > 0
                if margin and ell > MARGIN_TIE * max(1.0, scale):
                    d, kd = _project_true(S, Kinv, t)
                    delta = math.sqrt(max(Kid - kd, 0.0))
                    if K is None:
                        P = float(d @ S.KS() @ d)  # d*ᵀ K_t d* with K_t = comp_K(SV, SV)
                    else:
                        P = kd  # k_tᵀ K⁻¹ k_t
                    tau = min(ell / P, 1.0) if P != 0 else 1.0
                    beta = tau * (2 * ell - tau * P - 2 * U * delta)
                    if beta >= 0:
                        S.A = [S.A[i] + tau * d[i] * rd.D for i in range(S.n)]
                        ev["margin_updates"] += 1
                        n_updates += 1
                    else:
                        ev["margin_rejected"] += 1

        elif name == "forgetron":  # ---- forgetron.m (binary / multiclass)
            if mistake:
                M += 1  # err_count, before the update
            go = (yt * f <= 0) if K is None else mistake
            if go:
                n_updates += 1
                ev["update_without_mistake"] += not mistake  # f = 0, y = +1: M does not count it
                full = S.n >= B
                S.append(t, rd.D, yt, rd.s)
                if full:
                    xr, yr = S.pts[0], S.lab[0]
                    Fp = S.score_at(xr)
                    if K is None:
                        mu = y[xr] * Fp[0]
                        delta = S.A[0][0] / y[xr]
                    else:
                        mu = Fp[yr]  # f'_{y_r}(x_r)
                        delta = abs(S.A[0][yr])
                    A = delta**2 - 2 * delta * mu
                    Bc = 2 * delta
                    C = Q - 15 / 32 * M
                    if A == 0:
                        phi = max(0.0, min(1.0, -C / Bc))
                    elif A > 0:
                        phi = 1.0 if A + Bc + C <= 0 else (-Bc + math.sqrt(max(Bc**2 - 4 * A * C, 0.0))) / (2 * A)
                    else:
                        if A + Bc + C <= 0:
                            phi = 1.0
                        else:
                            phi = (-Bc - math.sqrt(max(Bc**2 - 4 * A * C, 0.0))) / (2 * A)
                            ev["wrong_root"] += 1
                    S.scale(phi)
                    Q += (delta * phi) ** 2 + 2 * delta * phi * (1 - phi * mu)
                    S.delete(0)
                    ev["removals"] += 1
                    ev["phi>1"] += phi > 1
                    ev["phi<1"] += phi < 1
                    phi_min = min(phi_min, phi)

        else:  # ---- BOGD.m (binary / multiclass)
            go = (yt * f <= 1) if K is None else max(0.0, 1 - rd.m) > 0
            if not go:
                S.scale(1 - eta * reg)
            else:
                n_updates += 1
                if S.n < B:
                    S.scale(1 - eta * reg)
                    S.append(t, eta * rd.D, yt, rd.s)
                elif K is None:
                    idx = index(rng, B)
                    S.scale(B * (1 - reg * eta) / (B - 1))
                    S.delete(idx)
                    S.append(t, eta * rd.D, yt, rd.s)
                    factor = min(eta * gamma / max(abs(A[0]) for A in S.A), 1.0)
                    S.scale(factor)
                    ev["removals"] += 1
                    ev["clips"] += factor < 1
                else:
                    S.delete(0)  # the oldest
                    S.scale(1 - reg * eta)
                    S.append(t, eta * rd.D, yt, rd.s)
                    for i in range(S.n):
                        over = S.A[i] > eta * gamma
                        ev["clips"] += int(over.sum())
                        S.A[i] = np.minimum(S.A[i], eta * gamma)
                    ev["removals"] += 1
        max_sv = max(max_sv, S.n)

    if name == "projectron":
        diag = {"projections": ev["projections"], "additions": ev["additions"]}
    elif name == "projectron++":
        diag = {"projections": ev["projections"], "additions": ev["additions"], "margin_updates": ev["margin_updates"]}
    elif name == "forgetron":
        diag = {"removals": ev["removals"], "Q": Q, "M": M, "phi_min": phi_min, "wrong_root": ev["wrong_root"]}
    else:
        diag = {"removals": ev["removals"], "clipped": ev["clips"]}
    return budget_result(flags, scores, S, n_updates, diag, ev, max_sv)


def _dogma_projectron_multi(name, G, y, K, p):
    """DOGMA ``k_projectron2_multi_train.m`` (docs/algorithms/projectron.md#dogma,
    docs/algorithms/projectronpp.md#dogma): class r keeps its own dictionary S_r (the SVs that received ±1 in class
    r, arrival order) and K_r⁻¹. ``projectron`` is its mistake branch only, ``projectron++`` adds the margin
    branch."""
    eta = p.pop("eta", 0.9)
    p.pop("threshold_on_squared", None)
    assert not p, p
    T = len(y)
    S = Model(G, K)
    ev = _events()
    dic = [[] for _ in range(K)]  # per class: stream positions of its SVs
    kinv = [None] * K
    flags, scores = [], []
    n_updates = 0
    max_sv = 0
    eps = np.finfo(float).eps

    def project(r, t):
        """(coeff_r over S_r, δ_r²); an empty dictionary gives (None, κ_t)."""
        if not dic[r]:
            return None, G[t, t]
        for j, q in enumerate(dic[r]):
            if np.array_equal(G[q], G[t]) and G[q, t] == G[t, t]:
                d = np.zeros(len(dic[r]))
                d[j] = 1.0
                return d, 0.0
        k = np.array([G[q, t] for q in dic[r]])
        d = kinv[r] @ k
        return d, max(G[t, t] - float(k @ d), 0.0)

    def add_to_class(r, t, d, delta):
        if dic[r]:
            n0 = len(dic[r])
            v = np.append(d, -1.0)
            Kn = np.zeros((n0 + 1, n0 + 1))
            Kn[:n0, :n0] = kinv[r]
            kinv[r] = Kn + np.outer(v, v) / delta
        else:
            kinv[r] = np.array([[1.0 / G[t, t]]])
        dic[r].append(t)

    def move(r, d, sign):
        for j, q in enumerate(dic[r]):
            i = S.pts.index(q)
            S.A[i] = S.A[i].copy()
            S.A[i][r] += sign * d[j]

    for t in range(T):
        yt = int(y[t])
        rd = _Round(S, t, yt, K)
        ev["fragile"] += rd.fragile
        scores.append(rd.score)
        F = rd.F
        st = rd.s
        mx = F[st]
        mistake = F[yt] <= mx
        flags.append(int(mistake))
        if rd.m == 0:
            ev["f0_rounds"] += 1
        kii = G[t, t]
        if not F[yt] < mx + 1:
            continue
        if not mistake and (name == "projectron" or 1 - rd.m <= MARGIN_TIE * max(1.0, abs(F[yt]) + abs(mx))):
            continue
        d_y, dl_y = project(yt, t)
        d_s, dl_s = project(st, t)
        if not mistake:  # margin error 0 < Γ < 1
            loss = 1 - F[yt] + mx
            delta = dl_y + dl_s
            if loss - delta / (2 * eta) > 0:
                den = 2 * kii - delta
                if den != 0:
                    tau = min(min(loss / den, 1.0), 2 * (loss - delta / (2 * eta)) / den)
                else:
                    tau = 1.0  # MATLAB: x/0 = Inf
                if d_y is not None:
                    move(yt, tau * d_y, 1.0)
                if d_s is not None:
                    move(st, tau * d_s, -1.0)
                ev["margin_updates"] += 1
                n_updates += 1
            else:
                ev["margin_rejected"] += 1
            continue
        n_updates += 1  # mistake Γ ≤ 0
        both_small = dl_y <= eta and dl_s <= eta
        vec = np.zeros(K)
        if both_small or dl_y < eps:
            if d_y is not None:
                move(yt, d_y, 1.0)
        else:
            vec[yt] = 1.0
            add_to_class(yt, t, d_y, dl_y)
        if both_small or dl_s < eps:
            if d_s is not None:
                move(st, d_s, -1.0)
        else:
            vec[st] = -1.0
            add_to_class(st, t, d_s, dl_s)
        if dl_y > eta or dl_s > eta:
            S.append(t, vec, yt, st)
            ev["additions"] += 1
            ev["one_sided_row"] += int(vec[yt] == 0 or vec[st] == 0)
        else:
            ev["projections"] += 1
        max_sv = max(max_sv, S.n)

    diag = {"projections": ev["projections"], "additions": ev["additions"]}
    if name == "projectron++":
        diag["margin_updates"] = ev["margin_updates"]
    return budget_result(flags, scores, S, n_updates, diag, ev, max_sv)
