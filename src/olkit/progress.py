"""Progress on stderr for the command line: a bar per finished cell / repeat / tuning candidate (or per
block of examples in a single long run), and a one-line notice while a compiled loop is built for the first
time.

Off by default (the library never prints): the commands (``olkit run``, ``tune``, ``train``, the
reproduction) call :func:`activate`, which turns it on only when stderr is a terminal, unless ``--quiet``.
``OLKIT_PROGRESS=1`` forces it on (tests), ``OLKIT_PROGRESS=0`` off. The bars are tqdm's (the optional
extra ``olkit[progress]``); without tqdm there are no bars, only the compile notice. Parallel runs report
per finished cell in the parent process only: workers never activate it.
"""

import contextlib
import os
import sys

_ACTIVE = False
_NOTICED: set[str] = set()


def activate(quiet=False):
    """Turn progress on for this process if stderr is a terminal (or ``OLKIT_PROGRESS=1``), not ``quiet``."""
    global _ACTIVE
    forced = os.environ.get("OLKIT_PROGRESS", "").strip()
    if quiet or forced == "0":
        _ACTIVE = False
    elif forced:
        _ACTIVE = True
    else:
        try:
            _ACTIVE = sys.stderr.isatty()
        except (AttributeError, ValueError):
            _ACTIVE = False
    return _ACTIVE


def deactivate():
    global _ACTIVE
    _ACTIVE = False


def active():
    return _ACTIVE


def _tqdm():
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


def notice(message):
    """One line on stderr (between a bar's redraws, not through it), if progress is on."""
    if not _ACTIVE:
        return
    tqdm = _tqdm()
    if tqdm is not None:
        tqdm.write(message, file=sys.stderr)
    else:
        print(message, file=sys.stderr, flush=True)


def compile_notice(what):
    """The first-compile notice for ``what`` (e.g. "duol's loop"), printed once per process and name."""
    if not _ACTIVE or what in _NOTICED:
        return
    _NOTICED.add(what)
    notice(f"olkit: compiling {what} for the first time (cached afterwards) ...")


class _Off:
    """The bar when progress is off: every method does nothing."""

    def update(self, n=1):
        pass

    def set_postfix_str(self, s=""):
        pass


@contextlib.contextmanager
def bar(total, desc, unit):
    """A tqdm bar on stderr (or a no-op when progress is off or tqdm is missing)."""
    tqdm = _tqdm() if _ACTIVE else None
    if tqdm is None:
        yield _Off()
        return
    with tqdm(
        total=total, desc=desc, unit=unit, file=sys.stderr, mininterval=1.0, dynamic_ncols=True, leave=False
    ) as b:
        yield b


@contextlib.contextmanager
def example_bar(total, desc):
    """A bar over the examples of one long online pass: :mod:`olkit.protocol` reports each finished span
    of examples (thousands of rounds, never per example) to it. Nothing is hooked when progress is off."""
    if not _ACTIVE or _tqdm() is None:
        yield _Off()
        return
    from . import protocol

    with bar(total, desc, "ex") as b:
        saved = protocol._SPAN_HOOK
        protocol._SPAN_HOOK = b.update
        try:
            yield b
        finally:
            protocol._SPAN_HOOK = saved
