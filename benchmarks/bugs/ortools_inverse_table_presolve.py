"""OR-tools CP-SAT presolve bug: AddInverse together with AddAllowedAssignments loses solutions.

Standalone (OR-tools only) so it can be sent upstream as it is. The model places 16 square tiles on a 4x4
board (no rotation, "same colour touches same colour", no border constraint): one tile variable per cell
under AllDifferent, its inverse (tile -> cell), one label variable per inner seam shared by the two cells
that touch it, and one table per cell over (tile, seam labels). The puzzle has exactly one solution
(printed below and checked here by hand-written code); CP-SAT with presolve on says INFEASIBLE.

Seen with ortools 9.15.6755 (Python 3.11, Linux x86_64):
    presolve on : INFEASIBLE                    (wrong)
    presolve off: OPTIMAL, the known solution   (right)
    presolve on, without AddInverse: OPTIMAL    (right)
    presolve on, known solution as a hint with debug_crash_if_presolve_breaks_hint:
        CP-SAT aborts: "Presolve bug: model with feasible hint found UNSAT after presolve"

Run: python benchmarks/bugs/ortools_inverse_table_presolve.py   (exit 1 when the bug shows)
"""

import sys

import ortools
from ortools.sat.python import cp_model

# N E S W labels of the 16 tiles
TILES = [
    (4, 3, 2, 3), (5, 8, 3, 6), (5, 5, 8, 3), (6, 3, 4, 5), (4, 8, 5, 3), (5, 5, 4, 8), (4, 5, 5, 2), (6, 3, 3, 3),
    (7, 2, 1, 1), (1, 3, 8, 4), (5, 1, 1, 5), (7, 6, 5, 8), (3, 8, 7, 6), (2, 6, 6, 3), (3, 5, 4, 1), (1, 3, 6, 5),
]
W = H = 4
SOLUTION = [7, 4, 11, 1, 12, 5, 10, 14, 8, 6, 15, 0, 9, 2, 3, 13]  # tile per cell, row by row
N, E, S, WEST = range(4)


def is_solution(board: list[int]) -> bool:
    """Hand check: every tile once, every inner seam shows one label on both sides."""
    if sorted(board) != list(range(W * H)):
        return False
    for cell, tile in enumerate(board):
        row, col = divmod(cell, W)
        if col < W - 1 and TILES[tile][E] != TILES[board[cell + 1]][WEST]:
            return False
        if row < H - 1 and TILES[tile][S] != TILES[board[cell + W]][N]:
            return False
    return True


def build(inverse: bool = True) -> tuple[cp_model.CpModel, list[cp_model.IntVar], dict]:
    """The model, its tile variables, and the value of every variable in the known solution."""
    model = cp_model.CpModel()
    known = {}
    cells = range(W * H)
    tile = [model.new_int_var(0, W * H - 1, f"tile{c}") for c in cells]
    known.update(zip(tile, SOLUTION, strict=True))
    model.add_all_different(tile)
    if inverse:
        cell_of = [model.new_int_var(0, W * H - 1, f"cell{t}") for t in range(W * H)]
        model.add_inverse(tile, cell_of)
        known.update((cell_of[t], SOLUTION.index(t)) for t in range(W * H))
    labels = sorted({label for edges in TILES for label in edges})
    seam = {}  # (cell, side) -> the label variable shared by the two touching sides
    for c in cells:
        row, col = divmod(c, W)
        if col < W - 1:
            seam[c, E] = seam[c + 1, WEST] = model.new_int_var_from_domain(
                cp_model.Domain.from_values(labels), f"v{c}")
            known[seam[c, E]] = TILES[SOLUTION[c]][E]
        if row < H - 1:
            seam[c, S] = seam[c + W, N] = model.new_int_var_from_domain(
                cp_model.Domain.from_values(labels), f"h{c}")
            known[seam[c, S]] = TILES[SOLUTION[c]][S]
    for c in cells:
        sides = [s for s in range(4) if (c, s) in seam]
        rows = [[t, *(TILES[t][s] for s in sides)] for t in range(W * H)]
        model.add_allowed_assignments([tile[c], *(seam[c, s] for s in sides)], rows)
    return model, tile, known


def solve(presolve: bool = True, inverse: bool = True, hint: bool = False) -> str:
    model, tile, known = build(inverse)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.cp_model_presolve = presolve
    if hint:
        for var, value in known.items():
            model.add_hint(var, value)
        solver.parameters.debug_crash_if_presolve_breaks_hint = True
    status = solver.solve(model)
    name = solver.status_name(status)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        board = [solver.value(v) for v in tile]
        name += " (valid)" if is_solution(board) else " (INVALID board)"
    return name


def main() -> int:
    assert is_solution(SOLUTION)
    print(f"ortools {ortools.__version__}")
    on, off, no_inverse = solve(True), solve(False), solve(True, inverse=False)
    print(f"presolve on : {on}")
    print(f"presolve off: {off}")
    print(f"presolve on, without AddInverse: {no_inverse}")
    if "--hint" in sys.argv:  # aborts the process when the bug shows
        print(f"presolve on, with the solution as hint: {solve(True, hint=True)}")
    return 1 if on == "INFEASIBLE" else 0


if __name__ == "__main__":
    sys.exit(main())
