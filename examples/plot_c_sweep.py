"""
The penalty C: mistake rate of DUOL and PA-I as C varies
========================================================

DUOL and PA-I both have a penalty parameter ``C`` that caps the weight a single example may receive
(PA-I's step is :math:`\\min(C, \\ell_t/\\kappa(x_t, x_t))`; DUOL keeps the weight of every support
vector, the new one and the one it updates a second time, within :math:`[0, C]`). A small ``C`` makes the
learner cautious, a large one lets it follow each mistake fully.

This example sweeps ``C`` over powers of two and reports the online mistake rate (mean and standard
deviation over a few random orderings) on the bundled ``sonar`` dataset (208 examples, 60 features,
scaled to [-1, 1]). ``set_params`` changes a learner's parameter; each run starts from an empty model.
"""

# %%
# The sweep
# ---------
import matplotlib.pyplot as plt
import numpy as np

import olkit

X, y = olkit.load_dataset("sonar")
rng = np.random.default_rng(1)
orders = [rng.permutation(X.shape[0]) for _ in range(8)]
C_values = 2.0 ** np.arange(-4, 7)

summary = {}
for name in ["pa1", "duol"]:
    learner = olkit.make(name, sigma=1.0)  # sonar is scaled to [-1, 1]: a narrower kernel suits it
    means, stds = [], []
    for C in C_values:
        learner.set_params(C=float(C))
        rates = [olkit.evaluate_online(learner, X, y, order=order).mistake_rate for order in orders]
        means.append(np.mean(rates))
        stds.append(np.std(rates))
    summary[name] = (np.array(means), np.array(stds))
    best = int(np.argmin(means))
    print(
        f"{name:>5}: best C = {C_values[best]:g} (mistake rate {means[best]:.3f} +- {stds[best]:.3f}); "
        f"C = 1/16: {means[0]:.3f}, C = 64: {means[-1]:.3f}"
    )

# %%
# Plot
# ----
# Error bars are one standard deviation over the orderings.
fig, ax = plt.subplots(figsize=(6, 4))
for name, (mean, std) in summary.items():
    ax.errorbar(C_values, mean, yerr=std, marker="o", capsize=3, label=name)
ax.set_xscale("log", base=2)
ax.set_xlabel("C")
ax.set_ylabel("online mistake rate")
ax.set_title(f"sonar: mistake rate vs C ({len(orders)} orderings)")
ax.legend()
fig.tight_layout()
plt.show()
