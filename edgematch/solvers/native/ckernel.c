/* The native search loop in C: an exact port of kernel.search (the numba kernel), compiled ahead of time.
 *
 * Same arguments (numpy arrays as pointers to their C-contiguous data, plus the shapes the loop needs),
 * same resumable state machine (state[DEPTH], state[STARTED], state[STORED]; counters NODES, SOLUTIONS,
 * CANONICAL), same return codes and node counting: for the same input it leaves bit-identical counters,
 * picks, state and out buffers (tests/test_native_kernels.py checks it on many puzzles, sliced too).
 *
 * Python calls em_search through ctypes (edgematch/solvers/native/kernels.py); the function itself uses no
 * Python API. The module init below only exists so setuptools builds this file as an ordinary extension
 * module (edgematch.solvers.native._ckernel) that the installer puts beside the Python files.
 *
 * Element types (tables.py and search.py make them so, kernels.py checks):
 *   uint32: order, key_a, key_b, base, extra_n, extra_src, extra_side, tab_start, tab_end, cand_type,
 *           cand_edge, placed, picks, ptr, end, out, width
 *   int32:  cand_vis, type_left, vis, turn_src
 *   int64:  state, counters, start, budget
 * Arithmetic follows numba's typing of the Python source: indices and counters in 64 bits.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#if defined(_WIN32)
#define EM_EXPORT __declspec(dllexport)
#else
#define EM_EXPORT __attribute__((visibility("default")))
#endif

#define EM_RESTRICT __restrict__

enum { DEPTH = 0, STARTED = 1, STORED = 2 };
enum { NODES = 0, SOLUTIONS = 1, CANONICAL = 2 };
enum { FINISHED = 0, BUDGET = 1, BUFFER_FULL = 2 };

/* Bumped when the signature of em_search changes; kernels.py refuses a library built from another. */
EM_EXPORT int64_t em_abi_version(void) { return 2; }

static inline void bucket(int64_t d, const uint32_t *EM_RESTRICT base, const uint32_t *EM_RESTRICT key_a,
                          const uint32_t *EM_RESTRICT key_b, const uint32_t *EM_RESTRICT placed, uint64_t width,
                          const uint32_t *EM_RESTRICT tab_start, const uint32_t *EM_RESTRICT tab_end,
                          uint32_t *EM_RESTRICT ptr, uint32_t *EM_RESTRICT end) {
    uint64_t b = (uint64_t)base[d] + (uint64_t)placed[key_a[d]] * width + (uint64_t)placed[key_b[d]];
    ptr[d] = tab_start[b];
    end[d] = tab_end[b];
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

/* Run until `budget` more nodes, a full `out` buffer, or the end of the tree under `start`; see kernel.search.
 * Shapes: order[P]; extra_src, extra_side [P, extra_cols]; cand_edge, cand_vis [C, 4]; vis[n_vis];
 * turn_src [n_turns, turn_cols]; out [cap, out_cols]. */
EM_EXPORT int64_t em_search(
    const uint32_t *EM_RESTRICT order, int64_t P,
    const uint32_t *EM_RESTRICT key_a, const uint32_t *EM_RESTRICT key_b, const uint32_t *EM_RESTRICT base,
    const uint32_t *EM_RESTRICT extra_n, const uint32_t *EM_RESTRICT extra_src,
    const uint32_t *EM_RESTRICT extra_side, int64_t extra_cols,
    const uint32_t *EM_RESTRICT tab_start, const uint32_t *EM_RESTRICT tab_end,
    const uint32_t *EM_RESTRICT cand_type, const uint32_t *EM_RESTRICT cand_edge,
    const int32_t *EM_RESTRICT cand_vis, uint32_t width32,
    int32_t *EM_RESTRICT type_left, uint32_t *EM_RESTRICT placed, int32_t *EM_RESTRICT vis, int64_t n_vis,
    uint32_t *EM_RESTRICT picks, uint32_t *EM_RESTRICT ptr, uint32_t *EM_RESTRICT end,
    int64_t *EM_RESTRICT state, int64_t start, int64_t budget,
    const int32_t *EM_RESTRICT turn_src, int64_t n_turns, int64_t turn_cols,
    int64_t count_canonical, uint32_t *EM_RESTRICT out, int64_t cap, int64_t out_cols,
    int64_t *EM_RESTRICT counters)
{
    const uint64_t width = width32;
    if (P <= 0) return FINISHED; /* nothing to place (callers never ask: every cell hinted is solved in Python) */
    if (state[STARTED] == 0) {
        state[STARTED] = 1;
        state[DEPTH] = start;
        bucket(start, base, key_a, key_b, placed, width, tab_start, tab_end, ptr, end);
    }
    int64_t d = state[DEPTH];
    int64_t nodes = counters[NODES];
    const int64_t stop_at = nodes + budget;
    const int64_t last = P - 1;
    int64_t code = FINISHED;
    for (;;) {
        /* scan the bucket for the next candidate whose tile is free and fits the extras */
        int64_t i = ptr[d];
        const int64_t e = end[d];
        const int64_t n_extra = extra_n[d];
        const uint32_t *ex_side = extra_side + d * extra_cols;
        const uint32_t *ex_src = extra_src + d * extra_cols;
        while (i < e) {
            if (type_left[cand_type[i]] > 0) {
                if (n_extra == 0) break;
                int ok = 1;
                const uint32_t *edge = cand_edge + i * 4;
                for (int64_t x = 0; x < n_extra; x++) {
                    if (edge[ex_side[x]] != placed[ex_src[x]]) {
                        ok = 0;
                        break;
                    }
                }
                if (ok) break;
            }
            i++;
        }
        if (i >= e) {
            if (d == start) {
                ptr[d] = (uint32_t)i;
                break;
            }
            d--;
            type_left[cand_type[picks[d]]] += 1;
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
        type_left[cand_type[i]] -= 1;
        const int64_t cell = (int64_t)order[d] * 4;
        const uint32_t *edge = cand_edge + i * 4;
        placed[cell] = edge[0];
        placed[cell + 1] = edge[1];
        placed[cell + 2] = edge[2];
        placed[cell + 3] = edge[3];
        d++;
        bucket(d, base, key_a, key_b, placed, width, tab_start, tab_end, ptr, end);
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
 * em_propagate: the search with propagation (C only; propagate.py drives it). Options in `flags`:
 *   PROP_FC       forward checking: a placement that leaves an open neighbour with no candidate is refused
 *   PROP_DYNAMIC  dynamic order: the next cell is the open cell with the fewest candidates among those with a
 *                 placed neighbour (ties by the static order; the first open cell of the static order when no
 *                 open cell touches a placed one); a cell with none ends the branch, so it checks what FC does
 *   PROP_BOUNDS   colour-count bounds: for every tile class (frame sides 0..4) and visible colour, the unplaced
 *                 tiles of the class must show the colour at least as often as placed sides facing open cells
 *                 of that class ask for it (a necessary condition; parity is fixed at the start, see propagate.py)
 * Every option only refuses placements that cannot lead to a solution, so counts stay exact (tests compare
 * them with the plain loop and a brute force). Same node meaning as em_search: one placement of a tile.
 * A cell's candidates come from the bucket of its (cell, known-sides mask): two known sides as keys, up to
 * two more as extras (m_* tables, [n * 16]). Solutions are stored by position of the static order, so
 * decode() reads them as em_search's.
 * State between calls: state[DEPTH]; per depth the cell, the bucket pointer, its end and the pick; per cell
 * `open` and `mask`; supply/demand. Depths below DEPTH hold their placements. */
enum { PROP_FC = 1, PROP_DYNAMIC = 2, PROP_BOUNDS = 4 };
#define PROP_CLASSES 5

typedef struct {
    int64_t n, P, flags;
    const uint32_t *order; const int32_t *pos_of_cell; const int32_t *neighbour;
    const uint32_t *m_base, *m_key_a, *m_key_b, *m_extra_n, *m_extra_src, *m_extra_side;
    const uint32_t *tab_start, *tab_end, *cand_type, *cand_edge; const int32_t *cand_vis; uint64_t width;
    const int32_t *cell_class, *vis_partner; int64_t n_labels; int32_t frame_vis;
    int32_t *supply, *demand;
    int32_t *type_left; uint32_t *placed; int32_t *open, *mask;
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

EM_EXPORT int64_t em_propagate(
    int64_t n, int64_t P, int64_t flags,
    const uint32_t *order, const int32_t *pos_of_cell, const int32_t *neighbour,
    const uint32_t *m_base, const uint32_t *m_key_a, const uint32_t *m_key_b,
    const uint32_t *m_extra_n, const uint32_t *m_extra_src, const uint32_t *m_extra_side,
    const uint32_t *tab_start, const uint32_t *tab_end,
    const uint32_t *cand_type, const uint32_t *cand_edge, const int32_t *cand_vis, uint32_t width32,
    const int32_t *cell_class, const int32_t *vis_partner, int64_t n_labels, int32_t frame_vis,
    int32_t *supply, int32_t *demand,
    int32_t *type_left, uint32_t *placed, int32_t *open, int32_t *mask, int32_t *vis, int64_t n_vis,
    uint32_t *cell_at, uint32_t *picks, uint32_t *ptr, uint32_t *end,
    int64_t *state, int64_t budget,
    const int32_t *turn_src, int64_t n_turns, int64_t turn_cols,
    int64_t count_canonical, uint32_t *out, int64_t cap, int64_t out_cols,
    int64_t *counters)
{
    prop_t g = {n, P, flags, order, pos_of_cell, neighbour, m_base, m_key_a, m_key_b, m_extra_n, m_extra_src,
                m_extra_side, tab_start, tab_end, cand_type, cand_edge, cand_vis, width32, cell_class,
                vis_partner, n_labels, frame_vis, supply, demand, type_left, placed, open, mask};
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

/* A module without methods: Python never imports it, kernels.py loads the file with ctypes. */
static struct PyModuleDef ckernel_module = {
    PyModuleDef_HEAD_INIT, "_ckernel",
    "The native search loop in C (loaded with ctypes by edgematch.solvers.native.kernels).", -1, NULL,
};

PyMODINIT_FUNC PyInit__ckernel(void) { return PyModule_Create(&ckernel_module); }
