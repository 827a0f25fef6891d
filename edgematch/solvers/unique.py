"""Planted puzzles with exactly one distinct solution, by rejection.

:func:`unique_puzzle` generates the spec's planted puzzle, then the puzzles derived from the same seed
(``attempt`` 1, 2, ...), and keeps the first one the native backend counts exactly one distinct solution
for (docs/architecture.md: boards that differ only by identical tiles, self-symmetric tiles or turning the whole board
count once). A try is counted only up to its second distinct board
(:func:`~edgematch.solvers.native.count.upto.distinct_upto`): that rejects it, and a try is kept only when the
whole tree was searched and held one, the exact count. A try whose search hits its time limit is rejected.
Deterministic by seed as long as no search times out: the same spec gives the same attempt.

This needs a solver, so it lives here and not in ``core`` (which imports none). Where it works (tries
needed on seeds 1-5, measured when written):

- ``tetravex`` 3x3 to 6x6: 10 labels make the planted puzzle unique already (1 try, milliseconds).
- ``clue`` 4x4: 1-2 tries; 5x5: 1-13 tries, well under a second.
- ``e2`` 4x4 to 6x6: 1-11 tries; at 6x6 0.1-1 s a seed (a rejected try stops at its second distinct board:
  0.02-0.2 s, where counting them all took 0.2-0.9 s).
- ``cards`` 3x3 (4 pairs): 1-8 tries; 4x4 has tens of distinct solutions: 7-170 tries (seed 1: 67 in 0.4 s).
- ``clue`` 6x6 (3 inner colours) has thousands of distinct solutions: not feasible, every try has several
  (seed 1: the 200 tries refused in 1.6 s; when each was counted in full, every try timed out).
"""

from __future__ import annotations

from dataclasses import replace

from edgematch import clock
from edgematch.core.generator import GeneratorSpec, generate
from edgematch.core.model import MAX_LABEL, Puzzle, Solution, whole_number
from edgematch.errors import UsageError

DEFAULT_TRIES = 200
DEFAULT_TIME_LIMIT = 60.0  # seconds for the whole search
TRY_TIME_LIMIT = 10.0  # seconds for one count at most


def unique_puzzle(spec: GeneratorSpec, tries: int = DEFAULT_TRIES, time_limit: float = DEFAULT_TIME_LIMIT,
                  try_limit: float = TRY_TIME_LIMIT) -> tuple[Puzzle, Solution, int]:
    """The first of ``spec``'s puzzles (attempt ``spec.attempt``, then the next ones) with exactly one
    distinct solution, its planted solution, and how many tries it took. At most ``tries`` puzzles and
    ``time_limit`` seconds in all (each count at most ``try_limit``); a :class:`UsageError` says how many
    tries were made and what they gave when none is found. The puzzle's name ends in ``unique``."""
    from edgematch.solvers.api import seconds_problem
    from edgematch.solvers.base import get_backend
    from edgematch.solvers.native.count.upto import distinct_upto

    whole_number(tries, "tries", 1, MAX_LABEL)
    for name, value in (("time limit", time_limit), ("try limit", try_limit)):
        problem = seconds_problem(value)
        if problem:
            raise UsageError(f"the {name} {problem}")
    get_backend("native")  # the native backend's error when its C library is missing, before any try
    started = clock.now()
    several = none = timeouts = 0
    made = 0
    for made in range(1, tries + 1):
        left = time_limit - (clock.now() - started)
        if left <= 0:
            made -= 1
            break
        candidate = replace(spec, attempt=spec.attempt + made - 1)
        puzzle, planted = generate(candidate)
        found = distinct_upto(puzzle, 2, time_limit=min(left, try_limit))
        if found.distinct >= 2:
            several += 1
        elif not found.finished:
            timeouts += 1
        elif found.distinct == 1:
            return puzzle.replace(name=f"{spec.name} unique"), planted, made
        else:
            none += 1  # cannot happen for a planted puzzle; counted rather than trusted
    gave = ", ".join(f"{n} {what}" for n, what in ((several, "had several distinct solutions"),
                                                   (timeouts, "took over the time to count"),
                                                   (none, "were counted unsolvable")) if n)
    raise UsageError(
        f"no puzzle with exactly one distinct solution from {spec.name} in {made} {'try' if made == 1 else 'tries'} "
        f"({clock.now() - started:.1f} s; {gave or 'no count finished'}): "
        "try fewer tiles, more colours, or another seed"
    )
