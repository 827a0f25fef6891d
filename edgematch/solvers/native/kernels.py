"""The native engine's compiled loops: loading the C library and what every loop shares.

Every hot loop is C, compiled when the package is installed into one extension module
(``edgematch.solvers.native._ckernel``, a cffi module in API mode; see ``build_kernel.py``): the plain
search, the search with propagation, the tree probes and the memoised count (``ckernel.c``) and the
best-score loops beside their package (``best/dfs.c``, ``best/beam.c``, ``best/repair.c``). The binding is
generated from ``em_api.h``, the header every C source includes, so the two sides cannot disagree on a
signature; cffi checks each call's argument count and types (a pointer of another element type is a
TypeError) and releases the GIL during it. :func:`pointer` checks what cffi cannot see, each numpy array a
loop reads or writes (element type, C order, writable, shape), and wraps its buffer as that loop's pointer.

Without the library (no C compiler at install) the native backend is unavailable and says so in one line
(:func:`missing`); the cpsat and sat backends do not need it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from edgematch.errors import BackendError

if TYPE_CHECKING:
    from edgematch.solvers.native.tables import Tables

from edgematch.solvers.native.slots import (  # noqa: F401 - the driver reads them from here
    BUDGET,
    BUFFER_FULL,
    CANONICAL,
    DEPTH,
    FINISHED,
    NODES,
    OVERFLOW,
    SOLUTIONS,
    STARTED,
    STORED,
)

C_MODULE = "edgematch.solvers.native._ckernel"
# the C element type of each dtype a loop's pointer may have (em_api.h's parameter types)
C_TYPES = {np.dtype(t): c for t, c in ((np.uint8, "uint8_t"), (np.int16, "int16_t"), (np.int32, "int32_t"),
                                       (np.uint32, "uint32_t"), (np.int64, "int64_t"), (np.uint64, "uint64_t"),
                                       (np.float64, "double"))}

# the element type of every array the loop reads or writes, by argument name (tables.py and Search make them)
U32, I32, I64 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.int64)
TABLE_DTYPES = {
    "order": U32, "key_a": U32, "key_b": U32, "base": U32, "extra_n": U32, "extra_src": U32, "extra_side": U32,
    "tab_start": U32, "tab_end": U32, "cand_type": U32, "cand_edge": U32, "cand_vis": I32, "turn_src": I32,
}

Step = Callable[[int], int]


def empty_out(positions: int, capacity: int) -> np.ndarray:
    """The buffer the loop stores found solutions in (picks per position, one row each)."""
    return np.zeros((capacity, max(positions, 1)), np.uint32)


ffi: Any = None  # the cffi module's FFI once the library is loaded
_c_library: Any = None
_c_problem: str | None = None  # why the C kernel is unavailable, once a load was tried


def c_library() -> Any:
    """The compiled C loops (the cffi module's ``lib``, generated from ``em_api.h``), or None if the module
    was not built or does not load; :func:`c_problem` then says why. Tried once per process."""
    global _c_library, _c_problem, ffi
    if _c_library is not None or _c_problem is not None:
        return _c_library
    import importlib

    try:
        module = importlib.import_module(C_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name not in (C_MODULE, "_cffi_backend"):  # pragma: no cover - a broken installation
            _c_problem = f"{C_MODULE} does not load: {exc}"
        elif exc.name == "_cffi_backend":
            _c_problem = "cffi is not installed (pip install cffi)"
        else:
            _c_problem = "it was not built when edgematch was installed (no C compiler then?)"
        return None
    except ImportError as exc:
        _c_problem = f"{C_MODULE} does not load: {exc}"
        return None
    if not hasattr(module, "lib") or not hasattr(module, "ffi"):  # a module left by an older build
        _c_problem = f"{module.__file__} is from another version of edgematch (rebuild it: reinstall edgematch)"
        return None
    ffi = module.ffi
    _c_library = module.lib
    return _c_library


def missing() -> str | None:
    """None when the C library loads, else one line: why not, and what to install."""
    problem = c_problem()
    if problem is None:
        return None
    fix = ("install it (`pip install cffi`)" if problem.startswith("cffi") else
           "install a C compiler (e.g. `apt install build-essential`) and reinstall edgematch")
    return f"native backend: the C kernel is not available: {problem}; {fix}"


def compiler() -> str:
    """What built the C library (e.g. ``gcc 12.2.0``), or why there is none."""
    lib = c_library()
    return ffi.string(lib.em_compiler()).decode() if lib is not None else f"not available: {c_problem()}"


def require() -> Any:
    """The loaded C library, or a :class:`BackendError` saying why it is not there and what to install."""
    lib = c_library()
    if lib is None:
        raise BackendError(missing())
    return lib


def c_problem() -> str | None:
    """Why the C library is unavailable (None when it loads)."""
    c_library()
    return _c_problem


def c_arrays(tables: Tables) -> dict[str, np.ndarray]:
    """The tables' arrays as the C loops read them (``TABLE_DTYPES``): C-contiguous with their exact element
    types (a copy only where one is not), for :func:`pointer`."""
    return {name: np.ascontiguousarray(getattr(tables, name), dtype) for name, dtype in TABLE_DTYPES.items()}


def pointer(array: np.ndarray, dtype: type | np.dtype, name: str, shape: tuple[int | None, ...] | None = None,
            writes: bool = True) -> Any:
    """``array``'s data as the pointer a C loop takes (a cffi ``dtype[]`` over its buffer, which keeps the
    array alive), for a loop that reads (and may write) it as C-contiguous ``dtype`` of ``shape`` (None: any
    length on that axis): anything else is an internal error, never a silent copy (a loop's writes to a copy
    would be lost) or a read past the end. cffi checks ``dtype``'s C type against the loop's prototype, not
    what the buffer holds: this does. ``writes=False``: a table the loop only reads (it may be read-only)."""
    if ffi is None:
        require()
    want = np.dtype(dtype)
    if array.dtype != want or not array.flags.c_contiguous or (writes and not array.flags.writeable):
        raise BackendError(f"native backend: internal error: {name} is {array.dtype}, "
                           f"contiguous={array.flags.c_contiguous}; the loop needs writable contiguous {want}")
    if shape is not None and (array.ndim != len(shape)
                              or any(s is not None and s != n for s, n in zip(shape, array.shape, strict=True))):
        raise BackendError(f"native backend: internal error: {name} has shape {array.shape}, the loop needs {shape}")
    return ffi.from_buffer(C_TYPES[want] + "[]", array)


def seeded(seed: int) -> np.ndarray:
    """The state of em.h's generator for ``seed`` (one nonzero word; splitmix64 of the seed, so nearby seeds
    start far apart): the C loops that draw at random advance it in place."""
    z = (int(seed) * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) & (2**64 - 1)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    z ^= z >> 31
    return np.array([z or 1], np.uint64)


def _own(array: np.ndarray, dtype: np.dtype, name: str) -> np.ndarray:
    """An array the loop writes: it must already be C-contiguous and of ``dtype`` (a copy would not be seen)."""
    if array.dtype != dtype or not array.flags.c_contiguous or not array.flags.writeable:
        raise BackendError(f"native backend: internal error: {name} is {array.dtype}, "
                           f"contiguous={array.flags.c_contiguous}; the loop needs writable contiguous {dtype}")
    return array


def bind(tables: Tables, start: int, distinct: bool, type_left: np.ndarray, placed: np.ndarray, vis: np.ndarray,
         picks: np.ndarray, ptr: np.ndarray, end: np.ndarray, state: np.ndarray, out: np.ndarray,
         counters: np.ndarray, rows_scratch: tuple[np.ndarray, np.ndarray] | None = None) -> Step:
    """A function running the plain search (``em_search``) on these arrays for a node budget (returns the
    loop's code); with ``tables.rows`` and its scratch arrays (:meth:`RowTables.scratch`), with the row
    look-ahead.

    The arrays belong to one search and are never reallocated, so the C pointers are taken once here and a
    step costs one foreign call."""
    width = np.uint32(tables.free_label + 1)
    lib = require()
    a = c_arrays(tables)
    owned = [_own(type_left, I32, "type_left"), _own(placed, U32, "placed"), _own(vis, I32, "vis"),
             _own(picks, U32, "picks"), _own(ptr, U32, "ptr"), _own(end, U32, "end"), _own(state, I64, "state"),
             _own(out, U32, "out"), _own(counters, I64, "counters")]
    positions = a["order"].shape[0]
    if a["cand_edge"].reshape(-1, 4).shape != a["cand_edge"].shape or a["cand_vis"].shape != a["cand_edge"].shape:
        raise BackendError("native backend: internal error: candidate tables are not [C, 4]")
    if a["extra_src"].shape != (positions, 2) or a["extra_side"].shape != (positions, 2):
        raise BackendError("native backend: internal error: extra tables are not [P, 2]")
    if len(ptr) < positions + 1 or len(end) < positions + 1 or len(picks) < positions:
        raise BackendError("native backend: internal error: state arrays shorter than the positions")
    if a["turn_src"].shape[0] and a["turn_src"].shape[1] != vis.shape[0]:
        raise BackendError("native backend: internal error: board turns do not match the board")
    if out.shape[0] and out.shape[1] < positions:
        raise BackendError("native backend: internal error: solution buffer narrower than the positions")

    def p(name: str, array: np.ndarray | None = None) -> Any:  # the dtypes _own and c_arrays made sure of
        x = a[name] if array is None else array
        return pointer(x, x.dtype, name, writes=array is not None)

    head = (
        p("order"), positions, p("key_a"), p("key_b"), p("base"),
        p("extra_n"), p("extra_src"), p("extra_side"), a["extra_src"].shape[1],
        p("tab_start"), p("tab_end"), p("cand_type"), p("cand_edge"), p("cand_vis"), int(width),
        p("type_left", type_left), p("placed", placed), p("vis", vis), vis.shape[0], p("picks", picks),
        p("ptr", ptr), p("end", end), p("state", state), int(start),
    )
    tail = (
        p("turn_src"), a["turn_src"].shape[0], a["turn_src"].shape[1] if a["turn_src"].ndim == 2 else 0,
        int(bool(distinct)), p("out", out), out.shape[0], out.shape[1], p("counters", counters),
    )
    rows, rows_kept = (ffi.NULL, None) if tables.rows is None or rows_scratch is None else \
        rows_struct(tables, rows_scratch)
    search = lib.em_search
    keep = (a, owned, rows_kept)  # the closure holds every array it points into (the pointers do too)

    def step_c(budget: int, _keep: object = keep) -> int:
        return search(*head, budget, *tail, rows)

    return step_c


def rows_struct(tables: Tables, scratch: tuple[np.ndarray, np.ndarray]) -> tuple[Any, list[Any]]:
    """The ``em_rows_t`` of ``tables.rows`` with the loop's scratch arrays (:meth:`RowTables.scratch`), each array
    checked for the length the loop reads, and the pointers it holds (kept alive with it)."""
    rows = tables.rows
    assert rows is not None
    positions, n_types = tables.positions, len(tables.type_count)
    groups = max(len(tables.tab_start) // (tables.free_label + 1) ** 2, 1) * (tables.free_label + 1)
    table, free = scratch
    shapes = {"seg_of": (np.int32, positions), "seg_first": (np.int32, rows.segments),
              "seg_len": (np.int32, rows.segments), "check": (np.int32, positions), "group_base": (np.int32, positions),
              "group_word": (np.int32, groups), "group_words": (np.int32, groups),
              "slot_in": (np.uint8, rows.words * 64), "slot_out": (np.uint8, rows.words * 64),
              "type_word": (np.int32, n_types * rows.pairs), "type_bits": (np.uint64, n_types * rows.pairs)}
    struct = ffi.new("em_rows_t *")
    struct.span, struct.words, struct.types, struct.pairs = rows.span, rows.words, n_types, rows.pairs
    struct.out = rows.out
    kept = [struct]
    for name, (dtype, length) in shapes.items():
        kept.append(pointer(getattr(rows, name), dtype, name, (length,), writes=False))
        setattr(struct, name, kept[-1])
    for name, array, length in (("table", table, 1 + rows.segments * rows.span), ("free", free, rows.words + 1)):
        kept.append(pointer(array, np.uint64, name, (length,)))
        setattr(struct, name, kept[-1])
    return struct, kept
