/*
 * vastuz_mcts.c: a Monte Carlo tree search (UCT) bot for Vastuz, in one C11 file.
 *
 * It needs nothing but the C standard library (libc and its maths library, -lm) and is
 * meant to be read: a bot author in C, C++, Rust, Go... can take it as a template. The
 * rules are those of docs/rules.md (all of them: placement, compulsory steal rounds, pie
 * rule, score, every board size 2 to 13), the protocol that of protocol/PROTOCOL.md.
 *
 * Build:  make                      (in sample_bots/c; writes build/vastuz_mcts)
 *    or:  cc -std=c11 -O2 -o vastuz_mcts vastuz_mcts.c -lm
 * Check:  vastuz check "sample_bots/c/build/vastuz_mcts" --size 7 --size 5
 * By hand: ./build/vastuz_mcts, then type `boardsize 5`, `clear_board`, `genmove b`...
 *
 * Options:
 *   --seed N          seed of every random choice (default: from the clock). With
 *                     --max-playouts the bot's play is then fully reproducible.
 *   --move-time S     seconds per turn when the referee sends no time_left, and per
 *                     pie-rule decision when it sends no time_settings (default 1)
 *   --exploration C   UCT exploration constant, values in [0, 1] (default 0.5)
 *   --widening A      progressive widening: a node may have 3 + visits^A children, taken
 *                     in the order of the one-ply evaluation (default 0.5)
 *   --playout-k K     playout policy: every turn keeps the best of K random placements
 *                     by the evaluation (default 3; 1 = uniformly random playouts)
 *   --completions M   random steal completions tried for a turn of the tree; the one
 *                     with the best evaluation is kept (default 16)
 *   --max-playouts K  stop every search after K playouts, whatever the clock says
 *   --max-nodes N     cap on the size of the search tree (default 1000000 nodes)
 *   --verbose         one line of search statistics per decision on stderr
 *
 * How it plays (the same design as sample_bots/mcts_bot.py, made fast):
 *   - The tree is over placements; the steals of a turn are finished by a policy (the
 *     best of --completions random completions by the evaluation below). Steals rarely
 *     leave a real choice, and this keeps the branching factor at the number of empty
 *     points.
 *   - Evaluation: the score formula applied to the stones as they stand, mover minus
 *     opponent (exact at the end of the game). A node's children are ranked once by it
 *     and added one by one as the node's visits grow (progressive widening), so with no
 *     search at all the bot would play the greedy bot's move.
 *   - Playouts: every turn draws --playout-k random legal placements, plays each with
 *     random steals, and keeps the one with the best evaluation for the mover. A
 *     playout's value is the result (win 1, draw 0.5, loss 0) plus a small term for the
 *     final margin.
 *   - Time: the referee's time_settings / time_left give the budget (section 8).
 *   - Pie rule: as first player it searches a few random setups and offers the one whose
 *     value for Black is closest to one half; as second player it takes Black iff its
 *     search gives Black at least one half.
 *
 * Sections: 1 board geometry, 2 position (stones, groups, score), 3 rules: placements,
 * 4 rules: steals, 5 turns (notation, checked play), 6 playouts, 7 tree search, 8 time,
 * 9 protocol loop, then main().
 */

#define _POSIX_C_SOURCE 200809L /* getline, clock_gettime */

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXN 13
#define MAXSIDE (2 * MAXN - 1)                /* 25 columns and rows at most */
#define MAXP (3 * MAXN * (MAXN - 1) + 1)      /* 469 points at most */
#define MAX_LINE 65536                        /* the protocol's line limit */

/* ---------------------------------------------------------------- random numbers */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static void rng_seed(uint64_t seed) {
    /* splitmix64 scrambles the seed, so that seeds 1, 2, 3 give unrelated streams */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    rng_state = (z ^ (z >> 31)) | 1; /* xorshift needs a non-zero state */
}

static uint64_t rng_next(void) { /* xorshift64* */
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static int rng_below(int n) { /* uniform in [0, n) */
    return (int)(((rng_next() >> 32) * (uint64_t)n) >> 32);
}

/* ================================================================ 1. board geometry
 * A hex-hex board of side N. Point (q, r) exists iff 0 <= q, r <= 2N-2 and |q-r| <= N-1;
 * it is named by column letter (q) and row number (r+1): a1, g7, m13. Points are numbered
 * 0..P-1 in row order (r, then q); NB lists the (up to 6) neighbours of each point:
 * (q±1, r), (q, r±1), (q+1, r+1), (q-1, r-1). */

static int N = 7, SIDE, P;
static int PQ[MAXP], PR[MAXP];     /* coordinates of each point */
static int IDX[MAXSIDE][MAXSIDE];  /* IDX[q][r]: the point, or -1 off the board */
static int NB[MAXP][6], NNB[MAXP]; /* neighbours */
static char NAME[MAXP][8];         /* "a1" .. "y25" */

static void geometry_init(int n) {
    static const int dirs[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}};
    N = n;
    SIDE = 2 * n - 1;
    P = 0;
    for (int q = 0; q < MAXSIDE; q++)
        for (int r = 0; r < MAXSIDE; r++) IDX[q][r] = -1;
    for (int r = 0; r < SIDE; r++)
        for (int q = 0; q < SIDE; q++)
            if (abs(q - r) <= n - 1) {
                IDX[q][r] = P;
                PQ[P] = q;
                PR[P] = r;
                NAME[P][0] = (char)('a' + q); /* the row number has 1 or 2 digits */
                if (r + 1 < 10) NAME[P][1] = (char)('1' + r), NAME[P][2] = 0;
                else NAME[P][1] = (char)('0' + (r + 1) / 10), NAME[P][2] = (char)('0' + (r + 1) % 10), NAME[P][3] = 0;
                P++;
            }
    for (int p = 0; p < P; p++) {
        NNB[p] = 0;
        for (int d = 0; d < 6; d++) {
            int q = PQ[p] + dirs[d][0], r = PR[p] + dirs[d][1];
            if (q >= 0 && r >= 0 && q < SIDE && r < SIDE && IDX[q][r] >= 0) NB[p][NNB[p]++] = IDX[q][r];
        }
    }
}

/* A point name ("g7", any case) -> point, or -1 if it is not a point of this board.
 * No leading zeros ("a07" is not a name). */
static int parse_point(const char *s, size_t len) {
    if (len < 2 || len > 3) return -1;
    int q = tolower((unsigned char)s[0]) - 'a';
    if (q < 0 || q >= SIDE || s[1] < '1' || s[1] > '9') return -1;
    int r = s[1] - '0';
    if (len == 3) {
        if (!isdigit((unsigned char)s[2])) return -1;
        r = 10 * r + (s[2] - '0');
    }
    r -= 1;
    if (r >= SIDE) return -1;
    return IDX[q][r];
}

/* ================================================================ 2. position
 * Stones, groups and score, kept incrementally. Colours: 0 Black, 1 White; a point holds
 * 0 (empty), 1 (Black) or 2 (White). Each group has an id (shared pool for both colours)
 * and a doubly-linked list of its stones. Groups never merge in Vastuz (placing and
 * stealing never join two groups of a colour): they only grow one stone at a time, and
 * an enemy group can split when one of its stones is stolen.
 *
 * For the score, cnt[c][s] counts colour c's groups of size s; sumd/nd are the sum and
 * the number of distinct sizes, maxs the largest size. Scores are kept doubled (integers):
 * score2 = 2 * (sum of distinct sizes + number of distinct sizes) + 1 for the strictly
 * largest group. */

typedef struct {
    int8_t col[MAXP];                 /* 0 empty, 1 black, 2 white */
    int16_t gid[MAXP];                /* group of the stone on the point, -1 if empty */
    int16_t nxt[MAXP], prv[MAXP];     /* the group's stone list */
    int16_t ghead[MAXP], gsize[MAXP]; /* per group id: first stone, size */
    int8_t gcol[MAXP];                /* per group id: colour */
    int16_t gfree[MAXP], nfree;       /* unused group ids */
    int16_t cnt[2][MAXP + 2];
    int16_t sumd[2], nd[2], maxs[2];
    int16_t empt[MAXP], epos[MAXP], nempty; /* the empty points, for random sampling */
    int8_t to_move;                   /* 0 Black, 1 White */
} State;

/* Scratch marks for floods and de-duplication: mark[x] == stamp means "seen". */
static uint32_t pmark[MAXP], gmark[MAXP], stamp;

static void state_clear(State *s) {
    memset(s, 0, sizeof *s);
    for (int p = 0; p < P; p++) {
        s->gid[p] = -1;
        s->empt[p] = (int16_t)p;
        s->epos[p] = (int16_t)p;
    }
    s->nempty = (int16_t)P;
    for (int g = 0; g < P; g++) s->gfree[g] = (int16_t)(P - 1 - g);
    s->nfree = (int16_t)P;
}

static void size_add(State *s, int c, int size) { /* a group of this size appears */
    if (s->cnt[c][size]++ == 0) {
        s->sumd[c] += size;
        s->nd[c]++;
    }
    if (size > s->maxs[c]) s->maxs[c] = (int16_t)size;
}

static void size_remove(State *s, int c, int size) { /* a group of this size goes */
    if (--s->cnt[c][size] == 0) {
        s->sumd[c] -= size;
        s->nd[c]--;
        if (size == s->maxs[c])
            while (s->maxs[c] > 0 && s->cnt[c][s->maxs[c]] == 0) s->maxs[c]--;
    }
}

static int score2(const State *s, int c) {
    return 2 * (s->sumd[c] + s->nd[c]) + (s->maxs[c] > s->maxs[1 - c]);
}

/* The evaluation: c's (doubled) score minus the opponent's. Exact at the end. */
static int margin2(const State *s, int c) { return score2(s, c) - score2(s, 1 - c); }

static int new_group(State *s, int c) {
    int g = s->gfree[--s->nfree];
    s->ghead[g] = -1;
    s->gsize[g] = 0;
    s->gcol[g] = (int8_t)c;
    return g;
}

static void link_stone(State *s, int p, int g) {
    s->gid[p] = (int16_t)g;
    s->prv[p] = -1;
    s->nxt[p] = s->ghead[g];
    if (s->ghead[g] >= 0) s->prv[s->ghead[g]] = (int16_t)p;
    s->ghead[g] = (int16_t)p;
}

static void unlink_stone(State *s, int p) {
    int g = s->gid[p];
    if (s->prv[p] >= 0) s->nxt[s->prv[p]] = s->nxt[p];
    else s->ghead[g] = s->nxt[p];
    if (s->nxt[p] >= 0) s->prv[s->nxt[p]] = s->prv[p];
    s->gid[p] = -1;
}

/* Put a stone of colour c on the empty point p, into group g (-1: a new group). */
static int put_stone(State *s, int p, int c, int g) {
    if (g < 0) g = new_group(s, c);
    s->col[p] = (int8_t)(c + 1);
    int i = s->epos[p], last = s->empt[--s->nempty]; /* remove p from the empty list */
    s->empt[i] = (int16_t)last;
    s->epos[last] = (int16_t)i;
    link_stone(s, p, g);
    int old = s->gsize[g]++;
    size_add(s, c, old + 1); /* add first, so that size_remove never scans for the max */
    if (old) size_remove(s, c, old);
    return g;
}

/* Flood from `from` over the stones of group g not yet marked; with `into` >= 0 the
 * stones found move to group `into`. Returns how many stones were found. */
static int flood(State *s, int from, int g, int into) {
    static int16_t stack[MAXP];
    int n = 0, count = 0;
    stack[n++] = (int16_t)from;
    pmark[from] = stamp;
    while (n) {
        int p = stack[--n];
        count++;
        if (into >= 0) {
            unlink_stone(s, p);
            link_stone(s, p, into);
        }
        for (int i = 0; i < NNB[p]; i++) {
            int q = NB[p][i];
            if (s->gid[q] == g && pmark[q] != stamp) {
                pmark[q] = stamp;
                stack[n++] = (int16_t)q;
            }
        }
    }
    return count;
}

/* Take the stone off point p; its group may vanish or split into several groups. */
static void take_stone(State *s, int p) {
    int g = s->gid[p], c = s->gcol[g], old = s->gsize[g];
    unlink_stone(s, p);
    s->col[p] = 0;
    s->epos[p] = s->nempty; /* back on the empty list */
    s->empt[s->nempty++] = (int16_t)p;
    int seeds[6], ns = 0;
    for (int i = 0; i < NNB[p]; i++)
        if (s->gid[NB[p][i]] == g) seeds[ns++] = NB[p][i];
    size_remove(s, c, old);
    if (ns == 0) { /* the group is gone */
        s->gfree[s->nfree++] = (int16_t)g;
        return;
    }
    if (ns == 1) { /* p was a leaf: the rest is still connected */
        s->gsize[g] = (int16_t)(old - 1);
        size_add(s, c, old - 1);
        return;
    }
    stamp++;
    int kept = flood(s, seeds[0], g, -1); /* g keeps the part of the first neighbour */
    s->gsize[g] = (int16_t)kept;
    size_add(s, c, kept);
    for (int i = 1; i < ns && kept < old - 1; i++) {
        if (pmark[seeds[i]] == stamp) continue;
        int ng = new_group(s, c);
        int part = flood(s, seeds[i], g, ng);
        s->gsize[ng] = (int16_t)part;
        size_add(s, c, part);
        kept += part;
    }
}

/* ================================================================ 3. rules: placements
 * A placement is legal iff the point is empty and touches at most one group of the
 * mover. A player with no legal placement must pass; when neither has one, the game is
 * over. */

/* The group that c placing on p would grow: -1 for a new group, -2 if p is illegal. */
static int placement_group(const State *s, int p, int c) {
    if (s->col[p]) return -2;
    int g = -1;
    for (int i = 0; i < NNB[p]; i++) {
        int q = NB[p][i];
        if (s->col[q] == c + 1) {
            if (g < 0) g = s->gid[q];
            else if (s->gid[q] != g) return -2;
        }
    }
    return g;
}

static int legal_placements(const State *s, int c, int16_t *out) {
    int n = 0;
    for (int i = 0; i < s->nempty; i++)
        if (placement_group(s, s->empt[i], c) != -2) out[n++] = s->empt[i];
    return n;
}

static int has_placement(const State *s, int c) {
    for (int i = 0; i < s->nempty; i++)
        if (placement_group(s, s->empt[i], c) != -2) return 1;
    return 0;
}

static int game_over(const State *s) { return !has_placement(s, 0) && !has_placement(s, 1); }

/* ================================================================ 4. rules: steals
 * After the placement, G is the mover's group holding the new stone. Stealing goes in
 * rounds. At the start of a round, T = the enemy groups that touch G and have G's shape.
 * In the round the mover steals once from each group of T, in any order: a steal (x, y)
 * takes x, a stone of that group, off the board and puts a stone of the mover on y, a
 * point that (after the removal) is empty, touches G and touches no other group of the
 * mover. Stealing is compulsory: while a group of T not yet stolen from this round has a
 * legal steal, one must be made (checked after every steal). When the round has no legal
 * steal left: a new round if it made a steal, else the turn is over.
 *
 * The mover's other groups never change during a turn, so "touches no other group of
 * the mover" (is_blocked) is a simple neighbour test, and G's group id stays the same. */

typedef struct {
    int c, g;             /* the mover, G's group id */
    int16_t pend[MAXP];   /* groups of T not yet stolen from in this round */
    int npend;
    int round_steals;     /* steals made in this round */
    int done;             /* no steal is left: the turn is complete */
} Steals;

/* Whether a point touches a group of colour c other than g. */
static int is_blocked(const State *s, int y, int c, int g) {
    for (int i = 0; i < NNB[y]; i++) {
        int q = NB[y][i];
        if (s->col[q] == c + 1 && s->gid[q] != g) return 1;
    }
    return 0;
}

static int touches(const State *s, int y, int g) {
    for (int i = 0; i < NNB[y]; i++)
        if (s->gid[NB[y][i]] == g) return 1;
    return 0;
}

/* The empty points where a stolen stone may go: next to G, next to no other own group.
 * With out == NULL, only says whether there is one. */
static int steal_targets(const State *s, const Steals *m, int16_t *out) {
    int n = 0;
    stamp++;
    for (int x = s->ghead[m->g]; x >= 0; x = s->nxt[x])
        for (int i = 0; i < NNB[x]; i++) {
            int y = NB[x][i];
            if (s->col[y] || pmark[y] == stamp) continue;
            pmark[y] = stamp;
            if (is_blocked(s, y, m->c, m->g)) continue;
            if (!out) return 1;
            out[n++] = (int16_t)y;
        }
    return n;
}

/* Stone x may be stolen onto its own point: it touches G and no other own group. */
static int freeable(const State *s, const Steals *m, int x) {
    return touches(s, x, m->g) && !is_blocked(s, x, m->c, m->g);
}

/* Same shape, up to translation and the 12 symmetries of the lattice. In axial
 * coordinates a 60-degree rotation is (q, r) -> (q - r, q) and swapping q and r is a
 * reflection. Group a is drawn in a bitmap (moved to the origin); each image of b, moved
 * to the origin, is compared with it. Sizes 1 and 2 have a single shape. */
static int same_shape(const State *s, int a, int b) {
    int n = s->gsize[a];
    if (n != s->gsize[b]) return 0;
    if (n <= 2) return 1;
    uint32_t grid[MAXSIDE];
    int minq = MAXSIDE, minr = MAXSIDE;
    for (int x = s->ghead[a]; x >= 0; x = s->nxt[x]) {
        if (PQ[x] < minq) minq = PQ[x];
        if (PR[x] < minr) minr = PR[x];
    }
    memset(grid, 0, sizeof grid);
    for (int x = s->ghead[a]; x >= 0; x = s->nxt[x]) grid[PR[x] - minr] |= 1u << (PQ[x] - minq);
    int q[MAXP], r[MAXP], k = 0;
    for (int x = s->ghead[b]; x >= 0; x = s->nxt[x]) {
        q[k] = PQ[x];
        r[k] = PR[x];
        k++;
    }
    for (int rot = 0; rot < 6; rot++) {
        for (int refl = 0; refl < 2; refl++) {
            int mq = 1 << 20, mr = 1 << 20;
            for (int i = 0; i < n; i++) {
                int a1 = refl ? r[i] : q[i], b1 = refl ? q[i] : r[i];
                if (a1 < mq) mq = a1;
                if (b1 < mr) mr = b1;
            }
            int ok = 1;
            for (int i = 0; i < n && ok; i++) {
                int dq = (refl ? r[i] : q[i]) - mq, dr = (refl ? q[i] : r[i]) - mr;
                ok = dq < 32 && dr < MAXSIDE && (grid[dr] >> dq & 1);
            }
            if (ok) return 1;
        }
        for (int i = 0; i < n; i++) { /* rotate b by 60 degrees */
            int nq = q[i] - r[i];
            r[i] = q[i];
            q[i] = nq;
        }
    }
    return 0;
}

/* Start a round: T = the enemy groups touching G with G's size and shape. */
static void find_targets(const State *s, Steals *m) {
    int size = s->gsize[m->g], e = 1 - m->c;
    m->npend = 0;
    if (s->cnt[e][size] == 0) return; /* the common case: no enemy group of that size */
    stamp++;
    for (int x = s->ghead[m->g]; x >= 0; x = s->nxt[x])
        for (int i = 0; i < NNB[x]; i++) {
            int y = NB[x][i];
            if (s->col[y] != e + 1) continue;
            int h = s->gid[y];
            if (gmark[h] == stamp) continue;
            gmark[h] = stamp;
            if (s->gsize[h] == size && same_shape(s, m->g, h)) m->pend[m->npend++] = (int16_t)h;
        }
}

/* Close finished rounds, start new ones, and set done when no steal is left. */
static void steals_advance(const State *s, Steals *m) {
    for (;;) {
        if (m->npend) {
            int open = steal_targets(s, m, NULL);
            for (int i = 0; i < m->npend; i++) {
                if (open) return;
                for (int x = s->ghead[m->pend[i]]; x >= 0; x = s->nxt[x])
                    if (freeable(s, m, x)) return;
            }
        }
        if (!m->round_steals) {
            m->done = 1;
            m->npend = 0;
            return;
        }
        m->round_steals = 0;
        find_targets(s, m);
    }
}

/* Place c's stone on p (legal, group g from placement_group) and open the steal rounds. */
static void turn_begin(State *s, Steals *m, int p, int g) {
    m->c = s->to_move;
    m->g = put_stone(s, p, m->c, g);
    m->round_steals = 0;
    m->done = 0;
    find_targets(s, m);
    steals_advance(s, m);
}

static void turn_end(State *s) { s->to_move ^= 1; }

static int in_pending(const Steals *m, int h) {
    for (int i = 0; i < m->npend; i++)
        if (m->pend[i] == h) return 1;
    return 0;
}

/* Why steal (x, y) is not legal now, or NULL if it is. */
static const char *steal_check(const State *s, const Steals *m, int x, int y) {
    if (m->done) return "extra steal: the turn was already complete";
    if (s->col[x] != 2 - m->c || !in_pending(m, s->gid[x]))
        return "the stolen stone is not in a group that must be stolen from now";
    if (y != x && s->col[y]) return "the target point is occupied";
    if (!touches(s, y, m->g)) return "the target point is not next to the stealing group";
    if (is_blocked(s, y, m->c, m->g)) return "the target point touches another group of the mover";
    return NULL;
}

static void steal_apply(State *s, Steals *m, int x, int y) {
    int h = s->gid[x];
    for (int i = 0; i < m->npend; i++)
        if (m->pend[i] == h) {
            m->pend[i] = m->pend[--m->npend];
            break;
        }
    take_stone(s, x);
    put_stone(s, y, m->c, m->g);
    m->round_steals++;
    steals_advance(s, m);
}

/* A uniformly random legal steal (like the engine's random_turn); returns how many
 * there were to choose from (>= 1; the turn must not be done). */
static int steal_random(State *s, Steals *m, int *xo, int *yo) {
    int16_t targets[MAXP];
    int nt = steal_targets(s, m, targets), total = 0;
    for (int i = 0; i < m->npend; i++)
        for (int x = s->ghead[m->pend[i]]; x >= 0; x = s->nxt[x]) total += nt + freeable(s, m, x);
    int k = rng_below(total);
    for (int i = 0; i < m->npend; i++)
        for (int x = s->ghead[m->pend[i]]; x >= 0; x = s->nxt[x]) {
            int here = nt + freeable(s, m, x);
            if (k < here) {
                *xo = x;
                *yo = k < nt ? targets[k] : x;
                return total;
            }
            k -= here;
        }
    return total; /* not reached */
}

/* ================================================================ 5. turns
 * A turn: a placement (or pass) and its steals, written "g7", "g7,f6>f6", "pass". */

typedef struct {
    int place;          /* -1 for pass */
    int n;              /* number of steals */
    int16_t x[MAXP], y[MAXP];
} Turn;

static void turn_format(const Turn *t, char *out) {
    if (t->place < 0) {
        strcpy(out, "pass");
        return;
    }
    char *o = out + sprintf(out, "%s", NAME[t->place]);
    for (int i = 0; i < t->n; i++) o += sprintf(o, ",%s>%s", NAME[t->x[i]], NAME[t->y[i]]);
}

/* Notation only; 0 if the text is not a turn on this board. */
static int turn_parse(const char *text, Turn *t) {
    size_t len = strlen(text);
    t->n = 0;
    if (len == 4 && tolower((unsigned char)text[0]) == 'p' && tolower((unsigned char)text[1]) == 'a' &&
        tolower((unsigned char)text[2]) == 's' && tolower((unsigned char)text[3]) == 's') {
        t->place = -1;
        return 1;
    }
    const char *p = text, *end = text + len;
    const char *comma = memchr(p, ',', len);
    const char *stop = comma ? comma : end;
    if ((t->place = parse_point(p, (size_t)(stop - p))) < 0) return 0;
    while (comma) {
        p = comma + 1;
        comma = memchr(p, ',', (size_t)(end - p));
        stop = comma ? comma : end;
        const char *gt = memchr(p, '>', (size_t)(stop - p));
        if (!gt || t->n >= MAXP) return 0;
        int x = parse_point(p, (size_t)(gt - p)), y = parse_point(gt + 1, (size_t)(stop - gt - 1));
        if (x < 0 || y < 0) return 0;
        t->x[t->n] = (int16_t)x;
        t->y[t->n] = (int16_t)y;
        t->n++;
    }
    return 1;
}

/* Play a turn that may be illegal (the opponent's, from `play`): every rule is checked.
 * Returns NULL and updates *s, or the reason and leaves *s unchanged. */
static const char *turn_play_checked(State *s, const Turn *t) {
    static State work;
    int c = s->to_move;
    if (game_over(s)) return "the game is over";
    if (t->place < 0) {
        if (has_placement(s, c)) return "pass while a legal placement exists";
        turn_end(s);
        return NULL;
    }
    int g = placement_group(s, t->place, c);
    if (g == -2) return s->col[t->place] ? "the placement is occupied" : "the placement would merge groups";
    work = *s;
    Steals m;
    turn_begin(&work, &m, t->place, g);
    for (int i = 0; i < t->n; i++) {
        const char *why = steal_check(&work, &m, t->x[i], t->y[i]);
        if (why) return why;
        steal_apply(&work, &m, t->x[i], t->y[i]);
    }
    if (!m.done) return "missing compulsory steal";
    turn_end(&work);
    *s = work;
    return NULL;
}

/* Replay a turn known to be legal here (one this program generated), without checks. */
static void turn_replay(State *s, const int16_t *steals, int place, int n) {
    if (place >= 0) {
        int g = put_stone(s, place, s->to_move, placement_group(s, place, s->to_move));
        for (int i = 0; i < n; i++) {
            take_stone(s, steals[2 * i]);
            put_stone(s, steals[2 * i + 1], s->to_move, g);
        }
    }
    turn_end(s);
}

/* Place on p and make random steals to the end of the turn (recorded in t if given).
 * Returns 1 if some steal offered a real choice. */
static int turn_random_steals(State *s, int p, int g, Turn *t) {
    Steals m;
    int choice = 0;
    turn_begin(s, &m, p, g);
    if (t) {
        t->place = p;
        t->n = 0;
    }
    while (!m.done) {
        int x = -1, y = -1;
        choice |= steal_random(s, &m, &x, &y) > 1;
        steal_apply(s, &m, x, y);
        if (t) {
            t->x[t->n] = (int16_t)x;
            t->y[t->n] = (int16_t)y;
            t->n++;
        }
    }
    turn_end(s);
    return choice;
}

/* The mover's margin after a placement that grows group g (-1: a new group), when the
 * turn surely has no steal (no enemy group has the size G will have), computed without
 * playing; INT32_MIN if a steal is possible and the turn must be played out to be judged. */
static int quick_margin(const State *s, int g) {
    int c = s->to_move, e = 1 - c;
    int a = g < 0 ? 0 : s->gsize[g];
    if (s->cnt[e][a + 1]) return INT32_MIN;
    int sumd = s->sumd[c], nd = s->nd[c];
    if (a && s->cnt[c][a] == 1) { /* the old size disappears */
        sumd -= a;
        nd--;
    }
    if (s->cnt[c][a + 1] == 0) { /* the new size appears */
        sumd += a + 1;
        nd++;
    }
    int maxs = s->maxs[c] > a + 1 ? s->maxs[c] : a + 1;
    int mine = 2 * (sumd + nd) + (maxs > s->maxs[e]);
    int theirs = 2 * (s->sumd[e] + s->nd[e]) + (s->maxs[e] > maxs);
    return mine - theirs;
}

/* Finish the turn that places on p with the best of `tries` random steal completions
 * for the mover's margin; *s becomes the position after it, t records it. Returns the
 * margin (for the mover). */
static int turn_greedy(State *s, int p, int tries, Turn *t) {
    static State trial, best;
    static Turn tt;
    int c = s->to_move, g = placement_group(s, p, c);
    int qm = quick_margin(s, g);
    if (qm != INT32_MIN) {
        put_stone(s, p, c, g);
        turn_end(s);
        t->place = p;
        t->n = 0;
        return qm;
    }
    int best_m = INT32_MIN, ties = 0;
    for (int k = 0; k < tries; k++) {
        trial = *s;
        int choice = turn_random_steals(&trial, p, g, &tt);
        int mv = margin2(&trial, c);
        if (mv > best_m || (mv == best_m && rng_below(++ties) == 0)) {
            if (mv > best_m) ties = 1;
            best_m = mv;
            best = trial;
            *t = tt;
        }
        if (!choice) break; /* every steal was forced: one completion is all there is */
    }
    *s = best;
    return best_m;
}

/* ================================================================ 6. playouts
 * From a position to the end of the game: each turn draws K random legal placements,
 * plays each with random steals, and keeps the best for the mover by the evaluation. */

static int PLAYOUT_K = 3;

/* A random legal placement for the mover (rejection sampling over the empty points,
 * then an exact list), or -1 if there is none. */
static int random_placement(const State *s, int16_t *list, int *nlist) {
    int c = s->to_move;
    if (*nlist < 0) {
        for (int tries = 0; tries < 8 && s->nempty; tries++) {
            int p = s->empt[rng_below(s->nempty)];
            if (placement_group(s, p, c) != -2) return p;
        }
        *nlist = legal_placements(s, c, list);
    }
    return *nlist ? list[rng_below(*nlist)] : -1;
}

static void playout(State *s) {
    static State trial[2];
    static int16_t list[MAXP];
    for (int turns = 0; turns < 2 * MAXP + 2; turns++) {
        int c = s->to_move, nlist = -1;
        int p = random_placement(s, list, &nlist);
        if (p < 0) {
            if (!has_placement(s, 1 - c)) return; /* neither can place: game over */
            turn_end(s);                          /* a pass */
            continue;
        }
        int best_m = INT32_MIN, best_p = -1, best_trial = -1, spare = 0;
        for (int k = 0; k < PLAYOUT_K; k++) {
            if (k) p = random_placement(s, list, &nlist);
            int g = placement_group(s, p, c);
            int mv = quick_margin(s, g), which = -1;
            if (mv == INT32_MIN) { /* steals possible: play it out on a copy */
                trial[spare] = *s;
                turn_random_steals(&trial[spare], p, g, NULL);
                mv = margin2(&trial[spare], c);
                which = spare;
            }
            if (mv > best_m) {
                best_m = mv;
                best_p = p;
                best_trial = which;
                if (which >= 0) spare ^= 1; /* keep this copy, use the other next time */
            }
        }
        if (best_trial >= 0) *s = trial[best_trial];
        else {
            put_stone(s, best_p, c, placement_group(s, best_p, c));
            turn_end(s);
        }
    }
}

/* ================================================================ 7. tree search
 * UCT over turns (placement + steals chosen by turn_greedy). A node's children are
 * ranked once by the one-ply evaluation and added in that order, at most
 * 3 + visits^WIDENING of them (progressive widening). Node values are sums of playout
 * values from the view of the player who moved into the node. */

static double EXPLORATION = 0.5, WIDENING = 0.5;
static int COMPLETIONS = 16;
static long MAX_PLAYOUTS = 0; /* 0: no cap */
static long MAX_NODES = 1000000;
static int VERBOSE = 0;

typedef struct {
    int32_t child, sibling; /* first child, next sibling; -1 none */
    int32_t steal_off;      /* the turn's steals: 2 * nsteal int16 in the steal pool */
    int32_t rank_off;       /* the ranked placements, in the rank pool; -1 not ranked */
    int16_t place;          /* the turn into this node; -1 pass */
    int16_t nsteal, nrank, nexp; /* nexp: ranked moves made into children so far */
    int32_t visits;
    int8_t terminal;
    float value;
} Node;

static Node *nodes;
static int16_t *rank_pool, *steal_pool;
static long nnodes, rank_used, steal_used, rank_cap, steal_cap;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The value in [0, 1] of a finished game for colour c: the result, plus a small,
 * saturating term for the margin (so that the search prefers clearer wins). */
static double playout_value(const State *s, int c) {
    double m = margin2(s, c) / 2.0;
    double win = m > 0 ? 1.0 : m == 0 ? 0.5 : 0.0;
    return 0.9 * win + 0.1 * (0.5 + 0.5 * tanh(m / 8.0));
}

static int node_new(int place) {
    if (nnodes >= MAX_NODES) return -1;
    Node *n = &nodes[nnodes];
    memset(n, 0, sizeof *n);
    n->child = n->sibling = -1;
    n->rank_off = -1;
    n->place = (int16_t)place;
    return (int)nnodes++;
}

/* Rank the turns from node n (position s): every legal placement, best one-ply margin
 * first, random order among equals. A mover without placements has one move, pass. */
static void node_rank(Node *n, const State *s) {
    static int16_t list[MAXP];
    static int64_t keys[MAXP];
    static State trial;
    static Turn t;
    int c = s->to_move, np = legal_placements(s, c, list);
    if (rank_used + MAXP > rank_cap) return; /* out of memory: stays a leaf */
    n->rank_off = (int32_t)rank_used;
    if (np == 0) {
        if (!has_placement(s, 1 - c)) {
            n->terminal = 1;
            n->nrank = 0;
            return;
        }
        rank_pool[rank_used++] = -1;
        n->nrank = 1;
        return;
    }
    for (int i = 0; i < np; i++) {
        int p = list[i], g = placement_group(s, p, c);
        int mv = quick_margin(s, g);
        if (mv == INT32_MIN) {
            trial = *s;
            mv = turn_greedy(&trial, p, COMPLETIONS < 4 ? COMPLETIONS : 4, &t);
        }
        /* sort key: margin, then a random tie-break, then the point */
        keys[i] = (int64_t)mv * 4294967296LL + (int64_t)(rng_next() >> 48) * 65536 + p;
    }
    /* insertion sort, best first: np is at most a few hundred, and this runs once per node */
    for (int i = 1; i < np; i++) {
        int64_t k = keys[i];
        int j = i - 1;
        while (j >= 0 && keys[j] < k) {
            keys[j + 1] = keys[j];
            j--;
        }
        keys[j + 1] = k;
    }
    for (int i = 0; i < np; i++) rank_pool[rank_used++] = (int16_t)(keys[i] & 0xFFFF);
    n->nrank = (int16_t)np;
}

/* Make the next ranked move of node ni into a child; *s goes to the child's position. */
static int node_expand(int ni, State *s) {
    static Turn t;
    Node *n = &nodes[ni];
    int place = rank_pool[n->rank_off + n->nexp];
    if (steal_used + 2 * MAXP > steal_cap) return -1;
    int ci = node_new(place);
    if (ci < 0) return -1;
    n->nexp++;
    Node *ch = &nodes[ci];
    if (place < 0) {
        turn_end(s);
    } else {
        turn_greedy(s, place, COMPLETIONS, &t);
        ch->steal_off = (int32_t)steal_used;
        ch->nsteal = (int16_t)t.n;
        for (int i = 0; i < t.n; i++) {
            steal_pool[steal_used++] = t.x[i];
            steal_pool[steal_used++] = t.y[i];
        }
    }
    /* append at the end of the child list, so that children stay in rank order */
    if (n->child < 0) n->child = ci;
    else {
        int k = n->child;
        while (nodes[k].sibling >= 0) k = nodes[k].sibling;
        nodes[k].sibling = ci;
    }
    return ci;
}

static int select_child(const Node *n) {
    double logn = log((double)n->visits), best = -1e300;
    int bi = n->child;
    for (int k = n->child; k >= 0; k = nodes[k].sibling) {
        const Node *ch = &nodes[k];
        double u = ch->value / ch->visits + EXPLORATION * sqrt(logn / ch->visits);
        if (u > best) {
            best = u;
            bi = k;
        }
    }
    return bi;
}

typedef struct {
    long playouts;
    double seconds;
} SearchStats;

/* One iteration: select down the tree, expand one child, play out, back up. */
static void iterate(const State *root) {
    static State s;
    static int path[2 * MAXP + 8], movers[2 * MAXP + 8];
    int depth = 0, ni = 0;
    s = *root;
    path[depth] = 0;
    movers[depth++] = -1;
    for (;;) {
        Node *n = &nodes[ni];
        if (n->terminal) break;
        if (n->rank_off < 0) {
            if (ni != 0 && n->visits < 1) break; /* a new leaf: play out from it first */
            node_rank(n, &s);
            if (n->rank_off < 0 || n->terminal) break;
        }
        int mover = s.to_move, next = -1;
        if (n->nexp < n->nrank && n->nexp < 3 + pow((double)n->visits, WIDENING)) {
            next = node_expand(ni, &s);
            if (next >= 0) {
                path[depth] = next;
                movers[depth++] = mover;
                break; /* play out from the new child */
            }
        }
        if (nodes[ni].child < 0) break; /* (out of memory before any child) */
        next = select_child(&nodes[ni]);
        const Node *ch = &nodes[next];
        turn_replay(&s, steal_pool + ch->steal_off, ch->place, ch->nsteal);
        path[depth] = next;
        movers[depth++] = mover;
        ni = next;
    }
    playout(&s);
    double v[2] = {playout_value(&s, 0), playout_value(&s, 1)};
    for (int i = 0; i < depth; i++) {
        Node *n = &nodes[path[i]];
        n->visits++;
        if (movers[i] >= 0) n->value += (float)v[movers[i]];
    }
}

static int best_child(void) {
    int bi = -1;
    for (int k = nodes[0].child; k >= 0; k = nodes[k].sibling) {
        const Node *ch = &nodes[k];
        if (bi < 0 || ch->visits > nodes[bi].visits ||
            (ch->visits == nodes[bi].visits && ch->value > nodes[bi].value))
            bi = k;
    }
    return bi;
}

/* Search from `root` for `seconds` (at least one playout); returns the playouts made. */
static long search(const State *root, double seconds) {
    double start = now(), deadline = start + seconds;
    nnodes = rank_used = steal_used = 0;
    node_new(-1);
    long playouts = 0;
    do {
        iterate(root);
        playouts++;
        if (MAX_PLAYOUTS && playouts >= MAX_PLAYOUTS) break;
        if (nodes[0].nrank == 1 && playouts >= 1 && nodes[0].child >= 0) break; /* forced */
    } while (now() < deadline);
    if (VERBOSE)
        fprintf(stderr, "search: %ld playouts in %.3f s (%.0f/s), %ld nodes\n", playouts, now() - start,
                playouts / (now() - start + 1e-9), nnodes);
    return playouts;
}

/* The search's value of the root for colour c: the mean of the child it would play. */
static double root_value(const State *root, int c) {
    int bi = best_child();
    if (bi < 0) return 0.5;
    double v = nodes[bi].value / nodes[bi].visits;
    return c == root->to_move ? v : 1.0 - v;
}

static void best_turn(Turn *t) {
    int bi = best_child();
    const Node *ch = &nodes[bi];
    t->place = ch->place;
    t->n = ch->nsteal;
    for (int i = 0; i < ch->nsteal; i++) {
        t->x[i] = steal_pool[ch->steal_off + 2 * i];
        t->y[i] = steal_pool[ch->steal_off + 2 * i + 1];
    }
}

/* ================================================================ 8. time
 * time_settings MAIN BYO STONES: STONES 1 is a fixed limit of BYO seconds per turn;
 * STONES 0 a Fischer clock, MAIN seconds plus BYO per turn. time_left COLOR SECONDS STONES
 * comes before every genmove. The budget (as in sample_bots/evaluate.py, move_budget):
 *   - per-move limit: 75% of it (the rest covers the pipe and the scheduler);
 *   - running clock: time_left / (empty points / 2 + 5) + 0.8 * increment, never more
 *     than 40% of what is left;
 *   - no clock at all: --move-time. */

static double MOVE_TIME = 1.0;
static int have_settings = 0, set_stones = 1;
static double set_main = 0, set_byo = 0;
static double time_left[2];
static int have_time_left[2], time_left_stones[2];

static double budget_rule(double left, int stones, double increment, int empty) {
    if (left < 0) left = 0;
    if (stones == 1) return 0.75 * left;
    double b = left / (empty / 2.0 + 5) + 0.8 * increment;
    return b < 0.4 * left ? b : 0.4 * left;
}

static double move_budget(const State *s) {
    int c = s->to_move;
    if (have_time_left[c])
        return budget_rule(time_left[c], time_left_stones[c], set_stones == 0 ? set_byo : 0, s->nempty);
    return MOVE_TIME;
}

/* gensetup and choose_color: the referee times them, but sends no time_left first. */
static double decision_budget(const State *s) {
    if (!have_settings) return MOVE_TIME;
    if (set_stones == 1) return budget_rule(set_byo, 1, 0, s->nempty);
    return budget_rule(set_main, 0, set_byo, s->nempty);
}

/* ================================================================ 9. protocol loop
 * GTP-2 framing: "[id] name args" in; "=[id] text\n\n" or "?[id] text\n\n" out, flushed
 * at once (stdout is fully buffered on a pipe: an answer left in the buffer never
 * reaches the referee, which then declares a loss on time). */

static State pos; /* the bot's copy of the game */

static void answer(int ok, const char *id, const char *text) {
    printf("%c%s%s%s\n\n", ok ? '=' : '?', id, text[0] ? " " : "", text);
    fflush(stdout);
}

static int parse_color(const char *w) {
    if (!w) return -1;
    char low[8];
    size_t n = strlen(w);
    if (n >= sizeof low) return -1;
    for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)w[i]);
    if (!strcmp(low, "b") || !strcmp(low, "black")) return 0;
    if (!strcmp(low, "w") || !strcmp(low, "white")) return 1;
    return -1;
}

static void showboard(char *out) {
    int n1 = N - 1;
    char *o = out;
    for (int r = 2 * n1; r >= 0; r--) {
        o += sprintf(o, "\n%3d %*s", r + 1, abs(r - n1), "");
        int qmin = r - n1 > 0 ? r - n1 : 0, qmax = r + n1 < 2 * n1 ? r + n1 : 2 * n1;
        for (int q = qmin; q <= qmax; q++) {
            int c = pos.col[IDX[q][r]];
            o += sprintf(o, "%s%c", q > qmin ? " " : "", c == 1 ? 'X' : c == 2 ? 'O' : '.');
        }
    }
    o += sprintf(o, "\n    %*s", n1, "");
    for (int q = 0; q < SIDE; q++) o += sprintf(o, q ? " %c" : "%c", 'a' + q);
    int b = score2(&pos, 0), w = score2(&pos, 1);
    sprintf(o, "\n    %s; score Black %g, White %g",
            game_over(&pos) ? "game over" : pos.to_move ? "White to move" : "Black to move", b / 2.0, w / 2.0);
}

static void final_score(char *out) {
    int d = score2(&pos, 0) - score2(&pos, 1);
    if (d == 0) strcpy(out, "0");
    else sprintf(out, "%c+%g", d > 0 ? 'B' : 'W', abs(d) / 2.0);
}

static const char *COMMANDS[] = {
    "boardsize", "choose_color", "clear_board", "final_score", "genmove", "gensetup",
    "known_command", "list_commands", "name", "play", "protocol_version", "quit",
    "setup", "showboard", "time_left", "time_settings", "version", NULL};

static int parse_seconds(const char *w, double *out) {
    char *end;
    if (!w) return 0;
    double v = strtod(w, &end);
    if (*end || end == w || !(v >= 0) || v > 1e12) return 0;
    *out = v;
    return 1;
}

/* Answers one cleaned command line; returns 0 at quit. */
static int handle(char *line) {
    static char out[MAX_LINE];
    static Turn t;
    char *words[8];
    int nw = 0;
    for (char *w = strtok(line, " "); w && nw < 8; w = strtok(NULL, " ")) words[nw++] = w;
    char id[24] = "";
    int first = 0;
    if (nw && isdigit((unsigned char)words[0][0])) {
        size_t k = strspn(words[0], "0123456789");
        if (words[0][k] == 0 && k < sizeof id) {
            strcpy(id, words[0]);
            first = 1;
        }
    }
    if (first >= nw) {
        answer(0, id, "empty command");
        return 1;
    }
    const char *cmd = words[first], *a1 = first + 1 < nw ? words[first + 1] : NULL,
               *a2 = first + 2 < nw ? words[first + 2] : NULL, *a3 = first + 3 < nw ? words[first + 3] : NULL;
    int nargs = nw - first - 1;
    out[0] = 0;

    if (!strcmp(cmd, "protocol_version")) answer(1, id, "2");
    else if (!strcmp(cmd, "name")) answer(1, id, "vastuz_mcts");
    else if (!strcmp(cmd, "version")) answer(1, id, "1.0");
    else if (!strcmp(cmd, "known_command")) {
        int known = 0;
        for (int i = 0; a1 && COMMANDS[i]; i++) known |= !strcmp(COMMANDS[i], a1);
        answer(1, id, known ? "true" : "false");
    } else if (!strcmp(cmd, "list_commands")) {
        char *o = out;
        for (int i = 0; COMMANDS[i]; i++) o += sprintf(o, "%s%s", i ? "\n" : "", COMMANDS[i]);
        answer(1, id, out);
    } else if (!strcmp(cmd, "quit")) {
        answer(1, id, "");
        return 0;
    } else if (!strcmp(cmd, "boardsize")) {
        char *end;
        long n = a1 ? strtol(a1, &end, 10) : 0;
        if (!a1 || *end || n < 2 || n > MAXN) answer(0, id, "unacceptable size");
        else {
            geometry_init((int)n);
            state_clear(&pos);
            answer(1, id, "");
        }
    } else if (!strcmp(cmd, "clear_board")) {
        state_clear(&pos);
        have_time_left[0] = have_time_left[1] = 0;
        answer(1, id, "");
    } else if (!strcmp(cmd, "setup")) {
        int b = a1 ? parse_point(a1, strlen(a1)) : -1, w = a2 ? parse_point(a2, strlen(a2)) : -1;
        if (nargs != 2 || b < 0 || w < 0) answer(0, id, "illegal setup: two points of the board expected");
        else if (b == w) answer(0, id, "illegal setup: the two points must differ");
        else if (pos.nempty != P) answer(0, id, "illegal setup: the board is not empty");
        else {
            put_stone(&pos, b, 0, -1);
            put_stone(&pos, w, 1, -1);
            pos.to_move = 0;
            answer(1, id, "");
        }
    } else if (!strcmp(cmd, "play")) {
        int c = parse_color(a1);
        const char *why = NULL;
        if (nargs != 2 || c < 0) why = "illegal move: expected play COLOR TURN";
        else if (c != pos.to_move) why = "illegal move: it is the other colour's turn";
        else if (!turn_parse(a2, &t)) why = "illegal move: bad notation";
        else if ((why = turn_play_checked(&pos, &t)) != NULL) {
            snprintf(out, sizeof out, "illegal move: %s", why);
            why = out;
        }
        answer(why == NULL, id, why ? why : "");
    } else if (!strcmp(cmd, "genmove")) {
        int c = parse_color(a1);
        if (nargs != 1 || c < 0) answer(0, id, "expected genmove COLOR");
        else if (c != pos.to_move) answer(0, id, "genmove: it is the other colour's turn");
        else if (!has_placement(&pos, c)) {
            if (!game_over(&pos)) turn_end(&pos);
            answer(1, id, "pass");
        } else {
            search(&pos, move_budget(&pos));
            best_turn(&t);
            turn_replay(&pos, steal_pool + nodes[best_child()].steal_off, t.place, t.n);
            turn_format(&t, out);
            answer(1, id, out);
        }
    } else if (!strcmp(cmd, "gensetup")) {
        /* Offer the setup whose searched value for Black is closest to one half. */
        enum { CANDIDATES = 6 };
        double per = decision_budget(&pos) / CANDIDATES, best_gap = 2;
        int bb = 0, bw = 1;
        for (int k = 0; k < CANDIDATES && pos.nempty == P; k++) {
            int b = rng_below(P), w = rng_below(P - 1);
            if (w >= b) w++;
            State trial;
            state_clear(&trial);
            put_stone(&trial, b, 0, -1);
            put_stone(&trial, w, 1, -1);
            search(&trial, per);
            double gap = fabs(root_value(&trial, 0) - 0.5);
            if (gap < best_gap) {
                best_gap = gap;
                bb = b;
                bw = w;
            }
        }
        if (pos.nempty == P) {
            put_stone(&pos, bb, 0, -1);
            put_stone(&pos, bw, 1, -1);
            pos.to_move = 0;
        }
        snprintf(out, sizeof out, "%s %s", NAME[bb], NAME[bw]);
        answer(1, id, out);
    } else if (!strcmp(cmd, "choose_color")) {
        int black = 1;
        if (!game_over(&pos)) {
            search(&pos, decision_budget(&pos));
            black = root_value(&pos, 0) >= 0.5;
        }
        answer(1, id, black ? "black" : "white");
    } else if (!strcmp(cmd, "time_settings")) {
        double m, b, st;
        if (nargs != 3 || !parse_seconds(a1, &m) || !parse_seconds(a2, &b) || !parse_seconds(a3, &st))
            answer(0, id, "expected time_settings MAIN BYO STONES");
        else {
            have_settings = 1;
            set_main = m;
            set_byo = b;
            set_stones = st > 0 ? 1 : 0;
            answer(1, id, "");
        }
    } else if (!strcmp(cmd, "time_left")) {
        int c = parse_color(a1);
        double sec, st;
        if (nargs != 3 || c < 0 || !parse_seconds(a2, &sec) || !parse_seconds(a3, &st))
            answer(0, id, "expected time_left COLOR SECONDS STONES");
        else {
            have_time_left[c] = 1;
            time_left[c] = sec;
            time_left_stones[c] = st > 0 ? 1 : 0;
            answer(1, id, "");
        }
    } else if (!strcmp(cmd, "showboard")) {
        showboard(out);
        answer(1, id, out);
    } else if (!strcmp(cmd, "final_score")) {
        final_score(out);
        answer(1, id, out);
    } else answer(0, id, "unknown command");
    return 1;
}

/* GTP's cleaning: drop control characters except tab, tabs to spaces, cut a '#'
 * comment, trim. Returns the cleaned line (in place), empty if nothing is left. */
static char *clean(char *line) {
    char *w = line;
    for (char *r = line; *r; r++) {
        unsigned char ch = (unsigned char)*r;
        if (ch == '#') break;
        if (ch == '\t') *w++ = ' ';
        else if (ch >= 32 && ch != 127) *w++ = (char)ch;
    }
    *w = 0;
    while (w > line && w[-1] == ' ') *--w = 0;
    while (*line == ' ') line++;
    return line;
}

static void usage(void) {
    fprintf(stderr,
            "usage: vastuz_mcts [--seed N] [--move-time S] [--exploration C] [--widening A]\n"
            "                   [--playout-k K] [--completions M] [--max-playouts K] [--max-nodes N]\n"
            "                   [--verbose]\n");
    exit(2);
}

int main(int argc, char **argv) {
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)(now() * 1e9) << 7);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--verbose")) { VERBOSE = 1; continue; }
        if (!v) usage();
        char *end;
        if (!strcmp(a, "--seed")) seed = strtoull(v, &end, 10);
        else if (!strcmp(a, "--move-time")) MOVE_TIME = strtod(v, &end);
        else if (!strcmp(a, "--exploration")) EXPLORATION = strtod(v, &end);
        else if (!strcmp(a, "--widening")) WIDENING = strtod(v, &end);
        else if (!strcmp(a, "--playout-k")) PLAYOUT_K = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--completions")) COMPLETIONS = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--max-playouts")) MAX_PLAYOUTS = strtol(v, &end, 10);
        else if (!strcmp(a, "--max-nodes")) MAX_NODES = strtol(v, &end, 10);
        else usage();
        if (*end || end == v) usage();
        i++;
    }
    if (MOVE_TIME <= 0 || PLAYOUT_K < 1 || COMPLETIONS < 1 || MAX_NODES < 16 || MAX_PLAYOUTS < 0) usage();
    rng_seed(seed);
    nodes = malloc(sizeof *nodes * (size_t)MAX_NODES);
    rank_cap = 16 * MAX_NODES + MAXP; /* nodes that get ranked are a fraction of all nodes */
    steal_cap = 4 * MAX_NODES + 2 * MAXP;
    rank_pool = malloc(sizeof *rank_pool * (size_t)rank_cap);
    steal_pool = malloc(sizeof *steal_pool * (size_t)steal_cap);
    if (!nodes || !rank_pool || !steal_pool) {
        fprintf(stderr, "vastuz_mcts: out of memory\n");
        return 1;
    }
    geometry_init(7);
    state_clear(&pos);

    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        if (len > MAX_LINE + 2) { /* over the protocol's limit: refuse, read on */
            answer(0, "", "line too long");
            continue;
        }
        char *cmd = clean(line);
        if (*cmd && !handle(cmd)) break;
    }
    free(line);
    return 0;
}
