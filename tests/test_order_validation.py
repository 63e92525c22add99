"""One rule for an ordering of the examples (issue 23, item 4): ``evaluate_online(order=...)`` and
``olkit run/tune --order FILE`` accept and refuse the same orderings, for the same reason.

The rule (:func:`olkit.protocol.check_order`): a non-empty 1-D sequence of integer (or integral float)
0-based indices in which each of the n examples appears exactly once. The library says ``order ...``, the
command line names the file (``--order FILE ...``); the rest of the message is the same.
"""

import numpy as np
import pytest

import olkit
from olkit.cli import main
from olkit.data import load_dataset

N = 208  # sonar
PERMUTATION = np.random.default_rng(4).permutation(N)

ORDERINGS = {
    "permutation": (PERMUTATION, None),
    "file order": (np.arange(N), None),
    "float integral": (PERMUTATION.astype(float), None),
    "subset": (PERMUTATION[:50], "indices missing"),
    "repeats": (np.zeros(50, dtype=np.int64), "indices duplicated: 0; missing: 1, 2, 3, 4, 5, ..."),
    "a repeat and a gap": (np.r_[0, 0, np.arange(2, N)], "indices duplicated: 0; missing: 1 ("),
    "out of range": (np.r_[np.arange(N), N + 100], f"indices outside 0..{N - 1}: {N + 100}"),
    "negative": (np.r_[-1, np.arange(1, N)], f"indices outside 0..{N - 1}: -1; missing: 0 ("),
    "float non-integral": (np.r_[0.5, np.arange(1, N)], "must hold integer (0-based) example indices"),
    "empty": (np.array([]), "must be a non-empty 1-D sequence of example indices, got shape (0,)"),
    "2-D": (np.arange(N).reshape(2, N // 2), "must be a non-empty 1-D sequence of example indices, got shape (2, "),
}


def _library(order):
    X, y = load_dataset("sonar")
    try:
        olkit.evaluate_online(olkit.make("pa1"), X, y, order=order)
    except ValueError as exc:
        message = str(exc)
        assert message.startswith("order "), message
        return message[len("order ") :]
    return None


def _write(path, order):
    if order.ndim == 2:
        path.write_text("\n".join(" ".join(map(str, row)) for row in order.tolist()) + "\n")
    else:
        path.write_text("".join(f"{v}\n" for v in order.tolist()))


def _cli(capsys, path, command):
    capsys.readouterr()
    repeats = ["--repeats", "1"] if command == "run" else []
    code = main([command, "pa1", "--data", "sonar", "--order", str(path), *repeats, "--format", "json"])
    err = capsys.readouterr().err
    if code == 0:
        return None
    prefix = f"olkit: error: --order {path} "
    line = err.strip().splitlines()[-1]
    assert code == 2 and line.startswith(prefix), err
    return line[len(prefix) :]


@pytest.mark.parametrize("case", list(ORDERINGS))
def test_library_and_cli_agree(case, capsys, tmp_path):
    order, reason = ORDERINGS[case]
    path = tmp_path / "order.txt"
    _write(path, order)
    library = _library(order)
    cli = _cli(capsys, path, "run")
    if reason is None:
        assert library is None and cli is None, (library, cli)
    else:
        assert library is not None and reason in library, library
    assert cli == library, f"library: {library!r}; olkit run --order: {cli!r}"


def test_tune_reads_orders_by_the_same_rule(capsys, tmp_path):
    path = tmp_path / "order.txt"
    _write(path, np.zeros(50, dtype=np.int64))
    assert _cli(capsys, path, "tune") == _library(np.zeros(50, dtype=np.int64))


def test_a_float_file_runs_as_its_integer_ordering(capsys, tmp_path):
    """``3.0`` in a file is index 3, as ``order=np.array([3.0, ...])`` is in the library."""
    X, y = load_dataset("sonar")
    path = tmp_path / "order.txt"
    _write(path, PERMUTATION.astype(float))
    capsys.readouterr()
    assert main(["run", "pa1", "--data", "sonar", "--order", str(path), "--format", "json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    res = olkit.evaluate_online(olkit.make("pa1"), X, y, order=PERMUTATION)
    assert doc["results"][0]["runs"][0]["mistakes"] == res.mistakes
