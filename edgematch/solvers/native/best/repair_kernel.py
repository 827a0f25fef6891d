"""The compiled steps of the repair stage (numba): destroy a set of cells, re-place their tiles exactly,
accept by simulated annealing, adapt the operators' weights.

A board is kept per cell as its tile type (``typ``, -1 on a hinted cell) and its *option* (``opt``: an
index into the option table, which holds a type's turn and the normalised labels it shows; a cell of class
``k`` may take the options ``opt_start[k, t]:opt_end[k, t]`` of type ``t``, i.e. the turns that show the
frame exactly on the cell's outer sides). Labels are normalised so that a seam fits when the two labels are
equal. ``lab[c, s]`` is what cell ``c`` shows on side ``s`` (hinted cells: their fixed labels).

Operators (each picks the cells to free; their tiles are then re-placed):

0. ``window``: a small rectangle (2x2 to 3x3, 2x4) around a random broken seam; repaired by
   :func:`window_repair`, an exhaustive branch and bound over the freed cells' tiles and turns for the best
   arrangement *other than the current one* (the move always changes the board; annealing decides).
1. ``worst window``: the window with the most breaks among eight random ones (a tournament); same repair.
2. ``conflict``: cells next to broken seams, as many as form a set of non-adjacent cells, plus random cells
   of the same colour of the checkerboard; repaired by :func:`assign_repair`.
3. ``region``: one colour of the checkerboard in a random square of side 4-8; :func:`assign_repair`.
4. ``band``: one colour of the checkerboard in the two rows (or columns) with the most breaks among four
   random bands; :func:`assign_repair`.

Cells of one checkerboard colour share no seam, so each tile's best turn in each such cell depends only on
the fixed neighbours: the best re-placement is an assignment problem (Hungarian method, exact), its ties
broken by noise below one seam over the whole set; above zero temperature the noise grows with it, so the
assignment may be a worse board, which annealing then accepts or not.
"""

from __future__ import annotations

import numpy as np
from numba import njit

N_OPS = 5
WINDOWS = np.array([[2, 2], [2, 3], [3, 2], [3, 3], [2, 4], [4, 2], [3, 4], [4, 3], [4, 4]], np.int64)
MAX_ASSIGN = 64  # cells one assignment may free
# counters, per operator: tries, accepted, improved the current board, a new best board; then totals
C_TRIES, C_ACCEPTED, C_BETTER, C_BEST = 0, 1, 2, 3
# ``state`` slots
S_CUR, S_BEST, S_MOVES, S_CAPPED, S_NODES = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def reseed(seed):
    np.random.seed(seed)


@njit(cache=True, nogil=True)
def score_of(lab, nb):
    """Fitting seams of the whole board (each seam once: east and south sides)."""
    n = lab.shape[0]
    total = 0
    for c in range(n):
        for s in (1, 2):
            m = nb[c, s]
            if m >= 0 and lab[c, s] == lab[m, (s + 2) % 4]:
                total += 1
    return total


@njit(cache=True, nogil=True)
def _local(cells, k, mark, lab, nb):
    """Fitting seams that touch the ``k`` marked ``cells`` (each seam once)."""
    total = 0
    for i in range(k):
        c = cells[i]
        for s in range(4):
            m = nb[c, s]
            if m < 0 or (mark[m] and m < c):
                continue
            if lab[c, s] == lab[m, (s + 2) % 4]:
                total += 1
    return total


@njit(cache=True, nogil=True)
def _set(c, o, typ, opt, lab, opt_type, opt_edge):
    typ[c] = opt_type[o]
    opt[c] = o
    for s in range(4):
        lab[c, s] = opt_edge[o, s]


@njit(cache=True, nogil=True)
def _breaks_at(c, lab, nb):
    b = 0
    for s in range(4):
        m = nb[c, s]
        if m >= 0 and lab[c, s] != lab[m, (s + 2) % 4]:
            b += 1
    return b


@njit(cache=True, nogil=True)
def window_repair(cells, k, mark, typ, opt, lab, nb, cls, opt_start, opt_end, opt_type, opt_edge, temp,
                  node_cap, out_opt, scratch):
    """The best arrangement of the freed cells' tiles other than the current one, at most a few seams
    worse (it is then up to the annealing): its options in ``out_opt``; returns (its local score, the
    current local score, nodes, whether the node cap cut the search). (-1, ...) when none exists."""
    cur_local = _local(cells, k, mark, lab, nb)
    # the pool: distinct types among the freed cells and their counts
    ptype = scratch[0]
    pcnt = scratch[1]
    m = 0
    for i in range(k):
        t = typ[cells[i]]
        j = 0
        while j < m and ptype[j] != t:
            j += 1
        if j == m:
            ptype[m] = t
            pcnt[m] = 0
            m += 1
        pcnt[j] += 1
    for j in range(m - 1, 0, -1):  # a random order of the types: ties go to a random arrangement
        r = np.random.randint(j + 1)
        a = ptype[j]
        ptype[j] = ptype[r]
        ptype[r] = a
        a = pcnt[j]
        pcnt[j] = pcnt[r]
        pcnt[r] = a
    # per freed cell: its checks (fixed neighbours, and freed neighbours earlier in the order)
    checks = scratch[2]
    for i in range(k):
        c = cells[i]
        ch = 0
        for s in range(4):
            nbc = nb[c, s]
            if nbc < 0:
                continue
            if not mark[nbc] or nbc < c:
                ch += 1
        checks[i] = ch
    ub = scratch[3]
    ub[k] = 0
    for i in range(k - 1, -1, -1):
        ub[i] = ub[i + 1] + checks[i]
    drop = 1 if np.random.random() < temp else 0  # hot: one seam worse may come out, for the annealing
    best = cur_local - drop - 1  # record arrangements scoring more than this
    found = False
    # the search: per level the type index and option being tried, the score so far
    ti = scratch[4]
    oi = scratch[5]
    gain = scratch[6]
    chosen = scratch[7]
    same = scratch[8]  # cells so far that keep their current option
    for i in range(k):
        ti[i] = 0
        oi[i] = -1
    level = 0
    score = 0
    nodes = 0
    capped = False
    saved = scratch[9]
    for i in range(k):
        saved[i] = opt[cells[i]]
    while level >= 0:
        c = cells[level]
        kc = cls[c]
        advanced = False
        while ti[level] < m:
            j = ti[level]
            if pcnt[j] == 0:
                ti[level] += 1
                oi[level] = -1
                continue
            t = ptype[j]
            if oi[level] < 0:
                oi[level] = opt_start[kc, t]
            else:
                oi[level] += 1
            if oi[level] >= opt_end[kc, t]:
                ti[level] += 1
                oi[level] = -1
                continue
            o = oi[level]
            g = 0
            for s in range(4):
                nbc = nb[c, s]
                if nbc < 0:
                    continue
                if not mark[nbc]:
                    if opt_edge[o, s] == lab[nbc, (s + 2) % 4]:
                        g += 1
                elif nbc < c and opt_edge[o, s] == opt_edge[chosen[_index(cells, k, nbc)], (s + 2) % 4]:
                    g += 1
            nodes += 1
            if score + g + ub[level + 1] <= best:
                continue
            chosen[level] = o
            gain[level] = g
            if level == 0:
                same[0] = 1 if o == saved[0] else 0
            else:
                same[level] = same[level - 1] if o == saved[level] else 0
            pcnt[j] -= 1
            score += g
            advanced = True
            break
        if nodes > node_cap:
            capped = True
            break
        if advanced:
            if level == k - 1:
                if score > best and same[level] == 0:
                    best = score
                    found = True
                    for i in range(k):
                        out_opt[i] = chosen[i]
                    if best == ub[0]:
                        break
                # undo this level's choice and try its next option
                pcnt[ti[level]] += 1
                score -= gain[level]
            else:
                level += 1
                ti[level] = 0
                oi[level] = -1
        else:
            level -= 1
            if level >= 0:
                pcnt[ti[level]] += 1
                score -= gain[level]
    if not found:
        return -1, cur_local, nodes, capped
    return best, cur_local, nodes, capped


@njit(cache=True, nogil=True)
def _index(cells, k, c):
    for i in range(k):
        if cells[i] == c:
            return i
    return -1


@njit(cache=True, nogil=True)
def hungarian(cost, k, assign, u, v, p, way, minv, used):
    """Minimum-cost perfect assignment of the ``k x k`` matrix ``cost``: ``assign[row] = column``
    (the shortest augmenting path method with potentials, O(k^3))."""
    inf = 1e18
    for j in range(k + 1):
        u[j] = 0.0
        v[j] = 0.0
        p[j] = 0
        way[j] = 0
    for i in range(1, k + 1):
        p[0] = i
        j0 = 0
        for j in range(k + 1):
            minv[j] = inf
            used[j] = False
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = inf
            j1 = 0
            for j in range(1, k + 1):
                if not used[j]:
                    cur = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(k + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    for j in range(1, k + 1):
        assign[p[j] - 1] = j - 1


@njit(cache=True, nogil=True)
def assign_repair(cells, k, typ, opt, lab, nb, cls, opt_start, opt_end, opt_edge, temp, out_opt, work, fwork,
                  bwork):
    """The best re-placement of the tiles of ``k`` pairwise non-adjacent cells (an assignment of tiles to
    cells, each tile in its best turn there), ties broken at random; above zero temperature with noise of
    ``temp`` seams per pair. Options in ``out_opt``; returns (new local score, current local score)."""
    w = fwork[0]
    gain_of = work[0]
    best_opt = work[1]
    cur_local = 0
    for i in range(k):
        c = cells[i]
        for s in range(4):
            m = nb[c, s]
            if m >= 0 and lab[c, s] == lab[m, (s + 2) % 4]:
                cur_local += 1
    noise = temp + 0.5 / (k + 1)
    for i in range(k):
        c = cells[i]
        kc = cls[c]
        for j in range(k):
            t = typ[cells[j]]
            bg = -1
            bo = -1
            for o in range(opt_start[kc, t], opt_end[kc, t]):
                g = 0
                for s in range(4):
                    m = nb[c, s]
                    if m >= 0 and opt_edge[o, s] == lab[m, (s + 2) % 4]:
                        g += 1
                if g > bg:
                    bg = g
                    bo = o
            gain_of[i, j] = bg
            best_opt[i, j] = bo
            if bo < 0:
                w[i, j] = 1e9
            else:
                w[i, j] = -(bg + noise * np.random.random())
    assign = work[2][0]
    hungarian(w, k, assign, fwork[1][0], fwork[1][1], work[2][1], work[2][2], fwork[1][2], bwork)
    new_local = 0
    for i in range(k):
        j = assign[i]
        out_opt[i] = best_opt[i, j]
        new_local += gain_of[i, j]
    return new_local, cur_local


@njit(cache=True, nogil=True)
def _pick(weights):
    total = 0.0
    for x in weights:
        total += x
    r = np.random.random() * total
    for i in range(len(weights)):
        r -= weights[i]
        if r <= 0:
            return i
    return len(weights) - 1


@njit(cache=True, nogil=True)
def _window_breaks(r0, c0, h, w, W, lab, nb):
    b = 0
    for r in range(r0, r0 + h):
        for c in range(c0, c0 + w):
            b += _breaks_at(r * W + c, lab, nb)
    return b


@njit(cache=True, nogil=True)
def _broken_cell(n, free, lab, nb):
    """A random free cell with a broken seam (-1 when none after some tries)."""
    for _ in range(64):
        c = np.random.randint(n)
        if free[c] and _breaks_at(c, lab, nb) > 0:
            return c
    for c in range(n):
        if free[c] and _breaks_at(c, lab, nb) > 0:
            return c
    return -1


@njit(cache=True, nogil=True)
def _choose(op, W, H, free, lab, nb, cells, mark):
    """The cells operator ``op`` frees, in row-major order; their count (0: none this time)."""
    n = W * H
    k = 0
    if op <= 1:
        wi = np.random.randint(len(WINDOWS))
        h = min(WINDOWS[wi, 0], H)
        w = min(WINDOWS[wi, 1], W)
        if op == 0:
            c = _broken_cell(n, free, lab, nb)
            if c < 0:
                return 0
            r0 = max(0, min(H - h, c // W - np.random.randint(h)))
            c0 = max(0, min(W - w, c % W - np.random.randint(w)))
        else:
            best = -1
            r0 = 0
            c0 = 0
            for _ in range(8):
                rr = np.random.randint(H - h + 1)
                cc = np.random.randint(W - w + 1)
                b = _window_breaks(rr, cc, h, w, W, lab, nb)
                if b > best:
                    best = b
                    r0 = rr
                    c0 = cc
        for r in range(r0, r0 + h):
            for cc in range(c0, c0 + w):
                cell = r * W + cc
                if free[cell]:
                    cells[k] = cell
                    k += 1
    else:
        colour = np.random.randint(2)
        if op == 2:
            start = np.random.randint(n)
            for d in range(n):
                c = (start + d) % n
                if free[c] and (c // W + c % W) % 2 == colour and _breaks_at(c, lab, nb) > 0:
                    mark[c] = True
                    k += 1
                    if k >= MAX_ASSIGN // 2:
                        break
            extra = k  # as many random cells of the same colour again, for room to move
            for _ in range(4 * extra):
                if extra == 0 or k >= MAX_ASSIGN:
                    break
                c = np.random.randint(n)
                if free[c] and (c // W + c % W) % 2 == colour and not mark[c]:
                    mark[c] = True
                    k += 1
                    extra -= 1
        else:
            if op == 3:
                side = 4 + np.random.randint(5)
                h = min(side, H)
                w = min(side, W)
                r0 = np.random.randint(H - h + 1)
                c0 = np.random.randint(W - w + 1)
            else:
                best = -1
                r0 = 0
                c0 = 0
                h = 0
                w = 0
                for _ in range(4):
                    if np.random.randint(2) == 0:
                        hh, ww = min(2, H), W
                    else:
                        hh, ww = H, min(2, W)
                    rr = np.random.randint(H - hh + 1)
                    cc = np.random.randint(W - ww + 1)
                    b = _window_breaks(rr, cc, hh, ww, W, lab, nb)
                    if b > best:
                        best = b
                        r0, c0, h, w = rr, cc, hh, ww
            for r in range(r0, r0 + h):
                for cc in range(c0, c0 + w):
                    c = r * W + cc
                    if free[c] and (r + cc) % 2 == colour and k < MAX_ASSIGN:
                        mark[c] = True
                        k += 1
        j = 0
        for c in range(n):
            if mark[c]:
                cells[j] = c
                j += 1
                mark[c] = False
    return k


@njit(cache=True, nogil=True)
def lns(moves, W, H, free, nb, cls, opt_start, opt_end, opt_type, opt_edge, typ, opt, lab, best_typ, best_opt,
        state, weights, rewards, counters, temps, node_cap):
    """Up to ``moves`` destroy-and-repair moves from the current board (``typ``, ``opt``, ``lab``); returns
    early, with 1, when a board beats ``state[S_BEST]`` (copied to ``best_typ``/``best_opt``), else 0.
    ``temps``: (temperature now, its factor per move, its floor, its start). ``weights``: the operators'
    selection weights; ``rewards``: (new best, better, accepted, segment length, reaction) and per operator
    the segment's score and uses after them."""
    n = W * H
    cells = np.zeros(max(n, 1), np.int64)
    mark = np.zeros(max(n, 1), np.bool_)
    out_opt = np.zeros(max(n, 1), np.int64)
    old_opt = np.zeros(max(n, 1), np.int64)
    scratch = np.zeros((10, max(n, 1) + 1), np.int64)
    work = np.zeros((3, MAX_ASSIGN + 1, MAX_ASSIGN + 1), np.int64)
    fwork = np.zeros((2, MAX_ASSIGN + 1, MAX_ASSIGN + 1), np.float64)
    bwork = np.zeros(MAX_ASSIGN + 1, np.bool_)
    seg_score = rewards[5:5 + N_OPS]
    seg_uses = rewards[5 + N_OPS:5 + 2 * N_OPS]
    for _ in range(moves):
        state[S_MOVES] += 1
        if state[S_MOVES] % int(rewards[3]) == 0:  # the end of a segment: adapt the weights
            for o in range(N_OPS):
                if seg_uses[o] > 0:
                    weights[o] = max(0.05, (1 - rewards[4]) * weights[o] + rewards[4] * seg_score[o] / seg_uses[o])
                seg_score[o] = 0
                seg_uses[o] = 0
        op = _pick(weights)
        k = _choose(op, W, H, free, lab, nb, cells, mark)
        temp = temps[0]
        temps[0] = max(temps[2], temps[0] * temps[1])
        if k < 2:
            continue
        counters[op, C_TRIES] += 1
        seg_uses[op] += 1
        for i in range(k):
            mark[cells[i]] = True
        if op <= 1:
            new_local, cur_local, nodes, capped = window_repair(
                cells, k, mark, typ, opt, lab, nb, cls, opt_start, opt_end, opt_type, opt_edge, temp, node_cap,
                out_opt, scratch)
            state[S_NODES] += nodes
            if capped:
                state[S_CAPPED] += 1
        else:
            new_local, cur_local = assign_repair(cells, k, typ, opt, lab, nb, cls, opt_start, opt_end, opt_edge,
                                                 temp, out_opt, work, fwork, bwork)
        for i in range(k):
            mark[cells[i]] = False
        if new_local < 0:
            continue
        delta = new_local - cur_local
        if delta < 0 and (temp <= 0 or np.random.random() >= np.exp(delta / temp)):
            continue
        changed = False
        for i in range(k):
            old_opt[i] = opt[cells[i]]
            if out_opt[i] != old_opt[i]:
                changed = True
            _set(cells[i], out_opt[i], typ, opt, lab, opt_type, opt_edge)
        if not changed:
            continue
        counters[op, C_ACCEPTED] += 1
        reward = rewards[2]
        state[S_CUR] += delta
        if delta > 0:
            counters[op, C_BETTER] += 1
            reward = rewards[1]
        if state[S_CUR] > state[S_BEST]:
            counters[op, C_BEST] += 1
            seg_score[op] += rewards[0]
            state[S_BEST] = state[S_CUR]
            for c in range(n):
                best_typ[c] = typ[c]
                best_opt[c] = opt[c]
            return 1
        seg_score[op] += reward
    return 0
