"""The package as it is shipped: the version in one place, the type information (PEP 561 ``py.typed``) and the
typed public API."""

import ast
import importlib.metadata
import importlib.resources
import inspect
import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pytest

import olkit
from olkit.base import OnlineClassifier

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_FUNCTIONS = ["make", "algorithms", "evaluate_online", "load_dataset", "fetch_dataset", "save", "load"]
ESTIMATOR_METHODS = ["fit", "partial_fit", "predict", "decision_function", "score"]


# ---- the version, written once --------------------------------------------------------------------------------
def test_pyproject_reads_the_version_from_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "olkit.__version__"}


def test_installed_metadata_model_header_and_cli_agree(tmp_path, capsys):
    from olkit.cli import build_parser

    assert importlib.metadata.version("olkit") == olkit.__version__
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"olkit {olkit.__version__}"
    X, y = olkit.load_dataset("german")
    path = tmp_path / "pa.npz"
    olkit.save(olkit.make("pa").partial_fit(X[:50], y[:50]), path)
    with np.load(path, allow_pickle=False) as archive:
        header = json.loads(archive["__header__"].tobytes().decode("utf-8"))
    assert header["olkit_version"] == olkit.__version__


def _code_and_config_files():
    """The files where a version could be written by hand: code, the build and docs configuration (not the
    recorded benchmark results, which say which version produced them, nor prose)."""
    for pattern in (
        "src/**/*.py",
        "tests/**/*.py",
        "tools/**/*.py",
        "benchmarks/**/*.py",
        "examples/**/*.py",
        "docs/**/*.py",
        "pyproject.toml",
        "Makefile",
        ".ci/*",
        "experiments/*.toml",
    ):
        for path in ROOT.glob(pattern):
            if path.is_file() and not {"_build", "auto_examples", "__pycache__"} & set(path.parts):
                yield path


def test_the_version_literal_is_written_once():
    literal = re.compile(r"[\"']" + re.escape(olkit.__version__) + r"[\"']")
    found = [
        str(path.relative_to(ROOT))
        for path in _code_and_config_files()
        for _ in literal.finditer(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert found == ["src/olkit/__init__.py"], found


# ---- type information -----------------------------------------------------------------------------------------
def test_py_typed_is_in_the_installed_package():
    assert importlib.resources.files("olkit").joinpath("py.typed").is_file()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["olkit"]


@pytest.mark.slow
def test_the_wheel_ships_py_typed_and_the_version(tmp_path):
    """Build a wheel from a copy of the sources (the working tree gets no build/ nor egg-info): it holds
    ``olkit/py.typed`` and its metadata carries ``olkit.__version__``."""
    source = tmp_path / "source"
    (source / "src").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "src" / "olkit", source / "src" / "olkit", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("olkit-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "olkit/py.typed" in names
    assert f"\nVersion: {olkit.__version__}\n" in metadata


def test_type_checking_imports_are_the_lazy_exports():
    """``olkit/__init__.py`` imports its public names on first use (``__getattr__`` over ``_EXPORTS``); its
    ``if TYPE_CHECKING:`` block spells the same imports out for type checkers. The two must not drift."""
    from olkit import _EXPORTS

    tree = ast.parse((ROOT / "src" / "olkit" / "__init__.py").read_text())
    (block,) = [node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"]
    spelled = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert spelled == {name: (module, attr) for name, (module, attr) in _EXPORTS.items()}


def _annotated(function, skip=("self",)):
    signature = inspect.signature(function)
    missing = [
        name for name, p in signature.parameters.items() if name not in skip and p.annotation is inspect.Parameter.empty
    ]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_public_function_is_annotated(name):
    assert _annotated(getattr(olkit, name)) == []


@pytest.mark.parametrize("name", ESTIMATOR_METHODS)
def test_estimator_method_is_annotated(name):
    assert _annotated(getattr(OnlineClassifier, name)) == []
