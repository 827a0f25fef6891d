"""A bench session on a Dask cluster (``edgematch bench ... --cluster ADDRESS|local:N``).

Every planned run not yet stored becomes one Dask task. On the worker the task calls the harness's own
single-run function (:func:`edgematch.bench.runner.run_one`): the run is still its own child process, in its
own process group, with the wall-clock and resident-memory limits it gets locally, and the worker checks its
answer as the local harness does. The client alone writes: it stores each run the moment its task finishes
(one writer for the SQLite store), so ``--resume``, the agreement check and the reports work unchanged.

Each task also returns the machine it ran on (:func:`machine`: host name, CPU model, cores). The run keeps the
host name in its counters (``host``); the session's environment gathers every machine under ``hosts`` (CPU,
cores, runs), and the report says when a session ran on machines that differ (:func:`machine_notes`).

Faults follow the rule of :mod:`edgematch.solvers.parallel.tasks`: a worker that dies mid-run makes the
scheduler run the task again on another worker, and the run then starts afresh (a run's figures come from one
uninterrupted process); a task that raises runs once more. A run is stored once, whatever Dask delivers; a task
lost for good (``KilledWorker``: it killed its workers too often) is filed as crashed. Ctrl-C cancels every
outstanding task and leaves the finished runs stored, as locally.

Differences from ``--jobs`` worth knowing: the run's child is forked from the Dask worker process, so its
resident memory includes the worker's pages (tens of MiB, as it includes the harness's locally); and the
wall-clock limit is enforced by the worker, so a worker's clock decides a run's timeout.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import socket
from collections.abc import Hashable
from typing import Any

from edgematch import clock
from edgematch.bench.environment import cpu_model, load_average
from edgematch.bench.runner import GRACE_SECONDS, MEMORY_LIMIT_MB, RunRecord, question_of, run_one
from edgematch.bench.session import Watcher, _store, what_is_left
from edgematch.bench.store import Store
from edgematch.bench.suite import Instance, Suite
from edgematch.solvers.parallel.processes import usable_cores

POLL_SECONDS = 0.02  # how often the client looks for finished runs (a run stored late delays nothing else)


def machine() -> dict[str, Any]:
    """The machine this runs on: host name, CPU model, cores (all and usable)."""
    return {"host": socket.gethostname(), "cpu": cpu_model(), "cores": os.cpu_count(), "usable_cores": usable_cores()}


def run_on_worker(instance: Instance, backend: str, task: str, timeout: float, grace: float,
                  memory_mb: int) -> tuple[RunRecord, dict[str, Any]]:
    """On a Dask worker: one run exactly as the local harness makes it (:func:`run_one`), and the machine.
    Dask's worker processes are daemonic, which multiprocessing forbids children; every run's child dies with
    the thread that started it (``PR_SET_PDEATHSIG``) and leads its own process group, so the flag is lifted."""
    mp.current_process()._config["daemon"] = False  # noqa: SLF001  (see above; as edgematch.solvers.parallel.processes.start)
    from edgematch.solvers.base import backend_of

    with contextlib.suppress(Exception):  # the run's child loads it anyway, and files a missing library
        backend_of(backend).warm_up(question_of(task))  # loaded before the fork, as the local harness does
    return run_one(instance, backend, task, timeout, grace, memory_mb), machine()


def run_cluster_session(store: Store, session: int, suite: Suite, cluster: object, watcher: Watcher | None = None,
                        grace: float = GRACE_SECONDS, memory_mb: int = MEMORY_LIMIT_MB) -> bool:
    """Run what is left of ``session`` on ``cluster`` (``local:N``, a scheduler address or a Client); True when
    every planned run is now stored. Like :func:`edgematch.bench.session.run_session`, it records the load
    average of this machine before and after; it also records every worker machine under ``hosts``."""
    from edgematch.solvers.parallel.cluster import connected, describe, threads
    from edgematch.solvers.parallel.tasks import Tasks

    watcher, skipped, todo, estimate = what_is_left(store, session, suite, watcher, grace)
    hosts: dict[str, dict[str, Any]] = dict(store.session(session).environment.get("hosts") or {})
    began = clock.now()
    stretch: dict[str, Any] = {"load_before": load_average(), "cluster": describe(cluster)}
    filed: set[tuple[str, str, int]] = set()
    left: list[Hashable] = list(range(len(todo)))
    try:
        with connected(cluster) as client:
            jobs = threads(client)
            stretch["jobs"] = jobs
            tasks = Tasks(client, "run")
            for n, (instance, backend, _) in enumerate(todo):
                tasks.submit(n, run_on_worker, instance, backend, suite.task_of(instance), suite.timeout_of(instance),
                             grace, memory_mb)
            for instance, backend, _ in todo[:jobs]:
                watcher.started(instance, backend)
            watcher.eta(estimate.remaining(todo, [], jobs))

            def file(n: int, record: RunRecord, where: dict[str, Any] | None) -> None:
                record.repeat = todo[n][2]
                if (record.instance, record.backend, record.repeat) in filed:
                    return
                filed.add((record.instance, record.backend, record.repeat))
                if where is not None and _count_host(hosts, where):
                    store.update_environment(session, hosts=hosts)
                _store(store, session, record, watcher, estimate)
                rest = [r for r in todo if (r[0].key, r[1], r[2]) not in filed]
                if len(rest) >= jobs:
                    watcher.started(*rest[jobs - 1][:2])
                watcher.eta(estimate.remaining(rest, [], jobs))

            def done(n: Hashable, got: tuple[RunRecord, dict[str, Any]]) -> str:
                record, where = got
                record.counters = {**record.counters, "host": where["host"]}
                file(int(n), record, where)  # type: ignore[call-overload]
                return ""

            def lost(n: Hashable, error: BaseException | None) -> None:
                instance, backend, _ = todo[int(n)]  # type: ignore[call-overload]
                name = type(error).__name__
                why = (f"its Dask worker died while running it, {name}" if name == "KilledWorker"
                       else f"the Dask task failed: {name}: {error}")
                task = suite.task_of(instance)
                file(int(n), RunRecord(instance.key, backend, task, "error", "crashed", "error", 0.0,  # type: ignore[call-overload]
                                       message=why).about(instance), None)

            try:
                tasks.collect(done, lost, poll=POLL_SECONDS)
            finally:
                left = tasks.cancel(force=True)  # interrupted: outstanding runs are cancelled, not stored
    finally:
        complete = not left and not skipped
        store.close_session(session, clock.now() - began, complete)
        stretch["load_after"] = load_average()
        stretches = store.session(session).environment.get("stretches", [])
        store.update_environment(session, stretches=[*stretches, stretch], hosts=hosts)
    return complete


def _count_host(hosts: dict[str, dict[str, Any]], where: dict[str, Any]) -> bool:
    """Count a run on the machine ``where`` (:func:`machine`); True when it is new (the environment is then
    written at once)."""
    host = where["host"]
    entry = hosts.get(host)
    if entry is None:
        hosts[host] = {k: v for k, v in where.items() if k != "host"} | {"runs": 1}
        return True
    entry["runs"] = entry.get("runs", 0) + 1
    return False


def machine_notes(environment: dict[str, Any]) -> list[str]:
    """What a report says about where the runs ran: nothing for one machine; the machines when there were
    several, and a warning when they differ (CPU model or cores), because timings then compare machines too."""
    hosts = environment.get("hosts") or {}
    if len(hosts) < 2:
        return []
    kinds = {(h.get("cpu"), h.get("cores")) for h in hosts.values()}
    listed = "; ".join(f"{name} ({h.get('cpu')}, {h.get('cores')} cores, {h.get('runs', 0)} runs)"
                       for name, h in sorted(hosts.items()))
    if len(kinds) > 1:
        return [f"Mixed machines: the runs ran on {len(hosts)} machines that differ ({listed}). A time compares the "
                "machine as well as the backend; compare runs of one host (each run's counters name it)."]
    return [f"The runs ran on {len(hosts)} alike machines ({listed})."]


def machine_rows(environment: dict[str, Any]) -> list[tuple[str, str]]:
    """The report's environment rows for the worker machines of a session run on a cluster (none otherwise)."""
    hosts = environment.get("hosts") or {}
    return [(f"worker {name}", f"{h.get('cpu')} ({h.get('cores')} cores, {h.get('usable_cores')} usable), "
             f"{h.get('runs', 0)} runs") for name, h in sorted(hosts.items())]
