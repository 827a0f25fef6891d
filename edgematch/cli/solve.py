"""Solving commands: ``edgematch solve`` and ``edgematch count``, with a live progress display.

Exit codes: 0 solved (or counted), 1 no solution, 2 bad input, 3 stopped by the time limit with no
answer, 130 interrupted (after printing what was found so far).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from edgematch.cli.commands import FormatOpt, emit
from edgematch.cli.main import EXIT_INTERRUPTED, EXIT_INVALID, app, err, out, reported
from edgematch.core import formats as fmt
from edgematch.core.model import Puzzle
from edgematch.errors import UsageError
from edgematch.solvers import Result, Status, count, solve_all
from edgematch.solvers import solve as solve_puzzle
from edgematch.solvers.base import Question, Task
from edgematch.solvers.policy import choose

EXIT_TIMEOUT = 3

BackendOpt = Annotated[
    str, typer.Option("--backend", "-b", help="auto (default: chosen by the measured policy), native, cpsat, "
                      "cpsat:table, sat[:SOLVER], portfolio[:A+B].")
]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option("--option", "-O", help="Backend option KEY=VALUE, repeatable (e.g. symmetry=off, seed=3)."),
]
TimeOpt = Annotated[float | None, typer.Option("--time-limit", "-t", help="Stop after this many seconds.")]
WorkersOpt = Annotated[int, typer.Option("--workers", "-j", help="Processes to split the search over.")]
ExplainOpt = Annotated[
    bool, typer.Option("--explain", help="Say which backend auto chooses for this puzzle, and the measured reason.")
]
OrderOpt = Annotated[
    str | None, typer.Option("--order", help="Native fill order: row (default), spiral or frame.")
]


class Render(StrEnum):
    ascii = "ascii"
    svg = "svg"
    png = "png"


@contextlib.contextmanager
def live_progress(what: str) -> Iterator:
    """A transient progress line (nodes, solutions, rate, elapsed) on a terminal; nothing otherwise."""
    if not err.is_terminal:
        yield None
        return
    columns = (
        SpinnerColumn(), TextColumn(f"[bold]{what}[/]"), TextColumn("{task.fields[nodes]:>14,} nodes"),
        TextColumn("{task.fields[solutions]:>10,} boards"), TextColumn("{task.fields[rate]:>7.1f} M nodes/s"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task(what, total=None, nodes=0, solutions=0, rate=0.0)

        def update(info: dict[str, float]) -> None:
            elapsed = max(info["elapsed"], 1e-9)
            bar.update(task, nodes=int(info["nodes"]), solutions=int(info["solutions"]),
                       rate=info["nodes"] / elapsed / 1e6)

        yield update


def backend_options(order: str | None, pairs: list[str] | None) -> dict[str, str]:
    """Backend options from --order and --option KEY=VALUE (the backend refuses unknown keys)."""
    options = {"order": order} if order else {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option wants KEY=VALUE, got {pair!r}")
        options[key.strip()] = value.strip()
    return options


def _summary(result: Result) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan")
    table.add_column()
    colour = {"solved": "green", "unsat": "yellow", "timeout": "yellow", "error": "red"}[result.status.value]
    note = f" ({result.message})" if result.message else ""
    table.add_row("status", f"[{colour}]{result.status.value}[/]{note}")
    settings = ", ".join(f"{k}={v}" for k, v in result.options.items() if v is not None)
    table.add_row("backend", Text(f"{result.backend} ({settings})" if settings else result.backend))
    if result.count is not None:
        bound = "at least " if result.status is Status.TIMEOUT else ""
        table.add_row("solutions", f"{bound}{result.count:,} raw")
    if result.distinct is not None:
        bound = "at least " if result.status is Status.TIMEOUT else ""
        table.add_row("distinct", f"{bound}{result.distinct:,} (up to turning the board)")
    t = result.timings
    table.add_row("time", f"{t.total:.3f} s (build {t.build:.3f}, solve {t.solve:.3f}, check {t.check:.3f})")
    c = result.counters
    if "nodes" in c:
        rate = c.get("nodes_per_second", 0.0)
        table.add_row("search", f"{int(c['nodes']):,} nodes, {rate / 1e6:.1f} M nodes/s")
    if c.get("load_seconds"):
        table.add_row("compiled code", f"loaded in {c['load_seconds']:.2f} s")
    return table


def _explain(puzzle: Puzzle, backend: str, question: Question, workers: int, options: dict[str, str]) -> None:
    if backend == "auto":
        choice = choose(puzzle, question, Task(question, workers=workers, options=options))
        out.print(Text.assemble(("auto chose ", "bold"), (choice.backend, "bold cyan"), ": ", choice.reason))
    else:
        out.print(f"backend {backend} was named, so auto chose nothing", highlight=False)


def _exit(result: Result) -> None:
    if result.message == "interrupted":
        raise typer.Exit(EXIT_INTERRUPTED)
    if result.status is Status.UNSAT:
        raise typer.Exit(EXIT_INVALID)
    if result.status is Status.TIMEOUT and not result.solutions and result.count is None:
        raise typer.Exit(EXIT_TIMEOUT)


@app.command("solve")
def solve_cmd(
    file: Annotated[Path, typer.Argument(help="Puzzle file (any supported format).")],
    backend: BackendOpt = "auto",
    all_: Annotated[bool, typer.Option("--all", help="Find every solution (raw), not just one.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", "-n", help="With --all: stop after N solutions.")] = None,
    time_limit: TimeOpt = None,
    workers: WorkersOpt = 1,
    order: OrderOpt = None,
    option: OptionOpt = None,
    render: Annotated[Render | None, typer.Option("--render", help="Draw the (first) solution.")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Where --render writes.")] = None,
    save: Annotated[
        Path | None, typer.Option("--save", help="Write the (first) solution to this file (.emsol, .json, .sol).")
    ] = None,
    format: FormatOpt = None,
    explain: ExplainOpt = False,
) -> None:
    """Solve a puzzle: one solution, or with --all every one; prints the board and the search figures."""
    from edgematch.core import render as draw

    with reported():
        puzzle = fmt.read_puzzle(file, format)
        options = backend_options(order, option)
        if explain:
            _explain(puzzle, backend, "all" if all_ else "first", workers, options)
        with live_progress("solving") as progress:
            if all_:
                result = solve_all(puzzle, backend, limit, time_limit, workers, progress=progress, **options)
            else:
                if limit is not None:
                    raise typer.BadParameter("--limit goes with --all")
                result = solve_puzzle(puzzle, backend, time_limit, workers, progress=progress, **options)
        first = result.solution
        if first is not None:
            if render is None or render is Render.ascii and output is None:
                out.print(draw.render_terminal(puzzle, first))
            elif render is Render.ascii:
                emit(draw.render_ascii(puzzle, first), output)
            elif output is None:
                raise typer.BadParameter(f"--render {render.value} needs -o FILE")
            else:
                emit(draw.render_svg(puzzle, first) if render is Render.svg else draw.render_png(puzzle, first),
                     output)
            if save is not None:
                fmt.write_solution(first, save, puzzle=puzzle)
        if all_ and len(result.solutions) > 1:
            for i, solution in enumerate(result.solutions, start=1):
                cells = " ".join(f"{t}:{r}" for t, r in solution.cells)
                out.print(f"{i:>6}  {cells}", highlight=False)
    out.print(_summary(result))
    _exit(result)


@app.command("count")
def count_cmd(
    file: Annotated[Path, typer.Argument(help="Puzzle file (any supported format).")],
    distinct: Annotated[bool, typer.Option("--distinct", help="Also count boards that look different.")] = False,
    backend: BackendOpt = "auto",
    time_limit: TimeOpt = None,
    workers: WorkersOpt = 1,
    order: OrderOpt = None,
    option: OptionOpt = None,
    format: FormatOpt = None,
    explain: ExplainOpt = False,
) -> None:
    """Count solutions: raw (every tile and turn assignment) and with --distinct those that look different."""
    with reported():
        puzzle = fmt.read_puzzle(file, format)
        options = backend_options(order, option)
        if explain:
            _explain(puzzle, backend, "count", workers, options)
        with live_progress("counting") as progress:
            result = count(puzzle, distinct, backend, time_limit, workers, progress=progress, **options)
    out.print(_summary(result))
    _exit(result)



