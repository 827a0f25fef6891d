"""Random puzzles: planted ones (a known solution, then shuffled and turned) and plain random tiles.

Planted puzzles colour every seam, cut the board into tiles, then shuffle the tiles and turn each one
randomly (when rotation is allowed), remembering where each went so the planted solution comes back.
Framed puzzles put the frame label (0) on the outside, draw the seams along the rim from the border
colours and every other seam from the inner colours (Eternity II style: two disjoint colour sets).
Everything is reproducible from ``seed``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from edgematch.core.model import E, N, Puzzle, Rule, S, Solution, Tile, W, rotate_edges
from edgematch.errors import UsageError

FRAME = 0
MAX_TRIES = 1000
MAX_TILES = 1_000_000


@dataclass(frozen=True)
class GeneratorSpec:
    """What to generate. ``colours`` is used unframed; ``border_colours`` / ``inner_colours`` when framed."""

    width: int
    height: int
    colours: int = 4
    framed: bool = False
    border_colours: int | None = None
    inner_colours: int | None = None
    rule: Rule = "same"
    rotations: bool = True
    duplicates: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise UsageError(f"board size must be at least 1x1, got {self.width}x{self.height}")
        if self.width * self.height > MAX_TILES:
            raise UsageError(f"{self.width}x{self.height} is over {MAX_TILES:,} tiles: too large to generate")
        if self.rule not in ("same", "signed"):
            raise UsageError(f"unknown rule {self.rule!r} (expected same or signed)")
        for name in ("colours", "border_colours", "inner_colours"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise UsageError(f"{name.replace('_', ' ')} must be at least 1, got {value}")

    @property
    def border_count(self) -> int:
        return self.border_colours if self.border_colours is not None else self.colours

    @property
    def inner_count(self) -> int:
        return self.inner_colours if self.inner_colours is not None else self.colours


def _is_rim_seam(cell: int, side: int, width: int, height: int) -> bool:
    """Whether the seam on ``side`` (E or S) of ``cell`` runs between two border cells along the rim."""
    row, col = divmod(cell, width)
    if side == E:
        return row in (0, height - 1)
    return col in (0, width - 1)


def _planted_tiles(spec: GeneratorSpec, rng: random.Random) -> list[list[int]]:
    w, h = spec.width, spec.height
    edges = [[FRAME] * 4 if spec.framed else [0] * 4 for _ in range(w * h)]
    inner_base = spec.border_count if spec.framed else 0

    def draw(rim: bool) -> int:
        if spec.framed and rim:
            colour = rng.randint(1, spec.border_count)
        elif spec.framed:
            colour = inner_base + rng.randint(1, spec.inner_count)
        else:
            colour = rng.randint(1, spec.colours)
        if spec.rule == "signed" and rng.random() < 0.5:
            colour = -colour
        return colour

    for cell in range(w * h):
        row, col = divmod(cell, w)
        if not spec.framed:
            # unframed border edges are free: give them colours too
            if row == 0:
                edges[cell][N] = draw(False)
            if col == 0:
                edges[cell][W] = draw(False)
            if row == h - 1:
                edges[cell][S] = draw(False)
            if col == w - 1:
                edges[cell][E] = draw(False)
        if col < w - 1:
            label = draw(_is_rim_seam(cell, E, w, h))
            edges[cell][E] = label
            edges[cell + 1][W] = -label if spec.rule == "signed" else label
        if row < h - 1:
            label = draw(_is_rim_seam(cell, S, w, h))
            edges[cell][S] = label
            edges[cell + w][N] = -label if spec.rule == "signed" else label
    return edges


def generate(spec: GeneratorSpec) -> tuple[Puzzle, Solution]:
    """A planted puzzle and its planted solution (shuffled and turned; always passes ``check``)."""
    rng = random.Random(spec.seed)
    for _ in range(MAX_TRIES):
        board = _planted_tiles(spec, rng)
        if spec.duplicates or _all_different(board, spec.rotations):
            break
    else:
        raise UsageError(
            f"no {spec.width}x{spec.height} puzzle without duplicate tiles found in {MAX_TRIES} tries: "
            "use more colours or allow duplicates"
        )
    order = list(range(len(board)))
    rng.shuffle(order)  # order[i] = the cell whose tile becomes tile i
    turns = [rng.randrange(4) if spec.rotations else 0 for _ in board]
    tiles = []
    placement = [(0, 0)] * len(board)
    for i, cell in enumerate(order):
        r = turns[i]
        # stored unturned by r, so placing it with r turns shows the planted labels
        tiles.append(Tile(rotate_edges(board[cell], -r)))
        placement[cell] = (i, r)
    name = f"planted {spec.width}x{spec.height} seed {spec.seed}"
    puzzle = Puzzle(
        spec.width, spec.height, tuple(tiles), rule=spec.rule,
        frame=FRAME if spec.framed else None, rotations=spec.rotations, name=name,
    )
    return puzzle, Solution.from_pairs(puzzle, placement)


def _all_different(board: list[list[int]], rotations: bool) -> bool:
    keys = {Tile(tuple(e)).canonical(rotations) for e in board}  # type: ignore[arg-type]
    return len(keys) == len(board)


def random_tiles(
    width: int, height: int, colours: int = 4, rule: Rule = "signed", rotations: bool = True, seed: int = 0
) -> Puzzle:
    """Tiles with independent random labels and no planted solution (the Arc article's experiment).

    ``signed`` draws each edge from ±1..±colours (8 values for 4 colours, as in the article);
    ``same`` from 1..colours.
    """
    if width < 1 or height < 1 or colours < 1:
        raise UsageError("random tiles need a board of at least 1x1 and at least one colour")
    if width * height > MAX_TILES:
        raise UsageError(f"{width}x{height} is over {MAX_TILES:,} tiles: too large to generate")
    rng = random.Random(seed)
    values = [c * s for c in range(1, colours + 1) for s in ((1, -1) if rule == "signed" else (1,))]
    tiles = tuple(Tile(tuple(rng.choice(values) for _ in range(4))) for _ in range(width * height))  # type: ignore[arg-type]
    return Puzzle(width, height, tiles, rule=rule, rotations=rotations, name=f"random {width}x{height} seed {seed}")
