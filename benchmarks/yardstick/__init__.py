"""The C yardstick (``backtrack.c``, a plain C backtracker) from Python: compile it, write a puzzle in its
text format, run it as a whole process, and check it against the native backend (``selftest``).

Imported by ``benchmarks/native_vs_c.py`` and ``benchmarks/frontier.py`` (run from the repository root, the
script's folder ``benchmarks/`` is on ``sys.path``). The binary is built with ``gcc -O3 -march=native`` into
``benchmarks/yardstick/build/`` (gitignored), named by a hash of the source and the compile command, so an
edited source or another compiler gets a fresh build and a stale binary is never run.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import edgematch
from edgematch import GeneratorSpec, Puzzle, Solution, generate, random_tiles

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "backtrack.c"
BUILD = HERE / "build"
FLAGS = ["-O3", "-march=native", "-std=c11", "-Wall", "-Wextra"]


def edgematch_command() -> list[str]:
    """The edgematch command of this interpreter's environment (whole processes are timed)."""
    script = Path(sys.executable).with_name("edgematch")
    return [str(script)] if script.exists() else [sys.executable, "-m", "edgematch"]


def load() -> str:
    """The machine's load, printed before and after: figures are only quotable on an idle machine."""
    averages = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"load average {averages} (1/5/15 min) on {os.cpu_count()} cores"


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise SystemExit("the C yardstick needs gcc (or $CC): none found")
    return cc


def binary() -> Path:
    """The compiled yardstick, built first if missing or stale (source, compiler or flags changed)."""
    cc = compiler()
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    key = hashlib.sha256(SOURCE.read_bytes() + repr((cc, version, FLAGS)).encode()).hexdigest()[:16]
    exe = BUILD / f"backtrack-{key}"
    if exe.exists():
        return exe
    BUILD.mkdir(exist_ok=True)
    tmp = BUILD / f".backtrack-{key}.{os.getpid()}"
    done = subprocess.run([cc, *FLAGS, "-o", str(tmp), str(SOURCE)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"compiling {SOURCE} failed:\n{done.stderr}")
    tmp.replace(exe)  # atomic: a concurrent run never sees half a binary
    for old in BUILD.glob("backtrack-*"):
        if old != exe:
            old.unlink(missing_ok=True)
    return exe


def write_puzzle(puzzle: Puzzle, path: str | Path) -> Path:
    """``puzzle`` in the yardstick's format (see ``backtrack.c``): labels renumbered 0..L-1, the rule compiled
    to the partner table (a label whose partner no tile carries gets a spare label no tile shows)."""
    if puzzle.hints:
        raise ValueError("the C yardstick takes no hints")
    labels = sorted({x for tile in puzzle.tiles for x in tile.edges} | ({puzzle.frame} - {None}))
    index = {label: i for i, label in enumerate(labels)}
    spare = len(labels)
    partner = [index.get(puzzle.partner(label), spare) for label in labels]
    if spare in partner:
        partner.append(spare)
    frame = -1 if puzzle.frame is None else index[puzzle.frame]
    lines = [f"{puzzle.width} {puzzle.height} {int(puzzle.rotations)} {frame} {len(partner)}",
             " ".join(map(str, partner))]
    lines += [" ".join(str(index[x]) for x in tile.edges) for tile in puzzle.tiles]
    path = Path(path)
    path.write_text("\n".join(lines) + "\n")
    return path


@dataclass
class Run:
    """One whole process of the yardstick."""

    returncode: int | None  # None: killed at the time limit
    wall: float  # seconds, whole process, measured outside
    cpu: float  # user + system seconds of the child (getrusage deltas)
    solutions: int | None = None  # count mode
    pairs: list[tuple[int, int]] | None = None  # first mode: (tile, turn) per cell, row-major; None if none
    nodes: int | None = None
    seconds: float | None = None  # the search alone, measured inside

    @property
    def nodes_per_second(self) -> float | None:
        return self.nodes / self.seconds if self.nodes is not None and self.seconds else None


def children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(
    cmd: list[str], timeout: float | None = None, core: int | None = None
) -> tuple[int | None, float, float, str]:
    """Run ``cmd`` as a whole process (pinned to ``core`` if given): exit code (None if killed at ``timeout``),
    wall seconds, CPU seconds, stdout."""
    preexec = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
    env = dict(os.environ, COLUMNS="200")  # edgematch's summary table: no wrapping
    cpu0 = children_cpu()
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, preexec_fn=preexec, env=env)
        code, stdout = done.returncode, done.stdout
    except subprocess.TimeoutExpired as expired:  # subprocess.run killed and reaped it
        code = None
        stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else expired.stdout or ""
    wall = time.perf_counter() - start
    return code, wall, children_cpu() - cpu0, stdout


def run(mode: str, path: str | Path, timeout: float | None = None, core: int | None = None) -> Run:
    """The yardstick in ``count`` or ``first`` mode on a file written by :func:`write_puzzle`."""
    code, wall, cpu, out = timed([str(binary()), mode, str(path)], timeout, core)
    result = Run(code, wall, cpu)
    if code is None:
        return result
    if code not in (0, 1):
        raise RuntimeError(f"backtrack {mode} {path} exited {code}:\n{out}")
    fields = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    result.nodes = int(fields["nodes"])
    result.seconds = float(fields["seconds"])
    if mode == "count":
        result.solutions = int(fields["solutions"])
    elif fields["solution"] != "none":
        result.pairs = [(int(t), int(r)) for t, r in (p.split(":") for p in fields["solution"].split())]
    return result


def check_first(puzzle: Puzzle, c_run: Run) -> bool:
    """Whether the yardstick's first solution passes edgematch's checker."""
    return c_run.pairs is not None and edgematch.check(puzzle, Solution.from_pairs(puzzle, c_run.pairs)).ok


EDGEMATCH_COUNT = re.compile(r"^solutions\s+(at least\s+)?([\d,]+) raw", re.M)
EDGEMATCH_NODES = re.compile(r"^search\s+([\d,]+) nodes, ([\d.]+) M nodes/s", re.M)


def parse_edgematch(stdout: str) -> tuple[int | None, int | None, float | None]:
    """(raw count, nodes, nodes per second) from the summary ``edgematch count`` / ``solve`` prints."""
    count = EDGEMATCH_COUNT.search(stdout)
    search = EDGEMATCH_NODES.search(stdout)
    return (int(count.group(2).replace(",", "")) if count and not count.group(1) else None,
            int(search.group(1).replace(",", "")) if search else None,
            float(search.group(2)) * 1e6 if search else None)


SELFTEST = [  # (size, framed, colours or (border, inner), rule, rotations); few enough solutions to count at once
    (3, True, (2, 2), "same", True), (3, True, (2, 2), "signed", True), (4, True, (2, 3), "same", True),
    (4, True, (2, 3), "signed", True), (3, False, 4, "same", True), (3, False, 3, "signed", True),
    (4, False, 7, "same", True), (4, False, 5, "signed", True), (4, False, 5, "same", False),
]


def selftest_puzzles(n: int = 10, seed: int = 0) -> list[tuple[str, Puzzle]]:
    """``n`` small puzzles, 3x3 and 4x4: planted framed and unframed, same and signed, with and without
    turning (cycling through ``SELFTEST``), and every tenth a plain random signed set (the Arc experiment,
    often without a solution)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        s = rng.randrange(1_000_000)
        if i % 10 == 9:
            out.append((f"3x3 random signed 4 seed {s}", random_tiles(3, 3, 4, "signed", seed=s)))
            continue
        size, framed, colours, rule, rotations = SELFTEST[i % 10]
        if framed:
            spec = GeneratorSpec(size, size, framed=True, border_colours=colours[0], inner_colours=colours[1],
                                 rule=rule, rotations=rotations, seed=s)
            label = f"{size}x{size} framed {colours[0]}+{colours[1]} {rule}"
        else:
            spec = GeneratorSpec(size, size, colours=colours, rule=rule, rotations=rotations, seed=s)
            label = f"{size}x{size} unframed {colours} {rule}"
        out.append((label + ("" if rotations else " no-turn") + f" seed {s}", generate(spec)[0]))
    return out


def selftest(n: int = 10, seed: int = 0, limit: float = 30.0) -> bool:
    """The yardstick's raw count equals ``edgematch.count(p, backend="native").count`` on ``n`` small puzzles,
    and its first solution passes the checker. Prints one line per puzzle; True when all agree."""
    import tempfile

    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, puzzle) in enumerate(selftest_puzzles(n, seed)):
            path = write_puzzle(puzzle, Path(tmp) / f"selftest-{i}.txt")
            native = edgematch.count(puzzle, backend="native", time_limit=limit)
            counted = run("count", path, timeout=limit)
            first = run("first", path, timeout=limit)
            if native.status.value == "timeout" or counted.returncode is None or first.returncode is None:
                print(f"  {label:44} took over {limit:g} s: not a self-test case, skipped")
                ok = False
                continue
            agree = native.count == counted.solutions and (first.pairs is not None) == (counted.solutions > 0)
            valid = first.pairs is None or check_first(puzzle, first)
            ok &= agree and valid
            shown = "none" if first.pairs is None else "checked" if valid else "INVALID"
            print(f"  {label:44} native {native.count:>8,}  C {counted.solutions:>8,} raw ({counted.nodes:>9,} nodes)"
                  f"  C first solution: {shown:7}  {'ok' if agree and valid else 'MISMATCH'}", flush=True)
    print(f"selftest: {'all agree' if ok else 'MISMATCH'} ({n} puzzles)")
    return ok
