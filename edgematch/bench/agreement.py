"""Cross-backend agreement: backends that answered the same question on the same instance must agree.

- Verdicts: a ``solved`` answer carries a solution the checker accepted, so it is proof; an ``unsat``
  answer on an instance another backend solved is wrong.
- Counts (task ``count``): complete counts, raw and distinct, must be equal. The value most backends
  gave stands; the others are wrong. With no majority every complete count is wrong (no way to tell
  which is right). A complete count below another run's partial count (a lower bound) is wrong too.
- Best scores (task ``best``): every board is checked, so scores need no agreement; but a claimed optimum
  (status ``solved``) below the checked score of another run's board on the instance is wrong, which
  covers two backends proving different optima.
- Confirmation: a count or a "no solution" that backends of two independent families (native search,
  CP-SAT, SAT) gave alike is marked confirmed; one backend's word is not.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from edgematch.bench.runner import RunRecord
from edgematch.solvers.base import base_spec


def settle(records: list[RunRecord]) -> list[RunRecord]:
    """``records`` with every answer that disagrees with the others recategorised as ``wrong``."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, record in enumerate(records):
        groups[record.instance, record.task].append(index)
    out = list(records)
    for indices in groups.values():
        for index, message in _disagreements([records[i] for i in indices]).items():
            out[indices[index]] = replace(records[indices[index]], category="wrong", message=message)
    return out


def _disagreements(runs: list[RunRecord]) -> dict[int, str]:
    """Position in ``runs`` -> why that answer is wrong."""
    wrong: dict[int, str] = {}
    answered = [(i, r) for i, r in enumerate(runs) if r.category == "correct"]
    solvers = [r.backend for _, r in answered if r.status == "solved"]
    for i, run in answered:
        if run.status == "unsat" and solvers:
            wrong[i] = f"reported unsat, but {', '.join(solvers)} found a checked solution"
    counts = [(i, r) for i, r in answered if r.task == "count" and r.status == "solved" and i not in wrong]
    if len(counts) > 1:
        voters: dict[tuple, set[str]] = defaultdict(set)  # a backend with options (native@fc=on) votes as itself
        for _, r in counts:
            voters[r.count, r.distinct].add(base_spec(r.backend))
        (best, votes), *rest = sorted(((answer, len(who)) for answer, who in voters.items()), key=lambda x: -x[1])
        unanimous_or_majority = not rest or votes > rest[0][1]
        for i, run in counts:
            if not unanimous_or_majority or (run.count, run.distinct) != best:
                others = ", ".join(f"{r.backend} {_shown(r)}" for j, r in counts if j != i)
                wrong[i] = f"count {_shown(run)} disagrees with {others}"
    boards = [r for _, r in answered if r.task == "best" and r.score is not None]
    for i, run in answered:
        if run.task == "best" and run.status == "solved" and run.score is not None and i not in wrong:
            above = [r for r in boards if r.score > run.score]
            if above:
                top = max(above, key=lambda r: r.score)
                proven = "also a proven optimum" if top.status == "solved" else "a checked board"
                wrong[i] = (f"claimed optimum {run.score} disagrees with {top.backend}'s score {top.score} "
                            f"({proven})")
    partial = [r for r in runs if r.task == "count" and r.status == "timeout" and r.count]
    for i, run in counts:
        above = [r for r in partial if r.count > (run.count or 0)]
        if above and i not in wrong:
            wrong[i] = f"complete count {run.count} is below {above[0].backend}'s partial count {above[0].count}"
    return wrong


def _shown(run: RunRecord) -> str:
    return f"{run.count}" + (f" ({run.distinct} distinct)" if run.distinct is not None else "")


def confirmations(records: list[RunRecord]) -> dict[tuple[str, str], list[str]]:
    """(instance, task) -> the backend families whose complete answers agree there, for the answers that
    need a second opinion (a count, or "no solution"), when two or more independent families gave it;
    a solution needs none (the checker proves it)."""
    from edgematch.solvers.base import is_meta
    from edgematch.solvers.confirm import family

    answers: dict[tuple[str, str], dict[tuple, set[str]]] = defaultdict(lambda: defaultdict(set))
    for run in records:
        if run.category != "correct" or is_meta(run.backend):
            continue
        if run.task == "count" and run.status == "solved":
            answers[run.instance, run.task][run.count, run.distinct].add(family(run.backend))
        elif run.status == "unsat":
            answers[run.instance, run.task]["unsat",].add(family(run.backend))
    out = {}
    for key, by_answer in answers.items():
        families = max(by_answer.values(), key=len)
        if len(families) > 1 and len(by_answer) == 1:
            out[key] = sorted(families)
    return out
