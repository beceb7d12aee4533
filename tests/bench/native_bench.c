/* native_bench.c - the native backend of the bench (tests/bench/bench.mjs
 * drives it): the alignscope library built with -O3 -march=native.
 *
 *   native_bench MODEL.alsc SENTENCES.txt
 *
 * Reads commands on stdin, one per line, and answers each with one JSON line,
 * so the driver can interleave it with the other backends:
 *   tokens   -> {"tokens": [[id, ...], ...]}   greedy output per sentence
 *   round N  -> {"samples": [{"i", "whole_ms", "decode_ms", "steps"}, ...]}
 *               N repetitions of every sentence in order. whole: a cold
 *               translation (the previous call had another sentence, so the
 *               encoder runs); decode: the same sentence again at once, which
 *               reuses the cached encoder, i.e. greedy decoding alone.
 *   quit
 * A bench program, not library code: it prints and exits on errors.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/alignscope.h"
#include "../../src/read_file.h"

#define MAX_SENTENCES 64

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void die(const char *what, const char *detail) {
    fprintf(stderr, "native_bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* read_file (src/read_file.h), or stop with a message. */
static uint8_t *read_file_or_die(const char *path, size_t *len_out) {
    uint8_t *buf = read_file(path, len_out);
    if (!buf) die("cannot read", path);
    return buf;
}

/* No candidates per step (top_k 0): the work of the other backends' greedy
 * loops (tests/bench/bench.mjs). */
static const as_trace *translate(as_session *s, const char *text) {
    const as_trace *trace;
    as_options options;
    as_options_default(&options);
    options.top_k = 0;
    as_status st = as_translate(s, text, strlen(text), &options, &trace);
    if (st != AS_OK) die("translate failed", as_status_message(st));
    return trace;
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: native_bench MODEL.alsc SENTENCES.txt", NULL);
    size_t model_len, text_len;
    uint8_t *model_bytes = read_file_or_die(argv[1], &model_len);
    char *text = (char *)read_file_or_die(argv[2], &text_len);
    as_model *model;
    as_session *session;
    as_status st = as_model_load(model_bytes, model_len, &model);
    if (st != AS_OK) die("load failed", as_status_message(st));
    free(model_bytes);
    if ((st = as_session_create(model, &session)) != AS_OK) die("session failed", as_status_message(st));

    const char *sentences[MAX_SENTENCES];
    int n = 0;
    for (char *line = strtok(text, "\n"); line && n < MAX_SENTENCES; line = strtok(NULL, "\n"))
        if (line[0]) sentences[n++] = line;
    if (n < 2) die("need at least two sentences (the encoder cache must miss)", NULL);

    char cmd[64];
    while (fgets(cmd, sizeof cmd, stdin)) {
        if (strncmp(cmd, "quit", 4) == 0) break;
        if (strncmp(cmd, "tokens", 6) == 0) {
            printf("{\"tokens\":[");
            for (int i = 0; i < n; i++) {
                const as_trace *t = translate(session, sentences[i]);
                printf("%s[", i ? "," : "");
                for (int k = 0; k < t->target_len; k++) printf("%s%d", k ? "," : "", t->target_ids[k]);
                printf("]");
            }
            printf("]}\n");
        } else if (strncmp(cmd, "round ", 6) == 0) {
            int reps = atoi(cmd + 6);
            printf("{\"samples\":[");
            for (int r = 0, first = 1; r < reps; r++) {
                for (int i = 0; i < n; i++, first = 0) {
                    double t0 = now_ms();
                    const as_trace *t = translate(session, sentences[i]);
                    double t1 = now_ms();
                    if (t->encoder_reused) die("encoder cache hit on a cold run", sentences[i]);
                    t = translate(session, sentences[i]);
                    double t2 = now_ms();
                    printf("%s{\"i\":%d,\"whole_ms\":%.5f,\"decode_ms\":%.5f,\"steps\":%d}", first ? "" : ",", i,
                           t1 - t0, t2 - t1, t->target_len);
                }
            }
            printf("]}\n");
        } else {
            printf("{\"error\":\"unknown command\"}\n");
        }
        fflush(stdout);
    }
    as_session_free(session);
    as_model_free(model);
    free(text);
    return 0;
}
