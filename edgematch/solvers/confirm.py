"""Confirmed answers: a second, independent formulation re-derives what one backend said.

A solution needs no second opinion (the independent checker proves it), but "no solution" and a count
are otherwise taken on one backend's word. :func:`second_opinion` re-asks the question of a backend of another
*family* (native search, CP-SAT, CNF/SAT: different code, different model, different solver library) and
compares: the answer is then confirmed, or the two disagree and :class:`Disagreement` is raised (never a
quiet pick of one side), or the second opinion could not be had in the time left (unconfirmed, said so).

Which backend confirms: the policy's measured ``confirm`` backend for the puzzle's rule when the policy
file carries one (``edgematch policy`` derives it: the fastest backend of another family in that size
class), else the first installed backend of :data:`SECOND_OPINION` for the answering family.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from edgematch import clock
from edgematch.core.model import Puzzle
from edgematch.errors import BackendError, UsageError
from edgematch.solvers.base import Confirmation, Result, Status, Task, base_spec
from edgematch.solvers.policy import installed, load_policy

# the answering family -> who to ask instead, in order (each of another family)
SECOND_OPINION: dict[str, tuple[str, ...]] = {
    "native": ("cpsat", "sat", "cpsat:table"),
    "cpsat": ("native", "sat"),
    "sat": ("native", "cpsat"),
}


def family(backend: str) -> str:
    """The family of a backend name or of a result's ``backend`` (``auto(portfolio(native:restarts))``:
    the member that answered is the innermost name; a bench's ``native@fc=on``: native)."""
    names = re.findall(r"[\w:+]+", base_spec(backend))
    innermost = names[-1] if names else backend
    return innermost.partition(":")[0]


class Disagreement(BackendError):
    """Two independent backends gave different answers: at least one of them is wrong."""

    def __init__(self, message: str, first: Result, second: Result):
        super().__init__(message)
        self.first = first
        self.second = second


def confirmer(puzzle: Puzzle, question: str, answered_by: str) -> str:
    """The backend that gives the second opinion on ``answered_by``'s answer to ``question``."""
    mine = family(answered_by)
    measured = load_policy().confirm_backend(puzzle, question)
    candidates = ([measured] if measured else []) + list(SECOND_OPINION.get(mine, ("native", "cpsat")))
    for name in candidates:
        if family(name) != mine and family(name) in SECOND_OPINION and installed(name):
            return name
    raise UsageError(f"--confirm: no backend of another family than {mine} is installed "
                     "(pip install 'edgematch[all]')")


def second_opinion(puzzle: Puzzle, first: Result, task: Task, deadline: float | None,
                   run: Callable[[str, Task], Result]) -> Confirmation:
    """Re-derive ``first`` (the answer to ``task``) with a backend of another family, within ``deadline``
    (a ``clock.now()`` instant, or None); ``run(backend, task)`` gives that backend's checked result.
    Raises :class:`Disagreement` when the answers differ."""
    if first.status is Status.SOLVED and task.question == "first":
        return Confirmation("checker", True, "the solution passed the independent checker")
    if not first.complete:
        return Confirmation("", None, f"nothing to confirm: {first.backend} gave no complete answer")
    by = confirmer(puzzle, task.question, first.backend)
    left = None if deadline is None else deadline - clock.now()
    if left is not None and left <= 0.01:
        return Confirmation(by, None, f"not confirmed: no time left for {by}")
    second = run(by, replace(task, deadline=deadline, options={}, progress=None, workers=1))
    if second.status is Status.ERROR:
        return Confirmation(by, None, f"not confirmed: {by} failed: {second.message}", second)
    if task.question == "first":  # first said unsat
        if second.status is Status.SOLVED:
            raise Disagreement(f"{first.backend} says there is no solution, but {second.backend} found one",
                               first, second)
        if second.status is Status.UNSAT:
            return Confirmation(by, True, f"{by} also proves there is no solution", second)
        return Confirmation(by, None, f"not confirmed: {by} stopped at the time limit", second)
    if not second.complete:
        if second.count is not None and first.count is not None and second.count > first.count:
            raise Disagreement(f"{first.backend} counted {first.count}, but {second.backend} found "
                               f"at least {second.count}", first, second)
        return Confirmation(by, None, f"not confirmed: {by} stopped at the time limit", second)
    mine, theirs = _answer(first, task), _answer(second, task)
    if mine != theirs:
        raise Disagreement(f"{first.backend} says {_said(mine)}, {second.backend} says {_said(theirs)}",
                           first, second)
    return Confirmation(by, True, f"{by} gives the same: {_said(theirs)}", second)


def _answer(result: Result, task: Task) -> tuple:
    if task.question == "all" and task.limit is not None:  # a capped list: compare how many were found
        return result.status.value, len(result.solutions), None
    if task.question == "all":
        return result.status.value, frozenset(result.solutions), result.distinct
    return result.status.value, result.count, result.distinct


def _said(answer: tuple) -> str:
    status, found, distinct = answer
    if status == "unsat":
        return "no solution"
    amount = len(found) if isinstance(found, frozenset) else found
    return f"{amount} raw" + (f" / {distinct} distinct" if distinct is not None else "")
