"""Puzzle -> CNF in the style of Heule's edge-matching encoding, with a decoder back to a board.

Variables come from an id pool keyed by tuples, so every variable decodes and every clause prints as
words: ``("x", cell, type, turn)`` places a tile type on a cell with a turn (explicit turns: simpler than
implying them from seam labels, and the domains are already filtered); ``("c", seam, label)`` gives a seam
its (norm) label; border and inner seams draw on their own label sets because the domains do.

Clauses:
- every free cell: exactly one placement (at least one + at most one);
- every tile type: at least as many cells as copies; with ``one_to_one`` (default) also at most that many
  (Heule's explicit one-to-one mapping: redundant given the cells' exactly-one, which is why it helps);
- every seam: at least one label; placement -> the label it shows on each seam it touches;
- ``support`` (default): label -> some placement showing it on each side (MEASURED.md: essential);
- ``forbidden`` (default): at most one label per seam (forbidden label pairs).
At least one of support / forbidden is needed for correctness. ``amo`` names PySAT's cardinality
encoding for the at-most constraints (pairwise, seqcounter, ladder, totalizer, bitwise, ...).
``symmetry`` fixes the board turn with an anchor tile as in the CP-SAT encoding.

The auxiliary variables a cardinality encoding adds are named too: each constraint's run of them is kept in
``CnfEncoding.aux`` with what it bounds, so the DIMACS header names every variable ``1..n`` (e.g.
``aux #3 of ladder at-most-1 over cell 5's placements``).

PySAT is imported inside :func:`encode` only.
"""

from __future__ import annotations

import bisect
import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.core.symmetry import board_turns
from edgematch.core.tiletypes import Board, TileTypes
from edgematch.encodings.domains import Domains, anchor, domains
from edgematch.errors import FormatError, UsageError, quoted

AMO_ENCODINGS = ("pairwise", "seqcounter", "ladder", "totalizer", "bitwise", "sortnetwrk", "cardnetwrk",
                 "mtotalizer", "kmtotalizer")
AMO_ONLY = ("pairwise", "ladder", "bitwise")  # bounds above one (several identical tiles) use seqcounter


@dataclass(frozen=True)
class CnfOptions:
    """The clause families and encodings the harness can sweep."""

    one_to_one: bool = True
    forbidden: bool = True
    support: bool = True
    amo: str = "seqcounter"
    symmetry: bool = True

    def __post_init__(self) -> None:
        if self.amo not in AMO_ENCODINGS:
            raise UsageError(f"unknown at-most-one encoding {self.amo!r}; choose one of: {', '.join(AMO_ENCODINGS)}")
        if not (self.support or self.forbidden):
            raise UsageError("CNF needs support or forbidden clauses (or both): without them seams may mismatch")

    def words(self) -> str:
        return " ".join(f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in asdict(self).items())

    @classmethod
    def parse(cls, text: str) -> CnfOptions:
        """The inverse of :meth:`words` (for the DIMACS header); anything else is a UsageError."""
        known = [f.name for f in fields(cls)]
        values: dict[str, Any] = {}
        for word in text.split():
            key, _, value = word.partition("=")
            if key not in known:
                raise UsageError(f"unknown CNF option {quoted(key)} (known: {', '.join(known)})")
            if key != "amo" and value not in ("0", "1"):
                raise UsageError(f"CNF option {key} is 0 or 1, got {quoted(value)}")
            values[key] = value if key == "amo" else value == "1"
        return cls(**values)


class ModelError(FormatError):
    """A SAT model that describes no board (two tiles on a cell, a tile used too often); ``literal`` is
    the variable that breaks it, so a reader can name its line."""

    def __init__(self, message: str, literal: int):
        super().__init__(message)
        self.literal = literal


@dataclass(frozen=True)
class AuxRun:
    """The auxiliary variables ``first..last`` one cardinality constraint added, and that constraint in words
    (e.g. ``ladder at-most-1 over cell 5's placements``)."""

    first: int
    last: int
    what: str


@dataclass
class CnfEncoding:
    """Clauses, the pool that names their variables, and how to read a board from a model."""

    clauses: list[list[int]]
    pool: Any
    placements: dict[int, tuple[int, int, int]]  # variable -> (cell, type, turn)
    types: TileTypes
    domains: Domains
    options: CnfOptions
    turns: int = 1
    anchor: int | None = None
    stats: dict[str, float] = field(default_factory=dict)
    aux: list[AuxRun] = field(default_factory=list)  # the cardinality encodings' variables, in order
    _firsts: list[int] = field(default_factory=list, init=False, repr=False, compare=False)  # aux's firsts

    @property
    def variables(self) -> int:
        return self.pool.top

    def decode(self, model: Iterable[int]) -> Board:
        """The board a model describes (its true placement variables). A model no SAT solver would give for
        this CNF (two placements on one cell, more placements of a tile than its copies) is a ModelError."""
        board: list[tuple[int, int] | None] = [None] * self.domains.puzzle.size
        chosen: dict[int, int] = {}  # cell -> its true placement variable
        used: Counter[int] = Counter()
        for lit in model:
            if lit <= 0 or lit not in self.placements or chosen.get(self.placements[lit][0]) == lit:
                continue
            cell, t, r = self.placements[lit]
            if cell in chosen:
                raise ModelError(f"variables {chosen[cell]} and {lit} are both true, but a cell holds one tile: "
                                 f"{self.describe(chosen[cell])}; {self.describe(lit)}", lit)
            chosen[cell] = lit
            used[t] += 1
            if used[t] > self.types.count(t):
                copies = self.types.count(t)
                raise ModelError(f"variable {lit} is true ({self.describe(lit)}), which places that tile on "
                                 f"{used[t]} cells; the puzzle has {copies} of it", lit)
            board[cell] = (t, r)
        return board

    def block(self, board: Board) -> list[int]:
        """A clause that rules out exactly this board."""
        return [-self.pool.id(("x", c, *p)) for c, p in enumerate(board) if p is not None]

    def describe(self, var: int) -> str:
        """A variable in words; an auxiliary variable of a cardinality encoding by the constraint it serves."""
        key = self.pool.obj(abs(var))
        if key is None:
            if len(self._firsts) != len(self.aux):  # built once (not per variable: to_dimacs names them all)
                self._firsts = [run.first for run in self.aux]
            at = bisect.bisect_right(self._firsts, abs(var)) - 1
            if at >= 0 and abs(var) <= self.aux[at].last:
                run = self.aux[at]
                return f"aux #{abs(var) - run.first + 1} of {run.what}"
            return f"aux {abs(var)}"
        if key[0] == "x":
            _, cell, t, r = key
            tiles = ",".join(str(tile) for tile, _ in self.types.members[t])
            return f"cell {cell} holds tile {tiles} turned {r}"
        _, seam, label = key
        s = self.domains.seams[seam]
        return f"seam {s.a}/{s.b} has label {label}"


def encode(puzzle: Puzzle, options: CnfOptions | None = None) -> CnfEncoding:
    """The CNF of ``puzzle`` under ``options``."""
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool

    options = options or CnfOptions()
    start = clock.now()
    dom = domains(puzzle)
    types = dom.types
    turns = board_turns(puzzle)
    pinned = anchor(puzzle, types, turns) if options.symmetry else None
    if pinned is not None:
        keep = set(range(4 // len(turns)))
        for c, choices in dom.cells.items():
            dom.cells[c] = [(t, r) for t, r in choices if t != pinned or r in keep]
    pool = IDPool()
    clauses: list[list[int]] = []
    aux: list[AuxRun] = []

    def cardinality(lits: list[int], bound: int, name: str, least: bool, over: str) -> None:
        """Clauses of ``at most`` (or ``at least``) ``bound`` of ``lits``; the variables the encoding adds are
        recorded with what they serve, so the header can name them."""
        before = pool.top
        kind = getattr(EncType, name)
        made = (CardEnc.atleast if least else CardEnc.atmost)(lits, bound=bound, vpool=pool, encoding=kind)
        clauses.extend(made.clauses)
        if pool.top > before:
            aux.append(AuxRun(before + 1, pool.top, f"{name} at-{'least' if least else 'most'}-{bound} over {over}"))

    def tile(t: int) -> str:
        tiles = [str(tile) for tile, _ in types.members[t]]
        return f"tile {tiles[0]}'s placements" if len(tiles) == 1 else f"tiles {','.join(tiles)}'s placements"

    def at_most(lits: list[int], bound: int, over: str) -> None:
        if len(lits) > bound:
            name = options.amo if bound == 1 or options.amo not in AMO_ONLY else "seqcounter"
            cardinality(lits, bound, name, False, over)

    x: dict[int, dict[tuple[int, int], int]] = {}
    placements: dict[int, tuple[int, int, int]] = {}
    for c, choices in dom.cells.items():
        x[c] = {}
        for t, r in choices:
            var = pool.id(("x", c, t, r))
            x[c][(t, r)] = var
            placements[var] = (c, t, r)
    by_type: dict[int, list[int]] = {t: [] for t in range(len(types.reps))}
    for c, lits in x.items():
        clauses.append(list(lits.values()))  # at least one placement (empty clause if none left)
        at_most(list(lits.values()), 1, f"cell {c}'s placements")
        for (t, _), var in lits.items():
            by_type[t].append(var)
    for t, lits in by_type.items():
        copies = types.count(t)
        if copies == 1 or len(lits) < copies:
            clauses.append(lits if copies == 1 else [])  # too few places left for the copies: unsatisfiable
        elif len(lits) == copies:
            clauses.extend([lit] for lit in lits)
        else:
            cardinality(lits, copies, "seqcounter", True, tile(t))
        if options.one_to_one:
            at_most(lits, copies, tile(t))
    for seam in dom.seams:
        shows = dom.shows(seam, x)
        colour = {label: pool.id(("c", seam.index, label)) for label in sorted(shows)}
        clauses.append(list(colour.values()))
        if options.forbidden:
            labels = list(colour.values())
            clauses.extend([-a, -b] for i, a in enumerate(labels) for b in labels[i + 1:])
        for label, (left, right) in shows.items():
            clauses.extend([-var, colour[label]] for var in left + right)
            if options.support:
                clauses.append([-colour[label], *left])
                clauses.append([-colour[label], *right])
    return CnfEncoding(
        clauses=clauses, pool=pool, placements=placements, types=types, domains=dom, options=options,
        turns=len(turns) if pinned is not None else 1, anchor=pinned, aux=aux,
        stats={"variables": pool.top, "clauses": len(clauses), "placements": len(placements),
               "encode_seconds": clock.now() - start},
    )


def fingerprint(puzzle: Puzzle) -> str:
    """A short hash of the puzzle's content, so a CNF is only ever decoded against its own puzzle."""
    from edgematch.formats import write_puzzle

    return hashlib.sha256(write_puzzle(puzzle.replace(name="", labels={}), format="json").encode()).hexdigest()[:16]


def to_dimacs(enc: CnfEncoding, title: str = "") -> str:
    """DIMACS text with a comment header that names every variable, the cardinality encodings' auxiliary
    ones by the constraint they serve."""
    out = [f"c edgematch CNF{': ' + title if title else ''}", f"c options {enc.options.words()}",
           f"c puzzle {fingerprint(enc.domains.puzzle)}"]
    out.extend(f"c var {var} = {enc.describe(var)}" for var in range(1, enc.variables + 1))
    out.append(f"p cnf {enc.variables} {len(enc.clauses)}")
    out.extend(" ".join(map(str, clause)) + " 0" for clause in enc.clauses)
    return "\n".join(out) + "\n"
