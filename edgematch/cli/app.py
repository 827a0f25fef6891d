"""What every command module shares: the typer app, the consoles, the exit codes, and turning errors into
one clear line (command modules import this; ``cli/main.py`` imports them, so arrows point one way).

Exit codes: 0 success, 1 a negative answer (an invalid solution for ``check``), 2 bad input or usage
(``FILE:LINE: message`` on stderr, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

from edgematch.errors import EdgematchError

# click's UsageError, found through typer's BadParameter: typer up to 0.2x imports click, later releases carry
# their own copy of it (typer._click), and this works with both
_ClickUsageError: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")

# the order of ``edgematch --help``: answering a puzzle first, files next, measuring last; a command missing
# here comes after these, in the order it was registered
COMMAND_ORDER = ("solve", "count", "best", "check", "backends", "info", "render", "generate", "convert", "formats",
                 "encode", "decode", "xcheck", "bench", "report", "compare", "export", "policy")


class CommandGroup(TyperGroup):
    """The ``edgematch`` group: a usage error (a bad option value, a missing argument, an unknown option or
    command) is one line ``edgematch: COMMAND: message; try 'edgematch COMMAND --help'`` and exit 2, like
    every other error, not typer's boxed panel; and ``--help`` lists the commands in :data:`COMMAND_ORDER`."""

    def get_params(self, ctx: typer.Context) -> list[Any]:
        return plain_flags(super().get_params(ctx))

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            plain_flags(command.get_params(ctx))
        return command

    def list_commands(self, ctx: typer.Context) -> list[str]:
        rank = {name: at for at, name in enumerate(COMMAND_ORDER)}
        names = super().list_commands(ctx)
        return sorted(names, key=lambda name: (rank.get(name, len(rank)), names.index(name)))

    def make_context(self, info_name: str | None, args: list[str], parent: typer.Context | None = None,
                     **extra: Any) -> typer.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except _ClickUsageError as exc:
            usage_error(exc)

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except _ClickUsageError as exc:
            usage_error(exc)


def plain_flags(params: list[Any]) -> list[Any]:
    """``params`` with every on/off flag shown in help as the plain flag it is: typer gives each a type column of
    ``<bool>`` (``--install-completion <bool>``, ``--all <bool>``), which reads as if it took a value."""
    for param in params:
        if getattr(param, "is_flag", False) and getattr(param, "metavar", None) is None:
            param.metavar = ""  # what typer's help shows in the type column when set
    return params


def usage_error(exc: Exception) -> NoReturn:
    """A click usage error as the project's one line (exit 2). ``edgematch`` alone still prints the help
    (click raises that as a usage error too)."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        raise exc
    ctx: typer.Context | None = getattr(exc, "ctx", None)
    names = []
    while ctx is not None and ctx.parent is not None:  # the command's path below the program's own name
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    message = message.strip().rstrip(".")
    if len(message) > 1 and message[0].isupper() and message[1].islower():
        message = message[0].lower() + message[1:]
    where = " ".join(names)
    hint = f"try 'edgematch {where + ' ' if where else ''}--help'"
    _fail(f"{where + ': ' if where else ''}{message}; {hint}")


app = typer.Typer(
    cls=CommandGroup,
    name="edgematch",
    help="Solve edge-matching puzzles (scramble squares, Tetravex, Eternity II style) and measure how.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

out = Console()
err = Console(stderr=True)


def _version(shown: bool) -> None:
    if shown:
        from edgematch import __version__

        out.print(f"edgematch {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")) -> None:
    """Solve edge-matching puzzles (scramble squares, Tetravex, Eternity II style) and measure how."""

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
