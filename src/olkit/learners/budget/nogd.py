"""NOGD — Nyström Online Gradient Descent (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016); spec: docs/algorithms/nogd.md,
with its multi-prototype form on data with three or more classes.

Two stages, on the margin m_t = D_t·F(x_t) (binary D_t = y_t, m_t = y_t f(x_t); K ≥ 3 classes
D_t = e_{y_t} − e_{s_t}, m_t = Γ_t; docs/algorithms/multiclass.md#budgeted-learners):

1. kernel OGD while the support set is below the budget: on m_t < 1 append x_t with the row ηD_t
   (no regularisation, no removal);
2. at the first margin error with |S| = B, the Nyström map of the B support vectors: K̂ = VΛVᵀ (the SV Gram
   matrix; numba's ``numpy.linalg.eigh``, LAPACK), keep the top k eigenpairs and drop eigenvalues
   ≤ 1e-12·λ_max,

       φ(x) = Λ_k^{−1/2} V_kᵀ k_S(x) ∈ R^k,     W = Aᵀ V_k Λ_k^{1/2} ∈ R^{K'×k},

   so that W φ(x) = Aᵀ V_k V_kᵀ k_S(x) is the Nyström projection of the stage-1 model; from then on the
   model is linear OGD on φ: on m_t < 1, W ← W + η D_t φ(x_t)ᵀ (FOGD's step on other features; the
   vector helpers are FOGD's).

The transition round's prediction and mistake are those of the stage-1 model (it is scored before the
update, as every round); its update is the stage-2 step W ← W + η D_t φ(x_t)ᵀ with D_t from that stage-1
score, taken unconditionally: the round already is a margin error (docs/algorithms/nogd.md#update-rule: the
stage-2 step on x_t; LSOKL's ``NysGD.m`` and ``NyGD.m`` do exactly this). The rows of A and the support
set stay as they were: #SV is B from then on (LSOKL reports B). With K = 2 the multiclass rule with step η
equals the binary rule with 2η (docs/algorithms/nogd.md#multiclass-and-multi-label).

k defaults to round(0.2·B) (LSOKL and the AHP R script). The eigenvectors of a cluster of equal eigenvalues
are basis-dependent, but W φ(x) — hence every score and decision — depends only on the subspace they span,
unless the top-k cut splits such a cluster. Per round: O(B) kernel values (from the block product) and O(kB)
for φ. Diagnostics: ``transition`` (the 1-based round of the switch, 0 while in stage 1) and ``rank``
(eigenpairs kept).

``compat`` (docs/algorithms/nogd.md#compat-modes; details in the class docstring): "lsokl" (LSOKL's ``NysGD.m`` /
``NyGD.m``) is the
default rule under another name; "ahp-r" reproduces the AHP authors' ``NOGD.R`` (binary): the switch in the round
that adds the B-th SV, that x_t scored again by the new linear model, and the initial weights computed with the
transpose of the eigenvector matrix.

Slow reference: tests/reference/feature_maps.py (``nogd``); the ``compat`` modes: tests/reference/pomdr_compat.py
(``nogd_ahp_r``, ``nogd_lsokl``).
"""

import math
from collections import namedtuple
from typing import NamedTuple

import numpy as np

from ..._compile import njit_helper
from ...base import MISTAKES, SEEN
from ...limits import check_state_bytes
from ...params import POSITIVE, Interval
from ...spec import register
from ..kernel.gram import load_gram_row
from ..kernel.support_set import N
from ..records import rule_params
from .common import D0, BudgetLearner, CompatRule, append_direction, margin_direction
from .fogd import add_scaled, dot

STAGE, RANK, LATE_MISTAKE = 0, 1, 2
"""fst slots: 0 kernel OGD / 1 linear OGD on φ; eigenpairs kept; compat="ahp-r": 1 when the transition round's
second prediction (by the new linear model) was a mistake and the first was not (counted by ``_learn_block``)."""
TRANSITION = 0  # diagnostic slot: the round of the switch

EIGEN_FLOOR = 1e-12
"""Eigenvalues ≤ EIGEN_FLOOR·λ_max are dropped (the spec's guard: Λ^{−1/2} of a rounding residue is noise)."""

NOGDState = namedtuple("NOGDState", ["prm", "fst", "cnt", "rng", "M", "W", "phi"])
"""The rule state of the kernel engine (``prm`` = [B, η], ``fst``, ``cnt``, ``rng``) plus the Nyström
map M = Λ_k^{−1/2}V_kᵀ (k × B, rows beyond the kept rank are 0), the stage-2 weights W (K' × k) and the
current φ(x_t) (k)."""

NOGDAveragedState = namedtuple("NOGDAveragedState", ["prm", "fst", "cnt", "rng", "M", "W", "phi", "P2", "qs"])
"""NOGD's state with ``average`` (docs/algorithms/nogd.md#averaging): NOGDState's fields, the stage-2 sums P2 (the shape
of W: Σ over the averaged stage-2 rounds of W_t = P2 + q₂·W, q₂ = q − q_s) and qs = [q_s], the support set's q when
the switch happened (the stage-1 sum is then P + q_s·A for good). Without ``average`` the state is a NOGDState
(model files written before NOGD averaged still load)."""


class NOGDParams(NamedTuple):
    """Parameters of NOGD."""

    B: int  # budget: kernel OGD until B SVs
    eta: float  # step size


@njit_helper
def nystrom_features(M, krow, phi):
    """φ = M k_S(x)."""
    for q in range(M.shape[0]):
        phi[q] = dot(M[q], krow[: M.shape[1]])


@njit_helper
def _sv_gram(sv, s, unit_diagonal):
    """The SV Gram matrix (n × n); ``unit_diagonal``: with κ(x_i, x_i) taken as 1 (NOGD.R)."""
    n = sv.meta[N]
    G = np.empty((n, n))
    for b in range(n):
        load_gram_row(sv, b, s)
        for i in range(n):
            G[b, i] = sv.grow[i]
        if unit_diagonal:
            G[b, b] = 1.0
    return G


@njit_helper
def _set_nystrom_map(sv, st, lam, V, transposed):
    """M = Λ_k^{−1/2}V_kᵀ and the stage-2 weights from (λ ascending, V) over the eigenvalues above
    EIGEN_FLOOR·λ_max, largest first; W = Aᵀ V_k Λ_k^{1/2}, or (``transposed``, NOGD.R, binary)
    w₀_q = √λ_q Σ_i V[q, i'] α_i with i' the i-th eigenvector in descending order. Enters stage 2."""
    n = V.shape[0]
    M, W = st.M, st.W
    top = lam[n - 1]
    kept = 0
    for q in range(min(M.shape[0], n)):
        col = n - 1 - q
        if not (lam[col] > EIGEN_FLOOR * top):
            break
        root = np.sqrt(lam[col])
        for j in range(n):
            M[q, j] = V[j, col] / root
        if transposed:
            acc = 0.0
            for i in range(n):  # V[row of the q-th eigenvector, column of the i-th]: eigen-order i, descending
                acc += V[q, n - 1 - i] * sv.coef[i, 0]
            W[0, q] = acc * root
        else:
            for o in range(W.shape[0]):
                acc = 0.0
                for j in range(n):
                    acc += sv.coef[j, o] * V[j, col]
                W[o, q] = acc * root
        kept += 1
    st.fst[STAGE] = 1.0
    st.fst[RANK] = kept


@njit_helper
def nystrom_transition(sv, st, s):
    """Stage 1 → 2 (docs/algorithms/nogd.md#update-rule): eigen-decompose the SV Gram matrix, set
    M = Λ_k^{−1/2}V_kᵀ and
    W = Aᵀ V_k Λ_k^{1/2}."""
    lam, V = np.linalg.eigh(_sv_gram(sv, s, False))  # ascending
    _set_nystrom_map(sv, st, lam, V, False)


# ---- compat="ahp-r": the AHP authors' NOGD.R (docs/algorithms/nogd.md#ahp-r) -----------------------------


@njit_helper
def nystrom_transition_ahp_r(sv, st, s):
    """``NOGD.R``'s switch: eigen-decompose the SV Gram matrix with a unit diagonal (the script's ``Gram`` starts
    as a matrix of ones), eigenvalues descending, each eigenvector's sign fixed (its first entry of magnitude
    ≥ 1/(2√B) positive); M = Λ_k^{−1/2}V_kᵀ as by default, but w₀_j = √λ_j Σ_i V[j, i] α_i — row j of V where
    column j is meant (the script's ``svpara %*% solve(D^{-1/2} * V)``)."""
    n = sv.meta[N]
    lam, V = np.linalg.eigh(_sv_gram(sv, s, True))  # ascending
    thr = 0.5 / np.sqrt(n)
    for col in range(n):
        for i in range(n):
            if abs(V[i, col]) >= thr:
                if V[i, col] < 0.0:
                    for q in range(n):
                        V[q, col] = -V[q, col]
                break
    _set_nystrom_map(sv, st, lam, V, True)


@njit_helper
def nogd_ahp_r_update(sv, st, s, t, kself, y, f, mistake):
    """``NOGD.R`` (binary): stage 1 appends ηy_t on y f < 1; the round whose append makes |S| = B switches
    (:func:`nystrom_transition_ahp_r`), scores the same x_t with the new linear model (a wrong prediction there
    is recorded in ``LATE_MISTAKE`` when the first was right) and takes its OGD step on y w·φ < 1; then linear
    OGD on φ."""
    m = y * f[0]
    eta = st.prm.eta
    if st.fst[STAGE] == 0.0:
        if m >= 1.0:
            return False
        append_direction(sv, s, t, kself, y, 0, -1, eta)
        if sv.meta[N] < st.prm.B:
            return True
        nystrom_transition_ahp_r(sv, st, s)
        st.cnt[D0 + TRANSITION] = st.cnt[SEEN]
        nystrom_features(st.M, sv.krow, st.phi)  # k_S(x_t) over the B SVs, x_t's own κ included
        f2 = dot(st.W[0], st.phi)
        if not mistake and (1.0 if f2 >= 0.0 else -1.0) != y:
            st.fst[LATE_MISTAKE] = 1.0
        if y * f2 < 1.0:
            add_scaled(st.W[0], eta * y, st.phi)
        return True
    if m >= 1.0:
        return False
    add_scaled(st.W[0], eta * y, st.phi)
    return True


@njit_helper
def nogd_scores(sv, st, s, t, kself, f):
    """Stage 2: F = W φ(x_t) (stage 1: the kernel expansion, already in f)."""
    if st.fst[STAGE] == 0.0:
        return
    nystrom_features(st.M, sv.krow, st.phi)
    for o in range(f.shape[0]):
        f[o] = dot(st.W[o], st.phi)


@njit_helper
def nogd_update(sv, st, s, t, kself, y, f, mistake):
    r, c, m, _ = margin_direction(s, t, y, f)
    if m >= 1.0:
        return False
    # the hinge loss weighted by s_t: the step η s_t in both stages (docs/algorithms/nogd.md#weights)
    eta = st.prm.eta * s.sw[t]
    if st.fst[STAGE] == 0.0:
        if sv.meta[N] < st.prm.B:  # stage 1: append x_t with ηD_t
            append_direction(sv, s, t, kself, y, r, c, eta)
            return True
        nystrom_transition(sv, st, s)
        st.cnt[D0 + TRANSITION] = st.cnt[SEEN]
        nystrom_features(st.M, sv.krow, st.phi)  # φ(x_t) (this round was scored by stage 1)
    if c < 0:  # stage 2: W ← W + η D_t φ(x_t)ᵀ
        add_scaled(st.W[0], eta * y, st.phi)
    else:
        add_scaled(st.W[r], eta, st.phi)
        add_scaled(st.W[c], -eta, st.phi)
    return True


@njit_helper
def nogd_update_averaged(sv, st, s, t, kself, y, f, mistake):
    """:func:`nogd_update` keeping the stage-2 part of the averaged model (docs/algorithms/nogd.md#averaging): the
    switching round records q_s (the stage-1 sum P + q_s·A stops growing), and a stage-2 change δ of W sets
    P2 ← P2 − q₂·δ (q₂ = q − q_s, the averaged stage-2 rounds before this one), O(K'·k) per update. Stage 1 is
    recorded by the support set's own bookkeeping (the rule only appends)."""
    if st.fst[STAGE] == 0.0 and sv.meta[N] < st.prm.B:
        return nogd_update(sv, st, s, t, kself, y, f, mistake)
    if st.fst[STAGE] == 0.0:  # this round switches if it updates; before it, q rounds of stage 1 were averaged
        st.qs[0] = sv.avg[0]
    q2 = sv.avg[0] - st.qs[0]
    old = st.W.copy() if q2 != 0.0 else st.W[:0]
    updated = nogd_update(sv, st, s, t, kself, y, f, mistake)
    if updated and q2 != 0.0:
        W, P2 = st.W, st.P2
        for o in range(W.shape[0]):
            for q in range(W.shape[1]):
                if W[o, q] != old[o, q]:
                    P2[o, q] -= q2 * (W[o, q] - old[o, q])
    return updated


_COMPAT_RULES = {
    "ahp-r": CompatRule(nogd_ahp_r_update, first_round_mistake=True, source="the AHP R script NOGD.R"),
    "lsokl": CompatRule(nogd_update, nogd_update, source="LSOKL binary/NysGD.m, multiclass/NyGD.m"),
}


@register(
    "nogd",
    "NOGD: kernel OGD until B SVs, then OGD on the rank-k Nyström features of those SVs (Lu et al. JMLR 2016)",
    data=("binary", "multiclass"),
    sources={
        "B": "AHP R script (600); AHP Table 2 budgets per dataset",
        "k": "LSOKL / AHP R (k = 0.2·B)",
        "eta": "olkit default; AHP selects η from {10^-3..10^3}/√T (needs T)",
        "sigma": "AHP Experiments (σ = 1)",
    },
    position=230,
    weight="η ← s·η on the hinge gradient, in both stages (row η s D_t; W += η s D_t φ(x_t)ᵀ)",
    weight_repeats=False,
    sweep={
        "small": {"B": 4},
        "cases": [{"B": 4, "k": 2}],
        "grid": {"B": [2, 3, 4, 6, 8], "k": [None, 1, 2], "eta": [0.5, 0.1]},
    },
)
class NOGD(BudgetLearner):
    """Nyström Online Gradient Descent (NOGD).

    Kernel OGD on the hinge loss until B support vectors are stored, then linear OGD on the rank-k Nyström
    features of those B support vectors (docs/algorithms/nogd.md; see the module docstring).

    Parameters
    ----------
    B : int >= 2, default 600
        Budget: the number of support vectors (AHP R script: 600; AHP Table 2 per dataset).
    k : int >= 1 or None, default None
        Rank of the Nyström map (at most B); None: round(0.2·B) (LSOKL, AHP R).
    eta : float > 0, default 0.5
        Step size of both stages. The AHP experiments select η from {10^-3, …, 10^3}/√T, which needs the
        stream length T; 0.5 is olkit's default.
    kernel, sigma, degree, coef0 : the kernel (σ = 1 as in the AHP experiments).
    compat : {"none", "ahp-r", "lsokl"}, default "none"
        "lsokl": LSOKL's ``binary/NysGD.m`` and ``multiclass/NyGD.m`` (docs/algorithms/nogd.md#lsokl), binary and
        multiclass
        — a documented synonym of "none": the default rule *is* that code (update on y f < 1 / Γ < 1, so x_1 is
        always stored; ŷ = +1 at f = 0, argmax ties to the smallest index; the switch on the first margin error
        once |S| = B, with that round's stage-1 kernel vector, w = α·pinv(M) = AᵀV_kΛ_k^{1/2}, then that
        round's step; #SV = B). What differs is below the rule: ``eigs`` (ARPACK) for the top k eigenpairs
        where olkit uses LAPACK's ``eigh`` (the same subspace), ``pinv``'s tolerance where olkit drops eigenvalues
        ≤ 1e-12·λ_max (they differ only for a numerically singular Gram, where both are rounding noise), and
        ``binary/NysGD.m`` takes k = 0.2·B unrounded (``eigs`` needs an integer: budgets that are multiples
        of 5).
        "ahp-r": the AHP authors' ``NOGD.R`` (binary; docs/algorithms/nogd.md#ahp-r). Round 1 always counts
        as a mistake (x_1 is always stored, as by default); the SV Gram has a unit diagonal (κ(x, x) taken as
        1); the eigen-decomposition happens in the round whose append makes |S| = B, and that same x_t is then
        scored by the new linear model and may take its OGD step (the round counts one mistake if either
        prediction is wrong; its recorded score is the stage-1 one); the initial weights use row j of V where
        column j is meant, w₀_j = √λ_j Σ_i V[j, i] α_i (i over the SVs in arrival order, used as the
        eigenvector index in descending eigenvalue order), while the features φ_j = λ_j^{−1/2} V[:, j]ᵀk_S(x)
        are the default's; k = None gives ⌊0.2·B⌋ (the script indexes 1:r with r = 0.2·B); #SV is |S| =
        min(rounds, B). w₀ depends on the sign and basis of *every* eigenvector: olkit fixes each sign (the
        first entry of magnitude ≥ 1/(2√B) positive), so a run is reproducible across LAPACK builds when the B
        eigenvalues are distinct, but R's numbers (its ``svd`` picks its own signs) are not reproduced — the
        rule is. Eigenvalues ≤ 1e-12·λ_max are dropped from the top k as by default (the script would divide
        by their square root).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> clf = olkit.make("nogd", B=100, sigma=4)
    >>> olkit.evaluate_online(clf, X, y).n_sv, clf.diagnostics()["rank"]
    (100, 20)

    References
    ----------
    Lu, J., Hoi, S. C. H., Wang, J., Zhao, P., Liu, Z.-Y. (2016). Large scale online kernel learning. JMLR 17(47).
    Williams, C., Seeger, M. (2001). Using the Nyström method to speed up kernel machines. NIPS.
    """

    _update = staticmethod(nogd_update)
    _score_hook = staticmethod(nogd_scores)
    _kernel_compat = ("none", "ahp-r", "lsokl")
    _compat_rules = _COMPAT_RULES
    _gram = "bounded"
    _parameter_constraints = {"k": [Interval(1, None, integer=True), None], "eta": [POSITIVE]}

    def __init__(
        self,
        B=600,
        k=None,
        eta=0.5,
        kernel="gaussian",
        sigma=1.0,
        degree=3,
        coef0=1.0,
        compat="none",
        *,
        fit_intercept=False,
        intercept_scaling=1.0,
        average=False,
        class_weight=None,
        shuffle=True,
        random_state=None,
    ):
        self.B = B
        self.k = k
        self.eta = eta
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    def _rank(self):
        """k, or round(0.2·B) (at least 1) when k is None; under compat="ahp-r" ⌊0.2·B⌋ (at least 1), as the
        script's index 1:r with r = 0.2·B."""
        if self.k is None:
            if self.compat == "ahp-r":
                return max(1, math.floor(0.2 * int(self.B)))
            return max(1, round(0.2 * int(self.B)))
        return int(self.k)

    def _check_params(self):
        super()._check_params()
        if self._rank() > int(self.B):
            raise ValueError(
                f"{self.algorithm_name}: parameter k={self.k!r} is not valid; k must be at most "
                f"B={self.B!r} (the rank of the Nyström map of B support vectors)"
            )
        check_state_bytes(
            self.algorithm_name,
            f"parameter B={self.B!r}: the k x B Nyström map (k={self._rank()}) that is allocated up front",
            8 * self._rank() * int(self.B),
            f"use a smaller B (the default is {self.spec.defaults['B']}; memory 8·k·B bytes, k = 0.2·B by default)",
        )

    def _resolved_params(self):
        return {**self._algorithm_params(), "k": self._rank()}

    def _rule_params(self):
        return rule_params(NOGDParams, B=self.B, eta=self.eta)

    def _initial_fst(self):
        return [0.0, 0.0, 0.0]

    def _learn_block(self, stream, X, order, start, stop, scores, mistakes):
        seen = int(self.state_.cnt[SEEN])
        super()._learn_block(stream, X, order, start, stop, scores, mistakes)
        fst = self.state_.fst
        if (
            fst.shape[0] > LATE_MISTAKE and fst[LATE_MISTAKE]
        ):  # compat="ahp-r": NOGD.R counts the transition round's second prediction too
            pos = start + self._counter(TRANSITION) - 1 - seen
            mistakes[pos] = 1
            self.state_.cnt[MISTAKES] += 1
            fst[LATE_MISTAKE] = 0.0

    def _max_support(self):
        return int(self.B)

    _average_writes = "appended"  # stage 1 sets only the SV it appends; stage 2 is recorded by the rule

    def _averages(self):
        """The mean of the per-round models across the switch, as a kernel expansion on the B SVs
        (docs/algorithms/nogd.md#averaging); not under compat="ahp-r" (its switching round scores x_t twice)."""
        return self.compat != "ahp-r" and super()._averages()

    def _new_state(self, X):
        super()._new_state(X)
        k, B = self._rank(), int(self.B)
        state = NOGDState(*self.state_, np.zeros((k, B)), np.zeros((self._n_outputs(), k)), np.zeros(k))
        if self.support_.averaged:
            state = NOGDAveragedState(*state, np.zeros_like(state.W), np.zeros(1))
        self.state_ = state

    def _update_rule(self):
        rule = super()._update_rule()
        if isinstance(self.state_, NOGDAveragedState):
            assert rule is nogd_update, "NOGD averages the default rule only"
            return nogd_update_averaged
        return rule

    def _model_coef(self):
        """With ``average`` after the switch: the mean of the per-round models as coefficients on the B SVs,
        ā = (P + q_s·A + Mᵀ(P2 + q₂·W)ᵀ)/N (docs/algorithms/nogd.md#averaging); else the kernel learners' own."""
        st, sv = self.state_, self.support_
        if not (isinstance(st, NOGDAveragedState) and st.fst[STAGE] and sv.avg[1] > 0):
            return super()._model_coef()
        n = sv.n
        q, rounds = sv.avg
        qs = st.qs[0]
        stage1 = sv.avg_sum[:n] + qs * sv.coef[:n]
        stage2 = st.M[:, :n].T @ (st.P2 + (q - qs) * st.W).T
        return (stage1 + stage2) / rounds

    def _check_state(self):
        """The stage flag, the kept rank (a loop bound over the rows of M) and the transition-round flag
        (cleared at the end of every block: a saved state never has it)."""
        fst, k = self.state_.fst, self.state_.M.shape[0]
        stage, rank, late = fst[STAGE], fst[RANK], fst[LATE_MISTAKE]
        if stage not in (0.0, 1.0) or rank != int(rank) or not 0 <= rank <= k or late != 0.0:
            raise ValueError(f"state_.fst: stage {stage}, rank {rank} (0..{k}) or transition flag {late} out of range")
        if isinstance(self.state_, NOGDAveragedState):
            qs, q = self.state_.qs[0], self.support_.avg[0]
            if not (qs == int(qs) and 0 <= qs <= q and (stage or qs == 0)):
                raise ValueError(f"state_.qs: {qs} is not the count of averaged rounds (0..{q}) before the switch")

    @property
    def stage_(self):
        """1 while kernel OGD runs, 2 after the switch to the Nyström features."""
        return 2 if self.state_.fst[STAGE] else 1

    def nystrom_map(self):
        """M = Λ_k^{−1/2}V_kᵀ (rank × B) after the switch, so that φ(x) = M k_S(x); None before."""
        if not self.state_.fst[STAGE]:
            return None
        return self.state_.M[: int(self.state_.fst[RANK])].copy()

    def _scores_from_kernel(self, K, norms, kp):
        if not self.state_.fst[STAGE] or (isinstance(self.state_, NOGDAveragedState) and self.support_.avg[1] > 0):
            return super()._scores_from_kernel(K, norms, kp)
        return (K @ self.state_.M.T) @ self.state_.W.T

    def diagnostics(self):
        return {"transition": self._counter(TRANSITION), "rank": int(self.state_.fst[RANK])}
