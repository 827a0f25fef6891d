"""Beam search and repair for the native backend's ``best`` (``-O search=beam``): the field's strongest
single-core approach on Eternity II-like boards (issue 23, parts 1 and 2).

The board is filled along an order (``order``: ``comb``, the default, rows one by one and the last two rows
column by column; or ``row``). Layer ``p`` holds up to ``width`` partial boards with the first ``p``
positions placed, scored by the seams fitting so far (inner seams between placed cells and hints); each
board's children are the legal, unused candidates for the next cell with the fewest breaks (the top tie
class), at most ``fanout`` (default 8) drawn at random among exact ties; the next layer keeps the ``width``
best children, each run of equal scores in a seeded random order (no tolerance: only exact ties are
shuffled). Legal placements come from :func:`~edgematch.solvers.native.best.build_best_tables`: only
candidates showing the frame exactly on the cell's outer sides, in allowed turns, hinted cells fixed, so
every break is an inner seam.

Anytime: successive beams, each better complete board re-scored by the checker and streamed at once
through ``task.on_improve``. Without a ``width`` option the first beam is 1,000 wide and each next one
twice as wide, or as wide as the beam stage's time left allows at the rate measured so far (never past the
memory bound); with ``width=N`` every beam is N wide and reseeded. The beams end at ``beam_share`` (0.7) of
the time limit or after the doubling's 128,000-wide beam, whichever comes first; the rest of the time
repairs the best board (``repair=off``: beams until the time limit): see :func:`_repair` and
:mod:`~edgematch.solvers.native.repair`. Result counters say which stage found each improvement
(``improved_by_beam``, ``improved_by_repair``), the score the beams left (``beam_score``) and what the
repair added (``repair_gain``), with the repair's figures per operator. The time limit is checked between
chunks of states of about 50 ms. Between chunks the first-solution search gets a fifth of the time (a
twentieth after 30 s), as in the depth-first ``best`` (:class:`~edgematch.solvers.native.best._ExactShare`):
a board whose full solution is in reach gets it, which the beam's seam-by-seam scoring may miss.

Memory of one beam, in bytes, with ``P`` positions, ``T`` tile types, frontier ring ``R`` (the farthest
back a key looks: the width of the board for ``row``, up to twice that for ``comb``), width ``W`` and
fanout ``F``: the parent-pointer forest ``8 P W`` (parent index and candidate per layer, int32), two layers
of states ``2 W (4 R + 2 T + 4)`` (frontier ring, tiles left per type, breaks) and the children of one
layer ``36 F W`` (parent, candidate, breaks, the shuffle and the sort): about 3.6 kB per unit of width on a
16x16 board, so 1.5 GiB at some 440,000. A width whose beam would need more than :data:`MEMORY_CAP` is
refused (``width=N``) or capped (the doubling).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from edgematch.core.checker import check
from edgematch.core.model import Puzzle, Solution
from edgematch.core.tiletypes import decode
from edgematch.errors import UsageError
from edgematch.solvers.base import Result, Status, Task, Timings, on_off, whole
from edgematch.solvers.native.best import BestTables, _ExactShare, admissible_board, build_best_tables
from edgematch.solvers.native.repair import ensure_compiled as ensure_repair_compiled

ORDERS = ("comb", "row")
FANOUT = 8
FIRST_WIDTH = 1_000
MEMORY_CAP = 1_536 * 2**20  # bytes one beam may take
CHUNK_SECONDS = 0.05
BEAM_SHARE = 0.7  # at most this share of the time limit for the beams; the rest repairs the best board
LADDER_TOP = 128_000  # the doubling's widest beam before the repair starts
TAIL_WIDTH = 100_000  # the repair's tail beams (seed 1 from 457: +2 in 300 s at this width)
KERNEL_SECONDS = 1.0  # one turn of the repair kernel's moves


def fill_cells(puzzle: Puzzle, order: str) -> list[int]:
    """The free cells in fill order: ``row`` scan, or ``comb``: rows one by one, the last two rows column by
    column (each cell of those still sees its west and north neighbours placed)."""
    w, h = puzzle.width, puzzle.height
    if order == "row" or h < 2:
        cells = list(range(w * h))
    else:
        cells = list(range((h - 2) * w)) + [r * w + c for c in range(w) for r in (h - 2, h - 1)]
    hinted = {c for c, _, _ in puzzle.hints}
    return [c for c in cells if c not in hinted]


class BeamTables:
    """The best-score tables in a fill order, plus where each position's key labels come from: a constant
    (a hint's edge, or the free label when there is no neighbour) or a slot of the frontier ring."""

    def __init__(self, puzzle: Puzzle, order: str):
        cells = fill_cells(puzzle, order)
        self.t: BestTables = build_best_tables(puzzle, cells)
        t, n = self.t, puzzle.size
        P = t.positions
        pos = {c: p for p, c in enumerate(cells)}
        sources = np.full((max(P, 1), 4), n * 4, np.int64)  # placed indices: key a, key b, extras
        sources[:P, 0], sources[:P, 1] = t.key_a, t.key_b
        sources[:P, 2:] = t.extra_src
        back = 1
        for p in range(P):
            for j in range(2 + int(t.extra_n[p])):
                cell = int(sources[p, j]) // 4
                if cell in pos:
                    back = max(back, p - pos[cell])
        self.ring = back
        self.src_const = np.full((max(P, 1), 4), -1, np.int64)
        self.src_slot = np.zeros((max(P, 1), 4), np.int64)
        self.src_side = np.zeros((max(P, 1), 4), np.int64)
        for p in range(P):
            for j in range(4):
                idx = int(sources[p, j])
                cell = idx // 4
                if j >= 2 + int(t.extra_n[p]) or cell not in pos:
                    self.src_const[p, j] = t.placed0[idx]
                else:
                    self.src_slot[p, j], self.src_side[p, j] = pos[cell] % back, idx % 4
        self.tie = np.zeros(max(int((t.cend - t.cstart).max(initial=0)), 1), np.int64)
        self.left_dtype = np.int16 if int(t.type_count.max(initial=0)) < 2**15 else np.int32

    def memory(self, width: int, fanout: int) -> int:
        """Bytes a beam of this width and fanout takes (see the module docstring)."""
        P, T = self.t.positions, len(self.t.type_count)
        per_left = np.dtype(self.left_dtype).itemsize
        return 8 * P * width + 2 * width * (4 * self.ring + per_left * T + 4) + 36 * fanout * width


class _Stop(Exception):
    """The time limit came during a beam."""


class _Solved(Exception):
    """The first-solution share found a full solution during a beam."""

    def __init__(self, board: Solution):
        super().__init__("solved")
        self.board = board


def beam(bt: BeamTables, width: int, fanout: int, seed: int, deadline: float | None,
         counters: dict[str, int], pause: Callable[[], None] | None = None) -> tuple[np.ndarray, int] | None:
    """One beam: the candidates (per position) of its best complete board and that board's breaks, or None
    when every state ran out of legal tiles. Raises :class:`_Stop` at ``deadline``; calls ``pause`` between
    chunks (the first-solution share)."""
    from edgematch.solvers.native import beam_kernel as K

    t = bt.t
    P = t.positions
    K.reseed(seed)
    ring = np.zeros((1, bt.ring), np.int32)
    left = t.type_count[None, :].astype(bt.left_dtype)
    brk = np.zeros(1, np.int32)
    par = np.zeros((P, width), np.int32)
    cand = np.zeros((P, width), np.int32)
    chunk = 256
    for p in range(P):
        n_cur = len(brk)
        ch_parent = np.empty(n_cur * fanout, np.int32)
        ch_cand = np.empty(n_cur * fanout, np.int32)
        ch_brk = np.empty(n_cur * fanout, np.int32)
        n_ch = 0
        s = 0
        while s < n_cur:
            hi = min(n_cur, s + chunk)
            began = time.perf_counter()
            n_ch = K.expand(p, s, hi, ring, left, brk, t.combo, t.extra_n, t.extra_side, bt.src_const,
                            bt.src_slot, bt.src_side, t.cstart, t.cend, t.ra_s, t.ra_e, t.ab_s, t.ab_e, t.rb_s,
                            t.rb_e, t.bperm, t.cand_type, t.cand_edge, t.cand_la, t.cand_lb, t.width, fanout,
                            ch_parent, ch_cand, ch_brk, n_ch, bt.tie)
            took = time.perf_counter() - began
            if took > 0:
                chunk = int(min(max((hi - s) / took * CHUNK_SECONDS, 64), 1 << 20))
            s = hi
            if deadline is not None and time.perf_counter() >= deadline:
                raise _Stop
            if pause is not None:
                pause()
        counters["children"] += n_ch
        if n_ch == 0:
            return None
        keep = np.empty(min(n_ch, width), np.int64)
        n = K.truncate(ch_brk, n_ch, width, int(ch_brk[:n_ch].max()), keep)
        new_ring = np.empty((n, bt.ring), np.int32)
        new_left = np.empty((n, left.shape[1]), bt.left_dtype)
        new_brk = np.empty(n, np.int32)
        K.materialise(p, keep, n, ch_parent, ch_cand, ch_brk, ring, left, new_ring, new_left, new_brk,
                      p % bt.ring, t.cand_type, par, cand)
        ring, left, brk = new_ring, new_left, new_brk
        counters["states"] += n
    picks = np.zeros(P, np.int64)
    j = 0  # the truncation puts a state with the fewest breaks first
    for p in range(P - 1, -1, -1):
        picks[p] = cand[p, j]
        j = int(par[p, j])
    return picks, int(brk[0])


def board_of(puzzle: Puzzle, bt: BeamTables, picks: np.ndarray) -> Solution:
    """The board whose positions took ``picks``."""
    t = bt.t
    cells: list[tuple[int, int] | None] = [None] * puzzle.size
    for p in range(t.positions):
        i = int(picks[p])
        cells[int(t.order[p])] = (int(t.cand_type[i]), int(t.cand_rot[i]))
    return decode(puzzle, t.types, cells)


def beam_seed(seed: int, k: int) -> int:
    """The seed of the ``k``-th beam (from 1) of a run with option ``seed``."""
    return seed * 1_000_003 + k


_compiled = False


def ensure_compiled() -> float:
    """Load (or on the very first run compile) the beam's steps; the seconds it took (0.0 once loaded)."""
    global _compiled
    if _compiled:
        return 0.0
    start = time.perf_counter()
    from edgematch.core.model import Tile

    tiny = Puzzle(2, 1, (Tile((1, 2, 3, 4)), Tile((4, 3, 2, 1))))
    beam(BeamTables(tiny, "comb"), 4, 2, 0, None, {"children": 0, "states": 0})
    _compiled = True
    return time.perf_counter() - start


def fraction(value: object, option: str) -> float:
    """A number between 0 and 1, given as a number or as text (a bad one: UsageError)."""
    try:
        number = float(str(value).strip())
    except ValueError:
        number = float("nan")
    if not 0.0 <= number <= 1.0:  # nan fails this too
        raise UsageError(f"native backend: option {option} must be a number between 0 and 1, got {value!r}")
    return number


def beam_options(options: dict) -> tuple[int | None, int, str, int]:
    """``width`` (None: doubling), ``fanout``, ``order`` and ``seed``, checked (a bad one: UsageError)."""
    width = whole(options["width"], "width", least=1) if "width" in options else None
    fanout = whole(options.get("fanout", FANOUT), "fanout", least=1)
    order = str(options.get("order", "comb"))
    if order not in ORDERS:
        raise UsageError(f"native backend: beam order must be one of {', '.join(ORDERS)}, got {order!r}")
    seed = whole(options.get("seed", 0), "seed")
    return width, fanout, order, seed


def run_beam(puzzle: Puzzle, task: Task, options: dict) -> Result:
    """The native backend's ``best`` with ``search=beam``: beams (see the module docstring), then repair from
    the best board (:mod:`~edgematch.solvers.native.repair`) for the rest of the time."""
    t0 = time.perf_counter()
    width, fanout, order, seed = beam_options(options)
    repairing = on_off(options.get("repair", True))
    share = fraction(options.get("beam_share", BEAM_SHARE), "beam_share")
    compile_s = ensure_compiled()  # before the first board is out: a Ctrl-C after it finds the search running
    if repairing:
        compile_s += ensure_repair_compiled()
    name = "native"
    max_score = puzzle.seam_count
    first = admissible_board(puzzle)
    if first is None:
        return Result(name, Status.UNSAT, timings=Timings(build=time.perf_counter() - t0),
                      message="no board keeps the frame and hints with these tiles", max_score=max_score)
    run = _Anytime(puzzle, task, t0, first)
    bt = BeamTables(puzzle, order)
    if width is not None and bt.memory(width, fanout) > MEMORY_CAP:
        raise UsageError(f"native backend: a beam of width {width} would take {bt.memory(width, fanout) / 2**30:.1f} "
                         f"GiB (at most {MEMORY_CAP / 2**30:.1f}); give a smaller width")
    build = time.perf_counter() - t0
    deadline = None if task.time_limit is None else t0 + task.time_limit
    if not repairing:
        beams_until, top = deadline, None
    elif deadline is None:
        beams_until, top = None, LADDER_TOP  # the doubling up to LADDER_TOP, then repair
    else:
        beams_until = t0 + share * task.time_limit  # type: ignore[operator]
        top = None if width is not None else LADDER_TOP
    run.proven = run.best_score == max_score or bt.t.positions == 0
    began = time.perf_counter()
    exact = _ExactShare(puzzle, seed) if not run.proven else None

    def pause() -> None:
        """The first-solution search's share of the time (as the dfs search gives it): a planted board
        with a full solution in reach gets it."""
        now = time.perf_counter()
        if exact is not None and not exact.exhausted and exact.due(now - began):
            solution = exact.run(now - began, None if deadline is None else deadline - 0.01)
            if solution is not None:
                raise _Solved(solution)

    try:
        try:
            _beams(puzzle, bt, run, width, fanout, seed, beams_until, deadline, top, pause)
            run.counters["beam_score"] = run.best_score
            if repairing and not run.proven and not run.stopped:
                _repair(puzzle, run, fanout, seed, deadline, pause)
        except _Solved as solved:
            run.offer(solved.board, "first-solution search")
    except KeyboardInterrupt:
        run.stopped = "interrupted"
    seconds = time.perf_counter() - began
    c = run.counters
    per_s = c["states"] / seconds if seconds > 0 else 0.0
    c.update(states_per_s=per_s, nodes_per_s=per_s, compile_s=compile_s)
    return Result(
        name, Status.SOLVED if run.proven else Status.TIMEOUT, [run.best_board], score=run.best_score,
        max_score=max_score, history=run.history, timings=Timings(build=build, solve=seconds), counters=c,
        options={"search": "beam", "width": width if width is not None else "doubling", "fanout": fanout,
                 "order": order, "seed": seed, "repair": "on" if repairing else "off",
                 "beam_share": share if repairing and deadline is not None else None},
        message=run.stopped,
    )


class _Anytime:
    """What one run has found so far: the best board (streamed through ``task.on_improve`` the moment it
    is found), its history, the counters, and which stage found each improvement."""

    def __init__(self, puzzle: Puzzle, task: Task, t0: float, first: Solution):
        self.puzzle, self.task, self.t0 = puzzle, task, t0
        self.best_board, self.best_score = first, check(puzzle, first).score
        self.history = [(time.perf_counter() - t0, self.best_score)]
        self.proven = False
        self.stopped = ""
        self.counters: dict[str, float] = {"states": 0, "children": 0, "beams": 0, "widest": 0,
                                           "improved_by_beam": 0, "improved_by_repair": 0}
        if task.on_improve is not None:
            task.on_improve(first, self.best_score)

    def offer(self, board: Solution, stage: str) -> bool:
        """Keep ``board`` if the checker scores it higher than the best so far (and stream it); whether it did."""
        score = check(self.puzzle, board).score
        if score <= self.best_score:
            return False
        self.best_board, self.best_score = board, score
        self.history.append((time.perf_counter() - self.t0, score))
        key = f"improved_by_{stage.split(':')[0].replace(' ', '_').replace('-', '_')}"
        self.counters[key] = self.counters.get(key, 0) + 1
        if self.task.on_improve is not None:
            self.task.on_improve(board, score)
        self.proven = score == self.puzzle.seam_count
        return True

    def progress(self, moves: int) -> None:
        if self.task.progress is not None:
            self.task.progress({"score": self.best_score, "nodes": self.counters["states"] + moves,
                                "restarts": self.counters["beams"], "elapsed": time.perf_counter() - self.t0})


def _beams(puzzle: Puzzle, bt: BeamTables, run: _Anytime, width: int | None, fanout: int, seed: int,
           until: float | None, deadline: float | None, top: int | None, pause: Callable[[], None]) -> None:
    """Successive beams until ``until`` (or, without it, until the doubling passes ``top``; with neither,
    until stopped); every better board offered to ``run``."""
    cap = FIRST_WIDTH
    while bt.memory(cap * 2, fanout) <= MEMORY_CAP:
        cap *= 2
    c = run.counters
    w = width or FIRST_WIDTH
    rate = 0.0  # width units per second, measured
    while not run.proven:
        if until is not None and width is None and rate > 0:
            fits = int(rate * (until - time.perf_counter()) * 0.9)
            w = max(min(w, fits), min(w, FIRST_WIDTH))
        c["beams"] += 1
        started = time.perf_counter()
        try:
            found = beam(bt, w, fanout, beam_seed(seed, int(c["beams"])), until, c, pause)  # type: ignore[arg-type]
        except _Stop:
            if deadline is not None and time.perf_counter() >= deadline:
                run.stopped = "time limit"
            break
        took = time.perf_counter() - started
        rate = w / took if took > 0 else rate
        c["widest"] = max(c["widest"], w)
        if found is not None:
            run.offer(board_of(puzzle, bt, found[0]), "beam")
        run.progress(0)
        now = time.perf_counter()
        if deadline is not None and now >= deadline:
            run.stopped = "time limit"
            break
        if until is not None and now >= until or top is not None and w >= top:
            break
        if width is None:
            w = min(w * 2, cap)


def _repair(puzzle: Puzzle, run: _Anytime, fanout: int, seed: int, deadline: float | None,
            pause: Callable[[], None]) -> None:
    """Repair from the best board until ``deadline`` (or until stopped), every better board offered to
    ``run``: tail beams (the rows from about the first break down, filled again by a beam with the rest
    fixed) and the kernel's moves (:mod:`~edgematch.solvers.native.repair`), each drawn by what it found per
    second so far; a board of another chain (``task.incumbent``) that beats ours is taken up at once."""
    import random

    from edgematch.solvers.native.repair import Repairer, first_broken_row, repair_tables, tail_cells, tail_rebeam

    rng = random.Random(seed)
    rep = Repairer(puzzle, repair_tables(puzzle), run.best_board, seed)
    current = run.best_board
    c = run.counters
    spent = {"tail": 0.0, "kernel": 0.0}
    gains = {"tail": 0, "kernel": 0}
    prior = {"tail": 1.0, "kernel": 0.25}  # measured: tail beams found the gains (seed 1: +2 in 300 s), the kernel none
    tail_rate = 0.0  # tail-beam states per second, measured
    moves = 200
    tails = 0

    def adopt(board: Solution) -> None:
        nonlocal current
        current = board
        rep.load(board)

    try:
        while not run.proven:
            shared = run.task.incumbent() if run.task.incumbent is not None else None
            if shared is not None and shared[1] > max(run.best_score, rep.best_score):
                adopt(shared[0])
                c["adopted"] = c.get("adopted", 0) + 1
            weight = {k: (prior[k] + gains[k]) / (1 + spent[k]) for k in spent}
            which = "tail" if rng.random() * (weight["tail"] + weight["kernel"]) < weight["tail"] else "kernel"
            started = time.perf_counter()
            if which == "tail":
                broken = first_broken_row(puzzle, current)
                if broken is None:
                    break
                row = max(0, min(broken + rng.randint(-3, 1), puzzle.height - 3))
                cells = max(tail_cells(puzzle, row), 1)
                width = TAIL_WIDTH
                if deadline is not None and tail_rate > 0:  # a third of the time left at most
                    width = max(min(width, int(tail_rate * (deadline - started) / 3 / cells)), 1_000)
                tails += 1
                try:
                    board = tail_rebeam(puzzle, current, row, width, fanout, beam_seed(seed, 1_000_000 + tails),
                                        deadline, c)
                except _Stop:
                    run.stopped = "time limit"
                    break
                tail_rate = width * cells / max(time.perf_counter() - started, 1e-6)
                if board is not None:
                    score = check(puzzle, board).score
                    if score >= check(puzzle, current).score and board != current:
                        if run.offer(board, "repair:tail"):
                            gains["tail"] += 1
                        adopt(board)
            else:
                until = started + KERNEL_SECONDS
                while time.perf_counter() < until and not run.proven:
                    done = rep.moves
                    began = time.perf_counter()
                    if rep.run(moves) and run.offer(rep.best_board(), "repair:kernel"):
                        gains["kernel"] += 1
                        current = run.best_board
                    took = time.perf_counter() - began
                    if took > 0 and rep.moves > done:  # chunks of about CHUNK_SECONDS
                        moves = int(min(max((rep.moves - done) / took * CHUNK_SECONDS, 50), 1 << 20))
                    if deadline is not None and time.perf_counter() >= deadline:
                        break
            spent[which] += time.perf_counter() - started
            run.progress(rep.moves)
            if deadline is not None and time.perf_counter() >= deadline:
                run.stopped = "time limit"
                break
            pause()
    finally:
        c.update(repair_moves=rep.moves, repair_cycles=rep.cycles, repair_capped=int(rep.state[3]), tail_beams=tails,
                 tail_seconds=round(spent["tail"], 3), kernel_seconds=round(spent["kernel"], 3),
                 repair_gain=run.best_score - c.get("beam_score", run.best_score), **rep.found_by())
