"""The compiled block loop of the kernel learners, built over each algorithm's rule.

``kernel_block`` is the inner part of the one online protocol (:mod:`olkit.protocol`) for support-vector
learners. It is written once, here, as a template: for each example of a block it completes the kernel
row (block product + SVs added inside the block), computes the K scores f_c(x_t) = Σ_i coef[i, c] κ(x_i, x_t),
lets the algorithm adjust them (``score_hook``, e.g. ALMA's normalisation), decides the mistake, counts,
and calls the algorithm's ``update``; a learner with ``average`` then records the round in its averaged
model (``average_step``, :mod:`~olkit.learners.kernel.sv_edit`; a no-op compiled away otherwise, so a
learner without ``average`` runs exactly the loop it ran before). :func:`block_loop` compiles it for one
algorithm's pieces (see :func:`olkit._compile.compile_loop`), so the loop holds no algorithm-specific
branch and a run compiles only the rule it uses. Every rule has the signature

    update(sv, st, s, t, kself, y, f, mistake) -> bool  (True if the model changed)

with ``sv`` the support set arrays (``sv.krow`` holds κ(x_i, x_t)), ``st`` the rule state, ``s`` the
stream (``s.sw[t]`` > 0 is the example's weight: each rule's page says what it does; a round of weight 0 is
not passed to the rule, docs/algorithms/options.md#weights), ``t`` the example's row, ``y`` its label (binary
±1, or the class index), ``f`` the vector of its
K scores (binary: K = 1) and ``mistake`` whether the prediction was wrong. A score hook has the signature
``score_hook(sv, st, s, t, kself, f)`` and may change f in place before the mistake is decided (ALMA's
normalisation, NOGD's feature map, POMDR's optimistic hint).

A rule may come with a *gate* ``needs_update(prm, Y, t, y, f, kself, mistake, coef, hw, n) -> bool``, inlined
into the loop, on plain arrays: the rule parameters ``st.prm``, the label-set matrix ``s.Y`` and the first n
rows of the coefficients and direction weights. A round the gate rejects is not passed to the rule at all.
The gate must reject only rounds on which the rule would change nothing and return False (e.g. a margin
above the rule's threshold), or do on them exactly what the rule would do (BOGD's decay of every
coefficient), so that the model is the same. It saves the call, which passes the support set, state and
stream tuples (~0.5 µs a round, more than the rest of a round's fixed cost). The default gate passes every
round.

Mistakes (docs/algorithms/conventions.md#prediction-and-mistakes, docs/algorithms/multiclass.md#ties): binary ŷ = +1
iff f ≥ 0; multiclass ŷ = argmax_c f_c with ties to the smallest class index; multi-label: a mistake iff some
irrelevant class scores at least as high as the worst relevant one (Γ_t ≤ 0); a row whose label set is empty or
complete cannot be wrong.
"""

from ..._compile import compile_loop, loop_compile_options, njit_helper, njit_inline
from ...base import MISTAKES, SEEN, UPDATES
from .kernel_rows import begin_block, kernel_row_dense, kernel_row_sparse
from .scores import binary_scores, direction_scores
from .stream import BINARY, MULTICLASS, MULTILABEL
from .support_set import CLOCK, SPARSE, N
from .sv_edit import no_average


@njit_inline
def every_round(prm, Y, t, y, f, kself, mistake, coef, hw, n):
    """Default gate: every round goes to the rule."""
    return True


@njit_inline
def no_score_hook(sv, st, s, t, kself, f):
    """Default: the scores are the kernel expansion itself."""


@njit_inline
def argmax_first(f):
    """argmax with ties to the smallest index."""
    best = 0
    for c in range(1, f.shape[0]):
        if f[c] > f[best]:
            best = c
    return best


@njit_helper
def relevant_pair(Y, t, f):
    """(r_t, s_t) of docs/algorithms/multiclass.md#setting-and-notation: the worst-scoring relevant and the
    best-scoring irrelevant class (ties to the smallest index); −1 where the set is empty."""
    r = -1
    s = -1
    for c in range(f.shape[0]):
        if Y[t, c]:
            if r < 0 or f[c] < f[r]:
                r = c
        elif s < 0 or f[c] > f[s]:
            s = c
    return r, s


# The mistake test of each data kind (a piece of the loop, chosen in Python: a run compiles only its own).


@njit_inline
def binary_mistake(s, t, f):
    return (1.0 if f[0] >= 0.0 else -1.0) != s.y[t]  # tie rule: f = 0 predicts +1


@njit_inline
def multiclass_mistake(s, t, f):
    return argmax_first(f) != int(s.y[t])


@njit_helper
def multilabel_mistake(s, t, f):
    r, w = relevant_pair(s.Y, t, f)
    return r >= 0 and w >= 0 and f[r] <= f[w]


MISTAKE_TESTS = {BINARY: binary_mistake, MULTICLASS: multiclass_mistake, MULTILABEL: multilabel_mistake}


def kernel_block(sv, st, s, G, order, start, stop, scores, mistakes):
    """Predict-then-update for stream positions start..stop-1 (G: dot products with the block's SVs)."""
    begin_block(sv, G.shape[1])
    # The arrays of the per-round calls, read from the named tuples once: an array read from a tuple
    # inside the loop costs an atomic reference-count increment and decrement per call argument (~50
    # a round, ~0.3 µs). The tuples' arrays cannot change inside the loop (growth happens between blocks).
    krow, meta, gcol, moved, sv_norm2, sv_X = sv.krow, sv.meta, sv.gcol, sv.moved, sv.norm2, sv.X
    sv_start, sv_stop, sv_indices, sv_data = sv.start, sv.stop, sv.indices, sv.data
    coef, hr, hs, hw = sv.coef, sv.hr, sv.hs, sv.hw
    X, indptr, indices, data, work, norm2, kp, y, Y = s.X, s.indptr, s.indices, s.data, s.work, s.norm2, s.kp, s.y, s.Y
    sw = s.sw
    prm, cnt = st.prm, st.cnt
    average_start = s.info[2]
    for pos in range(start, stop):
        t = order[pos]
        kself = row_kernel(  # noqa: F821  (bound by compile_loop)
            krow,
            G,
            pos - start,
            meta,
            gcol,
            moved,
            sv_norm2,
            sv_X,  # noqa: F821
            sv_start,
            sv_stop,
            sv_indices,
            sv_data,
            X,
            indptr,
            indices,
            data,
            work,
            norm2,
            kp,
            t,
        )
        f = scores[pos]
        row_scores(coef, krow, meta[N], hr, hs, hw, f)  # noqa: F821
        score_hook(sv, st, s, t, kself, f)  # noqa: F821  (bound by block_loop)
        mistake = is_mistake(s, t, f)  # noqa: F821  (bound by block_loop)
        mistakes[pos] = mistake
        meta[CLOCK] = cnt[SEEN]
        cnt[SEEN] += 1
        cnt[MISTAKES] += mistake
        n0 = meta[N]
        # weight 0: predicted and counted, not learned (docs/algorithms/options.md#weights)
        if sw[t] != 0.0 and needs_update(prm, Y, t, y[t], f, kself, mistake, coef, hw, n0):  # noqa: F821
            if update(sv, st, s, t, kself, y[t], f, mistake):  # noqa: F821
                cnt[UPDATES] += 1
        average_step(sv, n0, cnt[SEEN], average_start)  # noqa: F821  (bound by block_loop)


_BLOCK_LOOPS: dict[tuple, object] = {}


def block_loop(update, score_hook=no_score_hook, mistake_tests=None, gate=every_round, average=no_average):
    """``kernel_block`` for one algorithm's update rule, score hook and gate: a callable with the loop's
    arguments that runs the loop compiled for the stream's data kind (``Stream.info[0]``: the mistake test
    and the scores, one output or K) and the SVs' storage (dense or CSR kernel rows), compiling it on first
    use.

    ``mistake_tests`` ({data kind: test}, each ``test(s, t, f) -> bool``) replaces the mistake test of
    docs/algorithms/conventions.md#prediction-and-mistakes for the kinds it names: a learner reproducing a reference
    code that counts mistakes differently (e.g. DOGMA's sign(0) = 0, docs/algorithms/budget-family.md) supplies its
    own, and only a run that uses it compiles it; every other run compiles exactly the loop it compiled before.

    ``average``: the averaging step after each round (:func:`~olkit.learners.kernel.sv_edit.average_all` or
    :func:`~olkit.learners.kernel.sv_edit.average_appended` for a learner with ``average``; the default does
    nothing)."""
    extra = tuple(sorted((mistake_tests or {}).items(), key=lambda kv: kv[0]))
    key = (update, score_hook, extra, gate, average)
    run = _BLOCK_LOOPS.get(key)
    if run is None:
        loops = {}
        tests = {**MISTAKE_TESTS, **dict(extra)}

        def run(sv, st, s, G, order, start, stop, scores, mistakes):
            kind, sparse = int(s.info[0]), bool(sv.meta[SPARSE])
            loop = loops.get((kind, sparse))
            if loop is None:
                loop = compile_loop(
                    kernel_block,
                    update=update,
                    score_hook=score_hook,
                    is_mistake=tests[kind],
                    needs_update=gate,
                    average_step=average,
                    row_kernel=kernel_row_sparse if sparse else kernel_row_dense,
                    row_scores=binary_scores if kind == BINARY else direction_scores,
                )
                with loop_compile_options():  # compile (or load from the disk cache) on an empty block
                    loop(sv, st, s, G[:0], order, start, start, scores, mistakes)
                loops[kind, sparse] = loop
            return loop(sv, st, s, G, order, start, stop, scores, mistakes)

        _BLOCK_LOOPS[key] = run
    return run
