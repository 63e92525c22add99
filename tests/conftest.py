"""Session-wide settings of the test suite, and the markers that make it navigable (tests/README.md).

The tests never download: ``OLKIT_DATA_OFFLINE=1`` makes a missing catalog file an immediate one-line error
instead of a download attempt (tests/test_fetch.py turns it off where it serves files from 127.0.0.1).

One marker per registered algorithm, ``algo_<slug>`` (``pytest -m algo_duol``, ``pytest -m "algo_bogdpp and not
slow"``), derived at collection, never written by hand:

* a test whose parameters name the algorithm: a parameter value that is its registered name, or a string id that
  starts with it (``"ahpatron-B4"``, longest name first: ``"duol-appr-rho0.2"`` is duol-appr, not duol), or its
  learner class, also inside tuples, lists and dicts of parameters;
* every test of a module named after the algorithm: ``test_<slug>.py`` or ``test_<slug>_<subject>.py``
  (tests/test_pomdr.py, tests/test_duol_qp.py).

The slug is the registered name with ``-`` as ``_`` and ``+`` as ``p`` (``bogd++`` -> ``algo_bogdpp``).

The ``slow`` marker (``make test-fast`` runs ``-m "not slow"``) is also given here, in one place rather than on each
test: every test of the modules in :data:`SLOW_MODULES` (subprocesses, clusters, real datasets, paper tables), the
tests in :data:`SLOW_TESTS`, and, in a test parametrized by a random stream (its ``i``, or its ``seed`` when it has
no ``i``), every stream but the first: the fast tier checks each configuration of every reference test on one
stream, the full suite on all.
"""

import json
import os

import pytest

os.environ.setdefault("OLKIT_DATA_OFFLINE", "1")


SLOW_MODULES = {
    "test_cli_boundaries.py": "real subprocesses of the command, real signals, real FIFOs",
    "test_dask.py": "a Dask LocalCluster of two worker processes",
    "test_docs_snippets.py": "every page's snippets, some learning on the bundled datasets",
    "test_extreme_magnitudes.py": "every learner in child processes",
    "test_files_atomic.py": "processes SIGKILLed mid-write, two runs at once",
    "test_fuzz_boundscheck.py": "the fuzz with numba's bounds checks (its first run compiles every loop again)",
    "test_kernel_reference_real_data.py": "real datasets (needs OLKIT_DATA)",
    "test_persist_hostile.py": "crafted files loaded in a subprocess, a mutation fuzz",
    "test_progress.py": "the commands in subprocesses, on a pseudo-terminal",
    "test_properties.py": "Hypothesis streams for every algorithm and option (the fuzz's checks)",
    "test_reproduction.py": "rows of DUOL's Table 2, 20 orderings each",
    "test_resume.py": "reproductions SIGKILLed and rerun in subprocesses",
    "test_river.py": "River's check_estimator, binary and multiclass",
    "test_threads.py": "threaded runs in a subprocess",
    "test_warmup.py": "the command compiling in subprocesses, each with a fresh compile cache",
}
"""Modules whose every test is ``slow``, and why."""

SLOW_TESTS = {
    "test_budget_reference.py::test_streams_exercise_the_cases": "runs the reference on every stream",
    "test_budget_compat_pomdr_nogd.py::test_pomdr_ahp_r_repeated_rows_exercise_the_ties": "runs many streams",
    "test_kernel_multiclass_reference.py::test_mira_kkt": "many random QPs",
    "test_kernel_reference.py::test_streams_are_informative": "checks the test streams themselves, every stream",
    "test_linear_reference.py::test_streams_are_informative": "checks the test streams themselves, every stream",
    "test_linear_invariants.py::test_tuning_in_parallel_processes_equals_sequential": "worker processes",
    "test_numerics.py::test_cli_refusal_is_one_line": "a subprocess of the command",
    "test_param_validation.py::test_bad_value_is_rejected_by_make": (
        "2,388 cases; the fast tier keeps every 7th, through set_params + fit"
    ),
    "test_numerics.py::test_cli_tiny_sigma_is_one_line": "a subprocess of the command",
    "test_persist.py::test_python_dash_m_is_the_same_program": "subprocesses of the command",
    "test_pomdr.py::test_streams_exercise_the_cases": "runs the reference on every stream",
    "test_stream.py::test_streamed_peak_memory_bounded_by_chunk": "a large file streamed, its peak memory measured",
}
"""Single tests (file::function, every parametrization) that are ``slow``, and why (durations of make test)."""

STREAM_PARAMS = ("i", "seed")
"""The parameter that numbers a test's random stream: the first one present (``i``, else ``seed``)."""


def is_slow(item):
    """Whether a collected test is in the full suite only (see the module docstring)."""
    if item.path.name in SLOW_MODULES or item.get_closest_marker("slow"):
        return True
    if f"{item.path.name}::{getattr(item, 'originalname', item.name)}" in SLOW_TESTS:
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    for key in STREAM_PARAMS:
        if key in params:
            value = params[key]
            return isinstance(value, int) and not isinstance(value, bool) and value > 0
    return False


def algo_marker(name):
    """The marker name of the registered algorithm ``name``."""
    return "algo_" + name.replace("-", "_").replace("+", "p")


def _registry():
    from olkit import registry

    names = registry.names()
    return names, {registry.get(n): n for n in names}


def _names_in(value, names, classes, depth=0):
    """The registered algorithms a test parameter names (see the module docstring)."""
    found = set()
    if depth > 3:
        return found
    if isinstance(value, str):
        for name in sorted(names, key=len, reverse=True):
            if value == name or value.startswith((name + "-", name + "_")):
                found.add(name)
                break
    elif isinstance(value, type):
        if value in classes:
            found.add(classes[value])
    elif isinstance(value, dict):
        for v in value.values():
            found |= _names_in(v, names, classes, depth + 1)
    elif isinstance(value, (tuple, list)):
        for v in value:
            found |= _names_in(v, names, classes, depth + 1)
    return found


def _module_algorithm(filename, names):
    """The algorithm a module is named after (``test_<slug>.py`` / ``test_<slug>_*.py``), or None."""
    stem = filename[len("test_") : -len(".py")] if filename.startswith("test_") and filename.endswith(".py") else ""
    for name in sorted(names, key=len, reverse=True):
        slug = algo_marker(name)[len("algo_") :]
        if stem == slug or stem.startswith(slug + "_"):
            return name
    return None


def item_algorithms(item, names, classes):
    """The registered algorithms a collected test item is about."""
    found = set()
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        for value in callspec.params.values():
            found |= _names_in(value, names, classes)
    own = _module_algorithm(item.path.name, names)
    if own:
        found.add(own)
    return found


def pytest_configure(config):
    names, _ = _registry()
    for name in names:
        config.addinivalue_line("markers", f"{algo_marker(name)}: the tests of {name} (derived in tests/conftest.py)")


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by marker
def pytest_collection_modifyitems(session, config, items):
    names, classes = _registry()
    for item in items:
        for name in sorted(item_algorithms(item, names, classes)):
            item.add_marker(getattr(pytest.mark, algo_marker(name)))
        if is_slow(item) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
    dump = os.environ.get("OLKIT_TESTS_MAP_DUMP")  # tests/test_tests_map.py: {node id: [marker names]}
    if dump:
        with open(dump, "w") as f:
            json.dump({item.nodeid: sorted(m.name for m in item.iter_markers()) for item in items}, f)
