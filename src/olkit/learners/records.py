"""The parameters of an update rule as compiled code reads them: one typed, named record per rule.

A learner resolves its constructor parameters (defaults, the paper's data-dependent settings, compat
choices) into the values its update rule needs, and hands them to the compiled loop as a
:class:`typing.NamedTuple` declared beside the rule, e.g. ::

    class PAParams(NamedTuple):
        variant: int  # PA_PLAIN, PA_I or PA_II
        C: float

The rule reads ``st.prm.C``, never a position, and a gate shared by several rules (e.g.
``olkit.learners.budget.common.epsilon_margin_gate``) reads the one field it needs (``prm.epsilon``) from
whichever record it is compiled with. numba types each record by its fields, so the values must always
have the declared types: :func:`rule_params` converts them. The record is part of a learner's state
(``state_.prm``) and is saved in model files as a named tuple of scalars; loading checks it equals the one
the loaded parameters give.
"""

from typing import NamedTuple


class NoParams(NamedTuple):
    """The record of a rule without parameters (the perceptron's linear form, SOP, ...)."""


def rule_params(record, **values):
    """``record(**values)`` with every value converted to its field's declared type (int, float or bool)."""
    fields = record._fields
    if set(values) != set(fields):
        raise TypeError(f"{record.__name__} takes {', '.join(fields) or 'no fields'}, got {', '.join(values)}")
    types = record.__annotations__
    return record(**{f: types[f](values[f]) for f in fields})
