"""tests/README.md, the map of the test suite, is kept true.

* Every ``tests/test_*.py`` has one row in the subjects table (a one-line subject), and every file the map names
  exists.
* Every registered algorithm (``olkit.registry.names()``) has one row in the algorithms table, with its marker
  (``algo_<slug>``, derived by tests/conftest.py) and the files of its own tests: the files where a collected test
  carries the marker, less the files that test every algorithm, which the map lists once. Both lists are compared
  with the collected tests, so a new test file, a new algorithm or a test moved to another file fails here until
  the map says it.
* Every algorithm has a reference test: one of its files is a ``*reference*`` module or the module named after it.

The markers come from the current session when it collected the whole suite (``make test``); otherwise (this file
alone) from a ``--collect-only`` run of the suite in a subprocess, which is why that test is not in the fast tier.
``python tests/test_tests_map.py`` prints the two derived tables, to paste into tests/README.md.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
MAP = TESTS / "README.md"

sys.path.insert(0, str(TESTS))
from conftest import algo_marker  # noqa: E402


def _rows(heading):
    """The rows (lists of cells) of the Markdown table under ``## heading`` in tests/README.md."""
    text = MAP.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"tests/README.md has no section '## {heading}'"
    rows = []
    for line in match.group(1).splitlines():
        if line.startswith("|") and not re.match(r"^\|[\s:|-]+\|$", line):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[1:]  # the header row is not a row


def _files(cell):
    return re.findall(r"`(test_[\w]+\.py)`", cell)


def _every_algorithm_files():
    text = MAP.read_text(encoding="utf-8")
    match = re.search(r"^## Tests of every algorithm\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, "tests/README.md has no section '## Tests of every algorithm'"
    return set(_files(match.group(1)))


def _collected_markers(session):
    """{node id: [marker names]} of the whole suite: this session's items when it collected all of it."""
    files = {p.name for p in TESTS.glob("test_*.py")}
    opts = session.config.option
    if not opts.markexpr and not opts.keyword and {item.path.name for item in session.items} >= files:
        return {item.nodeid: [m.name for m in item.iter_markers()] for item in session.items}
    dump = Path(os.environ.get("TMPDIR", "/tmp")) / f"olkit-tests-map-{os.getpid()}.json"
    env = dict(os.environ, OLKIT_TESTS_MAP_DUMP=str(dump))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-n",
            "0",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            str(TESTS),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, f"collecting the suite failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    try:
        return json.loads(dump.read_text())
    finally:
        dump.unlink()


def derived(markers, names):
    """(files testing every algorithm, {algorithm: the other files with a test carrying its marker})."""
    by_name = {name: set() for name in names}
    for nodeid, marks in markers.items():
        path = nodeid.split("::")[0].split("/")[-1]
        for name in names:
            if algo_marker(name) in marks:
                by_name[name].add(path)
    every = set.intersection(*by_name.values()) if by_name else set()
    return every, {name: files - every for name, files in by_name.items()}


def test_every_test_file_has_a_subject():
    rows = _rows("Subjects")
    listed = [row[0].strip("`") for row in rows]
    on_disk = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert len(listed) == len(set(listed)), "a file is listed twice in the subjects table"
    assert sorted(listed) == on_disk, (
        f"tests/README.md's subjects table: missing {sorted(set(on_disk) - set(listed))}, "
        f"no such file {sorted(set(listed) - set(on_disk))}"
    )
    for row in rows:
        assert len(row) == 2 and row[1], f"tests/README.md: {row[0]} needs a one-line subject"


def test_every_file_the_map_names_exists():
    text = MAP.read_text(encoding="utf-8")
    for name in set(re.findall(r"\b(test_\w+\.py)\b", text)):
        assert (TESTS / name).is_file(), f"tests/README.md names tests/{name}, which does not exist"
    for path in set(re.findall(r"`tests/([\w/]+\.py)`", text)):
        assert (TESTS / path).is_file(), f"tests/README.md names tests/{path}, which does not exist"


def test_every_algorithm_has_a_row_with_its_marker():
    from olkit import registry

    rows = _rows("Algorithms")
    listed = [row[0].strip("`") for row in rows]
    assert listed == registry.names(), "tests/README.md's algorithms table: one row per registered name, in order"
    for row in rows:
        assert row[1] == f"`{algo_marker(row[0].strip('`'))}`", f"tests/README.md: the marker of {row[0]}"


@pytest.mark.slow  # make test-fast collects part of the suite: the whole is collected again (~16 s of CPU)
def test_the_algorithm_map_is_what_the_markers_say(request):
    from olkit import registry

    names = registry.names()
    every, own = derived(_collected_markers(request.session), names)
    assert _every_algorithm_files() == every, (
        f"'## Tests of every algorithm' in tests/README.md should list exactly {sorted(every)}"
    )
    rows = {row[0].strip("`"): set(_files(row[2])) for row in _rows("Algorithms")}
    wrong = {name: sorted(own[name]) for name in names if rows.get(name) != own[name]}
    assert not wrong, f"tests/README.md's algorithms table should list these files: {wrong}"
    for name in names:
        slug = algo_marker(name)[len("algo_") :]
        assert any("reference" in f or f.startswith(f"test_{slug}") for f in own[name]), f"{name}: no reference test"


if __name__ == "__main__":  # print the derived tables for tests/README.md
    from olkit import registry

    class _Session:
        items = []
        config = type("C", (), {"option": type("O", (), {"markexpr": "", "keyword": ""})()})()

    def order(name, f):  # reference tests first, then invariants and identities, compat modes, the rest
        slug = algo_marker(name)[len("algo_") :]
        kinds = ("reference", "invariants|closed_forms|two_classes|_qp", "compat")
        rank = (
            0
            if f.startswith(f"test_{slug}")
            else next((k for k, pat in enumerate(kinds) if re.search(pat, f)), len(kinds))
        )
        return rank, f

    every, own = derived(_collected_markers(_Session()), registry.names())
    print("Tests of every algorithm:", ", ".join(f"`{f}`" for f in sorted(every)))
    for name in registry.names():
        files = sorted(own[name], key=lambda f: order(name, f))
        print(f"| `{name}` | `{algo_marker(name)}` | {', '.join(f'`{f}`' for f in files)} |")
