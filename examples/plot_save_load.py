"""
Save a model, load it, and continue learning
============================================

:func:`olkit.save` writes a learner to one ``.npz`` file (no pickle), and :func:`olkit.load` reads it back
into a learner that predicts as the saved one did and *continues learning* exactly as it would have. So a
long stream can be learned in sessions: learn, save, stop; later load and go on.

This example learns the first half of the bundled ``german`` dataset with DUOL, saves the model, loads it
into a new object, and learns the second half. It checks that the result equals an uninterrupted run over
the whole stream: the same online mistakes, the same support vectors, the same predictions, and the same
decision values up to floating-point rounding (the stream is processed in blocks, and a different block
boundary sums the same kernel terms in a different order, which can change the last bits).
"""

# %%
# Two halves of one stream
# ------------------------
import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np

import olkit

X, y = olkit.load_dataset("german")
order = np.random.default_rng(6).permutation(X.shape[0])
X, y = X[order], y[order]
half = X.shape[0] // 2

# %%
# Interrupted: learn, save, load, continue
# ----------------------------------------
# ``evaluate_online(..., reset=False)`` continues the learner's stream instead of starting from an empty
# model (``partial_fit`` continues it too, without measuring the mistakes).
first = olkit.make("duol")
part1 = olkit.evaluate_online(first, X[:half], y[:half])
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "duol.npz")
olkit.save(first, path)
print(f"saved after {half} examples: {first.n_support_} support vectors, {os.path.getsize(path)} bytes")
del first

again = olkit.load(path)
part2 = olkit.evaluate_online(again, X[half:], y[half:], reset=False)
interrupted = np.concatenate([part1.mistake_flags, part2.mistake_flags])

# %%
# Uninterrupted: one pass
# -----------------------
whole = olkit.make("duol")
one = olkit.evaluate_online(whole, X, y)

same_mistakes = np.array_equal(interrupted, one.mistake_flags)
same_sv = again.n_support_ == whole.n_support_
gap = np.max(np.abs(again.decision_function(X) - whole.decision_function(X)))
same_predictions = np.array_equal(again.predict(X), whole.predict(X))
print(f"mistakes: interrupted {interrupted.sum()}, uninterrupted {one.mistakes}; identical rounds: {same_mistakes}")
print(f"support vectors: {again.n_support_} and {whole.n_support_}")
print(
    f"identical predictions on all {len(y)} examples: {same_predictions}; "
    f"largest difference of decision values: {gap:.1e}"
)
assert same_mistakes and same_sv and same_predictions and gap < 1e-9

# %%
# ``partial_fit`` in sessions gives the same model too:
learner = olkit.make("duol").partial_fit(X[:half], y[:half])
olkit.save(learner, path)
learner = olkit.load(path).partial_fit(X[half:], y[half:])
assert np.array_equal(learner.predict(X), whole.predict(X))
assert np.allclose(learner.decision_function(X), whole.decision_function(X), rtol=0, atol=1e-9)
print("partial_fit, save, load, partial_fit: the predictions and decision values of one pass")

# %%
# Plot
# ----
# The cumulative mistakes of the two runs lie on top of each other; the vertical line marks the save.
rounds = np.arange(1, len(y) + 1)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
ax1.plot(rounds, np.cumsum(one.mistake_flags), label="one pass", linewidth=3, alpha=0.5)
ax1.plot(rounds, np.cumsum(interrupted), "k--", label="save at t = 500, load, continue")
ax1.axvline(half, color="C3", linestyle=":")
ax1.set_xlabel("round")
ax1.set_ylabel("cumulative mistakes")
ax1.legend()
ax2.scatter(whole.decision_function(X), again.decision_function(X), s=5)
ax2.set_xlabel("f(x), one pass")
ax2.set_ylabel("f(x), saved, loaded, continued")
ax2.set_title("decision values on all 1,000 examples")
fig.tight_layout()
plt.show()

tmp.cleanup()
