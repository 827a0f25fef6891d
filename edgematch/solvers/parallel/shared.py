"""A few integers every chain of one call shares and changes only through named operations, each applied whole:
the same on this machine's processes as on a Dask cluster (a counter of parts, a phase, a prefix).

An *operation* is a plain module-level function ``op(values, *args) -> answer`` that changes the list ``values``
in place; :meth:`Shared.apply` runs it under a lock on the current values and stores what it left. Three places
hold the values, one class each, so the code that shares (the race's handover, :mod:`~edgematch.solvers.native.
first.sweep`) is written once:

- :class:`Local`: shared memory made before the fork, with its lock (chains on this machine);
- :class:`OnCluster`: the scheduler's metadata under a Dask ``Lock`` (the client and every chain's task on the
  cluster). A Dask lock is a one-lease semaphore, so a worker that dies holding it loses its lease: nobody
  waits for it forever.
- :class:`Piped`: in a cluster chain's child process, which has no Dask client: each operation is a request over
  a pipe to its task (:class:`Served`, which applies it :class:`OnCluster`), and :meth:`Shared.peek` reads a copy
  the task refreshes every :data:`~edgematch.solvers.parallel.chains.POLL_SECONDS` and after every operation.

A plan that shares state among its chains (:data:`~edgematch.solvers.parallel.chains.Plan`) is a dataclass with
a field ``state``; :func:`~edgematch.solvers.parallel.chains.chain_task` gives its child the piped stand-in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from edgematch.errors import BackendError, EdgematchError

LOCK_SECONDS = 5.0  # a lock held this long: its holder was killed inside (never in practice)

Operation = Callable[..., Any]  # op(values: list[int], *args) -> answer, changing values in place


class Shared:
    """The values and the two ways to reach them (see the module docstring)."""

    size: int

    def apply(self, op: Operation, *args: Any) -> Any:
        """Run ``op`` on the current values under the lock, store what it left; its answer."""
        raise NotImplementedError

    def peek(self, index: int) -> int:
        """One value read without the lock (on a cluster, as of the task's last look: a moment old)."""
        raise NotImplementedError


def _stuck() -> BackendError:
    return BackendError("the chains' shared state stayed locked (a chain killed holding it)")


def _gone() -> BackendError:
    return BackendError("the chains' shared state is gone (the call ended)")


class Local(Shared):
    """The values in shared memory with its lock (made before the chains are forked)."""

    def __init__(self, array: Any):
        self.array = array
        self.size = len(array)

    @classmethod
    def create(cls, ctx: Any, values: list[int]) -> Local:
        array = ctx.Array("q", len(values))
        array[:] = values
        return cls(array)

    def apply(self, op: Operation, *args: Any) -> Any:
        lock = self.array.get_lock()
        if not lock.acquire(timeout=LOCK_SECONDS):
            raise _stuck()
        try:
            values = list(self.array.get_obj())
            answer = op(values, *args)
            self.array.get_obj()[:] = values
            return answer
        finally:
            lock.release()

    def peek(self, index: int) -> int:
        return int(self.array.get_obj()[index])


class OnCluster(Shared):
    """The values as scheduler metadata (``Client.set_metadata``) under a Dask ``Lock``, named for the call: usable
    from the client and from any task of the call (picklable: it carries only the name). A read never waits, so a
    task still running when the call has dropped the values (:meth:`delete`) is not held up: it reads None."""

    def __init__(self, name: str, size: int):
        self.name = name
        self.size = size
        self.last: list[int] | None = None  # the values an operation here left last
        self._lock: Any = None

    def __getstate__(self) -> dict:
        return {"name": self.name, "size": self.size}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["name"], state["size"])  # type: ignore[misc]

    @classmethod
    def create(cls, name: str, values: list[int], client: Any) -> OnCluster:
        state = cls(name, len(values))
        state.put(values, client)
        return state

    @staticmethod
    def _client() -> Any:
        from edgematch.solvers.parallel.cluster import distributed

        return distributed().get_client()

    def apply(self, op: Operation, *args: Any) -> Any:
        from edgematch.solvers.parallel.cluster import distributed

        if self._lock is None:
            self._lock = distributed().Lock(f"{self.name}-lock")
        if not self._lock.acquire(timeout=LOCK_SECONDS):
            raise _stuck()
        try:
            client = self._client()
            values = client.get_metadata([self.name], None)
            if values is None:
                raise _gone()
            answer = op(values, *args)
            client.set_metadata([self.name], values)
            self.last = values
            return answer
        finally:
            self._lock.release()

    def put(self, values: list[int], client: Any) -> None:
        """Replace the values (for values with one writer, such as the client's best board: no lock)."""
        client.set_metadata([self.name], list(values))

    def values(self) -> list[int] | None:
        """The values as they are (no lock), or None once dropped."""
        return self._client().get_metadata([self.name], None)

    def peek(self, index: int) -> int:
        values = self.values()
        if values is None:
            raise _gone()
        return int(values[index])

    def delete(self, client: Any) -> None:
        """Drop the values (what the scheduler keeps is the name, with None)."""
        client.set_metadata([self.name], None)


class Piped(Shared):
    """In a cluster chain's child: the operations go to its task over ``conn``; ``mirror`` (shared memory the task
    writes) answers :meth:`peek`."""

    def __init__(self, conn: Any, mirror: Any):
        self.conn = conn
        self.mirror = mirror
        self.size = len(mirror)

    def apply(self, op: Operation, *args: Any) -> Any:
        self.conn.send((op, args))
        if not self.conn.poll(4 * LOCK_SECONDS):  # the task applies it within a lock's wait, or says why not
            raise BackendError("the chain's task did not answer (its worker is gone)")
        ok, answer = self.conn.recv()
        if not ok:
            raise answer
        return answer

    def peek(self, index: int) -> int:
        return int(self.mirror[index])


class Served:
    """A cluster chain's task side of :class:`Piped`: applies the child's operations :class:`OnCluster` and keeps
    the child's copy of the values fresh."""

    def __init__(self, state: OnCluster, ctx: Any):
        self.state = state
        self.conn, child = ctx.Pipe(duplex=True)
        self.mirror = ctx.Array("q", state.size, lock=False)
        self.piped = Piped(child, self.mirror)

    def serve(self) -> bool:
        """Answer the child's waiting request; False when the child is gone (its pipe closed)."""
        try:
            op, args = self.conn.recv()
        except (EOFError, OSError):
            return False
        try:
            answer: tuple[bool, Any] = (True, self.state.apply(op, *args))
        except EdgematchError as exc:
            answer = (False, exc)
        except Exception as exc:  # noqa: BLE001  (a scheduler gone: the child learns it as a project error)
            answer = (False, BackendError(f"the cluster's shared state could not be reached: {exc}"))
        if self.state.last is not None:
            self.mirror[:] = self.state.last
        try:
            self.conn.send(answer)
        except OSError:
            return False
        return True

    def refresh(self) -> None:
        """Copy the values for the child's :meth:`Piped.peek` (a scheduler that cannot be asked, or values
        dropped: the old copy)."""
        try:
            values = self.state.values()
        except Exception:  # noqa: BLE001
            return
        if values is not None:
            self.mirror[:] = values

    def close(self) -> None:
        self.conn.close()
        self.piped.conn.close()
