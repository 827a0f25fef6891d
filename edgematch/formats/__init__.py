"""File formats: a registry by name, detection by extension or content, and read / write entry points.

Each format module defines ``FORMAT``, a :class:`Format` with the functions it supports. Readers take a
:class:`~edgematch.formats.source.Source` and raise ``FormatError`` naming file and line; writers
return text and raise ``FormatError`` for a puzzle the format cannot hold (never drop data silently).

Adding a format: write ``formats/NAME.py`` with a ``FORMAT``, add NAME to ``_MODULES``, and add it to the
round-trip and malformed-input tests.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from edgematch.core.model import Puzzle, Solution
from edgematch.errors import FormatError, UsageError
from edgematch.formats.source import Source, save


@dataclass(frozen=True)
class Format:
    """One file format and what it can do. ``sniff`` recognises its content (for files without a known
    extension); ``solution_sniff`` does the same for solution files."""

    name: str
    description: str
    extensions: tuple[str, ...] = ()
    read: Callable[[Source], Puzzle] | None = None
    write: Callable[[Puzzle], str] | None = None
    read_solution: Callable[[Source, Puzzle | None], Solution] | None = None
    write_solution: Callable[[Solution, Puzzle | None], str] | None = None
    sniff: Callable[[Source], bool] | None = None
    solution_extensions: tuple[str, ...] = ()
    solution_sniff: Callable[[Source], bool] | None = None


# detection tries content sniffers in this order: most specific first
_MODULES = ("native", "jsonfmt", "e2dev", "arc", "racket", "hunde", "puz", "heule", "owen")
_registry: dict[str, Format] | None = None


def formats() -> dict[str, Format]:
    """All formats by name, in detection order."""
    global _registry
    if _registry is None:
        found = {}
        for module in _MODULES:
            fmt = importlib.import_module(f"edgematch.formats.{module}").FORMAT
            found[fmt.name] = fmt
        _registry = found
    return _registry


def get_format(name: str) -> Format:
    """The format called ``name``; an unknown name lists the valid ones."""
    known = formats()
    if name not in known:
        raise UsageError(f"unknown format {name!r}; known formats: {', '.join(known)}")
    return known[name]


def _detect(source: Source, path: str | Path | None, solution: bool) -> Format:
    suffix = Path(path).suffix.lower() if path is not None else ""
    candidates = [
        f for f in formats().values()
        if (f.read_solution if solution else f.read) is not None
    ]
    if suffix:
        claimed = [f for f in candidates if suffix in (f.solution_extensions if solution else f.extensions)]
        if len(claimed) > 1:  # formats sharing an extension (.json): the content decides, else the first
            for fmt in claimed:
                sniff = fmt.solution_sniff if solution else fmt.sniff
                if sniff is not None and sniff(source):
                    return fmt
        if claimed:
            return claimed[0]
    for fmt in candidates:
        sniff = fmt.solution_sniff if solution else fmt.sniff
        if sniff is not None and sniff(source):
            return fmt
    kind = "solution" if solution else "puzzle"
    names = ", ".join(f.name for f in candidates)
    raise FormatError(f"cannot tell which {kind} format this is; name it with --format ({names})", source.path, 1)


def detect_format(path: str | Path, solution: bool = False) -> str:
    """The name of the format of the file at ``path`` (by extension, then by content)."""
    return _detect(Source.from_path(path, "solution file" if solution else "puzzle file"), path, solution).name


def _load_puzzle(source: Source, path: str | Path | None, format: str | None) -> Puzzle:
    fmt = get_format(format) if format else _detect(source, path, solution=False)
    if fmt.read is None:
        raise UsageError(f"format {fmt.name!r} holds solutions, not puzzles")
    return fmt.read(source)


def _load_solution(source: Source, path: str | Path | None, format: str | None, puzzle: Puzzle | None) -> Solution:
    fmt = get_format(format) if format else _detect(source, path, solution=True)
    if fmt.read_solution is None:
        raise UsageError(f"format {fmt.name!r} holds puzzles, not solutions")
    return fmt.read_solution(source, puzzle)


def parse_puzzle(text: str, format: str | None = None, path: str | Path | None = None) -> Puzzle:
    """A puzzle from text in ``format`` (detected from ``path`` or the content when None)."""
    return _load_puzzle(Source.from_text(text, path), path, format)


def read_puzzle(path: str | Path, format: str | None = None) -> Puzzle:
    """Read a puzzle file; the format comes from ``format``, else the extension, else the content."""
    return _load_puzzle(Source.from_path(path), path, format)


def writer_for(path: str | Path | None, format: str | None = None, solution: bool = False) -> Format:
    """The format to write: ``format`` if named, else by the extension of ``path``, else native."""
    if format:
        return get_format(format)
    if path is not None:
        suffix = Path(path).suffix.lower()
        for fmt in formats().values():
            if suffix in (fmt.solution_extensions if solution else fmt.extensions):
                return fmt
        for fmt in formats().values():
            if suffix in (fmt.extensions if solution else fmt.solution_extensions):
                kind, other = ("solution", "puzzle") if solution else ("puzzle", "solution")
                raise UsageError(f"{path}: {suffix} is a {other} extension; name the {kind} format with --to")
    return get_format("native")


def write_puzzle(puzzle: Puzzle, path: str | Path | None = None, format: str | None = None) -> str:
    """The puzzle as text in ``format`` (else from the extension of ``path``, else native); written to
    ``path`` when given. Raises FormatError if the format cannot hold this puzzle."""
    fmt = writer_for(path, format, solution=False)
    if fmt.write is None:
        raise UsageError(f"format {fmt.name!r} can be read but not written")
    try:
        text = fmt.write(puzzle)
    except FormatError as exc:
        raise exc.located(path if path is not None else "<output>") from None
    if path is not None:
        _save(path, text)
    return text


def read_solution(path: str | Path, format: str | None = None, puzzle: Puzzle | None = None) -> Solution:
    """Read a solution file (native, JSON or .sol); ``puzzle`` gives the board size where the file does not."""
    return _load_solution(Source.from_path(path, "solution file"), path, format, puzzle)


def parse_solution(
    text: str, format: str | None = None, puzzle: Puzzle | None = None, path: str | Path | None = None
) -> Solution:
    return _load_solution(Source.from_text(text, path, "solution file"), path, format, puzzle)


def write_solution(
    solution: Solution, path: str | Path | None = None, format: str | None = None, puzzle: Puzzle | None = None
) -> str:
    """The solution as text (native unless ``format`` or the extension of ``path`` says otherwise)."""
    fmt = writer_for(path, format, solution=True)
    if fmt.write_solution is None:
        raise UsageError(f"format {fmt.name!r} cannot hold solutions")
    text = fmt.write_solution(solution, puzzle)
    if path is not None:
        _save(path, text)
    return text


def _save(path: str | Path, text: str) -> None:
    save(path, text)


__all__ = [
    "Format", "Source", "detect_format", "writer_for", "formats", "get_format", "parse_puzzle", "parse_solution",
    "read_puzzle", "read_solution", "write_puzzle", "write_solution",
]
