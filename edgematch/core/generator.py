"""Random puzzles: planted ones (a known solution, then shuffled and turned) and plain random tiles.

Planted puzzles colour every seam, cut the board into tiles, then shuffle the tiles and turn each one
randomly (when rotation is allowed), remembering where each went so the planted solution comes back.
Framed puzzles put the frame label (0) on the outside, draw the seams along the rim from the border
colours and every other seam from the inner colours (Eternity II style: two disjoint colour sets).
Everything is reproducible from ``seed`` (and ``attempt``, the derived puzzles a unique-solution search
walks through: ``attempt`` 0 is the seed's own puzzle).

Families (``like``) shape a planted puzzle like a real one; any setting given explicitly overrides the
family's default, and a setting the family cannot honour is a :class:`UsageError`:

``clue``
    the published Eternity II clue puzzles (6x6 and 12x6): framed, rule same, turning, 4 rim colours and
    3 inner colours. With so few colours many tiles repeat, and a quarter of the inner tiles are made
    180-degree symmetric (N = S and E = W) as in the real ones; duplicates are never avoided.
``e2``
    Eternity II itself: framed, rule same, turning, rim and inner colours in E2's proportions (5 rim + 17
    inner at 16x16), scaled with the side ``s = sqrt(w*h)``: rim ``max(1, round(5*s/16))``, inner
    ``max(2, round(17*s/16))``, rounded half up (6x6: 2 + 6, 8x8: 3 + 9, 10x10: 3 + 11). Each colour is
    dealt out evenly over its seams, as in the real puzzle, so every colour appears when there are seams
    enough. ``hint=True`` adds the centre clue: the planted tile at row ``h//2``, column ``w//2 - 1``
    (0-based) with its planted turn, as at row 8, column 7 of the real 16x16.
``tetravex``
    Tetravex: unframed, rule same, no turning, 10 labels (the digits 0-9; an unframed puzzle has no
    frame, so 0 is an ordinary label), duplicates allowed.
``cards``
    the 3x3 and 4x4 card puzzles (scramble squares): unframed, rule signed (a head meets its tail),
    turning, 4 figure pairs (labels +-1..+-4).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from edgematch.core.model import MAX_LABEL, E, N, Puzzle, Rule, S, Solution, Tile, W, rotate_edges, whole_number
from edgematch.errors import UsageError, shown

FRAME = 0
MAX_TRIES = 1000
MAX_TILES = 1_000_000
MAX_COLOURS = 4 * MAX_TILES  # more colours than edges on the largest board could never all show


def check_setting(name: str, value: object, least: int = 0, most: int = MAX_LABEL, none: bool = False) -> None:
    """``value`` must be a whole number from ``least`` to ``most`` (or None when ``none``): else a UsageError."""
    if not (value is None and none):
        whole_number(value, name.replace("_", " "), least, most)


def check_flag(name: str, value: object, none: bool = False) -> None:
    """``value`` must be True or False (or None when ``none``): else a UsageError."""
    if not (isinstance(value, bool) or value is None and none):
        raise UsageError(f"{name} must be True or False, got {shown(value)}")

FAMILIES: dict[str, str] = {
    "clue": "Eternity II clue puzzles: framed, same, turning, 4 rim + 3 inner colours (6x6, 12x6)",
    "e2": "Eternity II: framed, same, turning, rim and inner colours in E2's proportions (5 + 17 at 16x16)",
    "tetravex": "Tetravex: unframed, same, no turning, the digits 0-9",
    "cards": "card puzzles (scramble squares): unframed, signed, turning, 4 figure pairs (3x3, 4x4)",
    "peak": "the hardness peak: framed, same, turning, 3 rim colours (or border_colours) and the inner colours "
            "at which a random board expects one solution (8 at 8x8)",
}
_FRAMED = {"clue": True, "e2": True, "tetravex": False, "cards": False, "peak": True}
FRAMED_FAMILIES = frozenset(name for name, framed in _FRAMED.items() if framed)
_RULE: dict[str, Rule] = {"clue": "same", "e2": "same", "tetravex": "same", "cards": "signed", "peak": "same"}
_ROTATIONS = {"clue": True, "e2": True, "tetravex": False, "cards": True, "peak": True}
_COLOURS = {"tetravex": 10, "cards": 4}  # unframed families
CLUE_COLOURS = (4, 3)  # rim, inner
CLUE_SYMMETRIC_SHARE = 0.25  # inner clue tiles made 180-degree symmetric
PEAK_RIM = 3  # the peak family's rim colours unless given


def log10_expected_solutions(width: int, height: int, rim: int, inner: int, rotations: bool = True) -> float:
    """log10 of the solutions a random framed ``width`` x ``height`` board is expected to have with ``rim``
    colours on the rim seams and ``inner`` on the others (Owen's estimate, as ``edgematch info`` computes it
    from a puzzle): the arrangements that keep the frame (corners, edges and inner tiles each among their
    cells, inner tiles in 4 turns) times the chance that every seam fits."""
    lf = _log10_factorial
    if width < 2 or height < 2:
        raise UsageError(f"the expected-solutions estimate needs a framed board of at least 2x2, got {width}x{height}")
    corners, inner_tiles = 4, (width - 2) * (height - 2)
    edges = width * height - corners - inner_tiles
    arrangements = lf(corners) + lf(edges) + lf(inner_tiles) + inner_tiles * (math.log10(4) if rotations else 0.0)
    rim_seams = 2 * (width - 1) + 2 * (height - 1)
    inner_seams = width * (height - 1) + height * (width - 1) - rim_seams
    return arrangements - rim_seams * math.log10(rim) - inner_seams * math.log10(inner)


def peak_colours(width: int, height: int, rim: int = PEAK_RIM) -> int:
    """The inner colour count (at least 2) whose expected solutions are nearest to one (in log10): where
    random boards turn from many solutions to none, the hardest for a search (Owen; ~7.6 on 8x8)."""
    top = 2  # the first count below one expected solution (the estimate falls as colours grow)
    while log10_expected_solutions(width, height, rim, top) > 0 and top < MAX_COLOURS:
        top += 1
    return min(range(2, top + 1), key=lambda c: abs(log10_expected_solutions(width, height, rim, c)))


def _log10_factorial(n: int) -> float:
    return math.lgamma(n + 1) / math.log(10)


def e2_colours(width: int, height: int) -> tuple[int, int]:
    """Rim and inner colours in Eternity II's proportions (5 and 17 at 16x16) for a ``width`` x ``height``
    board: scaled by ``s = sqrt(width * height) / 16``, rounded half up, at least 1 rim and 2 inner."""
    s = math.sqrt(width * height)
    return max(1, math.floor(5 * s / 16 + 0.5)), max(2, math.floor(17 * s / 16 + 0.5))


def preset_conflict(like: str, framed: bool | None = None, rule: str | None = None,
                    border_colours: int | None = None, inner_colours: int | None = None) -> tuple[str, str] | None:
    """The first setting family ``like`` cannot honour, as (setting, why), or None. Settings not given are None."""
    if framed is not None and framed != _FRAMED[like]:
        return "framed", f"{like} puzzles are {'framed' if _FRAMED[like] else 'unframed'}"
    if not _FRAMED[like]:
        for name, value in (("border_colours", border_colours), ("inner_colours", inner_colours)):
            if value is not None:
                return name, f"{like} puzzles are unframed (they have one colour set: colours)"
    if like == "tetravex" and rule == "signed":
        return "rule", "tetravex puzzles carry the digits 0-9, equal digits touching (rule same)"
    return None


@dataclass(frozen=True)
class GeneratorSpec:
    """What to generate. ``colours`` is used unframed; ``border_colours`` / ``inner_colours`` when framed.

    ``like`` names a family (:data:`FAMILIES`) whose defaults fill every setting left as None; without
    one the defaults are 4 colours, unframed, rule same, turning. ``hint`` fixes the planted centre tile
    (row ``h//2``, column ``w//2 - 1``) as a hint. ``attempt`` > 0 derives another puzzle from the same
    seed (the unique-solution search in :mod:`edgematch.solvers.unique` walks through them). The settings
    are resolved on creation, so a spec always reads as the puzzle it makes.
    """

    width: int
    height: int
    colours: int | None = None
    framed: bool | None = None
    border_colours: int | None = None
    inner_colours: int | None = None
    rule: Rule | None = None
    rotations: bool | None = None
    duplicates: bool = True
    seed: int = 0
    like: str | None = None
    hint: bool = False
    attempt: int = 0

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            check_setting(name, getattr(self, name))
        for name in ("colours", "border_colours", "inner_colours"):
            check_setting(name, getattr(self, name), 1, MAX_COLOURS, none=True)
        check_setting("seed", self.seed, -MAX_LABEL)
        check_setting("attempt", self.attempt, -MAX_LABEL)
        for name in ("framed", "rotations"):
            check_flag(name, getattr(self, name), none=True)
        for name in ("duplicates", "hint"):
            check_flag(name, getattr(self, name))
        if self.like is not None and not isinstance(self.like, str):
            raise UsageError(f"like must be a family name, got {shown(self.like)}")
        if self.width < 1 or self.height < 1:
            raise UsageError(f"board size must be at least 1x1, got {self.width}x{self.height}")
        if self.width * self.height > MAX_TILES:
            raise UsageError(f"{self.width}x{self.height} is over {MAX_TILES:,} tiles: too large to generate")
        if self.rule is not None and self.rule not in ("same", "signed"):
            raise UsageError(f"unknown rule {self.rule!r} (expected same or signed)")
        if self.attempt < 0:
            raise UsageError(f"attempt must be at least 0, got {self.attempt}")
        if self.like is not None:
            self._resolve_family()
        for name, default in (("colours", 4), ("framed", False), ("rule", "same"), ("rotations", True)):
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)

    def _resolve_family(self) -> None:
        like = self.like
        if like not in FAMILIES:
            raise UsageError(f"unknown family {like!r} (known: {', '.join(FAMILIES)})")
        conflict = preset_conflict(like, self.framed, self.rule, self.border_colours, self.inner_colours)
        if conflict:
            setting, why = conflict
            raise UsageError(f"{why}: cannot honour {setting}={getattr(self, setting)!r}")
        set_ = object.__setattr__
        set_(self, "framed", _FRAMED[like])
        if self.rule is None:
            set_(self, "rule", _RULE[like])
        if self.rotations is None:
            set_(self, "rotations", _ROTATIONS[like])
        if _FRAMED[like]:
            rim, inner = CLUE_COLOURS if like == "clue" else e2_colours(self.width, self.height)
            # colours, when given, stands for both sets (as without a family)
            set_(self, "border_colours", self.border_colours or self.colours or (PEAK_RIM if like == "peak" else rim))
            if like == "peak" and self.inner_colours is None and self.colours is None:
                if self.width < 2 or self.height < 2:
                    raise UsageError(f"peak puzzles are framed boards of at least 2x2, got {self.width}x{self.height}")
                inner = peak_colours(self.width, self.height, self.border_colours)  # type: ignore[arg-type]
            set_(self, "inner_colours", self.inner_colours or self.colours or inner)
        elif self.colours is None:
            set_(self, "colours", _COLOURS[like])

    @property
    def border_count(self) -> int:
        return self.border_colours if self.border_colours is not None else self.colours  # type: ignore[return-value]

    @property
    def inner_count(self) -> int:
        return self.inner_colours if self.inner_colours is not None else self.colours  # type: ignore[return-value]

    @property
    def hint_cell(self) -> int:
        """The cell of the centre hint: row ``h//2``, column ``w//2 - 1`` (row 8, column 7 at 16x16)."""
        return self.height // 2 * self.width + max(0, self.width // 2 - 1)

    @property
    def name(self) -> str:
        """The generated puzzle's name: family, size and seed, e.g. ``clue 6x6 seed 3``."""
        attempt = f" attempt {self.attempt}" if self.attempt else ""
        return f"{self.like or 'planted'} {self.width}x{self.height} seed {self.seed}{attempt}"


def _is_rim_seam(cell: int, side: int, width: int, height: int) -> bool:
    """Whether the seam on ``side`` (E or S) of ``cell`` runs between two border cells along the rim."""
    row, col = divmod(cell, width)
    if side == E:
        return row in (0, height - 1)
    return col in (0, width - 1)


def _dealt(spec: GeneratorSpec, rng: random.Random) -> dict[bool, list[int]]:
    """E2: the colours of the rim seams and of the inner seams, each colour on an even share, shuffled."""
    w, h = spec.width, spec.height
    seams = {True: 0, False: 0}
    for cell in range(w * h):
        row, col = divmod(cell, w)
        if col < w - 1:
            seams[_is_rim_seam(cell, E, w, h)] += 1
        if row < h - 1:
            seams[_is_rim_seam(cell, S, w, h)] += 1
    rim = [1 + i % spec.border_count for i in range(seams[True])]
    inner = [spec.border_count + 1 + i % spec.inner_count for i in range(seams[False])]
    rng.shuffle(rim)
    rng.shuffle(inner)
    return {True: rim, False: inner}


def _planted_tiles(spec: GeneratorSpec, rng: random.Random) -> list[list[int]]:
    w, h = spec.width, spec.height
    edges = [[FRAME] * 4 if spec.framed else [0] * 4 for _ in range(w * h)]
    inner_base = spec.border_count if spec.framed else 0
    dealt = _dealt(spec, rng) if spec.like == "e2" else None
    low = 0 if spec.like == "tetravex" else 1  # Tetravex shows the digits 0-9

    def draw(rim: bool) -> int:
        if dealt is not None and spec.framed:
            colour = dealt[rim].pop()
        elif spec.framed and rim:
            colour = rng.randint(1, spec.border_count)
        elif spec.framed:
            colour = inner_base + rng.randint(1, spec.inner_count)
        else:
            colour = rng.randint(low, spec.colours + low - 1)  # type: ignore[operator]
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
        # a clue puzzle's inner tile (all four edges inner) may repeat its W and N edges on E and S
        symmetric = (spec.like == "clue" and 0 < row < h - 1 and 0 < col < w - 1
                     and rng.random() < CLUE_SYMMETRIC_SHARE)
        if col < w - 1:
            label = edges[cell][W] if symmetric else draw(_is_rim_seam(cell, E, w, h))
            edges[cell][E] = label
            edges[cell + 1][W] = -label if spec.rule == "signed" else label
        if row < h - 1:
            label = edges[cell][N] if symmetric else draw(_is_rim_seam(cell, S, w, h))
            edges[cell][S] = label
            edges[cell + w][N] = -label if spec.rule == "signed" else label
    return edges


def generate(spec: GeneratorSpec) -> tuple[Puzzle, Solution]:
    """A planted puzzle and its planted solution (shuffled and turned; always passes ``check``)."""
    rng = random.Random(spec.seed if not spec.attempt else f"{spec.seed} attempt {spec.attempt}")
    for _ in range(MAX_TRIES):
        board = _planted_tiles(spec, rng)
        if spec.duplicates or _all_different(board, spec.rotations):  # type: ignore[arg-type]
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
    hints = ((spec.hint_cell, *placement[spec.hint_cell]),) if spec.hint else ()
    puzzle = Puzzle(
        spec.width, spec.height, tuple(tiles), rule=spec.rule,  # type: ignore[arg-type]
        frame=FRAME if spec.framed else None, rotations=spec.rotations, hints=hints, name=spec.name,  # type: ignore[arg-type]
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
    for name, value in (("width", width), ("height", height), ("colours", colours)):
        check_setting(name, value, 0, MAX_COLOURS if name == "colours" else MAX_LABEL)
    check_setting("seed", seed, -MAX_LABEL)
    check_flag("rotations", rotations)
    if rule not in ("same", "signed"):
        raise UsageError(f"unknown rule {shown(rule)} (expected same or signed)")
    if width < 1 or height < 1 or colours < 1:
        raise UsageError("random tiles need a board of at least 1x1 and at least one colour")
    if width * height > MAX_TILES:
        raise UsageError(f"{width}x{height} is over {MAX_TILES:,} tiles: too large to generate")
    rng = random.Random(seed)
    values = [c * s for c in range(1, colours + 1) for s in ((1, -1) if rule == "signed" else (1,))]
    tiles = tuple(Tile(tuple(rng.choice(values) for _ in range(4))) for _ in range(width * height))  # type: ignore[arg-type]
    return Puzzle(width, height, tiles, rule=rule, rotations=rotations, name=f"random {width}x{height} seed {seed}")
