"""Foreign formats: seed transcriptions agree, writers round-trip, conventions hold, content is detected."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.model import E, Puzzle, Solution, Tile
from edgematch.errors import FormatError
from edgematch.formats import (
    Source,
    detect_format,
    formats,
    parse_puzzle,
    parse_solution,
    read_puzzle,
    read_solution,
    write_puzzle,
    write_solution,
)
from edgematch.formats.arc import RESERVED
from edgematch.formats.heule import board_size, orient
from edgematch.formats.racket import letter_label, letter_names

EXAMPLES = Path(__file__).parent.parent / "examples"
SETTINGS = settings(max_examples=40, deadline=None)
TITLES = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20).map(str.strip)
SYMBOLS = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=1, max_size=8).filter(
    lambda s: s not in RESERVED
)


# ----- the seed puzzles: two independent transcriptions of each article agree -------------------------

@pytest.mark.parametrize(
    ("foreign", "native"),
    [("insects.arc", "insects.em"), ("hunde.hunde", "hunde.em"), ("racket3x3.rkt", "racket3x3.em")],
)
def test_seed_transcription_matches_the_native_file(foreign, native):
    assert read_puzzle(EXAMPLES / foreign) == read_puzzle(EXAMPLES / native)


def test_arc_reads_the_article_tile_order_as_top_left_right_bottom():
    insects = read_puzzle(EXAMPLES / "insects.arc")
    # the article: "the upper-left tile is (2 1 -3 3)": top beetle, left mantis, right -dragonfly,
    # bottom dragonfly
    assert insects.tiles[0].edges == (2, -3, 3, 1)
    assert insects.label_name(-3) == "-dragonfly"


def test_arc_plain_lists_read_as_the_with_form():
    plain = "\n".join(f"({' '.join(map(str, row))})" for row in [
        (2, 1, -3, 3), (-2, 3, 1, -4), (4, -1, 2, -2), (-3, -4, 4, 1), (4, -2, -3, 1),
        (2, -1, -4, 3), (-4, -3, 2, -1), (-2, 4, 1, -3), (1, 2, -3, 4),
    ])
    insects = read_puzzle(EXAMPLES / "insects.arc")
    assert parse_puzzle(plain, "arc") == insects.replace(labels={}, name="")


def test_hunde_haskell_form_reads_as_the_english_list():
    haskell = (
        "tiles = [ Tile (Brown, Head) (Grey, Head) (Umber, Tail) (Spotted, Tail), "
        "Tile (Brown, Head) (Spotted, Head) (Brown, Tail) (Umber, Tail), "
        "Tile (Brown, Head) (Spotted, Head) (Grey, Tail) (Umber, Tail), "
        "Tile (Brown, Head) (Spotted, Head) (Grey, Tail) (Umber, Tail), "
        "Tile (Brown, Head) (Umber, Head) (Spotted, Tail) (Grey, Tail),\n"
        "Tile (Grey, Head) (Brown, Head) (Spotted, Tail) (Umber, Tail),\n"
        "Tile (Grey, Head) (Spotted, Head) (Brown, Tail) (Umber, Tail),\n"
        "Tile (Grey, Head) (Umber, Head) (Brown, Tail) (Spotted, Tail),\n"
        "Tile (Grey, Head) (Umber, Head) (Grey, Tail) (Spotted, Tail) ]\n"
    )
    hunde = read_puzzle(EXAMPLES / "hunde.hunde")
    assert parse_puzzle(haskell, "hunde") == hunde.replace(name="")
    assert hunde.tiles[2] == hunde.tiles[3]  # the article's two identical tiles


def _solution_from_strings(puzzle: Puzzle, strings: list[str]) -> Solution:
    """For each cell, an unused tile and the clockwise turn that makes it show the cell's string."""
    used: set[int] = set()
    cells = []
    for word in strings:
        shown = tuple(letter_label(ch) for ch in word)
        t, r = next(
            (t, r)
            for t, tile in enumerate(puzzle.tiles) if t not in used
            for r in range(4) if tile.rotated(r) == shown
        )
        used.add(t)
        cells.append((t, r))
    return Solution.from_pairs(puzzle, cells)


def test_racket_article_solution_of_the_3x3_is_valid():
    puzzle = read_puzzle(EXAMPLES / "racket3x3.rkt")
    printed = ["cymK", "mCkY", "ymkc", "McMk", "KYmC", "KyCy", "mkYc", "MycK", "cmKY"]
    solution = _solution_from_strings(puzzle, printed)
    assert check(puzzle, solution).ok
    # every tile lies as listed, so the 3x3 cannot tell which way the article turns tiles
    assert all(r == 0 for _, r in solution)


def test_racket_article_solution_of_the_4x4_is_valid():
    puzzle = read_puzzle(EXAMPLES / "racket4x4.rkt")
    assert (puzzle.width, len(puzzle.colours()), puzzle.name) == (4, 7, "p4x4")
    printed = [
        "rCgr", "BBMc", "YmYb", "yBMM", "GBRy", "mBmb", "ycyb", "mKCC",
        "rkbr", "MmCK", "YyyM", "cMkY", "BMrY", "cgRm", "YybG", "KmGY",
    ]
    solution = _solution_from_strings(puzzle, printed)
    assert check(puzzle, solution).ok
    # each printed string is its listed tile turned once clockwise ("Cgrr" -> "rCgr"): Racket's rotations
    # rotate the string left (anticlockwise), so the solver's answer is its third rotation
    assert all(r == 1 for _, r in solution)


# ----- write -> read round trips over generated puzzles, each in its writer's domain -------------------

@st.composite
def same_rule(draw, framed: bool | None = None, max_side: int = 5) -> tuple[Puzzle, Solution]:
    framed = draw(st.booleans()) if framed is None else framed
    low = 2 if framed else 1
    spec = GeneratorSpec(
        draw(st.integers(low, max_side)), draw(st.integers(low, max_side)), colours=draw(st.integers(1, 6)),
        framed=framed, border_colours=draw(st.integers(1, 3)), inner_colours=draw(st.integers(1, 4)),
        seed=draw(st.integers(0, 2**32)),
    )
    return generate(spec)


@st.composite
def signed_square(draw, max_colours: int = 8) -> Puzzle:
    side = draw(st.integers(1, 4))
    spec = GeneratorSpec(side, side, colours=draw(st.integers(1, max_colours)), rule="signed",
                         seed=draw(st.integers(0, 2**32)))
    return generate(spec)[0]


@SETTINGS
@given(pair=same_rule(), data=st.data())
def test_puz_round_trip_keeps_everything(pair, data):
    puzzle, _ = pair
    count = len(puzzle.label_set())
    names = data.draw(st.lists(SYMBOLS, min_size=count, max_size=count, unique=True))
    keep = data.draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)))
    labels = {x: n for x, n, k in zip(sorted(puzzle.label_set()), names, keep, strict=True) if k}
    puzzle = puzzle.replace(labels=labels, name=data.draw(TITLES))
    assert parse_puzzle(write_puzzle(puzzle, format="puz"), "puz") == puzzle  # names travel in c comments


@SETTINGS
@given(pair=same_rule())
def test_sol_round_trip(pair):
    puzzle, solution = pair
    text = write_solution(solution, format="puz", puzzle=puzzle)
    assert parse_solution(text, "puz", puzzle) == solution
    assert parse_solution(text, "puz") == solution  # the size from the largest col and row


@SETTINGS
@given(pair=same_rule(framed=True, max_side=6), data=st.data())
def test_heule_round_trip_keeps_tiles_frame_and_hints(pair, data):
    puzzle, solution = pair
    cells = data.draw(st.sets(st.integers(0, puzzle.size - 1), max_size=3))
    puzzle = puzzle.replace(hints=tuple((c, *solution.cells[c]) for c in sorted(cells)))
    wide = orient(puzzle.width, puzzle.height, [(c // puzzle.width + 1, c % puzzle.width + 1) for c in cells])
    if wide != (puzzle.width, puzzle.height):
        with pytest.raises(FormatError, match="would come back turned"):
            write_puzzle(puzzle, format="heule")
        return
    # no names in this format: the title and label names are display only and are not written
    assert parse_puzzle(write_puzzle(puzzle, format="heule"), "heule") == puzzle.replace(name="", labels={})


def test_heule_unframed_square_round_trip():
    puzzle, _ = generate(GeneratorSpec(4, 4, colours=5, seed=3))
    assert parse_puzzle(write_puzzle(puzzle, format="heule"), "heule") == puzzle.replace(name="")


def test_heule_tall_board_round_trips_when_a_hint_pins_it():
    puzzle, solution = generate(GeneratorSpec(3, 5, framed=True, border_colours=2, inner_colours=3, seed=4))
    with pytest.raises(FormatError, match="would come back turned"):
        write_puzzle(puzzle, format="heule")
    pinned = puzzle.replace(name="", hints=((12, *solution.cells[12]),))  # row 5: only fits 3 wide, 5 high
    assert parse_puzzle(write_puzzle(pinned, format="heule"), "heule") == pinned


@SETTINGS
@given(pair=same_rule())
def test_owen_round_trip(pair):
    puzzle, _ = pair
    assert parse_puzzle(write_puzzle(puzzle, format="owen"), "owen") == puzzle.replace(name="")


@SETTINGS
@given(puzzle=signed_square(), data=st.data())
def test_arc_round_trip_keeps_names(puzzle, data):
    colours = puzzle.colours()
    names = data.draw(st.lists(SYMBOLS, min_size=len(colours), max_size=len(colours), unique=True))
    signs = data.draw(st.lists(st.sampled_from([1, -1, 0]), min_size=len(colours), max_size=len(colours)))
    labels = {s * c: n for c, n, s in zip(colours, names, signs, strict=True) if s}
    puzzle = puzzle.replace(labels=labels, name=data.draw(TITLES))
    assert parse_puzzle(write_puzzle(puzzle, format="arc"), "arc") == puzzle


def test_arc_writer_leaves_out_names_that_are_not_symbols():
    insects = read_puzzle(EXAMPLES / "insects.arc")
    odd = insects.replace(labels={1: "mantis", 2: "list", 3: "dragon(fly)"})
    assert parse_puzzle(write_puzzle(odd, format="arc"), "arc").labels == {1: "mantis"}


@SETTINGS
@given(puzzle=signed_square(max_colours=26))
def test_racket_round_trip(puzzle):
    puzzle = puzzle.replace(labels=letter_names(puzzle))
    assert parse_puzzle(write_puzzle(puzzle, format="racket"), "racket") == puzzle


def _renumbered(puzzle: Puzzle) -> Puzzle:
    """The puzzle with colours numbered by first appearance and the Hunde writer's pattern names."""
    order: dict[int, int] = {}
    for tile in puzzle.tiles:
        for x in tile.edges:
            order.setdefault(abs(x), len(order) + 1)
    tiles = tuple(Tile(tuple(order[abs(x)] * (1 if x > 0 else -1) for x in t.edges)) for t in puzzle.tiles)
    halves = ((1, "head"), (-1, "tail"))
    labels = {new * s: f"colour{old}-{half}" for old, new in order.items() for s, half in halves}
    return puzzle.replace(tiles=tiles, labels=labels)


@SETTINGS
@given(puzzle=signed_square(), title=TITLES)
def test_hunde_round_trip_renumbers_by_first_appearance(puzzle, title):
    puzzle = puzzle.replace(name=title)
    text = write_puzzle(puzzle, format="hunde")
    back = parse_puzzle(text, "hunde")
    assert back == _renumbered(puzzle)
    assert write_puzzle(back, format="hunde") == text


def test_hunde_round_trip_of_the_seed_is_the_identity():
    hunde = read_puzzle(EXAMPLES / "hunde.hunde")
    assert parse_puzzle(write_puzzle(hunde, format="hunde"), "hunde") == hunde


@pytest.mark.parametrize(
    ("fmt", "change", "fragment"),
    [
        ("puz", {"rule": "signed"}, "'same'-rule puzzles only"),
        ("puz", {"rotations": False}, "forbids it"),
        ("puz", {"hints": ((0, 0, 0),)}, "no hints"),
        ("heule", {"rule": "signed"}, "'same'-rule puzzles only"),
        ("owen", {"hints": ((0, 0, 0),)}, "no hints"),
        ("arc", {"rule": "same"}, "signed rule"),
        ("racket", {"rotations": False}, "forbids it"),
        ("hunde", {"hints": ((0, 0, 0),)}, "no hints"),
    ],
)
def test_writers_refuse_what_their_format_cannot_say(fmt, change, fragment):
    rule = "same" if fmt in ("puz", "heule", "owen") else "signed"
    puzzle, _ = generate(GeneratorSpec(3, 3, colours=3, rule=rule, seed=5))
    with pytest.raises(FormatError, match=fragment):
        write_puzzle(puzzle.replace(**change), format=fmt)


def test_numeric_writers_refuse_label_zero_as_a_colour_and_negative_labels():
    zero = Puzzle(1, 1, (Tile((0, 1, 2, 3)),))
    negative = Puzzle(1, 1, (Tile((-1, 1, 2, 3)),))
    for fmt in ("puz", "heule", "owen"):
        with pytest.raises(FormatError, match="uses 0 as a colour"):
            write_puzzle(zero, format=fmt)
        with pytest.raises(FormatError, match="0 or positive"):
            write_puzzle(negative, format=fmt)


def test_racket_refuses_labels_beyond_the_alphabet():
    puzzle = Puzzle(1, 1, (Tile((27, -27, 1, -1)),), rule="signed")
    with pytest.raises(FormatError, match="within \\+-26"):
        write_puzzle(puzzle, format="racket")


# ----- conventions ----------------------------------------------------------------------------------

def test_sol_rotation_counts_anticlockwise_turns():
    # tile 0 carries label 1 on its north edge; it must face east to meet tile 1's west edge:
    # one clockwise turn, which a .sol file writes as 3 anticlockwise turns
    puzzle = parse_puzzle("2 1\n1 5 6 7\n8 9 10 1\n", "puz")
    solution = parse_solution("c tile col row rot\n0 0 0 3\n1 1 0 0\n", "puz", puzzle)
    assert solution.cells == ((0, 1), (1, 0))
    assert puzzle.tiles[0].rotated(1)[E] == 1 and puzzle.tiles[0].rotated(3)[E] != 1
    assert check(puzzle, solution).ok
    assert write_solution(solution, format="puz").splitlines()[1:] == ["0 0 0 3", "1 1 0 0"]


def test_sol_example_solves_the_puz_example():
    puzzle = read_puzzle(EXAMPLES / "framed4x4.puz")
    assert check(puzzle, read_solution(EXAMPLES / "framed4x4.sol", puzzle=puzzle)).ok


@pytest.mark.parametrize(
    ("pieces", "frame_edges", "size"),
    [
        (16, 16, (4, 4)),       # square
        (256, 64, (16, 16)),    # Eternity II
        (20, 18, (5, 4)),       # rectangles: width >= height
        (60, 32, (10, 6)),      # 60 pieces: the frame tells 10x6 from 12x5
        (60, 34, (12, 5)),
        (10, 14, (5, 2)),       # 2xN: every piece is a border piece
        (5, 12, (5, 1)),        # 1xN: ends carry 3 frame edges, the middle 2
        (1, 4, (1, 1)),
        (16, 14, None),         # fits no rectangle
        (16, 17, None),         # an odd number of rim edges
    ],
)
def test_heule_board_size_from_the_frame(pieces, frame_edges, size):
    assert board_size(pieces, frame_edges) == size


@pytest.mark.parametrize(("w", "h"), [(4, 4), (5, 4), (4, 5), (6, 3), (7, 2), (6, 1), (1, 6)])
def test_heule_reads_the_board_size_of_generated_files(w, h):
    spec = GeneratorSpec(w, h, framed=True, border_colours=2, inner_colours=3, seed=w * h)
    puzzle, solution = generate(spec)
    last = puzzle.size - 1  # a hint on the last cell pins a tall board
    puzzle = puzzle.replace(hints=((last, *solution.cells[last]),))
    back = parse_puzzle(write_puzzle(puzzle, format="heule"), "heule")
    assert (back.width, back.height) == (w, h)


def test_heule_example_is_a_rectangle_with_hints():
    puzzle = read_puzzle(EXAMPLES / "framed5x4.heule")
    assert (puzzle.width, puzzle.height, puzzle.frame, len(puzzle.hints)) == (5, 4, 0, 2)
    assert puzzle.hints[0] == (0, 17, 1)  # "1 1 18 1": row 1, col 1, piece 18, one clockwise turn


def test_owen_header_is_rows_then_columns():
    puzzle = read_puzzle(EXAMPLES / "framed5x3.owen")
    assert (puzzle.width, puzzle.height) == (5, 3)
    assert puzzle.tiles[1].edges == (4, 1, 0, 2)  # the second group of four on the first line, N E S W


def test_racket_letters_are_numbered_cmykrgb_then_alphabetically():
    assert [letter_label(ch) for ch in "CMYKRGBAZ"] == [1, 2, 3, 4, 5, 6, 7, 8, 26]
    assert letter_label("c") == -1
    assert read_puzzle(EXAMPLES / "racket3x3.rkt").tiles[0].edges == (-1, -3, -2, 4)  # "cymK"


def test_puz_frame_only_when_label_zero_appears():
    assert parse_puzzle("c no zero\n2\n1 2 3 4\n1 2 3 4\n1 2 3 4\n1 2 3 4\n", "puz").frame is None
    assert read_puzzle(EXAMPLES / "framed4x4.puz").frame == 0


# ----- detection by content ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("example", "name"),
    [
        ("insects.arc", "arc"),
        ("racket3x3.rkt", "racket"),
        ("racket4x4.rkt", "racket"),
        ("hunde.hunde", "hunde"),
        ("framed4x4.puz", "puz"),
        ("framed5x4.heule", "heule"),
        ("framed5x3.owen", "owen"),
        ("insects.em", "native"),
    ],
)
def test_content_detection_claims_each_example_for_its_format_only(example, name, tmp_path):
    text = (EXAMPLES / example).read_text()
    claimed = [f.name for f in formats().values() if f.sniff is not None and f.sniff(Source(text, "x.txt"))]
    assert claimed == [name]
    unknown = tmp_path / "puzzle.txt"
    unknown.write_text(text)
    assert detect_format(unknown) == name
    assert read_puzzle(unknown) == read_puzzle(EXAMPLES / example)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("(2 1 -3 3)\n(-2 3 1 -4)\n(4 -1 2 -2)\n(-3 -4 4 1)\n", "arc"),
        ("(define p '(\"cymK\" \"KyCy\" \"ymkc\" \"mkYc\"))\n", "racket"),
        ("Tile (Brown, Head) (Grey, Head) (Umber, Tail) (Spotted, Tail)\n", "hunde"),
        ("2\n1 2 3 4\n1 2 3 4\n1 2 3 4\n1 2 3 4\n", "puz"),
        ("0\n0 0 1 1\n0 1 1 0\n1 1 0 0\n1 0 0 1\n", "heule"),
        ("2 2\n0 0 1 1  0 1 1 0\n1 1 0 0  1 0 0 1\n", "owen"),
        # square R C with one piece per line: .puz and Owen read the same puzzle, .puz claims it first
        ("2 2\n0 0 1 1\n0 1 1 0\n1 1 0 0\n1 0 0 1\n", "puz"),
    ],
)
def test_content_detection_of_small_texts(text, name):
    assert parse_puzzle(text) == parse_puzzle(text, name)
    claimed = [f.name for f in formats().values() if f.sniff is not None and f.sniff(Source(text, "x.txt"))]
    assert claimed[0] == name


def test_a_file_that_reads_differently_as_puz_and_owen_is_not_guessed():
    # "3 2" then 6 lines: .puz says 3 wide x 2 high, Owen says 3 rows x 2 columns
    puzzle, _ = generate(GeneratorSpec(3, 2, framed=True, border_colours=2, inner_colours=2, seed=6))
    text = "3 2\n" + "\n".join(" ".join(map(str, t.edges)) for t in puzzle.tiles) + "\n"
    assert parse_puzzle(text, "puz") != parse_puzzle(text, "owen")
    with pytest.raises(FormatError, match="cannot tell which puzzle format"):
        parse_puzzle(text)


def test_sol_content_is_detected_as_a_solution():
    text = (EXAMPLES / "framed4x4.sol").read_text()
    assert parse_solution(text) == read_solution(EXAMPLES / "framed4x4.sol")
