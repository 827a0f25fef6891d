/* The depth-first best-score loop: fill the board row by row, letting seams mismatch, a few and late.
 *
 * The approach of the Eternity II record holders (Verhaard, Blackwood): at each cell try first the
 * candidates that fit both placed neighbours, then those that break one seam, then two; a *schedule* caps how
 * many breaks the board may have after each position, and a *target* (one break fewer than the best board so
 * far) turns the search into branch and bound. Driven by edgematch/solvers/native/best/__init__.py (_Run).
 *
 * Candidates of each (cell class, key sides) combo are stored sorted by (key a label, key b label) and, via
 * bperm, by (b, a). A position walks six phases over those ranges, cheapest first:
 * 0: a and b fit (0 breaks); 1, 2: a fits, b does not (1); 3: b fits, a does not (1); 4, 5: neither (2).
 * Extra placed neighbours (hinted cells east or south) add their own breaks per candidate.
 *
 * Resumable: all state lives in the caller's arrays; the loop returns after `budget` nodes, when it reaches a
 * board, complete or partial, with more fitting seams than state[BEST] (its picks in `best`: the caller fills
 * the rest of a partial one and raises BEST), or when the tree is exhausted. flags[PRUNED] records whether the
 * schedule (not the target) ever cut a branch: an exhausted tree with the flag clear proves the best optimal.
 *
 * Every array is int64 and C-contiguous (kernels.py checks); cand_edge is [C, 4], extra_src and extra_side
 * are [P, extra_cols]. */
#include "../em.h"

enum { B_DEPTH = 0, B_STARTED = 1, B_TARGET = 2, B_BEST = 3, B_SHOWN = 4 }; /* state slots */
enum { B_PRUNED = 0, B_NODES = 1 };                                        /* flags slots */
enum { B_FINISHED = 0, B_BUDGET = 1, B_IMPROVED = 2 };                     /* return codes */


int64_t em_best_search(
    int64_t P, const int64_t *EM_RESTRICT key_a, const int64_t *EM_RESTRICT key_b,
    const int64_t *EM_RESTRICT combo, const int64_t *EM_RESTRICT extra_n, const int64_t *EM_RESTRICT extra_src,
    const int64_t *EM_RESTRICT extra_side, int64_t extra_cols, const int64_t *EM_RESTRICT order,
    const int64_t *EM_RESTRICT cstart, const int64_t *EM_RESTRICT cend,
    const int64_t *EM_RESTRICT ra_s, const int64_t *EM_RESTRICT ra_e,
    const int64_t *EM_RESTRICT ab_s, const int64_t *EM_RESTRICT ab_e,
    const int64_t *EM_RESTRICT rb_s, const int64_t *EM_RESTRICT rb_e, const int64_t *EM_RESTRICT bperm,
    const int64_t *EM_RESTRICT cand_type, const int64_t *EM_RESTRICT cand_edge,
    const int64_t *EM_RESTRICT cand_la, const int64_t *EM_RESTRICT cand_lb, int64_t width,
    const int64_t *EM_RESTRICT fits_upto,
    int64_t *EM_RESTRICT type_left, int64_t *EM_RESTRICT placed, const int64_t *EM_RESTRICT sched,
    int64_t *EM_RESTRICT picks, int64_t *EM_RESTRICT phase, int64_t *EM_RESTRICT cur, int64_t *EM_RESTRICT end,
    int64_t *EM_RESTRICT brk, int64_t *EM_RESTRICT best, int64_t *EM_RESTRICT state, int64_t *EM_RESTRICT flags,
    int64_t budget, int64_t phases)
{
    if (P <= 0) return B_FINISHED; /* the driver never asks: a board without free cells is proven at once */
    if (state[B_STARTED] == 0) {
        state[B_STARTED] = 1;
        state[B_DEPTH] = 0;
        brk[0] = 0;
        phase[0] = -1;
        cur[0] = 0;
        end[0] = 0;
    }
    int64_t d = state[B_DEPTH];
    int64_t nodes = flags[B_NODES];
    const int64_t stop_at = nodes + budget;
    for (;;) {
        const int64_t a = placed[key_a[d]];
        const int64_t b = placed[key_b[d]];
        const int64_t k = combo[d];
        const int64_t lim_t = state[B_TARGET] - brk[d];
        const int64_t lim_s = sched[d] - brk[d];
        const int64_t allowed = lim_t < lim_s ? lim_t : lim_s;
        int64_t chosen = -1, cost = 0;
        while (chosen < 0) {
            const int64_t i = cur[d];
            if (i >= end[d]) {
                int64_t ph = phase[d] + 1, lo = 0, hi = 0;
                for (; ph < phases; ph++) {
                    em_phase_range(ph, k, a, b, width, cstart, cend, ra_s, ra_e, ab_s, ab_e, rb_s, rb_e, &lo, &hi);
                    if (hi > lo) {
                        const int64_t need = EM_MIN_COST[ph];
                        if (need <= allowed) break;
                        if (need <= lim_t) flags[B_PRUNED] = 1;
                    }
                }
                phase[d] = ph;
                if (ph >= phases) {
                    if (phases < EM_PHASES && lim_t >= 2) flags[B_PRUNED] = 1; /* two-break placements left out */
                    break;
                }
                cur[d] = lo;
                end[d] = hi;
                continue;
            }
            cur[d] = i + 1;
            const int64_t ph = phase[d];
            const int64_t c = ph == 3 ? bperm[i] : i;
            if (type_left[cand_type[c]] <= 0) continue;
            if (ph == 3 && cand_la[c] == a) continue;
            if (ph >= 4 && cand_lb[c] == b) continue;
            cost = EM_MIN_COST[ph];
            for (int64_t x = 0; x < extra_n[d]; x++)
                if (cand_edge[c * 4 + extra_side[d * extra_cols + x]] != placed[extra_src[d * extra_cols + x]]) cost++;
            if (cost > allowed) {
                if (cost <= lim_t) flags[B_PRUNED] = 1;
                continue;
            }
            chosen = c;
        }
        if (chosen < 0) {
            if (d == 0) {
                state[B_DEPTH] = 0;
                flags[B_NODES] = nodes;
                return B_FINISHED;
            }
            d--;
            type_left[cand_type[picks[d]]] += 1;
            continue;
        }
        nodes++;
        picks[d] = chosen;
        /* fitting seams of the board so far: seams checked up to here, less the breaks */
        const int64_t fitting = fits_upto[d + 1] - brk[d] - cost;
        if (d == P - 1) {
            for (int64_t q = 0; q < P; q++) best[q] = picks[q];
            state[B_SHOWN] = P;
            state[B_BEST] = fitting;
            state[B_TARGET] = brk[d] + cost - 1;
            state[B_DEPTH] = d;
            flags[B_NODES] = nodes;
            return B_IMPROVED;
        }
        type_left[cand_type[chosen]] -= 1;
        const int64_t cell = order[d] * 4;
        for (int s = 0; s < 4; s++) placed[cell + s] = cand_edge[chosen * 4 + s];
        brk[d + 1] = brk[d] + cost;
        d++;
        phase[d] = -1;
        cur[d] = 0;
        end[d] = 0;
        if (fitting > state[B_BEST]) { /* a partial board the caller can complete into a better one */
            for (int64_t q = 0; q < d; q++) best[q] = picks[q];
            state[B_SHOWN] = d;
            state[B_BEST] = fitting;
            state[B_DEPTH] = d;
            flags[B_NODES] = nodes;
            return B_IMPROVED;
        }
        if (nodes >= stop_at) {
            state[B_DEPTH] = d;
            flags[B_NODES] = nodes;
            return B_BUDGET;
        }
    }
}
