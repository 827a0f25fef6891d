"""Pictures of puzzles and solutions: ASCII boxes, coloured terminal boxes, SVG and PNG.

Every renderer draws either the solved board (given a solution) or the puzzle's tiles in a tray,
numbered by index. Colours come from one :class:`Palette` (colour by label, or by |label| for a signed
puzzle, the tail half lighter; the frame grey). SVG and PNG are drawn from one :func:`build_layout`.

Modules: ``palette`` (label -> colour), ``ascii`` (the Arc article's boxes), ``terminal`` (the same boxes
coloured with rich), ``layout`` (geometry for SVG and PNG), ``svg``, ``png`` (Pillow, optional).
"""

from edgematch.render.ascii import render_ascii
from edgematch.render.layout import Layout, build_layout
from edgematch.render.palette import Palette
from edgematch.render.png import render_png
from edgematch.render.svg import render_svg
from edgematch.render.terminal import render_terminal

__all__ = ["Layout", "Palette", "build_layout", "render_ascii", "render_png", "render_svg", "render_terminal"]
