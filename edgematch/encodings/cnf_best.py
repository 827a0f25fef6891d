"""Puzzle -> (weighted) CNF of the best-score question: hard clauses for an admissible board, a soft unit
per seam-fits literal.

The same model as :mod:`~edgematch.encodings.cpsat_best`, in clauses (variables named by tuples in an id pool,
as in :mod:`~edgematch.encodings.cnf`):
- ``("x", cell, type, turn)``: exactly one per free cell; each tile type on exactly as many cells as it has
  copies (at most and at least: without seam constraints nothing else stops a tile from being used twice);
- ``("s", cell, side, label)`` <-> some placement of the cell shows ``label`` on ``side``;
- ``("f", seam)`` <-> both sides show the same (norm) label; a seam beside a hint uses the free side's ``s``.
Hard: the clauses above (the placement CNF without any seam constraint). Soft: each fit literal, weight 1.
MaxSAT maximises the satisfied soft units (= the fitting seams, plus ``space.constant``).

PySAT is imported inside :func:`encode_best` only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.core.tiletypes import Board
from edgematch.encodings.best import BestSpace, best_space
from edgematch.encodings.cnf import AMO_ENCODINGS, AMO_ONLY
from edgematch.errors import UsageError


@dataclass
class CnfBestEncoding:
    """Hard clauses, soft literals, the pool that names the variables, and the way back to a board."""

    hard: list[list[int]]
    soft: list[int]                              # fit literals: each true one is a fitting seam
    pool: Any
    placements: dict[int, tuple[int, int, int]]  # variable -> (cell, type, turn)
    space: BestSpace
    stats: dict[str, float] = field(default_factory=dict)

    @property
    def variables(self) -> int:
        return self.pool.top

    def decode(self, model: Iterable[int]) -> Board:
        """The board a model of the hard clauses describes (its true placement variables)."""
        board: list[tuple[int, int] | None] = [None] * self.space.puzzle.size
        for lit in model:
            if lit > 0 and lit in self.placements:
                cell, t, r = self.placements[lit]
                board[cell] = (t, r)
        return board

    def wcnf(self) -> Any:
        """The problem as PySAT's WCNF (hard clauses, each fit literal a soft unit of weight 1)."""
        from pysat.formula import WCNF

        formula = WCNF()
        formula.extend(self.hard)
        formula.extend([[lit] for lit in self.soft], weights=[1] * len(self.soft))
        return formula


def encode_best(puzzle: Puzzle, symmetry: bool = True, amo: str = "seqcounter") -> CnfBestEncoding:
    """The best-score CNF of ``puzzle`` (``amo``: PySAT's cardinality encoding for the exactly-one rows)."""
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool

    if amo not in AMO_ENCODINGS:
        raise UsageError(f"unknown at-most-one encoding {amo!r}; choose one of: {', '.join(AMO_ENCODINGS)}")
    start = clock.now()
    space = best_space(puzzle, symmetry)
    pool = IDPool()
    hard: list[list[int]] = []

    def exactly(lits: list[int], bound: int) -> None:
        if len(lits) < bound:
            hard.append([])  # not enough places for the copies: no board
        elif len(lits) == bound:
            hard.extend([lit] for lit in lits)
        elif bound == 1:
            hard.append(list(lits))
            hard.extend(CardEnc.atmost(lits, bound=1, vpool=pool, encoding=getattr(EncType, amo)).clauses)
        else:
            kind = EncType.seqcounter if amo in AMO_ONLY else getattr(EncType, amo)
            hard.extend(CardEnc.equals(lits, bound=bound, vpool=pool, encoding=kind).clauses)

    x: dict[int, dict[tuple[int, int], int]] = {}
    placements: dict[int, tuple[int, int, int]] = {}
    for c, options in space.cells.items():
        x[c] = {}
        for t, r in options:
            var = pool.id(("x", c, t, r))
            x[c][(t, r)] = var
            placements[var] = (c, t, r)
    by_type: dict[int, list[int]] = {t: [] for t in range(len(space.types.reps))}
    for lits in x.values():
        exactly(list(lits.values()), 1)
        for (t, _), var in lits.items():
            by_type[t].append(var)
    for t, lits in by_type.items():
        exactly(lits, space.types.count(t))
    s: dict[tuple[int, int], dict[int, int]] = {}
    for cell, side in space.sides():
        s[(cell, side)] = {}
        for label, shown in space.showing(cell, side).items():
            lit = pool.id(("s", cell, side, label))
            s[(cell, side)][label] = lit
            chosen = [x[cell][p] for p in shown]
            hard.append([-lit, *chosen])
            hard.extend([-var, lit] for var in chosen)
    soft: list[int] = []
    for seam in space.seams:
        left, right = s[(seam.a, seam.side_a)], s[(seam.b, seam.side_b)]
        if not set(left) & set(right):
            continue  # no label on both sides: this seam never fits
        fit = pool.id(("f", seam.index))
        for label, lit in left.items():
            if label in right:
                hard.append([-fit, -lit, right[label]])
                hard.append([-lit, -right[label], fit])
            else:
                hard.append([-fit, -lit])
        hard.extend([-fit, -lit] for label, lit in right.items() if label not in left)
        soft.append(fit)
    for pin in space.pinned:
        if pin.label in s[(pin.cell, pin.side)]:
            soft.append(s[(pin.cell, pin.side)][pin.label])
    return CnfBestEncoding(
        hard=hard, soft=soft, pool=pool, placements=placements, space=space,
        stats={"variables": pool.top, "clauses": len(hard), "soft": len(soft), **space.stats,
               "encode_seconds": clock.now() - start},
    )
