"""Every Python snippet of the README and of the documentation runs as written (issue 22 item 4).

The ```python blocks of one page run in order in one namespace, as a reader pastes them one after the
other, in a scratch folder that shows the repository's files (so relative paths resolve as from the
repository root, and what a snippet writes stays out of the checkout). A block whose first line is ``# not run:
<reason>`` (it needs the network
or a large dataset) is only compiled. Pages generated at build time (``docs/_build``, ``docs/auto_examples``,
``docs/api/generated``) are not sources and are left out; the gallery's scripts are run by the docs build.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ("docs/_build", "docs/auto_examples", "docs/api/generated")
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*\{?(?P<lang>[\w+-]*)\}?[^\n]*\n(?P<body>.*?)^(?P=indent)(?P=fence)\s*$",
    re.MULTILINE | re.DOTALL,
)
SKIP = "# not run:"


def pages():
    """README.md and every Markdown source page under docs/, relative to the repository root."""
    found = [Path("README.md")]
    for path in sorted((ROOT / "docs").rglob("*.md")):
        rel = path.relative_to(ROOT)
        if not any(str(rel).startswith(prefix) for prefix in GENERATED):
            found.append(rel)
    return found


def python_blocks(text):
    """The ```python blocks of a Markdown text, in order: (line number, code)."""
    blocks = []
    for match in FENCE.finditer(text):
        if match.group("lang") in ("python", "py", "python3"):
            body = match.group("body")
            indent = match.group("indent")
            if indent:
                body = "".join(
                    line[len(indent) :] if line.startswith(indent) else line for line in body.splitlines(keepends=True)
                )
            blocks.append((text.count("\n", 0, match.start()) + 2, body))
    return blocks


PAGES = [page for page in pages() if python_blocks((ROOT / page).read_text(encoding="utf-8"))]


def test_the_pages_with_snippets_are_found():
    assert Path("README.md") in PAGES and len(PAGES) >= 5


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_snippets_run(page, monkeypatch, tmp_path):
    # from a scratch folder that shows the repository's folders: a snippet's relative paths resolve as at the
    # repository root, and the files it writes (olkit.save("duol.npz")) land in the scratch folder
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (tmp_path / entry.name).symlink_to(entry)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": f"snippets of {page}"}
    for line, code in python_blocks((ROOT / page).read_text(encoding="utf-8")):
        compiled = compile(code, f"{page}:{line}", "exec")  # a syntax error names the page and line
        if code.lstrip().startswith(SKIP):
            continue
        exec(compiled, namespace)


def test_no_block_is_skipped_without_a_reason():
    for page in PAGES:
        for line, code in python_blocks((ROOT / page).read_text(encoding="utf-8")):
            first = code.lstrip().splitlines()[0] if code.strip() else ""
            if first.startswith(SKIP):
                assert len(first) > len(SKIP) + 3, f"{page}:{line}: say why the block is not run"


def test_generated_folders_are_ignored_by_git():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8") if (ROOT / ".gitignore").exists() else ""
    for folder in GENERATED:
        if (ROOT / folder).exists():
            assert folder in ignored or f"/{folder}" in ignored, f"{folder} is generated; add it to .gitignore"
