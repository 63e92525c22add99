"""Writing files atomically: every file olkit writes goes through :func:`atomic_open` (issue 21 item 5).

A file is written to a temporary file in the target's directory, flushed to disk (``fsync``) and renamed
over the target (``os.replace``, atomic on POSIX and Windows), so a reader — another process, a rerun
after a kill — sees the old file or the new one, never a truncated or interleaved one. Two processes
writing the same target at once each write their own temporary; the last rename wins, whole.

* **Failure**: on any exception, KeyboardInterrupt included, the temporary is removed and the target is
  left as it was.
* **Permissions**: a new file gets ``0o666`` minus the umask, as ``open(path, "w")`` would give it (the
  kernel applies the umask: the temporary is created with ``os.open(..., 0o666)``, not ``mkstemp``'s
  0600); a file that is replaced keeps its mode (``olkit train --continue`` leaves a 0644 model 0644).
* **Stale temporaries**: a process killed by SIGKILL cannot remove its temporary. Temporaries are named
  ``.<target name>.<host>.<pid>.<random>.tmp`` (hidden; ``<host>`` a short hash of the host name), and a
  write into a directory removes the temporaries there of this host whose process no longer exists
  (checked at the first write into a directory, then at most every :data:`SWEEP_SECONDS`, so a store of
  thousands of cells is not listed at every write).
"""

import contextlib
import hashlib
import os
import secrets
import socket
import stat
import time

SUFFIX = ".tmp"
SWEEP_SECONDS = 60.0
"""Minimum time between two sweeps of the same directory for stale temporaries, in one process."""

_HOST = hashlib.blake2b(socket.gethostname().encode(), digest_size=3).hexdigest()
_MAX_NAME = 120  # UTF-8 bytes of the target's name kept in its temporary's name (file names: <= 255 bytes)
_swept: dict[str, float] = {}  # directory -> time.monotonic() of its last sweep in this process


def file_kind(mode):
    """ "a FIFO (named pipe)", "a character device", ... for a non-regular ``st_mode``; None for a regular file.
    Every file olkit reads is checked with it before it is opened: opening a FIFO blocks until a writer comes,
    and a device never ends."""
    kinds = (
        (stat.S_ISREG, None),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((kind for test, kind in kinds if test(mode)), "not a regular file")


def _temporary_name(target_name):
    kept = os.fsencode(target_name)[:_MAX_NAME].decode("utf-8", errors="ignore")
    return f".{kept}.{_HOST}.{os.getpid()}.{secrets.token_hex(4)}{SUFFIX}"


def _owner_pid(name):
    """The pid of the process that wrote temporary ``name`` on this host, or None (not one of ours)."""
    if not (name.startswith(".") and name.endswith(SUFFIX)):
        return None
    parts = name[: -len(SUFFIX)].rsplit(".", 3)
    if len(parts) != 4 or parts[1] != _HOST or not parts[2].isdigit() or len(parts[3]) != 8:
        return None
    return int(parts[2])


def _alive(pid):
    """Whether process ``pid`` exists (POSIX signal 0; on Windows, where signal 0 is CTRL_C_EVENT, every
    process counts as alive: stale temporaries are then left alone)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def is_temporary(name):
    """True if ``name`` is the name of a temporary file of :func:`atomic_open` (live or left by a kill)."""
    return _owner_pid(name) is not None


def is_live_temporary(name):
    """True if ``name`` is the temporary of a write still going on (by a live process of this host)."""
    pid = _owner_pid(name)
    return pid is not None and (pid == os.getpid() or _alive(pid))


def remove_stale_temporaries(folder):
    """Remove the temporaries in ``folder`` left by processes of this host that no longer exist; return
    their names."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        pid = _owner_pid(entry.name)
        if pid is not None and pid != os.getpid() and not _alive(pid):
            with contextlib.suppress(OSError):  # another process may be removing it too
                os.unlink(entry.path)
                removed.append(entry.name)
    return removed


def _sweep(folder):
    now = time.monotonic()
    if now - _swept.get(folder, -SWEEP_SECONDS) >= SWEEP_SECONDS:
        _swept[folder] = now
        remove_stale_temporaries(folder)


def _sync_directory(folder):
    """Make the rename durable (POSIX: fsync the directory); not supported everywhere, then skipped."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_open(path, mode="w", encoding="utf-8"):
    """Open a temporary file for writing ``path`` (``mode`` "w" text or "wb" binary); when the block ends
    without an exception it is flushed, fsynced and renamed over ``path``; on any exception it is removed
    and ``path`` is untouched. See the module docstring for permissions and stale temporaries."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open: mode must be 'w' or 'wb', got {mode!r}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    _sweep(folder)
    try:
        keep_mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        keep_mode = None
    while True:
        tmp = os.path.join(folder, _temporary_name(os.path.basename(path)))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            break
        except FileExistsError:  # 32 random bits collided: draw again
            continue
    try:
        if keep_mode is not None:
            os.chmod(tmp, keep_mode)
        with open(fd, mode, encoding=None if "b" in mode else encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_directory(folder)


def write_text(path, text):
    """Write the string ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_open(path, "w") as fh:
        fh.write(text)


def write_bytes(path, data):
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)


def save_figure(fig, path, **options):
    """``fig.savefig(path, **options)`` (a matplotlib figure), written atomically; the format is the
    extension's, as savefig infers it from a path."""
    fmt = os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or None
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format=fmt, **options)
