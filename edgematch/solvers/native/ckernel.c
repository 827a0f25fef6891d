/* The native engine's shared loops in C: the plain search (em_search), the search with propagation
 * (em_propagate), the tree probes of the estimate (em_probe) and the memoised count (em_memo). The best-score
 * loops sit beside their package (best/dfs.c, best/beam.c, best/repair.c); all are one extension module.
 *
 * Every loop takes numpy arrays as pointers to their C-contiguous data, plus the shapes it needs, keeps its
 * state in the caller's arrays (resumable: a call returns after a node budget) and returns a code.
 *
 * Their signatures are em_api.h's (included through em.h, so the compiler checks each definition against
 * it); cffi builds the binding from that header at install (build_kernel.py) into one extension module,
 * edgematch.solvers.native._ckernel, called from kernels.py. They use no Python API.
 *
 * Element types (tables.py and search.py make them so, kernels.py checks):
 *   uint32: order, key_a, key_b, base, extra_n, extra_src, extra_side, tab_start, tab_end, cand_type,
 *           cand_edge, placed, picks, ptr, end, out, width
 *   int32:  cand_vis, type_left, vis, turn_src
 *   int64:  state, counters, start, budget
 * Indices and counters are 64 bits.
 */

#include <stdint.h>

#include "em.h"

enum { DEPTH = 0, STARTED = 1, STORED = 2 };
enum { NODES = 0, SOLUTIONS = 1, CANONICAL = 2 };
enum { FINISHED = 0, BUDGET = 1, BUFFER_FULL = 2, OVERFLOW = 3 };

/* The compiler that built the library (the bench records it with the package versions). */
const char *em_compiler(void) {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "an unnamed C compiler";
#endif
}

static inline void bucket(int64_t d, const uint32_t *EM_RESTRICT base, const uint32_t *EM_RESTRICT key_a,
                          const uint32_t *EM_RESTRICT key_b, const uint32_t *EM_RESTRICT placed, uint64_t width,
                          const uint32_t *EM_RESTRICT tab_start, const uint32_t *EM_RESTRICT tab_end,
                          uint32_t *EM_RESTRICT ptr, uint32_t *EM_RESTRICT end) {
    uint64_t b = (uint64_t)base[d] + (uint64_t)placed[key_a[d]] * width + (uint64_t)placed[key_b[d]];
    ptr[d] = tab_start[b];
    end[d] = tab_end[b];
}

/* The bucket of position d right after the tile with norm edges `edge` went to placed[cell..cell+3]: a key that
 * is one of those sides is read from `edge` (no store-to-load round trip on the loop's critical path). */
static inline uint64_t bucket_after(int64_t d, int64_t cell, const uint32_t *EM_RESTRICT edge,
                                    const uint32_t *EM_RESTRICT base, const uint32_t *EM_RESTRICT key_a,
                                    const uint32_t *EM_RESTRICT key_b, const uint32_t *EM_RESTRICT placed,
                                    uint64_t width) {
    const uint64_t ka = key_a[d], kb = key_b[d];
    const uint64_t oa = ka - (uint64_t)cell, ob = kb - (uint64_t)cell;
    const uint64_t va = oa < 4 ? edge[oa] : placed[ka];
    const uint64_t vb = ob < 4 ? edge[ob] : placed[kb];
    return (uint64_t)base[d] + va * width + vb;
}

/* The first candidate from i on (before e) whose tile type has a copy left and that shows the labels of the
 * position's extra neighbours: e when none does. With `look` (a constant, 0 or the side the look-ahead's segments
 * run out of: the loop is compiled once for each), also one whose label on that side is in the mask `out_ok` (the
 * row look-ahead's). */
static inline __attribute__((always_inline)) int64_t look_fit(
    int64_t i, int64_t e, int64_t n_extra, const uint32_t *EM_RESTRICT ex_side, const uint32_t *EM_RESTRICT ex_src,
    const int32_t *EM_RESTRICT type_left, const uint32_t *EM_RESTRICT cand_type, const uint32_t *EM_RESTRICT cand_edge,
    const uint32_t *EM_RESTRICT placed, const int look, const uint64_t out_ok) {
    if (n_extra == 0) {
        while (i < e && ((look && !((out_ok >> cand_edge[i * 4 + look]) & 1)) || type_left[cand_type[i]] <= 0)) i++;
        return i;
    }
    for (; i < e; i++) {
        const uint32_t *edge = cand_edge + i * 4;
        if (look && !((out_ok >> edge[look]) & 1)) continue;
        if (type_left[cand_type[i]] <= 0) continue;
        int64_t x = 0;
        while (x < n_extra && edge[ex_side[x]] == placed[ex_src[x]]) x++;
        if (x == n_extra) break;
    }
    return i;
}

static inline __attribute__((always_inline)) int64_t next_fit(
    int64_t i, int64_t e, int64_t n_extra, const uint32_t *EM_RESTRICT ex_side, const uint32_t *EM_RESTRICT ex_src,
    const int32_t *EM_RESTRICT type_left, const uint32_t *EM_RESTRICT cand_type, const uint32_t *EM_RESTRICT cand_edge,
    const uint32_t *EM_RESTRICT placed) {
    return look_fit(i, e, n_extra, ex_side, ex_src, type_left, cand_type, cand_edge, placed, 0, 0);
}

/* Whether the board is least (lexicographically) among its allowed turns. */
static int canonical(const int32_t *EM_RESTRICT vis, int64_t n_vis, const int32_t *EM_RESTRICT turn_src,
                     int64_t n_turns, int64_t turn_cols) {
    for (int64_t k = 0; k < n_turns; k++) {
        const int32_t *src = turn_src + k * turn_cols;
        for (int64_t j = 0; j < n_vis; j++) {
            int32_t a = vis[j];
            int32_t b = vis[src[j]];
            if (b < a) return 0;
            if (b > a) break;
        }
    }
    return 1;
}

/* The row look-ahead (em_rows_t, rows.py). When a segment (a run of cells filled west to east, or in the column
 * order north to south) begins, rows_build lists for each of its cells c >= 1 the labels on its in side (west, or
 * north) from which cells c.. to its end can be filled with the tiles free then, a tile allowed in several cells
 * at once: entry c holds an in label x when some free candidate of cell c shows x on its in side and, on its out
 * side (east, or south), a label of entry c + 1 (the entry past the end holds every label). A candidate of cell c
 * is then tried only if its out label is in entry c + 1. The entries over-approximate what the run can take
 * (tiles reusable, the cells' further neighbours not asked), so no solution is lost and a search that ends
 * without one still proves there is none; the loop meets the same solutions in the same order, in fewer nodes.
 * The free tiles are kept as a bit per candidate (slot), set and cleared when a type's last copy is placed or
 * freed. */
static inline void rows_flip(const em_rows_t *EM_RESTRICT r, uint32_t type, int on) {
    for (int64_t k = (int64_t)type * r->pairs, e = k + r->pairs; k < e; k++) { /* a fixed count: no mispredicts */
        if (on)
            r->free[r->type_word[k]] |= r->type_bits[k];
        else
            r->free[r->type_word[k]] &= ~r->type_bits[k];
    }
}

static void rows_build(const em_rows_t *EM_RESTRICT r, int64_t seg, const uint32_t *EM_RESTRICT key_b,
                       const uint32_t *EM_RESTRICT placed) {
    const int64_t first = r->seg_first[seg], len = r->seg_len[seg];
    uint64_t *EM_RESTRICT entry = r->table + 1 + seg * r->span;
    uint64_t next = ~0ull;
    entry[len] = next;
    for (int64_t c = len - 1; c >= 1; c--) {
        const int64_t q = first + c;
        const int64_t g = r->group_base[q] + (int64_t)placed[key_b[q]];
        const int64_t w0 = r->group_word[g], w1 = w0 + r->group_words[g];
        uint64_t acc = 0;
        for (int64_t w = w0; w < w1; w++) {
            uint64_t m = r->free[w];
            const uint8_t *in = r->slot_in + w * 64, *out = r->slot_out + w * 64;
            while (m) {
                const int k = __builtin_ctzll(m);
                m &= m - 1;
                acc |= ((next >> out[k]) & 1) << in[k];
            }
        }
        entry[c] = next = acc;
        if (!acc) { /* no in label lets cells c.. be filled: nor can cells before c */
            for (int64_t k = c - 1; k >= 0; k--) entry[k] = 0;
            return;
        }
    }
    entry[0] = ~0ull;
}

/* On entering the loop: the free bits from type_left, and the tables of every segment the search can come back
 * to (those that begin at or before depth d and end at or after `start`), each from the tiles free at its first
 * position; picks below d are undone and redone to get them. */
static void rows_enter(const em_rows_t *EM_RESTRICT r, int64_t d, int64_t start, const uint32_t *EM_RESTRICT key_b,
                       const uint32_t *EM_RESTRICT cand_type, const uint32_t *EM_RESTRICT picks,
                       int32_t *EM_RESTRICT type_left, const uint32_t *EM_RESTRICT placed) {
    r->table[0] = ~0ull;
    for (int64_t w = 0; w < r->words; w++) r->free[w] = 0;
    for (int64_t t = 0; t < r->types; t++)
        if (type_left[t] > 0) rows_flip(r, (uint32_t)t, 1);
    const int32_t at_start = r->seg_of[start];
    const int64_t low = at_start >= 0 ? r->seg_first[at_start] : start;
    for (int64_t q = d; q >= low; q--) {
        if (q < d && type_left[cand_type[picks[q]]]++ == 0) rows_flip(r, cand_type[picks[q]], 1);
        const int32_t seg = r->seg_of[q];
        if (seg >= 0 && r->seg_first[seg] == q) rows_build(r, seg, key_b, placed);
    }
    for (int64_t q = low; q < d; q++)
        if (--type_left[cand_type[picks[q]]] == 0) rows_flip(r, cand_type[picks[q]], 0);
}

/* The plain search: iterative backtracking over precomputed tables. Run until `budget` more nodes (a node is
 * one placement of a tile), a full `out` buffer, or the end of the tree under `start`. Invariant between
 * calls: positions below state[DEPTH] hold their placements (ptr of each already past its pick); at
 * state[DEPTH] nothing is placed and ptr[depth] is the next candidate to try, end[depth] one past the last.
 * Shapes: order[P]; extra_src, extra_side [P, extra_cols]; cand_edge, cand_vis [C, 4]; vis[n_vis];
 * turn_src [n_turns, turn_cols]; out [cap, out_cols]. `rows`: the row look-ahead, or NULL (the loop is compiled
 * three times: without it, and with it for segments running east and south, so the plain one pays nothing for it
 * and the look-ahead's side is a constant). PLAIN_PARAMS is em_api.h's prototype (the
 * compiler checks em_search against it), PLAIN_ARGS the same names as arguments. */
#define PLAIN_PARAMS \
    const uint32_t *EM_RESTRICT order, int64_t P, \
    const uint32_t *EM_RESTRICT key_a, const uint32_t *EM_RESTRICT key_b, const uint32_t *EM_RESTRICT base, \
    const uint32_t *EM_RESTRICT extra_n, const uint32_t *EM_RESTRICT extra_src, \
    const uint32_t *EM_RESTRICT extra_side, int64_t extra_cols, \
    const uint32_t *EM_RESTRICT tab_start, const uint32_t *EM_RESTRICT tab_end, \
    const uint32_t *EM_RESTRICT cand_type, const uint32_t *EM_RESTRICT cand_edge, \
    const int32_t *EM_RESTRICT cand_vis, uint32_t width32, \
    int32_t *EM_RESTRICT type_left, uint32_t *EM_RESTRICT placed, int32_t *EM_RESTRICT vis, int64_t n_vis, \
    uint32_t *EM_RESTRICT picks, uint32_t *EM_RESTRICT ptr, uint32_t *EM_RESTRICT end, \
    int64_t *EM_RESTRICT state, int64_t start, int64_t budget, \
    const int32_t *EM_RESTRICT turn_src, int64_t n_turns, int64_t turn_cols, \
    int64_t count_canonical, uint32_t *EM_RESTRICT out, int64_t cap, int64_t out_cols, \
    int64_t *EM_RESTRICT counters, const em_rows_t *EM_RESTRICT rows
#define PLAIN_ARGS order, P, key_a, key_b, base, extra_n, extra_src, extra_side, extra_cols, tab_start, tab_end, \
    cand_type, cand_edge, cand_vis, width32, type_left, placed, vis, n_vis, picks, ptr, end, state, start, budget, \
    turn_src, n_turns, turn_cols, count_canonical, out, cap, out_cols, counters, rows

static inline __attribute__((always_inline)) int64_t plain_loop(PLAIN_PARAMS, const int look)
{
    const uint64_t width = width32;
    int64_t d = state[DEPTH];
    int64_t nodes = counters[NODES];
    const int64_t stop_at = nodes + budget;
    const int64_t last = P - 1;
    int64_t code = FINISHED;
    /* the scan position and end of depth d live in registers; ptr[d] and end[d] are written as before (so the
     * state between calls is the same), never read back on the way down */
    int64_t i = ptr[d];
    int64_t e = end[d];
    uint64_t out_ok = look ? rows->table[rows->check[d]] : 0; /* the labels depth d's candidates may show out */
    for (;;) {
        i = look_fit(i, e, extra_n[d], extra_side + d * extra_cols, extra_src + d * extra_cols, type_left, cand_type,
                     cand_edge, placed, look, out_ok);
        if (i >= e) {
            if (d == start) {
                ptr[d] = (uint32_t)i;
                break;
            }
            d--;
            const uint32_t t = cand_type[picks[d]];
            if (type_left[t]++ == 0 && look) rows_flip(rows, t, 1);
            i = ptr[d];
            e = end[d];
            if (look) out_ok = rows->table[rows->check[d]];
            continue;
        }
        ptr[d] = (uint32_t)(i + 1);
        nodes++;
        picks[d] = (uint32_t)i;
        if (d == last) {
            counters[SOLUTIONS] += 1;
            if (count_canonical) {
                for (int64_t q = 0; q < P; q++) {
                    const int64_t cell = (int64_t)order[q] * 4;
                    const int32_t *cv = cand_vis + (int64_t)picks[q] * 4;
                    for (int s = 0; s < 4; s++) vis[cell + s] = cv[s];
                }
                if (canonical(vis, n_vis, turn_src, n_turns, turn_cols)) counters[CANONICAL] += 1;
            }
            i++;
            const int64_t stored = state[STORED];
            if (stored < cap) {
                uint32_t *row = out + stored * out_cols;
                for (int64_t q = 0; q < P; q++) row[q] = picks[q];
                state[STORED] = stored + 1;
                if (stored + 1 == cap) {
                    code = BUFFER_FULL;
                    break;
                }
            }
            if (nodes >= stop_at) {
                code = BUDGET;
                break;
            }
            continue;
        }
        if (--type_left[cand_type[i]] == 0 && look) rows_flip(rows, cand_type[i], 0);
        const int64_t cell = (int64_t)order[d] * 4;
        const uint32_t *edge = cand_edge + i * 4;
        placed[cell] = edge[0];
        placed[cell + 1] = edge[1];
        placed[cell + 2] = edge[2];
        placed[cell + 3] = edge[3];
        d++;
        if (look) {
            const int32_t seg = rows->seg_of[d];
            if (seg >= 0 && rows->seg_first[seg] == d) rows_build(rows, seg, key_b, placed);
            out_ok = rows->table[rows->check[d]];
        }
        const uint64_t b = bucket_after(d, cell, edge, base, key_a, key_b, placed, width);
        i = tab_start[b];
        e = tab_end[b];
        ptr[d] = (uint32_t)i;
        end[d] = (uint32_t)e;
        if (nodes >= stop_at) {
            code = BUDGET;
            break;
        }
    }
    state[DEPTH] = d;
    counters[NODES] = nodes;
    return code;
}

int64_t em_search(PLAIN_PARAMS)
{
    const uint64_t width = width32;
    if (P <= 0) return FINISHED; /* nothing to place (callers never ask: every cell hinted is solved in Python) */
    if (state[STARTED] == 0) {
        state[STARTED] = 1;
        state[DEPTH] = start;
        bucket(start, base, key_a, key_b, placed, width, tab_start, tab_end, ptr, end);
    }
    if (rows) {
        rows_enter(rows, state[DEPTH], start, key_b, cand_type, picks, type_left, placed);
        return rows->out == 2 ? plain_loop(PLAIN_ARGS, 2) : plain_loop(PLAIN_ARGS, 1); /* south, or east */
    }
    return plain_loop(PLAIN_ARGS, 0); /* rows is NULL: the loop without the look-ahead */
}

/* ---------------------------------------------------------------------------------------------------------
 * em_propagate: the search with propagation (C only; propagate.py drives it). Options in `flags`:
 *   PROP_FC       forward checking: a placement that leaves an open neighbour with no candidate is refused
 *   PROP_DYNAMIC  dynamic order: the next cell is the open cell with the fewest candidates among those with a
 *                 placed neighbour (ties by the static order; the first open cell of the static order when no
 *                 open cell touches a placed one); a cell with none ends the branch, so it checks what FC does
 *   PROP_BOUNDS   colour-count bounds: for every tile class (frame sides 0..4) and visible colour, the unplaced
 *                 tiles of the class must show the colour at least as often as placed sides facing open cells
 *                 of that class ask for it (a necessary condition; parity is fixed at the start, see propagate.py)
 *   PROP_MATCH    matching: the open cells with a placed neighbour must take distinct free tiles, each fitting
 *                 its placed neighbours, so a matching of those cells to free tile copies must exist (Kuhn's
 *                 augmenting paths over the copies; it implies every per-colour pairing of asked and shown sides)
 * Every option only refuses placements that cannot lead to a solution, so counts stay exact (tests compare
 * them with the plain loop and a brute force). Same node meaning as em_search: one placement of a tile.
 * A cell's candidates come from the bucket of its (cell, known-sides mask): two known sides as keys, up to
 * two more as extras (m_* tables, [n * 16]). Solutions are stored by position of the static order, so
 * decode() reads them as em_search's.
 * State between calls: state[DEPTH]; per depth the cell, the bucket pointer, its end and the pick; per cell
 * `open` and `mask`; supply/demand. Depths below DEPTH hold their placements. */
enum { PROP_FC = 1, PROP_DYNAMIC = 2, PROP_BOUNDS = 4, PROP_MATCH = 8 };
#define PROP_CLASSES 5

typedef struct {
    int64_t n, P, flags;
    const uint32_t *order; const int32_t *pos_of_cell; const int32_t *neighbour;
    const uint32_t *m_base, *m_key_a, *m_key_b, *m_extra_n, *m_extra_src, *m_extra_side;
    const uint32_t *tab_start, *tab_end, *cand_type, *cand_edge; const int32_t *cand_vis; uint64_t width;
    const int32_t *cell_class, *vis_partner; int64_t n_labels; int32_t frame_vis;
    int32_t *supply, *demand;
    int32_t *type_left; uint32_t *placed; int32_t *open, *mask;
    /* matching: copy slots of type t are slot_base[t] .. + type_left[t] - 1; a slot is owned by frontier entry
     * owner[s] when owner_at[s] is the current check's stamp; seen[s] marks slots tried in one augmentation */
    const int32_t *slot_base; int32_t *owner, *frontier; int64_t *owner_at, *seen, *stamps;
} prop_t;

static inline void prop_bucket(const prop_t *g, int64_t cell, uint32_t *lo, uint32_t *hi) {
    const int64_t k = cell * 16 + g->mask[cell];
    const uint64_t b = (uint64_t)g->m_base[k] + (uint64_t)g->placed[g->m_key_a[k]] * g->width
                       + (uint64_t)g->placed[g->m_key_b[k]];
    *lo = g->tab_start[b];
    *hi = g->tab_end[b];
}

/* Whether candidate i is free and fits the extra known sides of `cell`. */
static inline int prop_fits(const prop_t *g, int64_t cell, int64_t i) {
    if (g->type_left[g->cand_type[i]] <= 0) return 0;
    const int64_t k = cell * 16 + g->mask[cell];
    const uint32_t *edge = g->cand_edge + i * 4;
    for (uint32_t x = 0; x < g->m_extra_n[k]; x++)
        if (edge[g->m_extra_side[k * 2 + x]] != g->placed[g->m_extra_src[k * 2 + x]]) return 0;
    return 1;
}

/* Candidates of `cell` that fit, counted up to `cap`. */
static inline int64_t prop_count(const prop_t *g, int64_t cell, int64_t cap) {
    uint32_t lo, hi;
    prop_bucket(g, cell, &lo, &hi);
    int64_t c = 0;
    for (int64_t i = lo; i < hi && c < cap; i++) c += prop_fits(g, cell, i);
    return c;
}

/* Place (sign +1) or lift (-1) candidate i on cell; returns 0 when a bound fails after placing. */
static int prop_apply(prop_t *g, int64_t cell, int64_t i, int sign) {
    const uint32_t *edge = g->cand_edge + i * 4;
    const int32_t *cv = g->cand_vis + i * 4;
    g->type_left[g->cand_type[i]] -= sign;
    g->open[cell] = sign < 0;
    if (sign > 0)
        for (int s = 0; s < 4; s++) g->placed[cell * 4 + s] = edge[s];
    for (int s = 0; s < 4; s++) {
        const int32_t y = g->neighbour[cell * 4 + s];
        if (y < 0) continue;
        if (sign > 0) g->mask[y] |= 1 << ((s + 2) & 3);
        else g->mask[y] &= ~(1 << ((s + 2) & 3));
    }
    if (!(g->flags & PROP_BOUNDS)) return 1;
    const int64_t L = g->n_labels, row = L + 1; /* supply and demand rows: a column per label, then overflow */
    const int64_t own = g->cell_class[cell] * row;
    for (int s = 0; s < 4; s++) {
        const int32_t v = cv[s];
        if (v == g->frame_vis) continue;
        g->supply[own + v] -= sign;
        const int32_t y = g->neighbour[cell * 4 + s];
        if (y < 0) continue;
        if (g->open[y]) {
            const int32_t want = g->vis_partner[v];
            g->demand[g->cell_class[y] * row + (want >= 0 ? want : L)] += sign; /* L: none can meet it */
        } else {
            g->demand[own + v] -= sign; /* the demand the placed neighbour made on this side, met */
        }
    }
    if (sign < 0) return 1;
    for (int s = 0; s < 4; s++) {
        const int32_t v = cv[s];
        if (v == g->frame_vis) continue;
        if (g->supply[own + v] < g->demand[own + v]) return 0;
        const int32_t y = g->neighbour[cell * 4 + s];
        if (y < 0 || !g->open[y]) continue;
        const int32_t want = g->vis_partner[v];
        const int64_t at = g->cell_class[y] * row + (want >= 0 ? want : L);
        if (want < 0 || g->supply[at] < g->demand[at]) return 0;
    }
    return 1;
}

/* The cell to fill at the next depth, or -1 when some open cell has no candidate left (dynamic order). */
static int64_t prop_choose(const prop_t *g, int64_t d) {
    if (!(g->flags & PROP_DYNAMIC)) return g->order[d];
    int64_t best = -1, best_count = INT64_MAX, first_open = -1;
    for (int64_t q = 0; q < g->P; q++) {
        const int64_t cell = g->order[q];
        if (!g->open[cell]) continue;
        if (first_open < 0) first_open = cell;
        if (g->mask[cell] == 0) continue;
        const int64_t c = prop_count(g, cell, best_count);
        if (c < best_count) {
            best = cell;
            best_count = c;
            if (c == 0) return -1;
        }
    }
    return best >= 0 ? best : first_open;
}

/* Whether every open neighbour of `cell` still has a candidate (forward checking). */
static int prop_neighbours_ok(const prop_t *g, int64_t cell) {
    for (int s = 0; s < 4; s++) {
        const int32_t y = g->neighbour[cell * 4 + s];
        if (y >= 0 && g->open[y] && prop_count(g, y, 1) == 0) return 0;
    }
    return 1;
}

/* One augmenting path from frontier entry k (Kuhn): a free copy of a fitting type, or one whose owner moves. */
static int match_augment(prop_t *g, int32_t k) {
    const int64_t cell = g->frontier[k];
    uint32_t lo, hi;
    prop_bucket(g, cell, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
        if (!prop_fits(g, cell, i)) continue;
        const int32_t t = (int32_t)g->cand_type[i];
        for (int32_t c = 0; c < g->type_left[t]; c++) {
            const int32_t slot = g->slot_base[t] + c;
            if (g->seen[slot] == g->stamps[1]) continue;
            g->seen[slot] = g->stamps[1];
            if (g->owner_at[slot] != g->stamps[0] || match_augment(g, g->owner[slot])) {
                g->owner_at[slot] = g->stamps[0];
                g->owner[slot] = k;
                return 1;
            }
        }
    }
    return 0;
}

/* Whether the open cells with a placed neighbour can all take distinct free fitting tiles (PROP_MATCH). */
static int prop_match(prop_t *g) {
    g->stamps[0]++;
    int32_t m = 0;
    for (int64_t q = 0; q < g->P; q++) {
        const int64_t cell = g->order[q];
        if (!g->open[cell] || g->mask[cell] == 0) continue;
        g->frontier[m] = (int32_t)cell;
        g->stamps[1]++;
        if (!match_augment(g, m)) return 0;
        m++;
    }
    return 1;
}

int64_t em_propagate(
    int64_t n, int64_t P, int64_t flags,
    const uint32_t *order, const int32_t *pos_of_cell, const int32_t *neighbour,
    const uint32_t *m_base, const uint32_t *m_key_a, const uint32_t *m_key_b,
    const uint32_t *m_extra_n, const uint32_t *m_extra_src, const uint32_t *m_extra_side,
    const uint32_t *tab_start, const uint32_t *tab_end,
    const uint32_t *cand_type, const uint32_t *cand_edge, const int32_t *cand_vis, uint32_t width32,
    const int32_t *cell_class, const int32_t *vis_partner, int64_t n_labels, int32_t frame_vis,
    int32_t *supply, int32_t *demand,
    const int32_t *slot_base, int32_t *owner, int32_t *frontier, int64_t *owner_at, int64_t *seen, int64_t *stamps,
    int32_t *type_left, uint32_t *placed, int32_t *open, int32_t *mask, int32_t *vis, int64_t n_vis,
    uint32_t *cell_at, uint32_t *picks, uint32_t *ptr, uint32_t *end,
    int64_t *state, int64_t budget,
    const int32_t *turn_src, int64_t n_turns, int64_t turn_cols,
    int64_t count_canonical, uint32_t *out, int64_t cap, int64_t out_cols,
    int64_t *counters)
{
    prop_t g = {n, P, flags, order, pos_of_cell, neighbour, m_base, m_key_a, m_key_b, m_extra_n, m_extra_src,
                m_extra_side, tab_start, tab_end, cand_type, cand_edge, cand_vis, width32, cell_class,
                vis_partner, n_labels, frame_vis, supply, demand, type_left, placed, open, mask,
                slot_base, owner, frontier, owner_at, seen, stamps};
    if (P <= 0) return FINISHED;
    int64_t d;
    if (state[STARTED] == 0) {
        state[STARTED] = 1;
        const int64_t cell = prop_choose(&g, 0);
        if (cell < 0) {
            state[DEPTH] = 0;
            ptr[0] = end[0] = 0;
            return FINISHED;
        }
        cell_at[0] = (uint32_t)cell;
        prop_bucket(&g, cell, &ptr[0], &end[0]);
    }
    d = state[DEPTH];
    int64_t nodes = counters[NODES];
    const int64_t stop_at = nodes + budget;
    const int64_t last = P - 1;
    int64_t code = FINISHED;
    for (;;) {
        const int64_t cell = cell_at[d];
        int64_t i = ptr[d];
        const int64_t e = end[d];
        while (i < e && !prop_fits(&g, cell, i)) i++;
        if (i >= e) {
            ptr[d] = (uint32_t)i;
            if (d == 0) break;
            d--;
            prop_apply(&g, cell_at[d], picks[d], -1);
            continue;
        }
        ptr[d] = (uint32_t)(i + 1);
        nodes++;
        picks[d] = (uint32_t)i;
        if (d == last) {
            counters[SOLUTIONS] += 1;
            if (count_canonical) {
                for (int64_t q = 0; q < P; q++) {
                    const int32_t *cv = cand_vis + (int64_t)picks[q] * 4;
                    for (int s = 0; s < 4; s++) vis[(int64_t)cell_at[q] * 4 + s] = cv[s];
                }
                if (canonical(vis, n_vis, turn_src, n_turns, turn_cols)) counters[CANONICAL] += 1;
            }
            const int64_t stored = state[STORED];
            if (stored < cap) {
                uint32_t *row = out + stored * out_cols;
                for (int64_t q = 0; q < P; q++) row[pos_of_cell[cell_at[q]]] = picks[q];
                state[STORED] = stored + 1;
                if (stored + 1 == cap) {
                    code = BUFFER_FULL;
                    break;
                }
            }
        } else {
            int ok = prop_apply(&g, cell, i, +1);
            if (ok && (flags & PROP_FC) && !(flags & PROP_DYNAMIC)) ok = prop_neighbours_ok(&g, cell);
            if (ok && (flags & PROP_MATCH)) ok = prop_match(&g);
            int64_t next = -1;
            if (ok) {
                next = prop_choose(&g, d + 1);
                ok = next >= 0;
            }
            if (!ok) {
                prop_apply(&g, cell, i, -1);
            } else {
                d++;
                cell_at[d] = (uint32_t)next;
                prop_bucket(&g, next, &ptr[d], &end[d]);
            }
        }
        if (nodes >= stop_at) {
            code = BUDGET;
            break;
        }
    }
    state[DEPTH] = d;
    counters[NODES] = nodes;
    return code;
}

/* ---------------------------------------------------------------------------------------------------------
 * em_probe: Knuth's estimate of the plain search's tree (D. E. Knuth, "Estimating the efficiency of
 * backtrack programs", 1975). A probe walks from the root, at each depth choosing one of the k fitting
 * candidates uniformly at random and multiplying its weight by k; the weight at depth d is an unbiased
 * estimate of the number of nodes at that depth, and at the last depth of the number of solutions (boards).
 * From depth `exact_from` on (P: never) a probe counts the subtree below its path exactly instead and adds
 * it times its weight, still unbiased, with far less spread where solutions are rare deep in the tree.
 * Same tables and node meaning as em_search (a node is one placement); with `rows` (not NULL) the tree of the
 * loop with the row look-ahead: a candidate it would skip is no choice, and the tables are built where it builds them.
 *
 * Resumable, as em_search: a call runs until `probes` probes are done (FINISHED) or until it has spent
 * `budget` nodes (random steps and exact nodes alike; BUDGET), so one call returns within a bounded slice
 * however large an exact subtree is, and the driver (count/estimate.py) reads its clock and Ctrl-C between
 * calls. An exact subtree that takes more than `exact_cap` nodes (0: no cap) is given up and the probe walks
 * on at random from the same depth instead: whether a subtree passes the cap depends only on the node the
 * walk reached (the search's order is fixed), and both ways estimate its subtree without bias, so the
 * estimate stays unbiased while no probe can hold the batches for long (stats[6] counts such probes).
 * A probe in progress is carried over in `state` (P_* slots), `acc` (its weight, size, boards and its exact
 * subtree's nodes and boards so far) and picks/ptr/end (the walk's picks at depths below the exact depth,
 * the exact search's stack from it); state all zero starts afresh from `seed`. `type_left` and
 * `placed` are restored after each probe done (a probe abandoned between calls leaves them in use).
 * Outputs: level[d] += weight at depth d (random part only); stats[0..3] += per-probe tree size, its square,
 * per-probe boards, its square; stats[4] += depth the walk reached (where exact counting began); stats[5] += 1
 * for a probe that met a board; stats[6] += 1 for a probe whose exact subtree passed the cap.
 * `scratch` holds at least as many entries as there are candidates; ptr and end at least P. */
enum { P_DONE = 0, P_PHASE = 1, P_DEPTH = 2, P_FROM = 3, P_AT = 4, P_RNG = 5, P_PLAIN = 6, P_SLOTS = 7 };
enum { PHASE_NEW = 0, PHASE_WALK = 1, PHASE_EXACT = 2 };
enum { A_WEIGHT = 0, A_SIZE = 1, A_SOLS = 2, A_NODES = 3, A_BOARDS = 4 };

typedef struct {
    const uint32_t *order; int64_t P;
    const uint32_t *key_a, *key_b, *base, *extra_n, *extra_src, *extra_side; int64_t extra_cols;
    const uint32_t *tab_start, *tab_end, *cand_type, *cand_edge; uint64_t width;
    int32_t *type_left; uint32_t *placed;
    const em_rows_t *rows;
} probe_t;

static inline int probe_fits(const probe_t *g, int64_t d, int64_t i) {
    if (g->type_left[g->cand_type[i]] <= 0) return 0;
    const uint32_t *edge = g->cand_edge + i * 4;
    if (g->rows && !((g->rows->table[g->rows->check[d]] >> edge[g->rows->out]) & 1)) return 0;
    for (int64_t x = 0; x < (int64_t)g->extra_n[d]; x++)
        if (edge[g->extra_side[d * g->extra_cols + x]] != g->placed[g->extra_src[d * g->extra_cols + x]]) return 0;
    return 1;
}

static inline uint64_t probe_bucket(const probe_t *g, int64_t d) {
    return (uint64_t)g->base[d] + (uint64_t)g->placed[g->key_a[d]] * g->width + (uint64_t)g->placed[g->key_b[d]];
}

/* Place candidate i at depth d; with the look-ahead, its type's bits go with its last copy, and the tables of a
 * segment beginning at d + 1 are built. */
static inline void probe_place(const probe_t *g, int64_t d, int64_t i) {
    if (--g->type_left[g->cand_type[i]] == 0 && g->rows) rows_flip(g->rows, g->cand_type[i], 0);
    const int64_t cell = (int64_t)g->order[d] * 4;
    for (int s = 0; s < 4; s++) g->placed[cell + s] = g->cand_edge[i * 4 + s];
    if (g->rows && d + 1 < g->P) {
        const int32_t seg = g->rows->seg_of[d + 1];
        if (seg >= 0 && g->rows->seg_first[seg] == d + 1) rows_build(g->rows, seg, g->key_b, g->placed);
    }
}

static inline void probe_lift(const probe_t *g, uint32_t i) { /* the tile of candidate i is free again */
    if (g->type_left[g->cand_type[i]]++ == 0 && g->rows) rows_flip(g->rows, g->cand_type[i], 1);
}

static inline uint64_t probe_next(uint64_t *s) { return em_next(s); } /* xorshift64* */

int64_t em_probe(
    const uint32_t *EM_RESTRICT order, int64_t P,
    const uint32_t *EM_RESTRICT key_a, const uint32_t *EM_RESTRICT key_b, const uint32_t *EM_RESTRICT base,
    const uint32_t *EM_RESTRICT extra_n, const uint32_t *EM_RESTRICT extra_src,
    const uint32_t *EM_RESTRICT extra_side, int64_t extra_cols,
    const uint32_t *EM_RESTRICT tab_start, const uint32_t *EM_RESTRICT tab_end,
    const uint32_t *EM_RESTRICT cand_type, const uint32_t *EM_RESTRICT cand_edge, uint32_t width32,
    int32_t *EM_RESTRICT type_left, uint32_t *EM_RESTRICT placed, uint32_t *EM_RESTRICT picks,
    uint32_t *EM_RESTRICT scratch, uint32_t *EM_RESTRICT ptr, uint32_t *EM_RESTRICT end,
    int64_t probes, uint64_t seed, int64_t exact_from, int64_t exact_cap, int64_t budget,
    int64_t *EM_RESTRICT state, double *EM_RESTRICT acc, double *EM_RESTRICT level, double *EM_RESTRICT stats,
    const em_rows_t *EM_RESTRICT rows)
{
    const probe_t g = {order, P, key_a, key_b, base, extra_n, extra_src, extra_side, extra_cols,
                       tab_start, tab_end, cand_type, cand_edge, width32, type_left, placed, rows};
    uint64_t rng = (uint64_t)state[P_RNG];
    if (rng == 0) {
        rng = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
        if (rng == 0) rng = 1;
    }
    int64_t k = state[P_DONE], phase = state[P_PHASE], d = state[P_DEPTH], x = state[P_FROM], at = state[P_AT];
    int64_t plain = state[P_PLAIN]; /* this probe's exact part passed the cap: it walks to the end */
    int64_t spent = 0, code = FINISHED;
    if (P <= 0) k = probes;
    if (rows && P > 0) /* the look-ahead's bits and tables as the probe in progress left them (none: at the root) */
        rows_enter(rows, phase == PHASE_EXACT ? at : phase == PHASE_WALK ? d : 0, 0, key_b, cand_type, picks,
                   type_left, placed);
    while (k < probes) {
        if (phase == PHASE_NEW) {
            acc[A_WEIGHT] = 1.0;
            acc[A_SIZE] = acc[A_SOLS] = acc[A_NODES] = acc[A_BOARDS] = 0.0;
            d = 0;
            plain = 0;
            phase = PHASE_WALK;
        }
        int done = 0, again = 0; /* the probe ends in this pass; it walks on after its exact part's cap */
        if (phase == PHASE_WALK) {
            double weight = acc[A_WEIGHT];
            for (;;) {
                if (d >= P) { done = 1; break; }
                if (d >= exact_from && !plain) { /* count the subtree below the path exactly, from depth d */
                    x = at = d;
                    const uint64_t b = probe_bucket(&g, d);
                    ptr[d] = tab_start[b];
                    end[d] = tab_end[b];
                    phase = PHASE_EXACT;
                    break;
                }
                if (spent >= budget) break;
                const uint64_t b = probe_bucket(&g, d);
                int64_t fit = 0;
                for (int64_t i = tab_start[b]; i < (int64_t)tab_end[b]; i++)
                    if (probe_fits(&g, d, i)) scratch[fit++] = (uint32_t)i;
                if (fit == 0) { done = 1; break; }
                spent++;
                weight *= (double)fit;
                level[d] += weight;
                acc[A_SIZE] += weight;
                const uint32_t i = scratch[probe_next(&rng) % (uint64_t)fit];
                picks[d] = i;
                probe_place(&g, d, i);
                if (d == P - 1) acc[A_SOLS] = weight;
                d++;
            }
            acc[A_WEIGHT] = weight;
        }
        if (phase == PHASE_EXACT) { /* the exact search's stack: picks, ptr, end at depths x .. at */
            double nodes = acc[A_NODES], boards = acc[A_BOARDS];
            for (;;) {
                int64_t i = ptr[at];
                const int64_t e = end[at];
                while (i < e && !probe_fits(&g, at, i)) i++;
                if (i >= e) {
                    ptr[at] = (uint32_t)i;
                    if (at == x) { done = 1; break; }
                    at--;
                    probe_lift(&g, picks[at]);
                    continue;
                }
                if (spent >= budget) break; /* resumes at this candidate */
                if (exact_cap > 0 && nodes >= exact_cap) { /* give the subtree up: walk on from depth x */
                    for (int64_t q = x; q < at; q++) probe_lift(&g, picks[q]);
                    nodes = boards = 0.0;
                    plain = 1;
                    stats[6] += 1.0;
                    d = x;
                    phase = PHASE_WALK;
                    again = 1;
                    break;
                }
                ptr[at] = (uint32_t)(i + 1);
                spent++;
                nodes += 1.0;
                if (at == P - 1) {
                    boards += 1.0;
                    continue;
                }
                picks[at] = (uint32_t)i;
                probe_place(&g, at, i);
                at++;
                const uint64_t b = probe_bucket(&g, at);
                ptr[at] = tab_start[b];
                end[at] = tab_end[b];
            }
            acc[A_NODES] = nodes;
            acc[A_BOARDS] = boards;
            if (done) {
                acc[A_SIZE] += acc[A_WEIGHT] * nodes;
                acc[A_SOLS] += acc[A_WEIGHT] * boards;
            }
        }
        if (again) continue;
        if (!done) {
            code = BUDGET;
            break;
        }
        const double size = acc[A_SIZE], sols = acc[A_SOLS];
        stats[0] += size;
        stats[1] += size * size;
        stats[2] += sols;
        stats[3] += sols * sols;
        stats[4] += (double)d;
        stats[5] += sols > 0.0;
        const int64_t placed_to = d < P ? d : P; /* the walk's placements (the exact part lifted its own) */
        for (int64_t q = 0; q < placed_to; q++) probe_lift(&g, picks[q]); /* placed[] is rewritten before read */
        phase = PHASE_NEW;
        k++;
    }
    state[P_DONE] = k;
    state[P_PHASE] = phase;
    state[P_DEPTH] = d;
    state[P_FROM] = x;
    state[P_AT] = at;
    state[P_RNG] = (int64_t)rng;
    state[P_PLAIN] = plain;
    return code;
}

/* ---------------------------------------------------------------------------------------------------------
 * em_memo: em_search's count (no stored solutions, no canonical test) that remembers how many boards
 * complete a state. The boards below depth d depend only on d, on the labels placed cells show towards open
 * cells (`front_idx[front_start[d]..front_start[d+1]]`, indices into `placed`) and on the types still free.
 * The first time such a state is searched its count is stored; later visits add it without searching.
 * A state's key is exact, packed in `key_w` words: d; the front's labels, `label_bits` each, as many to a word
 * as fit; the free copies of every type in its own bit field (`type_word`, `type_shift`: kept up to date as
 * tiles are placed and lifted). So states are merged only when equal, never on a hash collision. The table
 * has `n_slots` slots in buckets of 4, each slot its work (nodes its search took; 0: empty), its count and its
 * key in one record (one cache miss per look-up); a full bucket drops its cheapest subtree.
 * Depths with memo_at[d] == 0 are searched plainly (the driver turns off depths whose hits save little:
 * d_lookups, d_saved). Counters: NODES, SOLUTIONS, then M_LOOKUPS, M_HITS, M_STORES, M_EVICTED.
 * Returns OVERFLOW when the board count would pass 2^63 - 1. */
enum { M_LOOKUPS = 3, M_HITS = 4, M_STORES = 5, M_EVICTED = 6, M_JOINS = 7, M_JOINS_ABORTED = 8 };
#define MEMO_MAX_WORDS 64

typedef struct {
    const uint32_t *front_start, *front_idx; int64_t label_bits, front_words, key_w;
    uint64_t *slot; int64_t n_slots; /* slot s: slot[s * (2 + key_w)]: work, count, then the key's words */
} memo_t;

static inline uint64_t memo_mix(uint64_t x) { /* splitmix64's finaliser */
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27; x *= 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* The key of the state at depth d into out[key_w]; returns its hash. */
static inline uint64_t memo_key(const memo_t *m, int64_t d, const uint32_t *placed, const uint64_t *types,
                                int64_t type_words, uint64_t *out) {
    out[0] = (uint64_t)d;
    int64_t k = 1;
    const uint32_t lo = m->front_start[d], hi = m->front_start[d + 1];
    for (int64_t w = 0; w < m->front_words; w++) out[k + w] = 0;
    int64_t w = k, shift = 0;
    for (uint32_t j = lo; j < hi; j++) {
        if (shift + m->label_bits > 64) { w++; shift = 0; }
        out[w] |= (uint64_t)placed[m->front_idx[j]] << shift;
        shift += m->label_bits;
    }
    k += m->front_words;
    for (int64_t w = 0; w < type_words; w++) out[k + w] = types[w];
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int64_t w = 0; w < m->key_w; w++) h = memo_mix(h ^ out[w]);
    return h;
}

static inline int64_t memo_find(const memo_t *m, uint64_t h, const uint64_t *key) {
    const int64_t b = (int64_t)(h & (uint64_t)(m->n_slots - 1)) & ~(int64_t)3, rec = 2 + m->key_w;
    for (int64_t s = b; s < b + 4; s++) {
        const uint64_t *r = m->slot + s * rec;
        if (r[0] == 0) continue;
        int64_t j = 0;
        while (j < m->key_w && r[2 + j] == key[j]) j++;
        if (j == m->key_w) return s;
    }
    return -1;
}

static inline void memo_store(const memo_t *m, uint64_t h, const uint64_t *key, int64_t count, int64_t work,
                              int64_t *counters) {
    const int64_t b = (int64_t)(h & (uint64_t)(m->n_slots - 1)) & ~(int64_t)3, rec = 2 + m->key_w;
    int64_t at = b;
    for (int64_t s = b; s < b + 4; s++) {
        const uint64_t w = m->slot[s * rec];
        if (w == 0) { at = s; break; }
        if (w < m->slot[at * rec]) at = s;
    }
    uint64_t *r = m->slot + at * rec;
    if (r[0] > 0) counters[M_EVICTED] += 1; /* the bucket's cheapest subtree makes room */
    r[0] = work > 0 ? (uint64_t)work : 1;
    r[1] = (uint64_t)count;
    for (int64_t j = 0; j < m->key_w; j++) r[2 + j] = key[j];
    counters[M_STORES] += 1;
}

/* The join (meet in the middle) the memoised count runs at depth `join_at`: the boards below a state there
 * are the pairs of a top filling t of positions [join_at, split) (the main tables) and a bottom filling b of
 * the positions after `split` that agree on the seams between them and use the free tiles exactly once.
 * The bottom fillings are enumerated first, in tables of their own that fill the bottom region right after
 * the state's cells (so a bottom cell sees only the state's cells and other bottom cells), into a map keyed by
 * (the labels the bottom shows towards the top, the types it used); then every top filling adds the count of
 * the key (the labels the top shows towards the bottom, the types it left). Labels are norm labels, equal
 * exactly when a seam fits. Exact keys as the memo's; a map past 3/4 full, or more than `cap` nodes (the
 * step's budget plus `j_cap`: a join never holds the loop much past its slice, where time limits, progress and
 * Ctrl-C are handled), aborts the join (returns 0) and the loop searches below the state plainly instead. */
typedef struct {
    const uint32_t *order, *key_a, *key_b, *base, *extra_n, *extra_src, *extra_side; int64_t extra_cols;
    const uint32_t *tab_start, *tab_end, *cand_type, *cand_edge; uint64_t width;
} tabs_t;

typedef struct {
    uint64_t *slot; int64_t n_slots, rec; int64_t *used; int64_t n_used;
} jmap_t; /* slot s: slot[s * rec]: count (0: empty), then the key's words */

typedef struct {
    const uint32_t *lab; int64_t n_lab, label_bits, lab_words;
    int64_t n_types; const uint32_t *type_word, *type_shift; int64_t type_words;
} jkey_t;

/* The key of a leaf: labels at lab[], then the type words: `tw` (the free copies, packed as the memo's; mode
 * 1: what the top left) or `left0w - tw` (mode 0: what the bottom used; no field borrows, as each holds a
 * difference >= 0). Returns its hash. */
static inline uint64_t join_key(const jkey_t *k, const uint32_t *placed, const uint64_t *tw, const uint64_t *left0w,
                                int mode, uint64_t *out) {
    const int64_t w = k->lab_words + k->type_words;
    for (int64_t j = 0; j < k->lab_words; j++) out[j] = 0;
    int64_t word = 0, shift = 0;
    for (int64_t j = 0; j < k->n_lab; j++) {
        if (shift + k->label_bits > 64) { word++; shift = 0; }
        out[word] |= (uint64_t)placed[k->lab[j]] << shift;
        shift += k->label_bits;
    }
    for (int64_t j = 0; j < k->type_words; j++) out[k->lab_words + j] = mode ? tw[j] : left0w[j] - tw[j];
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int64_t j = 0; j < w; j++) h = memo_mix(h ^ out[j]);
    return h;
}

/* The slot holding `key`, or the empty slot where it would go. */
static inline int64_t join_slot(const jmap_t *m, uint64_t h, const uint64_t *key) {
    int64_t s = (int64_t)(h & (uint64_t)(m->n_slots - 1));
    for (;;) {
        const uint64_t *r = m->slot + s * m->rec;
        if (r[0] == 0) return s;
        int64_t j = 1;
        while (j < m->rec && r[j] == key[j - 1]) j++;
        if (j == m->rec) return s;
        s = (s + 1) & (m->n_slots - 1);
    }
}

/* Every filling of positions [lo, hi) of `t` under what is placed: mode 0 counts each into the map, mode 1
 * adds the map's count of each to *total. Returns 0 when the map is too full or `cap` nodes are spent
 * (type_left is restored either way; placed holds leftovers no later read sees). */
static int join_enum(const tabs_t *t, int64_t lo, int64_t hi, int32_t *type_left, uint32_t *placed,
                     const uint64_t *left0w, uint32_t *picks, uint32_t *ptr, uint32_t *end, int mode,
                     const jkey_t *k, jmap_t *m, uint64_t *key, int64_t *nodes, int64_t cap, int64_t *total) {
    if (lo >= hi) return 1;
    int64_t d = lo, ok = 1;
    uint64_t tw[MEMO_MAX_WORDS]; /* type_left packed, kept as tiles are placed and lifted */
    for (int64_t j = 0; j < k->type_words; j++) tw[j] = left0w[j];
    bucket(d, t->base, t->key_a, t->key_b, placed, t->width, t->tab_start, t->tab_end, ptr, end);
    for (;;) {
        const int64_t e = end[d];
        const int64_t i = next_fit(ptr[d], e, t->extra_n[d], t->extra_side + d * t->extra_cols,
                                   t->extra_src + d * t->extra_cols, type_left, t->cand_type, t->cand_edge, placed);
        if (i >= e) {
            if (d == lo) break;
            d--;
            const uint32_t up = t->cand_type[picks[d]];
            type_left[up] += 1;
            tw[k->type_word[up]] += (uint64_t)1 << k->type_shift[up];
            continue;
        }
        ptr[d] = (uint32_t)(i + 1);
        *nodes += 1;
        picks[d] = (uint32_t)i;
        const uint32_t ty = t->cand_type[i];
        type_left[ty] -= 1;
        tw[k->type_word[ty]] -= (uint64_t)1 << k->type_shift[ty];
        const int64_t cell = (int64_t)t->order[d] * 4;
        const uint32_t *edge = t->cand_edge + i * 4;
        for (int s = 0; s < 4; s++) placed[cell + s] = edge[s];
        if (d == hi - 1) { /* a whole filling: its key */
            const uint64_t h = join_key(k, placed, tw, left0w, mode, key);
            const int64_t s = join_slot(m, h, key);
            uint64_t *r = m->slot + s * m->rec;
            if (mode == 0) {
                if (r[0] == 0) {
                    if (4 * (m->n_used + 1) > 3 * m->n_slots) ok = 0;
                    else {
                        for (int64_t j = 1; j < m->rec; j++) r[j] = key[j - 1];
                        m->used[m->n_used++] = s;
                    }
                }
                if (ok) r[0] += 1;
            } else if (r[0] != 0) {
                if (__builtin_add_overflow(*total, (int64_t)r[0], total)) ok = 0;
            }
            type_left[ty] += 1;
            tw[k->type_word[ty]] += (uint64_t)1 << k->type_shift[ty];
            if (!ok) break;
        } else {
            d++;
            bucket(d, t->base, t->key_a, t->key_b, placed, t->width, t->tab_start, t->tab_end, ptr, end);
        }
        if (*nodes >= cap) { ok = 0; break; }
    }
    if (!ok)
        for (int64_t q = lo; q < d; q++) type_left[t->cand_type[picks[q]]] += 1;
    return (int)ok;
}

/* The boards below the state at depth `at` by the join, into *total; 0 when it aborted. */
static int join_count(const tabs_t *top, const tabs_t *bot, int64_t at, int64_t split, int64_t bottom_end,
                      int32_t *type_left, uint32_t *placed, int64_t n_types, uint32_t *picks,
                      uint32_t *ptr, uint32_t *end, const jkey_t *kb, const jkey_t *kt, jmap_t *m, uint64_t *key,
                      int64_t *nodes, int64_t cap, int64_t *total) {
    uint64_t left0w[MEMO_MAX_WORDS];
    for (int64_t j = 0; j < kb->type_words; j++) left0w[j] = 0;
    for (int64_t t = 0; t < n_types; t++) left0w[kb->type_word[t]] += (uint64_t)type_left[t] << kb->type_shift[t];
    m->n_used = 0;
    int ok = join_enum(bot, at, bottom_end, type_left, placed, left0w, picks, ptr, end, 0, kb, m, key, nodes,
                       cap, total);
    if (ok) ok = join_enum(top, at, split, type_left, placed, left0w, picks, ptr, end, 1, kt, m, key, nodes,
                           cap, total);
    for (int64_t j = 0; j < m->n_used; j++) m->slot[m->used[j] * m->rec] = 0;
    m->n_used = 0;
    return ok;
}

int64_t em_memo(
    const uint32_t *EM_RESTRICT order, int64_t P,
    const uint32_t *EM_RESTRICT key_a, const uint32_t *EM_RESTRICT key_b, const uint32_t *EM_RESTRICT base,
    const uint32_t *EM_RESTRICT extra_n, const uint32_t *EM_RESTRICT extra_src,
    const uint32_t *EM_RESTRICT extra_side, int64_t extra_cols,
    const uint32_t *EM_RESTRICT tab_start, const uint32_t *EM_RESTRICT tab_end,
    const uint32_t *EM_RESTRICT cand_type, const uint32_t *EM_RESTRICT cand_edge, uint32_t width32,
    int32_t *EM_RESTRICT type_left, uint32_t *EM_RESTRICT placed,
    uint32_t *EM_RESTRICT picks, uint32_t *EM_RESTRICT ptr, uint32_t *EM_RESTRICT end,
    int64_t *EM_RESTRICT state, int64_t start, int64_t budget,
    int64_t n_types, const uint32_t *type_word, const uint32_t *type_shift, int64_t type_words,
    const uint32_t *front_start, const uint32_t *front_idx, int64_t label_bits, int64_t front_words,
    const uint8_t *memo_at, uint64_t *m_slot, int64_t n_slots,
    int64_t *d_sol, int64_t *d_nodes, uint64_t *d_hash, uint8_t *d_pending, int64_t *d_lookups,
    int64_t *d_saved,
    int64_t join_at, int64_t split, int64_t bottom_end,
    const uint32_t *b_order, const uint32_t *b_key_a, const uint32_t *b_key_b, const uint32_t *b_base,
    const uint32_t *b_extra_n, const uint32_t *b_extra_src, const uint32_t *b_extra_side,
    const uint32_t *b_tab_start, const uint32_t *b_tab_end, const uint32_t *b_cand_type, const uint32_t *b_cand_edge,
    const uint32_t *lab_top, const uint32_t *lab_bottom, int64_t n_lab, int64_t lab_words,
    uint64_t *j_slot, int64_t j_slots, int64_t *j_used, uint32_t *j_picks, uint32_t *j_ptr,
    uint32_t *j_end, int64_t j_cap,
    int64_t *EM_RESTRICT counters)
{
    const uint64_t width = width32;
    const memo_t m = {front_start, front_idx, label_bits, front_words, 1 + front_words + type_words,
                      m_slot, n_slots};
    if (P <= 0) return FINISHED;
    if (m.key_w > MEMO_MAX_WORDS) return OVERFLOW; /* memo.py never asks */
    uint64_t types[MEMO_MAX_WORDS], key[MEMO_MAX_WORDS];
    const tabs_t top = {order, key_a, key_b, base, extra_n, extra_src, extra_side, extra_cols,
                        tab_start, tab_end, cand_type, cand_edge, width};
    const tabs_t bot = {b_order, b_key_a, b_key_b, b_base, b_extra_n, b_extra_src, b_extra_side, extra_cols,
                        b_tab_start, b_tab_end, b_cand_type, b_cand_edge, width};
    const jkey_t kt = {lab_top, n_lab, label_bits, lab_words, n_types, type_word, type_shift, type_words};
    const jkey_t kb = {lab_bottom, n_lab, label_bits, lab_words, n_types, type_word, type_shift, type_words};
    jmap_t jm = {j_slot, j_slots, 1 + lab_words + type_words, j_used, 0};
    if (join_at >= 0 && 1 + lab_words + type_words > MEMO_MAX_WORDS) return OVERFLOW; /* memo.py never asks */
    for (int64_t w = 0; w < type_words; w++) types[w] = 0;
    for (int64_t t = 0; t < n_types; t++) types[type_word[t]] += (uint64_t)type_left[t] << type_shift[t];
    if (state[STARTED] == 0) {
        state[STARTED] = 1;
        state[DEPTH] = start;
        bucket(start, base, key_a, key_b, placed, width, tab_start, tab_end, ptr, end);
        d_pending[start] = 0;
    }
    int64_t d = state[DEPTH];
    int64_t nodes = counters[NODES];
    int64_t boards = counters[SOLUTIONS];
    const int64_t stop_at = nodes + budget;
    const int64_t last = P - 1;
    int64_t code = FINISHED;
    int64_t i = ptr[d]; /* as in em_search: depth d's scan position and end in registers, written back as before */
    int64_t e = end[d];
    for (;;) {
        i = next_fit(i, e, extra_n[d], extra_side + d * extra_cols, extra_src + d * extra_cols, type_left, cand_type,
                     cand_edge, placed);
        if (i >= e) {
            ptr[d] = (uint32_t)i;
            if (d_pending[d]) { /* the state at depth d is searched: remember its boards */
                d_pending[d] = 0;
                memo_key(&m, d, placed, types, type_words, key);
                memo_store(&m, d_hash[d], key, boards - d_sol[d], nodes - d_nodes[d], counters);
            }
            if (d == start) break;
            d--;
            const uint32_t t = cand_type[picks[d]];
            type_left[t] += 1;
            types[type_word[t]] += (uint64_t)1 << type_shift[t];
            i = ptr[d];
            e = end[d];
            continue;
        }
        ptr[d] = (uint32_t)(i + 1);
        nodes++;
        picks[d] = (uint32_t)i;
        if (d == last) {
            if (boards == INT64_MAX) { code = OVERFLOW; break; }
            boards += 1;
            i++;
            if (nodes >= stop_at) {
                code = BUDGET;
                break;
            }
            continue;
        }
        const uint32_t t = cand_type[i];
        type_left[t] -= 1;
        types[type_word[t]] -= (uint64_t)1 << type_shift[t];
        const int64_t cell = (int64_t)order[d] * 4;
        const uint32_t *edge = cand_edge + i * 4;
        placed[cell] = edge[0];
        placed[cell + 1] = edge[1];
        placed[cell + 2] = edge[2];
        placed[cell + 3] = edge[3];
        d++;
        const uint64_t b = bucket_after(d, cell, edge, base, key_a, key_b, placed, width);
        i = tab_start[b];
        e = tab_end[b];
        ptr[d] = (uint32_t)i;
        end[d] = (uint32_t)e;
        d_pending[d] = 0;
        if (memo_at[d]) {
            const uint64_t h = memo_key(&m, d, placed, types, type_words, key);
            counters[M_LOOKUPS] += 1;
            d_lookups[d] += 1;
            const int64_t s = memo_find(&m, h, key);
            if (s >= 0) {
                counters[M_HITS] += 1;
                const uint64_t *r = m_slot + s * (2 + m.key_w);
                d_saved[d] += (int64_t)r[0];
                if (__builtin_add_overflow(boards, (int64_t)r[1], &boards)) { code = OVERFLOW; break; }
                ptr[d] = end[d]; /* nothing left to search here */
                i = e;
            } else {
                d_pending[d] = 1;
                d_hash[d] = h;
                d_sol[d] = boards;
                d_nodes[d] = nodes;
            }
        }
        if (d == join_at && i < e) { /* not a memo hit: the boards below by the join, if it fits */
            int64_t below = 0;
            if (join_count(&top, &bot, d, split, bottom_end, type_left, placed, n_types, j_picks, j_ptr,
                           j_end, &kb, &kt, &jm, key, &nodes, (stop_at > nodes ? stop_at : nodes) + j_cap, &below)) {
                counters[M_JOINS] += 1;
                if (__builtin_add_overflow(boards, below, &boards)) { code = OVERFLOW; break; }
                ptr[d] = end[d];
                i = e;
            } else {
                counters[M_JOINS_ABORTED] += 1;
            }
        }
        if (nodes >= stop_at) {
            code = BUDGET;
            break;
        }
    }
    state[DEPTH] = d;
    counters[NODES] = nodes;
    counters[SOLUTIONS] = boards;
    return code;
}
