/* Random games per second with libvastuz (sample_bots/c/vastuz.h), for benchmarks/rules_helper.py.
 * Usage: random_games SIZE SECONDS SEED -> prints "games turns seconds". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vastuz.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    int size = atoi(argv[1]);
    double seconds = atof(argv[2]);
    vz_rng rng;
    vz_seed(&rng, (uint64_t)atoll(argv[3]));
    vz_pos pos;
    long games = 0, turns = 0;
    double start = now(), took = 0;
    do {
        vz_init(&pos, size);
        int n = vz_point_count(&pos), b = vz_below(&rng, n), w = vz_below(&rng, n - 1);
        vz_setup(&pos, b, w >= b ? w + 1 : w);
        while (vz_random_turn(&pos, &rng, NULL) == 0) turns++;
        games++;
        took = now() - start;
    } while (took < seconds);
    printf("%ld %ld %.6f\n", games, turns, took);
    return 0;
}
