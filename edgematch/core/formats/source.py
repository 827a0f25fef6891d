"""Reading text with line numbers, so every reader can say ``FILE:LINE: problem``.

A reader gets a :class:`Source`, walks its meaningful lines (comments and blanks dropped, numbers kept),
and raises through :meth:`Source.error`. Model errors raised while building a puzzle are re-raised as
format errors at the line that produced the offending data (:meth:`Source.build`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from edgematch.errors import FormatError, PuzzleError

T = TypeVar("T")


@dataclass(frozen=True)
class Line:
    """One meaningful line: its 1-based number, its text without the comment, and its words."""

    number: int
    text: str

    @property
    def words(self) -> list[str]:
        return self.text.split()


class Source:
    """The text of one input (a file or a string) and where it came from."""

    def __init__(self, text: str, path: str | Path | None = None):
        self.text = text
        self.path = str(path) if path is not None else "<input>"

    @classmethod
    def from_path(cls, path: str | Path) -> Source:
        """Read a file as UTF-8 text; a missing, unreadable, binary or empty file is a FormatError."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            raise FormatError("no such file", p) from None
        except IsADirectoryError:
            raise FormatError("is a directory, not a puzzle file", p) from None
        except OSError as exc:
            raise FormatError(f"cannot read: {exc.strerror or exc}", p) from None
        return cls.from_bytes(data, p)

    @classmethod
    def from_bytes(cls, data: bytes, path: str | Path | None = None) -> Source:
        if b"\x00" in data:
            line = data[: data.index(b"\x00")].count(b"\n") + 1
            raise FormatError("binary data (NUL byte), not a text puzzle file", path, line)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise FormatError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", path, line) from None
        source = cls(text, path)
        if not text.strip():
            raise FormatError("empty file", source.path, 1)
        return source

    def error(self, message: str, line: int | Line | None = None) -> FormatError:
        """A FormatError at ``line`` of this source (raise it)."""
        number = line.number if isinstance(line, Line) else line
        return FormatError(message, self.path, number)

    def lines(self, comment: str | None = "#") -> Iterator[Line]:
        """Non-blank lines with comments (from ``comment`` to the end of the line) removed."""
        # split on "\n" only: str.splitlines also breaks at form feeds and would shift line numbers
        for number, raw in enumerate(self.text.split("\n"), start=1):
            text = raw.split(comment, 1)[0] if comment else raw
            text = text.strip()
            if text:
                yield Line(number, text)

    @property
    def last_line(self) -> int:
        return max(1, len(self.text.rstrip("\n").split("\n")))

    def build(self, make: Callable[[], T], line: int | Line | None = None) -> T:
        """Call ``make`` and turn a model error into a FormatError at ``line``."""
        try:
            return make()
        except PuzzleError as exc:
            raise self.error(str(exc), line) from None

    def int_word(self, word: str, line: Line, what: str) -> int:
        """``word`` as an integer, or a FormatError naming ``what`` was expected."""
        try:
            return int(word)
        except ValueError:
            raise self.error(f"{what} must be an integer, got {word!r}", line) from None

    def ints(self, line: Line, count: int | None, what: str) -> list[int]:
        """All words of ``line`` as integers, checking there are exactly ``count`` of them."""
        words = line.words
        if count is not None and len(words) != count:
            raise self.error(f"{what}: expected {count} numbers, got {len(words)}: {line.text!r}", line)
        return [self.int_word(word, line, what) for word in words]
