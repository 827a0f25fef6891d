"""Confirmed answers: a backend of another family re-derives "no solution" and counts; disagreements are loud."""

import pytest

import edgematch
from edgematch.core.model import Puzzle, Tile
from edgematch.solvers.confirm import Disagreement, confirmer, family
from edgematch.solvers.policy import load_policy

pytest.importorskip("ortools")
pytest.importorskip("pysat")

HUNDE = "examples/hunde.hunde"
# two tiles that cannot touch by any turn: no solution
NO_SOLUTION = Puzzle(2, 1, (Tile((1, 1, 1, 1)), Tile((2, 2, 2, 2))), rule="same")


@pytest.mark.parametrize(("answered_by", "other"), [
    # the shipped policy measured SAT as the fastest counter after native (the families suite's *-count
    # families); an answer of SAT's own family falls back to the next family (native)
    ("native", "sat"), ("auto(portfolio(native:restarts))", "sat"), ("cpsat:table", "sat"),
    ("sat:glucose4", "native"),
])
def test_the_second_opinion_comes_from_another_family(answered_by, other):
    puzzle = edgematch.read_puzzle(HUNDE)
    assert load_policy().confirm_backend(puzzle, "count") == "sat"
    assert confirmer(puzzle, "count", answered_by) == other
    assert family(other) != family(answered_by)


def test_without_a_measured_second_opinion_the_fallback_table_answers(monkeypatch):
    from edgematch.solvers import confirm

    monkeypatch.setattr(confirm, "load_policy", lambda: type("P", (), {"confirm_backend": lambda *a: None})())
    puzzle = edgematch.read_puzzle(HUNDE)
    assert [confirmer(puzzle, "count", b) for b in ("native", "cpsat:table", "sat:glucose4")] == \
        ["cpsat", "native", "native"]


@pytest.mark.parametrize("backend", ["native", "native:restarts", "cpsat", "cpsat:table", "sat", "auto"])
def test_counts_are_confirmed_by_another_family(backend):
    result = edgematch.count(HUNDE, distinct=True, backend=backend, confirm=True)
    assert (result.count, result.distinct) == (16, 2)
    confirmation = result.confirmation
    assert confirmation.agreed is True and family(confirmation.by) != family(result.backend)
    assert (confirmation.result.count, confirmation.result.distinct) == (16, 2)


def test_no_solution_is_confirmed_and_a_solution_needs_only_the_checker():
    unsat = edgematch.solve(NO_SOLUTION, backend="sat", confirm=True)
    assert unsat.status.value == "unsat" and unsat.confirmation.agreed is True
    assert unsat.confirmation.result.status.value == "unsat"
    solved = edgematch.solve(HUNDE, backend="cpsat", confirm=True)
    assert solved.confirmation.by == "checker" and solved.confirmation.result is None


def test_all_solutions_are_compared_as_sets():
    result = edgematch.solve_all(HUNDE, backend="cpsat:table", confirm=True)
    assert len(result.solutions) == 16 and result.confirmation.agreed is True


def test_an_undercount_is_a_disagreement_naming_both(rigged):
    other = confirmer(edgematch.read_puzzle(HUNDE), "count", "short")  # the policy's measured second opinion
    said = rf"short says 15 raw / 2 distinct, {other}\S* says 16 raw / 2 distinct"
    with pytest.raises(Disagreement, match=said) as caught:
        edgematch.count(HUNDE, distinct=True, backend="short", confirm=True)
    assert caught.value.first.count == 15 and caught.value.second.count == 16
    assert edgematch.count(HUNDE, backend="short").count == 15  # unconfirmed, the word of one backend


def test_a_false_no_solution_is_a_disagreement(rigged):
    second = confirmer(edgematch.read_puzzle(HUNDE), "first", "unsat")  # the policy's measured second opinion
    assert second != "unsat"
    with pytest.raises(Disagreement, match=f"no solution, but {second} found one"):
        edgematch.solve(HUNDE, backend="unsat", confirm=True)


def test_a_timeout_leaves_nothing_to_confirm():
    puzzle, _ = edgematch.generate(edgematch.GeneratorSpec(12, 12, framed=True, border_colours=4,
                                                           inner_colours=10, seed=3))
    result = edgematch.count(puzzle, backend="native", time_limit=0.5, confirm=True)
    assert result.status.value == "timeout"
    assert result.confirmation.agreed is None and "nothing to confirm" in result.confirmation.detail


def test_confirm_must_be_a_bool():
    with pytest.raises(edgematch.UsageError, match="confirm must be True or False"):
        edgematch.count(HUNDE, confirm="yes")


def test_the_harness_marks_answers_two_families_gave_alike():
    from edgematch.bench.agreement import confirmations
    from edgematch.bench.runner import RunRecord

    def run(instance, backend, status, count=None, task="count"):
        return RunRecord(instance, backend, task, status, "done", "correct", 0.1, count=count, distinct=None)

    runs = [
        run("a", "native", "solved", 16), run("a", "native:restarts", "solved", 16),  # one family twice
        run("b", "native", "solved", 16), run("b", "sat:glucose4", "solved", 16),     # two families
        run("c", "cpsat", "unsat", task="first"), run("c", "cpsat:table", "unsat", task="first"),
        run("d", "cpsat", "unsat", task="first"), run("d", "sat:cadical195", "unsat", task="first"),
        run("e", "native", "solved", 4), run("e", "auto", "solved", 4),                # a chooser is no family
    ]
    assert confirmations(runs) == {("b", "count"): ["native", "sat"], ("d", "first"): ["cpsat", "sat"]}


def test_the_command_says_who_confirmed_and_exits_5_on_a_disagreement(rigged):
    from typer.testing import CliRunner

    from edgematch.cli.main import load_commands

    runner, app = CliRunner(), load_commands()
    puzzle = edgematch.read_puzzle(HUNDE)
    agreed = runner.invoke(app, ["count", HUNDE, "--distinct", "-b", "cpsat", "--confirm"])
    by = confirmer(puzzle, "count", "cpsat")
    assert agreed.exit_code == 0 and f"yes: {by}" in agreed.output and "gives the same: 16 raw / 2 distinct" in \
        agreed.output
    differ = runner.invoke(app, ["count", HUNDE, "-b", "short", "--confirm"])
    assert differ.exit_code == 5
    assert "15 raw" in differ.output and "DISAGREEMENT: short says 15 raw, " in differ.output
    assert "says 16 raw" in differ.output
