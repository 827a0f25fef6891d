"""The native engine's compiled loops: loading the C library, typing each loop, and what every loop shares.

Every hot loop is C, compiled when the package is installed into one extension module
(``edgematch.solvers.native._ckernel``; see ``setup.py``) and called through :mod:`ctypes`: the plain search,
the search with propagation, the tree probes and the memoised count (``ckernel.c``) and the best-score loops
beside their package (``best/dfs.c``, ``best/beam.c``, ``best/repair.c``). Loading it takes about a
millisecond. :func:`c_library` types every exported loop once (``argtypes``), refuses a library of another
``C_ABI``, and :func:`address` checks each array a loop reads or writes (element type, C order, shape).

Without the library (no C compiler at install) the native backend is unavailable and says so in one line
(:func:`missing`); the cpsat and sat backends do not need it.
"""

from __future__ import annotations

import ctypes
import os
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
C_ABI = 7  # em_abi_version() (EM_ABI in em.h) of the C sources this file calls

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


_c_library: Any = None
_c_problem: str | None = None  # why the C kernel is unavailable, once a load was tried


def c_library() -> Any:
    """The loaded C kernel (a :class:`ctypes.CDLL` with ``em_search`` typed), or None if it is not built
    or does not load; :func:`c_problem` then says why. Tried once per process."""
    global _c_library, _c_problem
    if _c_library is not None or _c_problem is not None:
        return _c_library
    import importlib.util

    try:
        spec = importlib.util.find_spec(C_MODULE)
    except (ImportError, ValueError) as exc:  # pragma: no cover - a broken installation
        spec, _c_problem = None, f"cannot look for {C_MODULE}: {exc}"
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        _c_problem = _c_problem or "it was not built when edgematch was installed (no C compiler then?)"
        return None
    try:
        lib = ctypes.CDLL(spec.origin)
        lib.em_abi_version.restype = ctypes.c_int64
        lib.em_abi_version.argtypes = []
        version = lib.em_abi_version()
    except (OSError, AttributeError) as exc:
        _c_problem = f"{spec.origin} does not load: {exc}"
        return None
    if version != C_ABI:
        _c_problem = f"{spec.origin} is from another version (ABI {version}, expected {C_ABI})"
        return None
    A, N = ctypes.c_void_p, ctypes.c_int64  # an array's address, a number
    lib.em_compiler.restype = ctypes.c_char_p
    lib.em_compiler.argtypes = []
    fn = lib.em_search
    fn.restype = ctypes.c_int64
    fn.argtypes = [
        A, N,  # order, P
        A, A, A,  # key_a, key_b, base
        A, A, A, N,  # extra_n, extra_src, extra_side, extra_cols
        A, A,  # tab_start, tab_end
        A, A, A, ctypes.c_uint32,  # cand_type, cand_edge, cand_vis, width
        A, A, A, N,  # type_left, placed, vis, n_vis
        A, A, A,  # picks, ptr, end
        A, N, N,  # state, start, budget
        A, N, N,  # turn_src, n_turns, turn_cols
        N, A, N, N,  # count_canonical, out, cap, out_cols
        A,  # counters
    ]
    prop = lib.em_propagate
    prop.restype = ctypes.c_int64
    prop.argtypes = [
        N, N, N,  # n, P, flags
        A, A, A,  # order, pos_of_cell, neighbour
        A, A, A, A, A, A,  # m_base, m_key_a, m_key_b, m_extra_n, m_extra_src, m_extra_side
        A, A,  # tab_start, tab_end
        A, A, A, ctypes.c_uint32,  # cand_type, cand_edge, cand_vis, width
        A, A, N, ctypes.c_int32,  # cell_class, vis_partner, n_labels, frame_vis
        A, A,  # supply, demand
        A, A, A, A, A, A,  # slot_base, owner, frontier, owner_at, seen, stamps (matching)
        A, A, A, A, A, N,  # type_left, placed, open, mask, vis, n_vis
        A, A, A, A,  # cell_at, picks, ptr, end
        A, N,  # state, budget
        A, N, N,  # turn_src, n_turns, turn_cols
        N, A, N, N,  # count_canonical, out, cap, out_cols
        A,  # counters
    ]
    probe = lib.em_probe
    probe.restype = ctypes.c_int64
    probe.argtypes = [
        A, N,  # order, P
        A, A, A,  # key_a, key_b, base
        A, A, A, N,  # extra_n, extra_src, extra_side, extra_cols
        A, A,  # tab_start, tab_end
        A, A, ctypes.c_uint32,  # cand_type, cand_edge, width
        A, A, A, A, A, A,  # type_left, placed, picks, scratch, ptr, end
        N, ctypes.c_uint64, N, N, N,  # probes, seed, exact_from, exact_cap, budget
        A, A, A, A,  # state, acc, level, stats
    ]
    memo = lib.em_memo
    memo.restype = ctypes.c_int64
    memo.argtypes = [
        A, N,  # order, P
        A, A, A,  # key_a, key_b, base
        A, A, A, N,  # extra_n, extra_src, extra_side, extra_cols
        A, A,  # tab_start, tab_end
        A, A, ctypes.c_uint32,  # cand_type, cand_edge, width
        A, A,  # type_left, placed
        A, A, A,  # picks, ptr, end
        A, N, N,  # state, start, budget
        N, A, A, N,  # n_types, type_word, type_shift, type_words
        A, A, N, N, A,  # front_start, front_idx, label_bits, front_words, memo_at
        A, N,  # slot, n_slots
        A, A, A, A, A, A,  # d_sol, d_nodes, d_hash, d_pending, d_lookups, d_saved
        N, N, N,  # join_at, split, bottom_end
        A, A, A, A, A, A, A, A, A, A, A,  # the bottom's order, keys, base, extras, buckets and candidates
        A, A, N, N,  # lab_top, lab_bottom, n_lab, lab_words
        A, N, A, A, A, A, N,  # j_slot, j_slots, j_used, j_picks, j_ptr, j_end, j_cap
        A,  # counters
    ]
    best = lib.em_best_search  # best/dfs.c
    best.restype = N
    best.argtypes = [
        N, A, A,  # P, key_a, key_b
        A, A, A, A, N, A,  # combo, extra_n, extra_src, extra_side, extra_cols, order
        A, A, A, A, A, A, A, A, A,  # cstart, cend, ra_s, ra_e, ab_s, ab_e, rb_s, rb_e, bperm
        A, A, A, A, N, A,  # cand_type, cand_edge, cand_la, cand_lb, width, fits_upto
        A, A, A,  # type_left, placed, sched
        A, A, A, A, A, A, A, A,  # picks, phase, cur, end, brk, best, state, flags
        N, N,  # budget, phases
    ]
    expand = lib.em_beam_expand  # best/beam.c
    expand.restype = N
    expand.argtypes = [
        N, N, N, A, N,  # p, s_lo, s_hi, ring, R
        A, N, N, A,  # left, T, left_wide, brk
        A, A, A, N, A, A, A,  # combo, extra_n, extra_side, extra_cols, src_const, src_slot, src_side
        A, A, A, A, A, A, A, A, A,  # cstart, cend, ra_s, ra_e, ab_s, ab_e, rb_s, rb_e, bperm
        A, A, A, A, N, N,  # cand_type, cand_edge, cand_la, cand_lb, width, fanout
        A, A, A, N, A, A,  # ch_parent, ch_cand, ch_brk, n_ch, tie, rng
    ]
    truncate = lib.em_beam_truncate
    truncate.restype = N
    truncate.argtypes = [A, N, N, A, A]  # ch_brk, n_ch, width, keep, rng
    materialise = lib.em_beam_materialise
    materialise.restype = None
    materialise.argtypes = [
        N, A, N, A, A, A,  # p, keep, n, ch_parent, ch_cand, ch_brk
        A, N, A, N, N,  # ring, R, left, T, left_wide
        A, A, A, N, A,  # new_ring, new_left, new_brk, slot, cand_type
        A, A, N,  # par, cand, forest_cols
    ]
    score = lib.em_repair_score  # best/repair.c
    score.restype = N
    score.argtypes = [A, A, N]  # lab, nb, n
    hungarian = lib.em_hungarian
    hungarian.restype = None
    hungarian.argtypes = [A, N, N, A, A, A, A, A, A, A]  # cost, stride, k, assign, u, v, p, way, minv, used
    lns = lib.em_repair_lns
    lns.restype = N
    lns.argtypes = [
        N, N, N, A, A,  # moves, W, H, free, nb
        A, A, A, N, A, A,  # cls, opt_start, opt_end, n_types, opt_type, opt_edge
        A, A, A, A, A,  # typ, opt, lab, best_typ, best_opt
        A, A, A, A, A, N, A,  # state, weights, rewards, counters, temps, node_cap, rng
    ]
    _c_library = lib
    return lib


def missing() -> str | None:
    """None when the C library loads, else one line: why not, and what to install."""
    problem = c_problem()
    if problem is None:
        return None
    return (f"native backend: the C kernel is not available: {problem}; install a C compiler (e.g. "
            f"`apt install build-essential`) and reinstall edgematch")


def compiler() -> str:
    """What built the C library (e.g. ``gcc 12.2.0``), or why there is none."""
    lib = c_library()
    return lib.em_compiler().decode() if lib is not None else f"not available: {c_problem()}"


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
    types (a copy only where one is not). Whoever passes their addresses keeps this dict alive."""
    return {name: np.ascontiguousarray(getattr(tables, name), dtype) for name, dtype in TABLE_DTYPES.items()}


def address(array: np.ndarray, dtype: type | np.dtype, name: str, shape: tuple[int | None, ...] | None = None) -> int:
    """The address of ``array``'s data for a C loop, which reads (and may write) it as C-contiguous ``dtype``
    of ``shape`` (None: any length on that axis): anything else is an internal error, never a silent copy
    (a loop's writes to a copy would be lost) or a read past the end."""
    want = np.dtype(dtype)
    if array.dtype != want or not array.flags.c_contiguous or not array.flags.writeable:
        raise BackendError(f"native backend: internal error: {name} is {array.dtype}, "
                           f"contiguous={array.flags.c_contiguous}; the loop needs writable contiguous {want}")
    if shape is not None and (array.ndim != len(shape)
                              or any(s is not None and s != n for s, n in zip(shape, array.shape, strict=True))):
        raise BackendError(f"native backend: internal error: {name} has shape {array.shape}, the loop needs {shape}")
    return int(array.ctypes.data)


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
         counters: np.ndarray) -> Step:
    """A function running the plain search (``em_search``) on these arrays for a node budget (returns the
    loop's code).

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

    def p(array: np.ndarray) -> int:
        return array.ctypes.data

    head = (
        p(a["order"]), positions, p(a["key_a"]), p(a["key_b"]), p(a["base"]),
        p(a["extra_n"]), p(a["extra_src"]), p(a["extra_side"]), a["extra_src"].shape[1],
        p(a["tab_start"]), p(a["tab_end"]), p(a["cand_type"]), p(a["cand_edge"]), p(a["cand_vis"]), int(width),
        p(type_left), p(placed), p(vis), vis.shape[0], p(picks), p(ptr), p(end), p(state), int(start),
    )
    tail = (
        p(a["turn_src"]), a["turn_src"].shape[0], a["turn_src"].shape[1] if a["turn_src"].ndim == 2 else 0,
        int(bool(distinct)), p(out), out.shape[0], out.shape[1], p(counters),
    )
    search = lib.em_search
    keep = (a, owned)  # the closure holds every array it points into

    def step_c(budget: int, _keep: object = keep) -> int:
        return search(*head, budget, *tail)

    return step_c
