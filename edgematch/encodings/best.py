"""The best-score question's board space, shared by its CP-SAT and CNF encodings (no solver library here).

An *admissible* board keeps every rule except that seams may mismatch: each tile once (by tile type), hints
fixed, turns only where the puzzle allows them, and on a framed puzzle the frame shown outward on exactly the
border sides (border tiles stay on the border, inner cells never show the frame). So, unlike
:func:`~edgematch.encodings.domains.domains`, placements are filtered by frame and rotation only, never by
seams: a placement whose edge meets nothing is still a board, just a lower score.

The score counts inner seams whose edges fit. Seams are compared in norm labels
(:func:`~edgematch.encodings.domains.norm`), so "fits" is label equality under both rules. Seams split into:
- ``seams``: between two free cells (a fit literal each in the encodings);
- ``pinned``: a free cell beside a hinted one; it fits when the free side shows one given label, so the
  fit literal is that side's label literal;
- ``constant``: seams between two hinted cells (they always fit: the puzzle rejects clashing hints).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from edgematch.core.model import SIDES, Puzzle
from edgematch.core.symmetry import board_turns
from edgematch.core.tiletypes import Board, TileTypes, tile_types
from edgematch.encodings.domains import Seam, anchor, frame_placements, norm


@dataclass(frozen=True)
class Pinned:
    """A free cell's side beside a hinted cell: it fits when it shows ``label`` (norm)."""

    cell: int
    side: int
    label: int


@dataclass
class BestSpace:
    """Admissible placements per free cell and the seams that score."""

    puzzle: Puzzle
    types: TileTypes
    cells: dict[int, list[tuple[int, int]]]  # free cell -> admissible (type, turn)
    seams: list[Seam]                        # between two free cells
    pinned: list[Pinned]                     # a free cell beside a hint
    constant: int                            # seams between hinted cells (always fitting)
    turns: int = 1                           # board turns folded away by the anchor (1 when none)
    anchor: int | None = None
    stats: dict[str, float] = field(default_factory=dict)

    def label(self, cell: int, placement: tuple[int, int], side: int) -> int:
        """The norm label ``placement`` shows on ``side`` of ``cell``."""
        return norm(self.puzzle, side, self.types.shown(*placement)[side])

    def sides(self) -> list[tuple[int, int]]:
        """Every (free cell, side) that some scoring seam looks at, in a stable order."""
        out: dict[tuple[int, int], None] = {}
        for s in self.seams:
            out[(s.a, s.side_a)] = None
            out[(s.b, s.side_b)] = None
        for p in self.pinned:
            out[(p.cell, p.side)] = None
        return list(out)

    def showing(self, cell: int, side: int) -> dict[int, list[tuple[int, int]]]:
        """The placements of ``cell`` by the norm label they show on ``side``."""
        out: dict[int, list[tuple[int, int]]] = {}
        for p in self.cells[cell]:
            out.setdefault(self.label(cell, p, side), []).append(p)
        return out

    @property
    def empty(self) -> bool:
        """Some free cell has no admissible placement (no board exists)."""
        return any(not v for v in self.cells.values())

    @property
    def placements(self) -> int:
        return sum(len(v) for v in self.cells.values())

    def score(self, board: Board) -> int:
        """The board's fitting inner seams, as the encodings count them (the claim a backend makes; the
        independent checker re-counts it)."""
        total = self.constant
        for s in self.seams:
            pa, pb = board[s.a], board[s.b]
            assert pa is not None and pb is not None
            total += self.label(s.a, pa, s.side_a) == self.label(s.b, pb, s.side_b)
        for p in self.pinned:
            placed = board[p.cell]
            assert placed is not None
            total += self.label(p.cell, placed, p.side) == p.label
        return total


def greedy(space: BestSpace) -> Board | None:
    """A quick admissible board to start from: row-major, each cell takes the placement (of a type with copies
    left) fitting most of its placed and hinted neighbours. None when the greedy choice paints itself into a
    corner (possible only when an anchor tile is pinned to few cells)."""
    puzzle, types = space.puzzle, space.types
    left = [types.count(t) for t in range(len(types.reps))]
    board: list[tuple[int, int] | None] = [None] * puzzle.size
    hinted = {c: puzzle.tiles[t].rotated(r) for c, (t, r) in types.hinted.items()}

    def shown(cell: int, side: int) -> int | None:
        if cell in hinted:
            return norm(puzzle, side, hinted[cell][side])
        placed = board[cell]
        return None if placed is None else space.label(cell, placed, side)

    for c in sorted(space.cells):
        around = [(side, nb, shown(nb, (side + 2) % 4)) for side in SIDES
                  if (nb := puzzle.neighbour(c, side)) is not None]
        wanted = [(side, label) for side, _, label in around if label is not None]
        best, gain = None, -1
        for p in space.cells[c]:
            if left[p[0]]:
                fits = sum(space.label(c, p, side) == label for side, label in wanted)
                if fits > gain:
                    best, gain = p, fits
        if best is None:
            return None
        board[c] = best
        left[best[0]] -= 1
    return board


def best_space(puzzle: Puzzle, symmetry: bool = True) -> BestSpace:
    """The admissible placements of ``puzzle`` (``symmetry``: fix the board's turn with an anchor tile when
    one exists; every board turned keeps its score, so one turn of each is enough)."""
    types = tile_types(puzzle)
    hinted = {c: puzzle.tiles[t].rotated(r) for c, (t, r) in types.hinted.items()}
    turns = board_turns(puzzle)
    pinned_type = anchor(puzzle, types, turns) if symmetry else None
    keep = set(range(4 // len(turns)))
    cells = {c: [(t, r) for t, r in placements if t != pinned_type or r in keep]
             for c, placements in frame_placements(puzzle, types).items()}
    seams: list[Seam] = []
    pinned: list[Pinned] = []
    constant = 0
    for a, side_a, b, side_b in puzzle.seams():
        if a in hinted and b in hinted:
            constant += puzzle.matches(hinted[a][side_a], hinted[b][side_b])
        elif a in hinted:
            pinned.append(Pinned(b, side_b, norm(puzzle, side_a, hinted[a][side_a])))
        elif b in hinted:
            pinned.append(Pinned(a, side_a, norm(puzzle, side_b, hinted[b][side_b])))
        else:
            seams.append(Seam(len(seams), a, side_a, b, side_b))
    space = BestSpace(puzzle, types, cells, seams, pinned, constant,
                      turns=len(turns) if pinned_type is not None else 1, anchor=pinned_type)
    space.stats = {"placements": space.placements, "seams": len(seams) + len(pinned), "constant_seams": constant}
    return space
