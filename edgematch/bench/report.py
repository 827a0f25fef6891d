"""Reports from the results database only (nothing is re-run): Markdown and one self-contained HTML page,
by default in ``reports/<database name>/session-N`` (:func:`report_folder`), each naming its database.

Both open with correctness (wrong answers first, then errors), then the headline table per backend
(solved/total, PAR2 with its cutoff, median, max, where it was fastest), then per size class, the plots
(HTML: inline SVG, so the page opens offline), the per-instance table and the environment.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgematch.bench import plots
from edgematch.bench.cluster import machine_notes, machine_rows
from edgematch.bench.scores import NO_BOARD_CAUSES, UNKNOWN_REGIME, boardless, clue_regimes
from edgematch.bench.store import Store
from edgematch.bench.summary import NOISE_SHARE, VIRTUAL_BEST, Stats, Summary, summarise
from edgematch.errors import EdgematchError, FormatError, MissingDependencyError, UsageError
from edgematch.formats.source import read_text, save, writable


@dataclass
class Written:
    markdown: Path
    html: Path | None
    problem: str | None = None  # why the HTML page was not written


def seconds(value: float | None) -> str:
    """A time for people: 0.4 ms, 12 ms, 1.23 s, 45.1 s, 2.0 min."""
    if value is None:
        return "–"
    if value < 1e-3:
        return f"{value * 1e3:.2f} ms"
    if value < 1:
        return f"{value * 1e3:.0f} ms" if value >= 0.1 else f"{value * 1e3:.1f} ms"
    if value < 100:
        return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"
    return f"{value / 60:.1f} min"


def pair(summary: Summary, wanted: tuple[str, str] | None = None) -> tuple[str, str] | None:
    """The two backends the scatter plot compares: those asked for, else the two best by PAR2."""
    if wanted:
        unknown = [b for b in wanted if b not in summary.backends]
        if unknown:
            raise UsageError(f"--scatter: no runs of {', '.join(unknown)} (backends: {', '.join(summary.backends)})")
        return wanted
    ranked = sorted(summary.backends, key=lambda b: summary.headline[b].par2)
    return (ranked[0], ranked[1]) if len(ranked) > 1 else None


def mib(value: float | None) -> str:
    """A memory figure for people: 57 MiB, 1.2 GiB."""
    if value is None:
        return "–"
    return f"{value / 1024:.1f} GiB" if value >= 1024 else f"{value:.0f} MiB"


def loads(environment: dict[str, Any]) -> list[float]:
    """Every 1-minute load average the session recorded: before and after each stretch of benching (a session
    stored without stretches: the one taken when it was made)."""
    stretches = environment.get("stretches") or []
    found = [load for s in stretches for load in (s.get("load_before"), s.get("load_after"))] if stretches \
        else [environment.get("load_before")]
    return [load[0] for load in found if load]


def load_text(environment: dict[str, Any]) -> str:
    """The 1-minute load average before -> after each stretch of benching, for the environment table."""
    stretches = environment.get("stretches") or []
    if not stretches:
        return ", ".join(f"{x:g}" for x in loads(environment)) or "not recorded"
    return "; ".join(f"{(s.get('load_before') or ['?'])[0]:g} -> {(s.get('load_after') or ['?'])[0]:g}"
                     for s in stretches)


def load_note(environment: dict[str, Any]) -> str | None:
    """The caveat when the load average rose above the cores, else None. The load average counts runnable
    processes on the whole machine, so it is weighed against all its cores; a bench pinned to fewer of them
    (taskset) is only told that the figure cannot say which cores were busy."""
    busiest = max(loads(environment), default=None)
    machine = environment.get("cores") or environment.get("usable_cores")
    usable = environment.get("usable_cores") or machine
    if busiest is None or not machine:
        return None
    if busiest > machine:
        pinned = f" (the bench was pinned to {usable} of them)" if usable < machine else ""
        return (f"The machine was busy: load average {busiest:g} against its {machine} cores{pinned} while "
                "benching. Other processes took CPU from the runs, so wall times are inflated; compare CPU times, "
                "or bench again on a quiet machine.")
    if busiest > usable:
        return (f"Load average {busiest:g} on the {machine}-core machine, the bench pinned to {usable} of them: "
                "the load average counts every core, so it does not say whether others shared the bench's; a "
                "single-process run whose CPU is close to its time had its core.")
    return None


def jobs_note(jobs: int, environment: dict[str, Any]) -> str:
    """The caveat of runs that went ``jobs`` at a time, weighed against the cores the bench could use (its CPU
    affinity, :func:`edgematch.solvers.parallel.processes.usable_cores`, as recorded), not the machine's: under
    ``taskset -c 1`` two runs shared one core."""
    usable, machine = environment.get("usable_cores"), environment.get("cores")
    usable = usable or machine
    if not usable:
        return (f"Runs went {jobs} at a time: their timings interfere (memory bandwidth, caches, turbo); "
                "compare with care.")
    cores = f"{usable} usable core{'s' if usable != 1 else ''}" + (
        f" (of the machine's {machine})" if machine and machine != usable else "")
    if jobs > usable:
        return (f"Runs went {jobs} at a time on {cores}: more runs than cores, so they took turns and each run's "
                "time includes waiting for a core; compare CPU times, or bench with --jobs "
                f"{usable} or fewer.")
    return (f"Runs went {jobs} at a time on {cores}: their timings interfere (memory bandwidth, caches, turbo); "
            "compare with care.")


def notes(summary: Summary) -> list[str]:
    """Caveats a reader must see next to the figures."""
    session, out = summary.session, []
    env = session.environment
    out += [f"Set on the command line: {note}." for note in session.suite.notes]
    if session.jobs > 1:
        out.append(jobs_note(session.jobs, env))
    busy = load_note(env)
    if busy:
        out.append(busy)
    for backend, why in (env.get("skipped") or {}).items():
        out.append(f"Skipped {backend}: {why}.")
    out += machine_notes(env)  # a session on a Dask cluster: its worker machines, and whether they differ
    if summary.missing:
        out.append(f"Incomplete session: {len(summary.every)} of {session.planned} runs stored "
                   f"(state {session.state}); `edgematch bench --resume` finishes it.")
    unknown = sum(1 for r in summary.every if not r.fingerprint)
    if unknown:
        out.append(f"{unknown} runs were stored before puzzles had fingerprints: which puzzle they solved is known "
                   "by name only.")
    if session.suite.repeat == 1:
        out.append("One run per cell: no spread is known, so a time differing by less than "
                   f"{NOISE_SHARE:.0%} is not marked faster. `edgematch bench --repeat 3` measures the spread.")
    elif summary.repeats == 1:
        out.append(f"Only the first of {session.suite.repeat} runs per cell is stored so far: no spread is known "
                   f"yet, so a time differing by less than {NOISE_SHARE:.0%} is not marked faster.")
    return out


def spread_text(summary: Summary, instance: str, backend: str) -> str:
    """``min–max (n runs)`` for a cell with repeats, else ""."""
    sp = summary.spread_of(instance, backend)
    if sp is None or sp.runs < 2:
        return ""
    solved = f"{sp.solved}/{sp.runs} solved, " if sp.solved < sp.runs else ""
    if sp.min is None:
        return f"{solved}{sp.runs} runs".strip(", ")
    return f"{solved}{seconds(sp.min)}–{seconds(sp.max)}"


CHOOSERS = ("Totals are PAR2 seconds summed over the runs (unsolved at twice the cutoff). The virtual best takes "
            "the fastest single backend per instance, which no chooser can know in advance; the worst size class "
            "is where the chooser lost most against the best single backend of that class.")


PER_FAMILY = ("Per family, the chooser's PAR2 total against the virtual best's over the family's instances, "
              "its worst instance (per-instance ratio, times floored at 10 ms), and 'missed': instances it left "
              "unsolved that some backend solved within a tenth of the cutoff. Judge it by its worst family.")


def confirmed_line(summary: Summary) -> str:
    """How many counts and "no solution" answers two independent backend families gave alike."""
    need, alone = len(summary.to_confirm), len(summary.unconfirmed)
    if not need:
        return "No count or \"no solution\" answer to confirm (solutions are proved by the checker)."
    head = "Confirmed by two independent families (native search, CP-SAT, SAT): "
    if not alone:
        return f"{head}all {need} counts and \"no solution\" answers (✓ in the runs table)."
    return (f"{head}{need - alone} of {need} counts and \"no solution\" answers (✓ in the runs table); "
            f"{alone} rest on one family's word.")


def tasks_text(suite: Any) -> str:
    """The session's tasks and cutoffs: ``task `first`, cutoff 10 s per run`` (families' own added)."""
    text = f"task `{suite.task}`, cutoff {suite.timeout:g} s per run"
    own = dict.fromkeys((i.family, suite.task_of(i), suite.timeout_of(i)) for i in suite.instances
                        if (suite.task_of(i), suite.timeout_of(i)) != (suite.task, suite.timeout))
    return text + "".join(f"; family {f}: task `{t}`, {c:g} s" for f, t, c in own)


def headline_rows(summary: Summary) -> list[tuple[str, Stats, int]]:
    return [(b, summary.headline[b], summary.fastest.get(b, 0)) for b in [*summary.backends, VIRTUAL_BEST]
            if b in summary.headline]


# -- Markdown ---------------------------------------------------------------------------------------------

# each plot's file beside the report, and what the Markdown report says of it
PLOT_FILES = {"scaling": "scaling.svg", "cactus": "cactus.svg", "scatter": "scatter.svg", "scores": "scores.svg"}
PLOT_CAPTIONS = {
    "scaling": "Scaling: per family of two sizes or more, the median time of a size where every run was solved "
               "(filled), the PAR2 figure where only some were (hollow, labelled solved/total), an x in the "
               "unsolved band where none was.",
    "cactus": "Cactus: instances solved against time per backend, with the virtual best.",
    "scatter": "Scatter: the two backends' times per instance (log axes; hollow: one left it unsolved).",
    "scores": "Best score over time: per size class and backend, the mean share of the maximum score over "
              "its runs; the axis starts at or below half the lowest final score, so a gap of a few points is "
              "drawn as a few points.",
}


def plot_lines(name: str, plots: dict[str, str] | None) -> list[str]:
    """The Markdown of one plot: its caption and its picture (the file beside the report), nothing when the
    plot has no file (nothing to show, or no matplotlib)."""
    if not plots or name not in plots:
        return []
    return ["", PLOT_CAPTIONS[name], "", f"![{name}]({plots[name]})"]


def markdown(summary: Summary, database: Path | None = None, plots: dict[str, str] | None = None,
             no_plots: str | None = None) -> str:
    """The Markdown report; ``database`` (the results file it comes from) is named under the title. ``plots``
    names each plot's file beside the report (:data:`PLOT_FILES`, as :func:`write_report` writes them; none
    by default: a picture is linked only where its file is); ``no_plots`` says why none was drawn."""
    plots = plots or {}
    s = summary.session
    lines = [f"# edgematch bench: session {s.id}, suite `{s.suite.name}`", ""]
    if database is not None:
        lines += [f"Database: `{database_text(database)}`, session {s.id}.", ""]
    if s.suite.description:
        lines += [s.suite.description, ""]
    repeats = f", each cell {s.suite.repeat} times" if s.suite.repeat > 1 else ""
    lines += [f"Started {s.started}; {len(summary.every)} runs of {s.planned} planned{repeats}; benching took "
              f"{seconds(s.elapsed)}; {tasks_text(s.suite)}.", ""]
    lines += [f"> {n}" for n in notes(summary)] + ([""] if notes(summary) else [])
    lines += ["## Correctness", ""]
    if summary.wrong:
        lines += [f"**{len(summary.wrong)} WRONG answer(s):**", ""]
        lines += [f"- `{r.instance}` {r.backend}: {r.message}" for r in summary.wrong]
    else:
        lines += [f"No wrong answers: {summary.checked} solutions passed the independent checker and every "
                  "verdict and count agrees across backends."]
    lines += ["", confirmed_line(summary)]
    if summary.errors:
        lines += ["", f"{len(summary.errors)} run(s) ended in an error:", ""]
        lines += [f"- `{r.instance}` {r.backend} ({r.termination}): {r.message}" for r in summary.errors]
    if no_plots:
        lines += ["", f"> No plots: {no_plots}."]
    if summary.runs:  # first/count runs: time figures (best runs have none: they end at the limit)
        lines += timed_sections(summary)
        if any(name in plots for name in ("scaling", "cactus", "scatter")):
            lines += ["", "## Plots"]
            for name in ("scaling", "cactus", "scatter"):
                lines += plot_lines(name, plots)
    if summary.scores:
        lines += score_sections(summary, plots.get("scores"))
    lines += ["", "## Runs", "", "| instance | backend | # | category | status | time | CPU | wall | peak RSS | "
              "count | ran | note |", "|---|---|---:|---|---|---:|---:|---:|---:|---:|---|---|"]
    for r in summary.every:
        count = "" if r.count is None else f"{r.count}" + ("" if r.distinct is None else f" / {r.distinct}")
        count = f"score {r.score}/{r.max_score}" if r.task == "best" and r.score is not None else count
        count += " ✓" if count and r.status == "solved" and (r.instance, r.task) in summary.confirmed else ""
        lines.append(f"| {r.instance} | {r.backend} | {r.repeat + 1} | {r.category} | {r.status} | "
                     f"{seconds(r.time)} | {seconds(r.cpu)} | {seconds(r.wall)} | {mib(r.peak_rss_mb)} | {count} | "
                     f"{r.ran} | {r.message.replace('|', '/')} |")
    lines += ["", "## Environment", ""] + [f"- {k}: {v}" for k, v in environment_rows(summary)]
    return "\n".join(lines) + "\n"


def timed_sections(summary: Summary) -> list[str]:
    """The Markdown sections of the first/count runs' times: headline, choosers, by size."""
    cutoff, lines = summary.cutoff, []
    lines += ["", "## Headline", "",
              f"PAR2: mean seconds per run, an unsolved run counting {2 * cutoff:g} s (twice the cutoff). "
              f"{TIMES}", "",
              "| backend | solved | PAR2 (s) | median | max | median CPU | peak RSS | fastest on | timeouts | errors "
              "| wrong |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for backend, st, fastest in headline_rows(summary):
        c = st.categories
        lines.append(f"| {backend} | {st.solved}/{st.total} | {st.par2:.3f} | {seconds(st.median)} | "
                     f"{seconds(st.max)} | {seconds(st.cpu)} | {mib(st.rss)} | "
                     f"{fastest if backend != VIRTUAL_BEST else '–'} | {c['timeout']} | {c['error']} | {c['wrong']} |")
    chosen = choices(summary)
    if chosen:
        lines += ["", "## What the choosers ran", "", "| backend | ran | runs |", "|---|---|---:|"]
        lines += [f"| {backend} | {ran} | {n} |" for backend, ran, n in chosen]
    against = summary.against()
    if against:
        lines += ["", "## Choosers against the best", "", CHOOSERS, "",
                  "| backend | total (s) | virtual best (s) | ratio | worst size class | its total (s) | "
                  "best single there | ratio |", "|---|---:|---:|---:|---|---:|---|---:|"]
        for a in against:
            lines.append(f"| {a.backend} | {a.total:.3f} | {a.best_total:.3f} | {a.ratio:.2f}x | "
                         f"{' '.join(a.worst_class)} | {a.worst_total:.3f} | {a.single} ({a.single_total:.3f} s) | "
                         f"{a.worst_ratio:.2f}x |")
    per_family = summary.per_family()
    if per_family:
        lines += ["", "## Choosers per family", "", PER_FAMILY, "",
                  "| backend | family | instances | total (s) | virtual best (s) | ratio | worst instance | ratio | "
                  "missed |", "|---|---|---:|---:|---:|---:|---|---:|---:|"]
        for f in per_family:
            lines.append(f"| {f.backend} | {f.family} | {f.instances} | {f.total:.3f} | {f.best_total:.3f} | "
                         f"{f.ratio:.2f}x | {f.worst_instance} | {f.worst:.1f}x | {f.missed} |")
    lines += ["", "## By size", "", "| family | board | backend | solved | median | max | PAR2 (s) |",
              "|---|---|---|---:|---:|---:|---:|"]
    for family, size in summary.classes:
        for backend in [*summary.backends, VIRTUAL_BEST]:
            st = summary.by_class.get((family, size, backend))
            if st:
                lines.append(f"| {family} | {size} | {backend} | {st.solved}/{st.total} | {seconds(st.median)} | "
                             f"{seconds(st.max)} | {st.par2:.3f} |")
    return lines


BEST = ("Best-score runs (task best): the checked score of the best board each run found within its time limit "
        "(inner seams that fit), its share of the maximum, runs proven optimal, and the median seconds to reach "
        "the run's final score. A run that hit the limit with a board is a correct answer, not a failure; times "
        "here are not PAR2 figures.")


REGIME = ("Clue regime (the hints every board of the family kept; the community compares scores only within one "
          "regime)")


def regimes(summary: Summary) -> dict[str, str]:
    """The clue regime of each best family and size class (see :func:`edgematch.bench.scores.clue_regimes`)."""
    return clue_regimes(summary.scores.runs, summary.session.suite.instances) if summary.scores else {}


def regime_line(summary: Summary) -> str:
    """One sentence naming each best family's clue regime."""
    sc, found = summary.scores, regimes(summary)
    families = list(dict.fromkeys(family for family, _ in sc.classes)) if sc else []
    return f"{REGIME}: " + "; ".join(f"{family}: {found.get(family, UNKNOWN_REGIME)}" for family in families) + "."


NO_BOARD = ("Runs without a board (the table's mean, min and max are over the runs with one; a row of 0 boards "
            "is these runs)")


def boardless_lines(summary: Summary) -> list[str]:
    """One sentence per backend and size class whose best runs ended without a board, saying why with
    counts (``e2-best 8x8, native: 3 of 3 runs had no board: 3 killed at the time limit before reporting a
    board``): a bare 0 in the boards column would read as a search that found nothing."""
    if not summary.scores:
        return []
    return [f"{b.family} {b.size}, {b.backend}: {b.missing} of {b.runs} run{'s' if b.runs != 1 else ''} had no "
            f"board: " + ", ".join(f"{n} {NO_BOARD_CAUSES[cause]}" for cause, n in b.causes.items())
            for b in boardless(summary.scores)]


def score_sections(summary: Summary, plot: str | None = "scores.svg") -> list[str]:
    """The Markdown sections of the best-score runs: each family's clue regime, scores per backend and size,
    the best board per instance, and (``plot``) the score-over-time plot's file beside the report."""
    sc = summary.scores
    assert sc is not None
    found = regimes(summary)
    lines = ["", "## Best scores", "", BEST, "", regime_line(summary), "",
             "| family | board | hints | backend | runs | boards | mean | min | max | of | mean share | proven | "
             "reached (median) |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for family, size in sc.classes:
        for backend in sc.backends:
            st = sc.by_class.get((family, size, backend))
            if st:
                lines.append(f"| {family} | {size} | {found.get(f'{family}/{size}', UNKNOWN_REGIME)} | {backend} | "
                             f"{st.runs} | {st.boards} | {number(st.mean)} | "
                             f"{number(st.min)} | {number(st.max)} | {number(st.max_score)} | {share(st.share)} | "
                             f"{st.proven} | {seconds(st.reached)} |")
    missing = boardless_lines(summary)
    if missing:
        lines += ["", f"**{NO_BOARD}:**", ""] + [f"- {line}." for line in missing]
    lines += ["", "Best board per instance (ties share):", "", "| instance | best score | of | backends | proven |",
              "|---|---:|---:|---|---|"]
    for w in sc.winners:
        lines.append(f"| {w.instance} | {number(w.score)} | {number(w.max_score)} | {', '.join(w.backends) or '–'} "
                     f"| {'yes' if w.proven else ''} |")
    lines += ["", "Instances with the best board: " + (", ".join(f"{b} {sc.wins.get(b, 0)}" for b in sc.backends)
                                                       or "none") + "."]
    if plot:
        lines += plot_lines("scores", {"scores": plot})
    return lines


def number(value: float | None) -> str:
    """A score figure: whole numbers as they are, means to one decimal, ``–`` for none."""
    if value is None:
        return "–"
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def share(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def best_limit(summary: Summary) -> float:
    """The longest time limit of the session's best runs (where their score lines end in the plot)."""
    suite = summary.session.suite
    limits = [suite.timeout_of(i) for i in suite.instances if suite.task_of(i) == "best"]
    return max(limits, default=suite.timeout)


TIMES = ("Times are the backend call in its own process (no start-up or imports); CPU is user + system time of "
         "the run's processes over the same call (above the time: several cores busy); peak RSS is the most resident "
         "memory the run's processes held together, the harness's loaded libraries included (runs are forked "
         "from it). With repeats, each cell's time is the median of its runs.")


def choices(summary: Summary) -> list[tuple[str, str, int]]:
    """(meta backend, what it ran, in how many runs), from every stored run."""
    counted = Counter((r.backend, r.ran) for r in summary.every if r.ran)
    return [(backend, ran, n) for (backend, ran), n in sorted(counted.items(), key=lambda x: (x[0][0], -x[1]))]


def environment_rows(summary: Summary) -> list[tuple[str, str]]:
    env = summary.session.environment
    rows = [("CPU", f"{env.get('cpu')} ({env.get('cores')} cores, {env.get('usable_cores')} usable)"),
            ("frequency governor", str(env.get("governor") or "not readable")),
            ("load average (1 min, before -> after)", load_text(env)),
            ("memory", f"{env.get('memory_gb')} GiB"), ("OS", str(env.get("os"))),
            ("Python", f"{env.get('python')} ({env.get('implementation')})")]
    rows += [(name, str(version or "not installed")) for name, version in (env.get("packages") or {}).items()]
    if env.get("c_kernel"):
        rows.append(("native C kernel built by", str(env["c_kernel"])))
    setup = env.get("setup_seconds") or {}
    if setup:  # loading each backend's libraries and compiled code once, before any run forked (in no run's time)
        rows.append(("loaded before the runs", ", ".join(f"{name} {s:.1f} s" for name, s in setup.items())))
    rows += [("commit", str(env.get("commit") or "not a git checkout")),
             ("session", f"{summary.session.id}: {summary.session.source}, jobs {summary.session.jobs}")]
    rows += machine_rows(env)  # the worker machines of a session run on a Dask cluster
    return rows


# -- HTML -------------------------------------------------------------------------------------------------

def heat(st: Stats | None, cutoff: float) -> str:
    """A background colour for a size-class cell: green (fast) through amber to red (unsolved)."""
    if st is None:
        return "transparent"
    if st.solved == 0:
        return "hsl(0 70% 85%)"
    low, high = math.log10(1e-3), math.log10(2 * cutoff)
    where = (math.log10(max(st.par2, 1e-3)) - low) / (high - low)
    return f"hsl({120 * (1 - min(max(where, 0.0), 1.0)):.0f} 60% 86%)"


def html(summary: Summary, scatter: tuple[str, str] | None = None, database: Path | None = None,
         drawn: dict[str, str | None] | None = None) -> str:
    """The self-contained HTML page (plots inline as SVG); ``database`` is named in its header. ``drawn`` is
    :func:`figure_svgs` of ``summary`` and ``scatter`` when the caller has it already (it is drawn otherwise):
    each figure is drawn once per report."""
    try:
        import jinja2
    except ImportError:
        raise MissingDependencyError("the HTML report needs jinja2: pip install 'edgematch[report]'") from None
    environment = jinja2.Environment(loader=jinja2.PackageLoader("edgematch.bench", "templates"),
                                     autoescape=True, trim_blocks=True, lstrip_blocks=True)
    environment.filters["md"] = inline_markdown
    chosen = pair(summary, scatter) if summary.runs else None
    if drawn is None:
        drawn = figure_svgs(summary, chosen)
    _, single = plots.multi_size_families(summary)
    return environment.get_template("report.html.j2").render(
        s=summary, session=summary.session, notes=notes(summary), headline=headline_rows(summary),
        figures=drawn, pair=chosen,
        single_size=single if summary.runs else [], database=database_text(database),
        environment=environment_rows(summary), seconds=seconds, heat=heat, mib=mib,
        spread_text=spread_text, choices=choices(summary), TIMES=TIMES,
        columns=[*summary.backends, VIRTUAL_BEST], VIRTUAL_BEST=VIRTUAL_BEST, against=summary.against(),
        per_family=summary.per_family(), PER_FAMILY=PER_FAMILY,
        CHOOSERS=CHOOSERS, confirmed=confirmed_line(summary), tasks=tasks_text(summary.session.suite),
        sc=summary.scores, BEST=BEST, number=number, share=share, regimes=regimes(summary) if summary.scores else {},
        regime_line=regime_line(summary) if summary.scores else "", UNKNOWN_REGIME=UNKNOWN_REGIME,
        boardless=boardless_lines(summary), NO_BOARD=NO_BOARD,
    )


def figures(summary: Summary, scatter: tuple[str, str] | None = None) -> dict[str, Any]:
    """The report's matplotlib figures by name (None where a plot has nothing to show), drawn with one
    backend -> style table so a backend looks the same in every plot."""
    style = plots.report_styles(summary)
    return {"scaling": plots.scaling_figure(summary, style) if summary.runs else None,
            "cactus": plots.cactus_figure(summary, style) if summary.runs else None,
            "scatter": plots.scatter_figure(summary, *scatter) if scatter and summary.runs else None,
            "scores": score_figure(summary, style)}


def figure_svgs(summary: Summary, scatter: tuple[str, str] | None = None) -> dict[str, str | None]:
    """:func:`figures` as inline SVG text by name (None where a plot has nothing to show)."""
    return {name: plots.svg(f) if f is not None else None for name, f in figures(summary, scatter).items()}


def score_figure(summary: Summary, style: dict[str, plots.Style] | None = None) -> Any | None:
    """The score-over-time figure of the session's best runs, None without any."""
    if not summary.scores or not summary.scores.classes:
        return None
    return plots.scores_figure(summary.scores, best_limit(summary), style or plots.report_styles(summary),
                               regimes(summary))


_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


def inline_markdown(text: object) -> Any:
    """The few Markdown constructs the report's text uses (`code`, **bold**) as HTML, everything else
    escaped: the page shows what the Markdown report means, never markup from a note or a run's message."""
    from markupsafe import Markup, escape

    escaped = str(escape("" if text is None else str(text)))
    escaped = _CODE.sub(r"<code>\1</code>", escaped)
    return Markup(_BOLD.sub(r"<strong>\1</strong>", escaped))


def report_folder(database: Path, session: int, root: Path = Path("reports")) -> Path:
    """Where the report of ``session`` in ``database`` goes by default: ``reports/<database name>/session-N``
    (``reports/bench/session-1`` for bench.sqlite), so databases never share a folder."""
    name = Path(database).name
    stem = Path(database).stem if Path(database).suffix else name
    return root / (stem or name or "bench") / f"session-{session}"


def database_text(database: Path | None) -> str | None:
    """The database as the report names it: its absolute path (None: not known)."""
    return None if database is None else str(Path(database).resolve())


_NAMED = re.compile(r"^Database: `(?P<path>.*)`, session (?P<session>\d+)\.$", re.MULTILINE)


def named_database(folder: Path) -> str | None:
    """The database a report already in ``folder`` names (None: no report there, one that names none, or a
    ``report.md`` that cannot be read as a report: a named pipe is not waited on, an oversize file is refused
    unread, as every input edgematch reads)."""
    try:
        text = read_text(folder / "report.md", "report")[:4000]
    except EdgematchError:
        return None
    found = _NAMED.search(text)
    return found["path"] if found else None


def write_report(store: Store, session: int | None = None, out: Path | None = None,
                 scatter: tuple[str, str] | None = None) -> Written:
    """Write ``report.md`` and ``report.html`` for a stored session into ``out`` (default
    :func:`report_folder`: reports/<database name>/session-N). A default folder holding the report of another
    database of the same name is not overwritten (UsageError: give ``out``)."""
    found = store.session(session)
    summary = summarise(found, store.runs(found.id))
    if not summary.every:
        raise UsageError(f"{store.path}: session {found.id} has no finished runs to report")
    database = Path(store.path)
    if out is None:
        out = report_folder(database, found.id)
        other = named_database(out)
        if other is not None and other != database_text(database):
            raise UsageError(f"{out} holds the report of session {found.id} of another database ({other}); "
                             "give the report a folder of its own with -o FOLDER")
    if out.exists() and not out.is_dir():
        raise FormatError("not a folder: the report is written into a folder (report.md, report.html)", out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FormatError(f"cannot make the report folder: {exc.strerror or exc}", out) from None
    for name in ("report.md", "report.html", *PLOT_FILES.values()):  # a path that would be refused (a link, a
        writable(out / name)  # pipe, a folder there) is refused now: before seconds of drawing and any file written
    written = Written(out / "report.md", None)
    try:
        drawn = figure_svgs(summary, pair(summary, scatter) if summary.runs else None)  # once: files and page
    except MissingDependencyError as exc:
        written.problem = str(exc)
        save(written.markdown, markdown(summary, database, {}, str(exc)))
        return written
    files = {name: PLOT_FILES[name] for name, picture in drawn.items() if picture is not None}
    for name, file in files.items():  # each plot a file beside report.md, which shows them all
        save(out / file, drawn[name])
    save(written.markdown, markdown(summary, database, files))
    try:
        page = html(summary, scatter, database, drawn)
    except MissingDependencyError as exc:
        written.problem = str(exc)
    else:
        written.html = out / "report.html"
        save(written.html, page)
    return written
