"""
olkit in a River pipeline
=========================

`River <https://riverml.xyz>`_ is a library for online machine learning on dictionaries of features.
:class:`olkit.river.RiverClassifier` wraps any olkit learner as a River classifier (``learn_one`` /
``predict_one``), so it can be placed in River pipelines and evaluated with River's progressive
validation: each example is first predicted, then learned, exactly the online protocol of
:func:`olkit.evaluate_online`.

This example streams the bundled ``german`` dataset through four models:

* DUOL wrapped alone;
* a River pipeline: ``preprocessing.StandardScaler() | RiverClassifier(PA-I with a linear kernel)``, where
  the scaler learns running means and variances as the stream goes (a small ``C`` suits this noisy
  dataset: with the default ``C = 5`` linear PA-I makes about 40% mistakes here);
* the same pipeline with AROW (a second-order linear learner);
* River's own logistic regression with the same scaler, for reference.

It checks that the wrapped DUOL makes exactly the mistakes :func:`olkit.evaluate_online` makes, and plots
the running accuracy.
"""

# %%
# The stream and the models
# -------------------------
import matplotlib.pyplot as plt
import numpy as np
from river import compose, evaluate, linear_model, metrics, preprocessing, stream

import olkit
from olkit.river import RiverClassifier

X, y = olkit.load_dataset("german")
X = X.toarray()  # stream.iter_array takes a dense array; features are named 0..23
y = y > 0  # River's binary classifiers expect True / False labels
print(X.shape, "positive fraction:", y.mean())

models = {
    "DUOL (wrapped)": RiverClassifier(olkit.make("duol"), classes=[False, True]),
    "scaler | PA-I (linear, C = 0.01)": compose.Pipeline(
        preprocessing.StandardScaler(), RiverClassifier(olkit.make("pa1", kernel="linear", C=0.01))
    ),
    "scaler | AROW": compose.Pipeline(preprocessing.StandardScaler(), RiverClassifier(olkit.make("arow"))),
    "scaler | River LogisticRegression": compose.Pipeline(
        preprocessing.StandardScaler(), linear_model.LogisticRegression()
    ),
}

# %%
# Progressive validation
# ----------------------
# ``iter_progressive_val_score`` yields the metric every ``step`` examples.
curves = {}
for label, model in models.items():
    x, acc = [], []
    # the metric object is updated in place: read its value at each step
    for step in evaluate.iter_progressive_val_score(stream.iter_array(X, y), model, metrics.Accuracy(), step=50):
        x.append(step["Step"])
        acc.append(step["Accuracy"].get())
    curves[label] = (x, acc)
    print(f"{label:>36}: accuracy {curves[label][1][-1]:.3f}")

# %%
# The wrapper follows the online protocol exactly
# -----------------------------------------------
# The wrapped DUOL's accuracy equals 1 - the mistake rate of :func:`olkit.evaluate_online` on the same rows
# in the same order. (``classes`` given up front makes the very first prediction, made with an empty model,
# the learner's own too: without it the wrapper has no prediction until it has seen a label.)
direct = olkit.evaluate_online(olkit.make("duol"), X, y)
print(
    f"evaluate_online: 1 - mistake rate = {1 - direct.mistake_rate:.4f}; "
    f"River: accuracy = {curves['DUOL (wrapped)'][1][-1]:.4f}"
)
assert np.isclose(curves["DUOL (wrapped)"][1][-1], 1 - direct.mistake_rate)

# %%
# Plot
# ----
fig, ax = plt.subplots(figsize=(6.5, 4))
for label, (x, acc) in curves.items():
    ax.plot(x, acc, label=label)
ax.set_xlabel("examples seen")
ax.set_ylabel("progressive accuracy")
ax.set_title("german through River")
ax.legend(fontsize="small")
fig.tight_layout()
plt.show()
