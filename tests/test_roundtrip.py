"""Write-then-read is the identity for the lossless formats (native, JSON) and every solution writer."""

import pytest
from hypothesis import given

from edgematch.formats import formats, parse_puzzle, parse_solution, write_puzzle, write_solution
from tests.strategies import planted

LOSSLESS = ["native", "json"]
SOLUTION_WRITERS = [f.name for f in formats().values() if f.write_solution and f.read_solution]


@pytest.mark.parametrize("name", LOSSLESS)
@given(pair=planted())
def test_puzzle_round_trip(name, pair):
    puzzle, _ = pair
    text = write_puzzle(puzzle, format=name)
    assert parse_puzzle(text, name) == puzzle
    assert parse_puzzle(text) == puzzle  # detected from the content alone


@pytest.mark.parametrize("name", SOLUTION_WRITERS)
@given(pair=planted(extras=False))
def test_solution_round_trip(name, pair):
    puzzle, solution = pair
    text = write_solution(solution, format=name, puzzle=puzzle)
    assert parse_solution(text, name, puzzle) == solution


def test_writer_is_chosen_by_extension(tmp_path):
    from edgematch.formats import read_puzzle

    puzzle = read_puzzle("examples/insects.em")
    write_puzzle(puzzle, tmp_path / "p.json")
    assert (tmp_path / "p.json").read_text().lstrip().startswith("{")
    assert read_puzzle(tmp_path / "p.json") == puzzle
