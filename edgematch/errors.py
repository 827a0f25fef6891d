"""The project's exceptions: one base class, so the command line can turn any of them into one clear line.

Every error edgematch raises on purpose subclasses :class:`EdgematchError`; anything else escaping is a bug.
"""

from __future__ import annotations

from pathlib import Path


class EdgematchError(Exception):
    """Base class of every error edgematch raises on purpose."""


class PuzzleError(EdgematchError, ValueError):
    """A puzzle, tile, hint or solution that breaks the model's rules (wrong counts, bad labels, clashes)."""


class FormatError(EdgematchError, ValueError):
    """A file that cannot be read: names the file and the 1-based line of the problem.

    Renders as ``FILE:LINE: message`` (the shape compilers use, so editors can jump to it).
    """

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        self.message = message
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
