"""The anytime driver of native ``best`` on boards above 25 free cells (issue 23): beams, then repair.

:func:`run_beam` runs successive beams (:mod:`~edgematch.solvers.native.best.beam`) for ``beam_share`` (0.7) of the time
limit or until the doubling's 128,000-wide beam, whichever comes first, then repairs the best board for the rest
(``repair=off``: beams until the time limit). The repair draws, by what each found per second so far, between *tail
beams* (:func:`tail_rebeam`: the rows from about the first break down filled again by a wide beam with the rest of the
board pinned; the beam fills the board top down, so its breaks gather in the last rows, and a board taken up from a
chain that turned the board otherwise, option ``turn``, is turned so that its breaks are last) and the compiled
large-neighbourhood moves of :mod:`~edgematch.solvers.native.best.repair`. Every better board is re-scored by the
checker and streamed through ``task.on_improve`` at once; a better board of another chain (``task.incumbent``,
``best --workers``) is taken up by the repair. A repair that finds no better board for ``stall`` seconds (20; ``off``)
gives way to a fresh beam, as wide as the doubling's widest (:data:`ROUND_FACTOR`; ``width=N``: N) and of a new seed,
whose board is repaired next (a *round*): the tail beams' neighbourhood of one board is used up within a few minutes,
and a fresh board brings a new one (``repair_within=N``: only a board at most N seams below the best of every chain is
repaired, the others give way to the next fresh beam at once, counter ``rounds_unrepaired``). Counters say which stage
found each improvement (``improved_by_beam``, ``improved_by_repair``), the score the first beams left (``beam_score``),
what came after (``repair_gain``), when the repair began (``repair_from``, seconds), the rounds after the first
(``rounds``, from ``rounds_from``), how many rounds (the first included) reached each score from their own start, up to
any board taken from another chain (``rounds_scoring_461``: the distribution a model of more chains starts from), what
the rounds' fresh beams left, repaired or not (``rounds_starting_460``), and the repair's figures per operator.

Measured (E2-like 16x16 with the centre hint, 2026-12-07; benchmarks/README.md, "A faster beam", "Longer teeth"):
one core, 60 s, a mean of 461.3 on seeds 1-10 (461.0-461.2 with the two-row comb); two chains (``--workers 2``,
turned 0 and 1), 30 minutes, 464 / 463 / 462 on seeds 1-3 (464 / 464 / 463 unturned, 464 / 463 / 463 turned with
``repair_within=1``). Each round's repair adds about 0.8 seams to its fresh beam's board, whatever the tail beams'
width from 100,000 to 400,000 or the tail's shape ("Wider or higher tail beams", "Other tails").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from edgematch import clock
from edgematch.core.checker import score as seams_fitting
from edgematch.core.model import Hint, Puzzle, Solution
from edgematch.core.symmetry import turn_board, turn_puzzle
from edgematch.errors import UsageError
from edgematch.solvers.base import Result, Status, Task, Timings, fraction, on_off, seconds, whole
from edgematch.solvers.native.best.admissible import admissible_board, no_admissible_board
from edgematch.solvers.native.best.beam import (
    CHUNK_SECONDS,
    FIRST_WIDTH,
    PREFER,
    BeamTables,
    _Solved,
    _Stop,
    beam,
    beam_options,
    beam_seed,
    board_of,
    tail_order,
)
from edgematch.solvers.native.best.exact import ExactShare
from edgematch.solvers.native.compiled import ensure_compiled
from edgematch.solvers.native.tables import BuildTimedOut

BEAM_SHARE = 0.7  # at most this share of the time limit for the beams; the rest repairs the best board
LADDER_TOP = 128_000  # the doubling's widest beam before the repair starts
ROUND_FACTOR = 1  # a round's fresh beam, times the doubling's widest. 2 was measured (benchmarks/README.md, "Wider
# rounds"): its rounds reached 0.1-0.4 seams more on average but came 1.3x slower, and 30 minutes on 2 cores gave the
# same 463 / 463 / 462 (mean 462.7) at twice the memory, so the rounds stay as wide as the doubling went
TAIL_WIDTH = 100_000  # the repair's tail beams (seed 1 from 457: +2 in 300 s at this width)
KERNEL_SECONDS = 1.0  # one turn of the repair kernel's moves
STALL_SECONDS = 20.0  # a repair this long without a better board gives way to a fresh beam (option stall); a
# round's gains came within 11 s of its start, 5 of 6 (seeds 1-2, 600 s); 20 s reached 462 in half the time of 60 s
ROUND_SCORES = "rounds_scoring_"  # counters: how many rounds (the first repair included) reached each score
ROUND_STARTS = "rounds_starting_"  # counters: how many rounds' fresh beams (repaired or not) left each score


def seams_within(value: object) -> int | None:
    """Option ``repair_within``: how far (in seams) below the best board a round's board may be and still be
    repaired; None (``off``): every round's is."""
    return None if str(value).strip().lower() == "off" else whole(value, "repair_within")


def rounds_reached(counters: dict, prefix: str = ROUND_SCORES) -> dict[int, int]:
    """The rounds' histogram of a result's counters: score -> how many rounds reached it (``rounds_scoring_S``), or
    with ``prefix`` :data:`ROUND_STARTS`, how many rounds' fresh beams left it (``rounds_starting_S``)."""
    return {int(k[len(prefix):]): int(n) for k, n in counters.items() if k.startswith(prefix)}


def run_beam(puzzle: Puzzle, task: Task, options: dict) -> Result:
    """The native backend's ``best`` with ``search=beam``: beams (see the module docstring), then repair from
    the best board (:mod:`~edgematch.solvers.native.best.repair`) for the rest of the time."""
    width, fanout, order, seed, prefer = beam_options(options)
    repairing = on_off(options.get("repair", True), "repair")
    share = fraction(options.get("beam_share", BEAM_SHARE), "beam_share")
    stall = seconds(options.get("stall", STALL_SECONDS), "stall", off=True)
    within = seams_within(options.get("repair_within", "off"))
    # the C loops, loaded before the clock starts (about a millisecond; 0.0 where the caller's warm_up loaded them)
    load = ensure_compiled()
    t0 = clock.now()
    name = "native"
    max_score = puzzle.seam_count
    deadline = task.until(t0)
    first = admissible_board(puzzle)
    if first is None:
        return no_admissible_board(puzzle, t0)
    run = _Anytime(puzzle, task, t0, first)
    # a big board's tables can outlast the limit: past it, the first board is the answer
    try:
        bt = None if _late(deadline) else BeamTables(puzzle, order, deadline, prefer)
    except BuildTimedOut:
        bt = None
    if bt is not None and width is not None and bt.memory(width, fanout) > memory_cap():
        raise UsageError(f"native backend: a beam of width {width} would take {bt.memory(width, fanout) / 2**30:.1f} "
                         f"GiB (at most {memory_cap() / 2**30:.1f}); give a smaller width")
    build = clock.now() - t0
    if not repairing:
        beams_until, top = deadline, None
    elif deadline is None:
        beams_until, top = None, LADDER_TOP  # the doubling up to LADDER_TOP, then repair
    else:
        beams_until = t0 + share * (deadline - t0)
        top = None if width is not None else LADDER_TOP
    run.proven = run.best_score == max_score or (bt is not None and bt.t.positions == 0)
    began = clock.now()
    exact = ExactShare(puzzle, seed) if not run.proven else None

    def pause() -> None:
        """The first-solution search's share of the time (as the dfs search gives it): a planted board
        with a full solution in reach gets it."""
        now = clock.now()
        if exact is not None and not exact.exhausted and exact.due(now - began):
            solution = exact.run(now - began, None if deadline is None else deadline - 0.01)
            if solution is not None:
                raise _Solved(solution)

    try:
        try:
            start = None
            if bt is not None and not _late(deadline):  # the tables can take the whole limit: the first board
                start = _beams(puzzle, bt, run, width, fanout, seed, beams_until, deadline, top, pause)
            run.counters["beam_score"] = run.best_score
            repair = None
            round_width = width or min(ROUND_FACTOR * max(int(run.counters["widest"]), FIRST_WIDTH),
                                       widest_fitting(bt, fanout) if bt is not None else FIRST_WIDTH)
            fresh = False  # whether ``start`` is a round's fresh beam
            while bt is not None and repairing and not run.proven and not run.stopped and not _late(deadline):
                repair = repair or _Repair.build(puzzle, run, fanout, seed, prefer, deadline, pause, tail_order(order))
                run.counters.setdefault("repair_from", round(clock.now() - t0, 3))
                if repair is None:
                    break
                left = seams_fitting(puzzle, start) if fresh and start is not None else None
                if left is not None:
                    run.counters[f"{ROUND_STARTS}{left}"] = run.counters.get(f"{ROUND_STARTS}{left}", 0) + 1
                if left is not None and within is not None and left < _best_known(run) - within:
                    run.counters["rounds_unrepaired"] = run.counters.get("rounds_unrepaired", 0) + 1
                else:
                    if fresh:  # a round counts once its board is repaired
                        run.counters["rounds"] = run.counters.get("rounds", 0) + 1
                    if not repair.run(start or run.best_board, stall):
                        break
                # stalled: a fresh beam (ROUND_FACTOR times the doubling's widest), and its board repaired next
                run.counters.setdefault("rounds_from", round(clock.now() - t0, 3))
                start = _beams(puzzle, bt, run, round_width, fanout, seed, deadline, deadline, None, pause, once=True)
                fresh = True
        except _Solved as solved:
            run.offer(solved.board, "first-solution search")
    except KeyboardInterrupt:
        run.stopped = "interrupted"
    searched = clock.now() - began
    c = run.counters
    per_s = c["states"] / searched if searched > 0 else 0.0
    c.update(states_per_s=per_s, nodes_per_s=per_s, load_seconds=load)
    return Result(
        name, Status.SOLVED if run.proven else Status.TIMEOUT, [run.best_board], score=run.best_score,
        max_score=max_score, history=run.history, timings=Timings(build=build, solve=searched), counters=c,
        options={"search": "beam", "width": width if width is not None else "doubling", "fanout": fanout,
                 "prefer": prefer, "stall": "off" if stall is None else stall,
                 "order": order, "seed": seed, "repair": "on" if repairing else "off",
                 "repair_within": "off" if within is None else within,
                 "beam_share": share if repairing and deadline is not None else None},
        message=run.stopped,
    )


class _Anytime:
    """What one run has found so far: the best board (streamed through ``task.on_improve`` the moment it
    is found), its history, the counters, and which stage found each improvement."""

    def __init__(self, puzzle: Puzzle, task: Task, t0: float, first: Solution):
        self.puzzle, self.task, self.t0 = puzzle, task, t0
        self.best_board, self.best_score = first, seams_fitting(puzzle, first)
        self.history = [(clock.now() - t0, self.best_score)]
        self.proven = False
        self.stopped = ""
        self.counters: dict[str, float] = {"states": 0, "children": 0, "beams": 0, "widest": 0,
                                           "improved_by_beam": 0, "improved_by_repair": 0}
        if task.on_improve is not None:
            task.on_improve(first, self.best_score)

    def offer(self, board: Solution, stage: str) -> bool:
        """Keep ``board`` if the checker scores it higher than the best so far (and stream it); whether it did."""
        score = seams_fitting(self.puzzle, board)
        if score <= self.best_score:
            return False
        self.best_board, self.best_score = board, score
        self.history.append((clock.now() - self.t0, score))
        key = f"improved_by_{stage.split(':')[0].replace(' ', '_').replace('-', '_')}"
        self.counters[key] = self.counters.get(key, 0) + 1
        if self.task.on_improve is not None:
            self.task.on_improve(board, score)
        self.proven = score == self.puzzle.seam_count
        return True

    def progress(self, moves: int) -> None:
        if self.task.progress is not None:
            self.task.progress({"score": self.best_score, "nodes": self.counters["states"] + moves,
                                "restarts": self.counters["beams"], "elapsed": clock.now() - self.t0})


def _shared(run: _Anytime) -> tuple[Solution, int] | None:
    """The best board of the chains this run shares boards with and its score (``task.incumbent``), or None."""
    return run.task.incumbent() if run.task.incumbent is not None else None


def _best_known(run: _Anytime) -> int:
    """The best score so far of this run and of every chain it shares boards with."""
    shared = _shared(run)
    return max(run.best_score, shared[1]) if shared is not None else run.best_score


def _beams(puzzle: Puzzle, bt: BeamTables, run: _Anytime, width: int | None, fanout: int, seed: int,
           until: float | None, deadline: float | None, top: int | None, pause: Callable[[], None],
           once: bool = False) -> Solution | None:
    """Successive beams until ``until`` (or, without it, until the doubling passes ``top``; with neither,
    until stopped; ``once``: one beam), every better board offered to ``run``: the best board they found (None:
    none), which the repair goes on from, whether or not it beat the run's."""
    cap = widest_fitting(bt, fanout)
    c = run.counters
    w = width or FIRST_WIDTH
    rate = 0.0  # width units per second, measured
    best: tuple[int, Solution] | None = None
    while not run.proven:
        if until is not None and width is None and rate > 0:
            fits = int(rate * (until - clock.now()) * 0.9)
            w = max(min(w, fits), min(w, FIRST_WIDTH))
        c["beams"] += 1
        started = clock.now()
        try:
            found = beam(bt, w, fanout, beam_seed(seed, int(c["beams"])), until, c, pause)  # type: ignore[arg-type]
        except _Stop:
            if deadline is not None and clock.now() >= deadline:
                run.stopped = "time limit"
            break
        took = clock.now() - started
        rate = w / took if took > 0 else rate
        c["widest"] = max(c["widest"], w)
        if found is not None:
            board = board_of(puzzle, bt, found[0])
            run.offer(board, "beam")
            if best is None or found[1] < best[0]:
                best = (found[1], board)
        run.progress(0)
        now = clock.now()
        if deadline is not None and now >= deadline:
            run.stopped = "time limit"
            break
        if once or until is not None and now >= until or top is not None and w >= min(top, cap):
            break
        if width is None:
            w = min(w * 2, cap)
    return None if best is None else best[1]


def widest_fitting(bt: BeamTables, fanout: int) -> int:
    """The widest beam of the doubling (``FIRST_WIDTH`` times a power of two) within :func:`memory_cap`."""
    cap = FIRST_WIDTH
    while bt.memory(cap * 2, fanout) <= memory_cap():
        cap *= 2
    return cap


def _late(deadline: float | None) -> bool:
    """Whether ``deadline`` (``clock.now()``) has passed: no new stage (and no table for one) is started then."""
    return deadline is not None and clock.now() >= deadline


class _Repair:
    """The repair of one run: tail beams (the rows from about the first break down, filled again by a beam with
    the rest fixed) and the kernel's moves (:mod:`~edgematch.solvers.native.best.repair`), each drawn by what it
    found per second so far. Its tables and what each operator earned are kept from one round to the next."""

    def __init__(self, puzzle: Puzzle, run: _Anytime, fanout: int, seed: int, prefer: str, deadline: float | None,
                 pause: Callable[[], None], tables: object, order: str = "comb"):
        import random

        from edgematch.solvers.native.best.repair import Repairer

        self.puzzle, self.anytime, self.fanout, self.seed, self.prefer = puzzle, run, fanout, seed, prefer
        self.deadline, self.pause, self.order = deadline, pause, order  # order: the tail beams' comb
        self.rng = random.Random(seed)
        self.rep = Repairer(puzzle, tables, run.best_board, seed)
        self.spent = {"tail": 0.0, "kernel": 0.0}
        self.gains = {"tail": 0, "kernel": 0}
        self.prior = {"tail": 1.0, "kernel": 0.25}  # measured: tail beams found the gains (seed 1: +2 in 300 s)
        self.tail_rate = 0.0  # tail-beam states per second, measured
        self.moves = 200
        self.tails = 0
        self.turns = {0: puzzle}  # the board turned for the tail beams (tail_side)

    @classmethod
    def build(cls, puzzle: Puzzle, run: _Anytime, fanout: int, seed: int, prefer: str, deadline: float | None,
              pause: Callable[[], None], order: str = "comb") -> _Repair | None:
        """The repair, or None when the limit came while its tables were built (``run`` then says so)."""
        from edgematch.solvers.native.best.repair import repair_tables

        try:
            tables = repair_tables(puzzle, deadline)
        except BuildTimedOut:
            tables = None
        if tables is None or _late(deadline):
            run.stopped = "time limit"
            return None
        return cls(puzzle, run, fanout, seed, prefer, deadline, pause, tables, order)

    def turned(self, k: int) -> Puzzle:
        """The puzzle turned ``k`` quarter turns clockwise (made once)."""
        if k not in self.turns:
            self.turns[k] = turn_puzzle(self.puzzle, k)
        return self.turns[k]

    def tail_side(self, board: Solution) -> tuple[int, int] | None:
        """Where a tail beam frees the fewest cells and still holds every break: the turn of the board (0 first)
        and its first broken row. A board of this run's own beams has its breaks in its last rows (turn 0); one
        taken up from a chain that fills the board turned (``turn``) has them on another side. None for a full
        solution."""
        side = None
        for k in range(4):
            turned = self.turned(k)
            broken = first_broken_row(turned, board if not k else turn_board(self.puzzle, board, k))
            if broken is None:
                return None
            if side is None or (turned.height - broken) * turned.width < side[0]:
                side = ((turned.height - broken) * turned.width, k, broken)
        return None if side is None else (side[1], side[2])

    def run(self, start: Solution, stall: float | None) -> bool:
        """Repair ``start`` until the deadline (or until stopped), every better board offered to the run; a board
        of another chain (``task.incumbent``) that beats ours is taken up at once. True when ``stall`` seconds
        passed without a better board (and time is left for a fresh beam): the caller starts another round."""
        puzzle, run, rep, deadline = self.puzzle, self.anytime, self.rep, self.deadline
        c = run.counters
        current, score = start, seams_fitting(puzzle, start)
        own, taken = score, False  # the best this round found from its own start, until it took up another chain's
        rep.load(start)
        gained = clock.now()

        def adopt(board: Solution, load: bool = True, shared: bool = False) -> None:
            nonlocal current, score, gained, own, taken
            fits = seams_fitting(puzzle, board)
            if fits > score:
                gained = clock.now()
            current, score = board, fits
            taken = taken or shared
            if not taken:
                own = max(own, score)
            if load:  # the kernel's own better board is already its state
                rep.load(board)

        try:
            while not run.proven:
                if _late(deadline):  # no move is begun past the limit
                    run.stopped = "time limit"
                    return False
                if stall is not None and clock.now() - gained >= stall and (
                        deadline is None or deadline - clock.now() >= stall):
                    return True
                shared = _shared(run)
                if shared is not None and shared[1] > max(run.best_score, rep.best_score):
                    adopt(shared[0], shared=True)
                    c["adopted"] = c.get("adopted", 0) + 1
                weight = {k: (self.prior[k] + self.gains[k]) / (1 + self.spent[k]) for k in self.spent}
                which = "tail" if self.rng.random() * (weight["tail"] + weight["kernel"]) < weight["tail"] else "kernel"
                started = clock.now()
                if which == "tail":
                    side = self.tail_side(current)
                    if side is None:
                        return False
                    k, broken = side
                    turned = self.turned(k)
                    # at least three rows freed (of a four-row comb, the last three then fill column by column)
                    row = max(0, min(broken + self.rng.randint(-3, 1), turned.height - 3))
                    cells = max(tail_cells(turned, row), 1)
                    width = TAIL_WIDTH
                    if deadline is not None and self.tail_rate > 0:  # a third of the time left at most
                        width = max(min(width, int(self.tail_rate * (deadline - started) / 3 / cells)), 1_000)
                    self.tails += 1
                    try:
                        board = tail_rebeam(turned, turn_board(puzzle, current, k), row, width, self.fanout,
                                            beam_seed(self.seed, 1_000_000 + self.tails), deadline, c, self.prefer,
                                            self.order)
                    except _Stop:
                        run.stopped = "time limit"
                        return False
                    self.tail_rate = width * cells / max(clock.now() - started, 1e-6)
                    board = None if board is None else turn_board(turned, board, 4 - k)
                    if board is not None and seams_fitting(puzzle, board) >= score and board != current:
                        if run.offer(board, "repair:tail"):
                            self.gains["tail"] += 1
                        adopt(board)
                else:
                    until = started + KERNEL_SECONDS
                    while clock.now() < until and not run.proven:
                        done = rep.moves
                        began = clock.now()
                        if rep.run(self.moves) and rep.best_score > score:
                            if run.offer(rep.best_board(), "repair:kernel"):
                                self.gains["kernel"] += 1
                            adopt(rep.best_board(), load=False)
                        took = clock.now() - began
                        if took > 0 and rep.moves > done:  # chunks of about CHUNK_SECONDS
                            self.moves = int(min(max((rep.moves - done) / took * CHUNK_SECONDS, 50), 1 << 20))
                        if deadline is not None and clock.now() >= deadline:
                            break
                self.spent[which] += clock.now() - started
                run.progress(rep.moves)
                if deadline is not None and clock.now() >= deadline:
                    run.stopped = "time limit"
                    return False
                self.pause()
            return False
        finally:
            key = f"{ROUND_SCORES}{own}"
            c[key] = c.get(key, 0) + 1
            c.update(repair_moves=rep.moves, repair_cycles=rep.cycles, repair_capped=int(rep.state[3]),
                     tail_beams=self.tails, tail_seconds=round(self.spent["tail"], 3),
                     kernel_seconds=round(self.spent["kernel"], 3),
                     repair_gain=run.best_score - c.get("beam_score", run.best_score), **rep.found_by())


def memory_cap() -> int:
    """Bytes one beam may take: the beam module's bound, read when asked (the chains of one machine share it
    by dividing it after this module is loaded)."""
    from edgematch.solvers.native.best import beam as beam_search

    return beam_search.MEMORY_CAP


def pinned(puzzle: Puzzle, board: Solution, freed: set[int]) -> Puzzle:
    """``puzzle`` with every cell of ``board`` outside ``freed`` fixed as a hint: the sub-problem a repair
    re-solves. Not validated as a puzzle (the pinned cells' seams may break, which hints may not); only the
    beam's tables read it, and the boards it yields are scored against ``puzzle``."""
    hinted = {h.cell for h in puzzle.hints}
    sub = object.__new__(Puzzle)
    for f in dataclasses.fields(Puzzle):
        object.__setattr__(sub, f.name, getattr(puzzle, f.name))
    extra = tuple(Hint(c, p.tile, p.rotation) for c, p in enumerate(board.cells) if c not in freed and c not in hinted)
    object.__setattr__(sub, "hints", puzzle.hints + extra)
    return sub


def first_broken_row(puzzle: Puzzle, board: Solution) -> int | None:
    """The first row with a broken seam inside it or on its south side; None for a full solution."""
    grid = board.grid(puzzle)
    for c in range(puzzle.size):
        for s in (1, 2):
            m = puzzle.neighbour(c, s)
            if m is not None and not puzzle.matches(grid[c][s], grid[m][(s + 2) % 4]):
                return c // puzzle.width
    return None


def tail_cells(puzzle: Puzzle, first_row: int) -> int:
    """How many free cells a tail from ``first_row`` holds."""
    hinted = {h.cell for h in puzzle.hints}
    return sum(1 for c in range(first_row * puzzle.width, puzzle.size) if c not in hinted)


def tail_rebeam(puzzle: Puzzle, board: Solution, first_row: int, width: int, fanout: int, seed: int,
                deadline: float | None, counters: dict, prefer: str = PREFER, order: str = "comb") -> Solution | None:
    """Free the rows from ``first_row`` to the bottom and fill them again by a beam of ``width`` (in the comb
    ``order``: :func:`~edgematch.solvers.native.best.beam.tail_order` of the run's; narrower if the memory bound
    says so) with the rest of ``board`` fixed: the beam's best board (better, equal or worse than ``board``), or
    None when it found no complete board. Raises the beam's stop at ``deadline``, while its tables are built too."""
    freed = set(range(first_row * puzzle.width, puzzle.size))
    sub = pinned(puzzle, board, freed)
    try:
        bt = BeamTables(sub, order, deadline, prefer)
    except BuildTimedOut:
        raise _Stop from None
    if bt.t.positions == 0:
        return None
    while width > 1 and bt.memory(width, fanout) > memory_cap():  # a long tail of a large board
        width //= 2
    found = beam(bt, width, fanout, seed, deadline, counters)
    return None if found is None else board_of(sub, bt, found[0])
