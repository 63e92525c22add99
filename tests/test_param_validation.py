"""Every registered parameter is validated the same way (docs/dev/architecture.md#one-validation-path).

Data-driven: for every registered algorithm and every parameter its class declares in
``_parameter_constraints``, bad values are derived from the constraint itself (NaN, ±inf, a string, a
bool, None, a value just outside each finite end, a non-integer for an integer range, a value outside an
option set), and ``olkit.make`` must reject each with one ValueError naming the algorithm, the parameter,
the value and what is valid — as must ``set_params`` + ``fit``, and the command line (one stderr line,
exit status 2). A new learner or parameter is covered as soon as it is registered with its constraints.
"""

import math
import subprocess
import sys

import numpy as np
import pytest

import olkit
from olkit import registry
from olkit.params import ClassWeights, InstanceOf, Interval, Options

PARAMETERS_ACCEPTING_ANY_VALUE = {}
"""{(algorithm, parameter): why} — parameters that rightly have no declared constraint."""

X = np.random.default_rng(0).normal(size=(12, 3))
y = np.where(X[:, 0] > 0, 1, -1)


def resolve(constraint, learner):
    """A declared constraint as a list of Interval / Options / InstanceOf / None (callables depend on the learner
    or the other parameters, and may give several)."""
    if not (constraint is None or isinstance(constraint, (Interval, Options, InstanceOf, ClassWeights))):
        constraint = constraint(learner)
    return constraint if isinstance(constraint, list) else [constraint]


def accepted_by(constraints, value):
    return any(value is None if c is None else c.accepts(value) for c in constraints)


def below(x):
    return x - max(1.0, abs(x)) * 1e-6


def above(x):
    return x + max(1.0, abs(x)) * 1e-6


def bad_values(constraint):
    """Values ``constraint`` must reject, derived from it."""
    if constraint is None:
        return []
    if isinstance(constraint, InstanceOf):
        return ["abc-not-an-instance", 1.5]
    if isinstance(constraint, ClassWeights):
        return ["Balanced", "abc", 1.5, [1.0, 2.0], {1: -1.0}, {1: math.nan}, {1: math.inf}, {1: True}, {1: "2"}]
    if isinstance(constraint, Options):
        out = ["abc-not-an-option", 1.5]
        strings = [v for v in constraint.values if isinstance(v, str)]
        if strings:
            out.append(strings[0].upper() + " ")  # no case folding, no stripping
        if all(isinstance(v, bool) for v in constraint.values):
            out += [1, "true"]  # booleans by type, not by ==
        numbers = [v for v in constraint.values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if numbers:
            out += [max(numbers) + 1, min(numbers) - 1]
        return out
    out = [math.nan, math.inf, -math.inf, "abc", True, False, [1.0]]
    c = constraint
    if c.low is not None:
        out.append(below(c.low))
        if c.closed in ("right", "neither"):
            out.append(c.low)
    if c.high is not None:
        out.append(above(c.high))
        if c.closed in ("left", "neither"):
            out.append(c.high)
    if c.integer or c.even:
        inside = (c.low if c.low is not None else (c.high if c.high is not None else 0)) + 0.5
        out.append(inside if c.low is not None or c.high is None else c.high - 0.5)
    if c.even:
        out.append((c.low if c.low is not None else 0) + 1)  # an odd integer inside the range
    return out


def constrained_parameters():
    """(algorithm, parameter) for every declared constraint of every registered algorithm."""
    return [
        (name, param)
        for name in registry.names()
        for param in sorted(registry.get(name)._all_constraints())
        if param in registry.get(name)._get_param_names()
    ]


def cases():
    """(algorithm, parameter, bad value, the constraint it came from) over every declared constraint."""
    out = []
    for name, param in constrained_parameters():
        learner = registry.get(name)()
        declared = [r for c in registry.get(name)._all_constraints()[param] for r in resolve(c, learner)]
        if not accepted_by(declared, None):
            out.append((name, param, None))
        for constraint in declared:
            for bad in bad_values(constraint):
                if not accepted_by(declared, bad):
                    out.append((name, param, bad))
    return out


CASES = cases()


def expected_message_parts(name, param, bad):
    learner = registry.get(name)()
    declared = [r for c in registry.get(name)._all_constraints()[param] for r in resolve(c, learner)]
    what = ", or ".join("None" if c is None else str(c) for c in declared)
    return [f"{name}: ", f"{param}={bad!r}", f"{param} must be {what}"]


def case_id(case):
    name, param, bad = case
    return f"{name}-{param}={bad!r}"


def test_every_algorithm_declares_something():
    assert len(registry.names()) >= 20
    assert {name for name, _ in constrained_parameters()} == set(registry.names())  # compat, at least


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_bad_value_is_rejected_by_make(case):
    name, param, bad = case
    with pytest.raises(ValueError) as info:
        olkit.make(name, **{param: bad})
    message = str(info.value)
    for part in expected_message_parts(name, param, bad):
        assert part in message, (part, message)
    assert "\n" not in message


@pytest.mark.parametrize("case", CASES[::7], ids=case_id)
def test_bad_value_is_rejected_by_set_params_and_fit(case):
    """scikit-learn style: set_params stores, fit validates — through the same path and message."""
    name, param, bad = case
    learner = registry.get(name)().set_params(**{param: bad})
    with pytest.raises(ValueError) as info:
        learner.fit(X, y)
    for part in expected_message_parts(name, param, bad):
        assert part in str(info.value)


def good_values(constraint):
    """Values ``constraint`` must accept: every option, every end of a range that belongs to it."""
    if isinstance(constraint, Options):
        return list(constraint.values)
    if isinstance(constraint, InstanceOf):
        return [constraint.kind()]  # a default instance (numpy's RandomState())
    if isinstance(constraint, Interval):
        ends = [(constraint.low, ("both", "left")), (constraint.high, ("both", "right"))]
        return [end for end, closed in ends if end is not None and constraint.closed in closed]
    return [None]


@pytest.mark.parametrize("name", registry.names())
def test_defaults_and_declared_values_are_accepted(name):
    cls = registry.get(name)
    olkit.make(name)
    for param, default in registry.defaults(name).items():
        olkit.make(name, **{param: default})
    learner = cls()
    for param, constraints in cls._all_constraints().items():
        if param not in cls._get_param_names():  # inherited from a base class, not a parameter here
            continue
        for constraint in constraints:
            for resolved in resolve(constraint, learner):
                for value in good_values(resolved):
                    olkit.make(name, **{param: value})


@pytest.mark.parametrize("name", registry.names())
def test_unknown_parameter_lists_the_valid_ones(name):
    with pytest.raises(ValueError) as info:
        olkit.make(name, no_such_parameter=1)
    message = str(info.value)
    assert name in message and "no_such_parameter" in message
    for param in registry.get(name)._get_param_names():
        assert param in message
    with pytest.raises(ValueError, match="no_such_parameter"):
        registry.get(name)().set_params(no_such_parameter=1)


@pytest.mark.parametrize("name", registry.names())
def test_every_parameter_has_a_declared_constraint(name):
    """The one validation path needs every parameter declared (imperative checks are not enough)."""
    cls = registry.get(name)
    declared = cls._all_constraints()
    missing = [
        p for p in cls._get_param_names() if p not in declared and (name, p) not in PARAMETERS_ACCEPTING_ANY_VALUE
    ]
    assert not missing, f"{name}: no declared constraint for {', '.join(missing)}"


def cli_cases():
    """(algorithm, parameter) pairs whose constraint rejects the string "abc" (every parameter today)."""
    out = []
    for name, param in constrained_parameters():
        learner = registry.get(name)()
        declared = [r for c in registry.get(name)._all_constraints()[param] for r in resolve(c, learner)]
        if not accepted_by(declared, "abc"):
            out.append((name, param))
    return out


@pytest.mark.parametrize("name,param", cli_cases())
def test_cli_bad_set_is_one_line(capsys, name, param):
    """In process (the error comes before the data are read): one stderr line, exit status 2."""
    from olkit.cli import main

    code = main(["run", name, "--data", "german", "--set", f"{param}=abc"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("olkit: error: "), err
    for part in expected_message_parts(name, param, "abc"):
        assert part in err


def sample(pairs, k=4):
    """A few (algorithm, parameter) pairs spread over the families, the same on every run."""
    rng = np.random.default_rng(2024)
    picked = rng.choice(len(pairs), size=min(k, len(pairs)), replace=False)
    return [pairs[i] for i in sorted(picked)]


@pytest.mark.parametrize("name,param", sample(cli_cases()))
def test_olkit_command_bad_set_is_one_line(name, param):
    """The real command (``python -m olkit``, docs/dev/architecture.md#commands) on a sample: one stderr line,
    exit 2."""
    proc = subprocess.run(
        [sys.executable, "-m", "olkit", "run", name, "--data", "german", "--set", f"{param}=abc"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for part in expected_message_parts(name, param, "abc"):
        assert part in lines[0]
