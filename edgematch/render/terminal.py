"""The ASCII boxes with every label coloured by its palette colour, through ``rich``.

Labels are drawn as coloured chips: a head (or any ``same``-rule label) in bold on its full colour, a
tail of a signed pair underlined on the light tint of the same hue, the frame label in plain grey. The
box drawing itself is untouched, so on a console that is not a terminal (a file, a pipe) rich drops the
styles and the text is exactly :func:`render_ascii`'s. A tray wraps at the console's width; a board wider
than the console comes in bands of whole tile columns (``columns 1-10 of 16``, then the rest), never cut.
:func:`print_board` prints a board as the command line does: in bands on a terminal (with a note to show),
every line whole elsewhere (a file or a pipe gets the full board however wide).
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from edgematch.core.model import Puzzle, Solution
from edgematch.render.ascii import (
    Line,
    band_columns,
    board_lines,
    board_width,
    picture_lines,
    render_ascii,
    tray_lines,
)
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

    def __init__(self, puzzle: Puzzle, solution: Solution | None = None, bands: bool = True):
        self.puzzle = puzzle
        self.solution = solution
        self.bands = bands  # a board wider than the console: in bands (True) or in whole lines (False)
        self.palette = Palette(puzzle)
        if solution is not None:
            board_lines(puzzle, solution)  # a mismatched solution fails here, not when printed

    @property
    def width(self) -> int | None:
        """The characters of a whole board's widest line (None for a tray, which wraps)."""
        return board_width(self.puzzle) if self.solution is not None else None

    def text(self, width: int | None = None) -> Text:
        """The styled text: the tray wrapped at ``width`` columns (default: the terminal's width); a board
        in bands no wider than ``width`` (when given, and ``bands`` is on), else whole."""
        if self.solution is None:
            return styled(self.palette, picture_lines(self.puzzle, None, width))
        text = styled(self.palette, board_lines(self.puzzle, self.solution, width if self.bands else None))
        text.overflow = "ignore"  # a whole line stays whole where the printer does not crop (crop=False)
        return text

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


def render_terminal(puzzle: Puzzle, solution: Solution | None = None, bands: bool = True) -> TerminalPicture:
    """The ASCII boxes with coloured labels, as a rich renderable: ``Console().print(picture)``.

    Printed to a console that is not a terminal it is plain text (rich drops the styles). A board wider
    than the console comes in bands of whole tile columns; with ``bands=False`` it is drawn whole, to be
    printed with ``crop=False`` (:func:`print_board` does that where it should).
    """
    return TerminalPicture(puzzle, solution, bands)


DRAWN_AT_MOST = 4096  # tiles of a board drawn to a file or a pipe (64x64: about 1.2 MB of text)


def print_board(console: Console, puzzle: Puzzle, solution: Solution) -> str | None:
    """Print the board to ``console`` without ever cutting a line, and return a note when the reader should
    know how it was shown (else None).

    On a terminal narrower than the board, the board comes in bands of whole tile columns (the note says
    so: the caller shows it, e.g. on stderr, with a way to see it whole). Anywhere else (a file, a pipe)
    every line is written whole however long, as :func:`render_ascii` writes it: rich would crop it at the
    console's width (80 columns when it cannot ask a terminal); a board of more than :data:`DRAWN_AT_MOST`
    tiles is not drawn there (the note says so: ``--save`` or ``--render ascii -o FILE`` keep it)."""
    if not console.is_terminal:
        if puzzle.size > DRAWN_AT_MOST:
            return f"the board ({puzzle.width}x{puzzle.height}, {puzzle.size:,} tiles) is too big to draw here"
        if console.color_system is None:  # no styles to keep: the plain text at once (rich took 25 s on 250x250)
            console.file.write(render_ascii(puzzle, solution))
            console.file.flush()
        else:
            console.print(TerminalPicture(puzzle, solution, bands=False), crop=False, soft_wrap=True)
        return None
    picture = TerminalPicture(puzzle, solution)
    console.print(picture)
    wide = board_width(puzzle)
    if wide <= console.width:
        return None
    columns = band_columns(puzzle, console.width)
    return (f"the board is {wide} characters wide and this terminal {console.width}: it is shown in bands of "
            f"{columns} column{'s' if columns != 1 else ''} of tiles")


__all__ = ["TerminalPicture", "label_style", "print_board", "render_terminal"]
