"""Running a suite into the results store: every planned run not yet stored, ``jobs`` at a time.

Each run is its own child process (:mod:`edgematch.bench.runner`); the scheduler is one loop in this
process that starts runs, waits for the first answer or deadline, and stores each run the moment it
finishes. Ctrl-C stops the runs under way (their process groups are killed) and leaves every finished run
stored, so ``--resume`` carries on where it stopped.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from multiprocessing.connection import wait

from edgematch import clock
from edgematch.bench.environment import load_average
from edgematch.bench.runner import (
    GRACE_SECONDS,
    MEMORY_LIMIT_MB,
    POLL_SECONDS,
    Running,
    RunRecord,
    question_of,
    start_run,
)
from edgematch.bench.store import UNKNOWN_FINGERPRINT, Store
from edgematch.bench.suite import Instance, Suite
from edgematch.errors import EdgematchError, MissingDependencyError, UsageError
from edgematch.solvers.base import Task, backend_of, with_spec
from edgematch.solvers.parallel.processes import sigint


@dataclass
class Watcher:
    """What a display is told: the plan (with the runs already stored, so a resumed tally carries on), each
    run as it starts, each run as it is stored, and the estimated seconds left (None until a run has
    finished: nothing measured yet)."""

    planned: Callable[[int, list[RunRecord]], None] = lambda total, stored: None
    started: Callable[[Instance, str], None] = lambda instance, backend: None
    finished: Callable[[RunRecord], None] = lambda record: None
    eta: Callable[[float | None], None] = lambda seconds: None


class Estimate:
    """The seconds the remaining runs will take, from what the finished ones cost (stable where a rate-based
    ETA swings: one slow board early on no longer multiplies the rest, nor do fast small boards hide the big
    ones). Each run is costed against its own family's cutoff and task (:meth:`Suite.timeout_of`,
    :meth:`Suite.task_of` of the session's ``suite``). A pending run costs:

    - the wall of its backend's unsolved runs on its family, when its backend left a board of its family no
      larger than this one unsolved: a bigger board will not go faster;
    - else the mean wall of its backend on boards of its family and size, when some finished;
    - else, for a ``best`` run, its cutoff: a best run ends at its time limit unless it proves the maximum, so
      what fast runs of other families cost says nothing of it;
    - else the wall at the largest smaller size, times the growth seen between that family's two largest
      measured sizes (at least 1, at most 10 per step), never more than the cutoff;
    - else the mean wall of the other backends on its family and size (the same puzzles);
    - else its backend's mean wall, else every run's.

    A run under way costs what is left of its expected wall; one that has outlived it is a run of unknown
    length, expected to last as long again as it has (never past its kill time, never nothing): the estimate
    is above 0 while any run remains.
    """

    MAX_GROWTH = 10.0
    LEAST = 0.1  # seconds: the least a run still under way is expected to take

    def __init__(self, suite: Suite, grace: float = GRACE_SECONDS, records: list[RunRecord] | None = None):
        self.suite, self.grace = suite, grace
        self.walls: dict[tuple[str, str, int], list[float]] = defaultdict(list)
        self.unsolved: dict[tuple[str, str], int] = {}
        self.unsolved_walls: dict[tuple[str, str], list[float]] = defaultdict(list)
        for record in records or []:
            self.add(record)

    def add(self, record: RunRecord) -> None:
        self.walls[record.backend, record.family, record.tiles].append(record.wall)
        if record.termination in ("timeout", "memory") or record.category == "timeout":
            key = (record.backend, record.family)
            self.unsolved[key] = min(self.unsolved.get(key, record.tiles), record.tiles)
            self.unsolved_walls[key].append(record.wall)

    def cost(self, instance: Instance, backend: str) -> float | None:
        """The expected wall seconds of one pending run (None when nothing has finished yet)."""
        if not self.walls:
            return None
        timeout = self.suite.timeout_of(instance)
        ceiling = timeout + self.grace
        family, tiles = instance.family, instance.tiles
        if self.unsolved.get((backend, family), tiles + 1) <= tiles:
            return min(statistics.fmean(self.unsolved_walls[backend, family]), ceiling)
        if (backend, family, tiles) in self.walls:
            return min(statistics.fmean(self.walls[backend, family, tiles]), ceiling)
        if self.suite.task_of(instance) == "best":
            return timeout
        sizes = sorted(t for b, f, t in self.walls if (b, f) == (backend, family) and t < tiles)
        if sizes:
            last = statistics.fmean(self.walls[backend, family, sizes[-1]])
            growth = 1.0
            if len(sizes) > 1:
                before = statistics.fmean(self.walls[backend, family, sizes[-2]])
                growth = min(max(last / before if before > 0 else 1.0, 1.0), self.MAX_GROWTH)
            return min(last * growth, ceiling)
        same = [w for (_, f, t), walls in self.walls.items() if (f, t) == (family, tiles) for w in walls]
        mine = [w for (b, _, _), walls in self.walls.items() if b == backend for w in walls]
        every = [w for walls in self.walls.values() for w in walls]
        return min(statistics.fmean(same or mine or every), ceiling)

    def left(self, instance: Instance, backend: str, spent: float) -> float | None:
        """The expected seconds left of a run under way for ``spent`` seconds (see the class docstring)."""
        expected = self.cost(instance, backend)
        if expected is None:
            return None
        if spent < expected:
            return expected - spent
        kill = self.suite.timeout_of(instance) + self.grace - spent
        return max(min(spent, kill), self.LEAST)

    def remaining(self, todo: list[tuple[Instance, str, int]], running: list[tuple[Instance, str, float]],
                  jobs: int) -> float | None:
        """Seconds until the ``todo`` runs and those ``running`` (with seconds spent so far) are done,
        ``jobs`` at a time; None while nothing has been measured."""
        costs = [self.cost(instance, backend) for instance, backend, _ in todo]
        left = [self.left(instance, backend, spent) for instance, backend, spent in running]
        if any(c is None for c in (*costs, *left)):
            return None
        return (sum(costs) + sum(left)) / max(1, jobs)  # type: ignore[arg-type]


TELL_SECONDS = 1.0  # how often the estimate is renewed while runs are under way (and after each run)


class _Interrupts:
    """Ctrl-C raises KeyboardInterrupt as usual, except while a run is being forked: Python runs fork
    handlers there and would swallow it, so it is held and raised right after."""

    def __init__(self) -> None:
        self.shielded = False
        self.pending = False

    def handler(self, signum: int, frame: object) -> None:
        if self.shielded:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def installed(self) -> Iterator[None]:
        with sigint(self.handler):
            yield

    @contextmanager
    def shield(self) -> Iterator[None]:
        self.shielded = True
        try:
            yield
        finally:
            self.shielded = False
        if self.pending:
            raise KeyboardInterrupt


def check_backends(suite: Suite, setup: dict[str, float] | None = None) -> dict[str, str]:
    """Load every backend of the suite, with the compiled code of every question the suite asks it (children
    are forked from here, so they start with the libraries and machine code loaded, and no run is charged for
    loading or compiling them), and return those that cannot run here, each with what is missing (the extra to
    install). ``setup``, when given, gets each backend's loading seconds (reported apart from the runs). An
    unknown backend is refused; so is a suite none of whose backends can run."""
    skipped: dict[str, str] = {}
    for name in suite.backends:
        asked = (question_of(suite.task_of(i)) for i in suite.instances if name in suite.backends_of(i))
        questions = dict.fromkeys(asked)
        started = clock.now()
        try:
            for question in questions or (None,):
                backend_of(name).warm_up(question)
        except MissingDependencyError as exc:
            skipped[name] = str(exc)
        if setup is not None and name not in skipped:
            setup[name] = setup.get(name, 0.0) + clock.now() - started
    if skipped and len(skipped) == len(suite.backends):
        raise MissingDependencyError("no backend of the suite can run here: " + "; ".join(skipped.values()))
    return skipped


def runnable(suite: Suite, setup: dict[str, float] | None = None) -> tuple[Suite, dict[str, str]]:
    """The suite without the backends whose libraries are missing here, and those left out with why: a base
    install benches what it can and names what it skipped (``setup``: see :func:`check_backends`)."""
    skipped = check_backends(suite, setup)
    return replace(suite, backends=tuple(b for b in suite.backends if b not in skipped)), skipped


@dataclass(frozen=True)
class Unanswered:
    """A backend left out of a family before the bench starts, because it cannot answer the family's task
    (its own :meth:`~edgematch.solvers.base.Backend.refusal` says why, e.g. cpsat:table has no best model)."""

    family: str
    backend: str
    task: str
    why: str

    def as_dict(self) -> dict[str, str]:
        return {"family": self.family, "backend": self.backend, "task": self.task, "why": self.why}


def refusal(backend: str, task: str, timeout: float) -> str | None:
    """Why ``backend`` cannot answer a bench run of ``task`` (asked as the run's child asks it), or None. A
    missing library is not a refusal here (:func:`check_backends` names it with the extra to install). A
    backend named with options (``native@fc=on``) answers a 2x2 board first, so a value it does not take is
    one line (UsageError) before the bench starts, not an error in every run."""
    question = question_of(task)
    try:
        chosen, asked = with_spec(backend, Task(question=question, time_limit=timeout, distinct=task == "count"))
    except MissingDependencyError:
        return None
    except UsageError as exc:
        return str(exc)
    try:
        problem = chosen.refusal(asked)
    except MissingDependencyError:
        return None
    except UsageError as exc:  # a value the backend cannot read (fc=maybe): one line naming it, before any run
        raise UsageError(f"backend {backend}: {exc}") from None
    if problem is None and asked.options:
        from edgematch.core.generator import GeneratorSpec, generate

        try:
            chosen.run(generate(GeneratorSpec(2, 2, colours=2, seed=1))[0], replace(asked, time_limit=5.0))
        except EdgematchError as exc:
            raise UsageError(f"backend {backend}: {exc}") from None
    return problem


def answerable(suite: Suite) -> tuple[Suite, list[Unanswered]]:
    """The suite with each family's runs limited to the backends that can answer its task, and the
    (family, backend) pairs left out, with why: a run that can only fail is never planned, so the plan, the
    counts announced and the stored session hold only runs that can happen. A family no backend answers is
    left out whole, a backend that answers no family leaves the suite; a suite left with no run is refused."""
    verdicts: dict[tuple[str, str, float], str | None] = {}
    left_out: dict[tuple[str, str], Unanswered] = {}
    instances = []
    for instance in suite.instances:
        task, timeout = suite.task_of(instance), suite.timeout_of(instance)
        mine = suite.backends_of(instance)
        able = []
        for backend in mine:
            key = (backend, task, timeout)
            if key not in verdicts:
                verdicts[key] = refusal(backend, task, timeout)
            why = verdicts[key]
            if why is None:
                able.append(backend)
            else:
                left_out.setdefault((instance.family, backend), Unanswered(instance.family, backend, task, why))
        if len(able) == len(mine):
            instances.append(instance)
        elif able:
            instances.append(replace(instance, backends=tuple(able)))
    if not instances:
        reasons = "; ".join(dict.fromkeys(u.why for u in left_out.values()))
        raise UsageError(f"no backend of the suite can answer its task: {reasons}")
    answered = replace(suite, instances=tuple(instances))
    used = {backend for _, backend in answered.runs()}
    return replace(answered, backends=tuple(b for b in suite.backends if b in used)), list(left_out.values())


def pending(store: Store, session: int, suite: Suite, skip: Collection[str] = ()) -> list[tuple[Instance, str, int]]:
    """The session's planned runs that are not stored yet, in plan order, leaving out backends in ``skip``.
    A stored run is matched by its puzzle's fingerprint as well as its name: when an instance now makes a
    different puzzle than the one its stored runs solved (the generator or the file changed since), carrying
    on would mix two puzzles under one name, so it is refused."""
    done = store.done(session)
    ran = {(key, backend, task): fp for (key, backend, task, _), fp in done.items() if fp != UNKNOWN_FINGERPRINT}
    todo = []
    for instance, backend, repeat in suite.planned():
        stored = ran.get((instance.key, backend, suite.task_of(instance)))
        if stored is not None and stored != instance.fingerprint():
            raise UsageError(f"cannot resume session {session}: {instance.key} is no longer the puzzle its runs "
                             f"solved (fingerprint {stored}, now {instance.fingerprint()}; the generator or the "
                             "puzzle file changed): start a new session")
        if (instance.key, backend, suite.task_of(instance), repeat) not in done and backend not in skip:
            todo.append((instance, backend, repeat))
    return todo


def what_is_left(store: Store, session: int, suite: Suite, watcher: Watcher | None, grace: float
                 ) -> tuple[Watcher, dict[str, str], list[tuple[Instance, str, int]], Estimate]:
    """Before running a session (here or on a cluster): the watcher told the plan and the runs already stored,
    the backends left out for a missing library, the runs still to do, and the estimate of their cost."""
    watcher = watcher or Watcher()
    skipped = check_backends(suite)
    todo = pending(store, session, suite, skipped)
    stored = store.runs(session)
    watcher.planned(suite.repeat * len(suite.runs()), stored)
    return watcher, skipped, todo, Estimate(suite, grace, stored)


def run_session(store: Store, session: int, suite: Suite, jobs: int = 1, watcher: Watcher | None = None,
                grace: float = GRACE_SECONDS, memory_mb: int = MEMORY_LIMIT_MB) -> bool:
    """Run what is left of ``session`` (backends whose libraries are missing here are left out); True when
    every planned run is now stored. The load average before and after is added to the session's environment."""
    watcher, skipped, todo, estimate = what_is_left(store, session, suite, watcher, grace)
    running: list[Running] = []
    interrupts = _Interrupts()
    began = clock.now()
    stretch = {"load_before": load_average(), "jobs": jobs}

    told = [0.0]

    def tell() -> None:
        now = told[0] = clock.now()
        watcher.eta(estimate.remaining(todo, [(r.instance, r.backend, now - r.started) for r in running], jobs))

    with interrupts.installed():
        try:
            tell()
            while todo or running:
                while todo and len(running) < jobs:
                    instance, backend, repeat = todo.pop(0)
                    watcher.started(instance, backend)
                    with interrupts.shield():
                        handle = start_run(instance, backend, suite.task_of(instance), suite.timeout_of(instance),
                                           grace, memory_mb)
                        if isinstance(handle, Running):
                            handle.repeat = repeat
                            running.append(handle)
                    if isinstance(handle, RunRecord):
                        handle.repeat = repeat
                        _store(store, session, handle, watcher, estimate)
                        tell()
                if not running:
                    continue
                soonest = min(r.deadline for r in running)
                wake = max(0.0, min(soonest - clock.now(), POLL_SECONDS))
                ready = wait([r.receive for r in running], timeout=wake)
                now = clock.now()
                if now - told[0] >= TELL_SECONDS:  # a long run's estimate follows it, never counts down to 0
                    tell()
                for handle in running:
                    if handle.receive not in ready:
                        handle.poll()  # measure the tree; kill a run over its memory limit
                for handle in [r for r in running if r.receive in ready or r.deadline <= now or r.over]:
                    record = handle.finish()
                    record.repeat = handle.repeat
                    running.remove(handle)
                    _store(store, session, record, watcher, estimate)
                    tell()
        finally:
            for handle in running:  # interrupted: the runs under way are stopped, not stored
                handle.stop()
            complete = not todo and not running and not skipped
            store.close_session(session, clock.now() - began, complete)
            stretch["load_after"] = load_average()
            stretches = store.session(session).environment.get("stretches", [])
            store.update_environment(session, stretches=[*stretches, stretch])
    return complete


def _store(store: Store, session: int, record: RunRecord, watcher: Watcher, estimate: Estimate) -> None:
    store.add_run(session, record)
    estimate.add(record)
    watcher.finished(record)
