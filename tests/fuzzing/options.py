"""The options of a fuzz run (``make fuzz``, tools/fuzz.py; tests/test_properties.py), read from the
registry: the kernels, covariance forms and compat modes an algorithm's parameters admit, and the candidate
values of its spec's sweep (:attr:`olkit.spec.Sweep.grid`, given at ``@register``). There is no list of
algorithms here: a registered algorithm is fuzzed with what its spec says.

A run is derived from ``(master seed, run index)`` alone (:func:`sample_run`): the draws happen in a fixed
order (the algorithm, the stream, the kernel, the covariance form, the grid in its order, the compat mode,
the cuts), so a committed seed replays the same runs.
"""

import math

import numpy as np

from .streams import EXPONENTS, KINDS, sample_stream


def _pick(rng, values):
    return values[int(rng.integers(len(values)))]


def _kernel_options(rng, spec_defaults, exponent, d, allow_linear=True):
    """kernel, sigma (a fixed width, or one scaled to the data's magnitude), degree, coef0."""
    kernels = ["gaussian", "gaussian", "linear", "poly"] if allow_linear else ["gaussian", "gaussian", "poly"]
    kernel = _pick(rng, kernels)
    out = {"kernel": kernel}
    if kernel == "gaussian":
        sigma = _pick(rng, ["default", 0.5, 4.0, "scaled", "scaled"])
        if sigma == "scaled":  # σ at the scale of the rows, the width a user would choose
            sigma = float(10.0**exponent * math.sqrt(d) * _pick(rng, [0.5, 2.0]))
        if sigma != "default":
            out["sigma"] = sigma
    elif kernel == "poly":
        out["degree"] = _pick(rng, [1, 2, 3])
        out["coef0"] = _pick(rng, [0.0, 1.0])
    return out


COVARIANCES = ("full", "diagonal")


def accepts_linear_kernel(spec):
    """Whether the algorithm's ``kernel`` admits "linear" (its primal form); FOGD's random features approximate
    the Gaussian kernel only."""
    return any(c is not None and c.accepts("linear") for c in spec.constraints.get("kernel", []))


def sample_params(name, rng, exponent, d):
    """Options of algorithm ``name`` (a plain dict for olkit.make), from its parameters and its spec's sweep:

    * a kernel learner: a kernel (Gaussian with a fixed width or one at the data's scale, linear, polynomial;
      a Gaussian-only learner: the width); a primal learner with a kernel form (default kernel "linear",
      SCW): mostly the primal form with a covariance form, else a non-linear kernel;
    * a covariance form where there is one;
    * one value of each parameter of the sweep's grid (:attr:`olkit.spec.Sweep.grid`), in its order;
    * sometimes one of the learner's compat modes (of a primal learner: in its primal form).
    """
    from olkit import registry

    spec = registry.spec(name)
    defaults = spec.defaults
    p = {}
    kernel = defaults.get("kernel")
    if kernel == "linear":
        if rng.random() < 0.7:
            p["covariance"] = _pick(rng, list(COVARIANCES))
        else:
            p.update(_kernel_options(rng, defaults, exponent, d, allow_linear=False))
    else:
        if kernel is not None:
            options = _kernel_options(rng, defaults, exponent, d)
            if accepts_linear_kernel(spec):
                p.update(options)
            elif options["kernel"] == "gaussian" and "sigma" in options:
                p["sigma"] = options["sigma"]
        if "covariance" in defaults:
            p["covariance"] = _pick(rng, list(COVARIANCES))
    for key, values in spec.sweep.grid.items():
        p[key] = _pick(rng, values)
    # what one parameter's values allow another: a rank k <= the budget B (NOGD), a first phase B0 <= B / 2 (POMDR)
    if p.get("k") is not None:
        p["k"] = min(p["k"], p.get("B", 2))
    if p.get("B0") is not None:
        p["B0"] = min(p["B0"], max(1, p["B"] // 2))
    # compat modes: sometimes one of the learner's reference modes (some are binary-only or need kernel forms)
    try:
        choices = list(spec.cls(**p).compat_choices)
    except Exception:  # noqa: BLE001  (options a learner's constructor refuses: no compat mode then)
        choices = ["none"]
    if kernel == "linear" and p.get("kernel", "linear") != "linear":
        choices = ["none"]  # a primal learner's compat modes (SCW: LIBOL's) are those of its primal form
    if len(choices) > 1 and rng.random() < 0.2:
        p["compat"] = _pick(rng, choices[1:])
    return p


WEIGHT_KINDS = ("none", "none", "mixed", "integer", "extreme")
"""How a run's examples are weighted (``sample_weight``, docs/algorithms/options.md#weights), drawn last: none
(half the runs), a mix of 0, fractions and integers, small integers 0..5, or 10^e with e uniform in [-300, 300]
and a tenth of zeros."""


def sample_weights(desc, n):
    """The (n,) weights of a run's weight description (None: unweighted)."""
    if desc is None or desc["kind"] == "none":
        return None
    rng = np.random.default_rng(desc["seed"])
    if desc["kind"] == "mixed":
        return rng.choice([0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 7.5], size=n)
    if desc["kind"] == "integer":
        return rng.integers(0, 6, size=n).astype(float)
    w = 10.0 ** rng.uniform(-300, 300, size=n)
    w[rng.random(n) < 0.1] = 0.0
    return w


def sample_run(
    master_seed,
    index,
    algorithms,
    exponents=EXPONENTS,
    kinds=KINDS,
    round_robin=False,
    variants=True,
    weights=False,
):
    """The run ``index`` of a fuzz session: algorithm, options and stream (from the seeds alone). The
    algorithm is drawn at random, or with ``round_robin`` taken in turn (every algorithm in the fewest runs).
    ``weights``: draw the examples' weights too (:data:`WEIGHT_KINDS`; drawn after everything else, so the
    rest of a run is the same with and without)."""
    import olkit
    from olkit import registry

    rng = np.random.default_rng([master_seed, index])
    name = algorithms[int(rng.integers(len(algorithms)))]
    if round_robin:
        name = algorithms[index % len(algorithms)]
    stream = sample_stream(rng, "multilabel" in registry.spec(name).data, exponents, kinds, variants)
    for _ in range(10):  # options that make() refuses together (e.g. compat modes without a budget): again
        params = sample_params(name, rng, stream["exponent"], stream["d"])
        try:
            olkit.make(name, **params)
            break
        except ValueError:
            continue
    case = {
        "index": index,
        "algorithm": name,
        "params": params,
        "stream": stream,
        "cuts": sorted({int(c) for c in rng.integers(1, max(stream["n"], 2), size=int(rng.integers(1, 4)))}),
    }
    if weights:
        case["weights"] = {
            "kind": WEIGHT_KINDS[int(rng.integers(len(WEIGHT_KINDS)))],
            "seed": int(rng.integers(2**31)),
        }
    return case
