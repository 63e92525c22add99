"""The compiled block loop of the kernel learners and the table of their update rules.

``kernel_block`` is the inner part of the one online protocol (:mod:`olkit.protocol`) for support-vector
learners: for each example of a block it completes the kernel row (block product + SVs added inside the
block), predicts, counts, and calls the learner's update rule. Every rule has the signature

    update(sv, st, s, t, kself, y, f, mistake) -> bool  (True if the model changed)

with ``sv`` the support set arrays (``sv.krow`` holds κ(x_i, x_t)), ``st`` the rule state, ``s`` the
stream, ``t`` the example's row, ``f`` its score and ``mistake`` whether ŷ_t ≠ y_t.
"""
import math

from ..._compile import njit
from .alma import alma_update
from .base import EPS, MISTAKES, SEEN, UPDATES
from .duol import duol_update
from .online_svm import online_svm_update
from .pa import pa_update
from .perceptron import perceptron_update
from .romma import romma_update
from .scw import kernel_scw_update
from .support_set import CLOCK, HAS_GRAM, N, NPRE, expansion_score, fill_kernel_row, sync_gram

RULE_IDS = {"perceptron": 0, "pa": 1, "romma": 2, "alma": 3, "duol": 4, "online-svm": 5, "scw": 6}
ALMA = RULE_IDS["alma"]


@njit
def apply_update(rule, sv, st, s, t, kself, y, f, mistake):
    if rule == 0:
        return perceptron_update(sv, st, s, t, kself, y, f, mistake)
    if rule == 1:
        return pa_update(sv, st, s, t, kself, y, f, mistake)
    if rule == 2:
        return romma_update(sv, st, s, t, kself, y, f, mistake)
    if rule == 3:
        return alma_update(sv, st, s, t, kself, y, f, mistake)
    if rule == 4:
        return duol_update(sv, st, s, t, kself, y, f, mistake)
    if rule == 5:
        return online_svm_update(sv, st, s, t, kself, y, f, mistake)
    return kernel_scw_update(sv, st, s, t, kself, y, f, mistake)


@njit
def kernel_block(rule, sv, st, s, G, order, start, stop, scores, mistakes):
    """Predict-then-update for stream positions start..stop-1 (G: dot products with the block's SVs)."""
    sv.meta[NPRE] = min(G.shape[1], sv.meta[N])
    if sv.meta[HAS_GRAM]:
        sync_gram(sv)
    for pos in range(start, stop):
        t = order[pos]
        kself = fill_kernel_row(sv, s, t, G, pos - start)
        f = expansion_score(sv, 0)
        if rule == ALMA:  # ALMA predicts with the normalised kernel (see alma.py)
            f = f / math.sqrt(kself) if kself > EPS else 0.0
        y = s.y[t]
        mistake = (1.0 if f >= 0.0 else -1.0) != y  # tie rule: f = 0 predicts +1
        scores[pos] = f
        mistakes[pos] = mistake
        sv.meta[CLOCK] = st.cnt[SEEN]
        st.cnt[SEEN] += 1
        st.cnt[MISTAKES] += mistake
        if apply_update(rule, sv, st, s, t, kself, y, f, mistake):
            st.cnt[UPDATES] += 1
