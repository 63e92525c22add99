"""The example gallery (examples/, rendered by sphinx-gallery into docs/auto_examples/): its shape, checked
without running the scripts (the documentation build runs them, abort_on_example_error).

Each script is a sphinx-gallery example: a module docstring whose first lines are a reST title underlined
with ``=`` and a paragraph, ``# %%`` cells, at least one matplotlib figure; it needs neither OLKIT_DATA nor
the network (only the bundled datasets or generated data), and cites no file outside the repository.
"""

import ast
import re
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("plot_*.py"))
BUNDLED = {"sonar", "splice", "german", "mushrooms"}


def test_gallery_has_a_readme_and_at_least_nine_examples():
    lines = (EXAMPLES / "README.txt").read_text().splitlines()
    assert lines[0].strip() and set(lines[1]) == {"="} and len(lines[1]) >= len(lines[0])
    assert any(line.strip() for line in lines[2:]), "README.txt needs a paragraph under its title"
    assert len(SCRIPTS) >= 9


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_example_shape(path):
    text = path.read_text()
    tree = ast.parse(text)
    doc = ast.get_docstring(tree, clean=False)
    assert doc, f"{path.name}: no module docstring"
    lines = doc.strip("\n").splitlines()
    assert lines[0].strip() and set(lines[1]) == {"="} and len(lines[1]) >= len(lines[0]), (
        f"{path.name}: the docstring must start with a title underlined with '=' (at least as long)"
    )
    assert any(line.strip() for line in lines[2:]), f"{path.name}: no paragraph under the title"
    assert re.search(r"(?m)^# %%", text), f"{path.name}: no '# %%' cells"
    assert re.search(r"plt\.(subplots|figure)\(", text), f"{path.name}: makes no matplotlib figure"
    assert "OLKIT_DATA" not in text and "http" not in text.split('"""', 2)[2], (
        f"{path.name}: an example may use only bundled or generated data"
    )
    for name in re.findall(r"load_dataset\(\"([^\"]+)\"\)", text):
        assert name in BUNDLED, f"{path.name}: {name} is not bundled"
    # citations outside the repository: tests/test_repository_citations.py checks every tracked file
