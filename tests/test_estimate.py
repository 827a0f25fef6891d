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
E2_16 = GeneratorSpec(16, 16, like="e2", hint=True, seed=1)  # the flagship's shape: its estimate never returned


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


@pytest.mark.parametrize("order", ["row", "frame"])
def test_probes_walk_the_tree_of_the_loop_with_the_row_look_ahead(order, monkeypatch):
    """With the look-ahead's tables the probes follow the loop that uses them: probes from the root are its count
    (nodes and boards), random walks come near it, and slices of 1,000 nodes give what one call gives (on the
    small trees). It cuts the tree on some of these boards, so the probes see another tree than without it."""
    from edgematch.solvers.native.count import estimate as module

    cut = 0
    for spec in BOARDS:
        puzzle, _ = generate(spec)
        tables = build_tables(puzzle, order, symmetry=True, lookahead=True)
        assert tables.rows is not None
        truth = plain(tables)
        cut += truth.nodes < plain(build_tables(puzzle, order, symmetry=True)).nodes
        e = knuth(tables, probes=2, seed=9, exact_from=0)
        assert (e.nodes, e.boards) == (truth.nodes, truth.solutions), spec
        walk = knuth(tables, probes=50_000, seed=3)
        assert truth.nodes / 2 <= walk.nodes <= truth.nodes * 2, spec
        if truth.nodes > 1_000_000:  # slices of 1,000 nodes through whole trees: the small trees
            continue
        asked = [(3, 0), (300, 3), (300, tables.positions)]  # whole trees, subtrees, plain walks
        whole = [knuth(tables, probes=k, seed=5, exact_from=x) for k, x in asked]
        with monkeypatch.context() as m:
            m.setattr(module, "FIRST_BUDGET", 1)
            m.setattr(module, "SLICE_SECONDS", 0.0)
            assert [knuth(tables, probes=k, seed=5, exact_from=x) for k, x in asked] == whole, spec
    assert cut >= 2


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
        assert data["lookahead"] == (order == "row")  # the count's own tree: with the look-ahead in the row order
    spiral = edgematch.estimate(edgematch.read_puzzle(puzzle), seconds=0.3, order="spiral")
    assert 2_195_647_488 / 4 <= spiral.raw <= 2_195_647_488 * 4  # another tree, the same solutions
    for extra, named in ((["--order", "dynamic"], "static fill order"), (["-b", "cpsat"], "--backend cpsat"),
                         (["-j", "2"], "--workers 2"), (["-O", "fc=on"], "--option"), (["--confirm"], "--confirm")):
        bad = runner.invoke(app, ["count", str(puzzle), "--estimate", *extra])
        assert bad.exit_code == 2 and named in bad.output and "Traceback" not in bad.output, (extra, bad.output)


def test_probes_resume_between_slices_bit_for_bit(monkeypatch):
    """em_probe returns after a node budget and resumes where it was (a probe's walk or its exact subtree):
    slices of 1,000 nodes give exactly what one call gives (issue 39: one call held the process for good)."""
    from edgematch.solvers.native.count import estimate as module

    puzzle, _ = generate(BOARDS[0])
    tables = build_tables(puzzle, "auto", symmetry=True)
    asked = [(5, 0), (300, 3), (300, tables.positions)]  # whole trees, subtrees, plain walks
    whole = [knuth(tables, probes=k, seed=5, exact_from=x) for k, x in asked]
    monkeypatch.setattr(module, "FIRST_BUDGET", 1)
    monkeypatch.setattr(module, "SLICE_SECONDS", 0.0)  # every later call: the least budget (1,000 nodes)
    sliced = [knuth(tables, probes=k, seed=5, exact_from=x) for k, x in asked]
    assert whole[0].nodes > 3 * 1_000  # each probe counts the whole tree: resumed inside it
    assert sliced == whole


@pytest.mark.parametrize("spec", BOARDS[2:4], ids=lambda s: f"{s.width}x{s.height}-{s.like or s.rule}-s{s.seed}")
def test_probes_that_give_up_a_large_subtree_still_estimate_without_bias(spec):
    """Past ``exact_cap`` nodes a probe walks on at random below its exact depth instead: the estimate stays
    near the truth (whether a subtree passes the cap depends only on where the walk is)."""
    puzzle, _ = generate(spec)
    tables = build_tables(puzzle, "auto", symmetry=True)
    truth = plain(tables)
    capped = knuth(tables, probes=100_000, seed=3, exact_from=3, exact_cap=50)
    assert 0 < capped.walked_on < capped.probes  # some subtrees counted, some given up
    assert truth.nodes / 2 <= capped.nodes <= truth.nodes * 2
    assert truth.solutions / 2 <= capped.boards <= truth.solutions * 2


def test_a_deadline_cuts_the_probes_between_slices():
    """Every probe counting the whole tree of a 16x16 E2-like board never ends; the deadline stops them."""
    import time

    puzzle, _ = generate(E2_16)
    tables = build_tables(puzzle, "auto", symmetry=True)
    start = time.perf_counter()
    e = knuth(tables, probes=10, seed=1, exact_from=0, deadline=start + 0.2)
    assert e.cut and e.probes == 0
    assert time.perf_counter() - start < 10  # 0.2 s and a slice, on an idle machine


def test_no_solution_met_is_said_rather_than_a_count_of_zero(tmp_path):
    """A planted peak 8x8 has a solution the probes never meet: 'about 0 raw' read as a count (issue 39)."""
    from edgematch.formats import write_puzzle

    path = tmp_path / "peak.em"
    write_puzzle(generate(GeneratorSpec(8, 8, like="peak", seed=1))[0], path)
    shown = runner.invoke(app, ["info", str(path)], env={"COLUMNS": "300"})
    assert shown.exit_code == 0, shown.output
    assert "about 0 raw" not in shown.output
    assert "no solution met by" in shown.output and "at 95%" in shown.output
    guess = edgematch.estimate(edgematch.read_puzzle(path), seconds=0.3)
    assert guess.none_met and guess.met == 0 and 0 < guess.unmet_chance() < 1
    counted = runner.invoke(app, ["count", str(path), "--estimate", "-t", "0.3"], env={"COLUMNS": "300"})
    assert counted.exit_code == 0 and "no solution met by" in counted.output and "about 0 raw" not in counted.output


# the CLI in a process of its own that says when the estimate's batches start (their first em_probe call)
BATCHES_STARTED = """
import os
import signal
import sys
from edgematch.cli.main import run
from edgematch.solvers.native.count import estimate

probe = estimate.knuth


def knuth(*args, **kwargs):
    if kwargs.get("exact_cap"):
        print("batches", file=sys.stderr, flush=True)
        if os.environ.get("CTRL_C_AT_BATCHES"):
            os.kill(os.getpid(), signal.SIGINT)
    return probe(*args, **kwargs)


estimate.knuth = knuth
sys.argv = ["edgematch", *sys.argv[1:]]
run()
"""


def _cli(folder, *args, env=None):
    """``edgematch ARGS`` with Ctrl-C as a terminal gives it (SIGINT not ignored, its own session)."""
    import os
    import signal
    import subprocess
    import sys

    err = folder / "err.txt"
    with err.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", BATCHES_STARTED, *map(str, args)], stdout=subprocess.PIPE,
                                stderr=stderr, text=True, start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                                env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200", **(env or {})})
    return proc, err


def _wait_for(err, word, proc, seconds=60.0):
    import time

    deadline = time.monotonic() + seconds
    while word not in err.read_text() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return word in err.read_text()


def test_info_and_the_estimate_return_on_a_16x16_e2_board(tmp_path):
    """They never returned on E2-like boards of 14x14 and up (issue 39): one compiled probe call counted a
    subtree of ~1e30 nodes. Generous bounds for a loaded machine; idle: about 1 s each plus start-up."""
    import time

    from edgematch.formats import write_puzzle

    path = tmp_path / "e2-16.em"
    write_puzzle(generate(E2_16)[0], path)
    for args, bound in ((["info", path], 30), (["count", path, "--estimate", "-t", "1", "--json"], 30)):
        proc, err = _cli(tmp_path, *args)
        start = time.monotonic()
        try:
            printed, _ = proc.communicate(timeout=bound + 30)
        finally:
            proc.kill()
        took = time.monotonic() - start
        assert proc.returncode == 0, (args, printed, err.read_text())
        assert took < bound, (args, took)
        if "--json" in args:
            data = json.loads(printed)
            assert data["probes"] > 0 and data["elapsed"] < 5 and data["met"] == 0
        else:
            assert "count estimate" in printed


def test_ctrl_c_stops_the_estimate_with_exit_130_and_what_it_had(tmp_path):
    """SIGINT during the batches (a 60 s estimate) stops it at once: exit 130, the estimate so far shown."""
    import os
    import signal
    import time

    from edgematch.formats import write_puzzle

    path = tmp_path / "e2-16.em"
    write_puzzle(generate(E2_16)[0], path)
    proc, err = _cli(tmp_path, "count", path, "--estimate", "-t", "60")
    try:
        assert _wait_for(err, "batches", proc), err.read_text()  # without the fix: never (stuck before them)
        time.sleep(0.5)  # into the batches' compiled slices
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        printed, _ = proc.communicate(timeout=20)
        took = time.monotonic() - sent
    finally:
        proc.kill()
    said = err.read_text()
    assert proc.returncode == 130, (printed, said)
    assert took < 5, took  # 0.3 s on an idle machine: a slice is about 0.02 s
    assert "interrupted" in printed and "random probes" in printed, printed  # the batches done so far
    assert "interrupted" in said and "Traceback" not in said, said


def test_ctrl_c_during_info_shows_the_facts_and_exits_130(tmp_path):
    """info keeps its table (without the estimate) on Ctrl-C (here the child's own, as its batches start)."""
    from edgematch.formats import write_puzzle

    path = tmp_path / "e2-16.em"
    write_puzzle(generate(E2_16)[0], path)
    proc, err = _cli(tmp_path, "info", path, env={"CTRL_C_AT_BATCHES": "1"})
    try:
        printed, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    said = err.read_text()
    assert proc.returncode == 130, (printed, said)
    assert "16 x 16" in printed and "count estimate" in printed and "interrupted" in printed, printed
    assert "Traceback" not in said, said
