"""Rendering: ASCII boxes (round trips and the Arc article's exact print), terminal colours, SVG, PNG."""

from __future__ import annotations

import io
import math
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.model import Puzzle, Solution
from edgematch.errors import UsageError
from edgematch.formats import read_puzzle
from edgematch.render import (
    Palette,
    build_layout,
    render_ascii,
    render_png,
    render_svg,
    render_terminal,
)
from edgematch.render.palette import FRAME_GREY, hex_to_rgb

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SVG = "{http://www.w3.org/2000/svg}"

# The article's (seed 000) two prints, verbatim but for the trailing space each line has there:
# `(prettyprint tiles)` and `(prettyprint (that 0))`.
ARTICLE_TILES = """\
 -------------  -------------  -------------
|     btl     ||    -btl     ||     ant     |
| man    -dgn || dgn     man ||-man     btl |
|     dgn     ||    -ant     ||    -btl     |
 -------------  -------------  -------------
 -------------  -------------  -------------
|    -dgn     ||     ant     ||     btl     |
|-ant     ant ||-btl    -dgn ||-man    -ant |
|     man     ||     man     ||     dgn     |
 -------------  -------------  -------------
 -------------  -------------  -------------
|    -ant     ||    -btl     ||     man     |
|-dgn     btl || ant     man || btl    -dgn |
|    -man     ||    -dgn     ||     ant     |
 -------------  -------------  -------------
"""
ARTICLE_SOLUTION = """\
 -------------  -------------  -------------
|     man     ||     btl     ||     ant     |
|-btl    -ant || ant     man ||-man     btl |
|     dgn     ||    -dgn     ||    -btl     |
 -------------  -------------  -------------
 -------------  -------------  -------------
|    -dgn     ||     dgn     ||     btl     |
| man     ant ||-ant    -man || man    -dgn |
|    -btl     ||     btl     ||     dgn     |
 -------------  -------------  -------------
 -------------  -------------  -------------
|     btl     ||    -btl     ||    -dgn     |
|-ant    -man || man     ant ||-ant     ant |
|    -dgn     ||    -dgn     ||     man     |
 -------------  -------------  -------------
"""
# The article's first solution, each cell as (top left right bottom).
ARTICLE_BOARD = [
    (1, -2, -4, 3), (2, 4, 1, -3), (4, -1, 2, -2), (-3, 1, 4, -2), (3, -4, -1, 2),
    (2, 1, -3, 3), (2, -4, -1, -3), (-2, 1, 4, -3), (-3, -4, 4, 1),
]


# ----- fixtures and helpers ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def insects() -> Puzzle:
    return read_puzzle(EXAMPLES / "insects.em")


def short_insects(puzzle: Puzzle) -> Puzzle:
    return puzzle.replace(labels={1: "man", 2: "btl", 3: "dgn", 4: "ant"})


def placement_of(puzzle: Puzzle, board: list[tuple[int, int, int, int]]) -> Solution:
    """The solution showing ``board`` (cells as N E S W), found by trying every unused tile and turn."""
    used: set[int] = set()
    cells = []
    for want in board:
        t, r = next(
            (t, r) for t in range(len(puzzle.tiles)) if t not in used for r in range(4)
            if puzzle.tiles[t].rotated(r) == want
        )
        used.add(t)
        cells.append((t, r))
    return Solution.from_pairs(puzzle, cells)


def article_solution(puzzle: Puzzle) -> Solution:
    return placement_of(puzzle, [(top, right, bottom, left) for top, left, right, bottom in ARTICLE_BOARD])


def parse_boxes(text: str) -> list[list[dict]]:
    """Rows of boxes, each ``{"number": int | None, "edges": (N, E, S, W) names}``."""
    lines = text.rstrip("\n").split("\n")
    assert len(lines) % 5 == 0, "every row of boxes is five lines"
    rows = []
    for start in range(0, len(lines), 5):
        part = lines[start : start + 5]
        width = part[1].index("|", 1) + 1  # boxes touch: "|...||...|"
        assert all(len(line) == len(part[0]) for line in part), "the five lines of a row are equally long"
        assert len(part[0]) % width == 0
        row = []
        for x in range(0, len(part[0]), width):
            box = [line[x : x + width] for line in part]
            assert box[0][0] == box[0][-1] == " " and box[4].strip(" ") == "-" * (width - 2)
            assert all(line[0] == line[-1] == "|" for line in box[1:4])
            tag = box[0].strip(" -")
            w_name, e_name = box[2][1:-1].split()
            row.append({
                "number": int(tag) if tag else None,
                "edges": (box[1][1:-1].strip(), e_name, box[3][1:-1].strip(), w_name),
            })
        rows.append(row)
    return rows


def names(puzzle: Puzzle, edges) -> tuple[str, ...]:
    return tuple(puzzle.label_name(x) for x in edges)


def framed_5x5():
    return generate(GeneratorSpec(5, 5, framed=True, border_colours=3, inner_colours=4, seed=3))


def signed_4x4():
    return generate(GeneratorSpec(4, 4, rule="signed", colours=5, seed=2))


def strip_1x5():
    return generate(GeneratorSpec(1, 5, framed=True, border_colours=2, inner_colours=2, seed=1))


def single_1x1():
    return generate(GeneratorSpec(1, 1, colours=3, seed=1))


def wide_6x2():
    return generate(GeneratorSpec(6, 2, colours=4, rule="signed", seed=5))


# ----- ASCII ------------------------------------------------------------------------------------------
def same_as_article(text: str, article: str) -> bool:
    lines = text.split("\n")
    assert lines.pop() == "" and all(len(line) == 3 * 15 for line in lines)  # three whole 15-wide boxes
    return "\n".join(line.rstrip() for line in lines) + "\n" == article


def test_ascii_board_is_the_articles_print(insects):
    puzzle = short_insects(insects)
    assert same_as_article(render_ascii(puzzle, article_solution(puzzle)), ARTICLE_SOLUTION)


def test_ascii_tray_is_the_articles_print_with_numbered_tiles(insects):
    text = render_ascii(short_insects(insects), width=45)
    assert " ----- 0 -----  ----- 1 -----  ----- 2 ----- " in text.splitlines()
    unnumbered = re.sub(r"-+ \d+ -+", "-" * 13, text)
    assert same_as_article(unnumbered, ARTICLE_TILES)


@pytest.mark.parametrize("width", [1, 30, 80, 200])
def test_ascii_tray_round_trip(insects, width):
    text = render_ascii(insects, width=width)
    rows = parse_boxes(text)
    boxes = [box for row in rows for box in row]
    assert [b["number"] for b in boxes] == list(range(len(insects.tiles)))
    for i, box in enumerate(boxes):
        assert box["edges"] == names(insects, insects.tiles[i].edges), f"tile {i}"
    box_width = len(text.split("\n")[0]) // len(rows[0])
    per_row = max(1, width // box_width)
    assert [len(r) for r in rows[:-1]] == [per_row] * (len(rows) - 1)
    if width >= box_width:
        assert max(len(line) for line in text.splitlines()) <= width


def test_ascii_tray_fits_three_full_name_insects_in_80_columns(insects):
    rows = parse_boxes(render_ascii(insects, width=80))
    assert [len(r) for r in rows] == [3, 3, 3]


@pytest.mark.parametrize("make", [framed_5x5, signed_4x4, strip_1x5, single_1x1, wide_6x2])
def test_ascii_board_round_trip(make):
    puzzle, solution = make()
    rows = parse_boxes(render_ascii(puzzle, solution))
    assert len(rows) == puzzle.height and all(len(r) == puzzle.width for r in rows)
    grid = solution.grid(puzzle)
    for r, row in enumerate(rows):
        for c, box in enumerate(row):
            assert box["number"] is None
            assert box["edges"] == names(puzzle, grid[r * puzzle.width + c]), f"cell ({r}, {c})"


def test_ascii_insect_solution_round_trip(insects):
    solution = article_solution(insects)
    rows = parse_boxes(render_ascii(insects, solution))
    shown = [box["edges"] for row in rows for box in row]
    assert shown == [names(insects, edges) for edges in solution.grid(insects)]


def test_ascii_rejects_a_solution_of_another_puzzle(insects):
    puzzle, solution = framed_5x5()
    with pytest.raises(UsageError, match="5x5"):
        render_ascii(insects, solution)
    bad = Solution(3, 3, tuple((t, 0) for t in range(8)) + ((42, 0),))
    with pytest.raises(UsageError, match="tile 42"):
        render_ascii(insects, bad)
    with pytest.raises(UsageError):
        render_ascii(insects, width=0)


# ----- palette ----------------------------------------------------------------------------------------
def rainbow(labels: list[int], rule: str = "same") -> Puzzle:
    """A 1xN puzzle whose tiles carry ``labels`` (padded by repeating the first)."""
    edges = labels + [labels[0]] * (-len(labels) % 4)
    tiles = [tuple(edges[i : i + 4]) for i in range(0, len(edges), 4)]
    return Puzzle(len(tiles), 1, tuple(tiles), rule=rule)


@pytest.mark.parametrize("keys", [list(range(1, 26)), [100 * k for k in range(1, 26)], list(range(1, 41))])
def test_palette_distinct_colours(keys):
    same = Palette(rainbow(keys))
    colours = [same.colour(k) for k in keys]
    assert len(set(colours)) == len(keys)
    assert FRAME_GREY not in colours
    signed = Palette(rainbow([x for k in keys for x in (k, -k)], rule="signed"))
    for k in keys:
        assert signed.colour(k) == signed.colour(-k)  # the halves share a hue
        assert signed.fill(k) == signed.colour(k) and signed.fill(-k) != signed.fill(k)
    assert len({signed.colour(k) for k in keys}) == len(keys)
    assert len({signed.fill(x) for k in keys for x in (k, -k)}) == 2 * len(keys)


def test_palette_is_stable_and_frame_is_grey():
    a, b = Palette(rainbow([1, 2, 3, 4])), Palette(rainbow([3, 5, 7, 9]))
    assert a.colour(3) == b.colour(3)
    assert Palette(rainbow([1, 2, 3, 4])).colour(2) == a.colour(2)
    puzzle, _ = framed_5x5()
    palette = Palette(puzzle)
    assert palette.colour(0) == palette.fill(0) == FRAME_GREY
    entries = palette.entries()
    assert [e.key for e in entries] == puzzle.colours() + [0] and entries[-1].frame


# ----- terminal ---------------------------------------------------------------------------------------
def test_terminal_colours_every_label(insects):
    console = Console(record=True, force_terminal=True, color_system="truecolor", width=80)
    console.print(render_terminal(insects))
    styled = console.export_text(styles=True)
    palette = Palette(insects)
    for label in (1, -1, 2, -2, 3, -3, 4, -4):
        assert insects.label_name(label) in styled
        r, g, b = hex_to_rgb(palette.fill(label))
        assert f"48;2;{r};{g};{b}" in styled  # the label's chip is its fill colour
    assert "\x1b[4;" in styled and "\x1b[1;" in styled  # tails underlined, heads bold
    assert console.export_text() == ""  # export cleared the record
    console.print(render_terminal(insects))
    assert console.export_text() == render_ascii(insects, width=80)


def test_terminal_is_plain_text_off_a_terminal(insects):
    puzzle, solution = framed_5x5()
    for p, s, width in ((insects, None, 60), (puzzle, solution, 100)):
        out = io.StringIO()
        Console(file=out, force_terminal=False, width=width).print(render_terminal(p, s))
        assert "\x1b" not in out.getvalue()
        assert out.getvalue() == render_ascii(p, s, width=width)


# ----- SVG --------------------------------------------------------------------------------------------
def svg_tree(text: str) -> ET.Element:
    root = ET.fromstring(text.encode())
    assert root.tag == SVG + "svg" and root.get("viewBox")
    return root


def edge_polygons(root: ET.Element) -> list[ET.Element]:
    return [p for p in root.iter(SVG + "polygon") if p.get("class") == "edge"]


def test_svg_tray_triangles_show_each_tiles_edges(insects):
    root = svg_tree(render_svg(insects))
    palette = Palette(insects)
    polys = edge_polygons(root)
    assert len(polys) == 4 * len(insects.tiles)
    sides = "NESW"
    for p in polys:
        tile, side, label = int(p.get("data-tile")), sides.index(p.get("data-side")), int(p.get("data-label"))
        assert insects.tiles[tile].edges[side] == label
        assert p.get("fill") == palette.fill(label)
    assert sorted(int(p.get("data-tile")) for p in polys) == sorted(list(range(9)) * 4)
    markers = [c for g in root.iter(SVG + "g") if g.get("class") == "tile" for c in g.iter(SVG + "circle")]
    assert len(markers) == sum(x < 0 for t in insects.tiles for x in t.edges)  # a dot on every tail
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "insects" in texts and all(str(i) in texts for i in range(9))


@pytest.mark.parametrize("make", [framed_5x5, signed_4x4, strip_1x5, single_1x1, wide_6x2])
def test_svg_board_triangles_show_the_placed_labels(make):
    puzzle, solution = make()
    root = svg_tree(render_svg(puzzle, solution))
    palette = Palette(puzzle)
    polys = edge_polygons(root)
    assert len(polys) == 4 * puzzle.size
    grid = solution.grid(puzzle)
    for p in polys:
        cell, label = int(p.get("data-cell")), int(p.get("data-label"))
        assert grid[cell]["NESW".index(p.get("data-side"))] == label
        assert int(p.get("data-tile")) == solution.cells[cell].tile
        assert p.get("fill") == palette.fill(label)


@pytest.mark.parametrize("make", [framed_5x5, signed_4x4])
def test_svg_legend_lists_every_colour_in_play(make):
    puzzle, solution = make()
    root = svg_tree(render_svg(puzzle, solution))
    palette = Palette(puzzle)
    legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend-entry"]
    swatches = {r.get("fill") for g in legend for r in g.iter(SVG + "rect")}
    words = {t.text for g in legend for t in g.iter(SVG + "text")}
    shown = {x for edges in solution.grid(puzzle) for x in edges}
    for label in shown:
        assert palette.fill(label) in swatches
        if not palette.is_frame(label):
            assert puzzle.label_name(label) in words
    if puzzle.frame is not None:
        assert f"{puzzle.frame} (frame)" in words and FRAME_GREY in swatches
    assert len(legend) == len(puzzle.colours()) + (puzzle.frame is not None)


def test_svg_escapes_text(insects):
    odd = insects.replace(name='bugs <&> "quoted"', labels={1: "<b>", 2: "a&b", 3: "dragonfly", 4: "ant"})
    root = svg_tree(render_svg(odd))
    texts = [t.text for t in root.iter(SVG + "text")]
    assert 'bugs <&> "quoted"' in texts and "<b>" in texts and "-a&b" in texts
    assert root.find(SVG + "title").text == 'bugs <&> "quoted"'


def test_svg_has_no_external_references(insects):
    text = render_svg(insects, article_solution(insects))
    assert "href" not in text and "url(" not in text and "<image" not in text


# ----- PNG --------------------------------------------------------------------------------------------
def png_image(data: bytes):
    image_mod = pytest.importorskip("PIL.Image")
    return image_mod.open(io.BytesIO(data)).convert("RGB")


def test_png_draws_the_layout(tmp_path):
    puzzle, solution = framed_5x5()
    path = tmp_path / "board.png"
    data = render_png(puzzle, solution, path=path, scale=1.5)
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and path.read_bytes() == data
    image = png_image(data)
    layout = build_layout(puzzle, solution)
    assert image.size == (math.ceil(layout.width * 1.5), math.ceil(layout.height * 1.5))
    triangles = layout.triangles()
    assert len(triangles) == 4 * puzzle.size
    palette = Palette(puzzle)
    for tri in triangles:  # every triangle's centroid pixel is the colour of the label it shows
        x, y = tri.centroid
        assert image.getpixel((int(x * 1.5), int(y * 1.5))) == hex_to_rgb(palette.colour(tri.edge.label))


def test_png_signed_halves(insects):
    solution = article_solution(insects)
    image = png_image(render_png(insects, solution, scale=2))
    palette = Palette(insects)
    tails = 0
    for tri in build_layout(insects, solution).triangles():
        label = tri.edge.label
        (ax, ay), (cx, cy) = tri.points[0], tri.centroid
        body = ((ax + 2 * cx) / 3, (ay + 2 * cy) / 3)  # inside the triangle, clear of the tail's dot
        assert image.getpixel((int(body[0] * 2), int(body[1] * 2))) == hex_to_rgb(palette.fill(label))
        if label < 0:
            tails += 1
            assert image.getpixel((int(cx * 2), int(cy * 2))) == hex_to_rgb(palette.colour(label))
    assert tails == sum(x < 0 for t in insects.tiles for x in t.edges)


def test_png_tray_size_default_scale(insects):
    data = render_png(insects)
    layout = build_layout(insects)
    assert png_image(data).size == (math.ceil(layout.width * 2), math.ceil(layout.height * 2))


def test_png_without_pillow_says_what_to_install(insects, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(UsageError, match=r"pip install 'edgematch\[png\]'"):
        render_png(insects)


def test_printing_a_board_loads_neither_the_svg_nor_the_png_renderer():
    # every `solve` prints its board through render.terminal; the package's other renderers came with it, and the
    # SVG one's xml.sax loads urllib and http: 0.09 s of each command, after a Ctrl-C too
    import subprocess

    code = ("import sys, edgematch.render.terminal, edgematch.render as r; "
            "assert not {'edgematch.render.svg', 'edgematch.render.png', 'xml.sax'} & set(sys.modules); "
            "r.render_svg; assert 'edgematch.render.svg' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
