"""Where bench writes and what its reports say (issue 39, items 8, 10 and part of 11).

- The results database is the file named, never a link's target: a symbolic link at ``--db`` (dangling or
  not) or anything but a regular file is one line and exit 2 before any run; side files sqlite did not make
  for the database (``-journal``, ``-wal``, ``-shm``) are refused and left as they are, not deleted by
  sqlite on opening; a journal sqlite left from a killed write is still recovered.
- bench exits 2 when its report could not be written, as ``report -o`` does, keeping its runs.
- report.md shows every plot, says why best runs had no board, gives the maximum score of boards no run
  filled, and the jobs note weighs runs at once against the usable cores.
- bench prints a line per finished run when its output is not a terminal (a log shows progress).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from edgematch.bench.environment import environment
from edgematch.bench.report import jobs_note, markdown, notes, write_report
from edgematch.bench.runner import RunRecord
from edgematch.bench.store import Store
from edgematch.bench.suite import parse_suite
from edgematch.bench.summary import summarise
from edgematch.cli.main import load_commands
from edgematch.errors import FormatError

SUITE = 'name = "tiny"\nbackends = ["native"]\ntimeout = 1\nseeds = [1, 2]\n[[family]]\nname = "f"\nsizes = [3]\n'


def cli(*args: object):
    return CliRunner().invoke(load_commands(), [str(a) for a in args], catch_exceptions=False)


def refused(result, fragment: str) -> str:
    """The command exited 2 with one stderr line holding ``fragment`` and ran nothing."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("edgematch: ") and fragment in lines[0], result.stderr
    assert "run 1/" not in result.stdout and "session 1 in" not in result.stdout
    return lines[0]


def stored_db(path: Path) -> Path:
    """A results database with one finished session of two tiny runs."""
    suite = parse_suite(SUITE)
    with Store(path) as store:
        number = store.new_session(suite, "tiny", 1, {})
        for instance in suite.instances:
            store.add_run(number, RunRecord(instance.key, "native", "first", "solved", "done", "correct", 0.02, 0.01,
                                            family="f", size="3x3", tiles=9, fingerprint="f" * 16))
        store.close_session(number, 1.0, True)
    return path


# ----- item 8: the database path -----------------------------------------------------------------------------

def test_a_dangling_symlink_database_is_refused_and_nothing_is_made_at_its_target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tiny.toml").write_text(SUITE)
    Path("bench.sqlite").symlink_to(tmp_path / "target.sqlite")
    line = refused(cli("bench", "tiny.toml", "--db", "bench.sqlite"), "bench.sqlite: is a symbolic link")
    assert "target.sqlite" in line  # the message names the target, so a user who meant it can name it
    assert not (tmp_path / "target.sqlite").exists() and Path("bench.sqlite").is_symlink()
    assert not Path("reports").exists()


def test_a_link_to_a_database_or_a_pipe_is_refused_by_the_commands_that_open_it(tmp_path):
    real = stored_db(tmp_path / "real.sqlite")
    before = real.read_bytes()
    link = tmp_path / "link.sqlite"
    link.symlink_to(real)
    for command in (("bench", tmp_path / "tiny.toml"), ("report", "-o", tmp_path / "r"), ("export",),
                    ("bench", "list")):
        (tmp_path / "tiny.toml").write_text(SUITE)
        refused(cli(*command, "--db", link), f"{link}: is a symbolic link")
    assert real.read_bytes() == before and not (tmp_path / "r").exists()
    pipe = tmp_path / "pipe.sqlite"
    os.mkfifo(pipe)
    refused(cli("bench", tmp_path / "tiny.toml", "--db", pipe), "not a regular file (a named pipe)")


@pytest.mark.parametrize("suffix", ["-journal", "-wal", "-shm"])
def test_a_planted_side_file_is_refused_and_left_as_it_was(tmp_path, monkeypatch, suffix):
    """sqlite deletes a journal or write-ahead log beside a database when it opens it (a read included):
    one it did not make for this database is refused, and stays."""
    monkeypatch.chdir(tmp_path)
    Path("tiny.toml").write_text(SUITE)
    planted = Path("bench.sqlite" + suffix)
    planted.write_text("precious\n")
    line = refused(cli("bench", "tiny.toml", "--db", "bench.sqlite"), f"bench.sqlite{suffix}")
    assert "no database beside it" in line
    assert planted.read_text() == "precious\n" and not Path("bench.sqlite").exists()
    stored_db(tmp_path / "old.sqlite")  # beside an existing database (rollback mode) the same
    (tmp_path / f"old.sqlite{suffix}").write_text("precious\n")
    refused(cli("report", "--db", "old.sqlite", "-o", "r"), f"old.sqlite{suffix}")
    with pytest.raises(FormatError, match="opening the database would delete it"):
        Store(tmp_path / "old.sqlite")
    assert (tmp_path / f"old.sqlite{suffix}").read_text() == "precious\n"
    (tmp_path / f"old.sqlite{suffix}").unlink()
    (tmp_path / f"old.sqlite{suffix}").symlink_to(tmp_path / "victim")  # a link: refused, never followed
    with pytest.raises(FormatError, match="a symbolic link"):
        Store(tmp_path / "old.sqlite")
    assert not (tmp_path / "victim").exists()


@pytest.mark.parametrize("pages", [1, 40])
def test_a_journal_left_by_a_killed_writer_is_recovered_not_refused(tmp_path, pages):
    """A bench killed in the middle of storing a run leaves sqlite's own journal (zeroed until synced; with
    its magic once pages were written): opening the database rolls it back, as sqlite is meant to."""
    path = stored_db(tmp_path / "bench.sqlite")
    script = ("import os, sqlite3, sys\n"
              "c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA cache_size = 1'); c.execute('BEGIN')\n"
              "c.execute(\"UPDATE sessions SET state = 'broken'\"); c.execute('CREATE TABLE junk (x)')\n"
              f"for _ in range({pages}): c.execute('INSERT INTO junk VALUES (randomblob(100000))')\n"
              "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    journal = Path(f"{path}-journal")
    assert journal.exists()
    with Store(path) as store:
        assert store.session(1).state == "finished" and len(store.runs(1)) == 2
        tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "junk" not in tables


# ----- item 8: bench's exit code when its report is refused; item 11: a line per run into a file ------------

def test_bench_says_each_run_and_exits_2_when_its_report_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tiny.toml").write_text(SUITE)
    Path("out").mkdir()
    Path("out/report.md").symlink_to(tmp_path / "victim.md")
    result = cli("bench", "tiny.toml", "--db", "b.sqlite", "-o", "out")
    assert result.exit_code == 2, result.output
    runs = [line for line in result.stdout.splitlines() if line.startswith("run ")]
    assert [line.split(":")[0] for line in runs] == ["run 1/2", "run 2/2"]  # stdout is no terminal here
    assert all(" native: correct, solved, " in line for line in runs)
    said = [line for line in result.stderr.splitlines() if line.startswith("no report: ")]
    assert len(said) == 1 and "out/report.md" in said[0] and "edgematch report 1 --db b.sqlite" in said[0]
    assert not (tmp_path / "victim.md").exists()
    assert not list(Path("out").glob("*.svg"))  # refused before its plots were drawn: nothing written beside it
    with Store(tmp_path / "b.sqlite") as store:  # the runs are kept
        assert len(store.runs(1)) == 2
    again = cli("bench", "--resume", "--db", "b.sqlite", "-o", "out")  # complete: only the report, refused again
    assert again.exit_code == 2 and "nothing to resume" in again.stdout and "no report: " in again.stderr


# ----- item 10: the report ----------------------------------------------------------------------------------

def test_report_md_shows_every_plot_beside_it(tmp_path):
    pytest.importorskip("matplotlib")
    from tests.test_plots import make_session

    db = make_session(tmp_path / "plots.sqlite")
    with Store(db) as store:
        written = write_report(store, out=tmp_path / "report", scatter=("native", "sat:cadical195"))
    text = written.markdown.read_text()
    for name in ("scaling", "cactus", "scatter", "scores"):
        assert f"![{name}]({name}.svg)" in text
        assert (tmp_path / "report" / f"{name}.svg").read_text().startswith("<svg")


BEST_SUITE = """
name = "best"
task = "best"
timeout = 5
seeds = [1, 2, 3]
backends = ["native", "cpsat"]
[[family]]
name = "e2-best"
like = "e2"
sizes = [8]
"""


def test_the_best_section_says_why_runs_had_no_board_and_gives_the_maximum(tmp_path):
    """native's runs were killed before their first board (stored without a maximum): its row says 0 boards
    of 112 and the section says plainly why, with counts."""
    suite = parse_suite(BEST_SUITE)
    with Store(tmp_path / "b.sqlite") as store:
        number = store.new_session(suite, "best", 1, {})
        for instance in suite.instances:
            store.add_run(number, RunRecord(instance.key, "native", "best", "timeout", "timeout", "timeout", 7.0,
                                            message="killed after 7.0 s", family="e2-best", size="8x8", tiles=64))
            store.add_run(number, RunRecord(instance.key, "cpsat", "best", "timeout", "done", "correct", 5.0, 5.0,
                                            family="e2-best", size="8x8", tiles=64, score=80, max_score=112,
                                            history=[(1.0, 80)]))
        summary = summarise(store.session(number), store.runs(number))
    text = markdown(summary)
    assert "| native | 3 | 0 | – | – | – | 112 |" in text
    assert "- e2-best 8x8, native: 3 of 3 runs had no board: 3 killed at the time limit before reporting a board." \
        in text
    assert "| e2-best/8x8/seed1 | 80 | 112 | cpsat |" in text  # its first run (native's) had no maximum stored


def test_the_jobs_note_counts_the_usable_cores(tmp_path, monkeypatch):
    """Under ``taskset -c 1`` on a 2-core machine, two runs at a time shared one core: the note says so."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {1}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    env = environment()
    assert env["usable_cores"] == 1 and env["cores"] == 2
    suite = parse_suite(SUITE)
    with Store(tmp_path / "b.sqlite") as store:
        number = store.new_session(suite, "tiny", 2, env)
        store.add_run(number, RunRecord(suite.instances[0].key, "native", "first", "solved", "done", "correct", 0.02,
                                        0.01, family="f", size="3x3", tiles=9))
        summary = summarise(store.session(number), store.runs(number))
    (note,) = [n for n in notes(summary) if n.startswith("Runs went")]
    assert note.startswith("Runs went 2 at a time on 1 usable core (of the machine's 2): more runs than cores")
    assert "on 2 cores" not in note
    assert jobs_note(2, {"cores": 4, "usable_cores": 4}).startswith("Runs went 2 at a time on 4 usable cores:")
