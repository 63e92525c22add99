"""The generated benchmarks page of the documentation site (docs/_ext/olkit_benchmarks.py) renders every result
file under benchmarks/results/."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_benchmarks_page_renders_every_result_file():
    spec = importlib.util.spec_from_file_location("olkit_benchmarks", ROOT / "docs" / "_ext" / "olkit_benchmarks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = ROOT / "benchmarks" / "results"
    text = module.page(results)
    assert "layout is not rendered" not in text and "could not be read" not in text
    for path in results.glob("*.json"):
        if not path.stem.endswith("_quick"):
            assert f"`benchmarks/results/{path.name}`" in text
