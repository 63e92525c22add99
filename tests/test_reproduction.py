"""Reproduction is a test: representative rows of DUOL JMLR Table 2 (20 orderings, C = 5, σ = 8, ρ = 0).

The full table (six datasets, nine algorithms, §5.4) is `make reproduce`; here the bundled datasets'
DUOL and PA-I rows are regenerated and compared with the paper.
"""
import json
import os

import pytest

from olkit.experiment.reproduce import load_config, paper_values, reproduce_config, run_dataset

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "experiments", "duol_binary.toml")


@pytest.mark.parametrize("dataset", ["sonar", "splice", "german"])
def test_duol_table2_rows(dataset):
    config = load_config(CONFIG)
    config["algorithms"] = ["pa1", "perceptron", "duol"]
    doc = run_dataset(config, dataset, repeats=20)
    ours = {r["algorithm"]: 100 * r["mean"]["mistake_rate"] for r in doc["results"]}
    paper = paper_values("duol_jmlr_table2")[dataset]
    assert abs(ours["duol"] - paper["duol"]["mistake_pct"][0]) <= 1.5
    assert ours["duol"] < ours["pa1"]
    # the non-aggressive baseline agrees closely too (same data version, same kernel convention)
    assert abs(ours["perceptron"] - paper["perceptron"]["mistake_pct"][0]) <= 1.5


def test_reproduction_page(tmp_path):
    config = load_config(CONFIG)
    config.update(datasets=["sonar", "no-such-dataset"], algorithms=["pa1", "duol"],
                  rho_sweep={"algorithm": "duol", "rho": [0.0, 0.5], "datasets": ["sonar"], "repeats": 2})
    page, docs = reproduce_config(config, "test", repeats=2, output=str(tmp_path / "page.md"))
    text = open(page).read()
    assert "| duol |" in text and "34.255" in text  # paper value beside ours
    assert "no-such-dataset" in text  # skipped datasets are stated, not silently dropped
    assert "M_d^w" in text and (tmp_path / "figures" / "page-rho-sweep.png").exists()
    assert (tmp_path / "figures" / "page-sonar-curves.png").exists()


def test_section_5_3_page(tmp_path):
    """JMLR §5.3 on a tiny config: DUOL vs DUOL_rand on the table's orderings, and the C sweep (Figure 3)
    with its figure, tables and claims; the generic sweep gives §5.4's rows unchanged."""
    config = load_config(CONFIG)
    config.update(datasets=["sonar"], algorithms=["perceptron", "pa1", "duol"],
                  rho_sweep={"algorithm": "duol", "rho": [0.0, 0.5], "datasets": ["sonar"], "repeats": 2})
    config["rand_comparison"].update(repeats=2)
    config["c_sweep"].update(values=[0.25, 4.0, 16.0], algorithms=["pa1", "duol", "duol-rand"],
                             reference=["perceptron", "romma"], repeats=2)
    page, docs = reproduce_config(config, "test", repeats=2, output=str(tmp_path / "page.md"))
    with open(page) as fh:
        text = fh.read()
    with open(tmp_path / "page.json") as fh:
        data = json.load(fh)
    # DUOL vs DUOL_rand: the table's DUOL runs are reused, DUOL_rand is run on the same orderings
    cmp = data["comparisons"]["rand_comparison"]["sonar"]
    assert cmp["reused"] == ["duol"] and cmp["orderings"] == 2
    table_duol = next(r for r in docs[0]["results"] if r["algorithm"] == "duol")
    assert cmp["rows"]["duol"]["mistake_pct"][0] == pytest.approx(100 * table_duol["mean"]["mistake_rate"])
    assert cmp["rows"]["duol-rand"]["params"]["seed"] == 0
    assert cmp["rows"]["duol-rand"]["diagnostics"]["double_updates"][0] > 0
    assert "§5.3: DUOL vs DUOL_rand" in text and "| sonar | duol-rand |" in text
    # C sweep: every swept algorithm at every grid value, references flat, figure written
    sweep = data["sweeps"]["c_sweep"]["sonar"]
    assert sweep["parameter"] == "C" and sweep["values"] == [0.25, 4.0, 16.0]
    assert [r["value"] for r in sweep["algorithms"]["duol"]] == [0.25, 4.0, 16.0]
    assert sweep["reference"]["perceptron"]["reused"] and not sweep["reference"]["romma"]["reused"]
    assert "Grid (ours): C ∈ {2^-2, 2^2, 2^4}" in text and "not printed in the text" in text
    assert "| perceptron (no C) |" in text and "DUOL vs DUOL_rand" in text
    assert (tmp_path / "figures" / "page-sonar-c-sweep.png").exists()
    # a point of the sweep is the plain run with that C on the same orderings
    config1 = {**config, "algorithms": ["duol"], "settings": {**config["settings"], "C": 16.0}}
    plain = run_dataset(config1, "sonar", repeats=2)["results"][0]
    assert sweep["algorithms"]["duol"][2]["mistake_pct"][0] == pytest.approx(100 * plain["mean"]["mistake_rate"])
    # §5.4 through the generic sweep: M, M_d^w, M_d^s as before
    rows = data["rho_sweep"]["sonar"]
    assert [r["rho"] for r in rows] == [0.0, 0.5] and set(rows[0]) == {"rho", "M", "M_d_weak", "M_d_strong"}
    assert rows[0]["M_d_weak"] >= rows[1]["M_d_weak"]
    assert "| sonar | 0.0 |" in text

SCW_CONFIG = os.path.join(ROOT, "experiments", "scw_table3.toml")


@pytest.mark.parametrize("dataset", ["splice", "mushrooms", "synthetic-noise"])
def test_scw_table3_rows(dataset):
    """SCW Table 3 rows after parameter selection (20 orderings): SCW-I/II within 1.5 points of the paper;
    on noisy synthetic data AROW beats CW and SCW is at most AROW's rate plus its spread."""
    config = load_config(SCW_CONFIG)
    config["algorithms"] = ["cw", "arow", "scw1", "scw2"]
    doc = run_dataset(config, dataset, repeats=20)
    ours = {r["algorithm"]: 100 * r["mean"]["mistake_rate"] for r in doc["results"]}
    paper = paper_values("scw_icml_table3")[dataset]
    for name in ("scw1", "scw2"):
        assert abs(ours[name] - paper[name]["mistake_pct"][0]) <= 1.5, (name, ours[name])
    assert all(r.get("tuning") for r in doc["results"])  # parameters were selected, and recorded
    if dataset == "synthetic-noise":
        assert ours["arow"] < ours["cw"]
        assert min(ours["scw1"], ours["scw2"]) <= ours["arow"] + 1.0
