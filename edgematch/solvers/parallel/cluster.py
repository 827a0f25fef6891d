"""Where work runs beyond this machine's cores: a Dask cluster, named the same way everywhere.

``cluster`` (:func:`connected`): ``"local:N"`` starts a Dask ``LocalCluster`` of N worker processes for the
call and closes it after; ``"tcp://host:port"`` (``tls://``, ``ws://`` and ``wss://`` too; TLS certificates
come from Dask's configuration, as for any Dask client) connects to a running scheduler (``dask scheduler`` /
``dask worker ADDRESS``, or dask-jobqueue on a batch system), after checking the address's form and that a
Dask scheduler answers there (:func:`check_cluster`: one line within a few seconds, never a hang); a
``dask.distributed.Client`` passed by a library caller is used as it is and left open. Dask is imported only
here and only when a cluster is asked for; without it, :class:`MissingDependencyError` names the extra. A
script that starts a local cluster needs the usual ``if __name__ == "__main__":`` guard: Dask starts its
workers by spawning Python, which runs the script again; without the guard the call raises a
:class:`UsageError` that says so (the spawned copies leave quietly instead of starting clusters of their own).

Users: the native search's split count (:mod:`edgematch.solvers.native.count.cluster`) and the bench
(:mod:`edgematch.bench.cluster`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import multiprocessing
import os
import re
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

from edgematch.errors import BackendError, MissingDependencyError, UsageError, quoted
from edgematch.solvers.parallel.processes import deaf

LOCAL = "local:"
INSTALL = "pip install 'edgematch[dask]'"
MAX_LOCAL_WORKERS = 256
SCHEMES = ("tcp", "tls", "ws", "wss")  # Dask's protocols over TCP (ucx is for GPUs; inproc is one process)
CONNECT_SECONDS = 4.0  # reaching a scheduler, its handshake and its identity, all together (milliseconds when
# it is one; a web server that waits for a whole request line says nothing until this runs out)
_HOST_NAME = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?")
_PORT = "the port must be a whole number from 1 to 65535"
GUARD = ("a script that starts a local cluster must do its work under `if __name__ == \"__main__\":` (Dask starts "
         "its workers by spawning Python, which runs the script again)")


def distributed() -> Any:
    """The ``dask.distributed`` module, or one line naming the extra to install."""
    try:
        import dask.distributed
    except ImportError:
        raise MissingDependencyError(f"a cluster needs Dask: {INSTALL}") from None
    return dask.distributed


def address_problem(address: str) -> str | None:
    """What is wrong with a scheduler address (``SCHEME://HOST:PORT``, SCHEME one of :data:`SCHEMES`, an IPv6
    HOST in brackets, PORT from 1 to 65535), or None; checked without Dask and without the network."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        if re.fullmatch(r"[^:/]+:\d+", address):
            return f"no protocol: a scheduler address reads tcp://HOST:PORT (did you mean tcp://{address}?)"
        return "a cluster is local:N or a Dask scheduler address such as tcp://127.0.0.1:8786"
    if scheme.lower() not in SCHEMES:
        return f"{scheme}:// is not a Dask protocol: use {', '.join(s + '://' for s in SCHEMES)}"
    if rest.startswith("["):
        host, closed, tail = rest[1:].partition("]")
        if not closed:
            return "an IPv6 host without its closing ] (tcp://[::1]:8786)"
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            return f"{quoted(host)} is not an IPv6 address"
        if not tail.startswith(":"):
            return f"no port after the host (tcp://[{host}]:8786; dask scheduler listens on 8786 by default)"
        port = tail[1:]
    else:
        host, colon, port = rest.rpartition(":")
        if not colon:
            host, port = rest, ""
        if ":" in host:
            return "an IPv6 host goes in brackets (tcp://[::1]:8786)"
        if not host:
            return "no host (SCHEME://HOST:PORT, such as tcp://127.0.0.1:8786)"
        if not _HOST_NAME.fullmatch(host):
            return f"{quoted(host)} is not a host name or address"
        if not colon:
            return f"no port after the host ({scheme}://{host}:8786; dask scheduler listens on 8786 by default)"
    if not port:
        return f"{_PORT}, got nothing"
    if not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        return f"{_PORT}, got {quoted(port)}"
    return None


def cluster_problem(cluster: object) -> str | None:
    """Why ``cluster`` is not a cluster to run on (checked without importing Dask), or None: a malformed
    address is one line naming it and what is wrong (:func:`address_problem`)."""
    if isinstance(cluster, str):
        if cluster.startswith(LOCAL):
            n = cluster[len(LOCAL):]
            if not (n.isascii() and n.isdigit()) or not 1 <= int(n) <= MAX_LOCAL_WORKERS:
                return f"local:N wants N from 1 to {MAX_LOCAL_WORKERS} worker processes, got {quoted(cluster)}"
            return None
        if not cluster.strip():
            return "a cluster is local:N or a Dask scheduler address such as tcp://127.0.0.1:8786, got nothing"
        problem = address_problem(cluster)
        return f"cluster address {quoted(cluster)}: {problem}" if problem else None
    if type(cluster).__module__.startswith("distributed") and hasattr(cluster, "submit"):
        return None
    return f"cluster must be 'local:N', a scheduler address or a dask.distributed.Client, got {type(cluster).__name__}"


def check_cluster(cluster: object, reach: bool = False) -> None:
    """Raise a one-line UsageError when ``cluster`` is malformed or (``reach``, addresses only) no Dask
    scheduler answers there (:func:`reach_problem`); the command line asks before it stores anything."""
    problem = cluster_problem(cluster)
    if not problem and reach and isinstance(cluster, str) and not cluster.startswith(LOCAL):
        problem = reach_problem(cluster)
    if problem:
        raise UsageError(problem)


def reach_problem(address: str, seconds: float = CONNECT_SECONDS) -> str | None:
    """Why no Dask scheduler answers at ``address`` within ``seconds``, or None (one line naming it).

    Asked before the Client connects, because Dask's own connect can go wrong at something that is not a
    scheduler: it retries a refused port until its timeout; a plain TCP connection first fails fast. It then
    reads the peer's handshake with no time limit (a web server that says nothing waits forever) and takes the
    first 8 bytes of whatever comes back as a frame length (an HTTP reply reads as 3 EiB: MemoryError). Here
    the whole exchange (TCP, Dask's handshake with the configured TLS settings, the ``identity`` question,
    whose answer must be a Scheduler) runs in a thread of its own under one deadline."""
    dd = distributed()
    answer: list[str | None] = []
    worker = threading.Thread(target=lambda: answer.append(_ask(dd, address, seconds)), daemon=True,
                              name="edgematch-scheduler-probe")
    worker.start()
    worker.join(seconds + 1.0)  # _ask keeps to ``seconds``; the extra second is for a hung name lookup
    if not answer:
        return f"{address}: no answer within {seconds:g} s"
    return answer[0]


def _ask(dd: Any, address: str, seconds: float) -> str | None:
    """:func:`reach_problem`'s exchange, in an event loop of its own."""
    from distributed.comm import connect
    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, location = parse_address(address)
    host, port = parse_host_port(location)
    connection = dd.Security().get_connection_args("client")  # Dask's configured TLS, as the Client uses it
    if scheme == "tls" and connection.get("ssl_context") is None:
        return (f"{address}: TLS needs certificates in the Dask configuration (distributed.comm.tls.ca-file, "
                ".client.cert, .client.key; or DASK_DISTRIBUTED__COMM__TLS__CA_FILE etc.)")

    stage = ["tcp"]

    async def exchange() -> str | None:
        try:
            _, writer = await asyncio.open_connection(host, port)
        except OSError as exc:  # refused at once; a name that does not resolve
            if isinstance(exc, socket.gaierror):
                why = f"no such host ({exc.strerror})"
            else:
                why = os.strerror(exc.errno) if exc.errno else str(exc)
            return f"cannot reach the Dask scheduler at {address}: {why}"
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
        stage[0] = "dask"
        comm = None
        try:
            comm = await connect(address, timeout=seconds, **connection)
            await comm.write({"op": "identity", "reply": True})
            reply = await comm.read()
        except dd.comm.CommClosedError:
            hint = "; a scheduler with TLS wants tls://" if scheme == "tcp" else ""
            return f"{address}: not a Dask scheduler (it closed the connection in Dask's handshake{hint})"
        except Exception as exc:  # noqa: BLE001  (whatever the peer's bytes made of the handshake)
            why = "its reply is not Dask's" if isinstance(exc, MemoryError) else f"{type(exc).__name__}: {exc}"
            return f"{address}: not a Dask scheduler ({why})"
        finally:
            if comm is not None:
                comm.abort()
        kind = reply.get("type") if isinstance(reply, dict) else None
        if kind != "Scheduler":
            return f"{address}: not a Dask scheduler (a Dask {kind or 'server'} answers there)"
        return None

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(asyncio.wait_for(exchange(), seconds))
    except TimeoutError:
        if stage[0] == "tcp":
            return f"cannot reach the Dask scheduler at {address}: no answer within {seconds:g} s"
        return f"{address}: not a Dask scheduler (no Dask handshake within {seconds:g} s)"
    except Exception as exc:  # noqa: BLE001  (one line, never a traceback from the probe)
        return f"cannot reach the Dask scheduler at {address}: {type(exc).__name__}: {exc}"
    finally:
        with contextlib.suppress(Exception):
            loop.close()


def describe(cluster: object) -> str:
    """How a result names the cluster it ran on: ``local:2``, the address, or ``client tcp://...``."""
    if isinstance(cluster, str):
        return cluster
    return f"client {getattr(getattr(cluster, 'scheduler', None), 'address', '?')}"


@contextlib.contextmanager
def connected(cluster: object) -> Iterator[Any]:
    """A ``dask.distributed.Client`` for ``cluster`` (see the module doc), closed afterwards unless the caller
    passed it in. A local cluster's worker processes start with Ctrl-C ignored (:func:`.processes.deaf`): the
    terminal's Ctrl-C, which reaches the whole process group, stops only this process, which collects what
    the workers did and closes the cluster; one while the cluster starts stops the call once it is up. An
    address is checked first (:func:`check_cluster`): malformed, or no scheduler answering within
    :data:`CONNECT_SECONDS`, is one line (UsageError) within a few seconds."""
    check_cluster(cluster, reach=True)
    dd = distributed()
    if not isinstance(cluster, str):
        yield cluster
        return
    if cluster.startswith(LOCAL):
        if getattr(multiprocessing.current_process(), "_inheriting", False):
            # a spawned worker running an unguarded script again: leave quietly; the parent says why
            raise SystemExit(1)
        try:
            with _quiet_client(logging.CRITICAL), deaf() as witness:
                local = dd.LocalCluster(n_workers=int(cluster[len(LOCAL):]), threads_per_worker=1, processes=True,
                                        dashboard_address=":0", scheduler_kwargs={"dashboard": False},
                                        silence_logs=logging.ERROR)
                # the scheduler's HTTP server on any free port, without the dashboard app: None meant Dask's
                # 8787, which warns on stderr when another Dask process holds it
        except Exception as exc:  # noqa: BLE001  (Dask's start failing: one line, never its traceback)
            why = f"the local Dask cluster {cluster} did not start ({str(exc).rstrip('.')})"
            main = sys.modules.get("__main__")
            if getattr(main, "__file__", None) and not _guarded(main):
                raise UsageError(f"{why}: {GUARD}") from None
            raise BackendError(why) from None
        with _quiet_client():  # from the client's start to the cluster's close, with no gap between
            try:
                if witness.pressed:  # a Ctrl-C while the cluster started: stop now, it is closed below
                    raise KeyboardInterrupt
                with dd.Client(local) as client:
                    client.register_plugin(_quick_exit(dd), name="edgematch-quick-exit")
                    yield client
            finally:
                local.close()
        return
    try:
        client = dd.Client(cluster, timeout=f"{CONNECT_SECONDS}s")
    except Exception as exc:  # noqa: BLE001  (the probe said yes; one line all the same)
        raise UsageError(f"cannot reach the Dask scheduler at {cluster}: {type(exc).__name__}: {exc}") from None
    with client:
        yield client


def _quick_exit(dd: Any) -> Any:
    """A worker plugin for the local clusters started here: a worker that is closing leaves its process at
    once (``os._exit``) instead of tearing down its interpreter, which with the solver libraries
    loaded took 0.2-0.6 s, past the call's time limit. Nothing of a worker outlives the call anyway; its
    runs' children die with it (``PR_SET_PDEATHSIG``). Never registered on a cluster the caller runs.
    (Made here because Dask is imported only when a cluster is asked for; it travels to the workers by
    value, as Dask pickles it.)"""

    class QuickExit(dd.WorkerPlugin):
        def teardown(self, worker: Any) -> None:
            os._exit(0)

    return QuickExit()


def _guarded(main: Any) -> bool:
    """Whether the script ``main`` ran from reads ``if __name__ == "__main__"`` (unreadable: assumed not)."""
    try:
        with open(main.__file__, encoding="utf-8", errors="replace") as source:
            return re.search(r"__name__\s*==\s*['\"]__main__['\"]", source.read()) is not None
    except OSError:
        return False


@contextlib.contextmanager
def _quiet_client(least: int = logging.ERROR) -> Iterator[None]:
    """Dask's own loggers in this process at ``least`` (ERROR) while a local cluster runs: closing one on Ctrl-C
    or at the first answer logs its closed connections at INFO, with a traceback, which is not news to the
    user. Its start is quieter still: a worker that fails to start is logged with a traceback, then raised.
    Dask's event loop (tornado) is kept quiet too: a callback of the client's that runs once the cluster is
    closing (a loaded machine's Ctrl-C: "ConnectionPool is closed") was printed with its traceback."""
    loggers = [logging.getLogger(name) for name in ("distributed", "tornado.application")]
    levels = [logger.level for logger in loggers]
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(max(level, least if logger.name == "distributed" else logging.CRITICAL))
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def threads(client: Any) -> int:
    """Tasks the cluster runs at once: the worker threads of every worker (at least 1)."""
    return max(1, sum(client.nthreads().values()))
