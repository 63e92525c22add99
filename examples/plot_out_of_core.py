"""
Learning a LIBSVM file larger than memory
=========================================

An online learner only ever needs the current example and its model, so a dataset does not have to fit in
memory. olkit reads a LIBSVM file in chunks of rows (:func:`olkit.data.iter_libsvm`) and runs the online
protocol over the chunks one after the other (``olkit.stream``): the mistakes, the number of updates and
the final model are exactly those of one in-memory pass over the file in file order.

This example writes a sparse LIBSVM file of 20,000 examples to a temporary directory (chunk by chunk, so
the whole dataset never exists in memory here either) and learns it three ways:

1. with the command line, ``olkit run ... --stream``, in a subprocess;
2. with ``olkit.stream.evaluate_libsvm_stream``, which gives the online mistake-rate curve;
3. by hand, with ``iter_libsvm`` and ``partial_fit`` on each chunk (testing each chunk before learning it).

Finally it measures, with ``tracemalloc``, the peak memory that Python and NumPy allocate while
streaming with different chunk sizes, next to reading the file whole: the streamed peak follows the chunk
size, not the file size.
"""

# %%
# Write the file
# --------------
# Rows have 15 non-zeros out of 1,000 features; the label is the sign of a hidden linear score, with 5% of
# the labels flipped. :func:`sklearn.datasets.dump_svmlight_file` appends each chunk to the open file.
import json
import os
import subprocess
import sys
import tempfile
import tracemalloc

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import olkit
from olkit.data import iter_libsvm, read_libsvm
from olkit.stream import evaluate_libsvm_stream

N, D, NNZ, CHUNK = 20_000, 1_000, 15, 2_000
rng = np.random.default_rng(5)
w_true = rng.standard_normal(D)
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "big.libsvm")
with open(path, "wb") as fh:
    for _ in range(0, N, CHUNK):
        cols = np.sort(rng.choice(D, size=(CHUNK, NNZ)), axis=1)  # repeats are summed by CSR
        rows = np.repeat(np.arange(CHUNK), NNZ)
        X_chunk = sp.csr_matrix((rng.random(CHUNK * NNZ), (rows, cols.ravel())), shape=(CHUNK, D))
        X_chunk.sum_duplicates()
        y_chunk = np.where(X_chunk @ w_true >= 0, 1, -1)
        y_chunk[rng.random(CHUNK) < 0.05] *= -1
        dump_svmlight_file(X_chunk, y_chunk, fh, zero_based=False)
print(f"{path}: {N} examples, {os.path.getsize(path) / 1e6:.1f} MB")

# %%
# 1. The command line
# -------------------
# ``--stream`` reads the file in chunks of ``--chunk-size`` rows (one scanning pass first finds the width
# and the labels). ``--format json`` makes the output easy to read back.
cmd = [
    sys.executable,
    "-m",
    "olkit",
    "run",
    "pa1",
    "arow",
    "--data",
    path,
    "--stream",
    "--chunk-size",
    str(CHUNK),
    "--kernel",
    "linear",
    "--set",
    "covariance=diagonal",
    "--format",
    "json",
    "--quiet",
]
print("$ olkit", " ".join(cmd[3:]).replace(path, "big.libsvm"))
out = subprocess.run(cmd, capture_output=True, text=True, check=True)
doc = json.loads(out.stdout)
for r in doc["results"]:
    print(f"{r['algorithm']:>5}: mistake rate {r['mistake_rate']:.4f}, learning time {r['seconds']:.2f} s")

# %%
# 2. The Python streaming API
# ---------------------------
# ``evaluate_libsvm_stream`` returns an :class:`olkit.OnlineResult` (its curve is filled
# checkpoint by checkpoint; the per-round arrays are not kept) and the file's shape.
curves = {}
for name in ["pa1", "arow"]:
    learner = olkit.make(name, kernel="linear") if name == "pa1" else olkit.make(name, covariance="diagonal")
    res, info = evaluate_libsvm_stream(learner, path, chunk_size=CHUNK)
    curves[name] = res
    print(f"{name:>5}: {res.mistakes} mistakes in {info['n_examples']} rounds ({res.mistake_rate:.4f})")

# %%
# 3. By hand: ``iter_libsvm`` and ``partial_fit``
# -----------------------------------------------
# Each chunk is first predicted by the model learned so far (progressive validation per chunk), then
# learned. ``classes`` must be given to the first ``partial_fit``: a later chunk may hold a label the first
# one lacks.
learner = olkit.make("arow", covariance="diagonal")
chunk_error = []
for i, (X_chunk, y_chunk) in enumerate(iter_libsvm(path, chunk_size=CHUNK, n_features=D)):
    if i > 0:
        chunk_error.append(np.mean(learner.predict(X_chunk) != y_chunk))
    learner.partial_fit(X_chunk, y_chunk, classes=[-1, 1])
print("test error of each next chunk:", " ".join(f"{e:.3f}" for e in chunk_error))

# %%
# Memory: streaming vs reading whole
# ----------------------------------
# Peak bytes allocated by Python and NumPy (``tracemalloc``) during one pass of AROW. (Tracing every
# allocation slows the reading down several times, so only two chunk sizes are measured.)


def peak_mb(run):
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def in_memory():
    X, y = read_libsvm(path)
    olkit.evaluate_online(olkit.make("arow", covariance="diagonal"), X, y)


chunk_sizes = [500, 2_000]
peaks = [
    peak_mb(
        lambda c=c: evaluate_libsvm_stream(
            olkit.make("arow", covariance="diagonal"), path, chunk_size=c, n_features=D, classes=[-1, 1], n_examples=N
        )
    )
    for c in chunk_sizes
]
whole = peak_mb(in_memory)
for c, p in zip(chunk_sizes, peaks):
    print(f"streamed, chunks of {c:>5}: peak {p:6.1f} MB")
print(f"read whole:               peak {whole:6.1f} MB")

# %%
# Plot
# ----
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
for name, res in curves.items():
    ax1.plot(res.curve_x, res.curve_y, marker="o", markersize=3, label=f"{name} (streamed)")
ax1.plot(CHUNK * np.arange(2, len(chunk_error) + 2), chunk_error, "k--", label="arow: next-chunk error")
ax1.set_xlabel("examples seen")
ax1.set_ylabel("mistake rate")
ax1.set_title(f"{N:,} examples read in chunks")
ax1.legend()
ax2.bar([f"chunk {c}" for c in chunk_sizes] + ["whole file"], peaks + [whole], color=["C0"] * len(chunk_sizes) + ["C3"])
ax2.set_ylabel("peak allocated memory (MB)")
ax2.set_title(f"tracemalloc peak during one pass ({os.path.getsize(path) / 1e6:.1f} MB file)")
fig.tight_layout()
plt.show()

tmp.cleanup()
