"""Puzzle -> OR-tools CP-SAT model, in two formulations, with a decoder back to a board.

``bool``: a literal per legal (cell, type, turn), exactly one per cell, each type used as often as it
has copies, a literal per (seam, label) with exactly one per seam, placement -> seam label, and the
"support" clauses seam label -> some placement showing it on each side (MEASURED.md: essential).

``table`` (after the XCSP Eternity model): a tile-type variable per free cell, each type used as often as it
has copies (a global cardinality over "cell holds type" literals, so identical copies are one value and each
board is found once), a shared label variable per seam, and one allowed-assignments table per cell over
(type, turn, seam labels). It deliberately has no AddInverse: OR-tools 9.15's presolve loses solutions when
Inverse and allowed-assignments tables meet (``benchmarks/bugs/ortools_inverse_table_presolve.py``; 7% of
small framed boards here came out short or unsat).

Both work on :mod:`~edgematch.encodings.domains` (placements filtered to a fixpoint, rule compiled to
equality) and on tile types, so a solution is a board: raw = boards x types.multiplier. ``anchor``
optionally fixes the board's turn (one unique, non-symmetric tile may take only some turns), which keeps
one board per orbit: then distinct = boards and raw = boards x turns x multiplier.

ortools is imported inside :func:`encode` only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.core.symmetry import board_turns
from edgematch.core.tiletypes import Board, TileTypes
from edgematch.encodings.domains import Domains, anchor, domains
from edgematch.errors import UsageError

FORMULATIONS = ("bool", "table")
DEFAULT_FORMULATION = "bool"

Reader = Callable[[Any], int]  # a solver's value() for a variable or literal


@dataclass
class CpsatEncoding:
    """A built model and how to read a board back from a solver's values."""

    model: Any
    formulation: str
    types: TileTypes
    domains: Domains
    decode: Callable[[Reader], Board]
    turns: int = 1              # board turns folded away by the anchor (1 when none)
    anchor: int | None = None
    unsat: bool = False         # a cell lost every placement while filtering
    stats: dict[str, float] = field(default_factory=dict)


def encode(puzzle: Puzzle, formulation: str = DEFAULT_FORMULATION, symmetry: bool = True) -> CpsatEncoding:
    """Build the CP-SAT model of ``puzzle`` (``symmetry``: fix the board turn when an anchor exists)."""
    from ortools.sat.python import cp_model

    if formulation not in FORMULATIONS:
        raise UsageError(f"unknown CP-SAT formulation {formulation!r}; choose one of: {', '.join(FORMULATIONS)}")
    start = clock.now()
    dom = domains(puzzle)
    types = dom.types
    turns = board_turns(puzzle)
    pinned = anchor(puzzle, types, turns) if symmetry else None
    if pinned is not None:
        keep = set(range(4 // len(turns)))
        for c, options in dom.cells.items():
            dom.cells[c] = [(t, r) for t, r in options if t != pinned or r in keep]
    model = cp_model.CpModel()
    build = _bool if formulation == "bool" else _table
    decode = build(model, dom) if not dom.empty else (lambda value: [])
    if dom.empty:
        model.add_bool_or([])  # no placement left for some cell: infeasible
    proto = model.proto
    return CpsatEncoding(
        model=model, formulation=formulation, types=types, domains=dom, decode=decode,
        turns=len(turns) if pinned is not None else 1, anchor=pinned, unsat=dom.empty,
        stats={"variables": len(proto.variables), "constraints": len(proto.constraints),
               "placements": dom.placements, "encode_seconds": clock.now() - start},
    )


def _bool(model: Any, dom: Domains) -> Callable[[Reader], Board]:
    x = {c: {p: model.new_bool_var(f"x[{c},{p[0]},{p[1]}]") for p in options} for c, options in dom.cells.items()}
    for c in x:
        model.add_exactly_one(x[c].values())
    by_type: dict[int, list[Any]] = {}
    for c in x:
        for (t, _), lit in x[c].items():
            by_type.setdefault(t, []).append(lit)
    for t, lits in by_type.items():
        if dom.types.count(t) == 1:
            model.add_exactly_one(lits)
        else:
            model.add(sum(lits) == dom.types.count(t))
    for seam in dom.seams:
        shows = dom.shows(seam, x)
        y = {label: model.new_bool_var(f"y[{seam.index},{label}]") for label in shows}
        model.add_exactly_one(y.values())
        for label, (left, right) in shows.items():
            for lit in left + right:
                model.add_implication(lit, y[label])
            model.add_bool_or([y[label].Not(), *left])   # support: the label is shown on side a ...
            model.add_bool_or([y[label].Not(), *right])  # ... and on side b

    def decode(value: Reader) -> Board:
        board: list[tuple[int, int] | None] = [None] * dom.puzzle.size
        for c, lits in x.items():
            board[c] = next(p for p, lit in lits.items() if value(lit))
        return board

    return decode


def _table(model: Any, dom: Domains) -> Callable[[Reader], Board]:
    cells = sorted(dom.cells)
    kind = {c: model.new_int_var_from_domain(_domain(sorted({t for t, _ in dom.cells[c]})), f"type[{c}]")
            for c in cells}
    turn = {c: model.new_int_var(0, 3, f"turn[{c}]") for c in cells}
    uses: dict[int, list[Any]] = {}  # type -> "cell c holds this type", one literal per cell that may
    for c in cells:
        here = []
        for t in sorted({t for t, _ in dom.cells[c]}):
            holds = model.new_bool_var(f"holds[{c},{t}]")
            model.add(kind[c] == t).only_enforce_if(holds)
            model.add(kind[c] != t).only_enforce_if(holds.Not())
            here.append(holds)
            uses.setdefault(t, []).append(holds)
        model.add_exactly_one(here)
    for t, lits in uses.items():  # a global cardinality: each type as often as it has copies
        model.add(sum(lits) == dom.types.count(t))
    seam_var = {}
    for seam in dom.seams:
        labels = sorted({dom.label(seam.a, p, seam.side_a) for p in dom.cells[seam.a]})
        seam_var[seam.index] = model.new_int_var_from_domain(_domain(labels), f"seam[{seam.index}]")
    sides_of: dict[int, list[tuple[int, int]]] = {c: [] for c in cells}  # cell -> [(side, seam)]
    for seam in dom.seams:
        sides_of[seam.a].append((seam.side_a, seam.index))
        sides_of[seam.b].append((seam.side_b, seam.index))
    for c in cells:
        rows = [[t, r, *(dom.label(c, (t, r), side) for side, _ in sides_of[c])] for t, r in dom.cells[c]]
        model.add_allowed_assignments([kind[c], turn[c], *(seam_var[s] for _, s in sides_of[c])], rows)

    def decode(value: Reader) -> Board:
        board: list[tuple[int, int] | None] = [None] * dom.puzzle.size
        for c in cells:
            board[c] = (value(kind[c]), value(turn[c]))
        return board

    return decode


def _domain(values: list[int]) -> Any:
    from ortools.sat.python import cp_model

    return cp_model.Domain.from_values(values)
