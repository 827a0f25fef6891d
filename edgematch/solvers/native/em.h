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

#endif
