"""The native text format: human-editable, commented, and lossless (every Puzzle field round-trips).

Puzzle (``.em``)::

    # the insect puzzle from the Arc article
    edgematch puzzle
    name insects              (the rest of the line, verbatim: no comment here)
    size 3 3                  # width height
    rule signed               # same | signed
    rotations yes             # yes | no
    frame none                # none | a label
    label 1 mantis            # signed: "-mantis" is then -1 (or name it: label 1 Y y)
    tile beetle mantis dragonfly -dragonfly    # N E S W, names or integers; tile index = order
    hint 4 0 2                # cell tile rotation, 0-based, clockwise turns

Solution (``.emsol``)::

    edgematch solution
    size 3 3
    5:0 3:1 0:2               # one board row per line: tile:rotation for each cell
"""

from __future__ import annotations

from edgematch.core.model import Hint, Puzzle, Solution, Tile, is_integer_word
from edgematch.errors import quoted
from edgematch.formats import Format
from edgematch.formats.source import Line, Source

MAGIC = "edgematch"
YES = {"yes": True, "true": True, "on": True, "no": False, "false": False, "off": False}


def _header(source: Source, kind: str) -> tuple[Line, list[Line]]:
    lines = list(source.lines())
    if not lines:
        raise source.error(f"only comments: expected the header line '{MAGIC} {kind}'", source.last_line)
    first = lines[0]
    if first.words[:2] != [MAGIC, kind]:
        raise source.error(f"expected the header line '{MAGIC} {kind}', got {quoted(first.text)}", first)
    return first, lines[1:]


def _size(source: Source, line: Line, words: list[str]) -> tuple[int, int]:
    if len(words) == 1 and "x" in words[0].lower():
        words = words[0].lower().split("x")
    if len(words) != 2:
        raise source.error(f"size needs a width and a height, got {quoted(' '.join(words))}", line)
    width, height = (source.int_word(x, line, "size") for x in words)
    if width < 1 or height < 1:
        raise source.error(f"board size must be at least 1x1, got {width}x{height}", line)
    return width, height


def read(source: Source) -> Puzzle:
    _, lines = _header(source, "puzzle")
    fields: dict[str, object] = {}
    seen: dict[str, Line] = {}
    labels: dict[int, str] = {}
    tile_lines: list[Line] = []
    hints: list[Hint] = []
    frame_word: tuple[str, Line] | None = None
    raw = source.text.split("\n")
    for line in lines:
        key, args = line.words[0].lower(), line.words[1:]
        if key in ("name", "size", "rule", "rotations", "frame"):
            if key in seen:
                raise source.error(f"{key} given twice (first on line {seen[key].number})", line)
            seen[key] = line
        if key == "name":
            fields["name"] = raw[line.number - 1].strip()[len(line.words[0]):].strip()
        elif key == "size":
            fields["width"], fields["height"] = _size(source, line, args)
        elif key == "rule":
            if args not in (["same"], ["signed"]):
                raise source.error(f"rule must be 'same' or 'signed', got {quoted(' '.join(args))}", line)
            fields["rule"] = args[0]
        elif key == "rotations":
            if len(args) != 1 or args[0].lower() not in YES:
                raise source.error(f"rotations must be yes or no, got {quoted(' '.join(args))}", line)
            fields["rotations"] = YES[args[0].lower()]
        elif key == "frame":
            if len(args) != 1:
                raise source.error("frame needs one label, or 'none'", line)
            frame_word = (args[0], line)
        elif key == "label":
            if len(args) not in (2, 3):
                raise source.error("label needs a number and a name (and for signed puzzles a second name)", line)
            number = source.int_word(args[0], line, "label number")
            for value, name in zip((number, -number), args[1:], strict=False):
                if value in labels:
                    raise source.error(f"label {value} named twice", line)
                labels[value] = name
        elif key == "tile":
            tile_lines.append(line)
        elif key == "hint":
            hints.append(Hint(*source.ints(Line(line.number, " ".join(args)), 3, "hint (cell tile rotation)")))
        else:
            raise source.error(f"unknown keyword {quoted(line.words[0])}", line)
    if "size" not in seen:
        raise source.error("missing 'size W H' line", source.last_line)
    rule = str(fields.get("rule", "same"))
    names = _name_table(labels, rule)

    read_before: dict[str, int] = {}  # a big board repeats a few hundred labels

    def label(word: str, line: Line) -> int:
        if word in names:
            return names[word]
        if word in read_before:
            return read_before[word]
        if is_integer_word(word):
            read_before[word] = source.int_word(word, line, "label")
            return read_before[word]
        if rule == "signed" and word.startswith("-") and names.get(word[1:]) == 0:
            raise source.error(f"unknown label {quoted(word)}: {quoted(word[1:])} is label 0, which has no negative "
                               "half under rule signed (number it from 1)", line)
        raise source.error(f"unknown label {quoted(word)} (declare it with a 'label' line)", line)

    tiles = []
    for line in tile_lines:
        if len(line.words) != 5:
            raise source.error(f"a tile has 4 edges (N E S W), got {len(line.words) - 1}", line)
        tiles.append(Tile(tuple(label(word, line) for word in line.words[1:])))  # type: ignore[arg-type]
    width, height = fields["width"], fields["height"]
    if len(tiles) != width * height:  # type: ignore[operator]
        where = tile_lines[-1] if tile_lines else seen["size"]
        raise source.error(f"a {width}x{height} board needs {width * height} tiles, got {len(tiles)}", where)  # type: ignore[operator]
    frame = None
    if frame_word is not None and frame_word[0].lower() != "none":
        frame = label(*frame_word)
    blame = tile_lines[-1] if tile_lines else seen["size"]
    return source.build(
        lambda: Puzzle(
            width, height, tuple(tiles), rule=rule, frame=frame,  # type: ignore[arg-type]
            rotations=bool(fields.get("rotations", True)), hints=tuple(hints), labels=labels,
            name=str(fields.get("name", "")),
        ),
        blame,
    )


def _name_table(labels: dict[int, str], rule: str) -> dict[str, int]:
    names = {name: value for value, name in labels.items()}
    if rule == "signed":
        for value, name in labels.items():
            if -value not in labels:
                names.setdefault("-" + name, -value)
    return names


def write(puzzle: Puzzle) -> str:
    out = [f"{MAGIC} puzzle"]
    if puzzle.name:
        out.append(f"name {puzzle.name}")
    out.append(f"size {puzzle.width} {puzzle.height}")
    out.append(f"rule {puzzle.rule}")
    out.append(f"rotations {'yes' if puzzle.rotations else 'no'}")
    out.append(f"frame {'none' if puzzle.frame is None else puzzle.label_name(puzzle.frame)}")
    for value in sorted(puzzle.labels, key=lambda v: (abs(v), v < 0)):
        out.append(f"label {value} {puzzle.labels[value]}")
    out.append("# tiles: N E S W")
    width = max(len(puzzle.label_name(x)) for t in puzzle.tiles for x in t.edges)
    for i, tile in enumerate(puzzle.tiles):
        words = " ".join(puzzle.label_name(x).ljust(width) for x in tile.edges)
        out.append(f"tile {words}  # {i}")
    if puzzle.hints:
        out.append("# hints: cell tile rotation")
        out.extend(f"hint {c} {t} {r}" for c, t, r in puzzle.hints)
    return "\n".join(out) + "\n"


def read_solution(source: Source, puzzle: Puzzle | None) -> Solution:
    _, lines = _header(source, "solution")
    if not lines or lines[0].words[0].lower() != "size":
        raise source.error("expected 'size W H' after the header", lines[0] if lines else source.last_line)
    width, height = _size(source, lines[0], lines[0].words[1:])
    if puzzle is not None and (width, height) != (puzzle.width, puzzle.height):
        raise source.error(f"the solution is {width}x{height}, the puzzle {puzzle.width}x{puzzle.height}", lines[0])
    tiles = None if puzzle is None else len(puzzle.tiles)
    rows = lines[1:]
    if len(rows) != height:
        raise source.error(f"expected {height} rows of cells, got {len(rows)}", rows[-1] if rows else lines[0])
    cells = []
    for line in rows:
        if len(line.words) != width:
            raise source.error(f"expected {width} cells (tile:rotation) in this row, got {len(line.words)}", line)
        for word in line.words:
            parts = word.split(":")
            if len(parts) != 2:
                raise source.error(f"a cell is tile:rotation, got {quoted(word)}", line)
            tile, rotation = source.int_word(parts[0], line, "tile"), source.int_word(parts[1], line, "rotation")
            cells.append(source.placement(tile, rotation, line, tiles))
    return source.build(lambda: Solution(width, height, tuple(cells)), lines[0])


def write_solution(solution: Solution, puzzle: Puzzle | None = None) -> str:
    out = [f"{MAGIC} solution", f"size {solution.width} {solution.height}"]
    w = solution.width
    for row in range(solution.height):
        out.append(" ".join(f"{t}:{r}" for t, r in solution.cells[row * w:(row + 1) * w]))
    return "\n".join(out) + "\n"


def _sniff(kind: str):
    def sniff(source: Source) -> bool:
        first = next(source.lines(), None)
        return first is not None and first.words[:2] == [MAGIC, kind]

    return sniff


FORMAT = Format(
    name="native",
    description="edgematch text format (comments, label names, rule, frame, rotation flag, hints)",
    extensions=(".em", ".edgematch"),
    read=read,
    write=write,
    read_solution=read_solution,
    write_solution=write_solution,
    sniff=_sniff("puzzle"),
    solution_extensions=(".emsol",),
    solution_sniff=_sniff("solution"),
)
