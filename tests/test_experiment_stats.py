"""The one paired t-test of the reproduction pages (olkit.experiment.stats) and its edge cases, and the
acceptance criteria as config data (olkit.experiment.acceptance)."""

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import ttest_rel

from olkit.experiment.acceptance import acceptance
from olkit.experiment.config import ConfigError, load_config, validate_config
from olkit.experiment.selection import SCALES
from olkit.experiment.stats import best_by_ttest, paired_ttest


def test_paired_ttest_is_scipys_on_ordinary_runs():
    rng = np.random.default_rng(0)
    a, b = rng.normal(10, 1, 20), rng.normal(10.5, 1, 20)
    t = paired_ttest(a, b)
    assert t.p_value == float(ttest_rel(a, b).pvalue) and t.mean_diff == float((a - b).mean())
    assert t.n == 20 and not t.identical and t.a_lower == (a.mean() < b.mean()) and t.sign in (-1, 1)


def test_paired_ttest_edge_cases():
    same = paired_ttest([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])  # identical runs: nothing to test
    assert same.identical and math.isnan(same.p_value) and same.sign == 0 and not same.significant()
    one = paired_ttest([1.0], [2.0])  # n < 2
    assert math.isnan(one.p_value) and not one.significant() and one.sign == -1 and one.mean_diff == -1.0
    shift = paired_ttest([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])  # zero variance, non-zero mean: scipy's p = 0
    assert shift.p_value == 0.0 and shift.significant() and shift.sign == 1
    nan = paired_ttest([1.0, float("nan"), 3.0], [0.0, 1.0, 2.0])
    assert math.isnan(nan.p_value) and not nan.identical and not nan.significant()


def test_best_by_ttest_bold_marks():
    runs = lambda name, rates: {"algorithm": name, "runs": [{"mistake_rate": r} for r in rates]}  # noqa: E731
    results = [
        runs("best", [0.10, 0.11, 0.12]),
        runs("copy", [0.10, 0.11, 0.12]),
        runs("close", [0.11, 0.10, 0.125]),
        runs("worse", [0.20, 0.21, 0.22]),
    ]
    assert best_by_ttest(results) == {"best", "copy", "close"}
    assert best_by_ttest([runs("a", [0.1]), runs("b", [0.2])]) == {"a"}  # one ordering: a difference is not bold


def test_a_config_without_acceptance_data_has_no_acceptance_summary():
    doc = {"dataset": "sonar", "results": [{"algorithm": "duol", "mean": {"mistake_rate": 0.3}, "runs": []}]}
    assert acceptance([doc], {}, {"title": "t"}) == []


def test_acceptance_rules_are_checked_with_the_config(tmp_path):
    config = load_config(Path(__file__).resolve().parent.parent / "experiments" / "scw_table3.toml")
    assert [c["algorithm"] for c in config["acceptance"]["table"][0]["columns"]] == ["scw1", "scw2"]
    for bad, match in (
        ("scw", "acceptance must be a table of rules"),
        ({"tabel": []}, "unknown rule kind 'tabel'"),
        ({"table": [{"columns": [{"kind": "above", "algorithm": "scw1"}]}]}, "column kind 'above'"),
        ({"table": [{"columns": [{"kind": "within", "algorithm": "scw9"}]}]}, "scw9"),
    ):
        with pytest.raises(ConfigError, match=match):
            validate_config({**config, "acceptance": bad})


def test_selection_scales_are_the_configs():
    from olkit.experiment.config import SCALE_NAMES

    assert tuple(SCALES) == SCALE_NAMES
