"""The chains' shared integers (edgematch.solvers.parallel.shared): an operation is applied whole wherever the values
live, so processes (or cluster tasks) taking numbers from one counter at once never get the same number twice and
never skip one; a cluster chain's child reaches the scheduler's values through its task."""

from __future__ import annotations

import multiprocessing as mp

import pytest

from edgematch.errors import BackendError
from edgematch.solvers.parallel.shared import Local, OnCluster, Served

TAKES = 300  # each process's numbers (on the cluster a third: each takes a scheduler's round trip, 2-3 ms)


def _take(values: list[int]) -> int:
    values[0] += 1
    return values[0]


def _taker(state, out, takes: int = TAKES) -> None:
    out.send([state.apply(_take) for _ in range(takes)])


def test_processes_taking_from_one_counter_in_shared_memory_get_every_number_once():
    ctx = mp.get_context("fork")
    state = Local.create(ctx, [0, 7])
    pipes = [ctx.Pipe(duplex=False) for _ in range(4)]
    workers = [ctx.Process(target=_taker, args=(state, send)) for _, send in pipes]
    for w in workers:
        w.start()
    taken = [n for receive, _ in pipes for n in receive.recv()]
    for w in workers:
        w.join()
    assert sorted(taken) == list(range(1, 4 * TAKES + 1))
    assert state.peek(0) == 4 * TAKES and state.peek(1) == 7  # what no operation touched stays


def _cluster_taker(state: OnCluster) -> list[int]:
    """A cluster task: half its numbers taken itself, half through a forked child it serves (as a chain's task)."""
    ctx = mp.get_context("fork")
    served = Served(state, ctx)
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_taker, args=(served.piped, send, TAKES // 3))
    child.start()
    own = []
    got: list[int] | None = None
    while got is None or len(own) < TAKES // 3:
        if served.conn.poll(0.001):
            served.serve()
        elif receive.poll(0):
            got = receive.recv()
        elif len(own) < TAKES // 3:
            own.append(state.apply(_take))
    child.join()
    served.close()
    return own + got


def test_cluster_tasks_and_their_children_taking_from_one_counter_on_the_scheduler_get_every_number_once(client):
    state = OnCluster.create("edgematch-test-shared", [0, 7], client)
    try:
        futures = [client.submit(_cluster_taker, state, pure=False) for _ in range(2)]
        taken = [n for f in futures for n in f.result(timeout=120)]
        assert sorted(taken) == list(range(1, 4 * (TAKES // 3) + 1))
        assert state.values() == [4 * (TAKES // 3), 7]
    finally:
        state.delete(client)
    assert state.values() is None  # dropped: a task still reading learns it at once, without waiting
    with pytest.raises(BackendError, match="shared state is gone"):
        state.apply(_take)
