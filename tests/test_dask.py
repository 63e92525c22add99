"""Issue 10 item 5: experiment grids on a Dask cluster (olkit.experiment.backend).

A real ``dask.distributed.LocalCluster`` of two worker processes: ``olkit run --backend dask --scheduler
ADDRESS`` (runs and tuning candidates on the cluster) gives the local run's mistakes, #SV and updates for
every ordering; the command refuses an unknown backend, a scheduler without the dask backend and an
unreachable scheduler in one line.
"""

import json
import os
import sys

import pytest

pytest.importorskip("dask.distributed")

from olkit.cli import main
from olkit.experiment import backend

needs_german = pytest.mark.skipif(not os.environ.get("OLKIT_DATA"), reason="OLKIT_DATA is not set (german)")


# A cluster per test (about 3 s each, three tests): a module-scoped cluster shared by tests that xdist spreads over
# the suite idled for 15 minutes between two of them on a loaded machine, and a later test waited for its results
# forever. An xdist group would keep them together, but groups are ignored with pytest 9 and xdist 3.8
# (tests/README.md).
@pytest.fixture
def cluster():
    from dask.distributed import LocalCluster

    # The workers share this process's compile cache: filled here, they load the loops instead of compiling them
    # (numba holds the GIL while it compiles, tens of seconds on a cold cache, and a worker that cannot answer
    # the scheduler meanwhile once left two joblib batches "processing" on an idle worker: the run waited forever).
    assert main(["warmup", "pa1", "perceptron", "scw1", "duol", "-q"]) == 0
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as local:
        yield local


def run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def per_run(doc):
    return {
        r["algorithm"]: [(run["order"], run["mistakes"], run["n_sv"], run["n_updates"]) for run in r["runs"]]
        for r in doc["results"]
    }


@needs_german
def test_dask_cluster_runs_equal_local_runs(cluster, capsys):
    argv = [
        "run",
        "pa1",
        "perceptron",
        "scw1",
        "--data",
        "german",
        "--repeats",
        "4",
        "--tune",
        "--format",
        "json",
        "-q",
    ]
    on_dask = run_json(capsys, argv + ["--backend", "dask", "--scheduler", cluster.scheduler_address])
    local = run_json(capsys, argv + ["--jobs", "1"])
    assert not backend.distributed()  # the block ended
    runs = per_run(on_dask)
    assert runs == per_run(local)
    assert sorted(runs) == ["pa1", "perceptron", "scw1"] and all(len(v) == 4 for v in runs.values())
    assert [r["params"] for r in on_dask["results"]] == [r["params"] for r in local["results"]]  # tuned alike
    assert [r["tuning"] for r in on_dask["results"]] == [r["tuning"] for r in local["results"]]


@needs_german
def test_the_cluster_ran_the_tasks(cluster):
    """The runs are tasks of the cluster's workers, not of this process."""
    import numpy as np

    from olkit.data import load_dataset
    from olkit.experiment.runner import run_experiment

    X, y = load_dataset("german")
    with backend.use("dask", cluster.scheduler_address) as client:
        doc = run_experiment("german", ["pa"], X, y, repeats=2)
        pids = set(client.run(os.getpid).values())
        workers_with_olkit = client.run(lambda: "olkit.protocol" in sys.modules)
    assert os.getpid() not in pids and all(workers_with_olkit.values())
    assert np.isfinite(doc["results"][0]["mean"]["mistake_rate"])


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--backend", "foo"], "valid backends: loky, dask"),
        (["--scheduler", "tcp://127.0.0.1:8786"], "needs --backend dask"),
        (["--backend", "loky", "--scheduler", "tcp://127.0.0.1:8786"], "needs --backend dask"),
    ],
)
def test_refused_backend_options(argv, words, capsys):
    assert main(["run", "pa1", "--data", "german", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_unreachable_scheduler_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(backend, "CONNECT_TIMEOUT", 2)
    assert main(["run", "pa1", "--data", "german", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9", "-q"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in err and err.count("\n") == 1
    assert not backend.distributed()


def test_config_keys_are_checked():
    from olkit.experiment.config import ConfigError, validate_config

    base = {"title": "t", "paper": "duol_jmlr_table2", "datasets": ["german"], "algorithms": ["pa1"]}
    validate_config({**base, "backend": "dask", "scheduler": "tcp://127.0.0.1:8786"})
    with pytest.raises(ConfigError, match="valid backends: loky, dask"):
        validate_config({**base, "backend": "spark"})
    with pytest.raises(ConfigError, match="scheduler 'tcp://h:1' needs backend dask"):
        validate_config({**base, "scheduler": "tcp://h:1"})


def test_import_olkit_does_not_import_dask():
    import subprocess

    code = "import sys, olkit, olkit.cli, olkit.experiment.reproduce; print('dask' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_reproduction_config_on_the_cluster(cluster, tmp_path):
    """A config's ``backend`` / ``scheduler`` keys: its cells run on the cluster, with the local results."""
    from olkit.experiment.reproduce import reproduce_config

    config = {
        "title": "t",
        "paper": "duol_jmlr_table2",
        "datasets": ["sonar"],
        "algorithms": ["pa1", "duol"],
        "repeats": 2,
    }
    _, on_dask = reproduce_config(
        {**config, "backend": "dask", "scheduler": cluster.scheduler_address},
        "test",
        output=str(tmp_path / "dask" / "page.md"),
    )
    _, local = reproduce_config(config, "test", n_jobs=1, output=str(tmp_path / "local" / "page.md"))
    assert [per_run(doc) for doc in on_dask] == [per_run(doc) for doc in local]
    assert set(per_run(on_dask[0])) == {"pa1", "duol"}
