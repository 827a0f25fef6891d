"""Pictures of puzzles and solutions: ASCII boxes, coloured terminal boxes, SVG and PNG.

Every renderer draws either the solved board (given a solution) or the puzzle's tiles in a tray,
numbered by index. Colours come from one :class:`Palette` (colour by label, or by |label| for a signed
puzzle, the tail half lighter; the frame grey). SVG and PNG are drawn from one :func:`build_layout`.

Modules: ``palette`` (label -> colour), ``ascii`` (the Arc article's boxes), ``terminal`` (the same boxes
coloured with rich), ``layout`` (geometry for SVG and PNG), ``svg``, ``png`` (Pillow, optional).

The names below load their module on first use: ``solve`` prints every board through ``terminal`` alone, and
loading the SVG and PNG renderers with it (``xml.sax``, which loads ``urllib`` and ``http``) cost each command
0.09 s, after a Ctrl-C too.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from edgematch.render.ascii import render_ascii
    from edgematch.render.layout import Layout, build_layout
    from edgematch.render.palette import Palette
    from edgematch.render.png import render_png
    from edgematch.render.svg import render_svg
    from edgematch.render.terminal import render_terminal

_HOME = {"render_ascii": "ascii", "Layout": "layout", "build_layout": "layout", "Palette": "palette",
         "render_png": "png", "render_svg": "svg", "render_terminal": "terminal"}

__all__ = ["Layout", "Palette", "build_layout", "render_ascii", "render_png", "render_svg", "render_terminal"]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'edgematch.render' has no attribute {name!r}")
    return getattr(import_module(f"edgematch.render.{_HOME[name]}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
