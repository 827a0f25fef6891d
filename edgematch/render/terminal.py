"""The ASCII boxes with every label coloured by its palette colour, through ``rich``.

Labels are drawn as coloured chips: a head (or any ``same``-rule label) in bold on its full colour, a
tail of a signed pair underlined on the light tint of the same hue, the frame label in plain grey. The
box drawing itself is untouched, so on a console that is not a terminal (a file, a pipe) rich drops the
styles and the text is exactly :func:`render_ascii`'s. A tray wraps at the console's width.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from edgematch.core.model import Puzzle, Solution
from edgematch.render.ascii import Line, board_lines, picture_lines, tray_lines
from edgematch.render.palette import Palette, ink_on


def label_style(palette: Palette, label: int) -> Style:
    """How one label is shown on a terminal."""
    if palette.is_frame(label):
        return Style(color="grey50")
    fill = palette.fill(label)
    if palette.is_tail(label):
        return Style(color="#000000", bgcolor=fill, underline=True)
    return Style(color=ink_on(fill), bgcolor=fill, bold=True)


def styled(palette: Palette, lines: list[Line]) -> Text:
    text = Text(no_wrap=True, overflow="crop", end="")
    styles: dict[int, Style] = {}
    for i, line in enumerate(lines):
        if i:
            text.append("\n")
        for chunk, label in line:
            if label is None:
                text.append(chunk)
            else:
                if label not in styles:
                    styles[label] = label_style(palette, label)
                text.append(chunk, styles[label])
    text.append("\n")
    return text


class TerminalPicture:
    """A rich renderable: the coloured boxes of a board (with a solution) or of the tiles in a tray."""

    def __init__(self, puzzle: Puzzle, solution: Solution | None = None):
        self.puzzle = puzzle
        self.solution = solution
        self.palette = Palette(puzzle)
        if solution is not None:
            board_lines(puzzle, solution)  # a mismatched solution fails here, not when printed

    def text(self, width: int | None = None) -> Text:
        """The styled text, the tray wrapped at ``width`` columns (default: the terminal's width)."""
        return styled(self.palette, picture_lines(self.puzzle, self.solution, width))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        yield self.text(max(1, options.max_width))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        if self.solution is not None:
            lines = board_lines(self.puzzle, self.solution)
        else:
            lines = tray_lines(self.puzzle, options.max_width)
        widest = max((sum(len(t) for t, _ in line) for line in lines), default=1)
        return Measurement(min(widest, options.max_width), widest)

    def __str__(self) -> str:
        return self.text().plain


def render_terminal(puzzle: Puzzle, solution: Solution | None = None) -> TerminalPicture:
    """The ASCII boxes with coloured labels, as a rich renderable: ``Console().print(picture)``.

    Printed to a console that is not a terminal it is plain text (rich drops the styles).
    """
    return TerminalPicture(puzzle, solution)


__all__ = ["TerminalPicture", "label_style", "render_terminal"]
