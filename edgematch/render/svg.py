"""The picture (:mod:`layout`) as a standalone SVG document: no external resources, all text escaped.

Each tile is a ``<g class="tile">`` with a ``<title>`` tooltip; its four triangles are
``<polygon class="edge" data-side="N" data-label="-3" ...>`` so tools (and the tests) can find them.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from edgematch.core.model import SIDE_NAMES, Puzzle, Solution
from edgematch.render.layout import Circle, Group, Label, Layout, Polygon, Rect, build_layout

FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
_ANCHORS = {"start", "middle", "end"}


def _num(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _stroke(stroke: str | None, width: float) -> str:
    if not stroke or width <= 0:
        return ' stroke="none"'
    return f' stroke="{stroke}" stroke-width="{_num(width)}"'


def _item(item: Polygon | Circle | Rect | Label) -> str:
    if isinstance(item, Polygon):
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in item.points)
        data = ""
        if item.edge is not None:
            e = item.edge
            data = (
                f' class="edge" data-tile="{e.tile}" data-side="{SIDE_NAMES[e.side]}" data-label="{e.label}"'
                + (f' data-cell="{e.cell}"' if e.cell is not None else "")
            )
        fill = item.fill or "none"
        return f'<polygon{data} points="{pts}" fill="{fill}"{_stroke(item.stroke, item.stroke_width)}/>'
    if isinstance(item, Circle):
        return (
            f'<circle class="tail-marker" cx="{_num(item.cx)}" cy="{_num(item.cy)}" r="{_num(item.r)}" '
            f'fill="{item.fill}"{_stroke(item.stroke, item.stroke_width)}/>'
        )
    if isinstance(item, Rect):
        return (
            f'<rect x="{_num(item.x)}" y="{_num(item.y)}" width="{_num(item.w)}" height="{_num(item.h)}" '
            f'fill="{item.fill or "none"}"{_stroke(item.stroke, item.stroke_width)}/>'
        )
    anchor = item.anchor if item.anchor in _ANCHORS else "start"
    weight = ' font-weight="bold"' if item.bold else ""
    return (
        f'<text x="{_num(item.x)}" y="{_num(item.y)}" font-size="{_num(item.size)}" text-anchor="{anchor}"'
        f'{weight} fill="{item.fill}">{escape(item.text)}</text>'
    )


def layout_to_svg(layout: Layout) -> str:
    w, h = _num(layout.width), _num(layout.height)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        f"font-family={quoteattr(FONT)}>",
        f"<title>{escape(layout.title)}</title>",
    ]
    for item in layout.items:
        if isinstance(item, Group):
            cls = f" class={quoteattr(item.kind)}" if item.kind else ""
            out.append(f"<g{cls}>")
            if item.tip:
                out.append(f"<title>{escape(item.tip)}</title>")
            out.extend(_item(part) for part in item.items)
            out.append("</g>")
        else:
            out.append(_item(item))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def render_svg(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """A standalone SVG: the solved board (with ``solution``) or the numbered tiles, plus a legend."""
    return layout_to_svg(build_layout(puzzle, solution))


__all__ = ["layout_to_svg", "render_svg"]
