/* An instant Vastuz bot for benchmarks/referee.py: it replays a scripted legal game.

   Usage: replay_bot SCRIPT [--time-left] [--think-us N]

   SCRIPT holds one turn per line, in order (Black's first turn first), as the engine
   writes them. The bot keeps one counter: every `play` and every `genmove` moves it one
   turn on, `clear_board` and `boardsize` reset it, and `genmove` answers the turn at the
   counter. It thinks for no time at all, so a game between two of these measures the
   referee and the pipes alone. With --time-left it lists `time_settings` and `time_left`
   (as every SDK bot does), and the referee then sends `time_left` before each genmove.
   With --think-us N it sleeps N microseconds before each genmove's answer (its `play`
   still answered at once): a bot that thinks, for measuring what the referee's wait costs.

   Protocol only: no rules, no checks. It answers `?` to what it does not know. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **turns;
static size_t n_turns;

static void load(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 256;
    turns = malloc(cap * sizeof *turns);
    char *line = NULL;
    size_t len = 0;
    ssize_t got;
    while ((got = getline(&line, &len, f)) > 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r')) line[--got] = '\0';
        if (got == 0) continue;
        if (n_turns == cap) turns = realloc(turns, (cap *= 2) * sizeof *turns);
        turns[n_turns++] = strdup(line);
    }
    free(line);
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCRIPT [--time-left] [--think-us N]\n", argv[0]);
        return 2;
    }
    load(argv[1]);
    int time_left = 0;
    long think_us = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--time-left") == 0) {
            time_left = 1;
        } else if (strcmp(argv[i], "--think-us") == 0 && i + 1 < argc) {
            think_us = atol(argv[++i]);
        } else {
            fprintf(stderr, "%s: unknown argument %s\n", argv[0], argv[i]);
            return 2;
        }
    }
    static char out_buf[1 << 16];
    setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    char *line = NULL;
    size_t len = 0;
    size_t at = 0;
    while (getline(&line, &len, stdin) > 0) {
        char *save = NULL;
        char *tok = strtok_r(line, " \t\r\n", &save);
        if (!tok) continue;
        const char *id = "";
        if (strspn(tok, "0123456789") == strlen(tok)) {
            id = tok;
            tok = strtok_r(NULL, " \t\r\n", &save);
            if (!tok) continue;
        }
        const char *text = NULL; /* NULL: '=' with no text */
        int ok = 1;
        int quit = 0;
        if (strcmp(tok, "protocol_version") == 0) {
            text = "2";
        } else if (strcmp(tok, "name") == 0) {
            text = "replay";
        } else if (strcmp(tok, "version") == 0) {
            text = "1";
        } else if (strcmp(tok, "list_commands") == 0) {
            text = time_left ? "protocol_version\nname\nversion\nlist_commands\nboardsize\nclear_board\n"
                               "play\ngenmove\ntime_settings\ntime_left\nquit"
                             : "protocol_version\nname\nversion\nlist_commands\nboardsize\nclear_board\n"
                               "play\ngenmove\nquit";
        } else if (strcmp(tok, "boardsize") == 0 || strcmp(tok, "clear_board") == 0) {
            at = 0;
        } else if (strcmp(tok, "play") == 0) {
            at++;
        } else if (strcmp(tok, "genmove") == 0) {
            if (think_us > 0) usleep((useconds_t)think_us);
            text = at < n_turns ? turns[at] : "pass";
            at++;
        } else if (strcmp(tok, "time_settings") == 0 || strcmp(tok, "time_left") == 0) {
            ok = time_left;
            if (!ok) text = "unknown command";
        } else if (strcmp(tok, "quit") == 0) {
            quit = 1;
        } else {
            ok = 0;
            text = "unknown command";
        }
        if (text)
            printf("%c%s %s\n\n", ok ? '=' : '?', id, text);
        else
            printf("%c%s\n\n", ok ? '=' : '?', id);
        fflush(stdout);
        if (quit) break;
    }
    free(line);
    return 0;
}
