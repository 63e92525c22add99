"""Kernel functions: Gaussian, linear and polynomial, for dense and CSR rows.

Every kernel is evaluated from a dot product and cached squared norms, which is what lets the kernel
engine compute a whole block of kernel rows with one BLAS matrix product:

* Gaussian  κ(x, z) = exp(−‖x − z‖² / (2σ²)) with ‖x − z‖² = ‖x‖² + ‖z‖² − 2 x·z (clamped at 0),
  the 2σ² convention of DUOL/LSOKL/Ahpatron (docs/algorithms/conventions.md#kernels); κ(x, x) = 1 exactly.
  That expansion cancels for near pairs: its rounding error is ~ε(‖x‖² + ‖z‖²), so two copies of a row
  of norm 835 get κ = 1 from one code path and 1 − 1.8e-12 from another (BLAS and a loop round x·z
  differently), and copies of a row of norm 1e10 with σ = 8 get anything from 0 to 1. A pair whose expanded
  ‖x − z‖² is at most NEAR·(‖x‖² + ‖z‖²) is therefore marked (NEAR_PAIR) by :func:`kernel_row_from_dots` and
  recomputed by the caller from the explicit differences Σ (x_k − z_k)²
  (:func:`olkit.learners.kernel.dots.near_pairs_dense`, :func:`fix_near_pairs`): copies of a row get κ = 1 on every
  path, at any
  magnitude, and a near pair's value is accurate. Any other pair's expanded distance has a relative
  error below ~d·ε/NEAR (d features).
* linear    κ(x, z) = x·z
* polynomial κ(x, z) = (x·z + coef0)^degree

A learner with ``fit_intercept`` uses κ(x, z) + c² (``KernelSpec.offset`` = c²,
docs/algorithms/options.md#fit_intercept): the kernel of the inputs extended by a constant feature c in
the feature space of κ, which gives the dual form its bias. Every kernel value below adds the offset last,
and only when it is not 0, so that a learner without an intercept computes exactly what it did before.
"""

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._compile import bits_float, float_bits, fma, max2, njit, njit_helper, njit_inline

GAUSSIAN, LINEAR, POLY = 0, 1, 2
KERNEL_CODES = {"gaussian": GAUSSIAN, "linear": LINEAR, "poly": POLY}


@dataclass(frozen=True)
class KernelSpec:
    """A kernel and its parameters; ``params()`` packs it for the compiled code."""

    kind: str = "gaussian"
    sigma: float = 8.0
    degree: int = 3
    coef0: float = 1.0
    offset: float = 0.0
    """c² of a learner with ``fit_intercept`` (0: none)."""

    def __post_init__(self):
        if self.kind not in KERNEL_CODES:
            raise ValueError(f"unknown kernel {self.kind!r}; valid kernels: {', '.join(KERNEL_CODES)}")
        if self.kind == "gaussian" and not (np.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"sigma must be a positive finite number (Gaussian width), got {self.sigma!r}")
        if self.kind == "poly":
            if int(self.degree) != self.degree or self.degree < 1:
                raise ValueError(f"degree must be a positive integer, got {self.degree!r}")
            if not np.isfinite(self.coef0):
                raise ValueError(f"coef0 must be finite, got {self.coef0!r}")

    def params(self):
        """[kind code, 1/(2σ²), degree, coef0, offset] as float64, the form the compiled kernels take."""
        gamma = 1.0 / (2.0 * self.sigma * self.sigma) if self.kind == "gaussian" else 0.0
        return np.array([KERNEL_CODES[self.kind], gamma, float(self.degree), float(self.coef0), float(self.offset)])


# exp for the Gaussian kernel. ``math.exp`` compiles to a scalar library call (numba has no vector math
# library here), ~6 ns an entry, most of a low-dimensional kernel row; this one is plain arithmetic that
# LLVM vectorises (~1.2 ns an entry with AVX-512). It is the table method of glibc's exp (2^(j/128) in
# double-double, a degree-5 polynomial on |r| ≤ ln2/256): nearly correctly rounded, it equals glibc's exp
# on 99.9% of arguments (on 2·10^6 random x ∈ [−30, 0]; numpy's own SIMD exp differs from glibc on 4.7%).
# Every Gaussian value in olkit goes through it (block transform, single entries, Gram rows, prediction),
# so all code paths agree bit for bit.
_EXP_N = 128


def _exp_tables():
    import decimal

    ctx = decimal.Context(prec=50)
    hi, lo = np.empty(_EXP_N), np.empty(_EXP_N)
    ratio = ctx.power(decimal.Decimal(2), ctx.divide(decimal.Decimal(1), decimal.Decimal(_EXP_N)))
    v = decimal.Decimal(1)
    for j in range(_EXP_N):  # 2^(j/N) by repeated multiplication: 50 digits, far beyond the 32 kept
        hi[j] = float(v)
        lo[j] = float(ctx.subtract(v, decimal.Decimal(hi[j])))
        v = ctx.multiply(v, ratio)
    step = ctx.divide(decimal.Decimal(2).ln(ctx), _EXP_N)  # ln2/N split so that k·step_hi is exact
    bits = np.array([float(step)]).view(np.int64) & ~np.int64((1 << 22) - 1)
    step_hi = float(bits.view(np.float64)[0])
    step_lo = float(ctx.subtract(step, decimal.Decimal(step_hi)))
    return hi, lo, step_hi, step_lo


_EXP_HI, _EXP_LO, _STEP_HI, _STEP_LO = _exp_tables()
_INV_STEP = _EXP_N / math.log(2.0)
_SHIFT = 6755399441055744.0  # 1.5·2^52: x/step + SHIFT rounds x/step to an integer in the low mantissa bits
_SHIFT_BITS = 0x4338000000000000
_TWO_M1000 = 9.332636185032189e-302  # 2^-1000


@njit_inline
def exp_nonpositive(x):
    """exp(x) for x ≤ 0 (0 below −746); vectorisable (no library call, no branch).

    x = (128 e + j) ln2/128 + r with |r| ≤ ln2/256: exp(x) = 2^e · 2^(j/128) · exp(r), exp(r) − 1 by its
    degree-5 Taylor polynomial, 2^(j/128) from a double-double table, 2^e from the exponent bits (as
    2^(e+1000)·2^-1000 so that subnormal results round once).
    """
    x = max2(x, -746.0)
    t = x * _INV_STEP + _SHIFT
    kd = t - _SHIFT
    k = float_bits(t) - _SHIFT_BITS
    r = fma(kd, -_STEP_HI, x)
    r = fma(kd, -_STEP_LO, r)
    j = k & (_EXP_N - 1)
    e = k >> 7
    p = r + r * r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0)))))
    th = _EXP_HI[j]
    v = th + fma(th, p, _EXP_LO[j])
    return v * bits_float((e + 2023) << 52) * _TWO_M1000


@njit_inline
def gaussian_from_dot(dot, norm2_x, norm2_z, gamma):
    """exp(−γ max(‖x‖² + ‖z‖² − 2 x·z, 0)): the one formula of every Gaussian value (κ(x, x) = 1
    exactly)."""
    return exp_nonpositive(-max2(norm2_x + norm2_z - 2.0 * dot, 0.0) * gamma)


@njit_inline
def kernel_from_dot(kp, dot, norm2_x, norm2_z):
    """κ(x, z) from x·z, ‖x‖² and ‖z‖² for the kernel packed in ``kp`` (see KernelSpec.params), plus the
    intercept's offset."""
    kind = kp[0]
    if kind == GAUSSIAN:
        v = gaussian_from_dot(dot, norm2_x, norm2_z, kp[1])
    elif kind == LINEAR:
        v = dot
    else:
        v = (dot + kp[3]) ** kp[2]
    return v + kp[4] if kp[4] != 0.0 else v


@njit
def kernel_diagonal(kp, norm2):
    """κ(x, x) for every row, from its squared norm."""
    out = np.empty(norm2.shape[0])
    for i in range(norm2.shape[0]):
        out[i] = kernel_from_dot(kp, norm2[i], norm2[i], norm2[i])
    return out


NEAR = 2.0**-20
"""A Gaussian pair with expanded ‖x − z‖² ≤ NEAR·(‖x‖² + ‖z‖²) is recomputed from the differences (see the
module docstring). Measured on the paper datasets, only copies of a row and near-copies qualify."""
NEAR_PAIR = -1.0
"""The mark :func:`kernel_row_from_dots` leaves on such a pair (a Gaussian value is never negative)."""


@njit_helper
def kernel_row_from_dots(kp, g, norm2_x, norm2_cols, n):
    """In place: g[j] ← κ(x, z_j) for j < n from the dot products g[j] = x·z_j (a vectorised loop).

    Gaussian: a near pair (see :data:`NEAR`) is left as NEAR_PAIR for the caller to recompute from the
    differences (:func:`near_gaussian` adds the offset); returns how many were left (0 for the other kernels)."""
    offset = kp[4]
    if kp[0] == GAUSSIAN:
        gamma = kp[1]
        near = 0
        for j in range(n):
            s = norm2_x + norm2_cols[j]
            d2 = s - 2.0 * g[j]
            is_near = d2 <= NEAR * s
            near += is_near
            g[j] = NEAR_PAIR if is_near else exp_nonpositive(-max2(d2, 0.0) * gamma)
        if offset != 0.0:
            for j in range(n):
                if g[j] != NEAR_PAIR:
                    g[j] += offset
        return near
    if kp[0] != LINEAR:
        c0, deg = kp[3], kp[2]
        for j in range(n):
            g[j] = (g[j] + c0) ** deg
    if offset != 0.0:
        for j in range(n):
            g[j] += offset
    return 0


@njit_inline
def near_gaussian(d2, kp):
    """The Gaussian value of a near pair from its squared distance d2 computed from the differences, plus the
    intercept's offset (the value :func:`kernel_row_from_dots` left as NEAR_PAIR)."""
    v = exp_nonpositive(-d2 * kp[1])
    return v + kp[4] if kp[4] != 0.0 else v


@njit
def gaussian_from_sq_dists(d2, gamma):
    """exp(−γ d2) for an array of squared distances (the same exp as every other Gaussian value)."""
    out = np.empty_like(d2)
    for i in range(d2.shape[0]):
        out[i] = exp_nonpositive(-d2[i] * gamma)
    return out


@njit
def kernel_from_gram(kp, G, norm2_rows, norm2_cols):
    """Turn a block of dot products G (in place) into kernel values, near Gaussian pairs left as NEAR_PAIR
    (:func:`fix_near_pairs` recomputes them); returns G."""
    for i in range(G.shape[0]):
        kernel_row_from_dots(kp, G[i], norm2_rows[i], norm2_cols, G.shape[1])
    return G


def fix_near_pairs(K, A, B, kp, chunk=4096):
    """In place: the entries of a Gaussian kernel block K = κ(A, B) that :func:`kernel_from_gram` left as
    NEAR_PAIR, recomputed from the explicit differences of their rows (dense or CSR; ``chunk`` pairs at a
    time); returns K. Other kernels are returned as they are (their values may be −1)."""
    if kp[0] != GAUSSIAN:
        return K
    ii, jj = np.nonzero(K == NEAR_PAIR)
    mixed = sp.issparse(A) != sp.issparse(B)
    for lo in range(0, ii.size, chunk):
        i, j = ii[lo : lo + chunk], jj[lo : lo + chunk]
        Ai, Bj = A[i], B[j]
        if mixed:  # CSR and dense rows: the dense ones as CSR (never a dense copy of wide sparse rows)
            Ai, Bj = (M if sp.issparse(M) else sp.csr_matrix(M) for M in (Ai, Bj))
        D = Ai - Bj
        d2 = np.asarray(D.multiply(D).sum(axis=1)).ravel() if sp.issparse(D) else np.einsum("ij,ij->i", D, D)
        K[i, j] = gaussian_from_sq_dists(np.ascontiguousarray(d2, dtype=np.float64), kp[1])
        if kp[4] != 0.0:
            K[i, j] += kp[4]
    return K


def row_norms2(X):
    """Squared Euclidean norm of every row of a dense array or CSR matrix."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel().astype(np.float64)
    return np.einsum("ij,ij->i", X, X)


def dot_block(A, B):
    """A·Bᵀ as a dense float64 array; CSR inputs stay sparse (never densified)."""
    if sp.issparse(A) or sp.issparse(B):
        prod = A @ B.T
        return prod.toarray() if sp.issparse(prod) else np.asarray(prod)
    return A @ B.T


def kernel_matrix(A, B, spec, norm2_a=None, norm2_b=None):
    """Kernel matrix K[i, j] = κ(a_i, b_j), computed blockwise as dot products plus cached norms."""
    spec = spec if isinstance(spec, KernelSpec) else KernelSpec(*spec)
    norm2_a = row_norms2(A) if norm2_a is None else norm2_a
    norm2_b = row_norms2(B) if norm2_b is None else norm2_b
    G = np.ascontiguousarray(dot_block(A, B), dtype=np.float64)
    kp = spec.params()
    return fix_near_pairs(kernel_from_gram(kp, G, norm2_a, norm2_b), A, B, kp)


def describe(params):
    """The kernel a learner with these parameters computes, in words for tables and the run JSON:
    ``"gaussian (sigma=8)"``, ``"poly (degree=3, coef0=1)"`` or ``"linear"``. A learner without a ``kernel``
    parameter (the second-order linear learners) is linear. The learners do not share one default: the DUOL
    paper's learners default to the Gaussian kernel with sigma = 8, the budgeted ones to sigma = 1, and SCW-I/II
    and the second-order family to the linear kernel."""
    kind = params.get("kernel", "linear")
    if kind == "gaussian":
        return f"gaussian (sigma={params['sigma']:g})"
    if kind == "poly":
        return f"poly (degree={params['degree']}, coef0={params['coef0']:g})"
    return str(kind)
