"""
Budgeted learners: Ahpatron, BOGD++ and FOGD as the budget grows
=================================================================

A kernel learner such as DUOL keeps every support vector it adds, so its memory and its time per round
grow with the stream. *Budgeted* learners bound the model:

* **Ahpatron** keeps at most ``B`` support vectors; when the set is full it removes the half with the
  smallest coefficients and projects what they contributed onto the kept half;
* **BOGD++** (budgeted online gradient descent) removes one support vector, chosen with probability
  decreasing in the size of its coefficient, and rescales the others so that the model stays unbiased;
* **FOGD** (Fourier online gradient descent) keeps no support vectors at all: it approximates the
  Gaussian kernel by ``D`` random Fourier directions and runs a linear learner on the ``2D`` features.

This example varies ``B`` (and ``D`` for FOGD) on the bundled ``mushrooms`` dataset (8,124 examples) and
plots the online mistake rate and the learning time of each learner against the size of its model. The
Gaussian width is the same for all three.
"""

# %%
# Data
# ----
import matplotlib.pyplot as plt
import numpy as np

import olkit

X, y = olkit.load_dataset("mushrooms")
print(X.shape, "non-zeros per row:", X.getnnz(axis=1).mean())
SIGMA = 4.0  # rows hold 21 ones out of 112 binary features

# %%
# The sweep
# ---------
# Two random orderings per budget: the mistake rate is their mean, the time their minimum (the least
# disturbed by other work on the machine).
sizes = [16, 32, 64, 128, 256, 512]
rng = np.random.default_rng(2)
orders = [rng.permutation(X.shape[0]) for _ in range(2)]
learners = {"ahpatron": "B", "bogd++": "B", "fogd": "D"}
rates, times = {}, {}
for name, size_param in learners.items():
    rates[name], times[name] = [], []
    for size in sizes:
        learner = olkit.make(name, sigma=SIGMA, **{size_param: size})
        runs = [olkit.evaluate_online(learner, X, y, order=order) for order in orders]
        rates[name].append(np.mean([r.mistake_rate for r in runs]))
        times[name].append(np.min([r.seconds for r in runs]))
    print(
        f"{name:>9} ({size_param} = {sizes}): mistake rate",
        " ".join(f"{r:.3f}" for r in rates[name]),
        "| seconds",
        " ".join(f"{t:.3f}" for t in times[name]),
    )

# %%
# An unbudgeted reference: DUOL keeps every support vector it adds.
duol = [olkit.evaluate_online(olkit.make("duol", sigma=SIGMA), X, y, order=order) for order in orders]
duol_rate = np.mean([r.mistake_rate for r in duol])
duol_time = np.min([r.seconds for r in duol])
print(f"duol: mistake rate {duol_rate:.3f}, #SV {np.mean([r.n_sv for r in duol]):.0f}, seconds {duol_time:.3f}")

# %%
# Plot
# ----
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.8))
for name, size_param in learners.items():
    label = f"{name} ({size_param})"
    ax1.plot(sizes, rates[name], marker="o", label=label)
    ax2.plot(sizes, times[name], marker="o", label=label)
ax1.axhline(duol_rate, color="k", linestyle="--", label="duol (no budget)")
ax2.axhline(duol_time, color="k", linestyle="--", label="duol (no budget)")
for ax in (ax1, ax2):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("budget B / Fourier directions D")
ax1.set_ylabel("online mistake rate")
ax2.set_ylabel("learning time per pass (s)")
ax1.legend()
fig.suptitle("mushrooms: model size vs accuracy and time")
fig.tight_layout()
plt.show()
