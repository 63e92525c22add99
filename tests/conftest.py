"""Session-wide settings of the test suite.

The tests never download: ``OLKIT_DATA_OFFLINE=1`` makes a missing catalog file an immediate one-line error
instead of a download attempt (tests/test_fetch.py turns it off where it serves files from 127.0.0.1).
"""
import os

os.environ.setdefault("OLKIT_DATA_OFFLINE", "1")
