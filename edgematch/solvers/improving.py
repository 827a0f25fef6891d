"""The parent's side of a streamed best-score search (``best`` on cpsat and sat): each better board the
child sends is decoded, timed into the history, shown to ``task.progress`` and handed to ``task.on_improve``
at once, so a time limit, a kill or Ctrl-C never loses a board already found.

The child sends ``("built", (seconds, types, stats))``, then ``("board", (board, score))`` for each board
better than the last, then ``("done", (status, counters))``; the status is the backend's own word
(``OPTIMAL``: proven the maximum, ``INFEASIBLE``: no admissible board, anything else: stopped early).
"""

from __future__ import annotations

from typing import Any

from edgematch import clock
from edgematch.core.model import Puzzle, Solution
from edgematch.core.tiletypes import decode
from edgematch.solvers.base import TIME_LIMIT, Result, Status, Task, Timings

OPTIMAL = "OPTIMAL"
INFEASIBLE = "INFEASIBLE"


class Improvements:
    """What a best-score child has sent so far: the best board, its score, the history and the counters."""

    def __init__(self, puzzle: Puzzle, task: Task, started: float):
        self.puzzle, self.task, self.started = puzzle, task, started
        self.build: float | None = None
        self.types: Any = None
        self.enc_stats: dict[str, float] = {}
        self.board: Solution | None = None
        self.score: int | None = None
        self.history: list[tuple[float, int]] = []
        self.status: str | None = None
        self.counters: dict[str, float] = {}

    def handle(self, message: tuple[str, Any]) -> bool:
        kind, payload = message
        if kind == "built":
            self.build, self.types, self.enc_stats = payload
        elif kind == "board":
            board, score = payload
            if self.score is None or score > self.score:
                self.improve(decode(self.puzzle, self.types, board), score)
        elif kind == "done":
            self.status, self.counters = payload
        return False

    def improve(self, board: Solution, score: int) -> None:
        """Keep ``board`` first (so nothing is lost if a callback raises), then report it."""
        elapsed = clock.now() - self.started
        self.board, self.score = board, score
        self.history.append((elapsed, score))
        if self.task.progress is not None:
            self.task.progress({"nodes": 0, "solutions": len(self.history), "score": score,
                                "max_score": self.puzzle.seam_count, "elapsed": elapsed})
        if self.task.on_improve is not None:
            self.task.on_improve(board, score)

    def result(self, backend: str, stopped: str, options: dict[str, Any], error: str = "") -> Result:
        """The Result: SOLVED when the child proved its board optimal (or it is a full solution), UNSAT when
        it proved no admissible board exists, TIMEOUT with the best board otherwise (``stopped`` says why)."""
        took = clock.now() - self.started
        build = self.build if self.build is not None else took
        result = Result(backend=backend, status=Status.TIMEOUT, timings=Timings(build=build, solve=took - build),
                        counters={**self.counters, **self.enc_stats, "improvements": len(self.history)},
                        options=options, message=stopped or TIME_LIMIT, history=list(self.history),
                        score=self.score, max_score=self.puzzle.seam_count)
        if self.board is not None:
            result.solutions = [self.board]
        if error:
            result.status, result.message = Status.ERROR, error
        elif not stopped and self.status == OPTIMAL and self.board is not None:
            result.status, result.message = Status.SOLVED, ""
        elif not stopped and self.status == INFEASIBLE and self.board is None:
            result.status, result.message = Status.UNSAT, ""
        elif self.score is not None and self.score == self.puzzle.seam_count:
            result.status, result.message = Status.SOLVED, ""  # a full solution is optimal
        return result
