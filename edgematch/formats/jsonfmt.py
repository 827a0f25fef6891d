"""JSON puzzles and solutions: the lossless machine format (every Puzzle field round-trips).

Puzzle::

    {"edgematch": "puzzle", "version": 1, "name": "insects", "width": 3, "height": 3,
     "rule": "signed", "frame": null, "rotations": true,
     "tiles": [[2, 3, -3, 1], ...],            # N E S W
     "hints": [[4, 0, 2], ...],                # cell, tile, clockwise turns
     "labels": {"1": "mantis", ...}}

Solution: ``{"edgematch": "solution", "version": 1, "width": 3, "height": 3, "cells": [[tile, rot], ...]}``
"""

from __future__ import annotations

import json
import re
from typing import Any

from edgematch.core.model import Hint, Puzzle, Solution, Tile, is_integer_word
from edgematch.errors import FormatError, quoted
from edgematch.formats import Format
from edgematch.formats.source import Source

VERSION = 1
MAX_DEPTH = 32  # a puzzle nests 3 deep; Python's parser recurses, so 100,000 '[' would overflow its stack
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{]|[\]}]')


def _too_deep(text: str) -> int | None:
    """The line where arrays and objects first nest deeper than ``MAX_DEPTH``, or None."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return text.count("\n", 0, match.start()) + 1
        elif token in "]}":
            depth -= 1
    return None


def _show(value: Any) -> str:
    """A JSON value as an error line quotes it: cut to about 40 characters."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _load(source: Source, kind: str) -> dict[str, Any]:
    deep = _too_deep(source.text)
    if deep is not None:
        raise source.error(f"invalid JSON: arrays and objects nested more than {MAX_DEPTH} deep", deep)
    try:
        data = json.loads(source.text)
    except json.JSONDecodeError as exc:
        raise source.error(f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise source.error(f"invalid JSON: nested more than {MAX_DEPTH} deep", 1) from None
    except ValueError:  # Python reads integers of at most 4,300 digits
        long = re.search(r"[0-9]{4301,}", source.text)
        digits = f" ({len(long.group()):,} digits)" if long else ""
        line = source.text.count("\n", 0, long.start()) + 1 if long else 1
        raise source.error(f"invalid JSON: number too long{digits}", line) from None
    if not isinstance(data, dict) or data.get("edgematch") != kind:
        raise source.error(f'expected a JSON object with "edgematch": "{kind}"', 1)
    if data.get("version", VERSION) != VERSION:
        raise source.error(f"unsupported version {_show(data.get('version'))} (this reader knows {VERSION})", 1)
    return data


def _line_of(source: Source, key: str) -> int:
    """The line where ``key`` first appears, so schema errors point somewhere useful."""
    match = re.search(rf'"{re.escape(key)}"\s*:', source.text)
    return source.text.count("\n", 0, match.start()) + 1 if match else 1


class _Fields:
    def __init__(self, source: Source, data: dict[str, Any]):
        self.source, self.data = source, data

    def error(self, key: str, message: str) -> FormatError:
        return self.source.error(f'"{key}": {message}', _line_of(self.source, key))

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.source.error(f'missing "{key}"', 1)
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.error(key, f"expected {names}, got {_show(value)}")
        return value

    def int_rows(self, key: str, width: int, default: Any = ...) -> list[tuple[int, ...]]:
        rows = self.get(key, list, default)
        for i, row in enumerate(rows):
            if (
                not isinstance(row, list) or len(row) != width
                or any(isinstance(x, bool) or not isinstance(x, int) for x in row)
            ):
                raise self.error(key, f"entry {i} must be a list of {width} integers, got {_show(row)}")
        return [tuple(row) for row in rows]


def read(source: Source) -> Puzzle:
    f = _Fields(source, _load(source, "puzzle"))
    labels_raw = f.get("labels", dict, {})
    labels = {}
    for key, name in labels_raw.items():
        if not is_integer_word(key):
            raise f.error("labels", f"keys are integer labels, got {quoted(key)}")
        labels[source.int_word(key, _line_of(source, "labels"), '"labels" key')] = name
    frame = f.get("frame", (int, type(None)), None)
    return source.build(
        lambda: Puzzle(
            width=f.get("width", int),
            height=f.get("height", int),
            tiles=tuple(Tile(t) for t in f.int_rows("tiles", 4)),  # type: ignore[arg-type]
            rule=f.get("rule", str, "same"),
            frame=frame,
            rotations=f.get("rotations", bool, True),
            hints=tuple(Hint(*h) for h in f.int_rows("hints", 3, [])),
            labels=labels,
            name=f.get("name", str, ""),
        ),
        _line_of(source, "tiles"),
    )


def write(puzzle: Puzzle) -> str:
    head = {
        "edgematch": "puzzle", "version": VERSION, "name": puzzle.name,
        "width": puzzle.width, "height": puzzle.height, "rule": puzzle.rule,
        "frame": puzzle.frame, "rotations": puzzle.rotations,
    }
    # one tile per line: readable and diff-friendly
    lines = [json.dumps(head)[:-1] + ","]
    lines.append('  "tiles": [')
    lines.append(",\n".join(f"    {json.dumps(list(t.edges))}" for t in puzzle.tiles))
    lines.append("  ],")
    lines.append(f'  "hints": {json.dumps([list(h) for h in puzzle.hints])},')
    lines.append(f'  "labels": {json.dumps({str(k): v for k, v in sorted(puzzle.labels.items())})}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def read_solution(source: Source, puzzle: Puzzle | None) -> Solution:
    f = _Fields(source, _load(source, "solution"))
    width, height = f.get("width", int), f.get("height", int)
    if puzzle is not None and (width, height) != (puzzle.width, puzzle.height):
        raise source.error(f"the solution is {width}x{height}, the puzzle {puzzle.width}x{puzzle.height}",
                           _line_of(source, "width"))
    at, tiles = _line_of(source, "cells"), None if puzzle is None else len(puzzle.tiles)
    cells = tuple(source.placement(t, r, at, tiles, f'"cells": entry {i}: ')
                  for i, (t, r) in enumerate(f.int_rows("cells", 2)))
    return source.build(lambda: Solution(width, height, cells), at)  # type: ignore[arg-type]


def write_solution(solution: Solution, puzzle: Puzzle | None = None) -> str:
    return json.dumps({
        "edgematch": "solution", "version": VERSION, "width": solution.width, "height": solution.height,
        "cells": [list(p) for p in solution.cells],
    }) + "\n"


def _sniff(kind: str):
    def sniff(source: Source) -> bool:
        tagged = re.search(rf'"edgematch"\s*:\s*"{kind}"', source.text)
        return source.text.lstrip().startswith("{") and tagged is not None

    return sniff


FORMAT = Format(
    name="json",
    description="edgematch JSON (lossless, for programs)",
    extensions=(".json",),
    read=read,
    write=write,
    read_solution=read_solution,
    write_solution=write_solution,
    sniff=_sniff("puzzle"),
    solution_extensions=(".json",),
    solution_sniff=_sniff("solution"),
)
