"""The repository carries its own specification (issue 22 item 1).

* No tracked file cites a document or a path outside the repository: not the upstream specification sheet
  or design notes the project started from, not a machine's absolute path. The one exception is the
  benchmark data that CI points ``OLKIT_DATA`` at (``../shared/data``, named by ``.ci/run``): a line naming
  it must also name ``OLKIT_DATA``, or be in ``.ci/run``.
* Every citation of a documentation page (``docs/....md``, optionally ``#anchor``) in the code, the tests,
  the benchmarks, the tools, the experiment configs and the docs themselves names a page that exists and,
  with an anchor, a heading of that page (MyST's heading anchors: the GitHub slug of the heading text).
"""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

OUTSIDE = [
    (re.compile(r"ALGORITHMS\.md"), "the upstream algorithm sheet (cite docs/algorithms/<page>.md)"),
    (re.compile(r"DESIGN\.md"), "the upstream design notes (cite docs/dev/architecture.md)"),
    (re.compile(r"(?<![\w.])/work/"), "a machine's absolute path"),
    (re.compile(r"(?<![\w.])/(?:home|root|Users)/\w"), "a machine's absolute path"),
    (re.compile(r"\.\./shared/(?!data\b)"), "a folder outside the repository"),
    (re.compile(r"\.\./shared/data"), "the CI test data, named without OLKIT_DATA"),
]
CITATION = re.compile(r"(?<![\w/.-])(docs/[\w-][\w./-]*?\.md)(#[\w-]+)?")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".json", ".yml", ".yaml", ".rst", ""}


def tracked_files():
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = []
    for name in listed.splitlines():
        path = ROOT / name
        if path.is_file() and (path.suffix in TEXT_SUFFIXES or name in ("Makefile", ".ci/run")):
            files.append(name)
    return files


def lines_of(name):
    try:
        return (ROOT / name).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        return []


def slug(heading):
    """MyST's heading anchor (the GitHub slug): lower case, punctuation other than - and _ dropped,
    spaces to dashes."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page):
    found, fenced = set(), False
    for line in lines_of(page):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.add(slug(line.lstrip("#")))
        elif not fenced and re.match(r"\((?P<label>[\w-]+)\)=\s*$", line):
            found.add(line.strip()[1:-2])  # an explicit MyST target
    return found


def test_files_are_found():
    files = tracked_files()
    assert "src/olkit/registry.py" in files and "README.md" in files


def test_no_citation_outside_the_repository():
    bad = []
    this = Path(__file__).relative_to(ROOT).as_posix()
    for name in tracked_files():
        if name in (this, ".ci/run"):
            continue
        for number, line in enumerate(lines_of(name), 1):
            for pattern, what in OUTSIDE:
                if pattern.search(line) and not (what.startswith("the CI test data") and "OLKIT_DATA" in line):
                    bad.append(f"{name}:{number}: {what}: {line.strip()[:120]}")
    assert not bad, "\n".join(bad)


def generated_pages():
    """The pages ``make docs`` writes at build time (listed in .gitignore): cited, but not in a checkout."""
    ignore = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return {line.strip().lstrip("/") for line in ignore if line.strip().lstrip("/").startswith("docs/")}


def test_cited_pages_and_anchors_exist():
    bad, cited = [], 0
    cache = {}
    generated = generated_pages()
    for name in tracked_files():
        for number, line in enumerate(lines_of(name), 1):
            for match in CITATION.finditer(line):
                page, anchor = match.group(1), match.group(2)
                if page in generated or page.startswith(("docs/_build", "docs/auto_examples")):
                    continue
                cited += 1
                if not (ROOT / page).is_file():
                    bad.append(f"{name}:{number}: {page} does not exist")
                elif anchor:
                    if page not in cache:
                        cache[page] = anchors(page)
                    if anchor[1:] not in cache[page]:
                        bad.append(f"{name}:{number}: {page} has no heading {anchor}")
    assert not bad, "\n".join(bad)
    assert cited >= 50  # the code cites its specification


@pytest.mark.parametrize(
    "heading,expected",
    [
        ("Tie rule", "tie-rule"),
        ("Compat modes", "compat-modes"),
        ("Multiclass and multi-label", "multiclass-and-multi-label"),
        ("The `compat` modes (D12)", "the-compat-modes-d12"),
    ],
)
def test_slug(heading, expected):
    assert slug(heading) == expected


SKELETON = [
    "parameters",
    "update-rule",
    "settled-questions",
    "ties",
    "compat-modes",
    "complexity",
    "example",
    "references",
]


def test_every_algorithm_has_its_specification_page():
    """One page per registered algorithm (``Spec.page``, which ``olkit list NAME`` and the docstrings name),
    each with the sections of the specification: parameters, update rule, settled questions, ties, compat
    modes, complexity, an example and references."""
    from olkit import registry

    for name in registry.names():
        page = registry.spec(name).page
        assert (ROOT / page).is_file(), f"{name}: {page} is missing"
        headings = anchors(page)
        missing = [section for section in SKELETON if section not in headings]
        assert not missing, f"{page} lacks the sections {missing}"


REFERENCE = re.compile(r"tests/reference/(\w+)\.py \(((?:``\w+``(?:, )?)+)")
"""A slow reference named in a learner's module docstring: ``tests/reference/<file>.py (``function``, ...)``."""


def test_every_learner_module_names_its_slow_reference():
    """Each registered algorithm's module says, in its docstring, where its slow readable reference is: a file of
    tests/reference/ and a function or class defined at the top of that file (issue 23 item 2)."""
    import ast
    import sys

    from olkit import registry

    defined = {}
    bad = []
    for name in registry.names():
        module = registry.get(name).__module__
        doc = sys.modules[module].__doc__ or ""
        named = REFERENCE.findall(" ".join(doc.split()))
        if not named:
            bad.append(f"{name}: the docstring of {module} names no tests/reference/<file>.py (``function``)")
        for stem, functions in named:
            path = ROOT / "tests" / "reference" / f"{stem}.py"
            if not path.is_file():
                bad.append(f"{name}: {module} names tests/reference/{stem}.py, which does not exist")
                continue
            if stem not in defined:
                tree = ast.parse(path.read_text(encoding="utf-8"))
                defined[stem] = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
            for function in re.findall(r"``(\w+)``", functions):
                if function not in defined[stem]:
                    bad.append(f"{name}: {module} names {function} of tests/reference/{stem}.py, not defined there")
    assert not bad, "\n".join(bad)
