"""edgematch xcheck: the puzzle stream, the judgement, the brute-force reference against the test oracle,
a fixed few hundred puzzles on every backend, rigged backends caught and written out, and the command."""

import os
import signal
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

import edgematch
from edgematch.bench import xcheck as xc
from edgematch.bench.bruteforce import BruteTimeout, brute_count, brute_solutions
from edgematch.bench.xcheck import REFERENCE, Answer, Case, Classes, judge, make_case
from edgematch.cli.main import load_commands
from edgematch.core.checker import check
from edgematch.core.model import Puzzle, Tile
from edgematch.core.symmetry import distinct_key
from edgematch.formats import parse_puzzle, read_puzzle
from edgematch.solvers import base
from edgematch.solvers.base import Backend, get_backend
from tests import terminal
from tests.oracle import all_solutions
from tests.samples import random_small_puzzles
from tests.timing import timed

runner = CliRunner()
app = load_commands()

DATA = Path(__file__).parent / "data" / "xcheck"
# The fixed stream of the default run: the first 31 puzzles of seed 345 (`edgematch xcheck -n 31 --seed 345`) on
# every backend, about 4 s on one core (cpsat and cpsat:table take most of it, 0.08 s a call and seconds on a board
# with thousands of solutions, which they enumerate one by one). It holds every framed x turns x rule class, 14 of
# the 16 sizes, 0, 1 and 2 hints (true, wrong and random), duplicate tiles, planted and random boards: the test
# checks that it does. Seed 1 needed 59 puzzles for that and took 11-13 s, most of it on boards with thousands of
# solutions that add no kind; among seeds 1-400 this was the cheapest to hold every kind. Under --runslow the same
# comparison runs on 300 puzzles of seed 2026 and on 10,000 of seed 1.
CI_COUNT, CI_SEED = 31, 345
LONG_COUNT, LONG_SEED = 300, 2026

# issue 13: cpsat:table counts this planted 4x4 (one solution) as unsat while OR-tools' presolve bug stands
ISSUE_PUZZLE = """edgematch puzzle
size 4 4
rule same
rotations no
frame none
tile 4 3 2 3
tile 5 8 3 6
tile 5 5 8 3
tile 6 3 4 5
tile 4 8 5 3
tile 5 5 4 8
tile 4 5 5 2
tile 6 3 3 3
tile 7 2 1 1
tile 1 3 8 4
tile 5 1 1 5
tile 7 6 5 8
tile 3 8 7 6
tile 2 6 6 3
tile 3 5 4 1
tile 1 3 6 5
"""


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def table_bug_present() -> bool:
    """Whether cpsat:table still has the presolve undercount of issue 13 (its fix is separate work)."""
    return edgematch.count(parse_puzzle(ISSUE_PUZZLE), backend="cpsat:table").count != 1


class HalvingBackend(Backend):
    """Counts with native, then reports half the solutions of any board with more than one: a silent undercount."""

    name = "halving"
    options = ()

    def run(self, puzzle, task):
        result = get_backend("native").run(puzzle, task)
        result.backend = self.name
        if result.count and result.count > 1:
            result.count //= 2
            result.distinct = max(1, (result.distinct or 1) // 2)
        return result


@pytest.fixture
def halving(monkeypatch):
    monkeypatch.setattr(base, "_BUILTIN", {**base._BUILTIN, "halving": "tests.test_xcheck:HalvingBackend"})


# -- the brute-force reference against the test oracle --------------------------------------------------------

def _hand_written() -> list[Puzzle]:
    """Small puzzles written by hand, one per awkward corner of the model."""
    t = Tile
    return [
        read_puzzle("examples/insects.em"),
        read_puzzle("examples/hunde.em"),
        Puzzle(1, 1, (t((1, 2, 3, 4)),)),                                        # 4 raw, 1 distinct
        Puzzle(1, 1, (t((5, 5, 5, 5)),)),                                        # a fully symmetric tile
        Puzzle(1, 1, (t((1, 2, 3, 4)),), rotations=False),
        Puzzle(2, 1, (t((1, 2, 3, 4)), t((5, 6, 7, 2)))),                        # the README's tiny one: 2
        Puzzle(2, 1, (t((1, 2, 3, 4)), t((5, 6, 7, -2))), rule="signed"),
        Puzzle(2, 1, (t((0, 1, 0, 0)), t((0, 0, 0, 1))), frame=0),               # framed strip: ends
        Puzzle(3, 1, (t((0, 1, 0, 0)), t((0, 1, 0, 1)), t((0, 0, 0, 1))), frame=0),  # a two-sided middle
        Puzzle(2, 2, (t((1, 1, 1, 1)),) * 4),                                    # every tile the same
        Puzzle(2, 2, (t((1, 1, 2, 2)),) * 4, rotations=False),
        Puzzle(2, 2, (t((0, 1, 1, 0)), t((0, 0, 1, 1)), t((1, 1, 0, 0)), t((1, 0, 0, 1))), frame=0),
        Puzzle(2, 2, (t((0, 1, 1, 0)), t((0, 0, 1, 1)), t((1, 1, 0, 0)), t((1, 0, 0, 1))), frame=0,
               hints=((0, 0, 0),)),                                              # a hint pins the board turn
        Puzzle(2, 2, (t((0, 1, 1, 0)), t((0, 0, 1, 1)), t((1, 1, 0, 0)), t((1, 0, 0, 1))), frame=0,
               hints=((0, 1, 3),)),                                              # a hint no solution keeps
        Puzzle(3, 1, (t((1, 2, 1, 2)),) * 3, rule="same"),                       # a strip of period-2 tiles
        Puzzle(2, 1, (t((1, 1, 1, 1)), t((2, 2, 2, 2)))),                        # no solution
    ]


@pytest.mark.parametrize("puzzle", _hand_written(), ids=lambda p: f"{p.width}x{p.height}-{p.name or p.rule}")
def test_brute_force_equals_the_oracle_on_hand_written_puzzles(puzzle):
    ours = brute_solutions(puzzle)
    theirs = list(all_solutions(puzzle))
    assert sorted(s.cells for s in ours) == sorted(s.cells for s in theirs)
    assert all(check(puzzle, s).ok for s in ours)
    counted = brute_count(puzzle)
    assert counted.distinct == len({distinct_key(puzzle, s) for s in theirs})


def test_brute_force_reproduces_the_seed_facts():
    insects = brute_count(read_puzzle("examples/insects.em"))
    assert (insects.raw, insects.distinct) == (4, 1)
    hunde = brute_count(read_puzzle("examples/hunde.em"))
    assert (hunde.raw, hunde.distinct) == (16, 2)
    single = brute_count(Puzzle(1, 1, (Tile((1, 2, 3, 4)),)))
    assert (single.raw, single.distinct) == (4, 1)


def test_brute_force_equals_the_oracle_on_seeded_puzzles():
    for puzzle in random_small_puzzles(60, seed=13):
        assert sorted(s.cells for s in brute_solutions(puzzle)) == sorted(s.cells for s in all_solutions(puzzle))
    for case in xc.generate_cases(5, 120):
        if case.puzzle.size <= 6:
            ours = sorted(s.cells for s in brute_solutions(case.puzzle))
            assert ours == sorted(s.cells for s in all_solutions(case.puzzle)), case.label


def test_brute_force_stops_at_its_deadline():
    puzzle, _ = edgematch.generate(edgematch.GeneratorSpec(3, 3, colours=1, seed=1))  # every arrangement fits
    with pytest.raises(BruteTimeout):
        brute_count(puzzle, time.monotonic() + 0.05)


# -- the stream ------------------------------------------------------------------------------------------

def test_the_stream_is_reproducible_and_covers_every_feature():
    cases = list(xc.generate_cases(7, 600))  # 600 hold each share below as 1,500 did (3x3 framed turning: 1 in 8)
    assert cases[:50] == list(xc.generate_cases(7, 50))
    assert make_case(7, 567) == cases[567]
    assert [c.puzzle for c in xc.generate_cases(8, 20)] != [c.puzzle for c in cases[:20]]
    puzzles = [c.puzzle for c in cases]
    assert {(p.width, p.height) for p in puzzles} == {(w, h) for w in range(1, 5) for h in range(1, 5)}
    assert {p.rule for p in puzzles} == {"same", "signed"}
    assert {p.frame is not None for p in puzzles} == {True, False}
    assert {p.rotations for p in puzzles} == {True, False}
    assert {len(p.hints) for p in puzzles} == {0, 1, 2}
    assert {c.kind for c in cases} == {"planted", "random"}
    hints = Counter(word for c in cases for word in ("true", "wrong", "random") if word in c.hints)
    assert min(hints.values()) > 20, hints
    assert sum(bool(p.duplicate_groups()) for p in puzzles) > 100
    assert sum(1 for p in puzzles if p.frame is not None and p.rotations and (p.width, p.height) == (3, 3)) > 60
    for case in cases:
        if case.planted is not None:
            assert case.kind == "planted" and check(case.puzzle, case.planted).ok
        if "wrong" in case.hints:
            assert case.planted is None


def test_the_stream_keeps_to_the_classes_asked_for():
    classes = Classes(sizes=((3, 3),), framed=True, rotations=True)
    cases = list(xc.generate_cases(1, 100, classes))
    assert {c.key.rsplit(" ", 1)[0] for c in cases} == {"3x3 framed rot"}
    only = list(xc.generate_cases(1, 40, Classes(sizes=((2, 3), (1, 4)), framed=False, rule="signed", kind="random")))
    assert {(c.puzzle.width, c.puzzle.height) for c in only} == {(2, 3), (1, 4)}
    assert all(c.puzzle.frame is None and c.puzzle.rule == "signed" and c.kind == "random" for c in only)
    with pytest.raises(edgematch.UsageError):
        Classes(sizes=((0, 3),))


# -- the judgement ---------------------------------------------------------------------------------------

def _case(planted: bool = False) -> Case:
    puzzle, solution = edgematch.generate(edgematch.GeneratorSpec(2, 2, seed=1))
    return Case(0, puzzle, "planted", solution if planted else None, seed=1)


def _a(backend: str, status: str, count=None, distinct=None, message="") -> Answer:
    return Answer(backend, status, count, distinct, 0.01, message)


def test_judge_trusts_the_reference_then_the_majority():
    agreed = {n: _a(n, "solved", 8, 2) for n in ("brute", "native", "cpsat", "sat")}
    assert judge(_case(), agreed) == {}
    low = {**agreed, "cpsat": _a("cpsat", "solved", 4, 1)}
    assert set(judge(_case(), low)) == {"cpsat"} and "brute says 8 raw / 2 distinct" in judge(_case(), low)["cpsat"]
    # the reference outvotes any majority
    outvoted = {"brute": _a("brute", "solved", 8, 2), "native": _a("native", "solved", 4, 1),
                "cpsat": _a("cpsat", "solved", 4, 1)}
    assert set(judge(_case(), outvoted)) == {"native", "cpsat"}
    no_reference = {n: a for n, a in low.items() if n != "brute"}
    assert set(judge(_case(), no_reference)) == {"cpsat"} and "the majority" in judge(_case(), no_reference)["cpsat"]
    tie = {"native": _a("native", "solved", 8, 2), "cpsat": _a("cpsat", "solved", 8, 1)}
    assert set(judge(_case(), tie)) == {"native", "cpsat"}
    distinct_only = {**agreed, "sat": _a("sat", "solved", 8, 3)}
    assert set(judge(_case(), distinct_only)) == {"sat"}


def test_judge_catches_verdicts_planted_zeros_bounds_and_errors():
    unsat = {"native": _a("native", "solved", 2, 1), "cpsat:table": _a("cpsat:table", "unsat", 0, 0)}
    assert set(judge(_case(), unsat)) == {"native", "cpsat:table"}  # no reference, no majority: both suspect
    planted = {"native": _a("native", "unsat", 0, 0), "cpsat": _a("cpsat", "unsat", 0, 0)}
    assert judge(_case(), planted) == {}
    assert set(judge(_case(planted=True), planted)) == {"native", "cpsat"}
    bound = {"native": _a("native", "timeout", 50, None), "cpsat": _a("cpsat", "solved", 20, 5)}
    assert set(judge(_case(), bound)) == {"cpsat"}
    assert judge(_case(), {"native": _a("native", "timeout"), "sat": _a("sat", "solved", 3, 1)}) == {}
    odd = {"native": _a("native", "solved", 0, 0), "sat": _a("sat", "unsat", 3, 1),
           "cpsat": _a("cpsat", "solved", 2, 3), "x": _a("x", "solved", None, None)}
    assert set(judge(_case(), odd)) == {"native", "sat", "cpsat", "x"}
    rejected = {"wrong": _a("wrong", "error", message="backend wrong returned an invalid solution: seam ...")}
    assert judge(_case(), rejected)["wrong"].startswith("rejected by the checker")
    crashed = {"crash": _a("crash", "error", message="crash: the process running it died")}
    assert judge(_case(), crashed)["crash"].startswith("error: ")


def test_a_reproducer_holds_multi_line_messages_in_its_comments(tmp_path):
    case = make_case(1, 4, Classes(sizes=((3, 3),), framed=True))
    answers = {"native": _a("native", "solved", 2, 1), "odd": _a("odd", "error", message="boom\nTraceback\r\n  x")}
    path = xc.write_reproducer(xc.Outcome(case, answers, judge(case, answers)), tmp_path)
    assert path.name == "xcheck-s1-00004-3x3-framed.em"
    assert read_puzzle(path) == case.puzzle
    text = path.read_text()
    assert all(line.startswith("#") for line in text.split("edgematch puzzle")[0].splitlines())
    assert "# the stream: edgematch xcheck --seed 1 --count 5 --sizes 3x3 --framed yes" in text


# -- the fixed CI stream on every backend ----------------------------------------------------------------

def test_a_fixed_stream_agrees_on_every_backend(tmp_path):
    """CI_COUNT seeded puzzles, every default backend and the brute force. While the cpsat:table presolve
    bug of issue 13 stands, the tool must catch it (on cpsat:table alone); once fixed, nothing may fail."""
    cases = list(xc.generate_cases(CI_SEED, CI_COUNT))
    classes = {(c.puzzle.frame is not None, c.puzzle.rotations, c.puzzle.rule) for c in cases}
    assert len(classes) == 8 and {len(c.puzzle.hints) for c in cases} == {0, 1, 2}
    assert {c.kind for c in cases} == {"planted", "random"}
    assert all(any(word in c.hints for c in cases) for word in ("true", "wrong", "random"))
    assert len({(c.puzzle.width, c.puzzle.height) for c in cases}) == 14
    assert sum(bool(c.puzzle.duplicate_groups()) for c in cases) > 10
    _agrees_on_every_backend(CI_COUNT, CI_SEED, tmp_path)


@pytest.mark.slow  # about 2.5 min on one core
def test_a_longer_fixed_stream_agrees_on_every_backend(tmp_path):
    _agrees_on_every_backend(LONG_COUNT, LONG_SEED, tmp_path)


def _agrees_on_every_backend(count: int, seed: int, out: Path) -> None:
    started = time.monotonic()
    report = xc.xcheck(count, seed, jobs=2, out=out)
    took = time.monotonic() - started
    assert report.checked == count and not report.stopped
    assert set(report.per_backend) == {REFERENCE, *xc.DEFAULT_BACKENDS}
    summary = "\n".join(f"{o.case.label} {o.case.key}: {o.problems}" for o in report.failures)
    wrong_backends = {name for o in report.failures for name in o.problems}
    if wrong_backends == {"cpsat:table"} and table_bug_present():
        assert len(list(out.iterdir())) == len(report.failures)
        pytest.xfail(f"the tool caught the known cpsat:table bug (issue 13) on {len(report.failures)} of "
                     f"{count} puzzles, and nothing else ({took:.0f} s)")
    assert report.ok, summary
    assert not list(out.iterdir())
    for name, figures in report.per_backend.items():
        assert figures.agreed + figures.timeouts == figures.puzzles, name


def test_the_puzzles_it_caught_cpsat_table_on_now_agree_everywhere():
    """Reproducers the tool wrote before the cpsat:table fix (undercounts and false unsat on 3x3 and 4x4
    framed boards with rotations; a crash, "Inverse constraint does not accept empty arrays", on boards whose
    every cell is hinted) replayed on every backend: the planted solutions come back from the files."""
    cases = xc.cases_from_files([DATA])
    assert len(cases) == 7 and sum(c.planted is not None for c in cases) == 5
    report = xc.run_xcheck(cases, len(cases), jobs=2, out=None)
    if table_bug_present():
        assert {name for o in report.failures for name in o.problems} == {"cpsat:table"}
        pytest.xfail("the cpsat:table presolve bug of issue 13 is still there, and caught")
    assert report.ok, [(o.case.source, o.problems) for o in report.failures]


def test_the_known_cpsat_table_bug_is_caught_in_the_worst_class(tmp_path):
    """The class the bug lives in (3x3 framed, rotations on): the tool finds it within 40 puzzles (#4, #8,
    #20, #30 and #34 of seed 1), names cpsat:table alone, and its reproducer still shows it."""
    if not table_bug_present():
        pytest.skip("the cpsat:table fix has landed (its reproducers are replayed above)")
    classes = Classes(sizes=((3, 3),), framed=True, rotations=True)
    report = xc.xcheck(40, 1, ("native", "cpsat", "cpsat:table"), classes, jobs=2, out=tmp_path)
    assert report.failures
    assert {name for o in report.failures for name in o.problems} == {"cpsat:table"}
    assert report.per_class[report.failures[0].case.key].wrong["cpsat:table"] >= 1
    replay = xc.run_xcheck(xc.cases_from_files([report.failures[0].path]), 1, ("native", "cpsat:table"), out=None)
    assert [set(o.problems) for o in replay.failures] == [{"cpsat:table"}]


# -- rigged backends are caught and written out ----------------------------------------------------------

def test_an_undercounting_backend_is_caught_and_its_reproducer_reads_back(halving, tmp_path):
    report = xc.xcheck(40, 3, ("native", "native:restarts", "halving"), jobs=2, out=tmp_path)
    assert report.failures and report.checked == 40
    assert {name for o in report.failures for name in o.problems} == {"halving"}
    assert report.per_backend["halving"].wrong == len(report.failures)
    assert report.per_backend["native"].wrong == 0
    for outcome in report.failures:
        path = outcome.path
        assert path is not None and path.parent == tmp_path
        assert read_puzzle(path) == outcome.case.puzzle
        text = path.read_text()
        assert f"seed 3, puzzle #{outcome.case.index}" in text and outcome.case.key in text
        assert f"edgematch xcheck {path} -b halving,native" in text
        assert f"edgematch count {path} --distinct -b halving" in text
        assert "halving" in text and "<- " in text
    # the reproducers replay as the same puzzles, planted solutions restored, failing the same way
    replay = xc.run_xcheck(xc.cases_from_files([tmp_path]), len(report.failures),
                           ("native", "native:restarts", "halving"), out=None)
    assert {o.case.puzzle for o in replay.failures} == {o.case.puzzle for o in report.failures}
    by_puzzle = {o.case.puzzle: o.case.planted for o in report.failures}
    assert all(o.case.planted == by_puzzle[o.case.puzzle] for o in replay.failures)


def test_wrong_unsat_crashing_and_hanging_backends_are_failures(rigged, monkeypatch, tmp_path):
    planted = Classes(sizes=((2, 2),), kind="planted")
    report = xc.xcheck(6, 4, ("native", "unsat", "wrong"), planted, jobs=2, out=tmp_path / "a")
    assert len(report.failures) == 6
    assert report.per_backend["wrong"].wrong == 6 and report.per_backend["native"].agreed == 6
    # its unturned boards fail the checker, unless one happens to be a solution: then it gave no count
    assert sum(o.problems["wrong"].startswith("rejected by the checker") for o in report.failures) >= 4
    for outcome in report.failures:
        if outcome.case.planted is not None:
            assert "planted" in outcome.problems["unsat"]
    monkeypatch.setattr(xc, "GRACE", 0.3)
    started = time.monotonic()
    report = xc.xcheck(3, 4, ("native", "crash", "hang"), planted, per_call=0.3, jobs=2, out=tmp_path / "b")
    assert report.checked == 3 and len(report.failures) == 3
    assert time.monotonic() - started < 30
    for outcome in report.failures:
        assert set(outcome.problems) == {"crash"} and "died" in outcome.problems["crash"]
        assert outcome.answers["hang"].killed and outcome.answers["native"].complete
    # a call that does not stop is killed and counted as a timeout apart, not as a wrong answer
    assert report.per_backend["hang"].timeouts == report.per_backend["hang"].killed == 3
    assert report.per_backend["crash"].errors == 3 and report.per_backend["native"].agreed == 3
    assert len(report.timed_out) == 3


def test_the_run_stops_at_its_time_limit():
    """A 1 s limit stops the run as a 3 s one did; the 2 s of overshoot allowed are stretched by the contention."""
    with timed() as took:
        report = xc.xcheck(100_000, 1, ("native",), time_limit=1.0, jobs=1, out=None)
    assert report.stopped == "time limit" and 0 < report.checked < 100_000
    assert report.wall < 1.0 + 2.0 * took.busy and took.within(1.0, 2.0), str(took)


# -- the command -----------------------------------------------------------------------------------------

def test_cli_exit_0_when_everything_agrees(tmp_path):
    result = cli("xcheck", "-n", "12", "-b", "native,cpsat", "-j", "1", "-o", tmp_path / "f")
    assert result.exit_code == 0, result.output
    assert "checked 12 puzzles" in result.stdout and "every answer agreed" in result.stdout
    assert "(1 job, seed 1)" in result.stdout and "1 jobs" not in result.stdout  # issue 39 item 11
    assert "per backend" in result.stdout and "per class" in result.stdout and "brute" in result.stdout
    assert not (tmp_path / "f").exists()


def test_cli_exit_1_and_reproducers_on_a_wrong_backend(halving, tmp_path):
    out = tmp_path / "f"
    result = cli("xcheck", "-n", "25", "--seed", "5", "-b", "native,native:restarts,halving", "-o", out)
    assert result.exit_code == 1, result.output
    assert "failing puzzles" in result.stdout and str(out) in result.stdout
    files = sorted(out.iterdir())
    assert files and all(f.name.startswith("xcheck-s5-") for f in files)
    again = cli("xcheck", files[0], "-b", "native,halving")
    assert again.exit_code == 1 and "checked 1 puzzle" in again.stdout
    assert sorted(out.iterdir()) == files  # replaying files writes nothing unless --out is given


@pytest.mark.parametrize("args, message", [
    (["--count", "0"], "--count must be at least 1"),
    (["-b", "nosuch"], "unknown backend 'nosuch'"),
    (["-b", "sat:nosuch"], "unknown SAT solver"),
    (["-b", ","], "--backends"),
    (["--sizes", "0x3"], "size must look like"),
    (["--sizes", "9x9"], "outside 1x1..8x8"),
    (["--framed", "maybe"], "--framed: expected yes, no or any"),
    (["--rule", "odd"], "rule: expected same or signed"),
    (["--kind", "odd"], "kind: expected planted or random"),
    (["--per-call", "0"], "per-call time limit must be a positive number of seconds"),
    (["--per-call", "inf"], "per-call time limit must be at most"),
    (["--time-limit", "-1"], "time limit must be a positive number of seconds"),
    (["--time-limit", "nan"], "time limit must be a positive number of seconds"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--jobs", "100000"], "jobs must be a whole number from 1 to"),
    (["examples/insects.em", "--seed", "3"], "--seed choose generated puzzles"),
    (["no-such-file.em"], "no such file"),
])
def test_cli_exit_2_on_bad_options(args, message):
    result = cli("xcheck", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.stderr


def test_cli_exit_2_on_a_folder_without_puzzles(tmp_path):
    result = cli("xcheck", tmp_path)
    assert result.exit_code == 2 and f"no puzzle files in {tmp_path}" in result.stderr


def test_cli_skips_files_in_a_folder_that_are_not_puzzles_and_checks_the_others(tmp_path):
    """Issue 22 item 26: a stray file in a folder stopped the whole check at it. Now each is named on
    stderr, the puzzles are checked, the summary counts the skipped files, and the exit code is 2."""
    folder = tmp_path / "puzzles"
    folder.mkdir()
    examples = Path(__file__).parent.parent / "examples"
    for name in ("insects.em", "hunde.em"):
        (folder / name).write_bytes((examples / name).read_bytes())
    (folder / "a-notes.txt").write_text("notes about these puzzles\n")
    (folder / "b.emsol").write_text("edgematch solution\nsize 1 1\n0:0\n")
    (folder / ".hidden").write_text("an editor's swap file\n")
    skipped: list[str] = []
    cases = xc.cases_from_files([folder], skipped)
    assert [Path(c.source).name for c in cases] == ["hunde.em", "insects.em"] and [c.index for c in cases] == [0, 1]
    assert [line.split(":")[0] for line in skipped] == [str(folder / "a-notes.txt"), str(folder / "b.emsol")]
    with pytest.raises(edgematch.FormatError, match="a-notes.txt"):
        xc.cases_from_files([folder])  # without a list to note them in: raised, as before
    result = cli("xcheck", folder, "-b", "native", "-j", "1")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"edgematch: skipped {folder / 'a-notes.txt'}:")
    assert lines[1].startswith(f"edgematch: skipped {folder / 'b.emsol'}:")
    assert "checked 2 puzzles" in result.stdout and "every answer agreed" in result.stdout
    assert "2 files skipped: not puzzles" in result.stdout and ".hidden" not in result.output
    named = cli("xcheck", folder / "a-notes.txt", folder / "insects.em", "-b", "native")
    assert named.exit_code == 2 and "a-notes.txt" in named.stderr and "checked" not in named.stdout


def test_a_reproducer_is_never_written_through_a_planted_link(tmp_path):
    case = make_case(3, 0)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / xc.reproducer_name(case)).symlink_to(victim)
    outcome = xc.Outcome(case, {"native": Answer("native", "solved", 1, 1)}, {"native": "rigged"})
    with pytest.raises(edgematch.FormatError, match="it is a symbolic link"):
        xc.write_reproducer(outcome, out)
    assert victim.read_text() == "precious\n"


def test_cli_ctrl_c_prints_the_figures_so_far_and_exits_130(tmp_path):
    proc = terminal.start("xcheck", "-n", "100000", "-b", "native,cpsat", "-o", tmp_path)
    try:
        terminal.searching(proc, cpu=1.0)  # its workers have checked puzzles (a cpsat call takes 0.08 s)
        terminal.ctrl_c(proc)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "(interrupted)" in out and "per backend" in out and "Traceback" not in err


# -- the long run ----------------------------------------------------------------------------------------

@pytest.mark.slow  # 21 min on 2 idle cores, 35 min loaded
def test_ten_thousand_puzzles_on_every_backend(tmp_path):
    report = xc.xcheck(10_000, 1, jobs=2, out=tmp_path)
    assert report.checked == 10_000
    summary = "\n".join(f"{o.case.label} {o.case.key}: {o.problems}" for o in report.failures[:30])
    wrong_backends = {name for o in report.failures for name in o.problems}
    if wrong_backends == {"cpsat:table"} and table_bug_present():
        pytest.xfail(f"only the known cpsat:table bug: {len(report.failures)} puzzles")
    assert report.ok, summary


def test_cli_prints_paths_and_messages_that_look_like_markup_as_they_are(halving, rigged, monkeypatch, tmp_path):
    """A puzzle file and an --out folder under a folder named ``[/x]`` (rich markup's closing tag) are printed
    as they are, in the failure, timeout and summary lines, instead of crashing after the work is done."""
    monkeypatch.setattr(xc, "GRACE", 0.3)
    folder = tmp_path / "[" / "x]"
    folder.mkdir(parents=True)
    puzzle = folder / "p[b].em"
    puzzle.write_bytes((Path(__file__).parent.parent / "examples" / "hunde.em").read_bytes())
    out = folder / "out"
    result = cli("xcheck", puzzle, "-b", "native,halving,hang", "--per-call", "0.3", "-o", out)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "MarkupError" not in result.output
    failures = [line for line in result.stdout.splitlines() if line.startswith("✗ ")]
    assert len(failures) == 1 and failures[0].startswith(f"✗ {puzzle} (") and f"-> {out}" in failures[0]
    assert any(line.startswith(f"⏱ {puzzle} (") for line in result.stdout.splitlines()), result.stdout
    assert f"1 failing puzzle, reproducers in {out}" in result.stdout
    assert f"✗ {puzzle} (" in result.stderr  # printed as it came, too
    assert len(list(out.iterdir())) == 1
