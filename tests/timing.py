"""Time-limit assertions that hold on a busy machine.

A call promises to end within its limit plus a small overshoot (stopping, collecting, killing children).
The overshoot is CPU work, so where this process shares its core with others each of its seconds takes
longer on the wall clock: the tests scale the overshoot by the contention measured around the call, never
the limit itself (a call that ignores its limit still fails by the limit's whole length).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

MOST = 8.0  # contention counted at most (a machine busier than this makes no timing promise worth testing)


def contention(cpu_seconds: float = 0.03) -> float:
    """How many runnable threads share this one's core now: wall seconds per CPU second of a short busy
    loop (1.0 on an idle core, about 2 with one CPU-bound process beside it), between 1 and :data:`MOST`."""
    wall, cpu = time.perf_counter(), time.thread_time()
    while time.thread_time() - cpu < cpu_seconds:
        pass
    return min(MOST, max(1.0, (time.perf_counter() - wall) / cpu_seconds))


@dataclass
class Timed:
    """The wall seconds a block took and the contention seen just before and after it (the larger)."""

    took: float = 0.0
    busy: float = 1.0

    def within(self, limit: float, overshoot: float) -> bool:
        """Whether the block ended within ``limit`` plus ``overshoot`` stretched by the contention."""
        return self.took < limit + overshoot * self.busy

    def __str__(self) -> str:
        return f"took {self.took:.3f} s at contention {self.busy:.1f}"


@contextmanager
def timed() -> Iterator[Timed]:
    """Time a block on the monotonic clock, with the contention around it (see :class:`Timed`)."""
    t = Timed(busy=contention())
    began = time.monotonic()
    try:
        yield t
    finally:
        t.took = time.monotonic() - began
        t.busy = max(t.busy, contention())
