"""Solving commands: ``edgematch solve`` and ``edgematch count``, with a live progress display.

Exit codes, decided in one place (:func:`exit_code`) from the result's status:
0 the complete answer (a solution; every solution or the ``--limit`` asked for; an exact count),
1 no solution, 2 bad input, 3 the time limit came first (nothing found, or an enumeration or count that
did not finish: what was found is printed, a count as "at least N"), 4 the backend failed (status
``error``: every portfolio member died, a solver process died, every worker of a split count died, the
count so far printed as "at least N"; the message goes to stderr),
5 ``--confirm``: a backend of another family gave a different answer (both are printed; one is wrong),
130 interrupted by Ctrl-C (after printing what was found so far).
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import Progress as Bar
from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from edgematch import formats as fmt
from edgematch.cli.app import EXIT_INTERRUPTED, EXIT_INVALID, app, err, out, reported
from edgematch.cli.commands import FormatOpt, emit, none_met_text
from edgematch.core.model import Puzzle, Solution
from edgematch.errors import BackendError, Interrupted, MissingDependencyError, UsageError
from edgematch.formats.source import writable
from edgematch.solvers import Result, Status, count, solve_all
from edgematch.solvers import solve as solve_puzzle
from edgematch.solvers.base import INTERRUPTED, Question, Task
from edgematch.solvers.confirm import Confirmation, Disagreement, family
from edgematch.solvers.policy import POLICY_FILE, SHIPPED, choose

Progress = Callable[[dict[str, float]], None]  # what a live progress line is given to report to

EXIT_TIMEOUT = 3
EXIT_FAILED = 4
EXIT_DISAGREE = 5

def complete_backend(incomplete: str) -> list[str]:
    """Shell completion of ``-b``: every backend name and variant that starts with what was typed."""
    from edgematch.solvers.base import every_backend

    return [name for name in every_backend() if name.startswith(incomplete)]


BackendOpt = Annotated[
    str, typer.Option("--backend", "-b", autocompletion=complete_backend,
                      help="auto (default: chosen by the measured policy), native, native:restarts, native:dfs, "
                           "cpsat, cpsat:bool, cpsat:table, sat (glucose4), sat:SOLVER (glucose42, glucose3, "
                           "cadical195, cadical153, minisat22, maplechrono, maplecm, lingeling, mergesat3, "
                           "minicard), portfolio, portfolio:A+B+...; `edgematch backends` lists them with their "
                           "-O options.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout (one JSON object).")]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option("--option", "-O", help="Backend option KEY=VALUE, repeatable (e.g. symmetry=off, seed=3)."),
]
TimeOpt = Annotated[float | None, typer.Option("--time-limit", "-t", help="Stop after this many seconds.")]
WorkersOpt = Annotated[int, typer.Option("--workers", "-j", help="Processes to split the search over.")]
SolveWorkersOpt = Annotated[int, typer.Option(
    "--workers", "-j", help="Processes on this machine. One solution (native): N searches race and the first "
    "solution stops the rest (the one-process search; the plain search in the column order unless --order is given; "
    "restarts seeded seed+2 onwards; native:dfs splits the tree instead); after 120 s every process takes parts "
    "of the column-order search (-O handover=SECONDS or off); --all: the search split over N processes.")]
ExplainOpt = Annotated[
    bool, typer.Option("--explain", help="Say which backend auto chooses for this puzzle, and the measured reason.")
]
OrderOpt = Annotated[
    str | None, typer.Option("--order", help="Native fill order: auto (default: frame first on a framed board "
                             "whose rim is the tight part, else row), row, column (column by column, each top to "
                             "bottom), spiral, frame, band2 (bands of two rows, column by column), or dynamic (the "
                             "open cell with the fewest candidates next).")
]
ConfirmOpt = Annotated[
    bool, typer.Option("--confirm", help="Re-derive \"no solution\" or the count with a backend of another "
                       "family (native, CP-SAT, SAT) within the same time limit; exit 5 if they differ.")
]


class Render(StrEnum):
    ascii = "ascii"
    svg = "svg"
    png = "png"


OutputOpt = Annotated[Path | None, typer.Option(
    "--output", "-o", help="Draw the board to this file: as --render says, else as its suffix says (.svg, .png; "
                           "any other: text).")]


def drawing(render: Render | None, output: Path | None, as_json: bool) -> Render | None:
    """How the board is drawn: ``--render``, or with ``-o`` alone the kind the file's suffix names (``-o`` was
    ignored without ``--render``); a drawing with nowhere to go is refused."""
    if render is None and output is not None:
        render = {".svg": Render.svg, ".png": Render.png}.get(output.suffix.lower(), Render.ascii)
    if as_json and render is not None and output is None:
        raise UsageError("--json writes to stdout; give --render an output file with -o")
    if render is not None and render is not Render.ascii and output is None:
        raise typer.BadParameter(f"--render {render.value} needs -o FILE")
    return render


def draw_board(puzzle: Puzzle, board: Solution, render: Render, output: Path) -> None:
    """Write ``board`` drawn as ``render`` to ``output`` (safely, as every file the tool writes)."""
    from edgematch import render as draw

    emit(draw.render_ascii(puzzle, board) if render is Render.ascii else draw.render_svg(puzzle, board)
         if render is Render.svg else draw.render_png(puzzle, board), output)


@contextlib.contextmanager
def live_progress(what: str, expected: tuple[float, float] | None = None) -> Iterator[Progress | None]:
    """A transient progress line (nodes, solutions, rate, elapsed) on a terminal; nothing otherwise. With
    ``expected`` (a count's estimated nodes and raw solutions) it also shows the time left by that estimate."""
    if not err.is_terminal:
        yield None
        return
    columns = (
        SpinnerColumn(), TextColumn(f"[bold]{what}[/]"), TextColumn("{task.fields[nodes]:>14,} nodes"),
        TextColumn("{task.fields[solutions]:>10,} raw"), TextColumn("{task.fields[rate]:>7.1f} M nodes/s"),
        TimeElapsedColumn(), TextColumn("{task.fields[left]}"),
    )
    with Bar(*columns, console=err, transient=True) as bar:
        task = bar.add_task(what, total=None, nodes=0, solutions=0, rate=0.0, left="")

        def update(info: dict[str, float]) -> None:
            elapsed = max(info["elapsed"], 1e-9)
            bar.update(task, nodes=int(info["nodes"]), solutions=int(info["solutions"]),
                       rate=info["nodes"] / elapsed / 1e6, left=time_left(info, expected))

        yield update


def time_left(info: dict[str, float], expected: tuple[float, float] | None) -> str:
    """``about N left (estimate)`` from the share done: the nodes searched or the raw solutions found over
    the estimate's, whichever is further on (a memoised count adds solutions without searching their nodes);
    nothing before a second has passed or without an estimate."""
    if expected is None or info["elapsed"] < 1.0:
        return ""
    nodes, raw = expected
    done = max(info["nodes"] / nodes if nodes > 0 else 0.0, info["solutions"] / raw if raw > 0 else 0.0)
    if done <= 0:
        return ""
    if done >= 1:
        return "past the estimate"
    return f"about {_duration(info['elapsed'] * (1 - done) / done)} left (estimate)"


def show_board(puzzle: Puzzle, board: Solution, whole: str = "--render ascii -o FILE, or --render png -o FILE") -> None:
    """Print a board on stdout, never cut: whole lines to a file or a pipe; on a terminal narrower than the
    board, bands of whole tile columns and a note on stderr saying so and how to see it ``whole``."""
    from edgematch.render.terminal import print_board

    note = print_board(out, puzzle, board)
    if note:
        err.print(Text.assemble(("edgematch: note: ", "bold yellow"), note, f"; to see it whole: {whole}"),
                  soft_wrap=True, highlight=False)


def wrote(what: str, path: Path) -> None:
    """One line saying which file a command wrote (``solution saved to out.emsol``)."""
    out.print(Text(f"{what} {path}"), soft_wrap=True)


def backend_options(order: str | None, pairs: list[str] | None) -> dict[str, str]:
    """Backend options from --order and --option KEY=VALUE (the backend refuses unknown keys)."""
    options = {"order": order} if order is not None else {}  # --order '' is refused by the backend, not dropped
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option wants KEY=VALUE, got {pair!r}")
        key = key.strip()
        if key in options:
            given = "--order and -O order" if key == "order" and order else f"-O {key} twice"
            raise UsageError(f"{given}: give each option once")
        options[key] = value.strip()
    return options


def estimate_ignores(backend: str, workers: int, options: list[str] | None, cluster: str | None, confirm: bool,
                     explain: bool) -> None:
    """``count --estimate`` probes the native count's tree in one process: refuse the options it would ignore."""
    unused = [name for name, given in (
        (f"--backend {backend}", backend not in ("auto", "native")), (f"--workers {workers}", workers != 1),
        ("--option", bool(options)), ("--cluster", cluster is not None), ("--confirm", confirm),
        ("--explain", explain)) if given]
    if unused:
        raise UsageError(f"--estimate probes the native count's tree in one process (give --order and "
                         f"--time-limit only); it does not take {', '.join(unused)}")


def _estimate(puzzle: Puzzle, file: Path, seconds: float | None, order: str | None, as_json: bool) -> None:
    """``count --estimate``: what the count would find and cost, as a table or JSON. On Ctrl-C the estimate
    from the batches done so far (if any) is shown before ``interruptible`` says so and exits 130."""
    from edgematch.solvers import estimate
    from edgematch.solvers.api import seconds_problem

    if seconds is not None and (problem := seconds_problem(seconds)):
        raise UsageError(f"time limit {problem}")  # as every other command says it
    try:
        e = estimate(puzzle, seconds if seconds is not None else 1.0, order="auto" if order is None else order)
    except Interrupted as stop:
        if stop.result is not None:
            _show_estimate(stop.result, file, as_json, interrupted=True)
        raise
    _show_estimate(e, file, as_json)


def _show_estimate(e: Any, file: Path, as_json: bool, interrupted: bool = False) -> None:
    """The estimate ``e`` (a ``CountEstimate``) as a table or JSON; ``interrupted``: by Ctrl-C, from fewer
    probes than the time allowed."""
    if as_json:
        print_json({**e.as_dict(), **({"interrupted": True} if interrupted else {})})
        return
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan")
    table.add_column()

    def about(x: float) -> str:
        return f"{x:,.0f}" if x < 1e6 else f"{x:.2g}"

    how = f"{e.probes:,} random probes of the native count's tree" if e.probes else \
        "so small a tree that it was counted: these are exact"
    order = f"{e.order} order" + (", with the row look-ahead" if e.lookahead else "")
    table.add_row("estimate", f"{file} ({'not counted' if e.probes else 'counted'}): {how} ({order}) "
                              f"in {e.elapsed:.2f} s" + (" (interrupted)" if interrupted else ""))
    if e.none_met:
        table.add_row("solutions", none_met_text(e))
    else:
        table.add_row("solutions", f"about {about(e.raw)} raw (batches: {about(e.raw_low)} to {about(e.raw_high)})")
        table.add_row("distinct", f"about {about(e.distinct)} (up to turning the board)")
    table.add_row("search", f"about {about(e.nodes)} nodes (batches: {about(e.nodes_low)} to {about(e.nodes_high)})")
    rate = e.nodes_per_second
    table.add_row("time", f"about {_duration(e.seconds)} on one core at {rate / 1e6:.1f} M nodes/s (measured "
                          "here; the memo and more workers can take less)")
    out.print(table)


def _expected(puzzle: Puzzle) -> tuple[float, float] | None:
    """A quick estimate of the count (nodes, raw solutions) for the live line's time left, or None."""
    from edgematch.errors import EdgematchError
    from edgematch.solvers import estimate

    try:
        guess = estimate(puzzle, ETA_SECONDS)
    except EdgematchError:
        return None
    return guess.nodes, guess.raw


ETA_SECONDS = 0.15  # spent before an interactive count, for its time left


def _duration(seconds: float) -> str:
    """A time span in the largest unit that reads well (s, min, h, days, years)."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.2g} s"


def _summary(result: Result) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan")
    table.add_column()
    colour = {"solved": "green", "unsat": "yellow", "timeout": "yellow", "error": "red"}[result.status.value]
    note = f" ({result.message})" if result.message else ""  # verbatim: it may name a file such as a[1].drat
    table.add_row("status", Text.assemble((result.status.value, colour), note))
    settings = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in result.options.items() if v is not None)
    table.add_row("backend", Text(f"{result.backend} ({settings})" if settings else result.backend))
    bound = "" if result.complete else "at least "
    if result.count is not None:
        table.add_row("solutions", f"{bound}{result.count:,} raw")
    elif bound and len(result.solutions) > 1:  # an enumeration stopped early: what it listed
        table.add_row("solutions", f"{bound}{len(result.solutions):,} raw (listed above)")
    if result.distinct is not None:
        table.add_row("distinct", f"{bound}{result.distinct:,} (up to turning the board)")
    confirmation = result.confirmation
    if confirmation is not None:
        said, colour = {True: ("yes", "green"), False: ("NO", "bold red"), None: ("no", "yellow")}[confirmation.agreed]
        table.add_row("confirmed", Text.assemble((said, colour), ": ", confirmation.detail))
    t = result.timings
    table.add_row("time", f"{t.total:.3f} s (build {t.build:.3f}, solve {t.solve:.3f}, check {t.check:.3f})")
    c = result.counters
    if "nodes" in c:
        rate = c.get("nodes_per_second", 0.0)
        table.add_row("search", f"{int(c['nodes']):,} nodes, {rate / 1e6:.1f} M nodes/s")
    setup_rows(table, c)
    return table


def setup_rows(table: Table, counters: dict[str, Any]) -> None:
    """The rows for what a run spent outside its time limit: loading compiled code, a local cluster's start."""
    if counters.get("load_seconds"):
        table.add_row("compiled code", f"loaded in {counters['load_seconds']:.2f} s")
    if counters.get("cluster_start_seconds"):
        closed = counters.get("cluster_close_seconds")
        closed_text = f", closed in {closed:.2f} s" if closed is not None else ""
        table.add_row("cluster", f"started in {counters['cluster_start_seconds']:.2f} s{closed_text}"
                      " (outside the time limit)")


def result_json(result: Result, explained: dict[str, str] | None = None) -> dict[str, Any]:
    """A result as plain data for ``--json``: status and exit code, every solution as ``[tile, turns]``
    per cell (row-major), counts, timings, counters, options, the second opinion and auto's choice."""
    confirmation = result.confirmation
    data: dict[str, Any] = {
        "status": result.status.value, "exit_code": exit_code(result), "complete": result.complete,
        "backend": result.backend, "message": result.message,
        "solutions": [[[t, r] for t, r in s.cells] for s in result.solutions],
        "count": result.count, "distinct": result.distinct,
        "timings": {"build": result.timings.build, "solve": result.timings.solve, "check": result.timings.check,
                    "total": result.timings.total},
        "counters": result.counters, "options": {k: _plain(v) for k, v in result.options.items()},
        "confirmation": None if confirmation is None else
        {"by": confirmation.by, "agreed": confirmation.agreed, "detail": confirmation.detail},
    }
    if explained is not None:
        data["explain"] = explained
    return data


def _plain(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def print_json(data: Any) -> None:
    """``data`` as indented JSON on stdout (no colour, no wrapping: for scripts)."""
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def _choice(puzzle: Puzzle, backend: str, question: Question, workers: int, options: dict[str, str]
            ) -> dict[str, str]:
    """What ``--explain`` says, as data: the backend auto picks, why, and from which policy file."""
    if backend != "auto":
        return {"backend": backend, "reason": f"backend {backend} was named, so auto chose nothing", "policy": ""}
    choice = choose(puzzle, question, Task(question, workers=workers, options=options))
    return {"backend": choice.backend, "reason": choice.reason, "policy": choice.policy}


def known(backend: str) -> None:
    """Refuse a backend name ``-b`` does not take (or whose library is missing) before anything uses it:
    one ``edgematch: unknown backend ...`` line through ``reported()``, exit 2."""
    from edgematch.solvers.base import get_backend

    get_backend(backend)


def _explain(puzzle: Puzzle, backend: str, question: Question, workers: int, options: dict[str, str]) -> None:
    if backend == "auto":
        choice = choose(puzzle, question, Task(question, workers=workers, options=options))
        out.print(Text.assemble(("auto chose ", "bold"), (choice.backend, "bold cyan"), ": ", choice.reason))
        out.print(Text.assemble(("policy file: ", "bold"), choice.policy if choice.policy != SHIPPED else
                                f"the shipped one ({POLICY_FILE} in the package; no user policy)"), highlight=False)
    else:
        out.print(Text.assemble("backend ", backend, " was named, so auto chose nothing"), highlight=False)


def exit_code(result: Result) -> int:
    """The one rule from a result to the exit code (see the module docstring). A status ``solved`` is a
    complete answer to the question asked; ``timeout`` is not, whatever it found on the way."""
    if result.message == INTERRUPTED:
        return EXIT_INTERRUPTED
    if result.confirmation is not None and result.confirmation.agreed is False:
        return EXIT_DISAGREE
    return {Status.SOLVED: 0, Status.UNSAT: EXIT_INVALID, Status.TIMEOUT: EXIT_TIMEOUT,
            Status.ERROR: EXIT_FAILED}[result.status]


def _exit(result: Result) -> None:
    code = exit_code(result)
    if code == EXIT_FAILED:
        err.print(Text.assemble(("edgematch: ", "bold red"), result.message or f"{result.backend} failed"),
                  soft_wrap=True, highlight=False)
    if code == EXIT_DISAGREE and result.confirmation is not None:
        err.print(Text.assemble(("edgematch: DISAGREEMENT: ", "bold red"), result.confirmation.detail),
                  soft_wrap=True, highlight=False)
    if code:
        raise typer.Exit(code)


def attempt(backend: str, question: Question, call: Callable[[Progress | None], Result],
            expected: tuple[float, float] | None = None) -> Result:
    """``call(progress)`` under a live progress line (with the time left by ``expected``, see
    :func:`live_progress`). Ctrl-C outside a backend's search (loading, building) and a backend's failure
    become results, so they are printed and exit by :func:`exit_code` like any other."""
    try:
        with live_progress("counting" if question == "count" else "solving", expected) as progress:
            return call(progress)
    except Interrupted as stop:  # the library stopped its search and kept what it had found
        return stop.result
    except KeyboardInterrupt:
        return Result(backend, Status.TIMEOUT, count=0 if question == "count" else None, message=INTERRUPTED)
    except MissingDependencyError:
        raise  # an extra to install: bad usage, exit 2
    except Disagreement as exc:  # the first answer stands beside the second opinion that contradicts it
        exc.first.confirmation = Confirmation(exc.second.backend, False, str(exc), exc.second)
        return exc.first
    except BackendError as exc:
        return Result(backend, Status.ERROR, message=str(exc))


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C before or after the search (reading the puzzle, drawing the answer): say so and exit 130."""
    try:
        yield
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _proof_backend(backend: str, all_: bool) -> str:
    """The backend that writes a --proof: a SAT one (``auto`` becomes ``sat``)."""
    if all_:
        raise UsageError("--proof goes with finding one solution, not --all")
    if backend == "auto":
        return "sat"
    if family(backend) != "sat":
        raise UsageError(f"--proof needs a SAT backend (-b sat or sat:NAME), not {backend}")
    return backend


@app.command("solve")
def solve_cmd(
    file: Annotated[Path, typer.Argument(help="Puzzle file (any supported format).")],
    backend: BackendOpt = "auto",
    all_: Annotated[bool, typer.Option("--all", help="Find every solution (raw), not just one; each is listed "
                                       "as one line of tile:turns per cell, row by row.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", "-n", help="With --all: stop after N solutions.")] = None,
    time_limit: TimeOpt = None,
    workers: SolveWorkersOpt = 1,
    order: OrderOpt = None,
    option: OptionOpt = None,
    render: Annotated[Render | None, typer.Option("--render", help="Draw the (first) solution.")] = None,
    output: OutputOpt = None,
    save: Annotated[
        Path | None, typer.Option("--save", help="Write the (first) solution to this file (.emsol, .json, .sol).")
    ] = None,
    format: FormatOpt = None,
    explain: ExplainOpt = False,
    confirm: ConfirmOpt = False,
    proof: Annotated[Path | None, typer.Option(
        "--proof", help="SAT backend: when there is no solution, write the solver's DRAT proof to FILE and the "
        "CNF it refutes beside it (FILE with suffix .cnf), for drat-trim or dratify.")] = None,
    as_json: JsonOpt = False,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="Run on a Dask cluster: local:N (N worker processes started for this command) or a "
        "scheduler address such as tcp://host:8786 (needs edgematch\\[dask]). One solution (native): a search "
        "per worker thread, as --workers runs them, and the first solution stops the rest; --all: the "
        "native search's parts.")] = None,
) -> None:
    """Solve a puzzle: one solution, or with --all every one; prints the board and the search figures."""
    with interruptible(), reported():
        puzzle = fmt.read_puzzle(file, format)
        known(backend)
        options = backend_options(order, option)
        if proof is not None:
            backend = _proof_backend(backend, all_)
            options["proof"] = str(proof)
        if limit is not None and not all_:
            raise typer.BadParameter("--limit goes with --all")
        render = drawing(render, output, as_json)
        for target in (save, output):
            if target is not None:
                writable(target)  # a folder, link or device there, or no such folder: said before the search
        explained = None
        if explain and as_json:
            explained = _choice(puzzle, backend, "all" if all_ else "first", workers, options)
        elif explain:
            _explain(puzzle, backend, "all" if all_ else "first", workers, options)
        if all_:
            result = attempt(backend, "all", lambda progress: solve_all(
                puzzle, backend, limit, time_limit, workers, progress=progress, confirm=confirm, cluster=cluster,
                **options))
        else:
            on = {} if cluster is None else {"cluster": cluster}
            result = attempt(backend, "first", lambda progress: solve_puzzle(
                puzzle, backend, time_limit, workers, progress=progress, confirm=confirm, **on, **options))
        first = result.solution
        if as_json:
            if first is not None and save is not None:
                fmt.write_solution(first, save, puzzle=puzzle)
            if first is not None and render is not None and output is not None:
                draw_board(puzzle, first, render, output)
            print_json(result_json(result, explained))
            raise typer.Exit(exit_code(result))
        written: list[tuple[str, Path]] = []
        if first is not None:
            if render is None or output is None:
                show_board(puzzle, first)
            else:
                draw_board(puzzle, first, render, output)
                written.append(("board drawn to", output))
            if save is not None:
                fmt.write_solution(first, save, puzzle=puzzle)
                written.append(("solution saved to", save))
        if all_ and len(result.solutions) > 1:
            # what the numbers are; a line starting with # (scripts that read the numbered lines pass it by)
            out.print(f"{'#':>6}  cells 0-{puzzle.size - 1}, row by row: tile:turns (tiles from 0, turns "
                      "clockwise)", highlight=False, soft_wrap=True)
            # one print, each solution on one line whatever the width (a print per line took 0.43 s for 1,024)
            out.print("\n".join(f"{i:>6}  " + " ".join(f"{t}:{r}" for t, r in solution.cells)
                                for i, solution in enumerate(result.solutions, start=1)),
                      highlight=False, markup=False, soft_wrap=True)
        out.print(_summary(result))
        for what, path in written:
            wrote(what, path)
        if not all_ and first is None and result.status is Status.TIMEOUT and result.message != INTERRUPTED:
            suggest_best(puzzle, file, time_limit)
    _exit(result)


def suggest_best(puzzle: Puzzle, file: Path, time_limit: float | None) -> None:
    """After ``solve`` ran out of time: on a large board (10x10 and up) or a framed one, point to ``edgematch
    best``, the question such boards are usually asked (the Eternity II kind rarely has a findable solution)."""
    if puzzle.width * puzzle.height < 100 and puzzle.frame is None:
        return
    limit = f" -t {time_limit:g}" if time_limit is not None else ""
    file_arg = shlex.quote(str(file))
    err.print(Text.assemble(("edgematch: note: ", "bold yellow"), "no solution found in the time; for the best "
                            "board (every tile placed, as many seams fitting as found) try ",
                            (f"edgematch best {file_arg}{limit}", "bold")), soft_wrap=True, highlight=False)


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
    confirm: ConfirmOpt = False,
    as_json: JsonOpt = False,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="Run the native search's parts on a Dask cluster: local:N (N worker processes started "
        "for this count) or a scheduler address such as tcp://host:8786 (needs edgematch\\[dask]).")] = None,
    estimate_only: Annotated[bool, typer.Option(
        "--estimate", help="Do not count: estimate the count, the native search's tree and the time it would "
                           "take on one core, from random probes, in about a second (or --time-limit).")] = False,
) -> None:
    """Count solutions: raw (every tile and turn assignment) and with --distinct those that look different."""
    with interruptible(), reported():
        if estimate_only:
            estimate_ignores(backend, workers, option, cluster, confirm, explain)
        puzzle = fmt.read_puzzle(file, format)
        if estimate_only:
            _estimate(puzzle, file, time_limit, order, as_json)
            return
        known(backend)
        options = backend_options(order, option)
        explained = _choice(puzzle, backend, "count", workers, options) if explain and as_json else None
        if explain and not as_json:
            _explain(puzzle, backend, "count", workers, options)
        result = attempt(backend, "count", lambda progress: count(
            puzzle, distinct, backend, time_limit, workers, progress=progress, confirm=confirm, cluster=cluster,
            **options), _expected(puzzle) if err.is_terminal and not as_json else None)
        if as_json:
            print_json(result_json(result, explained))
            raise typer.Exit(exit_code(result))
        out.print(_summary(result))
    _exit(result)





@app.command("backends")
def backends_cmd(as_json: JsonOpt = False) -> None:
    """Every backend: whether it can run here (else the extra to install), its variants, and its -O options
    with their defaults and what each does."""
    from edgematch.solvers.base import backend_class, backend_names

    rows = []
    meanings: dict[str, dict[str, str]] = {}
    for name in backend_names():
        cls = backend_class(name)
        missing = cls().missing() if name != "portfolio" else None
        rows.append({"name": name, "available": missing is None, "missing": missing,
                     "variants": [f"{name}:{sub}" for sub in cls.variants] or (
                         ["portfolio:A+B+..."] if name == "portfolio" else []),
                     "options": {key: cls.defaults.get(key, "") for key in cls.options},
                     "description": cls.description})
        meanings[name] = cls.meanings
    if as_json:
        print_json(rows)
        return
    width = max(out.width, 40)
    for at, row in enumerate(rows):
        if at:
            out.print()
        for line in backend_lines(row, meanings[row["name"]], width):
            out.print(line, soft_wrap=True, highlight=False)


# how `edgematch backends` says a backend takes no -O options of its own
NO_OPTIONS = {"auto": "those of the backend it picks", "portfolio": "none (name a single backend for them)"}


def backend_lines(row: dict[str, Any], meanings: dict[str, str], width: int) -> list[Text]:
    """One backend of ``edgematch backends`` as lines of at most ``width`` characters (none cut): its name and
    whether it runs here (else what to install), its description, its variants, then each -O option as
    ``KEY=DEFAULT — what it does`` on lines of its own, wrapped under it."""
    import textwrap

    def wrapped(text: str, first: str, rest: str) -> list[str]:
        return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                             break_on_hyphens=False)

    here = "runs here" if row["available"] else f"not here: {row['missing']}"
    lines = [Text(line, style="green" if row["available"] else "yellow")
             for line in wrapped(f"{row['name']} - {here}", "", "    ")]
    lines[0].stylize("bold default", 0, len(row["name"]) + 3)
    lines += [Text(line) for line in wrapped(row["description"], "  ", "  ")]
    if row["variants"]:
        lines += [Text(line) for line in wrapped("variants: " + ", ".join(row["variants"]), "  ", "    ")]
    if not row["options"]:
        lines += [Text(line) for line in wrapped(f"-O options: {NO_OPTIONS.get(row['name'], 'none')}", "  ", "    ")]
        return lines
    lines.append(Text("  -O options, as KEY=default — what it does:"))
    for key, default in row["options"].items():
        shown = f"{key}={default}" if default else key
        meaning = meanings.get(key, "")
        option = [Text(line) for line in wrapped(f"{shown} — {meaning}" if meaning else shown, "    ", "        ")]
        option[0].stylize("bold", 4, 4 + len(key))
        lines += option
    return lines
