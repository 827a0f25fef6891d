"""The hard frontier table (run: python benchmarks/frontier.py [--backends auto,native] [--seeds 1-5] [--limit 60]).

First solution of planted framed n x n boards with isqrt(n) + 1 rim colours and c inner colours, for the cases 7x7
c7, 8x8 c8, 9x9 c8, 10x10 c5, 10x10 c7 and seeds 1-5: whole processes of ``edgematch solve FILE -b BACKEND
--time-limit 60`` for each backend asked for (default ``auto``), and of the plain C yardstick
(benchmarks/yardstick/backtrack.c, ``backtrack first FILE``, killed at 60 s), every process pinned to one core
(sched_setaffinity, as ``taskset -c 0``); with ``--workers N`` edgematch's runs take ``--workers N`` and the whole
machine, unpinned (the C yardstick, one core, is left out). A run counts as solved when it printed a solution that
passes edgematch's checker (edgematch's saved with --save, the C program's printed one) within the limit, wall
time of the whole process; edgematch's limit starts after its libraries load, so it may answer a little past 60 s
wall: such a run is listed as ``timeout*`` and counted unsolved. ``no solution`` on these planted boards is a
wrong answer (the script then exits 1). Prints one table per case (wall time or ``timeout`` per seed and program)
and a summary (solved k/5, median wall time with unsolved runs at the limit, ``>limit`` when the median is one).
Runs take up to the limit each (5 cases x 5 seeds x programs): hours with several backends. The load average is
printed before and after: figures are only quotable on an idle machine.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from pathlib import Path

import yardstick

import edgematch
from edgematch import GeneratorSpec, generate

CASES = [(7, 7), (8, 8), (9, 8), (10, 5), (10, 7)]  # (n, inner colours)
C_NAME = "C yardstick"
GRACE = 10.0  # edgematch runs are killed at limit + GRACE if they overrun their own limit


def planted(n: int, inner: int, seed: int) -> tuple[edgematch.Puzzle, edgematch.Solution]:
    """The frontier's board (a planted framed n x n with isqrt(n) + 1 rim colours and ``inner`` inner colours)
    and its planted solution."""
    spec = GeneratorSpec(n, n, framed=True, border_colours=math.isqrt(n) + 1, inner_colours=inner, seed=seed)
    return generate(spec)


def board(n: int, inner: int, seed: int) -> edgematch.Puzzle:
    """The frontier's board (:func:`planted` without its solution)."""
    return planted(n, inner, seed)[0]


def case_name(n: int, inner: int) -> str:
    return f"{n}x{n} c{inner}"


def parse_cases(text: str) -> list[tuple[int, int]]:
    """``7x7c7,10x10c5`` (or ``7:7,10:5``) -> [(7, 7), (10, 5)]."""
    out = []
    for item in text.split(","):
        item = item.strip().lower().replace(" ", "")
        if ":" in item:
            n, c = item.split(":")
        else:
            board, _, c = item.partition("c")
            n = board.split("x")[0]
        out.append((int(n), int(c)))
    return out


def parse_seeds(text: str) -> list[int]:
    """``1-5`` or ``1,3,7`` or ``1-3,9``."""
    seeds = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        seeds += range(int(lo), int(hi or lo) + 1)
    return seeds


def backend_args(backend: str) -> list[str]:
    """``-b NAME`` and an ``-O`` per option of a backend spelled as the bench does: ``native:dfs@values=rare``."""
    name, *options = backend.split("@")
    return ["-b", name, *(arg for option in options for arg in ("-O", option))]


def run_edgematch(backend: str, puzzle, em_file: Path, limit: float, core: int | None,
                  workers: int = 1) -> tuple[str, float | None]:
    """(verdict, wall): verdict 'solved', 'timeout', 'timeout*' (a checked answer after the limit), 'WRONG' or
    'error N'; wall is the whole process's seconds. ``workers`` > 1 adds ``--workers`` (``core`` None: unpinned)."""
    saved = em_file.with_suffix(f".{backend.replace(':', '-').replace('@', '-').replace('=', '-')}.emsol")
    saved.unlink(missing_ok=True)
    cmd = [*yardstick.edgematch_command(), "solve", str(em_file), *backend_args(backend), "--time-limit",
           f"{limit:g}", "--save", str(saved), *(["--workers", str(workers)] if workers > 1 else [])]
    code, wall, _, out = yardstick.timed(cmd, timeout=limit + GRACE, core=core)
    if code is None or code == 3:
        return "timeout", wall
    if code == 1:
        return "WRONG", wall  # "no solution" on a planted board
    if code != 0:
        return f"error {code}", wall
    if not edgematch.check(puzzle, edgematch.read_solution(saved, puzzle=puzzle)).ok:
        return "WRONG", wall
    return ("solved" if wall <= limit else "timeout*"), wall


def run_c(puzzle, c_file: Path, limit: float, core: int) -> tuple[str, float | None]:
    result = yardstick.run("first", c_file, timeout=limit, core=core)
    if result.returncode is None:
        return "timeout", result.wall
    if result.pairs is None or not yardstick.check_first(puzzle, result):
        return "WRONG", result.wall
    return ("solved" if result.wall <= limit else "timeout*"), result.wall


def shown(verdict: str, wall: float | None) -> str:
    return f"{wall:.2f} s" if verdict == "solved" else verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="auto", help="edgematch backends, comma-separated (default auto), "
                        "e.g. auto,native,native:restarts,cpsat:table; options after @: native:dfs@values=rare")
    parser.add_argument("--cases", default=",".join(f"{n}x{n}c{c}" for n, c in CASES),
                        help="NxNcC, comma-separated (default %(default)s)")
    parser.add_argument("--seeds", default="1-5", help="e.g. 1-5 or 1,3 (default %(default)s)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per run (default %(default)s)")
    parser.add_argument("--core", type=int, default=0, help="the one core every run is pinned to (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="edgematch's --workers; above 1 the runs are not "
                        "pinned (the whole machine each) and the C yardstick is left out (default 1)")
    parser.add_argument("--no-c", action="store_true", help="leave out the C yardstick")
    parser.add_argument("--selftest", action="store_true", help="only check the yardstick's counts against native")
    args = parser.parse_args()
    if args.selftest:
        return 0 if yardstick.selftest() else 1
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    programs = backends + ([] if args.no_c or args.workers > 1 else [C_NAME])
    core = args.core if args.workers == 1 else None
    where = f"one core (core {core})" if core is not None else f"--workers {args.workers}, unpinned"
    seeds = parse_seeds(args.seeds)
    cases = parse_cases(args.cases)

    print(f"before: {yardstick.load()}")
    if C_NAME in programs:
        print(f"C yardstick: {yardstick.binary()} ({yardstick.compiler()} {' '.join(yardstick.FLAGS)})")
    print(f"edgematch: {' '.join(yardstick.edgematch_command())} solve FILE -b BACKEND --time-limit {args.limit:g}; "
          f"{where}; seeds {args.seeds}", flush=True)
    results: dict[tuple[tuple[int, int], str], list[tuple[str, float | None]]] = {}
    wrong = []
    with tempfile.TemporaryDirectory(prefix="frontier-") as tmp:
        folder = Path(tmp)
        warm = generate(GeneratorSpec(4, 4, framed=True, border_colours=2, inner_colours=3, seed=1))[0]
        edgematch.write_puzzle(warm, folder / "warm.em")  # compiled code cached before anything is timed
        for backend in backends:
            yardstick.timed([*yardstick.edgematch_command(), "solve", str(folder / "warm.em"), *backend_args(backend)])
        for n, inner in cases:
            rim = math.isqrt(n) + 1
            print(f"\n### framed {n}x{n}, {rim} rim + {inner} inner colours ({case_name(n, inner)})\n")
            print("| seed | " + " | ".join(programs) + " |")
            print("|--:|" + "--:|" * len(programs), flush=True)
            for seed in seeds:
                puzzle = board(n, inner, seed)
                stem = folder / f"{n}x{n}-{rim}+{inner}-s{seed}"
                em_file = stem.with_suffix(".em")
                edgematch.write_puzzle(puzzle, em_file)
                c_file = yardstick.write_puzzle(puzzle, stem.with_suffix(".txt"))
                cells = []
                for program in programs:
                    if program == C_NAME:
                        verdict, wall = run_c(puzzle, c_file, args.limit, args.core)
                    else:
                        verdict, wall = run_edgematch(program, puzzle, em_file, args.limit, core, args.workers)
                    results.setdefault(((n, inner), program), []).append((verdict, wall))
                    if verdict == "WRONG" or verdict.startswith("error"):
                        wrong.append(f"{case_name(n, inner)} seed {seed} {program}: {verdict}")
                    cells.append(shown(verdict, wall))
                print(f"| {seed} | " + " | ".join(cells) + " |", flush=True)

    print(f"\n### summary: solved within {args.limit:g} s, median wall (unsolved at the limit)\n")
    print("| case | " + " | ".join(programs) + " |")
    print("|---|" + "--:|" * len(programs))
    for n, inner in cases:
        cells = []
        for program in programs:
            runs = results[((n, inner), program)]
            solved = sum(v == "solved" for v, _ in runs)
            median = statistics.median(w if v == "solved" else args.limit for v, w in runs)
            shown_median = f"{median:.2f} s" if median < args.limit else f">{args.limit:g} s"
            cells.append(f"{solved}/{len(runs)}, {shown_median}")
        print(f"| {case_name(n, inner)} | " + " | ".join(cells) + " |")
    if wrong:
        print("\nWRONG ANSWERS OR ERRORS:\n  " + "\n  ".join(wrong))
    print(f"\nafter: {yardstick.load()}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
