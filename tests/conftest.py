"""Shared fixtures: the rigged backends, and one stored bench of the smoke suite reused by the report tests."""

import atexit
import errno
import os
import shutil
import stat
import tempfile

import pytest

# a terminal width in the environment (xdist's workers start with COLUMNS=80) would fix every rich console's
# width when it is made; tests that give a command its own COLUMNS need the width read when it prints
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)

from edgematch.bench.environment import environment  # noqa: E402
from edgematch.bench.session import run_session  # noqa: E402
from edgematch.bench.store import Store  # noqa: E402
from edgematch.bench.suite import load_suite  # noqa: E402
from edgematch.solvers import base  # noqa: E402
from tests.rigged import RIGGED  # noqa: E402

# no test reads or writes the real user's policy file (auto would follow it): a fresh config directory,
# inherited by every command and child process the tests start
os.environ["EDGEMATCH_CONFIG_DIR"] = tempfile.mkdtemp(prefix="edgematch-config-")
atexit.register(shutil.rmtree, os.environ["EDGEMATCH_CONFIG_DIR"], True)
os.environ.pop("EDGEMATCH_POLICY", None)


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: the cores this process may run on (``taskset``, a container's cpuset), not the machine's."""
    return len(os.sched_getaffinity(0))


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run the tests marked slow (minutes each; EDGEMATCH_SLOW=1 does the same)")


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` (minutes each) are skipped unless --runslow is given or EDGEMATCH_SLOW is set, so
    the README's ``pytest`` stays within a few minutes."""
    if config.getoption("--runslow") or os.environ.get("EDGEMATCH_SLOW"):
        return
    skip = pytest.mark.skip(reason="slow: pass --runslow or set EDGEMATCH_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rigged(monkeypatch):
    """Backends that hang, crash, spawn, or answer wrong, registered for one test (never for users)."""
    monkeypatch.setattr(base, "_BUILTIN", {**base._BUILTIN, **RIGGED})


@pytest.fixture(scope="session")
def smoke_db(tmp_path_factory):
    """A results database holding one complete session of the smoke suite (every backend, ~3 s)."""
    path = tmp_path_factory.mktemp("bench") / "smoke.sqlite"
    suite = load_suite("smoke")
    with Store(path) as store:
        session = store.new_session(suite, "smoke", 1, environment())
        assert run_session(store, session, suite)
    return path


@pytest.fixture
def full_disk(monkeypatch):
    """Every file written from now on meets a full disk: syncing a regular file fails with ENOSPC, as the
    kernel reports it when the data cannot be stored (a device node is refused before it gets there)."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
