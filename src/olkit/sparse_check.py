"""Structural validation of scipy sparse input, before anything compiled reads it.

The compiled loops index weight vectors, work arrays and support sets with a sparse row's column indices
and walk its ``indptr`` without bounds checks. A matrix whose arrays were edited (``X.indices[1] = 10**6``)
or built inconsistently would make them read or write memory they do not own. So every sparse input is
checked here, once, at O(nnz), as scikit-learn's ``check_array`` / scipy's ``check_format(full_check=True)``
do: index arrays one-dimensional and of an integer type, ``indptr`` of length n + 1 starting at 0,
non-decreasing and ending at nnz = len(indices) = len(data), every index inside the matrix. Formats other
than CSR are checked in their own layout first (scipy's conversions trust it too), then converted.

:func:`valid_csr` is the entry point of the estimators (``OnlineClassifier._validate_X``, which every
other path — :func:`olkit.evaluate_online`, the streaming reader, the River adapter — goes through).
"""

import numpy as np
import scipy.sparse as sp


def _first_decrease(indptr):
    """The first i with indptr[i + 1] < indptr[i], or -1 (O(n_major), numpy)."""
    down = indptr[1:] < indptr[:-1]
    return int(np.argmax(down)) if down.any() else -1


def _first_outside(indices, bound):
    """The first k with indices[k] outside [0, bound), or -1. One pass in the common case: the indices viewed
    as unsigned integers of their width (a negative index becomes huge) have a maximum below ``bound``."""
    if not len(indices):
        return -1
    unsigned = indices if indices.dtype.kind == "u" else indices.view(indices.dtype.str.replace("i", "u"))
    if unsigned.max() < bound:
        return -1
    return int(np.flatnonzero((indices < 0) | (indices >= bound))[0])


def _fail(what, X, problem):
    raise ValueError(f"{what} is not a valid {type(X).__name__}: {problem}")


def _check_index_array(what, X, name, arr):
    if not isinstance(arr, np.ndarray) or arr.ndim != 1:
        _fail(what, X, f"{name} must be a one-dimensional array, got {type(arr).__name__} of shape {np.shape(arr)}")
    if arr.dtype.kind not in "iu":
        _fail(what, X, f"{name} must hold integers, got dtype {arr.dtype}")


def _check_data(what, X, data, n, ndim=1):
    if not isinstance(data, np.ndarray) or data.ndim != ndim:
        _fail(what, X, f"data must be a {ndim}-D array, got shape {np.shape(data)}")
    if data.shape[0] != n:
        _fail(what, X, f"data has {data.shape[0]} entries, the index arrays {n}")


def _check_compressed(what, X, indptr, indices, data, n_major, n_minor, major, minor, data_ndim=1):
    """The compressed layout (``major``: "row" for CSR, "column" for CSC, "block row" for BSR, whose data
    has 3 dimensions)."""
    _check_index_array(what, X, "indptr", indptr)
    _check_index_array(what, X, "indices", indices)
    if len(indptr) != n_major + 1:
        _fail(what, X, f"indptr has {len(indptr)} entries, expected {n_major + 1} (one per {major}, plus one)")
    nnz = len(indices)
    if indptr[0] != 0:
        _fail(what, X, f"indptr[0] is {indptr[0]}, expected 0")
    if indptr[-1] != nnz:
        _fail(what, X, f"indptr[-1] is {indptr[-1]}, expected the number of stored entries len(indices) = {nnz}")
    _check_data(what, X, data, nnz, ndim=data_ndim)
    i = _first_decrease(indptr)
    if i >= 0:
        _fail(what, X, f"indptr is not non-decreasing: indptr[{i + 1}] = {indptr[i + 1]} < indptr[{i}] = {indptr[i]}")
    k = _first_outside(indices, n_minor)  # indptr non-decreasing from 0 to nnz: every slice lies inside indices
    if k >= 0:
        row = int(np.searchsorted(indptr, k, side="right")) - 1
        _fail(
            what,
            X,
            f"indices[{k}] = {indices[k]} ({major} {row}) is outside the valid {minor} indices 0..{n_minor - 1}",
        )


def _check_coo(what, X):
    coords = X.coords if hasattr(X, "coords") else (X.row, X.col)
    if len(coords) != 2:
        _fail(what, X, f"expected 2 coordinate arrays, got {len(coords)}")
    for axis, (name, arr, bound) in enumerate(zip(("row", "col"), coords, X.shape)):
        _check_index_array(what, X, name, arr)
        if axis == 0:
            _check_data(what, X, X.data, len(arr))
        elif len(arr) != len(coords[0]):
            _fail(what, X, f"row has {len(coords[0])} entries, col {len(arr)}")
        if len(arr) and (arr.min() < 0 or arr.max() >= bound):
            k = int(np.flatnonzero((arr < 0) | (arr >= bound))[0])
            _fail(what, X, f"{name}[{k}] = {arr[k]} is outside the valid indices 0..{bound - 1}")


def _check_dia(what, X):
    offsets, data = X.offsets, X.data
    _check_index_array(what, X, "offsets", offsets)
    if not isinstance(data, np.ndarray) or data.ndim != 2 or data.shape[0] != len(offsets):
        _fail(what, X, f"data must be 2-D with one row per offset ({len(offsets)}), got shape {np.shape(data)}")
    n_rows, n_cols = X.shape
    if len(offsets) and (offsets.min() < -n_rows or offsets.max() > n_cols):
        _fail(what, X, f"offsets must lie in {-n_rows}..{n_cols}, got {offsets.min()}..{offsets.max()}")
    if len(np.unique(offsets)) != len(offsets):
        _fail(what, X, "offsets contain duplicate values")


def _check_lil(what, X):
    rows, data = X.rows, X.data
    n_rows = X.shape[0]
    for name, arr in (("rows", rows), ("data", data)):
        if not isinstance(arr, np.ndarray) or arr.shape != (n_rows,):
            _fail(what, X, f"{name} must be an array of {n_rows} lists, got shape {np.shape(arr)}")
    for i in range(n_rows):
        r, d = rows[i], data[i]
        if not isinstance(r, list) or not isinstance(d, list) or len(r) != len(d):
            _fail(what, X, f"row {i}: rows[{i}] and data[{i}] must be lists of the same length")


def _check_shape(what, X):
    shape = X.shape
    if len(shape) != 2:
        raise ValueError(f"Expected a 2D sparse matrix for {what}, got {len(shape)}D of shape {shape}")
    if not all(isinstance(s, (int, np.integer)) and s >= 0 for s in shape):
        _fail(what, X, f"shape {shape} is not a pair of non-negative integers")


def _as_native_index(X):
    """CSR ``X`` with int32/int64 index arrays (other integer types, e.g. uint32 or int16, converted)."""
    if X.indptr.dtype in (np.int32, np.int64) and X.indices.dtype in (np.int32, np.int64):
        return X
    return sp.csr_matrix((X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)), shape=X.shape)


def check_sparse_structure(X, what="X"):
    """Raise a ValueError naming the problem unless the scipy sparse matrix or array ``X`` (any format) is
    structurally valid: consistent index arrays of an integer type, every index inside the matrix.

    Cost: O(nnz) in numpy, one vectorised pass over the indices (their maximum as unsigned integers) plus
    O(n_rows) for ``indptr``; no copy. The order of the indices within a row is not checked (scipy's
    ``has_canonical_format``, safe to compute once the structure is valid, says it)."""
    _check_shape(what, X)
    fmt = X.format
    n_rows, n_cols = X.shape
    if fmt == "csr":
        _check_compressed(what, X, X.indptr, X.indices, X.data, n_rows, n_cols, "row", "column")
    elif fmt == "csc":
        _check_compressed(what, X, X.indptr, X.indices, X.data, n_cols, n_rows, "column", "row")
    elif fmt == "bsr":
        R, C = X.blocksize
        if R < 1 or C < 1 or n_rows % R or n_cols % C:
            _fail(what, X, f"blocksize {X.blocksize} does not divide the shape {X.shape}")
        data = X.data
        if not isinstance(data, np.ndarray) or data.ndim != 3 or data.shape[1:] != (R, C):
            _fail(what, X, f"data must have shape (nnz blocks, {R}, {C}), got {np.shape(data)}")
        _check_compressed(
            what, X, X.indptr, X.indices, data, n_rows // R, n_cols // C, "block row", "block column", data_ndim=3
        )
    elif fmt == "coo":
        _check_coo(what, X)
    elif fmt == "dia":
        _check_dia(what, X)
    elif fmt == "lil":
        _check_lil(what, X)
    elif fmt != "dok":  # dok: a dict, converted in Python; the conversion's output is checked
        _fail(what, X, f"unknown sparse format {fmt!r}")


def valid_csr(X, what="X"):
    """``X`` (a scipy sparse matrix or array of any format, checked by :func:`check_sparse_structure`) as a
    structurally valid ``scipy.sparse.csr_matrix`` in canonical format (sorted indices, no duplicates),
    with int32/int64 index arrays. A valid canonical CSR is returned without copying its arrays; anything
    else is converted into new arrays (the caller's matrix is never modified)."""
    check_sparse_structure(X, what)
    if X.format != "csr":
        source = type(X).__name__
        try:
            X = sp.csr_matrix(X)
        except (TypeError, ValueError, OverflowError) as exc:  # e.g. a LIL row holding a non-integer index
            _fail(what, X, f"cannot convert it to CSR: {exc}")
        # the conversion's output checked too (LIL and DOK indices are only copied by it)
        check_sparse_structure(X, f"{what} (converted from {source})")
    elif not isinstance(X, sp.csr_matrix):
        X = sp.csr_matrix(X)  # a csr_array: the same arrays, no copy
    X = _as_native_index(X)
    if not X.has_canonical_format:  # never modify the caller's matrix in place
        X = X.copy()
        X.sum_duplicates()
    return X
