"""The compiled block loop of the kernel learners, built over each algorithm's rule.

``kernel_block`` is the inner part of the one online protocol (:mod:`olkit.protocol`) for support-vector
learners. It is written once, here, as a template: for each example of a block it completes the kernel
row (block product + SVs added inside the block), computes the K scores f_c(x_t) = Σ_i coef[i, c] κ(x_i, x_t),
lets the algorithm adjust them (``score_hook``, e.g. ALMA's normalisation), decides the mistake, counts,
and calls the algorithm's ``update``. :func:`block_loop` compiles it for one algorithm's pieces (see
:func:`olkit._compile.compile_loop`), so the loop holds no algorithm-specific branch and a run compiles only
the rule it uses. Every rule has the signature

    update(sv, st, s, t, kself, y, f, mistake) -> bool  (True if the model changed)

with ``sv`` the support set arrays (``sv.krow`` holds κ(x_i, x_t)), ``st`` the rule state, ``s`` the
stream, ``t`` the example's row, ``y`` its label (binary ±1, or the class index), ``f`` the vector of its
K scores (binary: K = 1) and ``mistake`` whether the prediction was wrong.

Mistakes (ALGORITHMS.md §0.2, B0): binary ŷ = +1 iff f ≥ 0; multiclass ŷ = argmax_c f_c with ties to the
smallest class index; multi-label: a mistake iff some irrelevant class scores at least as high as the
worst relevant one (Γ_t ≤ 0); a row whose label set is empty or complete cannot be wrong.
"""
from ..._compile import compile_loop, njit
from ...base import MISTAKES, SEEN, UPDATES
from .support_set import BINARY, CLOCK, MULTICLASS, begin_block, expansion_scores, fill_kernel_row


@njit
def no_score_hook(sv, st, kself, f):
    """Default: the scores are the kernel expansion itself."""


@njit
def argmax_first(f):
    """argmax with ties to the smallest index."""
    best = 0
    for c in range(1, f.shape[0]):
        if f[c] > f[best]:
            best = c
    return best


@njit
def relevant_pair(Y, t, f):
    """(r_t, s_t) of ALGORITHMS.md B0: the worst-scoring relevant and the best-scoring irrelevant class
    (ties to the smallest index); −1 where the set is empty."""
    r = -1
    s = -1
    for c in range(f.shape[0]):
        if Y[t, c]:
            if r < 0 or f[c] < f[r]:
                r = c
        elif s < 0 or f[c] > f[s]:
            s = c
    return r, s


@njit
def is_mistake(s, t, f):
    kind = s.info[0]
    if kind == BINARY:
        return (1.0 if f[0] >= 0.0 else -1.0) != s.y[t]  # tie rule: f = 0 predicts +1
    if kind == MULTICLASS:
        return argmax_first(f) != int(s.y[t])
    r, w = relevant_pair(s.Y, t, f)
    return r >= 0 and w >= 0 and f[r] <= f[w]


def kernel_block(sv, st, s, G, order, start, stop, scores, mistakes):
    """Predict-then-update for stream positions start..stop-1 (G: dot products with the block's SVs)."""
    begin_block(sv, G.shape[1])
    for pos in range(start, stop):
        t = order[pos]
        kself = fill_kernel_row(sv, s, t, G, pos - start)
        f = scores[pos]
        expansion_scores(sv, f)
        score_hook(sv, st, kself, f)  # noqa: F821  (bound by block_loop)
        mistake = is_mistake(s, t, f)
        mistakes[pos] = mistake
        sv.meta[CLOCK] = st.cnt[SEEN]
        st.cnt[SEEN] += 1
        st.cnt[MISTAKES] += mistake
        if update(sv, st, s, t, kself, s.y[t], f, mistake):  # noqa: F821  (bound by block_loop)
            st.cnt[UPDATES] += 1


def block_loop(update, score_hook=no_score_hook):
    """``kernel_block`` compiled for one algorithm's update rule and score hook."""
    return compile_loop(kernel_block, update=update, score_hook=score_hook)
