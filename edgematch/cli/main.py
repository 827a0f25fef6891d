"""The ``edgematch`` console script: register every command on the app (cli/app.py) and run it.

Exit codes: 0 success, 1 a negative answer (an invalid solution for ``check``), 2 bad input or usage
(``FILE:LINE: message`` on stderr, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import contextlib
import os
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
        leave_now(EXIT_INTERRUPTED)
    except SystemExit as end:
        if end.code == EXIT_INTERRUPTED:
            leave_now(EXIT_INTERRUPTED)
        raise


def leave_now(code: int) -> None:
    """Exit with ``code`` at once, after a Ctrl-C the command has handled: what it found is printed, its files
    are written and its workers stopped (each in its own ``finally``); only the interpreter's teardown, freeing
    every object one by one, is skipped. After an enumeration holding millions of solutions that took
    0.12-0.15 s of the 0.3 s a Ctrl-C may take."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
