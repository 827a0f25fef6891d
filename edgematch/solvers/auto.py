"""The ``auto`` backend: asks the measured policy (:mod:`edgematch.solvers.policy`) which backend suits the
puzzle and question, and runs that one; the result names the backend chosen (``counters["chosen"]``,
``options["auto"]``) and the policy file it came from (``options["policy"]``: a path, or ``shipped``)."""

from __future__ import annotations

from collections.abc import Iterator

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.solvers.base import Backend, Question, Result, Task, get_backend
from edgematch.solvers.policy import choose, installed, load_policy


class AutoBackend(Backend):
    name = "auto"
    description = "the backend the measured policy picks for the puzzle and question (see --explain)"
    questions = ("first", "all", "count", "best")  # the backend it picks answers the question asked

    def warm_up(self, question: Question | None = None) -> None:
        policy = load_policy()
        for name in {policy.default, *(r["backend"] for r in policy.rules)}:
            if installed(name):
                get_backend(name).warm_up(question)

    def answer(self, puzzle: Puzzle, task: Task) -> Result:
        return self.run(puzzle, task)  # loads only the backend it picks (warm_up loads every one it might)

    def run(self, puzzle: Puzzle, task: Task) -> Result:
        started = clock.now()
        choice = choose(puzzle, task.question, task)  # reads every tile: a 250x250's take a fifth of a second
        chosen = get_backend(choice.backend)
        choosing = clock.now() - started  # ... which the caller's limit counts; loading the backend does not
        chosen.warm_up(task.question)
        result = chosen.run(puzzle, task.anchored(clock.now() - choosing))
        result.counters = {**result.counters, "chosen": choice.backend}
        result.options = {**result.options, "auto": choice.backend, "policy": choice.policy}
        result.backend = f"auto({result.backend})"
        return result

    def iter_solutions(self, puzzle: Puzzle, task: Task) -> Iterator[Solution]:
        yield from get_backend(choose(puzzle, task.question, task).backend).iter_solutions(puzzle, task)
