"""The Hunde-Spiel notation (seed 001): one tile per line, its four dog halves clockwise from the top.

::

    # name: Das verflixte Hunde-Spiel                 <- optional: names the puzzle
    - Brown head, grey head, umber tail, spotted tail   N, E, S, W; the "- " bullet is optional
    Tile (Brown, Head) (Grey, Head) (Umber, Tail) (Spotted, Tail)    the article's Haskell form

Each edge is ``PATTERN HALF`` with HALF ``head`` or ``tail`` (any case). A pattern of several words is
joined with ``-`` (``burnt umber`` -> ``burnt-umber``). A Haskell line may hold several ``Tile (..)``
values, separated by commas and inside ``[ ]``, optionally after ``tiles =``; the type signature and
other Haskell are not read. ``#`` starts a comment.

Read as: rule ``signed``, rotation allowed, no frame, a square board (the tile count must be a square).
Patterns are numbered by first appearance (reading tiles in order, N E S W): a head of pattern k is
``+k``, a tail ``-k``. Label names say both the pattern and the half, because a bare ``brown`` next to
``-brown`` would not say which end of the dog it is: ``{k: "brown-head", -k: "brown-tail"}``.

The writer emits the first form, one tile per line. Patterns are named from the head's name (dropping a
``-head`` suffix) when every colour has a distinct usable name, else ``colour1``, ``colour2``, ...
Label numbers are not stored, so write -> read renumbers the colours by first appearance and names them
as above; the matching is unchanged. It refuses what the notation cannot say: the ``same`` rule, a
frame, hints, rotation forbidden, a board that is not square.

Content detection: the first meaningful line reads as a tile in one of the two forms.
"""

from __future__ import annotations

import re

from edgematch.core.model import Puzzle, Tile
from edgematch.errors import EdgematchError, FormatError, quoted
from edgematch.formats import Format
from edgematch.formats.arc import refusal, square_side
from edgematch.formats.source import Line, Source

HALVES = {"head": 1, "tail": -1}
_WORD = r"[A-Za-z][A-Za-z0-9_'-]*"
_PAIR = rf"\(\s*({_WORD}(?:\s+{_WORD})*)\s*,\s*({_WORD})\s*\)"
_HASKELL_TILE = re.compile(rf"Tile\s*{_PAIR}\s*{_PAIR}\s*{_PAIR}\s*{_PAIR}")
# unambiguous on purpose: with ",?\\s*" the space after a tile could go to either part, and a long line that
# fails at its end took exponential time to refuse
_HASKELL_LINE = re.compile(rf"(?:{_WORD}\s*=\s*)?\[?\s*(?:Tile\s*(?:{_PAIR}\s*){{4}}(?:,\s*)?)*\]?")
_BULLET = re.compile(r"[-*\u2022]\s+")
_NAME = re.compile(r"name:\s*(.*?)\s*$")
_PATTERN = re.compile(r"[a-z][a-z0-9_']*(?:-[a-z0-9_']+)*$")


def _edge(source: Source, text: str, line: Line) -> tuple[str, int]:
    words = text.split()
    if len(words) < 2 or words[-1].lower() not in HALVES:
        raise source.error(f"expected 'PATTERN head' or 'PATTERN tail', got {quoted(text.strip())}", line)
    for word in words[:-1]:
        if not re.fullmatch(_WORD, word):
            raise source.error(f"a pattern is made of words, got {quoted(' '.join(words[:-1]))}", line)
    return "-".join(words[:-1]).lower(), HALVES[words[-1].lower()]


def _line_tiles(source: Source, line: Line) -> list[list[tuple[str, int]]]:
    """The tiles on one line: each a list of four (pattern, +1 head / -1 tail)."""
    if re.fullmatch(r"[\[\],\s]*", line.text):
        return []
    if line.text.lstrip("[ ").startswith("Tile") or re.match(rf"{_WORD}\s*=\s*\[", line.text):
        if not _HASKELL_LINE.fullmatch(line.text):
            raise source.error(
                "expected Haskell tiles such as "
                "'Tile (Brown, Head) (Grey, Head) (Umber, Tail) (Spotted, Tail)'",
                line,
            )
        return [
            [_edge(source, f"{m.group(i)} {m.group(i + 1)}", line) for i in (1, 3, 5, 7)]
            for m in _HASKELL_TILE.finditer(line.text)
        ]
    text = _BULLET.sub("", line.text, count=1) if _BULLET.match(line.text) else line.text
    parts = text.rstrip(".").split(",")
    if len(parts) != 4:
        raise source.error(f"a tile has 4 edges (N, E, S, W) separated by commas, got {len(parts)}", line)
    return [[_edge(source, part, line) for part in parts]]


def _name(source: Source) -> str:
    name: tuple[str, int] | None = None
    for number, raw in enumerate(source.text.split("\n"), start=1):
        if "#" in raw and (match := _NAME.match(raw.split("#", 1)[1].strip())):
            if name is not None:
                raise source.error(f"'# name:' given twice (first on line {name[1]})", number)
            name = (match.group(1), number)
    return name[0] if name else ""


def read(source: Source) -> Puzzle:
    colours: dict[str, int] = {}
    tiles: list[Tile] = []
    last = source.last_line
    for line in source.lines(comment="#"):
        for edges in _line_tiles(source, line):
            labels = tuple(colours.setdefault(pattern, len(colours) + 1) * half for pattern, half in edges)
            tiles.append(Tile(labels))  # type: ignore[arg-type]
        last = line.number
    side = square_side(source, len(tiles), last)
    names = {k * half: f"{pattern}-{word}" for pattern, k in colours.items() for word, half in HALVES.items()}
    name = _name(source)
    return source.build(
        lambda: Puzzle(side, side, tuple(tiles), rule="signed", labels=names, name=name), last
    )


def _patterns(puzzle: Puzzle) -> dict[int, str]:
    """A pattern word for every colour: from the label names when they give distinct usable ones."""
    out = {}
    for k in puzzle.colours():
        name = puzzle.labels.get(k, "").lower()
        name = name.removesuffix("-head")
        out[k] = name
    names = list(out.values())
    usable = all(_PATTERN.match(n) and n not in HALVES for n in names) and len(set(names)) == len(names)
    return out if usable else {k: f"colour{k}" for k in out}


def write(puzzle: Puzzle) -> str:
    why = refusal(puzzle, "the Hunde-Spiel notation")
    if why:
        raise FormatError(f"cannot write in the Hunde-Spiel notation: {why}")
    patterns = _patterns(puzzle)
    out = [f"# name: {puzzle.name}"] if puzzle.name else []
    out.append("# each tile clockwise from the top: N, E, S, W")
    for tile in puzzle.tiles:
        edges = ", ".join(f"{patterns[abs(x)]} {'head' if x > 0 else 'tail'}" for x in tile.edges)
        out.append(edges[0].upper() + edges[1:])
    return "\n".join(out) + "\n"


def sniff(source: Source) -> bool:
    first = next(source.lines(comment="#"), None)
    if first is None:
        return False
    try:
        _line_tiles(source, first)
    except EdgematchError:
        return False
    return True


FORMAT = Format(
    name="hunde",
    description="the Hunde-Spiel tile list ('Brown head, grey head, umber tail, spotted tail' per line)",
    extensions=(".hunde",),
    read=read,
    write=write,
    sniff=sniff,
)
