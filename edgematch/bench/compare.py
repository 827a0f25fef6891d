"""Comparing two stored sessions run by run: what got slower or faster by more than a factor, and what
changed category (newly solved, no longer solved, now wrong).

Runs are matched by the puzzle they solved, not its name: (fingerprint, backend, task). Two sessions can
hold different puzzles under one instance name (another generator version, an edited file); those pairs
are never compared: :attr:`Comparison.different` lists them, and the command refuses to report ratios
while there are any unless asked to set them apart. A run stored before fingerprints (schema 1) is matched
by name and counted in :attr:`Comparison.by_name_only`. With ``--repeat``, each cell is its median run
(:func:`edgematch.bench.summary.cells`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from edgematch.bench.runner import RunRecord
from edgematch.bench.summary import cells

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
class Different:
    """One instance name that names different puzzles in the two sessions."""

    instance: str
    before: str  # fingerprints
    after: str


@dataclass(frozen=True)
class Comparison:
    changes: list[Change]
    matched: int
    only_before: int
    only_after: int
    different: list[Different] = field(default_factory=list)
    by_name_only: int = 0  # matched runs whose puzzle identity is unknown (stored before fingerprints)


def compare(before: list[RunRecord], after: list[RunRecord], factor: float = 1.1,
            min_time: float = MIN_TIME, cutoff: float = math.inf) -> Comparison:
    """Runs that moved by more than ``factor`` (either way) or changed category, biggest moves first; runs
    whose puzzles differ under one name are listed apart, never compared."""
    was, now = _prints(before), _prints(after)
    different = [Different(name, was[name], now[name]) for name in sorted(was.keys() & now.keys())
                 if was[name] and now[name] and was[name] != now[name]]
    apart = {d.instance for d in different}
    old = {(r.instance, r.backend, r.task): r for r in cells(before, cutoff)[0] if r.instance not in apart}
    new = {(r.instance, r.backend, r.task): r for r in cells(after, cutoff)[0] if r.instance not in apart}
    changes = []
    matched = old.keys() & new.keys()
    by_name = sum(1 for key in matched if not old[key].fingerprint or not new[key].fingerprint)
    for key in matched:
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
    return Comparison(changes, len(matched), len(old.keys() - new.keys()), len(new.keys() - old.keys()), different,
                      by_name)


def _prints(runs: list[RunRecord]) -> dict[str, str]:
    """Instance name -> its puzzle's fingerprint in these runs ("" when unknown)."""
    found: dict[str, str] = {}
    for run in runs:
        found[run.instance] = found.get(run.instance) or run.fingerprint
    return found
