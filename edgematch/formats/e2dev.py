"""The eternity2.dev formats: the site's puzzle JSON, its board document, and the viewer links for a board.

So a user can look at an edgematch board in the tools the Eternity II community already uses.

Puzzle (the site's ``Puzzle`` schema)::

    {"name": "clue 1", "width": 6, "height": 6, "numColors": 8,
     "pieces": [[1, 2, 0, 0], ...],                  # u r d l = N E S W at rotation 0; index = piece id
     "hints": [{"pos": 14, "piece": 3, "rot": 1}]}   # cell row-major from the top-left, clockwise turns

Board document (what every solver on the site writes)::

    {"name": "...", "size": 16, "score": 373, "breaks": 107,
     "board": [11, 58, 1, ...],                      # row-major piece*4 + rot per cell
     "board_hash": ..., "board_edges": "acdahbac...", "board_pieces": "003015...", "url": "https://..."}

The conventions, as the site's own code defines them (github.com/raphael-anjou/eternity2):

- ``engine/src/types.rs``: "Edge order is always URDL (up, right, down, left), matching the e2.bucas.name
  URL encoding. Color 0 is the grey outer border"; "Rotation r = clockwise quarter-turns ... new[i] =
  old[(i+4-r)%4]" - exactly edgematch's N E S W order and clockwise turns, so edges and turns are copied
  as they are.
- ``engine/src/official.rs``: clue pieces are "pinned at position y*16+x" - ``pos`` is row-major from
  the top-left, 0-based, as edgematch numbers cells.
- ``research/experiments/common/crates/e2-io/src/format.rs``: ``board`` is "Row-major piece*4 + rot,
  -1 empty"; ``breaks`` is "MAX - score: unmatched interior edges"; ``board_edges`` is four letters per
  cell, ``'a' + colour``, the edges as placed (URDL); ``board_pieces`` three digits per cell, the 1-based
  piece number; the viewer link is ``https://eternity2.dev/viewer?puzzle=NAME&puzzle_size=N&board_edges=
  ...&board_pieces=...`` ("the viewer also accepts board_w/board_h"), and the older one
  ``https://e2.bucas.name/#puzzle=NAME&board_w=W&board_h=H&board_edges=...`` (``board_pieces`` too).
- ``board_hash`` is ``Board::hash`` of ``research/experiments/common/crates/e2-core/src/board.rs``: FNV-1a
  over each cell's piece (u16, little-endian) and rotation (one byte).
- The site's published boards agree: in ``variant_09.json`` the corner pins (pos 0, piece [0,0,2,3], rot 3)
  and (pos 240, piece [0,0,3,2], rot 2) show the rim outward only when turned clockwise; the board
  document of that puzzle has cell 0 = code 11 (piece 2, rot 3) drawn as ``acda``. The tests check these.

Read as: rule ``same``, rotation allowed, frame 0 when any piece carries colour 0 (else no frame), hints as
(cell, tile, turns). ``numColors`` is derived data (the largest colour) and is not read back. The writer
refuses what the site cannot hold (signed rule, rotation forbidden, negative labels, a frame other than 0,
0 used as an ordinary colour, numbers beyond the site's bytes); label names travel in an extra ``labels``
key the site ignores, so write -> read is the identity on every puzzle the writer accepts.

A board document is read back as a solution (``board`` codes; a ``-1`` empty cell is an error, edgematch
boards are complete); with the puzzle at hand its ``board_edges`` must agree with the pieces as turned.
Its ``score`` and ``breaks`` are recomputed by the checker, never trusted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Literal

from edgematch.core.checker import check
from edgematch.core.model import Hint, Placement, Puzzle, Solution, Tile, rotate_edges
from edgematch.errors import FormatError, PuzzleError, UsageError
from edgematch.formats import Format
from edgematch.formats.jsonfmt import MAX_DEPTH, _show, _too_deep
from edgematch.formats.numeric import numeric_frame, refusal
from edgematch.formats.source import Source

SITE = "https://eternity2.dev"
BUCAS = "https://e2.bucas.name"
FORMAT_NAME = "eternity2.dev JSON"
BYTE = 255  # the site stores width, height, colours and rotations as bytes
MAX_PIECES = 65535  # ... and piece ids and positions as 16-bit numbers
MAX_VIEWER_COLOUR = 22  # the viewers draw the grey rim and Eternity II's 22 motifs ('a'..'w'); more is clamped
MAX_VIEWER_PIECES = 999  # board_pieces has three digits per cell
JsonPath = tuple[str | int, ...]  # keys and indexes down to one element


# ---------------------------------------------------------------- JSON with lines


def _load(source: Source) -> Any:
    """The JSON value of ``source``; syntax errors name their line (as our own JSON reader does)."""
    deep = _too_deep(source.text)
    if deep is not None:
        raise source.error(f"invalid JSON: arrays and objects nested more than {MAX_DEPTH} deep", deep)
    try:
        return json.loads(source.text)
    except json.JSONDecodeError as exc:
        raise source.error(f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise source.error(f"invalid JSON: nested more than {MAX_DEPTH} deep", 1) from None
    except ValueError:  # Python reads integers of at most 4,300 digits
        long = re.search(r"[0-9]{4301,}", source.text)
        line = source.text.count("\n", 0, long.start()) + 1 if long else 1
        raise source.error("invalid JSON: number too long", line) from None


def _value_starts(text: str) -> dict[JsonPath, int]:
    """Where each value of the (valid) JSON ``text`` starts, by path: ``("pieces", 17)`` -> offset.

    Only run when there is an error to place, so a large file pays nothing on the good path."""
    starts: dict[JsonPath, int] = {}
    n = len(text)

    def space(i: int) -> int:
        while i < n and text[i] in " \t\r\n":
            i += 1
        return i

    def string_end(i: int) -> int:
        i += 1
        while text[i] != '"':
            i += 2 if text[i] == "\\" else 1
        return i + 1

    def value(i: int, path: JsonPath) -> int:
        i = space(i)
        starts[path] = i
        opener = text[i]
        if opener in "[{":
            closer = "]" if opener == "[" else "}"
            i = space(i + 1)
            index = 0
            while text[i] != closer:
                if opener == "{":
                    end = string_end(i)
                    key: str | int = json.loads(text[i:end])
                    i = space(end) + 1  # the colon
                else:
                    key = index
                    index += 1
                i = space(value(i, (*path, key)))
                if text[i] == ",":
                    i = space(i + 1)
            return i + 1
        if opener == '"':
            return string_end(i)
        while i < n and text[i] not in ",]} \t\r\n":
            i += 1
        return i

    value(0, ())
    return starts


class _Doc:
    """A parsed JSON document that can say on which line each element sits."""

    def __init__(self, source: Source, data: Any, kind: str):
        if not isinstance(data, dict):
            raise source.error(f"expected a JSON object (an eternity2.dev {kind}), got {_show(data)}", 1)
        self.source, self.data = source, data
        self._starts: dict[JsonPath, int] | None = None

    def line(self, path: JsonPath) -> int:
        """The line of the element at ``path`` (or of its nearest enclosing element)."""
        if self._starts is None:
            self._starts = _value_starts(self.source.text)
        while path and path not in self._starts:
            path = path[:-1]
        offset = self._starts.get(path, 0)
        return self.source.text.count("\n", 0, offset) + 1

    def error(self, path: JsonPath, message: str) -> FormatError:
        return self.source.error(f"{_name(path)}: {message}" if path else message, self.line(path))

    def get(self, key: str, default: Any = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.source.error(f'missing "{key}"', 1)
            return default
        return self.data[key]

    def integer(self, path: JsonPath, value: Any, low: int, high: int | None, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(path, f"{what} must be an integer, got {_show(value)}")
        if value < low or (high is not None and value > high):
            span = f"{low}..{high}" if high is not None else f"at least {low}"
            raise self.error(path, f"{what} must be {span}, got {value}")
        return value

    def array(self, path: JsonPath, value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise self.error(path, f"expected an array, got {_show(value)}")
        return value


def _name(path: JsonPath) -> str:
    """``("hints", 2, "rot")`` as ``hints[2].rot``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


# ---------------------------------------------------------------- puzzles


def read(source: Source) -> Puzzle:
    """An eternity2.dev puzzle JSON as a Puzzle (rule same, turning, frame 0 when a piece carries 0)."""
    doc = _Doc(source, _load(source), "puzzle")
    width = doc.integer(("width",), doc.get("width"), 1, None, "the board width")
    height = doc.integer(("height",), doc.get("height"), 1, None, "the board height")
    raw_pieces = doc.array(("pieces",), doc.get("pieces"))
    cells = width * height
    tiles = []
    for k, piece in enumerate(raw_pieces):
        at = ("pieces", k)
        if not isinstance(piece, list) or len(piece) != 4:
            got = f"{len(piece)}" if isinstance(piece, list) else _show(piece)
            raise doc.error(at, f"expected 4 colours (up right down left), got {got}")
        edges = tuple(doc.integer((*at, i), c, 0, None, "a colour (0 = rim)") for i, c in enumerate(piece))
        try:
            tiles.append(Tile(edges))  # type: ignore[arg-type]
        except PuzzleError as exc:
            raise doc.error(at, str(exc)) from None
    if len(tiles) != cells:
        raise doc.error(("pieces",), f"a {width}x{height} board needs {cells} pieces, got {len(tiles)}")
    hints = []
    placed: dict[int, int] = {}
    for k, hint in enumerate(doc.array(("hints",), doc.get("hints", []))):
        at = ("hints", k)
        if not isinstance(hint, dict):
            raise doc.error(at, f'expected an object {{"pos", "piece", "rot"}}, got {_show(hint)}')
        for key in ("pos", "piece", "rot"):
            if key not in hint:
                raise doc.error(at, f'missing "{key}"')
        pos = doc.integer((*at, "pos"), hint["pos"], 0, cells - 1, f"the cell (row-major on {width}x{height})")
        piece = doc.integer((*at, "piece"), hint["piece"], 0, len(tiles) - 1, "the piece index")
        rot = doc.integer((*at, "rot"), hint["rot"], 0, 3, "the rotation (clockwise quarter turns)")
        if pos in placed:
            raise doc.error(at, f"cell {pos} is pinned twice (first by hints[{placed[pos]}])")
        placed[pos] = k
        hints.append(Hint(pos, piece, rot))
    name = doc.get("name", "")
    if not isinstance(name, str):
        raise doc.error(("name",), f"expected a string, got {_show(name)}")
    labels = _read_labels(doc)
    frame = numeric_frame(tiles)
    # built in steps, so a problem the model finds is reported at the part of the file that causes it
    puzzle = source.build(
        lambda: Puzzle(width, height, tuple(tiles), rule="same", frame=frame, rotations=True, name=name),
        doc.line(("pieces",)),
    )
    if hints:
        puzzle = source.build(lambda: puzzle.replace(hints=tuple(hints)), doc.line(("hints",)))
    if labels:
        puzzle = source.build(lambda: puzzle.replace(labels=labels), doc.line(("labels",)))
    return puzzle


def _read_labels(doc: _Doc) -> dict[int, str]:
    raw = doc.get("labels", {})
    if not isinstance(raw, dict):
        raise doc.error(("labels",), f"expected an object {{colour: name}}, got {_show(raw)}")
    labels = {}
    for key, value in raw.items():
        if not re.fullmatch(r"[0-9]{1,18}", key) or not isinstance(value, str):
            raise doc.error(("labels", key), f"expected colour number: name, got {_show(key)}: {_show(value)}")
        labels[int(key)] = value
    return labels


def _refusal(puzzle: Puzzle) -> str | None:
    """Why the site's puzzle JSON cannot hold ``puzzle``, or None."""
    why = refusal(puzzle, FORMAT_NAME)
    if why:
        return why
    if max(puzzle.width, puzzle.height) > BYTE:
        return (f"the site stores width and height as bytes (at most {BYTE}); "
                f"this board is {puzzle.width}x{puzzle.height}")
    if max(puzzle.label_set()) > BYTE:
        return f"the site stores colours as bytes (0..{BYTE}); this puzzle uses {max(puzzle.label_set())}"
    if len(puzzle.tiles) > MAX_PIECES:
        return f"the site numbers pieces with 16 bits (at most {MAX_PIECES}); this puzzle has {len(puzzle.tiles)}"
    return None


def write(puzzle: Puzzle) -> str:
    """The puzzle as eternity2.dev JSON, one piece per line; refuses what the site cannot hold."""
    why = _refusal(puzzle)
    if why:
        raise FormatError(f"cannot write as {FORMAT_NAME}: {why}")
    head = {"name": puzzle.name, "width": puzzle.width, "height": puzzle.height,
            "numColors": max(puzzle.label_set())}
    lines = [json.dumps(head)[:-1] + ","]
    lines.append('  "pieces": [')
    lines.append(",\n".join(f"    {json.dumps(list(t.edges))}" for t in puzzle.tiles))
    hints = ",\n".join(f'    {{"pos": {c}, "piece": {t}, "rot": {r}}}' for c, t, r in puzzle.hints)
    lines.append("  ],")
    lines.append(f'  "hints": [\n{hints}\n  ]' if hints else '  "hints": []')
    if puzzle.labels:
        lines[-1] += ","
        lines.append(f'  "labels": {json.dumps({str(k): v for k, v in sorted(puzzle.labels.items())})}')
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- boards


def _sanitised(name: str) -> str:
    """A name in the URL-safe ``[A-Za-z0-9_]`` the site keeps names to (runs of anything else -> ``_``)."""
    return re.sub(r"[^A-Za-z0-9_]+", "_", name) or "edgematch"


def _codes(puzzle: Puzzle, solution: Solution, what: str) -> list[int]:
    """The board's ``piece*4 + rot`` per cell, after checking the solution fits the puzzle."""
    if (solution.width, solution.height) != (puzzle.width, puzzle.height):
        raise FormatError(
            f"cannot write {what}: the board is {solution.width}x{solution.height}, "
            f"the puzzle {puzzle.width}x{puzzle.height}"
        )
    for cell, (tile, rot) in enumerate(solution.cells):
        if not 0 <= tile < len(puzzle.tiles) or not 0 <= rot < 4:
            raise FormatError(f"cannot write {what}: cell {cell} holds tile {tile} turned {rot}, "
                              f"not one of the puzzle's {len(puzzle.tiles)} tiles turned 0..3")
    return [tile * 4 + rot for tile, rot in solution.cells]


def _letters(edges: Iterable[int]) -> str:
    return "".join(chr(ord("a") + c) for c in edges)


def viewer_refusal(puzzle: Puzzle) -> str | None:
    """Why the viewers cannot draw boards of ``puzzle`` (letters 'a'..'w' = colours 0..22, three-digit
    piece numbers), or None."""
    labels = puzzle.label_set()
    if min(labels) < 0 or max(labels) > MAX_VIEWER_COLOUR:
        bad = min(labels) if min(labels) < 0 else max(labels)
        return (f"the viewers draw colours 0..{MAX_VIEWER_COLOUR} (letters a..w, 0 = the grey rim); "
                f"this puzzle uses {bad}")
    if len(puzzle.tiles) > MAX_VIEWER_PIECES:
        return (f"the viewers number pieces with three digits (at most {MAX_VIEWER_PIECES}); "
                f"this puzzle has {len(puzzle.tiles)}")
    return None


def _edges_and_pieces(puzzle: Puzzle, solution: Solution) -> tuple[str, str]:
    """The ``board_edges`` (URDL letters as placed) and ``board_pieces`` (1-based, 3 digits) blobs."""
    codes = _codes(puzzle, solution, "a viewer link")
    why = viewer_refusal(puzzle)
    if why:
        raise FormatError(f"cannot make a viewer link: {why}")
    edges = "".join(_letters(puzzle.tiles[c >> 2].rotated(c & 3)) for c in codes)
    pieces = "".join(f"{(c >> 2) + 1:03d}" for c in codes)
    return edges, pieces


Site = Literal["eternity2.dev", "e2.bucas.name"]


def viewer_url(puzzle: Puzzle, solution: Solution, site: Site = "eternity2.dev") -> str:
    """The link that opens ``solution`` in the eternity2.dev viewer (or, with ``site="e2.bucas.name"``, in
    Jef Bucas's original viewer). Every cell is in it: four edge letters and a piece number each.
    Raises FormatError for a puzzle the viewers cannot draw (see :func:`viewer_refusal`)."""
    edges, pieces = _edges_and_pieces(puzzle, solution)
    name = _sanitised(puzzle.name)
    w, h = puzzle.width, puzzle.height
    if site == "eternity2.dev":
        size = f"puzzle_size={w}" if w == h else f"board_w={w}&board_h={h}"
        return f"{SITE}/viewer?puzzle={name}&{size}&board_edges={edges}&board_pieces={pieces}"
    if site == "e2.bucas.name":
        return f"{BUCAS}/#puzzle={name}&board_w={w}&board_h={h}&board_edges={edges}&board_pieces={pieces}"
    raise UsageError(f"unknown viewer site {site!r} (eternity2.dev or e2.bucas.name)")


def board_hash(codes: Iterable[int]) -> int:
    """The site's board fingerprint (``Board::hash`` in its ``e2-core``): 64-bit FNV-1a over each cell's
    piece as a little-endian 16-bit number, then its rotation as one byte."""
    h = 0xCBF29CE484222325
    for code in codes:
        for byte in (*((code >> 2) & 0xFFFF).to_bytes(2, "little"), code & 3):
            h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def board_document(puzzle: Puzzle, solution: Solution) -> dict[str, Any]:
    """The site's board document for ``solution``: score and breaks from the independent checker, the
    ``piece*4 + rot`` codes, their hash, and - when the viewers can draw the puzzle - the letter blobs and
    the viewer link (else those are null and ``viewer`` says why, rather than leaving them out unsaid).
    ``width`` and ``height`` are edgematch's additions (the site's boards are square: ``size``)."""
    codes = _codes(puzzle, solution, "a board document")
    result = check(puzzle, solution)
    doc: dict[str, Any] = {"name": _sanitised(puzzle.name)}
    if puzzle.width == puzzle.height:
        doc["size"] = puzzle.width
    doc.update({"width": puzzle.width, "height": puzzle.height, "score": result.score, "breaks": result.breaks,
                "board": codes, "board_hash": board_hash(codes)})
    why = viewer_refusal(puzzle)
    if why is None:
        edges, pieces = _edges_and_pieces(puzzle, solution)
        doc.update({"board_edges": edges, "board_pieces": pieces, "url": viewer_url(puzzle, solution)})
    else:
        doc.update({"board_edges": None, "board_pieces": None, "url": None, "viewer": why})
    return doc


def write_solution(solution: Solution, puzzle: Puzzle | None = None) -> str:
    """The board document as JSON (one board row per line); needs the puzzle for the score and edges."""
    if puzzle is None:
        raise UsageError("an eternity2.dev board document needs the puzzle (for its score and edges)")
    doc = board_document(puzzle, solution)
    w = puzzle.width
    rows = [", ".join(map(str, doc["board"][i:i + w])) for i in range(0, len(doc["board"]), w)]
    lines = []
    for key, value in doc.items():
        if key == "board":
            lines.append('  "board": [\n' + ",\n".join(f"    {row}" for row in rows) + "\n  ]")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def read_solution(source: Source, puzzle: Puzzle | None) -> Solution:
    """A board document's ``board`` as a Solution (the size from the puzzle, else width/height or size)."""
    doc = _Doc(source, _load(source), "board document")
    board = doc.array(("board",), doc.get("board"))
    sizes = {k: doc.integer((k,), doc.data[k], 1, None, f'"{k}"') for k in ("size", "width", "height")
             if k in doc.data}
    if puzzle is not None:
        width, height = puzzle.width, puzzle.height
        for key, want in (("size", width if width == height else None), ("width", width), ("height", height)):
            if key in sizes and sizes[key] != want:
                raise doc.error((key,), f"the document says {sizes[key]}, the puzzle is {width}x{height}")
    elif "width" in sizes or "height" in sizes:
        width, height = sizes.get("width", sizes.get("size", 0)), sizes.get("height", sizes.get("size", 0))
        if not width or not height:
            raise doc.error(("width",), 'give both "width" and "height"')
    elif "size" in sizes:
        width = height = sizes["size"]
    else:
        raise doc.error(("board",), 'the board size is unknown: give the puzzle, or "size" / "width" and "height"')
    if len(board) != width * height:
        raise doc.error(("board",), f"a {width}x{height} board has {width * height} cells, got {len(board)}")
    cells = []
    for cell, code in enumerate(board):
        at = ("board", cell)
        if code == -1:
            raise doc.error(at, f"cell {cell} is empty (-1); edgematch reads complete boards only")
        code = doc.integer(at, code, 0, None, f"cell {cell} (piece*4 + rot)")
        if puzzle is not None and code >> 2 >= len(puzzle.tiles):
            last = len(puzzle.tiles) - 1
            raise doc.error(at, f"cell {cell}: piece {code >> 2} does not exist (pieces are 0..{last})")
        cells.append(Placement(code >> 2, code & 3))
    solution = source.build(lambda: Solution(width, height, tuple(cells)), doc.line(("board",)))
    if puzzle is not None:
        _check_edges(doc, puzzle, solution)
    return solution


def _check_edges(doc: _Doc, puzzle: Puzzle, solution: Solution) -> None:
    """The document's ``board_edges`` must show what the pieces, turned as ``board`` says, show: a
    different puzzle or another rotation convention would be caught here rather than mis-read."""
    edges = doc.data.get("board_edges")
    if not isinstance(edges, str) or viewer_refusal(puzzle) is not None:
        return
    if len(edges) != 4 * puzzle.size:
        raise doc.error(("board_edges",), f"expected 4 letters per cell ({4 * puzzle.size}), got {len(edges)}")
    for cell, (tile, rot) in enumerate(solution.cells):
        shown = _letters(rotate_edges(puzzle.tiles[tile].edges, rot))
        written = edges[4 * cell:4 * cell + 4]
        if shown != written:
            raise doc.error(
                ("board_edges",),
                f"cell {cell} is drawn {written!r}, but piece {tile} turned {rot} clockwise shows {shown!r} "
                "(the board of another puzzle?)",
            )


# ---------------------------------------------------------------- detection


def _sniff(source: Source) -> bool:
    """A JSON object with the site's keys (``pieces``, ``hints`` or ``numColors``) and not our own tag."""
    text = source.text
    return (text.lstrip().startswith("{") and re.search(r'"(pieces|hints|numColors)"\s*:', text) is not None
            and re.search(r'"edgematch"\s*:', text) is None)


def _solution_sniff(source: Source) -> bool:
    text = source.text
    return (text.lstrip().startswith("{") and re.search(r'"board"\s*:\s*\[', text) is not None
            and re.search(r'"edgematch"\s*:', text) is None)


FORMAT = Format(
    name="e2dev",
    description="eternity2.dev puzzle JSON (pieces u r d l, 0 = rim, hints pos/piece/rot) and board documents",
    extensions=(".json",),
    read=read,
    write=write,
    read_solution=read_solution,
    write_solution=write_solution,
    sniff=_sniff,
    solution_extensions=(".json",),
    solution_sniff=_solution_sniff,
)
