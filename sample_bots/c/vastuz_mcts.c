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

#include "vastuz.h"

#define MAXP VZ_MAXP
#define MAX_LINE 65536 /* the protocol's line limit */

/* ================================================================ 1-5. the rules
 * Board geometry, positions, placements, steals and turns are libvastuz (vastuz.h,
 * vastuz.c): the same code any C program or FFI user gets. This file adds what only a
 * search needs: unchecked replays, random and greedy steal completions, playouts. */

typedef vz_pos State;
typedef vz_steals Steals;
typedef vz_turn Turn;

static vz_rng RNG;
static uint64_t rng_next(void) { return vz_rand(&RNG); }
static int rng_below(int n) { return vz_below(&RNG, n); }

/* The evaluation: c's (doubled) score minus the opponent's. Exact at the end. */
static int margin2(const State *s, int c) { return vz_score2(s, c) - vz_score2(s, 1 - c); }

/* c's legal placements, in the order of the empty list (cheaper than sorted). */
static int legal_placements(const State *s, int c, int16_t *out) {
    int n = 0;
    for (int i = 0; i < s->nempty; i++)
        if (vz_placement_group(s, s->empt[i], c) != -2) out[n++] = s->empt[i];
    return n;
}

/* Replay a turn known to be legal here (one this program generated), without checks. */
static void turn_replay(State *s, const int16_t *steals, int place, int n) {
    if (place >= 0) {
        int g = vz_put_stone(s, place, s->to_move, vz_placement_group(s, place, s->to_move));
        for (int i = 0; i < n; i++) {
            vz_take_stone(s, steals[2 * i]);
            vz_put_stone(s, steals[2 * i + 1], s->to_move, g);
        }
    }
    vz_turn_end(s);
}

/* Place on p and make random steals to the end of the turn (recorded in t if given).
 * Returns 1 if some steal offered a real choice. */
static int turn_random_steals(State *s, int p, int g, Turn *t) {
    Steals m;
    int choice = 0;
    vz_turn_begin(s, &m, p, g);
    if (t) {
        t->place = p;
        t->n = 0;
    }
    while (!m.done) {
        int x = -1, y = -1;
        choice |= vz_steal_random(s, &m, &RNG, &x, &y) > 1;
        vz_steal_apply(s, &m, x, y);
        if (t) {
            t->x[t->n] = (int16_t)x;
            t->y[t->n] = (int16_t)y;
            t->n++;
        }
    }
    vz_turn_end(s);
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
    int c = s->to_move, g = vz_placement_group(s, p, c);
    int qm = quick_margin(s, g);
    if (qm != INT32_MIN) {
        vz_put_stone(s, p, c, g);
        vz_turn_end(s);
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
            if (vz_placement_group(s, p, c) != -2) return p;
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
            if (!vz_has_placement(s, 1 - c)) return; /* neither can place: game over */
            vz_turn_end(s);                          /* a pass */
            continue;
        }
        int best_m = INT32_MIN, best_p = -1, best_trial = -1, spare = 0;
        for (int k = 0; k < PLAYOUT_K; k++) {
            if (k) p = random_placement(s, list, &nlist);
            int g = vz_placement_group(s, p, c);
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
            vz_put_stone(s, best_p, c, vz_placement_group(s, best_p, c));
            vz_turn_end(s);
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
        if (!vz_has_placement(s, 1 - c)) {
            n->terminal = 1;
            n->nrank = 0;
            return;
        }
        rank_pool[rank_used++] = -1;
        n->nrank = 1;
        return;
    }
    for (int i = 0; i < np; i++) {
        int p = list[i], g = vz_placement_group(s, p, c);
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
        vz_turn_end(s);
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
    const vz_geo *geo = pos.geo;
    int n1 = geo->n - 1;
    char *o = out;
    for (int r = 2 * n1; r >= 0; r--) {
        o += sprintf(o, "\n%3d %*s", r + 1, abs(r - n1), "");
        int qmin = r - n1 > 0 ? r - n1 : 0, qmax = r + n1 < 2 * n1 ? r + n1 : 2 * n1;
        for (int q = qmin; q <= qmax; q++) {
            int c = pos.col[geo->idx[q][r]];
            o += sprintf(o, "%s%c", q > qmin ? " " : "", c == 1 ? 'X' : c == 2 ? 'O' : '.');
        }
    }
    o += sprintf(o, "\n    %*s", n1, "");
    for (int q = 0; q < geo->side; q++) o += sprintf(o, q ? " %c" : "%c", 'a' + q);
    int b = vz_score2(&pos, 0), w = vz_score2(&pos, 1);
    sprintf(o, "\n    %s; score Black %g, White %g",
            vz_is_over(&pos) ? "game over" : pos.to_move ? "White to move" : "Black to move", b / 2.0, w / 2.0);
}

static void final_score(char *out) {
    int d = vz_score2(&pos, 0) - vz_score2(&pos, 1);
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
        if (!a1 || *end || n < VZ_MINN || n > VZ_MAXN) answer(0, id, "unacceptable size");
        else {
            vz_init(&pos, (int)n);
            answer(1, id, "");
        }
    } else if (!strcmp(cmd, "clear_board")) {
        vz_init(&pos, vz_size(&pos));
        have_time_left[0] = have_time_left[1] = 0;
        answer(1, id, "");
    } else if (!strcmp(cmd, "setup")) {
        int b = a1 ? vz_parse_point(&pos, a1, strlen(a1)) : -1, w = a2 ? vz_parse_point(&pos, a2, strlen(a2)) : -1;
        const char *why = nargs != 2 || b < 0 || w < 0 ? "two points of the board expected" : vz_setup(&pos, b, w);
        if (why) snprintf(out, sizeof out, "illegal setup: %s", why);
        answer(why == NULL, id, why ? out : "");
    } else if (!strcmp(cmd, "play")) {
        int c = parse_color(a1);
        const char *why = NULL;
        if (nargs != 2 || c < 0) why = "illegal move: expected play COLOR TURN";
        else if (c != pos.to_move) why = "illegal move: it is the other colour's turn";
        else why = vz_play(&pos, a2); /* "bad notation: ..." or "illegal move: ..." */
        answer(why == NULL, id, why ? why : "");
    } else if (!strcmp(cmd, "genmove")) {
        int c = parse_color(a1);
        if (nargs != 1 || c < 0) answer(0, id, "expected genmove COLOR");
        else if (c != pos.to_move) answer(0, id, "genmove: it is the other colour's turn");
        else if (!vz_has_placement(&pos, c)) {
            if (!vz_is_over(&pos)) vz_turn_end(&pos);
            answer(1, id, "pass");
        } else {
            search(&pos, move_budget(&pos));
            best_turn(&t);
            turn_replay(&pos, steal_pool + nodes[best_child()].steal_off, t.place, t.n);
            vz_format_turn(&pos, &t, out);
            answer(1, id, out);
        }
    } else if (!strcmp(cmd, "gensetup")) {
        /* Offer the setup whose searched value for Black is closest to one half. */
        enum { CANDIDATES = 6 };
        double per = decision_budget(&pos) / CANDIDATES, best_gap = 2;
        int bb = 0, bw = 1;
        int points = vz_point_count(&pos);
        for (int k = 0; k < CANDIDATES && pos.nempty == points; k++) {
            int b = rng_below(points), w = rng_below(points - 1);
            if (w >= b) w++;
            State trial;
            vz_init(&trial, vz_size(&pos));
            vz_setup(&trial, b, w);
            search(&trial, per);
            double gap = fabs(root_value(&trial, 0) - 0.5);
            if (gap < best_gap) {
                best_gap = gap;
                bb = b;
                bw = w;
            }
        }
        vz_setup(&pos, bb, bw); /* refused (and nothing changes) if the board is not empty */
        snprintf(out, sizeof out, "%s %s", vz_point_name(&pos, bb), vz_point_name(&pos, bw));
        answer(1, id, out);
    } else if (!strcmp(cmd, "choose_color")) {
        int black = 1;
        if (!vz_is_over(&pos)) {
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
    vz_seed(&RNG, seed);
    nodes = malloc(sizeof *nodes * (size_t)MAX_NODES);
    rank_cap = 16 * MAX_NODES + MAXP; /* nodes that get ranked are a fraction of all nodes */
    steal_cap = 4 * MAX_NODES + 2 * MAXP;
    rank_pool = malloc(sizeof *rank_pool * (size_t)rank_cap);
    steal_pool = malloc(sizeof *steal_pool * (size_t)steal_cap);
    if (!nodes || !rank_pool || !steal_pool) {
        fprintf(stderr, "vastuz_mcts: out of memory\n");
        return 1;
    }
    vz_init(&pos, 7);

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
