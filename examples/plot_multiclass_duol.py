"""
Multiclass M-DUOL against MIRA and multiclass PA-I
==================================================

On data with :math:`K \\geq 3` classes the kernel learners keep one score per class,
:math:`f_1(x), \\dots, f_K(x)`, and predict the class with the largest score. After each example, the
multiclass learners compare the true class :math:`y_t` with the highest-scoring wrong class :math:`s_t`:

* **multiclass PA-I** moves :math:`f_{y_t}` up and :math:`f_{s_t}` down by a capped step when the margin
  :math:`f_{y_t} - f_{s_t}` is below 1;
* **MIRA** (Crammer and Singer's ultraconservative algorithm) makes, on each mistake, the smallest change
  that puts the true class ahead by a margin;
* **M-DUOL**, the multiclass form of DUOL, makes the same kind of step and, like binary DUOL, may also
  update one existing support vector that conflicts with the new one (a *double update*).

``olkit.make("duol")`` runs M-DUOL as soon as the labels have three or more values. We generate a
four-class problem with scikit-learn, run the three learners online and look at the per-class errors of
the online predictions.
"""

# %%
# Data
# ----
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.metrics import confusion_matrix

import olkit

X, y = make_classification(
    n_samples=1500,
    n_features=20,
    n_informative=8,
    n_redundant=4,
    n_classes=4,
    n_clusters_per_class=2,
    class_sep=1.5,
    random_state=0,
)
X /= np.abs(X).max(axis=0)  # features scaled to [-1, 1]
print(X.shape, "class sizes:", np.bincount(y))

# %%
# Online runs
# -----------
# The multiclass score arrays have one column per class; the online prediction of round t is the class
# of the largest score before the update (ties go to the smallest label).
order = np.random.default_rng(4).permutation(len(y))
learners = {
    "M-DUOL": olkit.make("duol", sigma=1.0),
    "MIRA": olkit.make("mira", sigma=1.0),
    "PA-I": olkit.make("pa1", sigma=1.0),
}
results = {}
for label, learner in learners.items():
    res = olkit.evaluate_online(learner, X, y, order=order)
    results[label] = res
    print(
        f"{label:>6}: mistake rate {res.mistake_rate:.3f}, #SV {res.n_sv}, {res.seconds:.2f} s, "
        f"C = {res.params.get('C')}"
    )

# %%
# Online mistake-rate curves
# --------------------------
fig, ax = plt.subplots(figsize=(6, 4))
for label, res in results.items():
    ax.plot(res.curve_x, res.curve_y, marker="o", markersize=3, label=label)
ax.set_xlabel("examples seen")
ax.set_ylabel("online mistake rate")
ax.set_title("4 classes (generated): online mistake rate")
ax.legend()
fig.tight_layout()

# %%
# Per-class confusion of the online predictions
# ---------------------------------------------
# Rows: true class; columns: the class predicted before the update. Each row is normalised to 1.
classes = learners["M-DUOL"].classes_
fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
for ax, (label, res) in zip(axes, results.items()):
    predicted = classes[np.argmax(res.scores, axis=1)]
    assert np.array_equal(predicted != y[order], res.mistake_flags.astype(bool))
    cm = confusion_matrix(y[order], predicted, labels=classes, normalize="true")
    ax.imshow(cm, vmin=0, vmax=1, cmap="Blues")
    for i in range(len(classes)):
        for j in range(len(classes)):
            ax.text(j, i, f"{cm[i, j]:.2f}", ha="center", va="center", color="w" if cm[i, j] > 0.5 else "k")
    ax.set_xticks(range(len(classes)), classes)
    ax.set_yticks(range(len(classes)), classes)
    ax.set_xlabel("predicted")
    ax.set_title(f"{label} ({res.mistake_rate:.3f})")
axes[0].set_ylabel("true class")
fig.tight_layout()
plt.show()
