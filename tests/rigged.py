"""Backends rigged to misbehave, for testing that the harness contains them (never registered for users)."""

import os
import time

from edgematch.core.model import Solution
from edgematch.solvers.base import Backend, Result, Status, Timings


class HangingBackend(Backend):
    """Ignores its time limit entirely (and writes its pid to $RIGGED_HANG_PID_FILE when that is set)."""

    name = "hang"

    def run(self, puzzle, task):
        if "RIGGED_HANG_PID_FILE" in os.environ:
            with open(os.environ["RIGGED_HANG_PID_FILE"], "w") as f:
                f.write(str(os.getpid()))
        while True:
            time.sleep(1)


class WrongBackend(Backend):
    """Claims a solution that places every tile as it comes, unturned."""

    name = "wrong"

    def run(self, puzzle, task):
        cells = tuple((t, 0) for t in range(len(puzzle.tiles)))
        return Result(self.name, Status.SOLVED, [Solution(puzzle.width, puzzle.height, cells)], timings=Timings())


class UnsatBackend(Backend):
    """Says every puzzle has no solution."""

    name = "unsat"

    def run(self, puzzle, task):
        return Result(self.name, Status.UNSAT, timings=Timings())


class CrashingBackend(Backend):
    """Dies without a word, as a segfaulting native library would."""

    name = "crash"

    def run(self, puzzle, task):
        os._exit(139)


class SpawningBackend(Backend):
    """Starts a helper process (as the SAT backend does), writes its pid to $RIGGED_PID_FILE, then hangs."""

    name = "spawn"

    def run(self, puzzle, task):
        import subprocess

        helper = subprocess.Popen(["sleep", "600"])
        with open(os.environ["RIGGED_PID_FILE"], "w") as f:
            f.write(str(helper.pid))
        while True:
            time.sleep(1)


class ShortCountBackend(Backend):
    """Counts one solution too few (a silent undercount, as cpsat:table's presolve once gave)."""

    name = "short"

    def run(self, puzzle, task):
        from edgematch.solvers.base import get_backend

        result = get_backend("native").run(puzzle, task)
        result.backend = self.name
        if result.count:
            result.count -= 1
        return result


class OverclaimBackend(Backend):
    """Answers best with the native backend's board but claims one more fitting seam than it has."""

    name = "overclaim"
    questions = ("first", "all", "count", "best")

    def run(self, puzzle, task):
        from edgematch.solvers.base import get_backend

        result = get_backend("native").run(puzzle, task)
        result.backend = self.name
        if result.score is not None:
            result.score += 1
        return result


class SlowLoadingBackend(Backend):
    """Takes $RIGGED_LOAD_SECONDS (default 3) to load, once per process (as a compile at first use would), then
    answers with the native backend; records each question it was loaded for in ``questions_loaded``."""

    name = "slowload"
    questions = ("first", "all", "count", "best")
    loaded = False
    questions_loaded: list = []

    def warm_up(self, question=None):
        SlowLoadingBackend.questions_loaded.append(question)
        if not SlowLoadingBackend.loaded:
            time.sleep(float(os.environ.get("RIGGED_LOAD_SECONDS", "3")))
            SlowLoadingBackend.loaded = True

    def run(self, puzzle, task):
        from edgematch.solvers.base import get_backend

        result = get_backend("native").run(puzzle, task)
        result.backend = self.name
        return result


class DeadlineBackend(Backend):
    """Takes $RIGGED_LOAD_SECONDS (default 0.5) to load at every warm_up, then records in ``asked`` the instant
    its run began and the task it was given, and answers with the native backend."""

    name = "deadline"
    questions = ("first", "all", "count", "best")
    asked: list = []

    def warm_up(self, question=None):
        time.sleep(float(os.environ.get("RIGGED_LOAD_SECONDS", "0.5")))

    def run(self, puzzle, task):
        from edgematch import clock
        from edgematch.solvers.base import get_backend

        DeadlineBackend.asked.append((clock.now(), task))
        result = get_backend("native").run(puzzle, task)
        result.backend = self.name
        return result


RIGGED = {
    "deadline": "tests.rigged:DeadlineBackend",
    "slowload": "tests.rigged:SlowLoadingBackend",
    "overclaim": "tests.rigged:OverclaimBackend",
    "spawn": "tests.rigged:SpawningBackend",
    "hang": "tests.rigged:HangingBackend",
    "wrong": "tests.rigged:WrongBackend",
    "unsat": "tests.rigged:UnsatBackend",
    "crash": "tests.rigged:CrashingBackend",
    "short": "tests.rigged:ShortCountBackend",
}

