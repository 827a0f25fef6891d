"""Brendan Owen style piece lists: a size header, then four numbers per piece.

::

    3 5                         header: R C (rows, then columns)
    0 0 1 2  0 0 2 1  ...       4 numbers per piece, any number of pieces per line (or one per line);
    ...                         exactly R*C pieces; the piece index is the order, 0-based

Assumption: each piece's numbers are in the order N E S W (clockwise from the top, like ``.puz`` and
Heule's format). Read as: rule ``same``, rotation allowed, labels 0 or positive, frame 0 when any piece
carries it. The header is rows first: ``3 5`` is 5 wide and 3 high.

The writer refuses what the format cannot say (see ``numeric.refusal``; also hints) and writes one board row
of pieces per line. The format has no comments: the puzzle name and label names (display only) are not
written.

Content detection: a file is Owen's when it reads as one and the ``.puz`` and Heule readers do not read
it differently. A file with a non-square header and one piece per line also reads as ``.puz`` (cols
first), turned; such a file is left to ``--format``. Files this writer makes hold a whole board row per
line and are recognised.
"""

from __future__ import annotations

from edgematch.core.model import Puzzle, Tile
from edgematch.errors import FormatError, quoted
from edgematch.formats import Format
from edgematch.formats.numeric import numeric_frame, numeric_sniff, refusal
from edgematch.formats.source import Line, Source


def read(source: Source) -> Puzzle:
    lines = list(source.lines(comment=None))
    if not lines:
        raise source.error("empty file", 1)
    header = lines[0]
    if len(header.words) != 2:
        raise source.error(f"expected the header 'R C' (rows cols), got {quoted(header.text)}", header)
    rows, cols = (source.int_word(w, header, "header 'R C'") for w in header.words)
    if rows < 1 or cols < 1:
        raise source.error(f"board size must be at least 1x1, got {rows} rows and {cols} columns", header)
    need = 4 * rows * cols
    numbers: list[tuple[int, Line]] = []
    for line in lines[1:]:
        for word in line.words:
            if len(numbers) == need:
                raise source.error(f"{rows} rows x {cols} columns take {need // 4} pieces; this is more",
                                   line)
            value = source.int_word(word, line, "a label")
            if value < 0:
                raise source.error(f"labels are 0 (the frame) or positive colour numbers, got {value}", line)
            numbers.append((value, line))
    last = lines[-1]
    if len(numbers) < need:
        whole, extra = divmod(len(numbers), 4)
        part = f" and {extra} stray number(s) (a piece is 4)" if extra else ""
        raise source.error(f"{rows} rows x {cols} columns need {need // 4} pieces, got {whole}{part}", last)
    tiles = tuple(Tile(tuple(v for v, _ in numbers[i:i + 4])) for i in range(0, need, 4))  # type: ignore[arg-type]
    frame = numeric_frame(tiles)
    return source.build(lambda: Puzzle(cols, rows, tiles, rule="same", frame=frame), last)


def write(puzzle: Puzzle) -> str:
    why = refusal(puzzle, "Owen's format")
    if why is None and puzzle.hints:
        why = "Owen's format has no hints; this puzzle has some"
    if why:
        raise FormatError(f"cannot write in Owen's format: {why}")
    out = [f"{puzzle.height} {puzzle.width}"]
    w = puzzle.width
    for row in range(puzzle.height):
        out.append("  ".join(" ".join(map(str, t.edges)) for t in puzzle.tiles[row * w:(row + 1) * w]))
    return "\n".join(out) + "\n"


FORMAT = Format(
    name="owen",
    description="Brendan Owen style piece lists (R C, then n e s w per piece; 0 = frame)",
    extensions=(".owen",),
    read=read,
    write=write,
    sniff=numeric_sniff(read),
)
