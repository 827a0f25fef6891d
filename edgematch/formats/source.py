"""Reading text with line numbers, so every reader can say ``FILE:LINE: problem``.

A reader gets a :class:`Source`, walks its meaningful lines (comments and blanks dropped, numbers kept),
and raises through :meth:`Source.error`. Model errors raised while building a puzzle are re-raised as
format errors at the line that produced the offending data (:meth:`Source.build`).

Files are written whole or not at all (:func:`writing`, :func:`save`): through a fresh temporary file
beside the target renamed over it, replacing only a regular file, so a full disk keeps the old file and a
planted link or device node is refused rather than written through.

Files are read whole but never more than :data:`MAX_INPUT_BYTES` (64 MiB, far above any puzzle: an
Eternity II board is 7 KiB), so ``/dev/zero`` or an endless pipe ends in one clear error; a named pipe
with no writer reads as empty instead of waiting. Numbers are ASCII digits with an optional minus
(:func:`edgematch.core.model.parse_integer`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import string
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from edgematch.core.model import is_integer_word, parse_integer
from edgematch.errors import FileMissingError, FormatError, PuzzleError, UsageError, quoted

T = TypeVar("T")

MAX_INPUT_BYTES = 64 * 2**20

TEMP_CHARS = frozenset(string.ascii_lowercase + string.digits + "_")  # tempfile's random names
TEMP_RANDOM = 8  # characters between the prefix and the suffix of a tempfile.mkstemp name
CLOCK_SLACK = 1.0  # seconds a file's time may trail time.time() (coarse file system clocks)
TEMP_SUFFIX = ".tmp"


def _temp_prefix(target: Path) -> str:
    """How :func:`writing`'s temporary files beside ``target`` begin (hidden, named for the target)."""
    return f".{target.name}."


def read_bytes(path: str | Path, what: str = "puzzle file") -> bytes:
    """The bytes of the file at ``path`` (at most ``MAX_INPUT_BYTES``); problems are FormatErrors naming it."""
    if not isinstance(path, str | os.PathLike):
        raise UsageError(f"the path of a {what} must be a str or a Path, got {type(path).__name__}")
    p = Path(path)
    try:
        # non-blocking open: a named pipe nobody writes to would otherwise wait forever in open()
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise FileMissingError(p) from None
    except IsADirectoryError:
        raise FormatError(f"is a directory, not a {what}", p) from None
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror or exc}", p) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise FormatError(f"is a directory, not a {what}", p)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a pipe with a writer is then read to its end
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror or exc}", p) from None
    finally:
        os.close(fd)
    if not data and stat.S_ISFIFO(mode):
        raise FormatError("nothing to read: a pipe that nothing writes to", p, 1)
    if len(data) > MAX_INPUT_BYTES:
        raise FormatError(
            f"larger than {MAX_INPUT_BYTES // 2**20} MiB, too large for a {what} (edgematch reads at most that)", p
        )
    return data


def decode_text(data: bytes, path: str | Path | None = None, what: str = "puzzle file") -> str:
    """``data`` as UTF-8 text (a BOM is dropped); NUL bytes or invalid UTF-8 are FormatErrors at their line."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise FormatError(f"binary data (NUL byte), not a text {what}", path, line)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", path, line) from None


def read_text(path: str | Path, what: str = "puzzle file") -> str:
    """The UTF-8 text of the file at ``path``, read as :func:`read_bytes` and :func:`decode_text` do."""
    return decode_text(read_bytes(path, what), path, what)


_KINDS = (
    (stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def writable(path: str | Path) -> os.stat_result | None:
    """Check that a file can be written at ``path`` before any work is done: its folder exists, and nothing
    is there or a regular file is (its ``lstat`` is returned; None when nothing is there). Anything else
    there (a symbolic link, a directory, a FIFO, a device node, a socket), or a file this user may not write
    (as ``open`` would refuse it), is a FormatError naming ``path``: a write replaces only regular files, so it
    never writes through a link planted by someone else, nor turns ``/dev/null`` or a pipe into a file."""
    target = Path(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise FormatError(f"cannot write: {_reason(exc)}", target) from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise FormatError(f"cannot write: it is {kind}, and edgematch only replaces regular files", target)
    if info is not None and not os.access(target, os.W_OK):  # a rename would replace it: honour its mode
        raise FormatError("cannot write: Permission denied (the file is read-only)", target)
    if not target.parent.is_dir():
        raise FormatError(f"cannot write: there is no folder {str(target.parent)!r}", target)
    return info


def _umask() -> int:
    """The process's umask, read without changing it where Linux shows it (``/proc/self/status``)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere: read it by setting it (and put it straight back)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def writing(path: str | Path, binary: bool = False, encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """A stream whose content becomes the file at ``path`` only when the ``with`` block ends without error.

    The stream is a new temporary file beside ``path`` (``tempfile.mkstemp``: a unique name, created with
    ``O_EXCL``, so a link planted under a guessable name is never followed); it is flushed, synced to disk
    and renamed over ``path`` in one step. ``path`` must be missing or a regular file (:func:`writable`).
    On any failure (a full disk included) the temporary file is removed, the old file at ``path`` stays as
    it was, and a FormatError names ``path`` and the system's reason. The new file keeps the old one's
    permissions (a new one gets the usual ``0666`` less the umask, as ``open`` would).
    """
    target = Path(path)
    old = writable(target)
    folder = target.parent
    try:
        fd, temp = tempfile.mkstemp(dir=folder, prefix=_temp_prefix(target), suffix=TEMP_SUFFIX)
    except OSError as exc:
        raise FormatError(f"cannot write: {_reason(exc)}", target) from None
    try:
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, stat.S_IMODE(old.st_mode) if old is not None else 0o666 & ~_umask())
            stream = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding=encoding, newline="\n")
        except BaseException:
            os.close(fd)
            raise
        with stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        writable(target)  # still nothing but a regular file there (checked again just before the rename)
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise FormatError(f"cannot write: {_reason(exc)}", target) from None
        raise
    with contextlib.suppress(OSError):  # the rename itself on disk too (best effort: not every system can)
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def save(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all, as :func:`writing` does: only a
    regular file is replaced, the old file stays on any failure (a full disk included), and the FormatError
    names ``path``. Every file edgematch writes for a user goes through here or :func:`writing` (a bench run's
    captured output, a scratch file of the harness, is the one plain ``open``)."""
    with writing(path, binary=True) as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)


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
    def from_path(cls, path: str | Path, what: str = "puzzle file") -> Source:
        """Read a file as UTF-8 text; a missing, unreadable, oversized, binary or empty file is a FormatError."""
        return cls.from_bytes(read_bytes(path, what), path, what)

    @classmethod
    def from_bytes(cls, data: bytes, path: str | Path | None = None, what: str = "puzzle file") -> Source:
        source = cls(decode_text(data, path, what), path)
        if not source.text.strip():
            raise FormatError("empty file", source.path, 1)
        return source

    @classmethod
    def from_text(cls, text: object, path: str | Path | None = None, what: str = "puzzle file") -> Source:
        """A string given by a program, held to the rules of a file (str only; no NUL, lone surrogates
        or emptiness)."""
        if not isinstance(text, str):
            raise UsageError(f"the text of a {what} must be a str, got {type(text).__name__}")
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            line = text.count("\n", 0, exc.start) + 1
            raise FormatError("not valid Unicode text (a lone surrogate)", path, line) from None
        return cls.from_bytes(data, path, what)

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

    def int_word(self, word: str, line: int | Line | None, what: str) -> int:
        """``word`` as an integer (ASCII digits, optional minus, at most 18 digits), or a FormatError naming
        ``what`` was expected."""
        try:
            return parse_integer(word)
        except ValueError as exc:
            if is_integer_word(word):  # written as a number, but too long
                raise self.error(f"{what}: number too long ({exc})", line) from None
            raise self.error(f"{what} must be an integer, got {quoted(word)}", line) from None

    def placement(self, tile: int, rotation: int, line: int | Line | None, tiles: int | None,
                  where: str = "") -> tuple[int, int]:
        """A solution file's (tile, rotation), or a FormatError at ``line``: the rotation 0..3 (clockwise quarter
        turns) and the tile not negative and, when the puzzle's ``tiles`` count is known, one it has. A file that
        names what no board can hold is malformed, as the .sol and e2dev readers say; the checker judges the rest.
        ``where`` leads the message (e.g. which entry of a list on one line)."""
        if not 0 <= rotation <= 3:
            raise self.error(f"{where}rotation {rotation} is not 0..3 (clockwise quarter turns)", line)
        if tile < 0 or tiles is not None and tile >= tiles:
            known = f" (tiles are 0..{tiles - 1})" if tiles is not None else " (tiles are numbered from 0)"
            raise self.error(f"{where}tile {tile} does not exist{known}", line)
        return tile, rotation

    def ints(self, line: Line, count: int | None, what: str) -> list[int]:
        """All words of ``line`` as integers, checking there are exactly ``count`` of them."""
        words = line.words
        if count is not None and len(words) != count:
            raise self.error(f"{what}: expected {count} numbers, got {len(words)}: {quoted(line.text)}", line)
        return [self.int_word(word, line, what) for word in words]


def remove_leftovers(targets: Iterable[Path], since: float) -> list[Path]:
    """Remove the temporary files a write to one of ``targets`` left when its process was killed midway.

    :func:`writing` removes its temporary file ``.NAME.XXXXXXXX.tmp`` on any error, but not when its process
    is killed (the SAT backend writes a proof, which can be gigabytes, in the solver's child, killed at the
    time limit); each kill would leave one more in the user's folder. Only names of exactly that form are
    touched, only regular files (a link is never followed, nor removed), and only those changed since
    ``since`` (a ``time.time()``, less a second of clock slack): another program's file of an older run is
    left alone. Returns the paths removed."""
    removed: list[Path] = []
    for target in targets:
        prefix = _temp_prefix(target)
        try:
            entries = list(os.scandir(target.parent))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            middle = name[len(prefix):-len(TEMP_SUFFIX)]
            if (not name.startswith(prefix) or not name.endswith(TEMP_SUFFIX) or len(middle) != TEMP_RANDOM
                    or not set(middle) <= TEMP_CHARS):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_mtime >= since - CLOCK_SLACK:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed
