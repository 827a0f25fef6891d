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
EM_EXPORT int64_t em_abi_version(void) { return 1; }

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

/* A module without methods: Python never imports it, kernels.py loads the file with ctypes. */
static struct PyModuleDef ckernel_module = {
    PyModuleDef_HEAD_INIT, "_ckernel",
    "The native search loop in C (loaded with ctypes by edgematch.solvers.native.kernels).", -1, NULL,
};

PyMODINIT_FUNC PyInit__ckernel(void) { return PyModule_Create(&ckernel_module); }
