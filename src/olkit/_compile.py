"""numba set-up shared by every compiled routine of olkit.

All compiled functions use ``@njit(cache=True)`` so that a warm process loads machine code from disk
instead of compiling. numba only checks the time stamp of the file that *defines* a cached function, not
of the files it calls, so an edit to an update rule in one module could leave a stale compiled loop in
another. To make the cache always consistent, the cache directory is keyed by a hash of the package's
sources: any change to a source file holding compiled code selects a fresh directory.

The user can override the location with ``OLKIT_NUMBA_CACHE`` (a directory) or numba's own
``NUMBA_CACHE_DIR``.
"""
import hashlib
import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _compiled_sources():
    """The modules that hold compiled code (and everything they import that is compiled)."""
    top = [_PACKAGE_DIR / name for name in ("_compile.py", "_rng.py", "kernels.py")]
    return top + sorted((_PACKAGE_DIR / "learners").rglob("*.py"))


def _source_hash():
    digest = hashlib.sha1()
    for path in _compiled_sources():
        digest.update(path.relative_to(_PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _cache_dir():
    base = os.environ.get("OLKIT_NUMBA_CACHE")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "olkit", "numba")
    return os.path.join(base, _source_hash())


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = _cache_dir()

import numba  # noqa: E402  (must come after the cache directory is chosen)
import numba.extending  # noqa: E402

if numba.config.CACHE_DIR != os.environ["NUMBA_CACHE_DIR"]:
    # numba was imported by the user before olkit: point its cache at our directory anyway.
    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]

njit = numba.njit(cache=True, nogil=True)
"""Decorator used for every compiled olkit routine (cached on disk, releases the GIL)."""

njit_reassoc = numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
"""For reductions (dot products) only: lets LLVM vectorise the sum by reassociating it. Results differ
from the sequential sum in the last bits only (no assumptions about NaN/inf are made)."""


@numba.extending.intrinsic
def fma(typingctx, a, b, c):
    """a·b + c with one rounding (LLVM's fma: the CPU instruction, or an exact library call)."""
    sig = numba.types.float64(numba.types.float64, numba.types.float64, numba.types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen
