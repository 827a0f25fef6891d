"""What a Dask cluster costs on one machine (issue 17; run: python benchmarks/cluster_overhead.py).

(a) The smoke suite through ``edgematch bench smoke --cluster local:2`` against ``--jobs 2``: the same
    categories, statuses and counts per run, and the wall-time ratio (target <= 1.2). Measured twice: with
    ``local:2`` (the cluster is started and stopped inside the session, as a user trying it gets), and with a
    scheduler and two workers started beforehand by hand (``dask scheduler``, ``dask worker``) and warmed by one
    session, as on a real cluster that outlives a session.
(b) A framed board's full count: ``edgematch count FILE`` on one worker, ``--workers 2`` and ``--cluster
    local:2``: wall times of whole processes, identical counts.

The machine's load average is printed before and after: on a shared 2-core machine every figure moves with it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import edgematch
from edgematch.core.generator import GeneratorSpec, generate

BIN = Path(sys.executable).parent


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 3):
        sys.exit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, done.stdout


def runs(db: Path, session: int) -> dict[tuple[str, str], tuple[str, str, int | None]]:
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT instance, backend, category, status, count FROM runs WHERE session = ?", (session,))
        return {(i, b): (cat, st, n) for i, b, cat, st, n in rows}


def elapsed(db: Path, session: int) -> float:
    with sqlite3.connect(db) as c:
        return c.execute("SELECT elapsed FROM sessions WHERE id = ?", (session,)).fetchone()[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def smoke(repeats: int, sizes: str | None) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cluster-overhead-"))
    db = folder / "bench.sqlite"
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--port", str(port), "--no-dashboard"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    time.sleep(3)
    started.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nworkers", "2", "--nthreads", "1",
                                     "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True))
    time.sleep(5)
    try:
        base = [str(BIN / "edgematch"), "bench", "smoke", "--db", str(db), "--no-report",
                *(["--sizes", sizes, "--timeout", "10"] if sizes else [])]
        timed([*base, "--cluster", address])  # warm the standing workers (imports, compiled code): session 1
        session = 1
        figures: dict[str, list[tuple[float, float]]] = {"--jobs 2": [], "--cluster local:2": [],
                                                         "--cluster tcp:// (standing)": []}
        reference = None
        for _ in range(repeats):
            for label, extra in (("--jobs 2", ["--jobs", "2"]), ("--cluster local:2", ["--cluster", "local:2"]),
                                 ("--cluster tcp:// (standing)", ["--cluster", address])):
                wall, _ = timed([*base, *extra])
                session += 1
                figures[label].append((wall, elapsed(db, session)))
                got = runs(db, session)
                if reference is None:
                    reference = got
                elif got != reference:
                    diff = {k: (reference.get(k), got.get(k)) for k in set(reference) | set(got)
                            if reference.get(k) != got.get(k)}
                    print(f"  DIFFERENT runs under {label}: {diff}")
        suite = f"smoke suite at sizes {sizes}" if sizes else "smoke suite"
        print(f"(a) {suite}, {len(reference or {})} runs each, {repeats} repeats, load {load()}: "
              "categories, statuses and counts identical in every session" if reference else "(a) no runs")
        jobs = min(e for _, e in figures["--jobs 2"])
        for label, values in figures.items():
            best = min(e for _, e in values)
            print(f"  {label:<28} session {best:6.2f} s (min; all {', '.join(f'{e:.2f}' for _, e in values)}), "
                  f"process {min(w for w, _ in values):6.2f} s, ratio to --jobs 2: {best / jobs:.2f}")
    finally:
        for process in reversed(started):
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


def count(size: int, border: int, inner: int, seed: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cluster-count-"))
    board = folder / "board.em"
    puzzle, _ = generate(GeneratorSpec(size, size, framed=True, border_colours=border, inner_colours=inner, seed=seed))
    edgematch.write_puzzle(puzzle, board)
    print(f"(b) framed {size}x{size}, {border} border + {inner} inner colours, seed {seed}; load {load()}")
    counts = set()
    for label, extra in (("one worker", []), ("--workers 2", ["--workers", "2"]),
                         ("--cluster local:2", ["--cluster", "local:2"])):
        wall, out = timed([str(BIN / "edgematch"), "count", str(board), "--distinct", "--json", *extra])
        result = json.loads(out)
        counts.add((result["count"], result["distinct"]))
        nodes = result["counters"].get("nodes", 0)
        print(f"  {label:<18} {wall:7.2f} s  {result['count']:>12,} raw, {result['distinct']:>10,} distinct, "
              f"{nodes:>15,} nodes, {result['status']}  (load {load()})")
    print("  counts identical" if len(counts) == 1 else f"  COUNTS DIFFER: {counts}")
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=2, help="sessions per way of running the smoke suite")
    parser.add_argument("--board", default="7:3:7:7", help="SIZE:BORDER:INNER:SEED of the framed board to count")
    parser.add_argument("--sizes", help="run the smoke suite at these sizes (e.g. 5,6: longer runs), cutoff 10 s")
    parser.add_argument("--skip-smoke", action="store_true")
    parser.add_argument("--skip-count", action="store_true")
    args = parser.parse_args()
    print(f"load average before: {load()} on {os.cpu_count()} cores")
    if not args.skip_smoke:
        smoke(args.repeats, args.sizes)
    if not args.skip_count:
        size, border, inner, seed = (int(x) for x in re.split(r"[:x]", args.board))
        count(size, border, inner, seed)
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
