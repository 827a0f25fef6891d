"""``edgematch best``: the best-score question (the Eternity II one), anytime, with nothing found ever lost.

A live line shows the best score so far, the time and the search rate. Every better board is written to
``--save`` the moment it is found (to a fresh temporary file renamed over the old one, so a killed process
leaves the last complete board; only a regular file is replaced). A save that fails (a full disk) is one
warning, and the search goes on. On the time limit or Ctrl-C the best board is printed (and saved).
``--workers N`` and ``--cluster`` run independent chains of the native search that share the best board
(:mod:`edgematch.solvers.native.best.chains`); the line above and the file follow the best of them all. The summary
says the board's clue regime ("5 hints", "no hints"): the hints it keeps, counted by the checker.

Exit codes: 0 a board (a full solution or not: ``optimal`` says whether its score is proven the maximum),
1 no admissible board exists (the tiles cannot fill the frame and hints), 2 bad input, or ``--save`` could
not write the best board (it is printed all the same: a script must not take the file for the answer), 3 no
board within the time, 4 the backend failed, 130 interrupted (after printing and saving the best board).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import Progress as Bar
from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from edgematch import clock
from edgematch import formats as fmt
from edgematch.cli.app import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_USAGE, app, err, out, reported
from edgematch.cli.commands import FormatOpt
from edgematch.cli.solve import (
    EXIT_FAILED,
    EXIT_TIMEOUT,
    BackendOpt,
    JsonOpt,
    OptionOpt,
    OutputOpt,
    Render,
    TimeOpt,
    WorkersOpt,
    backend_options,
    draw_board,
    drawing,
    interruptible,
    print_json,
    result_json,
    setup_rows,
    show_board,
    wrote,
)
from edgematch.core.checker import hint_violations
from edgematch.core.model import Puzzle, Solution
from edgematch.errors import BackendError, EdgematchError, Interrupted, MissingDependencyError, UsageError
from edgematch.formats.source import writable
from edgematch.solvers import Result, Status
from edgematch.solvers import best as best_board
from edgematch.solvers.api import BEST_TIME_LIMIT
from edgematch.solvers.base import INTERRUPTED
from edgematch.solvers.policy import regime


class Keeper:
    """The best board so far, saved to ``path`` (when given) as soon as it is found.

    A save that fails (a full disk) does not stop the search: the board stays here to be printed at the end,
    the file keeps the last board that was written whole, and one warning on stderr names the file and the
    reason (the first time only; a later board is tried again, so freeing space helps)."""

    def __init__(self, puzzle: Puzzle, path: Path | None, save_format: str | None, began: float):
        self.puzzle, self.path, self.save_format, self.began = puzzle, path, save_format, began
        self.board: Solution | None = None
        self.score = -1
        self.history: list[tuple[float, int]] = []
        self.saved = -1  # the score of the board the file holds (written by this run), -1 for none
        self.failure: str | None = None  # why the last save failed (None once one succeeds again)
        self.warned = False

    def __call__(self, board: Solution, score: int) -> None:
        if score <= self.score:
            return
        self.board, self.score = board, score
        self.history.append((clock.now() - self.began, score))
        self.save()

    def save(self) -> None:
        """Write the board held to ``path``, whole or not at all (:func:`edgematch.formats.source.save`)."""
        if self.path is None or self.board is None or self.saved == self.score:
            return
        try:
            fmt.write_solution(self.board, self.path, format=self.save_format or fmt.writer_for(
                self.path, None, solution=True).name, puzzle=self.puzzle)
        except EdgematchError as exc:
            self.failure = str(exc)
            if not self.warned:
                self.warned = True
                err.print(Text.assemble(("edgematch: warning: ", "bold yellow"), self.failure, "; the search goes "
                                        "on, and the best board is printed at the end"), soft_wrap=True,
                          highlight=False)
            return
        self.saved, self.failure = self.score, None

    def unsaved(self) -> str | None:
        """The line to end with when the best board is not in the file (None when it is, or none was asked)."""
        if self.path is None or self.board is None or self.failure is None:
            return None
        kept = (f"{self.path} keeps the board of score {self.saved}" if self.saved >= 0
                else f"{self.path} was not written")
        return f"{self.failure}: the best board (score {self.score}) is printed above; {kept}"


@contextlib.contextmanager
def live_score(max_score: int, keeper: Keeper) -> Iterator[Callable[[dict[str, float]], None] | None]:
    """A transient line: best score of the maximum, nodes per second, elapsed (on a terminal only)."""
    if not err.is_terminal:
        yield None
        return
    columns = (SpinnerColumn(), TextColumn("[bold]best[/] {task.fields[score]}/" + str(max_score)),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn())
    with Bar(*columns, console=err, transient=True) as bar:
        task = bar.add_task("best", total=None, score="-", rate="")

        def update(info: dict[str, float]) -> None:
            elapsed = max(info.get("elapsed", 0.0), 1e-9)
            rate = f"{info['nodes'] / elapsed / 1e6:.1f} M nodes/s" if "nodes" in info else ""
            shown = max(keeper.score, int(info.get("score", -1)))
            bar.update(task, score=shown if shown >= 0 else "-", rate=rate)

        yield update


def best_exit_code(result: Result) -> int:
    """0 with a board, 1 when no admissible board exists, 3 with none in time, 4 a failure, 130 Ctrl-C."""
    if result.message == INTERRUPTED:
        return EXIT_INTERRUPTED
    if result.status is Status.ERROR:
        return EXIT_FAILED
    if result.status is Status.UNSAT:
        return EXIT_INVALID
    return 0 if result.solution is not None else EXIT_TIMEOUT


def hints_kept(puzzle: Puzzle, board: Solution) -> int:
    """How many of the puzzle's hints ``board`` respects, as the checker sees it (every admissible board keeps
    them all today; counted from the board so that a mode dropping hints could not claim them)."""
    broken = {v.cell for v in hint_violations(puzzle, board)}
    return len(puzzle.hints) - len(broken)


def _chains_row(counters: dict[str, Any]) -> str | None:
    """Each chain's score and rate (``--workers``, ``--cluster``), or None for one search."""
    n = int(counters.get("chains", 0))
    if n < 2:
        return None
    parts = []
    for i in range(n):
        rate = counters.get(f"chain{i}_states_per_s", counters.get(f"chain{i}_nodes_per_s"))
        score = counters.get(f"chain{i}_score")
        unit = "states" if f"chain{i}_states_per_s" in counters else "nodes"
        parts.append(f"#{i} " + (f"{score}" if score is not None else "no report")
                     + (f" at {float(rate) / 1e6:.2f} M {unit}/s" if rate is not None else ""))
    lost = f"; {int(counters['chains_lost'])} lost" if counters.get("chains_lost") else ""
    return f"{n}: " + ", ".join(parts) + lost


def _summary(result: Result, puzzle: Puzzle | None = None) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan")
    table.add_column()
    note = f" ({result.message})" if result.message else ""  # verbatim: a message may name a file
    if result.solution is not None and result.score is not None and result.max_score is not None:
        breaks = result.max_score - result.score
        verdict = ("a full solution" if breaks == 0 else "proven the maximum" if result.optimal
                   else "not proven the maximum")
        table.add_row("score", f"[bold]{result.score}[/]/{result.max_score} seams fit, {breaks} break(s): {verdict}")
    else:
        table.add_row("score", Text(f"no board{note}"))
    if puzzle is not None and result.solution is not None:
        kept = hints_kept(puzzle, result.solution)
        of = "every hint of the puzzle" if kept == len(puzzle.hints) else f"of the puzzle's {len(puzzle.hints)}"
        table.add_row("hints", f"{regime(kept)} kept ({of})" if puzzle.hints else "no hints (the puzzle has none)")
    table.add_row("status", Text(f"{result.status.value}{note}"))
    settings = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                         for k, v in result.options.items() if v is not None)
    table.add_row("backend", Text(f"{result.backend} ({settings})" if settings else result.backend))
    if result.history:
        last_t, last_s = result.history[-1]
        table.add_row("improved", f"{len(result.history)} time(s); last at {last_t:.2f} s (to {last_s})")
    t = result.timings
    table.add_row("time", f"{t.total:.3f} s (build {t.build:.3f}, search {t.solve:.3f}, check {t.check:.3f})")
    c = result.counters
    if "nodes" in c:
        rate = c.get("nodes_per_s", c.get("nodes_per_second", 0.0))
        table.add_row("search", f"{int(c['nodes']):,} nodes, {float(rate) / 1e6:.2f} M nodes/s"
                      + (f", {int(c['restarts'])} restarts" if "restarts" in c else ""))
    elif "states" in c:
        rate = c.get("states_per_s", 0.0)
        table.add_row("search", f"{int(c['states']):,} beam states, {float(rate) / 1e6:.2f} M states/s"
                      + (f", {int(c['beams'])} beams" if "beams" in c else ""))
    chains = _chains_row(c)
    if chains:
        table.add_row("chains", chains)
    setup_rows(table, c)
    return table


def final_exit_code(result: Result, keeper: Keeper) -> int:
    """:func:`best_exit_code`, except that a run whose best board ``--save`` could not write exits 2 where it
    would exit 0 (the board is printed, but the file a script asked for does not hold it)."""
    code = best_exit_code(result)
    return EXIT_USAGE if code == 0 and keeper.unsaved() is not None else code


def best_json(result: Result, url: str | None, keeper: Keeper | None = None,
              puzzle: Puzzle | None = None) -> dict[str, Any]:
    """``--json``: the solve result's fields plus score, maximum, optimal, history, the viewer link, the clue
    regime (``hints_kept``: how many hints the board respects, by the checker; ``regime``: "5 hints", "1 hint",
    "no hints"; both null without a board) and, with ``--save``, ``save_error`` (why the best board is not in
    the file, or null)."""
    data = result_json(result)
    data["exit_code"] = best_exit_code(result) if keeper is None else final_exit_code(result, keeper)
    kept = hints_kept(puzzle, result.solution) if puzzle is not None and result.solution is not None else None
    data.update(score=result.score, max_score=result.max_score, optimal=result.optimal,
                history=[[round(t, 6), s] for t, s in result.history], url=url,
                hints_kept=kept, regime=None if kept is None else regime(kept))
    if keeper is not None and keeper.path is not None:
        data["save_error"] = keeper.unsaved()
    return data


@app.command("best")
def best_cmd(
    file: Annotated[Path, typer.Argument(help="Puzzle file (any supported format).")],
    backend: BackendOpt = "auto",
    time_limit: TimeOpt = BEST_TIME_LIMIT,
    workers: WorkersOpt = 1,
    option: OptionOpt = None,
    save: Annotated[Path | None, typer.Option(
        "--save", help="Write every better board to this file as soon as it is found (.emsol, .json, .sol); "
        "a regular file is replaced whole, anything else there is refused. If a save fails (a full disk), the "
        "search goes on with one warning, the board is printed at the end and the exit code is 2.")] = None,
    save_format: Annotated[str | None, typer.Option(
        "--save-format", help="Format of --save (e.g. e2dev: the eternity2.dev board document).")] = None,
    render: Annotated[Render | None, typer.Option("--render", help="Draw the best board.")] = None,
    output: OutputOpt = None,
    url: Annotated[bool, typer.Option(
        "--url", help="Print the board's link for the eternity2.dev viewer (same rule, frame 0 puzzles).")] = False,
    url_site: Annotated[str | None, typer.Option(
        "--url-site", help="The viewer --url links to: eternity2.dev (default) or e2.bucas.name.")] = None,
    format: FormatOpt = None,
    as_json: JsonOpt = False,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="Run native's search as independent chains on a Dask cluster, one per worker: local:N "
        "(N worker processes started for this run) or a scheduler address such as tcp://host:8786 (needs "
        "edgematch\\[dask]). --workers N runs N chains on this machine instead.")] = None,
) -> None:
    """The best board within the time: every tile used, seams allowed to break, as many fitting as found.
    With --workers N (or --cluster), N independent chains of the search share the best board."""
    from edgematch.formats import e2dev

    with interruptible(), reported():
        puzzle = fmt.read_puzzle(file, format)
        options = backend_options(None, option)
        if url_site is not None and not url:
            raise UsageError("--url-site chooses the viewer of --url: give --url too")
        if save_format is not None and save is None:
            raise UsageError("--save-format is the format of --save: give --save FILE too")
        url_site = url_site or "eternity2.dev"
        if url_site not in ("eternity2.dev", "e2.bucas.name"):
            raise UsageError(f"--url-site: eternity2.dev or e2.bucas.name, got {url_site!r}")
        if url and (why := e2dev.viewer_refusal(puzzle)):
            raise UsageError(f"--url: {why}")
        if save_format is not None:
            fmt.writer_for(None, save_format, solution=True)  # an unknown format fails before the search
        for target in (save, output):
            if target is not None:
                writable(target)  # so does a --save or -o that is a folder, link or device, or in no folder
        render = drawing(render, output, as_json)
        if cluster is not None and backend.partition(":")[0] not in ("auto", "native"):
            raise UsageError(f"--cluster runs the native backend's chains; -b {backend} does not run on a cluster")
        keeper = Keeper(puzzle, save, save_format, clock.now())
        try:
            with live_score(puzzle.seam_count, keeper) as progress:
                result = best_board(puzzle, backend, time_limit, workers, progress=progress, on_improve=keeper,
                                    cluster=cluster, **options)
        except Interrupted as stop:  # the library stopped its search and kept the best board it had
            result = stop.result
        except KeyboardInterrupt:  # outside the backend's own handling: keep what the keeper holds
            result = Result(backend, Status.TIMEOUT, [keeper.board] if keeper.board else [], message=INTERRUPTED,
                            score=keeper.score if keeper.board else None, max_score=puzzle.seam_count,
                            history=keeper.history)
        except MissingDependencyError:
            raise
        except BackendError as exc:
            result = Result(backend, Status.ERROR, message=str(exc))
        board = result.solution
        if board is not None and save is not None:
            if keeper.score < (result.score or 0):
                keeper(board, result.score or 0)  # a backend that did not stream its last board
            else:
                keeper.save()  # the board a Ctrl-C cut short while it was being written
        link = e2dev.viewer_url(puzzle, board, site=url_site) if url and board is not None else None  # type: ignore[arg-type]
        if board is not None and render is not None and output is not None:
            draw_board(puzzle, board, render, output)
        if as_json:
            print_json(best_json(result, link, keeper, puzzle))
            raise typer.Exit(final_exit_code(result, keeper))
        if board is not None and (render is None or render is Render.ascii and output is None):
            show_board(puzzle, board)
        out.print(_summary(result, puzzle))
        if link:
            out.print(Text.assemble(("view: ", "bold"), link), soft_wrap=True, highlight=False)
        unsaved = keeper.unsaved()
        if board is not None and render is not None and output is not None:
            wrote("board drawn to", output)
        if save is not None and board is not None and unsaved is None:
            wrote("saved to", save)
        code = final_exit_code(result, keeper)
        if code == EXIT_FAILED:
            err.print(Text.assemble(("edgematch: ", "bold red"), result.message or f"{result.backend} failed"),
                      soft_wrap=True, highlight=False)
        if unsaved is not None:
            err.print(Text.assemble(("edgematch: ", "bold red"), unsaved), soft_wrap=True, highlight=False)
        if code:
            raise typer.Exit(code)
