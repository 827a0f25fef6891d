"""How ``backend="auto"`` chooses: rules measured by the harness, kept in ``policy.toml`` beside this file.

A rule names a question (first | count | best), a puzzle kind (framed or not, same or signed) and a board size
(``up_to_tiles``), and gives the backend that was fastest there by PAR2 (``best``: that reached the highest
mean checked score in the time a run had) in the bench sessions named in the file's ``[source]``, or in its
``[source.QUESTION]`` table when that question was measured apart, with the figures as ``evidence``. A
source's ``hints`` lists the hint counts of the boards measured: ``--explain`` says when a puzzle's differ.
A *fine* rule also names ``rotations`` (whether tiles turn: Tetravex's do not) and, for framed boards,
``rim_tight`` (the rim seams have at least as many colours as the inner ones, as on the clue puzzles;
Eternity II-like boards have far fewer): puzzles of a fine kind that was measured take its rules, any other
puzzle the kind's *pooled* rules (no such keys, derived from every family of the kind together). A puzzle
takes the first rule whose size covers it; a board larger than any measured takes the largest rule (an
extrapolation, said so); a kind or question with no rules takes ``default``. ``all`` uses the ``count``
rules (both walk every solution). Regenerate the file from a new bench database with ``edgematch policy
--db FILE`` (the shipped file's header says how it was made).

Which file: the shipped ``policy.toml`` is package data and is never written. ``edgematch policy`` writes
a *user* policy (``policy.toml`` in the user's config directory, or ``--output``); ``auto`` reads the file
named by ``$EDGEMATCH_POLICY`` when set, else the user policy when one exists, else the shipped one, and
names the file it used (``--explain``, and ``policy`` in the result's options). ``$EDGEMATCH_CONFIG_DIR``
moves the user config directory (tests point it at a temporary one).

A policy file that cannot be used (not UTF-8, not TOML, a missing table or key, a value of the wrong type, a
backend name this edgematch does not know) is a :class:`PolicyError`: one line naming the file and what is
wrong, in every command that runs ``auto``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from edgematch.core.analysis import rim_tight
from edgematch.core.model import Puzzle
from edgematch.errors import EdgematchError, FormatError, UsageError, quoted, toml_shown
from edgematch.solvers.base import Task, backend_problem

POLICY_FILE = "policy.toml"
POLICY_ENV = "EDGEMATCH_POLICY"  # a policy file auto reads (and `edgematch policy` writes) instead
CONFIG_ENV = "EDGEMATCH_CONFIG_DIR"  # the user config directory, instead of the platform's
SHIPPED = "shipped"  # how the result's options name the package's own policy


class PolicyError(FormatError):
    """A policy file ``auto`` cannot use: renders as ``FILE[:LINE]: what is wrong``."""


# the keys of a rule: required ones with their type, then optional ones (evidence defaults to "")
RULE_KEYS: dict[str, type] = {"question": str, "framed": bool, "rule": str, "up_to_tiles": int, "backend": str}
RULE_OPTIONAL: dict[str, type] = {"rotations": bool, "rim_tight": bool, "confirm": str, "evidence": str}
RULE_VALUES = {"question": ("first", "count", "best"), "rule": ("same", "signed")}
_TYPE_WORDS = {str: "a string", bool: "true or false", int: "a whole number", dict: "a table"}


@dataclass(frozen=True)
class Features:
    """What the policy looks at."""

    question: str
    width: int
    height: int
    framed: bool
    rule: str
    rotations: bool
    hints: int
    labels: int
    rim_tight: bool = False

    @property
    def tiles(self) -> int:
        return self.width * self.height

    @property
    def kind(self) -> str:
        return f"{'framed' if self.framed else 'unframed'} {self.rule}"

    @property
    def fine_kind(self) -> str:
        return (f"{self.kind}{'' if self.rotations else ', tiles fixed'}"
                f"{', rim colours >= inner' if self.rim_tight else ''}")


def features(puzzle: Puzzle, question: str) -> Features:
    import numpy as np  # here: importing the package does not load numpy

    edges = puzzle.edge_array  # a 250x250 has 250,000 edges: one pass in numpy
    labels = set(np.unique(np.abs(edges) if puzzle.rule == "signed" else edges).tolist())
    labels.discard(puzzle.frame)
    return Features("count" if question == "all" else question, puzzle.width, puzzle.height,
                    puzzle.frame is not None, puzzle.rule, puzzle.rotations, len(puzzle.hints), len(labels),
                    rim_tight(puzzle))


@dataclass(frozen=True)
class Choice:
    backend: str
    reason: str
    policy: str = ""  # the file the rules came from (SHIPPED for the package's own)


@dataclass(frozen=True)
class Policy:
    source: dict[str, Any]
    default: str
    rules: list[dict[str, Any]]
    origin: str = SHIPPED  # the file it was read from, SHIPPED for the package's own

    def choose(self, puzzle: Puzzle, question: str, task: Task | None = None, here: bool = True) -> Choice:
        """The rule for the puzzle and question; with ``task``, rules whose backend cannot honour its
        options or workers are passed over (so ``auto`` never fails where a measured alternative runs) and
        the reason says so: the measured rule, the backend it names, why that one cannot, and what runs
        instead (the rule of another size whose backend can, else the default, else the first backend that
        can); with ``here`` (the default), rules whose backend is not installed here are passed over too."""
        f = features(puzzle, question)
        measured = self._measured(f)
        usable = sorted((r for r in measured if not here or (installed(r["backend"]) and _races_fairly(r["backend"]))),
                        key=lambda r: r["up_to_tiles"])
        mine = [r for r in usable if task is None or _takes(r["backend"], task)]
        source = self.source_of(f.question)
        where = _cited(source)
        pooled = bool(measured) and "rotations" not in measured[0]
        fine_rules = any("rotations" in r for r in self.rules)
        head = f"{f.kind} {f.width}x{f.height}, question {f.question}: "

        def pick(rules: list[dict[str, Any]]) -> tuple[dict[str, Any], bool]:
            covering = [r for r in rules if f.tiles <= r["up_to_tiles"]]
            return (covering[0], True) if covering else (rules[-1], False)

        def said(rule: dict[str, Any], covers: bool, instead: bool = False) -> str:
            size = (f"up to {rule['up_to_tiles']} tiles" if covers
                    else f"up to {rule['up_to_tiles']} tiles (the largest whose backend can)" if instead
                    else f"beyond the largest measured ({rule['up_to_tiles']} tiles): extrapolated")
            kind = f.fine_kind if "rotations" in rule else f.kind
            return f"rule for {kind} boards {size} -> {rule['backend']}; {rule['evidence']} [{where}]"

        passed = ""  # the measured rule whose backend cannot take the task, said first
        if usable and pick(usable)[0] not in mine:
            first, covers = pick(usable)
            refused = refusal(first["backend"], task) or "it refuses the task"
            passed = (f"the measured {said(first, covers)}; but {first['backend']} cannot take the options or "
                      f"workers asked for ({refused}), so auto passes to the next choice: ")
        caveats = "".join([
            f"; no family of this puzzle's finer kind ({f.fine_kind}) was measured: pooled rules"
            if pooled and fine_rules else "" if f.rotations or fine_rules
            else "; tiles do not turn here, the bench's puzzles do",
            _hints_caveat(f.hints, source.get("hints")),
            "; rules needing a library that is not installed, or racing two backends on one usable core, were "
            "skipped" if len(usable) < len(measured) else "",
            "; rules whose backend cannot take the options or workers asked for were skipped"
            if len(mine) < len(usable) and not passed else "",
        ])
        if mine:
            rule, covers = pick(mine)
            return Choice(rule["backend"], f"{head}{passed}{said(rule, covers, instead=bool(passed))}{caveats}",
                          self.origin)
        backend, why = self.default, f"the default {self.default}"
        if task is not None and not _runs(self.default, task, here):
            backend = _taker(task, here)
            why = f"the default {self.default} cannot take the options asked for; {backend} can"
        if passed:
            why = (f"{backend}, the default" if backend == self.default else
                   f"{backend}, the first backend that can (the default, {self.default}, cannot either)")
            return Choice(backend, f"{head}{passed}{why}{caveats}", self.origin)
        return Choice(backend, f"no measured rule for {f.kind} boards, question {f.question}: {why}{caveats}",
                      self.origin)

    def source_of(self, question: str) -> dict[str, Any]:
        """Where the rules of ``question`` were measured: the file's ``[source.QUESTION]`` table when it has
        one, else its ``[source]`` (without the per-question tables)."""
        table = self.source.get(question)
        if isinstance(table, dict):
            return table
        return {k: v for k, v in self.source.items() if not isinstance(v, dict)}

    def confirm_backend(self, puzzle: Puzzle, question: str) -> str | None:
        """The measured second opinion (fastest backend of another family) of the rule covering the puzzle,
        when the policy file records one."""
        f = features(puzzle, question)
        rules = sorted(self._measured(f), key=lambda r: r["up_to_tiles"])
        covering = [r for r in rules if f.tiles <= r["up_to_tiles"]] or rules[-1:]
        return covering[0].get("confirm") if covering else None

    def _measured(self, f: Features) -> list[dict[str, Any]]:
        """The rules of the puzzle's fine kind when that kind was measured, else the kind's pooled rules."""
        kind = [r for r in self.rules if (r["question"], r["framed"], r["rule"]) == (f.question, f.framed, f.rule)]
        fine = [r for r in kind if "rotations" in r and (r["rotations"], r.get("rim_tight", False))
                == (f.rotations, f.rim_tight)]
        return fine or [r for r in kind if "rotations" not in r]


def regime(hints: int | None) -> str:
    """A clue regime as the Eternity II community says it (scores compare only within one): ``no hints``,
    ``1 hint``, ``5 hints``; ``hints unknown`` for None."""
    if hints is None:
        return "hints unknown"
    return "no hints" if hints == 0 else f"{hints} hint{'s' if hints != 1 else ''}"


def _cited(source: dict[str, Any]) -> str:
    """A source table as ``--explain`` cites it: sessions, suites, date and machine."""
    sessions = source.get("sessions")
    suite = str(source.get("suite"))
    if isinstance(sessions, list) and len(sessions) > 1:
        which = f"sessions {', '.join(map(str, sessions))}"
    else:
        which = f"session {source.get('session')}"
    suites = f"{suite} suite{'s' if ', ' in suite else ''}"
    return f"{which} of the {suites} ({source.get('generated')}, {source.get('cpu')})"


def _hints_caveat(hints: int, measured: object) -> str:
    """What ``--explain`` adds when the puzzle's hints differ from those of the boards measured (``measured``:
    the source's ``hints`` list; a file without one was measured on boards without hints)."""
    if isinstance(measured, list) and all(isinstance(h, int) and not isinstance(h, bool) for h in measured):
        if hints in measured or not measured:
            return ""
        return f"; {regime(hints)} here, the bench's boards had {' or '.join(regime(h) for h in measured)}"
    return f"; {hints} hint(s), the bench had none" if hints else ""


def installed(backend: str) -> bool:
    """Whether ``backend`` (every member, for a portfolio) can run here."""
    from edgematch.solvers.base import get_backend

    name, _, sub = backend.partition(":")
    try:
        for one in (sub.split("+") if name == "portfolio" and sub else [backend]):
            get_backend(one)
    except EdgematchError:
        return False
    return True


def _races_fairly(backend: str) -> bool:
    """A portfolio rule needs a core per member: on one core the members only take turns."""
    if not backend.startswith("portfolio"):
        return True
    from edgematch.solvers.parallel.processes import usable_cores

    return usable_cores() >= 2


def refusal(backend: str, task: Task | None) -> str | None:
    """Why ``backend`` cannot run ``task`` as asked, in the backend's own words, or None."""
    from edgematch.solvers.base import get_backend

    return get_backend(backend).refusal(task) if task is not None else None


def _takes(backend: str, task: Task) -> bool:
    return refusal(backend, task) is None


def _runs(backend: str, task: Task, here: bool) -> bool:
    """Whether ``backend`` can run ``task`` as asked (and, with ``here``, is installed)."""
    return (not here or installed(backend)) and _takes(backend, task)


def _taker(task: Task, here: bool) -> str:
    """The first single backend (registry order, variants included) that takes ``task``'s options and
    workers: what ``auto`` runs when neither a rule nor the default can. When none can, one error: naming
    the extra when only a backend not installed here takes them, else every backend's options."""
    from edgematch.solvers.base import backend_class, every_backend, get_backend, is_meta

    names = [n for n in every_backend() if not is_meta(n)]
    for name in names:
        if _runs(name, task, here):
            return name
    for name in names:  # some backend would take them, but it is not installed: say what to install
        if not installed(name) and _takes_unloaded(name, task):
            get_backend(name)  # raises MissingDependencyError naming the extra
    for name in names:  # a backend knows every option asked, but not for this question: its reason says why
        if set(task.options) <= set(backend_class(name.partition(":")[0]).options) and (reason := refusal(name, task)):
            raise UsageError(reason)
    asked = ", ".join(sorted(task.options)) or "none"
    known = "; ".join(f"{n}: {', '.join(backend_class(n).options) or 'none'}"
                      for n in dict.fromkeys(n.partition(":")[0] for n in names))
    workers = f" with {task.workers} workers" if task.workers > 1 else ""
    raise UsageError(f"unknown option(s) {asked}: no backend takes them{workers} (options per backend: {known})")


def _takes_unloaded(name: str, task: Task) -> bool:
    """Whether backend ``name`` (perhaps not installed) would take the task's options, by its declared list."""
    from edgematch.solvers.base import backend_class

    return set(task.options) <= set(backend_class(name.partition(":")[0]).options)


def user_policy_path() -> Path:
    """Where ``edgematch policy`` writes by default and ``auto`` looks before the shipped policy:
    ``$EDGEMATCH_POLICY``, else ``policy.toml`` in the user config directory (``$EDGEMATCH_CONFIG_DIR``,
    else the platform's, e.g. ``~/.config/edgematch``). Never the package's own file."""
    named = os.environ.get(POLICY_ENV)
    if named:
        return Path(named)
    folder = os.environ.get(CONFIG_ENV)
    if not folder:
        from platformdirs import user_config_dir

        folder = user_config_dir("edgematch", appauthor=False)
    return Path(folder) / POLICY_FILE


def policy_path() -> Path | None:
    """The policy file ``auto`` reads: the user's (see :func:`user_policy_path`) when it exists, else None
    (the shipped one). A ``$EDGEMATCH_POLICY`` that names no file is an error, not silently ignored."""
    path = user_policy_path()
    if path.is_file():
        return path
    if os.environ.get(POLICY_ENV):
        raise UsageError(f"{POLICY_ENV}={path}: no such policy file")
    return None


_cache: dict[tuple[str, int], Policy] = {}


def load_policy(path: str | Path | None = None) -> Policy:
    """The policy in ``path``; without one, the one ``auto`` reads (the user's when it exists, else the one
    shipped with the package). Re-read when the file changes. A file that is not a usable policy is a
    :class:`PolicyError` naming it and the problem (see :func:`parse_policy`)."""
    if path is None:
        path = policy_path()
    key = (str(path or ""), Path(path).stat().st_mtime_ns if path is not None else 0)
    if key not in _cache:
        if path is None:
            data, where = resources.files("edgematch.solvers").joinpath(POLICY_FILE).read_bytes(), POLICY_FILE
        else:
            data, where = Path(path).read_bytes(), str(path)
        _cache[key] = parse_policy(data, where, SHIPPED if path is None else str(path))
    return _cache[key]


def parse_policy(data: bytes, where: str, origin: str | None = None) -> Policy:
    """The policy in ``data`` (a file's bytes, read from ``where``), its shape checked: UTF-8 TOML with a
    ``default`` backend, a ``[source]`` table and ``[[rule]]`` tables of known keys and types naming known
    backends; anything else is one :class:`PolicyError` naming ``where`` (and the line, when known)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        bad = data[exc.start:exc.start + 1]
        raise PolicyError(f"not a policy file: not UTF-8 text (byte {exc.start + 1} is {bad!r})", where, line) from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"not a policy file: not TOML: {exc}", where) from None
    except (ValueError, RecursionError, MemoryError) as exc:  # tomllib's own limits (deep nesting, ...)
        raise PolicyError(f"not a policy file: unreadable TOML ({type(exc).__name__})", where) from None

    def wrong(message: str) -> PolicyError:
        return PolicyError(f"not a policy file: {message}", where)

    unknown = sorted(set(table) - {"default", "source", "rule"})
    if unknown:
        raise wrong(f"unknown key(s) {', '.join(quoted(k) for k in unknown[:5])} (a policy has default, [source] "
                    "and [[rule]] tables)")
    for name, kind in (("default", str), ("source", dict)):
        if name not in table:
            raise wrong(f"no {name!r} {'key' if kind is str else 'table'}")
        if not isinstance(table[name], kind):
            raise wrong(f"{name} must be {_TYPE_WORDS[kind]}, got {toml_shown(table[name])}")
    problem = backend_problem(table["default"])
    if problem:
        raise wrong(f"default: {problem}")
    rules = table.get("rule", [])
    if not isinstance(rules, list):
        raise wrong(f"rule must be an array of [[rule]] tables, got {toml_shown(rules)}")
    checked = []
    for number, rule in enumerate(rules, 1):
        checked.append(_checked_rule(rule, lambda message, n=number: wrong(f"rule {n}: {message}")))
    return Policy(table["source"], table["default"], checked, origin or where)


def _checked_rule(rule: object, wrong: Any) -> dict[str, Any]:
    """One ``[[rule]]`` table, its keys and types checked (``wrong(message)`` makes the error)."""
    if not isinstance(rule, dict):
        raise wrong(f"must be a [[rule]] table, got {toml_shown(rule)}")
    unknown = sorted(set(rule) - set(RULE_KEYS) - set(RULE_OPTIONAL))
    if unknown:
        raise wrong(f"unknown key(s) {', '.join(quoted(str(k)) for k in unknown[:5])} "
                    f"(known: {', '.join([*RULE_KEYS, *RULE_OPTIONAL])})")
    for key, kind in {**RULE_KEYS, **RULE_OPTIONAL}.items():
        if key not in rule:
            if key in RULE_KEYS:
                raise wrong(f"no {key!r} key")
            continue
        value = rule[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise wrong(f"{key} must be {_TYPE_WORDS[kind]}, got {toml_shown(value)}")
        if key in RULE_VALUES and value not in RULE_VALUES[key]:
            raise wrong(f"{key} must be one of {', '.join(RULE_VALUES[key])}, got {toml_shown(value)}")
    if rule["up_to_tiles"] < 1:
        raise wrong(f"up_to_tiles must be at least 1, got {rule['up_to_tiles']}")
    for key in ("backend", "confirm"):
        problem = backend_problem(rule[key]) if key in rule else None
        if problem:
            raise wrong(f"{key}: {problem}")
    return {"evidence": "", **rule}


def choose(puzzle: Puzzle, question: str = "first", task: Task | None = None) -> Choice:
    """What ``auto`` runs for the puzzle and question, by the policy it reads (see :func:`load_policy`)."""
    return load_policy().choose(puzzle, question, task)
