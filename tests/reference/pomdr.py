"""Slow, literal reference of POMDR (docs/algorithms/pomdr.md, lifted to multiclass by its
multiclass section under docs/algorithms/multiclass.md#budgeted-learners).

Written from the text of the specification pages — *not* from olkit's code; nothing here imports
olkit. The helpers of ``reference.budget`` are reused: the explicit T×T kernel table (``gram``), the support
set with coefficient rows kept in **arrival order** (``Model``; scores are exact sums, ``math.fsum``), the
ALD projection with d* = e_j / δ² = 0 for an exact duplicate of an SV (``_project``), argmax with ties to the
smallest index, and the result record (``BudgetRef``).

One plain loop over the stream, round t (0-based position t, round number t + 1):

* λ_t = U/√(3c_D + Σδ) from the current Σδ, times ``coe`` once a merge has happened
  (docs/algorithms/pomdr.md#update-rule);
* the hint window is the last m = min(t, M) *examples* (x_τ, D_τ) — every round is pushed, with the D_τ
  computed at round τ (binary y_τ; multiclass e_{y_τ} − e_{s_τ}, s_τ from that round's optimistic scores);
  Ĥ(x_t) = (1/m) Σ_τ D_τ κ(x_τ, x_t) (0 when m = 0);
* optimistic scores F̃ = F(x_t) + λ_t Ĥ(x_t); ŷ, s_t, D_t and m̃_t = D_t·F̃ all from F̃
  (docs/algorithms/pomdr.md#multiclass-and-multi-label); the recorded score is F̃, the hint-free F(x_t) is kept as
  ``raw_scores``;
* round 1: x_1 stored with (U/√(3c_D))·D_1, K_S⁻¹ = [1/κ_11], ‖f‖² = (U²/(3c_D))·c_D·κ_1, Σδ = c_D;
* phase 1 (until the first round that leaves |S| ≥ B0; one way — a merge that drops |S| below B0 later
  does not bring it back): on m̃_t < 1 the ALD test √δ² ≤ a with β* = K_S⁻¹k_t, δ² = max(κ_t − β*·k_t, 0):
  projected step A += λ_t β* D_tᵀ, Σδ += max(c_D N_t − 2(1/m) Σ_τ (D_t·D_τ) Σ_j β*_j κ(x_j, x_τ), 0),
  ‖f‖² += 2λ_t m_t + λ_t² c_D N_t with N_t = k_tᵀβ* and m_t = D_t·F(x_t) (no hint); or x_t added with
  λ_t D_t (K_S⁻¹ by the block formula), Σδ += max(c_Dκ_t − 2D_t·Ĥ(x_t), 0), ‖f‖² += 2λ_t m_t + c_Dλ_t²κ_t;
* phase 2: on m̃_t < 1 x_t is added as above (no ALD test);
* after either step: if ‖f‖ > U, every row is scaled to ‖f‖ = U;
* a phase-2 round that leaves |S| ≥ B merges: every SV at arrival position ≥ ⌊B/2⌋ (0-based; the first
  ⌊B/2⌋ are permanent) into the permanent SV with the largest κ(x_j, x_r) (ties → the oldest), whole rows,
  in position order; Σδ = 0 (after the round's own increment); ‖f‖² = tr(AᵀK_S A) recomputed and A rescaled
  to ‖f‖ = U (if ‖f‖ > 0); λ carries ``coe`` from the next round on.

#updates = rounds with an ALD projection or an addition (round 1 included); #SV = rows not all zero.
Diagnostics: phase, merges, projections (ALD projected steps), additions (round 1 included), sum_delta, norm.

Invariants asserted every round: |S| ≤ B; tracked ‖f‖² = tr(AᵀK_S A) (1e-9 relative, absolute below 1);
‖f‖ ≤ U(1 + 1e-12); Σ_r A_i[r] = 0 for multiclass rows; Σδ ≥ 0; in phase 1 K_S⁻¹ is the inverse of K_S;
after a merge |S| = ⌊B/2⌋ and the SVs are the first ⌊B/2⌋ of before.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .budget import BudgetRef, Model, _close, _project, argmax_first, gram


@dataclass
class PomdrRef(BudgetRef):
    raw_scores: np.ndarray = field(default=None)  # per-round F(x_t) without the hint (before the update)
    lams: list = field(default_factory=list)  # per-round λ_t
    trace: list = field(default_factory=list)  # per-round diagnostics after the round (as ``diagnostics``)


def resolve(T, B, B0=None, a=None):
    """The defaults of docs/algorithms/pomdr.md#parameters: B0 = min(round(10 ln T), B//2), a = 1/√T."""
    if B0 is None:
        B0 = min(round(10.0 * math.log(T)), B // 2)
    if a is None:
        a = 1.0 / math.sqrt(T)
    return B0, a


def run_pomdr(X, y, *, sigma, K=None, U=25.0, B=600, B0=None, M=15, coe=0.1, a=None, T=None, sample_weight=None):
    """POMDR over the stream X (dense), y. ``K=None``: binary, y ∈ {−1, +1}; otherwise multiclass with labels 0..K−1
    (K ≥ 2; K = 2 is the multiclass path on two classes, for the multiclass section's K = 2 claim). ``T``: the
    stream length the defaults of B0 and a are computed from (default len(y)).

    ``sample_weight`` (None: all 1): the example weights s_t of docs/algorithms/pomdr.md#weights. The step of a learned
    round is λ_t s_t D_t (the first learned example's (U/√(3c_D)) s_t D_t), ‖f‖² updated with it; λ_t, Σδ and the
    hint stay built from unit directions. A weight-0 round is predicted and recorded, nothing else: no update, no
    window entry; "round 1" is the first learned example."""
    X = np.asarray(X, float)
    y = np.asarray(y).astype(int)
    n_rounds = len(y)
    binary = K is None
    if binary:
        assert set(np.unique(y)) <= {-1, 1}
        Kp, cD = 1, 1.0
    else:
        assert K >= 2 and y.min() >= 0 and y.max() < K
        Kp, cD = K, 2.0
    B0, a = resolve(n_rounds if T is None else T, B, B0, a)
    assert 1 <= B0 < B and M >= 0 and U > 0
    half = B // 2
    G = gram(X, sigma)
    S = Model(G, Kp)

    flags, scores, raw_scores, lams = [], [], [], []
    window = []  # (stream position τ, D_τ), oldest first, at most M entries
    norm2 = 0.0  # tracked ‖f‖²
    sumd = 0.0  # Σδ
    Kinv = None  # K_S⁻¹ (phase 1)
    phase, merged = 1, False
    started = False  # the first example has been learned
    in_ball = False  # an update after round 1 has projected f onto the ball (round 1 is not projected)
    n_updates, max_sv = 0, 0
    trace = []
    phase1_pts = set()  # stream positions of the SVs added in phase 1 (round 1 included)
    ev = dict.fromkeys(
        [
            "projections",
            "additions",
            "merges",
            "scaled_to_U",
            "merged_rows",
            "dup_projections",
            "phase2_rounds",
            "hint_rounds",
            "no_update",
            "merged_phase1_rows",
            "zero_norm_merge",
        ],
        0,
    )

    for t in range(n_rounds):
        yt = int(y[t])
        kt = G[t, t]
        lam = U / math.sqrt(3.0 * cD + sumd)
        if merged:
            lam *= coe
        lams.append(lam)
        phase_at_start = phase
        # ---- hint over the last m examples
        m = len(window)
        if m:
            H = np.array([math.fsum(Dtau[r] * G[tau, t] for tau, Dtau in window) for r in range(Kp)]) / m
            ev["hint_rounds"] += 1
        else:
            H = np.zeros(Kp)
        F = S.score_at(t)
        Ft = F + lam * H
        # ---- prediction, direction and margins from F̃
        if binary:
            yhat = 1 if Ft[0] >= 0 else -1
            D = np.array([float(yt)])
            scores.append(Ft[0])
            raw_scores.append(F[0])
        else:
            yhat = argmax_first(Ft)
            st = argmax_first(np.where(np.arange(K) == yt, -np.inf, Ft))
            D = np.zeros(K)
            D[yt], D[st] = 1.0, -1.0
            scores.append(Ft.copy())
            raw_scores.append(F.copy())
        flags.append(int(yhat != yt))
        mtil = float(D @ Ft)  # m̃_t (optimistic)
        mt = float(D @ F)  # m_t (the model's own score)
        DH = float(D @ H)  # D_t·Ĥ(x_t)

        s_t = 1.0 if sample_weight is None else float(sample_weight[t])
        ls = lam * s_t  # the step λ_t s_t
        updated = False
        if s_t == 0.0:
            pass  # predicted and recorded, not learned
        elif not started:
            started = True
            v = U / math.sqrt(3.0 * cD) * s_t
            S.append(t, v * D)
            Kinv = np.array([[1.0 / kt]])
            norm2 = v * v * cD * kt
            sumd = cD
            ev["additions"] += 1
            updated = True
        elif mtil < 1.0:
            if phase == 1:
                beta, delta2 = _project(S, Kinv, t)
                if math.sqrt(delta2) <= a:
                    N = float(S.kvec(t) @ beta)
                    if m:
                        ph = (
                            math.fsum(
                                float(D @ Dtau) * math.fsum(beta[j] * G[p, tau] for j, p in enumerate(S.pts))
                                for tau, Dtau in window
                            )
                            / m
                        )
                    else:
                        ph = 0.0
                    sumd += max(cD * N - 2.0 * ph, 0.0)
                    norm2 += 2.0 * ls * mt + ls * ls * cD * N
                    for i in range(S.n):
                        S.A[i] = S.A[i] + ls * beta[i] * D
                    ev["projections"] += 1
                    ev["dup_projections"] += int(delta2 == 0.0)
                else:
                    sumd += max(cD * kt - 2.0 * DH, 0.0)
                    norm2 += 2.0 * ls * mt + cD * ls * ls * kt
                    n0 = S.n
                    S.append(t, ls * D)
                    w = np.append(beta, -1.0)
                    Kn = np.zeros((n0 + 1, n0 + 1))
                    Kn[:n0, :n0] = Kinv
                    Kinv = Kn + np.outer(w, w) / delta2
                    ev["additions"] += 1
            else:
                sumd += max(cD * kt - 2.0 * DH, 0.0)
                norm2 += 2.0 * ls * mt + cD * ls * ls * kt
                S.append(t, ls * D)
                ev["additions"] += 1
            if math.sqrt(max(norm2, 0.0)) > U:
                S.scale(U / math.sqrt(norm2))
                norm2 = U * U
                ev["scaled_to_U"] += 1
            updated = True
            in_ball = True
        else:
            ev["no_update"] += 1
        n_updates += updated
        if phase == 1:
            phase1_pts.update(S.pts)
        ev["phase2_rounds"] += phase == 2

        # ---- end of phase 1 / merge
        if phase == 1:
            if S.n >= B0:
                phase = 2
        elif S.n >= B:
            before = list(S.pts)
            for r in range(half, S.n):
                kr = [G[S.pts[j], S.pts[r]] for j in range(half)]
                near = argmax_first(kr)  # largest κ(x_j, x_r), ties → the oldest
                S.A[near] = S.A[near] + S.A[r]
                ev["merged_rows"] += 1
                ev["merged_phase1_rows"] += S.pts[r] in phase1_pts
            for r in range(S.n - 1, half - 1, -1):
                S.delete(r)
            assert S.pts == before[:half]
            sumd = 0.0
            merged = True
            norm2 = S.norm2()
            if norm2 > 0:
                S.scale(U / math.sqrt(norm2))
                assert _close(S.norm2(), U * U)
                norm2 = U * U
            else:
                ev["zero_norm_merge"] += 1
            ev["merges"] += 1
            assert S.n == half

        if s_t != 0.0:
            window.append((t, D.copy()))
            if len(window) > M:
                window.pop(0)

        # ---- invariants, every round
        assert S.n <= B, (t, S.n, B)
        max_sv = max(max_sv, S.n)
        assert sumd >= 0.0
        if not binary:
            for row in S.A:
                assert abs(row.sum()) <= 1e-9 * max(1.0, np.abs(row).max()), (t, row)
        exact = S.norm2()
        assert _close(norm2, exact), (t, norm2, exact)
        # ‖f‖ ≤ U: round 1's ‖f‖ = U s_1 √(κ_1/3) (weight 1, κ = 1: U/√3) lies in the ball unless s_1 is large
        weighted = sample_weight is not None
        assert math.sqrt(max(norm2, 0.0)) <= U * (1 + 1e-12) or not in_ball and weighted, (t, norm2, U)
        if phase_at_start == 1 and Kinv is not None:
            resid = np.abs(Kinv @ S.KS() - np.eye(S.n)).max()
            assert resid < 1e-6 * max(1.0, np.abs(Kinv).max()), (t, resid)
        trace.append(
            {
                "phase": phase,
                "merges": ev["merges"],
                "projections": ev["projections"],
                "additions": ev["additions"],
                "sum_delta": float(sumd),
                "norm": math.sqrt(max(norm2, 0.0)),
                "n": S.n,
                "updates": n_updates,
            }
        )

    diag = {k: v for k, v in trace[-1].items() if k not in ("n", "updates")} if trace else {}
    return PomdrRef(
        np.array(flags, dtype=int),
        np.array(scores),
        S.n_nonzero(),
        n_updates,
        diag,
        ev,
        max_sv,
        list(S.pts),
        [row.copy() for row in S.A],
        raw_scores=np.array(raw_scores),
        lams=lams,
        trace=trace,
    )
