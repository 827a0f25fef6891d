"""The ASCII boxes of the Arc article ("prettyprint"), as plain text or as labelled segments.

Each tile is a five-line box::

     -------------
    |     btl     |
    | man    -dgn |
    |     dgn     |
     -------------

Every label is shown with a one-character sign slot in front (``" man"`` / ``"-man"``, as the article
does), so heads and tails line up. The box widens to the longest name: with field width ``F`` (the
longest shown label, slot included) the inside is ``2F + gap + 1`` wide, where the gap between the W and
E labels is ``F`` for short names (the article's 13-wide box for ``F = 4``) and 3 for longer ones, so
three boxes of the insect puzzle with full names still fit in 80 columns. N and S are centred.

A board (with a solution) prints as the grid of boxes exactly as the article prints a solution. A tray
(without one) prints the tiles in rows, wrapped to the given width, each box's top border carrying the
tile's index (``----- 4 -----``).

The text is produced as *segments* ``(text, label)`` (label ``None`` for box drawing and padding) so the
terminal renderer can colour the labels of exactly the same picture.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass

from edgematch.core.model import Edges, Puzzle, Solution
from edgematch.errors import UsageError
from edgematch.render.common import check_solution

Segment = tuple[str, int | None]
Line = list[Segment]


def shown(puzzle: Puzzle, label: int) -> str:
    """A label as the boxes show it: its name behind a sign slot (``" mantis"``, ``"-mantis"``)."""
    name = puzzle.label_name(label)
    return name if name.startswith("-") else " " + name


@dataclass(frozen=True)
class BoxShape:
    """The measurements shared by every box of one picture."""

    field: int  # width of the widest shown label
    gap: int  # spaces between the W and E fields

    @classmethod
    def for_puzzle(cls, puzzle: Puzzle) -> BoxShape:
        field = max((len(shown(puzzle, x)) for x in puzzle.label_set()), default=2)
        return cls(field, field if field <= 4 else 3)

    @property
    def inner(self) -> int:
        return 2 * self.field + self.gap + 1

    @property
    def width(self) -> int:
        return self.inner + 2


def tile_box(puzzle: Puzzle, shape: BoxShape, edges: Edges, number: int | None = None) -> list[Line]:
    """The five lines of one box showing ``edges`` (N, E, S, W), its top border carrying ``number``."""
    n, e, s, w = (shown(puzzle, x) for x in edges)
    inner = shape.inner

    def centred(text: str, label: int) -> Line:
        left = (inner - len(text)) // 2
        return [("|" + " " * left, None), (text, label), (" " * (inner - left - len(text)) + "|", None)]

    top = "-" * inner
    if number is not None:
        tag = f" {number} "
        if len(tag) <= inner:
            left = (inner - len(tag)) // 2
            top = "-" * left + tag + "-" * (inner - left - len(tag))
    middle_gap = " " * (inner - 1 - len(w) - len(e))
    return [
        [(" " + top + " ", None)],
        centred(n, edges[0]),
        [("|", None), (w, edges[3]), (middle_gap, None), (e, edges[1]), (" |", None)],
        centred(s, edges[2]),
        [(" " + "-" * inner + " ", None)],
    ]


def join_row(boxes: Sequence[list[Line]]) -> list[Line]:
    """Boxes side by side (the article prints them touching: ``||``)."""
    return [[seg for box in boxes for seg in box[part]] for part in range(5)]


def board_width(puzzle: Puzzle) -> int:
    """The columns a whole board of ``puzzle`` takes (its boxes side by side)."""
    return BoxShape.for_puzzle(puzzle).width * puzzle.width


def band_columns(puzzle: Puzzle, width: int | None) -> int:
    """How many columns of tiles fit in ``width`` characters (all of them when ``width`` is None, at least 1)."""
    if width is None:
        return puzzle.width
    return max(1, min(puzzle.width, width // BoxShape.for_puzzle(puzzle).width))


def board_lines(puzzle: Puzzle, solution: Solution, width: int | None = None) -> list[Line]:
    """The solved board: one row of boxes per board row, each showing the labels as placed.

    With ``width``, a board wider than that many characters comes in *bands*: the first columns of tiles
    for every row, then the next ones, each band under a line ``columns 1-10 of 16``; whole tiles, never a
    cut line (a terminal narrower than the board)."""
    check_solution(puzzle, solution)
    shape = BoxShape.for_puzzle(puzzle)
    grid = solution.grid(puzzle)
    per_band = band_columns(puzzle, width)
    lines: list[Line] = []
    for first in range(0, puzzle.width, per_band):
        last = min(puzzle.width, first + per_band)
        if per_band < puzzle.width:
            lines.append([(f"columns {first + 1}-{last} of {puzzle.width}", None)])
        for row in range(puzzle.height):
            cells = grid[row * puzzle.width + first : row * puzzle.width + last]
            lines += join_row([tile_box(puzzle, shape, edges) for edges in cells])
    return lines


def tray_lines(puzzle: Puzzle, width: int) -> list[Line]:
    """The loose tiles, numbered by index, as many to a row as fit in ``width`` columns."""
    shape = BoxShape.for_puzzle(puzzle)
    per_row = max(1, width // shape.width)
    boxes = [tile_box(puzzle, shape, tile.edges, i) for i, tile in enumerate(puzzle.tiles)]
    lines: list[Line] = []
    for start in range(0, len(boxes), per_row):
        lines += join_row(boxes[start : start + per_row])
    return lines


def terminal_width() -> int:
    return shutil.get_terminal_size((80, 24)).columns


def picture_lines(puzzle: Puzzle, solution: Solution | None, width: int | None) -> list[Line]:
    if solution is not None:
        return board_lines(puzzle, solution)
    if width is not None and width < 1:
        raise UsageError(f"the width must be at least 1 column, got {width}")
    return tray_lines(puzzle, width if width is not None else terminal_width())


def render_ascii(puzzle: Puzzle, solution: Solution | None = None, width: int | None = None) -> str:
    """The puzzle as the article's ASCII boxes: the solved board, or the numbered tiles in a tray.

    ``width`` (tray only) is the number of columns to wrap at; default: the terminal's width, or 80.
    """
    lines = picture_lines(puzzle, solution, width)
    return "\n".join("".join(text for text, _ in line) for line in lines) + "\n"


__all__ = ["BoxShape", "Line", "Segment", "band_columns", "board_lines", "board_width", "render_ascii", "shown",
           "tile_box", "tray_lines"]
