"""One running Dask scheduler per test process, for the tests whose fact is not about starting a cluster:
``local:2`` spawns two interpreters that import Dask and edgematch (about 5 s of CPU each time), so the tests that
pass ``--cluster ADDRESS`` / ``cluster=ADDRESS`` share this one, and only those about a local cluster's own start,
Ctrl-C during it, its close, its quiet stderr or a killed worker start ``local:2`` or a cluster of their own.

Its two workers are threads of the test process listening on TCP (a fraction of a second to start, and no
process that outlives a test: the chains and counts a task starts still run in child processes, of the test
process, so ``ours(psutil.Process())`` sees them). It is for commands run in child processes: a library call in
the test process on its address would make a Client here that the worker threads reuse and find closed in the
next test ("IOLoop is closed"); in-process calls take conftest's ``client`` fixture instead.
A file uses it through a fixture::

    @pytest.fixture
    def scheduler(request):
        return shared_scheduler(request.config)
"""

from __future__ import annotations

import contextlib

import pytest

_SHARED: dict[str, str] = {}  # "address": this test process's scheduler, once started


def shared_scheduler(config: pytest.Config) -> str:
    """The address (``tcp://127.0.0.1:PORT``) of this test process's two-worker Dask scheduler, started the first
    time a test asks for it and closed when the session ends. Each file wraps it in its own ``scheduler`` fixture
    (a session fixture imported into several files would be one fixture, and one cluster, per file)."""
    if not _SHARED:
        distributed = pytest.importorskip("dask.distributed")
        local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                         host="127.0.0.1", dashboard_address=":0")
        _SHARED["address"] = local.scheduler_address

        def close() -> None:
            _SHARED.clear()
            with contextlib.suppress(Exception):
                local.close()

        config.add_cleanup(close)
    return _SHARED["address"]
