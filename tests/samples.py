"""Seeded samples of small puzzles shared by the backend tests (the same puzzles for every backend)."""

import random

from edgematch.core.analysis import facts
from edgematch.core.generator import GeneratorSpec, generate, random_tiles


def random_small_puzzles(n: int, seed: int = 2026):
    """Seeded small puzzles of every kind: planted (with duplicates, frames, hints, rotation off) and
    plain random tiles (often unsolvable); kept to those the naive oracle enumerates quickly."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        w, h = rng.choice([(2, 2), (2, 3), (3, 2), (3, 3)])
        rule = rng.choice(["same", "signed"])
        rotations = rng.random() < 0.8
        if rng.random() < 0.2:
            puzzle = random_tiles(w, h, rng.randint(2, 4), rule, rotations, seed=rng.randrange(10**6))
        else:
            framed = rng.random() < 0.4
            spec = GeneratorSpec(w, h, colours=rng.randint(1, 4), framed=framed, border_colours=rng.randint(1, 3),
                                 inner_colours=rng.randint(1, 3), rule=rule, rotations=rotations,
                                 seed=rng.randrange(10**6))
            puzzle, solution = generate(spec)
            if rng.random() < 0.2:
                cell = rng.randrange(puzzle.size)
                puzzle = puzzle.replace(hints=((cell, *solution.cells[cell]),))
        if facts(puzzle).expected_solutions < 300:
            out.append(puzzle)
    return out


def holds_every_kind(share) -> bool:
    """Whether ``share`` (a part of a :func:`random_small_puzzles` sample a test runs by default) holds every
    size, both rules, and boards with and without a frame, turns, hints and duplicate tiles: what a test
    that runs only that part still claims to cover."""
    kinds = {(p.width * p.height, p.rule, p.frame is not None, p.rotations, bool(p.hints),
              bool(p.duplicate_groups())) for p in share}
    return ({k[0] for k in kinds} == {4, 6, 9} and {k[1] for k in kinds} == {"same", "signed"}
            and all(any(k[i] for k in kinds) and not all(k[i] for k in kinds) for i in (2, 3, 4, 5)))
