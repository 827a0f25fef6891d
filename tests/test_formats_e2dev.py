"""The eternity2.dev formats: puzzle JSON both ways, the board document, the viewer links.

The conventions (edge order, rotation direction, cell numbering, board codes, hash) are checked against
facts published by the site itself (github.com/raphael-anjou/eternity2, cited per test), and against a
3x3 drawn by hand, so none of them is merely assumed twice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from edgematch.cli.main import load_commands
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.model import Placement, Puzzle, Solution, rotate_edges
from edgematch.errors import FormatError, UsageError
from edgematch.formats import (
    detect_format,
    parse_puzzle,
    parse_solution,
    read_puzzle,
    read_solution,
    write_puzzle,
    write_solution,
    writer_for,
)
from edgematch.formats.e2dev import board_document, board_hash, viewer_url

EXAMPLE = Path(__file__).parent.parent / "examples" / "e2dev-3x3.json"

# The 3x3 of examples/e2dev-3x3.json, solved and drawn by hand: the edges each cell shows (N E S W),
# as the viewers' board_edges spell them, and which piece lies there turned how far clockwise.
DRAWN = ["abca", "ahdb", "aach", "ceba", "dfge", "cabf", "bhaa", "gcah", "baac"]
BOARD_DOC = """{
  "name": "e2dev_3x3_by_hand",
  "size": 3,
  "score": 12,
  "breaks": 0,
  "board": [6, 15, 27,
            33, 1, 22,
            17, 28, 8],
  "board_edges": "abcaahdbaachcebadfgecabfbhaagcahbaac",
  "board_pieces": "002004007009001006005008003"
}
"""


# ----- the conventions, from the site's own data -------------------------------------------------------


def _rim_sides(pos: int, size: int = 16) -> set[int]:
    row, col = divmod(pos, size)
    return {side for side, edge in ((0, row == 0), (1, col == size - 1), (2, row == size - 1), (3, col == 0))
            if edge}


@pytest.mark.parametrize(
    ("pos", "piece", "rot"),
    [  # research/experiments/raphael-anjou/single-core-benchmark/variants/variant_09.json: the corner pins
        (0, (0, 0, 2, 3), 3),
        (15, (0, 0, 1, 4), 0),
        (240, (0, 0, 3, 2), 2),
    ],
)
def test_the_sites_corner_pins_face_the_rim_outward_only_read_clockwise_and_row_major(pos, piece, rot):
    shown = rotate_edges(piece, rot)
    assert {side for side in range(4) if shown[side] == 0} == _rim_sides(pos)
    if rot % 2:  # read anticlockwise, the same pin would turn the rim inward
        anticlockwise = rotate_edges(piece, -rot)
        assert {side for side in range(4) if anticlockwise[side] == 0} != _rim_sides(pos)


@pytest.mark.parametrize(
    ("code", "piece", "drawn"),
    [  # research/experiments/repair-study/results/boards/accept-anneal_v09.json (board and board_edges) over
        # the pieces of variant_09.json: cells 0, 1 and 2 of the published board
        (11, (0, 0, 2, 3), "acda"),
        (58, (0, 2, 7, 1), "hbac"),
        (1, (0, 0, 1, 3), "daab"),
    ],
)
def test_the_sites_board_codes_are_piece_times_4_plus_clockwise_turns(code, piece, drawn):
    assert "".join(chr(ord("a") + c) for c in rotate_edges(piece, code % 4)) == drawn


# the "board" of accept-anneal_v09.json and its "board_hash" as the site computed it
PUBLISHED_BOARD = (
    "11 58 1 17 22 40 26 30 88 82 132 32 38 52 92 4 103 193 47 49 61 122 66 68 86 144 186 154 148 158 72 78 99 "
    "117 829 165 129 104 112 110 124 138 206 196 216 1017 914 273 177 143 878 189 161 243 564 337 355 412 201 "
    "250 577 651 896 596 171 175 832 324 213 271 954 335 257 391 223 252 262 739 485 427 233 237 367 321 211 "
    "244 303 489 419 661 430 292 276 855 296 742 229 317 287 438 340 377 307 959 996 764 400 495 313 351 363 "
    "454 281 311 582 456 923 813 763 594 405 479 498 984 289 383 869 411 470 818 548 679 328 965 836 552 504 "
    "806 444 875 605 587 643 562 420 659 664 927 461 503 685 558 752 744 929 369 395 777 645 267 451 517 435 "
    "802 908 988 618 544 591 826 937 963 522 1008 972 440 465 511 670 780 809 775 572 707 731 537 483 823 472 "
    "629 635 710 886 397 359 601 1014 612 983 933 714 655 626 697 719 621 571 700 513 535 721 675 794 940 857 "
    "843 680 758 608 979 542 994 526 751 226 1003 882 1021 788 769 799 901 894 732 867 919 528 689 848 373 14 "
    "639 860 889 907 950 844 969 725 695 945 384 784 181 344 1006"
)


def test_board_hash_is_the_sites():
    codes = [int(x) for x in PUBLISHED_BOARD.split()]
    assert len(codes) == 256
    assert board_hash(codes) == 3225449159819693303


# ----- a hand-written puzzle with a known answer --------------------------------------------------------


def test_the_hand_written_example_reads_as_a_framed_puzzle_with_its_hint():
    puzzle = read_puzzle(EXAMPLE)
    assert detect_format(EXAMPLE) == "e2dev"
    assert (puzzle.width, puzzle.height, puzzle.frame, puzzle.rule, puzzle.rotations) == (3, 3, 0, "same", True)
    assert puzzle.tiles[0].edges == (5, 6, 4, 3)  # u r d l = N E S W, unchanged
    assert puzzle.hints == ((4, 0, 1),)
    assert puzzle.name == "e2dev 3x3 by hand"


def test_a_hand_written_board_document_solves_the_hand_written_puzzle():
    puzzle = read_puzzle(EXAMPLE)
    solution = parse_solution(BOARD_DOC, "e2dev", puzzle)
    result = check(puzzle, solution)
    assert result.ok, result.summary()
    assert result.score == 12 == json.loads(BOARD_DOC)["score"]
    # the board as edgematch turns the pieces is the board as drawn by hand
    assert ["".join(chr(ord("a") + c) for c in edges) for edges in solution.grid(puzzle)] == DRAWN
    # the same codes read as anticlockwise turns do not solve it: the direction is a fact, not a choice
    mirrored = Solution(3, 3, tuple(Placement(t, -r % 4) for t, r in solution.cells))
    assert not check(puzzle, mirrored).ok


def test_the_written_board_document_is_the_hand_written_one():
    puzzle = read_puzzle(EXAMPLE)
    solution = parse_solution(BOARD_DOC, "e2dev", puzzle)
    doc = board_document(puzzle, solution)
    hand = json.loads(BOARD_DOC)
    for key in ("name", "size", "score", "breaks", "board", "board_edges", "board_pieces"):
        assert doc[key] == hand[key], key
    assert doc["url"] == (
        "https://eternity2.dev/viewer?puzzle=e2dev_3x3_by_hand&puzzle_size=3"
        f"&board_edges={hand['board_edges']}&board_pieces={hand['board_pieces']}"
    )


# ----- round trips ----------------------------------------------------------------------------------


def _e2_like(width: int, height: int, seed: int) -> Puzzle:
    puzzle, _ = generate(GeneratorSpec(width, height, like="e2", hint=True, seed=seed))
    return puzzle


def _unframed(width: int, height: int, seed: int) -> tuple[Puzzle, Solution]:
    puzzle, solution = generate(GeneratorSpec(width, height, colours=5, rule="same", rotations=True, seed=seed))
    hints = tuple((c, *solution.cells[c]) for c in (0, puzzle.size - 1))
    return puzzle.replace(hints=hints, name="unframed"), solution


def _assert_round_trip(puzzle: Puzzle, tmp_path: Path) -> None:
    text = write_puzzle(puzzle, format="e2dev")
    assert parse_puzzle(text, "e2dev") == puzzle
    assert parse_puzzle(text) == puzzle  # recognised by its content alone
    path = tmp_path / "puzzle.json"
    path.write_text(text)
    assert detect_format(path) == "e2dev"  # .json, but not our own JSON: the content decides
    assert read_puzzle(path) == puzzle


@pytest.mark.parametrize(("width", "height", "seed"), [(16, 16, 1), (6, 6, 2), (7, 5, 3), (3, 3, 4), (2, 2, 5)])
def test_round_trip_of_e2_like_puzzles_with_their_centre_hint(width, height, seed, tmp_path):
    puzzle = _e2_like(width, height, seed)
    assert puzzle.frame == 0 and puzzle.hints
    _assert_round_trip(puzzle, tmp_path)


@pytest.mark.parametrize(("width", "height", "seed"), [(4, 4, 1), (5, 2, 2), (1, 3, 3)])
def test_round_trip_of_unframed_puzzles_with_hints(width, height, seed, tmp_path):
    puzzle, _ = _unframed(width, height, seed)
    assert puzzle.frame is None
    _assert_round_trip(puzzle, tmp_path)


def test_round_trip_keeps_label_names(tmp_path):
    puzzle = _e2_like(4, 4, 7)
    named = puzzle.replace(labels={0: "grey", 1: "pink-star"}, name="named")
    _assert_round_trip(named, tmp_path)


@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(2, 6), height=st.integers(2, 6), seed=st.integers(0, 2**32), framed=st.booleans(),
    hinted=st.sets(st.integers(0, 35), max_size=3),
)
def test_round_trip_of_random_same_rule_puzzles(width, height, seed, framed, hinted):
    spec = GeneratorSpec(width, height, colours=4, framed=framed, border_colours=2, inner_colours=3,
                         rule="same", rotations=True, seed=seed)
    puzzle, solution = generate(spec)
    cells = sorted(c for c in hinted if c < puzzle.size)
    puzzle = puzzle.replace(hints=tuple((c, *solution.cells[c]) for c in cells))
    text = write_puzzle(puzzle, format="e2dev")
    assert parse_puzzle(text, "e2dev") == puzzle
    assert parse_solution(write_solution(solution, format="e2dev", puzzle=puzzle), "e2dev", puzzle) == solution


def test_our_own_json_stays_the_default_for_json(tmp_path):
    puzzle = _e2_like(4, 4, 1)
    assert writer_for(tmp_path / "x.json").name == "json"
    assert writer_for(tmp_path / "x.json", solution=True).name == "json"
    path = tmp_path / "ours.json"
    write_puzzle(puzzle, path)
    assert detect_format(path) == "json"
    assert read_puzzle(path) == puzzle


# ----- the writer refuses what the site cannot hold -----------------------------------------------------


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda p: generate(GeneratorSpec(3, 3, colours=3, rule="signed", seed=1))[0], "'same'-rule puzzles only"),
        (lambda p: generate(GeneratorSpec(3, 3, colours=3, rotations=False, seed=1))[0], "always allows rotation"),
        (lambda p: Puzzle(2, 1, ((1, -2, 3, 4), (5, 6, 7, -2))), "labels are 0 or positive"),
        (lambda p: Puzzle(2, 1, ((9, 1, 9, 9), (9, 9, 9, 1)), frame=9), "uses 0 as the frame label"),
        (lambda p: Puzzle(2, 1, ((0, 1, 2, 3), (1, 2, 3, 4))), "reads label 0 as the frame"),
        (lambda p: Puzzle(2, 1, ((300, 1, 2, 3), (1, 2, 3, 4))), "colours as bytes"),
    ],
    ids=["signed", "rotation-off", "negative", "frame-9", "zero-as-colour", "colour-300"],
)
def test_writer_refuses_puzzles_it_cannot_hold(change, fragment, tmp_path):
    puzzle = change(_e2_like(4, 4, 1))
    with pytest.raises(FormatError) as info:
        write_puzzle(puzzle, format="e2dev")
    assert "cannot write as eternity2.dev JSON" in str(info.value)
    assert fragment in str(info.value)
    with pytest.raises(FormatError) as info:
        write_puzzle(puzzle, tmp_path / "x.json", format="e2dev")
    assert str(info.value).startswith(f"{tmp_path / 'x.json'}: ")


# ----- malformed files: one FormatError naming the line and the problem --------------------------------


GOOD = EXAMPLE.read_text()
MALFORMED = [
    ("bad-json", GOOD.replace('"height": 3,', '"height": 3'), 5, "invalid JSON: Expecting ',' delimiter"),
    ("missing-pieces", '{"width": 1,\n "height": 1,\n "hints": []}\n', 1, 'missing "pieces"'),
    ("missing-width", '{"height": 1,\n "pieces": [[1, 2, 3, 4]]}\n', 1, 'missing "width"'),
    ("short-piece", GOOD.replace("[7, 0, 0, 2],", "[7, 0, 0],"), 13, "pieces[6]: expected 4 colours"),
    ("long-piece", GOOD.replace("[1, 5, 2, 0],", "[1, 5, 2, 0, 4],"), 12, "pieces[5]: expected 4 colours"),
    ("negative-colour", GOOD.replace("[1, 0, 7, 3],", "[1, 0, -7, 3],"), 10, "pieces[3][2]"),
    ("few-pieces", GOOD.replace("    [4, 1, 0, 2]\n", "").replace("[6, 2, 0, 7],", "[6, 2, 0, 7]"), 6,
     "a 3x3 board needs 9 pieces, got 8"),
    ("hint-pos", GOOD.replace('"pos": 4', '"pos": 9'), 18, "hints[0].pos: the cell (row-major on 3x3) must be 0..8"),
    ("hint-rot", GOOD.replace('"rot": 1', '"rot": 4'), 18, "hints[0].rot: the rotation"),
    ("hint-piece", GOOD.replace('"piece": 0', '"piece": 12'), 18, "hints[0].piece: the piece index must be 0..8"),
    ("hint-missing-rot", GOOD.replace(', "rot": 1', ""), 18, 'hints[0]: missing "rot"'),
    ("hint-off-the-rim", GOOD.replace('"rot": 1}', '"rot": 1},\n    {"pos": 0, "piece": 1, "rot": 0}'), 17,
     "hint on cell 0"),
    ("width-text", GOOD.replace('"width": 3', '"width": "3"'), 3, "width: the board width must be an integer"),
]


@pytest.mark.parametrize(("name", "text", "line", "fragment"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_puzzle_names_line_and_problem(name, text, line, fragment, tmp_path):
    path = tmp_path / f"{name}.json"
    path.write_text(text)
    with pytest.raises(FormatError) as info:
        read_puzzle(path)
    assert str(info.value).startswith(f"{path}:{line}: "), str(info.value)
    assert fragment in info.value.message, str(info.value)


def test_malformed_puzzle_on_the_command_line_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(GOOD.replace("[7, 0, 0, 2],", "[7, 0, 0],"))
    result = CliRunner().invoke(load_commands(), ["info", str(path)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f"edgematch: {path}:13: pieces[6]: expected 4 colours (up right down left), got 3"


@pytest.mark.parametrize(
    ("change", "line", "fragment"),
    [
        (lambda t: t.replace("6, 15, 27", "-1, 15, 27"), 6, "cell 0 is empty (-1)"),
        (lambda t: t.replace("17, 28, 8", "17, 28, 99"), 8, "cell 8: piece 24 does not exist"),
        (lambda t: t.replace("17, 28, 8", "17, 28"), 6, "a 3x3 board has 9 cells, got 8"),
        (lambda t: t.replace('"size": 3', '"size": 4'), 3, "the document says 4, the puzzle is 3x3"),
        (lambda t: t.replace("6, 15, 27", "4, 15, 27"), 9, "cell 0 is drawn 'abca', but piece 1 turned 0"),
    ],
    ids=["empty-cell", "no-such-piece", "short-board", "wrong-size", "edges-disagree"],
)
def test_malformed_board_document(change, line, fragment, tmp_path):
    path = tmp_path / "board.json"
    path.write_text(change(BOARD_DOC))
    with pytest.raises(FormatError) as info:
        read_solution(path, puzzle=read_puzzle(EXAMPLE))
    assert str(info.value).startswith(f"{path}:{line}: "), str(info.value)
    assert fragment in info.value.message, str(info.value)


# ----- the board document and the viewer links ----------------------------------------------------------


def _scrambled(puzzle: Puzzle, solution: Solution, seed: int) -> Solution:
    """The solution with some non-hint cells swapped and turned: a legal board with broken seams."""
    import random

    rng = random.Random(seed)
    cells = list(solution.cells)
    free = [c for c in range(puzzle.size) if c not in {h.cell for h in puzzle.hints}]
    for _ in range(3):
        a, b = rng.sample(free, 2)
        cells[a], cells[b] = Placement(cells[b].tile, rng.randrange(4)), cells[a]
    return Solution(solution.width, solution.height, tuple(cells))


@pytest.mark.parametrize("seed", range(6))
def test_board_document_score_is_the_checkers(seed):
    puzzle, solution = generate(GeneratorSpec(6, 6, like="e2", hint=True, seed=seed))
    for board in (solution, _scrambled(puzzle, solution, seed)):
        result = check(puzzle, board)
        doc = board_document(puzzle, board)
        assert (doc["score"], doc["breaks"]) == (result.score, result.breaks)
        assert doc["score"] + doc["breaks"] == puzzle.seam_count
        assert doc["board"] == [t * 4 + r for t, r in board.cells]
    assert board_document(puzzle, solution)["breaks"] == 0


def test_board_document_round_trips_and_is_recognised_by_content(tmp_path):
    puzzle, solution = generate(GeneratorSpec(5, 4, like="e2", hint=True, seed=3))
    text = write_solution(solution, format="e2dev", puzzle=puzzle)
    assert parse_solution(text, "e2dev", puzzle) == solution
    assert parse_solution(text, "e2dev") == solution  # width and height in the document
    path = tmp_path / "board.json"
    path.write_text(text)
    assert detect_format(path, solution=True) == "e2dev"
    assert read_solution(path, puzzle=puzzle) == solution
    assert "size" not in json.loads(text)  # the site's boards are square: "size" only for those


def test_board_document_needs_the_puzzle():
    puzzle, solution = generate(GeneratorSpec(3, 3, like="e2", seed=1))
    with pytest.raises(UsageError, match="needs the puzzle"):
        write_solution(solution, format="e2dev")


def test_board_document_of_a_puzzle_the_viewers_cannot_draw_says_why():
    puzzle, solution = generate(GeneratorSpec(3, 3, colours=3, rule="signed", seed=1))
    doc = board_document(puzzle, solution)
    assert doc["url"] is None and doc["board_edges"] is None
    assert "colours 0..22" in doc["viewer"]
    assert doc["score"] == check(puzzle, solution).score
    with pytest.raises(FormatError, match="cannot make a viewer link"):
        viewer_url(puzzle, solution)


def _url_blobs(url: str) -> tuple[str, str]:
    edges = re.search(r"board_edges=([a-z]+)", url)
    pieces = re.search(r"board_pieces=([0-9]+)", url)
    assert edges and pieces, url
    return edges.group(1), pieces.group(1)


@pytest.mark.parametrize(("width", "height"), [(16, 16), (7, 5)])
def test_viewer_urls_hold_every_cell(width, height):
    puzzle, solution = generate(GeneratorSpec(width, height, like="e2", hint=True, seed=2))
    board = _scrambled(puzzle, solution, 1)
    site = viewer_url(puzzle, board)
    bucas = viewer_url(puzzle, board, site="e2.bucas.name")
    assert site.startswith("https://eternity2.dev/viewer?puzzle=e2_")
    assert bucas.startswith("https://e2.bucas.name/#puzzle=e2_")
    assert f"board_w={width}&board_h={height}" in bucas
    assert (f"puzzle_size={width}" if width == height else f"board_w={width}&board_h={height}") in site
    for url in (site, bucas):
        edges, pieces = _url_blobs(url)
        assert len(edges) == 4 * puzzle.size and len(pieces) == 3 * puzzle.size
        for cell, (tile, rot) in enumerate(board.cells):
            shown = puzzle.tiles[tile].rotated(rot)
            assert edges[4 * cell:4 * cell + 4] == "".join(chr(ord("a") + c) for c in shown)
            assert int(pieces[3 * cell:3 * cell + 3]) == tile + 1
    assert board_document(puzzle, board)["url"] == site


def test_viewer_url_refuses_an_unknown_site():
    puzzle = read_puzzle(EXAMPLE)
    with pytest.raises(UsageError, match="unknown viewer site"):
        viewer_url(puzzle, parse_solution(BOARD_DOC, "e2dev", puzzle), site="example.org")  # type: ignore[arg-type]
