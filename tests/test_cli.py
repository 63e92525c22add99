"""The `olkit` command (docs/dev/architecture.md#the-olkit-run-command): formats, the JSON contract, orderings,
and clear errors."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from olkit import cli
from olkit.cli import main

SIGMA_RULE = (
    "sigma must be a number >= 1e-154 and <= 1e+153 (the Gaussian's 1/(2σ²) must be a finite, non-zero float64)"
)
"""What a bad sigma is told (olkit.params.SIGMA)."""


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract(capsys):
    code, out, err = run_cli(
        capsys, "run", "duol", "pa1", "--data", "german", "--repeats", "3", "--seed", "1", "--format", "json"
    )
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


@pytest.mark.parametrize(
    "fmt,marker",
    [
        ("table", "Mistake (%)"),
        ("markdown", "| Algorithm |"),
        ("latex", r"\begin{tabular}"),
        ("csv", "mistake_rate_mean"),
    ],
)
def test_formats(capsys, fmt, marker):
    code, out, _ = run_cli(capsys, "run", "pa1", "--data", "sonar", "--repeats", "2", "--format", fmt)
    assert code == 0 and marker in out


def test_order_file_and_out_dir(capsys, tmp_path):
    order = np.random.default_rng(3).permutation(208)
    path = tmp_path / "order.txt"
    path.write_text("\n".join(map(str, order)) + "\n")
    code, out, err = run_cli(
        capsys,
        "run",
        "perceptron",
        "--data",
        "sonar",
        "--order",
        str(path),
        "--format",
        "json",
        "--out",
        str(tmp_path / "res"),
    )
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
    code, out, err = run_cli(
        capsys,
        "run",
        "perceptron",
        "duol",
        "--data",
        "sonar",
        "--repeats",
        "1",
        "--set",
        "C=2",
        "--set",
        "variant=nips2009",
        "--kernel",
        "gaussian",
        "--format",
        "json",
    )
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
    # the default as it applies (issue 10): the resolved values per data kind, not C=None
    assert "5 (binary) / 10 (multiclass, multilabel) (resolved from None)" in rows["C"]
    assert "a number > 0, or None" in rows["C"]
    assert "0 (resolved from None)" in rows["rho"]
    assert "DUOL JMLR §5.1" in rows["C"]
    assert "a number >= 0 and < 1, or None" in rows["rho"]
    assert "'jmlr'" in rows["variant"] and "one of 'jmlr', 'nips2009'" in rows["variant"]
    assert " 8 " in rows["sigma"] and "a number >= 1e-154 and <= 1e+153" in rows["sigma"]
    assert "data: binary, multiclass, multilabel" in duol
    assert "C: 0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16" in duol  # the registry's tuning grid
    code, out, _ = run_cli(capsys, "list", "romma")
    assert code == 0 and "tuning: none" in out and "C " not in out


def test_version(capsys):
    """Issue 22 item 4: ``olkit --version`` prints the version (it was an error)."""
    import olkit

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"olkit {olkit.__version__}"


def test_list_says_what_each_parameter_means(capsys):
    """Issue 22 item 4: ``olkit list NAME`` gives each parameter's one-line meaning (the first sentence of the
    learner's documented parameter) and the algorithm's specification page, for every algorithm."""
    from olkit import registry

    names = registry.names()
    code, out, err = run_cli(capsys, "list", "--verbose", "--format", "json")
    assert code == 0, err
    for record in json.loads(out)["algorithms"]:
        assert record["page"] == f"docs/algorithms/{record['name'].replace('+', 'p')}.md"
        for param, entry in record["parameters"].items():
            assert len(entry["meaning"]) >= 5, (record["name"], param, entry["meaning"])
    assert len(json.loads(out)["algorithms"]) == len(names)
    code, out, err = run_cli(capsys, "list", "duol")
    assert code == 0, err
    assert "  specification: docs/algorithms/duol.md" in out
    assert "    rho      Double-update threshold" in out


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_results_say_which_kernel_ran(capsys, fmt):
    """Issue 22 item 4: the learners' default kernels differ (Gaussian σ = 8 for the DUOL family, linear for the
    second-order family), so every table and JSON document names the kernel each algorithm ran with."""
    code, out, err = run_cli(capsys, "run", "pa1", "duol", "arow", "--data", "sonar", "--repeats", "1", "--format", fmt)
    assert code == 0, err
    if fmt == "json":
        assert [r["kernel"] for r in json.loads(out)["results"]] == ["gaussian (sigma=8)"] * 2 + ["linear"]
    else:
        assert "Kernel: pa1, duol: gaussian (sigma=8); arow: linear" in out
    code, out, err = run_cli(capsys, "run", "pa1", "--data", "sonar", "--repeats", "1", "--kernel", "poly")
    assert code == 0 and "Kernel: pa1: poly (degree=3, coef0=1)" in out


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


@pytest.mark.parametrize(
    "args,needle",
    [
        (["list", "duoll"], "olkit: error: unknown algorithm 'duoll'; did you mean 'duol'?"),
        (["list", "pa1", "scw-1"], "unknown algorithm 'scw-1'; did you mean 'scw1'?"),
        (["list", "zzzzzz"], "unknown algorithm 'zzzzzz'; valid algorithms: perceptron"),
    ],
)
def test_list_unknown_algorithm(capsys, args, needle):
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "args,needle",
    [
        (["run", "nope", "--data", "german"], "unknown algorithm 'nope'; valid algorithms: perceptron"),
        (["run", "SCW1", "--data", "german"], "unknown algorithm 'SCW1'; did you mean 'scw1'? (valid algorithms: "),
        (["run", "duoll", "pa1", "--data", "german"], "unknown algorithm 'duoll'; did you mean 'duol'?"),
        (
            ["run", "pa1", "--data", "german", "--set", "bogus=1"],
            "'bogus' belong to none of pa1; valid parameters: C, average, class_weight, coef0, compat, degree, "
            "fit_intercept, intercept_scaling, kernel, sigma",
        ),
        (["run", "pa1", "--data", "german", "--set", "C=-1"], "C must be a number > 0"),
        (["run", "duol", "--data", "german", "--set", "sigma=-2"], "sigma=-2 is not valid; " + SIGMA_RULE),
        (["run", "duol", "--data", "german", "--set", "rho=1.5"], "rho must be a number"),
        (["run", "duol", "--data", "german", "--set", "variant=x"], "variant must be one of 'jmlr', 'nips2009'"),
        (["run", "pa1", "--data", "german", "--kernel", "rbf"], "kernel must be one of 'gaussian', 'linear', 'poly'"),
        (["run", "pa1", "--data", "no-such-dataset"], "Valid names: a9a"),
        (["run", "pa1", "--data", "german", "--set", "C"], "--set expects KEY=VALUE"),
        (["run", "pa1", "--data", "german", "--repeats", "0"], "--repeats must be >= 1"),
    ],
)
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
    proc = subprocess.run(
        [sys.executable, "-m", "olkit.cli", "run", "nope", "--data", "german"],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert proc.returncode == 2 and "unknown algorithm" in proc.stderr and "Traceback" not in proc.stderr


def test_tune_command_and_run_with_tune(capsys):
    code, out, err = run_cli(
        capsys, "tune", "scw1", "arow", "perceptron", "--kernel", "linear", "--data", "german", "--format", "json"
    )
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


@pytest.mark.parametrize(
    "setting,needle",
    [
        ("sigma=abc", "olkit: error: duol: parameter sigma='abc' is not valid; " + SIGMA_RULE),
        ("C=nan", "olkit: error: duol: parameter C=nan is not valid; C must be a number > 0, or None"),
        ("rho=1", "olkit: error: duol: parameter rho=1 is not valid; rho must be a number >= 0 and < 1, or None"),
    ],
)
def test_python_m_olkit_one_line_parameter_errors(setting, needle):
    """`python -m olkit` is the olkit command (docs/dev/architecture.md#commands); a bad --set value is one
    stderr line, exit 2."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "olkit", "run", "duol", "--data", "german", "--set", setting],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [needle]


# --- issue 10: resolved defaults in `olkit list`, shapes in `olkit datasets`, --zero-based -----------------


def test_list_shows_resolved_defaults_not_none(capsys):
    code, out, err = run_cli(capsys, "list", "pa1", "ahpatron", "romma")
    assert code == 0, err
    rows = {}
    for block in out.split("\n\n"):
        name = block.split(":")[0]
        rows[name] = {line.split()[0]: line for line in block.splitlines() if line.startswith("    ")}
    assert "5 (binary) / 10 (multiclass, multilabel) (resolved from None)" in rows["pa1"]["C"]
    assert "0.25 (binary) / 0.125 (multiclass) (resolved from None)" in rows["ahpatron"]["lam"]
    assert "None" not in rows["pa1"]["C"].replace("(resolved from None)", "").replace("or None", "")
    code, out, _ = run_cli(capsys, "list", "duol", "--format", "json")
    c = json.loads(out)["algorithms"][0]["parameters"]["C"]
    assert c["default"] is None and c["resolved_default"] == {"binary": 5.0, "multiclass": 10.0, "multilabel": 10.0}
    assert c["default_in_words"] == "5 (binary) / 10 (multiclass, multilabel) (resolved from None)"


def test_datasets_shows_actual_shape_beside_the_papers(capsys, monkeypatch):
    monkeypatch.delenv("OLKIT_DATA", raising=False)
    code, out, err = run_cli(capsys, "datasets")
    assert code == 0, err
    header, rule, *lines = out.splitlines()
    assert header.split() == ["dataset", "available", "shape", "(ours)", "paper", "shape", "files"]
    rows = {line.split()[0]: line for line in lines if line and not line.startswith("(")}
    assert "1000 x 24, 2 classes" in rows["german"] and "DUOL JMLR Tab.1: 1000 x 24" in rows["german"]
    assert "5000 x 20, 2 classes" in rows["synthetic"]  # generated
    assert rows["mnist-1vs2"].split()[1:3] == ["missing", "-"]  # no files: no shape
    assert "OLKIT_DATA is not set" in out


def test_datasets_shapes_from_the_manifest(capsys):
    data_dir = os.environ.get("OLKIT_DATA")
    if not data_dir or not os.path.isfile(os.path.join(data_dir, "MANIFEST.json")):
        pytest.skip("OLKIT_DATA with its MANIFEST.json is not available")
    code, out, err = run_cli(capsys, "datasets")
    assert code == 0, err
    rows = {line.split()[0]: line for line in out.splitlines()[2:] if line}
    assert "14867 x 784, 2 classes" in rows["mnist-1vs2"] and "SCW Tab.2: 14867 x 784" in rows["mnist-1vs2"]
    assert "6977 x 361, 2 classes" in rows["mitface"] and "MITFace 6977 x 361" in rows["mitface"]
    assert "59535 x 8, 2 classes" in rows["codrna"] and "20000 x 16, 26 classes" in rows["letter-all"]
    # the derived shape of w7a's train file, and a paper shape that differs from ours (mnist: 778 vs 780)
    assert "24692 x 300, 2 classes" in rows["w7a"]
    assert "10000 x 778, 10 classes" in rows["mnist"] and "10000 x 780 x 10" in rows["mnist"]


ZERO_BASED = "".join(f"{1 if i % 3 else -1} 0:{i / 40:.3f} {1 + i % 4}:{1 - i / 40:.3f} 7:0.5\n" for i in range(40))


def _one_based(text):
    """The same LIBSVM text with every index one larger."""
    out = []
    for line in text.splitlines():
        label, *tokens = line.split()
        out.append(" ".join([label] + [f"{int(t.split(':')[0]) + 1}:{t.split(':')[1]}" for t in tokens]))
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("option", [["--zero-based"], ["--zero-based", "auto"], ["--zero-based=auto"]])
def test_run_zero_based_file(capsys, tmp_path, option):
    zero, one = tmp_path / "zero.libsvm", tmp_path / "one.libsvm"
    zero.write_text(ZERO_BASED)
    one.write_text(_one_based(ZERO_BASED))
    code, out, err = run_cli(
        capsys, "run", "pa1", "perceptron", "--data", str(zero), *option, "--repeats", "2", "--format", "json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["n_examples"], doc["n_features"]) == (40, 8)
    code, out, err = run_cli(
        capsys, "run", "pa1", "perceptron", "--data", str(one), "--repeats", "2", "--format", "json"
    )
    ref = json.loads(out)
    assert [[r["mistakes"] for r in a["runs"]] for a in doc["results"]] == [
        [r["mistakes"] for r in a["runs"]] for a in ref["results"]
    ]
    # streamed, the same pass in file order as the in-memory run
    code, out, err = run_cli(capsys, "run", "pa1", "--data", str(zero), *option, "--stream", "--format", "json")
    assert code == 0, err
    streamed = json.loads(out)
    assert streamed["n_features"] == 8
    code, out, _ = run_cli(capsys, "run", "pa1", "--data", str(one), "--stream", "--format", "json")
    assert streamed["results"][0]["mistakes"] == json.loads(out)["results"][0]["mistakes"]


def test_train_predict_tune_zero_based(capsys, tmp_path):
    zero = tmp_path / "zero.libsvm"
    zero.write_text(ZERO_BASED)
    model = tmp_path / "m.npz"
    code, out, err = run_cli(capsys, "train", "pa1", "--data", str(zero), "--zero-based", "--model", str(model))
    assert code == 0, err
    assert "(40 examples, 8 features, 2 classes" in out
    code, out, err = run_cli(capsys, "predict", "--model", str(model), "--data", str(zero), "--zero-based")
    assert code == 0, err
    assert "40 examples predicted" in out and "accuracy" in out
    code, out, err = run_cli(
        capsys, "train", "--model", str(model), "--continue", "--data", str(zero), "--zero-based", "auto"
    )
    assert code == 0, err
    code, out, err = run_cli(capsys, "tune", "pa1", "--data", str(zero), "--zero-based", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["params"]["C"] > 0
    # read 1-based (the default), the same file is refused: index 0 on line 1
    code, out, err = run_cli(capsys, "predict", "--model", str(model), "--data", str(zero))
    assert code == 2 and f"{zero}:1: malformed LIBSVM line: index 0 is < 1" in err
    # a 0-based file wider than the model: the indices it may use, numbered as the file does
    wide = tmp_path / "wide.libsvm"
    wide.write_text("1 0:1 9:1\n")
    code, out, err = run_cli(capsys, "predict", "--model", str(model), "--data", str(wide), "--zero-based")
    assert code == 2 and "must use feature indices 0..7" in err


@pytest.mark.parametrize(
    "command", [["run", "pa1"], ["tune", "pa1"], ["train", "pa1", "--model", "m.npz"], ["predict", "--model", "m.npz"]]
)
def test_zero_based_errors_are_one_line(capsys, tmp_path, command):
    bad = tmp_path / "bad0.libsvm"
    bad.write_text("1 0:1 1:2\n-1 0:3\n1 3:1 2:1\n")
    model = tmp_path / "m.npz"
    if command[0] == "predict":
        good = tmp_path / "good.libsvm"
        good.write_text(_one_based(ZERO_BASED))
        assert main(["train", "pa1", "--data", str(good), "--model", str(model)]) == 0
        capsys.readouterr()
    command = [str(model) if part == "m.npz" else part for part in command]
    code, out, err = run_cli(capsys, *command, "--data", str(bad), "--zero-based")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{bad}:3: malformed LIBSVM line: indices not increasing (2 after 3)" in err
    assert "0-based increasing integer indices" in err
    # a catalog dataset's files are 1-based: --zero-based is refused, naming the option
    code, out, err = run_cli(capsys, *command, "--data", "german", "--zero-based")
    assert code == 2 and "--zero-based applies to a LIBSVM file given by path; --data german is a catalog" in err
    # argparse: only 'auto' may follow --zero-based (argparse's own exit, status 2, one line)
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--data", str(bad), "--zero-based=yes"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1
    assert "argument --zero-based: invalid choice: 'yes' (choose from 'auto')" in err
