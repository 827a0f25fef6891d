"""Shared fixtures: the rigged backends, and one stored bench of the smoke suite reused by the report tests."""

import atexit
import errno
import fcntl
import os
import shutil
import signal
import stat
import tempfile

import pytest
import typer.testing

# a test runner started as a background job (`pytest &` in a script, some CI runners) ignores SIGINT, and the
# commands and workers the tests start inherit that: every Ctrl-C test would then wait for a stop that never
# comes. With a handler of its own here, the processes it starts get SIGINT at its default again
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# a terminal width in the environment (xdist's workers start with COLUMNS=80) would fix every rich console's
# width when it is made; tests that give a command its own COLUMNS need the width read when it prints
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)
# the interpreters the suite starts (commands, a local cluster's workers) import the package afresh: with
# PYTHONDONTWRITEBYTECODE set, as on some CI machines, each compiled it again (0.3 s a start); they may cache it
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

from edgematch.bench.environment import environment  # noqa: E402
from edgematch.bench.session import run_session  # noqa: E402
from edgematch.bench.store import Store  # noqa: E402
from edgematch.bench.suite import load_suite  # noqa: E402
from edgematch.solvers import base  # noqa: E402
from tests.rigged import RIGGED  # noqa: E402

# typer's CliRunner turns the Typer app into a click command on every invoke: 0.2-0.3 s of one core each (the
# type hints of every option of every command evaluated again), over a thousand invokes in the suite. The
# commands are all registered when the app is loaded, so each app's command is made once and reused while its
# registered commands and groups stay the same (a click command keeps no state between invocations).
# typer.testing._get_command is private: where a typer release has no such hook, the tests run as they are, slower
_commands: dict = {}
_make_command = getattr(typer.testing, "_get_command", None)


def _command_once(app):
    key = (id(app), tuple(map(id, app.registered_commands)), tuple(map(id, app.registered_groups)))
    if key not in _commands:
        _commands[key] = _make_command(app)
    return _commands[key]


if _make_command is not None:
    typer.testing._get_command = _command_once

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
    parser.addoption("--backend", action="append", default=[], metavar="NAME",
                     help="of the tests run once per backend, keep those of backend NAME (or its family: "
                          "'sat' keeps sat:cadical195); repeatable. Tests about no one backend still run")


def _named(value: object, names: list[str]) -> bool:
    """Whether a test's ``backend`` parameter is one of ``names`` or of their families."""
    spelled = str(value)
    return any(spelled == name or spelled.split(":")[0].split("@")[0] == name for name in names)


# The files that take longest (12-40 s of one core each), longest first: collected before the others, so that
# xdist's --dist loadfile, which hands out whole files in collection order as its workers free up, starts them
# first and ends with short files on both workers (alphabetically, test_xcheck.py came last, with one worker idle).
LONG_FIRST = ("test_solve_race.py", "test_bench.py", "test_cluster.py", "test_best_workers.py", "test_cpsat.py",
              "test_xcheck.py", "test_memo.py", "test_native.py", "test_sat_cubes.py", "test_limits.py",
              "test_exit_codes.py", "test_library_interrupt.py", "test_best_repair.py", "test_dead_workers.py",
              "test_limits_boards.py", "test_best_solvers.py", "test_cluster_addresses.py", "test_native_kernels.py",
              "test_sat.py", "test_estimate.py", "test_bench_runner.py", "test_propagation.py")


def pytest_collection_modifyitems(config, items):
    """Only the ``--backend`` ones of the tests run once per backend. The longest files first (see
    :data:`LONG_FIRST`), each file's tests together in their order. Tests marked
    ``slow`` (minutes each) are skipped unless --runslow is given or EDGEMATCH_SLOW is set, so the README's
    ``pytest`` stays within a few minutes."""
    names = config.getoption("--backend")
    if names:
        known = {*base.backend_names(), *base.every_backend()}
        for name in names:
            if name not in known:
                raise pytest.UsageError(f"--backend: {base.unknown_backend(name)}")
        kept, dropped = [], []
        for item in items:
            params = getattr(getattr(item, "callspec", None), "params", {})
            (dropped if "backend" in params and not _named(params["backend"], names) else kept).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    order = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda item: (rank.get(item.path.name, len(rank)), order[id(item)]))
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
def smoke_db(tmp_path_factory, worker_id):
    """A results database holding one complete session of the smoke suite (every backend, 3-8 s), which the tests
    only read. Made once per test run: under xdist the first worker to ask makes it in the run's shared
    temporary folder while the others wait on a lock, then read the same file (each made its own before)."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the run's folder, above each worker's own
    path, made = shared / "smoke.sqlite", shared / "smoke.made"
    with (shared / "smoke.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not made.exists():
            path.unlink(missing_ok=True)  # a worker that failed to make it left part of one
            suite = load_suite("smoke")
            with Store(path) as store:
                session = store.new_session(suite, "smoke", 1, environment())
                assert run_session(store, session, suite)
            made.touch()
    return path


@pytest.fixture(scope="session")
def smoke_report(smoke_db, tmp_path_factory):
    """The report of :func:`smoke_db`'s session (``report.md``, ``report.html`` and the plots), written once for
    the tests that only read it: drawing its plots takes seconds."""
    from edgematch.bench.report import write_report

    with Store(smoke_db) as store:
        return write_report(store, out=tmp_path_factory.mktemp("smoke-report"))


@pytest.fixture(scope="session")
def client():
    """A Dask client of two worker threads in this process, started once per test process: fast to start, the same
    task code as worker processes (a chain or a count a task starts still runs in a child process)."""
    distributed = pytest.importorskip("dask.distributed")
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
    with local, distributed.Client(local) as c:
        yield c


@pytest.fixture(scope="module")
def scheduler():
    """The address (``tcp://127.0.0.1:PORT``) of a running two-worker Dask scheduler, one per test file, for the
    commands run in child processes whose fact is not a local cluster's start: ``local:2`` spawns two interpreters
    that import Dask and edgematch (about 5 s of CPU each time); the tests about a local cluster's own start,
    Ctrl-C during it, its close or a killed worker still start one.

    Its workers are threads of the test process on TCP (0.1 s to start; the chains and counts a task starts
    still run in child processes of the test process). In-process library calls take :func:`client` instead: one
    on this address would make a Client here that the worker threads reuse and find closed in the next test.
    Closed with its file, so its threads do not run on under the other files' tests."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=":0") as local:
        yield local.scheduler_address


@pytest.fixture(scope="session")
def scaling_suite():
    """The built-in scaling suite, loaded once per test process: loading it makes its unique-solution families,
    counting candidates until each has one (about 3 s on one core), and several tests read it."""
    return load_suite("scaling")


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
