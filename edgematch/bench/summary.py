"""Figures from stored runs: solved/total, median, max and PAR2 per backend and size class, the virtual best.

Glossary: a run is *solved* when it answered and the answer stood (checked solution, agreeing verdict);
its *time* is the backend call measured in the run's own process (no start-up, no imports). PAR2 scores an
unsolved run at twice the cutoff (the suite's timeout) and reports the mean over runs. The *virtual best*
takes, per instance, the fastest solved run of any single backend (not auto or a portfolio): what a perfect
chooser would get.

Repeats (``--repeat N``): a *cell* is one (instance, backend, task); its N runs collapse into one run for
every figure (:func:`cells`): the run of median PAR2 score, its time the median of the cell's times when all
were solved. :class:`Spread` keeps the min, median and max beside it, and :meth:`Summary.clear_best` names
the fastest backend on an instance only when it beats every other outside the spread. Correctness (wrong
answers, errors, confirmations) is read from every run, never from the collapsed cells.

Best-score runs (task ``best``) end at their time limit by design: their times are no PAR2 figure, so every
figure here leaves them out (``runs``, ``best``, ``headline``, ``by_class``), and :attr:`Summary.scores`
holds theirs (:mod:`edgematch.bench.scores`); ``every`` and the correctness figures keep them.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from edgematch.bench.runner import RunRecord
from edgematch.bench.scores import Scores, summarise_scores
from edgematch.bench.store import Session
from edgematch.solvers.base import base_spec, is_meta

VIRTUAL_BEST = "virtual best"


NOISE_SECONDS = 0.005  # below this a gap between two runs is timer and scheduling noise
NOISE_SHARE = 0.20  # with one run per cell (no spread known), a gap must also be this share of the time


@dataclass(frozen=True)
class Spread:
    """A cell's runs (``--repeat``): how many, how many solved, and the min / median / max time of the solved
    ones (``None`` when none was), the median CPU seconds and the largest peak resident memory (MiB)."""

    runs: int
    solved: int
    min: float | None
    median: float | None
    max: float | None
    cpu: float | None
    rss: float | None

    @property
    def width(self) -> float | None:
        """max - min of the solved runs' times (0 with one run: unknown, not none)."""
        return None if self.min is None or self.max is None else self.max - self.min


@dataclass(frozen=True)
class Stats:
    """Figures over a group of runs (times in seconds; ``None`` when nothing was solved; ``cpu``: the median
    CPU seconds of the solved runs; ``rss``: the largest peak resident memory, MiB)."""

    total: int
    solved: int
    median: float | None
    max: float | None
    par2: float
    total_time: float
    categories: Counter
    cpu: float | None = None
    rss: float | None = None

    @property
    def all_solved(self) -> bool:
        return self.solved == self.total


def score(run: RunRecord, cutoff: float) -> float:
    """The run's PAR2 score: its time when solved, else twice the cutoff."""
    return run.time if run.solved else 2 * cutoff


def stats(runs: list[RunRecord], cutoff: float) -> Stats:
    times = [r.time for r in runs if r.solved]
    cpus = [r.cpu for r in runs if r.solved and r.cpu is not None]
    rss = [r.peak_rss_mb for r in runs if r.peak_rss_mb is not None]
    return Stats(
        total=len(runs), solved=len(times),
        median=statistics.median(times) if times else None, max=max(times) if times else None,
        par2=statistics.fmean(score(r, cutoff) for r in runs) if runs else 0.0,
        total_time=sum(score(r, cutoff) for r in runs), categories=Counter(r.category for r in runs),
        cpu=statistics.median(cpus) if cpus else None, rss=max(rss) if rss else None,
    )


def spread(runs: list[RunRecord]) -> Spread:
    """The min / median / max of a cell's runs (see :class:`Spread`)."""
    times = sorted(r.time for r in runs if r.solved)
    cpus = [r.cpu for r in runs if r.solved and r.cpu is not None]
    rss = [r.peak_rss_mb for r in runs if r.peak_rss_mb is not None]
    return Spread(len(runs), len(times), times[0] if times else None, statistics.median(times) if times else None,
                  times[-1] if times else None, statistics.median(cpus) if cpus else None, max(rss) if rss else None)


def cells(runs: list[RunRecord], cutoff: float) -> tuple[list[RunRecord], dict[tuple[str, str, str], Spread]]:
    """One run per cell (instance, backend, task) in first-stored order, and each cell's spread. A cell with a
    wrong run is that run (a wrong answer is never outvoted); else the run of median PAR2 score (the lower
    middle for an even count), its time the median of the times when every run was solved."""
    groups: dict[tuple[str, str, str], list[RunRecord]] = defaultdict(list)
    for run in runs:
        groups[run.instance, run.backend, run.task].append(run)
    out, spreads = [], {}
    for key, group in groups.items():
        spreads[key] = spread(group)
        wrong = [r for r in group if r.category == "wrong"]
        if wrong:
            out.append(wrong[0])
            continue
        ranked = sorted(group, key=lambda r: (score(r, cutoff), r.repeat))
        pick = ranked[(len(ranked) - 1) // 2]
        if len(group) > 1 and all(r.solved for r in group):
            pick = replace(pick, time=statistics.median(r.time for r in group))
        out.append(pick)
    return out, spreads


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
    single: str            # the best single backend in that class ("a = b" when tied; "none solved")
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
    every: list[RunRecord] = field(default_factory=list)  # every stored run (``runs``: one per cell)
    spreads: dict[tuple[str, str, str], Spread] = field(default_factory=dict)  # (instance, backend, task) -> spread
    scores: Scores | None = None                          # the best-score runs' figures (None: there are none)

    @property
    def to_confirm(self) -> set[tuple[str, str]]:
        """(instance, task) pairs whose answer needs a second opinion: a complete count, or "no solution"."""
        return {(r.instance, r.task) for r in self.every if r.category == "correct" and not is_meta(r.backend)
                and (r.status == "unsat" or r.task == "count" and r.status == "solved")}

    @property
    def unconfirmed(self) -> list[tuple[str, str]]:
        """Those of :attr:`to_confirm` that rest on one backend family's word."""
        return sorted(self.to_confirm - set(self.confirmed))

    @property
    def wrong(self) -> list[RunRecord]:
        return [r for r in self.every if r.category == "wrong"]

    @property
    def errors(self) -> list[RunRecord]:
        return [r for r in self.every if r.category == "error"]

    @property
    def checked(self) -> int:
        """Runs whose solution (or best-score board) went through the checker."""
        return sum(1 for r in self.every if r.termination == "done"
                   and (r.score is not None if r.task == "best" else r.status == "solved"))

    @property
    def missing(self) -> int:
        return max(0, self.session.planned - len(self.every))

    def against(self) -> list[Against]:
        """For each meta backend that ran every instance: its total against the virtual best's, and the
        size class where it did worst against the best single backend of that class (one it could choose: a
        backend named with options, ``native@fc=on``, is no such choice)."""
        out = []
        singles = [b for b in self.backends if not is_meta(b) and base_spec(b) == b]
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
                    single_total = min(total for total, _ in rivals)
                    tied = [b for total, b in rivals if total == single_total]
                    solved = any(self.by_class[family, size, b].solved for b in tied)
                    single = " = ".join(tied) if solved else "none solved"  # never a tie broken by name
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

    def spread_of(self, instance: str, backend: str) -> Spread | None:
        run = self.run(instance, backend)
        return None if run is None else self.spreads.get((instance, backend, run.task))

    def clear_best(self, instance: str) -> str | None:
        """The backend fastest on ``instance`` by more than noise, else None (nothing is bolded): its slowest
        run beats every other backend's fastest (unsolved counts as never), by more than ``NOISE_SECONDS``
        and, where a backend has a single run (its spread unknown), by ``NOISE_SHARE`` of its time too."""
        solved = []
        for backend in self.backends:
            run, sp = self.run(instance, backend), self.spread_of(instance, backend)
            if run is not None and run.solved:
                low, high = (sp.min, sp.max) if sp and sp.min is not None else (run.time, run.time)
                solved.append((run.time, backend, low, high, sp.runs if sp else 1))
        if not solved:
            return None
        solved.sort()
        _, best, _, high, runs = solved[0]
        for _, _, low, _, other_runs in solved[1:]:
            gap = low - high
            if gap <= NOISE_SECONDS or (min(runs, other_runs) < 2 and gap <= NOISE_SHARE * high):
                return None
        return best

    @property
    def repeats(self) -> int:
        """The most runs any cell has (1 without ``--repeat``)."""
        return max((sp.runs for sp in self.spreads.values()), default=1)

    def __post_init__(self) -> None:
        self.every = self.every or list(self.runs)
        self._index = {(r.instance, r.backend): r for r in (*self.runs, *self.best)}


def summarise(session: Session, every: list[RunRecord]) -> Summary:
    """The figures of a session from its stored runs (repeats collapsed into cells, see :func:`cells`)."""
    cutoff = session.suite.timeout
    runs, spreads = cells([r for r in every if r.task != "best"], cutoff)
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

    scores = summarise_scores(every, list(session.suite.backends), families) if any(
        r.task == "best" for r in every) else None
    return Summary(session, runs, cutoff, backends, headline, fastest, classes, by_class, best, confirmations(every),
                   every, spreads, scores)
