/* The exported loops of the native engine: the one list of their signatures.
 *
 * Every C source that defines one of them includes this header, so the compiler checks each definition
 * against it; build_kernel.py hands the same text to cffi's cdef, so the Python binding
 * (edgematch.solvers.native._ckernel, built at install) is generated from it. A signature changed on one side
 * only is a build error, not a crash. Plain C only (no macros, no restrict: cffi parses this file); the
 * definitions may add restrict, which does not change a parameter's type.
 *
 * Arrays are pointers to C-contiguous data of the element type named; kernels.py checks each numpy array's
 * dtype, order and shape before passing it (cffi checks the pointer type, not what the buffer holds). */

const char *em_compiler(void);

/* ckernel.c */

/* The plain loop's row look-ahead (rows.py builds it; ckernel.c's rows_build says how it prunes). A segment is a
 * run of positions filling cells west to east (in the column order north to south), each keyed on the neighbour
 * before it (key a) and on a label placed before the segment began. Slots: each (combo, other key label) group's candidates, 64 to a word;
 * `free` has the bit of every slot whose tile type has a copy left (and one spare word, past the last, that the
 * padding pairs point at). */
typedef struct {
    int64_t span;              /* entries per segment in `table`: its longest segment + 1 */
    int64_t words;             /* words of slots (`free` has one more: the spare) */
    int64_t types;             /* tile types */
    int64_t pairs;             /* (word, bits) pairs per tile type, padded with (words, 0) */
    int64_t out;               /* the side the segments run out of: 1 east (rows), 2 south (columns) */
    const int32_t *seg_of;     /* [P] the segment of each position, -1: none */
    const int32_t *seg_first;  /* [S] its first position */
    const int32_t *seg_len;    /* [S] its positions */
    const int32_t *check;      /* [P] the entry of `table` a candidate's out label must be in (0: every label) */
    const int32_t *group_base; /* [P] the first group of each position's combo (combo x width) */
    const int32_t *group_word; /* [G] the first word of each group (G = combos x width) */
    const int32_t *group_words;/* [G] its words */
    const uint8_t *slot_in;    /* [words * 64] the in label (key a's side) of each slot's candidate */
    const uint8_t *slot_out;   /* [words * 64] its out label */
    const int32_t *type_word;  /* [T * pairs] the words holding each tile type's slots */
    const uint64_t *type_bits; /* [T * pairs] and its bits in each */
    uint64_t *table;           /* [1 + S * span] written: entry 0 every label, then each segment's entries */
    uint64_t *free;            /* [words + 1] written */
} em_rows_t;

int64_t em_search(
    const uint32_t *order, int64_t P,
    const uint32_t *key_a, const uint32_t *key_b, const uint32_t *base,
    const uint32_t *extra_n, const uint32_t *extra_src, const uint32_t *extra_side, int64_t extra_cols,
    const uint32_t *tab_start, const uint32_t *tab_end,
    const uint32_t *cand_type, const uint32_t *cand_edge, const int32_t *cand_vis, uint32_t width32,
    int32_t *type_left, uint32_t *placed, int32_t *vis, int64_t n_vis,
    uint32_t *picks, uint32_t *ptr, uint32_t *end,
    int64_t *state, int64_t start, int64_t budget,
    const int32_t *turn_src, int64_t n_turns, int64_t turn_cols,
    int64_t count_canonical, uint32_t *out, int64_t cap, int64_t out_cols,
    int64_t *counters, const em_rows_t *rows);

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
    int64_t *counters);

int64_t em_probe(
    const uint32_t *order, int64_t P,
    const uint32_t *key_a, const uint32_t *key_b, const uint32_t *base,
    const uint32_t *extra_n, const uint32_t *extra_src, const uint32_t *extra_side, int64_t extra_cols,
    const uint32_t *tab_start, const uint32_t *tab_end,
    const uint32_t *cand_type, const uint32_t *cand_edge, uint32_t width32,
    int32_t *type_left, uint32_t *placed, uint32_t *picks,
    uint32_t *scratch, uint32_t *ptr, uint32_t *end,
    int64_t probes, uint64_t seed, int64_t exact_from, int64_t exact_cap, int64_t budget,
    int64_t *state, double *acc, double *level, double *stats, const em_rows_t *rows);

int64_t em_memo(
    const uint32_t *order, int64_t P,
    const uint32_t *key_a, const uint32_t *key_b, const uint32_t *base,
    const uint32_t *extra_n, const uint32_t *extra_src, const uint32_t *extra_side, int64_t extra_cols,
    const uint32_t *tab_start, const uint32_t *tab_end,
    const uint32_t *cand_type, const uint32_t *cand_edge, uint32_t width32,
    int32_t *type_left, uint32_t *placed,
    uint32_t *picks, uint32_t *ptr, uint32_t *end,
    int64_t *state, int64_t start, int64_t budget,
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
    int64_t *counters);

/* best/dfs.c */
int64_t em_best_search(
    int64_t P, const int64_t *key_a, const int64_t *key_b,
    const int64_t *combo, const int64_t *extra_n, const int64_t *extra_src,
    const int64_t *extra_side, int64_t extra_cols, const int64_t *order,
    const int64_t *cstart, const int64_t *cend,
    const int64_t *ra_s, const int64_t *ra_e,
    const int64_t *ab_s, const int64_t *ab_e,
    const int64_t *rb_s, const int64_t *rb_e, const int64_t *bperm,
    const int64_t *cand_type, const int64_t *cand_edge,
    const int64_t *cand_la, const int64_t *cand_lb, int64_t width,
    const int64_t *fits_upto,
    int64_t *type_left, int64_t *placed, const int64_t *sched,
    int64_t *picks, int64_t *phase, int64_t *cur, int64_t *end,
    int64_t *brk, int64_t *best, int64_t *state, int64_t *flags,
    int64_t budget, int64_t phases);

/* best/beam.c (used and new_used: a bit per free tile copy, `words` words per state) */
int64_t em_beam_expand(
    int64_t p, int64_t s_lo, int64_t s_hi, const int32_t *ring, int64_t R,
    const uint64_t *used, int64_t words, const int32_t *brk,
    const int64_t *combo, const int64_t *extra_n, const int64_t *extra_side,
    int64_t extra_cols, const int64_t *src_const, const int64_t *src_slot,
    const int64_t *src_side,
    const int64_t *cstart, const int64_t *cend,
    const int64_t *ra_s, const int64_t *ra_e,
    const int64_t *ab_s, const int64_t *ab_e,
    const int64_t *rb_s, const int64_t *rb_e, const int64_t *bperm,
    const int64_t *cand_last, const int64_t *cand_edge,
    const int64_t *cand_la, const int64_t *cand_lb, int64_t width, int64_t fanout,
    const int32_t *key, const int64_t *cand_w,
    int32_t *ch_parent, int32_t *ch_cand, int32_t *ch_brk, int32_t *ch_key, int64_t n_ch,
    int64_t *tie, uint64_t *rng);

int64_t em_beam_truncate(const int32_t *ch_brk, const int32_t *ch_key, int64_t n_ch, int64_t width, int64_t *keep,
                         uint64_t *rng);

int64_t em_beam_materialise(
    int64_t p, const int64_t *keep, int64_t n, int64_t n_parents, const int32_t *ch_parent,
    const int32_t *ch_cand, const int32_t *ch_brk, const int32_t *ch_key, const int32_t *ring,
    int64_t R, const uint64_t *used, int64_t words, int32_t *new_ring,
    uint64_t *new_used, int32_t *new_brk, int32_t *new_key, int64_t slot, const int64_t *cand_first,
    int32_t *par, int32_t *cand, int64_t forest_cols);

/* best/repair.c */
int64_t em_repair_score(const int64_t *lab, const int64_t *nb, int64_t n);

void em_hungarian(const double *cost, int64_t stride, int64_t k, int64_t *assign,
                  double *u, double *v, int64_t *p,
                  int64_t *way, double *minv, uint8_t *used);

int64_t em_repair_lns(
    int64_t moves, int64_t W, int64_t H, const uint8_t *free_, const int64_t *nb,
    const int64_t *cls, const int64_t *opt_start, const int64_t *opt_end,
    int64_t n_types, const int64_t *opt_type, const int64_t *opt_edge,
    int64_t *typ, int64_t *opt, int64_t *lab, int64_t *best_typ,
    int64_t *best_opt, int64_t *state, double *weights,
    double *rewards, int64_t *counters, double *temps, int64_t node_cap,
    uint64_t *rng);
