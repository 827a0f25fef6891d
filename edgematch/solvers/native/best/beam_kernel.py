"""The compiled steps of the beam search (numba): expand a chunk of a layer, truncate, materialise.

A state of layer ``p`` is a board whose first ``p`` positions (of the fill order) are placed. It is kept as
its broken seams so far (``brk``: every state of one layer has the same number of checked seams, so fewer
breaks is a higher score), its tiles left per type (``left``) and a *frontier* ring of the candidates at the
last ``R`` positions (``ring[s, q % R]``: the cells a later position's keys can point at); which candidate it
took at each layer, and from which parent, is stored by the caller as a parent-pointer forest.

Children of a state: the candidates for the next cell that are legal (the tables hold only placements that
keep the frame and the turns; hinted cells are not positions) and whose type has a tile left, with the
fewest breaks against the placed neighbours (the top tie class); at most ``fanout`` of them, drawn at random
among exact ties. The phases over the candidate ranges are those of :mod:`best_kernel` (0: both keys fit;
1-3: one does; 4-5: neither), walked until a phase cannot beat the best cost found.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MIN_COST = (0, 1, 1, 1, 2, 2)


@njit(cache=True, nogil=True)
def reseed(seed):
    """Seed numba's own generator (the ties drawn in :func:`expand`, the shuffle in :func:`truncate`)."""
    np.random.seed(seed)


@njit(cache=True, nogil=True)
def _label(s, j, p, ring, src_const, src_slot, src_side, cand_edge):
    c = src_const[p, j]
    if c >= 0:
        return c
    return cand_edge[ring[s, src_slot[p, j]], src_side[p, j]]


@njit(cache=True, nogil=True)
def expand(p, s_lo, s_hi, ring, left, brk,
           combo, extra_n, extra_side, src_const, src_slot, src_side,
           cstart, cend, ra_s, ra_e, ab_s, ab_e, rb_s, rb_e, bperm, cand_type, cand_edge, cand_la, cand_lb,
           width, fanout, ch_parent, ch_cand, ch_brk, n_ch, tie):
    """Children of the states ``s_lo:s_hi`` at position ``p``, appended from ``n_ch``; the new count."""
    k = combo[p]
    for s in range(s_lo, s_hi):
        a = _label(s, 0, p, ring, src_const, src_slot, src_side, cand_edge)
        b = _label(s, 1, p, ring, src_const, src_slot, src_side, cand_edge)
        ka = k * width + a
        best = 1 << 30
        n_tie = 0
        for ph in range(6):
            if MIN_COST[ph] > best:
                break
            if ph == 0:
                lo = ab_s[ka * width + b]
                hi = ab_e[ka * width + b]
            elif ph == 1:
                lo = ra_s[ka]
                hi = ab_s[ka * width + b]
            elif ph == 2:
                lo = ab_e[ka * width + b]
                hi = ra_e[ka]
            elif ph == 3:
                lo = rb_s[k * width + b]
                hi = rb_e[k * width + b]
            elif ph == 4:
                lo = cstart[k]
                hi = ra_s[ka]
            else:
                lo = ra_e[ka]
                hi = cend[k]
            for i in range(lo, hi):
                c = bperm[i] if ph == 3 else i
                if left[s, cand_type[c]] <= 0:
                    continue
                if ph == 3 and cand_la[c] == a:
                    continue
                if ph >= 4 and cand_lb[c] == b:
                    continue
                cost = MIN_COST[ph]
                for x in range(extra_n[p]):
                    if cand_edge[c, extra_side[p, x]] != _label(s, 2 + x, p, ring, src_const, src_slot, src_side,
                                                                cand_edge):
                        cost += 1
                if cost < best:
                    best = cost
                    n_tie = 0
                if cost == best:
                    tie[n_tie] = c
                    n_tie += 1
        take = n_tie if n_tie < fanout else fanout
        for j in range(take):  # a partial Fisher-Yates draw: exact ties in a random order
            r = j + np.random.randint(n_tie - j)
            t = tie[j]
            tie[j] = tie[r]
            tie[r] = t
            ch_parent[n_ch] = s
            ch_cand[n_ch] = tie[j]
            ch_brk[n_ch] = brk[s] + best
            n_ch += 1
    return n_ch


@njit(cache=True, nogil=True)
def truncate(ch_brk, n_ch, width, max_brk, keep):
    """The ``width`` children with the fewest breaks, each run of equal breaks in a random order: their
    indices in ``keep``; the count."""
    perm = np.random.permutation(n_ch)
    counts = np.zeros(max_brk + 2, np.int64)
    for i in range(n_ch):
        counts[ch_brk[i] + 1] += 1
    for v in range(1, max_brk + 2):
        counts[v] += counts[v - 1]
    out = np.empty(n_ch, np.int64)
    for i in range(n_ch):  # a stable counting sort of the shuffled children by breaks
        j = perm[i]
        out[counts[ch_brk[j]]] = j
        counts[ch_brk[j]] += 1
    n = n_ch if n_ch < width else width
    for i in range(n):
        keep[i] = out[i]
    return n


@njit(cache=True, nogil=True)
def materialise(p, keep, n, ch_parent, ch_cand, ch_brk, ring, left, new_ring, new_left, new_brk,
                slot, cand_type, par_out, cand_out):
    """The kept children as the next layer (frontier ring, tiles left, breaks) and the forest's layer ``p``."""
    for j in range(n):
        i = keep[j]
        s = ch_parent[i]
        c = ch_cand[i]
        new_ring[j, :] = ring[s, :]
        new_ring[j, slot] = c
        new_left[j, :] = left[s, :]
        new_left[j, cand_type[c]] -= 1
        new_brk[j] = ch_brk[i]
        par_out[p, j] = s
        cand_out[p, j] = c
