"""
Second-order linear learners on sparse data: SCW-I, AROW and CW
===============================================================

Confidence-weighted (CW) learners keep a Gaussian distribution over linear models: a mean weight vector
:math:`\\mu` and a covariance :math:`\\Sigma`. Features that have been seen often get a small variance, so
their weights move less; rare features move more. Three members of the family:

* **CW** asks that the current example be classified correctly with probability at least ``eta`` under the
  distribution, with the smallest change (in KL divergence) of the distribution;
* **AROW** (adaptive regularisation of weights) replaces that hard constraint by a hinge loss and a
  regulariser ``r``, which makes it robust to label noise;
* **SCW-I** (soft confidence-weighted) keeps CW's probabilistic margin but caps the step by ``C``, as
  PA-I does.

With ``covariance="full"`` the learners keep a full :math:`d \\times d` matrix (as in the SCW paper's
experiments); ``covariance="diagonal"`` keeps its diagonal only, which costs :math:`O(\\mathrm{nnz})` per
update and suits high-dimensional sparse data. The bundled ``mushrooms`` dataset (8,124 examples,
112 binary features, about 21 non-zeros per row) comes as a SciPy CSR matrix, which the learners take
as is.
"""

# %%
# Data
# ----
import matplotlib.pyplot as plt
import numpy as np

import olkit

X, y = olkit.load_dataset("mushrooms")
print(type(X).__name__, X.shape, f"density {X.nnz / (X.shape[0] * X.shape[1]):.3f}")
order = np.random.default_rng(3).permutation(X.shape[0])

# %%
# Full and diagonal covariance
# ----------------------------
# The parameters are the learners' defaults (SCW-I: eta = 0.75, C = 1; AROW: r = 1; CW: eta = 0.7).
results = {}
for name in ["scw1", "arow", "cw"]:
    for covariance in ["full", "diagonal"]:
        res = olkit.evaluate_online(olkit.make(name, covariance=covariance), X, y, order=order)
        results[name, covariance] = res
        print(
            f"{name:>5} {covariance:>8}: mistakes {res.mistakes:4d} ({res.mistake_rate:.4f}), "
            f"updates {res.n_updates:4d}, {res.seconds:.3f} s"
        )

# %%
# Online curves
# -------------
# Solid lines: full covariance; dashed: diagonal. The mistake rate is on a log scale: all of them learn
# this (almost separable) problem within a few hundred examples.
fig, ax = plt.subplots(figsize=(6.5, 4))
for i, name in enumerate(["scw1", "arow", "cw"]):
    for covariance, style in [("full", "-"), ("diagonal", "--")]:
        res = results[name, covariance]
        ax.plot(res.curve_x, res.curve_y, style, color=f"C{i}", label=f"{name} ({covariance})")
ax.set_yscale("log")
ax.set_xlabel("examples seen")
ax.set_ylabel("online mistake rate")
ax.set_title("mushrooms (CSR input): second-order linear learners")
ax.legend(ncol=2, fontsize="small")
fig.tight_layout()

# %%
# Time per pass
# -------------
fig, ax = plt.subplots(figsize=(6.5, 3))
labels = [f"{n}\n{c}" for n, c in results]
ax.bar(labels, [r.seconds for r in results.values()], color=["C0", "C0", "C1", "C1", "C2", "C2"])
ax.set_ylabel("learning time (s)")
fig.tight_layout()
plt.show()
