"""``edgematch encode`` and ``edgematch decode``: the CNF for any external SAT solver, and its answer back.

``encode`` writes DIMACS whose comment header names every variable and records the encoding options;
``decode`` rebuilds the same encoding from the puzzle and those options, reads the solver's model
(``v ...`` lines, or bare literals), and checks the solution it describes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from edgematch import formats as fmt
from edgematch.cli.app import EXIT_INVALID, app, out, reported
from edgematch.cli.commands import FormatOpt, emit
from edgematch.cli.solve import OptionOpt, backend_options, show_board
from edgematch.core.checker import check
from edgematch.errors import FormatError, MissingDependencyError, UsageError
from edgematch.formats.source import Source


@contextmanager
def needs_pysat(command: str) -> Iterator[None]:
    """Run a body that builds the CNF (PySAT's cardinality encodings and variable pool): without python-sat,
    one line naming the extra to install (exit 2 through ``reported()``), not an ImportError traceback."""
    try:
        yield
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "pysat":
            raise
        raise MissingDependencyError(f"{command} builds the CNF with python-sat, which is not installed: "
                                     "pip install 'edgematch[sat]'") from None


def _cnf_options(pairs: list[str] | None):
    from edgematch.encodings.cnf import CnfOptions
    from edgematch.solvers.base import on_off

    given = backend_options(None, pairs)
    known = ("one_to_one", "forbidden", "support", "amo", "symmetry")
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise UsageError(f"unknown CNF option(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return CnfOptions(**{k: (v if k == "amo" else on_off(v, k)) for k, v in given.items()})


@app.command("encode")
def encode_cmd(
    file: Annotated[Path, typer.Argument(help="Puzzle file.")],
    cnf: Annotated[Path | None, typer.Option("--cnf", help="DIMACS output (default: stdout).")] = None,
    option: OptionOpt = None,
    format: FormatOpt = None,
) -> None:
    """Write the puzzle's CNF (Heule-style) as DIMACS, with a header naming every variable."""
    from edgematch.encodings.cnf import encode, to_dimacs

    with reported(), needs_pysat("encode"):
        puzzle = fmt.read_puzzle(file, format)
        enc = encode(puzzle, _cnf_options(option))
        emit(to_dimacs(enc, puzzle.name or file.name), cnf)
    if cnf is not None:
        out.print(Text(f"{cnf}: {enc.variables:,} variables, {len(enc.clauses):,} clauses "
                       f"({enc.stats['encode_seconds']:.2f} s to encode)"), soft_wrap=True, highlight=False)


def read_header(source: Source) -> tuple[str, str, tuple[int, int]]:
    """The options, puzzle fingerprint and ``p cnf`` counts recorded in an edgematch DIMACS file."""
    from edgematch.encodings.cnf import CnfOptions

    options, puzzle, counts = None, "", None
    for line in source.lines(comment=None):
        words = line.words
        if words[:2] == ["c", "options"]:
            options = " ".join(words[2:])
            try:
                CnfOptions.parse(options)
            except UsageError as exc:
                raise source.error(str(exc), line) from None
        elif words[:2] == ["c", "puzzle"] and len(words) == 3:
            puzzle = words[2]
        elif words[:2] == ["p", "cnf"] and len(words) == 4:
            counts = (source.int_word(words[2], line, "variables"), source.int_word(words[3], line, "clauses"))
            break
    if options is None or counts is None:
        raise source.error("not an edgematch CNF (no 'c options' and 'p cnf' header lines)", 1)
    return options, puzzle, counts


def read_model(source: Source, lines: dict[int, int] | None = None) -> list[int]:
    """The literals of a SAT solver's answer: ``v`` lines (or bare numbers); UNSAT is an error. With
    ``lines``, each literal's first line number is recorded there (so later errors can name it)."""
    literals: list[int] = []
    for line in source.lines(comment=None):
        words = line.words
        if words[0] in ("c", "o"):
            continue
        if words[0] == "s" or words[0] in ("SAT", "UNSAT", "SATISFIABLE", "UNSATISFIABLE"):
            if "UNSAT" in " ".join(words).upper():
                raise source.error("the solver says UNSATISFIABLE: there is no solution to decode", line)
            continue
        if words[0] == "v":
            words = words[1:]
        found = [source.int_word(w, line, "a literal") for w in words]
        literals.extend(found)
        if lines is not None:
            for lit in found:
                lines.setdefault(lit, line.number)
    literals = [lit for lit in literals if lit != 0]
    if not literals:
        raise source.error("no model: expected 'v' lines with literals", source.last_line)
    return literals


@app.command("decode")
def decode_cmd(
    file: Annotated[Path, typer.Argument(help="Puzzle file the CNF was made from.")],
    cnf: Annotated[Path, typer.Argument(help="The DIMACS file `edgematch encode` wrote.")],
    model: Annotated[Path, typer.Argument(help="The SAT solver's output ('v' lines).")],
    save: Annotated[Path | None, typer.Option("--save", help="Write the solution (.emsol, .json, .sol).")] = None,
    format: FormatOpt = None,
) -> None:
    """Turn an external SAT solver's model into a checked solution. Exit 0 valid, 1 invalid."""
    from edgematch.core.tiletypes import decode
    from edgematch.encodings.cnf import CnfOptions, ModelError, encode, fingerprint

    with reported(), needs_pysat("decode"):
        puzzle = fmt.read_puzzle(file, format)
        header = Source.from_path(cnf, "DIMACS file")
        options, made_from, counts = read_header(header)
        enc = encode(puzzle, CnfOptions.parse(options))
        if made_from != fingerprint(puzzle) or counts != (enc.variables, len(enc.clauses)):
            raise FormatError(
                f"this CNF ({counts[0]} variables, {counts[1]} clauses) was not made from {file} "
                f"(which gives {enc.variables} and {len(enc.clauses)})", cnf, 1)
        lines: dict[int, int] = {}
        try:
            board = enc.decode(read_model(Source.from_path(model, "SAT solver output"), lines))
        except ModelError as exc:
            raise FormatError(exc.message, model, lines.get(exc.literal)) from None
        missing = [c for c in enc.domains.cells if board[c] is None]
        if missing:
            raise FormatError(f"the model places no tile on cell(s) {', '.join(map(str, missing[:10]))}", model)
        solution = decode(puzzle, enc.types, board)
        result = check(puzzle, solution)
        if save is not None:
            fmt.write_solution(solution, save, puzzle=puzzle)
    show_board(puzzle, solution, "--save FILE, then edgematch render PUZZLE -s FILE --as ascii -o OUT")
    for violation in result.violations:
        out.print(f"x {violation}", markup=False, highlight=False)
    out.print(result.summary(), markup=False, highlight=False)
    if not result.ok:
        raise typer.Exit(EXIT_INVALID)

