"""Reports of different databases live apart and name their database (issue 22, item 5); the HTML page shows
the Markdown-ish text of its header and notes as HTML, escaped (item 10)."""

from __future__ import annotations

import os
import signal
from html.parser import HTMLParser
from pathlib import Path

import pytest

from edgematch.bench.report import inline_markdown, markdown, named_database, report_folder, write_report
from edgematch.bench.runner import RunRecord
from edgematch.bench.store import Store
from edgematch.bench.suite import parse_suite
from edgematch.bench.summary import summarise
from edgematch.errors import FormatError, UsageError

SUITE = ('name = "tiny"\ndescription = "a `tiny` suite, **two** seeds <b>not bold</b>"\nbackends = ["native"]\n'
         'timeout = 1\nseeds = [1, 2]\n[[family]]\nname = "f"\nsizes = [3]\n')


def make_db(path: Path, time: float, environment: dict | None = None) -> Path:
    """A results database with one finished session of two runs of ``native`` taking ``time`` seconds."""
    suite = parse_suite(SUITE)
    with Store(path) as store:
        number = store.new_session(suite, "tiny", 1, environment or {})
        for instance in suite.instances:
            store.add_run(number, RunRecord(instance.key, "native", "first", "solved", "done", "correct", time + 0.01,
                                            time, family="f", size="3x3", tiles=9, fingerprint="f" * 16))
        store.close_session(number, 1.0, True)
    return path


def test_the_default_folder_is_per_database():
    assert report_folder(Path("bench.sqlite"), 1) == Path("reports/bench/session-1")
    assert report_folder(Path("/data/cluster.sqlite"), 3) == Path("reports/cluster/session-3")
    assert report_folder(Path("results"), 2) == Path("reports/results/session-2")


def test_two_databases_keep_two_reports_each_naming_its_database(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first, second = make_db(tmp_path / "bench.sqlite", 0.011), make_db(tmp_path / "cluster.sqlite", 0.022)
    written = {}
    for db in (first, second):
        with Store(db) as store:
            written[db] = write_report(store)  # session 1 of each, default folder
    assert written[first].markdown == Path("reports/bench/session-1/report.md")
    assert written[second].markdown == Path("reports/cluster/session-1/report.md")
    for db, times in ((first, "11.0 ms"), (second, "22.0 ms")):
        text = written[db].markdown.read_text()
        assert f"Database: `{db.resolve()}`, session 1." in text and times in text  # its own, not overwritten
        if written[db].html:
            page = written[db].html.read_text()
            assert f"database <code>{db.resolve()}</code>, session 1" in page and times in page


def test_a_report_of_another_database_of_the_same_name_is_not_overwritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mine, other = make_db(tmp_path / "a" / "bench.sqlite", 0.011), make_db(tmp_path / "b" / "bench.sqlite", 0.022)
    with Store(mine) as store:
        first = write_report(store)
        again = write_report(store)  # the same database again: its report is brought up to date
    assert again.markdown == first.markdown
    before = first.markdown.read_text()
    with Store(other) as store, pytest.raises(UsageError, match="another database") as refused:
        write_report(store)
    assert str(mine.resolve()) in str(refused.value) and "-o FOLDER" in str(refused.value)
    assert first.markdown.read_text() == before
    with Store(other) as store:  # with a folder of its own it is written
        assert "22.0 ms" in write_report(store, out=tmp_path / "b-report").markdown.read_text()


class _Visible(HTMLParser):
    """The text a browser shows (outside style, script and the inline plots)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("style", "script", "svg")

    def handle_endtag(self, tag):
        self.hidden -= tag in ("style", "script", "svg")

    def handle_data(self, data):
        if not self.hidden:
            self.text.append(data)


def test_the_html_page_shows_code_and_bold_not_markdown_and_escapes_the_rest(tmp_path):
    pytest.importorskip("jinja2")
    pytest.importorskip("matplotlib")
    environment = {"skipped": {"x<script>alert(1)</script>": "its extra is missing: `pip install x`"}}
    db = make_db(tmp_path / "bench.sqlite", 0.011, environment)
    with Store(db) as store:
        written = write_report(store, out=tmp_path / "report")
        text = markdown(summarise(store.session(1), store.runs(1)))
    assert "`edgematch bench --repeat 3`" in text and "`pip install x`" in text  # the Markdown keeps its marks
    page = written.html.read_text()
    seen = _Visible()
    seen.feed(page)
    visible = "".join(seen.text)
    assert "`" not in visible and "**" not in visible
    assert "<code>edgematch bench --repeat 3</code>" in page and "<code>pip install x</code>" in page
    assert "<code>first</code>" in page  # the header's task
    assert "<code>tiny</code> suite, <strong>two</strong> seeds &lt;b&gt;not bold&lt;/b&gt;" in page
    assert "<script>" not in page and "x&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "x<script>alert(1)</script>" in visible  # shown as text


def test_inline_markdown_escapes_inside_code_and_leaves_lone_marks():
    assert inline_markdown("run `a<b>` **now**") == "run <code>a&lt;b&gt;</code> <strong>now</strong>"
    assert inline_markdown("a ` alone & 2*3") == "a ` alone &amp; 2*3"


def test_a_bench_whose_report_folder_is_taken_keeps_its_runs_and_exits_2(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from edgematch.cli.main import load_commands

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(SUITE)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    runner, app = CliRunner(), load_commands()
    first = runner.invoke(app, ["bench", "tiny.toml", "--db", "a/bench.sqlite"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    second = runner.invoke(app, ["bench", "tiny.toml", "--db", "b/bench.sqlite"], catch_exceptions=False)
    assert second.exit_code == 2, second.output  # as `edgematch report` exits when it cannot write the report
    assert "no report" in second.stderr and "another database" in second.stderr
    assert "edgematch report 1 --db b/bench.sqlite -o FOLDER" in second.stderr
    with Store(tmp_path / "b" / "bench.sqlite") as store:
        assert len(store.runs(1)) == 2
    assert str((tmp_path / "a" / "bench.sqlite").resolve()) in Path("reports/bench/session-1/report.md").read_text()


@pytest.mark.parametrize("trouble", ["full disk", "symlink"])
def test_a_bench_whose_report_cannot_be_written_keeps_its_runs_and_exits_2(tmp_path, monkeypatch, trouble, request):
    """A report that cannot be saved (full disk, a symlink planted at report.md) costs the report, not the
    runs: bench says ``no report: ...`` in one line, keeps the database, and exits 2 as ``report -o`` does."""
    from typer.testing import CliRunner

    from edgematch.cli.main import load_commands

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(SUITE)
    folder = tmp_path / "reports" / "bench" / "session-1"
    if trouble == "symlink":
        folder.mkdir(parents=True)
        (folder / "report.md").symlink_to(tmp_path / "elsewhere.md")
    else:
        request.getfixturevalue("full_disk")
    result = CliRunner().invoke(load_commands(), ["bench", "tiny.toml", "--db", "bench.sqlite"],
                                catch_exceptions=False)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("no report: ")]
    assert len(lines) == 1, result.stderr
    assert "report: " not in result.stdout
    with Store(tmp_path / "bench.sqlite") as store:
        assert len(store.runs(1)) == 2
    assert not (tmp_path / "elsewhere.md").exists()


class Blocked(Exception):
    """A test's deadline passed."""


@pytest.fixture
def deadline():
    """Fail a test that blocks (e.g. opening a named pipe nobody writes to) after 20 s instead of hanging."""
    def expired(signum, frame):
        raise Blocked("blocked for 20 s")  # not an OSError, which the code under test may catch

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_at_the_report_is_not_waited_on(tmp_path, monkeypatch, deadline):
    """A FIFO at reports/<db>/session-N/report.md names no database (opening it used to block for ever);
    the report is then refused at the save, as any non-regular file is."""
    monkeypatch.chdir(tmp_path)
    db = make_db(tmp_path / "bench.sqlite", 0.011)
    folder = report_folder(db, 1)
    folder.mkdir(parents=True)
    os.mkfifo(folder / "report.md")
    assert named_database(folder) is None
    with Store(db) as store, pytest.raises(FormatError, match="named pipe"):
        write_report(store)


def test_an_oversize_report_is_not_read_whole(tmp_path, monkeypatch):
    """report.md is read as every input is, within the input size limit: a larger one names no database."""
    from edgematch.formats import source

    named = "# report\n\nDatabase: `/data/other.sqlite`, session 1.\n"
    (tmp_path / "report.md").write_text(named + "x" * 5000)
    assert named_database(tmp_path) == "/data/other.sqlite"
    monkeypatch.setattr(source, "MAX_INPUT_BYTES", 1000)  # a report larger than the limit is refused unread
    assert named_database(tmp_path) is None
