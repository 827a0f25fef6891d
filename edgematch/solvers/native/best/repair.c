/* The compiled steps of the repair stage: destroy a set of cells, re-place their tiles exactly, accept by
 * simulated annealing, adapt the operators' weights. Driven by edgematch/solvers/native/best/repair.py.
 *
 * A board is kept per cell as its tile type (typ, -1 on a hinted cell) and its option (opt: an index into
 * the option table, which holds a type's turn and the normalised labels it shows; a cell of class k may take
 * the options opt_start[k, t]:opt_end[k, t] of type t, the turns that show the frame exactly on the cell's
 * outer sides). Labels are normalised so that a seam fits when the two labels are equal. lab[c, s] is what
 * cell c shows on side s (hinted cells: their fixed labels).
 *
 * Operators (each picks the cells to free; their tiles are then re-placed):
 * 0. window: a small rectangle (2x2 to 4x4) around a random broken seam; repaired by window_repair, an
 *    exhaustive branch and bound over the freed cells' tiles and turns for the best arrangement other than the
 *    current one (the move always changes the board; annealing decides).
 * 1. worst window: the window with the most breaks among eight random ones; same repair.
 * 2. conflict: cells next to broken seams, of one colour of the checkerboard, plus random cells of that colour;
 *    repaired by assign_repair.
 * 3. region: one colour of the checkerboard in a random square of side 4-8; assign_repair.
 * 4. band: one colour of the checkerboard in the two rows (or columns) with the most breaks among four random
 *    bands; assign_repair.
 * Cells of one checkerboard colour share no seam, so each tile's best turn in each such cell depends only on
 * the fixed neighbours: the best re-placement is an assignment problem (Hungarian method, exact), its ties
 * broken by noise below one seam over the whole set; above zero temperature the noise grows with it.
 *
 * Element types (kernels.py checks): int64 everywhere but free (uint8: 1 = not hinted) and the float64
 * weights, rewards and temps; nb, lab and opt_edge are [n or options, 4], opt_start and opt_end
 * [classes, n_types], counters [N_OPS, 4]. Randomness: em.h's generator, its state in rng[0]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../em.h"

#define N_OPS 5
#define MAX_ASSIGN 64 /* cells one assignment may free */
#define AW (MAX_ASSIGN + 1) /* the row length of the assignment's matrices */
enum { C_TRIES = 0, C_ACCEPTED = 1, C_BETTER = 2, C_BEST = 3 };              /* counters per operator */
enum { S_CUR = 0, S_BEST = 1, S_MOVES = 2, S_CAPPED = 3, S_NODES = 4 };       /* state slots */
static const int64_t WINDOWS[9][2] = {{2, 2}, {2, 3}, {3, 2}, {3, 3}, {2, 4}, {4, 2}, {3, 4}, {4, 3}, {4, 4}};

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The board and its tables, as every step reads them. */
typedef struct {
    int64_t W, H, n_types;
    const uint8_t *free;
    const int64_t *nb, *cls, *opt_start, *opt_end, *opt_type, *opt_edge;
    int64_t *typ, *opt, *lab;
    uint64_t *rng;
} board_t;

/* Fitting seams of the whole board (each seam once: east and south sides). */
int64_t em_repair_score(const int64_t *EM_RESTRICT lab, const int64_t *EM_RESTRICT nb, int64_t n) {
    int64_t total = 0;
    for (int64_t c = 0; c < n; c++)
        for (int s = 1; s <= 2; s++) {
            const int64_t m = nb[c * 4 + s];
            if (m >= 0 && lab[c * 4 + s] == lab[m * 4 + (s + 2) % 4]) total++;
        }
    return total;
}

/* Fitting seams that touch the k marked cells (each seam once). */
static int64_t local_score(const int64_t *cells, int64_t k, const uint8_t *mark, const board_t *g) {
    int64_t total = 0;
    for (int64_t i = 0; i < k; i++) {
        const int64_t c = cells[i];
        for (int s = 0; s < 4; s++) {
            const int64_t m = g->nb[c * 4 + s];
            if (m < 0 || (mark[m] && m < c)) continue;
            if (g->lab[c * 4 + s] == g->lab[m * 4 + (s + 2) % 4]) total++;
        }
    }
    return total;
}

static inline void set_cell(const board_t *g, int64_t c, int64_t o) {
    g->typ[c] = g->opt_type[o];
    g->opt[c] = o;
    for (int s = 0; s < 4; s++) g->lab[c * 4 + s] = g->opt_edge[o * 4 + s];
}

static inline int64_t breaks_at(const board_t *g, int64_t c) {
    int64_t b = 0;
    for (int s = 0; s < 4; s++) {
        const int64_t m = g->nb[c * 4 + s];
        if (m >= 0 && g->lab[c * 4 + s] != g->lab[m * 4 + (s + 2) % 4]) b++;
    }
    return b;
}

static inline int64_t index_of(const int64_t *cells, int64_t k, int64_t c) {
    for (int64_t i = 0; i < k; i++)
        if (cells[i] == c) return i;
    return -1;
}

/* window_repair's result */
typedef struct {
    int64_t new_local, cur_local, nodes;
    int capped;
} window_t;

/* The best arrangement of the freed cells' tiles other than the current one, at most a few seams worse (then
 * up to the annealing): its options in out_opt; new_local -1 when none exists. scratch: 10 rows of n + 1. */
static window_t window_repair(const int64_t *cells, int64_t k, const uint8_t *mark, const board_t *g, double temp,
                              int64_t node_cap, int64_t *out_opt, int64_t *scratch, int64_t row) {
    window_t res = {-1, local_score(cells, k, mark, g), 0, 0};
    /* the pool: distinct types among the freed cells and their counts */
    int64_t *ptype = scratch, *pcnt = scratch + row, *checks = scratch + 2 * row, *ub = scratch + 3 * row;
    int64_t *ti = scratch + 4 * row, *oi = scratch + 5 * row, *gain = scratch + 6 * row;
    int64_t *chosen = scratch + 7 * row, *same = scratch + 8 * row, *saved = scratch + 9 * row;
    int64_t m = 0;
    for (int64_t i = 0; i < k; i++) {
        const int64_t t = g->typ[cells[i]];
        int64_t j = 0;
        while (j < m && ptype[j] != t) j++;
        if (j == m) {
            ptype[m] = t;
            pcnt[m] = 0;
            m++;
        }
        pcnt[j]++;
    }
    for (int64_t j = m - 1; j > 0; j--) { /* a random order of the types: ties go to a random arrangement */
        const int64_t r = em_below(g->rng, j + 1);
        int64_t a = ptype[j];
        ptype[j] = ptype[r];
        ptype[r] = a;
        a = pcnt[j];
        pcnt[j] = pcnt[r];
        pcnt[r] = a;
    }
    /* per freed cell: its checks (fixed neighbours, and freed neighbours earlier in the order) */
    for (int64_t i = 0; i < k; i++) {
        const int64_t c = cells[i];
        int64_t ch = 0;
        for (int s = 0; s < 4; s++) {
            const int64_t nbc = g->nb[c * 4 + s];
            if (nbc < 0) continue;
            if (!mark[nbc] || nbc < c) ch++;
        }
        checks[i] = ch;
    }
    ub[k] = 0;
    for (int64_t i = k - 1; i >= 0; i--) ub[i] = ub[i + 1] + checks[i];
    const int64_t drop = em_uniform(g->rng) < temp ? 1 : 0; /* hot: one seam worse may come out */
    int64_t best = res.cur_local - drop - 1;                 /* record arrangements scoring more than this */
    int found = 0;
    for (int64_t i = 0; i < k; i++) {
        ti[i] = 0;
        oi[i] = -1;
    }
    int64_t level = 0, score = 0, nodes = 0;
    for (int64_t i = 0; i < k; i++) saved[i] = g->opt[cells[i]];
    while (level >= 0) {
        const int64_t c = cells[level];
        const int64_t kc = g->cls[c];
        int advanced = 0;
        while (ti[level] < m) {
            const int64_t j = ti[level];
            if (pcnt[j] == 0) {
                ti[level]++;
                oi[level] = -1;
                continue;
            }
            const int64_t t = ptype[j];
            if (oi[level] < 0)
                oi[level] = g->opt_start[kc * g->n_types + t];
            else
                oi[level]++;
            if (oi[level] >= g->opt_end[kc * g->n_types + t]) {
                ti[level]++;
                oi[level] = -1;
                continue;
            }
            const int64_t o = oi[level];
            int64_t gn = 0;
            for (int s = 0; s < 4; s++) {
                const int64_t nbc = g->nb[c * 4 + s];
                if (nbc < 0) continue;
                if (!mark[nbc]) {
                    if (g->opt_edge[o * 4 + s] == g->lab[nbc * 4 + (s + 2) % 4]) gn++;
                } else if (nbc < c &&
                           g->opt_edge[o * 4 + s] == g->opt_edge[chosen[index_of(cells, k, nbc)] * 4 + (s + 2) % 4]) {
                    gn++;
                }
            }
            nodes++;
            if (score + gn + ub[level + 1] <= best) continue;
            chosen[level] = o;
            gain[level] = gn;
            if (level == 0)
                same[0] = o == saved[0] ? 1 : 0;
            else
                same[level] = o == saved[level] ? same[level - 1] : 0;
            pcnt[j]--;
            score += gn;
            advanced = 1;
            break;
        }
        if (nodes > node_cap) {
            res.capped = 1;
            break;
        }
        if (advanced) {
            if (level == k - 1) {
                if (score > best && same[level] == 0) {
                    best = score;
                    found = 1;
                    for (int64_t i = 0; i < k; i++) out_opt[i] = chosen[i];
                    if (best == ub[0]) break;
                }
                pcnt[ti[level]]++; /* undo this level's choice and try its next option */
                score -= gain[level];
            } else {
                level++;
                ti[level] = 0;
                oi[level] = -1;
            }
        } else {
            level--;
            if (level >= 0) {
                pcnt[ti[level]]++;
                score -= gain[level];
            }
        }
    }
    res.nodes = nodes;
    if (found) res.new_local = best;
    return res;
}

/* Minimum-cost perfect assignment of the k x k matrix cost (rows of AW): assign[row] = column (the shortest
 * augmenting path method with potentials, O(k^3)). u, v, minv: k + 1 doubles; p, way: k + 1; used: k + 1. */
void em_hungarian(const double *EM_RESTRICT cost, int64_t stride, int64_t k, int64_t *EM_RESTRICT assign,
                            double *EM_RESTRICT u, double *EM_RESTRICT v, int64_t *EM_RESTRICT p,
                            int64_t *EM_RESTRICT way, double *EM_RESTRICT minv, uint8_t *EM_RESTRICT used)
{
    const double inf = 1e18;
    for (int64_t j = 0; j <= k; j++) {
        u[j] = 0.0;
        v[j] = 0.0;
        p[j] = 0;
        way[j] = 0;
    }
    for (int64_t i = 1; i <= k; i++) {
        p[0] = i;
        int64_t j0 = 0;
        for (int64_t j = 0; j <= k; j++) {
            minv[j] = inf;
            used[j] = 0;
        }
        for (;;) {
            used[j0] = 1;
            const int64_t i0 = p[j0];
            double delta = inf;
            int64_t j1 = 0;
            for (int64_t j = 1; j <= k; j++) {
                if (!used[j]) {
                    const double cur = cost[(i0 - 1) * stride + j - 1] - u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for (int64_t j = 0; j <= k; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if (p[j0] == 0) break;
        }
        for (;;) {
            const int64_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if (j0 == 0) break;
        }
    }
    for (int64_t j = 1; j <= k; j++) assign[p[j] - 1] = j - 1;
}

/* assign_repair's scratch: AW x AW matrices and AW-long vectors */
typedef struct {
    double w[AW * AW], u[AW], v[AW], minv[AW];
    int64_t gain_of[AW * AW], best_opt[AW * AW], assign[AW], p[AW], way[AW];
    uint8_t used[AW];
} assign_work_t;

/* The best re-placement of the tiles of k pairwise non-adjacent cells (an assignment of tiles to cells, each
 * tile in its best turn there), ties broken at random; above zero temperature with noise of temp seams per
 * pair. Options in out_opt; the new local score, *cur the current one. */
static int64_t assign_repair(const int64_t *cells, int64_t k, const board_t *g, double temp, int64_t *out_opt,
                             assign_work_t *wk, int64_t *cur) {
    int64_t cur_local = 0;
    for (int64_t i = 0; i < k; i++) {
        const int64_t c = cells[i];
        for (int s = 0; s < 4; s++) {
            const int64_t m = g->nb[c * 4 + s];
            if (m >= 0 && g->lab[c * 4 + s] == g->lab[m * 4 + (s + 2) % 4]) cur_local++;
        }
    }
    const double noise = temp + 0.5 / (double)(k + 1);
    for (int64_t i = 0; i < k; i++) {
        const int64_t c = cells[i];
        const int64_t kc = g->cls[c];
        for (int64_t j = 0; j < k; j++) {
            const int64_t t = g->typ[cells[j]];
            int64_t bg = -1, bo = -1;
            for (int64_t o = g->opt_start[kc * g->n_types + t]; o < g->opt_end[kc * g->n_types + t]; o++) {
                int64_t gn = 0;
                for (int s = 0; s < 4; s++) {
                    const int64_t m = g->nb[c * 4 + s];
                    if (m >= 0 && g->opt_edge[o * 4 + s] == g->lab[m * 4 + (s + 2) % 4]) gn++;
                }
                if (gn > bg) {
                    bg = gn;
                    bo = o;
                }
            }
            wk->gain_of[i * AW + j] = bg;
            wk->best_opt[i * AW + j] = bo;
            wk->w[i * AW + j] = bo < 0 ? 1e9 : -((double)bg + noise * em_uniform(g->rng));
        }
    }
    em_hungarian(wk->w, AW, k, wk->assign, wk->u, wk->v, wk->p, wk->way, wk->minv, wk->used);
    int64_t new_local = 0;
    for (int64_t i = 0; i < k; i++) {
        const int64_t j = wk->assign[i];
        out_opt[i] = wk->best_opt[i * AW + j];
        new_local += wk->gain_of[i * AW + j];
    }
    *cur = cur_local;
    return new_local;
}

static int64_t pick(const double *weights, uint64_t *rng) {
    double total = 0.0;
    for (int i = 0; i < N_OPS; i++) total += weights[i];
    double r = em_uniform(rng) * total;
    for (int i = 0; i < N_OPS; i++) {
        r -= weights[i];
        if (r <= 0) return i;
    }
    return N_OPS - 1;
}

static int64_t window_breaks(const board_t *g, int64_t r0, int64_t c0, int64_t h, int64_t w) {
    int64_t b = 0;
    for (int64_t r = r0; r < r0 + h; r++)
        for (int64_t c = c0; c < c0 + w; c++) b += breaks_at(g, r * g->W + c);
    return b;
}

/* A random free cell with a broken seam (-1 when none after some tries). */
static int64_t broken_cell(const board_t *g, int64_t n) {
    for (int i = 0; i < 64; i++) {
        const int64_t c = em_below(g->rng, n);
        if (g->free[c] && breaks_at(g, c) > 0) return c;
    }
    for (int64_t c = 0; c < n; c++)
        if (g->free[c] && breaks_at(g, c) > 0) return c;
    return -1;
}

/* The cells operator op frees, in row-major order; their count (0: none this time). */
static int64_t choose(const board_t *g, int64_t op, int64_t *cells, uint8_t *mark) {
    const int64_t W = g->W, H = g->H, n = W * H;
    uint64_t *rng = g->rng;
    int64_t k = 0;
    if (op <= 1) {
        const int64_t wi = em_below(rng, 9);
        const int64_t h = min64(WINDOWS[wi][0], H), w = min64(WINDOWS[wi][1], W);
        int64_t r0 = 0, c0 = 0;
        if (op == 0) {
            const int64_t c = broken_cell(g, n);
            if (c < 0) return 0;
            r0 = max64(0, min64(H - h, c / W - em_below(rng, h)));
            c0 = max64(0, min64(W - w, c % W - em_below(rng, w)));
        } else {
            int64_t best = -1;
            for (int i = 0; i < 8; i++) {
                const int64_t rr = em_below(rng, H - h + 1);
                const int64_t cc = em_below(rng, W - w + 1);
                const int64_t b = window_breaks(g, rr, cc, h, w);
                if (b > best) {
                    best = b;
                    r0 = rr;
                    c0 = cc;
                }
            }
        }
        for (int64_t r = r0; r < r0 + h; r++)
            for (int64_t cc = c0; cc < c0 + w; cc++) {
                const int64_t cell = r * W + cc;
                if (g->free[cell]) cells[k++] = cell;
            }
        return k;
    }
    const int64_t colour = em_below(rng, 2);
    if (op == 2) {
        const int64_t start = em_below(rng, n);
        for (int64_t d = 0; d < n; d++) {
            const int64_t c = (start + d) % n;
            if (g->free[c] && (c / W + c % W) % 2 == colour && breaks_at(g, c) > 0) {
                mark[c] = 1;
                k++;
                if (k >= MAX_ASSIGN / 2) break;
            }
        }
        int64_t extra = k; /* as many random cells of the same colour again, for room to move */
        for (int64_t i = 0, tries = 4 * extra; i < tries; i++) {
            if (extra == 0 || k >= MAX_ASSIGN) break;
            const int64_t c = em_below(rng, n);
            if (g->free[c] && (c / W + c % W) % 2 == colour && !mark[c]) {
                mark[c] = 1;
                k++;
                extra--;
            }
        }
    } else {
        int64_t r0 = 0, c0 = 0, h = 0, w = 0;
        if (op == 3) {
            const int64_t side = 4 + em_below(rng, 5);
            h = min64(side, H);
            w = min64(side, W);
            r0 = em_below(rng, H - h + 1);
            c0 = em_below(rng, W - w + 1);
        } else {
            int64_t best = -1;
            for (int i = 0; i < 4; i++) {
                int64_t hh, ww;
                if (em_below(rng, 2) == 0) {
                    hh = min64(2, H);
                    ww = W;
                } else {
                    hh = H;
                    ww = min64(2, W);
                }
                const int64_t rr = em_below(rng, H - hh + 1);
                const int64_t cc = em_below(rng, W - ww + 1);
                const int64_t b = window_breaks(g, rr, cc, hh, ww);
                if (b > best) {
                    best = b;
                    r0 = rr;
                    c0 = cc;
                    h = hh;
                    w = ww;
                }
            }
        }
        for (int64_t r = r0; r < r0 + h; r++)
            for (int64_t cc = c0; cc < c0 + w; cc++) {
                const int64_t c = r * W + cc;
                if (g->free[c] && (r + cc) % 2 == colour && k < MAX_ASSIGN) {
                    mark[c] = 1;
                    k++;
                }
            }
    }
    int64_t j = 0;
    for (int64_t c = 0; c < n; c++)
        if (mark[c]) {
            cells[j++] = c;
            mark[c] = 0;
        }
    return k;
}

/* Up to `moves` destroy-and-repair moves from the current board (typ, opt, lab); returns early, with 1, when a
 * board beats state[S_BEST] (copied to best_typ and best_opt), else 0; -1 when its scratch memory could not
 * be had. temps: (temperature now, its factor per move, its floor, its start). weights: the operators'
 * selection weights; rewards: (new best, better, accepted, segment length, reaction) and per operator the
 * segment's score and uses after them. */
int64_t em_repair_lns(
    int64_t moves, int64_t W, int64_t H, const uint8_t *EM_RESTRICT free_, const int64_t *EM_RESTRICT nb,
    const int64_t *EM_RESTRICT cls, const int64_t *EM_RESTRICT opt_start, const int64_t *EM_RESTRICT opt_end,
    int64_t n_types, const int64_t *EM_RESTRICT opt_type, const int64_t *EM_RESTRICT opt_edge,
    int64_t *EM_RESTRICT typ, int64_t *EM_RESTRICT opt, int64_t *EM_RESTRICT lab, int64_t *EM_RESTRICT best_typ,
    int64_t *EM_RESTRICT best_opt, int64_t *EM_RESTRICT state, double *EM_RESTRICT weights,
    double *EM_RESTRICT rewards, int64_t *EM_RESTRICT counters, double *EM_RESTRICT temps, int64_t node_cap,
    uint64_t *EM_RESTRICT rng)
{
    const int64_t n = W * H, row = (n > 1 ? n : 1) + 1;
    const board_t g = {W, H, n_types, free_, nb, cls, opt_start, opt_end, opt_type, opt_edge, typ, opt, lab, rng};
    int64_t *cells = calloc((size_t)row * 13, sizeof *cells); /* cells, out_opt, old_opt, 10 scratch rows */
    uint8_t *mark = calloc((size_t)row, 1);
    assign_work_t *wk = malloc(sizeof *wk);
    if (!cells || !mark || !wk) {
        free(cells);
        free(mark);
        free(wk);
        return -1;
    }
    int64_t *out_opt = cells + row, *old_opt = cells + 2 * row, *scratch = cells + 3 * row;
    double *seg_score = rewards + 5, *seg_uses = rewards + 5 + N_OPS;
    int64_t code = 0;
    for (int64_t mv = 0; mv < moves; mv++) {
        state[S_MOVES]++;
        if (state[S_MOVES] % (int64_t)rewards[3] == 0) { /* the end of a segment: adapt the weights */
            for (int o = 0; o < N_OPS; o++) {
                if (seg_uses[o] > 0) {
                    const double moved = (1 - rewards[4]) * weights[o] + rewards[4] * seg_score[o] / seg_uses[o];
                    weights[o] = moved > 0.05 ? moved : 0.05;
                }
                seg_score[o] = 0;
                seg_uses[o] = 0;
            }
        }
        const int64_t op = pick(weights, rng);
        const int64_t k = choose(&g, op, cells, mark);
        const double temp = temps[0];
        temps[0] = temps[0] * temps[1] > temps[2] ? temps[0] * temps[1] : temps[2];
        if (k < 2) continue;
        counters[op * 4 + C_TRIES]++;
        seg_uses[op] += 1;
        for (int64_t i = 0; i < k; i++) mark[cells[i]] = 1;
        int64_t new_local, cur_local;
        if (op <= 1) {
            const window_t r = window_repair(cells, k, mark, &g, temp, node_cap, out_opt, scratch, row);
            new_local = r.new_local;
            cur_local = r.cur_local;
            state[S_NODES] += r.nodes;
            if (r.capped) state[S_CAPPED]++;
        } else {
            new_local = assign_repair(cells, k, &g, temp, out_opt, wk, &cur_local);
        }
        for (int64_t i = 0; i < k; i++) mark[cells[i]] = 0;
        if (new_local < 0) continue;
        const int64_t delta = new_local - cur_local;
        if (delta < 0 && (temp <= 0 || em_uniform(rng) >= exp((double)delta / temp))) continue;
        int changed = 0;
        for (int64_t i = 0; i < k; i++) {
            old_opt[i] = opt[cells[i]];
            if (out_opt[i] != old_opt[i]) changed = 1;
            set_cell(&g, cells[i], out_opt[i]);
        }
        if (!changed) continue;
        counters[op * 4 + C_ACCEPTED]++;
        double reward = rewards[2];
        state[S_CUR] += delta;
        if (delta > 0) {
            counters[op * 4 + C_BETTER]++;
            reward = rewards[1];
        }
        if (state[S_CUR] > state[S_BEST]) {
            counters[op * 4 + C_BEST]++;
            seg_score[op] += rewards[0];
            state[S_BEST] = state[S_CUR];
            memcpy(best_typ, typ, (size_t)n * sizeof *typ);
            memcpy(best_opt, opt, (size_t)n * sizeof *opt);
            code = 1;
            break;
        }
        seg_score[op] += reward;
    }
    free(cells);
    free(mark);
    free(wk);
    return code;
}
