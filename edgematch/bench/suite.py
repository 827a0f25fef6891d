"""Benchmark suites: TOML files naming backends, puzzle families of growing size, seeds and a time limit.

A suite expands into instances (one generated puzzle each, reproducible from family, size and seed) and
runs (instance x backend). Built-in suites live in ``bench/suites/``: ``smoke`` (CI, seconds),
``default`` (the README's main job, minutes), ``scaling`` (long), ``families`` (the evidence ``auto``'s
rules are derived from: 10 seeds of every family). Colour counts may follow the size:
``colours = "size"``, ``"size-2"``, ``"size+1"``. A family may be shaped like real puzzles with ``like``
(``clue``, ``e2``, ``tetravex``, ``cards``: see :mod:`edgematch.core.generator`); its other keys override
the family's settings. ``hint = true`` fixes the planted centre tile; ``unique = true`` keeps, for each
seed, the first derived puzzle the native backend counts one distinct solution for (searched when the
suite loads, and the attempt found is stored in the instance, so the bench regenerates the same puzzle
without searching again; see :mod:`edgematch.solvers.unique` for where that is feasible). A folder of
puzzle files in any readable format is a suite too (:func:`folder_suite`); command-line settings override a
suite's (:class:`Overrides`).

Suite file::

    name = "mine"
    task = "first"            # first | count | best
    timeout = 20.0            # seconds per run
    seeds = [1, 2, 3]
    backends = ["native", "cpsat", "native@order=dynamic@match=on"]  # options after @: one backend each
    [[family]]
    name = "framed"
    sizes = [4, 5, 6]         # square boards (or "6x4" strings)
    framed = true
    border_colours = 3
    inner_colours = "size-2"
    [[family]]
    name = "tetravex"
    like = "tetravex"         # clue | e2 | tetravex | cards
    sizes = [3, 4]
    unique = true             # exactly one distinct solution
    hint = false              # fix the planted centre tile
    [[family]]
    name = "e2-best"
    like = "e2"
    sizes = [8]
    hint = true
    task = "best"             # this family's question (default: the suite's task)
    timeout = 5.0             # this family's seconds per run (default: the suite's)
    backends = ["native", "cpsat", "sat", "auto"]  # of the suite's backends, those this family runs

``task = "best"`` asks for the best-scoring board within the timeout (the Eternity II question; see
:func:`edgematch.best`): every run that returns a board counts, proven optimal or not, and reports show
scores, never PAR2 times. A family's ``task``, ``timeout`` and ``backends`` let one suite hold a small best
family beside its first-solution families; each instance carries them (:class:`Instance`), and ``--task``,
``--timeout`` and ``--backends`` on the command line replace them with the suite's. A backend named with
options (``native@order=dynamic@match=on``) is a backend of its own in the runs and reports, so one session
measures a search with and without them; its option names are checked when the suite loads, their values by
a 2x2 board before the bench starts; the policy leaves such runs out (``auto`` runs backends as they are).

Every value is checked when the suite loads, and a bad one is named with its file and line: ``timeout`` is
a finite number of seconds up to ``MAX_TIME_LIMIT`` (10,000,000), backends are known names, sizes and
colour counts are ASCII numbers. A bad command-line setting (``--timeout``, ``--backends``, ...) is named
by its option instead.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import asdict, dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from edgematch.core.generator import FAMILIES, FRAMED_FAMILIES, GeneratorSpec, generate, preset_conflict
from edgematch.core.model import RULES, Puzzle
from edgematch.errors import EdgematchError, FormatError, UsageError, quoted, toml_shown
from edgematch.formats import read_puzzle
from edgematch.formats.source import read_text
from edgematch.solvers.api import seconds_problem
from edgematch.solvers.base import backend_problem

TASKS = ("first", "count", "best")
MAX_REPEAT = 100
DEFAULT_TIMEOUT = 20.0  # seconds per run when a suite (or a folder's bench) names none
_FAMILY_KEYS = {"name", "sizes", "colours", "framed", "border_colours", "inner_colours", "rule", "rotations",
                "like", "unique", "hint", "task", "timeout", "backends"}
_SUITE_KEYS = {"name", "description", "task", "timeout", "seeds", "backends", "family", "repeat"}


def fingerprint(puzzle: Puzzle) -> str:
    """A stable hash of the puzzle's canonical content: its lossless JSON serialisation (tiles, hints, rule,
    frame, rotations) without the name and label names, which do not change the puzzle. Two instances with one
    name but different puzzles (another generator version, another file) get different fingerprints."""
    from edgematch.formats import write_puzzle

    text = write_puzzle(puzzle.replace(name="", labels={}), format="json")
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_fingerprints: dict[Instance, str] = {}


@dataclass(frozen=True)
class Instance:
    """One puzzle of a suite: generated from ``spec`` (planted, so known to be solvable) or read from
    ``path``; ``key`` names it in results. ``unique``: the spec's attempt was found to have exactly one
    distinct solution."""

    family: str
    size: str
    seed: int | None = None
    spec: GeneratorSpec | None = None
    path: str | None = None
    unique: bool = False
    task: str = ""  # the family's task, "" for the suite's
    timeout: float | None = None  # the family's seconds per run, None for the suite's
    backends: tuple[str, ...] = ()  # the family's backends (a subset of the suite's), () for all of them

    @property
    def key(self) -> str:
        return f"{self.family}/{self.size}/" + (f"seed{self.seed}" if self.path is None else Path(self.path).name)

    @property
    def tiles(self) -> int:
        width, height = self.size.split("x")
        return int(width) * int(height)

    @property
    def planted(self) -> bool:
        """True when the puzzle has a solution by construction (so "unsat" is a wrong answer)."""
        return self.spec is not None

    def puzzle(self) -> Puzzle:
        if self.spec is not None:
            return generate(self.spec)[0]
        assert self.path is not None
        return read_puzzle(self.path)

    def fingerprint(self) -> str:
        """The puzzle's identity by content (:func:`fingerprint`): what runs are matched on, never the name.
        A generated puzzle's is kept (its spec makes the same puzzle in this process); a file's is read anew,
        since the file may change."""
        if self.spec is None:
            return fingerprint(self.puzzle())
        if self not in _fingerprints:
            _fingerprints[self] = fingerprint(self.puzzle())
        return _fingerprints[self]

    def as_dict(self) -> dict[str, Any]:
        own = {"task": self.task, "timeout": self.timeout, "backends": list(self.backends)}
        return {"family": self.family, "size": self.size, "seed": self.seed, "path": self.path,
                "spec": asdict(self.spec) if self.spec else None, "unique": self.unique} | \
            {k: v for k, v in own.items() if v}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Instance:
        spec = GeneratorSpec(**data["spec"]) if data.get("spec") else None
        return cls(data["family"], data["size"], data.get("seed"), spec, data.get("path"), bool(data.get("unique")),
                   data.get("task", ""), data.get("timeout"), tuple(data.get("backends", ())))


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    task: str
    timeout: float
    seeds: tuple[int, ...]
    backends: tuple[str, ...]
    instances: tuple[Instance, ...]
    repeat: int = 1  # runs per cell (instance x backend): reports show min, median and spread
    # what the command-line settings changed that a user may not expect, one line each (e.g. a family's sizes
    # replaced by --sizes); said when the suite loads, never stored
    notes: tuple[str, ...] = field(default=(), compare=False)

    def runs(self) -> list[tuple[Instance, str]]:
        """Every (instance, backend) pair, smallest boards first so a stopped bench has the easy ones."""
        ordered = sorted(self.instances, key=lambda i: (i.tiles, i.family, i.key))
        return [(instance, backend) for instance in ordered for backend in self.backends_of(instance)]

    def task_of(self, instance: Instance) -> str:
        """The question the instance's runs ask: its family's task, else the suite's."""
        return instance.task or self.task

    def timeout_of(self, instance: Instance) -> float:
        """The instance's seconds per run: its family's timeout, else the suite's."""
        return self.timeout if instance.timeout is None else instance.timeout

    def backends_of(self, instance: Instance) -> tuple[str, ...]:
        """The suite's backends the instance runs on: those its family names (in the suite's order), else all
        (a backend left out of the suite, e.g. because its library is missing here, is left out here too)."""
        return tuple(b for b in self.backends if not instance.backends or b in instance.backends)

    @property
    def tasks(self) -> list[str]:
        """Every task the suite's instances ask, in plan order."""
        return list(dict.fromkeys(self.task_of(i) for i in self.instances)) or [self.task]

    def planned(self) -> list[tuple[Instance, str, int]]:
        """Every run: each cell :attr:`repeat` times, the cells in :meth:`runs` order, all cells' first runs
        before any second run (a stopped bench then has a figure for every cell it reached)."""
        return [(instance, backend, n) for n in range(self.repeat) for instance, backend in self.runs()]

    def as_dict(self) -> dict[str, Any]:
        """Everything needed to run the suite again exactly (a resumed session re-reads nothing)."""
        return {"name": self.name, "description": self.description, "task": self.task, "timeout": self.timeout,
                "seeds": list(self.seeds), "backends": list(self.backends),
                "instances": [i.as_dict() for i in self.instances], "repeat": self.repeat,
                **({"notes": list(self.notes)} if self.notes else {})}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Suite:
        return cls(data["name"], data["description"], data["task"], data["timeout"], tuple(data["seeds"]),
                   tuple(data["backends"]), tuple(Instance.from_dict(i) for i in data["instances"]),
                   int(data.get("repeat", 1)), tuple(data.get("notes", ())))


@dataclass(frozen=True)
class Overrides:
    """Settings given on the command line, replacing the suite's: ``sizes`` and ``colours`` apply to every
    family (``colours`` sets the inner colours of a framed family); ``families`` keeps only those named."""

    backends: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    colours: str | None = None
    seeds: tuple[int, ...] = ()
    timeout: float | None = None
    task: str | None = None
    families: tuple[str, ...] = ()
    repeat: int | None = None

    def __post_init__(self) -> None:
        if self.task is not None and self.task not in TASKS:
            raise UsageError(f"--task must be one of {', '.join(TASKS)}, got {quoted(self.task)}")
        problem = None if self.timeout is None else seconds_problem(self.timeout)
        if problem:
            raise UsageError(f"--timeout {problem}")

    def options(self) -> dict[str, str]:
        """The suite settings these overrides replace, each with the option that set it."""
        given = {"backends": "--backends", "seeds": "--seeds", "sizes": "--sizes", "timeout": "--timeout",
                 "task": "--task", "colours": "--colours", "inner_colours": "--colours", "repeat": "--repeat"}
        return {key: option for key, option in given.items()
                if getattr(self, "colours" if key == "inner_colours" else key) not in ((), None)}

    def changes(self, data: dict[str, Any]) -> list[str]:
        """One line per family of the suite's TOML ``data`` whose sizes ``--sizes`` or whose colours ``--colours``
        replaces (the options are for every family, as their help says; a user who set the suite's families
        apart should hear it), a best family's line saying what small boards do to its scores, and one for a
        ``--timeout`` other than the suite's (its description may name its own). The session keeps them and the
        report shows them."""
        lines = self._timeout_change(data)
        families = data.get("family")
        if not (self.sizes or self.colours is not None) or not isinstance(families, list):
            return lines
        now = [_shown_size(_number(s)) for s in self.sizes]
        for family in families:
            if not isinstance(family, dict) or self.families and family.get("name") not in self.families:
                continue
            lines += self._size_change(family, data, now) + self._colour_change(family)
        return lines

    def _timeout_change(self, data: dict[str, Any]) -> list[str]:
        if self.timeout is None:
            return []
        families = data.get("family") if isinstance(data.get("family"), list) else []
        own = [data.get("timeout", DEFAULT_TIMEOUT)] + [f.get("timeout") for f in families if isinstance(f, dict)
                                                        and (not self.families or f.get("name") in self.families)]
        was = sorted({float(t) for t in own if isinstance(t, int | float) and not isinstance(t, bool)})
        if not was or was == [self.timeout]:
            return []
        return [f"--timeout: {self.timeout:g} s a run (the suite has {', '.join(f'{t:g} s' for t in was)})"]

    def _size_change(self, family: dict[str, Any], data: dict[str, Any], now: list[str]) -> list[str]:
        if not self.sizes:
            return []
        was = family.get("sizes")
        before = [_shown_size(v) for v in was] if isinstance(was, list) else [str(was)]
        if before == now:
            return []
        task = self.task or family.get("task") or data.get("task")
        why = ("; a best family: on smaller boards more runs reach the maximum score, and scores then tell "
               "backends apart less (--families leaves it out)") if task == "best" and min(_tiles(s) for s in now) \
            < min((_tiles(s) for s in before), default=0) else ""
        return [f"--sizes: family {family.get('name')} now {', '.join(now)} (the suite has {', '.join(before)}{why})"]

    def _colour_change(self, family: dict[str, Any]) -> list[str]:
        if self.colours is None:
            return []
        like = family.get("like")
        framed = family.get("framed", isinstance(like, str) and like in FRAMED_FAMILIES)
        was = family.get("inner_colours", family.get("colours")) if framed else family.get("colours")
        if was is not None and str(was) == str(self.colours):
            return []
        before = (str(was) if was is not None else f"the {like} preset's" if isinstance(like, str)
                  else "the generator's default")
        return [f"--colours: family {family.get('name')} now {self.colours} {'inner ' if framed else ''}colours "
                f"(the suite has {before})"]

    def apply(self, data: dict[str, Any]) -> dict[str, Any]:
        """The suite's TOML data with these settings in place (checked afterwards like the file's own)."""
        data = dict(data)
        for key in ("backends", "seeds"):
            if getattr(self, key):
                data[key] = list(getattr(self, key))
        if self.timeout is not None:
            data["timeout"] = self.timeout
        if self.task is not None:
            data["task"] = self.task
        if self.repeat is not None:
            data["repeat"] = self.repeat
        families = []
        given = data.get("family") or []
        if not isinstance(given, list) or not all(isinstance(g, dict) and isinstance(g.get("name"), str)
                                                  for g in given):
            return data  # not [[family]] tables with names: parse_suite names the key and its line
        unknown = [f for f in self.families if f not in [g.get("name") for g in given]]
        if unknown:
            names = ", ".join(str(g.get("name")) for g in given) or "none"
            raise UsageError(f"--families: no family {', '.join(unknown)} in the suite (its families: {names})")
        for family in given:
            if self.families and family.get("name") not in self.families:
                continue
            family = dict(family)
            for key in ("task", "timeout", "backends"):  # the command line's setting is for every family
                if getattr(self, key) not in ((), None):
                    family.pop(key, None)
            if self.sizes:
                family["sizes"] = [_number(s) for s in self.sizes]
            if self.colours is not None:
                colours = _number(self.colours)
                like = family.get("like")
                framed = family.get("framed", isinstance(like, str) and like in FRAMED_FAMILIES)
                family["inner_colours" if framed else "colours"] = colours
            families.append(family)
        data["family"] = families
        return data


def builtin_suites() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files("edgematch.bench.suites").iterdir() if p.name.endswith(".toml"))


def load_suite(name_or_path: str | Path, overrides: Overrides | None = None) -> Suite:
    """A built-in suite by name, a suite file, or a folder of puzzle files; errors name the file and line. A
    bare built-in name given as a string (``"hard"``) is the built-in suite even beside a folder of that name
    (``"./hard"`` is the folder)."""
    path = Path(name_or_path)
    builtin = str(name_or_path) in builtin_suites()
    if path.is_dir() and not builtin:
        return folder_suite(path, overrides or Overrides())
    if builtin:
        text = resources.files("edgematch.bench.suites").joinpath(f"{name_or_path}.toml").read_text()
        where = f"<built-in suite {name_or_path}>"
    else:
        if not path.is_file():
            known = ", ".join(builtin_suites())
            raise FormatError(f"no such suite file or folder (built-in suites: {known})", path)
        text, where = read_text(path, "suite file"), str(path)
    return parse_suite(text, where, overrides, check_backends=True)


def _shown_size(value: Any) -> str:
    """A size as the suite gives it, shown as ``WxH`` (4 -> 4x4)."""
    return f"{value}x{value}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _tiles(shown: str) -> int:
    """The tiles of a size shown as ``WxH`` (0 when it is not one)."""
    match = re.fullmatch(r"([0-9]{1,9})x([0-9]{1,9})", shown)
    return int(match.group(1)) * int(match.group(2)) if match else 0


def _number(text: str) -> int | str:
    """A command-line size or colour count: a number when it is ASCII digits (at most 9), else as given."""
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text) else text


def _locate(text: str, key: str, family: str | int | None = None, value: str | None = None) -> int | None:
    """The line of ``key`` (in the ``[[family]]`` table named ``family``, or the table at that index when the
    family has no usable name; at ``value`` in its list), or None."""
    start = 0
    headers = [m.start() for m in re.finditer(r"^\s*\[\[\s*family\s*\]\]", text, re.M)]
    if isinstance(family, int):
        start = headers[family] if family < len(headers) else 0
    elif family is not None:
        named = re.search(rf"^\s*name\s*=\s*[\"']{re.escape(family)}[\"']", text, re.M)
        before = [h for h in headers if named is None or h < named.start()]
        start = before[-1] if before else 0
    if key == "family":
        match = re.compile(r"^\s*(\[\[\s*family\s*\]\]|family\s*=)", re.M).search(text, start)
    else:
        match = re.compile(rf"^\s*{re.escape(key)}\s*=", re.M).search(text, start)
        if match and value is not None:
            match = re.compile(rf"[\"']{re.escape(value)}[\"']").search(text, match.start()) or match
    return text.count("\n", 0, match.start()) + 1 if match else None


# solution files may sit beside the puzzles in a folder; they are not instances
_SOLUTION_SUFFIXES = {".emsol", ".sol"}
DEFAULT_BACKENDS = ("native", "cpsat", "cpsat:table", "sat")


def folder_suite(folder: Path, overrides: Overrides) -> Suite:
    """Every puzzle file in ``folder`` (any readable format; unreadable files stop it with FILE:LINE)."""
    if overrides.sizes or overrides.colours or overrides.seeds or overrides.families:
        raise UsageError("--sizes, --colours, --seeds and --families shape generated puzzles; a folder's puzzles "
                         "are as they are")
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                   and p.suffix.lower() not in _SOLUTION_SUFFIXES)
    if not files:
        raise FormatError("no puzzle files in this folder", folder)
    instances = []
    for file in files:
        puzzle = read_puzzle(file)
        instances.append(Instance(folder.name or "files", f"{puzzle.width}x{puzzle.height}", path=str(file.resolve())))
    task = overrides.task or "first"
    timeout = overrides.timeout if overrides.timeout is not None else DEFAULT_TIMEOUT
    return Suite(folder.name, f"the puzzle files in {folder}", task, timeout, (),
                 overrides.backends or DEFAULT_BACKENDS, tuple(instances), overrides.repeat or 1)


def parse_suite(text: str, where: str = "<suite>", overrides: Overrides | None = None,
                check_backends: bool = False) -> Suite:
    """The suite in TOML ``text`` (read from ``where``); ``check_backends`` also refuses unknown backend names
    (at their line) here rather than when the bench starts."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        line = int(found.group(1)) if found else max(1, len(text.rstrip("\n").split("\n")))  # "end of document"
        raise FormatError(f"invalid TOML: {exc}", where, line) from None
    except RecursionError:  # tomllib recurses into nested arrays
        raise FormatError("invalid TOML: arrays nested too deeply", where, 1) from None
    except ValueError:  # an integer of more than 4,300 digits
        long = re.search(r"[0-9_]{4301,}", text)
        line = text.count("\n", 0, long.start()) + 1 if long else None
        raise FormatError("invalid TOML: number too long", where, line) from None
    given = overrides.options() if overrides is not None else {}
    notes: list[str] = []
    if overrides is not None:
        notes = overrides.changes(data)
        data = overrides.apply(data)

    def fail(key: str, message: str, family: str | None = None, value: str | None = None) -> EdgematchError:
        if key in given:
            return UsageError(f"{given[key]}: {message}")
        return FormatError(f"{key}: {message}", where, _locate(text, key, family, value))

    unknown = set(data) - _SUITE_KEYS
    if unknown:
        raise fail(sorted(unknown)[0], f"unknown setting (known: {', '.join(sorted(_SUITE_KEYS))})")
    suite_name = data.get("name", Path(where).stem)
    if not isinstance(suite_name, str) or not suite_name:
        raise fail("name", f"must be a non-empty string, got {toml_shown(suite_name)}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise fail("description", f"must be a string, got {toml_shown(description)}")
    task = data.get("task", "first")
    if not isinstance(task, str) or task not in TASKS:
        raise fail("task", f"must be one of {', '.join(TASKS)}, got {toml_shown(task)}")
    timeout = data.get("timeout", DEFAULT_TIMEOUT)
    problem = seconds_problem(timeout)
    if problem:
        raise fail("timeout", problem)
    seeds = data.get("seeds", [1])
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and not isinstance(s, bool)
                                                           for s in seeds):
        raise fail("seeds", f"must be a non-empty list of integers, got {toml_shown(seeds)}")
    backends = data.get("backends")
    if not isinstance(backends, list) or not backends or not all(isinstance(b, str) for b in backends):
        raise fail("backends", f"must be a non-empty list of backend names, got {toml_shown(backends)}")
    if check_backends:
        for name in backends:
            problem = backend_problem(name, options=True)
            if problem:
                raise fail("backends", problem, value=name)
    repeat = data.get("repeat", 1)
    if not isinstance(repeat, int) or isinstance(repeat, bool) or not 1 <= repeat <= MAX_REPEAT:
        raise fail("repeat", f"must be a whole number from 1 to {MAX_REPEAT}, got {toml_shown(repeat)}")
    families = data.get("family")
    if families is None or families == []:
        raise fail("family", "at least one [[family]] table is needed")
    if not isinstance(families, list) or not all(isinstance(f, dict) for f in families):
        raise fail("family", f"must be [[family]] tables, got {toml_shown(families)}")
    instances = [inst for index, family in enumerate(families)
                 for inst in _family(family, seeds, fail, backends, index)]
    keys = [i.key for i in instances]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise fail("family", f"instance {repeated[0]} appears twice (repeated seeds, sizes or family names)")
    return Suite(suite_name, description, task, float(timeout), tuple(seeds), tuple(backends), tuple(instances), repeat,
                 tuple(notes))


def _family(family: dict[str, Any], seeds: list[int], fail, suite_backends: list[str], index: int = 0
            ) -> list[Instance]:
    unknown = set(family) - _FAMILY_KEYS
    if unknown:
        raise fail(sorted(unknown)[0], f"unknown family setting (known: {', '.join(sorted(_FAMILY_KEYS))})")
    name = family.get("name")
    if not isinstance(name, str) or not name:
        raise fail("name", "every [[family]] needs a name (a non-empty string)" +
                   ("" if name is None else f", got {toml_shown(name)}"), index)
    sizes = family.get("sizes")
    if not isinstance(sizes, list) or not sizes:
        raise fail("sizes", f"family {name}: a non-empty list of sizes (4 or \"6x4\") is needed, got "
                            f"{toml_shown(sizes)}", name)
    for key in ("framed", "rotations", "unique", "hint"):
        if not isinstance(family.get(key, True), bool):
            raise fail(key, f"family {name}: true or false, got {toml_shown(family[key])}", name)
    task = family.get("task", "")
    if "task" in family and (not isinstance(task, str) or task not in TASKS):
        raise fail("task", f"family {name}: one of {', '.join(TASKS)}, got {toml_shown(task)}", name)
    timeout = family.get("timeout")
    problem = None if timeout is None else seconds_problem(timeout)
    if problem:
        raise fail("timeout", f"family {name}: {problem}", name)
    backends = family.get("backends", [])
    if not isinstance(backends, list) or not all(isinstance(b, str) for b in backends) or "backends" in family \
            and not backends:
        raise fail("backends", f"family {name}: a non-empty list of backend names, got {toml_shown(backends)}", name)
    outside = [b for b in backends if b not in suite_backends]
    if outside:
        raise fail("backends", f"family {name}: {outside[0]} is not one of the suite's backends "
                               f"({', '.join(suite_backends)})", name, outside[0])
    own = {"task": task, "timeout": None if timeout is None else float(timeout), "backends": tuple(backends)}
    rule = family.get("rule")
    if rule is not None and (not isinstance(rule, str) or rule not in RULES):
        raise fail("rule", f"family {name}: one of {', '.join(RULES)}, got {toml_shown(rule)}", name)
    like = family.get("like")
    if like is not None and (not isinstance(like, str) or like not in FAMILIES):
        raise fail("like", f"family {name}: one of {', '.join(FAMILIES)}, got {toml_shown(like)}", name)
    unique = family.get("unique", False)
    out = []
    for size in sizes:
        width, height = _size(size, name, fail)
        colours = {k: _colours(family.get(k), k, width, name, fail)
                   for k in ("colours", "border_colours", "inner_colours") if k in family}
        if like is not None:
            conflict = preset_conflict(like, family.get("framed"), rule, colours.get("border_colours"),
                                       colours.get("inner_colours"))
            if conflict:
                raise fail(conflict[0], f"family {name}: {conflict[1]}", name)
        for seed in seeds:
            try:
                spec = GeneratorSpec(width, height, framed=family.get("framed"), rule=rule,
                                     rotations=family.get("rotations"), seed=seed, like=like,
                                     hint=family.get("hint", False), **colours)
            except EdgematchError as exc:  # the generator's own checks
                raise fail("sizes", f"family {name}: {exc}", name) from None
            if unique:
                spec = _unique(spec, name, fail)
            out.append(Instance(name, f"{width}x{height}", seed, spec, unique=unique, **own))
    return out


def _unique(spec: GeneratorSpec, family: str, fail) -> GeneratorSpec:
    """The spec of the first derived puzzle with exactly one distinct solution (found by the native backend)."""
    from edgematch.solvers.unique import unique_puzzle

    try:
        _, _, tries = unique_puzzle(spec)
    except EdgematchError as exc:  # none found in the tries and time allowed, or native not built
        raise fail("unique", f"family {family}: {exc}", family) from None
    return replace(spec, attempt=spec.attempt + tries - 1)


def _size(value: Any, family: str, fail) -> tuple[int, int]:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value, value
    match = re.fullmatch(r"([0-9]{1,9})x([0-9]{1,9})", str(value))
    if not match or min(int(match.group(1)), int(match.group(2))) < 1:
        raise fail("sizes", f"family {family}: sizes are positive integers or \"WxH\", got {toml_shown(value)}", family)
    return int(match.group(1)), int(match.group(2))


def _colours(value: Any, key: str, side: int, family: str, fail) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        count = value
    else:
        match = re.fullmatch(r"size\s*(?:([+-])\s*([0-9]{1,9}))?", str(value).strip())
        if not match:
            raise fail(key, f"family {family}: a number or \"size\", \"size-K\", \"size+K\", got {toml_shown(value)}",
                       family)
        delta = int(match.group(2) or 0) * (-1 if match.group(1) == "-" else 1)
        count = side + delta
    if count < 1:
        raise fail(key, f"family {family}: {count} colours at size {side}", family)
    return count
