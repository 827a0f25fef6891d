"""The portfolio backend: several backends race in parallel processes; the first verified answer wins.

``portfolio`` runs the default members on the available cores; ``portfolio:native+cpsat:table`` names them.
Each member is a forked child leading its own process group; the parent checks each answer as it comes
(a solution must pass the independent checker, else that member is out), takes the first complete one, and
kills every other member's group at once, so no solver outlives the call. Counts and solutions always come
from one member, never merged.

Members are the backends that answer the question (:meth:`PortfolioBackend.members_for`): ``best`` leaves
out cpsat:table, which has no best-score model; a portfolio the caller named says in ``options["dropped"]``
which members it left out and why; only a portfolio none of whose members answers is refused.

``best``: members stream every better board to the parent as they find it (the caller's ``on_improve`` sees
the best over all members); a member that proves its board optimal wins; otherwise the answer is the member
board with the highest score when the time is up, taken at the limit itself (a member's last word could only
repeat the board it streamed).

The time limit is the portfolio's: members get what is left of it, counted from their own start (less
:data:`REPORT_AHEAD`), and report their own timeout (with what they found); one still running
:data:`MEMBER_GRACE` past the limit is killed. Libraries and compiled code (native's best-score loop too) are
loaded before the members fork, so no member spends its share loading them.

Ctrl-C on the portfolio is passed on to the members (they lead their own groups, so a terminal's Ctrl-C
reaches the parent only); each reports what it found within :data:`STOP_GRACE` or is killed, and the answer
is the best partial one (message ``interrupted``).
"""

from __future__ import annotations

import contextlib
import signal
from dataclasses import replace
from typing import Any

from edgematch import clock
from edgematch.core.checker import check, check_admissible
from edgematch.core.model import Puzzle, Solution
from edgematch.errors import UsageError
from edgematch.solvers.base import (
    INTERRUPTED,
    TIME_LIMIT,
    Backend,
    Question,
    Result,
    Status,
    Task,
    Timings,
    get_backend,
)
from edgematch.solvers.parallel.processes import (
    DIED,
    adopt,
    arrivals,
    context,
    interrupt_group,
    kill_group,
    own_group,
    start,
    usable_cores,
)

# in order of preference: the fastest single backend overall, then the one that solves what it misses
DEFAULT_MEMBERS = ("native", "cpsat:table", "sat:cadical195")
MEMBER_GRACE = 0.15  # past the time limit, for members to report their own timeout
REPORT_AHEAD = 0.05  # members stop this much before the limit: reporting and exiting take time too
STOP_GRACE = 0.3  # after Ctrl-C is passed on, for members to report what they found; then they are killed


class PortfolioBackend(Backend):
    name = "portfolio"
    description = "several backends in parallel processes; the first verified answer wins (portfolio:a+b)"
    questions = ("first", "all", "count", "best")

    def members(self) -> list[str]:
        """The member backends: those named, else as many defaults as there are cores (at least two)."""
        if self.sub:
            names = [m.strip() for m in self.sub.split("+") if m.strip()]
            if len(names) < 2 or any(m.partition(":")[0] in ("portfolio", "auto") for m in names):
                raise UsageError(f"portfolio:{self.sub}: name two or more backends joined by + "
                                 "(e.g. portfolio:native+cpsat:table)")
            return names
        return list(DEFAULT_MEMBERS[:max(2, usable_cores())])

    def members_for(self, task: Task) -> tuple[list[str], list[str]]:
        """The members that answer ``task`` and why the others do not (``best``: cpsat:table has no model).
        The default portfolio takes the defaults that answer, as many as there are cores (at least two); a
        named one runs the named members that answer. A member that answers the question but not the rest of
        the task (two workers for native:restarts) refuses the portfolio, as before."""
        names = self.members() if self.sub else list(DEFAULT_MEMBERS)
        able, unable = [], []
        for name in names:  # a member is left out for the question alone; workers it cannot take refuse it
            problem = get_backend(name).refusal(Task(task.question))
            (unable if problem else able).append(problem or name)
        if not self.sub:
            able = able[:max(2, usable_cores())]
        return able, unable

    @property
    def full_name(self) -> str:
        return f"portfolio:{'+'.join(self.members())}"

    def refusal(self, task: Task) -> str | None:
        if task.options:
            return "portfolio: backend options are not passed to members; name a single backend for them"
        if task.workers > 1 or task.cluster is not None:  # members run side by side here, a process each
            return ("portfolio: its members run side by side on this machine, one process each; name a single "
                    "backend for workers or a cluster")
        able, unable = self.members_for(task)
        if not able:
            return f"portfolio: no member answers {task.question!r}: {'; '.join(unable)}"
        for member in able:
            problem = get_backend(member).refusal(task)
            if problem:
                return f"portfolio member {problem}"
        return None

    def warm_up(self, question: Question | None = None) -> None:
        for member in self.members():
            get_backend(member).warm_up(question)

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        self.checked_options(task)
        names, dropped = self.members_for(task)
        members = [get_backend(m) for m in names]  # unknown names and missing libraries fail here
        for member in members:  # loaded once here: the members start with their libraries and compiled code in place
            member.warm_up(task.question)
        ctx = context()
        started = clock.now()
        deadline = task.until(started)
        running: dict[Any, tuple[str, Any]] = {}
        processes: list[Any] = []  # every member started, reported or not: all are reaped before the call returns
        winner: Result | None = None
        spent: list[Result] = []
        streamed: list[Result] = []  # best: the best board any member streamed
        reason = ""
        try:
            for member in members:
                left = None if deadline is None else deadline - clock.now()
                if left is not None and left <= 0:
                    break
                receive, send = ctx.Pipe(duplex=False)
                mine = replace(task, progress=None)
                process = ctx.Process(target=_member, args=(send, member, puzzle, mine, deadline))
                running[receive] = (member.full_name, process)
                processes.append(process)
                try:
                    start(process)
                    adopt(process.pid)
                finally:
                    send.close()
            past = None if deadline is None else deadline + MEMBER_GRACE
            winner, reason = _race(puzzle, running, spent, past, task, streamed, deadline)
        except KeyboardInterrupt:
            reason = INTERRUPTED
        finally:
            if running and winner is None and reason == INTERRUPTED:  # pass Ctrl-C on: each reports its find
                for _, process in running.values():
                    interrupt_group(process.pid)
                with contextlib.suppress(KeyboardInterrupt):
                    winner = _race(puzzle, running, spent, clock.now() + STOP_GRACE, task, streamed)[0]
            for process in processes:  # those that reported are done: none outlives the call
                if process.pid is not None and process.exitcode is None:
                    kill_group(process.pid)  # a member that never started has pid None: nothing to kill
            for process in processes:
                if process.pid is not None:
                    process.join(timeout=5)
            for receive in running:
                receive.close()
        took = clock.now() - started
        killed = [n for n, _ in running.values()]
        answer = winner if winner is not None else _best_unfinished(
            spent + streamed, killed, reason or TIME_LIMIT, puzzle if task.question == "best" else None)
        if reason == INTERRUPTED:
            answer.message = INTERRUPTED
        if streamed:  # best: every improvement any member streamed, in seconds from the start
            answer.history = [(t - started, score) for t, score in streamed[0].history]
        answer.counters = {**answer.counters, "winner": answer.backend, "members": len(members)}
        answer.options = {**answer.options, "members": "+".join(m.full_name for m in members)}
        if dropped and self.sub:  # named by the caller: say which could not answer
            answer.options["dropped"] = "; ".join(dropped)
        answer.timings = Timings(build=0.0, solve=took)
        answer.backend = f"portfolio({answer.backend})"
        return answer


def _race(puzzle: Puzzle, running: dict[Any, tuple[str, Any]], spent: list[Result],
          deadline: float | None, task: Task, streamed: list[Result] | None = None,
          limit: float | None = None) -> tuple[Result | None, str]:
    """Take members' answers as they come until one is complete and verified (the winner), none is left
    running, or ``deadline`` passes (:data:`TIME_LIMIT`). Answers that do not win go to ``spent``; boards a
    ``best`` member streams on the way go to ``task.on_improve`` when they beat every member's so far, and
    the best of them is kept in ``streamed`` (a member killed before its last word loses nothing). So
    ``best`` stops at ``limit`` (the time limit) itself once a board is in: a member's last word could only
    repeat the board it streamed (one that proves its board optimal finishes, and wins, before)."""
    streamed = [] if streamed is None else streamed
    while running:
        now = clock.now()
        if limit is not None and streamed and task.question == "best" and now >= limit:
            return None, TIME_LIMIT
        left = None if deadline is None else deadline - now
        if limit is not None and streamed and task.question == "best":
            left = max(0.0, limit - now)
        if left is not None and left <= 0:
            return None, TIME_LIMIT
        for receive, message in arrivals(running, left):
            name, process = running[receive]
            if message is DIED:
                process.join(timeout=1)
                message = Result(name, Status.ERROR, message=f"died (exit code {process.exitcode})")
            if isinstance(message, tuple):  # ("improve", board, score) from a best member
                _, board, score = message
                if not streamed or score > (streamed[0].score or 0):
                    seen = [*(streamed[0].history if streamed else []), (clock.now(), score)]
                    streamed[:] = [Result(name, Status.TIMEOUT, [board], score=score, history=seen)]
                    if task.on_improve is not None:
                        task.on_improve(board, score)
                continue
            running.pop(receive)
            receive.close()
            if message.complete and _verified(puzzle, message, task.question):
                return message, ""
            spent.append(message)
    return None, ""


def _member(conn: Any, backend: Backend, puzzle: Puzzle, task: Task, deadline: float | None = None) -> None:
    """One member, in its own process group: runs until the portfolio's ``deadline`` (monotonic, the same
    clock in every process) less :data:`REPORT_AHEAD`, so that its result reaches the parent in time."""
    own_group()
    if deadline is not None:
        task = replace(task, deadline=deadline - REPORT_AHEAD)
    if task.question == "best":
        task = replace(task, on_improve=lambda board, score: conn.send(("improve", board, score)))
    try:
        try:
            result = backend.run(puzzle, task)
        except KeyboardInterrupt:  # stopped by the parent before the backend could report
            result = Result(backend.full_name, Status.TIMEOUT, message=INTERRUPTED)
        except Exception as exc:  # noqa: BLE001  (a member's failure is its result, the race goes on)
            result = Result(backend.full_name, Status.ERROR, message=f"{type(exc).__name__}: {exc}")
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the answer goes out whole
        conn.send(result)
    except KeyboardInterrupt:
        pass  # stopped while answering: the parent no longer waits for it


def _verified(puzzle: Puzzle, result: Result, question: str = "first") -> bool:
    """A member's solutions must all pass the checker (for ``best``: be admissible boards); one that fails is
    out of the race."""
    def passes(board: Solution) -> bool:
        return check_admissible(puzzle, board).admissible if question == "best" else check(puzzle, board).ok

    if all(passes(s) for s in result.solutions):
        return True
    result.status, result.message = Status.ERROR, "returned an invalid solution"
    return False


def _best_unfinished(spent: list[Result], killed: list[str], reason: str, best_of: Puzzle | None = None
                     ) -> Result:
    """No complete answer: the stopped member with the largest count (one member's lower bound), or with
    ``best_of`` (the best-score question on that puzzle) the admissible board with the highest score; else an
    error naming what each member said."""
    stopped = [r for r in spent if r.status is Status.TIMEOUT]
    if best_of is not None:
        stopped = [r for r in stopped if _verified(best_of, r, "best")]

    def rank(r: Result) -> tuple:
        return (r.score is not None, r.score or 0) if best_of is not None else (r.count is not None, r.count or 0)

    if stopped or killed or not spent:  # (none spent: the limit passed before a member started)
        best = max(stopped, key=rank) if stopped else Result(
            killed[0] if killed else "portfolio", Status.TIMEOUT)
        best.message = reason + (f" ({', '.join(killed)} stopped)" if killed else "")
        return best
    why = "; ".join(f"{r.backend}: {r.message}" for r in spent)
    return Result(spent[0].backend if spent else "portfolio", Status.ERROR, message=f"no member answered: {why}")

