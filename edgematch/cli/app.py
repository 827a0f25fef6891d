"""What every command module shares: the typer app, the consoles, the exit codes, and turning errors into
one clear line (command modules import this; ``cli/main.py`` imports them, so arrows point one way).

Exit codes: 0 success, 1 a negative answer (an invalid solution for ``check``), 2 bad input or usage
(``FILE:LINE: message`` on stderr, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer
from rich.console import Console
from rich.text import Text

from edgematch.errors import EdgematchError

app = typer.Typer(
    name="edgematch",
    help="Solve edge-matching puzzles (scramble squares, Tetravex, Eternity II style) and measure how.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

out = Console()
err = Console(stderr=True)

EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


@contextmanager
def reported() -> Iterator[None]:
    """Run a command body; a project error becomes ``edgematch: FILE:LINE: message`` and exit 2."""
    try:
        yield
    except EdgematchError as exc:
        _fail(str(exc))
    except OSError as exc:  # a file that cannot be written or read: name it, no traceback
        problem = exc.strerror or str(exc) or type(exc).__name__
        _fail(f"{exc.filename}: {problem}" if exc.filename else problem)
    except sqlite3.Error as exc:
        _fail(f"results database: {exc}")


def _fail(message: str) -> NoReturn:
    err.print(Text.assemble(("edgematch: ", "bold red"), message), soft_wrap=True, highlight=False)
    raise typer.Exit(EXIT_USAGE) from None
