"""Label -> colour, shared by every renderer (terminal, SVG, PNG).

A *colour key* is what gets a hue: the label itself (``same`` rule) or its absolute value (``signed``:
the head +k and the tail -k share one hue). Keys are numbered stably: when every key is a small
positive integer (the usual 1..n, as the generator and the native format produce) key k gets palette
entry k-1, so label 3 has the same colour in every puzzle; otherwise keys get entries in sorted order.
The frame label is always grey.

The palette starts with 19 hand-picked, mutually distinct colours (Sasha Trubetskoy's list without
its greys) and grows beyond that by farthest-point picks in CIELAB, so any number of colours stays
deterministic and as distinct as the count allows.

Signed halves: the head (+k) is drawn in the full colour, the tail (-k) in a light tint of the same hue
(see :meth:`Palette.fill`); the SVG/PNG add a dot marker on tails and the terminal underlines them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from edgematch.core.model import Puzzle

FRAME_GREY = "#b4b4b4"
OUTLINE = "#2b2b2b"
TINT = 0.58  # how far a tail's fill moves from the hue towards white

# Ordered so the first few (the colours small puzzles use) are the most distinct.
BASE_COLOURS: tuple[str, ...] = (
    "#e6194b",  # red
    "#4363d8",  # blue
    "#ffe119",  # yellow
    "#3cb44b",  # green
    "#f58231",  # orange
    "#911eb4",  # purple
    "#42d4f4",  # cyan
    "#f032e6",  # magenta
    "#bfef45",  # lime
    "#9a6324",  # brown
    "#469990",  # teal
    "#fabed4",  # pink
    "#000075",  # navy
    "#dcbeff",  # lavender
    "#800000",  # maroon
    "#aaffc3",  # mint
    "#808000",  # olive
    "#ffd8b1",  # apricot
    "#fffac8",  # beige
)

_STABLE_LIMIT = 64  # keys 1.._STABLE_LIMIT are coloured by value; anything else by rank


# ----- colour arithmetic ------------------------------------------------------------------------------
def hex_to_rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def rgb_to_hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*(max(0, min(255, round(v))) for v in rgb))


def mix(colour: str, other: str, amount: float) -> str:
    """``colour`` moved ``amount`` (0..1) of the way towards ``other``."""
    a, b = hex_to_rgb(colour), hex_to_rgb(other)
    return rgb_to_hex(tuple(x + (y - x) * amount for x, y in zip(a, b, strict=True)))  # type: ignore[arg-type]


def luminance(colour: str) -> float:
    """Relative luminance (WCAG), 0 = black .. 1 = white."""

    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in hex_to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    return "#000000" if luminance(colour) > 0.22 else "#ffffff"


def _lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    def lin(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(v) for v in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _dist2(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2


@lru_cache(maxsize=1)
def _candidates() -> tuple[tuple[str, ...], np.ndarray]:
    """The colours a palette may add: a 16-step RGB grid without greys (the frame) and near-black or white,
    with their CIELAB coordinates."""
    steps = range(0, 256, 17)
    names, labs = [], []
    for r in steps:
        for g in steps:
            for b in steps:
                lab = _lab((r, g, b))
                chroma = (lab[1] ** 2 + lab[2] ** 2) ** 0.5
                if chroma >= 30 and 25 <= lab[0] <= 90:
                    names.append(rgb_to_hex((r, g, b)))
                    labs.append(lab)
    return tuple(names), np.array(labs, dtype=np.float64).reshape(-1, 3)


def _dist2_to(labs: np.ndarray, lab: tuple[float, float, float]) -> np.ndarray:
    """:func:`_dist2` from each row of ``labs`` to ``lab`` (the same operations, so the same floats)."""
    return (labs[:, 0] - lab[0]) ** 2 + (labs[:, 1] - lab[1]) ** 2 + (labs[:, 2] - lab[2]) ** 2


@lru_cache(maxsize=8)
def palette_colours(count: int) -> tuple[str, ...]:
    """The first ``count`` palette colours (the base list, then farthest-point picks in CIELAB: each the
    candidate farthest from every colour chosen so far, the first such on ties)."""
    colours = list(BASE_COLOURS[:count])
    if count <= len(colours):
        return tuple(colours)
    names, labs = _candidates()
    nearest = np.full(len(names), np.inf)
    for c in colours:
        nearest = np.minimum(nearest, _dist2_to(labs, _lab(hex_to_rgb(c))))
    while len(colours) < count:
        best = int(np.argmax(nearest))  # the first of the farthest
        colours.append(names[best])
        nearest = np.minimum(nearest, _dist2_to(labs, tuple(labs[best])))
    return tuple(colours)


# ----- the palette of one puzzle ----------------------------------------------------------------------
@dataclass(frozen=True)
class LegendEntry:
    """One colour in play: its key, the labels shown with it (head first) and the base colour."""

    key: int
    labels: tuple[int, ...]
    colour: str
    frame: bool = False


class Palette:
    """Colours for one puzzle's labels."""

    def __init__(self, puzzle: Puzzle):
        self.puzzle = puzzle
        self.signed = puzzle.rule == "signed"
        self.frame = puzzle.frame
        keys = puzzle.colours()
        if all(1 <= k <= _STABLE_LIMIT for k in keys):
            self._slot = {k: k - 1 for k in keys}
        else:
            self._slot = {k: i for i, k in enumerate(keys)}
        self._colours = palette_colours(max(self._slot.values(), default=-1) + 1)

    def key(self, label: int) -> int:
        """The colour key of ``label``: |label| for a signed puzzle, the label itself otherwise."""
        return abs(label) if self.signed else label

    def is_frame(self, label: int) -> bool:
        return self.frame is not None and label == self.frame

    def is_tail(self, label: int) -> bool:
        """Whether ``label`` is the negative half of a signed pair (drawn lighter, with a marker)."""
        return self.signed and label < 0 and not self.is_frame(label)

    def colour(self, label: int) -> str:
        """The hue of ``label`` (shared by both halves of a signed pair); grey for the frame."""
        if self.is_frame(label):
            return FRAME_GREY
        key = self.key(label)
        slot = self._slot.get(key)
        if slot is None:  # a label on no tile (asked for directly): a deterministic colour past the rest
            slot = len(self._colours) + abs(key) % 16
            return palette_colours(slot + 1)[slot]
        return self._colours[slot]

    def fill(self, label: int) -> str:
        """The colour an edge showing ``label`` is filled with: the hue, or its light tint for a tail."""
        base = self.colour(label)
        return mix(base, "#ffffff", TINT) if self.is_tail(label) else base

    def entries(self) -> list[LegendEntry]:
        """Every colour in play, in key order, then the frame (if any)."""
        used = self.puzzle.label_set()
        out = []
        for key in self.puzzle.colours():
            labels = tuple(x for x in (key, -key) if x in used) if self.signed else (key,)
            out.append(LegendEntry(key, labels, self.colour(labels[0])))
        if self.frame is not None and self.frame in used:
            out.append(LegendEntry(self.frame, (self.frame,), FRAME_GREY, frame=True))
        return out


__all__ = [
    "BASE_COLOURS", "FRAME_GREY", "OUTLINE", "LegendEntry", "Palette", "hex_to_rgb", "ink_on", "luminance",
    "mix", "palette_colours", "rgb_to_hex",
]
