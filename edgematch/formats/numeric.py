"""What the all-numbers formats (``.puz``, Heule's, Owen's) share: label 0 is the frame, ``n e s w`` lines of
non-negative labels, what none of them can hold, and content sniffing that hands a file to one of them only
when the others do not read it differently.

The three readers are looked up by module name when a sniff runs, so this module imports none of them and
they all import it (no import circle).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from edgematch.core.model import Puzzle
from edgematch.errors import EdgematchError
from edgematch.formats.source import Line, Source

NUMERIC = ("puz", "heule", "owen")  # the modules whose readers a numeric sniff compares
FRAME = 0


def numeric_frame(tiles) -> int | None:
    """The numeric formats' convention: label 0 is the frame when any tile carries it."""
    return FRAME if any(FRAME in t.edges for t in tiles) else None


def labels_of(source: Source, line: Line) -> tuple[int, int, int, int]:
    """One ``n e s w`` line of non-negative labels (shared by the numeric formats)."""
    edges = source.ints(line, 4, "tile (n e s w)")
    for x in edges:
        if x < 0:
            raise source.error(f"labels are 0 (the frame) or positive colour numbers, got {x}", line)
    return tuple(edges)  # type: ignore[return-value]


def refusal(puzzle: Puzzle, fmt: str) -> str | None:
    """Why a ``same``-rule numeric format (``.puz``, Heule, Owen) cannot hold ``puzzle``, or None."""
    if puzzle.rule != "same":
        return f"{fmt} holds 'same'-rule puzzles only; this one is {puzzle.rule!r}"
    if not puzzle.rotations:
        return f"{fmt} always allows rotation; this puzzle forbids it"
    if puzzle.frame not in (None, FRAME):
        return f"{fmt} uses 0 as the frame label; this puzzle's frame is {puzzle.frame}"
    labels = puzzle.label_set()
    if min(labels) < 0:
        return f"{fmt} labels are 0 or positive; this puzzle uses {min(labels)}"
    if puzzle.frame is None and FRAME in labels:
        return f"{fmt} reads label 0 as the frame; this unframed puzzle uses 0 as a colour"
    return None


def parses(read_fn: Callable[[Source], Puzzle], source: Source) -> Puzzle | None:
    try:
        return read_fn(source)
    except EdgematchError:
        return None


def numeric_sniff(read_fn: Callable[[Source], Puzzle]) -> Callable[[Source], bool]:
    """A sniffer for one of the all-numbers formats: it reads, and no other one reads it differently."""

    def sniff(source: Source) -> bool:
        mine = parses(read_fn, source)
        if mine is None:
            return False
        readers = [importlib.import_module(f"edgematch.formats.{name}").read for name in NUMERIC]
        others = [f for f in readers if f is not read_fn]
        return all(parses(other, source) in (None, mine) for other in others)

    return sniff
