"""``fit`` shuffles by default, as scikit-learn's online linear estimators do (issue 9, item 3).

``fit(X, y)`` is one online pass over the rows in the order ``check_random_state(random_state).permutation(n)``;
``shuffle=False`` is the online protocol (one pass in the given order). ``partial_fit`` and
``evaluate_online`` never shuffle. The bundled ``sonar`` file is sorted by class (97 rows of -1, then 111 of
+1): one pass in file order ends on a run of +1 rows and predicts the majority class; shuffled, it learns.
``shuffle`` and ``random_state`` order ``fit``'s pass only: the registry's listings and the online runs
(``olkit run`` / ``tune``, experiment configs) leave them out or refuse them.
"""

import inspect
import json

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score

import olkit
from olkit import registry
from olkit.base import FIT_ORDER_PARAMS
from olkit.cli import main

X, y = olkit.load_dataset("sonar")
BASELINE = max(np.mean(y == label) for label in np.unique(y))  # the majority class: 111/208


def test_sonar_is_sorted_by_class():
    """The premise: the file holds one class, then the other."""
    assert np.all(np.diff(y) >= 0) and len(np.unique(y)) == 2 and BASELINE == pytest.approx(111 / 208)


@pytest.mark.parametrize("name", ["pa", "duol", "scw1", "ahpatron"])
def test_fit_shuffles_by_default_and_learns_a_class_sorted_file(name):
    clf = olkit.make(name)
    assert clf.get_params()["shuffle"] is True and clf.get_params()["random_state"] is None
    shuffled = olkit.make(name, random_state=0).fit(X, y)
    assert shuffled.score(X, y) > BASELINE + 0.1
    # shuffle=False: exactly one pass in the given order, the result of partial_fit on the same rows
    in_order = olkit.make(name, shuffle=False).fit(X, y)
    stream = olkit.make(name).partial_fit(X, y)
    np.testing.assert_array_equal(in_order.decision_function(X), stream.decision_function(X))
    assert in_order.n_mistakes_ == stream.n_mistakes_ and in_order.n_seen_ == len(y)
    if name != "ahpatron":  # σ = 1 memorises sonar in any order; the others end on the last class
        assert in_order.score(X, y) == pytest.approx(BASELINE)


def test_the_pass_order_is_the_permutation_of_random_state():
    """fit(random_state=r) ≡ partial_fit over X[RandomState(r).permutation(n)]; an int, the same
    RandomState and a numpy integer give the same order; another seed, another order."""
    perm = np.random.RandomState(3).permutation(len(y))
    expected = olkit.make("duol").partial_fit(X[perm], y[perm]).decision_function(X)
    for random_state in (3, np.int64(3), np.random.RandomState(3)):
        fitted = olkit.make("duol", random_state=random_state).fit(X, y)
        np.testing.assert_array_equal(fitted.decision_function(X), expected)
    twice = [olkit.make("scw1", random_state=0).fit(X, y) for _ in range(2)]
    np.testing.assert_array_equal(twice[0].decision_function(X), twice[1].decision_function(X))
    np.testing.assert_array_equal(twice[0].coef_, twice[1].coef_)
    other = olkit.make("scw1", random_state=1).fit(X, y)
    assert not np.array_equal(other.decision_function(X), twice[0].decision_function(X))
    # refitting the same learner with a fixed seed starts again from the same order
    clf = olkit.make("pa", random_state=5)
    first = clf.fit(X, y).decision_function(X)
    np.testing.assert_array_equal(clf.fit(X, y).decision_function(X), first)


def test_random_state_none_draws_a_fresh_order():
    a, b = (olkit.make("pa").fit(X, y).decision_function(X) for _ in range(2))
    assert not np.array_equal(a, b)


def test_cross_validation_on_a_class_sorted_file():
    """scikit-learn's cross-validation keeps each training fold in file order: fit's shuffle decides."""
    # kernel PA at its default σ = 8 is a weak learner on sonar: one seed may fall short, five do not
    scores = [cross_val_score(olkit.make("pa", random_state=r), X, y, cv=5).mean() for r in range(5)]
    assert np.mean(scores) > BASELINE + 0.02
    assert cross_val_score(olkit.make("pa", random_state=0), X, y, cv=5).mean() > BASELINE
    assert cross_val_score(olkit.make("duol", random_state=0), X, y, cv=5).mean() > BASELINE + 0.05
    in_order = cross_val_score(olkit.make("pa", shuffle=False), X, y, cv=5).mean()
    assert in_order == pytest.approx(BASELINE, abs=0.01)  # the majority class of every test fold
    cloned = clone(olkit.make("pa", shuffle=False, random_state=7))
    assert cloned.get_params()["shuffle"] is False and cloned.get_params()["random_state"] == 7


@pytest.mark.parametrize("name", ["pa", "arow", "fogd"])
def test_partial_fit_and_evaluate_online_never_shuffle(name):
    in_order = olkit.make(name, shuffle=False).fit(X, y)
    streamed = olkit.make(name, random_state=0)  # shuffle=True: partial_fit ignores it
    streamed.partial_fit(X[:50], y[:50], classes=np.unique(y))
    streamed.partial_fit(X[50:], y[50:])
    np.testing.assert_allclose(streamed.decision_function(X), in_order.decision_function(X), rtol=1e-12, atol=1e-12)
    assert streamed.n_mistakes_ == in_order.n_mistakes_
    evaluated = olkit.make(name, random_state=0)
    res = olkit.evaluate_online(evaluated, X, y)
    np.testing.assert_array_equal(evaluated.decision_function(X), in_order.decision_function(X))
    assert res.mistakes == in_order.n_mistakes_


@pytest.mark.parametrize(
    "param,bad",
    [
        ("shuffle", "yes"),
        ("shuffle", 1),
        ("shuffle", None),
        ("random_state", -1),
        ("random_state", "a"),
        ("random_state", 2**32),
        ("random_state", 1.5),
        ("random_state", True),
        ("random_state", np.random.default_rng(0)),
    ],
)
def test_bad_values_are_refused(param, bad):
    with pytest.raises(ValueError, match=f"pa: parameter {param}=.* is not valid; {param} must be ") as info:
        olkit.make("pa", **{param: bad})
    assert "\n" not in str(info.value)
    learner = olkit.make("pa").set_params(**{param: bad})  # scikit-learn style: refused by fit
    with pytest.raises(ValueError, match=f"parameter {param}="):
        learner.fit(X, y)
    with pytest.raises(ValueError, match=f"parameter {param}="):
        olkit.make("pa").set_params(**{param: bad}).partial_fit(X, y)


def test_random_state_message_names_what_is_valid():
    with pytest.raises(ValueError) as info:
        olkit.make("scw1", random_state=-1)
    assert str(info.value) == (
        "scw1: parameter random_state=-1 is not valid; random_state must be None, or an "
        "integer >= 0 and <= 4294967295, or a numpy.random.RandomState"
    )


def test_good_values_are_accepted():
    for params in (
        {"shuffle": np.bool_(False)},
        {"shuffle": False, "random_state": 0},
        {"random_state": np.uint32(2**32 - 1)},
        {"random_state": np.random.RandomState(1)},
    ):
        olkit.make("pa", **params).fit(X[:20], y[90:110])


@pytest.mark.parametrize("name", registry.names())
def test_every_learner_has_them_last_and_the_registry_leaves_them_out(name):
    cls = registry.get(name)
    params = list(inspect.signature(cls.__init__).parameters.values())
    assert [p.name for p in params[-2:]] == list(FIT_ORDER_PARAMS)
    assert all(p.kind is p.KEYWORD_ONLY for p in params[-2:])
    assert set(FIT_ORDER_PARAMS) <= set(cls._get_param_names())  # get_params/set_params/clone see them
    assert not set(FIT_ORDER_PARAMS) & set(registry.defaults(name))  # olkit list, Spec.defaults: not listed
    assert not set(FIT_ORDER_PARAMS) & {key for key, _ in registry.spec(name).tuning}  # never tuned
    assert not set(FIT_ORDER_PARAMS) & set(cls._algorithm_param_names())  # nor resolved_params (run JSON)


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["run", "tune"])
@pytest.mark.parametrize("setting", ["shuffle=false", "shuffle=true", "random_state=3"])
def test_cli_refuses_fit_order_settings(capsys, command, setting):
    """A run follows the protocol order (--order / --seed): a fit-only setting is refused, not ignored."""
    code, out, err = run_cli(capsys, command, "pa", "--data", "sonar", "--set", setting)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"olkit: error: {setting.split('=')[0]}="), err
    assert "only order the pass of fit" in err and "--order FILE" in err and "--seed S" in err


def test_cli_bad_fit_order_value_gets_the_validation_message(capsys):
    code, _, err = run_cli(capsys, "run", "pa", "--data", "sonar", "--set", "random_state=-1")
    assert code == 2 and "pa: parameter random_state=-1 is not valid; random_state must be None" in err


def test_cli_list_and_run_json_leave_them_out(capsys):
    code, out, err = run_cli(capsys, "list", "pa", "--format", "json")
    assert code == 0, err
    listed = json.loads(out)["algorithms"][0]["parameters"]
    assert "compat" in listed and not set(FIT_ORDER_PARAMS) & set(listed)
    code, out, err = run_cli(capsys, "run", "pa", "--data", "sonar", "--repeats", "1", "--format", "json")
    assert code == 0, err
    params = json.loads(out)["results"][0]["params"]
    assert "sigma" in params and not set(FIT_ORDER_PARAMS) & set(params)


def test_experiment_config_refuses_them(tmp_path):
    from olkit.experiment.config import ConfigError
    from olkit.experiment.reproduce import reproduce_config

    for change in ({"settings": {"shuffle": False}}, {"params": {"pa1": {"random_state": 0}}}):
        config = {
            "title": "t",
            "paper": "duol_jmlr_table2",
            "output": str(tmp_path / "out" / "page.md"),
            "datasets": ["sonar"],
            "algorithms": ["pa1"],
            **change,
        }
        with pytest.raises(ConfigError, match="unknown parameter '(shuffle|random_state)'"):
            reproduce_config(config, "test")
    assert not (tmp_path / "out").exists()
