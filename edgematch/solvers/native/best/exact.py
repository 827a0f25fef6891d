"""The first-solution search's share of a best-score run: a board with every seam fitting, when one is in reach,
found as fast as ``edgematch solve`` finds it instead of seam by seam."""

from __future__ import annotations

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.solvers.native.tables import (
    Tables,
)

FIRST_UNIT = 500_000  # the first-solution search's restart unit (native's default)


class ExactShare:
    """The first-solution search (native's restarts, in its own tables) given a share of the time between
    the restarts of the best-score search (a fifth for the first 30 s, a twentieth after): a board with a
    full solution in reach is found as fast as ``edgematch solve`` finds it, instead of seam by seam."""

    SHARE = 0.2
    EARLY = 30.0  # seconds of the run with the full share; after them LATE_SHARE (a full solution in reach is
    LATE_SHARE = 0.05  # found early by this search, which on Eternity II-like boards never finds one later)
    MIN_SLICE = 0.02

    def __init__(self, puzzle: Puzzle, seed: int):
        self.puzzle, self.seed = puzzle, seed
        self.tables: Tables | None = None
        self.spent = 0.0
        self.calls = 0
        self.exhausted = False

    def budget(self, elapsed: float) -> float:
        """Seconds the share may have spent by ``elapsed`` seconds into the run."""
        return self.SHARE * min(elapsed, self.EARLY) + self.LATE_SHARE * max(0.0, elapsed - self.EARLY)

    def due(self, elapsed: float) -> bool:
        """Whether the share is behind by at least a slice's worth."""
        return self.budget(elapsed) - self.spent >= self.MIN_SLICE

    def run(self, elapsed: float, deadline: float | None) -> Solution | None:
        """Search for its share of ``elapsed`` seconds (at least 20 ms), never past ``deadline``."""
        from edgematch.solvers.native.search import drive_restarts
        from edgematch.solvers.native.tables import BuildTimedOut, build_tables
        from edgematch.solvers.native.tables import decode as decode_first

        slice_s = max(self.MIN_SLICE, self.budget(elapsed) - self.spent)
        if deadline is not None:
            slice_s = min(slice_s, deadline - clock.now())
        if slice_s <= 0:
            return None
        t = clock.now()
        if self.tables is None:  # its tables stop at the deadline too (a 40x40's take a fifth of a second)
            try:
                self.tables = build_tables(self.puzzle, "auto", deadline=deadline)
            except BuildTimedOut:
                self.spent += clock.now() - t
                return None
        self.calls += 1
        until = t + slice_s if deadline is None else min(t + slice_s, deadline)
        outcome, _, found_in = drive_restarts(self.tables, FIRST_UNIT, self.seed + self.calls, until)
        self.spent += clock.now() - t
        if outcome.stopped == "interrupted":  # drive_restarts took the Ctrl-C: pass it on to the best search
            raise KeyboardInterrupt
        self.exhausted = outcome.finished and not outcome.found  # no full solution exists: stop asking
        return decode_first(self.puzzle, found_in, outcome.found[0]) if outcome.found else None

