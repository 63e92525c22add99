"""Kernel functions: Gaussian, linear and polynomial, for dense and CSR rows.

Every kernel is evaluated from a dot product and cached squared norms, which is what lets the kernel
engine compute a whole block of kernel rows with one BLAS matrix product:

* Gaussian  κ(x, z) = exp(−‖x − z‖² / (2σ²)) with ‖x − z‖² = ‖x‖² + ‖z‖² − 2 x·z (clamped at 0),
  the 2σ² convention of DUOL/LSOKL/Ahpatron (ALGORITHMS.md §0.4); κ(x, x) = 1 exactly.
* linear    κ(x, z) = x·z
* polynomial κ(x, z) = (x·z + coef0)^degree
"""
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._compile import njit

GAUSSIAN, LINEAR, POLY = 0, 1, 2
KERNEL_CODES = {"gaussian": GAUSSIAN, "linear": LINEAR, "poly": POLY}


@dataclass(frozen=True)
class KernelSpec:
    """A kernel and its parameters; ``params()`` packs it for the compiled code."""

    kind: str = "gaussian"
    sigma: float = 8.0
    degree: int = 3
    coef0: float = 1.0

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
        """[kind code, 1/(2σ²), degree, coef0] as float64, the form the compiled kernels take."""
        gamma = 1.0 / (2.0 * self.sigma * self.sigma) if self.kind == "gaussian" else 0.0
        return np.array([KERNEL_CODES[self.kind], gamma, float(self.degree), float(self.coef0)])


@njit
def kernel_from_dot(kp, dot, norm2_x, norm2_z):
    """κ(x, z) from x·z, ‖x‖² and ‖z‖² for the kernel packed in ``kp`` (see KernelSpec.params)."""
    kind = kp[0]
    if kind == GAUSSIAN:
        dist2 = norm2_x + norm2_z - 2.0 * dot
        if dist2 < 0.0:  # rounding residue for (near-)identical points
            dist2 = 0.0
        return np.exp(-dist2 * kp[1])
    if kind == LINEAR:
        return dot
    return (dot + kp[3]) ** kp[2]


@njit
def kernel_diagonal(kp, norm2):
    """κ(x, x) for every row, from its squared norm."""
    out = np.empty(norm2.shape[0])
    for i in range(norm2.shape[0]):
        out[i] = kernel_from_dot(kp, norm2[i], norm2[i], norm2[i])
    return out


@njit
def kernel_from_gram(kp, G, norm2_rows, norm2_cols):
    """Turn a block of dot products G (in place) into kernel values."""
    for i in range(G.shape[0]):
        for j in range(G.shape[1]):
            G[i, j] = kernel_from_dot(kp, G[i, j], norm2_rows[i], norm2_cols[j])
    return G


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
    return kernel_from_gram(spec.params(), G, norm2_a, norm2_b)
