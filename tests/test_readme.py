"""The README's walkthrough runs as written, and so do the docs pages that carry it on (the tour, the harness,
the best score, the library): every shell command of their ``bash`` blocks, top to bottom, in a fresh folder
holding what a clone holds (``examples/``, the suite files), and every ``python`` block after them. A command
they show must exit 0; the few that cannot run here are listed in SKIP with why."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# the pages whose blocks run, in this order (files one page makes, a later one uses): the README's short tour,
# then the docs site's walkthrough (docs/tour.md) and the pages that moved out of the README
PAGES = (README, ROOT / "docs" / "tour.md", ROOT / "docs" / "harness.md", ROOT / "docs" / "best.md",
         ROOT / "docs" / "api.md")

# command prefix -> why the test does not run it
SKIP = {
    "python3 -m venv": "installs the package (this test runs inside that install) and runs the whole bench or "
                       "the whole test suite",
    "edgematch bench families": "the policy's evidence: every family like real puzzles, 10 seeds (hours)",
    "edgematch policy --db families.sqlite": "needs the families session of the line skipped above",
    "edgematch --install-completion": "edits the user's shell start-up file",
    "scripts/screenshot-report.sh": "needs headless Chromium (tests/test_screenshot.py runs it when present)",
}
SECONDS = 120  # per command: a hung command fails the test instead of hanging it


def blocks(language: str) -> list[str]:
    """The fenced code blocks in ``language`` of the README and the docs pages of :data:`PAGES`, in order."""
    found = []
    for page in PAGES:
        inside, lines = False, []
        for line in page.read_text(encoding="utf-8").splitlines():
            if not inside and line.strip() == f"```{language}":
                inside, lines = True, []
            elif inside and line.strip() == "```":
                inside = False
                found.append("\n".join(lines))
            elif inside:
                lines.append(line)
    return found


def commands() -> list[str]:
    """Each shell command of the README (comments and continuation-only comment lines dropped)."""
    found = []
    for block in blocks("bash"):
        for line in block.splitlines():
            command = line.split("  #", 1)[0].strip()
            if command and not command.startswith("#"):
                found.append(command)
    return found


def skipped(command: str) -> str | None:
    return next((why for prefix, why in SKIP.items() if command.startswith(prefix)), None)


def solver_output(folder: Path) -> None:
    """Stand in for the external SAT solver of the README's ``decode`` line: solve ``p.cnf`` with PySAT
    and write its answer as a solver would (``s SATISFIABLE`` and ``v`` lines)."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver(name="glucose4", bootstrap_with=CNF(from_file=str(folder / "p.cnf")).clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    (folder / "solver-output.txt").write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")


BEFORE = {"edgematch decode p.em p.cnf solver-output.txt": solver_output}


def test_the_readme_lists_what_this_test_runs():
    listed = commands()
    assert any(c.startswith("edgematch generate") for c in listed[:3])  # files are made before they are used
    for prefix in SKIP:
        assert any(c.startswith(prefix) for c in listed), f"SKIP names {prefix!r}, which no page shows any more"
    for command in BEFORE:
        assert command in listed


@pytest.mark.slow  # about 100 s here: seven short benches (each run its own process) and 30 commands
def test_the_readme_walkthrough_runs_top_to_bottom(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "edgematch" / "bench" / "suites", tmp_path / "edgematch" / "bench" / "suites")
    env = {**os.environ, "EDGEMATCH_CONFIG_DIR": str(tmp_path / "config"), "COLUMNS": "120"}
    env.pop("EDGEMATCH_POLICY", None)
    ran, took = [], []
    for command in commands():
        if skipped(command):
            continue
        if command in BEFORE:
            BEFORE[command](tmp_path)
        started = time.monotonic()
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=SECONDS, stdin=subprocess.DEVNULL)
        took.append((time.monotonic() - started, command))
        assert done.returncode == 0, (f"README command failed (exit {done.returncode}): {command}\n"
                                      f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        ran.append(command)
    for block in blocks("python"):
        # -P: the copied edgematch/bench/suites in the folder must not shadow the installed package
        done = subprocess.run([sys.executable, "-P", "-c", block], cwd=tmp_path, env=env, capture_output=True,
                              text=True,
                              timeout=SECONDS)
        assert done.returncode == 0, f"README python block failed:\n{block}\n{done.stderr[-2000:]}"
    assert len(ran) >= 30
    for path in ("p.em", "big.em", "board.png", "p.cnf", "runs.csv", "my-policy.toml", "reports/bench/session-1"):
        assert (tmp_path / path).exists(), path
    slowest = sorted(took, reverse=True)[:12]
    print("slowest README commands:", *(f"{s:.1f} s  {c}" for s, c in slowest), sep="\n  ")


if __name__ == "__main__":  # list what the test runs and what it skips
    for c in commands():
        print(f"skip ({skipped(c)}): {c}" if skipped(c) else c)
    sys.exit(pytest.main([__file__, "-q", "-s"]))
