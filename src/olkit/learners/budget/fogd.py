"""FOGD — Fourier Online Gradient Descent (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016); spec: docs/algorithms/fogd.md,
with its multi-prototype form on data with three or more classes.

The Gaussian kernel κ(x, x') = exp(−‖x − x'‖²/(2σ²)) is replaced by D random Fourier directions (Rahimi &
Recht 2007): u_1..u_D ~ N(0, σ⁻² I_d), drawn once when the model is created, and

    z(x) = [cos(u_1·x), …, cos(u_D·x), sin(u_1·x), …, sin(u_D·x)] / √D  ∈ R^{2D},

so that z(x)·z(x') = (1/D) Σ_j cos(u_j·(x − x')) → κ(x, x') as D grows. The learner is then plain online
gradient descent on the hinge loss in that feature space, no regularisation and no projection:

* binary: f = w·z(x_t), ŷ_t = +1 iff f ≥ 0; if y_t f < 1: w ← w + η y_t z(x_t);
* K ≥ 3 classes (docs/algorithms/fogd.md#multiclass-and-multi-label): F = W z(x_t) ∈ R^K, ŷ_t = argmax F (ties →
  smallest index),
  s_t = argmax_{s ≠ y_t} F_s (ties → smallest index), Γ_t = F_{y_t} − F_{s_t};
  if Γ_t < 1: W_{y_t} ← W_{y_t} + η z(x_t), W_{s_t} ← W_{s_t} − η z(x_t).

A mistake is ŷ_t ≠ y_t; the update test is the margin (independent of the mistake). With K = 2 the
multiclass rule with step η equals the binary rule with 2η (docs/algorithms/multiclass.md#budgeted-learners, +1 ↔
class index 0).

Implementation notes
--------------------
* The directions are ``U = (numpy.random.default_rng(seed).standard_normal((d, D)) / sigma)`` rounded to
  float32 (column j is u_j), drawn in ``fit`` / the first ``partial_fit`` from the number of features. They
  are part of the model state, so a pickled learner continues the same stream identically. Rounding a
  Gaussian draw to 24 bits leaves it a Gaussian draw for every purpose of the method (the stored U are the
  model's exact directions: z(x) is computed from them, in float64); it halves the model's memory and the
  bytes the projection reads per example, which bound it (ijcnn1, D = 2000: 0.94 → 0.81 s a pass, 0.77 s
  with the projection's four terms per pass below). A model saved with float64 directions keeps them.
* z(x_t) is computed inside the compiled loop, one row at a time: the projection u_j·x_t as a sum over the
  row's non-zeros in index order (dense rows skip their zeros, so a dense row and its CSR form give the same
  bits; a sparse stream is never densified), one fused multiply-add per term, four terms per pass over p,
  then cos and sin. Not with BLAS: a gemm's result for one row depends on where the row falls in the block
  (measured with OpenBLAS: 2% of the entries of X_block @ U differ in the last bits between block sizes),
  and ``partial_fit`` in chunks must give exactly the one-pass result. numpy's float64 cos/sin are scalar
  library calls (~25 ns a value: 14 s for ijcnn1 with D = 2000), so cos and sin come from :func:`sincos`, a
  branch-free, vectorised evaluation (Cody–Waite reduction by π/2 with fused multiply-adds, fdlibm's
  polynomials on [−π/4, π/4]; within 1 ulp of the C library, ~1.4 ns a pair). Arguments beyond ±1e9 (never
  from scaled data) fall back to ``math.cos``/``math.sin``.
* The per-example round (:func:`hinge_ogd_round`) works on any explicit feature vector, so NOGD's second
  stage (a linear model on Nyström features) uses it too.

Parameters are the specification's: ``D`` (random directions; the feature vector has 2D entries), ``eta`` (step),
``sigma`` (Gaussian width), ``seed``. ``compat="lsokl"`` reproduces LSOKL's ``FouGD.m`` (Lu et al.'s MATLAB
code), which omits the 1/√D (docs/algorithms/fogd.md#lsokl): the scores are those of the default rule run with step
η·D. The AHP authors'
``FOGD.R`` needs no ``compat`` value: it is the default rule (z/√D with cos before sin, w = 0 at the start,
ŷ = −1 iff f < 0, update iff y f < 1, no forced round-1 mistake) and reports D, as ``n_support_`` does; only its
directions (R's ``mvrnorm``) cannot be reproduced (docs/algorithms/fogd.md#settled-questions).

Slow reference: tests/reference/feature_maps.py (``fogd``).
"""

import math
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..._compile import (
    compile_loop,
    float_bits,
    fma,
    max2,
    njit,
    njit_helper,
    njit_helper_nonan,
    njit_helper_reassoc,
    njit_inline,
)
from ...base import MISTAKES, N_COUNTERS, SEEN, UPDATES, OnlineClassifier
from ...limits import format_bytes, width_words
from ...params import POSITIVE, SEED, SIGMA, Interval, Options
from ...spec import register
from ..records import rule_params

FEATURE_BLOCK_SIZE = 1 << 14
"""Examples per call of the compiled loop: one round costs microseconds (the 2D features), so the per-call
overhead (~20 µs) is negligible at this size."""

MODEL_LIMIT_BYTES = 4 * 2**30
"""The directions (d × D) and weights (K × 2D) together may not exceed this (checked before allocating)."""

# ---- sin and cos, vectorised ------------------------------------------------------------------------
# x = k·π/2 + r with k = round(2x/π) and |r| ≤ π/4; π/2 in three parts (each the rounded remainder of the
# previous) and fused multiply-adds keep r accurate to ~1e-16 absolute for |x| ≤ SINCOS_LIMIT. The polynomials
# are fdlibm's __kernel_sin / __kernel_cos minimax coefficients on [−π/4, π/4]. The quadrant k mod 4 picks
# (±sin r, ±cos r) with selects, so the loop over a row has no branch and LLVM vectorises it.
_PIO2_1 = 1.5707963267948966
_PIO2_2 = 6.123233995736766e-17
_PIO2_3 = -1.4973849048591698e-33
_TWO_OVER_PI = 0.6366197723675814
_SHIFT = 6755399441055744.0  # 1.5·2^52: x·2/π + SHIFT rounds to an integer held in the low mantissa bits
_SHIFT_BITS = 0x4338000000000000
_S1, _S2, _S3 = -1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04
_S4, _S5, _S6 = 2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10
_C1, _C2, _C3 = 4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05
_C4, _C5, _C6 = -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11
SINCOS_LIMIT = 1e9
"""Beyond |x| = SINCOS_LIMIT the library's scalar sin/cos are used (the fast reduction needs |2x/π| < 2^51)."""


@njit_inline
def sincos(x):
    """(sin x, cos x) for |x| ≤ SINCOS_LIMIT, within 1 ulp (see the comment above); no branch."""
    t = fma(x, _TWO_OVER_PI, _SHIFT)
    k = t - _SHIFT
    quadrant = float_bits(t) - _SHIFT_BITS
    r = fma(k, -_PIO2_1, x)
    r = fma(k, -_PIO2_2, r)
    r = fma(k, -_PIO2_3, r)
    z = r * r
    s = r + r * z * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))))
    hz = 0.5 * z
    w = 1.0 - hz
    c = w + (((1.0 - w) - hz) + z * z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6))))))
    swap = (quadrant & 1) != 0
    sn = c if swap else s
    cs = s if swap else c
    sn = -sn if (quadrant & 2) != 0 else sn
    cs = -cs if ((quadrant + 1) & 2) != 0 else cs
    return sn, cs


# ---- the feature map ---------------------------------------------------------------------------------
@njit_helper
def project_row(U, dense, Xd, indptr, idx, val, t, p, nzk, nzx):
    """p = x_tᵀU (p_j = u_j·x_t), summed over the row's non-zeros in index order. Returns ‖x_t‖₁ (so that
    max_j |p_j| ≤ ‖x_t‖₁·max|U|). ``nzk``/``nzx`` (length d) receive a dense row's non-zeros."""
    if dense:
        nnz = 0
        for k in range(Xd.shape[1]):
            if Xd[t, k] != 0.0:
                nzk[nnz] = k
                nzx[nnz] = Xd[t, k]
                nnz += 1
        return _project(U, nzk, nzx, 0, nnz, p)
    return _project(U, idx, val, indptr[t], indptr[t + 1], p)


@njit_helper
def _project(U, ks, xs, lo, hi, p):
    """p = Σ_{q=lo..hi−1} xs[q]·U[ks[q]] with one fused multiply-add per term, in the order of q, four terms
    per pass over p (p, 8·D bytes, is read and written once per pass: a pass per term made the projection
    bound by those reads and writes); returns Σ|xs[q]|."""
    D = p.shape[0]
    norm1 = 0.0
    for q in range(lo, hi):
        norm1 += abs(xs[q])
    for j in range(D):  # (a loop: slice assignment compiles numba's broadcast checks, seconds of a cold start)
        p[j] = 0.0
    q = lo
    while q + 4 <= hi:
        x0, x1, x2, x3 = xs[q], xs[q + 1], xs[q + 2], xs[q + 3]
        u0, u1, u2, u3 = U[ks[q]], U[ks[q + 1]], U[ks[q + 2]], U[ks[q + 3]]
        for j in range(D):
            p[j] = fma(x3, u3[j], fma(x2, u2[j], fma(x1, u1[j], fma(x0, u0[j], p[j]))))
        q += 4
    while q < hi:
        x0, u0 = xs[q], U[ks[q]]
        for j in range(D):
            p[j] = fma(x0, u0[j], p[j])
        q += 1
    return norm1


@njit_helper_nonan
def largest_magnitude(p):
    """max_j |p_j| (a vectorised reduction: the values are finite)."""
    largest = 0.0
    for j in range(p.shape[0]):
        largest = max2(largest, abs(p[j]))
    return largest


@njit_helper
def fourier_map(p, scale, z, bound):
    """z = scale·[cos p, sin p] (z has 2·len(p) entries); ``bound`` ≥ max_j |p_j|."""
    D = p.shape[0]
    zc, zs = z[:D], z[D:]  # two views: writes to z[j] and z[D + j] in one loop defeat vectorisation (7x slower)
    for j in range(D):  # (a max reduction in this loop would defeat it too)
        sn, cs = sincos(p[j])
        zc[j] = cs * scale
        zs[j] = sn * scale
    if bound > SINCOS_LIMIT and largest_magnitude(p) > SINCOS_LIMIT:  # never for scaled data
        for j in range(D):
            if abs(p[j]) > SINCOS_LIMIT:
                zc[j] = math.cos(p[j]) * scale
                zs[j] = math.sin(p[j]) * scale


# ---- the round: hinge-loss OGD on an explicit feature vector (FOGD, NOGD stage 2) ---------------------
@njit_helper_reassoc
def dot(a, b):
    acc = 0.0
    for j in range(a.shape[0]):
        acc += a[j] * b[j]
    return acc


@njit_helper
def add_scaled(w, a, z):
    """w ← w + a·z."""
    for j in range(w.shape[0]):
        w[j] += a * z[j]


@njit_helper
def hinge_ogd_round(W, z, yt, eta, F):
    """Score z with W (one row per output), predict, and take the hinge OGD step (FOGD binary / multiclass, NOGD
    stage 2).

    ``F`` receives the K scores (binary: K = 1, f = w·z). ``eta`` = 0 (an example of weight 0) takes no step.
    Returns (mistake, updated)."""
    K = W.shape[0]
    for o in range(K):
        F[o] = dot(W[o], z)
    if K == 1:  # binary: ŷ = +1 iff f ≥ 0; if y f < 1: w += η y z
        f = F[0]
        mistake = (1.0 if f >= 0.0 else -1.0) != yt
        if yt * f < 1.0 and eta != 0.0:
            add_scaled(W[0], eta * yt, z)
            return mistake, True
        return mistake, False
    # multiclass: ŷ = argmax F and s = argmax_{s≠y} F (ties → smallest index); if Γ = F_y − F_s < 1: W_y += ηz, W_s −=
    # ηz
    y = int(yt)
    best = 0
    for o in range(1, K):
        if F[o] > F[best]:
            best = o
    s = 1 if y == 0 else 0
    for o in range(K):
        if o != y and F[o] > F[s]:
            s = o
    if F[y] - F[s] < 1.0 and eta != 0.0:
        add_scaled(W[y], eta, z)
        add_scaled(W[s], -eta, z)
        return best != y, True
    return best != y, False


class FOGDParams(NamedTuple):
    """Parameters of FOGD, resolved for the stream."""

    eta: float
    scale: float  # the feature map's scale 1/√D
    umax: float  # max |U_ij| of the random directions (the rounding bound of each projection)


FOGDState = namedtuple("FOGDState", ["prm", "cnt", "U", "W"])
"""The model: parameters [η, feature scale, max|U|], running counters, directions U (d × D), weights W (K' × 2D)."""

FOGDAveragedState = namedtuple("FOGDAveragedState", ["prm", "cnt", "U", "W", "P", "avg"])
"""The model of FOGD with ``average`` (docs/algorithms/fogd.md#averaging): FOGDState's fields, the sums P (the shape
of W) and avg = [q, N], with Σ over the averaged rounds of W_t = P + q·W. A learner without ``average`` keeps a
FOGDState (and model files written before FOGD averaged still load)."""

FeatureStream = namedtuple("FeatureStream", ["dense", "Xd", "indptr", "idx", "val", "y", "p", "z", "nzk", "nzx", "sw"])
"""A validated stream for the compiled loop: dense rows ``Xd`` or CSR (indptr, idx, val), labels in the
learner's coding (binary ±1, multiclass index), and work vectors p (D), z (2D) and a dense row's non-zeros
(indices ``nzk``, values ``nzx``: length d), and the weight of each row (``sw``, docs/algorithms/options.md#weights)."""


def fogd_block(st, s, order, start, stop, scores, mistakes, average_start):
    """Predict-then-update for stream positions start..stop−1 (the inner part of olkit.protocol).

    A template (:func:`olkit._compile.compile_loop`): ``average_round`` is bound at compile time to
    :func:`average_nothing` (a learner without ``average``: compiled away) or :func:`average_round_step`."""
    eta, scale, umax = st.prm.eta, st.prm.scale, st.prm.umax
    n_mistakes = n_updates = 0
    seen = st.cnt[SEEN]
    for pos in range(start, stop):
        t = order[pos]
        norm1 = project_row(st.U, s.dense, s.Xd, s.indptr, s.idx, s.val, t, s.p, s.nzk, s.nzx)
        fourier_map(s.p, scale, s.z, norm1 * umax)
        # weight s_t: the step η s_t (the hinge loss weighted by s_t); weight 0 is no step
        a = eta * s.sw[t]
        mistake, updated = hinge_ogd_round(st.W, s.z, s.y[t], a, scores[pos])
        seen += 1
        average_round(st, s.z, s.y[t], a, scores[pos], updated, seen, average_start)  # noqa: F821  (bound)
        mistakes[pos] = mistake
        n_mistakes += mistake
        n_updates += updated
    st.cnt[SEEN] += stop - start
    st.cnt[MISTAKES] += n_mistakes
    st.cnt[UPDATES] += n_updates


@njit_helper
def average_nothing(st, z, yt, a, F, updated, seen, average_start):
    """A learner without ``average``: nothing to record."""


@njit_helper
def average_round_step(st, z, yt, a, F, updated, seen, average_start):
    """The averaged model after a round (docs/algorithms/fogd.md#averaging): a step δ = a·(the direction) of W sets
    P ← P − q·δ (O(2D), as the step), with the round's q (the round has not counted yet); then the ``seen``-th
    example, from the ``average_start``-th on, counts: q += 1, N += 1."""
    q = st.avg[0]
    if updated and q != 0.0:
        _record_step(st.P, z, yt, a * q, F)
    if seen >= average_start:
        st.avg[0] = q + 1.0
        st.avg[1] += 1.0


@njit_helper
def _record_step(P, z, yt, aq, F):
    """P −= q·δ for the step δ :func:`hinge_ogd_round` just took (aq = η s_t q; F: the round's scores, from which
    the multiclass rule's pair (y, s) is read again, the same way)."""
    K = P.shape[0]
    if K == 1:
        add_scaled(P[0], -(aq * yt), z)
        return
    y = int(yt)
    s = 1 if y == 0 else 0
    for o in range(K):
        if o != y and F[o] > F[s]:
            s = o
    add_scaled(P[y], -aq, z)
    add_scaled(P[s], aq, z)


@njit
def fogd_scores(st, s, out):
    """Scores of every row of the stream under the current model (out: n × K')."""
    for t in range(out.shape[0]):
        norm1 = project_row(st.U, s.dense, s.Xd, s.indptr, s.idx, s.val, t, s.p, s.nzk, s.nzx)
        fourier_map(s.p, st.prm.scale, s.z, norm1 * st.prm.umax)
        for o in range(st.W.shape[0]):
            out[t, o] = dot(st.W[o], s.z)


@njit
def fogd_features(st, s, out):
    """z(x) of every row of the stream (out: n × 2D)."""
    for t in range(out.shape[0]):
        norm1 = project_row(st.U, s.dense, s.Xd, s.indptr, s.idx, s.val, t, s.p, s.nzk, s.nzx)
        fourier_map(s.p, st.prm.scale, out[t], norm1 * st.prm.umax)


def feature_stream(X, y_internal, D, intercept=0.0, weights=None):
    """Pack validated data (dense float64 C array or CSR) for the compiled loop. ``intercept`` c > 0
    (``fit_intercept``): the feature vector gets a constant last entry c, z = [z(x), c] ∈ R^{2D+1}
    (docs/algorithms/options.md#fit_intercept). ``weights``: the weight of each row (None: all 1)."""
    y = np.ascontiguousarray(y_internal, dtype=np.float64)
    sw = np.ones(y.shape[0]) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    p, z = np.empty(D), np.empty(2 * D + (intercept != 0.0))
    z[2 * D :] = intercept
    if sp.issparse(X):
        return FeatureStream(
            False,
            np.empty((0, 0)),
            X.indptr.astype(np.int64),
            X.indices.astype(np.int64),
            X.data.astype(np.float64, copy=False),
            y,
            p,
            z,
            np.zeros(0, np.int64),
            np.empty(0),
            sw,
        )
    empty_i = np.zeros(1, np.int64)
    return FeatureStream(
        True,
        np.ascontiguousarray(X, dtype=np.float64),
        empty_i,
        empty_i,
        np.empty(0),
        y,
        p,
        z,
        np.zeros(X.shape[1], np.int64),
        np.empty(X.shape[1]),
        sw,
    )


@register(
    "fogd",
    "FOGD: hinge-loss online gradient descent on D random Fourier features of the Gaussian "
    "kernel (Lu et al. JMLR 2016)",
    data=("binary", "multiclass"),
    sources={
        "D": "AHP Table 2 (D = 2000 for phishing, SUSY, ijcnn1, cod-rna; 300 for w8a, a9a)",
        "eta": "olkit default; AHP selects η from {10^-3..10^3}/√T (needs T)",
        "sigma": "AHP Experiments (σ = 1; σ = 2 for w8a, a9a)",
    },
    position=210,
    sweep={
        "small": {"D": 16},
        "cases": [{"D": 4, "eta": 2.0}],
        "grid": {"D": [1, 4, 16], "eta": [0.5, 0.1, 2.0], "seed": [0, 3]},
    },
    weight="the step η·s: the hinge loss weighted by s (w += η s y z(x) on a margin error)",
)
class FOGD(OnlineClassifier):
    """Fourier Online Gradient Descent (FOGD).

    Online gradient descent on the hinge loss in the space of D random Fourier features of the Gaussian
    kernel: w ← w + η y_t z(x_t) whenever y_t w·z(x_t) < 1 (docs/algorithms/fogd.md); on data with K ≥ 3 classes
    W_{y_t} += η z, W_{s_t} −= η z whenever F_{y_t} − F_{s_t} < 1. See the module docstring.

    Parameters
    ----------
    D : int ≥ 1, default 2000
        Number of random Fourier directions u_j ~ N(0, σ⁻²I); the feature vector has 2D entries
        (AHP Table 2: 2000 for phishing, SUSY, ijcnn1, cod-rna; 300 for w8a, a9a).
    eta : float > 0, default 0.5
        Step size η of the gradient step. The Ahpatron experiments select η from {10^-3, …, 10^3}/√T, which needs the
        stream
        length T; 0.5 is olkit's default (no static grid, so ``--tune`` leaves it).
    kernel : {"gaussian"}, default "gaussian"
        Random Fourier features approximate the Gaussian kernel only.
    sigma : float > 0, default 1
        Gaussian width, κ(x, x') = exp(−‖x − x'‖²/(2σ²)) (AHP Experiments: σ = 1; 2 for w8a and a9a).
    seed : int ≥ 0, default 0
        The directions are ``numpy.random.default_rng(seed).standard_normal((d, D)) / sigma``, stored as
        float32.
    compat : {"none", "lsokl"}, default "none"
        "lsokl": LSOKL's ``FouGD.m`` features without the 1/√D (docs/algorithms/fogd.md#lsokl); the same run as
        "none" with step η·D, up to rounding.

    Attributes
    ----------
    n_support_ : int
        D, the budget of the model (as the AHP authors' ``FOGD.R`` reports it; FOGD stores no support vectors).
    directions_ : ndarray (d, D), float32
        U; column j is u_j.
    coef_ : ndarray (1, 2D) for binary data, (K, 2D) for K ≥ 3 classes
        The weights w (rows W_r) on z(x).

    Examples
    --------
    >>> import olkit
    >>> X, y = olkit.load_dataset("german")
    >>> olkit.evaluate_online(olkit.make("fogd", D=500), X, y).n_sv
    500

    References
    ----------
    Lu, J., Hoi, S. C. H., Wang, J., Zhao, P., Liu, Z.-Y. (2016). Large scale online kernel learning. JMLR 17(47).
    Rahimi, A., Recht, B. (2007). Random features for large-scale kernel machines. NIPS.
    """

    _multiclass = True
    _score_columns_2d = True
    _block_size = FEATURE_BLOCK_SIZE
    compat_choices = ("none", "lsokl")
    _parameter_constraints = {
        "D": [Interval(1, None, integer=True)],
        "eta": [POSITIVE],
        "kernel": [Options(("gaussian",))],
        "sigma": [SIGMA],
        "seed": [SEED],
    }

    _binary_as_multiclass = False
    """Test hook (docs/algorithms/budget-family.md#invariants): run 2-class data through the multiclass rule
    (K = 2) instead of the binary one."""

    def __init__(
        self,
        D=2000,
        eta=0.5,
        kernel="gaussian",
        sigma=1.0,
        seed=0,
        compat="none",
        *,
        fit_intercept=False,
        intercept_scaling=1.0,
        average=False,
        class_weight=None,
        shuffle=True,
        random_state=None,
    ):
        self.D = D
        self.eta = eta
        self.kernel = kernel
        self.sigma = sigma
        self.seed = seed
        self.compat = compat
        self._set_options(
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            class_weight=class_weight,
            shuffle=shuffle,
            random_state=random_state,
        )

    # ---- state -------------------------------------------------------------------------------------
    def _n_outputs(self):
        """K': one weight vector on binary data, one per class on multiclass data."""
        if len(self.classes_) == 2 and not self._binary_as_multiclass:
            return 1
        return len(self.classes_)

    def _score_columns(self):
        return self._n_outputs()

    def _feature_scale(self):
        return 1.0 if self.compat == "lsokl" else 1.0 / math.sqrt(int(self.D))

    def _new_state(self, X):
        d, D, K = X.shape[1], int(self.D), self._n_outputs()
        need = 4 * D * d + 16 * D * K
        if need > MODEL_LIMIT_BYTES:
            raise ValueError(
                f"{self.algorithm_name}: parameter D={self.D!r} is too large for {K} output(s) on "
                f"{width_words(X)}: the d x D directions and the weights need {format_bytes(need)} "
                f"(limit {format_bytes(MODEL_LIMIT_BYTES)}); use a smaller D (memory 4·d·D + 16·K·D "
                f"bytes)"
            )
        U = (np.random.default_rng(int(self.seed)).standard_normal((d, D)) / float(self.sigma)).astype(np.float32)
        umax = float(np.max(np.abs(U))) if U.size else 0.0
        state = FOGDState(
            rule_params(FOGDParams, eta=self.eta, scale=self._feature_scale(), umax=umax),
            np.zeros(N_COUNTERS, np.int64),
            U,
            np.zeros((K, 2 * D + bool(self.fit_intercept))),
        )
        if self._average_start() > 0:  # docs/algorithms/fogd.md#averaging
            state = FOGDAveragedState(*state, np.zeros_like(state.W), np.zeros(2))
        self.state_ = state

    def _averages(self):
        """FOGD keeps an averaged model of its weights W (docs/algorithms/fogd.md#averaging)."""
        return True

    def _check_state(self):
        """The averaged model's counts: N a count of rounds no larger than the rounds seen, q = N (no lazy scale)."""
        st = self.state_
        if isinstance(st, FOGDAveragedState):
            q, rounds = st.avg
            if not (rounds == int(rounds) and 0 <= rounds <= st.cnt[SEEN] and q == rounds):
                raise ValueError(f"state_.avg: q = {q}, N = {rounds} is not a count of the rounds seen")

    def _weights(self):
        """The weights ``predict``, ``decision_function`` and ``coef_`` use: with ``average``, the averaged model
        (P + q·W)/N once a round is averaged (docs/algorithms/fogd.md#averaging); else W."""
        st = self.state_
        if isinstance(st, FOGDAveragedState) and st.avg[1] > 0:
            return (st.P + st.avg[0] * st.W) / st.avg[1]
        return st.W

    # ---- the protocol's hooks ----------------------------------------------------------------------
    def _engine_input(self, X):
        return X  # validated: dense float64 C array or canonical CSR (never densified)

    def _make_stream(self, X, y_internal, weights=None):
        if self._binary_as_multiclass and len(self.classes_) == 2:
            y_internal = (np.asarray(y_internal) > 0).astype(np.float64)  # ±1 → class index 0/1
        return feature_stream(X, y_internal, int(self.D), self._intercept_constant(), weights)

    def _learn_block(self, stream, X, order, start, stop, scores, mistakes):
        averaged = isinstance(self.state_, FOGDAveragedState)
        loop = compile_loop(fogd_block, average_round=average_round_step if averaged else average_nothing)
        loop(self.state_, stream, order, start, stop, scores, mistakes, self._average_start())

    def _warm_up(self, X, y_internal):
        """Load (or compile) the compiled loop before any timing starts (runs no example)."""
        self._learn_block(
            self._make_stream(X[:1], y_internal[:1]),
            X[:1],
            np.zeros(1, np.int64),
            0,
            0,
            np.empty((0, self._n_outputs())),
            np.empty(0, np.int8),
        )

    def _decision(self, X):
        st = self.state_
        model = FOGDState(st.prm, st.cnt, st.U, self._weights())  # the averaged weights with ``average``
        scores = np.empty((X.shape[0], st.W.shape[0]))
        fogd_scores(model, feature_stream(X, np.zeros(X.shape[0]), int(self.D), self._intercept_constant()), scores)
        if scores.shape[1] == 1:
            return scores[:, 0]
        if len(self.classes_) == 2:
            return scores[:, 1] - scores[:, 0]  # a 2-class model on binary data: f_+ − f_−
        return scores

    # ---- the model ---------------------------------------------------------------------------------
    def fourier_features(self, X):
        """z(x) for every row of X, shape (n, 2D): [cos(xU), sin(xU)]/√D (without 1/√D under "lsokl")."""
        self._check_fitted()
        X = self._validate_X(X, reset=False)
        out = np.empty((X.shape[0], 2 * int(self.D)))
        fogd_features(self.state_, feature_stream(X, np.zeros(X.shape[0]), int(self.D)), out)
        return out

    @property
    def n_support_(self):
        """D: FOGD stores no support vectors; like the AHP authors' ``FOGD.R`` we report its budget."""
        return int(self.D)

    @property
    def directions_(self):
        self._check_fitted()
        return self.state_.U

    @property
    def coef_(self):
        """The weights of the 2D random features, one row per output (without the constant feature's); with
        ``average``, the averaged model's."""
        self._check_fitted()
        return self._weights()[:, : 2 * int(self.D)].copy()

    @property
    def intercept_(self):
        """The bias b = c·w_c of ``fit_intercept`` (zeros without it), one per output."""
        self._check_fitted()
        W = self._weights()
        return self._intercept_constant() * W[:, -1] if self.fit_intercept else np.zeros(W.shape[0])
