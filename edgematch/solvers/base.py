"""What every backend shares: the task, the one result type, the backend interface and the registry.

Adding a backend (checklist):
1. Subclass :class:`Backend`: set ``name``, ``extra`` (the pip extra that brings its library) and
   ``modules`` (what must import; ``warm`` lists deeper modules the harness loads before timing a run);
   implement :meth:`Backend.run` (and :meth:`Backend.iter_solutions` if it can enumerate lazily). Import the
   solver library inside those methods, never at module level.
2. Map every native status to a :class:`Status` explicitly; an unknown one is an error, never "unknown".
3. Fill :class:`Timings` (build / solve; the API adds check) and backend counters in ``counters``.
4. Honour the task's deadline (``task.until(started)``: the caller's instant, else ``time_limit`` seconds from
   ``started``) inside the backend; count raw and distinct as docs/architecture.md defines them.
5. Register it in ``_BUILTIN`` below and run the tests parametrised over backends for it alone:
   ``pytest --backend NAME`` (tests/conftest.py; the others run as usual).
"""

from __future__ import annotations

import importlib.util
import numbers
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from edgematch import clock
from edgematch.core.model import MAX_DIGITS, Puzzle, Solution, is_integer_word
from edgematch.errors import BackendError, EdgematchError, MissingDependencyError, UsageError, shown

Question = Literal["first", "all", "count", "best"]
MAX_TIME_LIMIT = 10_000_000.0  # the longest time limit taken (about 116 days): past it a limit is a typo
QUESTIONS: tuple[Question, ...] = ("first", "all", "count", "best")

# the best-score question (``best``): a board of every tile that keeps every rule except that seams may
# mismatch, scored by its fitting seams. Status SOLVED: the board's score is proven the maximum (a full
# solution, or a backend's proof of optimality); TIMEOUT: the best board found when the time ran out or the
# user stopped the search (``solutions`` may then be empty); UNSAT: no admissible board exists.


# how a run that was stopped says why, in its Result's message (the API raises Interrupted on the second, exactly)
TIME_LIMIT = "time limit"
INTERRUPTED = "interrupted"


class Status(StrEnum):
    """How a run ended. ``solved``/``unsat`` are complete answers; ``timeout`` means stopped early
    (time limit or interrupt: counts are then lower bounds); ``error`` means the backend failed."""

    SOLVED = "solved"
    UNSAT = "unsat"
    TIMEOUT = "timeout"
    ERROR = "error"


@dataclass(frozen=True)
class Task:
    """What to ask a backend. ``limit`` caps stored solutions for ``all``; ``distinct`` asks for the
    distinct count too; ``options`` are backend specific (e.g. ``order="spiral"``).

    ``time_limit`` is the caller's limit in seconds, as results report it; ``deadline`` is the instant (on
    :func:`edgematch.clock.now`) every layer below must end by. The library's calls set it once, when the
    backend is loaded; a layer that splits the time hands its parts a nearer one. A task without one (a
    backend's ``run`` called directly) counts ``time_limit`` from the moment the backend starts."""

    question: Question = "first"
    time_limit: float | None = None
    limit: int | None = None
    distinct: bool = False
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    progress: Callable[[dict[str, float]], None] | None = None
    # ``best``: called in the caller's process with each better board and its score, as soon as it is found
    on_improve: Callable[[Solution, int], None] | None = None
    # ``best``: the best board found elsewhere (another worker or chain) and its score, or None; a search may
    # poll it between its steps and carry on from that board when it beats its own (``best --workers``)
    incumbent: Callable[[], tuple[Solution, int] | None] | None = None
    # where the search's parts run instead of this machine's cores: "local:N", a Dask scheduler address or a
    # dask.distributed.Client (edgematch.solvers.parallel.cluster); None runs here
    cluster: Any = None
    deadline: float | None = None

    def until(self, started: float, setup: float = 0.0) -> float | None:
        """The instant this task must end by: its deadline, else ``time_limit`` seconds after ``started``
        (None: no limit). ``setup``: seconds spent on something the limit does not count (a Dask local
        cluster's start), which push the deadline back."""
        if self.deadline is not None:
            return self.deadline + setup
        return clock.deadline(self.time_limit, started)

    def anchored(self, started: float) -> Task:
        """This task with its deadline set (counted from ``started`` when it had none), for the layers below."""
        return self if self.deadline is not None or self.time_limit is None else \
            replace(self, deadline=self.until(started))


@dataclass
class Timings:
    """Seconds spent building the backend's model, searching, and checking the answers."""

    build: float = 0.0
    solve: float = 0.0
    check: float = 0.0

    @property
    def total(self) -> float:
        return self.build + self.solve + self.check


@dataclass
class Confirmation:
    """The second opinion (:mod:`edgematch.solvers.confirm`): who gave it, whether it agrees (None: it could
    not answer in time), and its result."""

    by: str
    agreed: bool | None
    detail: str
    result: Result | None = None


@dataclass
class Result:
    """One result type for every backend and every question (``solve``, ``solve_all``, ``count``, ``best``).

    ``status`` says how the call ended; the other fields hold what it found (each documented below).

    Its truth value is :attr:`complete`: ``if result:`` holds when the call gave a final answer to its
    question (a solution found, or proven that there is none; an exact count; ``best``: a board proven the
    maximum) and fails on a timeout (a partial answer, a lower bound) or an error. A proven "no solution" is
    a final answer, so it is true too: to ask whether a solution or board was found, test
    ``result.solution is not None``.
    """

    backend: str
    """The backend that answered (``auto`` names its choice, e.g. ``native``; ``portfolio(sat)`` its winner)."""
    status: Status
    """How the call ended: solved, unsat (proven: no solution), timeout (stopped early: the time limit or
    Ctrl-C, and counts are then lower bounds) or error (``message`` says why)."""
    solutions: list[Solution] = field(default_factory=list)
    """The solutions found, each checked by the independent checker (``solve``: at most one; ``solve_all``:
    up to its limit; ``count``: none are kept; ``best``: the best board)."""
    count: int | None = None
    """``count`` and a finished ``solve_all``: the raw solutions (every tile-and-turn assignment); a lower
    bound when ``status`` is timeout. None when the question did not count."""
    distinct: int | None = None
    """With ``distinct=True``: the solutions that look different (identical tiles and turning the whole board
    merged); None otherwise."""
    timings: Timings = field(default_factory=Timings)
    """Seconds spent building the model, searching and checking (``timings.total``: the sum)."""
    counters: dict[str, float] = field(default_factory=dict)
    """The backend's own figures: nodes, conflicts, restarts, workers, ... (they differ per backend)."""
    options: dict[str, Any] = field(default_factory=dict)
    """The settings the backend ran with (its defaults included), e.g. ``{"order": "spiral"}``."""
    message: str = ""
    """Why the search stopped (``time limit``, ``interrupted``, ``solution limit``), what failed, or a note on
    the answer (where a DRAT proof was written); empty when there is nothing to say."""
    confirmation: Confirmation | None = None
    """With ``confirm=True``: the second opinion of a backend of another family; None otherwise."""
    score: int | None = None
    """``best``: the inner seams that fit on ``solution`` (re-counted by the checker); None without a board."""
    max_score: int | None = None
    """``best``: the puzzle's inner seams, the score of a full solution."""
    history: list[tuple[float, int]] = field(default_factory=list)
    """``best``: (seconds since the start, score) for each better board, in order."""

    @property
    def optimal(self) -> bool:
        """``best``: whether the board's score is proven the maximum (a full solution always is)."""
        return self.status is Status.SOLVED and self.score is not None

    @property
    def solution(self) -> Solution | None:
        """The first of ``solutions`` (``solve``'s solution, ``best``'s board), or None."""
        return self.solutions[0] if self.solutions else None

    @property
    def complete(self) -> bool:
        """Whether the answer is final (the search finished or proved there is none)."""
        return self.status in (Status.SOLVED, Status.UNSAT)

    def __bool__(self) -> bool:
        """:attr:`complete`: a timeout (a partial answer) or an error is false (see the class docstring)."""
        return self.complete

    def kept(self) -> str:
        """What this result holds, in a few words (for the message of an interrupted call)."""
        if self.score is not None:
            return f"a board scoring {self.score}" + (f"/{self.max_score}" if self.max_score is not None else "")
        if self.count is not None:
            exact = "" if self.complete else "at least "
            return f"a count of {exact}{self.count:,} raw solution(s)" + (
                f", {exact}{self.distinct:,} distinct" if self.distinct is not None else "")
        if self.solutions:
            return f"{len(self.solutions):,} solution(s)"
        return "nothing found yet"


class Backend:
    """A way of solving puzzles. Subclasses implement :meth:`run`; see the module docstring."""

    name: str = ""
    extra: str | None = None
    modules: tuple[str, ...] = ()
    warm: tuple[str, ...] = ()  # modules :meth:`warm_up` loads besides ``modules``
    description: str = ""
    options: tuple[str, ...] = ()  # the backend-specific options it understands
    defaults: dict[str, str] = {}  # each option's default, as `edgematch backends` shows it
    meanings: dict[str, str] = {}  # what each option does, in a few words, for `edgematch backends`
    variants: tuple[str, ...] = ()  # the SUB of each ``name:SUB`` it takes (e.g. sat:cadical195)
    questions: tuple[Question, ...] = ("first", "all", "count")  # what it answers (``best`` where it can)
    on_cluster: bool = False  # whether it takes ``Task.cluster`` (runs its search's parts on a Dask cluster)

    def __init__(self, sub: str | None = None):
        self.sub = sub

    @property
    def full_name(self) -> str:
        return f"{self.name}:{self.sub}" if self.sub else self.name

    def missing(self) -> str | None:
        """None when usable, else what is missing and how to install it."""
        for module in self.modules:
            if importlib.util.find_spec(module) is None:
                how = f"pip install 'edgematch[{self.extra}]'" if self.extra else f"pip install {module}"
                return f"backend {self.name!r} needs the {module} package: {how}"
        return None

    def warm_up(self, question: Question | None = None) -> None:
        """Load the libraries (and compiled code) a run needs, so timing a run times the puzzle, not imports.
        ``question`` names the question about to be asked, for a backend whose loops differ by question
        (native's best-score loops); None loads what every question shares."""
        for module in (*self.modules, *self.warm):
            importlib.import_module(module)

    def refusal(self, task: Task) -> str | None:
        """Why this backend cannot run ``task`` as asked (e.g. an option it does not know), else None.
        ``auto`` uses it to pass over backends that cannot honour what the caller asked for."""
        if task.question not in self.questions:
            answers = ", ".join(self.questions)
            return f"{self.full_name} backend does not answer {task.question!r} (it answers {answers})"
        if task.cluster is not None and not self.on_cluster:
            return f"{self.full_name} backend does not run on a cluster (native does)"
        unknown = sorted(set(task.options) - set(self.options))
        if unknown:
            known = ", ".join(self.options) or "none"
            return f"{self.full_name} backend: unknown option(s) {', '.join(unknown)}; known: {known}"
        return None

    def checked_options(self, task: Task) -> dict[str, Any]:
        """``task.options``, refusing a task this backend cannot honour (never silently ignored)."""
        problem = self.refusal(task)
        if problem:
            raise UsageError(problem)
        return dict(task.options)

    def answer(self, puzzle: Puzzle, task: Task) -> Result:
        """:meth:`run` as the library's calls ask it: the backend loaded first, then the task's deadline set
        (loading is not charged to the time limit; nothing compiles at run time)."""
        self.warm_up(task.question)
        return self.run(puzzle, task.anchored(clock.now()))

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        raise NotImplementedError

    def iter_solutions(self, puzzle: Puzzle, task: Task) -> Iterator[Solution]:
        """Raw solutions one by one (default: from :meth:`run` with question ``all``)."""
        result = self.run(puzzle, replace(task, question="all"))
        if result.status is Status.ERROR:
            raise BackendError(f"{self.full_name}: {result.message}")
        yield from result.solutions
        if result.message == INTERRUPTED:  # Ctrl-C stopped the run: say so after what it found
            raise KeyboardInterrupt


_BUILTIN: dict[str, str] = {
    # name -> "module:Class", in order of preference for the default
    "native": "edgematch.solvers.native:NativeBackend",
    "cpsat": "edgematch.solvers.cpsat:CpsatBackend",
    "sat": "edgematch.solvers.sat:SatBackend",
    "portfolio": "edgematch.solvers.portfolio:PortfolioBackend",
}
# the default: picks one of the above by the measured policy (listed first in messages)
_AUTO = {"auto": "edgematch.solvers.auto:AutoBackend"}


def on_off(value: object, option: str) -> bool:
    """An on/off backend option, given as a bool or as text from the command line (on/off, yes/no, 1/0)."""
    if isinstance(value, str):
        if value.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
            raise UsageError(f"option {option}: expected on/off, got {value!r}")
        return value.lower() in ("1", "true", "yes", "on")
    return bool(value)


# A number in an option's value is written as numbers in files are (core.model): ASCII digits with an optional
# leading minus, at most MAX_DIGITS digits, and where a fraction is meant one decimal point. Python's int() and
# float() also take "1_0", "１" (a fullwidth digit), "٢", "+2", "1e-300" and "inf", none of which a user means
# as a size, a share or a number of seconds.
_DECIMAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
PLAIN_NUMBER = f"ASCII digits, at most {MAX_DIGITS}, no exponent"  # how the messages below say it


def plain_number(value: object, integer: bool = False) -> int | float | None:
    """``value`` (an option's value: text from the command line, or a number from Python) as a number, or None
    when it is not one: text must be written plainly (see ``_DECIMAL``; no decimal point when ``integer``); a
    Python number must be one such text could write (an integer when ``integer``; 0, or of a size from
    1e-17 to below 1e18: not 1e-300, inf or nan). True and False are not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        plain = is_integer_word(text) if integer else _DECIMAL.fullmatch(text) is not None
        if not plain or sum(c.isdigit() for c in text) > MAX_DIGITS:
            return None
        return int(text) if integer else float(text)
    if isinstance(value, numbers.Integral):
        return int(value) if abs(int(value)) < 10**MAX_DIGITS else None
    if integer or not isinstance(value, numbers.Real):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    writable = number == 0 or 10.0 ** (1 - MAX_DIGITS) <= abs(number) < 10.0**MAX_DIGITS  # inf and nan are not
    return number if writable else None


def fraction(value: object, option: str) -> float:
    """A backend option between 0 and 1, given as a number or as text from the command line."""
    number = plain_number(value)
    if number is None or not 0.0 <= number <= 1.0:
        raise UsageError(f"option {option}: must be a number between 0 and 1 ({PLAIN_NUMBER}), "
                         f"got {shown(value)}")
    return float(number)


def seconds(value: object, option: str, off: bool = False) -> float | None:
    """A backend option in seconds (0 up to the longest time limit), given as a number or as text from the
    command line; with ``off``, the word off gives None."""
    if off and str(value).strip().lower() == "off":
        return None
    number = plain_number(value)
    if number is None or not 0.0 <= number <= MAX_TIME_LIMIT:
        raise UsageError(f"option {option}: must be a number of seconds from 0 to {MAX_TIME_LIMIT:,.0f}"
                         f"{' or off' if off else ''} ({PLAIN_NUMBER}), got {shown(value)}")
    return float(number)


def whole(value: object, option: str, least: int = 0) -> int:
    """A whole-number backend option (at least ``least``), given as an int or as text from the command line."""
    number = plain_number(value, integer=True)
    if number is None:
        raise UsageError(f"option {option}: expected a whole number (ASCII digits, at most {MAX_DIGITS}), "
                         f"got {shown(value)}")
    if number < least:
        raise UsageError(f"option {option}: must be at least {least}, got {number}")
    return int(number)


def backend_names() -> list[str]:
    """The registered backend names (``auto`` first), without their ``:SUB`` variants."""
    return [*_AUTO, *_BUILTIN]


def backend_class(name: str) -> type[Backend]:
    """The class registered as ``name`` (imported, not instantiated: no library is needed to list it)."""
    known = {**_AUTO, **_BUILTIN}
    if name not in known:
        raise UsageError(unknown_backend(name))
    module, _, cls = known[name].partition(":")
    found: type[Backend] = getattr(importlib.import_module(module), cls)
    return found


def every_backend() -> list[str]:
    """Every name ``-b`` takes, variants included (``native:restarts``, ``sat:cadical195``, ...), in
    registry order; ``portfolio:A+B`` stands for any list of members."""
    names: list[str] = []
    for name in backend_names():
        names.append(name)
        names.extend(f"{name}:{sub}" for sub in backend_class(name).variants)
    return names


# backends that choose or race other backends (auto, portfolio): never counted as an independent answer
META_BACKENDS = ("auto", "portfolio")


def is_meta(backend: str) -> bool:
    """Whether ``backend`` (a name such as ``portfolio:native+sat``) chooses or races other backends."""
    return backend.partition(":")[0] in META_BACKENDS


def close_backends(spec: str) -> list[str]:
    """The names ``-b`` takes (variants included) closest to a mistyped ``spec``, best first (difflib)."""
    import difflib

    bare = [f"{n}:{spec}" for n in backend_names() if spec in backend_class(n).variants]  # "cadical195"
    close = difflib.get_close_matches(spec, every_backend(), n=3, cutoff=0.6)
    ratio = [difflib.SequenceMatcher(None, spec, name).ratio() for name in close]
    near = [name for name, r in zip(close, ratio, strict=True) if r >= ratio[0] - 0.1]  # as close as the best
    return list(dict.fromkeys([*bare, *near]))[:3]


def unknown_backend(spec: str) -> str:
    """The error line for a backend name ``-b`` does not take: every valid name with its variants, and the
    closest ones when there are any."""
    valid = []
    for name in backend_names():
        variants = backend_class(name).variants
        if name == "portfolio":
            valid.append("portfolio (portfolio:A+B+...)")
        elif len(variants) > 3:
            valid.append(f"{name} ({name}:NAME, NAME one of {', '.join(variants)})")
        else:
            valid.append(f"{name} ({', '.join(f'{name}:{v}' for v in variants)})" if variants else name)
    close = close_backends(spec)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    if "@" in spec:  # a bench suite's spelling of options
        name, _, options = spec.partition("@")
        hint = f"; options are given as -O KEY=VALUE here: -b {name} -O {' -O '.join(options.split('@'))}"
    return f"unknown backend {spec!r}; valid backends: {', '.join(valid)}{hint}"


def base_spec(spec: str) -> str:
    """A backend named with options (``native@fc=on``, see :func:`split_options`) without them: ``native``."""
    return spec.partition("@")[0]


def split_options(spec: str) -> tuple[str, dict[str, str]]:
    """A backend named with its options, as a bench suite or xcheck names it, split: ``native@order=dynamic@fc=on``
    -> ("native", {"order": "dynamic", "fc": "on"}), so one session can measure a backend with and without them."""
    backend, *given = spec.split("@")
    options: dict[str, str] = {}
    for item in given:
        key, eq, value = item.partition("=")
        if not key.strip() or not eq:
            raise UsageError(f"backend {spec}: write its options as NAME@KEY=VALUE@KEY=VALUE, got {item!r}")
        if key.strip() in options:
            raise UsageError(f"backend {spec}: option {key.strip()} given twice")
        options[key.strip()] = value.strip()
    return backend, options


def backend_of(spec: str) -> Backend:
    """The backend ``spec`` names, options after ``@`` aside (to load it; :func:`with_spec` runs it with them)."""
    return get_backend(split_options(spec)[0])


def with_spec(spec: str, task: Task) -> tuple[Backend, Task]:
    """The backend ``spec`` names (options included, see :func:`split_options`) and ``task`` with them."""
    name, options = split_options(spec)
    return get_backend(name), replace(task, options={**task.options, **options})


def backend_problem(spec: str, options: bool = False) -> str | None:
    """Why ``spec`` (as a suite or a policy file names a backend, a portfolio's members included) is not a
    backend this edgematch knows, else None; with ``options`` (a bench suite) it may carry options after
    ``@``, each one the backend takes (a portfolio takes none). One known but not installed here is fine: the
    bench names the extra to install, and ``auto`` passes over it."""
    given: dict[str, str] = {}
    if options:
        try:
            spec, given = split_options(spec)
        except UsageError as exc:
            return str(exc)
    name, _, sub = spec.partition(":")
    if given and name == "portfolio":
        return f"{spec}: a portfolio passes no options to its members; name a single backend with them"
    for one in (sub.split("+") if name == "portfolio" and sub else [spec]):
        try:
            backend = get_backend(one)
        except MissingDependencyError:
            continue
        except EdgematchError as exc:
            return str(exc)
        unknown = sorted(set(given) - set(backend.options))
        if unknown:
            return (f"{backend.full_name} backend: unknown option(s) {', '.join(unknown)}; known: "
                    f"{', '.join(backend.options) or 'none'}")
    return None


def get_backend(spec: str) -> Backend:
    """The backend for ``name`` or ``name:sub``; unknown names list the valid ones (variants included) and
    suggest the closest, missing libraries name the extra to install."""
    name, _, sub = spec.partition(":")
    known = {**_AUTO, **_BUILTIN}
    if name not in known:
        raise UsageError(unknown_backend(spec))
    try:
        backend: Backend = backend_class(name)(sub or None)
    except UsageError as exc:  # an unknown variant (sat:cadical19): the backend's own line, and the close ones
        close = [c for c in close_backends(spec) if c.startswith(f"{name}:")]
        if not close or name in META_BACKENDS:
            raise
        raise UsageError(f"{exc}; did you mean {' or '.join(close)}?") from None
    problem = backend.missing()
    if problem:
        raise MissingDependencyError(problem)
    return backend
