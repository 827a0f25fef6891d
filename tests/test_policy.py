"""The auto policy: derived from stored runs, matched on puzzle features, explained, and shipped loadable."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

import edgematch
from edgematch.bench.policy import derive
from edgematch.bench.runner import RunRecord
from edgematch.bench.store import Session
from edgematch.bench.suite import parse_suite
from edgematch.cli.main import load_commands
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.solvers.base import get_backend
from edgematch.solvers.policy import Policy, load_policy

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SUITE = parse_suite('backends = ["a", "b"]\ntimeout = 10\nseeds = [1, 2]\n'
                    '[[family]]\nname = "framed"\nsizes = [4, 5, 6]\nframed = true\n'
                    '[[family]]\nname = "plain"\nsizes = [4]\n')
runner = CliRunner()
app = load_commands()


def session(suite=SUITE):
    return Session(1, "2026-01-01", None, "finished", 1.0, suite, "test", 1, {"cpu": "x", "cores": 2}, 0)


def record(instance, backend, seconds):
    """A run of ``backend`` on ``instance`` that took ``seconds`` (None: timed out)."""
    solved = seconds is not None
    return RunRecord(instance.key, backend, "first", "solved" if solved else "timeout", "done",
                     "correct" if solved else "timeout", 0.0, seconds or 10.0, family=instance.family,
                     size=instance.size, tiles=instance.tiles)


def test_rules_follow_the_fastest_backend_and_merge_neighbouring_sizes():
    times = {"4x4": ({"a": 0.01, "b": 0.5}), "5x5": {"a": 0.02, "b": 0.6}, "6x6": {"a": 3.0, "b": 0.7}}
    runs = [record(i, b, times[i.size][b] if i.family == "framed" else {"a": 1.0, "b": 0.1}[b])
            for i in SUITE.instances for b in ("a", "b")]
    rules = derive([(session(), runs)])
    pooled = [r for r in rules if "rotations" not in r]
    shape = [(r["framed"], r["up_to_tiles"], r["backend"]) for r in pooled]
    assert shape == [(False, 16, "b"), (True, 25, "a"), (True, 36, "b")]
    assert "4x4" in pooled[1]["evidence"] and "5x5" in pooled[1]["evidence"]  # merged, both sizes shown
    # one family per kind here, so the fine rules (rotations, rim_tight) say the same
    fine = [(r["framed"], r["up_to_tiles"], r["backend"]) for r in rules if "rotations" in r]
    assert fine == shape


def test_a_portfolio_is_chosen_where_the_best_backend_leaves_instances_unsolved():
    def seconds(instance, backend):
        if instance.size == "6x6":  # each times out on the instance the other solves
            return {("a", 1): None, ("a", 2): 0.1, ("b", 1): 0.2, ("b", 2): None}[backend, instance.seed]
        return {"a": 0.1, "b": 5.0}[backend]

    runs = [record(i, b, seconds(i, b)) for i in SUITE.instances for b in ("a", "b")]
    rules = {(r["framed"], r["up_to_tiles"]): r["backend"] for r in derive([(session(), runs)])
             if "rotations" not in r}
    assert rules[True, 36] == "portfolio:a+b" and rules[True, 25] == "a"


def test_meta_backends_in_a_session_are_not_learnt_from():
    runs = [record(i, b, 0.001 if b.startswith("auto") else 1.0) for i in SUITE.instances
            for b in ("a", "auto", "portfolio")]
    assert {r["backend"] for r in derive([(session(), runs)])} == {"a"}


TWO_KINDS = parse_suite('backends = ["a", "b"]\ntimeout = 10\nseeds = [1, 2, 3]\n'
                        '[[family]]\nname = "turning"\nsizes = [4]\ncolours = 5\n'
                        '[[family]]\nname = "fixed"\nsizes = [4]\ncolours = 5\nrotations = false\n')


def two_kinds_runs():
    """a is fast where tiles turn, b where they are fixed: one pooled kind, two fine kinds."""
    fast = {"turning": "a", "fixed": "b"}
    return [record(i, b, 0.01 if fast[i.family] == b else 1.0) for i in TWO_KINDS.instances for b in ("a", "b")]


def test_fine_rules_tell_kinds_apart_and_unmeasured_kinds_take_the_pooled_rules():
    rules = derive([(session(TWO_KINDS), two_kinds_runs())])
    fine = {r["rotations"]: r["backend"] for r in rules if "rotations" in r}
    assert fine == {True: "a", False: "b"}
    assert [r for r in rules if "rotations" not in r] and all(not r["framed"] for r in rules)
    only_fixed = derive([(session(TWO_KINDS), two_kinds_runs())], leave_out="turning")
    policy = Policy({}, "native", only_fixed)
    turning = TWO_KINDS.instances[0].puzzle()
    assert turning.rotations
    choice = policy.choose(turning, "first", here=False)  # rules name the made-up backends a and b
    assert choice.backend == "b" and "pooled rules" in choice.reason  # its own kind was left out


def test_cross_validation_chooses_for_a_family_from_the_others_and_reports_the_worst_case():
    from edgematch.bench.policy import fit

    sessions = [(session(TWO_KINDS), two_kinds_runs())]
    inside = {f.family: f for f in fit(sessions, cross=False)}
    cross = {f.family: f for f in fit(sessions, cross=True)}
    assert inside["turning"].ratio == pytest.approx(1.0) and inside["turning"].worst == pytest.approx(1.0)
    # left out, each family gets the other's backend: 1.0 s where 0.01 s was possible
    assert cross["turning"].ratio == pytest.approx(100.0) and cross["fixed"].worst == pytest.approx(100.0)
    assert cross["turning"].choices == {"b": 3} and cross["turning"].missed == 0


def policy():
    return Policy({"session": 7, "suite": "scaling", "generated": "today", "cpu": "x"}, "native", [
        {"question": "first", "framed": True, "rule": "same", "up_to_tiles": 36, "backend": "native", "evidence": "e1"},
        {"question": "first", "framed": True, "rule": "same", "up_to_tiles": 64, "backend": "cpsat:table",
         "evidence": "e2"},
        {"question": "count", "framed": True, "rule": "same", "up_to_tiles": 64, "backend": "sat", "evidence": "e3"},
    ])


@pytest.mark.parametrize(("size", "question", "backend", "fragment"), [
    (5, "first", "native", "up to 36 tiles"),
    (8, "first", "cpsat:table", "up to 64 tiles"),
    (10, "first", "cpsat:table", "extrapolated"),
    (6, "all", "sat", "question count"),   # all uses the count rules
    (6, "count", "sat", "session 7 of the scaling suite"),
])
def test_a_puzzle_takes_the_rule_that_covers_it(size, question, backend, fragment):
    puzzle, _ = generate(GeneratorSpec(size, size, framed=True, border_colours=2, inner_colours=3, seed=1))
    choice = policy().choose(puzzle, question)
    assert choice.backend == backend and fragment in choice.reason


def test_an_unmeasured_kind_takes_the_default_and_says_so():
    puzzle, _ = generate(GeneratorSpec(4, 4, rule="signed", rotations=False, seed=1))
    choice = policy().choose(puzzle, "first")
    assert choice.backend == "native" and "no measured rule for unframed signed" in choice.reason
    assert "tiles do not turn here" in choice.reason


def test_the_shipped_policy_names_real_backends_and_its_source():
    shipped = load_policy()
    assert shipped.source["suite"] == "families" and shipped.rules
    assert any("rotations" in r for r in shipped.rules) and any("rotations" not in r for r in shipped.rules)
    for name in {shipped.default, *(r["backend"] for r in shipped.rules)}:
        get_backend(name)  # raises for an unknown backend


def test_auto_runs_the_chosen_backend_and_says_which():
    hunde = edgematch.read_puzzle(EXAMPLES / "hunde.hunde")
    chosen = edgematch.choose_backend(hunde, "count")
    result = edgematch.count(hunde, distinct=True)
    assert (result.count, result.distinct) == (16, 2)
    assert result.counters["chosen"] == chosen and result.backend.startswith("auto(")


def test_the_policy_regenerates_from_a_bench_database(smoke_db, tmp_path):
    target = tmp_path / "policy.toml"
    result = runner.invoke(app, ["policy", "--db", str(smoke_db), "-o", str(target)])
    assert result.exit_code == 0, result.output
    made = load_policy(target)
    assert made.source["suite"] == "smoke" and made.source["runs"] == 32
    kinds = {(r["framed"], r["rule"]) for r in made.rules}
    assert kinds == {(True, "same"), (False, "same")}
    assert all(r["question"] == "first" for r in made.rules)


def test_policy_keep_carries_over_the_questions_not_measured(smoke_db, tmp_path):
    """The smoke sessions measure first only: with --keep the shipped best and count rules stay, with their
    sources, and the file says the command that made it."""
    shipped = load_policy(Path(edgematch.solvers.__file__).parent / "policy.toml")
    target = tmp_path / "policy.toml"
    result = runner.invoke(app, ["policy", "--db", str(smoke_db), "-o", str(target), "--keep",
                                 str(Path(edgematch.solvers.__file__).parent / "policy.toml")])
    assert result.exit_code == 0, result.output
    made = load_policy(target)
    best = [r for r in made.rules if r["question"] == "best"]
    assert best and best == [r for r in shipped.rules if r["question"] == "best"]
    assert made.source_of("best") == shipped.source_of("best")
    counts = [r for r in made.rules if r["question"] == "count"]
    assert counts and counts == [r for r in shipped.rules if r["question"] == "count"]
    assert made.source_of("count") == shipped.source_of("count")
    assert {r["question"] for r in made.rules} == {"first", "best", "count"}
    assert made.source_of("first")["suite"] == "smoke"
    assert "#   edgematch policy --db " in target.read_text() and " --keep " in target.read_text()
    alone = runner.invoke(app, ["policy", "--db", str(smoke_db), "-o", str(tmp_path / "alone.toml")])
    assert alone.exit_code == 0 and {r["question"] for r in load_policy(tmp_path / "alone.toml").rules} == {"first"}


def test_solve_explain_names_the_choice():
    result = runner.invoke(app, ["solve", str(EXAMPLES / "insects.em"), "--explain"])
    assert result.exit_code == 0, result.output
    assert "auto chose" in result.output and "insects" not in result.output.split("auto chose")[0]
    named = runner.invoke(app, ["count", str(EXAMPLES / "insects.em"), "-b", "native", "--explain"])
    assert "backend native was named" in named.output


def test_a_rule_whose_library_is_missing_is_skipped(monkeypatch):
    from edgematch.solvers import base

    monkeypatch.setattr(base, "_BUILTIN", {k: v for k, v in base._BUILTIN.items() if k != "cpsat"})
    puzzle, _ = generate(GeneratorSpec(8, 8, framed=True, border_colours=2, inner_colours=3, seed=1))
    choice = policy().choose(puzzle, "first")
    assert choice.backend == "native" and "extrapolated" in choice.reason and "were skipped" in choice.reason


def test_a_size_where_nothing_was_solved_keeps_the_choice_below_it():
    runs = [record(i, b, None if i.size == "6x6" else {"a": 5.0, "b": 0.1}[b])
            for i in SUITE.instances for b in ("a", "b")]
    rules = [(r["framed"], r["up_to_tiles"], r["backend"]) for r in derive([(session(), runs)])
             if "rotations" not in r]
    assert rules == [(False, 16, "b"), (True, 36, "b")]  # 6x6 (all timeouts) does not switch to "a"


def options_policy():
    return Policy({"session": 1, "suite": "scaling", "generated": "today", "cpu": "x"}, "native", [
        {"question": "first", "framed": True, "rule": "same", "up_to_tiles": 36, "backend": "native:restarts",
         "evidence": "e1"},
        {"question": "first", "framed": True, "rule": "same", "up_to_tiles": 64,
         "backend": "portfolio:native+native:restarts", "evidence": "e2"},
    ])


@pytest.mark.parametrize(("size", "workers", "options", "backend"), [
    (5, 1, {}, "native:restarts"),
    (5, 1, {"order": "spiral"}, "native:restarts"),
    (8, 1, {}, "portfolio:native+native:restarts"),
    (8, 1, {"order": "spiral"}, "native:restarts"),   # a portfolio takes no options: the rule below does
    (5, 2, {}, "native:restarts"),                     # two workers: two seeded chains of the restarts race
    (8, 2, {}, "native:restarts"),                     # a portfolio takes no workers: the rule below it does
])
def test_auto_passes_over_rules_that_cannot_honour_the_options_or_workers(size, workers, options, backend,
                                                                          monkeypatch):
    from edgematch.solvers.base import Task
    from edgematch.solvers.parallel import processes

    monkeypatch.setattr(processes, "usable_cores", lambda: 2)  # the portfolio rule races (not so under taskset -c 0)
    puzzle, _ = generate(GeneratorSpec(size, size, framed=True, border_colours=2, inner_colours=3, seed=1))
    choice = options_policy().choose(puzzle, "first", Task("first", workers=workers, options=options))
    assert choice.backend == backend
    assert ("cannot take the options" in choice.reason) == bool(options or workers > 1)
    assert get_backend(choice.backend).refusal(Task("first", workers=workers, options=options)) is None



def test_racing_is_chosen_where_it_pays_for_its_processes():
    from edgematch.bench.policy import RACE_SECONDS

    # each backend is slow where the other is fast; both solve everything
    slow, fast = {"4x4": (0.03, 0.01), "5x5": (3.0, 1.0), "6x6": (3.0, 1.0)}, {}
    for size, (a, b) in slow.items():
        fast[size] = {("a", 1): a, ("a", 2): b, ("b", 1): b, ("b", 2): a}
    runs = [record(i, b, fast[i.size][b, i.seed] if i.family == "framed" else 0.1)
            for i in SUITE.instances for b in ("a", "b")]
    rules = {(r["framed"], r["up_to_tiles"]): r for r in derive([(session(), runs)])}
    # 4x4: racing would save 10 ms a run but costs RACE_SECONDS; 5x5 and 6x6: it halves PAR2
    assert RACE_SECONDS > 0.01 and rules[True, 16]["backend"] == "a"
    assert rules[True, 36]["backend"] == "portfolio:a+b" and "5x5" in rules[True, 36]["evidence"]


def test_each_rule_names_the_fastest_backend_of_another_family_as_its_second_opinion():
    suite = parse_suite('backends = ["native", "native:restarts", "cpsat", "sat"]\ntimeout = 10\nseeds = [1]\n'
                        '[[family]]\nname = "framed"\nsizes = [4]\nframed = true\n')
    seconds = {"native": 0.02, "native:restarts": 0.01, "cpsat": 0.5, "sat": 0.3}
    rules = derive([(session(suite), [record(i, b, s) for i in suite.instances for b, s in seconds.items()])])
    assert [(r["backend"], r["confirm"]) for r in rules] == [("native:restarts", "sat")] * 2  # pooled, fine
    policy = Policy({}, "native", rules)
    puzzle, _ = generate(GeneratorSpec(4, 4, framed=True, border_colours=2, inner_colours=2, seed=1))
    assert policy.confirm_backend(puzzle, "first") == "sat"


def test_a_backend_that_answered_nothing_is_never_the_second_opinion():
    suite = parse_suite('backends = ["native", "cpsat", "sat"]\ntimeout = 10\nseeds = [1]\n'
                        '[[family]]\nname = "framed"\nsizes = [4]\nframed = true\n')
    seconds = {"native": 0.02, "cpsat": None, "sat": None}
    rules = derive([(session(suite), [record(i, b, s) for i in suite.instances for b, s in seconds.items()])])
    assert rules and all(r["backend"] == "native" and "confirm" not in r for r in rules)


def test_portfolio_rules_are_passed_over_on_one_usable_core(monkeypatch):
    import edgematch.solvers.parallel.processes as processes

    policy = options_policy()
    puzzle, _ = generate(GeneratorSpec(8, 8, framed=True, border_colours=3, inner_colours=6, seed=1))
    monkeypatch.setattr(processes, "usable_cores", lambda: 2)
    assert policy.choose(puzzle, "first").backend == "portfolio:native+native:restarts"
    monkeypatch.setattr(processes, "usable_cores", lambda: 1)
    choice = policy.choose(puzzle, "first")
    assert choice.backend == "native:restarts" and "one usable core" in choice.reason


def test_policy_writes_the_user_file_and_leaves_the_shipped_one_byte_identical(smoke_db, tmp_path, monkeypatch):
    from importlib import resources

    shipped = resources.files("edgematch.solvers").joinpath("policy.toml")
    before = shipped.read_bytes()
    monkeypatch.setenv("EDGEMATCH_CONFIG_DIR", str(tmp_path / "config"))  # does not exist yet
    made = runner.invoke(app, ["policy", "--db", str(smoke_db)])
    assert made.exit_code == 0, made.output
    user = tmp_path / "config" / "policy.toml"
    assert shipped.read_bytes() == before
    squashed = "".join(made.output.split())  # rich wraps long paths at the terminal width, even mid-word
    assert load_policy(user).source["suite"] == "smoke" and str(user) in squashed
    # auto now reads the user's file and says so, in --explain and in the result
    assert load_policy().origin == str(user)
    explained = runner.invoke(app, ["solve", str(EXAMPLES / "insects.em"), "--explain"])
    assert explained.exit_code == 0 and f"policy file: {user}" in explained.output.replace("\n", "")
    assert edgematch.solve(EXAMPLES / "insects.em").options["policy"] == str(user)
    # without a user file, the shipped policy again
    monkeypatch.setenv("EDGEMATCH_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert load_policy().origin == "shipped" and load_policy().source["suite"] == "families"
    assert edgematch.solve(EXAMPLES / "insects.em").options["policy"] == "shipped"


def test_edgematch_policy_env_names_the_file_and_a_missing_one_is_one_error_line(smoke_db, tmp_path, monkeypatch):
    chosen = tmp_path / "mine.toml"
    monkeypatch.setenv("EDGEMATCH_POLICY", str(chosen))
    missing = runner.invoke(app, ["solve", str(EXAMPLES / "insects.em")])
    assert missing.exit_code == 2 and "EDGEMATCH_POLICY" in missing.output and "Traceback" not in missing.output
    assert runner.invoke(app, ["policy", "--db", str(smoke_db)]).exit_code == 0
    assert load_policy().origin == str(chosen) and load_policy().source["suite"] == "smoke"
