"""The picture (:mod:`layout`) drawn with Pillow, an optional dependency imported only when used.

The image is ``ceil(layout.width * scale)`` x ``ceil(layout.height * scale)`` pixels. It is drawn at
twice that size and box-filtered down (``Image.reduce``), which smooths the diagonals and text while
keeping every flat area exactly its colour (very large images are drawn at 1x to bound memory).
"""

from __future__ import annotations

import io
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from edgematch.core.model import Puzzle, Solution
from edgematch.errors import UsageError
from edgematch.formats.source import save
from edgematch.render.layout import Circle, Label, Layout, Polygon, Rect, build_layout

SUPERSAMPLE = 2
MAX_SUPERSAMPLED_PIXELS = 40_000_000  # beyond this (huge boards at a big scale) draw at 1x
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_FONT_FILES = {False: ("DejaVuSans.ttf", "Verdana.ttf", "Arial.ttf"),
               True: ("DejaVuSans-Bold.ttf", "Verdana Bold.ttf", "Arial Bold.ttf")}


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise UsageError("PNG rendering needs Pillow: pip install 'edgematch[png]'") from None
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=32)
def _font(size: int, bold: bool) -> Any:
    _, _, image_font = _pil()
    for name in _FONT_FILES[bold]:
        try:
            return image_font.truetype(name, size)
        except OSError:
            continue
    try:
        return image_font.load_default(size=size)
    except TypeError:  # Pillow < 10.1: one small bitmap font
        return image_font.load_default()


def image_size(layout: Layout, scale: float) -> tuple[int, int]:
    """The pixel size of ``layout`` drawn at ``scale`` pixels per unit."""
    return math.ceil(layout.width * scale - 1e-9), math.ceil(layout.height * scale - 1e-9)


def draw_layout(layout: Layout, scale: float = 2.0) -> Any:
    """The layout as a Pillow RGB image."""
    if not scale > 0:
        raise UsageError(f"the PNG scale must be positive, got {scale}")
    image_mod, draw_mod, _ = _pil()
    w, h = image_size(layout, scale)
    ss = SUPERSAMPLE if w * h * SUPERSAMPLE**2 <= MAX_SUPERSAMPLED_PIXELS else 1
    k = scale * ss
    image = image_mod.new("RGB", (w * ss, h * ss), "#ffffff")
    draw = draw_mod.Draw(image)

    def px(v: float) -> float:
        return v * k

    def line_width(v: float) -> int:
        return max(1, round(v * k))

    for item in layout.flat():
        if isinstance(item, Polygon):
            pts = [(px(x), px(y)) for x, y in item.points]
            if item.fill:
                draw.polygon(pts, fill=item.fill)
            if item.stroke and item.stroke_width > 0:
                width = line_width(item.stroke_width)
                draw.line([*pts, pts[0]], fill=item.stroke, width=width, joint="curve")
        elif isinstance(item, Circle):
            box = [px(item.cx - item.r), px(item.cy - item.r), px(item.cx + item.r), px(item.cy + item.r)]
            stroke = line_width(item.stroke_width) if item.stroke and item.stroke_width > 0 else 0
            draw.ellipse(box, fill=item.fill, outline=item.stroke if stroke else None, width=stroke)
        elif isinstance(item, Rect):
            box = [px(item.x), px(item.y), px(item.x + item.w) - 1, px(item.y + item.h) - 1]
            stroke = line_width(item.stroke_width) if item.stroke and item.stroke_width > 0 else 0
            if item.fill:
                draw.rectangle(box, fill=item.fill)
            if stroke:
                # centre the stroke on the rectangle's edge, as SVG does
                half = stroke / 2
                outer = [box[0] - half, box[1] - half, box[2] + half, box[3] + half]
                draw.rectangle(outer, outline=item.stroke, width=stroke)
        elif isinstance(item, Label):
            font = _font(max(1, round(item.size * k)), item.bold)
            anchor = {"start": "ls", "middle": "ms", "end": "rs"}.get(item.anchor, "ls")
            draw.text((px(item.x), px(item.y)), item.text, fill=item.fill, font=font, anchor=anchor)
    return image.reduce(ss) if ss > 1 else image


def render_png(
    puzzle: Puzzle, solution: Solution | None = None, path: str | Path | None = None, scale: float = 2.0
) -> bytes:
    """The same picture as :func:`render_svg` as PNG bytes (also written to ``path`` if given).

    ``scale`` is pixels per layout unit (a tile is 64 units). Needs Pillow (``edgematch[png]``).
    """
    image = draw_layout(build_layout(puzzle, solution), scale)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    data = buffer.getvalue()
    if path is not None:
        save(path, data)  # whole or not at all; a FormatError names the file
    return data


__all__ = ["PNG_SIGNATURE", "draw_layout", "image_size", "render_png"]
