/*
 * vastuz.h: the Vastuz rules as a small C11 library (libvastuz), usable from C and from
 * any language with a C FFI (Python ctypes, Rust, Go cgo, Java's FFM, ...).
 *
 * Rules: docs/rules.md (every board size 2 to 13, placement, the compulsory steal rounds,
 * the pass rule, the end, the score). Notation: "g7", "g7,f6>f6", "pass". The library is
 * proven equal to the Python engine (referee.engine) on every conformance vector and on
 * thousands of random games (tests/test_c_rules_library.py).
 *
 * Build:  make -C sample_bots/c     (build/libvastuz.a, build/libvastuz.so)
 * Use:    cc -std=c11 -O2 -Isample_bots/c mybot.c sample_bots/c/build/libvastuz.a
 *
 * Two levels:
 *   - the plain API (vz_init, vz_play, vz_legal_turns, vz_random_turn, vz_result, ...):
 *     positions, turns as text, every rule checked; what an FFI user needs;
 *   - the search API (vz_turn_begin, vz_steal_*, vz_replay, vz_put_stone, ...): the steal
 *     machine step by step and unchecked replays, for fast search code such as
 *     vastuz_mcts.c. Its callers must respect each function's precondition.
 *
 * A vz_pos is a plain struct (about 10 KB): copy it with `=` or memcpy to try a turn. Its
 * fields may be read (the search API does) but should be changed only through the library.
 * Thread safety: every function may be called from several threads at once on different
 * positions (the scratch space is thread-local).
 *
 * Colours: 0 Black (VZ_BLACK), 1 White (VZ_WHITE). Points: 0..points-1 in row order
 * (row 1 first, then by column); -1 means "none" (a pass, or not a point).
 */
#ifndef VASTUZ_H
#define VASTUZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VZ_MAXN 13
#define VZ_MINN 2
#define VZ_MAXSIDE (2 * VZ_MAXN - 1)           /* 25 columns and rows at most */
#define VZ_MAXP (3 * VZ_MAXN * (VZ_MAXN - 1) + 1) /* 469 points at most */
#define VZ_BLACK 0
#define VZ_WHITE 1
#define VZ_TURN_TEXT (8 * VZ_MAXP + 16)     /* enough for any turn's notation */

/* ------------------------------------------------------------------ geometry */
typedef struct vz_geo {
    int n, side, points;                 /* side N, 2N-1 rows, 3N(N-1)+1 points */
    int16_t pq[VZ_MAXP], pr[VZ_MAXP];    /* axial coordinates of each point */
    int16_t idx[VZ_MAXSIDE][VZ_MAXSIDE]; /* idx[q][r]: the point, or -1 off the board */
    int16_t nb[VZ_MAXP][6], nnb[VZ_MAXP]; /* neighbours */
    char name[VZ_MAXP][4];               /* "a1" .. "y25" */
} vz_geo;

/* The geometry of side n (built once, shared, never freed); NULL unless 2 <= n <= 13. */
const vz_geo *vz_geometry(int n);

/* ------------------------------------------------------------------ positions */
typedef struct vz_pos {
    const vz_geo *geo;
    int8_t col[VZ_MAXP];                   /* 0 empty, 1 black, 2 white */
    int16_t gid[VZ_MAXP];                  /* group of the stone on the point, -1 if empty */
    int16_t nxt[VZ_MAXP], prv[VZ_MAXP];    /* each group's stone list */
    int16_t ghead[VZ_MAXP], gsize[VZ_MAXP]; /* per group id: first stone, size */
    int8_t gcol[VZ_MAXP];                  /* per group id: colour */
    int16_t gfree[VZ_MAXP], nfree;         /* unused group ids */
    int16_t cnt[2][VZ_MAXP + 2];           /* cnt[c][s]: c's groups of size s */
    int16_t sumd[2], nd[2], maxs[2];       /* sum / number of distinct sizes, largest */
    int16_t empt[VZ_MAXP], epos[VZ_MAXP], nempty; /* the empty points, in no order */
    int8_t to_move;                        /* 0 Black, 1 White */
} vz_pos;

/* The empty board of side n, Black to move. 0, or -1 if n is not 2..13 (*s untouched). */
int vz_init(vz_pos *s, int n);
/* The same on the heap (for FFI users); NULL for a bad size. vz_free(NULL) is fine. */
vz_pos *vz_new(int n);
void vz_free(vz_pos *s);
void vz_copy(vz_pos *dst, const vz_pos *src);
size_t vz_sizeof_pos(void);

int vz_size(const vz_pos *s);
int vz_point_count(const vz_pos *s);
const char *vz_point_name(const vz_pos *s, int p);
/* A point name (any case, no leading zeros) of length len -> point, or -1. */
int vz_parse_point(const vz_pos *s, const char *text, size_t len);
int vz_color_at(const vz_pos *s, int p); /* -1 empty, else the colour */
int vz_to_move(const vz_pos *s);

/* The pie-rule stones on an empty board (Black to move next). NULL, or why not. */
const char *vz_setup(vz_pos *s, int black, int white);
/* Any position: stones as point names separated by commas or spaces ("" for none).
 * NULL, or why not (*s is then the empty board). */
const char *vz_set_stones(vz_pos *s, const char *black, const char *white, int to_move);

/* ------------------------------------------------------------------ placements, end */
/* The group that c placing on p would grow: -1 for a new group, -2 if p is not legal. */
int vz_placement_group(const vz_pos *s, int p, int c);
int vz_has_placement(const vz_pos *s, int c);
/* The mover's legal placements into out (VZ_MAXP ints), sorted by name; their count
 * (0 when the game is over or the mover must pass). */
int vz_legal_placements(const vz_pos *s, int *out);
int vz_is_over(const vz_pos *s);  /* neither side has a legal placement */
int vz_must_pass(const vz_pos *s); /* the mover has none, the game goes on */

/* ------------------------------------------------------------------ turns as text */
typedef struct vz_turn {
    int place; /* -1: pass */
    int n;     /* steals */
    int16_t x[VZ_MAXP], y[VZ_MAXP];
} vz_turn;

/* Notation only (every point on this board). NULL, or what is wrong. */
const char *vz_parse_turn(const vz_pos *s, const char *text, vz_turn *t);
/* The canonical text of t into out (VZ_TURN_TEXT bytes is always enough). */
void vz_format_turn(const vz_pos *s, const vz_turn *t, char *out);
/* Play a turn with every rule checked: NULL and *s updated, or the reason and *s unchanged. */
const char *vz_play_turn(vz_pos *s, const vz_turn *t);
/* vz_play_turn from text; a reason starts "bad notation: " or "illegal move: ". */
const char *vz_play(vz_pos *s, const char *text);
/* Every complete legal turn, canonical, sorted as plain strings (strcmp), separated by
 * '\n', into buf (NUL-terminated when cap > 0; truncated if it does not fit). Returns the
 * length of the whole text (without the NUL), like snprintf: call again with a bigger
 * buffer when it is >= cap. *count (if not NULL) gets the number of turns: 1 ("pass")
 * when the mover must pass, 0 when the game is over. -1 if out of memory. */
long vz_legal_turns(const vz_pos *s, char *buf, size_t cap, int *count);

/* ------------------------------------------------------------------ random play */
typedef struct vz_rng {
    uint64_t state;
} vz_rng;
void vz_seed(vz_rng *r, uint64_t seed);
uint64_t vz_rand(vz_rng *r);
int vz_below(vz_rng *r, int n); /* uniform in [0, n), n >= 1 */
/* A uniformly random legal placement, then a uniformly random legal steal at each step
 * (or a pass when forced); played on *s and recorded in *t (t may be NULL).
 * 0, or -1 if the game is over (nothing changes). */
int vz_random_turn(vz_pos *s, vz_rng *r, vz_turn *t);

/* ------------------------------------------------------------------ score */
/* c's score doubled (an integer): 2 * (sum + number of distinct group sizes), + 1 for the
 * strictly largest group. */
int vz_score2(const vz_pos *s, int c);
double vz_score(const vz_pos *s, int c);
/* The result as GTP final_score writes it: "B+4.5", "W+1", "0" (out: 16 bytes). */
void vz_result(const vz_pos *s, char *out);

/* ------------------------------------------------------------------ search API */
/* The steals of a turn in progress. G is the mover's group holding the placed stone;
 * pend are the groups of this round's T not yet stolen from. */
typedef struct vz_steals {
    int c, g;
    int16_t pend[VZ_MAXP];
    int npend;
    int round_steals;
    int done; /* no steal is left: the turn is complete */
} vz_steals;

/* Place the mover's stone on p (precondition: legal; g = vz_placement_group) and open the
 * steal rounds. The mover does not change until vz_turn_end. */
void vz_turn_begin(vz_pos *s, vz_steals *m, int p, int g);
/* Every legal next steal into xs/ys (VZ_MAXP * VZ_MAXP entries suffice); their count. */
int vz_steal_options(const vz_pos *s, const vz_steals *m, int16_t *xs, int16_t *ys, int cap);
/* Why steal (x, y) is not legal now, or NULL. */
const char *vz_steal_check(const vz_pos *s, const vz_steals *m, int x, int y);
/* Make a steal (precondition: vz_steal_check said NULL). */
void vz_steal_apply(vz_pos *s, vz_steals *m, int x, int y);
/* A uniformly random legal steal (precondition: !m->done); returns the number there were. */
int vz_steal_random(const vz_pos *s, const vz_steals *m, vz_rng *r, int *x, int *y);
void vz_turn_end(vz_pos *s); /* the other side moves */
/* Replay a turn known to be legal here, without checks (fast). */
void vz_replay(vz_pos *s, const vz_turn *t);
/* Low level: a stone of c on the empty p into group g (-1: new group); returns its group.
 * The caller keeps groups apart (p must not touch another group of c). */
int vz_put_stone(vz_pos *s, int p, int c, int g);
void vz_take_stone(vz_pos *s, int p); /* the stone's group may vanish or split */
/* Whether groups a and b have the same shape (translation + the 12 symmetries). */
int vz_same_shape(const vz_pos *s, int a, int b);

#ifdef __cplusplus
}
#endif
#endif
