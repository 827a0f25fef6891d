"""Heule's edge-matching format: the input of his Eternity II generator and SAT encoder.

::

    2                   line 1: the number of hints H
    1 1 3 0             H hint lines: row col piece rot (row, col and piece are 1-based)
    3 2 17 2
    0 0 1 2             then one piece per line: n e s w; label 0 is the frame
    ...

Read as: rule ``same``, rotation allowed, labels 0 or positive, frame 0 when any piece carries it.
Assumption: ``rot`` counts clockwise quarter turns 0..3, our own convention (the format does not say; a
file meant the other way round shows up as hints that put the frame on the wrong side, a clear error).

The file does not give the board size; it follows from the frame. A ``w x h`` board has ``w*h`` pieces
and ``2*(w+h)`` frame edges, so with N pieces and F frame edges, ``w + h = F/2`` and ``w*h = N``: the
two roots of ``x^2 - (F/2)x + N``. Counting frame *edges* rather than border *pieces*
(``B = 2(w+h) - 4``) gives the same answer on boards of at least 2x2 and stays unambiguous on the
degenerate ones, where every piece is a border piece: 1xN (ends carry 3 frame edges, the rest 2) and 2xN.
The board is read as width >= height unless the hints only fit the other way round. A puzzle without
any 0 label has no frame and must have a square number of pieces.

The writer refuses what the format cannot say (see ``numeric.refusal``; also an unframed board that is not
square, and a board that would read back turned: height > width with no hint to pin it). The format has
no place for names: the puzzle name and label names are display only and are not written.

Content detection: a file is Heule's when it reads as one and the ``.puz`` and Owen readers do not read
it differently (line 1 holds one number, then 4 numbers per line).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import isqrt

from edgematch.core.model import Hint, Puzzle, Tile
from edgematch.errors import FormatError, PuzzleError, quoted
from edgematch.formats import Format
from edgematch.formats.numeric import FRAME, labels_of, numeric_frame, numeric_sniff, refusal
from edgematch.formats.source import Line, Source


def board_size(pieces: int, frame_edges: int) -> tuple[int, int] | None:
    """(width, height), width >= height, of the board with ``pieces`` cells and ``frame_edges`` rim edges."""
    if frame_edges % 2:
        return None
    s = frame_edges // 2
    disc = s * s - 4 * pieces
    if disc < 0 or isqrt(disc) ** 2 != disc or (s + isqrt(disc)) % 2:
        return None
    width, height = (s + isqrt(disc)) // 2, (s - isqrt(disc)) // 2
    return (width, height) if height >= 1 else None


def orient(width: int, height: int, positions: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The board as (width, height): wide unless the 1-based hint positions (row, col) only fit it tall."""
    def fits(w: int, h: int) -> bool:
        return all(1 <= row <= h and 1 <= col <= w for row, col in positions)

    wide, tall = (max(width, height), min(width, height)), (min(width, height), max(width, height))
    return tall if not fits(*wide) and fits(*tall) else wide


def _size(source: Source, tiles: list[Tile], positions: list[tuple[int, int]], last: Line) -> tuple[int, int]:
    frame_edges = sum(t.edges.count(FRAME) for t in tiles)
    n = len(tiles)
    if frame_edges == 0:
        side = isqrt(n)
        if side * side != n:
            raise source.error(
                f"no frame (label 0) and {n} pieces do not fill a square board: cannot tell the board size",
                last,
            )
        return side, side
    size = board_size(n, frame_edges)
    if size is None:
        raise source.error(
            f"cannot infer the board size: {n} pieces with {frame_edges} frame edges (label 0) fit no "
            "rectangle (a WxH board has W*H pieces and 2*(W+H) frame edges)",
            last,
        )
    return orient(*size, positions)


def _hints(
    source: Source, raw: list[tuple[Line, list[int]]], width: int, height: int, pieces: int
) -> list[Hint]:
    hints: list[Hint] = []
    cells: dict[int, Line] = {}
    used: dict[int, Line] = {}
    for line, (row, col, piece, rot) in raw:
        if not (1 <= row <= height and 1 <= col <= width):
            raise source.error(f"hint at row {row}, col {col} is off the {width}x{height} board (1-based)",
                               line)
        if piece > pieces:
            raise source.error(f"hint piece {piece} does not exist (pieces are 1..{pieces})", line)
        cell = (row - 1) * width + col - 1
        if cell in cells:
            raise source.error(
                f"hint clash: row {row}, col {col} is already fixed by the hint on line {cells[cell].number}",
                line,
            )
        if piece in used:
            raise source.error(
                f"hint clash: piece {piece} is already placed by the hint on line {used[piece].number}", line
            )
        cells[cell], used[piece] = line, line
        hints.append(Hint(cell, piece - 1, rot))
    return hints


def read(source: Source) -> Puzzle:
    lines = list(source.lines(comment=None))
    if not lines:
        raise source.error("empty file", 1)
    first = lines[0]
    if len(first.words) != 1:
        raise source.error(
            f"line 1 is the number of hints H (one number), got {len(first.words)} words: {quoted(first.text)}",
            first,
        )
    count = source.int_word(first.words[0], first, "the number of hints")
    if count < 0:
        raise source.error(f"the number of hints cannot be negative, got {count}", first)
    hint_lines = lines[1:1 + count]
    if len(hint_lines) < count:
        raise source.error(
            f"expected {count} hint lines after line 1, the file ends after {len(hint_lines)}", lines[-1]
        )
    raw = [(line, source.ints(line, 4, "hint (row col piece rot)")) for line in hint_lines]
    for line, (row, col, piece, rot) in raw:  # what needs no board size, so a miscounted line 1 is blamed here
        problem = (f"hint at row {row}, col {col}: rows and columns are numbered from 1" if row < 1 or col < 1
                   else f"hint piece {piece}: pieces are numbered from 1" if piece < 1
                   else f"hint rotation {rot} is not 0..3 (clockwise quarter turns)" if not 0 <= rot < 4 else None)
        if problem:
            raise source.error(f"{problem} (line 1 says {count} hint line(s) follow: is that count right?)", line)
    piece_lines = lines[1 + count:]
    if not piece_lines:
        raise source.error("no pieces after the hints", lines[-1])
    tiles = [Tile(labels_of(source, line)) for line in piece_lines]
    width, height = _size(source, tiles, [(r[0], r[1]) for _, r in raw], piece_lines[-1])
    hints = _hints(source, raw, width, height, len(tiles))
    frame = numeric_frame(tiles)
    puzzle = source.build(
        lambda: Puzzle(width, height, tuple(tiles), rule="same", frame=frame), piece_lines[-1]
    )
    try:
        return puzzle.replace(hints=tuple(hints))
    except PuzzleError:
        for i, (line, _) in enumerate(raw):  # blame the first hint that breaks the puzzle
            source.build(lambda i=i: puzzle.replace(hints=tuple(hints[: i + 1])), line)
        raise


def write(puzzle: Puzzle) -> str:
    why = refusal(puzzle, "Heule's format")
    if why is None and puzzle.frame is None and puzzle.width != puzzle.height:
        why = (
            "an unframed board must be square (the size comes from the piece count); "
            f"this one is {puzzle.width}x{puzzle.height}"
        )
    w = puzzle.width
    positions = [(c // w + 1, c % w + 1) for c, _, _ in puzzle.hints]
    if why is None and orient(puzzle.width, puzzle.height, positions) != (puzzle.width, puzzle.height):
        why = (
            "the board size is not stored and reads back wider than tall; "
            f"this {puzzle.width}x{puzzle.height} board would come back turned"
        )
    if why:
        raise FormatError(f"cannot write in Heule's format: {why}")
    out = [str(len(puzzle.hints))]
    out.extend(f"{c // w + 1} {c % w + 1} {t + 1} {r}" for c, t, r in puzzle.hints)
    out.extend(" ".join(map(str, t.edges)) for t in puzzle.tiles)
    return "\n".join(out) + "\n"


FORMAT = Format(
    name="heule",
    description="Heule's generator/encoder format (H, H hints row col piece rot, n e s w pieces; 0 = frame)",
    extensions=(".heule",),
    read=read,
    write=write,
    sniff=numeric_sniff(read),
)
