"""The Racket article's notation (seed 002): each tile a four-letter string in the order N E S W.

::

    ; name: racket3x3                                 <- optional: names the puzzle
    '("cymK" "KyCy" "ymkc"
      "mkYc" "MycK" "mCkY"
      "cmKY" "KYmC" "McMk")

A letter is a colour; upper and lower case are the two halves of a picture and must meet (rule
``signed``). Colour numbers are fixed: ``k`` is the 1-based position of the letter in ``"CMYKRGB"``
followed by the other letters A..Z in alphabetical order (C=1 .. B=7, A=8, D=9, ..., Z=26); an upper
case letter is ``+k``, lower case ``-k``, and the letters become label names (``{1: "C", -1: "c"}``) for
the colours used. Rotation allowed, no frame, a square board (the string count must be a square).

The one list of strings may be quoted ``'(...)``, written ``(list ...)``, or bound by
``(define name ...)``; ``;`` starts a comment and ``; name: TEXT`` names the puzzle.

The writer emits the quoted form, one board row per line. It refuses what the notation cannot say (the
``same`` rule, a frame, hints, rotation forbidden, a board that is not square, labels beyond +-26).
Letters come from the label numbers; other label names (display only) are not written, so write -> read
is the identity on puzzles named with :func:`letter_names` (as this reader names them).

Content detection: the first form is a list of strings, possibly quoted, under ``list`` or inside
``(define name ...)``.
"""

from __future__ import annotations

from edgematch.core.model import Puzzle, Tile
from edgematch.errors import EdgematchError, FormatError
from edgematch.formats import Format
from edgematch.formats.arc import Node, parse, refusal, square_side, starts_with_a_form
from edgematch.formats.source import Source

ORDER = "CMYKRGB" + "".join(ch for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if ch not in "CMYKRGB")


def letter_label(letter: str) -> int:
    k = ORDER.index(letter.upper()) + 1
    return k if letter.isupper() else -k


def label_letter(label: int) -> str:
    letter = ORDER[abs(label) - 1]
    return letter if label > 0 else letter.lower()


def letter_names(puzzle: Puzzle) -> dict[int, str]:
    """The label names this notation gives: both halves of every colour in play, as letters."""
    return {value: label_letter(value) for k in puzzle.colours() for value in (k, -k)}


def _string_list(node: Node) -> list[Node] | None:
    """The strings of a tile list form, or None when ``node`` is not one."""
    if node.kind != "list":
        return None
    if node.head == "define" and len(node.items) == 3 and node.items[1].kind == "atom":
        return _string_list(node.items[2])
    items = node.items[1:] if node.head == "list" else node.items if node.quoted else None
    if items is None or not all(item.kind == "string" for item in items):
        return None
    return items


def read(source: Source) -> Puzzle:
    forms, name = parse(source)
    strings: list[Node] | None = None
    first_line = 0
    for form in forms:
        found = _string_list(form)
        if found is None:
            raise source.error(
                f"expected a list of tile strings such as '(\"cymK\" \"KyCy\" ...), got {form.show()}",
                form.line,
            )
        if strings is not None:
            raise source.error(
                f"a second list of tiles (the first starts on line {first_line}); one puzzle per file",
                form.line,
            )
        strings, first_line = found, form.line
    if strings is None:
        raise source.error("no list of tile strings found", source.last_line)
    tiles = []
    for node in strings:
        word = node.text
        if len(word) != 4 or not all(ch.isascii() and ch.isalpha() for ch in word):
            raise source.error(f"a tile is 4 letters (N E S W), got {node.show()}", node.line)
        tiles.append(Tile(tuple(letter_label(ch) for ch in word)))  # type: ignore[arg-type]
    last = strings[-1].line if strings else first_line
    side = square_side(source, len(tiles), last)
    labels = {letter_label(ch): ch for node in strings for ch in node.text}
    labels |= {-value: label_letter(-value) for value in labels}
    return source.build(
        lambda: Puzzle(side, side, tuple(tiles), rule="signed", labels=labels, name=name), last
    )


def write(puzzle: Puzzle) -> str:
    why = refusal(puzzle, "the Racket notation")
    if why is None and max(abs(x) for x in puzzle.label_set()) > len(ORDER):
        why = (
            f"colours are letters, so labels must be within +-{len(ORDER)}; "
            f"this puzzle uses {max(puzzle.colours())}"
        )
    if why:
        raise FormatError(f"cannot write in the Racket notation: {why}")
    out = [f"; name: {puzzle.name}"] if puzzle.name else []
    out.append("; each tile: N E S W; upper and lower case of a letter are the two halves that meet")
    w = puzzle.width
    words = ['"' + "".join(label_letter(x) for x in t.edges) + '"' for t in puzzle.tiles]
    rows = [" ".join(words[i:i + w]) for i in range(0, len(words), w)]
    out.append("'(" + "\n  ".join(rows) + ")")
    return "\n".join(out) + "\n"


def sniff(source: Source) -> bool:
    if not starts_with_a_form(source):
        return False
    try:
        forms, _ = parse(source)
    except EdgematchError:
        return False
    return bool(forms) and bool(_string_list(forms[0]))


FORMAT = Format(
    name="racket",
    description="the Racket article's tile strings ('(\"cymK\" ...), N E S W, upper/lower case halves)",
    extensions=(".rkt",),
    read=read,
    write=write,
    sniff=sniff,
)
