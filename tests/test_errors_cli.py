"""Issue 9 through the command line: every bad input is one ``olkit: error:`` line on stderr, exit status 2,
no traceback, naming the option or parameter and what is valid (the API side is in tests/test_errors.py)."""

import json

import numpy as np
import pytest

from helpers import bad_compressed_files
from olkit.cli import main

SIGMA_RULE = (
    "sigma must be a number >= 1e-154 and <= 1e+153 (the Gaussian's 1/(2σ²) must be a finite, non-zero float64)"
)
"""What a bad sigma is told (olkit.params.SIGMA)."""


def cli_error(capsys, *args):
    """Run the command, check it failed as a user mistake should, and return its one stderr line."""
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("olkit: error: "), err
    return err.strip()


def cli_ok(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize(
    "algo,setting,needle",
    [
        ("duol", "sigma=abc", "duol: parameter sigma='abc' is not valid; " + SIGMA_RULE),
        ("pa1", "C=", "pa1: parameter C='' is not valid; C must be a number > 0, or None"),
        ("pa1", "C=1e999", "pa1: parameter C=inf is not valid; C must be a number > 0"),
        ("scw1", "eta=high", "scw1: parameter eta='high' is not valid; eta must be a number > 0.5 and < 1"),
        ("forgetron", "B=1.5", "forgetron: parameter B=1.5 is not valid; B must be an integer >= 2"),
        (
            "forgetron",
            "B=100000000000000000000000",
            "parameter B=100000000000000000000000 is not valid; B must be an integer >= 2",
        ),
        ("perceptron", "multiclass_update=1", "multiclass_update must be one of 'max', 'uniform', 'prop'"),
        ("pa1", "=1", "--set expects KEY=VALUE, got '=1'"),
    ],
)
def test_set_values_that_do_not_parse(capsys, algo, setting, needle):
    assert needle in cli_error(capsys, "run", algo, "--data", "sonar", "--set", setting)


def test_out_names_a_file_or_an_unwritable_place(capsys, tmp_path):
    existing = tmp_path / "results.json"
    existing.write_text("{}")
    err = cli_error(capsys, "run", "pa1", "--data", "sonar", "--repeats", "1", "--out", str(existing))
    assert f"--out {existing} is an existing file; --out names a directory" in err
    assert existing.read_text() == "{}"  # refused before anything ran or was written
    err = cli_error(capsys, "run", "pa1", "--data", "sonar", "--repeats", "1", "--out", str(existing / "sub"))
    assert f"--out {existing / 'sub'}: cannot create the directory" in err
    # an existing directory is what --out names: the result files in it are overwritten
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "sonar.json").write_text("old")
    cli_ok(capsys, "run", "pa1", "--data", "sonar", "--repeats", "1", "--out", str(out_dir))
    assert json.loads((out_dir / "sonar.json").read_text())["dataset"] == "sonar"


def test_corrupt_or_truncated_compressed_data(capsys, tmp_path):
    for what, path in bad_compressed_files(tmp_path).items():
        err = cli_error(capsys, "run", "pa1", "--data", str(path))
        assert f"{path}: corrupt or truncated" in err, what


def test_malformed_libsvm_text_names_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.libsvm"
    bad.write_text("+1 1:0.5 2:1\n-1 1:0.1 2:0.3\n+1 1:zz\n")
    assert f"{bad}:3: malformed LIBSVM line" in cli_error(capsys, "run", "pa1", "--data", str(bad))


def test_directory_as_data(capsys, tmp_path):
    err = cli_error(capsys, "run", "pa1", "--data", str(tmp_path))
    assert f"{tmp_path} is a directory; expected a LIBSVM file (plain text, .gz or .bz2)" in err


def test_tune_does_not_retune_parameters_fixed_by_set(capsys):
    doc = json.loads(cli_ok(capsys, "tune", "scw1", "--data", "sonar", "--set", "C=1", "--format", "json"))
    scw1 = doc["results"][0]
    assert scw1["params"]["C"] == 1 and {t["parameter"] for t in scw1["tuning"]} == {"eta"}
    out = cli_ok(capsys, "tune", "scw1", "--data", "sonar", "--set", "C=1")
    assert "(C=1 fixed by --set)" in out and "C=0.0625" not in out
    out = cli_ok(capsys, "tune", "scw1", "--data", "sonar", "--set", "C=1", "--set", "eta=0.7")
    assert "nothing to tune (C=1, eta=0.7 fixed by --set)" in out


def test_run_tune_does_not_retune_parameters_fixed_by_set(capsys):
    doc = json.loads(
        cli_ok(capsys, "run", "scw1", "--data", "sonar", "--tune", "--set", "C=1", "--repeats", "1", "--format", "json")
    )
    scw1 = doc["results"][0]
    assert scw1["params"]["C"] == 1 and {t["parameter"] for t in scw1["tuning"]} == {"eta"}
    out = cli_ok(
        capsys,
        "run",
        "scw1",
        "perceptron",
        "--data",
        "sonar",
        "--tune",
        "--set",
        "C=1",
        "--set",
        "eta=0.7",
        "--repeats",
        "1",
    )
    assert "tuned: scw1: nothing to tune (C=1, eta=0.7 fixed by --set); perceptron: nothing to tune" in out


@pytest.mark.parametrize(
    "indices,needle",
    [
        (
            [0, 0, *range(2, 208)],
            "indices duplicated: 0; missing: 1 (each 0-based index 0..207 must appear exactly once)",
        ),
        (range(6), "indices missing: 6, 7, 8, 9, 10, ... (202 in all)"),
        ([*range(208), 3, 999], "indices outside 0..207: 999; duplicated: 3"),
    ],
)
def test_order_file_must_list_every_example_once(capsys, tmp_path, indices, needle):
    path = tmp_path / "order.txt"
    path.write_text("\n".join(map(str, indices)) + "\n")
    for command in ("run", "tune"):
        err = cli_error(capsys, command, "pa1", "--data", "sonar", "--order", str(path))
        assert f"--order {path} is not an ordering of the 208 examples: {needle}" in err


def test_repeats_with_order(capsys, tmp_path):
    path = tmp_path / "order.txt"
    path.write_text("\n".join(map(str, np.random.default_rng(0).permutation(208))) + "\n")
    err = cli_error(capsys, "run", "pa1", "--data", "sonar", "--order", str(path), "--repeats", "5")
    assert "--repeats 5 cannot be combined with --order" in err
    doc = json.loads(
        cli_ok(capsys, "run", "pa1", "--data", "sonar", "--order", str(path), "--repeats", "1", "--format", "json")
    )
    assert len(doc["results"][0]["runs"]) == 1


@pytest.mark.parametrize(
    "args,needle",
    [
        (["run", "pa1", "--data", "sonar", "--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["tune", "pa1", "--data", "sonar", "--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["run", "pa1", "--data", "sonar", "--jobs", "0"], "--jobs must be a number of processes >= 1, or negative"),
        (["tune", "pa1", "--data", "sonar", "--jobs", "0"], "--jobs must be a number of processes >= 1, or negative"),
        (["run", "pa1", "--data", "sonar", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
    ],
)
def test_seed_and_jobs_errors_name_the_option(capsys, args, needle):
    assert needle in cli_error(capsys, *args)


@pytest.mark.parametrize(
    "args,needle",
    [
        (
            ["run", "pa1", "--data", "sonar", "--set", "sigm=1"],
            "'sigm' (did you mean 'sigma'?) belong to none of pa1; valid parameters: "
            "C, average, class_weight, coef0, compat, degree, fit_intercept, intercept_scaling, kernel, sigma",
        ),
        (["tune", "scw1", "--data", "sonar", "--set", "etaa=0.7"], "did you mean 'eta'?"),
        (["run", "duoll", "--data", "sonar"], "unknown algorithm 'duoll'; did you mean 'duol'?"),
        (["tune", "SCW1", "--data", "sonar"], "unknown algorithm 'SCW1'; did you mean 'scw1'?"),
    ],
)
def test_unknown_names_get_the_valid_ones_and_the_nearest(capsys, args, needle):
    assert needle in cli_error(capsys, *args)
