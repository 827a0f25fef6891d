"""``best --workers N`` and ``best --cluster``: independent chains sharing the best board (issue 23, part 3), and
the clue regime ``best`` states (part 5).

What must hold: the answer is the best board of all chains, every board streamed is admissible and scored as the
checker says, a planted full solution still comes back "a full solution"; the time limit is kept (a generous
bound, not a timing test); a chain killed with ``kill -9`` loses none of the boards it sent and the others go on;
Ctrl-C keeps the best board; no process is left behind in any of these cases; each chain can read the best board
found elsewhere (``task.incumbent``)."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import edgematch
from edgematch.cli.best import hints_kept
from edgematch.cli.main import load_commands
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.model import Solution
from edgematch.core.symmetry import turn_board
from edgematch.solvers.base import Result, Status
from edgematch.solvers.native.best.admissible import admissible_board
from edgematch.solvers.native.best.stages import ROUND_STARTS, rounds_reached
from edgematch.solvers.parallel import chains
from edgematch.solvers.policy import regime
from tests import terminal

psutil = pytest.importorskip("psutil")

ROOT = Path(__file__).resolve().parents[1]
E2_8, _ = generate(GeneratorSpec(8, 8, like="e2", hint=True, seed=1))  # 63 free cells: the beam
PLANTED, _ = generate(GeneratorSpec(4, 4, framed=True, border_colours=2, inner_colours=3, seed=2))  # 16: dfs
SCRIPT = "import sys\nfrom edgematch.cli.main import run\nsys.argv = ['edgematch', *sys.argv[1:]]\nrun()\n"


def ours(process: psutil.Process) -> list[psutil.Process]:
    """The live descendants of ``process`` (multiprocessing's resource tracker, which lives as long as the
    interpreter that started it, aside)."""
    found = []
    for child in process.children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def gone(pids: list[int], seconds: float = 5.0) -> bool:
    """Whether every process in ``pids`` has ended (within ``seconds``)."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if not terminal.alive(pids):
            return True
        time.sleep(0.05)
    return False



def streamed(puzzle):
    """An ``on_improve`` that checks each board as it comes and keeps (board, score)."""
    boards: list[tuple[Solution, int]] = []

    def keep(board: Solution, score: int) -> None:
        verdict = check(puzzle, board)
        assert verdict.admissible and verdict.score == score
        boards.append((board, score))

    return boards, keep


def test_two_workers_return_the_best_board_of_their_chains_and_leave_no_process():
    boards, keep = streamed(E2_8)
    began = time.monotonic()
    result = edgematch.best(E2_8, backend="native", workers=2, time_limit=2, on_improve=keep, seed=5)
    took = time.monotonic() - began
    assert took < 2 + 3  # the limit bounds everything (generously: not a timing test)
    verdict = check(E2_8, result.solution)
    assert verdict.admissible and verdict.score == result.score
    c = result.counters
    assert c["chains"] == 2 and result.score == max(c["chain0_score"], c["chain1_score"])
    assert c["states"] == c["chain0_states"] + c["chain1_states"]
    assert c["beam_score"] == max(c["chain0_beam_score"], c["chain1_beam_score"])  # the stages, over the chains
    assert c["repair_gain"] == result.score - c["beam_score"] >= 0
    reached = rounds_reached(c)
    if "repair_from" in c:  # a chain repaired: each chain's rounds are summed into one histogram
        assert 1 <= sum(reached.values()) <= 2 + c.get("rounds", 0) and max(reached) <= result.score
    started = rounds_reached(c, ROUND_STARTS)  # the chains' fresh beams, summed as their rounds are
    assert sum(started.values()) == c.get("rounds", 0) + c.get("rounds_unrepaired", 0)
    assert result.options["workers"] == 2 and result.options["seeds"] == "5-6" and result.options["seed"] == 5
    scores = [s for _, s in boards]  # every board better than all before it, the last one the answer
    assert scores == sorted(set(scores)) and scores[-1] == result.score
    assert [s for _, s in result.history] == scores
    assert result.status is Status.TIMEOUT and result.message == "time limit"
    assert ours(psutil.Process()) == []


def test_a_planted_full_solution_still_comes_back_as_one():
    result = edgematch.best(PLANTED, backend="native", workers=2, time_limit=20)
    assert result.status is Status.SOLVED and result.score == result.max_score == PLANTED.seam_count
    assert check(PLANTED, result.solution).ok
    assert ours(psutil.Process()) == []


def test_the_incumbent_crosses_the_fork_and_only_a_whole_checked_board_is_read():
    board = admissible_board(E2_8)
    score = check(E2_8, board).score
    ctx = mp.get_context("fork")
    incumbent = chains.Incumbent.create(ctx, E2_8.size)
    read = incumbent.reader(E2_8)
    assert read() is None  # nothing published yet
    incumbent.write(board, score)
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=lambda: send.send(chains.Incumbent(incumbent.shared).reader(E2_8)()))
    child.start()
    got, score_got = receive.recv()
    child.join()
    assert (got.cells, score_got) == (board.cells, score)
    assert read() == (board, score)
    incumbent.shared[0] += 1  # a writer half way through: the reader keeps the board it had
    incumbent.shared[2] = (incumbent.shared[2] + 1) % len(E2_8.tiles)
    assert read() == (board, score)
    incumbent.shared[0] += 1  # a finished write of a board the checker does not score as claimed: not passed on
    assert read() == (board, score)


def test_each_chain_reads_the_best_board_another_found(monkeypatch, tmp_path):
    """Chain 0 finds a board; chain 1, polling ``task.incumbent`` as a repair stage would, gets exactly it, turned
    as chain 1 turns the board (a quarter turn more)."""
    from edgematch.solvers.native.best import stages

    seen = tmp_path / "seen.json"

    def fake(puzzle, task, options):  # runs in the forked chains
        board = admissible_board(puzzle)
        score = check(puzzle, board).score
        if int(options["seed"]) == 0:
            task.on_improve(board, score)
            until = time.monotonic() + 10  # on until chain 1 has read it (a fixed second used to stand for that)
            while not seen.exists() and time.monotonic() < until:
                time.sleep(0.02)
        else:
            until = time.monotonic() + 10
            while (found := task.incumbent()) is None and time.monotonic() < until:
                time.sleep(0.05)
            assert found is not None and int(options["turn"]) == 1
            assert check(puzzle, found[0]).score == found[1]  # a board of the turned puzzle
            seen.write_text(json.dumps([found[1], chains.flat(turn_board(puzzle, found[0], 3))]))
            board, score = found
        return Result("native", Status.TIMEOUT, [board], score=score)

    monkeypatch.setattr(stages, "run_beam", fake)
    result = edgematch.best(E2_8, backend="native", workers=2, time_limit=15)
    score, values = json.loads(seen.read_text())
    assert (score, values) == (result.score, chains.flat(result.solution))


def test_a_chain_killed_with_kill_9_loses_nothing_and_the_others_go_on():
    boards, keep = streamed(E2_8)
    first = threading.Event()
    killed: list[int] = []

    def improve(board, score):
        keep(board, score)
        first.set()

    def killer():
        first.wait(20)
        for _ in range(100):
            kids = ours(psutil.Process())
            if len(kids) >= 2:
                victim = min(kids, key=lambda p: p.pid)  # chain 0, started first
                os.kill(victim.pid, signal.SIGKILL)
                killed.append(victim.pid)
                return
            time.sleep(0.05)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    result = edgematch.best(E2_8, backend="native", workers=2, time_limit=3, on_improve=improve)
    thread.join()
    assert killed
    assert result.solution is not None and result.score == max(s for _, s in boards)
    assert check(E2_8, result.solution).score == result.score
    assert "died (exit code -9)" in result.message and result.counters["chains_lost"] == 1
    assert "chain1_score" in result.counters  # the other chain went on to the end and reported
    assert ours(psutil.Process()) == []


def test_save_holds_the_last_better_board_and_the_regime_is_stated(tmp_path):
    puzzle_file, saved = tmp_path / "e2.em", tmp_path / "best.emsol"
    edgematch.write_puzzle(E2_8, puzzle_file)
    out = CliRunner().invoke(load_commands(), ["best", str(puzzle_file), "-b", "native", "--workers", "2", "-t", "2",
                                               "--save", str(saved), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    board = edgematch.read_solution(saved, puzzle=E2_8)
    assert check(E2_8, board).score == data["score"] == data["history"][-1][1]
    assert (data["hints_kept"], data["regime"]) == (1, "1 hint")
    assert data["counters"]["chains"] == 2
    shown = CliRunner().invoke(load_commands(), ["best", str(puzzle_file), "-b", "native", "--workers", "2",
                                                 "-t", "0.5"])
    assert "1 hint kept" in shown.stdout and "chains" in shown.stdout


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_save_cut_short_by_ctrl_c_is_written_before_the_command_ends(tmp_path, monkeypatch, workers):
    """Ctrl-C while a better board is being written (here: the second save is interrupted before it writes):
    the file ends up holding the board printed, not the one before it: the interrupted save's board, or with two
    chains a better one that was already on its way (seen once in a fresh clone's run)."""
    from edgematch.cli import best as best_cli

    puzzle_file, saved = tmp_path / "e2.em", tmp_path / "best.emsol"
    edgematch.write_puzzle(E2_8, puzzle_file)
    real, calls = best_cli.fmt.write_solution, []

    def write(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(best_cli.fmt, "write_solution", write)
    out = CliRunner().invoke(load_commands(), ["best", str(puzzle_file), "-b", "native", "--workers", workers, "-t",
                                               "20", "--save", str(saved), "--json"])
    assert out.exit_code == 130, out.output
    data = json.loads(out.stdout)
    assert len(calls) == 3 and len(data["history"]) >= 2
    board = edgematch.read_solution(saved, puzzle=E2_8)
    assert board.cells == calls[-1].cells and check(E2_8, board).score == data["score"]
    assert data["score"] >= check(E2_8, calls[1]).score  # not the board saved before the interrupted one
    assert ours(psutil.Process()) == []


def test_the_regime_is_counted_from_the_board():
    assert [regime(k) for k in (0, 1, 5)] == ["no hints", "1 hint", "5 hints"]
    board = admissible_board(E2_8)
    assert hints_kept(E2_8, board) == len(E2_8.hints) == 1
    (cell, _, _), = E2_8.hints
    other = (cell + 1) % E2_8.size  # swap the hinted tile away: the checker sees the hint broken
    cells = list(board.cells)
    cells[cell], cells[other] = cells[other], cells[cell]
    assert hints_kept(E2_8, Solution(E2_8.width, E2_8.height, tuple(cells))) == 0
    unhinted, _ = generate(GeneratorSpec(4, 4, like="e2", seed=1))
    assert hints_kept(unhinted, admissible_board(unhinted)) == 0


@pytest.mark.parametrize("where, processes", [(["--workers", "2"], 2), (["--cluster", "local:2"], 4)],
                         ids=["workers", "cluster"])
def test_ctrl_c_stops_every_chain_and_keeps_the_best_board(tmp_path, where, processes):
    """Ctrl-C: every chain reports what it has (a chain in a local cluster's worker too, which ignores Ctrl-C
    itself), the best board is printed and saved, exit 130, and nothing the command started outlives it (the
    local cluster's workers included). A cluster's chains that run to the limit: test_a_cluster_returns_..."""
    if "--cluster" in where:
        pytest.importorskip("dask.distributed")
    puzzle_file, saved = tmp_path / "e2.em", tmp_path / "best.emsol"
    edgematch.write_puzzle(E2_8, puzzle_file)
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, "best", str(puzzle_file), "-b", "native", *where,
                             "-t", "60", "--save", str(saved), "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT)
    try:
        until = time.monotonic() + 40
        kids: list = []
        while time.monotonic() < until and (len(kids) < processes or not saved.exists()):
            time.sleep(0.05)
            kids = ours(psutil.Process(proc.pid))  # the chains (and the cluster's workers)
        assert len(kids) >= processes and saved.exists()
        time.sleep(0.5)  # into the search
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        printed, said = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, said
    data = json.loads(printed)
    assert data["message"] == "interrupted" and "Traceback" not in said
    assert {"chain0_score", "chain1_score"} <= data["counters"].keys()  # both chains stopped and reported
    assert check(E2_8, edgematch.read_solution(saved, puzzle=E2_8)).score == data["score"]
    if "--cluster" in where:  # the local cluster's start, outside the limit, is reported apart
        assert data["options"]["cluster"] == "local:2" and data["counters"]["cluster_start_seconds"] > 0
    assert gone([k.pid for k in kids])


# --- on a Dask cluster -------------------------------------------------------------------------------------------

def test_a_cluster_returns_the_best_board_of_its_chains(client):
    boards, keep = streamed(E2_8)
    result = edgematch.best(E2_8, backend="native", cluster=client, time_limit=3, on_improve=keep)
    c = result.counters
    assert c["chains"] == 2 and result.score == max(c["chain0_score"], c["chain1_score"])
    assert check(E2_8, result.solution).score == result.score == boards[-1][1]
    assert result.options["cluster"].startswith("client ") and result.options["seeds"] == "0-1"
    planted = edgematch.best(PLANTED, backend="native", cluster=client, time_limit=20)
    assert planted.status is Status.SOLVED and planted.score == PLANTED.seam_count
    assert ours(psutil.Process()) == []


@pytest.mark.parametrize("command", ["best", "solve"])
def test_a_limit_too_short_for_a_chain_to_report_is_a_plain_timeout(tmp_path, command, scheduler):
    """A limit (counted from when the cluster is ready) shorter than a chain needs to report its board: no chain
    is started, a plain timeout (chains once started, were stopped and died past the limit: exit 4 and Dask
    tracebacks on stderr). On a running scheduler (starting local:2 is the other command line tests')."""
    puzzle_file = tmp_path / "e2.em"
    edgematch.write_puzzle(E2_8, puzzle_file)
    done = subprocess.run([sys.executable, "-c", SCRIPT, command, str(puzzle_file), "--cluster", scheduler, "-t",
                           "0.05", "--json"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout)["status"] == "timeout" and "Traceback" not in done.stderr


def test_cluster_usage_lines():
    runner = CliRunner()
    for args, says in ((["-b", "cpsat", "--cluster", "local:2"], "does not run on a cluster"),
                       (["--workers", "2", "--cluster", "local:2"], "workers and cluster do not go together"),
                       (["--cluster", "host:8786"], "tcp://host:8786")):
        out = runner.invoke(load_commands(), ["best", str(ROOT / "examples" / "hunde.hunde"), "-t", "1", *args])
        assert out.exit_code == 2 and says in out.output and "Traceback" not in out.output, out.output


def test_two_chains_prove_the_oracles_maximum_on_small_boards():
    """Against the naive oracle: the chains' answer is the proven maximum (the model refuses tile sets with no
    admissible board, so every one of these has a maximum)."""
    from tests.oracle import best_score
    from tests.test_best_native import small_boards

    for puzzle in small_boards(24, seed=23):
        truth = best_score(puzzle)
        result = edgematch.best(puzzle, backend="native", workers=2, time_limit=20)
        assert result.status is Status.SOLVED and result.score == truth, (puzzle, result.message)
        assert check(puzzle, result.solution).score == truth
    assert ours(psutil.Process()) == []


def test_a_chain_stopped_while_it_starts_reports_instead_of_dying(monkeypatch):
    """A stop can reach a chain as soon as it takes Ctrl-C, before its search begins (a cluster's chains started
    past the deadline are stopped at once): it raised out of the chain, which died with a traceback, and ``best
    --cluster local:2 -t 1`` ended with exit 4 ("chain 0's process died") one run in two."""
    real = chains.own_group

    def stopped_at_once() -> None:  # runs in the forked chains: the stop arrives right as Ctrl-C is taken
        real()
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(chains, "own_group", stopped_at_once)
    result = edgematch.best(E2_8, backend="native", workers=2, time_limit=5)
    assert "died" not in result.message and result.counters.get("chains_lost", 0) == 0, result.message
    assert result.status is Status.TIMEOUT
    assert ours(psutil.Process()) == []


def test_chains_keep_the_one_process_memory_bound_while_a_quarter_of_the_machine_holds_them():
    """Each chain's beam bound: the one-process bound while all chains' beams fit a quarter of the machine's memory,
    that quarter divided between them on a smaller machine, and never less than the bound divided between them."""
    from edgematch.solvers.native.best.beam import MEMORY_CAP
    from edgematch.solvers.native.best.chains import chain_memory_cap

    gib = 2**30
    assert chain_memory_cap(MEMORY_CAP, 2, 24 * gib) == MEMORY_CAP
    assert chain_memory_cap(MEMORY_CAP, 8, 24 * gib) == 24 * gib // 4 // 8
    assert chain_memory_cap(MEMORY_CAP, 2, 2 * gib) == MEMORY_CAP // 2
    for workers in (2, 3, 8, 100):
        for total in (gib, 4 * gib, 64 * gib):
            assert MEMORY_CAP // workers <= chain_memory_cap(MEMORY_CAP, workers, total) <= MEMORY_CAP
            assert workers * chain_memory_cap(MEMORY_CAP, workers, total) <= max(MEMORY_CAP, total // 4)
