"""``.puz`` puzzles and ``.sol`` solutions: the plain numeric files of Eternity II style solvers.

Puzzle (``.puz``)::

    c a framed 4x4              a line whose first word is ``c`` is a comment, anywhere in the file
    4 4                         header: cols [rows]; one number means a square board
    0 0 1 2                     one tile per line: n e s w; the tile index is the order, 0-based
    ...                         exactly cols*rows tile lines

Read as: rule ``same``, rotation allowed, no hints; labels are 0 or positive, and label 0 is the frame
when any tile carries it (``frame=0``), else the puzzle has no frame.

Solution (``.sol``)::

    c tile col row rot
    3 0 0 1                     tile 3 at column 0, row 0, turned 1 quarter ANTICLOCKWISE from its listing
    ...

Our rotation is ``(-rot) % 4`` (clockwise turns). The board size comes from the puzzle when one is given,
else from the largest col and row; every cell must be filled exactly once.

What survives a round trip: the writer refuses any puzzle whose meaning ``.puz`` cannot carry (signed
rule, rotation forbidden, hints, negative labels, a frame other than 0, label 0 used without being the
frame). Names are display only and travel in comments other programs skip: ``c name: TEXT`` for the
puzzle and ``c label: N NAME`` per label; this reader reads them back, so write -> read is the identity on
every puzzle the writer accepts.

Content detection (files without a known extension): a file is ``.puz`` when it reads as one and neither
the Heule nor the Owen reader gives a different puzzle from it (a non-square ``R C`` file with one piece
per line reads both as ``.puz`` and as Owen's rows-first list; such a file is left to ``--format``).
A ``.sol`` file is recognised when it reads as a complete solution.
"""

from __future__ import annotations

import re
from itertools import islice

from edgematch.core.model import Placement, Puzzle, Solution, Tile
from edgematch.errors import EdgematchError, FormatError, quoted
from edgematch.formats import Format
from edgematch.formats.numeric import labels_of, numeric_frame, numeric_sniff, refusal
from edgematch.formats.source import Line, Source

COMMENT = "c"
_NAME = re.compile(r"name:\s*(.*?)\s*$")
_LABEL = re.compile(r"label:\s*(.*?)\s*$")


def _split(source: Source) -> tuple[list[Line], list[Line]]:
    """(data lines, comment lines with the leading ``c`` removed)."""
    data, comments = [], []
    for line in source.lines(comment=None):
        if line.words[0] == COMMENT:
            comments.append(Line(line.number, line.text[1:].strip()))
        else:
            data.append(line)
    return data, comments


def _names(source: Source, comments: list[Line], used: set[int]) -> tuple[str, dict[int, str]]:
    name: tuple[str, Line] | None = None
    labels: dict[int, str] = {}
    for line in comments:
        if match := _NAME.match(line.text):
            if name is not None:
                raise source.error(f"'c name:' given twice (first on line {name[1].number})", line)
            name = (match.group(1), line)
        elif match := _LABEL.match(line.text):
            words = match.group(1).split()
            if len(words) != 2:
                raise source.error(f"'c label:' needs a number and a name, got {quoted(match.group(1))}", line)
            number = source.int_word(words[0], line, "label number")
            if number in labels:
                raise source.error(f"label {number} named twice", line)
            if number not in used:
                raise source.error(f"label {number} is named {quoted(words[1])} but no tile carries it", line)
            labels[number] = words[1]
    return (name[0] if name else ""), labels


def read(source: Source) -> Puzzle:
    data, comments = _split(source)
    if not data:
        raise source.error("no header 'cols [rows]' (only comments)", source.last_line)
    header, tile_lines = data[0], data[1:]
    if len(header.words) not in (1, 2):
        hint = "; is the header missing?" if len(header.words) == 4 else ""
        raise source.error(
            f"expected the header 'cols [rows]' (1 or 2 numbers), got {len(header.words)} words: "
            f"{quoted(header.text)}{hint}",
            header,
        )
    sizes = [source.int_word(w, header, "header 'cols [rows]'") for w in header.words]
    cols, rows = sizes[0], sizes[-1]
    if cols < 1 or rows < 1:
        raise source.error(f"board size must be at least 1x1, got {cols}x{rows}", header)
    need = cols * rows
    tiles = []
    for line in tile_lines:
        if len(tiles) == need:
            raise source.error(f"a {cols}x{rows} board has {need} tiles; this is tile {need + 1}", line)
        tiles.append(Tile(labels_of(source, line)))
    if len(tiles) < need:
        raise source.error(
            f"a {cols}x{rows} board needs {need} tiles, got {len(tiles)}",
            tile_lines[-1] if tile_lines else header,
        )
    name, labels = _names(source, comments, {x for t in tiles for x in t.edges})
    frame = numeric_frame(tiles)
    return source.build(
        lambda: Puzzle(cols, rows, tuple(tiles), rule="same", frame=frame, labels=labels, name=name),
        tile_lines[-1],
    )


def _refuse(message: str) -> FormatError:
    return FormatError(f"cannot write as .puz: {message}")


def write(puzzle: Puzzle) -> str:
    why = refusal(puzzle, ".puz") or (".puz has no hints; this puzzle has some" if puzzle.hints else None)
    if why:
        raise _refuse(why)
    out = []
    if puzzle.name:
        out.append(f"c name: {puzzle.name}")
    out.extend(f"c label: {value} {puzzle.labels[value]}" for value in sorted(puzzle.labels))
    out.append("c cols rows, then one tile per line: n e s w")
    out.append(f"{puzzle.width} {puzzle.height}")
    out.extend(" ".join(map(str, t.edges)) for t in puzzle.tiles)
    return "\n".join(out) + "\n"


def read_solution(source: Source, puzzle: Puzzle | None) -> Solution:
    data, _ = _split(source)
    if not data:
        raise source.error("no placements 'tile col row rot' (only comments)", source.last_line)
    placed: dict[tuple[int, int], tuple[int, int, Line]] = {}
    for line in data:
        tile, col, row, rot = source.ints(line, 4, "placement (tile col row rot)")
        if tile < 0 or col < 0 or row < 0:
            raise source.error(f"tile, col and row are 0-based and not negative: {quoted(line.text)}", line)
        if not 0 <= rot < 4:
            raise source.error(f"rotation {rot} is not 0..3 (anticlockwise quarter turns)", line)
        if puzzle is not None:
            if tile >= len(puzzle.tiles):
                raise source.error(f"tile {tile} does not exist (tiles are 0..{len(puzzle.tiles) - 1})", line)
            if col >= puzzle.width or row >= puzzle.height:
                raise source.error(
                    f"cell (col {col}, row {row}) is off the {puzzle.width}x{puzzle.height} board", line
                )
        if (col, row) in placed:
            first = placed[(col, row)][2].number
            raise source.error(f"cell (col {col}, row {row}) is filled twice (first on line {first})", line)
        placed[(col, row)] = (tile, (-rot) % 4, line)
    if puzzle is not None:
        width, height = puzzle.width, puzzle.height
    else:
        width = max(c for c, _ in placed) + 1
        height = max(r for _, r in placed) + 1
    gaps = width * height - len(placed)
    if gaps:
        # the first few empty cells, found lazily: a far col or row must not make a list of every cell
        empty = (cell for r in range(height) for c in range(width) if (cell := (c, r)) not in placed)
        shown = ", ".join(f"(col {c}, row {r})" for c, r in islice(empty, 4))
        shown += " ..." if gaps > 4 else ""
        raise source.error(f"{gaps:,} cell(s) of the {width}x{height} board have no tile: {shown}", data[-1])
    cells = tuple(Placement(*placed[(c, r)][:2]) for r in range(height) for c in range(width))
    return source.build(lambda: Solution(width, height, cells), data[-1])


def write_solution(solution: Solution, puzzle: Puzzle | None = None) -> str:
    out = ["c tile col row rot (0-based; rot = anticlockwise quarter turns)"]
    for cell, (tile, r) in enumerate(solution.cells):
        row, col = divmod(cell, solution.width)
        out.append(f"{tile} {col} {row} {(-r) % 4}")
    return "\n".join(out) + "\n"


def _solution_sniff(source: Source) -> bool:
    try:
        read_solution(source, None)
    except EdgematchError:
        return False
    return True


FORMAT = Format(
    name="puz",
    description=".puz puzzles (cols [rows], n e s w per tile, 0 = frame) and .sol solutions",
    extensions=(".puz",),
    read=read,
    write=write,
    read_solution=read_solution,
    write_solution=write_solution,
    sniff=numeric_sniff(read),
    solution_extensions=(".sol",),
    solution_sniff=_solution_sniff,
)
