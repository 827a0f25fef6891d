"""Comparing two stored sessions run by run: what got slower or faster by more than a factor, and what
changed category (newly solved, no longer solved, now wrong). Runs are matched by (instance, backend, task).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from edgematch.bench.runner import RunRecord

# below this many seconds in both sessions, a ratio is noise (process scheduling, timer resolution)
MIN_TIME = 0.01


@dataclass(frozen=True)
class Change:
    instance: str
    backend: str
    task: str
    kind: str  # slower | faster | solved now | unsolved now | category
    before: RunRecord
    after: RunRecord

    @property
    def ratio(self) -> float | None:
        """After over before, when both were solved."""
        if self.before.solved and self.after.solved and self.before.time > 0:
            return self.after.time / self.before.time
        return None


@dataclass(frozen=True)
class Comparison:
    changes: list[Change]
    matched: int
    only_before: int
    only_after: int


def compare(before: list[RunRecord], after: list[RunRecord], factor: float = 1.1,
            min_time: float = MIN_TIME) -> Comparison:
    """Runs that moved by more than ``factor`` (either way) or changed category, biggest moves first."""
    old = {(r.instance, r.backend, r.task): r for r in before}
    new = {(r.instance, r.backend, r.task): r for r in after}
    changes = []
    for key in old.keys() & new.keys():
        a, b = old[key], new[key]
        if a.category != b.category:
            kind = ("solved now" if b.solved and not a.solved else "unsolved now" if a.solved and not b.solved
                    else "category")
            changes.append(Change(*key, kind, a, b))
        elif a.solved and b.solved and max(a.time, b.time) >= min_time and min(a.time, b.time) > 0:
            ratio = b.time / a.time
            if ratio > factor or ratio < 1 / factor:
                changes.append(Change(*key, "slower" if ratio > 1 else "faster", a, b))
    changes.sort(key=lambda c: (c.ratio is not None, -abs(math.log(c.ratio)) if c.ratio else 0, c.instance, c.backend))
    return Comparison(changes, len(old.keys() & new.keys()), len(old.keys() - new.keys()), len(new.keys() - old.keys()))

