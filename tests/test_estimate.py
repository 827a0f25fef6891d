"""Estimates before counting (issue 25 part 2): Knuth's probes of the native count's tree. Exact where the
probes count everything, close to the true count on boards the tests can count, and on screen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import edgematch
from edgematch import GeneratorSpec, generate
from edgematch.cli.main import load_commands
from edgematch.solvers.native.count.estimate import exact_depth, knuth
from edgematch.solvers.native.search import Search, drive
from edgematch.solvers.native.tables import build_tables

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DATA = Path(__file__).resolve().parent / "data"
runner = CliRunner()
app = load_commands()

BOARDS = [
    GeneratorSpec(5, 5, like="clue", seed=1),
    GeneratorSpec(6, 4, like="clue", seed=2),
    GeneratorSpec(4, 4, like="tetravex", colours=3, seed=3),
    GeneratorSpec(4, 3, colours=3, rule="signed", seed=4),
    GeneratorSpec(5, 5, framed=True, border_colours=2, inner_colours=3, seed=5),
]


def plain(tables):
    return drive(Search(tables))


@pytest.mark.parametrize("spec", BOARDS, ids=lambda s: f"{s.width}x{s.height}-{s.like or s.rule}-s{s.seed}")
def test_probes_that_count_from_the_root_are_the_count(spec):
    """exact_from=0: every probe is the whole tree, so the estimate is the plain count's nodes and boards."""
    puzzle, _ = generate(spec)
    tables = build_tables(puzzle, "auto", symmetry=True)
    truth = plain(tables)
    e = knuth(tables, probes=3, seed=9, exact_from=0)
    assert (e.nodes, e.boards) == (truth.nodes, truth.solutions)
    assert e.nodes_se == 0


@pytest.mark.parametrize("spec", BOARDS, ids=lambda s: f"{s.width}x{s.height}-{s.like or s.rule}-s{s.seed}")
def test_the_estimate_is_near_the_true_count(spec):
    """Unbiased, so with enough probes the seeded estimate is near the truth (within a factor of 2 here; the
    issue asks a factor of 10), for the tree and for the raw count (counted outright when the tree is small)."""
    puzzle, _ = generate(spec)
    tables = build_tables(puzzle, "auto", symmetry=True)
    truth = plain(tables)
    random_walk = knuth(tables, probes=200_000, seed=3)
    assert truth.nodes / 2 <= random_walk.nodes <= truth.nodes * 2
    guess = edgematch.estimate(puzzle, seconds=0.5)
    raw = edgematch.count(puzzle, backend="native").count
    assert raw / 2 <= guess.raw <= raw * 2, (guess.raw, raw)
    assert guess.raw_low <= guess.raw <= guess.raw_high
    assert guess.seconds > 0 and guess.nodes_per_second > 0


def test_the_published_clue_puzzle_is_estimated_within_a_factor_of_two():
    puzzle = edgematch.read_puzzle(DATA / "e2-clue3.json")
    guess = edgematch.estimate(puzzle, seconds=1.0)
    assert 2_195_647_488 / 2 <= guess.raw <= 2_195_647_488 * 2
    assert guess.elapsed < 5


def test_the_exact_depth_is_where_subtrees_become_small():
    levels = (2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
    assert exact_depth(levels, subtree=2) == 5  # below depth 4, 64 / 32 = 2 nodes each
    assert exact_depth(levels, subtree=1000) == 1
    assert exact_depth(levels, subtree=1) == 6  # none so small: never exact
    assert exact_depth((5.0, 0.0, 0.0), subtree=1) == 1  # depths no probe reached count as empty


def test_count_estimate_on_the_command_line():
    shown = runner.invoke(app, ["count", str(DATA / "e2-clue3.json"), "--estimate", "-t", "0.5"])
    assert shown.exit_code == 0, shown.output
    assert "not counted" in shown.output and "raw" in shown.output and "on one core" in shown.output
    data = json.loads(runner.invoke(app, ["count", str(EXAMPLES / "insects.em"), "--estimate", "--json"]).stdout)
    assert (data["raw"], data["distinct"], data["probes"]) == (4, 1, 0)  # so small a tree is counted, exactly
    bad = runner.invoke(app, ["count", str(EXAMPLES / "insects.em"), "--estimate", "-t", "-1"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output and "time limit must be a positive" in bad.output


def test_info_shows_the_estimate_beside_the_random_puzzle_formula():
    shown = runner.invoke(app, ["info", str(EXAMPLES / "insects.em")], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert "4 raw, 1 distinct (this puzzle, counted" in shown.output  # so small a tree is counted
    big = runner.invoke(app, ["info", str(DATA / "e2-clue3.json")], env={"COLUMNS": "200"})
    assert "count estimate" in big.output and "random probes" in big.output
    data = json.loads(runner.invoke(app, ["info", str(EXAMPLES / "insects.em"), "--json"]).stdout)
    assert round(data["count_estimate"]["raw"]) == 4


def test_bad_estimate_arguments_are_one_clear_error():
    puzzle, _ = generate(GeneratorSpec(3, 3, colours=3, seed=1))
    with pytest.raises(edgematch.UsageError, match="seconds must be a positive number"):
        edgematch.estimate(puzzle, seconds=0)
    with pytest.raises(edgematch.UsageError, match="seed must be a whole number"):
        edgematch.estimate(puzzle, seed=1.5)


def test_the_live_line_shows_the_time_left_by_the_estimate():
    from edgematch.cli.solve import time_left

    expected = (1000.0, 100.0)
    assert time_left({"elapsed": 10.0, "nodes": 250, "solutions": 0}, expected) == "about 30 s left (estimate)"
    # a memoised count adds solutions without their nodes: the further share counts
    assert time_left({"elapsed": 10.0, "nodes": 100, "solutions": 50}, expected) == "about 10 s left (estimate)"
    assert time_left({"elapsed": 10.0, "nodes": 2000, "solutions": 0}, expected) == "past the estimate"
    assert time_left({"elapsed": 0.5, "nodes": 250, "solutions": 0}, expected) == ""
    assert time_left({"elapsed": 10.0, "nodes": 250, "solutions": 0}, None) == ""


def test_count_estimate_follows_the_order_asked_for_and_refuses_what_it_would_ignore():
    """--order was silently dropped (every estimate probed the auto order's tree); options the probes never
    use are refused rather than ignored."""
    puzzle = DATA / "e2-clue3.json"
    for order in ("row", "spiral"):
        data = json.loads(runner.invoke(app, ["count", str(puzzle), "--estimate", "--order", order, "-t", "0.3",
                                              "--json"]).stdout)
        assert data["order"] == order
    spiral = edgematch.estimate(edgematch.read_puzzle(puzzle), seconds=0.3, order="spiral")
    assert 2_195_647_488 / 4 <= spiral.raw <= 2_195_647_488 * 4  # another tree, the same solutions
    for extra, named in ((["--order", "dynamic"], "static fill order"), (["-b", "cpsat"], "--backend cpsat"),
                         (["-j", "2"], "--workers 2"), (["-O", "fc=on"], "--option"), (["--confirm"], "--confirm")):
        bad = runner.invoke(app, ["count", str(puzzle), "--estimate", *extra])
        assert bad.exit_code == 2 and named in bad.output and "Traceback" not in bad.output, (extra, bad.output)
