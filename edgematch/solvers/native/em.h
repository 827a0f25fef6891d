/* What the native engine's C loops share (ckernel.c, best/dfs.c, best/beam.c, best/repair.c): the
 * signatures of the exported loops (em_api.h, the header the cffi binding is generated from), the restrict
 * marker, and the seeded generator of the loops that draw at random.
 *
 * Python calls the loops through the cffi module built from em_api.h (build_kernel.py; kernels.py checks the
 * arrays it passes); none uses the Python API. Indices and counters are 64 bits. */
#ifndef EDGEMATCH_EM_H
#define EDGEMATCH_EM_H

#include <stdint.h>

#include "em_api.h"

#define EM_RESTRICT __restrict__

/* xorshift64*: the state is one nonzero word the caller keeps between calls (so a loop sliced over many
 * calls draws the same numbers as one long call). */
static inline uint64_t em_next(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ULL;
}

/* A uniform integer in [0, n) (n >= 1; Lemire's multiply, its bias below 2^-40 for the n used here). */
static inline int64_t em_below(uint64_t *s, int64_t n) {
    return (int64_t)(((unsigned __int128)em_next(s) * (uint64_t)n) >> 64);
}

/* A uniform double in [0, 1). */
static inline double em_uniform(uint64_t *s) { return (double)(em_next(s) >> 11) * 0x1.0p-53; }

/* The best-score tables (best/__init__.py's BestTables): the candidates of a (cell class, key sides) combo
 * k sorted by (key a, key b) labels, ra_/ab_ the ranges of one a and one (a, b), rb_ those of one b through
 * bperm. A position with key labels a, b walks six phases, cheapest first; EM_MIN_COST[ph] breaks each. */
enum { EM_PHASES = 6 };
static const int64_t EM_MIN_COST[EM_PHASES] = {0, 1, 1, 1, 2, 2};

/* Phase ph's candidate range [*lo, *hi): 0 a and b fit; 1, 2 a fits, b does not; 3 b fits, a does not (indices
 * into bperm); 4, 5 neither. */
static inline void em_phase_range(int64_t ph, int64_t k, int64_t a, int64_t b, int64_t width,
                                  const int64_t *cstart, const int64_t *cend, const int64_t *ra_s,
                                  const int64_t *ra_e, const int64_t *ab_s, const int64_t *ab_e,
                                  const int64_t *rb_s, const int64_t *rb_e, int64_t *lo, int64_t *hi) {
    const int64_t ka = k * width + a;
    switch (ph) {
    case 0: *lo = ab_s[ka * width + b]; *hi = ab_e[ka * width + b]; break;
    case 1: *lo = ra_s[ka]; *hi = ab_s[ka * width + b]; break;
    case 2: *lo = ab_e[ka * width + b]; *hi = ra_e[ka]; break;
    case 3: *lo = rb_s[k * width + b]; *hi = rb_e[k * width + b]; break;
    case 4: *lo = cstart[k]; *hi = ra_s[ka]; break;
    default: *lo = ra_e[ka]; *hi = cend[k]; break;
    }
}

#endif
