/*
 * target-last-state: a Singer target that loads nothing. It reads its stdin to the end in 1 MiB
 * reads, counts lines, remembers the last STATE message, and at the end prints that message's
 * value on one line (what a Singer target emits, and what Tapline stores as state), and the
 * line count on stderr.
 *
 *   tap | target-last-state [--config FILE]
 *
 * A STATE line is recognised by its prefix {"type":"STATE","value": (the layout tap-gen
 * writes); its value is the rest of the line without the closing brace.
 *
 * Build: gcc -O2 -o target-last-state target-last-state.c
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1 << 20)
static const char PREFIX[] = "{\"type\":\"STATE\",\"value\":";

static char buf[BLOCK];
static char *line;          /* the current line when it spans reads, or the last STATE line */
static size_t line_len, line_cap;
static char *state;
static size_t state_len, state_cap;

static void keep(char **dst, size_t *len, size_t *cap, const char *src, size_t n, int append) {
    size_t need = (append ? *len : 0) + n;
    if (need > *cap) {
        *cap = need * 2 + 1024;
        *dst = realloc(*dst, *cap);
        if (!*dst) { perror("realloc"); exit(2); }
    }
    memcpy(*dst + (append ? *len : 0), src, n);
    *len = need;
}

static void on_line(const char *s, size_t n) {
    if (n > sizeof(PREFIX) - 1 && memcmp(s, PREFIX, sizeof(PREFIX) - 1) == 0)
        keep(&state, &state_len, &state_cap, s, n, 0);
}

int main(void) {
    unsigned long lines = 0;
    for (;;) {
        ssize_t n = read(0, buf, BLOCK);
        if (n < 0) {
            if (errno == EINTR) continue;
            perror("read");
            return 1;
        }
        if (n == 0) break;
        char *p = buf, *end = buf + n, *nl;
        while ((nl = memchr(p, '\n', (size_t) (end - p))) != NULL) {
            if (line_len) {
                keep(&line, &line_len, &line_cap, p, (size_t) (nl - p), 1);
                on_line(line, line_len);
                line_len = 0;
            } else {
                on_line(p, (size_t) (nl - p));
            }
            lines++;
            p = nl + 1;
        }
        if (p < end) keep(&line, &line_len, &line_cap, p, (size_t) (end - p), 1);
    }
    if (line_len) { on_line(line, line_len); lines++; }
    if (state_len) {
        size_t v = sizeof(PREFIX) - 1, e = state_len;
        while (e > v && state[e - 1] != '}') e--;
        if (e > v) e--;  /* drop the message's closing brace */
        fwrite(state + v, 1, e - v, stdout);
        fputc('\n', stdout);
    }
    fprintf(stderr, "target-last-state: %lu lines\n", lines);
    return 0;
}
