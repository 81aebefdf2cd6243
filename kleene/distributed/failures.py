"""How failures on the workers reach the caller: a clear error, never a partial result."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from concurrent.futures import CancelledError
from contextlib import contextmanager

from kleene.errors import InvalidObject, KleeneError, NegativeCycleError, OutOfMemory


class DistributedError(KleeneError, RuntimeError):
    """A distributed kleene run could not finish: a task raised (the message names the
    task and the worker) or a worker holding its blocks was lost. No result is returned."""


# Raised inside a task as the same type, the task named in the message: the caller
# sees what the in-process call would raise (a negative cycle, a bad argument).
_KEEP_TYPE = (NegativeCycleError, ValueError, IndexError, TypeError, MemoryError)


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "the client"


def named_task(fn):
    """``fn(label, *args)`` runs ``fn(*args)``; an exception comes back naming ``label``
    (the task, e.g. "apsp round 3: closure of block (3, 3)") and the worker."""

    @functools.wraps(fn)
    def run(label: str, *args):
        try:
            return fn(*args)
        except Exception as e:
            msg = f"{label} failed on worker {_worker_address()}: {type(e).__name__}: {e}"
            if isinstance(e, MemoryError):  # CuPy's OutOfMemoryError takes other arguments
                err = OutOfMemory(msg)
            elif isinstance(e, _KEEP_TYPE):
                try:
                    err = type(e)(msg)
                except Exception:
                    err = DistributedError(msg)
            else:
                err = DistributedError(msg)
            raise err from e

    return run


def _lost_types() -> tuple:
    """The exceptions by which Dask reports lost workers, data or connections."""
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError

    return (KilledWorker, CancelledError, CommClosedError, OSError, TimeoutError)


@contextmanager
def _no_partial_result(what: str) -> Iterator[None]:
    """A lost worker or cancelled task inside becomes a DistributedError saying that
    ``what`` did not finish (task errors pass as their tasks raised them)."""
    try:
        yield
    except _lost_types() as e:
        raise DistributedError(
            f"{what} did not finish: a Dask worker or its data was lost "
            f"({type(e).__name__}: {e}); no partial result is returned"
        ) from e


def gather(client, futures, what: str, *, watch: list[str] | None = None):
    """``client.gather(futures)``, failures reported as :func:`_no_partial_result` says;
    ``watch`` as for :func:`settle`."""
    if watch:
        settle(futures, what, watch=(client, watch))
    with _no_partial_result(what):
        return client.gather(futures)


# How often a wait on tasks pinned to workers checks that those workers are still there.
_POLL_S = 1.0


def settle(futures, what: str, *, watch: tuple | None = None) -> None:
    """Wait for ``futures`` without moving their data; raise as :func:`gather` would
    if one failed or was lost. ``watch`` = (client, worker addresses): tasks pinned to
    those workers (``allow_other_workers=False``) would wait forever for a worker that
    left, so the wait also ends, with a DistributedError, when one of them leaves."""
    from distributed import wait

    with _no_partial_result(what):
        while True:
            try:
                wait(futures, timeout=_POLL_S if watch else None)
                break
            except TimeoutError:
                _still_there(watch, what)
        bad = [f for f in futures if f.status != "finished"]
        if bad:
            bad[0].result()  # raises the task's error, or CancelledError for a lost one
    if bad:
        raise DistributedError(f"{what} did not finish: task {bad[0].key} is {bad[0].status}")


def require_workers(client, workers, what: str) -> None:
    """A DistributedError naming the ones of ``workers`` that left the cluster (their
    data went with them), before work is sent to them.

    (Pinned work waits forever for a worker that left; the scheduler refuses data for
    one with a bare KeyError.)"""
    _still_there((client, workers), what)


def scheduler_workers(client) -> dict:
    """The scheduler's workers (address: their info), asked of it for this call.

    Not ``client.scheduler_info()``: that returns the client's cached identity, which
    its periodic refresh rewrites without per-worker information, so a refresh landing
    between the call's fetch and its return reads as every worker gone. A client
    without a scheduler connection (or an asynchronous one) answers from that cache."""
    rpc = getattr(client, "scheduler", None)
    if rpc is None or getattr(client, "asynchronous", False):
        return client.scheduler_info(n_workers=-1)["workers"]
    return client.sync(rpc.identity, n_workers=-1)["workers"]


def _still_there(watch: tuple, what: str) -> None:
    client, workers = watch
    present = set(scheduler_workers(client))
    gone = sorted(w for w in workers if w not in present)
    if gone:
        raise DistributedError(
            f"{what} did not finish: a Dask worker or its data was lost ({', '.join(gone)} "
            "left the cluster); no partial result is returned"
        )


_WORKER_WAIT_S = 30


def check_client(client, what: str) -> None:
    """InvalidObject (a TypeError) unless ``client`` is a Dask client; DistributedError
    (a RuntimeError) if it is closed, before any work or transfer starts.

    >>> check_client("tcp://127.0.0.1:8786", "apsp")
    Traceback (most recent call last):
    ...
    kleene.errors.InvalidObject: apsp: client must be a dask.distributed.Client, got str
    """
    if not (hasattr(client, "scheduler_info") and hasattr(client, "submit")):
        raise InvalidObject(
            f"{what}: client must be a dask.distributed.Client, got {type(client).__name__}"
        )
    status = getattr(client, "status", "running")
    if status in ("closing", "closed", "failed"):
        raise DistributedError(
            f"{what}: the Dask client is {status}: it has no scheduler or workers to run on; "
            "pass an open client (dask.distributed.Client(...))"
        )


def worker_addresses(client, what: str) -> list[str]:
    """The addresses of the client's workers (waiting a while for one if there are none,
    as while a cluster starts or a nanny restarts a worker); a DistributedError if none
    come, or if the client cannot reach its scheduler (closed, or the cluster gone)."""
    check_client(client, what)
    workers = _workers(client, what)
    if workers:
        return workers
    try:
        client.wait_for_workers(1, timeout=_WORKER_WAIT_S)
    except TimeoutError as e:
        raise DistributedError(f"{what}: the Dask client has no workers") from e
    return _workers(client, what)


def _workers(client, what: str) -> list[str]:
    try:
        return list(scheduler_workers(client))
    except (KeyError, RuntimeError, OSError) as e:  # no scheduler answered (closed client)
        raise DistributedError(
            f"{what}: the Dask client is closed or has no workers (its scheduler did not "
            f"answer: {type(e).__name__}: {e}); pass an open client"
        ) from e
