/*
 * vastuz.c: libvastuz, the Vastuz rules in C11 (see vastuz.h for the API and docs/rules.md
 * for the rules). Needs only libc.
 *
 * Sections: 1 geometry, 2 positions (stones, groups, score), 3 placements, 4 steals,
 * 5 turns (notation, checked play, every legal turn), 6 random play.
 */
#include "vastuz.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEO (s->geo)

/* Scratch marks for floods and de-duplication: mark[x] == stamp means "seen". Thread-local,
 * so that threads may work on different positions at once. */
static _Thread_local uint32_t pmark[VZ_MAXP], gmark[VZ_MAXP], stamp;

/* ================================================================ 1. geometry
 * Point (q, r) exists iff 0 <= q, r <= 2N-2 and |q-r| <= N-1; it is named by column letter
 * (q) and row number (r+1). Neighbours: (q±1, r), (q, r±1), (q+1, r+1), (q-1, r-1). */

static vz_geo geos[VZ_MAXN + 1];
static int geo_ready[VZ_MAXN + 1];

static void geometry_build(vz_geo *g, int n) {
    static const int dirs[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}};
    g->n = n;
    g->side = 2 * n - 1;
    g->points = 0;
    for (int q = 0; q < VZ_MAXSIDE; q++)
        for (int r = 0; r < VZ_MAXSIDE; r++) g->idx[q][r] = -1;
    for (int r = 0; r < g->side; r++)
        for (int q = 0; q < g->side; q++)
            if (abs(q - r) <= n - 1) {
                int p = g->points++;
                g->idx[q][r] = (int16_t)p;
                g->pq[p] = (int16_t)q;
                g->pr[p] = (int16_t)r;
                char *name = g->name[p]; /* the row number has 1 or 2 digits */
                name[0] = (char)('a' + q);
                if (r + 1 < 10) name[1] = (char)('1' + r), name[2] = 0;
                else name[1] = (char)('0' + (r + 1) / 10), name[2] = (char)('0' + (r + 1) % 10), name[3] = 0;
            }
    for (int p = 0; p < g->points; p++) {
        g->nnb[p] = 0;
        for (int d = 0; d < 6; d++) {
            int q = g->pq[p] + dirs[d][0], r = g->pr[p] + dirs[d][1];
            if (q >= 0 && r >= 0 && q < g->side && r < g->side && g->idx[q][r] >= 0)
                g->nb[p][g->nnb[p]++] = g->idx[q][r];
        }
    }
}

const vz_geo *vz_geometry(int n) {
    if (n < VZ_MINN || n > VZ_MAXN) return NULL;
    /* Built on first use; two threads racing here write the same bytes. */
    if (!geo_ready[n]) {
        geometry_build(&geos[n], n);
        geo_ready[n] = 1;
    }
    return &geos[n];
}

int vz_parse_point(const vz_pos *s, const char *text, size_t len) {
    if (len < 2 || len > 3) return -1;
    int q = tolower((unsigned char)text[0]) - 'a';
    if (q < 0 || q >= GEO->side || text[1] < '1' || text[1] > '9') return -1;
    int r = text[1] - '0';
    if (len == 3) {
        if (!isdigit((unsigned char)text[2])) return -1;
        r = 10 * r + (text[2] - '0');
    }
    r -= 1;
    if (r >= GEO->side) return -1;
    return GEO->idx[q][r];
}

int vz_size(const vz_pos *s) { return GEO->n; }
int vz_point_count(const vz_pos *s) { return GEO->points; }
const char *vz_point_name(const vz_pos *s, int p) { return p >= 0 && p < GEO->points ? GEO->name[p] : "pass"; }
int vz_color_at(const vz_pos *s, int p) { return s->col[p] - 1; }
int vz_to_move(const vz_pos *s) { return s->to_move; }

/* ================================================================ 2. positions
 * Groups never merge (placing and stealing never join two groups of a colour): they grow
 * one stone at a time, and an enemy group can split when one of its stones is stolen. */

int vz_init(vz_pos *s, int n) {
    const vz_geo *g = vz_geometry(n);
    if (!g) return -1;
    memset(s, 0, sizeof *s);
    s->geo = g;
    for (int p = 0; p < g->points; p++) {
        s->gid[p] = -1;
        s->empt[p] = (int16_t)p;
        s->epos[p] = (int16_t)p;
    }
    s->nempty = (int16_t)g->points;
    for (int i = 0; i < g->points; i++) s->gfree[i] = (int16_t)(g->points - 1 - i);
    s->nfree = (int16_t)g->points;
    return 0;
}

vz_pos *vz_new(int n) {
    vz_pos *s = malloc(sizeof *s);
    if (s && vz_init(s, n) != 0) {
        free(s);
        s = NULL;
    }
    return s;
}

void vz_free(vz_pos *s) { free(s); }
void vz_copy(vz_pos *dst, const vz_pos *src) { *dst = *src; }
size_t vz_sizeof_pos(void) { return sizeof(vz_pos); }

static void size_add(vz_pos *s, int c, int size) {
    if (s->cnt[c][size]++ == 0) {
        s->sumd[c] = (int16_t)(s->sumd[c] + size);
        s->nd[c]++;
    }
    if (size > s->maxs[c]) s->maxs[c] = (int16_t)size;
}

static void size_remove(vz_pos *s, int c, int size) {
    if (--s->cnt[c][size] == 0) {
        s->sumd[c] = (int16_t)(s->sumd[c] - size);
        s->nd[c]--;
        if (size == s->maxs[c])
            while (s->maxs[c] > 0 && s->cnt[c][s->maxs[c]] == 0) s->maxs[c]--;
    }
}

int vz_score2(const vz_pos *s, int c) { return 2 * (s->sumd[c] + s->nd[c]) + (s->maxs[c] > s->maxs[1 - c]); }
double vz_score(const vz_pos *s, int c) { return vz_score2(s, c) / 2.0; }

void vz_result(const vz_pos *s, char *out) {
    int d = vz_score2(s, 0) - vz_score2(s, 1);
    if (d == 0) strcpy(out, "0");
    else sprintf(out, "%c+%d%s", d > 0 ? 'B' : 'W', abs(d) / 2, abs(d) % 2 ? ".5" : "");
}

static int new_group(vz_pos *s, int c) {
    int g = s->gfree[--s->nfree];
    s->ghead[g] = -1;
    s->gsize[g] = 0;
    s->gcol[g] = (int8_t)c;
    return g;
}

static void link_stone(vz_pos *s, int p, int g) {
    s->gid[p] = (int16_t)g;
    s->prv[p] = -1;
    s->nxt[p] = s->ghead[g];
    if (s->ghead[g] >= 0) s->prv[s->ghead[g]] = (int16_t)p;
    s->ghead[g] = (int16_t)p;
}

static void unlink_stone(vz_pos *s, int p) {
    int g = s->gid[p];
    if (s->prv[p] >= 0) s->nxt[s->prv[p]] = s->nxt[p];
    else s->ghead[g] = s->nxt[p];
    if (s->nxt[p] >= 0) s->prv[s->nxt[p]] = s->prv[p];
    s->gid[p] = -1;
}

int vz_put_stone(vz_pos *s, int p, int c, int g) {
    if (g < 0) g = new_group(s, c);
    s->col[p] = (int8_t)(c + 1);
    int i = s->epos[p], last = s->empt[--s->nempty]; /* p leaves the empty list */
    s->empt[i] = (int16_t)last;
    s->epos[last] = (int16_t)i;
    link_stone(s, p, g);
    int old = s->gsize[g]++;
    size_add(s, c, old + 1); /* add first, so that size_remove never scans for the max */
    if (old) size_remove(s, c, old);
    return g;
}

/* Flood from `from` over the unmarked stones of group g; with into >= 0 they move to group
 * `into`. Returns how many stones were found. */
static int flood(vz_pos *s, int from, int g, int into) {
    int16_t stack[VZ_MAXP];
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
        for (int i = 0; i < GEO->nnb[p]; i++) {
            int q = GEO->nb[p][i];
            if (s->gid[q] == g && pmark[q] != stamp) {
                pmark[q] = stamp;
                stack[n++] = (int16_t)q;
            }
        }
    }
    return count;
}

void vz_take_stone(vz_pos *s, int p) {
    int g = s->gid[p], c = s->gcol[g], old = s->gsize[g];
    unlink_stone(s, p);
    s->col[p] = 0;
    s->epos[p] = s->nempty; /* back on the empty list */
    s->empt[s->nempty++] = (int16_t)p;
    int seeds[6], ns = 0;
    for (int i = 0; i < GEO->nnb[p]; i++)
        if (s->gid[GEO->nb[p][i]] == g) seeds[ns++] = GEO->nb[p][i];
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

const char *vz_setup(vz_pos *s, int black, int white) {
    if (s->nempty != GEO->points) return "setup is only allowed on an empty board";
    if (black < 0 || white < 0 || black >= GEO->points || white >= GEO->points) return "not a point of this board";
    if (black == white) return "the two points must differ";
    vz_put_stone(s, black, VZ_BLACK, -1);
    vz_put_stone(s, white, VZ_WHITE, -1);
    s->to_move = VZ_BLACK;
    return NULL;
}

/* Stones of colour c from a list of names; groups form as the stones touch (placing a
 * stone next to two groups joins them, which vz_put_stone alone would not do). */
static const char *add_stones(vz_pos *s, const char *list, int c) {
    const char *p = list;
    while (*p) {
        while (*p == ',' || *p == ' ') p++;
        if (!*p) break;
        size_t len = strcspn(p, ", ");
        int x = vz_parse_point(s, p, len);
        if (x < 0) return "not a point of this board";
        if (s->col[x]) return "a point is listed twice";
        /* join every own group it touches: take their stones off and put them back as one */
        int first = -1, others = 0;
        for (int i = 0; i < GEO->nnb[x]; i++) {
            int y = GEO->nb[x][i];
            if (s->col[y] != c + 1) continue;
            if (first < 0) first = s->gid[y];
            else if (s->gid[y] != first) others = 1;
        }
        if (!others) vz_put_stone(s, x, c, first);
        else {
            int16_t moved[VZ_MAXP];
            int nm = 0;
            for (int i = 0; i < GEO->nnb[x]; i++) {
                int y = GEO->nb[x][i];
                if (s->col[y] != c + 1 || s->gid[y] == first) continue;
                int h = s->gid[y];
                while (s->ghead[h] >= 0) { /* lift group h whole (it vanishes with its last stone) */
                    int z = s->ghead[h];
                    moved[nm++] = (int16_t)z;
                    unlink_stone(s, z);
                    s->col[z] = 0;
                    s->epos[z] = s->nempty;
                    s->empt[s->nempty++] = (int16_t)z;
                    size_remove(s, c, s->gsize[h]);
                    if (--s->gsize[h]) size_add(s, c, s->gsize[h]);
                }
                s->gfree[s->nfree++] = (int16_t)h;
            }
            vz_put_stone(s, x, c, first);
            for (int i = 0; i < nm; i++) vz_put_stone(s, moved[i], c, first);
        }
        p += len;
    }
    return NULL;
}

const char *vz_set_stones(vz_pos *s, const char *black, const char *white, int to_move) {
    const char *why = NULL;
    vz_init(s, GEO->n);
    if (!(why = add_stones(s, black, VZ_BLACK))) why = add_stones(s, white, VZ_WHITE);
    if (why) vz_init(s, GEO->n);
    else s->to_move = (int8_t)(to_move ? 1 : 0);
    return why;
}

/* ================================================================ 3. placements
 * Legal iff the point is empty and touches at most one group of the mover. */

int vz_placement_group(const vz_pos *s, int p, int c) {
    if (s->col[p]) return -2;
    int g = -1;
    for (int i = 0; i < GEO->nnb[p]; i++) {
        int q = GEO->nb[p][i];
        if (s->col[q] == c + 1) {
            if (g < 0) g = s->gid[q];
            else if (s->gid[q] != g) return -2;
        }
    }
    return g;
}

int vz_has_placement(const vz_pos *s, int c) {
    for (int i = 0; i < s->nempty; i++)
        if (vz_placement_group(s, s->empt[i], c) != -2) return 1;
    return 0;
}

int vz_is_over(const vz_pos *s) { return !vz_has_placement(s, 0) && !vz_has_placement(s, 1); }
int vz_must_pass(const vz_pos *s) { return !vz_has_placement(s, s->to_move) && vz_has_placement(s, 1 - s->to_move); }

static _Thread_local const vz_geo *sort_geo;
static int by_name(const void *a, const void *b) {
    return strcmp(sort_geo->name[*(const int *)a], sort_geo->name[*(const int *)b]);
}

int vz_legal_placements(const vz_pos *s, int *out) {
    int n = 0;
    for (int p = 0; p < GEO->points; p++)
        if (vz_placement_group(s, p, s->to_move) != -2) out[n++] = p;
    sort_geo = GEO;
    qsort(out, (size_t)n, sizeof *out, by_name);
    return n;
}

/* ================================================================ 4. steals
 * Rounds: at the start of one, T = the enemy groups touching G with G's shape. The mover
 * steals once from each group of T: (x, y) takes x, a stone of that group, and puts a
 * stone of the mover on y, a point that (after the removal) is empty, touches G and no
 * other group of the mover. Compulsory, re-judged after every steal; a new round when the
 * round made a steal. The mover's other groups never change during a turn, so "touches
 * no other own group" is a neighbour test, and G's id stays the same. */

static int is_blocked(const vz_pos *s, int y, int c, int g) {
    for (int i = 0; i < GEO->nnb[y]; i++) {
        int q = GEO->nb[y][i];
        if (s->col[q] == c + 1 && s->gid[q] != g) return 1;
    }
    return 0;
}

static int touches(const vz_pos *s, int y, int g) {
    for (int i = 0; i < GEO->nnb[y]; i++)
        if (s->gid[GEO->nb[y][i]] == g) return 1;
    return 0;
}

/* The empty points a stolen stone may go to; with out == NULL, only whether there is one. */
static int steal_targets(const vz_pos *s, const vz_steals *m, int16_t *out) {
    int n = 0;
    stamp++;
    for (int x = s->ghead[m->g]; x >= 0; x = s->nxt[x])
        for (int i = 0; i < GEO->nnb[x]; i++) {
            int y = GEO->nb[x][i];
            if (s->col[y] || pmark[y] == stamp) continue;
            pmark[y] = stamp;
            if (is_blocked(s, y, m->c, m->g)) continue;
            if (!out) return 1;
            out[n++] = (int16_t)y;
        }
    return n;
}

/* Stone x may be stolen onto its own point: it touches G and no other own group. */
static int freeable(const vz_pos *s, const vz_steals *m, int x) {
    return touches(s, x, m->g) && !is_blocked(s, x, m->c, m->g);
}

/* In axial coordinates a 60-degree rotation is (q, r) -> (q - r, q) and swapping q and r a
 * reflection. Group a is drawn in a bitmap at the origin; each image of b, moved to the
 * origin, is compared with it. Sizes 1 and 2 have one shape. */
int vz_same_shape(const vz_pos *s, int a, int b) {
    int n = s->gsize[a];
    if (n != s->gsize[b]) return 0;
    if (n <= 2) return 1;
    uint32_t grid[VZ_MAXSIDE];
    int minq = VZ_MAXSIDE, minr = VZ_MAXSIDE;
    for (int x = s->ghead[a]; x >= 0; x = s->nxt[x]) {
        if (GEO->pq[x] < minq) minq = GEO->pq[x];
        if (GEO->pr[x] < minr) minr = GEO->pr[x];
    }
    memset(grid, 0, sizeof grid);
    for (int x = s->ghead[a]; x >= 0; x = s->nxt[x]) grid[GEO->pr[x] - minr] |= 1u << (GEO->pq[x] - minq);
    int q[VZ_MAXP], r[VZ_MAXP], k = 0;
    for (int x = s->ghead[b]; x >= 0; x = s->nxt[x]) {
        q[k] = GEO->pq[x];
        r[k] = GEO->pr[x];
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
                ok = dq < 32 && dr < VZ_MAXSIDE && (grid[dr] >> dq & 1);
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
static void find_targets(const vz_pos *s, vz_steals *m) {
    int size = s->gsize[m->g], e = 1 - m->c;
    m->npend = 0;
    if (s->cnt[e][size] == 0) return; /* the common case: no enemy group of that size */
    stamp++;
    for (int x = s->ghead[m->g]; x >= 0; x = s->nxt[x])
        for (int i = 0; i < GEO->nnb[x]; i++) {
            int y = GEO->nb[x][i];
            if (s->col[y] != e + 1) continue;
            int h = s->gid[y];
            if (gmark[h] == stamp) continue;
            gmark[h] = stamp;
            if (s->gsize[h] == size && vz_same_shape(s, m->g, h)) m->pend[m->npend++] = (int16_t)h;
        }
}

/* Close finished rounds, start new ones, and set done when no steal is left. */
static void steals_advance(const vz_pos *s, vz_steals *m) {
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

void vz_turn_begin(vz_pos *s, vz_steals *m, int p, int g) {
    m->c = s->to_move;
    m->g = vz_put_stone(s, p, m->c, g);
    m->round_steals = 0;
    m->done = 0;
    find_targets(s, m);
    steals_advance(s, m);
}

void vz_turn_end(vz_pos *s) { s->to_move ^= 1; }

static int in_pending(const vz_steals *m, int h) {
    for (int i = 0; i < m->npend; i++)
        if (m->pend[i] == h) return 1;
    return 0;
}

const char *vz_steal_check(const vz_pos *s, const vz_steals *m, int x, int y) {
    if (m->done) return "extra steal: the turn was already complete";
    if (s->col[x] != 2 - m->c || !in_pending(m, s->gid[x]))
        return "the stolen stone is not in a group that must be stolen from now";
    if (y != x && s->col[y]) return "the target point is occupied";
    if (!touches(s, y, m->g)) return "the target point is not next to the stealing group";
    if (is_blocked(s, y, m->c, m->g)) return "the target point touches another group of the mover";
    return NULL;
}

void vz_steal_apply(vz_pos *s, vz_steals *m, int x, int y) {
    int h = s->gid[x];
    for (int i = 0; i < m->npend; i++)
        if (m->pend[i] == h) {
            m->pend[i] = m->pend[--m->npend];
            break;
        }
    vz_take_stone(s, x);
    vz_put_stone(s, y, m->c, m->g);
    m->round_steals++;
    steals_advance(s, m);
}

int vz_steal_options(const vz_pos *s, const vz_steals *m, int16_t *xs, int16_t *ys, int cap) {
    int16_t targets[VZ_MAXP];
    if (m->done) return 0;
    int nt = steal_targets(s, m, targets), n = 0;
    for (int i = 0; i < m->npend; i++)
        for (int x = s->ghead[m->pend[i]]; x >= 0; x = s->nxt[x]) {
            for (int k = 0; k <= nt; k++) {
                int y = k < nt ? targets[k] : x;
                if (k == nt && !freeable(s, m, x)) break;
                if (n < cap) {
                    xs[n] = (int16_t)x;
                    ys[n] = (int16_t)y;
                }
                n++;
            }
        }
    return n;
}

int vz_steal_random(const vz_pos *s, const vz_steals *m, vz_rng *r, int *xo, int *yo) {
    int16_t targets[VZ_MAXP];
    int nt = steal_targets(s, m, targets), total = 0;
    for (int i = 0; i < m->npend; i++)
        for (int x = s->ghead[m->pend[i]]; x >= 0; x = s->nxt[x]) total += nt + freeable(s, m, x);
    int k = vz_below(r, total);
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

/* ================================================================ 5. turns */

void vz_format_turn(const vz_pos *s, const vz_turn *t, char *out) {
    if (t->place < 0) {
        strcpy(out, "pass");
        return;
    }
    char *o = out + sprintf(out, "%s", GEO->name[t->place]);
    for (int i = 0; i < t->n; i++) o += sprintf(o, ",%s>%s", GEO->name[t->x[i]], GEO->name[t->y[i]]);
}

const char *vz_parse_turn(const vz_pos *s, const char *text, vz_turn *t) {
    size_t len = strlen(text);
    t->n = 0;
    t->place = -1;
    if (len == 4 && tolower((unsigned char)text[0]) == 'p' && tolower((unsigned char)text[1]) == 'a' &&
        tolower((unsigned char)text[2]) == 's' && tolower((unsigned char)text[3]) == 's')
        return NULL;
    if (len == 0) return "empty turn";
    const char *p = text, *end = text + len;
    const char *comma = memchr(p, ',', len);
    const char *stop = comma ? comma : end;
    if ((t->place = vz_parse_point(s, p, (size_t)(stop - p))) < 0) return "not a point of this board";
    while (comma) {
        p = comma + 1;
        comma = memchr(p, ',', (size_t)(end - p));
        stop = comma ? comma : end;
        const char *gt = memchr(p, '>', (size_t)(stop - p));
        if (!gt) return "a steal is not FROM>TO";
        if (t->n >= VZ_MAXP) return "too many steals";
        int x = vz_parse_point(s, p, (size_t)(gt - p)), y = vz_parse_point(s, gt + 1, (size_t)(stop - gt - 1));
        if (x < 0 || y < 0) return "not a point of this board";
        t->x[t->n] = (int16_t)x;
        t->y[t->n] = (int16_t)y;
        t->n++;
    }
    return NULL;
}

const char *vz_play_turn(vz_pos *s, const vz_turn *t) {
    int c = s->to_move;
    if (vz_is_over(s)) return "the game is over: no turn may be played";
    if (t->place < 0) {
        if (vz_has_placement(s, c)) return "pass while a legal placement exists";
        vz_turn_end(s);
        return NULL;
    }
    int g = vz_placement_group(s, t->place, c);
    if (g == -2) return s->col[t->place] ? "the placement is occupied" : "the placement would merge groups";
    vz_pos work = *s;
    vz_steals m;
    vz_turn_begin(&work, &m, t->place, g);
    for (int i = 0; i < t->n; i++) {
        const char *why = vz_steal_check(&work, &m, t->x[i], t->y[i]);
        if (why) return why;
        vz_steal_apply(&work, &m, t->x[i], t->y[i]);
    }
    if (!m.done) return "missing compulsory steal";
    vz_turn_end(&work);
    *s = work;
    return NULL;
}

const char *vz_play(vz_pos *s, const char *text) {
    static _Thread_local char why[160];
    static _Thread_local vz_turn t;
    const char *bad = vz_parse_turn(s, text, &t);
    if (bad) {
        snprintf(why, sizeof why, "bad notation: %s", bad);
        return why;
    }
    if ((bad = vz_play_turn(s, &t)) != NULL) {
        snprintf(why, sizeof why, "illegal move: %s", bad);
        return why;
    }
    return NULL;
}

void vz_replay(vz_pos *s, const vz_turn *t) {
    if (t->place >= 0) {
        int g = vz_put_stone(s, t->place, s->to_move, vz_placement_group(s, t->place, s->to_move));
        for (int i = 0; i < t->n; i++) {
            vz_take_stone(s, t->x[i]);
            vz_put_stone(s, t->y[i], s->to_move, g);
        }
    }
    vz_turn_end(s);
}

/* Every legal turn: depth-first over the steal machine, each branch on a copy. */
typedef struct {
    char *text;        /* the turns, NUL-separated */
    size_t len, cap;
    size_t *offs;      /* where each turn starts */
    size_t n, ocap;
    int failed;
} turn_list;

static void list_add(turn_list *l, const char *turn) {
    size_t k = strlen(turn) + 1;
    if (l->failed) return;
    if (l->len + k > l->cap) {
        size_t cap = 2 * l->cap + k + 4096;
        char *text = realloc(l->text, cap);
        if (!text) { l->failed = 1; return; }
        l->text = text;
        l->cap = cap;
    }
    if (l->n == l->ocap) {
        size_t ocap = 2 * l->ocap + 256;
        size_t *offs = realloc(l->offs, ocap * sizeof *offs);
        if (!offs) { l->failed = 1; return; }
        l->offs = offs;
        l->ocap = ocap;
    }
    memcpy(l->text + l->len, turn, k);
    l->offs[l->n++] = l->len;
    l->len += k;
}

static void expand(const vz_pos *s, const vz_steals *m, char *prefix, size_t plen, turn_list *l) {
    static _Thread_local int16_t xs[VZ_MAXP * 8], ys[VZ_MAXP * 8];
    int n = vz_steal_options(s, m, xs, ys, VZ_MAXP * 8);
    int16_t *ox = xs, *oy = ys, *heap = NULL;
    if (n > VZ_MAXP * 8) { /* rare: more options than the scratch holds */
        heap = malloc(2 * (size_t)n * sizeof *heap);
        if (!heap) { l->failed = 1; return; }
        ox = heap;
        oy = heap + n;
        vz_steal_options(s, m, ox, oy, n);
    } else if (n) { /* a copy: the recursion below reuses the scratch */
        heap = malloc(2 * (size_t)n * sizeof *heap);
        if (!heap) { l->failed = 1; return; }
        memcpy(heap, xs, (size_t)n * sizeof *heap);
        memcpy(heap + n, ys, (size_t)n * sizeof *heap);
        ox = heap;
        oy = heap + n;
    }
    for (int i = 0; i < n && !l->failed; i++) {
        vz_pos child = *s;
        vz_steals cm = *m;
        vz_steal_apply(&child, &cm, ox[i], oy[i]);
        size_t k = (size_t)sprintf(prefix + plen, ",%s>%s", GEO->name[ox[i]], GEO->name[oy[i]]);
        if (cm.done) list_add(l, prefix);
        else expand(&child, &cm, prefix, plen + k, l);
        prefix[plen] = 0;
    }
    free(heap);
}

static _Thread_local const char *sort_text;
static int by_text(const void *a, const void *b) {
    return strcmp(sort_text + *(const size_t *)a, sort_text + *(const size_t *)b);
}

long vz_legal_turns(const vz_pos *s, char *buf, size_t cap, int *count) {
    turn_list l = {0};
    char *prefix = malloc(VZ_TURN_TEXT);
    if (!prefix) return -1;
    if (!vz_is_over(s)) {
        if (!vz_has_placement(s, s->to_move)) list_add(&l, "pass");
        for (int p = 0; p < GEO->points && !l.failed; p++) {
            int g = vz_placement_group(s, p, s->to_move);
            if (g == -2) continue;
            vz_pos work = *s;
            vz_steals m;
            vz_turn_begin(&work, &m, p, g);
            strcpy(prefix, GEO->name[p]);
            if (m.done) list_add(&l, prefix);
            else expand(&work, &m, prefix, strlen(prefix), &l);
        }
    }
    free(prefix);
    long total = -1;
    if (!l.failed) {
        sort_text = l.text;
        qsort(l.offs, l.n, sizeof *l.offs, by_text);
        size_t w = 0;
        for (size_t i = 0; i < l.n; i++) {
            const char *t = l.text + l.offs[i];
            size_t k = strlen(t);
            if (i && w < cap) buf[w] = '\n';
            w += i > 0;
            for (size_t j = 0; j < k; j++, w++)
                if (w < cap) buf[w] = t[j];
        }
        if (cap) buf[w < cap ? w : cap - 1] = 0;
        total = (long)w;
        if (count) *count = (int)l.n;
    }
    free(l.text);
    free(l.offs);
    return total;
}

/* ================================================================ 6. random play */

void vz_seed(vz_rng *r, uint64_t seed) {
    /* splitmix64 scrambles the seed, so that seeds 1, 2, 3 give unrelated streams */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    r->state = (z ^ (z >> 31)) | 1; /* xorshift needs a non-zero state */
}

uint64_t vz_rand(vz_rng *r) { /* xorshift64* */
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

int vz_below(vz_rng *r, int n) { return (int)(((vz_rand(r) >> 32) * (uint64_t)n) >> 32); }

int vz_random_turn(vz_pos *s, vz_rng *r, vz_turn *t) {
    int list[VZ_MAXP], n = 0, c = s->to_move;
    for (int i = 0; i < s->nempty; i++)
        if (vz_placement_group(s, s->empt[i], c) != -2) list[n++] = s->empt[i];
    if (t) t->n = 0;
    if (n == 0) {
        if (!vz_has_placement(s, 1 - c)) return -1;
        if (t) t->place = -1;
        vz_turn_end(s);
        return 0;
    }
    int p = list[vz_below(r, n)];
    vz_steals m;
    vz_turn_begin(s, &m, p, vz_placement_group(s, p, c));
    if (t) t->place = p;
    while (!m.done) {
        int x = -1, y = -1;
        vz_steal_random(s, &m, r, &x, &y);
        vz_steal_apply(s, &m, x, y);
        if (t) {
            t->x[t->n] = (int16_t)x;
            t->y[t->n] = (int16_t)y;
            t->n++;
        }
    }
    vz_turn_end(s);
    return 0;
}
