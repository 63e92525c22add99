"""Perceptron (Rosenblatt 1958), primal form: docs/algorithms/perceptron.md#linear-form (the
kernel rule with κ(u, v) = u·v).

The learner is ``perceptron`` (:mod:`olkit.learners.kernel.perceptron`); with ``kernel="linear"`` it keeps
an explicit weight vector and runs this rule. Multiclass data use the joint feature map
(docs/algorithms/linear-family.md): Δ = e_y⊗x − e_s⊗x with s the highest-scoring wrong class (Crammer–Singer's "max"
update).
"""

from ..._compile import njit_inline
from .engine import NO_STEP, PrimalRule, Step


@njit_inline
def perceptron_step(prm, fst, m, v, dn2, mistake, wt):
    """w ← w + s_t Δ on every mistake: the step α = s_t, a weighted mistake
    (docs/algorithms/perceptron.md#weights)."""
    if not mistake:
        return NO_STEP
    return Step(True, wt, 1.0, 0.0, 0.0, 1.0)


PERCEPTRON_PRIMAL = PrimalRule("perceptron", perceptron_step)
