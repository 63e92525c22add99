# olkit — set-up, tests, demo, reproduction, benchmarks, documentation. Every target creates .venv on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed
DEV_STAMP := $(VENV)/.dev-installed
SPHINXOPTS ?=

.PHONY: install demo test test-fast lint reproduce bench fuzz docs docs-check clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,river,progress,dask]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m olkit.demo

# The whole suite (tests/README.md: what is where, how long it takes); it prints its 20 slowest tests.
test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup --durations=20

# The fast tier: the suite without the tests marked slow (tests/conftest.py), the first stream of every reference test.
test-fast: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -m "not slow"

$(DEV_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(DEV_STAMP)

# ruff (lint, then the formatting check) and mypy, configured in pyproject.toml; .pre-commit-config.yaml runs the same
LINT_PATHS := src tests tools benchmarks docs/_ext examples
lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)
	$(VENV)/bin/mypy

reproduce: $(STAMP)
	$(PY) -m olkit.experiment.reproduce experiments/duol_binary.toml
	$(PY) -m olkit.experiment.reproduce experiments/duol_nips2009.toml
	$(PY) -m olkit.experiment.reproduce experiments/scw_table3.toml
	$(PY) -m olkit.experiment.reproduce experiments/duol_multiclass.toml
	$(PY) -m olkit.experiment.reproduce experiments/ahpatron_table2.toml
	$(PY) -m olkit.experiment.reproduce experiments/duol_budget.toml

bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]" || true
	$(PY) benchmarks/run.py

fuzz: $(STAMP)
	$(PY) tools/fuzz.py
	$(PY) tools/fuzz_models.py

$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

# The site: warnings (broken references included) are errors; examples run at build time.
docs: $(DOCS_STAMP)
	$(PY) -m sphinx -W --keep-going -b html $(SPHINXOPTS) docs docs/_build/html

# The built site in headless Chromium (tools/docs_check.py): math, figures, search, API page, links.
docs-check: docs
	$(PY) tools/docs_check.py docs/_build/html

clean:
	rm -rf $(VENV) build src/*.egg-info docs/_build docs/auto_examples docs/api/generated docs/api/learners.md docs/benchmarks.md docs/sg_execution_times.rst
