"""Where the parallel runs of the runner and of tuning go (issue 10 item 5): joblib's local processes
("loky", the default) or a Dask cluster ("dask", through joblib's Dask backend; extra ``olkit[dask]``).

:func:`use` is the one place that chooses: inside ``with use("dask", address):`` every repeat, tuning
candidate and reproduction cell is a task on the cluster at ``address`` (without an address: a
``LocalCluster`` of processes started for the block and closed after it). :func:`jobs` and
:func:`run_tasks` are what :mod:`olkit.experiment.runner` and :mod:`olkit.experiment.tuning` call instead of
joblib's ``Parallel`` directly. The runs are deterministic, so the results equal the local run's. Workers
import olkit themselves (tasks carry algorithm names and parameters, not code): a remote worker needs the
same olkit installed, and a result store (``--out``) on a file system it shares. Importing this module
does not import dask.
"""

import contextlib
import os
import signal
import threading
import warnings

BACKENDS = ("loky", "dask")
CONNECT_TIMEOUT = 10
"""Seconds to wait for a scheduler before refusing its address."""

_distributed = False  # inside a ``use("dask")`` block


class BackendError(ValueError):
    """A backend that cannot be used: dask not installed, or a scheduler not reachable."""


def check(backend, scheduler=None, prefix="--"):
    """ValueError for an unknown backend, or a scheduler without the dask backend (``prefix``: "--" for
    the command's options, "" for a config's keys)."""
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"{prefix}backend {backend!r} is not a backend; valid backends: {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise ValueError(f"{prefix}scheduler {scheduler!r} needs {prefix}backend dask")


def _workers(n_jobs):
    """Local-cluster workers for ``--jobs`` (joblib's counting: -1 all cores, -2 all but one; default 2)."""
    if n_jobs is None:
        return 2
    return n_jobs if n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + n_jobs)


@contextlib.contextmanager
def use(backend=None, scheduler=None, n_jobs=None):
    """Run the parallel work of the block on ``backend`` (None or "loky": local joblib processes, nothing
    changes). "dask": a ``dask.distributed.Client`` of the scheduler at ``scheduler`` (unreachable within
    :data:`CONNECT_TIMEOUT` seconds: ValueError naming it), or of a ``LocalCluster`` of ``n_jobs`` (default
    2) single-threaded worker processes closed at the end; yields the client (None for loky)."""
    global _distributed
    check(backend, scheduler)
    if backend != "dask":
        yield None
        return
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BackendError("--backend dask needs dask.distributed: pip install 'olkit[dask]'") from None
    from joblib import parallel_config

    with contextlib.ExitStack() as stack:
        if scheduler is None:
            target = stack.enter_context(
                LocalCluster(n_workers=_workers(n_jobs), processes=True, threads_per_worker=1, dashboard_address=":0")
            )  # any free port
        else:
            target = scheduler
        try:
            client = Client(target, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise BackendError(
                f"cannot reach the Dask scheduler at {scheduler!r} within {CONNECT_TIMEOUT} s ({type(exc).__name__})"
            ) from None
        stack.enter_context(client)
        stack.enter_context(parallel_config(backend="dask"))
        _distributed = True
        try:
            yield client
        finally:
            _distributed = False


def distributed():
    """True inside a ``use("dask")`` block."""
    return _distributed


def jobs(n_jobs, work):
    """The joblib ``n_jobs`` of ``work`` example-steps: on a Dask cluster -1 (every worker; the cluster's
    size is the limit), else ``n_jobs`` if given, else 1 for small work (starting processes costs more)
    and all cores for large."""
    if _distributed:
        return -1
    if n_jobs is not None:
        return n_jobs
    return 1 if work < 400_000 else -1


class _KeepWarnings:
    """``function`` as a task whose warnings travel back with its result: a worker process would print
    them itself, in Python's two-line format and out of the command's control.

    A task that runs in a worker process (not the caller's, not a thread) also makes that process ignore
    SIGINT. Ctrl-C reaches the whole foreground process group; the caller stops the run and ends its workers,
    and a worker interrupted while sending a result back printed a traceback of its own."""

    def __init__(self, function):
        self.function = function
        self.caller = os.getpid()

    def __call__(self, *args):
        if os.getpid() != self.caller and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = self.function(*args)
        kept = []
        for w in caught:  # each distinct warning once per task
            entry = (w.category, str(w.message))
            if entry not in kept:
                kept.append(entry)
        return result, kept


def run_tasks(n_jobs, function, argument_tuples):
    """Yield ``function(*arguments)`` for each of ``argument_tuples``, in task order as they finish, on
    joblib's ``Parallel`` (on the backend of :func:`use`). Warnings a task raises in a worker are raised
    again here, in the calling process, so they print as every other warning of the command does (one
    line on the command line) and a ``warnings`` filter of the caller applies to them."""
    from joblib import Parallel, delayed

    task = _KeepWarnings(function)
    for result, caught in Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(task)(*args) for args in argument_tuples
    ):
        for category, message in caught:
            warnings.warn(message, category, stacklevel=2)
        yield result
