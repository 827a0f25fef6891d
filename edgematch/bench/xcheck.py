"""Agreement at scale: count every solution of many small seeded random puzzles on every backend, compare.

Why: one backend that is sometimes wrong (``cpsat:table`` undercounted 2.7% of 3x3 framed boards with
rotations, and no agreement test noticed) is worse than a slow one. ``edgematch xcheck`` generates a
reproducible stream of puzzles over every model feature, asks each backend the ``count`` question with
``distinct=True`` through the library, adds the brute-force reference (:mod:`edgematch.bench.bruteforce`)
on boards of up to 9 cells, and fails on:

- any disagreement in raw or distinct counts, or in the solved / unsat verdict (the reference decides
  who is wrong where it ran, else the majority);
- a planted puzzle (every hint true to the planted solution) counted 0;
- a count below another run's partial count, or a status that contradicts its own count;
- a checker rejection (the API's :class:`BackendError`) or any other backend error, crash or hang.

Each failing puzzle is written as a reproducer (native ``.em`` with ``#`` lines naming the seed, class,
every answer and the command that reproduces it). Timeouts are counted, never failures.

Calls run in forked worker processes (``jobs``), each leading its own process group: a call that does not
return within its time limit plus :data:`GRACE` seconds is killed with everything it started and counted
as a timeout that was killed (shown apart: a loaded machine can stall a call that well; whether backends
keep their limits is tested on its own), and a worker that dies is replaced and counts as a backend error.
"""

from __future__ import annotations

import math
import random
import re
import signal
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from edgematch import clock
from edgematch.bench.bruteforce import MAX_CELLS, BruteTimeout, brute_count
from edgematch.core.analysis import facts
from edgematch.core.checker import check
from edgematch.core.generator import GeneratorSpec, generate, random_tiles
from edgematch.core.model import SIDES, Hint, Puzzle, Solution, Tile
from edgematch.errors import BackendError, EdgematchError, PuzzleError, UsageError
from edgematch.formats import read_puzzle, write_puzzle
from edgematch.formats.source import save

# what runs by default: every concrete backend and the notable variants (portfolio and auto on request)
DEFAULT_BACKENDS = ("native", "native:restarts", "cpsat", "cpsat:table", "sat", "sat:cadical195")
REFERENCE = "brute"
PER_CALL = 10.0          # seconds each backend call may take before it is a timeout
GRACE = 5.0              # past that, a call that has not returned is killed (a timeout, counted apart)
MAX_SIDE = 8
EXPECTED_LIMIT = 60.0    # redraw with more colours while the estimated solution count is above this
DEFAULT_OUT = Path("xcheck-failures")

# board shapes and how often they come: 3x3 weighs most (3x3 framed with rotations is where a real bug hid),
# then the other squares and rectangles both ways up (they turn differently), then the degenerate strips
SHAPE_WEIGHTS: dict[tuple[int, int], int] = {
    (1, 1): 1, (1, 2): 2, (2, 1): 2, (1, 3): 1, (3, 1): 1, (1, 4): 1, (4, 1): 1,
    (2, 2): 6, (2, 3): 5, (3, 2): 5, (2, 4): 3, (4, 2): 3,
    (3, 3): 20, (3, 4): 4, (4, 3): 4, (4, 4): 6,
}
FRAMED_SHARE = {(3, 3): 0.65, (4, 4): 0.6}   # other shapes: 0.45
ROTATION_SHARE = 0.7
RANDOM_SHARE = 0.2       # plain random tiles (often unsolvable); the rest planted
HINT_WEIGHTS = (0.55, 0.30, 0.15)   # 0, 1, 2 hints
WRONG_HINT_SHARE = 0.5   # of the hints on planted puzzles: placed off the planted solution
PLANTED_LINE = "# xcheck planted:"


# ----- the puzzle stream ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Classes:
    """Which puzzles the stream may hold; None (or no sizes) means every kind."""

    sizes: tuple[tuple[int, int], ...] = ()
    framed: bool | None = None
    rotations: bool | None = None
    rule: str | None = None
    kind: str | None = None   # planted | random

    def __post_init__(self) -> None:
        for w, h in self.sizes:
            if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
                raise UsageError(f"sizes: {w}x{h} is outside 1x1..{MAX_SIDE}x{MAX_SIDE}")
        if self.rule not in (None, "same", "signed"):
            raise UsageError(f"rule: expected same or signed, got {self.rule!r}")
        if self.kind not in (None, "planted", "random"):
            raise UsageError(f"kind: expected planted or random, got {self.kind!r}")

    def flags(self) -> str:
        """The command-line options that choose these classes ("" for every kind)."""
        parts = [f"--sizes {','.join(f'{w}x{h}' for w, h in self.sizes)}"] if self.sizes else []
        for option, value in (("framed", self.framed), ("rotations", self.rotations)):
            if value is not None:
                parts.append(f"--{option} {'yes' if value else 'no'}")
        parts += [f"--{option} {value}" for option, value in (("rule", self.rule), ("kind", self.kind)) if value]
        return " ".join(parts)

    def tag(self) -> str:
        """A short name for these classes, for file names ("" for every kind)."""
        parts = ["+".join(f"{w}x{h}" for w, h in self.sizes)] if self.sizes else []
        if self.framed is not None:
            parts.append("framed" if self.framed else "unframed")
        if self.rotations is not None:
            parts.append("rot" if self.rotations else "fixed")
        return "-".join(parts + [v for v in (self.rule, self.kind) if v])


@dataclass(frozen=True)
class Case:
    """One puzzle to cross-check and where it came from. ``planted`` is a known solution that respects
    every hint (so a count of 0 is wrong), or None."""

    index: int
    puzzle: Puzzle
    kind: str                     # planted | random | file
    planted: Solution | None = None
    hints: str = "none"           # e.g. "1 true, 1 wrong"
    seed: int | None = None       # the stream's seed (None for a file)
    source: str = ""              # the file it was read from
    classes: Classes = Classes()  # what the stream was restricted to

    @property
    def key(self) -> str:
        return class_key(self.puzzle)

    @property
    def label(self) -> str:
        return f"{self.source}" if self.source else f"seed {self.seed} #{self.index}"


def class_key(puzzle: Puzzle) -> str:
    """The class a puzzle is counted under: size x framed x rotations x rule, e.g. ``3x3 framed rot same``."""
    framed = "framed" if puzzle.frame is not None else "unframed"
    turns = "rot" if puzzle.rotations else "fixed"
    return f"{puzzle.width}x{puzzle.height} {framed} {turns} {puzzle.rule}"


def make_case(seed: int, index: int, classes: Classes = Classes()) -> Case:
    """Puzzle ``index`` of the stream ``seed`` (the same for the same seed, index and classes)."""
    rng = random.Random(f"xcheck:{seed}:{index}")
    shapes = list(classes.sizes) or list(SHAPE_WEIGHTS)
    w, h = rng.choices(shapes, [SHAPE_WEIGHTS.get(s, 1) for s in shapes])[0]
    framed = classes.framed if classes.framed is not None else rng.random() < FRAMED_SHARE.get((w, h), 0.45)
    rotations = classes.rotations if classes.rotations is not None else rng.random() < ROTATION_SHARE
    rule = classes.rule or rng.choice(["same", "signed"])
    kind = classes.kind or ("random" if rng.random() < RANDOM_SHARE else "planted")
    puzzle, solution = _tiles(rng, w, h, framed, rotations, rule, kind)
    puzzle, planted, hints = _hints(rng, puzzle, solution)
    return Case(index, puzzle.replace(name=f"xcheck seed {seed} #{index}"), kind, planted, hints, seed,
                classes=classes)


def generate_cases(seed: int, count: int, classes: Classes = Classes()) -> Iterator[Case]:
    """The first ``count`` puzzles of the stream ``seed``."""
    for index in range(count):
        yield make_case(seed, index, classes)


def _tiles(rng: random.Random, w: int, h: int, framed: bool, rotations: bool, rule: str,
           kind: str) -> tuple[Puzzle, Solution | None]:
    """A planted or random puzzle with few colours (so duplicate tiles come often), given more colours
    while its estimated solution count is too large for the brute force."""
    colours, border, inner = rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 3)
    if kind == "random":
        colours = max(colours, 2)
    for _ in range(40):
        if kind == "random" and not framed:
            puzzle: Puzzle = random_tiles(w, h, colours, rule, rotations, seed=rng.randrange(2**31))  # type: ignore[arg-type]
            solution = None
        else:
            spec = GeneratorSpec(w, h, colours=colours, framed=framed, border_colours=border, inner_colours=inner,
                                 rule=rule, rotations=rotations, seed=rng.randrange(2**31))  # type: ignore[arg-type]
            puzzle, solution = generate(spec)
            if kind == "random":
                puzzle, solution = _scrambled(rng, puzzle), None
        if facts(puzzle).expected_solutions <= EXPECTED_LIMIT:
            break
        colours += 1
        border, inner = (border + 1, inner) if border < inner else (border, inner + 1)
    return puzzle, solution


def _scrambled(rng: random.Random, puzzle: Puzzle) -> Puzzle:
    """A framed puzzle with every non-frame edge relabelled at random from the labels of its own class
    (beside the frame, or inner): a random framed puzzle, usually without a solution."""
    frame = puzzle.frame
    rim: list[int] = []
    inner: list[int] = []

    def beside_frame(edges: tuple[int, ...], side: int) -> bool:
        return edges[(side + 1) % 4] == frame or edges[(side - 1) % 4] == frame

    for tile in puzzle.tiles:
        for s in SIDES:
            if tile.edges[s] != frame:
                (rim if beside_frame(tile.edges, s) else inner).append(tile.edges[s])
    tiles = []
    for tile in puzzle.tiles:
        edges = tuple(
            e if e == frame else rng.choice(rim if beside_frame(tile.edges, s) else inner)
            for s, e in enumerate(tile.edges)
        )
        tiles.append(Tile(edges))  # type: ignore[arg-type]
    return puzzle.replace(tiles=tuple(tiles))


def _hints(rng: random.Random, puzzle: Puzzle, solution: Solution | None) -> tuple[Puzzle, Solution | None, str]:
    """0-2 hints: on planted puzzles half true to the planted solution, half placed off it (usually
    contradicting every solution, yet valid for the model); on random puzzles anywhere valid."""
    want = min(rng.choices(range(len(HINT_WEIGHTS)), HINT_WEIGHTS)[0], puzzle.size)
    hints: list[Hint] = []
    tally: Counter[str] = Counter()
    for _ in range(want):
        true = solution is not None and rng.random() >= WRONG_HINT_SHARE
        for _attempt in range(10):
            hint = _true_hint(rng, hints, solution) if true else _other_hint(rng, puzzle, hints, solution)
            if hint is None:
                break
            try:
                puzzle.replace(hints=(*hints, hint))
            except PuzzleError:
                continue  # clashes with the other hint: draw again
            hints.append(hint)
            tally["true" if true else ("wrong" if solution is not None else "random")] += 1
            break
    described = ", ".join(f"{n} {what}" for what, n in sorted(tally.items())) or "none"
    planted = solution if solution is not None and not tally["wrong"] else None
    return puzzle.replace(hints=tuple(hints)), planted, described


def _true_hint(rng: random.Random, hints: list[Hint], solution: Solution | None) -> Hint | None:
    assert solution is not None
    cells = [c for c in range(len(solution.cells)) if c not in {x.cell for x in hints}]
    if not cells:
        return None
    cell = rng.choice(cells)
    return Hint(cell, *solution.cells[cell])


def _other_hint(rng: random.Random, puzzle: Puzzle, hints: list[Hint], solution: Solution | None) -> Hint | None:
    cells = {x.cell for x in hints}
    tiles = {x.tile for x in hints}
    turns = range(4) if puzzle.rotations else range(1)
    options = [
        Hint(c, t, r) for c in range(puzzle.size) if c not in cells for t in range(puzzle.size) if t not in tiles
        for r in turns
        if puzzle.fits_frame(t, c, r) and (solution is None or tuple(solution.cells[c]) != (t, r))
    ]
    return rng.choice(options) if options else None


def cases_from_files(paths: Iterable[str | Path], skipped: list[str] | None = None) -> list[Case]:
    """Puzzles read from files (a folder: every file in it but hidden ones), e.g. reproducers written by a
    past run; a ``# xcheck planted:`` line in a file restores its planted solution.

    A file named directly must be a puzzle (its error is raised). A file found in a folder that is not one
    (a note, a solution file) is left out when ``skipped`` is a list, its one-line error appended there, so
    one stray file does not stop the check of the others; without the list it is raised too."""
    files: list[tuple[Path, bool]] = []  # (file, found in a folder)
    for path in map(Path, paths):
        if path.is_dir():
            files.extend((p, True) for p in sorted(path.iterdir()) if p.is_file() and not p.name.startswith("."))
        else:
            files.append((path, False))
    cases: list[Case] = []
    for path, in_folder in files:
        try:
            puzzle = read_puzzle(path)
        except EdgematchError as exc:
            if not in_folder or skipped is None:
                raise
            text = str(exc)
            skipped.append(text if text.startswith(str(path)) else f"{path}: {text}")
            continue
        hints = f"{len(puzzle.hints)} from the file" if puzzle.hints else "none"
        cases.append(Case(len(cases), puzzle, "file", _planted_line(path, puzzle), hints, source=str(path)))
    return cases


def _planted_line(path: Path, puzzle: Puzzle) -> Solution | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    match = re.search(rf"^{re.escape(PLANTED_LINE)}(.*)$", text, re.MULTILINE)
    if not match:
        return None
    try:
        pairs = [tuple(int(x) for x in word.split(":")) for word in match.group(1).split()]
        solution = Solution.from_pairs(puzzle, pairs)  # type: ignore[arg-type]
    except (ValueError, TypeError, PuzzleError):
        return None
    return solution if check(puzzle, solution).ok else None


# ----- answers and the judgement -------------------------------------------------------------------------

@dataclass(frozen=True)
class Answer:
    """What one backend (or the reference) said about one puzzle. ``status``: solved, unsat, timeout or
    error; counts are lower bounds on a timeout."""

    backend: str
    status: str
    count: int | None = None
    distinct: int | None = None
    seconds: float = 0.0
    message: str = ""
    refused: bool = False   # the backend refused the call as asked (a usage error, not a wrong answer)
    killed: bool = False    # no answer well past the time limit: stopped from outside

    @property
    def complete(self) -> bool:
        return self.status in ("solved", "unsat")

    @property
    def counts(self) -> tuple[int | None, int | None]:
        """(raw, distinct); an unsat verdict that gave no counts counts as (0, 0)."""
        if self.status == "unsat" and self.count is None and self.distinct is None:
            return 0, 0
        return self.count, self.distinct

    def shown(self) -> str:
        if self.status == "error":
            return f"error: {self.message}"
        counts = f"{self.count if self.count is not None else '?'} raw / " \
                 f"{self.distinct if self.distinct is not None else '?'} distinct"
        if self.killed:
            return f"timeout, {self.message}"
        if self.status == "timeout":
            return f"timeout (at least {counts})" if self.count else "timeout"
        return f"{self.status}, {counts}"


def judge(case: Case, answers: dict[str, Answer]) -> dict[str, str]:
    """Backend -> why its answer is wrong (empty when everything agrees). A planted puzzle counted 0 is
    wrong whoever says so; then the reference decides where it gave a complete answer, else a strict
    majority of the complete answers; with neither, every complete answer is wrong when they differ."""
    problems: dict[str, str] = {}
    for name, a in answers.items():
        if a.status == "error":
            message = a.message.removeprefix(f"{name}: ")
            problems[name] = f"rejected by the checker: {message}" if _rejected(a) else f"error: {message}"
        elif a.complete and (problem := _inconsistent(a)):
            problems[name] = problem
        elif a.complete and case.planted is not None and not a.counts[0]:
            problems[name] = "no solution, but the puzzle is planted (its planted solution passes the checker)"
    complete = {n: a.counts for n, a in answers.items() if a.complete and n not in problems}
    truth, source = None, ""
    if REFERENCE in complete:
        truth, source = complete[REFERENCE], REFERENCE
    elif complete:
        tally = Counter(complete.values()).most_common()
        if len(tally) == 1 or tally[0][1] > tally[1][1]:
            truth, source = tally[0][0], "the majority"
    if len(set(complete.values())) > 1:
        for name, value in complete.items():
            if truth is None:
                others = ", ".join(f"{n} {_pair(v)}" for n, v in complete.items() if n != name)
                problems[name] = f"{_pair(value)} disagrees with {others} (no majority)"
            elif value != truth:
                problems[name] = f"{_pair(value)}, but {source} says {_pair(truth)}"
    partial = [(n, a) for n, a in answers.items() if a.status == "timeout" and a.count]
    for name, a in answers.items():
        above = [(n, p) for n, p in partial if a.complete and p.count > (a.counts[0] or 0)]
        if above and name not in problems:
            problems[name] = f"complete count {a.counts[0]} is below {above[0][0]}'s partial count {above[0][1].count}"
    return problems


def _rejected(a: Answer) -> bool:
    """Whether an error is the API's checker refusing a solution the backend returned."""
    return "invalid solution" in a.message


def _inconsistent(a: Answer) -> str:
    count, distinct = a.counts
    if count is None or distinct is None:
        return f"{a.status} but no count (raw {count}, distinct {distinct})"
    if a.status == "unsat" and (count or distinct):
        return f"unsat but counted {_pair((count, distinct))}"
    if a.status == "solved" and not (1 <= distinct <= count):
        return f"solved but counted {_pair((count, distinct))}"
    return ""


def _pair(value: tuple[int | None, int | None]) -> str:
    return f"{value[0]} raw / {value[1]} distinct"


# ----- the report ---------------------------------------------------------------------------------------

@dataclass
class BackendFigures:
    """One backend over the run: puzzles it answered, agreed with the rest, wrong (incl. checker rejections),
    errors, timeouts (``killed``: of those, calls stopped from outside well past their limit), and the
    seconds its calls took."""

    puzzles: int = 0
    agreed: int = 0
    wrong: int = 0
    errors: int = 0
    timeouts: int = 0
    killed: int = 0
    seconds: float = 0.0


@dataclass
class ClassFigures:
    """One class (size x framed x rotations x rule): puzzles checked, how many failed, wrong answers per backend."""

    puzzles: int = 0
    failed: int = 0
    wrong: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Outcome:
    """One checked puzzle: every answer, the problems found (backend -> why), and its reproducer file."""

    case: Case
    answers: dict[str, Answer]
    problems: dict[str, str]
    path: Path | None = None

    @property
    def failed(self) -> bool:
        return bool(self.problems)


@dataclass
class XcheckReport:
    """What a cross-check run found. ``stopped`` is "" (ran to the end), "time limit" or "interrupted"."""

    planned: int
    seed: int | None
    backends: tuple[str, ...]
    checked: int = 0
    failures: list[Outcome] = field(default_factory=list)
    timed_out: list[Outcome] = field(default_factory=list)   # puzzles where some call hit its time limit
    per_backend: dict[str, BackendFigures] = field(default_factory=dict)
    per_class: dict[str, ClassFigures] = field(default_factory=dict)
    wall: float = 0.0
    stopped: str = ""
    jobs: int = 1
    out: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def timeouts(self) -> int:
        return sum(f.timeouts for f in self.per_backend.values())

    def add(self, outcome: Outcome) -> None:
        """Count one checked puzzle into the figures."""
        self.checked += 1
        figures = self.per_class.setdefault(outcome.case.key, ClassFigures())
        figures.puzzles += 1
        if outcome.failed:
            self.failures.append(outcome)
            figures.failed += 1
        if any(a.status == "timeout" for a in outcome.answers.values()):
            self.timed_out.append(outcome)
        for name, a in outcome.answers.items():
            f = self.per_backend.setdefault(name, BackendFigures())
            f.puzzles += 1
            f.seconds += a.seconds
            if name in outcome.problems:
                if a.status == "error" and not _rejected(a):
                    f.errors += 1
                else:
                    f.wrong += 1
                figures.wrong[name] += 1
            elif a.status == "timeout":
                f.timeouts += 1
                f.killed += a.killed
            elif a.complete:
                f.agreed += 1


# ----- reproducers ---------------------------------------------------------------------------------------

def reproducer_name(case: Case) -> str:
    """The reproducer's file name: from the seed and index, or from the file it was read from."""
    if case.source:
        return f"file-{case.index:04d}-{Path(case.source).stem}.em"
    tag = case.classes.tag()
    return f"xcheck-s{case.seed}-{case.index:05d}{'-' + tag if tag else ''}.em"


def write_reproducer(outcome: Outcome, out: Path) -> Path:
    """Write the failing puzzle in the native format, with ``#`` lines naming its seed, class, every answer
    and the command that reproduces it; returns the path."""
    out.mkdir(parents=True, exist_ok=True)
    case = outcome.case
    path = out / reproducer_name(case)
    wrong = [n for n in outcome.answers if n in outcome.problems]
    agreed = [n for n in outcome.answers if n not in outcome.problems and n != REFERENCE]
    shown = [n for n in wrong if n != REFERENCE] + agreed[:1]
    lines = [
        f"# edgematch xcheck: wrong answers from {', '.join(wrong)}",
        f"# {'file ' + case.source if case.source else f'seed {case.seed}, puzzle #{case.index} of the stream'}; "
        f"class {case.key}; {case.kind}; hints: {case.hints}",
    ]
    if not case.source:
        flags = case.classes.flags()
        lines.append(f"# the stream: edgematch xcheck --seed {case.seed} --count {case.index + 1}"
                     f"{' ' + flags if flags else ''} (this is its last puzzle)")
    if case.planted is not None:
        lines.append(f"{PLANTED_LINE} " + " ".join(f"{t}:{r}" for t, r in case.planted.cells))
    lines.append("# answers to 'count --distinct':")
    width = max(len(n) for n in outcome.answers)
    for name, a in outcome.answers.items():
        note = f"   <- {outcome.problems[name]}" if name in outcome.problems else ""
        lines.append(f"#   {name:<{width}}  {a.shown()} ({a.seconds:.3f} s){note}")
    lines.append(f"# reproduce: edgematch xcheck {path}" + (f" -b {','.join(shown)}" if shown else ""))
    lines.extend(f"# one backend: edgematch count {path} --distinct -b {name}" for name in wrong if name != REFERENCE)
    # a message spanning lines must not end the comment: the file has to read back as the puzzle
    text = "".join(" ".join(line.splitlines()) + "\n" for line in lines) + write_puzzle(case.puzzle, format="native")
    save(path, text)  # whole or not at all, never through a link planted in the folder
    return path


# ----- running: forked workers, one call at a time each ------------------------------------------------

def _call(puzzle: Puzzle, backend: str, per_call: float) -> Answer:
    """One count with distinct=True on one backend (or the brute-force reference), never raising."""
    from edgematch.solvers.api import count
    from edgematch.solvers.base import split_options

    start = clock.now()
    if backend == REFERENCE:
        try:
            found = brute_count(puzzle, clock.now() + per_call)
        except BruteTimeout as exc:
            return Answer(backend, "timeout", exc.raw, None, clock.now() - start)
        return Answer(backend, "solved" if found.raw else "unsat", found.raw, found.distinct,
                      clock.now() - start)
    try:
        name, options = split_options(backend)
        result = count(puzzle, distinct=True, backend=name, time_limit=per_call, **options)
    except UsageError as exc:
        return Answer(backend, "error", seconds=clock.now() - start, message=str(exc), refused=True)
    except BackendError as exc:
        return Answer(backend, "error", seconds=clock.now() - start, message=str(exc))
    except Exception as exc:  # noqa: BLE001  (a crash inside a backend is an answer to report, not to die of)
        return Answer(backend, "error", seconds=clock.now() - start, message=f"{type(exc).__name__}: {exc}")
    return Answer(backend, result.status.value, result.count, result.distinct, clock.now() - start,
                  result.message)


def _serve(conn: Connection) -> None:
    """A worker: answer calls until told to stop (or the parent goes away)."""
    from edgematch.solvers.parallel.processes import own_group

    own_group()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        call, puzzle, backend, per_call = message
        conn.send((call, _call(puzzle, backend, per_call)))


class _Worker:
    def __init__(self) -> None:
        from edgematch.solvers.parallel.processes import adopt, context

        ctx = context()
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child,), daemon=False)  # daemons may not have children
        self.process.start()
        adopt(self.process.pid)
        child.close()
        self.call: tuple[int, str] | None = None
        self.deadline = math.inf

    def send(self, call: tuple[int, str], puzzle: Puzzle, per_call: float) -> None:
        self.call = call
        self.deadline = clock.now() + per_call + GRACE
        self.conn.send((call, puzzle, call[1], per_call))

    def stop(self, kill: bool = True) -> None:
        from edgematch.solvers.parallel.processes import kill_group

        if kill:
            kill_group(self.process.pid)
        else:
            try:
                self.conn.send(None)
            except OSError:
                kill_group(self.process.pid)
        self.process.join(timeout=5)
        if self.process.is_alive():
            kill_group(self.process.pid)
            self.process.join(timeout=5)
        self.conn.close()


@dataclass
class _Flight:
    case: Case
    calls: list[str]
    answers: dict[str, Answer] = field(default_factory=dict)


Watch = Callable[[XcheckReport, Outcome], None]


def run_xcheck(
    cases: Iterable[Case], planned: int, backends: Iterable[str] = DEFAULT_BACKENDS, *,
    per_call: float = PER_CALL, time_limit: float | None = None, jobs: int = 1, reference: bool = True,
    out: Path | None = DEFAULT_OUT, seed: int | None = None, watch: Watch | None = None,
) -> XcheckReport:
    """Cross-check ``cases`` on ``backends`` (plus the brute force on boards of up to 9 cells when
    ``reference``); write a reproducer into ``out`` for each failure. Starts no new puzzle after
    ``time_limit`` seconds (puzzles unfinished then are left out); Ctrl-C ends the run with the figures so far
    (``stopped`` says why). ``watch`` is called after every checked puzzle."""
    from edgematch.solvers.api import max_workers, seconds_problem
    from edgematch.solvers.base import backend_of

    names = tuple(dict.fromkeys(backends))
    if not names:
        raise UsageError("name at least one backend")
    if problem := seconds_problem(per_call):
        raise UsageError(f"per-call time limit {problem}")
    if time_limit is not None and (problem := seconds_problem(time_limit)):
        raise UsageError(f"time limit {problem}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= max_workers():
        raise UsageError(f"jobs must be a whole number from 1 to {max_workers()} here (the larger of 16 and "
                         f"4 x the usable cores), got {jobs!r}")
    started = clock.now()  # the time limit bounds the whole run, loading the solver libraries included
    report = XcheckReport(planned, seed, names, jobs=jobs, out=out)
    workers: list[_Worker] = []
    try:
        for name in names:
            if name == REFERENCE:
                raise UsageError(f"{REFERENCE} is the reference, not a backend (it runs on boards of up to "
                                 f"{MAX_CELLS} cells unless reference=False)")
            backend_of(name).warm_up()  # unknown names and missing libraries fail here
        workers = [_Worker() for _ in range(jobs)]
        _probe(workers, names, per_call)
        _drive(iter(cases), names, workers, report, per_call, reference, started, time_limit, out, watch)
    except KeyboardInterrupt:
        report.stopped = "interrupted"
    finally:
        for worker in workers:
            worker.stop(kill=True)
        report.wall = clock.now() - started
    return report


def _probe(workers: list[_Worker], names: tuple[str, ...], per_call: float) -> None:
    """Each backend counts a 1x1 board once, so a name the backend refuses (``sat:nosuch``) is a usage error
    before the run rather than a failure on every puzzle. A probe that hangs or crashes is left to the run."""
    tiny = Puzzle(1, 1, (Tile((1, 2, 3, 4)),))
    for name in names:
        worker = workers[0]
        worker.send((-1, name), tiny, min(per_call, PER_CALL))
        if not worker.conn.poll(min(per_call, PER_CALL) + GRACE):
            _replace(workers, worker)
            continue
        try:
            _, answer = worker.conn.recv()
        except (EOFError, OSError):
            _replace(workers, worker)
            continue
        worker.call, worker.deadline = None, math.inf
        if answer.refused:
            raise UsageError(f"backend {name}: {answer.message}")


def _drive(cases: Iterator[Case], names: tuple[str, ...], workers: list[_Worker], report: XcheckReport,
           per_call: float, reference: bool, started: float, time_limit: float | None, out: Path | None,
           watch: Watch | None) -> None:
    queue: deque[tuple[int, str]] = deque()
    flights: dict[int, _Flight] = {}
    exhausted = False
    serial = 0

    def time_up() -> bool:
        return time_limit is not None and clock.now() - started >= time_limit

    def finish(cid: int, name: str, answer: Answer) -> None:
        flight = flights[cid]
        flight.answers[name] = answer
        if len(flight.answers) == len(flight.calls):
            del flights[cid]
            answers = {n: flight.answers[n] for n in flight.calls}
            problems = judge(flight.case, answers)
            outcome = Outcome(flight.case, answers, problems)
            if problems and out is not None:
                outcome = Outcome(flight.case, answers, problems, write_reproducer(outcome, out))
            report.add(outcome)
            if watch is not None:
                watch(report, outcome)

    while True:
        if time_up():
            if flights or report.checked < report.planned:
                report.stopped = "time limit"
            return  # unfinished puzzles are left out; the caller stops the workers
        idle = [w for w in workers if w.call is None]
        while idle:
            if not queue:
                if exhausted or len(flights) >= 2 * len(workers):
                    break
                case = next(cases, None)
                if case is None:
                    exhausted = True
                    break
                calls = ([REFERENCE] if reference and case.puzzle.size <= MAX_CELLS else []) + list(names)
                flights[serial] = _Flight(case, calls)
                queue.extend((serial, n) for n in calls)
                serial += 1
                continue
            cid, name = queue.popleft()
            idle.pop().send((cid, name), flights[cid].case.puzzle, per_call)
        busy = [w for w in workers if w.call is not None]
        if not busy:
            return  # nothing queued, nothing running: every case is done
        soonest = min(w.deadline for w in busy)
        timeout = max(0.0, min(0.25, soonest - clock.now()))
        ready = wait([w.conn for w in busy], timeout)
        for worker in busy:
            call = worker.call
            assert call is not None
            if worker.conn in ready:
                try:
                    got, answer = worker.conn.recv()
                except (EOFError, OSError):
                    code = worker.process.exitcode
                    answer = Answer(call[1], "error", seconds=per_call,
                                    message=f"the process running it died (exit code {code})")
                    _replace(workers, worker)
                else:
                    worker.call, worker.deadline = None, math.inf
                    assert got == call
                finish(*call, answer)
            elif clock.now() > worker.deadline:
                answer = Answer(call[1], "timeout", seconds=per_call + GRACE, killed=True,
                                message=f"no answer {GRACE:g} s past its {per_call:g} s time limit (killed)")
                _replace(workers, worker)
                finish(*call, answer)


def _replace(workers: list[_Worker], worker: _Worker) -> None:
    """Kill ``worker`` (and whatever it started) and start a fresh one in its place."""
    worker.stop(kill=True)
    workers[workers.index(worker)] = _Worker()


def xcheck(
    count: int = 300, seed: int = 1, backends: Iterable[str] = DEFAULT_BACKENDS, classes: Classes = Classes(),
    **options: Any,
) -> XcheckReport:
    """Cross-check the first ``count`` puzzles of the seeded stream (restricted to ``classes``); the options
    are those of :func:`run_xcheck` (per_call, time_limit, jobs, reference, out, watch)."""
    if count < 1:
        raise UsageError(f"count must be at least 1, got {count}")
    return run_xcheck(generate_cases(seed, count, classes), count, backends, seed=seed, **options)


__all__ = [
    "DEFAULT_BACKENDS", "REFERENCE", "Answer", "BackendFigures", "Case", "ClassFigures", "Classes", "Outcome",
    "XcheckReport", "cases_from_files", "class_key", "generate_cases", "judge", "make_case", "reproducer_name",
    "run_xcheck", "write_reproducer", "xcheck",
]
