"""Best-score runs on Eternity II-like boards (run: python benchmarks/best_scores.py [--backends native]
[--size 16] [--seeds 1-10] [--limit 60] [--png docs/best-16x16.png] [--plot scores.png] [-O search=beam ...]).

Each run is a whole process, ``edgematch best FILE -b BACKEND --time-limit LIMIT --json --save F``, pinned to one core;
the board it saved is re-scored by edgematch's checker (a score that differs from the one it printed is an error: exit
1). Boards: ``GeneratorSpec(size, size, like="e2", hint=True, seed=s)``: 5 rim and 17 inner colours at 16x16 (scaled by
the side below), the centre hint at row 8, column 7. Prints a table per backend (score, breaks, improvements, the last,
the longest wait between two, nodes per second, the score each repair round reached, the rounds not repaired, what the
rounds' fresh beams left) and the mean; ``--png`` draws the best board of all runs, ``--plot`` every run's score over
time (a step line per run, a tick where its repair began and a ring at each fresh beam's round, from the runs'
``--json`` counters). The issue's yardstick: eternity2.dev's single-core 60 s benchmark on the real E2 pieces, where a
Verhaard-style backtracker scored a mean of 440.8 and a naive row-major one 365.6. The load average is printed before
and after: figures are only quotable on an idle machine."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import yardstick
from frontier import parse_seeds

import edgematch
from edgematch import GeneratorSpec, generate
from edgematch.solvers.native.best.stages import ROUND_STARTS, rounds_reached

GRACE = 15.0
TIME = Path("/usr/bin/time")  # GNU time: the peak RSS of each run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="native", help="comma-separated (default %(default)s)")
    parser.add_argument("--size", type=int, default=16, help="board side (default %(default)s)")
    parser.add_argument("--seeds", default="1-10", help="e.g. 1-10 or 1,3 (default %(default)s)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per run (default %(default)s)")
    parser.add_argument("--core", type=int, default=0, help="the core every run is pinned to (default 0)")
    parser.add_argument("--workers", type=int, default=1,
                        help="chains per run (best --workers N); above 1 the runs are not pinned (default 1)")
    parser.add_argument("--png", type=Path, help="draw the best board of all runs to this PNG")
    parser.add_argument("--plot", type=Path, help="draw every run's score over time to this PNG")
    parser.add_argument("-O", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="backend option passed to every run, repeatable (e.g. -O search=beam)")
    args = parser.parse_args()
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    print(f"before: {yardstick.load()}")
    extra = "".join(f" -O {o}" for o in args.option) + (f" --workers {args.workers}" if args.workers > 1 else "")
    core = args.core if args.workers == 1 else None
    where = f"one core (core {args.core})" if core is not None else f"{args.workers} chains, not pinned"
    print(f"edgematch best FILE -b BACKEND --time-limit {args.limit:g}{extra}; {args.size}x{args.size} E2-like "
          f"with the centre hint; {where}; seeds {args.seeds}", flush=True)
    failures = 0
    overall: tuple[int, edgematch.Puzzle, edgematch.Solution, str] | None = None
    curves: list[tuple[str, list, dict]] = []  # (label, history, counters) of every checked run
    with tempfile.TemporaryDirectory(prefix="best-") as tmp:
        folder = Path(tmp)
        for backend in backends:
            print(f"\n### {backend}\n\n| seed | score | breaks | improvements | last at | longest wait "
                  "| M nodes/s | after the beams | repair added | rounds: score x count | peak RSS |\n"
                  "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--|--:|", flush=True)
            scores = []
            for seed in parse_seeds(args.seeds):
                puzzle, _ = generate(GeneratorSpec(args.size, args.size, like="e2", hint=True, seed=seed))
                em_file = folder / f"e2-{args.size}-s{seed}.em"
                saved = em_file.with_suffix(f".{backend.replace(':', '-')}.emsol")
                edgematch.write_puzzle(puzzle, em_file)
                cmd = [*yardstick.edgematch_command(), "best", str(em_file), "-b", backend, "--time-limit",
                       f"{args.limit:g}", "--json", "--save", str(saved), *(x for o in args.option for x in ("-O", o)),
                       *(["--workers", str(args.workers)] if args.workers > 1 else [])]
                timer = ["/usr/bin/time", "-f", "%M", "-o", str(folder / "rss")] if TIME.exists() else []
                code, wall, _, out = yardstick.timed([*timer, *cmd], timeout=args.limit + GRACE, core=core)
                if code is None or not saved.exists():
                    print(f"| {seed} | {'killed' if code is None else f'exit {code}'} | | | | |", flush=True)
                    failures += code is not None and code != 3
                    continue
                data = json.loads(out)
                board = edgematch.read_solution(saved, puzzle=puzzle)
                verdict = edgematch.check(puzzle, board)
                if not verdict.admissible or verdict.score != data["score"]:
                    print(f"| {seed} | WRONG: printed {data['score']}, checker {verdict.score} | | | | |")
                    failures += 1
                    continue
                scores.append(verdict.score)
                rate = data["counters"].get("nodes_per_s") or data["counters"].get("nodes_per_second") or 0.0
                last = data["history"][-1][0] if data["history"] else 0.0
                c = data["counters"]
                beams = c.get("beam_score", "")
                added = f"+{c['repair_gain']}" if "repair_gain" in c else ""
                rss = (folder / "rss").read_text().split()[-1] if (folder / "rss").exists() else ""
                peak = f"{int(rss) / 1024:.0f} MiB" if rss.isdigit() else ""  # of the largest process (chains: one)
                times = [t for t, _ in data["history"]]
                reached = histogram(rounds_reached(c))
                if c.get("rounds_unrepaired"):  # rounds whose board was too far below the best to repair
                    reached += f"; {int(c['rounds_unrepaired'])} not repaired"
                started = rounds_reached(c, ROUND_STARTS)  # what the rounds' fresh beams left, repaired or not
                if started:
                    reached += f"; fresh beams {histogram(started)}"
                wait = max((b - a for a, b in zip(times, times[1:], strict=False)), default=0.0)  # up to the last one
                print(f"| {seed} | {verdict.score} | {verdict.breaks} | {len(data['history'])} | {last:.1f} s | "
                      f"{wait:.1f} s | {float(rate) / 1e6:.2f} | {beams} | {added} | {reached} | {peak} |",
                      flush=True)
                curves.append((f"{backend} seed {seed}", data["history"], c))
                if overall is None or verdict.score > overall[0]:
                    overall = (verdict.score, puzzle, board, f"{backend} seed {seed}")
            if scores:
                print(f"\n{backend}: mean {statistics.mean(scores):.1f}, min {min(scores)}, max {max(scores)} "
                      f"of {puzzle.seam_count} ({len(scores)} runs)", flush=True)
    if args.png is not None and overall is not None:
        from edgematch import render

        args.png.parent.mkdir(parents=True, exist_ok=True)
        args.png.write_bytes(render.render_png(overall[1], overall[2]))
        print(f"\nbest board: {overall[3]}, score {overall[0]}: {args.png}")
    if args.plot is not None and curves:
        where = "one core" if core is not None else f"{args.workers} chains"
        options = extra.replace(f" --workers {args.workers}", "")
        plot(curves, args.plot, args.limit,
             f"{args.size}x{args.size} E2-like, centre hint kept, {where}, {args.limit:g} s{options}")
        print(f"\nscore over time: {args.plot}")
    print(f"after: {yardstick.load()}")
    return 1 if failures else 0


def histogram(counts: dict[int, int]) -> str:
    """A rounds' histogram as the tables show it: ``459x3 460x5``, lowest score first."""
    return " ".join(f"{score}x{n}" for score, n in sorted(counts.items()))


def plot(curves: list[tuple[str, list, dict]], path: Path, limit: float, title: str) -> None:
    """Each run's best score against seconds (log), a step line per run; a tick where its repair began (counter
    ``repair_from``) and a ring at each improvement found in a later round (after a fresh beam)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    figure, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    for label, history, counters in curves:
        times = [max(t, 0.05) for t, _ in history]
        scores = [s for _, s in history]
        end = max(times[-1], limit)
        (line,) = ax.step([*times, end], [*scores, scores[-1]], where="post", lw=1.2, label=label)
        repair_from = counters.get("repair_from")
        if repair_from:
            at = max((s for t, s in history if t <= repair_from), default=scores[0])
            ax.plot([repair_from], [at], "|", ms=12, color=line.get_color())
        for t, s in history:
            if counters.get("rounds_from") and t >= counters["rounds_from"]:
                ax.plot([max(t, 0.05)], [s], "o", mfc="none", color=line.get_color())
    lows = [s for _, history, _ in curves for t, s in history if t >= 1]
    ax.set_ylim(min(lows, default=0) - 1, max(s for _, history, _ in curves for _, s in history) + 1)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.set_xlabel("seconds (log)")
    ax.set_ylabel("best score (seams that fit)")
    ax.set_title(f"{title}\n| repair began   o found after a fresh beam (stall)", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
