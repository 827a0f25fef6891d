/* The compiled steps of the beam search: expand a chunk of a layer, truncate, materialise.
 * Driven by edgematch/solvers/native/best/beam.py (see its docstring for the search and its memory).
 *
 * A state of layer p is a board whose first p positions (of the fill order) are placed. It is kept as its
 * broken seams so far (brk: every state of one layer has the same number of checked seams, so fewer breaks is
 * a higher score), the tile copies it used (used: `words` 64-bit words, a bit per free tile; a type's copies are
 * the bits from its first, used in that order, so its last bit is set exactly when no copy is left; one more bit,
 * always set, stands for the last copy of a type with none) and a frontier ring of the candidates at the last R
 * positions (ring[s * R + q % R]: the cells a later position's keys can point at); which candidate it took at
 * each layer, and from which parent, the caller keeps as a parent-pointer forest (par, cand). A bit per tile
 * rather than a count per type: the children's states are copied from their parents' at every layer, and on a
 * 16x16 board a state's 252 counts took 504 bytes of the 640 copied.
 *
 * Children of a state: the candidates for the next cell whose type has a tile left, with the fewest breaks
 * against the placed neighbours (the top tie class); at most `fanout` of them, drawn at random among exact
 * ties. Each state also carries a key (key: the sum of its placed candidates' weights, cand_w); among children
 * with equal breaks the truncation keeps the higher keys, then draws at random (all weights 0: at random). The phases over the candidate ranges are those of dfs.c (0: both keys fit; 1-3: one does; 4-5:
 * neither), walked until a phase cannot beat the best cost found.
 *
 * Randomness: em.h's generator, its state in rng[0] (the caller seeds it per beam: one seed, one beam).
 * Element types (kernels.py checks): the tables int64 (cand_edge [C, 4], extra_side [P, extra_cols],
 * src_const, src_slot, src_side [P, 4], cand_last and cand_first: each candidate's type's last and first bit);
 * ring, brk, the children and the forest int32; used uint64. */
#include <stdlib.h>
#include <string.h>

#include "../em.h"


/* The label the j-th key (0: a, 1: b, 2+: extras) of position p sees in state s: a constant, or a side of a
 * candidate in the frontier ring. */
static inline int64_t label(int64_t s, int64_t j, int64_t p, const int32_t *ring, int64_t R, const int64_t *src_const,
                            const int64_t *src_slot, const int64_t *src_side, const int64_t *cand_edge) {
    const int64_t c = src_const[p * 4 + j];
    if (c >= 0) return c;
    return cand_edge[(int64_t)ring[s * R + src_slot[p * 4 + j]] * 4 + src_side[p * 4 + j]];
}

/* Whether bit b of a state's used words is set. */
static inline int used_bit(const uint64_t *EM_RESTRICT used, int64_t b) {
    return (int)((used[b >> 6] >> (b & 63)) & 1);
}

/* Children of the states s_lo:s_hi at position p, appended from n_ch; returns the new count. */
int64_t em_beam_expand(
    int64_t p, int64_t s_lo, int64_t s_hi, const int32_t *EM_RESTRICT ring, int64_t R,
    const uint64_t *EM_RESTRICT used, int64_t words, const int32_t *EM_RESTRICT brk,
    const int64_t *EM_RESTRICT combo, const int64_t *EM_RESTRICT extra_n, const int64_t *EM_RESTRICT extra_side,
    int64_t extra_cols, const int64_t *EM_RESTRICT src_const, const int64_t *EM_RESTRICT src_slot,
    const int64_t *EM_RESTRICT src_side,
    const int64_t *EM_RESTRICT cstart, const int64_t *EM_RESTRICT cend,
    const int64_t *EM_RESTRICT ra_s, const int64_t *EM_RESTRICT ra_e,
    const int64_t *EM_RESTRICT ab_s, const int64_t *EM_RESTRICT ab_e,
    const int64_t *EM_RESTRICT rb_s, const int64_t *EM_RESTRICT rb_e, const int64_t *EM_RESTRICT bperm,
    const int64_t *EM_RESTRICT cand_last, const int64_t *EM_RESTRICT cand_edge,
    const int64_t *EM_RESTRICT cand_la, const int64_t *EM_RESTRICT cand_lb, int64_t width, int64_t fanout,
    const int32_t *EM_RESTRICT key, const int64_t *EM_RESTRICT cand_w,
    int32_t *EM_RESTRICT ch_parent, int32_t *EM_RESTRICT ch_cand, int32_t *EM_RESTRICT ch_brk,
    int32_t *EM_RESTRICT ch_key, int64_t n_ch, int64_t *EM_RESTRICT tie, uint64_t *EM_RESTRICT rng)
{
    const int64_t k = combo[p];
    for (int64_t s = s_lo; s < s_hi; s++) {
        const uint64_t *EM_RESTRICT mine = used + s * words;
        const int64_t a = label(s, 0, p, ring, R, src_const, src_slot, src_side, cand_edge);
        const int64_t b = label(s, 1, p, ring, R, src_const, src_slot, src_side, cand_edge);
        int64_t extra[2] = {0, 0};
        const int64_t n_extra = extra_n[p];
        for (int64_t x = 0; x < n_extra; x++)
            extra[x] = label(s, 2 + x, p, ring, R, src_const, src_slot, src_side, cand_edge);
        int64_t best = (int64_t)1 << 30, n_tie = 0;
        for (int64_t ph = 0; ph < EM_PHASES; ph++) {
            if (EM_MIN_COST[ph] > best) break;
            int64_t lo, hi;
            em_phase_range(ph, k, a, b, width, cstart, cend, ra_s, ra_e, ab_s, ab_e, rb_s, rb_e, &lo, &hi);
            for (int64_t i = lo; i < hi; i++) {
                const int64_t c = ph == 3 ? bperm[i] : i;
                if (used_bit(mine, cand_last[c])) continue; /* no copy of its type left */
                if (ph == 3 && cand_la[c] == a) continue;
                if (ph >= 4 && cand_lb[c] == b) continue;
                int64_t cost = EM_MIN_COST[ph];
                for (int64_t x = 0; x < n_extra; x++)
                    if (cand_edge[c * 4 + extra_side[p * extra_cols + x]] != extra[x]) cost++;
                if (cost < best) {
                    best = cost;
                    n_tie = 0;
                }
                if (cost == best) tie[n_tie++] = c;
            }
        }
        const int64_t take = n_tie < fanout ? n_tie : fanout;
        for (int64_t j = 0; j < take; j++) { /* a partial Fisher-Yates draw: exact ties in a random order */
            const int64_t r = j + em_below(rng, n_tie - j);
            const int64_t t = tie[j];
            tie[j] = tie[r];
            tie[r] = t;
            ch_parent[n_ch] = (int32_t)s;
            ch_cand[n_ch] = (int32_t)tie[j];
            ch_brk[n_ch] = (int32_t)(brk[s] + best);
            ch_key[n_ch] = (int32_t)(key[s] + cand_w[tie[j]]);
            n_ch++;
        }
    }
    return n_ch;
}

/* A stable counting sort of idx[0:n] by v[idx[i]] - lo (ascending; every such value in 0..span-1) into out, or,
 * descending, by hi - v[idx[i]]. Returns 0, or -1 when the scratch memory could not be had. */
static int counting_sort(const int64_t *idx, int64_t n, const int32_t *v, int64_t lo, int64_t span, int descending,
                         int64_t *out)
{
    int64_t *counts = calloc((size_t)span + 1, sizeof *counts);
    if (!counts) return -1;
    const int64_t hi = lo + span - 1;
    for (int64_t i = 0; i < n; i++) counts[(descending ? hi - v[idx[i]] : v[idx[i]] - lo) + 1]++;
    for (int64_t b = 1; b <= span; b++) counts[b] += counts[b - 1];
    for (int64_t i = 0; i < n; i++) out[counts[descending ? hi - v[idx[i]] : v[idx[i]] - lo]++] = idx[i];
    free(counts);
    return 0;
}

/* The `width` children with the fewest breaks, among equal breaks those with the higher keys, and among exact
 * ties of (breaks, key) a uniform random draw: their indices in `keep`, in order of (breaks, key); returns the
 * count, or -1 when the scratch memory could not be had. Only the run of equal breaks that straddles `width` is
 * ordered by key: the runs before it are kept whole, those after it not at all; and only the run of equal keys
 * that then straddles `width` is drawn from (a partial Fisher-Yates shuffle of it), as the rest is kept or dropped
 * whole. Where the kept children lie in the next layer is the materialise step's (by parent). */
int64_t em_beam_truncate(const int32_t *EM_RESTRICT ch_brk, const int32_t *EM_RESTRICT ch_key, int64_t n_ch,
                         int64_t width, int64_t *EM_RESTRICT keep, uint64_t *EM_RESTRICT rng)
{
    if (n_ch <= 0) return 0;
    int64_t max_brk = 0;
    for (int64_t i = 0; i < n_ch; i++)
        if (ch_brk[i] > max_brk) max_brk = ch_brk[i];
    int64_t *perm = malloc((size_t)n_ch * sizeof *perm);
    int64_t *out = malloc((size_t)n_ch * sizeof *out);
    if (!perm || !out) {
        free(perm);
        free(out);
        return -1;
    }
    for (int64_t i = 0; i < n_ch; i++) perm[i] = i;
    int rc = counting_sort(perm, n_ch, ch_brk, 0, max_brk + 1, 0, out); /* by breaks */
    const int64_t n = n_ch < width ? n_ch : width;
    if (rc == 0 && n < n_ch && ch_brk[out[n - 1]] == ch_brk[out[n]]) {
        const int32_t cut = ch_brk[out[n]];
        int64_t lo = n - 1, hi = n + 1;
        while (lo > 0 && ch_brk[out[lo - 1]] == cut) lo--;
        while (hi < n_ch && ch_brk[out[hi]] == cut) hi++;
        int32_t kmin = ch_key[out[lo]], kmax = kmin;
        for (int64_t i = lo; i < hi; i++) {
            if (ch_key[out[i]] < kmin) kmin = ch_key[out[i]];
            if (ch_key[out[i]] > kmax) kmax = ch_key[out[i]];
        }
        if (kmax > kmin) { /* the straddling run by key, highest first */
            memcpy(perm, out + lo, (size_t)(hi - lo) * sizeof *perm);
            rc = counting_sort(perm, hi - lo, ch_key, kmin, (int64_t)kmax - kmin + 1, 1, out + lo);
        }
        if (rc == 0 && ch_key[out[n - 1]] == ch_key[out[n]]) { /* a uniform draw of the tie that straddles */
            const int32_t tie = ch_key[out[n]];
            int64_t tlo = n - 1, thi = n + 1;
            while (tlo > lo && ch_key[out[tlo - 1]] == tie) tlo--;
            while (thi < hi && ch_key[out[thi]] == tie) thi++;
            for (int64_t j = tlo; j < n; j++) {
                const int64_t r = j + em_below(rng, thi - j);
                const int64_t t = out[j];
                out[j] = out[r];
                out[r] = t;
            }
        }
    }
    if (rc == 0) memcpy(keep, out, (size_t)n * sizeof *keep);
    free(perm);
    free(out);
    return rc == 0 ? n : -1;
}

/* The kept children as the next layer (frontier ring, tile copies used, breaks, keys) and the forest's layer p
 * (par and cand are [P, forest_cols]), laid out in their parents' order (a stable counting sort of keep by parent,
 * over the n_parents states of the layer before): each parent's state is then read once, in memory order, where
 * the truncation's order read them at random. A child uses the first free copy of its candidate's type: the first
 * zero bit from cand_first (expand took only candidates whose type's last bit is clear, so one is found by then).
 * Returns 0, or -1 when the scratch memory could not be had. */
int64_t em_beam_materialise(
    int64_t p, const int64_t *EM_RESTRICT keep, int64_t n, int64_t n_parents, const int32_t *EM_RESTRICT ch_parent,
    const int32_t *EM_RESTRICT ch_cand, const int32_t *EM_RESTRICT ch_brk, const int32_t *EM_RESTRICT ch_key,
    const int32_t *EM_RESTRICT ring, int64_t R, const uint64_t *EM_RESTRICT used, int64_t words,
    int32_t *EM_RESTRICT new_ring, uint64_t *EM_RESTRICT new_used, int32_t *EM_RESTRICT new_brk,
    int32_t *EM_RESTRICT new_key, int64_t slot, const int64_t *EM_RESTRICT cand_first,
    int32_t *EM_RESTRICT par, int32_t *EM_RESTRICT cand, int64_t forest_cols)
{
    int64_t *laid = malloc((size_t)(n > 0 ? n : 1) * sizeof *laid);
    if (!laid || counting_sort(keep, n, ch_parent, 0, n_parents, 0, laid) != 0) {
        free(laid);
        return -1;
    }
    for (int64_t j = 0; j < n; j++) {
        const int64_t i = laid[j];
        const int64_t s = ch_parent[i];
        const int32_t c = ch_cand[i];
        memcpy(new_ring + j * R, ring + s * R, (size_t)R * sizeof *ring);
        new_ring[j * R + slot] = c;
        uint64_t *EM_RESTRICT mine = new_used + j * words;
        memcpy(mine, used + s * words, (size_t)words * sizeof *used);
        for (int64_t b = cand_first[c];; b = ((b >> 6) + 1) << 6) {
            const uint64_t free_bits = ~mine[b >> 6] & (~0ull << (b & 63));
            if (free_bits) {
                mine[b >> 6] |= free_bits & (~free_bits + 1);
                break;
            }
        }
        new_brk[j] = ch_brk[i];
        new_key[j] = ch_key[i];
        par[p * forest_cols + j] = (int32_t)s;
        cand[p * forest_cols + j] = c;
    }
    free(laid);
    return 0;
}
