"""Deriving the ``auto`` policy from stored bench sessions (written to the user's policy file, or ``--output``;
never to the package's shipped ``edgematch/solvers/policy.toml``).

Per question, puzzle kind (framed or not, same or signed) and board size, the backend with the lowest PAR2
wins. When racing it against another (a portfolio: per instance the faster of the two, on separate cores,
plus what starting and stopping the members costs) would cut PAR2 by a fifth or more, the rule is that
portfolio instead: backends whose times are heavy-tailed in different places make good pairs. A size
class whose best backend is within 10% or 5 ms of the choice of the size below keeps that choice
(timings of a few milliseconds differ by that much between runs), so rules do not flip on noise. Neighbouring sizes
with the same choice merge into one rule. Meta-backends (auto, portfolio) in the sessions are ignored:
the policy is built from single backends only. Each rule also names ``confirm``: the fastest backend of
another family than the choice's (native search, CP-SAT, SAT), the second opinion ``--confirm`` asks.

Question ``best`` (from sessions with best-score runs): per kind and size the backend with the highest mean
checked score wins (a run without a board scores 0), ties going to the one that reached its scores soonest
(median seconds to its final score), then to the name; no portfolio rule and no second opinion (every board is
checked). Its evidence names every backend's mean, its runs, the seconds a run had and the boards' clue regime.

The file names its sources: ``[source]`` for the whole file, and ``[source.QUESTION]`` for a question whose
rules come from other sessions than the file's (``auto --explain`` cites the one of the question asked). With
``keep`` (a policy already written, e.g. the shipped one), the rules of the questions the sessions did not
measure are carried over with their sources, so measuring ``best`` alone does not drop the ``first`` rules.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from edgematch.bench.runner import RunRecord
from edgematch.bench.scores import puzzle_hints
from edgematch.bench.store import Session, Store
from edgematch.bench.suite import Instance
from edgematch.bench.summary import FamilyRatio, cells, family_ratio, score
from edgematch.errors import UsageError
from edgematch.solvers.base import base_spec, is_meta
from edgematch.solvers.confirm import family
from edgematch.solvers.policy import Policy, features, regime

DEFAULT = "native"  # the policy's choice where nothing was measured
PORTFOLIO_GAIN = 1.25  # a portfolio rule needs PAR2 at least this many times lower than the best single backend
RACE_SECONDS = 0.02  # a portfolio call's own cost: forking members with the libraries loaded, stopping the loser
TIE = 1.10  # a size class keeps the choice of the size below unless the best is this many times faster
TIE_SECONDS = 0.005  # ... or faster by more than this per run (below it: noise beside a 0.3 s process start)
KIND_KEYS = ("question", "framed", "rule", "rotations", "rim_tight")


_kinds_seen: dict[Instance, tuple[tuple[Any, ...], tuple[Any, ...]]] = {}


def _kinds(instance: Instance) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The instance's pooled kind (framed, rule) and fine kind (framed, rule, rotations, rim_tight)."""
    if instance not in _kinds_seen:
        f = features(instance.puzzle(), "first")
        _kinds_seen[instance] = (f.framed, f.rule), (f.framed, f.rule, f.rotations, f.rim_tight)
    return _kinds_seen[instance]


def derive(sessions: list[tuple[Session, list[RunRecord]]], leave_out: str | None = None) -> list[dict[str, Any]]:
    """Rules (as plain dicts, in the policy file's shape) from the sessions' runs: pooled rules per kind
    (every family of it together: what a puzzle of an unmeasured finer kind takes) and fine rules per
    finer kind (rotations, rim_tight). ``leave_out`` drops one family's runs (for cross-validation)."""
    groups: dict[tuple[Any, ...], list[RunRecord]] = defaultdict(list)
    cutoffs: dict[tuple[Any, ...], float] = {}
    limits: dict[tuple[Any, ...], set[float]] = defaultdict(set)  # best: the runs' seconds
    hints: dict[tuple[Any, ...], set[int | None]] = defaultdict(set)  # best: the boards' hint counts
    sizes: dict[tuple[Any, ...], set[str]] = defaultdict(set)
    for session, runs in sessions:
        mine = {i.key: i for i in session.suite.instances if i.family != leave_out}
        kinds = {key: _kinds(i) for key, i in mine.items()}
        for run in runs:
            if is_meta(run.backend) or run.instance not in kinds:
                continue
            for kind in kinds[run.instance]:
                key = (run.task, len(kind) > 2, *kind, run.tiles)
                groups[key].append(run)
                cutoffs[key] = session.suite.timeout
                sizes[key].add(run.size)
                if run.task == "best":
                    limits[key].add(session.suite.timeout_of(mine[run.instance]))
                    hints[key].add(puzzle_hints(mine[run.instance], run.fingerprint))
    rules: list[dict[str, Any]] = []
    for key in sorted(groups):
        task, fine, framed, rule, *extra, tiles = key
        kind = {"question": task, "framed": framed, "rule": rule}
        if fine:
            kind |= {"rotations": extra[0]} | ({"rim_tight": extra[1]} if framed else {})
        previous = rules[-1] if rules else None
        same_kind = previous is not None and {k: previous.get(k) for k in KIND_KEYS} == \
            {k: kind.get(k) for k in KIND_KEYS}
        if task == "best":
            said = " or ".join(regime(h) for h in sorted(hints[key], key=lambda h: (h is None, h or 0)))
            choice, evidence, second = *_choose_best(groups[key], limits[key], said), None
        else:
            choice, evidence = _choose(groups[key], cutoffs[key], previous["backend"] if same_kind else DEFAULT)
            second = _second_opinion(groups[key], cutoffs[key], choice) or (
                previous.get("confirm") if same_kind else None)
        if same_kind and previous["backend"] == choice and previous.get("confirm") == second:
            previous["up_to_tiles"] = tiles
            previous["evidence"] += f"; {'/'.join(sorted(sizes[key]))}: {evidence}"
            continue
        rules.append(kind | {"up_to_tiles": tiles, "backend": choice,
                             "evidence": f"{'/'.join(sorted(sizes[key]))}: {evidence}"}
                     | ({"confirm": second} if second else {}))
    return rules


@dataclass(frozen=True)
class FamilyFit(FamilyRatio):
    """How ``auto`` (rules derived without this family, when cross-validating) does on one family, and
    what it chose there."""

    choices: dict[str, int] = field(default_factory=dict)


def fit(sessions: list[tuple[Session, list[RunRecord]]], cross: bool = True) -> list[FamilyFit]:
    """Per family, auto's choice per instance (from rules derived without that family when ``cross``, else
    from all the data) against the virtual best single backend, by PAR2."""
    out = []
    families = sorted({i.family for session, _ in sessions for i in session.suite.instances})
    everything = None if cross else Policy({}, DEFAULT, derive(sessions))
    for name in families:
        policy = everything or Policy({}, DEFAULT, derive(sessions, leave_out=name))
        rows: list[tuple[str, float, float]] = []
        choices: dict[str, int] = defaultdict(int)
        cutoff = 0.0
        for session, runs in sessions:
            cutoff = session.suite.timeout
            mine = {i.key: i for i in session.suite.instances if i.family == name}
            by_instance: dict[str, dict[str, float]] = defaultdict(dict)
            for run in runs:
                if run.instance in mine and not is_meta(run.backend) and run.task == "first":
                    by_instance[run.instance][run.backend] = score(run, cutoff)
            for key, scores in sorted(by_instance.items()):
                choice = policy.choose(mine[key].puzzle(), "first", here=False).backend
                choices[choice] += 1
                members = choice.removeprefix("portfolio:").split("+")
                race = RACE_SECONDS if choice.startswith("portfolio:") else 0.0
                rows.append((key, min(2 * cutoff, race + min(scores.get(m, 2 * cutoff) for m in members)),
                             min(scores.values())))
        if rows:
            out.append(FamilyFit(**vars(family_ratio("auto", name, rows, cutoff)), choices=dict(choices)))
    return out


def _choose(runs: list[RunRecord], cutoff: float, fallback: str) -> tuple[str, str]:
    """The choice for one size class, scored over the instances some backend solved (one nobody solved adds
    the same to every score and would only dilute the gains); where nothing was solved the data cannot rank
    backends, so the choice of the size below (``fallback``) carries on."""
    by_backend: dict[str, dict[str, RunRecord]] = defaultdict(dict)
    for run in runs:
        by_backend[run.backend][run.instance] = run
    instances = sorted({r.instance for r in runs if r.solved})
    if not instances:
        return fallback, f"nothing solved within {cutoff:g} s: kept {fallback}"

    def par2(*backends: str) -> float:
        race = RACE_SECONDS if len(backends) > 1 else 0.0
        return statistics.fmean(min(2 * cutoff, race + min(score(by_backend[b][i], cutoff) if i in by_backend[b]
                                                            else 2 * cutoff for b in backends)) for i in instances)

    ranked = sorted(by_backend, key=lambda b: (par2(b), b))
    best = ranked[0]
    solved = {b: sum(1 for r in by_backend[b].values() if r.solved) for b in ranked}
    shown = ", ".join(f"{b} {par2(b):.3g} s ({solved[b]}/{len(instances)})" for b in ranked[:2])
    unsolved = len({r.instance for r in runs}) - len(instances)
    evidence = f"PAR2 {shown}" + (f" ({unsolved} solved by none left out)" if unsolved else "")
    if fallback in by_backend and best != fallback and (par2(fallback) <= TIE * par2(best)
                                                         or par2(fallback) - par2(best) <= TIE_SECONDS):
        best = fallback
        evidence += (f"; {fallback} {par2(fallback):.3g} s is within {TIE - 1:.0%} or {TIE_SECONDS * 1000:g} ms: "
                     f"kept {fallback}")
    if len(ranked) > 1:
        partner = min((b for b in ranked if b != best), key=lambda b: (par2(best, b), b))
        if par2(best, partner) * PORTFOLIO_GAIN <= par2(best):
            return (f"portfolio:{best}+{partner}",
                    f"{evidence}; racing {best} and {partner}: {par2(best, partner):.3g} s")
    return best, evidence


def _choose_best(runs: list[RunRecord], limits: set[float] | None = None, regime: str = "") -> tuple[str, str]:
    """The best-score choice for one size class: highest mean checked score over the class's runs (no board:
    0), ties to the lower median seconds to reach the final score, then to the name. ``limits`` (the runs'
    seconds) and ``regime`` (the boards' hints) are named in the evidence."""
    by_backend: dict[str, list[RunRecord]] = defaultdict(list)
    for run in runs:
        by_backend[run.backend].append(run)

    def mean(backend: str) -> float:
        return statistics.fmean(r.score if r.category == "correct" and r.score is not None else 0
                                for r in by_backend[backend])

    def reached(backend: str) -> float:
        times = [t for r in by_backend[backend] if r.category == "correct" and (t := r.reached) is not None]
        return statistics.median(times) if times else float("inf")

    ranked = sorted(by_backend, key=lambda b: (-mean(b), reached(b), b))
    top = max((r.max_score or 0 for r in runs), default=0)
    shown = ", ".join(f"{b} {mean(b):.1f}/{top} ({len(by_backend[b])} run{'s' if len(by_backend[b]) != 1 else ''}"
                      f"{f', final at {reached(b):.2g} s' if reached(b) != float('inf') else ', no board'})"
                      for b in ranked)
    setting = ", ".join(x for x in ((f"{'/'.join(f'{t:g}' for t in sorted(limits))} s a run" if limits else ""),
                                    regime) if x)
    return ranked[0], f"mean score{f' ({setting})' if setting else ''} {shown}"


def _second_opinion(runs: list[RunRecord], cutoff: float, choice: str) -> str | None:
    """The backend of lowest PAR2 whose family is none of the choice's (``--confirm`` asks it), over the
    instances some backend solved; None when no backend of another family answered any of them (one that only
    timed out could never confirm an answer)."""
    chosen = {family(member) for member in choice.removeprefix("portfolio:").split("+")}
    solved = {r.instance for r in runs if r.solved}
    answered = {r.backend for r in runs if r.solved}
    totals: dict[str, float] = defaultdict(float)
    for run in runs:
        if run.instance in solved and run.backend in answered and family(run.backend) not in chosen:
            totals[run.backend] += score(run, cutoff)
    return min(totals, key=lambda b: (totals[b], b)) if totals else None


def load_sessions(store: Store, session_ids: list[int]) -> list[tuple[Session, list[RunRecord]]]:
    """The sessions and their runs (repeats collapsed to each cell's median run), read once for the policy and
    its per-family figures. The rules pool runs by instance name across sessions, so sessions in which one
    name stands for different puzzles (their fingerprints differ) are refused: pooling them would score one
    puzzle's times against another's. Runs of backends named with options (``native@fc=on``: a bench's
    experiments) are left out: a rule names a backend ``auto`` runs as it is."""
    sessions = []
    seen: dict[str, tuple[str, int]] = {}
    for number in session_ids:
        session = store.session(number)
        runs = [r for r in cells(store.runs(number), session.suite.timeout)[0] if base_spec(r.backend) == r.backend]
        for run in runs:
            if not run.fingerprint:
                continue
            first = seen.setdefault(run.instance, (run.fingerprint, number))
            if first[0] != run.fingerprint:
                raise UsageError(f"sessions {first[1]} and {number} hold different puzzles under the name "
                                 f"{run.instance} (fingerprints {first[0]} and {run.fingerprint}): derive the "
                                 "policy from sessions of one suite version")
        sessions.append((session, runs))
    return sessions


def policy_text(sessions: list[tuple[Session, list[RunRecord]]], database: str, where: str = "",
                keep: Policy | None = None, command: str = "") -> str:
    """The policy file for the given sessions (the first one is named as the source); ``where`` names the
    database in the error when they hold nothing to learn from. ``keep``: a policy whose rules for the
    questions these sessions did not measure are carried over, with its sources and default; ``command``: how
    the file was made (lines), said in its header."""
    rules = derive(sessions)
    if not rules:
        raise UsageError(f"{where or database}: session(s) {', '.join(str(s.id) for s, _ in sessions)} have no "
                         "single-backend runs to learn from")
    measured = list(dict.fromkeys(r["question"] for r in rules))
    kept = [r for r in keep.rules if r["question"] not in measured] if keep is not None else []
    ids = [s.id for s, _ in sessions]
    if kept:
        assert keep is not None
        top = {k: v for k, v in keep.source.items() if not isinstance(v, dict)}
        tables = {q: v for q, v in keep.source.items() if isinstance(v, dict) and any(r["question"] == q for r in kept)}
    else:
        top, tables = _source(sessions, database), {}
    for question in measured:
        asked = [(s, runs) for s, runs in sessions if any(r.task == question and not is_meta(r.backend) for r in runs)]
        if kept or [s.id for s, _ in asked] != ids:
            tables[question] = _source(asked, database, question)
    default = keep.default if kept and keep is not None else DEFAULT
    lines = [
        "# How `auto` chooses a backend: rules derived from bench results by `edgematch policy`.",
        "# Regenerate: edgematch bench families --db DB ... && edgematch policy --db DB [--session N ...]",
        *(["# This file:", *(f"#   {line}" for line in command.splitlines())] if command else []),
        *([f"# Rules of question(s) {', '.join(dict.fromkeys(r['question'] for r in kept))} kept from "
           f"{keep.origin if keep is not None else ''} with their [source]; question(s) {', '.join(measured)} "
           "derived from the sessions of [source.QUESTION]."] if kept else []),
        "# Each rule: question, puzzle kind, largest board it covers, the backend chosen, and the evidence",
        "# (first, count: PAR2 per run, unsolved at 2 x cutoff; solved/total; best: mean checked score per backend)",
        "# from the sessions of its question's [source.QUESTION] table, else of [source].",
        "",
        f"default = {_toml(default)}  # kinds and questions with no measurements",
        "",
        "[source]",
        *(f"{key} = {_toml(value)}" for key, value in top.items()),
    ]
    for question, table in tables.items():
        lines += ["", f"[source.{question}]", *(f"{key} = {_toml(value)}" for key, value in table.items())]
    for rule in [*kept, *rules]:
        lines += ["", "[[rule]]"]
        for key in (*KIND_KEYS, "up_to_tiles", "backend", "confirm", "evidence"):
            if key not in rule:
                continue
            lines.append(f"{key} = {_toml(rule[key])}")
    return "\n".join(lines) + "\n"


def _source(sessions: list[tuple[Session, list[RunRecord]]], database: str, question: str | None = None
            ) -> dict[str, Any]:
    """The ``[source]`` table of rules derived from ``sessions`` (the first one named); for one ``question``:
    its runs, their seconds (``time_limits``) and the hint counts of its puzzles (``hints``)."""
    first = sessions[0][0]
    env = first.environment
    asked = [(s, i) for s, _ in sessions for i in s.suite.instances
             if question is None or s.suite.task_of(i) == question]
    found = {puzzle_hints(i) for _, i in asked}
    table: dict[str, Any] = {
        "sessions": [s.id for s, _ in sessions], "session": first.id,
        "suite": ", ".join(dict.fromkeys(s.suite.name for s, _ in sessions)), "database": database,
        "generated": date.today().isoformat(), "commit": env.get("commit") or "",
        "cpu": f"{env.get('cpu')}, {env.get('cores')} cores",
    }
    if question is None:
        table |= {"cutoff": first.suite.timeout, "runs": sum(len(runs) for _, runs in sessions)}
    else:
        table |= {"time_limits": sorted({s.suite.timeout_of(i) for s, i in asked}),
                  "runs": sum(1 for _, runs in sessions for r in runs if r.task == question)}
    return table | {"hints": sorted(h for h in found if h is not None)}


def _toml(value: Any) -> str:
    """A TOML value: booleans, numbers, strings and lists of them (what a policy file holds)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def default_policy_path() -> Path:
    """Where ``edgematch policy`` writes without ``--output``: the user's policy file, which ``auto`` then
    reads (never the package's shipped one, which stays as installed)."""
    from edgematch.solvers.policy import user_policy_path

    return user_policy_path()
