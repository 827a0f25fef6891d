"""Benchmark commands: ``edgematch bench`` (run a suite into the results database, then report),
``bench list``, ``report``, ``compare`` and ``export``.

Exit codes: 0 every run answered correctly (or timed out), 1 a wrong answer somewhere (listed first; it takes
precedence over errors), 4 a run ended in error (crashed, failed, over its memory limit; each is printed),
2 bad input or usage, or the report could not be written (the runs are stored; as ``report -o`` exits when it
cannot write; 1 and 4 take precedence: they say more about the runs), 130 interrupted (every finished run is
stored; ``edgematch bench --resume`` carries on).

Everything a user named (suites, families, instances, backends, paths, messages) is printed as plain text,
never read as rich markup: a suite called ``[/x]`` is shown as such and cannot break a command.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from edgematch import clock
from edgematch.bench.runner import MEMORY_LIMIT_MB, RunRecord
from edgematch.bench.suite import MAX_REPEAT, Instance, Overrides, Suite, load_suite
from edgematch.cli.app import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_USAGE, app, err, out, reported
from edgematch.cli.solve import EXIT_FAILED
from edgematch.core.model import parse_integer
from edgematch.errors import EdgematchError, UsageError, quoted
from edgematch.formats.source import save

if TYPE_CHECKING:
    from edgematch.bench.store import Store
    from edgematch.bench.summary import Summary

DEFAULT_DB = Path("bench.sqlite")
SETUP_SHOWN = 0.5  # a backend whose loading took at least this long is named before the runs

DbOpt = Annotated[Path, typer.Option("--db", help="The results database (SQLite; created if missing; the file "
                                      "itself: a symbolic link there is refused).")]
SessionArg = Annotated[int | None, typer.Argument(help="Session number (default: the latest).", show_default=False)]

def _table(title: str | Text) -> Table:
    """A table in the house style; a title naming user things (suites, paths) is a Text, never markup."""
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)


def _wide() -> Console:
    """Standard output for tables: as wide as the terminal, or 140 columns into a file or pipe."""
    return out if out.is_terminal else Console(width=140, highlight=False)


# each category's mark as (text, style), for Text.assemble: user text beside it is never read as markup
_MARKS = {"correct": ("✓", "green"), "timeout": ("⏱", "yellow"), "error": ("!", "magenta"), "wrong": ("✗", "bold red")}


def _items(value: str | None, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = tuple(v.strip() for v in value.split(",") if v.strip())
    if not items:
        raise UsageError(f"{what}: give a comma-separated list")
    return items


def _overrides(backends: str | None, sizes: str | None, colours: str | None, seeds: str | None,
               timeout: float | None, task: str | None, families: str | None) -> Overrides:
    try:
        seed_list = tuple(parse_integer(s) for s in _items(seeds, "--seeds"))
    except ValueError:
        raise UsageError(f"--seeds wants integers (ASCII digits), got {quoted(seeds or '')}") from None
    return Overrides(_items(backends, "--backends"), _items(sizes, "--sizes"), colours, seed_list, timeout, task,
                     _items(families, "--families"))


def eta_text(estimate: float | None, since: float, done: bool) -> str:
    """The ETA shown: the session's estimate (:class:`edgematch.bench.session.Estimate`, renewed after each
    run and every second while runs are under way) counted down by the ``since`` seconds since it was made,
    rounded up; ``eta ?`` until a run has finished, and never ``0:00`` while a run remains (``done`` False)."""
    if done:
        return "eta 0:00"
    if estimate is None:
        return "eta ?"
    left = max(1, math.ceil(estimate - since))
    return (f"eta {left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}" if left >= 3600
            else f"eta {left // 60}:{left % 60:02d}")


class _Eta(ProgressColumn):
    """The session's estimate of the time left, as :func:`eta_text` shows it."""

    def render(self, task: Any) -> Text:
        estimate, at = task.fields.get("eta"), task.fields.get("eta_at")
        since = 0.0 if at is None else clock.now() - at
        return Text(eta_text(estimate, since, task.finished), style="progress.remaining")


def run_line(record: RunRecord, done: int, total: int) -> str:
    """One finished run as a plain line, for a log: ``run 3/12: f/4x4/seed1 native: correct, solved, 12 ms``
    (a best run: its checked score; a run that was not correct: why)."""
    from edgematch.bench.report import seconds

    if record.task == "best" and record.score is not None:
        what = f"score {record.score}/{record.max_score}"
    elif record.category == "correct":
        what = record.status + (f", {record.count} solutions" if record.task == "count" and record.count is not None
                                else "")
    else:
        what = record.message or record.status
    took = seconds(record.time) if record.termination == "done" else f"{seconds(record.wall)} wall"  # killed: no time
    return f"run {done}/{total}: {record.instance} {record.backend}: {record.category}, {what}, {took}"


def _lines(base: Any) -> Any:
    """``base`` (a Watcher) that also prints one plain line per finished run on standard output: what a log
    of a bench shows while it runs, where no live display is (output to a file or a pipe)."""
    from edgematch.bench.session import Watcher

    count = {"done": 0, "total": 0}

    def planned(total: int, stored: list[RunRecord]) -> None:
        count["done"], count["total"] = len(stored), total
        base.planned(total, stored)

    def finished(record: RunRecord) -> None:
        base.finished(record)
        count["done"] += 1
        out.print(Text(run_line(record, count["done"], count["total"])), highlight=False, soft_wrap=True)

    return Watcher(planned, base.started, finished, base.eta)


@contextlib.contextmanager
def _display(jobs: int) -> Iterator:
    """A live progress display on a terminal (done/total, elapsed, ETA, categories, what runs now); one plain
    line per finished run on standard output when that is not a terminal, or when there is no live display
    (a bench writing to a file says how it goes, rather than nothing until its end). A resumed session's
    tally starts from the runs already stored."""
    with _live(jobs) as watcher:
        yield _lines(watcher) if not (out.is_terminal and err.is_terminal) else watcher


@contextlib.contextmanager
def _live(jobs: int) -> Iterator:
    """The live progress display on stderr when it is a terminal, else a Watcher that shows nothing."""
    from edgematch.bench.session import Watcher

    tally: Counter = Counter()
    now: list[str] = []
    if not err.is_terminal:
        yield Watcher()
        return
    columns = (TextColumn("[bold]bench[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), _Eta(),
               TextColumn("{task.fields[tally]}"), TextColumn("[dim]{task.fields[now]}[/]"))
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("bench", total=None, tally="", now="", eta=None, eta_at=None)

        def shown() -> str:  # a template field of the bar is markup: the Text's own markup, escaped as needed
            return Text("  ").join(Text.assemble(_MARKS[c], f" {tally[c]}") for c in _MARKS if tally[c]).markup

        def planned(total: int, stored: list[RunRecord]) -> None:
            tally.update(r.category for r in stored)
            bar.update(task, total=total, completed=len(stored), tally=shown())

        def running() -> str:
            return escape(" | ".join(now[-jobs:]))

        def started(instance: Instance, backend: str) -> None:
            now.append(f"{instance.key} {backend}")
            bar.update(task, now=running())

        def finished(record: RunRecord) -> None:
            tally.update([record.category])
            label = f"{record.instance} {record.backend}"
            if label in now:
                now.remove(label)
            bar.update(task, advance=1, tally=shown(), now=running())
            if record.category in ("wrong", "error"):
                bar.console.print(Text.assemble(_MARKS[record.category],
                                                f" {label}: {record.message}"), highlight=False, soft_wrap=True)

        def eta(seconds: float | None) -> None:
            bar.update(task, eta=seconds, eta_at=clock.now())

        yield Watcher(planned, started, finished, eta)


def complete_target(incomplete: str) -> list[str]:
    """Shell completion of ``bench TARGET``: the built-in suites and ``list`` (files complete as files)."""
    from edgematch.bench.suite import builtin_suites

    return [name for name in [*builtin_suites(), "list"] if name.startswith(incomplete)]


@app.command()
def bench(
    target: Annotated[str, typer.Argument(help="A built-in suite (smoke, default, scaling, families, hard), a suite "
                                              ".toml file, a folder of puzzle files (./NAME for one named like a "
                                              "built-in suite), or 'list' to show past sessions.",
                                          autocompletion=complete_target)]
    = "default",
    backends: Annotated[str | None, typer.Option("--backends", "-b", help="Comma-separated backends "
                                                 "(e.g. native,cpsat,sat:cadical195), replacing the suite's; "
                                                 "options after @: native@order=dynamic@fc=on.")] = None,
    sizes: Annotated[str | None, typer.Option(help="Board sizes for every family, e.g. 4,5,6 or 6x4.")] = None,
    colours: Annotated[str | None, typer.Option(help="Colours for every family (framed: inner colours); "
                                                "a number or size, size-2, size+1.")] = None,
    seeds: Annotated[str | None, typer.Option(help="Comma-separated seeds, e.g. 1,2,3.")] = None,
    families: Annotated[str | None, typer.Option(help="Only these of the suite's families, comma-separated.")]
    = None,
    timeout: Annotated[float | None, typer.Option("--timeout", "-t", help="Seconds per run (the cutoff).")] = None,
    task: Annotated[str | None, typer.Option(help="first (one solution), count (every solution) or best (the "
                                              "best-scoring board within the timeout), for every family.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Runs at once (timings then interfere).")] = 1,
    resume: Annotated[bool, typer.Option("--resume", help="Carry on an interrupted session, redoing nothing "
                                         "finished (the latest, or --session).")] = False,
    session: Annotated[int | None, typer.Option(help="The session --resume continues.")] = None,
    db: DbOpt = DEFAULT_DB,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Report folder "
                                                "(default reports/DB/session-N, DB the database's name, e.g. "
                                                "reports/bench/session-1).")] = None,
    report: Annotated[bool, typer.Option(help="Write the report when the bench ends.")] = True,
    memory: Annotated[int, typer.Option(min=64, help="Memory limit per run, MiB of resident memory (the run's "
                                        "processes together; address space is not limited).")] = MEMORY_LIMIT_MB,
    confirm: Annotated[bool, typer.Option("--confirm", help="Every count and \"no solution\" must be given alike "
                                          "by two backend families (native, CP-SAT, SAT); exit 1 if one is not.")]
    = False,
    repeat: Annotated[int | None, typer.Option("--repeat", "-r", min=1, max=MAX_REPEAT, help="Runs per cell "
                                               "(instance x backend); reports show min, median and spread.")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="With 'list': the sessions as JSON on stdout.")] = False,
    cluster: Annotated[str | None, typer.Option("--cluster", help="Run the plan on a Dask cluster, each run a task "
                                                "(still its own process with its limits): local:N or a scheduler "
                                                "address such as tcp://host:8786 (needs edgematch\\[dask]).")] = None,
) -> None:
    """Run every backend over a suite of puzzles, check and compare their answers, and write a report.

    Each run is a separate process with a hard time and resident-memory limit, measured for wall time, CPU time
    and peak memory; each finished run is stored at once in the results database, so an interrupted bench
    loses nothing (carry on with --resume). Backends whose libraries are missing, or that cannot answer a
    family's task (cpsat:table has no best model), are skipped and named before anything runs. Exit 0 when
    every run answered correctly or timed out, 1 on a wrong answer, 4 when a run ended in error, 2 on bad input
    or when the report could not be written (the runs stay stored).
    """
    from edgematch.bench.environment import environment
    from edgematch.bench.session import answerable, check_backends, run_session, runnable
    from edgematch.bench.store import Store

    with reported():
        if target == "list":
            unused = [name for name, given in (
                ("--backends", backends), ("--sizes", sizes), ("--colours", colours), ("--seeds", seeds),
                ("--families", families), ("--timeout", timeout is not None), ("--task", task), ("--jobs", jobs != 1),
                ("--resume", resume), ("--session", session is not None), ("--output", output),
                ("--no-report", not report), ("--memory", memory != MEMORY_LIMIT_MB), ("--confirm", confirm),
                ("--repeat", repeat), ("--cluster", cluster)) if given]
            if unused:
                raise UsageError(f"`edgematch bench list` shows past sessions (it takes --db and --json); it does "
                                 f"not take {', '.join(unused)}")
            _list(db, as_json)
            return
        if as_json:
            raise UsageError("--json goes with `edgematch bench list`")
        if output is not None and not report:
            raise UsageError("--output names the report's folder, and --no-report writes no report")
        overrides = replace(_overrides(backends, sizes, colours, seeds, timeout, task, families), repeat=repeat)
        _check_jobs(jobs)
        if cluster is not None:
            from edgematch.solvers.parallel.cluster import check_cluster

            check_cluster(cluster, reach=True)  # malformed, or no scheduler there: one line, nothing stored
        if resume:
            if overrides != Overrides() or target != "default":
                raise UsageError("--resume continues a session as it was planned: leave out the suite and the "
                                 "--backends/--sizes/--colours/--seeds/--families/--timeout/--task/--repeat "
                                 "settings")
        else:
            if session is not None:
                raise UsageError("--session goes with --resume")
            # the whole plan is settled before the database is touched: a bad suite stores nothing
            setup: dict[str, float] = {}
            suite, skipped = runnable(load_suite(target, overrides), setup)
            _skipped(skipped)
            _setup(setup)
            suite, unanswered = answerable(suite)
            for refused in unanswered:
                err.print(Text.assemble(("skipped", "yellow"), f" {refused.backend} on family {refused.family} "
                                        f"(task {refused.task}): {refused.why}"), highlight=False, soft_wrap=True)
            for note in suite.notes:
                err.print(Text.assemble(("note", "yellow"), f": {note}"), highlight=False, soft_wrap=True)
            if confirm:
                _two_families(suite.backends)
        with Store(db) as store:
            if resume:
                found = store.session(session)
                if found.done >= found.planned:
                    out.print(f"session {found.id} is complete ({found.done} runs); nothing to resume")
                    _, written = _finish(store, found.id, output, report, db)
                    if not written:
                        raise typer.Exit(EXIT_USAGE)
                    return
                setup = {}
                _skipped(check_backends(found.suite, setup))
                _setup(setup)
                store.reopen(found.id)
                suite, number, jobs = found.suite, found.id, jobs if jobs > 1 else found.jobs
                out.print(f"resuming session {number}: {found.done} of {found.planned} runs already stored")
            else:
                number = store.new_session(suite, target, jobs, environment() | {
                    "skipped": skipped, "unanswered": [u.as_dict() for u in unanswered],
                    "setup_seconds": {name: round(s, 3) for name, s in setup.items()}})
                _announce(suite, number, jobs, db, cluster)
            started = clock.now()
            try:
                with _display(jobs) as watcher:
                    if cluster is None:
                        run_session(store, number, suite, jobs, watcher, memory_mb=memory)
                    else:
                        from edgematch.bench.cluster import run_cluster_session

                        run_cluster_session(store, number, suite, cluster, watcher, memory_mb=memory)
            except KeyboardInterrupt:
                stored = store.session(number)
                where = f" --db {db}" if db != DEFAULT_DB else ""
                err.print(Text.assemble(("interrupted", "yellow"), f": {stored.done} of {stored.planned} runs stored "
                                        f"in {db}; carry on with ", (f"edgematch bench --resume{where}", "bold")),
                          highlight=False, soft_wrap=True)
                raise typer.Exit(EXIT_INTERRUPTED) from None
            out.print(f"benched in {clock.now() - started:.1f} s")
            summary, written = _finish(store, number, output, report, db)
        if summary.wrong or confirm and _unconfirmed(summary):
            raise typer.Exit(EXIT_INVALID)
        if summary.errors:
            raise typer.Exit(EXIT_FAILED)
        if not written:  # as `edgematch report` exits when it cannot write the report
            raise typer.Exit(EXIT_USAGE)


def _skipped(skipped: dict[str, str]) -> None:
    """Name each backend left out because its library is missing here, with the extra that brings it."""
    for backend, why in skipped.items():
        err.print(Text.assemble(("skipped", "yellow"), f" {backend}: {why}"), highlight=False, soft_wrap=True)


def _setup(setup: dict[str, float]) -> None:
    """Say what loading the backends cost before any run (a first compile takes seconds): paid once here, never
    inside a run's time."""
    slow = {name: s for name, s in setup.items() if s >= SETUP_SHOWN}
    if slow:
        named = ", ".join(f"{name} {s:.1f} s" for name, s in slow.items())
        err.print(Text.assemble(("loaded", "cyan"), f" before the runs (not counted in any run's time): {named}"),
                  highlight=False, soft_wrap=True)


def _check_jobs(jobs: int) -> None:
    """--jobs runs at once, each a process: at most what ``workers`` may ask for (max(16, 4 x cores))."""
    from edgematch.solvers.api import max_workers

    if jobs > max_workers():
        raise UsageError(f"--jobs must be at most {max_workers()} here (the larger of 16 and 4 x the usable cores), "
                         f"got {jobs}")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def plan_text(suite: Suite) -> str:
    """The plan's size as the first line says it: ``16 puzzles x 3 backends = 48 runs`` when every family runs
    every backend, else ``54 puzzles, 420 runs (per family: 8 backends on unframed, ...; 4 on e2-best)``, since
    a family may run only some of the suite's backends (its own list, or those that answer its task)."""
    plan = suite.runs()
    runs = len(plan) * suite.repeat
    per_family: dict[str, set[str]] = {}
    for instance in suite.instances:  # the suite's order of families
        per_family.setdefault(instance.family, set()).update(suite.backends_of(instance))
    counts = {family: len(backends) for family, backends in per_family.items()}
    puzzles = _plural(len(suite.instances), "puzzle")
    times = f" x {suite.repeat} repeats" if suite.repeat > 1 else ""
    if len(set(counts.values())) <= 1:
        used = next(iter(counts.values()), 0)
        return f"{puzzles} x {_plural(used, 'backend')}{times} = {runs} runs"
    groups: dict[int, list[str]] = {}
    for family, count in counts.items():
        groups.setdefault(count, []).append(family)
    order = sorted(groups, key=lambda c: (-len(groups[c]), -c))  # the most families' count first
    shown = "; ".join(f"{_plural(c, 'backend') if i == 0 else c} on {', '.join(groups[c])}"
                      for i, c in enumerate(order))
    repeats = f"{suite.repeat} repeats of {len(plan)}; " if suite.repeat > 1 else ""
    return f"{puzzles}, {runs} runs ({repeats}per family: {shown})"


def _announce(suite: Suite, number: int, jobs: int, db: Path, cluster: str | None = None) -> None:
    from edgematch.bench.report import tasks_text

    line = Text.assemble(f"session {number} in {db}: suite ", (suite.name, "bold"),
                         f", {plan_text(suite)}, {tasks_text(suite).replace('`', '')}, "
                         + (f"on the Dask cluster {cluster}" if cluster else f"{jobs} at a time"))
    out.print(line, highlight=False, soft_wrap=True)


def _finish(store: Store, number: int, output: Path | None, report: bool, db: Path) -> tuple[Summary, bool]:
    """Print the headline, the wrong answers and how many answers two families confirmed; write the report.
    The second value is False when a report was asked for and could not be written (said on stderr, with the
    command that writes it from the stored runs): bench then exits 2 unless its runs call for 1 or 4."""
    from edgematch.bench.report import confirmed_line, write_report
    from edgematch.bench.summary import summarise

    summary = summarise(store.session(number), store.runs(number))
    _headline(summary)
    for record in summary.wrong:
        err.print(Text.assemble(("WRONG", "bold red"), f" {record.instance} {record.backend}: {record.message}"),
                  highlight=False, soft_wrap=True)
    _errors(summary)
    out.print(Text(confirmed_line(summary)), highlight=False, soft_wrap=True)
    if report and summary.every:
        try:
            written = write_report(store, number, output)
        except EdgematchError as exc:  # a report folder taken, a full disk, a symlinked report.md: the runs are
            # stored, only the report is missing
            where = f" --db {db}" if db != DEFAULT_DB else ""
            err.print(Text.assemble(("no report", "bold red"), f": {exc}; the runs are stored in {db} (session "
                                    f"{number}): `edgematch report {number}{where} -o FOLDER` writes it"),
                      soft_wrap=True, highlight=False)
            return summary, False
        if written.problem:
            err.print(Text.assemble(("no HTML page", "yellow"), f": {written.problem}"), soft_wrap=True)
        out.print(Text(f"report: {written.html or written.markdown}"), soft_wrap=True)
    return summary, True


SHOWN_ERRORS = 10  # run errors printed one per line after the summary; the rest are counted


def _errors(summary: Summary) -> None:
    """The runs that ended in error (crashed, failed, over the memory limit), one line each (the first
    ``SHOWN_ERRORS``) and a count: with them, ``bench`` exits 4."""
    errors = summary.errors
    if not errors:
        return
    by_backend = Counter(r.backend for r in errors)
    err.print(Text.assemble((f"{_plural(len(errors), 'run')} ended in error", "bold magenta"), " ("
                            + ", ".join(f"{b} {n}" for b, n in by_backend.items()) + ")"),
              highlight=False, soft_wrap=True)
    for record in errors[:SHOWN_ERRORS]:
        err.print(Text.assemble(("ERROR", "magenta"), f" {record.instance} {record.backend}: {record.message}"),
                  highlight=False, soft_wrap=True)
    if len(errors) > SHOWN_ERRORS:
        err.print(f"... and {len(errors) - SHOWN_ERRORS} more (each in `edgematch export`)", highlight=False)


def _two_families(backends: list[str]) -> None:
    """``--confirm`` needs a plan whose single backends span two families, or nothing could be confirmed."""
    from edgematch.solvers.base import is_meta
    from edgematch.solvers.confirm import family

    families = sorted({family(b) for b in backends if not is_meta(b)})
    if len(families) < 2:
        raise UsageError(f"--confirm needs backends of two families (native, cpsat, sat) in the plan; "
                         f"this one has {', '.join(families) or 'none'}")


def _unconfirmed(summary: Summary) -> list[tuple[str, str]]:
    """The answers no second family gave alike, each printed."""
    for instance, task in summary.unconfirmed:
        err.print(Text.assemble(("UNCONFIRMED", "bold yellow"), f" {instance} ({task}): one family's word"),
                  highlight=False, soft_wrap=True)
    return summary.unconfirmed


def _headline(summary: Summary) -> None:
    from edgematch.bench.report import headline_rows, mib, seconds

    if summary.scores:
        _scores(summary)
    if not summary.runs:
        return
    table = _table(Text(f"session {summary.session.id}: {summary.session.suite.name} "
                        f"(PAR2 cutoff {summary.cutoff:g} s)"))
    for name in ("backend", "solved", "PAR2 (s)", "median", "max", "CPU", "peak RSS", "fastest on", "timeouts",
                 "errors", "wrong"):
        table.add_column(name, justify="left" if name == "backend" else "right")
    for backend, st, fastest in headline_rows(summary):
        c = st.categories
        wrong = f"[bold red]{c['wrong']}[/]" if c["wrong"] else "0"
        table.add_row(Text(backend), f"{st.solved}/{st.total}", f"{st.par2:.3f}", seconds(st.median), seconds(st.max),
                      seconds(st.cpu), mib(st.rss), str(fastest), str(c["timeout"]), str(c["error"]), wrong)
    _wide().print(table)


def _scores(summary: Summary) -> None:
    """The best-score runs' table: scores per backend and size class, and instances with the best board."""
    from edgematch.bench.report import boardless_lines, number, seconds, share

    scores = summary.scores
    assert scores is not None
    table = _table(f"session {summary.session.id}: best scores (checked; share of the maximum)")
    for name in ("family", "board", "backend", "boards", "mean", "min", "max", "of", "share", "proven", "reached",
                 "errors"):
        table.add_column(name, justify="left" if name in ("family", "board", "backend") else "right")
    for family, size in scores.classes:
        for backend in scores.backends:
            st = scores.by_class.get((family, size, backend))
            if st:
                table.add_row(Text(family), Text(size), Text(backend), f"{st.boards}/{st.runs}",
                              number(st.mean), number(st.min), number(st.max), number(st.max_score), share(st.share),
                              str(st.proven), seconds(st.reached),
                              f"[magenta]{st.errors}[/]" if st.errors else "0")
    _wide().print(table)
    out.print(Text("best board on: " + ", ".join(f"{b} {scores.wins.get(b, 0)}" for b in scores.backends)
                   + f" (of {len(scores.winners)} instances)"), highlight=False, soft_wrap=True)
    for line in boardless_lines(summary):  # a 0 in the boards column says why
        out.print(Text.assemble(("no board", "yellow"), f": {line}"), highlight=False, soft_wrap=True)


def _list(db: Path, as_json: bool = False) -> None:
    from edgematch.bench.store import Store

    if not db.exists():
        raise UsageError(f"{db}: no results database yet (run `edgematch bench` first)")
    with Store(db) as store:
        sessions = store.sessions()
        if as_json:
            rows = []
            for s in sessions:
                c = Counter(r.category for r in store.runs(s.id))
                rows.append({"session": s.id, "started": s.started, "finished": s.finished, "suite": s.suite.name,
                             "source": s.source, "state": s.state, "planned": s.planned, "stored": s.done,
                             "repeat": s.suite.repeat, "categories": {k: c[k] for k in _MARKS},
                             "elapsed": round(s.elapsed, 3), "jobs": s.jobs, "commit": s.environment.get("commit"),
                             "skipped": s.environment.get("skipped", {}),
                             "unanswered": s.environment.get("unanswered", []),
                             "unknown_fingerprints": store.unknown_fingerprints(s.id)})
            sys.stdout.write(json.dumps({"database": str(db), "sessions": rows}, indent=2) + "\n")
            return
        table = _table(Text(f"bench sessions in {db}"))
        for name in ("session", "started", "suite", "state", "runs", "correct", "wrong", "timeout", "error",
                     "benched", "jobs", "commit"):
            table.add_column(name, justify="right" if name in ("session", "runs", "correct", "wrong", "timeout",
                                                                 "error", "jobs", "benched") else "left")
        for s in sessions:
            c = Counter(r.category for r in store.runs(s.id))  # after the agreement check
            table.add_row(str(s.id), Text(s.started.replace("T", " ")[:19]), Text(s.suite.name), Text(s.state),
                          f"{s.done}/{s.planned}", str(c["correct"]),
                          f"[bold red]{c['wrong']}[/]" if c["wrong"] else "0", str(c["timeout"]), str(c["error"]),
                          f"{s.elapsed:.1f} s", str(s.jobs), Text(str(s.environment.get("commit") or "")[:10]))
        _wide().print(table)


@app.command("report")
def report_command(
    session: SessionArg = None,
    db: DbOpt = DEFAULT_DB,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Folder for report.md and report.html "
                                                "(default reports/DB/session-N, DB the database's name, e.g. "
                                                "reports/bench/session-1).")] = None,
    scatter: Annotated[str | None, typer.Option(help="The two backends of the scatter plot, A,B "
                                                "(default: the two best by PAR2).")] = None,
) -> None:
    """Write the Markdown and HTML report of a stored bench session (nothing is re-run)."""
    from edgematch.bench.report import write_report
    from edgematch.bench.store import Store

    with reported():
        pair = _items(scatter, "--scatter")
        if scatter is not None and len(pair) != 2:
            raise UsageError(f"--scatter wants two backends A,B, got {scatter!r}")
        _existing(db)
        with Store(db) as store:
            written = write_report(store, session, output, (pair[0], pair[1]) if pair else None)
        out.print(Text(f"report: {written.markdown}"), soft_wrap=True)
        if written.html:
            out.print(Text(f"report: {written.html}"), soft_wrap=True)
        else:
            err.print(Text.assemble(("no HTML page", "yellow"), f": {written.problem}"), soft_wrap=True)


@app.command()
def compare(
    before: Annotated[int, typer.Argument(help="The earlier session.")],
    after: Annotated[int, typer.Argument(help="The later session.")],
    factor: Annotated[float, typer.Option(min=1.0, help="List runs whose time moved by more than this factor.")]
    = 1.1,
    min_time: Annotated[float, typer.Option(help="Ignore time moves where both runs took less than this, s.")]
    = 0.01,
    apart: Annotated[bool, typer.Option("--apart", help="When an instance name stands for different puzzles in "
                                        "the two sessions, list those apart and compare the rest (default: "
                                        "refuse).")] = False,
    db: DbOpt = DEFAULT_DB,
) -> None:
    """What moved between two sessions: slower or faster by more than --factor, or a changed category. Runs
    are matched by their puzzle's content (fingerprint), never by name alone; two sessions with no run in
    common (puzzle, backend and task) are one line and exit 2, as there is nothing to compare (with --apart
    and names standing for different puzzles, the line and that list, exit 0)."""
    from edgematch.bench.compare import compare as compared
    from edgematch.bench.report import seconds
    from edgematch.bench.store import Store

    with reported():
        _existing(db)
        with Store(db) as store:
            a, b = store.session(before), store.session(after)
            result = compared(store.runs(a.id), store.runs(b.id), factor, min_time, a.suite.timeout)
        if result.different and not apart:
            shown = ", ".join(f"{d.instance} ({d.before} / {d.after})" for d in result.different[:3])
            more = f" and {len(result.different) - 3} more" if len(result.different) > 3 else ""
            raise UsageError(f"sessions {a.id} and {b.id} hold different puzzles under the same name: {shown}{more} "
                             "(fingerprints differ: another generator version or file); their times are not "
                             "comparable. Add --apart to compare the rest and list these separately")
        if not result.matched:  # nothing in common: one line, not an empty table
            none = (f"sessions {a.id} and {b.id} have no puzzle and backend in common ({result.only_before} runs "
                    f"only in session {a.id}, {result.only_after} only in session {b.id})")
            if not (apart and result.different):
                raise UsageError(f"{none}: nothing to compare")
            out.print(Text(f"{none}: no times to compare"), highlight=False, soft_wrap=True)
        else:
            table = _table(f"session {a.id} -> {b.id}: {len(result.changes)} of {result.matched} matched runs moved "
                           f"(factor {factor:g}, times under {min_time:g} s ignored)")
            for name in ("instance", "backend", "change", f"session {a.id}", f"session {b.id}", "ratio"):
                table.add_column(name, justify="right" if name in ("ratio",) or name.startswith("session") else "left")
            for c in result.changes:
                colour = "red" if c.kind in ("slower", "unsolved now") or c.after.category == "wrong" else "green"
                left = seconds(c.before.time) if c.before.solved else c.before.category
                right = seconds(c.after.time) if c.after.solved else c.after.category
                table.add_row(Text(c.instance), Text(c.backend), f"[{colour}]{c.kind}[/]", left, right,
                              f"{c.ratio:.2f}x" if c.ratio else "")
            _wide().print(table)
            if result.only_before or result.only_after:
                out.print(f"unmatched: {result.only_before} runs only in session {a.id}, "
                          f"{result.only_after} only in session {b.id}")
        if result.different:
            out.print(f"not compared: {len(result.different)} instance names stand for different puzzles in the two "
                      "sessions:", highlight=False)
            for d in result.different:
                out.print(Text(f"  {d.instance}: {d.before} in session {a.id}, {d.after} in session {b.id}"),
                          highlight=False, soft_wrap=True)
        if result.by_name_only:
            out.print(f"[yellow]note[/]: {result.by_name_only} matched runs were stored before puzzle fingerprints "
                      "and are matched by name only (their puzzles may differ)", highlight=False)


@app.command()
def export(
    session: SessionArg = None,
    db: DbOpt = DEFAULT_DB,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (.csv or .json); "
                                                "default standard output.")] = None,
    to: Annotated[str | None, typer.Option("--to", help="csv or json (default: from the file name, else csv).")]
    = None,
) -> None:
    """Stored runs of a session as CSV (one row per run) or JSON (with the session's environment and plan)."""
    from edgematch.bench.export import FORMATS, to_csv, to_json
    from edgematch.bench.store import Store

    with reported():
        kind = to or (output.suffix.lstrip(".").lower() if output and output.suffix else "csv")
        if kind not in FORMATS:
            raise UsageError(f"--to must be one of {', '.join(FORMATS)}, got {kind!r}")
        _existing(db)
        with Store(db) as store:
            found = store.session(session)
            text = (to_csv if kind == "csv" else to_json)(found, store.runs(found.id))
        if output is None:
            typer.echo(text, nl=False)
        else:
            save(output, text)
            err.print(Text(f"wrote {output}"), soft_wrap=True)


def _existing(db: Path) -> None:
    if not db.exists():
        raise UsageError(f"{db}: no results database (run `edgematch bench` first, or name one with --db)")


@app.command("policy")
def policy_command(
    db: DbOpt = DEFAULT_DB,
    session: Annotated[list[int] | None, typer.Option("--session", help="Sessions to learn from, repeatable "
                                                      "(default: the latest).")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Policy file to write (default: your "
                                                "user policy, which auto then reads instead of the shipped one; "
                                                "$EDGEMATCH_POLICY names another).")] = None,
    cite: Annotated[str | None, typer.Option(help="Where readers find the results, as the policy names it "
                                             "(e.g. the curated exports in benchmarks/results; default: the --db "
                                             "file name).")] = None,
    keep: Annotated[Path | None, typer.Option(
        "--keep", help="A policy file whose rules for the questions these sessions did not measure are carried "
        "over (e.g. add best rules to the shipped policy without dropping its first rules).")] = None,
) -> None:
    """Derive the auto policy from bench sessions: per question, puzzle kind and size, the backend (or a
    two-backend portfolio) with the lowest PAR2 (question best: the highest mean score)."""
    import shlex

    from edgematch.bench.policy import default_policy_path, load_sessions, policy_text
    from edgematch.bench.store import Store
    from edgematch.solvers.policy import POLICY_ENV, load_policy

    with reported():
        _existing(db)
        kept = load_policy(keep) if keep is not None else None
        with Store(db) as store:
            ids = session or [store.session().id]
            sessions = load_sessions(store, ids)
        words = ["edgematch", "policy", "--db", str(db), *(x for n in ids for x in ("--session", str(n))),
                 "--keep", str(keep), *(["--cite", cite] if cite else []), *(["-o", str(output)] if output else [])]
        command = shlex.join(words) if kept is not None else ""
        text = policy_text(sessions, cite or db.name, str(db), keep=kept, command=command)
        target = output or default_policy_path()
        if output is None:  # the user config directory may not exist yet
            target.parent.mkdir(parents=True, exist_ok=True)
        save(target, text)
        rules = load_policy(target).rules
        table = _table(Text(f"{len(rules)} rules from session(s) {', '.join(map(str, ids))} of {db}"))
        for name in ("question", "kind", "up to", "backend"):
            table.add_column(name)
        for rule in rules:
            kind = f"{'framed' if rule['framed'] else 'unframed'} {rule['rule']}" + (
                "" if "rotations" not in rule else ", tiles turn" if rule["rotations"] else ", tiles fixed") + (
                ", rim colours >= inner" if rule.get("rim_tight") else "")
            table.add_row(Text(str(rule["question"])), Text(kind), f"{rule['up_to_tiles']} tiles",
                          Text(str(rule["backend"])))
        _wide().print(table)
        _print_fits(sessions)
        read = "auto reads it" if output is None or target.resolve() == default_policy_path().resolve() else \
            f"auto reads it with {POLICY_ENV}={target}"
        out.print(Text(f"policy: {target} ({read}; the shipped policy is unchanged)"), highlight=False, soft_wrap=True)


def _print_fits(sessions: list[tuple[Any, list[Any]]]) -> None:
    """auto against the virtual best per family: with rules from all the data, and cross-validated (rules
    derived without the family, as a puzzle unlike any measured would meet them)."""
    from edgematch.bench.policy import fit
    from edgematch.bench.summary import FLOOR

    table = _table("auto against the virtual best per family (PAR2; cross-validated: rules derived without "
                   f"the family; worst: the largest per-instance ratio, times floored at {FLOOR * 1000:g} ms)")
    for name in ("family", "instances", "auto / best", "worst", "cross-validated", "worst", "missed",
                 "worst instance (cross-validated)"):
        table.add_column(name, justify="left" if name.startswith(("family", "worst instance")) else "right")
    inside = {f.family: f for f in fit(sessions, cross=False)}
    cross = fit(sessions, cross=True)
    for f in cross:
        own = inside[f.family]
        table.add_row(Text(f.family), str(f.instances), f"{own.ratio:.2f}x", f"{own.worst:.1f}x", f"{f.ratio:.2f}x",
                      f"{f.worst:.1f}x", str(f.missed), Text(f.worst_instance))
    if cross:
        table.add_row("worst family", "", f"{max(inside[f.family].ratio for f in cross):.2f}x",
                      f"{max(inside[f.family].worst for f in cross):.1f}x", f"{max(f.ratio for f in cross):.2f}x",
                      f"{max(f.worst for f in cross):.1f}x", str(sum(f.missed for f in cross)), "")
    _wide().print(table)
