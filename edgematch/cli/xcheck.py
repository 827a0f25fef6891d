"""``edgematch xcheck``: count seeded random puzzles on every backend and the brute force, and fail on any
disagreement (:mod:`edgematch.bench.xcheck`).

Exit codes: 0 every answer agreed, 1 a failure (each written as a reproducer file), 2 bad options, or a
file in a folder given that is not a puzzle (each is named on stderr as it is skipped, the others are
checked, and the summary says how many were skipped), 130 interrupted (after printing the figures so far).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from edgematch.bench import xcheck as xc
from edgematch.bench.xcheck import Outcome, XcheckReport
from edgematch.cli.app import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_USAGE, app, err, out, reported
from edgematch.errors import UsageError

DEFAULT_COUNT = 300
SHOWN_FAILURES = 20
SHOWN_TIMEOUTS = 5
_YES = {"yes": True, "y": True, "on": True, "true": True, "no": False, "n": False, "off": False, "false": False}


def _yes_no(value: str | None, option: str) -> bool | None:
    if value is None or value.lower() in ("any", "both"):
        return None
    if value.lower() not in _YES:
        raise UsageError(f"{option}: expected yes, no or any, got {value!r}")
    return _YES[value.lower()]


def _sizes(value: str | None) -> tuple[tuple[int, int], ...]:
    from edgematch.cli.commands import parse_size

    if value is None:
        return ()
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise UsageError("--sizes: give sizes like 3x3,2x3")
    return tuple(dict.fromkeys(parse_size(v) for v in items))


def _backends(value: str | None) -> tuple[str, ...]:
    if value is None:
        return xc.DEFAULT_BACKENDS
    items = tuple(v.strip() for v in value.split(",") if v.strip())
    if not items:
        raise UsageError("--backends: give a comma-separated list, e.g. native,cpsat:table")
    return items


@contextlib.contextmanager
def _progress(planned: int) -> Iterator:
    """A live bar on a terminal (done/total, elapsed, eta, failures and timeouts so far); failures are
    printed as they come."""
    if not err.is_terminal:
        def quiet(report: XcheckReport, outcome: Outcome) -> None:
            if outcome.failed:
                err.print(_failure_line(outcome), highlight=False, soft_wrap=True)

        yield quiet
        return
    columns = (TextColumn("[bold]xcheck[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("eta"), TimeRemainingColumn(), TextColumn("{task.fields[tally]}"))
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("xcheck", total=planned, tally="")

        def update(report: XcheckReport, outcome: Outcome) -> None:
            tally = f"[bold red]✗ {len(report.failures)}[/]" if report.failures else "[green]✓[/]"
            if report.timeouts:
                tally += f"  [yellow]⏱ {report.timeouts}[/]"
            bar.update(task, advance=1, tally=tally)
            if outcome.failed:
                bar.console.print(_failure_line(outcome), highlight=False, soft_wrap=True)

        yield update


def _failure_line(outcome: Outcome) -> Text:
    """One failure: the puzzle (a user's file path, or the stream's label), its class, each backend's
    problem and the reproducer; plain text beside the mark, never markup."""
    why = "; ".join(f"{name}: {problem}" for name, problem in outcome.problems.items())
    where = f" -> {outcome.path}" if outcome.path else ""
    case = outcome.case
    return Text.assemble(("✗", "bold red"),
                         f" {case.label} ({case.key}, {case.kind}, hints {case.hints}): {why}{where}")


def _wide() -> Console:
    return out if out.is_terminal else Console(width=140, highlight=False)


def _print(report: XcheckReport) -> None:
    console = _wide()
    names = [n for n in (xc.REFERENCE, *report.backends) if n in report.per_backend]
    table = Table(title="per backend (count, distinct=True)", title_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False)
    killed = any(f.killed for f in report.per_backend.values())
    columns = ("backend", "puzzles", "agreed", "wrong", "errors", "timeouts", *(("killed",) if killed else ()),
               "seconds", "ms/puzzle")
    for column in columns:
        table.add_column(column, justify="left" if column == "backend" else "right")
    for name in names:
        f = report.per_backend[name]
        shown = f"{name} (reference, <= 9 cells)" if name == xc.REFERENCE else name
        table.add_row(Text(shown, style="bold red" if f.wrong or f.errors else ""), f"{f.puzzles:,}",
                      f"{f.agreed:,}", _red(f.wrong), _red(f.errors),
                      f"{f.timeouts:,}", *((f"{f.killed:,}",) if killed else ()), f"{f.seconds:.1f}",
                      f"{1000 * f.seconds / max(f.puzzles, 1):.1f}")
    console.print(table)

    classes = Table(title="per class (wrong answers and errors per backend)", title_justify="left",
                    box=box.SIMPLE_HEAD, pad_edge=False)
    classes.add_column("class")
    classes.add_column("puzzles", justify="right")
    classes.add_column("failed", justify="right")
    for name in names:
        classes.add_column(Text(name), justify="right")
    for key in sorted(report.per_class, key=_class_order):
        c = report.per_class[key]
        wrong = (_red(c.wrong[n]) if c.wrong[n] else "·" for n in names)
        classes.add_row(key, f"{c.puzzles:,}", _red(c.failed), *wrong)
    console.print(classes)

    for outcome in report.failures[:SHOWN_FAILURES]:
        console.print(_failure_line(outcome), highlight=False, soft_wrap=True)
    if len(report.failures) > SHOWN_FAILURES:
        console.print(f"... and {len(report.failures) - SHOWN_FAILURES} more", highlight=False)

    for outcome in report.timed_out[:SHOWN_TIMEOUTS]:
        slow = ", ".join(f"{n} {a.shown()}" for n, a in outcome.answers.items() if a.status == "timeout")
        console.print(Text.assemble(("⏱", "yellow"), f" {outcome.case.label} ({outcome.case.key}, "
                                    f"{outcome.case.kind}): {slow}"), highlight=False, soft_wrap=True)
    if len(report.timed_out) > SHOWN_TIMEOUTS:
        console.print(f"... and {len(report.timed_out) - SHOWN_TIMEOUTS} more puzzles with a timeout", highlight=False)
    of = f" of {report.planned:,}" if report.checked != report.planned else ""
    why = {"time limit": " (the time limit came first)", "interrupted": " (interrupted)"}.get(report.stopped, "")
    timeouts = f", {_counted(report.timeouts, 'timeout')} (not failures)" if report.timeouts else ""
    seed = f", seed {report.seed}" if report.seed is not None else ""
    noun = "puzzle" if (report.planned if of else report.checked) == 1 else "puzzles"
    console.print(f"checked {report.checked:,}{of} {noun}{why} in {report.wall:.1f} s "
                  f"({_counted(report.jobs, 'job')}{seed}){timeouts}", highlight=False)
    if report.failures:
        where = f"reproducers in {report.out}" if report.out else "no reproducers written (--out DIR writes them)"
        console.print(Text.assemble((_counted(len(report.failures), "failing puzzle"), "bold red"), f", {where}"),
                      highlight=False, soft_wrap=True)
    else:
        agreed = "every answer agreed" if not report.stopped else "every answer so far agreed"
        console.print(f"[green]{agreed}[/]", highlight=False)


def _counted(n: int, noun: str) -> str:
    """``n noun`` with the plural where it is one: 1 job, 2 jobs."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _red(n: int) -> str:
    return f"[bold red]{n:,}[/]" if n else "0"


def _class_order(key: str) -> tuple:
    size, *rest = key.split()
    w, h = size.split("x")
    return (int(w) * int(h), int(w), *rest)


@app.command("xcheck")
def xcheck_cmd(
    files: Annotated[list[Path] | None, typer.Argument(help="Puzzle files or folders to check instead of the "
                                                            "generated stream (e.g. reproducers).")] = None,
    count: Annotated[int | None, typer.Option("--count", "-n", help=f"Puzzles to generate (default {DEFAULT_COUNT}).",
                                              show_default=False)] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="Seed of the puzzle stream (default 1).",
                                             show_default=False)] = None,
    time_limit: Annotated[float | None, typer.Option("--time-limit", "-t", help="Seconds for the whole run: no new "
                                                     "puzzle starts after it.")] = None,
    per_call: Annotated[float, typer.Option("--per-call", help="Seconds each backend call may take (then it is "
                                            "a timeout, not a failure).")] = xc.PER_CALL,
    backends: Annotated[str | None, typer.Option("--backends", "-b", help="Comma-separated backends (default "
                                                 f"{','.join(xc.DEFAULT_BACKENDS)}); options after @, e.g. "
                                                 "native@order=dynamic@fc=on.", show_default=False)] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Where reproducer files of failures go "
                                                 f"(default {xc.DEFAULT_OUT}/; with puzzle files, none).",
                                                 show_default=False)] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Calls run at once (default: the usable cores).",
                                             show_default=False)] = None,
    sizes: Annotated[str | None, typer.Option(help="Only these board sizes, e.g. 3x3 or 2x3,3x2.")] = None,
    framed: Annotated[str | None, typer.Option(help="Only framed (yes) or unframed (no) puzzles.")] = None,
    rotations: Annotated[str | None, typer.Option(help="Only puzzles with (yes) or without (no) rotations.")] = None,
    rule: Annotated[str | None, typer.Option(help="Only this rule: same or signed.")] = None,
    kind: Annotated[str | None, typer.Option(help="Only planted or only random puzzles.")] = None,
    reference: Annotated[bool, typer.Option("--reference/--no-reference", help="Run the brute force on boards of "
                                            "up to 9 cells.")] = True,
) -> None:
    """Cross-check the backends: count seeded random puzzles (sizes 1x1..4x4, both rules, framed or not,
    rotations or not, duplicates, true and wrong hints, planted and random) on every backend, distinct too,
    against each other and a brute force; each disagreement is written out as a reproducer. Exit 1 on any;
    exit 2 when a file in a folder given was not a puzzle (skipped, the others checked)."""
    from edgematch.solvers.parallel.processes import usable_cores

    with reported():
        if jobs is not None and jobs < 1:
            raise UsageError(f"--jobs must be at least 1, got {jobs}")
        workers = jobs or usable_cores()
        skipped: list[str] = []
        if files:
            stream = {"--count": count, "--seed": seed, "--sizes": sizes, "--framed": framed,
                      "--rotations": rotations, "--rule": rule, "--kind": kind}
            given = [name for name, value in stream.items() if value is not None]
            if given:
                raise UsageError(f"{', '.join(given)} choose generated puzzles; not with puzzle files")
            cases = xc.cases_from_files(files, skipped)
            for line in skipped:  # a stray file in a folder: named, left out, the others checked
                err.print(Text.assemble(("edgematch: skipped ", "bold yellow"), line), soft_wrap=True,
                          highlight=False)
            if not cases:
                none = f" ({len(skipped)} file(s) skipped: not puzzles)" if skipped else ""
                raise UsageError(f"no puzzle files in {', '.join(map(str, files))}{none}")
            planned, stream_seed = len(cases), None
        else:
            if count is not None and count < 1:
                raise UsageError(f"--count must be at least 1, got {count}")
            planned, stream_seed = count or DEFAULT_COUNT, 1 if seed is None else seed
            classes = xc.Classes(_sizes(sizes), _yes_no(framed, "--framed"), _yes_no(rotations, "--rotations"),
                              rule, kind)
            cases = xc.generate_cases(stream_seed, planned, classes)
            out_dir = out_dir or xc.DEFAULT_OUT  # with puzzle files, they are the reproducers: none unless asked
        with _progress(planned) as watch:
            report = xc.run_xcheck(cases, planned, _backends(backends), per_call=per_call, time_limit=time_limit,
                                jobs=workers, reference=reference, out=out_dir, seed=stream_seed, watch=watch)
    _print(report)
    if skipped:
        _wide().print(Text(f"{len(skipped):,} file{'s' if len(skipped) != 1 else ''} skipped: not puzzles "
                           "(named on stderr)", style="bold yellow"))
    if report.stopped == "interrupted":
        raise typer.Exit(EXIT_INTERRUPTED)
    if report.failures:
        raise typer.Exit(EXIT_INVALID)
    if skipped:
        raise typer.Exit(EXIT_USAGE)
