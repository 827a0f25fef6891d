"""Figures from stored runs: solved/total, median, max and PAR2 per backend and size class, the virtual best.

Glossary: a run is *solved* when it answered and the answer stood (checked solution, agreeing verdict);
its *time* is the backend call measured in the run's own process (no start-up, no imports). PAR2 scores an
unsolved run at twice the cutoff (the suite's timeout) and reports the mean over runs. The *virtual best*
takes, per instance, the fastest solved run of any single backend (not auto or a portfolio): what a perfect
chooser would get.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from edgematch.bench.runner import RunRecord
from edgematch.bench.store import Session
from edgematch.solvers.base import is_meta

VIRTUAL_BEST = "virtual best"


@dataclass(frozen=True)
class Stats:
    """Figures over a group of runs (times in seconds; ``None`` when nothing was solved)."""

    total: int
    solved: int
    median: float | None
    max: float | None
    par2: float
    total_time: float
    categories: Counter

    @property
    def all_solved(self) -> bool:
        return self.solved == self.total


def score(run: RunRecord, cutoff: float) -> float:
    """The run's PAR2 score: its time when solved, else twice the cutoff."""
    return run.time if run.solved else 2 * cutoff


def stats(runs: list[RunRecord], cutoff: float) -> Stats:
    times = [r.time for r in runs if r.solved]
    return Stats(
        total=len(runs), solved=len(times),
        median=statistics.median(times) if times else None, max=max(times) if times else None,
        par2=statistics.fmean(score(r, cutoff) for r in runs) if runs else 0.0,
        total_time=sum(score(r, cutoff) for r in runs), categories=Counter(r.category for r in runs),
    )


def virtual_best(runs: list[RunRecord]) -> list[RunRecord]:
    """Per (instance, task), the fastest solved run of a single backend renamed ``virtual best`` (or an
    unsolved stand-in)."""
    groups: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for run in runs:
        if not is_meta(run.backend):
            groups[run.instance, run.task].append(run)
    best = []
    for group in groups.values():
        solved = [r for r in group if r.solved]
        pick = min(solved, key=lambda r: r.time) if solved else group[0]
        category = pick.category if solved else "timeout"
        best.append(replace(pick, backend=VIRTUAL_BEST, category=category, message=f"from {pick.backend}"))
    return best


@dataclass(frozen=True)
class FamilyRatio:
    """A chooser on one family: PAR2 totals (its own, the virtual best's), its worst instance, and how often
    it left unsolved what some backend solved within a tenth of the cutoff."""

    backend: str
    family: str
    instances: int
    total: float
    best_total: float
    worst: float
    worst_instance: str
    missed: int

    @property
    def ratio(self) -> float:
        return self.total / self.best_total if self.best_total else math.inf


FLOOR = 0.01  # seconds: per-instance ratios compare times of at least this


def family_ratio(backend: str, family: str, rows: list[tuple[str, float, float]], cutoff: float) -> FamilyRatio:
    """``backend`` on one family from (instance, its PAR2 score, the virtual best's) rows: totals, the worst
    per-instance ratio (times floored at ``FLOOR``: below it ratios measure noise), and the instances it
    left unsolved that some backend solved within a tenth of the cutoff."""
    worst, where = max((max(mine, FLOOR) / max(best, FLOOR), key) for key, mine, best in rows)
    return FamilyRatio(backend, family, len(rows), sum(mine for _, mine, _ in rows), sum(b for _, _, b in rows),
                       worst, where, sum(mine >= 2 * cutoff and best <= cutoff / 10 for _, mine, best in rows))


@dataclass(frozen=True)
class Against:
    """How a chooser (auto, a portfolio) did against the alternatives, in PAR2 seconds summed over runs:
    its total against the virtual best's, and its worst size class against the best single backend there."""

    backend: str
    total: float
    best_total: float
    worst_class: tuple[str, str]
    worst_total: float
    single: str            # the best single backend in that class
    single_total: float

    @property
    def ratio(self) -> float:
        return self.total / self.best_total if self.best_total else math.inf

    @property
    def worst_ratio(self) -> float:
        return self.worst_total / self.single_total if self.single_total else math.inf


@dataclass
class Summary:
    """Everything a report shows, computed once from a session's stored runs."""

    session: Session
    runs: list[RunRecord]
    cutoff: float
    backends: list[str]                                  # in plan order, then any others stored
    headline: dict[str, Stats]                           # per backend, plus the virtual best
    fastest: Counter                                     # backend -> instances where it was fastest
    classes: list[tuple[str, str]]                       # (family, size), families in plan order, small first
    by_class: dict[tuple[str, str, str], Stats]          # (family, size, backend) -> stats
    best: list[RunRecord]                                # the virtual best runs
    confirmed: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (instance, task) -> families agreeing

    @property
    def to_confirm(self) -> set[tuple[str, str]]:
        """(instance, task) pairs whose answer needs a second opinion: a complete count, or "no solution"."""
        return {(r.instance, r.task) for r in self.runs if r.category == "correct" and not is_meta(r.backend)
                and (r.status == "unsat" or r.task == "count" and r.status == "solved")}

    @property
    def unconfirmed(self) -> list[tuple[str, str]]:
        """Those of :attr:`to_confirm` that rest on one backend family's word."""
        return sorted(self.to_confirm - set(self.confirmed))

    @property
    def wrong(self) -> list[RunRecord]:
        return [r for r in self.runs if r.category == "wrong"]

    @property
    def errors(self) -> list[RunRecord]:
        return [r for r in self.runs if r.category == "error"]

    @property
    def checked(self) -> int:
        """Runs whose solution went through the checker."""
        return sum(1 for r in self.runs if r.status == "solved" and r.termination == "done")

    @property
    def missing(self) -> int:
        return max(0, self.session.planned - len(self.runs))

    def against(self) -> list[Against]:
        """For each meta backend that ran every instance: its total against the virtual best's, and the
        size class where it did worst against the best single backend of that class."""
        out = []
        singles = [b for b in self.backends if not is_meta(b)]
        everything = self.headline.get(VIRTUAL_BEST)
        for backend in (b for b in self.backends if is_meta(b)):
            mine = self.headline[backend]
            if not singles or everything is None or mine.total != everything.total:
                continue
            ratios = []
            for family, size in self.classes:
                st = self.by_class.get((family, size, backend))
                rivals = [(self.by_class[family, size, b].total_time, b) for b in singles
                          if (family, size, b) in self.by_class]
                if st and rivals:
                    single_total, single = min(rivals)
                    ratio = st.total_time / single_total if single_total else math.inf
                    ratios.append((ratio, (family, size), st.total_time, single, single_total))
            _, where, total, single, single_total = max(ratios)
            out.append(Against(backend, mine.total_time, everything.total_time, where, total, single, single_total))
        return out

    def per_family(self) -> list[FamilyRatio]:
        """For each meta backend, per family: its PAR2 total against the virtual best's over the family's
        instances, and its worst instance (per-instance ratio, times floored at ``FLOOR`` seconds: below
        that, ratios measure noise). Judge a chooser by the worst family, not the mean."""
        out = []
        cutoff = self.session.suite.timeout
        best = {r.instance: score(r, cutoff) for r in self.best}
        for backend in (b for b in self.backends if is_meta(b)):
            rows: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
            for run in self.runs:
                if run.backend == backend and run.instance in best:
                    rows[run.family].append((run.instance, score(run, cutoff), best[run.instance]))
            out += [family_ratio(backend, family, scored, cutoff) for family, scored in rows.items()]
        return out

    def instances(self) -> list[str]:
        """Instance keys, smallest board first."""
        order = {key: i for i, key in enumerate(dict.fromkeys(r.instance for r in self.runs))}
        tiles = {r.instance: r.tiles for r in self.runs}
        return sorted(order, key=lambda k: (tiles[k], order[k]))

    def run(self, instance: str, backend: str) -> RunRecord | None:
        return self._index.get((instance, backend))

    def __post_init__(self) -> None:
        self._index = {(r.instance, r.backend): r for r in (*self.runs, *self.best)}


def summarise(session: Session, runs: list[RunRecord]) -> Summary:
    cutoff = session.suite.timeout
    ran = {r.backend for r in runs}  # a backend with no stored run yet (a stopped session) has no figures
    backends = [b for b in dict.fromkeys([*session.suite.backends, *(r.backend for r in runs)]) if b in ran]
    best = virtual_best(runs)
    headline = {b: stats([r for r in runs if r.backend == b], cutoff) for b in backends}
    if best:
        headline[VIRTUAL_BEST] = stats(best, cutoff)
    fastest = Counter(r.message.removeprefix("from ") for r in best if r.solved)
    families = list(dict.fromkeys(i.family for i in session.suite.instances))
    families += [f for f in dict.fromkeys(r.family for r in runs) if f not in families]
    groups: dict[tuple[str, str, str], list[RunRecord]] = defaultdict(list)
    tiles: dict[tuple[str, str], int] = {}
    for run in (*runs, *best):
        groups[run.family, run.size, run.backend].append(run)
        tiles[run.family, run.size] = run.tiles
    classes = sorted(tiles, key=lambda c: (families.index(c[0]), tiles[c]))
    by_class = {key: stats(group, cutoff) for key, group in groups.items()}
    from edgematch.bench.agreement import confirmations

    return Summary(session, runs, cutoff, backends, headline, fastest, classes, by_class, best, confirmations(runs))
