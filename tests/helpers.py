"""Small helpers shared by several test files."""
import os
from pathlib import Path

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
