"""``pytest --backend NAME`` (tests/conftest.py): of the tests run once per backend, only NAME's (or its
family's) are kept, the others run as usual, and an unknown name is one usage error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _collected(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-n", "0", "-p", "no:randomly",
                           "tests/test_limits.py", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_backend_keeps_that_family_of_the_per_backend_tests():
    every = _collected().stdout.splitlines()
    sat = _collected("--backend", "sat").stdout.splitlines()
    per_backend = [line for line in every if "test_every_backend_returns_within_its_limit[" in line]
    kept = [line for line in sat if "test_every_backend_returns_within_its_limit[" in line]
    assert kept and all("[sat" in line for line in kept) and len(kept) < len(per_backend)
    others = [line for line in every if "::" in line and "test_every_backend_returns" not in line]
    assert others and all(line in sat for line in others)  # tests about no one backend still run


def test_an_unknown_backend_is_one_usage_error():
    done = _collected("--backend", "nope")
    assert done.returncode != 0 and "unknown backend 'nope'" in done.stderr + done.stdout
