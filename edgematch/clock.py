"""The one clock edgematch keeps time by, and the deadline every layer passes down.

A time limit is given in seconds (``--time-limit``, ``time_limit=``); the call that takes it turns it into a
*deadline* once, an instant on :func:`now`'s clock (or None: no limit), and hands that down: to the drivers,
to child processes forked on this machine (the clock is system-wide, so a child reads the same instant) and to
the compiled loops' drivers, which look at it between bounded slices. Durations (timings, rates) are measured on
the same clock. Only a deadline sent to another machine (a Dask task) travels as a wall-clock instant
(:func:`to_wall`, :func:`from_wall`): machines' monotonic clocks share no origin, their wall clocks are assumed
synchronised (NTP) to well under a second.
"""

from __future__ import annotations

import time

now = time.monotonic  # seconds on a clock that never jumps (a wall clock's NTP steps would shorten or stretch limits)


def deadline(seconds: float | None, start: float | None = None) -> float | None:
    """The instant ``seconds`` after ``start`` (default: now), or None for no limit."""
    if seconds is None:
        return None
    return (now() if start is None else start) + seconds


def left(until: float | None) -> float | None:
    """Seconds from now to the deadline ``until`` (never below 0), or None for no limit."""
    return None if until is None else max(0.0, until - now())


def passed(until: float | None) -> bool:
    """Whether the deadline ``until`` has come (never, without one)."""
    return until is not None and now() >= until


def to_wall(until: float | None, ahead: float = 0.0) -> float | None:
    """The deadline as a wall-clock instant (``time.time()``), ``ahead`` seconds earlier, to send to another
    machine."""
    return None if until is None else time.time() + (until - now()) - ahead


def from_wall(wall: float | None) -> float | None:
    """A wall-clock deadline another machine sent, on this machine's clock."""
    return None if wall is None else now() + (wall - time.time())
