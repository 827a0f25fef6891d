"""The ``edgematch`` console script: register every command on the app (cli/app.py) and run it.

Exit codes: 0 success, 1 a negative answer (an invalid solution for ``check``), 2 bad input or usage
(``FILE:LINE: message`` on stderr, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import sys

import typer

from edgematch.cli.app import EXIT_INTERRUPTED, app, err


def load_commands() -> typer.Typer:
    """The app with every command registered (each command module adds its own to ``app``)."""
    from edgematch.cli import bench, best, cnf, commands, solve, xcheck  # noqa: F401

    return app


def run() -> None:
    """Entry point of the console script."""
    try:
        load_commands()
        app()
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        sys.exit(EXIT_INTERRUPTED)
