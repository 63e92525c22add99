"""Small helpers shared by several test files."""
import math
import os
from pathlib import Path

import numpy as np
import pytest

from olkit.data import CATALOG


def require_data_files(spec_name):
    """Skip unless OLKIT_DATA holds every file of the catalog dataset ``spec_name``."""
    data_dir = os.environ.get("OLKIT_DATA")
    if not data_dir:
        pytest.skip("OLKIT_DATA is not set")
    missing = [f for f in CATALOG[spec_name].files if not (Path(data_dir) / f).is_file()]
    if missing:
        pytest.skip(f"not in OLKIT_DATA={data_dir}: {', '.join(missing)}")


def check_diagnostics(got, want, label="", tol=1e-9):
    """Every reference diagnostic is in ``got``: floats to ``tol`` (relative and absolute), the rest equal."""
    for key, v in want.items():
        assert key in got, f"{label}diagnostics() lacks {key!r}: {got}"
        if isinstance(v, float):
            assert math.isclose(got[key], v, rel_tol=tol, abs_tol=tol), f"{label}{key}: olkit {got[key]}, reference {v}"
        else:
            assert got[key] == v, f"{label}diagnostics {key}: olkit {got[key]}, reference {v}"


def check_final_model(clf, ref, label=""):
    """The stored SVs (by arrival stamp: the examples seen before the SV's round, i.e. its 0-based stream
    position) and their coefficient rows equal the reference's (``ref.pts``, ``ref.rows``), to 1e-9."""
    s = clf.support_
    n = s.n
    coef = np.asarray(s.coef[:n], float).reshape(n, -1)
    added = np.asarray(s.added[:n])
    order = np.argsort(added, kind="stable")
    assert [int(a) for a in added[order]] == list(ref.pts), f"{label}stored SVs (arrival) differ"
    if n:
        np.testing.assert_allclose(coef[order], np.array(ref.rows).reshape(n, -1), rtol=1e-9, atol=1e-9,
                                   err_msg=f"{label}final coefficient rows")


def bad_compressed_files(tmp_path):
    """{description: path} of a corrupt and a truncated .bz2 and .gz of a small LIBSVM file (issue 9)."""
    import bz2
    import gzip

    text = "".join(f"{1 if i % 2 else -1} 1:{i / 200:.3f} 2:{1 - i / 200:.3f}\n" for i in range(200)).encode()
    files = {}
    for kind, compress in (("bz2", bz2.compress), ("gz", gzip.compress)):
        data = compress(text)
        files[f"truncated {kind}"] = tmp_path / f"truncated.{kind}"
        files[f"truncated {kind}"].write_bytes(data[:len(data) // 2])
        files[f"corrupt {kind}"] = tmp_path / f"corrupt.{kind}"
        files[f"corrupt {kind}"].write_bytes(data[:20] + b"\x00garbage\xff" * 8 + data[100:])
    return files
