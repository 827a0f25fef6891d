"""Counts with and without the memo, and the estimate beside each (run: python benchmarks/counts.py
[--seeds 1-5] [--limit 600] [--core 1] [--wide]).

Boards: Eternity II clue puzzle 3 (tests/data/e2-clue3.json, published count 2,195,647,488 raw) and
``--like clue`` 6x6 boards (seeds 1-5); with ``--wide`` also ``--like clue`` 12x6 boards, estimated and counted
within the limit (the estimate says how far out of reach they are). Each count is a whole process of
``edgematch count FILE --distinct --json -O memo=auto|off`` pinned to one core, killed at limit + 10 s; peak
memory is the process's maximum resident set (``/usr/bin/time -f %M`` when present). The estimate is
``edgematch count FILE --estimate --json`` (about 1 s). Prints a table per board and the speed-up of the memo
on the boards both finish; the load average before and after (figures are only quotable on an idle machine).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yardstick

import edgematch
from edgematch import GeneratorSpec, generate

CLUE3 = Path(__file__).resolve().parents[1] / "tests" / "data" / "e2-clue3.json"
GRACE = 10.0


def run(args: list[str], limit: float, core: int) -> tuple[dict | None, float, int | None]:
    """The JSON a command printed (None if it printed none), its wall seconds and peak memory in KiB."""
    timer = shutil.which("time") and Path("/usr/bin/time").exists()
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        cmd = (["/usr/bin/time", "-f", "%M", "-o", rss.name] if timer else []) + args
        start = time.perf_counter()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + GRACE,
                                  preexec_fn=lambda: os.sched_setaffinity(0, {core}))
            out = done.stdout
        except subprocess.TimeoutExpired:
            out = ""
        wall = time.perf_counter() - start
        text = Path(rss.name).read_text().strip() if timer else ""
    try:
        data = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        data = None
    return data, wall, int(text.splitlines()[-1]) if text and text.splitlines()[-1].isdigit() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per count (default %(default)s)")
    parser.add_argument("--core", type=int, default=0, help="the core every run is pinned to (default 0)")
    parser.add_argument("--wide", action="store_true", help="also the --like clue 12x6 boards")
    args = parser.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    em = yardstick.edgematch_command()
    print(f"before: {yardstick.load()}; one core (core {args.core}); limit {args.limit:g} s", flush=True)
    wrong = []
    speedups = []
    with tempfile.TemporaryDirectory(prefix="counts-") as tmp:
        boards = [("clue puzzle 3", CLUE3, 2_195_647_488)]
        shapes = [(6, 6)] + ([(12, 6)] if args.wide else [])
        for w, h in shapes:
            for seed in seeds:
                path = Path(tmp) / f"clue{w}x{h}-s{seed}.em"
                edgematch.write_puzzle(generate(GeneratorSpec(w, h, like="clue", seed=seed))[0], path)
                boards.append((f"--like clue {w}x{h} seed {seed}", path, None))
        print("\n| board | memo | status | raw | distinct | nodes | memo hits | wall | peak RSS |")
        print("|---|---|---|--:|--:|--:|--:|--:|--:|", flush=True)
        notes = []
        for name, path, published in boards:
            walls = {}
            counts = set()
            for memo in ("auto", "off"):
                data, wall, rss = run([*em, "count", str(path), "--distinct", "--json", "-t", str(args.limit),
                                       "-O", f"memo={memo}"], args.limit, args.core)
                if data is None:
                    print(f"| {name} | {memo} | killed | | | | | {wall:.2f} s | |", flush=True)
                    continue
                c = data.get("counters", {})
                status = data["status"]
                if status == "solved":
                    walls[memo] = wall
                    counts.add((data["count"], data["distinct"]))
                    if published is not None and data["count"] != published:
                        wrong.append(f"{name} memo={memo}: {data['count']} raw, published {published}")
                shown_rss = f"{rss / 1024:.0f} MiB" if rss else "?"
                print(f"| {name} | {memo} | {status} | {data.get('count') or 0:,} | {data.get('distinct') or 0:,} | "
                      f"{c.get('nodes', 0):,} | {c.get('memo_hits', 0):,} | {wall:.2f} s | {shown_rss} |", flush=True)
            if len(counts) > 1:
                wrong.append(f"{name}: memo on and off disagree: {sorted(counts)}")
            if len(walls) == 2:
                speedups.append((name, walls["off"] / walls["auto"]))
            guess, _, _ = run([*em, "count", str(path), "--estimate", "--json"], 30, args.core)
            if guess is not None:
                truth = next(iter(counts))[0] if len(counts) == 1 else None
                ratio = f", {guess['raw'] / truth:.2f}x the count" if truth else ""
                notes.append(f"- {name}: estimate {guess['raw']:.3g} raw{ratio}, tree {guess['nodes']:.3g} nodes, "
                             f"about {guess['seconds']:.3g} s to count plainly ({guess['elapsed']:.2f} s)")
        print("\nestimates (count --estimate):")
        print("\n".join(notes))
        if speedups:
            print("\nmemo speed-up (plain wall / memo wall): " +
                  ", ".join(f"{n} {s:.2f}x" for n, s in speedups))
    if wrong:
        print("\nWRONG:\n  " + "\n  ".join(wrong))
    print(f"\nafter: {yardstick.load()}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
