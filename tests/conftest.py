"""Shared fixtures: one stored bench of the smoke suite, reused by the report tests."""

import pytest

from edgematch.bench.environment import environment
from edgematch.bench.session import run_session
from edgematch.bench.store import Store
from edgematch.bench.suite import load_suite


@pytest.fixture(scope="session")
def smoke_db(tmp_path_factory):
    """A results database holding one complete session of the smoke suite (every backend, ~3 s)."""
    path = tmp_path_factory.mktemp("bench") / "smoke.sqlite"
    suite = load_suite("smoke")
    with Store(path) as store:
        session = store.new_session(suite, "smoke", 1, environment())
        assert run_session(store, session, suite)
    return path
