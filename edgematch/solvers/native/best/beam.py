"""Beam search for the native backend's ``best`` (``-O search=beam``): the field's strongest single-core
approach on Eternity II-like boards (issue 23, part 1).

The board is filled along an order (``order``: ``comb``, the default, rows one by one and the last four rows column by
column; ``combK``, the last K rows; or ``row``). Layer ``p`` holds up to ``width`` partial boards with the first ``p``
positions placed, scored by the seams fitting so far (inner seams between placed cells and hints); each board's children
are the legal, unused candidates for the next cell with the fewest breaks (the top tie class), at most ``fanout``
(default 8) drawn at random among exact ties; the next layer keeps the ``width`` best children. Among children with
equal breaks, ``prefer=rare`` (the default) keeps those that placed more sides of the rarer colours
(:func:`rare_colour_weights`), so the tiles left fit each other more easily; where the width cuts through a tie of both,
the children kept from it are a seeded uniform draw (``prefer=none``: a tie of breaks alone). E2-like 16x16, 60 s, one
core, with the two-row comb: a mean of 461.2 against 458.7 (seeds 1-10), 461.0 against 458.5 (held-out seeds 11-20); the
four-row comb 461.3 on seeds 1-10. Legal placements come from
:func:`~edgematch.solvers.native.best.candidates.build_best_tables`: only candidates showing the frame exactly on the
cell's outer sides, in allowed turns, hinted cells fixed, so every break is an inner seam.

Each call of :func:`beam` is one beam: its best complete board, scored by its breaks. The anytime runs
(successive beams of doubling width, then repair) are :mod:`~edgematch.solvers.native.best.stages`. The time
limit is checked between chunks of states of about 50 ms, where a ``pause`` callback (the first-solution
search's share of the time) may also run.

Memory of one beam, in bytes, with ``P`` positions, ``U`` words of 64 bits holding a bit per free tile (and one more),
frontier ring ``R`` (the farthest back a key looks: the board's width ``w`` for ``row``, up to ``w + (w - 1)(K - 1)``
for a comb of K rows below the board's height ``h`` (``h`` for K >= h): 31 for ``comb2`` on 16x16, 61 for ``comb``),
width ``W`` and fanout ``F``: the parent-pointer forest ``8 P W`` (parent index and candidate per layer, int32), two
layers of states ``2 W (4 R + 8 U + 8)`` (frontier ring, tile copies used, breaks, key) and the children of one layer,
bounded by ``40 F W`` (per child its parent, candidate, breaks and key and the truncation's two index arrays, 32 bytes;
the kept children's indices, twice, 16 bytes per unit of width): about 2.9 kB per unit of width on a 16x16 board, so 1.5
GiB at about 550,000. A width whose beam would need more than :data:`MEMORY_CAP` is refused (``width=N``) or capped (the
doubling)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.core.tiletypes import decode
from edgematch.errors import BackendError, UsageError
from edgematch.solvers.base import whole
from edgematch.solvers.native import kernels
from edgematch.solvers.native.best.candidates import BestTables, build_best_tables
from edgematch.solvers.native.tables import in_time, seam_colour

ORDERS = ("comb", "row")  # and combK: the comb with its last K rows column by column (``comb`` is comb4)
COMB_ROWS = 4  # the rows ``comb`` fills column by column: one beam leaves 0.4 seams more than with 2
# (benchmarks/README.md, "Longer teeth"; 2 until 2026-12-07)
PREFERS = ("none", "rare")  # ties of breaks: at random, or the boards that placed more rare colours first
PREFER = "rare"
FANOUT = 8
FIRST_WIDTH = 1_000
MEMORY_CAP = 1_536 * 2**20  # bytes one beam may take
CHUNK_SECONDS = 0.05


def comb_rows(order: str) -> int | None:
    """The rows a comb order fills column by column (``comb``: :data:`COMB_ROWS`, ``combK``: K from 1), or None
    for an order that is not a comb."""
    if order == "comb":
        return COMB_ROWS
    digits = order[4:] if order.startswith("comb") else ""
    return int(digits) if digits.isascii() and digits.isdigit() and digits[0] != "0" and len(digits) <= 4 else None


def is_order(order: str) -> bool:
    """Whether ``order`` names a beam order: ``row``, ``comb`` or ``combK``."""
    return order == "row" or comb_rows(order) is not None


def tail_order(order: str) -> str:
    """The order a repair's tail beams fill in: the run's comb, or ``comb`` for ``row`` and ``comb1`` (a tail of
    a few rows filled along a row leaves its breaks in the last row, where the comb spreads them over columns)."""
    return order if (comb_rows(order) or 0) >= 2 else "comb"


def fill_cells(puzzle: Puzzle, order: str) -> list[int]:
    """The free cells in fill order: ``row`` scan, or a comb (``comb``, ``combK``): rows one by one, then the
    last K rows (:data:`COMB_ROWS`, 4, for ``comb``; at most the board's) column by column, each column top down,
    so every cell still sees its west and north neighbours placed. Its breaks gather in short columns rather than
    along a row (benchmarks/README.md, "Longer teeth")."""
    if not is_order(order):
        raise ValueError(f"no beam order {order!r}")
    w, h = puzzle.width, puzzle.height
    k = min(comb_rows(order) or 1, h)
    cells = list(range((h - k) * w)) + [r * w + c for c in range(w) for r in range(h - k, h)]
    hinted = {c for c, _, _ in puzzle.hints}
    return [c for c in cells if c not in hinted]


class BeamTables:
    """The best-score tables in a fill order, plus where each position's key labels come from: a constant
    (a hint's edge, or the free label when there is no neighbour) or a slot of the frontier ring."""

    def __init__(self, puzzle: Puzzle, order: str, deadline: float | None = None, prefer: str = PREFER):
        """``prefer``: how ties of breaks are ranked (:data:`PREFERS`); ``deadline`` (``clock.now()``): past
        it, building raises :class:`~edgematch.solvers.native.tables.BuildTimedOut`."""
        cells = fill_cells(puzzle, order)
        self.t: BestTables = build_best_tables(puzzle, cells, deadline)
        t, n = self.t, puzzle.size
        P = t.positions
        sources = np.full((max(P, 1), 4), n * 4, np.int64)  # placed indices: key a, key b, extras
        sources[:P, 0], sources[:P, 1] = t.key_a, t.key_b
        sources[:P, 2:] = t.extra_src
        in_time(deadline)
        at = np.full(n + 1, -1, np.int64)  # each cell's position (-1: a hint; cell n stands for "no neighbour")
        at[np.asarray(cells, np.int64)] = np.arange(P)
        src = sources[:P]
        placed_at = at[src // 4]
        ringed = (np.arange(4) < 2 + t.extra_n[:P, None]) & (placed_at >= 0)  # read from a slot of the ring
        self.ring = back = max(1, int((np.arange(P)[:, None] - placed_at)[ringed].max(initial=1)))
        self.src_const = np.full((max(P, 1), 4), -1, np.int64)
        self.src_slot = np.zeros((max(P, 1), 4), np.int64)
        self.src_side = np.zeros((max(P, 1), 4), np.int64)
        self.src_const[:P] = np.where(ringed, -1, t.placed0[src])
        self.src_slot[:P] = np.where(ringed, placed_at % back, 0)
        self.src_side[:P] = np.where(ringed, src % 4, 0)
        self.tie = np.zeros(max(int((t.cend - t.cstart).max(initial=0)), 1), np.int64)
        # the tile copies a state used, a bit each (beam.c): type k's copies are bits first[k]..first[k] + count - 1,
        # and bit `copies`, always set, is the last bit of every type with no free copy
        counts = t.type_count.astype(np.int64)
        copies = int(counts.sum())
        first = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        last = np.where(counts > 0, first + counts - 1, copies)
        self.words = copies // 64 + 1
        self.cand_first = np.ascontiguousarray(np.where(counts > 0, first, copies)[t.cand_type], np.int64)
        self.cand_last = np.ascontiguousarray(last[t.cand_type], np.int64)
        self.used0 = np.zeros(self.words, np.uint64)  # the empty board's: only the bit always set
        self.used0[copies // 64] = np.uint64(1) << np.uint64(copies % 64)
        weights = rare_colour_weights(puzzle, t) if prefer == "rare" else np.zeros(len(t.type_count), np.int64)
        self.cand_w = np.ascontiguousarray(weights[t.cand_type], np.int64)

    def memory(self, width: int, fanout: int) -> int:
        """Bytes a beam of this width and fanout takes (see the module docstring)."""
        P = self.t.positions
        return 8 * P * width + 2 * width * (4 * self.ring + 8 * self.words + 8) + 40 * fanout * width


def rare_colour_weights(puzzle: Puzzle, t: BestTables) -> np.ndarray:
    """Per tile type, how many of its sides show a *rare* colour: one of the rarer half of the colours on the free
    tiles (the frame's excepted; a colour and its partner count as one). Ties of breaks keep the boards that
    placed more of them, so the tiles left have fewer colours between them and fit each other more easily (Louis
    Verhaard's eii saved its good tiles for last by placing bad colour groups first, 2009)."""
    def colour(label: int) -> int:
        return seam_colour(puzzle, label)

    seen: dict[int, int] = {}
    for rep, n in zip(t.types.reps, t.type_count.tolist(), strict=True):
        for label in rep:
            if label != puzzle.frame:
                seen[colour(label)] = seen.get(colour(label), 0) + int(n)
    ranked = sorted(seen, key=lambda c: (seen[c], c))
    rare = set(ranked[: len(ranked) // 2])
    return np.array([sum(colour(label) in rare for label in rep if label != puzzle.frame) for rep in t.types.reps],
                    np.int64)


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
    chunks (the first-solution share). The steps are ``best/beam.c``'s, on arrays allocated once per beam."""
    t = bt.t
    P = t.positions
    steps = _Steps(bt)
    rng = kernels.seeded(seed)
    R, words = bt.ring, bt.words
    rings = [np.zeros((width, R), np.int32) for _ in range(2)]  # the current layer and the next, in turn
    useds = [np.zeros((width, words), np.uint64) for _ in range(2)]
    brks = [np.zeros(width, np.int32) for _ in range(2)]
    keys = [np.zeros(width, np.int32) for _ in range(2)]
    useds[0][0] = bt.used0
    ch_parent, ch_cand, ch_brk, ch_key = (np.empty(width * fanout, np.int32) for _ in range(4))
    keep = np.empty(width, np.int64)
    par = np.zeros((P, width), np.int32)
    cand = np.zeros((P, width), np.int32)
    a = kernels.pointer
    layer = [(a(rings[i], np.int32, "ring", (width, R)), a(useds[i], np.uint64, "used", (width, words)),
              a(brks[i], np.int32, "brk", (width,)), a(keys[i], np.int32, "key", (width,))) for i in range(2)]
    children = (a(ch_parent, np.int32, "ch_parent"), a(ch_cand, np.int32, "ch_cand"), a(ch_brk, np.int32, "ch_brk"),
                a(ch_key, np.int32, "ch_key"))
    p_keep, p_rng = a(keep, np.int64, "keep"), a(rng, np.uint64, "rng")
    p_par, p_cand = a(par, np.int32, "par", (P, width)), a(cand, np.int32, "cand", (P, width))
    n_cur, now = 1, 0  # states in the current layer; which buffers hold it
    chunk = 256
    for p in range(P):
        n_ch = 0
        s = 0
        ring, used, brk, key = layer[now]
        while s < n_cur:
            hi = min(n_cur, s + chunk)
            began = clock.now()
            n_ch = steps.expand(p, s, hi, ring, R, used, words, brk, *steps.tables, steps.width, fanout,
                                key, steps.cand_w, *children, n_ch, steps.tie, p_rng)
            took = clock.now() - began
            if took > 0:
                chunk = int(min(max((hi - s) / took * CHUNK_SECONDS, 64), 1 << 20))
            s = hi
            if deadline is not None and clock.now() >= deadline:
                raise _Stop
            if pause is not None:
                pause()
        counters["children"] += n_ch
        if n_ch == 0:
            return None
        n = steps.truncate(children[2], children[3], n_ch, width, p_keep, p_rng)
        if n < 0:
            raise MemoryError("beam: no memory to sort a layer's children")
        new_ring, new_used, new_brk, new_key = layer[1 - now]
        if steps.materialise(p, p_keep, n, n_cur, *children, ring, R, used, words, new_ring, new_used, new_brk,
                             new_key, p % R, steps.cand_first, p_par, p_cand, width) < 0:
            raise MemoryError("beam: no memory to lay out a layer's states")
        now, n_cur = 1 - now, n
        counters["states"] += n
    picks = np.zeros(P, np.int64)
    j = best = int(np.argmin(brks[now][:n_cur]))  # the first state with the fewest breaks
    for p in range(P - 1, -1, -1):
        picks[p] = cand[p, j]
        j = int(par[p, j])
    return picks, int(brks[now][best])


class _Steps:
    """The C steps of one :class:`BeamTables`, with the addresses of its (checked) tables taken once."""

    NAMES = ("combo", "extra_n", "extra_side", "src_const", "src_slot", "src_side", "cstart", "cend", "ra_s", "ra_e",
             "ab_s", "ab_e", "rb_s", "rb_e", "bperm", "cand_last", "cand_first", "cand_edge", "cand_la", "cand_lb")

    def __init__(self, bt: BeamTables):
        lib = kernels.require()
        self.expand, self.truncate, self.materialise = lib.em_beam_expand, lib.em_beam_truncate, lib.em_beam_materialise
        t = bt.t
        P, C = max(t.positions, 1), len(t.cand_type)
        own = {"src_const", "src_slot", "src_side", "cand_last", "cand_first"}  # BeamTables' own, not BestTables'
        arrays = {name: np.ascontiguousarray(getattr(bt if name in own else t, name), np.int64) for name in self.NAMES}
        cols = arrays["extra_side"].shape[1] if arrays["extra_side"].ndim == 2 else 0
        if cols > 2 or len(arrays["combo"]) < t.positions or len(arrays["extra_n"]) < t.positions:
            raise BackendError("native backend: internal error: beam tables do not match the positions")
        shapes = {"extra_side": (None, cols), "src_const": (P, 4), "src_slot": (P, 4), "src_side": (P, 4),
                  "cand_last": (C,), "cand_first": (C,), "cand_edge": (C, 4), "cand_la": (C,), "cand_lb": (C,),
                  "bperm": (C,)}
        p = {name: kernels.pointer(arrays[name], np.int64, name, shapes.get(name)) for name in self.NAMES}
        self.tables = (p["combo"], p["extra_n"], p["extra_side"], cols, p["src_const"], p["src_slot"], p["src_side"],
                       *(p[name] for name in ("cstart", "cend", "ra_s", "ra_e", "ab_s", "ab_e", "rb_s", "rb_e", "bperm",
                                              "cand_last", "cand_edge", "cand_la", "cand_lb")))
        self.cand_first = p["cand_first"]
        self.width = int(t.width)  # the label count the candidate ranges are indexed by
        self.tie = kernels.pointer(bt.tie, np.int64, "tie")
        self.cand_w = kernels.pointer(bt.cand_w, np.int64, "cand_w", (C,))
        if len(bt.tie) < int((t.cend - t.cstart).max(initial=0)):
            raise BackendError("native backend: internal error: the beam's tie buffer is shorter than a combo")
        self._keep = (arrays, bt.tie, bt.cand_w)  # every array the steps point into


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


def beam_options(options: dict) -> tuple[int | None, int, str, int, str]:
    """``width`` (None: doubling), ``fanout``, ``order``, ``seed`` and ``prefer``, checked (a bad one:
    UsageError)."""
    width = whole(options["width"], "width", least=1) if "width" in options else None
    fanout = whole(options.get("fanout", FANOUT), "fanout", least=1)
    order = str(options.get("order", "comb"))
    if not is_order(order):
        raise UsageError(f"native backend: beam order must be one of {', '.join(ORDERS)} or combK (the last K "
                         f"rows column by column, K from 1 to 9999), got {order!r}")
    seed = whole(options.get("seed", 0), "seed")
    prefer = str(options.get("prefer", PREFER))
    if prefer not in PREFERS:
        raise UsageError(f"native backend: prefer must be one of {', '.join(PREFERS)}, got {prefer!r}")
    return width, fanout, order, seed, prefer
