"""The project's exceptions: one base class, so the command line can turn any of them into one clear line.

Every error edgematch raises on purpose subclasses :class:`EdgematchError`; anything else escaping is a bug.
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ECHO_LIMIT = 40  # characters of a token an error line echoes back
_RUN_LIMIT = 120  # a run without spaces longer than this in a message is cut (a safety net for echoed input)
_MESSAGE_LIMIT = 1000  # characters of a message, at most
_LONG_RUN = re.compile(rf"\S{{{_RUN_LIMIT + 1},}}")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def quoted(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted for an error line (as ``repr``), cut to ``limit`` characters with an ellipsis:
    an error line echoes a bad token, never a whole 100,000-character one."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


def shown(value: object, how: Callable[[object], str] = repr) -> str:
    """``value`` for an error line: ``repr`` (or ``how``) cut to 40 characters; an integer too long for Python
    to print (over 4,300 digits), or something holding one, is described instead."""
    try:
        text = how(value)
    except ValueError:
        return f"an integer of {value.bit_length():,} bits" if isinstance(value, int) else type(value).__name__
    return text if len(text) <= ECHO_LIMIT else text[:ECHO_LIMIT] + "…"


def toml_shown(value: Any) -> str:
    """A value read from a TOML file (a suite, a policy) as an error line echoes it: as TOML writes it (text
    quoted), with its kind (``[] (a list)``, ``'5' (a string)``), so a wrong type reads as one."""
    if isinstance(value, str):
        return f"{quoted(value)} (a string)"
    kinds = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (list, "a list"), (dict, "a table"))
    kind = next((word for cls, word in kinds if isinstance(value, cls)), "a date or time")
    return f"{shown(value, _toml_text)} ({kind})"


def _toml_text(value: Any) -> str:
    """``value`` as a TOML file would write it (``[true, "a"]``, ``{a = 1}``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string: quotes, backslashes and control characters escaped
    if isinstance(value, list):
        return "[" + ", ".join(_toml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(str(k))} = {_toml_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def _toml_key(key: str) -> str:
    """A table key as TOML writes it: bare when it can be, else quoted."""
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key)


def tidy(message: str) -> str:
    """``message`` with overlong echoed input cut: runs without spaces over 120 characters keep their first
    40, and the whole message its first 1,000 characters."""
    message = _LONG_RUN.sub(lambda m: f"{m.group()[:ECHO_LIMIT]}… ({len(m.group()):,} characters)", message)
    if len(message) > _MESSAGE_LIMIT:
        message = f"{message[:_MESSAGE_LIMIT]}… ({len(message):,} characters)"
    return message


class EdgematchError(Exception):
    """Base class of every error edgematch raises on purpose. Its text is :func:`tidy`: one readable line
    even when the input it quotes is huge."""

    def __str__(self) -> str:
        return tidy(super().__str__())


class PuzzleError(EdgematchError, ValueError):
    """A puzzle, tile, hint or solution that breaks the model's rules (wrong counts, bad labels, clashes)."""


class FormatError(EdgematchError, ValueError):
    """A file that cannot be read: names the file and the 1-based line of the problem.

    Renders as ``FILE:LINE: message`` (the shape compilers use, so editors can jump to it).
    """

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        self.message = tidy(message)
        self.path = str(path) if path is not None else None
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"

    def located(self, path: str | Path) -> FormatError:
        """The same error, naming ``path`` if it did not name a file yet."""
        if self.path is not None:
            return self
        return FormatError(self.message, path, self.line)


class UsageError(EdgematchError, ValueError):
    """A bad option or argument given to the API or the command line."""


class BackendError(EdgematchError):
    """A solver backend failed, or cannot do what was asked (names the backend and the reason)."""


class MissingDependencyError(BackendError):
    """A backend whose library is not installed: says which extra brings it."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a library call (``solve``, ``count``, ``best``, ``solutions``, ...) after it had stopped
    everything it started; ``result`` holds what was found so far (a count is then a lower bound, ``best``'s
    board the best one seen). A :class:`KeyboardInterrupt`, so a script stops as Python scripts do on Ctrl-C
    (and ``except Exception`` does not swallow it); catch it to keep the partial result::

        try:
            result = edgematch.count(puzzle)
        except edgematch.Interrupted as stop:
            result = stop.result  # result.count: at least this many
    """

    result: Any  # an edgematch.Result (typed loosely: errors sits below the solvers)

    def __init__(self, result: Any):
        self.result = result
        super().__init__(result)

    def __str__(self) -> str:
        kept = getattr(self.result, "kept", None)
        return f"interrupted; {kept()}" if callable(kept) else "interrupted"

    def __reduce__(self) -> tuple[type, tuple[object]]:
        return (type(self), (self.result,))


class FileMissingError(FormatError, FileNotFoundError):
    """A file to read that does not exist: a FormatError (``FILE: no such file``, one line on the command
    line) that is also the ``FileNotFoundError`` Python code expects (``errno`` ENOENT, ``filename`` set)."""

    def __init__(self, path: str | Path, what: str = "no such file"):
        super().__init__(what, path)
        self.errno = errno.ENOENT
        self.strerror = os.strerror(errno.ENOENT)
        self.filename = str(path)
