"""The compiled search loop (numba, nopython): iterative backtracking over precomputed tables.

This is the numba kernel; ``ckernel.c`` is its exact port to C, compiled at install time, and
:mod:`edgematch.solvers.native.kernels` chooses which one runs; the slots and codes both use are in
:mod:`edgematch.solvers.native.slots`. A change here must be made there too: the tests compare them.

The loop is resumable: all its state lives in arrays owned by the caller, and it returns after
``budget`` nodes, when the solution buffer fills, or when the tree under ``start`` is exhausted. The
Python driver calls it in slices, which gives time limits, progress and Ctrl-C without any of that in
the hot loop. A node is one placement of a tile.

Invariant between slices: positions below ``state[DEPTH]`` hold their placements (``ptr`` of each
already past its pick); at ``state[DEPTH]`` nothing is placed and ``ptr[depth]`` is the next candidate
to try, ``end[depth]`` one past the last.
"""

from __future__ import annotations

from numba import njit

from edgematch.solvers.native.slots import (
    BUDGET,
    BUFFER_FULL,
    CANONICAL,
    DEPTH,
    FINISHED,
    NODES,
    SOLUTIONS,
    STARTED,
    STORED,
)


@njit(cache=True, nogil=True)
def _bucket(d, base, key_a, key_b, placed, width, tab_start, tab_end, ptr, end):
    b = base[d] + placed[key_a[d]] * width + placed[key_b[d]]
    ptr[d] = tab_start[b]
    end[d] = tab_end[b]


@njit(cache=True, nogil=True)
def _canonical(vis, turn_src):
    """Whether the board is least (lexicographically) among its allowed turns."""
    for k in range(turn_src.shape[0]):
        src = turn_src[k]
        for j in range(vis.shape[0]):
            a = vis[j]
            b = vis[src[j]]
            if b < a:
                return False
            if b > a:
                break
    return True


@njit(cache=True, nogil=True)
def search(
    order, key_a, key_b, base, extra_n, extra_src, extra_side,
    tab_start, tab_end, cand_type, cand_edge, cand_vis, width,
    type_left, placed, vis, picks, ptr, end, state, start,
    budget, turn_src, count_canonical, out, counters,
):
    """Run until ``budget`` more nodes, a full ``out`` buffer, or the end of the tree under ``start``.

    ``out`` receives the picks (candidate per position) of found solutions, ``state[STORED]`` of them so
    far (the caller drains it and resets the count). Returns FINISHED, BUDGET or BUFFER_FULL.
    ``placed`` is only read for cells placed earlier in the order, so backtracking never clears it (its
    last slot holds the "unconstrained" key); ``vis`` (visible labels, for the distinct test) is filled
    from the picks only when a board is found.
    """
    P = order.shape[0]
    if state[STARTED] == 0:
        state[STARTED] = 1
        state[DEPTH] = start
        _bucket(start, base, key_a, key_b, placed, width, tab_start, tab_end, ptr, end)
    d = state[DEPTH]
    nodes = counters[NODES]
    stop_at = nodes + budget
    cap = out.shape[0]
    last = P - 1
    code = FINISHED
    while True:
        # scan the bucket in registers for the next candidate whose tile is free and fits the extras
        i = ptr[d]
        e = end[d]
        n_extra = extra_n[d]
        while i < e:
            if type_left[cand_type[i]] > 0:
                if n_extra == 0:
                    break
                ok = True
                for x in range(n_extra):
                    if cand_edge[i, extra_side[d, x]] != placed[extra_src[d, x]]:
                        ok = False
                        break
                if ok:
                    break
            i += 1
        if i >= e:
            if d == start:
                ptr[d] = i
                break
            d -= 1
            type_left[cand_type[picks[d]]] += 1
            continue
        ptr[d] = i + 1
        nodes += 1
        picks[d] = i
        if d == last:
            counters[SOLUTIONS] += 1
            if count_canonical:
                for q in range(P):
                    cell = order[q] * 4
                    for s in range(4):
                        vis[cell + s] = cand_vis[picks[q], s]
                if _canonical(vis, turn_src):
                    counters[CANONICAL] += 1
            stored = state[STORED]
            if stored < cap:
                for q in range(P):
                    out[stored, q] = picks[q]
                state[STORED] = stored + 1
                if stored + 1 == cap:
                    code = BUFFER_FULL
                    break
            if nodes >= stop_at:
                code = BUDGET
                break
            continue
        type_left[cand_type[i]] -= 1
        cell = order[d] * 4
        placed[cell] = cand_edge[i, 0]
        placed[cell + 1] = cand_edge[i, 1]
        placed[cell + 2] = cand_edge[i, 2]
        placed[cell + 3] = cand_edge[i, 3]
        d += 1
        _bucket(d, base, key_a, key_b, placed, width, tab_start, tab_end, ptr, end)
        if nodes >= stop_at:
            code = BUDGET
            break
    state[DEPTH] = d
    counters[NODES] = nodes
    return code
