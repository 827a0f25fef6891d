"""Bad input in every foreign format: one FormatError naming the file, the line and the problem.

``MALFORMED`` (puzzle files) and ``MALFORMED_SOLUTIONS`` (solution files) list the files under
``tests/data/malformed/`` as (file name, expected 1-based line, fragment of the message); the command-line
tests reuse them to check the exit code 2.
"""

from pathlib import Path

import pytest

from edgematch.errors import FormatError
from edgematch.formats import read_puzzle, read_solution

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data" / "malformed"

MALFORMED = [
    ("puz_too_few_tiles.puz", 10, "a 3x3 board needs 9 tiles, got 8"),
    ("puz_too_many_tiles.puz", 7, "this is tile 5"),
    ("puz_truncated_line.puz", 5, "expected 4 numbers, got 3"),
    ("puz_non_numeric.puz", 3, "must be an integer, got 'x'"),
    ("puz_no_header.puz", 2, "is the header missing?"),
    ("puz_negative_label.puz", 4, "positive colour numbers, got -2"),
    ("puz_frame_mismatch.puz", 6, "the frame needs 4 corner tiles"),
    ("puz_only_comments.puz", 2, "only comments"),
    ("empty.puz", 1, "empty file"),
    ("heule_hint_clash.heule", 3, "hint clash: row 1, col 1 is already fixed by the hint on line 2"),
    ("heule_no_rectangle.heule", 6, "5 pieces with 10 frame edges (label 0) fit no rectangle"),
    ("heule_truncated.heule", 2, "expected 3 hint lines"),
    ("heule_wrong_header.heule", 1, "line 1 is the number of hints"),
    ("heule_hint_off_board.heule", 2, "off the 2x2 board"),
    ("heule_hint_frame.heule", 2, "on the frame"),
    ("owen_too_few.owen", 4, "need 6 pieces, got 5 and 2 stray number(s)"),
    ("owen_wrong_header.owen", 1, "expected the header 'R C'"),
    ("arc_unknown_label.arc", 5, "unknown label 'wasp'"),
    ("arc_non_square.arc", 9, "8 tiles do not fill a square board"),
    ("arc_unclosed.arc", 3, "never closed"),
    ("arc_three_labels.arc", 2, "a tile is a list of 4 labels (top left right bottom), got 3"),
    ("arc_zero_label.arc", 5, "label 0 has no tail"),
    ("racket_short_string.rkt", 3, 'a tile is 4 letters (N E S W), got "Myc"'),
    ("racket_non_square.rkt", 2, "8 tiles do not fill a square board"),
    ("racket_unterminated.rkt", 3, "unterminated string"),
    ("racket_two_lists.rkt", 2, "a second list of tiles"),
    ("hunde_bad_half.hunde", 3, "expected 'PATTERN head' or 'PATTERN tail', got 'spotted nose'"),
    ("hunde_three_edges.hunde", 3, "a tile has 4 edges (N, E, S, W) separated by commas, got 3"),
    ("hunde_non_square.hunde", 9, "8 tiles do not fill a square board"),
    ("unknown_format.txt", 1, "cannot tell which puzzle format"),
    ("native_only_comments.em", 2, "only comments"),
    ("native_size_twice.em", 4, "size given twice (first on line 2)"),
    ("native_unknown_keyword.em", 3, "unknown keyword 'colour'"),
    ("native_bad_rule.em", 3, "rule must be 'same' or 'signed', got 'equal'"),
    ("native_bad_header.em", 1, "expected the header line 'edgematch puzzle'"),
    ("native_truncated_tile.em", 5, "a tile has 4 edges (N E S W), got 3"),
    ("json_bool_frame.json", 3, '"frame": expected int or NoneType, got true'),
    ("json_short_tile.json", 2, '"tiles": entry 1 must be a list of 4 integers'),
    ("json_syntax.json", 4, "invalid JSON"),
]

MALFORMED_SOLUTIONS = [
    ("sol_bad_rotation.sol", 3, "rotation 4 is not 0..3"),
    ("sol_missing_cell.sol", 4, "have no tile: (col 1, row 1)"),
    ("sol_cell_twice.sol", 3, "cell (col 1, row 0) is filled twice (first on line 2)"),
    ("sol_non_numeric.sol", 3, "must be an integer, got 'one'"),
]


def _assert_located(error: FormatError, path: Path, line: int, fragment: str) -> None:
    text = str(error)
    assert text.startswith(f"{path}:{line}: "), text
    assert fragment in error.message, text


@pytest.mark.parametrize(("name", "line", "fragment"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_puzzle(name, line, fragment):
    path = DATA / name
    with pytest.raises(FormatError) as info:
        read_puzzle(path)
    _assert_located(info.value, path, line, fragment)


@pytest.mark.parametrize(
    ("name", "line", "fragment"), MALFORMED_SOLUTIONS, ids=[m[0] for m in MALFORMED_SOLUTIONS]
)
def test_malformed_solution(name, line, fragment):
    path = DATA / name
    with pytest.raises(FormatError) as info:
        read_solution(path)
    _assert_located(info.value, path, line, fragment)


def test_every_fixture_is_listed():
    listed = {m[0] for m in MALFORMED + MALFORMED_SOLUTIONS}
    assert {p.name for p in DATA.iterdir()} == listed


@pytest.mark.parametrize(
    ("suffix", "data", "line", "fragment"),
    [
        (".puz", b"4 4\n0 0 1 2\n\x00\x17\xfe\xff garbage\n", 3, "binary data (NUL byte)"),
        (".arc", b"; insects\n(1 2 3 4)\n\xff\xfe(1 2 3 4)\n", 3, "not UTF-8 text"),
        (".heule", bytes(range(256)), 1, "binary data (NUL byte)"),
    ],
)
def test_binary_garbage(tmp_path, suffix, data, line, fragment):
    path = tmp_path / f"garbage{suffix}"
    path.write_bytes(data)
    with pytest.raises(FormatError) as info:
        read_puzzle(path)
    _assert_located(info.value, path, line, fragment)


def test_sol_tile_and_cell_checked_against_the_puzzle(tmp_path):
    from edgematch.formats import parse_puzzle

    puzzle = parse_puzzle("2 1\n1 5 6 7\n8 9 10 1\n", "puz")
    path = tmp_path / "s.sol"
    path.write_text("c tile col row rot\n0 0 0 3\n2 1 0 0\n")
    with pytest.raises(FormatError) as info:
        read_solution(path, puzzle=puzzle)
    _assert_located(info.value, path, 3, "tile 2 does not exist (tiles are 0..1)")
    path.write_text("0 0 0 3\n1 2 0 0\n")
    with pytest.raises(FormatError) as info:
        read_solution(path, puzzle=puzzle)
    _assert_located(info.value, path, 2, "off the 2x1 board")


INSECTS_ROWS = "1:0 8:1 2:0\n7:2 5:2 0:0\n6:3 4:1 3:0\n"  # 3x3 cells of the insects puzzle (9 tiles)


@pytest.mark.parametrize(
    ("name", "text", "line", "fragment"),
    [
        ("rot7.emsol", "edgematch solution\nsize 3 3\n1:7 8:1 2:0\n7:2 5:2 0:0\n6:3 4:1 3:0\n", 3,
         "rotation 7 is not 0..3"),
        ("tile99.emsol", "edgematch solution\nsize 3 3\n1:0 8:1 2:0\n7:2 99:2 0:0\n6:3 4:1 3:0\n", 4,
         "tile 99 does not exist (tiles are 0..8)"),
        ("negative.emsol", "edgematch solution\nsize 3 3\n1:0 8:1 2:0\n7:2 5:2 0:0\n6:3 4:1 -1:0\n", 5,
         "tile -1 does not exist"),
        ("small.emsol", "edgematch solution\nsize 2 2\n1:0 8:1\n7:2 5:2\n", 2, "the solution is 2x2, the puzzle 3x3"),
        ("rot7.json", '{"edgematch": "solution", "width": 3, "height": 3,\n'
                      ' "cells": [[1, 7], [8, 1], [2, 0], [7, 2], [5, 2], [0, 0], [6, 3], [4, 1], [3, 0]]}\n', 2,
         '"cells": entry 0: rotation 7 is not 0..3'),
        ("tile9.json", '{"edgematch": "solution", "width": 3, "height": 3,\n'
                       ' "cells": [[1, 0], [8, 1], [2, 0], [7, 2], [9, 2], [0, 0], [6, 3], [4, 1], [3, 0]]}\n', 2,
         '"cells": entry 4: tile 9 does not exist (tiles are 0..8)'),
        ("small.json", '{"edgematch": "solution",\n "width": 2, "height": 2, "cells": []}\n', 2,
         "the solution is 2x2, the puzzle 3x3"),
    ],
)
def test_a_solution_no_board_can_hold_is_malformed_at_its_line(tmp_path, name, text, line, fragment):
    # what no board of the puzzle can hold (a turn past 3, a tile it lacks, another size) is the file's fault,
    # named at its line as the .sol and e2dev readers do; the checker judges only boards that could exist
    puzzle = read_puzzle(ROOT / "examples" / "insects.em")
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(FormatError) as info:
        read_solution(path, puzzle=puzzle)
    _assert_located(info.value, path, line, fragment)


def test_a_well_formed_native_solution_reads_with_or_without_its_puzzle(tmp_path):
    puzzle = read_puzzle(ROOT / "examples" / "insects.em")
    path = tmp_path / "ok.emsol"
    path.write_text("edgematch solution\nsize 3 3\n" + INSECTS_ROWS)
    board = read_solution(path, puzzle=puzzle)
    assert board.cells[1] == (8, 1) and len(board.cells) == 9
    assert read_solution(path).cells == board.cells  # without the puzzle, the same cells


def test_the_negative_half_of_label_0_is_named_as_the_cause(tmp_path):
    # under rule signed a label's negative half is its matching partner, and 0 has none: the error names the
    # declaration's problem where the half is used, not only "unknown label"
    path = tmp_path / "label0.em"
    path.write_text("edgematch puzzle\nsize 1 2\nrule signed\nframe none\nlabel 0 ant\nlabel 1 bee\n"
                    "tile ant bee bee bee\ntile -ant bee bee bee\n")
    with pytest.raises(FormatError) as info:
        read_puzzle(path)
    _assert_located(info.value, path, 8, "'ant' is label 0, which has no negative half under rule signed")


def test_a_heule_hint_count_too_high_is_blamed_on_the_first_piece_read_as_a_hint(tmp_path):
    # line 1 claims more hints than the file holds, so piece lines are read as hints: the first whose row,
    # column or turn no hint can have is named, with line 1's count, before any board size is guessed
    lines = (ROOT / "examples" / "framed5x4.heule").read_text().split("\n")
    real = int(lines[0])
    lines[0] = str(real + 3)
    path = tmp_path / "miscounted.heule"
    path.write_text("\n".join(lines))
    with pytest.raises(FormatError) as info:
        read_puzzle(path)
    assert f"(line 1 says {real + 3} hint line(s) follow: is that count right?)" in info.value.message
    assert info.value.line is not None and real + 2 <= info.value.line <= real + 4
