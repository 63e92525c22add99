"""The fuzz's random streams (``make fuzz``, tools/fuzz.py; the property tests, tests/test_properties.py):
a stream *description* (plain JSON values, :func:`sample_stream`) and the (X, y) it stands for
(:func:`build_stream`, deterministic), structurally invalid sparse matrices included (:func:`malform`).

A stream has n ≤ 60 rows, d ≤ 8 features, a magnitude 10^e applied to all rows, to a tenth of the rows, per
feature (10^(e+s_j), |s_j| ≤ 3) or to small integers; duplicate rows, zero rows, sparse rows; dense or CSR
storage, float64 or float32, or another scipy format; 1–5 classes with ±1, integer, float or string labels,
or a multi-label matrix. A description is replayed from its seed alone: a change here changes the streams of
every committed fuzz seed.
"""

import numpy as np
import scipy.sparse as sp

EXPONENTS = (-300, 300)
"""The magnitudes 10^e of ``make fuzz``: e uniform in this range (a quarter of the streams in [-4, 4])."""

LABEL_WORDS = ("ant", "bee", "cat", "dog", "emu")


KINDS = ("uniform", "outlier-rows", "feature-scales", "integer")

OTHER_FORMATS = ("csc", "coo", "bsr", "dia", "lil", "dok")
"""scipy formats other than CSR, as ``*_matrix`` or ``*_array`` (a stream in one of them is converted by the
learner's input validation; the chunked comparison slices its CSR form)."""

MALFORMED = (
    "index-too-large",
    "index-negative",
    "indptr-decreasing",
    "indptr-past-end",
    "indptr-short",
    "data-short",
    "indices-float",
    "coo-row-too-large",
    "csc-index-negative",
)
"""Structural defects of a sparse stream (issue 21, see :func:`malform`). Every learner must refuse such a
stream with a ValueError naming the defect, at every entry point, and never read out of bounds."""


def sample_stream(rng, multilabel_ok, exponents=EXPONENTS, kinds=KINDS, variants=True):
    """A stream description (plain JSON values): everything :func:`build_stream` needs. A quarter of the
    streams have magnitudes 1e-4..1e4, the others any 10^e with e in ``exponents`` (inclusive). With
    ``variants`` a tenth are in another scipy format or malformed; without, no draw is spent on that, so the
    streams of a seed are those of the generator before those variants (tests/test_properties.py keeps its
    streams)."""
    lo, hi = exponents
    r = rng.random()
    near = (max(lo, -4), min(hi, 4))
    if r < 0.25 and near[0] <= near[1]:
        exponent = int(rng.integers(near[0], near[1] + 1))
    else:
        exponent = int(rng.integers(lo, hi + 1))
    kind = str(rng.choice([kinds[0], *kinds]))  # the first kind twice as often
    fmt = str(rng.choice(["dense", "dense", "csr", "dense32", "csr32"]))
    if fmt.endswith("32") and abs(exponent) > 30:  # float32 cannot hold the magnitude: store float64
        fmt = fmt[:-2]
    labels = str(rng.choice(["pm1", "int", "float", "str"]))
    if multilabel_ok and rng.random() < 0.05:
        labels = "multilabel"
    extra = {}
    r = rng.random() if variants else 1.0
    if r < 0.05:  # another scipy format (matrix or array)
        extra["format"] = f"{rng.choice(OTHER_FORMATS)}_{rng.choice(['matrix', 'array'])}"
    elif r < 0.10:  # a structurally invalid sparse matrix
        extra["malformed"] = str(rng.choice(sorted(MALFORMED)))
    return {
        "seed": int(rng.integers(2**31)),
        "n": int(rng.integers(2, 61)),
        "d": int(rng.integers(1, 9)),
        "exponent": exponent,
        "kind": kind,
        "duplicates": float(rng.choice([0.0, 0.0, 0.2, 0.5])),
        "zero_rows": float(rng.choice([0.0, 0.0, 0.1, 0.4])),
        "sparsity": float(rng.choice([0.0, 0.0, 0.5])),
        "format": fmt,
        "classes": int(rng.choice([2, 2, 2, 3, 4, 5])) if rng.random() > 0.02 else 1,
        "labels": labels,
        **extra,
    }


def build_stream(desc):
    """(X, y) of a stream description (deterministic)."""
    rng = np.random.default_rng(desc["seed"])
    n, d, K = desc["n"], desc["d"], desc["classes"]
    base = rng.normal(size=(n, d))
    if desc["kind"] == "integer":
        base = rng.integers(-3, 4, size=(n, d)).astype(float)
    base[rng.random((n, d)) < desc["sparsity"]] = 0.0
    # labels from the unscaled rows: a noisy linear (multiclass: argmax) rule
    if desc["labels"] == "multilabel":
        W = rng.normal(size=(d, max(K, 2)))
        Y = (base @ W + 0.3 * rng.normal(size=(n, W.shape[1])) > 0).astype(np.int64)
    else:
        W = rng.normal(size=(d, max(K, 1)))
        idx = np.argmax(base @ W + 0.3 * rng.normal(size=(n, W.shape[1])), axis=1) if K > 1 else np.zeros(n, int)
    scale = 10.0 ** desc["exponent"]
    if desc["kind"] == "outlier-rows":
        X = base.copy()
        rows = rng.choice(n, size=max(1, n // 10), replace=False)
        X[rows] *= scale
    elif desc["kind"] == "feature-scales":
        spread = desc.get("spread", 3)  # feature j at 10^(e + s_j), |s_j| <= spread
        shifts = rng.integers(-spread, spread + 1, size=d)
        X = base * np.array([10.0 ** int(np.clip(desc["exponent"] + s, -300, 300)) for s in shifts])
    else:
        X = base * scale
    if desc["duplicates"] and n > 1:
        for i in np.flatnonzero(rng.random(n) < desc["duplicates"]):
            if i > 0:
                j = int(rng.integers(i))
                X[i] = X[j]
                if desc["labels"] == "multilabel":
                    Y[i] = Y[j]
                else:
                    idx[i] = idx[j] if rng.random() < 0.7 else idx[i]  # mostly the same label, sometimes not
    if desc["zero_rows"]:
        X[rng.random(n) < desc["zero_rows"]] = 0.0
    if desc["labels"] != "multilabel" and K > 1 and len(np.unique(idx)) < min(K, n):
        if n >= K:  # every class present (a duplicate may now carry another label than its original)
            idx[rng.choice(n, size=K, replace=False)] = np.arange(K)
        else:
            idx[rng.choice(n, size=2, replace=False)] = [0, 1]
    if desc["labels"] == "multilabel":
        y = Y
    else:
        kinds = {
            "pm1": np.array([-1, 1]) if K == 2 else np.arange(K),
            "int": np.sort(rng.choice(np.arange(-5, 100), size=max(K, 1), replace=False)),
            "float": np.arange(max(K, 1), dtype=float) + 1.0,
            "str": np.array(LABEL_WORDS[: max(K, 1)]),
        }
        labels = kinds[desc["labels"]] if K > 1 else kinds[desc["labels"]][:1]
        y = labels[idx]
    if desc["format"].endswith("32"):
        X = X.astype(np.float32)
    if desc["format"].startswith("csr"):
        X = sp.csr_matrix(X)
    elif desc["format"].split("_")[0] in OTHER_FORMATS:
        fmt, kind = desc["format"].split("_")
        X = getattr(sp, f"{fmt}_{kind}")(X, **({"blocksize": (1, 1)} if fmt == "bsr" else {}))
    if desc.get("malformed"):
        X = malform(sp.csr_matrix(X), desc["malformed"], desc["seed"])
    return X, y


def malform(X, defect, seed):
    """A copy of the CSR ``X`` with the structural defect ``defect`` (one of MALFORMED) at a random stored
    entry k (of row i)."""
    rng = np.random.default_rng([seed, 1])
    X = X.copy()
    if X.nnz == 0:  # a defect needs a stored entry
        X = sp.csr_matrix((np.ones(1), np.zeros(1, np.int32), np.r_[0, np.ones(X.shape[0], np.int32)]), shape=X.shape)
    k = int(rng.integers(X.nnz))
    i = int(np.searchsorted(X.indptr, k, side="right") - 1)
    big = int(rng.integers(1, 10**6))
    if defect == "index-too-large":
        X.indices[k] = X.shape[1] - 1 + big
    elif defect == "index-negative":
        X.indices[k] = -big
    elif defect == "indptr-decreasing":
        X.indptr[i + 1] = X.indptr[i] - 1
    elif defect == "indptr-past-end":
        X.indptr[i + 1] = X.nnz + big
    elif defect == "indptr-short":
        X.indptr = X.indptr[:-1]
    elif defect == "data-short":
        X.data = X.data[:-1]
    elif defect == "indices-float":
        X.indices = X.indices.astype(float)
    elif defect == "coo-row-too-large":
        X = sp.coo_matrix(X)
        X.row[k] = X.shape[0] - 1 + big
    elif defect == "csc-index-negative":
        X = sp.csc_matrix(X)
        X.indices[k] = -1
    else:
        raise KeyError(defect)
    return X
