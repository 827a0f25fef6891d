"""Figures of the best-score task (``best``) from stored runs: score per backend and size, who had the best board.

A best run ends at its time limit with the best board it found (or proves an optimum earlier), so its time says
nothing a PAR2 figure could compare; what counts is the checked score, its share of the maximum (the inner seams),
and how soon it was reached. Every run counts (repeats are more samples, not collapsed); a run without a board,
or a wrong one, has no score and is counted apart.

A score means something only beside the hints (clue pieces) its board kept: the community compares scores within one
*clue regime* ("5 hints", "1 hint", "no hints"). :func:`clue_regimes` reads it from the puzzles the runs were
made on (the session's stored instances, regenerated or read, and checked against each run's fingerprint), not
from a family's ``hint = true``: a folder's puzzle files have no such setting, and a file may hold any number.
Every correct run's board passed the checker, hints included, so it kept every hint its puzzle has.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from edgematch.bench.runner import RunRecord
from edgematch.bench.suite import Instance
from edgematch.errors import EdgematchError
from edgematch.solvers.policy import regime


@dataclass(frozen=True)
class ScoreStats:
    """Scores of one backend's best runs in one size class (or overall): runs, runs with a checked board,
    mean / min / max score, the maximum, runs proven optimal, the median seconds to reach the final score, and
    the runs that ended in error (counted apart: no board, and no excuse of the time limit)."""

    runs: int
    boards: int
    mean: float | None
    min: int | None
    max: int | None
    max_score: int | None
    proven: int
    reached: float | None
    errors: int = 0

    @property
    def share(self) -> float | None:
        """The mean score as a share of the maximum."""
        return None if self.mean is None or not self.max_score else self.mean / self.max_score


def max_score_of(run: RunRecord) -> int | None:
    """The run's maximum score: as stored with its board, else the inner seams of its board size
    (``w*(h-1) + h*(w-1)``, what every board of that size is scored against): a run killed before its first
    board stored none, yet its maximum is known. None when neither is known (no size)."""
    if run.max_score:
        return run.max_score
    width, _, height = run.size.partition("x")
    if not (width.isascii() and width.isdigit() and height.isascii() and height.isdigit()):
        return None
    w, h = int(width), int(height)
    return w * (h - 1) + h * (w - 1)


def score_stats(runs: list[RunRecord]) -> ScoreStats:
    scored = [r for r in runs if r.category == "correct" and r.score is not None]
    scores = [r.score for r in scored if r.score is not None]
    reached = [t for r in scored if (t := r.reached) is not None]
    tops = {top for r in runs if (top := max_score_of(r))}
    return ScoreStats(len(runs), len(scored), statistics.fmean(scores) if scores else None,
                      min(scores, default=None), max(scores, default=None), max(tops) if len(tops) == 1 else None,
                      sum(1 for r in scored if r.status == "solved"), statistics.median(reached) if reached else None,
                      sum(1 for r in runs if r.category == "error"))


@dataclass(frozen=True)
class Winner:
    """One instance: the best checked score any backend found, the maximum, and who found it (ties share)."""

    instance: str
    score: int | None
    max_score: int | None
    backends: tuple[str, ...]
    proven: bool


@dataclass
class Scores:
    """The best-score figures of a session's ``best`` runs."""

    runs: list[RunRecord]
    backends: list[str]
    classes: list[tuple[str, str]]                          # (family, size), plan order, small first
    by_class: dict[tuple[str, str, str], ScoreStats]        # (family, size, backend) -> scores
    overall: dict[str, ScoreStats]                          # backend -> scores over every best run
    winners: list[Winner]
    wins: Counter = field(default_factory=Counter)          # backend -> instances where it had the best board

    def __bool__(self) -> bool:
        return bool(self.runs)


def summarise_scores(runs: list[RunRecord], backends: list[str], families: list[str]) -> Scores:
    """The figures of the ``best`` runs among ``runs`` (``backends`` and ``families`` give the order)."""
    mine = [r for r in runs if r.task == "best"]
    order = [b for b in dict.fromkeys([*backends, *(r.backend for r in mine)]) if any(r.backend == b for r in mine)]
    families = [*families, *(f for f in dict.fromkeys(r.family for r in mine) if f not in families)]
    groups: dict[tuple[str, str, str], list[RunRecord]] = defaultdict(list)
    tiles: dict[tuple[str, str], int] = {}
    instances: dict[str, list[RunRecord]] = defaultdict(list)
    for run in mine:
        groups[run.family, run.size, run.backend].append(run)
        tiles[run.family, run.size] = run.tiles
        instances[run.instance].append(run)
    classes = sorted(tiles, key=lambda c: (families.index(c[0]), tiles[c], c[1]))
    winners, wins = [], Counter()
    for key, group in sorted(instances.items(), key=lambda item: (item[1][0].tiles, item[0])):
        scored = [r for r in group if r.category == "correct" and r.score is not None]
        top = max((r.score for r in scored if r.score is not None), default=None)
        who = tuple(dict.fromkeys(r.backend for r in scored if r.score == top))
        wins.update(who)
        maximum = next((m for r in group if (m := max_score_of(r))), None)
        winners.append(Winner(key, top, maximum, who,
                              any(r.status == "solved" and r.score == top for r in scored)))
    return Scores(mine, order, classes, {k: score_stats(g) for k, g in groups.items()},
                  {b: score_stats([r for r in mine if r.backend == b]) for b in order}, winners, wins)


# why a best run ended without a checked board, in the order reports name the causes
NO_BOARD_CAUSES = {"killed": "killed at the time limit before reporting a board",
                   "memory": "killed over the memory limit", "error": "ended in error",
                   "wrong": "returned a board the checker rejected", "none": "found no board within the time"}


def no_board_cause(run: RunRecord) -> str | None:
    """Why ``run`` has no checked board (a key of :data:`NO_BOARD_CAUSES`), None when it has one."""
    if run.category == "correct" and run.score is not None:
        return None
    if run.category == "wrong":
        return "wrong"
    if run.termination == "timeout":
        return "killed"
    if run.termination == "memory":
        return "memory"
    if run.category == "error" or run.termination != "done":
        return "error"
    return "none"


@dataclass(frozen=True)
class Boardless:
    """One backend's runs of one size class that ended without a checked board, counted by cause."""

    family: str
    size: str
    backend: str
    runs: int  # the backend's runs in the class
    causes: dict[str, int]  # NO_BOARD_CAUSES key -> runs

    @property
    def missing(self) -> int:
        return sum(self.causes.values())


def boardless(scores: Scores) -> list[Boardless]:
    """Per size class and backend (report order), the runs without a board and why: a row of 0 boards in
    the scores table must say whether the search found none or was never given the chance (killed, failed)."""
    found = []
    for family, size in scores.classes:
        for backend in scores.backends:
            runs = [r for r in scores.runs if (r.family, r.size, r.backend) == (family, size, backend)]
            causes = Counter(c for r in runs if (c := no_board_cause(r)) is not None)
            if causes:
                found.append(Boardless(family, size, backend, len(runs),
                                       {k: causes[k] for k in NO_BOARD_CAUSES if causes[k]}))
    return found


UNKNOWN_REGIME = regime(None)  # the puzzle is gone or changed since its runs (its fingerprint differs)


_hints_seen: dict[tuple[Instance, str], int | None] = {}


def puzzle_hints(instance: Instance, fingerprint: str = "") -> int | None:
    """How many hints the instance's puzzle fixes, None when it cannot be read or is not the puzzle its runs
    were made on (``fingerprint``, when the run recorded one, differs). A generated puzzle's answer is kept; a
    file is read anew, since it may change."""
    key = (instance, fingerprint)
    if key in _hints_seen:
        return _hints_seen[key]
    try:
        puzzle = instance.puzzle()
        hints = len(puzzle.hints) if not fingerprint or instance.fingerprint() == fingerprint else None
    except (EdgematchError, OSError):
        hints = None
    if instance.spec is not None:
        _hints_seen[key] = hints
    return hints


def clue_regimes(runs: list[RunRecord], instances: tuple[Instance, ...] | list[Instance]) -> dict[str, str]:
    """The clue regime of each family's best runs and of each of its size classes (keys ``family`` and
    ``family/size``): one regime's words, or ``mixed: 5 hints (2 boards), no hints (1 board)`` when its
    puzzles differ (their scores should then not be compared as one)."""
    by_key = {i.key: i for i in instances}
    boards: dict[str, dict[str, int | None]] = defaultdict(dict)  # family or family/size -> instance -> hints
    for run in runs:
        if run.task != "best":
            continue
        instance = by_key.get(run.instance)
        hints = puzzle_hints(instance, run.fingerprint) if instance is not None else None
        for key in (run.family, f"{run.family}/{run.size}"):
            boards[key][run.instance] = hints if boards[key].get(run.instance, hints) == hints else None
    out = {}
    for key, seen in boards.items():
        counts = Counter(seen.values())
        if len(counts) == 1:
            out[key] = regime(next(iter(counts)))
        else:
            ranked = sorted(counts.items(), key=lambda c: (c[0] is None, -(c[0] or 0)))
            out[key] = "mixed: " + ", ".join(f"{regime(h)} ({n} board{'s' if n != 1 else ''})" for h, n in ranked)
    return out
