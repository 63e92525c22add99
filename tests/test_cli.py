"""The `olkit` command (DESIGN.md §2.3): formats, the JSON contract, orderings, and clear errors."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from olkit import cli
from olkit.cli import main

SIGMA_RULE = ("sigma must be a number >= 1e-154 and <= 1e+153 "
              "(the Gaussian's 1/(2σ²) must be a finite, non-zero float64)")
"""What a bad sigma is told (olkit.params.SIGMA)."""


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract(capsys):
    code, out, err = run_cli(capsys, "run", "duol", "pa1", "--data", "german", "--repeats", "3", "--seed", "1",
                             "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["dataset"], doc["n_examples"], doc["n_features"], doc["n_classes"]) == ("german", 1000, 24, 2)
    duol = doc["results"][0]
    assert duol["algorithm"] == "duol"
    assert duol["params"]["sigma"] == 8 and duol["params"]["C"] == 5 and duol["params"]["rho"] == 0
    assert [r["order"] for r in duol["runs"]] == ["seed:1", "seed:2", "seed:3"]
    for run in duol["runs"]:
        assert set(run) >= {"order", "mistakes", "mistake_rate", "n_updates", "n_sv", "seconds"}
        assert run["mistake_rate"] == run["mistakes"] / 1000
        assert {"strong_double_updates", "weak_double_updates"} <= set(run["diagnostics"])
    rates = [r["mistake_rate"] for r in duol["runs"]]
    assert duol["mean"]["mistake_rate"] == pytest.approx(np.mean(rates))
    assert duol["std"]["mistake_rate"] == pytest.approx(np.std(rates, ddof=1))
    assert set(duol["mean"]) >= {"mistake_rate", "n_sv", "seconds"}


@pytest.mark.parametrize("fmt,marker", [("table", "Mistake (%)"), ("markdown", "| Algorithm |"),
                                        ("latex", r"\begin{tabular}"), ("csv", "mistake_rate_mean")])
def test_formats(capsys, fmt, marker):
    code, out, _ = run_cli(capsys, "run", "pa1", "--data", "sonar", "--repeats", "2", "--format", fmt)
    assert code == 0 and marker in out


def test_order_file_and_out_dir(capsys, tmp_path):
    order = np.random.default_rng(3).permutation(208)
    path = tmp_path / "order.txt"
    path.write_text("\n".join(map(str, order)) + "\n")
    code, out, err = run_cli(capsys, "run", "perceptron", "--data", "sonar", "--order", str(path),
                             "--format", "json", "--out", str(tmp_path / "res"))
    assert code == 0, err
    run = json.loads(out)["results"][0]["runs"]
    assert len(run) == 1 and run[0]["order"].startswith("file:")
    # the same order through the API gives the same run
    import olkit

    X, y = olkit.load_dataset("sonar")
    res = olkit.evaluate_online(olkit.make("perceptron"), X, y, order=order)
    assert (res.mistakes, res.n_sv) == (run[0]["mistakes"], run[0]["n_sv"])
    assert (tmp_path / "res" / "sonar.json").exists() and (tmp_path / "res" / "sonar-curves.png").exists()


def test_set_applies_to_algorithms_that_have_it(capsys):
    code, out, err = run_cli(capsys, "run", "perceptron", "duol", "--data", "sonar", "--repeats", "1",
                             "--set", "C=2", "--set", "variant=nips2009", "--kernel", "gaussian", "--format", "json")
    assert code == 0, err
    res = json.loads(out)["results"]
    assert "C" not in res[0]["params"] and res[1]["params"]["C"] == 2
    assert res[1]["params"]["variant"] == "nips2009" and res[1]["params"]["rho"] == 0.2


def test_list_and_datasets(capsys):
    from olkit import registry

    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    for name in registry.names():  # one line per registered algorithm: name, data kinds, description
        spec = registry.spec(name)
        line = next(line for line in lines if line.split()[:1] == [name])
        assert ", ".join(spec.data) in line and spec.description in line
    assert "parameters:" not in out  # the short listing stays short
    code, out, _ = run_cli(capsys, "datasets")
    assert code == 0 and "german" in out and "bundled" in out


def test_list_algorithm_shows_full_spec(capsys):
    code, out, err = run_cli(capsys, "list", "duol", "pa1")
    assert code == 0, err
    duol, pa1 = out.split("\n\n")
    assert duol.startswith("duol: DUOL") and pa1.startswith("pa1: PA-I")
    rows = {line.split()[0]: line for line in duol.splitlines() if line.startswith("    ")}
    # every parameter, its (resolved) default, its constraint in words and the paper source of the default
    assert set(rows) >= {"C", "rho", "variant", "tol", "kernel", "sigma", "degree", "coef0", "compat"}
    assert "None (5 binary; 10 multiclass, multilabel)" in rows["C"] and "a number > 0, or None" in rows["C"]
    assert "DUOL JMLR §5.1" in rows["C"]
    assert "a number >= 0 and < 1, or None" in rows["rho"]
    assert "'jmlr'" in rows["variant"] and "one of 'jmlr', 'nips2009'" in rows["variant"]
    assert " 8 " in rows["sigma"] and "a number >= 1e-154 and <= 1e+153" in rows["sigma"]
    assert "data: binary, multiclass, multilabel" in duol
    assert "C: 0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16" in duol  # the registry's tuning grid
    code, out, _ = run_cli(capsys, "list", "romma")
    assert code == 0 and "tuning: none" in out and "C " not in out


def test_list_reads_the_registry_json(capsys):
    from olkit import registry

    code, out, err = run_cli(capsys, "list", "--format", "json")
    assert code == 0, err
    short = json.loads(out)["algorithms"]
    assert [a["name"] for a in short] == registry.names()
    code, out, err = run_cli(capsys, "list", "--verbose", "--format", "json")
    assert code == 0, err
    for record in json.loads(out)["algorithms"]:
        spec = registry.spec(record["name"])
        assert record["description"] == spec.description and record["data"] == list(spec.data)
        assert list(record["parameters"]) == list(spec.defaults)
        for param, info in record["parameters"].items():
            assert info["default"] == cli._plain(spec.defaults[param])  # inf is "inf" (not valid JSON)
            assert info["source"] == spec.sources.get(param)
        assert [(t["parameter"], tuple(t["candidates"])) for t in record["tuning"]] == list(spec.tuning)
    pa1 = next(r for r in json.loads(out)["algorithms"] if r["name"] == "pa1")
    assert pa1["parameters"]["C"]["resolved_default"] == {"binary": 5.0, "multiclass": 10.0, "multilabel": 10.0}


@pytest.mark.parametrize("args,needle", [
    (["list", "duoll"], "olkit: error: unknown algorithm 'duoll'; did you mean 'duol'?"),
    (["list", "pa1", "scw-1"], "unknown algorithm 'scw-1'; did you mean 'scw1'?"),
    (["list", "zzzzzz"], "unknown algorithm 'zzzzzz'; valid algorithms: perceptron"),
])
def test_list_unknown_algorithm(capsys, args, needle):
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1


@pytest.mark.parametrize("args,needle", [
    (["run", "nope", "--data", "german"], "unknown algorithm 'nope'; valid algorithms: perceptron"),
    (["run", "SCW1", "--data", "german"], "unknown algorithm 'SCW1'; did you mean 'scw1'? (valid algorithms: "),
    (["run", "duoll", "pa1", "--data", "german"], "unknown algorithm 'duoll'; did you mean 'duol'?"),
    (["run", "pa1", "--data", "german", "--set", "bogus=1"], "'bogus' belong to none of pa1; valid parameters: C, coef0, compat, degree, kernel, sigma"),
    (["run", "pa1", "--data", "german", "--set", "C=-1"], "C must be a number > 0"),
    (["run", "duol", "--data", "german", "--set", "sigma=-2"], "sigma=-2 is not valid; " + SIGMA_RULE),
    (["run", "duol", "--data", "german", "--set", "rho=1.5"], "rho must be a number"),
    (["run", "duol", "--data", "german", "--set", "variant=x"], "variant must be one of 'jmlr', 'nips2009'"),
    (["run", "pa1", "--data", "german", "--kernel", "rbf"], "kernel must be one of 'gaussian', 'linear', 'poly'"),
    (["run", "pa1", "--data", "no-such-dataset"], "Valid names: a9a"),
    (["run", "pa1", "--data", "german", "--set", "C"], "--set expects KEY=VALUE"),
    (["run", "pa1", "--data", "german", "--repeats", "0"], "--repeats must be >= 1"),
])
def test_user_errors_are_one_line(capsys, args, needle):
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert needle in err, err
    assert "Traceback" not in err and err.count("\n") == 1


def test_data_errors(capsys, tmp_path):
    bad = tmp_path / "bad.libsvm"
    bad.write_text("+1 1:0.5 2:1\n-1 1:0.1 2:0.3\n+1 1:zz\n")
    code, _, err = run_cli(capsys, "run", "pa1", "--data", str(bad))
    assert code == 2 and f"{bad}:3:" in err
    one = tmp_path / "one.libsvm"
    one.write_text("+1 1:0.5\n+1 1:0.2\n")
    code, _, err = run_cli(capsys, "run", "pa1", "--data", str(one))
    assert code == 2 and "only one class" in err
    nan = tmp_path / "nan.libsvm"
    nan.write_text("+1 1:0.5\n-1 1:nan\n")
    code, _, err = run_cli(capsys, "run", "pa1", "--data", str(nan))
    assert code == 2 and "nan.libsvm:2" in err
    order = tmp_path / "order.txt"
    order.write_text("0\n5000\n")
    code, _, err = run_cli(capsys, "run", "pa1", "--data", "german", "--order", str(order))
    assert code == 2 and "outside 0..999" in err


def test_console_script_exit_status():
    """The installed entry point: non-zero exit and no traceback on a user mistake."""
    proc = subprocess.run([sys.executable, "-m", "olkit.cli", "run", "nope", "--data", "german"],
                          capture_output=True, text=True, env={**os.environ})
    assert proc.returncode == 2 and "unknown algorithm" in proc.stderr and "Traceback" not in proc.stderr


def test_tune_command_and_run_with_tune(capsys):
    code, out, err = run_cli(capsys, "tune", "scw1", "arow", "perceptron", "--kernel", "linear", "--data", "german",
                             "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    scw1 = doc["results"][0]
    assert [t["parameter"] for t in scw1["tuning"]] == ["C"] * 9 + ["eta"] * 9
    best_c = min(t["mistakes"] for t in scw1["tuning"][:9])
    # the chosen C has the fewest mistakes, ties to the later (larger) value as LIBOL's CV_algorithm
    assert scw1["params"]["C"] == max(t["value"] for t in scw1["tuning"][:9] if t["mistakes"] == best_c)
    assert doc["results"][2]["tuning"] == []  # nothing to tune for the perceptron
    code, out, err = run_cli(capsys, "run", "arow", "--data", "german", "--tune", "--repeats", "2", "--format", "json")
    assert code == 0, err
    result = json.loads(out)["results"][0]
    chosen = min(result["tuning"], key=lambda t: (t["mistakes"], -t["value"]))["value"]
    assert result["params"]["r"] == chosen and len(result["tuning"]) == 9
    code, out, err = run_cli(capsys, "run", "cw", "--data", "german", "--set", "eta=0.5")
    assert code == 2 and "eta" in err and "Traceback" not in err


@pytest.mark.parametrize("setting,needle", [
    ("sigma=abc", "olkit: error: duol: parameter sigma='abc' is not valid; " + SIGMA_RULE),
    ("C=nan", "olkit: error: duol: parameter C=nan is not valid; C must be a number > 0, or None"),
    ("rho=1", "olkit: error: duol: parameter rho=1 is not valid; rho must be a number >= 0 and < 1, or None"),
])
def test_python_m_olkit_one_line_parameter_errors(setting, needle):
    """`python -m olkit` is the olkit command (DESIGN.md §2.1); a bad --set value is one stderr line, exit 2."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "olkit", "run", "duol", "--data", "german", "--set", setting],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [needle]
