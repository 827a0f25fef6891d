"""The picture as a list of drawing primitives, computed once and drawn by both the SVG and PNG writers.

Coordinates are in abstract units (SVG user units; the PNG multiplies them by its scale). A tile is a
``TILE``-unit square cut into four triangles meeting at its centre, one per side N E S W, each filled
with the colour of the label it shows (:class:`~edgematch.render.palette.Palette`). A tail of a
signed pair is filled with the light tint of its hue and carries a dot of the full hue at the triangle's
centroid, so heads and tails differ in shape as well as shade (the upper/lower case halves of seed 002,
drawn there as squares and circles).

Two modes: with a solution, the board (tiles touching, rotated as placed); without, the tiles in a tray
(spaced, each numbered with its index). Both have a title (the puzzle's name), a one-line description
and a legend of every colour in play. Text widths are estimated generously (``CHAR_EM`` em a character)
so nothing clips whichever font the viewer has.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from edgematch.core.checker import check
from edgematch.core.model import SIDE_NAMES, Edges, Puzzle, Solution
from edgematch.render.common import check_solution
from edgematch.render.palette import OUTLINE, LegendEntry, Palette

TILE = 64.0
MARGIN = 20.0
TRAY_GAP = 18.0
NUMBER_SIZE = 12.0
TITLE_SIZE = 20.0
SUBTITLE_SIZE = 12.0
LEGEND_SIZE = 13.0
SWATCH = 16.0
CHAR_EM = 0.62  # estimated advance of one character, in em (DejaVu Sans / Verdana are about this wide)
BOLD_EM = 0.68
MARKER_RADIUS = 0.075 * TILE
TEXT_COLOUR = "#1a1a1a"
MUTED = "#555555"
BACKGROUND = "#ffffff"
LEGEND_BAND = 420.0

Point = tuple[float, float]


@dataclass(frozen=True)
class Edge:
    """What a triangle shows: ``label`` on side ``side`` of tile ``tile`` (on ``cell``, in a board)."""

    tile: int
    side: int
    label: int
    cell: int | None = None


@dataclass(frozen=True)
class Polygon:
    points: tuple[Point, ...]
    fill: str | None
    stroke: str | None = OUTLINE
    stroke_width: float = 0.75
    edge: Edge | None = None  # set for the four triangles of a tile

    @property
    def centroid(self) -> Point:
        xs, ys = zip(*self.points, strict=True)
        return sum(xs) / len(xs), sum(ys) / len(ys)


@dataclass(frozen=True)
class Circle:
    cx: float
    cy: float
    r: float
    fill: str
    stroke: str | None = OUTLINE
    stroke_width: float = 0.75


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str | None = None
    stroke: str | None = OUTLINE
    stroke_width: float = 1.0


@dataclass(frozen=True)
class Label:
    """Text with its baseline at ``y``; ``anchor`` is start, middle or end (as in SVG)."""

    x: float
    y: float
    text: str
    size: float
    anchor: str = "start"
    bold: bool = False
    fill: str = TEXT_COLOUR


@dataclass(frozen=True)
class Group:
    """Items drawn together; ``tip`` is a tooltip (the SVG's ``<title>``)."""

    items: tuple[Polygon | Circle | Rect | Label, ...]
    tip: str = ""
    kind: str = ""


Item = Polygon | Circle | Rect | Label | Group


@dataclass
class Layout:
    """The whole picture: its size, title and items in painting order."""

    width: float
    height: float
    title: str
    items: list[Item] = field(default_factory=list)

    def flat(self) -> list[Polygon | Circle | Rect | Label]:
        out: list[Polygon | Circle | Rect | Label] = []
        for item in self.items:
            out.extend(item.items if isinstance(item, Group) else (item,))
        return out

    def triangles(self) -> list[Polygon]:
        """The tiles' triangles (four per tile), in painting order."""
        return [p for p in self.flat() if isinstance(p, Polygon) and p.edge is not None]


def text_width(text: str, size: float, bold: bool = False) -> float:
    return len(text) * size * (BOLD_EM if bold else CHAR_EM)


def tile_items(
    palette: Palette, x: float, y: float, edges: Edges, tile: int, cell: int | None
) -> list[Polygon | Circle | Rect]:
    """One tile at (x, y): four triangles, the tails' dots, and the square outline."""
    c = (x + TILE / 2, y + TILE / 2)
    corners = ((x, y), (x + TILE, y), (x + TILE, y + TILE), (x, y + TILE))  # NW NE SE SW
    items: list[Polygon | Circle | Rect] = []
    markers: list[Circle] = []
    for side, label in enumerate(edges):
        a, b = corners[side], corners[(side + 1) % 4]
        tri = Polygon((a, b, c), palette.fill(label), edge=Edge(tile, side, label, cell))
        items.append(tri)
        if palette.is_tail(label):
            cx, cy = tri.centroid
            markers.append(Circle(cx, cy, MARKER_RADIUS, palette.colour(label)))
    items += markers
    items.append(Rect(x, y, TILE, TILE, None, OUTLINE, 1.6))
    return items


def tile_tip(puzzle: Puzzle, tile: int, edges: Edges, rotation: int | None, cell: int | None) -> str:
    names = "  ".join(f"{SIDE_NAMES[s]} {puzzle.label_name(x)}" for s, x in enumerate(edges))
    if cell is None:
        return f"tile {tile}: {names}"
    row, col = divmod(cell, puzzle.width)
    return f"cell {cell} (row {row}, column {col}): tile {tile} turned {rotation}x clockwise: {names}"


def describe(puzzle: Puzzle, solution: Solution | None) -> str:
    parts = [f"{puzzle.width}x{puzzle.height} board", f"{puzzle.rule} rule"]
    if puzzle.frame is not None:
        parts.append("framed")
    if not puzzle.rotations:
        parts.append("no turning")
    if puzzle.hints:
        parts.append(f"{len(puzzle.hints)} hint{'s' if len(puzzle.hints) != 1 else ''}")
    if solution is None:
        what = f"the {len(puzzle.tiles)} tiles"
    else:
        verdict = check(puzzle, solution)  # a best-score board says its score, a broken one says so
        breaks = f"{verdict.breaks} break{'s' if verdict.breaks != 1 else ''}"
        what = ("solution" if verdict.ok else f"board, {verdict.score}/{verdict.max_score} seams fit ({breaks})"
                if verdict.admissible else "board (not a solution)")
    return ", ".join(parts) + " - " + what


def tray_columns(puzzle: Puzzle) -> int:
    n = len(puzzle.tiles)
    return max(1, min(n, max(puzzle.width, math.ceil(math.sqrt(n)))))


# ----- legend -----------------------------------------------------------------------------------------
def legend_texts(puzzle: Puzzle, entry: LegendEntry) -> list[str]:
    if entry.frame:
        return [f"{puzzle.label_name(entry.key)} (frame)"]
    return [puzzle.label_name(x) for x in entry.labels]


def legend_entry_width(puzzle: Puzzle, entry: LegendEntry) -> float:
    texts = legend_texts(puzzle, entry)
    return sum(SWATCH + 6 + text_width(t, LEGEND_SIZE) for t in texts) + 12 * (len(texts) - 1)


def legend_items(
    puzzle: Puzzle, palette: Palette, entries: list[LegendEntry], origin: Point, col_w: float, cols: int
) -> list[Item]:
    x0, y0 = origin
    items: list[Item] = []
    row_h = SWATCH + 8
    for i, entry in enumerate(entries):
        row, col = divmod(i, cols)
        x, y = x0 + col * col_w, y0 + row * row_h
        parts: list[Polygon | Circle | Rect | Label] = []
        labels = (entry.key,) if entry.frame else entry.labels
        for label, text in zip(labels, legend_texts(puzzle, entry), strict=True):
            parts.append(Rect(x, y, SWATCH, SWATCH, palette.fill(label), OUTLINE, 0.9))
            if palette.is_tail(label):
                dot = MARKER_RADIUS * 0.8
                parts.append(Circle(x + SWATCH / 2, y + SWATCH / 2, dot, palette.colour(label)))
            parts.append(Label(x + SWATCH + 6, y + SWATCH - 3.5, text, LEGEND_SIZE))
            x += SWATCH + 6 + text_width(text, LEGEND_SIZE) + 12
        items.append(Group(tuple(parts), kind="legend-entry"))
    return items


# ----- the picture ------------------------------------------------------------------------------------
def build_layout(puzzle: Puzzle, solution: Solution | None = None) -> Layout:
    """The picture of a solved board (with ``solution``) or of the numbered tiles in a tray."""
    palette = Palette(puzzle)
    title = puzzle.name or "edgematch puzzle"
    subtitle = describe(puzzle, solution)

    # the picture's own size
    if solution is not None:
        check_solution(puzzle, solution)
        cols, rows = puzzle.width, puzzle.height
        pic_w, pic_h = cols * TILE, rows * TILE
    else:
        cols = tray_columns(puzzle)
        rows = math.ceil(len(puzzle.tiles) / cols)
        pic_w = cols * TILE + (cols - 1) * TRAY_GAP
        pic_h = rows * (TILE + NUMBER_SIZE + 10) + (rows - 1) * (TRAY_GAP - 6)

    entries = palette.entries()
    col_w = max((legend_entry_width(puzzle, e) for e in entries), default=0) + 24
    header_w = max(text_width(title, TITLE_SIZE, bold=True), text_width(subtitle, SUBTITLE_SIZE))
    content_w = max(pic_w, header_w, col_w - 24)
    # the legend takes as many columns as fit beside the picture (at least a 420-unit-wide band)
    legend_cols = max(1, min(len(entries), int((max(content_w, LEGEND_BAND) + 24) // col_w)))
    content_w = max(content_w, legend_cols * col_w - 24)
    legend_rows = math.ceil(len(entries) / legend_cols) if entries else 0

    width = math.ceil(2 * MARGIN + content_w)
    header_h = TITLE_SIZE + 8 + SUBTITLE_SIZE + 16
    legend_h = legend_rows * (SWATCH + 8)
    height = math.ceil(2 * MARGIN + header_h + pic_h + (20 + legend_h if entries else 0))
    layout = Layout(width, height, title)
    items = layout.items
    items.append(Rect(0, 0, width, height, BACKGROUND, None, 0))
    items.append(Label(MARGIN, MARGIN + TITLE_SIZE, title, TITLE_SIZE, bold=True))
    items.append(Label(MARGIN, MARGIN + TITLE_SIZE + 8 + SUBTITLE_SIZE, subtitle, SUBTITLE_SIZE, fill=MUTED))

    x0 = MARGIN + (content_w - pic_w) / 2
    y0 = MARGIN + header_h
    if solution is not None:
        grid = solution.grid(puzzle)
        for cell, ((t, r), edges) in enumerate(zip(solution.cells, grid, strict=True)):
            row, col = divmod(cell, puzzle.width)
            parts = tile_items(palette, x0 + col * TILE, y0 + row * TILE, edges, t, cell)
            items.append(Group(tuple(parts), tile_tip(puzzle, t, edges, r, cell), kind="tile"))
        items.append(Rect(x0, y0, pic_w, pic_h, None, OUTLINE, 2.5))
    else:
        pitch_y = TILE + NUMBER_SIZE + 10 + TRAY_GAP - 6
        for t, tile in enumerate(puzzle.tiles):
            row, col = divmod(t, cols)
            x, y = x0 + col * (TILE + TRAY_GAP), y0 + row * pitch_y
            parts = [*tile_items(palette, x, y, tile.edges, t, None)]
            number_y = y + TILE + NUMBER_SIZE + 3
            parts.append(Label(x + TILE / 2, number_y, str(t), NUMBER_SIZE, "middle", fill=MUTED))
            items.append(Group(tuple(parts), tile_tip(puzzle, t, tile.edges, None, None), kind="tile"))

    if entries:
        ly = y0 + pic_h + 20
        lx = MARGIN + (content_w - min(legend_cols * col_w - 24, content_w)) / 2
        items += legend_items(puzzle, palette, entries, (lx, ly), col_w, legend_cols)
    return layout


__all__ = [
    "TILE", "Circle", "Edge", "Group", "Label", "Layout", "Polygon", "Rect", "build_layout", "text_width",
]
