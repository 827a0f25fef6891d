"""The puzzle model: tiles, puzzles, solutions, and the geometry every other layer relies on.

Glossary (used across the project):
    w, h    board width and height; cells are numbered row-major from the top-left, 0-based
    cell    a board position; row = cell // w, col = cell % w
    side    N E S W = 0 1 2 3, clockwise from the top
    t       a tile index into ``puzzle.tiles`` (0-based)
    r       a rotation: clockwise quarter turns; after r turns side i shows ``edges[(i - r) % 4]``
    label   an int on a tile edge; ``same`` rule: touching edges are equal; ``signed`` rule: +k meets -k
    frame   the optional label that must face outward on every border edge and never appear inside
    seam    two touching edges: (cell a, side E or S) against (the neighbour, side W or N)
"""

from __future__ import annotations

import functools
import itertools
import numbers
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple

from edgematch.errors import PuzzleError, UsageError, shown

if TYPE_CHECKING:
    import numpy as np

N, E, S, W = 0, 1, 2, 3
SIDES = (N, E, S, W)
SIDE_NAMES = ("N", "E", "S", "W")
OPPOSITE = (S, W, N, E)
RULES = ("same", "signed")

Rule = Literal["same", "signed"]
Edges = tuple[int, int, int, int]

# Numbers in files: ASCII digits with an optional leading minus (Python's int() also takes "2_0", "２" and
# "٢", which no puzzle file means), at most 18 digits, so every label fits a 64-bit integer in every backend.
MAX_DIGITS = 18
MAX_LABEL = 10**MAX_DIGITS - 1
_INTEGER = re.compile(r"-?[0-9]+")


def rotate_edges(edges: Sequence[int], r: int) -> Edges:
    """The labels facing N, E, S, W after ``r`` clockwise quarter turns (one turn: old W faces N)."""
    r %= 4
    edges = tuple(edges)
    return edges[4 - r:] + edges[:4 - r] if r else edges


@dataclass(frozen=True)
class Tile:
    """One square tile: four edge labels in the order N, E, S, W."""

    edges: Edges

    def __post_init__(self) -> None:
        edges = _sequence(self.edges, "a tile", "4 edge labels (N E S W)")
        if len(edges) != 4:
            raise PuzzleError(f"a tile has 4 edges (N E S W), got {len(edges)}: {shown(edges)}")
        for x in edges:
            if not _is_integer(x):
                raise PuzzleError(f"tile labels are integers, got {shown(x)} in {shown(edges)}")
            if abs(x) > MAX_LABEL:
                raise PuzzleError(f"tile labels are at most {MAX_DIGITS} digits long, got {shown(x)} "
                                  f"in {shown(edges)}")
        object.__setattr__(self, "edges", tuple(int(x) for x in edges))

    @classmethod
    def of(cls, n: int, e: int, s: int, w: int) -> Tile:
        return cls((n, e, s, w))

    def rotated(self, r: int) -> Edges:
        """The labels facing N, E, S, W when the tile is placed with ``r`` clockwise turns."""
        return rotate_edges(self.edges, r)

    def period(self) -> int:
        """Smallest number of turns that maps the tile onto itself: 1, 2 or 4."""
        for p in (1, 2):
            if self.rotated(p) == self.edges:
                return p
        return 4

    def distinct_rotations(self) -> tuple[int, ...]:
        """Rotations that look different (a self-symmetric tile has fewer than four)."""
        return tuple(range(self.period()))

    def canonical(self, rotations: bool = True) -> Edges:
        """A key equal for tiles that are the same physical piece (up to turning, if rotation is allowed)."""
        if not rotations:
            return self.edges
        return min(self.rotated(r) for r in range(4))

    def __iter__(self) -> Iterator[int]:
        return iter(self.edges)

    def __getitem__(self, side: int) -> int:
        return self.edges[side]


class Hint(NamedTuple):
    """A fixed placement: tile ``tile`` on ``cell`` turned ``rotation`` times clockwise."""

    cell: int
    tile: int
    rotation: int


class Placement(NamedTuple):
    """What a solution puts on one cell."""

    tile: int
    rotation: int


@dataclass(frozen=True)
class Puzzle:
    """An edge-matching puzzle. Validated on creation; raises :class:`PuzzleError` listing every problem.

    ``labels`` maps a label to the name shown for it (``{1: "mantis", -1: "-mantis"}``); it is display only.
    """

    width: int
    height: int
    tiles: tuple[Tile, ...]
    rule: Rule = "same"
    frame: int | None = None
    rotations: bool = True
    hints: tuple[Hint, ...] = ()
    labels: Mapping[int, str] = field(default_factory=dict, hash=False)
    name: str = ""

    def __post_init__(self) -> None:
        for what, value in (("width", self.width), ("height", self.height)):
            if not is_whole(value):
                raise PuzzleError(f"the board {what} must be a whole number (at most {MAX_DIGITS} digits), "
                                  f"got {shown(value)}")
        if not isinstance(self.rotations, bool):
            raise PuzzleError(f"rotations must be True or False, got {shown(self.rotations)}")
        if self.frame is not None and not is_whole(self.frame):
            raise PuzzleError(f"the frame must be an integer label (at most {MAX_DIGITS} digits) or None, "
                              f"got {shown(self.frame)}")
        if not isinstance(self.labels, Mapping):
            raise PuzzleError(f"labels must map integer labels to names (a dict), got {shown(self.labels)}")
        object.__setattr__(self, "width", int(self.width))
        object.__setattr__(self, "height", int(self.height))
        if self.frame is not None:
            object.__setattr__(self, "frame", int(self.frame))
        tiles = tuple(t if isinstance(t, Tile) else Tile(t)
                      for t in _sequence(self.tiles, "tiles", "a sequence of tiles (4 labels N E S W each)"))
        hints = tuple(_hint(i, h) for i, h in enumerate(_sequence(self.hints, "hints", "a sequence of "
                                                                  "(cell, tile, rotation) triples")))
        object.__setattr__(self, "tiles", tiles)
        object.__setattr__(self, "hints", hints)
        labels = dict(self.labels)
        if self.rule == "signed":
            # "-name" is the default name of -k: an explicit one adds nothing, so equal puzzles compare equal
            labels = {k: v for k, v in labels.items() if not (k < 0 and labels.get(-k) is not None
                                                               and v == "-" + str(labels[-k]))}
        object.__setattr__(self, "labels", labels)
        problems = list(self._problems())
        if problems:
            raise PuzzleError("; ".join(problems))

    # ----- validation -------------------------------------------------------------------------------
    def _problems(self) -> Iterator[str]:
        w, h = self.width, self.height
        if w < 1 or h < 1:
            yield f"board size must be at least 1x1, got {w}x{h}"
            return
        if self.rule not in RULES:
            yield f"unknown rule {shown(self.rule)} (expected one of: {', '.join(RULES)})"
            return
        if len(self.tiles) != w * h:
            yield f"a {w}x{h} board needs {w * h} tiles, got {len(self.tiles)}"
            return
        if self.rule == "signed":
            zero = [i for i, t in enumerate(self.tiles) if 0 in t.edges and self.frame != 0]
            if zero:
                yield (
                    f"signed puzzle: label 0 has no opposite (tile {zero[0]}); use +k/-k labels, "
                    "or declare 0 as the frame"
                )
        if self.frame is not None:
            yield from self._frame_problems()
        yield from self._hint_problems()
        yield from self._label_problems()

    def _frame_problems(self) -> Iterator[str]:
        need = Counter(self._pattern_key(self.border_sides(c)) for c in range(self.size))
        have = Counter(
            self._pattern_key(tuple(i for i in SIDES if t.edges[i] == self.frame)) for t in self.tiles
        )
        if need != have:
            def describe(counts: Counter) -> str:
                keys = sorted(counts, key=lambda k: (-len(k), k))
                return ", ".join(f"{counts[k]} {_pattern_name(k)}" for k in keys)

            yield f"the frame needs {describe(need)} tiles; the tiles give {describe(have)}"

    def _pattern_key(self, sides: Iterable[int]) -> tuple[int, ...]:
        """Frame sides of a tile or cell, up to rotation when rotation is allowed."""
        return _frame_pattern(tuple(sides), self.rotations)

    def _hint_problems(self) -> Iterator[str]:
        seen_cells: dict[int, int] = {}
        seen_tiles: dict[int, int] = {}
        for i, (cell, t, r) in enumerate(self.hints):
            if not 0 <= cell < self.size:
                yield f"hint {i}: cell {cell} is off the {self.width}x{self.height} board"
            elif cell in seen_cells:
                yield f"hint {i}: cell {cell} is already fixed by hint {seen_cells[cell]}"
            if not 0 <= t < len(self.tiles):
                yield f"hint {i}: tile {t} does not exist (tiles are 0..{len(self.tiles) - 1})"
            elif t in seen_tiles:
                yield f"hint {i}: tile {t} is already placed by hint {seen_tiles[t]}"
            if not 0 <= r < 4:
                yield f"hint {i}: rotation {r} is not 0..3"
            elif r and not self.rotations:
                yield f"hint {i}: rotation {r} but this puzzle forbids rotating tiles"
            seen_cells.setdefault(cell, i)
            seen_tiles.setdefault(t, i)
        placed = {
            c: self.tiles[t].rotated(r)
            for c, t, r in self.hints
            if 0 <= c < self.size and 0 <= t < len(self.tiles) and 0 <= r < 4
        }
        for cell, edges in placed.items():
            for side in SIDES:
                nb = self.neighbour(cell, side)
                if nb is None:
                    if self.frame is not None and edges[side] != self.frame:
                        yield f"hint on cell {cell} puts {self.label_name(edges[side])} on the frame"
                elif self.frame is not None and edges[side] == self.frame:
                    yield f"hint on cell {cell} puts the frame label inside, facing {SIDE_NAMES[side]}"
                elif nb in placed and side in (E, S):
                    other = placed[nb][OPPOSITE[side]]
                    if not self.matches(edges[side], other):
                        yield (
                            f"hints on cells {cell} and {nb} clash: {self.label_name(edges[side])} "
                            f"meets {self.label_name(other)}"
                        )

    def _label_problems(self) -> Iterator[str]:
        used = self.label_set()
        names: dict[str, int] = {}
        for label, name in self.labels.items():
            if not is_whole(label):
                yield f"label names are keyed by integer labels (at most {MAX_DIGITS} digits), got {shown(label)}"
                continue
            if not isinstance(name, str) or not name or any(ch.isspace() for ch in name) or "#" in name:
                yield f"label {label}: name {shown(name)} must be a non-empty word without spaces or '#'"
                continue
            if not _printable(name):
                yield f"label {label}: name {name!r} must be printable text"
                continue
            if is_integer_word(name):
                yield f"label {label}: name {name!r} looks like a number"
            if label not in used and (self.rule != "signed" or -label not in used):
                yield f"label {label} is named {name!r} but no tile carries it"
        visible = used | ({-x for x in used} if self.rule == "signed" else set())
        for label in sorted(visible, key=lambda v: (abs(v), v)):
            name = self.label_name(label)
            if not isinstance(name, str):
                continue  # reported above
            if name in names and names[name] != label:
                yield f"labels {names[name]} and {label} are both shown as {name!r}"
            names[name] = label
        if not isinstance(self.name, str):
            yield f"the puzzle name must be text (one line), got {shown(self.name)}"
        elif "\n" in self.name or "\r" in self.name or self.name != self.name.strip():
            yield f"the puzzle name must be one line without surrounding spaces, got {self.name!r}"
        elif not _printable(self.name):
            yield f"the puzzle name must be printable text, got {self.name!r}"

    # ----- geometry ---------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.width * self.height

    @property
    def seam_count(self) -> int:
        """Inner seams: ``w*(h-1) + h*(w-1)``; a full solution matches all of them."""
        return self.width * (self.height - 1) + self.height * (self.width - 1)

    @functools.cached_property
    def edge_array(self) -> np.ndarray:
        """Every tile's labels N E S W as one read-only ``[tiles, 4]`` int64 array, made once: the vectorised
        passes over a big board (tile types, edge classes, the policy's features) all start from it."""
        import numpy as np  # here: importing the package does not load numpy

        edges = np.array([t.edges for t in self.tiles], dtype=np.int64).reshape(len(self.tiles), 4)
        edges.flags.writeable = False
        return edges

    def neighbour(self, cell: int, side: int) -> int | None:
        """The cell across ``side`` of ``cell``, or None on the border."""
        row, col = divmod(cell, self.width)
        if side == N:
            return cell - self.width if row > 0 else None
        if side == S:
            return cell + self.width if row < self.height - 1 else None
        if side == E:
            return cell + 1 if col < self.width - 1 else None
        return cell - 1 if col > 0 else None

    def border_sides(self, cell: int) -> tuple[int, ...]:
        """Sides of ``cell`` that face out of the board."""
        row, col = divmod(cell, self.width)
        return tuple(s for s, out in ((N, row == 0), (E, col == self.width - 1), (S, row == self.height - 1),
                                      (W, col == 0)) if out)

    def seams(self) -> list[tuple[int, int, int, int]]:
        """Every inner seam as (cell, side, neighbour, neighbour's side), side being E or S."""
        out = []
        for cell in range(self.size):
            for side in (E, S):
                nb = self.neighbour(cell, side)
                if nb is not None:
                    out.append((cell, side, nb, OPPOSITE[side]))
        return out

    # ----- labels and the matching rule -------------------------------------------------------------
    def partner(self, label: int) -> int:
        """The label an edge must touch: itself (``same``) or its negation (``signed``)."""
        return -label if self.rule == "signed" else label

    def matches(self, a: int, b: int) -> bool:
        """Whether two touching edges fit (never true for the frame label inside the board)."""
        if self.frame is not None and (a == self.frame or b == self.frame):
            return False
        return b == self.partner(a)

    def partner_table(self) -> dict[int, int]:
        """``partner[label]`` for every non-frame label on the tiles and its partner."""
        labels = self.label_set() - ({self.frame} if self.frame is not None else set())
        labels |= {self.partner(x) for x in labels}
        return {x: self.partner(x) for x in sorted(labels)}

    def label_set(self) -> set[int]:
        return {x for t in self.tiles for x in t.edges}

    def colours(self) -> list[int]:
        """The colours in play: labels up to sign for ``signed``, without the frame, sorted."""
        labels = self.label_set() - {self.frame}
        return sorted({abs(x) for x in labels} if self.rule == "signed" else labels)

    def label_name(self, label: int) -> str:
        """The display name of ``label`` (its number when it has no name)."""
        if label in self.labels:
            return self.labels[label]
        if self.rule == "signed" and -label in self.labels and label < 0:
            return "-" + self.labels[-label]
        return str(label)

    # ----- tile classes -----------------------------------------------------------------------------
    def frame_sides(self, tile: int) -> tuple[int, ...]:
        """Sides of tile ``tile`` (unrotated) that carry the frame label."""
        if self.frame is None:
            return ()
        return tuple(s for s in SIDES if self.tiles[tile].edges[s] == self.frame)

    def fits_frame(self, tile: int, cell: int, r: int) -> bool:
        """Whether tile ``tile`` turned ``r`` times shows the frame exactly on the border sides of ``cell``."""
        if self.frame is None:
            return True
        edges = self.tiles[tile].rotated(r)
        border = set(self.border_sides(cell))
        return all((edges[s] == self.frame) == (s in border) for s in SIDES)

    def allowed_rotations(self, tile: int) -> tuple[int, ...]:
        """Rotations tile ``tile`` may take: the hinted one for a hinted tile (a hint fixes the exact
        rotation, even of a self-symmetric tile), else its distinct ones, or only 0 when rotation is
        forbidden."""
        for _, t, r in self.hints:
            if t == tile:
                return (r,)
        return self.tiles[tile].distinct_rotations() if self.rotations else (0,)

    def duplicate_groups(self) -> list[list[int]]:
        """Groups (size >= 2) of tile indices that are the same physical piece."""
        groups: dict[Edges, list[int]] = {}
        for i, t in enumerate(self.tiles):
            groups.setdefault(t.canonical(self.rotations), []).append(i)
        return [g for g in groups.values() if len(g) > 1]

    # ----- convenience ------------------------------------------------------------------------------
    def replace(self, **changes: object) -> Puzzle:
        """A copy with some fields changed (validated again)."""
        fields = {
            "width": self.width, "height": self.height, "tiles": self.tiles, "rule": self.rule,
            "frame": self.frame, "rotations": self.rotations, "hints": self.hints,
            "labels": self.labels, "name": self.name,
        }
        fields.update(changes)
        return Puzzle(**fields)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        extra = f", frame={self.frame}" if self.frame is not None else ""
        extra += "" if self.rotations else ", rotations=False"
        extra += f", hints={len(self.hints)}" if self.hints else ""
        title = f"{self.name!r}, " if self.name else ""
        return f"Puzzle({title}{self.width}x{self.height}, {self.rule}{extra})"


def is_integer_word(word: str) -> bool:
    """Whether ``word`` is written as an integer: ASCII digits, optionally after a minus (label names
    must not be, to stay unambiguous)."""
    return _INTEGER.fullmatch(word) is not None


def parse_integer(word: str) -> int:
    """``word`` as an integer: ASCII digits with an optional leading minus, at most ``MAX_DIGITS`` digits.
    Raises ValueError saying which rule it breaks (the readers add the file and line)."""
    if _INTEGER.fullmatch(word) is None:
        raise ValueError("not an integer")
    digits = len(word.lstrip("-"))
    if digits > MAX_DIGITS:
        raise ValueError(f"{digits:,} digits; numbers have at most {MAX_DIGITS}")
    return int(word)


def _printable(text: str) -> bool:
    """Whether ``text`` can be shown and saved: valid Unicode (no lone surrogates, which cannot be written
    out) and no control characters other than tab (which would drive the terminal)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return not any(ch != "\t" and (ch < " " or "\x7f" <= ch <= "\x9f") for ch in text)


def is_whole(value: object) -> bool:
    """Whether ``value`` is a whole number (an int, or a numpy integer) of at most ``MAX_DIGITS`` digits, and
    not a bool (True is no size). Sizes, cells, tiles and rotations are such numbers, so every message can
    print them and every backend can hold them."""
    return _is_integer(value) and -MAX_LABEL <= value <= MAX_LABEL  # type: ignore[operator]


def whole_number(value: object, what: str, least: int, most: int, why: str = "") -> int:
    """``value`` as a whole number from ``least`` to ``most`` (not a bool), else a UsageError naming ``what``
    (``why`` says where ``most`` comes from). Every count, size and seed a caller passes is checked here."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{what} must be a whole number, got {shown(value)}")
    if not least <= value <= most:
        raise UsageError(f"{what} must be from {least:,} to {most:,}{why}, got {shown(value, str)}")
    return int(value)


def _is_integer(value: object) -> bool:
    """Whether ``value`` is an int or a numpy integer, and not a bool."""
    return type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, bool)
                                  and type(value).__name__ != "bool_")


def _sequence(value: object, what: str, expected: str) -> tuple:
    """``value`` as a tuple; something that is not a sequence (a number, None, a dict, text) is a PuzzleError."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise PuzzleError(f"{what} must be {expected}, got {shown(value)}")
    return tuple(value)


def _whole_fields(i: int, value: object, kind: str, names: tuple[str, ...]) -> tuple[int, ...]:
    """``value`` as ``len(names)`` whole numbers, or a PuzzleError naming item ``i`` and the fields."""
    shape = ", ".join(names)
    fields = _sequence(value, f"{kind} {i}", f"({shape})")
    if len(fields) != len(names):
        raise PuzzleError(f"{kind} {i} must be ({shape}), {len(names)} whole numbers, got {shown(value)}")
    if all(type(x) is int and -MAX_LABEL <= x <= MAX_LABEL for x in fields):  # the common case, quickly
        return fields
    for name, field_value in zip(names, fields, strict=True):
        if not is_whole(field_value):
            raise PuzzleError(f"{kind} {i}: the {name} must be a whole number (at most {MAX_DIGITS} digits), "
                              f"got {shown(field_value)}")
    return tuple(int(x) for x in fields)


def _hint(i: int, value: object) -> Hint:
    """Hint ``i`` checked for shape: three whole numbers (cell, tile, rotation); their range is checked later."""
    return Hint(*_whole_fields(i, value, "hint", Hint._fields))


def _placement(i: int, value: object) -> Placement:
    """Cell ``i``'s placement checked for shape: two whole numbers (tile, rotation); the checker judges them."""
    if type(value) in (Placement, tuple) and len(value) == 2:  # type: ignore[arg-type]  (the common case, quickly)
        t, r = value  # type: ignore[misc]
        if type(t) is int and type(r) is int and -MAX_LABEL <= t <= MAX_LABEL and -MAX_LABEL <= r <= MAX_LABEL:
            # tuple.__new__: a namedtuple's own constructor is a Python call, a tenth of a second per 62,500 cells
            return value if type(value) is Placement else tuple.__new__(Placement, (t, r))  # type: ignore[return-value]
    return Placement(*_whole_fields(i, value, "solution cell", Placement._fields))


@functools.cache
def _frame_pattern(sides: tuple[int, ...], rotations: bool) -> tuple[int, ...]:
    """:meth:`Puzzle._pattern_key` (16 side sets: a board of 62,500 cells asks it 125,000 times)."""
    ordered = tuple(sorted(sides))
    if not rotations:
        return ordered
    return min(tuple(sorted((s + r) % 4 for s in ordered)) for r in range(4))


def _pattern_name(key: tuple[int, ...]) -> str:
    n = len(key)
    if n == 0:
        return "inner"
    if n == 1:
        return "border"
    if n == 2:
        return "corner" if (key[1] - key[0]) % 2 else "two-sided (strip)"
    if n == 3:
        return "end (3 frame edges)"
    return "single (4 frame edges)"


@dataclass(frozen=True)
class Solution:
    """A full board: for every cell (row-major), the tile placed there and its clockwise turns."""

    width: int
    height: int
    cells: tuple[Placement, ...]

    def __post_init__(self) -> None:
        for what, value in (("width", self.width), ("height", self.height)):
            if not is_whole(value):
                raise PuzzleError(f"the solution's {what} must be a whole number (at most {MAX_DIGITS} digits), "
                                  f"got {shown(value)}")
        object.__setattr__(self, "width", int(self.width))
        object.__setattr__(self, "height", int(self.height))
        given = _sequence(self.cells, "a solution's cells", "a sequence of (tile, rotation) pairs")
        cells = tuple(_placement(i, p) for i, p in enumerate(given))
        object.__setattr__(self, "cells", cells)
        if self.width < 1 or self.height < 1 or len(cells) != self.width * self.height:
            raise PuzzleError(
                f"a {self.width}x{self.height} solution needs {self.width * self.height} placements, "
                f"got {len(cells)}"
            )

    @classmethod
    def from_pairs(cls, puzzle: Puzzle, pairs: Iterable[tuple[int, int]]) -> Solution:
        return cls(puzzle.width, puzzle.height, tuple(pairs))  # each pair checked and made a Placement once

    @classmethod
    def from_array(cls, puzzle: Puzzle, pairs: np.ndarray) -> Solution:
        """The board whose cell ``c`` holds tile ``pairs[c, 0]`` turned ``pairs[c, 1]`` times: checked as
        :meth:`from_pairs` checks its pairs, all at once (a 250x250's cells one by one took a third of a second)."""
        import numpy as np  # here: importing the package does not load numpy

        n = puzzle.width * puzzle.height
        if not (isinstance(pairs, np.ndarray) and pairs.dtype.kind in "iu" and pairs.shape == (n, 2)):
            return cls.from_pairs(puzzle, map(tuple, np.asarray(pairs).tolist()))  # checked cell by cell
        if n and (int(pairs.min()) < -MAX_LABEL or int(pairs.max()) > MAX_LABEL):
            return cls.from_pairs(puzzle, map(tuple, pairs.tolist()))  # the one-by-one check says which cell
        cells = tuple(map(tuple.__new__, itertools.repeat(Placement),
                          zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), strict=True)))
        board = object.__new__(cls)  # every field is checked above: __post_init__ would check it all again
        for name, value in (("width", puzzle.width), ("height", puzzle.height), ("cells", cells)):
            object.__setattr__(board, name, value)
        return board

    def grid(self, puzzle: Puzzle) -> tuple[Edges, ...]:
        """The labels each cell shows (N, E, S, W), row-major. Tiles must be valid indices."""
        return tuple(puzzle.tiles[t].rotated(r) for t, r in self.cells)

    def __iter__(self) -> Iterator[Placement]:
        return iter(self.cells)


__all__ = [
    "E", "N", "OPPOSITE", "RULES", "S", "SIDES", "SIDE_NAMES", "W",
    "Edges", "Hint", "Placement", "Puzzle", "Rule", "Solution", "Tile", "rotate_edges",
]
