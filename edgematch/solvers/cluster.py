"""Where work runs beyond this machine's cores: a Dask cluster, named the same way everywhere.

``cluster`` (:func:`connected`): ``"local:N"`` starts a Dask ``LocalCluster`` of N worker processes for the
call and closes it after; ``"tcp://host:port"`` (any Dask address) connects to a running scheduler (``dask
scheduler`` / ``dask worker ADDRESS``, or dask-jobqueue on a batch system); a ``dask.distributed.Client``
passed by a library caller is used as it is and left open. Dask is imported only here and only when a cluster
is asked for; without it, :class:`MissingDependencyError` names the extra. A script that starts a local
cluster needs the usual ``if __name__ == "__main__":`` guard: Dask starts its workers by spawning Python.

Users: the native search's split count (:mod:`edgematch.solvers.native.cluster`) and the bench
(:mod:`edgematch.bench.cluster`).
"""

from __future__ import annotations

import contextlib
import logging
import signal
from collections.abc import Iterator
from typing import Any

from edgematch.errors import MissingDependencyError, UsageError
from edgematch.solvers.processes import sigint

LOCAL = "local:"
INSTALL = "pip install 'edgematch[dask]'"
MAX_LOCAL_WORKERS = 256

def distributed() -> Any:
    """The ``dask.distributed`` module, or one line naming the extra to install."""
    try:
        import dask.distributed
    except ImportError:
        raise MissingDependencyError(f"a cluster needs Dask: {INSTALL}") from None
    return dask.distributed


def cluster_problem(cluster: object) -> str | None:
    """Why ``cluster`` is not a cluster to run on (checked without importing Dask), or None."""
    if isinstance(cluster, str):
        if cluster.startswith(LOCAL):
            n = cluster[len(LOCAL):]
            if not (n.isascii() and n.isdigit()) or not 1 <= int(n) <= MAX_LOCAL_WORKERS:
                return f"local:N wants N from 1 to {MAX_LOCAL_WORKERS} worker processes, got {cluster[:40]!r}"
            return None
        if "://" in cluster and cluster.split("://", 1)[1]:
            return None
        return f"a cluster is local:N or a Dask scheduler address such as tcp://host:8786, got {cluster[:40]!r}"
    if type(cluster).__module__.startswith("distributed") and hasattr(cluster, "submit"):
        return None
    return f"cluster must be 'local:N', a scheduler address or a dask.distributed.Client, got {type(cluster).__name__}"


def describe(cluster: object) -> str:
    """How a result names the cluster it ran on: ``local:2``, the address, or ``client tcp://...``."""
    if isinstance(cluster, str):
        return cluster
    return f"client {getattr(getattr(cluster, 'scheduler', None), 'address', '?')}"


@contextlib.contextmanager
def connected(cluster: object) -> Iterator[Any]:
    """A ``dask.distributed.Client`` for ``cluster`` (see the module doc), closed afterwards unless the caller
    passed it in. A local cluster's worker processes start with Ctrl-C ignored (:func:`_deaf_children`)."""
    problem = cluster_problem(cluster)
    if problem:
        raise UsageError(problem)
    dd = distributed()
    if not isinstance(cluster, str):
        yield cluster
        return
    if cluster.startswith(LOCAL):
        with _deaf_children():
            local = dd.LocalCluster(n_workers=int(cluster[len(LOCAL):]), threads_per_worker=1, processes=True,
                                    dashboard_address=None, silence_logs=logging.ERROR)
        try:
            with dd.Client(local) as client:
                yield client
        finally:
            local.close()
        return
    try:
        client = dd.Client(cluster, timeout="10s")
    except OSError as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {cluster}: {exc}") from None
    with client:
        yield client


@contextlib.contextmanager
def _deaf_children() -> Iterator[None]:
    """Ignore Ctrl-C while a local cluster starts its worker processes: they inherit the ignored signal through
    fork and exec (Python leaves an ignored SIGINT ignored), so the terminal's Ctrl-C, which reaches the whole
    process group, stops only this process, which then collects what the parts searched and closes the
    cluster. A Ctrl-C in that second of starting is not seen."""
    with sigint(signal.SIG_IGN):
        yield


def threads(client: Any) -> int:
    """Tasks the cluster runs at once: the worker threads of every worker (at least 1)."""
    return max(1, sum(client.nthreads().values()))
