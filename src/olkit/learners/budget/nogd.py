"""NOGD — Nyström Online Gradient Descent (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016), ALGORITHMS.md D9 and, on
data with three or more classes, its multi-prototype form D13.9.

Two stages, on the margin m_t = D_t·F(x_t) (binary D_t = y_t, m_t = y_t f(x_t); K ≥ 3 classes
D_t = e_{y_t} − e_{s_t}, m_t = Γ_t; D13.0):

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
score, taken unconditionally: the round already is a margin error (ALGORITHMS.md D9/D13.9 "then apply the
stage-2 step to x_t"; LSOKL's ``NysGD.m`` and ``NyGD.m`` do exactly this). The rows of A and the support
set stay as they were: #SV is B from then on (LSOKL reports B). With K = 2 the multiclass rule with step η
equals the binary rule with 2η (D13.12).

k defaults to round(0.2·B) (LSOKL and the AHP R script). The eigenvectors of a cluster of equal eigenvalues
are basis-dependent, but W φ(x) — hence every score and decision — depends only on the subspace they span,
unless the top-k cut splits such a cluster. Per round: O(B) kernel values (from the block product) and O(kB)
for φ. Diagnostics: ``transition`` (the 1-based round of the switch, 0 while in stage 1) and ``rank``
(eigenpairs kept).
"""
from collections import namedtuple

import numpy as np

from ..._compile import njit_helper
from ...base import SEEN
from ...params import POSITIVE, Interval
from ...spec import register
from ..kernel.support_set import N, load_gram_row
from .common import D0, BudgetLearner, append_direction, margin_direction
from .fogd import add_scaled, dot

STAGE, RANK = 0, 1  # fst slots: 0 kernel OGD / 1 linear OGD on φ; eigenpairs kept
TRANSITION = 0  # diagnostic slot: the round of the switch

EIGEN_FLOOR = 1e-12
"""Eigenvalues ≤ EIGEN_FLOOR·λ_max are dropped (D9's guard: Λ^{−1/2} of a rounding residue is noise)."""

NOGDState = namedtuple("NOGDState", ["prm", "fst", "cnt", "rng", "M", "W", "phi"])
"""The rule state of the kernel engine (``prm`` = [B, η], ``fst``, ``cnt``, ``rng``) plus the Nyström
map M = Λ_k^{−1/2}V_kᵀ (k × B, rows beyond the kept rank are 0), the stage-2 weights W (K' × k) and the
current φ(x_t) (k)."""


@njit_helper
def nystrom_features(M, krow, phi):
    """φ = M k_S(x)."""
    for q in range(M.shape[0]):
        phi[q] = dot(M[q], krow[: M.shape[1]])


@njit_helper
def nystrom_transition(sv, st, s):
    """Stage 1 → 2 (D9/D13.9): eigen-decompose the SV Gram matrix, set M = Λ_k^{−1/2}V_kᵀ and
    W = Aᵀ V_k Λ_k^{1/2}."""
    n = sv.meta[N]
    G = np.empty((n, n))
    for b in range(n):
        load_gram_row(sv, b, s)
        for i in range(n):
            G[b, i] = sv.grow[i]
    lam, V = np.linalg.eigh(G)  # ascending
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
        for o in range(W.shape[0]):
            acc = 0.0
            for j in range(n):
                acc += sv.coef[j, o] * V[j, col]
            W[o, q] = acc * root
        kept += 1
    st.fst[STAGE] = 1.0
    st.fst[RANK] = kept


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
    eta = st.prm[1]
    if st.fst[STAGE] == 0.0:
        if sv.meta[N] < int(st.prm[0]):  # stage 1: append x_t with ηD_t
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


@register("nogd", "NOGD: kernel OGD until B SVs, then OGD on the rank-k Nyström features of those SVs "
                  "(Lu et al. JMLR 2016)", data=("binary", "multiclass"),
          sources={"B": "AHP R script (600); AHP Table 2 budgets per dataset", "k": "LSOKL / AHP R (k = 0.2·B)",
                   "eta": "olkit default; AHP selects η from {10^-3..10^3}/√T (needs T)",
                   "sigma": "AHP Experiments (σ = 1)"})
class NOGD(BudgetLearner):
    """Nyström Online Gradient Descent (NOGD).

    Kernel OGD on the hinge loss until B support vectors are stored, then linear OGD on the rank-k Nyström
    features of those B support vectors (ALGORITHMS.md D9, D13.9; see the module docstring).

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
    compat : "none"

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
    _gram = "bounded"
    _parameter_constraints = {"k": [Interval(1, None, integer=True), None], "eta": [POSITIVE]}

    def __init__(self, B=600, k=None, eta=0.5, kernel="gaussian", sigma=1.0, degree=3, coef0=1.0, compat="none"):
        self.B = B
        self.k = k
        self.eta = eta
        self._set_kernel_params(kernel, sigma, degree, coef0, compat)

    def _rank(self):
        """k, or round(0.2·B) (at least 1) when k is None."""
        if self.k is None:
            return max(1, round(0.2 * int(self.B)))
        return int(self.k)

    def _check_params(self):
        super()._check_params()
        if self._rank() > int(self.B):
            raise ValueError(f"{self.algorithm_name}: parameter k={self.k!r} is not valid; k must be at most "
                             f"B={self.B!r} (the rank of the Nyström map of B support vectors)")

    def resolved_params(self):
        return {**self.get_params(), "k": self._rank()}

    def _rule_params(self):
        return [float(self.B), float(self.eta)]

    def _initial_fst(self):
        return [0.0, 0.0]

    def _max_support(self):
        return int(self.B)

    def _new_state(self, X):
        super()._new_state(X)
        k, B = self._rank(), int(self.B)
        self.state_ = NOGDState(*self.state_, np.zeros((k, B)), np.zeros((self._n_outputs(), k)), np.zeros(k))

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
        if not self.state_.fst[STAGE]:
            return super()._scores_from_kernel(K, norms, kp)
        return (K @ self.state_.M.T) @ self.state_.W.T

    def diagnostics(self):
        return {"transition": self._counter(TRANSITION), "rank": int(self.state_.fst[RANK])}
