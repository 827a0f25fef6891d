"""Puzzle commands: generate, render, convert, check, info, formats.

Solving commands (solve, count) and the benchmark (bench, report) live in their own modules.
"""

from __future__ import annotations

import json
import math
import secrets
import sys
from dataclasses import asdict, replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from edgematch import formats as fmt
from edgematch.cli.app import EXIT_INTERRUPTED, EXIT_INVALID, app, err, out, reported
from edgematch.core.analysis import facts, format_count
from edgematch.core.checker import check
from edgematch.core.generator import FAMILIES, GeneratorSpec, generate, preset_conflict, random_tiles
from edgematch.core.model import Puzzle, parse_integer
from edgematch.errors import FormatError, UsageError, quoted
from edgematch.formats.source import save
from edgematch.solvers.api import seconds_problem
from edgematch.solvers.unique import DEFAULT_TIME_LIMIT, DEFAULT_TRIES, unique_puzzle

FormatOpt = Annotated[
    str | None, typer.Option("--format", "-f", help="Input format (default: from extension or content).")
]


def parse_size(text: str) -> tuple[int, int]:
    """``4x5`` (width x height) or ``4`` (square)."""
    parts = text.lower().split("x")
    try:
        numbers = [parse_integer(p) for p in parts]
    except ValueError:
        raise UsageError(f"size must look like 4x4 or 4, got {quoted(text)}") from None
    if len(numbers) == 1:
        numbers *= 2
    if len(numbers) != 2 or min(numbers) < 1:
        raise UsageError(f"size must look like 4x4 or 4 with positive numbers, got {quoted(text)}")
    return numbers[0], numbers[1]


def emit(text: str | bytes, path: Path | None) -> None:
    """Write ``text`` to ``path``, or to standard output."""
    if path is None:
        if isinstance(text, bytes):
            raise UsageError("binary output (PNG) needs -o FILE")
        sys.stdout.write(text)
        return
    save(path, text)


class Rule(StrEnum):
    same = "same"
    signed = "signed"


_OPTION = {"border_colours": "--border-colours", "inner_colours": "--inner-colours", "rule": "--rule signed"}


@app.command("generate")
def generate_cmd(
    size: Annotated[str, typer.Argument(help="Board size: WxH, or N for a square.")],
    like: Annotated[str | None, typer.Option("--like", help="Shaped like real puzzles: clue (the Eternity II clue "
                                             "puzzles: framed, 4 rim + 3 inner colours), e2 (Eternity II's colour "
                                             "proportions), tetravex (digits 0-9, no turning), cards (4 signed "
                                             "pairs), peak (framed, 3 rim colours or --border-colours, the inner "
                                             "colours where a random board expects one solution: the hardest). "
                                             "Options given override the family's settings.")] = None,
    colours: Annotated[int | None, typer.Option("--colours", "-c", help="Colours (unframed puzzles; default 4, "
                                                "or the family's; framed: both colour sets).")] = None,
    framed: Annotated[bool | None, typer.Option("--framed/--no-framed",
                                                help="Frame label 0 around the border.")] = None,
    border_colours: Annotated[
        int | None, typer.Option(help="Colours on rim seams (framed; default --colours).")
    ] = None,
    inner_colours: Annotated[
        int | None, typer.Option(help="Colours on inner seams (framed; default --colours).")
    ] = None,
    rule: Annotated[Rule | None, typer.Option(help="same: equal labels touch; signed: +k touches -k.")] = None,
    rotations: Annotated[bool | None, typer.Option("--rotations/--no-rotations",
                                                   help="Whether tiles may be turned.")] = None,
    duplicates: Annotated[bool, typer.Option(help="Allow identical tiles.")] = True,
    hint: Annotated[bool, typer.Option("--hint", help="Fix the planted centre tile as a hint (row h//2, "
                                       "column w//2-1: the Eternity II clue at 16x16).")] = False,
    unique: Annotated[bool, typer.Option("--unique", help="Exactly one distinct solution: tries derived "
                                         "puzzles until the native backend counts one.")] = False,
    tries: Annotated[int | None, typer.Option(help=f"--unique: puzzles to try (default {DEFAULT_TRIES}).")] = None,
    time_limit: Annotated[float | None, typer.Option(
        help=f"--unique: seconds for the whole search (default {DEFAULT_TIME_LIMIT:g}).")] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed: the same seed gives the same puzzle "
                                             "(default: a fresh one, printed as 'seed N' on stderr).")] = None,
    random: Annotated[
        bool, typer.Option("--random", help="Plain random tiles, no planted solution (the Arc experiment).")
    ] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Puzzle file (default: stdout).")] = None,
    to: Annotated[str | None, typer.Option("--to", help="Output format (default: from -o, else native).")] = None,
    solution: Annotated[Path | None, typer.Option("--solution", help="Also write the planted solution.")] = None,
) -> None:
    """Generate a random puzzle: planted (solvable, shuffled and turned), like a real family, with one
    solution only, or plain random tiles."""
    with reported():
        width, height = parse_size(size)
        writer = fmt.writer_for(output, to).name
        if like is not None and like not in FAMILIES:
            raise UsageError(f"--like: unknown family {quoted(like)} (known: {', '.join(FAMILIES)})")
        if not unique and (tries is not None or time_limit is not None):
            raise UsageError("--tries and --time-limit are for --unique")
        rule_value = rule.value if rule else None
        if random:
            ignored = [name for name, given in (("--framed", framed), ("--solution", solution),
                                                ("--border-colours", border_colours is not None),
                                                ("--inner-colours", inner_colours is not None),
                                                ("--no-duplicates", not duplicates), ("--like", like),
                                                ("--hint", hint), ("--unique", unique)) if given]
            if ignored:
                raise UsageError(f"--random makes plain random tiles; it cannot honour {', '.join(ignored)}")
        elif like is not None:
            conflict = preset_conflict(like, framed, rule_value, border_colours, inner_colours)
            if conflict:
                setting, why = conflict
                option = ("--framed" if framed else "--no-framed") if setting == "framed" else _OPTION[setting]
                raise UsageError(f"--like {like}: {why}; it cannot honour {option}")
        elif not framed and (border_colours is not None or inner_colours is not None):
            raise UsageError("--border-colours and --inner-colours are for --framed puzzles; use --colours")
        if unique and tries is not None and tries < 1:
            raise UsageError(f"--tries must be at least 1, got {tries}")
        problem = None if time_limit is None else seconds_problem(time_limit)
        if problem:
            raise UsageError(f"--time-limit {problem}")
        # checked before a seed is drawn
        spec = GeneratorSpec(
            width, height, colours=colours, framed=None if random else framed,
            border_colours=None if random else border_colours, inner_colours=None if random else inner_colours,
            rule=rule_value, rotations=rotations, duplicates=duplicates, seed=seed or 0, like=like, hint=hint,
        )
        fresh = seed is None
        if seed is None:
            seed = secrets.randbelow(2**31)
        spec = replace(spec, seed=seed)
        if random:
            puzzle = random_tiles(width, height, spec.colours, spec.rule, spec.rotations, seed)  # type: ignore[arg-type]
            planted = None
        else:
            if unique:
                puzzle, planted, used = unique_puzzle(
                    spec, DEFAULT_TRIES if tries is None else tries,
                    DEFAULT_TIME_LIMIT if time_limit is None else time_limit)
                typer.echo(f"one distinct solution after {used} {'try' if used == 1 else 'tries'}", err=True)
            else:
                puzzle, planted = generate(spec)
        text = fmt.write_puzzle(puzzle, format=writer)
        if solution is not None and planted is not None:
            fmt.write_solution(planted, solution, puzzle=puzzle)
        emit(text, output)
        if fresh:  # once written, so a failure stays one line (a failed --unique names its seed itself)
            typer.echo(f"seed {seed}", err=True)


class Style(StrEnum):
    terminal = "terminal"
    ascii = "ascii"
    svg = "svg"
    png = "png"


@app.command("render")
def render_cmd(
    file: Annotated[Path, typer.Argument(help="Puzzle file.")],
    solution: Annotated[Path | None, typer.Option("--solution", "-s", help="Draw this solution's board.")] = None,
    style: Annotated[
        Style | None, typer.Option("--as", help="Output kind (default: from -o's extension, else terminal).")
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Output file (default: stdout).")] = None,
    format: FormatOpt = None,
) -> None:
    """Draw a puzzle's tiles (in a tray) or a solved board: ASCII, coloured terminal, SVG or PNG."""
    from edgematch import render
    from edgematch.render.terminal import print_board

    with reported():
        puzzle = fmt.read_puzzle(file, format)
        sol = fmt.read_solution(solution, puzzle=puzzle) if solution else None
        if style is None:
            suffix = output.suffix.lower() if output else ""
            style = {".svg": Style.svg, ".png": Style.png}.get(suffix, Style.ascii if output else Style.terminal)
        if style is Style.terminal:
            if output is not None:
                raise UsageError("--as terminal draws in this terminal; for a file use --as ascii, svg or png")
            if sol is None:
                out.print(render.render_terminal(puzzle))  # a tray wraps at the terminal's width
            elif note := print_board(out, puzzle, sol):  # a board is never cut
                err.print(Text.assemble(("edgematch: note: ", "bold yellow"), note, "; to see it whole: --as "
                                        "ascii -o FILE, or -o FILE.png"), soft_wrap=True, highlight=False)
        elif style is Style.ascii:
            emit(render.render_ascii(puzzle, sol), output)
        elif style is Style.svg:
            emit(render.render_svg(puzzle, sol), output)
        else:
            emit(render.render_png(puzzle, sol), output)


@app.command("convert")
def convert_cmd(
    source: Annotated[Path, typer.Argument(help="Input file.")],
    target: Annotated[Path | None, typer.Argument(help="Output file (default: stdout).")] = None,
    from_: Annotated[str | None, typer.Option("--from", help="Input format (default: detected).")] = None,
    to: Annotated[str | None, typer.Option("--to", help="Output format (default: from the extension).")] = None,
    solution: Annotated[
        bool, typer.Option("--solution", help="Convert a solution file instead of a puzzle.")
    ] = False,
    puzzle_file: Annotated[
        Path | None, typer.Option("--puzzle", help="The puzzle of a solution (gives the board size to .sol).")
    ] = None,
) -> None:
    """Convert a puzzle (or with --solution a solution) between formats; see `edgematch formats`."""
    with reported():
        if puzzle_file is not None and not solution:
            raise UsageError("--puzzle gives a solution's puzzle: it goes with --solution")
        if solution:
            puzzle = fmt.read_puzzle(puzzle_file) if puzzle_file else None
            sol = fmt.read_solution(source, from_, puzzle)
            text = fmt.write_solution(sol, format=fmt.writer_for(target, to, solution=True).name, puzzle=puzzle)
        else:
            puzzle = fmt.read_puzzle(source, from_)
            try:
                text = fmt.write_puzzle(puzzle, format=fmt.writer_for(target, to).name)
            except FormatError as exc:  # the format cannot hold this puzzle: name the file it was for
                raise FormatError(exc.message, target if target is not None else "<stdout>", exc.line) from None
        emit(text, target)


@app.command("check")
def check_cmd(
    puzzle_file: Annotated[Path, typer.Argument(help="Puzzle file.")],
    solution_file: Annotated[Path, typer.Argument(help="Solution file (native, JSON or .sol).")],
    format: FormatOpt = None,
    solution_format: Annotated[str | None, typer.Option(help="Solution format (default: detected).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Check a solution against a puzzle: every violation by cell or seam, and the score (fitting seams; a
    board that breaks only seams is what `edgematch best` answers). Exit 0 valid, 1 invalid."""
    with reported():
        puzzle = fmt.read_puzzle(puzzle_file, format)
        sol = fmt.read_solution(solution_file, solution_format, puzzle)
        result = check(puzzle, sol)
    if as_json:
        sys.stdout.write(json.dumps({
            "ok": result.ok, "score": result.score, "max_score": result.max_score, "breaks": result.breaks,
            "admissible": result.admissible, "summary": result.summary(),
            "violations": [{"kind": v.kind, "message": v.message, "cell": v.cell, "other": v.other}
                           for v in result.violations]}, indent=2) + "\n")
        if not result.ok:
            raise typer.Exit(EXIT_INVALID)
        return
    for violation in result.violations:
        out.print(Text.assemble(("x ", "red"), str(violation)), highlight=False)
    out.print(Text(result.summary(), style="green" if result.ok else "red"), highlight=False)
    if not result.ok and result.admissible:
        out.print(f"a board for `edgematch best`: every rule but {result.breaks} seam(s) kept, "
                  f"score {result.score}/{result.max_score}", highlight=False)
    if not result.ok:
        raise typer.Exit(EXIT_INVALID)


@app.command("info")
def info_cmd(
    files: Annotated[list[Path], typer.Argument(help="Puzzle files.")],
    format: FormatOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Facts about puzzles: size, colours per edge class, tile classes, duplicates, expected solutions."""
    with reported():
        puzzles = [(path, fmt.read_puzzle(path, format)) for path in files]
    if as_json:
        rows = []
        interrupted = False
        for path, puzzle in puzzles:
            f = facts(puzzle)
            expected = f.expected_solutions if math.isfinite(f.expected_solutions) else None
            try:
                guess = _count_estimate(puzzle, len(puzzles))
            except KeyboardInterrupt:  # keep the facts found: this file's without its estimate
                guess, interrupted = None, True
            rows.append(dict(asdict(f), file=str(path), expected_solutions=expected,
                             count_estimate=guess.as_dict() if guess is not None else None))
            if interrupted:
                break
        sys.stdout.write(json.dumps(rows if len(rows) > 1 else rows[0], indent=2) + "\n")
        if interrupted:
            _interrupted()
        return
    for path, puzzle in puzzles:
        try:
            table = _info_table(path, puzzle, len(puzzles))
        except InfoInterrupted as stop:
            out.print(stop.table)
            _interrupted()
        out.print(table)


def _interrupted() -> None:
    """Ctrl-C: say so and exit 130, after what was found is shown."""
    err.print("[yellow]interrupted[/]")
    raise typer.Exit(EXIT_INTERRUPTED)


def _info_table(path: Path, puzzle: Puzzle, files: int = 1) -> Table:
    f = facts(puzzle)
    table = Table(title=Text(f"{path}" + (f" — {f.name}" if f.name else "")), show_header=False,
                  title_justify="left")
    table.add_column(style="bold cyan")
    table.add_column()

    def row(name: str, value: str) -> None:
        table.add_row(name, Text(value))

    frame = "none" if f.frame is None else puzzle.label_name(f.frame)
    row("board", f"{f.width} x {f.height}, {f.tiles} tiles, {f.seams} inner seams")
    row("rule", f"{f.rule} ({'+k meets -k' if f.rule == 'signed' else 'equal labels meet'})")
    row("rotations", "allowed" if f.rotations else "forbidden")
    row("frame", frame)
    row("hints", str(f.hints))
    if f.frame is not None:
        row("tiles by class", f"{f.corner_tiles} corner, {f.border_tiles} border, {f.inner_tiles} inner")
        row("colours", f"{f.colours} ({f.rim_colours} on the rim, {f.inner_colours} inside)")
    else:
        row("colours", str(f.colours))
    if f.duplicate_groups:
        groups = "; ".join(" = ".join(map(str, g)) for g in f.duplicate_groups)
        row("identical tiles", groups)
    else:
        row("identical tiles", "none")
    if f.self_symmetric:
        row("self-symmetric", ", ".join(f"{t} (period {p})" for t, p in f.self_symmetric))
    else:
        row("self-symmetric", "none")
    row("arrangements", format_count(f.log10_arrangements))
    row("expected solutions", f"{format_count(f.log10_expected_solutions)} (random puzzle of this shape)")
    try:
        guess = _count_estimate(puzzle, files)
    except KeyboardInterrupt:
        row("count estimate", "interrupted")
        raise InfoInterrupted(table) from None
    if guess is not None and guess.probes == 0:  # a small tree: counted
        row("count", f"{guess.raw:,.0f} raw, {guess.distinct:,.0f} distinct (this puzzle, counted: a tree of "
                     f"{guess.nodes:,.0f} nodes)")
    elif guess is not None:
        found = f"{none_met_text(guess)} (this puzzle" if guess.none_met else \
            f"about {guess.raw:.2g} raw, {guess.distinct:.2g} distinct (this puzzle: {guess.probes:,} random probes"
        row("count estimate", f"{found}; a count's tree of about {guess.nodes:.2g} nodes, "
                              f"about {guess.seconds:.2g} s on one core; count --estimate says more)")
    return table


class InfoInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``info``'s estimate: ``table`` holds the facts found before it."""

    def __init__(self, table: Table):
        self.table = table


def none_met_text(guess: Any) -> str:
    """What probes that met no board say (``guess`` a ``CountEstimate`` with ``none_met``): not a count of
    0, but the chance of a probe meeting one that they bound."""
    return (f"no solution met by {guess.probes:,} random probes (a probe meets one less than 1 time in "
            f"{1 / guess.unmet_chance():,.0f}, at 95%): too rare to estimate, which is not none")


INFO_ESTIMATE_SECONDS = 1.0  # for all the files of one info call together (at least 0.05 s each)


def _count_estimate(puzzle: Puzzle, files: int = 1) -> Any:
    """Knuth's estimate of this puzzle's count (``edgematch.estimate``) in a share of a second, or None
    when it cannot run here (no C kernel): the random puzzle formula knows nothing of identical tiles."""
    from edgematch.errors import EdgematchError
    from edgematch.solvers import estimate

    try:
        return estimate(puzzle, max(0.05, min(0.3, INFO_ESTIMATE_SECONDS / files)))
    except EdgematchError:
        return None


@app.command("formats")
def formats_cmd() -> None:
    """List the file formats edgematch reads and writes."""
    table = Table("name", "extensions", "puzzle", "solution", "description")
    for f in fmt.formats().values():
        def rw(read, write) -> str:
            return "/".join(x for x, ok in (("read", read), ("write", write)) if ok) or "-"

        exts = " ".join(f.extensions + tuple(e for e in f.solution_extensions if e not in f.extensions))
        cells = (f.name, exts, rw(f.read, f.write), rw(f.read_solution, f.write_solution), f.description)
        table.add_row(*(Text(cell) for cell in cells))  # verbatim: "[rows]" is not markup
    out.print(table)
