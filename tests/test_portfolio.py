"""The portfolio: the first verified answer wins, counts come from one member, and no member outlives it."""

import time
from pathlib import Path

import pytest

import edgematch
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.errors import UsageError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def gone(pid):
    """True when the process no longer runs (absent, or a zombie waiting for its parent)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_gone(pid, seconds=2.0):
    deadline = time.monotonic() + seconds
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return gone(pid)


def test_the_winner_is_named_and_counts_come_from_one_member():
    hunde = edgematch.read_puzzle(EXAMPLES / "hunde.hunde")
    result = edgematch.count(hunde, distinct=True, backend="portfolio:native+sat")
    assert (result.status, result.count, result.distinct) == ("solved", 16, 2)
    winner = result.counters["winner"]
    assert winner in ("native", "sat:glucose4") and result.backend == f"portfolio({winner})"
    alone = edgematch.count(hunde, distinct=True, backend=winner)
    assert (alone.count, alone.distinct) == (result.count, result.distinct)


def test_a_wrong_member_never_wins(rigged):
    puzzle, _ = generate(GeneratorSpec(4, 4, framed=True, border_colours=2, inner_colours=3, seed=1))
    result = edgematch.solve(puzzle, backend="portfolio:wrong+native", time_limit=20)
    assert result.status == "solved" and result.counters["winner"] == "native"
    assert edgematch.check(puzzle, result.solution).ok


def test_losers_are_killed_with_what_they_started(rigged, tmp_path, monkeypatch):
    monkeypatch.setenv("RIGGED_PID_FILE", str(tmp_path / "spawn"))
    monkeypatch.setenv("RIGGED_HANG_PID_FILE", str(tmp_path / "hang"))
    hunde = edgematch.read_puzzle(EXAMPLES / "hunde.hunde")
    result = edgematch.solve(hunde, backend="portfolio:hang+native")  # no time limit: the winner ends it
    assert result.counters["winner"] == "native"
    assert wait_gone(int((tmp_path / "hang").read_text())), "the losing member still runs"

    start = time.perf_counter()
    result = edgematch.solve(hunde, backend="portfolio:spawn+hang", time_limit=1.0)
    assert result.status == "timeout" and time.perf_counter() - start < 4
    for name in ("spawn", "hang"):  # the members, and the helper process the spawning member started
        assert wait_gone(int((tmp_path / name).read_text())), f"{name} still runs"


@pytest.mark.parametrize("spec", ["portfolio:native", "portfolio:native+auto", "portfolio:native+portfolio"])
def test_a_portfolio_needs_two_real_members(spec):
    hunde = edgematch.read_puzzle(EXAMPLES / "hunde.hunde")
    with pytest.raises(UsageError, match="two or more backends"):
        edgematch.solve(hunde, backend=spec)


def test_best_takes_the_highest_member_board_and_streams_every_member():
    """best on a portfolio: boards streamed from both members reach on_improve in rising order, the answer is
    the best of them, and on small boards a member's proof of optimality wins with the oracle's maximum."""
    from tests.oracle import best_score
    from tests.test_best_native import small_boards

    puzzle, _ = generate(GeneratorSpec(8, 8, like="e2", seed=3))
    seen: list[int] = []
    result = edgematch.best(puzzle, backend="portfolio:native+cpsat", time_limit=3,
                            on_improve=lambda board, score: seen.append(score))
    assert seen == sorted(set(seen)) and result.score == max(seen)
    assert edgematch.check(puzzle, result.solution).score == result.score
    for small in small_boards(6, seed=4):
        truth = best_score(small)
        proved = edgematch.best(small, backend="portfolio:native+cpsat", time_limit=20)
        assert proved.status == "solved" and proved.score == truth
