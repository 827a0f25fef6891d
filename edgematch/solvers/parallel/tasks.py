"""Work on a Dask cluster: one way to submit tasks, collect them as they end and stop them, for every user.

A :class:`Tasks` is one call's tasks on one client: each task is submitted under a *label* the caller chooses
(a part's index, a chain's number, a bench run), with a key unique to the call, so two calls on one cluster never
mix. :meth:`Tasks.collect` hands each finished task's result to the caller as it comes, in one loop that also
keeps the caller's deadline and progress line; the call's stop ``Event`` (:meth:`Tasks.stop`, polled by running
tasks) and :meth:`Tasks.cancel` end the rest.

The rule for a task lost, the same for every user (and the rule :class:`~edgematch.solvers.parallel.processes.Dealer`
keeps on local processes): a worker that dies mid-task makes the scheduler run the task again elsewhere (Dask's
``distributed.scheduler.allowed-failures``, 3 by default), a task that raises runs once more (:data:`RETRIES`:
a transient failure deserves one more try and a bug fails the same way twice); a task that fails for good goes
to the caller's ``lost`` and the other tasks go on. What a lost task had reported before stays the caller's;
the caller says in its answer what was never done (a count is then a lower bound, a proof is not one).
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from edgematch import clock
from edgematch.solvers.base import TIME_LIMIT
from edgematch.solvers.parallel.cluster import distributed

RETRIES = 1  # a task that raises runs once more (a killed worker's tasks are rescheduled by the scheduler)
POLL_SECONDS = 0.1  # how often :meth:`Tasks.collect` looks for finished tasks (and refreshes the caller's line)

OnResult = Callable[[Hashable, Any], str]  # (label, result) -> "" to go on, or the reason to stop collecting
OnLost = Callable[[Hashable, BaseException | None], None]  # (label, the task's exception when it raised)


class Tasks:
    """One call's tasks on ``client``, named ``edgematch-KIND-RUN-LABEL`` (see the module docstring)."""

    def __init__(self, client: Any, kind: str):
        self.client = client
        self.dd = distributed()
        self.run = f"edgematch-{kind}-{uuid.uuid4().hex[:12]}"
        self.pending: dict[str, tuple[Hashable, Any]] = {}  # key -> (label, future), until collected
        self._done = self.dd.as_completed()
        self._stop: Any = None

    def name(self, what: str) -> str:
        """A name unique to this call, for a Dask ``Event``, ``Queue`` or ``Variable`` its tasks share."""
        return f"{self.run}-{what}"

    @property
    def stop_name(self) -> str:
        """The name of the stop event running tasks poll (:meth:`stop` sets it)."""
        if self._stop is None:
            self._stop = self.dd.Event(self.name("stop"), client=self.client)
        return self._stop.name

    def submit(self, label: Hashable, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``function(*args, **kwargs)`` as a task standing for ``label``; its future."""
        future = self.client.submit(function, *args, key=f"{self.run}-{label}", pure=False, retries=RETRIES,
                                    **kwargs)
        self._track(label, future)
        return future

    def map(self, labels: list[Hashable], function: Callable[..., Any], firsts: Iterable[Any], **kwargs: Any
            ) -> None:
        """``function(first, **kwargs)`` for each of ``firsts`` as one task per label, sent in one message
        (submitting one by one takes the client about 1 ms each). Keyword values go once, not per task."""
        futures = self.client.map(function, list(firsts), key=[f"{self.run}-{label}" for label in labels],
                                  pure=False, retries=RETRIES, **kwargs)
        for label, future in zip(labels, futures, strict=True):
            self._track(label, future)

    def _track(self, label: Hashable, future: Any) -> None:
        self.pending[future.key] = (label, future)
        self._done.add(future)

    def collect(self, on_result: OnResult, lost: OnLost, until: float | None = None,
                refresh: Callable[[], None] | None = None, poll: float = POLL_SECONDS) -> str:
        """Hand each task's result to ``on_result`` as it ends (a task lost for good to ``lost``), until none is
        pending (``""``), ``on_result`` returns a reason to stop (returned) or ``until`` (``clock.now()``)
        passes (:data:`~edgematch.solvers.base.TIME_LIMIT`); ``refresh`` after each round. A task
        is handed on once, however often Dask delivers it; a cancelled one is dropped."""
        while self.pending:
            now = clock.now()
            if until is not None and now >= until:
                return TIME_LIMIT
            ready = self._done.next_batch(block=False) if self._done.has_ready() else []
            if not ready:
                time.sleep(poll if until is None else max(0.0, min(poll, until - now)))
            for future in ready:
                got = self.pending.pop(future.key, None)
                if got is None or future.status == "cancelled":
                    continue
                label = got[0]
                if future.status != "finished":
                    lost(label, future.exception() if future.status == "error" else None)
                    continue
                reason = on_result(label, future.result())
                if reason:
                    return reason
            if refresh is not None:
                refresh()
        return ""

    def stop(self) -> bool:
        """Set the stop event (running tasks see it at their next poll and report); False when the scheduler
        could not be told (the tasks' own deadline still holds)."""
        try:
            self.dd.Event(self.stop_name, client=self.client).set()
        except Exception:  # noqa: BLE001
            return False
        return True

    def set_aside_queued(self) -> list[Hashable]:
        """Once stopped, drop the tasks no worker has started from the pending ones (each would only start, see
        the stop and report nothing, one after another: about 0.3 s for 92 on 2 workers) and cancel them; their
        labels. A scheduler that cannot be asked keeps every task pending."""
        try:
            busy = {key for keys in self.client.processing().values() for key in keys}
        except Exception:  # noqa: BLE001
            return []
        queued = {key: got for key, got in self.pending.items() if key not in busy}
        for key in queued:
            del self.pending[key]
        self._cancel([future for _, future in queued.values()])
        return [label for label, _ in queued.values()]

    def cancel(self, force: bool = False) -> list[Hashable]:
        """Cancel every task still pending (one round trip; running ones stop at the stop event or their
        deadline: a running task cannot be cancelled); their labels."""
        left = list(self.pending.values())
        self.pending.clear()
        self._cancel([future for _, future in left], force)
        return [label for label, _ in left]

    def _cancel(self, futures: list[Any], force: bool = False) -> None:
        if futures:
            with contextlib.suppress(Exception):
                self.client.cancel(futures, force=force)

