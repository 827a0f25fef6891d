"""The bench keeps its word: repeats with their spread, a tally that carries on after --resume, an ETA from
the remaining cells' expected cost, backends whose extra is missing skipped by name, `bench list --json`."""

import json

import pytest
from typer.testing import CliRunner

from edgematch.bench.report import markdown
from edgematch.bench.runner import RunRecord
from edgematch.bench.session import Estimate, Watcher, run_session
from edgematch.bench.store import Session, Store
from edgematch.bench.suite import Instance, Overrides, Suite, load_suite
from edgematch.bench.summary import summarise
from edgematch.cli.main import load_commands
from edgematch.solvers.sat import SatBackend

runner = CliRunner()
app = load_commands()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def record(instance, backend, time, category="correct", status="solved", repeat=0, tiles=9, family="f", size="3x3"):
    termination = "timeout" if category == "timeout" else "done"
    return RunRecord(instance, backend, "first", status, termination, category, time + 0.05, time, family=family,
                     size=size, tiles=tiles, repeat=repeat, fingerprint="f" * 16)


class Stop(Exception):
    pass


def test_the_tally_carries_on_after_resume(tmp_path):
    suite = load_suite("smoke", Overrides(backends=("native",)))
    seen: list[RunRecord] = []

    def finished(run: RunRecord) -> None:
        seen.append(run)
        if len(seen) == 3:
            raise KeyboardInterrupt  # as Ctrl-C would, between runs

    with Store(tmp_path / "b.sqlite") as store:
        number = store.new_session(suite, "smoke", 1, {})
        with pytest.raises(KeyboardInterrupt):
            run_session(store, number, suite, watcher=Watcher(finished=finished))
        assert store.session(number).state == "interrupted"

        told: dict = {}
        after: list[RunRecord] = []
        done = run_session(store, number, suite, watcher=Watcher(
            planned=lambda total, stored: told.update(total=total, stored=stored), finished=after.append))
        assert done
    assert told["total"] == len(suite.runs()) == 8
    assert [(r.instance, r.category) for r in told["stored"]] == [(r.instance, r.category) for r in seen]
    assert len(told["stored"]) + len(after) == told["total"]  # the tally ends at the plan, not at 5 of 8


def test_the_eta_costs_remaining_cells_by_what_their_kind_cost():
    def inst(size):
        return Instance("f", f"{size}x{size}", seed=1)

    estimate = Estimate(Suite("t", "", "first", 10.0, (1,), ("native", "cpsat", "sat"), ()), grace=2.0)
    assert estimate.cost(inst(5), "native") is None  # nothing measured: no guess
    estimate.add(record("f/3x3/seed1", "native", 0.1))
    estimate.add(record("f/4x4/seed1", "native", 10.0, category="timeout", status="timeout", tiles=16, size="4x4"))
    estimate.add(record("f/3x3/seed1", "cpsat", 0.2))
    estimate.add(record("f/4x4/seed1", "cpsat", 0.4, tiles=16, size="4x4"))
    assert estimate.cost(inst(5), "native") == pytest.approx(10.05)  # its 4x4 timed out: a 5x5 costs the cutoff
    assert estimate.cost(inst(5), "cpsat") == pytest.approx(0.45 * 0.45 / 0.25)  # 4x4's wall times the growth
    assert estimate.cost(inst(4), "cpsat") == pytest.approx(0.45)
    assert estimate.cost(inst(9), "sat") == pytest.approx((0.15 + 10.05 + 0.25 + 0.45) / 4)  # nothing of sat yet
    todo = [(inst(5), "native", 0), (inst(5), "cpsat", 0)]
    assert estimate.remaining(todo, [], jobs=2) == pytest.approx((10.05 + 0.81) / 2)


def test_repeats_are_stored_and_reported_with_their_spread(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("bench", "smoke", "-b", "native", "--sizes", "3", "--families", "unframed", "--repeat", "3",
                 "-o", tmp_path / "r")
    assert result.exit_code == 0, result.output
    assert "x 3 repeats = 6 runs" in result.output
    with Store(tmp_path / "bench.sqlite") as store:
        session = store.session()
        runs = store.runs(session.id)
        assert session.suite.repeat == 3 and session.planned == len(runs) == 6
        assert sorted(r.repeat for r in runs) == [0, 0, 1, 1, 2, 2]
        summary = summarise(session, runs)
    assert len(summary.runs) == 2 and all(sp.runs == 3 for sp in summary.spreads.values())
    for run in summary.runs:
        sp = summary.spread_of(run.instance, run.backend)
        assert sp.min <= run.time <= sp.max
    text = (tmp_path / "r" / "report.md").read_text()
    assert "each cell 3 times" in text and "| median CPU | peak RSS |" in text
    assert "One run per cell" not in text
    page = (tmp_path / "r" / "report.html").read_text()
    assert 'class="spread"' in page


def test_no_bold_inside_the_spread():
    runs = [record("f/3x3/a", "native", t, repeat=i) for i, t in enumerate((0.010, 0.030, 0.020))]
    runs += [record("f/3x3/a", "cpsat", t, repeat=i) for i, t in enumerate((0.025, 0.040, 0.028))]
    runs += [record("f/3x3/b", "native", t, repeat=i) for i, t in enumerate((0.010, 0.012, 0.011))]
    runs += [record("f/3x3/b", "cpsat", t, repeat=i) for i, t in enumerate((0.050, 0.060, 0.055))]
    suite = load_suite("smoke", Overrides(backends=("native", "cpsat")))

    session = Session(1, "2026-01-01T00:00:00+00:00", None, "finished", 1.0, suite, "smoke", 1, {}, len(runs))
    summary = summarise(session, runs)
    assert summary.run("f/3x3/a", "native").time == 0.020  # the median of the cell
    assert summary.clear_best("f/3x3/a") is None  # 10-30 ms against 25-40 ms: inside the spread
    assert summary.clear_best("f/3x3/b") == "native"
    single = summarise(session, [record("f/3x3/a", "auto", 0.028), record("f/3x3/a", "native", 0.031)])
    assert single.clear_best("f/3x3/a") is None  # one run each, 3 ms apart: noise
    assert "One run per cell" in markdown(single)


def test_a_backend_whose_extra_is_missing_is_skipped_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(SatBackend, "missing", lambda self: "backend 'sat' needs the pysat package: "
                        "pip install 'edgematch[sat]'")
    result = cli("bench", "smoke", "--sizes", "3", "--families", "unframed", "-o", tmp_path / "r")
    assert result.exit_code == 0, result.output
    assert "skipped sat: backend 'sat' needs the pysat package: pip install 'edgematch[sat]'" in result.output
    with Store(tmp_path / "bench.sqlite") as store:
        session = store.session()
        assert session.state == "finished" and session.suite.backends == ("native", "cpsat", "cpsat:table")
        assert {r.backend for r in store.runs(session.id)} == {"native", "cpsat", "cpsat:table"}
        assert "sat" in session.environment["skipped"]
    assert "Skipped sat: backend 'sat' needs the pysat package" in (tmp_path / "r" / "report.md").read_text()

    listed = json.loads(cli("bench", "list", "--json").output)
    (row,) = listed["sessions"]
    assert row["stored"] == row["planned"] == 6 and row["categories"]["correct"] == 6
    assert row["skipped"] == {"sat": "backend 'sat' needs the pysat package: pip install 'edgematch[sat]'"}


def test_a_suite_none_of_whose_backends_can_run_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(SatBackend, "missing", lambda self: "backend 'sat' needs the pysat package: "
                        "pip install 'edgematch[sat]'")
    result = cli("bench", "smoke", "-b", "sat")
    assert result.exit_code == 2 and "no backend of the suite can run here" in result.output
    assert "Traceback" not in result.output


def test_json_goes_with_list_only(tmp_path):
    result = cli("bench", "smoke", "--json", "--db", tmp_path / "b.sqlite")
    assert result.exit_code == 2 and "--json goes with `edgematch bench list`" in result.output
