"""Bad input in every foreign format: one FormatError naming the file, the line and the problem.

``MALFORMED`` (puzzle files) and ``MALFORMED_SOLUTIONS`` (solution files) list the files under
``tests/data/malformed/`` as (file name, expected 1-based line, fragment of the message); the command-line
tests reuse them to check the exit code 2.
"""

from pathlib import Path

import pytest

from edgematch.errors import FormatError
from edgematch.formats import read_puzzle, read_solution

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
