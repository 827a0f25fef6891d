"""Which (type, turn) each free cell may take, filtered to a fixpoint before any model is built.

Start from the placements that fit the cell's frame sides (and hints), then repeatedly drop those whose
label on a side cannot meet any placement left on the other side of that seam. Fewer placements mean
fewer variables in every encoding (MEASURED.md: about 4x fewer on framed puzzles). Seams are compared in
norm labels (see ``norm``), so both rules reduce to equality here and in the encodings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from edgematch.core.model import SIDES, E, Puzzle, S
from edgematch.core.tiletypes import TileTypes, tile_types

T = TypeVar("T")


def norm(puzzle: Puzzle, side: int, label: int) -> int:
    """The rule compiled to equality: E and S edges keep their label, N and W edges take its partner."""
    return label if side in (E, S) else puzzle.partner(label)


@dataclass(frozen=True)
class Seam:
    """Two touching sides of free cells: (cell a, side of a) meets (cell b, side of b); a is W or N of b."""

    index: int
    a: int
    side_a: int
    b: int
    side_b: int


@dataclass
class Domains:
    """Placements per free cell, and the seams between free cells that an encoding must constrain."""

    puzzle: Puzzle
    types: TileTypes
    cells: dict[int, list[tuple[int, int]]]   # free cell -> [(type, turn)]
    seams: list[Seam]

    def label(self, cell: int, placement: tuple[int, int], side: int) -> int:
        """The norm label ``placement`` shows on ``side`` of ``cell``."""
        return norm(self.puzzle, side, self.types.shown(*placement)[side])

    def shows(self, seam: Seam, lits: dict[int, dict[tuple[int, int], T]]) -> dict[int, tuple[list[T], list[T]]]:
        """For each label the seam can take, the literals of the placements showing it on side a and on
        side b (``lits``: cell -> placement -> an encoding's literal)."""
        out: dict[int, tuple[list[T], list[T]]] = {}
        for p, lit in lits[seam.a].items():
            out.setdefault(self.label(seam.a, p, seam.side_a), ([], []))[0].append(lit)
        for p, lit in lits[seam.b].items():
            out.setdefault(self.label(seam.b, p, seam.side_b), ([], []))[1].append(lit)
        return out

    @property
    def placements(self) -> int:
        return sum(len(v) for v in self.cells.values())

    @property
    def empty(self) -> bool:
        return any(not v for v in self.cells.values())


def frame_placements(puzzle: Puzzle, types: TileTypes) -> dict[int, list[tuple[int, int]]]:
    """Per free (unhinted) cell, the placements (type, turn) that show the frame exactly on its outward sides:
    every rule but the seams (what the best-score question starts from, and the seam filtering below)."""
    frame = puzzle.frame
    cells: dict[int, list[tuple[int, int]]] = {}
    for c in range(puzzle.size):
        if c in types.hinted:
            continue
        border = set(puzzle.border_sides(c))
        cells[c] = [
            (t, r) for t in range(len(types.reps)) for r in types.turns[t]
            if frame is None or all((types.shown(t, r)[s] == frame) == (s in border) for s in SIDES)
        ]
    return cells


def domains(puzzle: Puzzle, types: TileTypes | None = None) -> Domains:
    """Placements per free cell after frame, hint and seam filtering to a fixpoint."""
    types = types or tile_types(puzzle)
    hinted = {c: puzzle.tiles[t].rotated(r) for c, (t, r) in types.hinted.items()}
    cells = frame_placements(puzzle, types)
    seams: list[Seam] = []
    fixed: list[tuple[int, int, int]] = []  # (free cell, side, norm label it must show) beside hints
    for a, side_a, b, side_b in puzzle.seams():
        if a in hinted and b in hinted:
            continue
        if a in hinted:
            fixed.append((b, side_b, norm(puzzle, side_a, hinted[a][side_a])))
        elif b in hinted:
            fixed.append((a, side_a, norm(puzzle, side_b, hinted[b][side_b])))
        else:
            seams.append(Seam(len(seams), a, side_a, b, side_b))
    result = Domains(puzzle, types, cells, seams)
    for c, side, label in fixed:
        cells[c] = [p for p in cells[c] if result.label(c, p, side) == label]
    changed = True
    while changed:
        changed = False
        for seam in seams:
            left = {result.label(seam.a, p, seam.side_a) for p in cells[seam.a]}
            right = {result.label(seam.b, p, seam.side_b) for p in cells[seam.b]}
            common = left & right
            if common != left:
                cells[seam.a] = [p for p in cells[seam.a] if result.label(seam.a, p, seam.side_a) in common]
                changed = True
            if common != right:
                cells[seam.b] = [p for p in cells[seam.b] if result.label(seam.b, p, seam.side_b) in common]
                changed = True
    return result


def anchor(puzzle: Puzzle, types: TileTypes, turns: tuple[int, ...]) -> int | None:
    """A type that can fix the board's turn: one copy, no rotational symmetry, turning allowed.

    Allowing it only turns ``range(4 // len(turns))`` keeps exactly one board of every orbit, and no
    board is its own turn (the anchor would have to sit on the centre turned two ways at once)."""
    if len(turns) < 2 or not puzzle.rotations:
        return None
    for t in range(len(types.reps)):
        if types.count(t) == 1 and len(types.turns[t]) == 4:
            return t
    return None
