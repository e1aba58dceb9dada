/*
 * tap-gen: a Singer tap that generates its messages instead of reading a source, fast enough
 * that a pipe, not the tap, is what a benchmark measures.
 *
 *   tap-gen [N] [--config FILE] [--catalog FILE] [--state FILE] ...
 *
 * Prints one SCHEMA per stream, then N RECORD messages (default 1,000,000) of about 250 bytes,
 * round-robin over four streams (orders, customers, order_items, events), and a STATE message
 * after every 10,000 records and at the end. Records differ in ids, amounts and times; the
 * STATE carries each stream's last replication key value. Singer options (--config and the
 * others) are accepted and ignored. Output is written with write(2) in 1 MiB blocks.
 *
 * Build: gcc -O2 -o tap-gen tap-gen.c
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1 << 20)
#define STATE_EVERY 10000

static char out[BLOCK + 4096];
static size_t used;

static void drain(void) {
    size_t off = 0;
    while (off < used) {
        ssize_t n = write(1, out + off, used - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            exit(errno == EPIPE ? 0 : 1);
        }
        off += (size_t) n;
    }
    used = 0;
}

static inline void put(const char *s, size_t n) { memcpy(out + used, s, n); used += n; }
#define PUT(lit) put(lit, sizeof(lit) - 1)

static inline void put_u(unsigned long v) {
    char tmp[24];
    int i = 24;
    do { tmp[--i] = (char) ('0' + v % 10); v /= 10; } while (v);
    put(tmp + i, (size_t) (24 - i));
}

static inline void put_2(unsigned v) { out[used++] = (char) ('0' + v / 10); out[used++] = (char) ('0' + v % 10); }

/* "2024-MM-DDTHH:MM:SSZ" for second s of a 28-day-month year (realistic enough, cheap). */
static inline void put_time(unsigned long s) {
    unsigned day = (unsigned) (s / 86400) % 336, sec = (unsigned) (s % 86400);
    PUT("2024-");
    put_2(day / 28 + 1);
    out[used++] = '-';
    put_2(day % 28 + 1);
    out[used++] = 'T';
    put_2(sec / 3600);
    out[used++] = ':';
    put_2(sec / 60 % 60);
    out[used++] = ':';
    put_2(sec % 60);
    out[used++] = 'Z';
}

static const char *STREAMS[] = {"orders", "customers", "order_items", "events"};
static const char *STATUS[] = {"pending", "paid", "shipped", "delivered", "returned"};
static const char *CITY[] = {"Berlin", "Lisboa", "M\\u00fcnchen", "Paris", "Z\\u00fcrich", "Oslo"};
static unsigned long last_key[4];

static void schema(int k) {
    PUT("{\"type\":\"SCHEMA\",\"stream\":\"");
    put(STREAMS[k], strlen(STREAMS[k]));
    PUT("\",\"schema\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
        "\"updated_at\":{\"type\":\"string\",\"format\":\"date-time\"}}},"
        "\"key_properties\":[\"id\"],\"bookmark_properties\":[\"updated_at\"]}\n");
}

static void record(unsigned long i) {
    int k = (int) (i & 3);
    unsigned long id = i / 4 + 1, t = 1000000UL + i * 7;
    last_key[k] = t;
    switch (k) {
    case 0:
        PUT("{\"type\":\"RECORD\",\"stream\":\"orders\",\"record\":{\"id\":");
        put_u(id);
        PUT(",\"customer_id\":"); put_u(id * 7919 % 100000);
        PUT(",\"status\":\""); put(STATUS[i % 5], strlen(STATUS[i % 5]));
        PUT("\",\"amount\":"); put_u(id * 31 % 10000); out[used++] = '.'; put_2((unsigned) (id % 100));
        PUT(",\"currency\":\"EUR\",\"items\":"); put_u(id % 9 + 1);
        PUT(",\"note\":\"leave at the door\",\"created_at\":\""); put_time(t - 3600);
        PUT("\",\"updated_at\":\""); put_time(t);
        break;
    case 1:
        PUT("{\"type\":\"RECORD\",\"stream\":\"customers\",\"record\":{\"id\":");
        put_u(id);
        PUT(",\"name\":\"Customer "); put_u(id);
        PUT("\",\"email\":\"customer"); put_u(id); PUT("@example.com\"");
        PUT(",\"city\":\""); put(CITY[i % 6], strlen(CITY[i % 6]));
        PUT("\",\"vip\":"); if (id % 3) PUT("false"); else PUT("true");
        PUT(",\"score\":-1.5e-3,\"created_at\":\""); put_time(t - 86400);
        PUT("\",\"updated_at\":\""); put_time(t);
        break;
    case 2:
        PUT("{\"type\":\"RECORD\",\"stream\":\"order_items\",\"record\":{\"id\":");
        put_u(id);
        PUT(",\"order_id\":"); put_u(id / 3 + 1);
        PUT(",\"sku\":\"SKU-"); put_u(id * 131 % 1000000);
        PUT("\",\"quantity\":"); put_u(id % 5 + 1);
        PUT(",\"unit_price\":"); put_u(id * 17 % 500); out[used++] = '.'; put_2((unsigned) (id * 7 % 100));
        PUT(",\"tags\":[\"a\",\"b\",null],\"updated_at\":\""); put_time(t);
        break;
    default:
        PUT("{\"type\":\"RECORD\",\"stream\":\"events\",\"record\":{\"id\":");
        put_u(id);
        PUT(",\"session\":\"s-"); put_u(id * 2654435761UL % 4294967296UL);
        PUT("\",\"kind\":\"page_view\",\"path\":\"/products/"); put_u(id % 5000);
        PUT("\",\"props\":{\"ref\":\"search\",\"ms\":"); put_u(id % 3000);
        PUT("},\"updated_at\":\""); put_time(t);
        break;
    }
    PUT("\"},\"time_extracted\":\"2026-11-29T16:00:00.000000Z\"}\n");
}

static void state(void) {
    PUT("{\"type\":\"STATE\",\"value\":{\"bookmarks\":{");
    for (int k = 0; k < 4; k++) {
        if (k) out[used++] = ',';
        out[used++] = '"';
        put(STREAMS[k], strlen(STREAMS[k]));
        PUT("\":{\"replication_key\":\"updated_at\",\"replication_key_value\":\"");
        put_time(last_key[k]);
        PUT("\"}");
    }
    PUT("}}}\n");
}

int main(int argc, char **argv) {
    unsigned long n = 1000000UL;
    for (int a = 1; a < argc; a++) {
        if (argv[a][0] == '-') {
            if (a + 1 < argc && strcmp(argv[a], "--discover") != 0 && strcmp(argv[a], "--about") != 0) a++;
            continue;
        }
        n = strtoul(argv[a], NULL, 10);
    }
    for (int k = 0; k < 4; k++) schema(k);
    for (unsigned long i = 0; i < n; i++) {
        record(i);
        if ((i + 1) % STATE_EVERY == 0) state();
        if (used >= BLOCK) drain();
    }
    if (n % STATE_EVERY) state();
    drain();
    return 0;
}
