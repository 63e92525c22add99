# olkit — set-up, tests, demo, reproduction, benchmarks. Every target creates .venv on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test reproduce bench fuzz clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,river,progress,dask]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m olkit.demo

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup

reproduce: $(STAMP)
	$(PY) -m olkit.experiment.reproduce experiments/duol_binary.toml
	$(PY) -m olkit.experiment.reproduce experiments/duol_nips2009.toml
	$(PY) -m olkit.experiment.reproduce experiments/scw_table3.toml
	$(PY) -m olkit.experiment.reproduce experiments/duol_multiclass.toml
	$(PY) -m olkit.experiment.reproduce experiments/ahpatron_table2.toml

bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]" || true
	$(PY) benchmarks/run.py

fuzz: $(STAMP)
	$(PY) tools/fuzz.py
	$(PY) tools/fuzz_models.py

clean:
	rm -rf $(VENV) build src/*.egg-info
