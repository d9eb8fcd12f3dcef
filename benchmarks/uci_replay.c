/* An instant UCI chess engine for benchmarks/tournament.py --fastchess: it replays one
   fixed legal game, so that fastchess's cost per move can be set beside the referee's with
   the same kind of bot as benchmarks/replay_bot.c (no thinking, no rules).

   Usage: uci_replay

   The game is a random legal one from the start position (python-chess, seed 12) that
   ends in checkmate at its 111th ply, about as long as the scripted Vastuz game of the
   referee's benchmark; a game fastchess does not adjudicate before its end. `go` answers
   the move after those of the last `position startpos moves ...`: the count of moves is
   all the state there is. Anything else the GUI sends is ignored but `uci`, `isready` and
   `quit`. */

#include <stdio.h>
#include <string.h>

static const char *LINE =
    "e2e4 d7d6 b2b3 c7c6 f2f3 c8h3 f1c4 h3e6 c4e6 g7g6 c1b2 d8a5 g2g3 a5e5 e6c8 e5e6 h2h4 e6e5 "
    "b2c1 e5c3 h1h3 f8h6 e4e5 c3c5 c8e6 f7f5 b3b4 c5f2 e1f2 e8d8 e6c8 d8e8 a2a3 a7a5 a1a2 a8a6 "
    "c8e6 d6e5 d2d3 b8d7 b1d2 d7b8 c2c4 a6a8 f2f1 e8f8 d2b1 c6c5 e6d5 h6d2 b4c5 f5f4 d3d4 f4g3 "
    "d1d2 b7b6 b1c3 g8h6 f3f4 f8g7 h3h1 b6b5 d2d3 g7f6 c3e2 a5a4 a2c2 e5e4 c2b2 h8d8 d3b1 d8d5 "
    "g1h3 f6f7 b2a2 d5d7 b1b5 e7e5 c5c6 f7g8 b5b7 d7e7 f1g1 g8f8 d4d5 f8g8 h3g5 g3g2 h1h3 g8f8 "
    "h3b3 a8a7 c1e3 b8d7 a2c2 d7b8 g5h7 f8g8 f4f5 e7h7 b7a8 a7f7 b3b7 g6f5 e3f4 f7c7 a8a5 c7d7 "
    "f4d2 d7g7 a5d8";

/* The move at `ply` (0-based) copied into out, or "0000" past the end. */
static void move_at(size_t ply, char out[8]) {
    size_t len = strlen(LINE);
    size_t at = ply * 5; /* every move is 4 characters and a space (no promotions here) */
    if (at + 4 > len) {
        strcpy(out, "0000");
        return;
    }
    memcpy(out, LINE + at, 4);
    out[4] = '\0';
}

int main(void) {
    static char out_buf[1 << 12];
    setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    static char line[1 << 16];
    size_t ply = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "uci", 3) == 0 && (line[3] == '\n' || line[3] == '\r')) {
            printf("id name uci_replay\nid author vastuz benchmarks\nuciok\n");
        } else if (strncmp(line, "isready", 7) == 0) {
            printf("readyok\n");
        } else if (strncmp(line, "position", 8) == 0) {
            const char *moves = strstr(line, " moves ");
            ply = 0;
            if (moves != NULL) {
                for (const char *p = moves + 7; *p && *p != '\n' && *p != '\r'; p++) {
                    if (*p != ' ' && (p[-1] == ' ')) ply++;
                }
            }
            continue; /* no answer: flushing nothing is no write */
        } else if (strncmp(line, "go", 2) == 0) {
            char move[8];
            move_at(ply, move);
            printf("bestmove %s\n", move);
        } else if (strncmp(line, "quit", 4) == 0) {
            break;
        } else {
            continue;
        }
        fflush(stdout);
    }
    return 0;
}
