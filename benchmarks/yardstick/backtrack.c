/* The yardstick: a plain C backtracker for edge-matching puzzles, the kind the literature compares against.
 *
 *   backtrack count FILE   every solution: prints "solutions N", "nodes N", "seconds S"
 *   backtrack first FILE   stops at the first: prints "solution T:R T:R ..." (row-major) or "solution none",
 *                          then "nodes N" and "seconds S"; exit 0 solved, 1 no solution
 *
 * Exit 2 on bad usage or input. FILE is written by benchmarks/yardstick/__init__.py (write_puzzle):
 *
 *   W H ROT FRAME L        ROT 1 if tiles may turn; FRAME the frame label or -1; labels are 0..L-1
 *   p_0 p_1 ... p_{L-1}    partner[label]: the label that must touch it (identity for `same`, the negated
 *                          label for `signed`, compiled to dense numbers by the writer)
 *   n e s w                one line per tile, edges N E S W, W*H lines; tile index = line order
 *
 * Search: depth-first, cells in row-major order; at each cell every unused tile in each of its turns
 * (turned copies precomputed once) is checked against the left and top neighbours; on a framed board the
 * sides that show the frame label must be exactly the cell's border sides (border edges carry the frame,
 * inner edges never). A node is one placement that passed the checks (the last cell's included), as
 * edgematch's native backend counts them. No symmetry breaking, no grouping of identical tiles, no
 * colour-indexed candidate lists: identical tiles, the turns of a self-symmetric tile and the turns of the
 * whole board all count as separate (raw) solutions, every (tile, turn) assignment, as edgematch counts raw.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 1024  /* tiles (cells) */
#define MAXL 65536 /* labels */

static int W, H, NR, FRAME, L, NT, FIRST; /* NR: turns each tile may take, 4 or 1 */
static int partner[MAXL];
static int rot_e[MAXT][4][4];     /* rot_e[t][r][side]: label tile t shows on side (N E S W) after r turns */
static int rot_frame[MAXT][4];    /* bit s set: side s shows the frame label */
static int border[MAXT];          /* bit s set: side s of the cell is on the board's border */
static unsigned char used[MAXT];
static int east[MAXT], south[MAXT]; /* labels the placed tile shows E and S, per cell */
static int pick_t[MAXT], pick_r[MAXT];
static uint64_t nodes, solutions;
static int done;

static void dfs(int cell) {
    if (cell == NT) {
        solutions++;
        if (FIRST) done = 1;
        return;
    }
    int x = cell % W, y = cell / W;
    int want_w = x ? partner[east[cell - 1]] : -1; /* -1: no neighbour, anything goes */
    int want_n = y ? partner[south[cell - W]] : -1;
    int bmask = border[cell];
    for (int t = 0; t < NT; t++) {
        if (used[t]) continue;
        for (int r = 0; r < NR; r++) {
            const int *e = rot_e[t][r];
            if (FRAME >= 0 && rot_frame[t][r] != bmask) continue;
            if (want_w >= 0 && e[3] != want_w) continue;
            if (want_n >= 0 && e[0] != want_n) continue;
            nodes++;
            used[t] = 1;
            pick_t[cell] = t;
            pick_r[cell] = r;
            east[cell] = e[1];
            south[cell] = e[2];
            dfs(cell + 1);
            used[t] = 0;
            if (done) return;
        }
    }
}

static int next_int(FILE *f, const char *path, const char *what) {
    long v;
    if (fscanf(f, "%ld", &v) != 1) {
        fprintf(stderr, "backtrack: %s: expected %s\n", path, what);
        exit(2);
    }
    return (int)v;
}

static void read_puzzle(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    W = next_int(f, path, "width");
    H = next_int(f, path, "height");
    NR = next_int(f, path, "rotation flag") ? 4 : 1;
    FRAME = next_int(f, path, "frame label");
    L = next_int(f, path, "label count");
    if (W < 1 || H < 1 || W * H > MAXT || L < 1 || L > MAXL || FRAME < -1 || FRAME >= L) {
        fprintf(stderr, "backtrack: %s: bad header (at most %d cells, %d labels)\n", path, MAXT, MAXL);
        exit(2);
    }
    NT = W * H;
    for (int i = 0; i < L; i++) {
        partner[i] = next_int(f, path, "partner table");
        if (partner[i] < 0 || partner[i] >= L) {
            fprintf(stderr, "backtrack: %s: partner out of range\n", path);
            exit(2);
        }
    }
    for (int t = 0; t < NT; t++) {
        int e[4];
        for (int s = 0; s < 4; s++) {
            e[s] = next_int(f, path, "tile edge");
            if (e[s] < 0 || e[s] >= L) {
                fprintf(stderr, "backtrack: %s: tile %d: label out of range\n", path, t);
                exit(2);
            }
        }
        /* turned copies: after r clockwise turns side s shows e[(s - r) mod 4] */
        for (int r = 0; r < NR; r++) {
            int *d = rot_e[t][r];
            rot_frame[t][r] = 0;
            for (int s = 0; s < 4; s++) {
                d[s] = e[(s - r + 4) % 4];
                if (d[s] == FRAME) rot_frame[t][r] |= 1 << s;
            }
        }
    }
    fclose(f);
    for (int c = 0; c < NT; c++) {
        int x = c % W, y = c / W;
        border[c] = (y == 0) << 0 | (x == W - 1) << 1 | (y == H - 1) << 2 | (x == 0) << 3;
    }
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "count") && strcmp(argv[1], "first"))) {
        fprintf(stderr, "usage: backtrack count|first FILE\n");
        return 2;
    }
    FIRST = strcmp(argv[1], "first") == 0;
    read_puzzle(argv[2]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    dfs(0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (FIRST) {
        printf("solution");
        if (solutions)
            for (int c = 0; c < NT; c++) printf(" %d:%d", pick_t[c], pick_r[c]);
        else
            printf(" none");
        printf("\n");
    } else {
        printf("solutions %llu\n", (unsigned long long)solutions);
    }
    printf("nodes %llu\nseconds %.6f\n", (unsigned long long)nodes, seconds);
    return FIRST && !solutions ? 1 : 0;
}
