"""Puzzle -> CP-SAT model of the best-score question: maximise the inner seams that fit.

Variables and constraints (on :mod:`~edgematch.encodings.best`'s admissible placements):
- ``x[cell, type, turn]``: exactly one per free cell; each tile type on as many cells as it has copies;
- ``s[cell, side, label]`` <-> some placement of the cell shows ``label`` on ``side`` (one literal per label a
  side can show, only for sides on a scoring seam);
- ``fit[seam]`` <-> the two sides show the same (norm) label: ``fit & s[a, L] -> s[b, L]`` for every label
  ``L`` of side a (``fit -> not s[a, L]`` when side b cannot show it) and ``s[a, L] & s[b, L] -> fit``.
  Both directions, so the objective is the board's exact score. A seam beside a hint fits exactly when the
  free side shows the hint's label: its fit literal is that ``s``.
Objective: maximise the fit literals (plus the seams between hints, which always fit).

With ``warm`` (the default) the model carries a complete hint, the greedy board of
:func:`~edgematch.encodings.best.greedy`: on large boards CP-SAT's single worker otherwise spends the whole
minute without a first board (16x16 E2-like: none in 40 s).

ortools is imported inside :func:`encode_best` only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.core.tiletypes import Board
from edgematch.encodings.best import BestSpace, best_space, greedy

Reader = Callable[[Any], int]  # a solver's boolean_value() for a literal


@dataclass
class CpsatBestModel:
    """A built model, its score's parts, and how to read a board back from a solver's values."""

    model: Any
    space: BestSpace
    fits: list[Any]          # the objective's literals (one per scoring seam that can fit)
    decode: Callable[[Reader], Board]
    stats: dict[str, float] = field(default_factory=dict)
    start: Board | None = None  # the greedy board the model is hinted with (None: no hint)

    @property
    def unsat(self) -> bool:
        return self.space.empty


def encode_best(puzzle: Puzzle, symmetry: bool = True, warm: bool = True) -> CpsatBestModel:
    """The CP-SAT model maximising ``puzzle``'s fitting seams over its admissible boards (``warm``: hint the
    greedy board as a first solution)."""
    from ortools.sat.python import cp_model

    start = clock.now()
    space = best_space(puzzle, symmetry)
    model = cp_model.CpModel()
    fits: list[Any] = []
    if space.empty:
        model.add_bool_or([])  # a cell has no admissible placement: no board at all
        return CpsatBestModel(model, space, fits, lambda value: [], _stats(model, space, start))
    x = {c: {p: model.new_bool_var(f"x[{c},{p[0]},{p[1]}]") for p in options} for c, options in space.cells.items()}
    for lits in x.values():
        model.add_exactly_one(lits.values())
    by_type: dict[int, list[Any]] = {}
    for lits in x.values():
        for (t, _), lit in lits.items():
            by_type.setdefault(t, []).append(lit)
    for t, lits in by_type.items():
        copies = space.types.count(t)
        if copies == 1:
            model.add_exactly_one(lits)
        else:
            model.add(sum(lits) == copies)
    s: dict[tuple[int, int], dict[int, Any]] = {}
    fit_of: dict[int, Any] = {}  # seam index -> its fit literal
    for cell, side in space.sides():
        s[(cell, side)] = {}
        for label, placements in space.showing(cell, side).items():
            lit = model.new_bool_var(f"s[{cell},{side},{label}]")
            s[(cell, side)][label] = lit
            chosen = [x[cell][p] for p in placements]
            model.add_bool_or([lit.Not(), *chosen])
            for var in chosen:
                model.add_implication(var, lit)
    for seam in space.seams:
        left, right = s[(seam.a, seam.side_a)], s[(seam.b, seam.side_b)]
        if not set(left) & set(right):
            continue  # no label on both sides: this seam never fits
        fit = model.new_bool_var(f"fit[{seam.index}]")
        for label, lit in left.items():
            if label in right:
                model.add_bool_or([fit.Not(), lit.Not(), right[label]])
                model.add_bool_or([lit.Not(), right[label].Not(), fit])
            else:
                model.add_implication(fit, lit.Not())
        for label, lit in right.items():
            if label not in left:
                model.add_implication(fit, lit.Not())
        fits.append(fit)
        fit_of[seam.index] = fit
    for pin in space.pinned:
        if pin.label in s[(pin.cell, pin.side)]:
            fits.append(s[(pin.cell, pin.side)][pin.label])
    model.maximize(sum(fits))
    start_board = greedy(space) if warm else None
    if start_board is not None:
        _hint(model, space, start_board, x, s, fit_of)

    def decode(value: Reader) -> Board:
        board: list[tuple[int, int] | None] = [None] * puzzle.size
        for c, lits in x.items():
            board[c] = next(p for p, lit in lits.items() if value(lit))
        return board

    return CpsatBestModel(model, space, fits, decode, _stats(model, space, start), start_board)


def _hint(model: Any, space: BestSpace, board: Board, x: dict, s: dict, fit_of: dict) -> None:
    """Hint every variable with its value on ``board`` (a complete hint: CP-SAT starts from that board)."""
    for c, lits in x.items():
        for p, lit in lits.items():
            model.add_hint(lit, p == board[c])
    for (cell, side), lits in s.items():
        placed = board[cell]
        assert placed is not None
        for label, lit in lits.items():
            model.add_hint(lit, space.label(cell, placed, side) == label)
    for seam in space.seams:
        if seam.index in fit_of:
            pa, pb = board[seam.a], board[seam.b]
            assert pa is not None and pb is not None
            fits = space.label(seam.a, pa, seam.side_a) == space.label(seam.b, pb, seam.side_b)
            model.add_hint(fit_of[seam.index], fits)


def _stats(model: Any, space: BestSpace, start: float) -> dict[str, float]:
    proto = model.proto
    return {"variables": len(proto.variables), "constraints": len(proto.constraints), **space.stats,
            "encode_seconds": clock.now() - start}
