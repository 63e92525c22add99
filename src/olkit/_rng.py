"""A tiny seeded random generator for compiled update rules (SplitMix64).

Compiled rules that draw random numbers (DUOL_rand, RBP, BOGD, ...) keep the generator state in the
learner (one uint64), so a stream fed in chunks, or a pickled learner, continues the same sequence.
SplitMix64 (Steele, Lea, Flood 2014) is simple enough to be re-implemented exactly in a test:

    state += 0x9E3779B97F4A7C15
    z = state; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    z ^= z >> 31                                  (all arithmetic modulo 2**64)
    uniform = (z >> 11) * 2**-53                  in [0, 1)
    index in 0..n-1 = floor(uniform * n)
"""

import numpy as np

from ._compile import njit


@njit
def next_uniform(rng):
    """Advance ``rng`` (a uint64 array of length 1) and return a float in [0, 1)."""
    state = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = state
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def next_index(rng, n):
    """A uniform random index in 0..n-1."""
    return min(int(next_uniform(rng) * n), n - 1)
