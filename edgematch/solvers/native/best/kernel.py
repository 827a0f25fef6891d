"""The compiled best-score loop (numba): depth-first search that lets seams mismatch, a few and late.

The approach of the Eternity II record holders (Verhaard, Blackwood): fill the board row by row, trying at
each cell first the candidates that fit both placed neighbours, then those that break one seam, then two;
a *schedule* caps how many breaks the board may have after each position (none in the first rows, a
growing number towards the end), and a *target* (one break fewer than the best board so far) turns the
search into branch and bound. Every complete board it reaches is strictly better than the last.

Candidates of each (cell class, key sides) combo are stored sorted by (key a label, key b label) and, via
``bperm``, by (b, a). A position walks six phases over those ranges, cheapest first:
0: a and b fit (0 breaks); 1, 2: a fits, b does not (1); 3: b fits, a does not (1); 4, 5: neither (2).
Extra placed neighbours (hinted cells east or south) add their own breaks per candidate.

Resumable like the counting loop (:mod:`edgematch.solvers.native.kernel`): all state lives in the caller's
arrays; the loop returns after ``budget`` nodes, when it reaches a board, complete or partial, with more
fitting seams than ``state[BEST]`` (its picks in ``best``: the caller fills the rest of a partial one and
raises BEST), or when the tree is exhausted. ``flags[PRUNED]`` records whether the schedule (not the target) ever cut a
branch: an exhausted tree with the flag clear proves the best board optimal.
"""

from __future__ import annotations

from numba import njit

# state slots: TARGET most breaks a complete board may have; BEST fitting seams to beat; SHOWN the depth of
# the board stored in ``best``
DEPTH, STARTED, TARGET, BEST, SHOWN = 0, 1, 2, 3, 4
# flags slots
PRUNED, NODES = 0, 1
# return codes (IMPROVED: ``best`` holds the first SHOWN picks of a board with more than BEST fitting seams)
FINISHED, BUDGET, IMPROVED = 0, 1, 2
PHASES = 6
MIN_COST = (0, 1, 1, 1, 2, 2)


@njit(cache=True, nogil=True)
def best_search(
    key_a, key_b, combo, extra_n, extra_src, extra_side, order,
    cstart, cend, ra_s, ra_e, ab_s, ab_e, rb_s, rb_e, bperm,
    cand_type, cand_edge, cand_la, cand_lb, width, fits_upto,
    type_left, placed, sched, picks, phase, cur, end, brk, best, state, flags, budget, phases,
):
    P = key_a.shape[0]
    if state[STARTED] == 0:
        state[STARTED] = 1
        state[DEPTH] = 0
        brk[0] = 0
        phase[0] = -1
        cur[0] = 0
        end[0] = 0
    d = state[DEPTH]
    nodes = flags[NODES]
    stop_at = nodes + budget
    while True:
        a = placed[key_a[d]]
        b = placed[key_b[d]]
        k = combo[d]
        lim_t = state[TARGET] - brk[d]
        lim_s = sched[d] - brk[d]
        allowed = lim_t if lim_t < lim_s else lim_s
        chosen = -1
        cost = 0
        lo = 0
        hi = 0
        while chosen < 0:
            i = cur[d]
            if i >= end[d]:
                ph = phase[d] + 1
                while ph < phases:
                    ka = k * width + a  # the phase's range of candidates (inlined: a call costs more)
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
                    if hi > lo:
                        need = MIN_COST[ph]
                        if need <= allowed:
                            break
                        if need <= lim_t:
                            flags[PRUNED] = 1
                    ph += 1
                phase[d] = ph
                if ph >= phases:
                    if phases < PHASES and lim_t >= 2:
                        flags[PRUNED] = 1  # two-break placements left out: no proof from this tree
                    break
                cur[d] = lo
                end[d] = hi
                continue
            cur[d] = i + 1
            ph = phase[d]
            c = bperm[i] if ph == 3 else i
            if type_left[cand_type[c]] <= 0:
                continue
            if ph == 3 and cand_la[c] == a:
                continue
            if ph >= 4 and cand_lb[c] == b:
                continue
            cost = MIN_COST[ph]
            for x in range(extra_n[d]):
                if cand_edge[c, extra_side[d, x]] != placed[extra_src[d, x]]:
                    cost += 1
            if cost > allowed:
                if cost <= lim_t:
                    flags[PRUNED] = 1
                continue
            chosen = c
        if chosen < 0:
            if d == 0:
                state[DEPTH] = 0
                flags[NODES] = nodes
                return FINISHED
            d -= 1
            type_left[cand_type[picks[d]]] += 1
            continue
        nodes += 1
        picks[d] = chosen
        # fitting seams of the board so far: seams checked up to here, less the breaks
        fitting = fits_upto[d + 1] - brk[d] - cost
        if d == P - 1:
            for q in range(P):
                best[q] = picks[q]
            state[SHOWN] = P
            state[BEST] = fitting
            state[TARGET] = brk[d] + cost - 1
            state[DEPTH] = d
            flags[NODES] = nodes
            return IMPROVED
        type_left[cand_type[chosen]] -= 1
        cell = order[d] * 4
        for s in range(4):
            placed[cell + s] = cand_edge[chosen, s]
        brk[d + 1] = brk[d] + cost
        d += 1
        phase[d] = -1
        cur[d] = 0
        end[d] = 0
        if fitting > state[BEST]:  # a partial board the caller can complete into a better one
            for q in range(d):
                best[q] = picks[q]
            state[SHOWN] = d
            state[BEST] = fitting
            state[DEPTH] = d
            flags[NODES] = nodes
            return IMPROVED
        if nodes >= stop_at:
            state[DEPTH] = d
            flags[NODES] = nodes
            return BUDGET
