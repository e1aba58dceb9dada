/*
 * tap-one: a Singer tap of one record, for measuring what a run costs around its processes.
 *
 *   tap-one START_FILE [--config FILE] [--catalog FILE] [--state FILE]
 *   tap-one START_FILE --config FILE --discover
 *
 * First writes the time it started (CLOCK_REALTIME, microseconds since the epoch, one line) to
 * START_FILE, so that a benchmark can measure a trigger -> process start latency; then prints a
 * SCHEMA, one RECORD and a STATE of the stream "one" (with --discover: a catalog of that stream
 * instead). The other Singer options are accepted and ignored.
 *
 * Build: gcc -O2 -o tap-one tap-one.c
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char CATALOG[] =
    "{\"streams\":[{\"tap_stream_id\":\"one\",\"stream\":\"one\",\"schema\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"}}},"
    "\"key_properties\":[\"id\"],\"metadata\":[{\"breadcrumb\":[],\"metadata\":{\"selected\":true}}]}]}\n";

static const char MESSAGES[] =
    "{\"type\":\"SCHEMA\",\"stream\":\"one\",\"schema\":{\"type\":\"object\",\"properties\":"
    "{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"}}},\"key_properties\":[\"id\"]}\n"
    "{\"type\":\"RECORD\",\"stream\":\"one\",\"record\":{\"id\":1,\"name\":\"one\"}}\n"
    "{\"type\":\"STATE\",\"value\":{\"bookmarks\":{\"one\":{\"id\":1}}}}\n";

static int put(const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, s, n);
        if (w < 0) return 1;
        s += w;
        n -= (size_t) w;
    }
    return 0;
}

int main(int argc, char **argv) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    if (argc < 2) {
        fprintf(stderr, "usage: tap-one START_FILE [--config FILE] [--catalog FILE] [--state FILE] [--discover]\n");
        return 2;
    }
    int discover = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--discover") == 0) discover = 1;
    }
    if (!discover) {
        FILE *f = fopen(argv[1], "w");
        if (!f) { perror(argv[1]); return 2; }
        fprintf(f, "%lld\n", (long long) t.tv_sec * 1000000LL + t.tv_nsec / 1000);
        fclose(f);
    }
    return discover ? put(CATALOG, sizeof(CATALOG) - 1) : put(MESSAGES, sizeof(MESSAGES) - 1);
}
