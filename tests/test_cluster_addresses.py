"""``--cluster`` at a malformed address or at something that is not a Dask scheduler (issue 22, item 18): one
line on stderr starting ``edgematch:``, exit 2, within 10 s, from ``count``, ``solve --all`` and ``bench`` --
never a traceback, a hang (a web server) or a MemoryError (a reply read as a 3 EiB frame). Localhost only."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import edgematch
from edgematch.errors import UsageError
from edgematch.solvers.parallel.cluster import CONNECT_SECONDS, cluster_problem, reach_problem
from tests.timing import Timed, timed

HUNDE = str(Path(__file__).resolve().parents[1] / "examples" / "hunde.hunde")
MALFORMED = {
    "tcp://127.0.0.1:abc": "port must be a whole number",
    "tcp://:8786": "no host",
    "tcp://127.0.0.1:0": "port must be a whole number",
    "tcp://127.0.0.1:99999": "port must be a whole number",
    "local:0": "local:N wants N from 1",
    "local:x": "local:N wants N from 1",
    "http://127.0.0.1:8786": "http:// is not a Dask protocol",
    "": "got nothing",
    "tcp://[::1": "closing ]",
    "tcp://::1:8786": "IPv6 host goes in brackets",
    "tcp://127.0.0.1": "no port",
    "127.0.0.1:8786": "did you mean tcp://127.0.0.1:8786",
    "tcp://127.0.0.1:8786/x": "port must be a whole number",
    "tcp://bad host:8786": "not a host name",
    "tcp://[nope]:8786": "not an IPv6 address",
}
COMMANDS = {
    "count": ["count", HUNDE],
    "solve": ["solve", HUNDE, "--all", "-b", "native"],
    "bench": ["bench", "--sizes", "3", "--families", "unframed", "-b", "native"],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def edgematch_cli(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, Timed]:
    with timed() as took:
        done = subprocess.run([sys.executable, "-m", "edgematch", *args], capture_output=True, text=True,
                              timeout=120, cwd=cwd)
    return done, took


def assert_one_line(done: subprocess.CompletedProcess, took: Timed, *words: str) -> None:
    """One line naming the problem, exit 2, within the connect wait plus the command's start-up (6 s of it
    on an idle core: CPU work, so stretched by the contention around the call)."""
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("note")]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("edgematch: "), done.stderr
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert took.within(CONNECT_SECONDS, 6.0), took


@pytest.mark.parametrize("address", list(MALFORMED))
def test_a_malformed_address_is_one_line_naming_it_and_the_problem(address):
    problem = cluster_problem(address)
    assert problem is not None and MALFORMED[address] in problem
    assert "\n" not in problem
    with pytest.raises(UsageError, match="cluster|local:N"):
        edgematch.count(HUNDE, backend="native", cluster=address)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "tls://scheduler.example:8786", "ws://[::1]:8786",
                                     "wss://10.0.0.5:1", "TCP://localhost:65535", "local:1", "local:256"])
def test_well_formed_addresses_pass_the_check(address):
    assert cluster_problem(address) is None


# every address and every command once by default (a command's start is 1-2 s); each pair with --runslow
@pytest.mark.parametrize(("address", "command"), [
    pytest.param(address, command, marks=() if j == i % len(COMMANDS) else pytest.mark.slow)
    for i, address in enumerate(["tcp://127.0.0.1:abc", "tcp://127.0.0.1:99999", "local:x", ""])
    for j, command in enumerate(COMMANDS)])
def test_malformed_addresses_on_the_command_line(tmp_path, command, address):
    done, took = edgematch_cli([*COMMANDS[command], "--cluster", address, *(
        ["--db", str(tmp_path / "b.sqlite")] if command == "bench" else [])], tmp_path)
    assert_one_line(done, took, MALFORMED[address])
    assert not (tmp_path / "b.sqlite").exists()  # the bench stored nothing


@pytest.fixture(scope="module")
def web_server(tmp_path_factory) -> Iterator[str]:
    """``python -m http.server`` on a free localhost port: it waits for a whole request line, so Dask's
    handshake (no newline in it) gets no answer at all."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                              cwd=tmp_path_factory.mktemp("www"), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):  # until it listens
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.05)
        yield f"tcp://127.0.0.1:{port}"
    finally:
        server.kill()
        server.wait()


# each waits out the connect wait (CONNECT_SECONDS, 4 s, for a handshake that never comes), through the one check
# every command shares: one command by default, the others with --runslow
@pytest.mark.parametrize("command", [command if command == "count" else pytest.param(command, marks=pytest.mark.slow)
                                     for command in COMMANDS])
def test_a_web_server_is_not_a_scheduler(tmp_path, web_server, command):
    done, took = edgematch_cli([*COMMANDS[command], "--cluster", web_server, *(
        ["--db", str(tmp_path / "b.sqlite")] if command == "bench" else [])], tmp_path)
    assert_one_line(done, took, web_server, "not a Dask scheduler")
    assert not (tmp_path / "b.sqlite").exists()


def test_a_refused_port_fails_at_once(tmp_path):
    address = f"tcp://127.0.0.1:{free_port()}"
    done, took = edgematch_cli([*COMMANDS["count"], "--cluster", address], tmp_path)
    assert_one_line(done, took, address, "Connection refused")


def test_a_reply_that_is_not_dask_is_no_memory_error():
    """A server that answers at once with HTTP: Dask reads "HTTP/1.1" as a frame length of 3 EiB."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = listener.accept()
                with contextlib.suppress(OSError):
                    conn.recv(100)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    try:
        start = time.perf_counter()
        problem = reach_problem(f"tcp://127.0.0.1:{port}")
        assert problem is not None and "not a Dask scheduler" in problem
        assert time.perf_counter() - start < 5
    finally:
        listener.close()


def test_a_real_scheduler_is_reached_and_a_worker_is_told_apart():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  dashboard_address=":0") as local:
        assert reach_problem(local.scheduler_address) is None
        worker = next(iter(local.workers.values())).address
        assert "a Dask Worker answers there" in reach_problem(worker)
        result = edgematch.count(HUNDE, backend="native", cluster=local.scheduler_address)
        assert result.count == 16 and result.options["cluster"] == local.scheduler_address


def test_tls_without_certificates_in_the_dask_configuration_says_so():
    pytest.importorskip("dask.distributed")
    problem = reach_problem(f"tls://127.0.0.1:{free_port()}")
    assert problem is not None and "TLS needs certificates" in problem and "distributed.comm.tls" in problem
