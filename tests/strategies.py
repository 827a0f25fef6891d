"""Hypothesis strategies: valid puzzles with every feature the model allows, and their planted solutions."""

from __future__ import annotations

from hypothesis import strategies as st

from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.model import Puzzle, Solution

NAME_CHARS = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


@st.composite
def specs(draw, max_side: int = 4) -> GeneratorSpec:
    framed = draw(st.booleans())
    return GeneratorSpec(
        width=draw(st.integers(1 if not framed else 2, max_side)),
        height=draw(st.integers(1 if not framed else 2, max_side)),
        colours=draw(st.integers(1, 6)),
        framed=framed,
        border_colours=draw(st.integers(1, 3)),
        inner_colours=draw(st.integers(1, 5)),
        rule=draw(st.sampled_from(["same", "signed"])),
        rotations=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32)),
    )


@st.composite
def planted(draw, max_side: int = 4, extras: bool = True) -> tuple[Puzzle, Solution]:
    """A planted puzzle with its solution; with ``extras`` also hints, label names and a title."""
    puzzle, solution = generate(draw(specs(max_side)))
    if not extras:
        return puzzle, solution
    cells = draw(st.sets(st.integers(0, puzzle.size - 1), max_size=min(3, puzzle.size)))
    hints = tuple((c, *solution.cells[c]) for c in sorted(cells))
    labels: dict[int, str] = {}
    if draw(st.booleans()):
        name = st.text(NAME_CHARS, min_size=1, max_size=8).filter(lambda n: n != "frame")  # the frame's own name
        names = draw(st.lists(name, min_size=20, max_size=20, unique=True))
        for i, colour in enumerate(puzzle.colours()):
            labels[colour] = names[i]
            if puzzle.rule == "signed" and draw(st.booleans()):
                labels[-colour] = names[i + 10]
        if puzzle.frame is not None:
            labels[puzzle.frame] = "frame"
    title = draw(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20)).strip()
    return puzzle.replace(hints=hints, labels=labels, name=title), solution
