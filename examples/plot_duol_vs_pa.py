"""
DUOL vs PA-I and the kernel Perceptron: online mistake-rate curves
==================================================================

In the online protocol a learner sees one example at a time, predicts its label with the current model,
is told the true label and then updates. The *online mistake rate* after :math:`t` rounds is the number
of wrong predictions among the first :math:`t`, divided by :math:`t`.

This example runs three kernel learners with the Gaussian kernel over the bundled ``german`` credit
dataset (1,000 examples, 24 features) and plots their cumulative mistake rate as the stream goes on:

* the kernel Perceptron, which adds an example to the model on every mistake;
* PA-I (passive-aggressive), which takes a capped step on every example with a hinge loss;
* DUOL (double updating online learning), which, when it adds a new support vector, may also update the
  weight of one existing support vector that conflicts with it the most.

:func:`olkit.evaluate_online` returns the curve (``curve_x``, ``curve_y``) together with the final mistake
rate, the number of support vectors and the learning time.
"""

# %%
# Load the data and fix a few orderings
# -------------------------------------
# Online results depend on the order of the stream, so the papers average over random orderings. We use
# five here to keep the example fast.
import matplotlib.pyplot as plt
import numpy as np

import olkit

X, y = olkit.load_dataset("german")
print(X.shape, "labels:", np.unique(y))

rng = np.random.default_rng(0)
orders = [rng.permutation(X.shape[0]) for _ in range(5)]

# %%
# Run the three learners
# ----------------------
# Default parameters are the DUOL paper's binary settings (Gaussian kernel with sigma = 8, C = 5).
algorithms = ["perceptron", "pa1", "duol"]
results = {}
for name in algorithms:
    results[name] = [olkit.evaluate_online(olkit.make(name), X, y, order=order) for order in orders]
    rates = [r.mistake_rate for r in results[name]]
    n_sv = [r.n_sv for r in results[name]]
    secs = sum(r.seconds for r in results[name])
    print(
        f"{name:>10}: mistake rate {np.mean(rates):.3f} +- {np.std(rates):.3f}, "
        f"#SV {np.mean(n_sv):.0f}, learning time {secs:.2f} s for {len(orders)} runs"
    )

# %%
# Plot the online mistake-rate curves
# -----------------------------------
# The band is one standard deviation over the orderings.
fig, ax = plt.subplots(figsize=(6, 4))
for name in algorithms:
    runs = results[name]
    x = runs[0].curve_x
    curves = np.array([r.curve_y for r in runs])
    mean, std = curves.mean(axis=0), curves.std(axis=0)
    ax.plot(x, mean, marker="o", markersize=3, label=name)
    ax.fill_between(x, mean - std, mean + std, alpha=0.2)
ax.set_xlabel("examples seen")
ax.set_ylabel("online mistake rate")
ax.set_title("german: online mistake rate (5 orderings)")
ax.legend()
fig.tight_layout()

# %%
# Support vectors
# ---------------
# The Perceptron keeps only its mistakes; PA-I and DUOL also add correctly classified examples with a
# small margin, so they keep more support vectors.
fig, ax = plt.subplots(figsize=(6, 3))
ax.bar(algorithms, [np.mean([r.n_sv for r in results[name]]) for name in algorithms], color="C2")
ax.set_ylabel("support vectors at the end")
fig.tight_layout()
plt.show()
