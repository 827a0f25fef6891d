"""The Arc article's notation (seed 000): each tile a list of signed labels, (top left right bottom).

The article's own code reads as written::

    ; name: insects                                   <- optional: names the puzzle
    (with (mantis 1 beetle 2 dragonfly 3 ant 4)
      (= tiles (list
        (list beetle mantis (- dragonfly) dragonfly)  ; top left right bottom
        ...)))

and so do plain lists, one tile per form::

    (2 1 -3 3)
    (-2 3 1 -4)

Read as: rule ``signed`` (+k a head, -k its tail), rotation allowed, no frame, a square board (the tile
count must be a square number). A tile (top, left, right, bottom) becomes N E S W = (top, right, bottom,
left). Names bound by ``with`` become label names (``{1: "mantis"}``; -1 then shows as ``-mantis``);
bound names no tile uses are dropped.

Understood: integers, bound names, ``(- x)``, ``(list ...)``, quoted lists ``'(...)``,
``(with (name value ...) body ...)``, ``(= place value)``, and at the top level a tile or a list of
tiles; ``(def ...)`` and ``(mac ...)`` forms are skipped so a whole program can be read. Anything else
is an error at its line. ``;`` starts a comment; the comment ``; name: TEXT`` names the puzzle.

The writer emits the ``(with ...)`` form when labels have names that are Arc symbols, else plain lists.
Names are display only: one that is not a symbol, and a tail's name other than ``-name``, are not
written. It refuses what the notation cannot say: the ``same`` rule, a frame, hints, rotation forbidden,
a board that is not square.

Content detection: the first form is a ``(with ...)`` or ``(= ...)`` form, a tile of four labels, or a
list of such tiles.

The tokenizer and reader of s-expressions here (:func:`parse`) keep line numbers and serve the Racket
notation too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import isqrt

from edgematch.core.model import Puzzle, Tile, is_integer_word
from edgematch.errors import EdgematchError, FormatError, quoted
from edgematch.formats import Format
from edgematch.formats.source import Source

_TOKEN = re.compile(
    r'(?P<space>\s+)|(?P<comment>;[^\n]*)|(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<open>[(\[])'
    r"|(?P<close>[)\]])|(?P<quote>')|(?P<atom>[^\s()\[\]';\"]+)|(?P<bad>.)"
)
_NAME_COMMENT = re.compile(r";+\s*name:\s*(.*?)\s*$")
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_!?*<>=/+.-]*$")
RESERVED = {"with", "list", "def", "mac", "quote", "nil", "t"}
MAX_DEPTH = 64  # lists nested deeper than this are refused (a tile list is 4 deep; the reader recurses)
SKIPPED = {"def", "mac"}


@dataclass
class Node:
    """An s-expression: an atom (``text``), a string (``text`` without quotes) or a list (``items``)."""

    kind: str
    line: int
    text: str = ""
    items: list[Node] = field(default_factory=list)
    quoted: bool = False

    @property
    def head(self) -> str | None:
        """The leading symbol of an unquoted list (``with`` in ``(with ...)``), else None."""
        if self.kind == "list" and not self.quoted and self.items and self.items[0].kind == "atom":
            return self.items[0].text
        return None

    def show(self, limit: int = 40) -> str:
        """The form as written, cut to about ``limit`` characters (error lines quote it)."""
        if self.kind == "atom":
            text = self.text
        elif self.kind == "string":
            text = f'"{self.text}"'
        else:
            parts: list[str] = []
            for item in self.items:  # stop once the text is long enough: a list may hold 100,000 items
                parts.append(item.show(limit))
                if sum(map(len, parts)) > limit:
                    break
            text = ("'" if self.quoted else "") + "(" + " ".join(parts) + ")"
        return text if len(text) <= limit else text[:limit - 3] + "..."


def parse(source: Source) -> tuple[list[Node], str]:
    """The top-level forms of ``source`` and the puzzle name from a ``; name:`` comment ("" if none)."""
    stack: list[tuple[Node, str]] = []
    forms: list[Node] = []
    quote_line: int | None = None
    name: tuple[str, int] | None = None
    line = 1
    closer = {"(": ")", "[": "]"}
    for match in _TOKEN.finditer(source.text):
        kind, text = match.lastgroup, match.group()
        if kind == "space":
            line += text.count("\n")
            continue
        if kind == "comment":
            if found := _NAME_COMMENT.match(text):
                if name is not None:
                    raise source.error(f"'; name:' given twice (first on line {name[1]})", line)
                name = (found.group(1), line)
            continue
        if kind == "bad":
            what = "unterminated string" if text == '"' else f"unexpected character {quoted(text)}"
            raise source.error(what, line)
        if kind == "quote":
            quote_line = line
            continue
        if kind == "close":
            if quote_line is not None:
                raise source.error(f"a quote ' with nothing after it before {text!r}", quote_line)
            if not stack:
                raise source.error(f"unexpected {text!r} (nothing is open)", line)
            node, opener = stack.pop()
            if closer[opener] != text:
                raise source.error(f"{text!r} closes the {opener!r} opened on line {node.line}", line)
        elif kind == "open":
            if len(stack) == MAX_DEPTH:
                raise source.error(f"lists nested more than {MAX_DEPTH} deep", line)
            stack.append((Node("list", line, quoted=quote_line is not None), text))
            quote_line = None
            continue
        else:
            node = Node(kind, line, text[1:-1] if kind == "string" else text, quoted=quote_line is not None)
        quote_line = None
        (stack[-1][0].items if stack else forms).append(node)
    if stack:
        node, opener = stack[-1]
        raise source.error(f"this {opener!r} is never closed (the file ends first)", node.line)
    if quote_line is not None:
        raise source.error("a quote ' with nothing after it", quote_line)
    return forms, (name[0] if name else "")


def square_side(source: Source, count: int, line: int) -> int:
    """The side of the square board ``count`` tiles fill (the seed notations give no size)."""
    side = isqrt(count)
    if count == 0:
        raise source.error("no tiles found", line)
    if side * side != count:
        raise source.error(
            f"{count} tiles do not fill a square board (the size is not given, so the count must be "
            f"a square: {side * side} or {(side + 1) ** 2})",
            line,
        )
    return side


class _Reader:
    def __init__(self, source: Source):
        self.source = source
        self.tiles: list[tuple[tuple[int, int, int, int], int]] = []
        self.names: dict[int, tuple[str, int]] = {}

    def error(self, message: str, node: Node) -> FormatError:
        return self.source.error(message, node.line)

    def top(self, node: Node, env: dict[str, int]) -> None:
        if node.kind != "list" or not node.items:
            raise self.error(f"expected a tile such as (2 1 -3 3) or a (with ...) form, got {node.show()}",
                             node)
        if node.head == "with":
            self.with_form(node, env)
        elif node.head == "=":
            if len(node.items) != 3:
                raise self.error(f"(= place value) takes 2 arguments, got {len(node.items) - 1}", node)
            self.tile_list(node.items[2], env)
        elif node.head in SKIPPED:
            return
        elif self.is_tile_list(node):
            self.tile_list(node, env)
        else:
            self.tiles.append((self.tile(node, env), node.line))

    def with_form(self, node: Node, env: dict[str, int]) -> None:
        if len(node.items) < 2 or node.items[1].kind != "list":
            raise self.error("(with (name value ...) body ...) needs a list of bindings", node)
        binds = node.items[1].items
        if len(binds) % 2:
            raise self.error("odd number of items in the (with ...) bindings: each name needs a value",
                             node.items[1])
        inner = dict(env)
        for name_node, value_node in zip(binds[::2], binds[1::2], strict=True):
            name = name_node.text
            if name_node.kind != "atom" or is_integer_word(name) or name in RESERVED or name in ("-", "="):
                raise self.error(f"(with ...) binds names, got {name_node.show()}", name_node)
            if value_node.kind != "atom" or not is_integer_word(value_node.text):
                raise self.error(f"(with ...) binds {quoted(name)} to an integer label, got {value_node.show()}",
                                 value_node)
            value = self.source.int_word(value_node.text, value_node.line, "label")
            named = self.names.get(value)
            if named is not None and named[0] != name:
                raise self.error(
                    f"{quoted(named[0])} (line {named[1]}) and {quoted(name)} both stand for label {value}; "
                    "a label has one name",
                    name_node,
                )
            self.names[value] = (name, name_node.line)
            inner[name] = value
        for body in node.items[2:]:
            self.top(body, inner)

    @staticmethod
    def elements(node: Node) -> list[Node]:
        return node.items[1:] if node.head == "list" else node.items

    def is_tile_list(self, node: Node) -> bool:
        items = self.elements(node) if node.kind == "list" else []
        return bool(items) and items[0].kind == "list" and items[0].head != "-"

    def tile_list(self, node: Node, env: dict[str, int]) -> None:
        if node.kind != "list":
            raise self.error(f"expected a list of tiles, got {node.show()}", node)
        for item in self.elements(node):
            self.tiles.append((self.tile(item, env), item.line))

    def tile(self, node: Node, env: dict[str, int]) -> tuple[int, int, int, int]:
        items = self.elements(node) if node.kind == "list" else []
        if node.kind != "list" or len(items) != 4:
            got = f"{len(items)} labels" if node.kind == "list" else node.show()
            raise self.error(f"a tile is a list of 4 labels (top left right bottom), got {got}", node)
        top, left, right, bottom = (self.value(item, env) for item in items)
        return top, right, bottom, left

    def value(self, node: Node, env: dict[str, int]) -> int:
        if node.kind == "atom" and is_integer_word(node.text):
            number = self.source.int_word(node.text, node.line, "label")
        elif node.kind == "atom" and node.text in env:
            number = env[node.text]
        elif node.kind == "atom":
            raise self.error(f"unknown label {quoted(node.text)} (bind it first: (with (NAME 1 ...) ...))", node)
        elif node.head == "-" and len(node.items) == 2:
            number = -self.value(node.items[1], env)
        else:
            raise self.error(f"expected a label (a number, a bound name or (- name)), got {node.show()}",
                             node)
        if number == 0:
            raise self.error("label 0 has no tail to match it: heads are +k and tails -k", node)
        return number


def read(source: Source) -> Puzzle:
    forms, name = parse(source)
    reader = _Reader(source)
    for form in forms:
        reader.top(form, {})
    last = reader.tiles[-1][1] if reader.tiles else source.last_line
    side = square_side(source, len(reader.tiles), last)
    used = {abs(x) for edges, _ in reader.tiles for x in edges}
    labels = {value: n for value, (n, _) in reader.names.items() if abs(value) in used}
    tiles = tuple(Tile(edges) for edges, _ in reader.tiles)
    return source.build(lambda: Puzzle(side, side, tiles, rule="signed", labels=labels, name=name), last)


def refusal(puzzle: Puzzle, fmt: str) -> str | None:
    """Why a square, signed, unframed, rotatable notation cannot hold ``puzzle``, or None."""
    if puzzle.rule != "signed":
        return f"{fmt} matches heads with tails (signed rule); this puzzle is {puzzle.rule!r}"
    if puzzle.frame is not None:
        return f"{fmt} has no frame; this puzzle's frame is {puzzle.frame}"
    if puzzle.hints:
        return f"{fmt} has no hints; this puzzle has {len(puzzle.hints)}"
    if not puzzle.rotations:
        return f"{fmt} always allows rotation; this puzzle forbids it"
    if puzzle.width != puzzle.height:
        return (f"{fmt} boards are square (the size comes from the tile count); "
                f"this one is {puzzle.width}x{puzzle.height}")
    return None


def _bindings(puzzle: Puzzle) -> dict[int, str]:
    """The labels written by name: a label's name when it is a symbol (a head's name wins over its tail's)."""
    def ok(name: str) -> bool:
        return _SYMBOL.match(name) is not None and name not in RESERVED

    out: dict[int, str] = {}
    for colour in puzzle.colours():
        for value in (colour, -colour):
            name = puzzle.labels.get(value)
            if name is not None and ok(name):
                out[value] = name
                break
    return out


def write(puzzle: Puzzle) -> str:
    why = refusal(puzzle, "the Arc notation")
    if why:
        raise FormatError(f"cannot write in the Arc notation: {why}")
    bound = _bindings(puzzle)

    def word(x: int) -> str:
        if x in bound:
            return bound[x]
        return f"(- {bound[-x]})" if -x in bound else str(x)

    out = [f"; name: {puzzle.name}"] if puzzle.name else []
    out.append("; each tile: top left right bottom; a head is +k, its tail -k")
    rows = [(t[0], t[3], t[1], t[2]) for t in puzzle.tiles]
    if not bound:
        out.extend("(" + " ".join(map(str, row)) + ")" for row in rows)
        return "\n".join(out) + "\n"
    order = sorted(bound, key=abs)
    out.append("(with (" + " ".join(f"{bound[v]} {v}" for v in order) + ")")
    out.append("  (= tiles (list")
    out.extend("    (list " + " ".join(word(x) for x in row) + ")" for row in rows)
    out[-1] += ")))"
    return "\n".join(out) + "\n"


def starts_with_a_form(source: Source) -> bool:
    """Whether the first thing after blanks and ``;`` comments opens a list: a cheap test before parsing
    a whole file in detection."""
    return re.match(r"(?:\s|;[^\n]*)*'?[(\[]", source.text) is not None


def sniff(source: Source) -> bool:
    if not starts_with_a_form(source):
        return False
    try:
        forms, _ = parse(source)
    except EdgematchError:
        return False
    if not forms or forms[0].kind != "list":
        return False
    first = forms[0]
    if first.head in ("with", "="):
        return True

    def tile_shaped(node: Node) -> bool:
        items = _Reader.elements(node) if node.kind == "list" else []
        return len(items) == 4 and all(
            item.kind == "atom" or (item.head == "-" and len(item.items) == 2) for item in items
        )

    items = _Reader.elements(first)
    return tile_shaped(first) or (bool(items) and all(tile_shaped(item) for item in items))


FORMAT = Format(
    name="arc",
    description="the Arc article's tile lists (top left right bottom, signed labels, (with ...) names)",
    extensions=(".arc",),
    read=read,
    write=write,
    sniff=sniff,
)
