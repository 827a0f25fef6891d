"""The portfolio backend: several backends race in parallel processes; the first verified answer wins.

``portfolio`` runs the default members on the available cores; ``portfolio:native+cpsat:table`` names them.
Each member is a forked child leading its own process group; the parent checks each answer as it comes
(a solution must pass the independent checker, else that member is out), takes the first complete one, and
kills every other member's group at once, so no solver outlives the call. Counts and solutions always come
from one member, never merged.
"""

from __future__ import annotations

import time
from dataclasses import replace
from multiprocessing.connection import wait
from typing import Any

from edgematch.core.checker import check
from edgematch.core.model import Puzzle
from edgematch.errors import UsageError
from edgematch.solvers.base import Backend, Result, Status, Task, Timings, get_backend
from edgematch.solvers.processes import adopt, context, kill_group, own_group, usable_cores

# in order of preference: the fastest single backend overall, then the one that solves what it misses
DEFAULT_MEMBERS = ("native", "cpsat:table", "sat:cadical195")
GRACE_SECONDS = 1.0  # past the time limit, members still running are killed


class PortfolioBackend(Backend):
    name = "portfolio"
    description = "several backends in parallel processes; the first verified answer wins (portfolio:a+b)"

    def members(self) -> list[str]:
        """The member backends: those named, else as many defaults as there are cores (at least two)."""
        if self.sub:
            names = [m.strip() for m in self.sub.split("+") if m.strip()]
            if len(names) < 2 or any(m.partition(":")[0] in ("portfolio", "auto") for m in names):
                raise UsageError(f"portfolio:{self.sub}: name two or more backends joined by + "
                                 "(e.g. portfolio:native+cpsat:table)")
            return names
        return list(DEFAULT_MEMBERS[:max(2, usable_cores())])

    @property
    def full_name(self) -> str:
        return f"portfolio:{'+'.join(self.members())}"

    def refusal(self, task: Task) -> str | None:
        if task.options:
            return "portfolio: backend options are not passed to members; name a single backend for them"
        for member in self.members():
            problem = get_backend(member).refusal(task)
            if problem:
                return f"portfolio member {problem}"
        return None

    def warm_up(self) -> None:
        for member in self.members():
            get_backend(member).warm_up()

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        members = [get_backend(m) for m in self.members()]  # unknown names and missing libraries fail here
        self.checked_options(task)
        quiet = replace(task, progress=None)
        forking = context()
        started = time.perf_counter()
        running: dict[Any, tuple[str, Any]] = {}
        deadline = None if task.time_limit is None else started + task.time_limit + GRACE_SECONDS
        winner: Result | None = None
        spent: list[Result] = []
        try:
            for member in members:
                receive, send = forking.Pipe(duplex=False)
                process = forking.Process(target=_member, args=(send, member, puzzle, quiet))
                running[receive] = (member.full_name, process)
                try:
                    process.start()
                    adopt(process.pid)
                finally:
                    send.close()
            while running and winner is None:
                left = None if deadline is None else max(0.0, deadline - time.perf_counter())
                ready = wait(list(running), timeout=left)
                if not ready:
                    break  # past the deadline
                for receive in ready:
                    name, process = running.pop(receive)
                    try:
                        result = receive.recv()
                    except EOFError:
                        process.join(timeout=1)
                        result = Result(name, Status.ERROR, message=f"died (exit code {process.exitcode})")
                    receive.close()
                    if result.complete and _verified(puzzle, result):
                        winner = result
                        break
                    spent.append(result)
        finally:
            for receive, (_, process) in running.items():
                kill_group(process.pid)  # a member that never started has pid None: nothing to kill
                receive.close()
            for _, process in running.values():
                if process.pid is not None:
                    process.join(timeout=5)
        took = time.perf_counter() - started
        answer = winner or _best_unfinished(spent, [n for n, _ in running.values()])
        answer.counters = {**answer.counters, "winner": answer.backend, "members": len(members)}
        answer.options = {**answer.options, "members": "+".join(m.full_name for m in members)}
        answer.timings = Timings(build=0.0, solve=took)
        answer.backend = f"portfolio({answer.backend})"
        return answer


def _member(conn: Any, backend: Backend, puzzle: Puzzle, task: Task) -> None:
    own_group()
    try:
        result = backend.run(puzzle, task)
    except Exception as exc:  # noqa: BLE001  (a member's failure is its result, the race goes on)
        result = Result(backend.full_name, Status.ERROR, message=f"{type(exc).__name__}: {exc}")
    conn.send(result)


def _verified(puzzle: Puzzle, result: Result) -> bool:
    """A member's solutions must all pass the checker; one that fails is out of the race."""
    if all(check(puzzle, s).ok for s in result.solutions):
        return True
    result.status, result.message = Status.ERROR, "returned an invalid solution"
    return False


def _best_unfinished(spent: list[Result], killed: list[str]) -> Result:
    """No complete answer: the timed-out member with the largest count (one member's lower bound), else an
    error naming what each member said."""
    stopped = [r for r in spent if r.status is Status.TIMEOUT]
    if stopped or killed:
        best = max(stopped, key=lambda r: r.count or 0) if stopped else Result(killed[0], Status.TIMEOUT)
        best.message = "time limit" + (f" ({', '.join(killed)} stopped)" if killed else "")
        return best
    why = "; ".join(f"{r.backend}: {r.message}" for r in spent)
    return Result(spent[0].backend if spent else "portfolio", Status.ERROR, message=f"no member answered: {why}")
