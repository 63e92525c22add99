"""
A parameter grid on a Dask cluster
==================================

Every run of an online experiment (one algorithm, one parameter setting, one ordering of the data) is
independent of the others, so a grid of runs spreads well over workers. olkit's experiment runner sends
its runs through joblib; inside ``olkit.experiment.backend.use`` with ``"dask"`` they become tasks of a
`Dask <https://www.dask.org>`_ cluster (the command line's ``olkit run --backend dask``). The runs are
deterministic, so the results are those of a local run.

This example starts a small :class:`dask.distributed.LocalCluster` (two single-threaded workers in this
process), runs a grid of ``C`` values for DUOL and PA-I over five orderings of the bundled ``german``
dataset through the runner, then shows the plain Dask way (``client.map`` over olkit calls), and closes
the cluster. On a real cluster, pass the scheduler's address instead.
"""

# %%
# Start a local cluster
# ---------------------
# ``processes=False`` keeps the workers in this process (threads): quick to start, and olkit's compiled
# loops release the GIL, so two workers do run in parallel.
import matplotlib.pyplot as plt
from dask.distributed import Client, LocalCluster

import olkit
from olkit.experiment import backend
from olkit.experiment.orders import make_orders
from olkit.experiment.runner import check_failures, run_algorithms

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
print("scheduler:", cluster.scheduler_address)

# %%
# The grid through olkit's runner
# -------------------------------
# ``run_algorithms`` takes (algorithm, parameters) pairs and orderings; each (pair, ordering) is one task.
# A run that fails fails alone (its entry says why); ``check_failures`` turns any failure into an error.
X, y = olkit.load_dataset("german")
C_values = [0.25, 1.0, 4.0, 16.0]
specs = [(name, {"C": C}) for name in ["duol", "pa1"] for C in C_values]
orders = make_orders(X.shape[0], repeats=5, seed=0)
with backend.use("dask", scheduler=cluster.scheduler_address) as client:
    print("workers:", len(client.scheduler_info()["workers"]))
    results = check_failures(run_algorithms(specs, X, y, orders))

for r in results:
    print(
        f"{r['algorithm']:>5} C = {r['params']['C']:5g}: mistake rate {r['mean']['mistake_rate']:.3f} "
        f"+- {r['std']['mistake_rate']:.3f} over {len(r['runs'])} orderings"
    )

# %%
# The same cluster used directly
# ------------------------------
# Any olkit call can be mapped over the cluster with a :class:`dask.distributed.Client`; here, the number of
# support vectors DUOL keeps for each C on the file order.


def n_support(C):
    return olkit.evaluate_online(olkit.make("duol", C=C), X, y).n_sv


with Client(cluster) as client:
    n_sv = client.gather(client.map(n_support, C_values))
print("DUOL support vectors (file order) per C:", dict(zip(C_values, n_sv)))

# %%
# Close the cluster when done.
cluster.close()

# %%
# Plot
# ----
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
for name in ["duol", "pa1"]:
    rows = [r for r in results if r["algorithm"] == name]
    ax1.errorbar(
        C_values,
        [r["mean"]["mistake_rate"] for r in rows],
        yerr=[r["std"]["mistake_rate"] for r in rows],
        marker="o",
        capsize=3,
        label=name,
    )
ax1.set_xscale("log", base=2)
ax1.set_xlabel("C")
ax1.set_ylabel("online mistake rate")
ax1.set_title("german: 5 orderings per cell, on Dask")
ax1.legend()
ax2.plot(C_values, n_sv, marker="o", color="C0")
ax2.set_xscale("log", base=2)
ax2.set_xlabel("C")
ax2.set_ylabel("DUOL support vectors")
fig.tight_layout()
plt.show()
