/* engine_test.c - the engine end to end in native code, for the sanitizers.
 *
 *   engine_test MODEL.alsc ... [--sentences FILE]
 *
 * For each model: load it, translate every sentence (the parity sentences of
 * build/test-models/sentences.txt and the built-in ones below) at several
 * score scales, check every trace's rules, run beam search, pinned attention
 * and forced decoding with a mask (their refusals too), then feed it bad
 * text. With the first model it also makes bad files (every truncation of
 * the header, cuts
 * into the body, flipped bytes with and without the CRC fixed, another
 * version, other file types) and checks each is refused with the right code,
 * or, for damage the CRC fix makes legal, loads and translates. Built with
 * -DENGINE_TEST_FAIL_ALLOC (and ld's --wrap), it also fails each allocation
 * of load + session + translate in turn. Everything allocated is freed, so
 * ASan's leak check and valgrind see zero leaks.
 * tests/sanitizers.test.mjs runs it under ASan+UBSan and valgrind memcheck.
 *
 * Output: one line per model, then "RESULT PASS" (exit 0) or "RESULT FAIL".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/alignscope_format.h" /* AS_WEIGHT_I8 */
#include "../fuzz/fuzz_common.h" /* fuzz_check_trace: the rules of a trace */
#include "../../src/read_file.h"

static int failures;
static long translations, bad_files, bad_texts;

#define EXPECT(cond, ...)                                   \
    do {                                                    \
        if (!(cond)) {                                      \
            failures++;                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fputc('\n', stderr);                            \
        }                                                   \
    } while (0)


static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void fix_crc(uint8_t *b, size_t n) { (void)fuzz_fix_crc(b, n); }

/* ---- good text ----------------------------------------------------------- */

static const char *const builtin_sentences[] = {
    "Open the file", "Show the new window", "Print the Zorglub page", "Delete the selected document!",
    "save   the LAST   menu", "\xc2\xab \xc3\x87\x61 \xc2\xbb \xf0\x9f\x98\x80 open\xc2\xa0the FILE\xe2\x80\xa6",
};

static void translate_ok(as_session *session, const as_model *model, const char *text, size_t len,
                         float scale, int32_t top_k) {
    as_options opt;
    as_options_default(&opt);
    opt.score_scale = scale;
    opt.top_k = top_k;
    const as_trace *tr = NULL;
    as_status st = as_translate(session, text, len, &opt, &tr);
    EXPECT(st == AS_OK && tr, "translate \"%.*s\": %s", (int)len, text, as_status_message(st));
    if (st != AS_OK) return;
    fuzz_check_trace(model, tr, len, &opt, 1);
    translations++;
}

/* ---- bad text -------------------------------------------------------------- */

static void bad_text(as_session *session, const as_model *model) {
    const as_model_info *in = as_model_get_info(model);
    const as_trace *tr = (const as_trace *)&tr; /* must become NULL on refusal */
    /* empty and only spaces/controls: no tokens */
    static const char *const empty[] = {"", "   ", "\t\r\n", "\xc2\xa0\xe2\x80\x8b", "\x01\x02\x7f"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        EXPECT(as_translate(session, empty[i], strlen(empty[i]), NULL, &tr) == AS_ERR_EMPTY_INPUT && !tr,
               "empty text %zu not refused", i);
        EXPECT(as_session_source_count(session) == 0, "empty text count");
        bad_texts++;
    }
    /* NUL bytes only: length says 3, all of them are control characters */
    EXPECT(as_translate(session, "\0\0\0", 3, NULL, &tr) == AS_ERR_EMPTY_INPUT, "NULs");
    EXPECT(as_translate(session, NULL, 0, NULL, &tr) == AS_ERR_EMPTY_INPUT, "NULL, 0");
    EXPECT(as_translate(session, NULL, 5, NULL, &tr) == AS_ERR_NULL_ARGUMENT, "NULL, 5");
    EXPECT(as_translate(session, "x", 1, NULL, NULL) == AS_ERR_NULL_ARGUMENT, "NULL trace_out");
    EXPECT(as_translate(NULL, "x", 1, NULL, &tr) == AS_ERR_NULL_ARGUMENT, "NULL session");
    bad_texts += 5;
    /* 10,000 characters: refused with the count, in one pass, nothing written past max_s */
    char *big = malloc(10000);
    EXPECT(big != NULL, "malloc");
    if (!big) return;
    /* a subword model's counts are its pieces' (FORMAT.md 5.2): as_tokenize says how many */
    const int subwords = (in->arch_flags & AS_ARCH_SUBWORDS) != 0;
    int32_t pieces = -1;
    for (size_t i = 0; i < 10000; i++) big[i] = (i % 5 == 4) ? ' ' : "open"[i % 5];
    EXPECT(as_translate(session, big, 10000, NULL, &tr) == AS_ERR_INPUT_TOO_LONG && !tr, "10,000 chars");
    EXPECT(as_tokenize(model, big, 10000, NULL, NULL, 0, &pieces) == AS_OK, "tokenize 10,000 chars");
    EXPECT(as_session_source_count(session) == (subwords ? pieces : 2000), "10,000 chars: count %d",
           as_session_source_count(session));
    memset(big, 'a', 10000); /* one 10,000-byte word: one token, kept to 255 bytes, <unk> */
    if (!subwords) {
        translate_ok(session, model, big, 10000, 0.0f, 5);
        EXPECT(as_session_source_count(session) == 1, "one long word");
    } else { /* cut into 256-character pre-tokens, then pieces: too many for the model, said so */
        EXPECT(as_translate(session, big, 10000, NULL, &tr) == AS_ERR_INPUT_TOO_LONG, "one long word");
        EXPECT(as_tokenize(model, big, 10000, NULL, NULL, 0, &pieces) == AS_OK &&
               as_session_source_count(session) == pieces, "one long word: count");
    }
    bad_texts += 2;
    /* exactly at the limit, and one past it */
    const size_t max = in->max_source_tokens;
    if (!subwords) {
        for (size_t i = 0; i < 2 * max + 2; i++) big[i] = i % 2 ? ' ' : '!';
        translate_ok(session, model, big, 2 * max - 1, 0.0f, 5); /* max tokens "!" */
        EXPECT(as_translate(session, big, 2 * max + 1, NULL, &tr) == AS_ERR_INPUT_TOO_LONG, "max + 1 tokens");
        EXPECT(as_session_source_count(session) == (int32_t)max + 1, "max + 1 count");
    } else { /* "!!!...": every "!" a pre-token of its own, unmarked after the first: one piece each */
        memset(big, '!', 2 * max + 2);
        EXPECT(as_tokenize(model, big, max, NULL, NULL, 0, &pieces) == AS_OK, "tokenize max");
        const size_t extra = (size_t)pieces - max; /* the first "!" may take the mark as a piece of its own */
        translate_ok(session, model, big, max - extra, 0.0f, 5);
        EXPECT(as_translate(session, big, max - extra + 1, NULL, &tr) == AS_ERR_INPUT_TOO_LONG, "max + 1 tokens");
        EXPECT(as_session_source_count(session) == (int32_t)max + 1, "max + 1 count");
    }
    bad_texts += 2;
    free(big);
    /* odd but valid or invalid text: translated, never refused */
    static const char *const odd[] = {
        "!!! ??? ...",                                      /* punctuation only */
        "\xf0\x9f\x98\x80\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd",  /* emoji, skin tone modifier */
        "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7", /* Hebrew, Arabic */
        "\xe2\x80\xae open the file \xe2\x80\xac",          /* RTL override */
        "e\xcc\x81 a\xcc\x88 \xcc\x81\xcc\x81",             /* combining marks, also alone */
        "open\0the\0file",                                  /* NULs inside */
        "\xed\xa0\x80 \xed\xb0\x80 open",                   /* CESU surrogates: invalid UTF-8 */
        "\xff\xfe\xfd \xc3\x28 \xe2\x82 \xf0\x9f\x98",      /* invalid and truncated sequences */
        "\xef\xbf\xbd",                                     /* U+FFFD as JS sends lone surrogates */
        "Zorglub Xyzzy Qwertyuiop",                         /* words never seen in training */
    };
    static const size_t odd_len[] = {0, 0, 0, 0, 0, 13, 0, 0, 0, 0};
    /* The tutorial's tokeniser (AS_ARCH_TOKENIZER_TUTORIAL) keeps only a-z ! ?:
     * a text without any is empty there, and refused as such. */
    const int tutorial = (in->arch_flags & AS_ARCH_TOKENIZER_TUTORIAL) != 0;
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        const size_t len = odd_len[i] ? odd_len[i] : strlen(odd[i]);
        int32_t count = -1;
        EXPECT(as_tokenize(model, odd[i], len, NULL, NULL, 0, &count) == AS_OK, "tokenize odd %zu", i);
        if (count == 0 && tutorial) {
            EXPECT(as_translate(session, odd[i], len, NULL, &tr) == AS_ERR_EMPTY_INPUT && !tr, "odd %zu: empty", i);
        } else {
            translate_ok(session, model, odd[i], len, 0.0f, 3);
        }
        bad_texts++;
    }
    /* options out of range */
    as_options opt;
    as_options_default(&opt);
    opt.top_k = 17;
    EXPECT(as_translate(session, "open", 4, &opt, &tr) == AS_ERR_BAD_OPTION, "top_k 17");
    opt.top_k = 5;
    opt.score_scale = 2e6f;
    EXPECT(as_translate(session, "open", 4, &opt, &tr) == AS_ERR_BAD_OPTION, "scale 2e6");
    opt.score_scale = AS_MAX_SCORE_SCALE; /* allowed: alpha one-hot, still finite */
    translate_ok(session, model, "Print the Zorglub page", 22, AS_MAX_SCORE_SCALE, 5);
    bad_texts += 3;
    /* tokenize's own argument checks */
    int32_t count;
    EXPECT(as_tokenize(NULL, "x", 1, NULL, NULL, 0, &count) == AS_ERR_NULL_ARGUMENT, "tokenize NULL model");
    EXPECT(as_tokenize(model, "x", 1, NULL, NULL, 0, NULL) == AS_ERR_NULL_ARGUMENT, "tokenize NULL count");
    EXPECT(as_tokenize(model, "x", 1, NULL, NULL, -1, &count) == AS_ERR_BAD_OPTION, "tokenize capacity -1");
}

/* ---- bad files ------------------------------------------------------------- */

/* Loads bytes (a fresh allocation of exactly n bytes, so reads past the end
 * are seen); `want` AS_OK means "either loads and translates, or is refused". */
static void load_expect(const uint8_t *bytes, size_t n, as_status want, const char *what) {
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy) return;
    if (n) memcpy(copy, bytes, n);
    as_model *model = (as_model *)(uintptr_t)1;
    as_status st = as_model_load(copy, n, &model);
    free(copy); /* the model must not keep pointers into the caller's bytes */
    bad_files++;
    if (want != AS_OK) EXPECT(st == want, "%s: got \"%s\", want \"%s\"", what, as_status_message(st), as_status_message(want));
    if (st != AS_OK) {
        EXPECT(model == NULL, "%s: model not NULL after a refusal", what);
        return;
    }
    as_session *session;
    if (as_session_create(model, &session) == AS_OK) {
        const as_trace *tr;
        as_status ts = as_translate(session, "Open the file", 13, NULL, &tr);
        EXPECT(ts == AS_OK || ts == AS_ERR_INPUT_TOO_LONG, "%s: translate: %s", what, as_status_message(ts));
        if (ts == AS_OK) {
            as_options opt;
            as_options_default(&opt);
            fuzz_check_trace(model, tr, 13, &opt, 0);
        }
        as_session_free(session);
    }
    as_model_free(model);
}

static void bad_files_from(const uint8_t *good, size_t n) {
    uint8_t *b = malloc(n + 8);
    if (!b) return;
    char what[96];
    for (size_t cut = 0; cut < 96; cut++) {
        snprintf(what, sizeof what, "cut at %zu", cut);
        load_expect(good, cut, AS_ERR_TOO_SHORT, what);
    }
    for (size_t cut = 96; cut < n; cut += 997) {
        snprintf(what, sizeof what, "cut at %zu", cut);
        load_expect(good, cut, AS_ERR_SIZE_MISMATCH, what);
    }
    memcpy(b, good, n);
    memset(b + n, 0, 8);
    load_expect(b, n + 3, AS_ERR_SIZE_MISMATCH, "3 extra bytes");
    /* flipped bytes after the header: the CRC catches them; with the CRC fixed
     * the loader's own checks must (or the file is still a valid model) */
    for (size_t at = 96; at < n; at += 1231) {
        memcpy(b, good, n);
        b[at] ^= 0x5A;
        snprintf(what, sizeof what, "byte %zu flipped", at);
        load_expect(b, n, AS_ERR_CHECKSUM, what);
        fix_crc(b, n);
        snprintf(what, sizeof what, "byte %zu flipped, CRC fixed", at);
        load_expect(b, n, AS_OK, what);
    }
    /* a corrupted vocabulary with a fixed-up CRC: each token length byte in turn */
    memcpy(b, good, n);
    for (size_t at = 96, id = 0; id < 40 && at < n; id++) {
        const uint8_t len = good[at];
        memcpy(b, good, n);
        b[at] = (uint8_t)(len + 1);
        fix_crc(b, n);
        snprintf(what, sizeof what, "token %zu length + 1, CRC fixed", id);
        load_expect(b, n, AS_ERR_BAD_VOCABULARY, what);
        at += 1u + len;
    }
    memcpy(b, good, n);
    put_u32(b + 8, AS_FORMAT_VERSION + 1);
    load_expect(b, n, AS_ERR_VERSION_TOO_NEW, "format version + 1");
    memcpy(b, good, n);
    put_u32(b + AS_OFF_ARCH_FLAGS, 1u << 30);
    load_expect(b, n, AS_ERR_UNKNOWN_FEATURE, "arch_flags bit 30");
    memcpy(b, good, n);
    put_u32(b + 8, 0);
    load_expect(b, n, AS_ERR_VERSION_UNSUPPORTED, "format version 0");
    /* every single-bit flip of the header: the CRC covers the header (format
     * 5), so even a flip that keeps its field in range is refused */
    for (size_t bit = 0; bit < 8u * AS_HEADER_SIZE; bit++) {
        memcpy(b, good, n);
        b[bit >> 3] ^= (uint8_t)(1u << (bit & 7u));
        snprintf(what, sizeof what, "header bit %zu flipped", bit);
        as_model *flipped = NULL;
        const as_status fst = as_model_load(b, n, &flipped);
        EXPECT(fst != AS_OK && fst < AS_STATUS_COUNT && flipped == NULL, "%s: status %d", what, (int)fst);
        as_model_free(flipped);
    }
    static const uint8_t png[64] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52};
    load_expect(png, sizeof png, AS_ERR_BAD_MAGIC, "PNG");
    static const char text[] = "Open the file\nShow the new window\n";
    load_expect((const uint8_t *)text, sizeof text - 1, AS_ERR_BAD_MAGIC, "text file");
    load_expect(good, 0, AS_ERR_TOO_SHORT, "empty");
    as_model *m;
    EXPECT(as_model_load(NULL, 10, &m) == AS_ERR_NULL_ARGUMENT, "NULL bytes");
    EXPECT(as_model_load(good, n, NULL) == AS_ERR_NULL_ARGUMENT, "NULL model_out");
    EXPECT(as_session_create(NULL, NULL) == AS_ERR_NULL_ARGUMENT, "NULL session args");
    as_model_free(NULL);
    as_session_free(NULL);
    free(b);
}

/* ---- out of memory ----------------------------------------------------------- */

#ifdef ENGINE_TEST_FAIL_ALLOC
/* Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (build.sh): the
 * allocation `alloc_countdown` calls from now fails, once. */
void *__real_malloc(size_t n);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t n);
static long alloc_countdown = -1; /* -1: nothing fails */
static int alloc_fails(void) { return alloc_countdown >= 0 && alloc_countdown-- == 0; }
void *__wrap_malloc(size_t n) { return alloc_fails() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t count, size_t size) { return alloc_fails() ? NULL : __real_calloc(count, size); }
void *__wrap_realloc(void *p, size_t n) { return alloc_fails() ? NULL : __real_realloc(p, n); }

/* Fails each allocation of load + session + translate in turn: every one must
 * end in AS_ERR_OUT_OF_MEMORY with everything freed (the leak checkers see
 * the rest), and the next attempt must work. Returns how many were failed. */
static long out_of_memory(const uint8_t *good, size_t n) {
    long k;
    for (k = 0;; k++) {
        alloc_countdown = k;
        as_model *model = NULL;
        as_session *session = NULL;
        const as_trace *tr = NULL;
        as_status st = as_model_load(good, n, &model);
        if (st == AS_OK) st = as_session_create(model, &session);
        if (st == AS_OK) st = as_translate(session, "Open the Zorglub file", 21, NULL, &tr);
        const int failed_one = alloc_countdown < 0;
        alloc_countdown = -1;
        if (failed_one) {
            EXPECT(st == AS_ERR_OUT_OF_MEMORY, "allocation %ld failed: got \"%s\"", k, as_status_message(st));
            if (st == AS_ERR_OUT_OF_MEMORY) EXPECT(tr == NULL, "allocation %ld: a trace after a failure", k);
            if (!model) EXPECT(session == NULL, "allocation %ld", k);
        } else {
            EXPECT(st == AS_OK, "no allocation failed, yet \"%s\"", as_status_message(st));
        }
        as_session_free(session);
        as_model_free(model);
        if (!failed_one) break; /* all k allocations have been failed once */
    }
    return k;
}
#else
static long out_of_memory(const uint8_t *good, size_t n) {
    (void)good;
    (void)n;
    return 0;
}
#endif

/* ---- main ---------------------------------------------------------------- */

/* ---- beam search and pinned attention --------------------------------------- */

static long beams, pins;

/* Copies of a trace's arrays (the session's own are overwritten by the next call). */
typedef struct {
    int32_t S, T;
    int32_t *ids;
    float *alpha; /* (T,S), or NULL for kind none */
} trace_copy;

static int copy_trace(const as_trace *tr, trace_copy *c) {
    c->S = tr->source_len, c->T = tr->target_len;
    c->ids = malloc(sizeof(int32_t) * (size_t)c->T);
    c->alpha = tr->alpha ? malloc(sizeof(float) * (size_t)c->T * (size_t)c->S) : NULL;
    if (!c->ids || (tr->alpha && !c->alpha)) {
        free(c->ids), free(c->alpha);
        return 0;
    }
    memcpy(c->ids, tr->target_ids, sizeof(int32_t) * (size_t)c->T);
    if (c->alpha) memcpy(c->alpha, tr->alpha, sizeof(float) * (size_t)c->T * (size_t)c->S);
    return 1;
}

static void free_copy(trace_copy *c) { free(c->ids), free(c->alpha); }

/* Beam width 1 is greedy bit for bit; width 4 gives 4 valid traces, best
 * score first, each log_prob the sum of its steps'; bad widths and length
 * penalties are refused with their codes. Then the override: a one-hot and
 * a two-way split replace alpha at step 0 exactly (renormalised), for greedy
 * and for every beam hypothesis; wrong length, NaN, negative, all-zero,
 * a negative step, two at one step and a step never reached are refused.
 * (tests/beam.test.mjs and tests/twins.test.mjs check the same through wasm
 * and against PyTorch; this runs them under ASan, UBSan and valgrind.) */
static void beam_and_pin(as_session *session, const as_model *model, const char *text) {
    const size_t len = strlen(text);
    const as_model_info *in = as_model_get_info(model);
    as_options opt;
    as_options_default(&opt);
    const as_trace *tr = NULL;
    as_status st = as_translate(session, text, len, &opt, &tr);
    EXPECT(st == AS_OK, "beam_and_pin: translate: %s", as_status_message(st));
    if (st != AS_OK) return;
    trace_copy greedy;
    if (!copy_trace(tr, &greedy)) return;
    const int32_t S = greedy.S;

    const as_hypothesis *hyps = NULL;
    int32_t count = 0;
    opt.beam_width = 1;
    st = as_translate_beam(session, text, len, &opt, &hyps, &count);
    EXPECT(st == AS_OK && count == 1, "beam 1: %s, %d hypotheses", as_status_message(st), count);
    if (st == AS_OK && count == 1) {
        const as_trace *b = &hyps[0].trace;
        EXPECT(b->target_len == greedy.T && !memcmp(b->target_ids, greedy.ids, sizeof(int32_t) * (size_t)greedy.T),
               "beam 1: tokens differ from greedy");
        EXPECT(!greedy.alpha || (b->alpha && !memcmp(b->alpha, greedy.alpha, sizeof(float) * (size_t)greedy.T * (size_t)S)),
               "beam 1: alpha differs from greedy (bit for bit)");
        beams++;
    }
    opt.beam_width = 4;
    st = as_translate_beam(session, text, len, &opt, &hyps, &count);
    EXPECT(st == AS_OK && count == 4, "beam 4: %s, %d hypotheses", as_status_message(st), count);
    for (int32_t h = 0; st == AS_OK && h < count; h++) {
        fuzz_check_trace(model, &hyps[h].trace, len, &opt, 1 | FUZZ_BEAM_HYPOTHESIS);
        EXPECT(h == 0 || hyps[h].score <= hyps[h - 1].score, "beam 4: hypothesis %d ranks above %d", h, h - 1);
        double sum = 0;
        for (int32_t t = 0; t < hyps[h].trace.target_len; t++) sum += hyps[h].step_log_probs[t];
        EXPECT(sum - hyps[h].log_prob < 1e-3 && hyps[h].log_prob - sum < 1e-3 && hyps[h].log_prob <= 0,
               "beam 4: hypothesis %d log_prob %g, its steps sum to %g", h, hyps[h].log_prob, sum);
        beams++;
    }
    static const int32_t bad_widths[] = {0, -1, 9, 1000};
    for (size_t i = 0; i < sizeof bad_widths / sizeof bad_widths[0]; i++) {
        opt.beam_width = bad_widths[i];
        st = as_translate_beam(session, text, len, &opt, &hyps, &count);
        EXPECT(st == AS_ERR_BAD_BEAM_WIDTH && !hyps && count == 0, "beam width %d: %s", bad_widths[i], as_status_message(st));
        bad_texts++;
    }
    opt.beam_width = 2;
    static const float bad_penalties[] = {-0.5f, 4.5f, 1.0f / 0.0f};
    for (size_t i = 0; i < 4; i++) {
        opt.length_penalty = i < 3 ? bad_penalties[i] : 0.0f / 0.0f;
        st = as_translate_beam(session, text, len, &opt, &hyps, &count);
        EXPECT(st == AS_ERR_BAD_OPTION && !hyps, "length penalty %g: %s", opt.length_penalty, as_status_message(st));
        bad_texts++;
    }
    EXPECT(as_translate_beam(session, text, len, &opt, NULL, &count) == AS_ERR_NULL_ARGUMENT, "beam NULL out");
    as_options_default(&opt);

    float *w = calloc((size_t)S + 1, sizeof(float));
    if (!w) {
        free_copy(&greedy);
        return;
    }
    as_attention_override o = {0, S, w};
    opt.overrides = &o;
    opt.override_count = 1;
    if (in->attention_kind == AS_ATTENTION_NONE) {
        w[0] = 1;
        EXPECT(as_translate(session, text, len, &opt, &tr) == AS_ERR_BAD_ATTENTION_OVERRIDE,
               "kind none: an override must be refused");
        bad_texts++;
        free(w);
        free_copy(&greedy);
        return;
    }
    /* all weight on the last source token; then half on the first two */
    for (int split = 0; split < 2; split++) {
        memset(w, 0, sizeof(float) * (size_t)S);
        if (split) w[0] = 3, w[S > 1 ? 1 : 0] += 3;
        else w[S - 1] = 1;
        for (int32_t width = 0; width <= 3; width += 3) { /* 0: as_translate; 3: a beam */
            int32_t n = 1;
            const as_trace *rows[4];
            if (width == 0) {
                st = as_translate(session, text, len, &opt, &tr);
                rows[0] = tr;
            } else {
                opt.beam_width = width;
                st = as_translate_beam(session, text, len, &opt, &hyps, &n);
                for (int32_t h = 0; st == AS_OK && h < n; h++) rows[h] = &hyps[h].trace;
            }
            EXPECT(st == AS_OK, "pin (split %d, width %d): %s", split, width, as_status_message(st));
            for (int32_t h = 0; st == AS_OK && h < n; h++) {
                fuzz_check_trace(model, rows[h], len, &opt, width ? 1 | FUZZ_BEAM_HYPOTHESIS : 1);
                for (int32_t j = 0; j < S; j++) {
                    const float want = split ? (S == 1 ? 1.0f : (j < 2 ? 0.5f : 0.0f)) : (j == S - 1 ? 1.0f : 0.0f);
                    EXPECT(rows[h]->alpha[j] == want, "pin (split %d, width %d, hyp %d): alpha[0][%d] = %g, not %g",
                           split, width, h, j, rows[h]->alpha[j], want);
                }
                pins++;
            }
        }
        opt.beam_width = 1;
    }
    /* bad weights: refused, with the code the API names */
    struct { const char *what; int32_t length, step; float w0, w1; as_status want; } bad[] = {
        {"one weight short", S - 1, 0, 1, 0, AS_ERR_BAD_ATTENTION_OVERRIDE},
        {"one weight long", S + 1, 0, 1, 0, AS_ERR_BAD_ATTENTION_OVERRIDE},
        {"NaN", S, 0, 0.0f / 0.0f, 1, AS_ERR_BAD_ATTENTION_OVERRIDE},
        {"infinity", S, 0, 1.0f / 0.0f, 1, AS_ERR_BAD_ATTENTION_OVERRIDE},
        {"negative", S, 0, -1, 2, AS_ERR_BAD_ATTENTION_OVERRIDE},
        {"all zero", S, 0, 0, 0, AS_ERR_BAD_ATTENTION_OVERRIDE},
        {"negative step", S, -1, 1, 0, AS_ERR_BAD_ATTENTION_OVERRIDE},
        {"a step past the end", S, greedy.T + 500, 1, 0, AS_ERR_OVERRIDE_STEP},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(w, 0, sizeof(float) * ((size_t)S + 1));
        w[0] = bad[i].w0;
        if (S > 1) w[1] = bad[i].w1;
        o.length = bad[i].length, o.step = bad[i].step;
        if (bad[i].length == S - 1 && S == 1) continue; /* no shorter length than 0 to mean "short" */
        for (int beam = 0; beam < 2; beam++) {
            opt.beam_width = 2;
            st = beam ? as_translate_beam(session, text, len, &opt, &hyps, &count) : as_translate(session, text, len, &opt, &tr);
            EXPECT(st == bad[i].want, "override %s (%s): %s", bad[i].what, beam ? "beam" : "greedy", as_status_message(st));
            bad_texts++;
        }
    }
    /* two overrides at one step */
    as_attention_override two[2] = {{0, S, w}, {0, S, w}};
    w[0] = 1;
    opt.overrides = two, opt.override_count = 2;
    EXPECT(as_translate(session, text, len, &opt, &tr) == AS_ERR_BAD_ATTENTION_OVERRIDE, "two overrides at one step");
    opt.overrides = NULL, opt.override_count = 1;
    EXPECT(as_translate(session, text, len, &opt, &tr) == AS_ERR_BAD_ATTENTION_OVERRIDE, "override_count 1, no array");
    bad_texts += 2;
    /* and the session still translates as before */
    as_options_default(&opt);
    st = as_translate(session, text, len, &opt, &tr);
    EXPECT(st == AS_OK && tr->target_len == greedy.T && !memcmp(tr->target_ids, greedy.ids, sizeof(int32_t) * (size_t)greedy.T),
           "after the refusals the same translation");
    free(w);
    free_copy(&greedy);
}

/* ---- forced decoding (as_force_score) ------------------------------------ */

static long forced_scorings;

/* One refused call: the code, the position, and nothing written (log_probs
 * and alpha keep their NaN fill). */
static void force_refused(as_session *session, const int32_t *src, int32_t ns, const int32_t *tgt, int32_t nt,
                          const uint8_t *keep, float scale, as_status want, int32_t want_position, const char *what) {
    float lp[4], alpha[4];
    for (int i = 0; i < 4; i++) lp[i] = alpha[i] = 0.0f / 0.0f;
    int32_t position = -7;
    /* the outputs are only 4 long: a refusal must come before anything is written */
    const as_status st = as_force_score(session, src, ns, tgt, nt, keep, scale, lp, alpha, &position);
    int untouched = 1;
    for (int i = 0; i < 4; i++) untouched &= lp[i] != lp[i] && alpha[i] != alpha[i];
    EXPECT(st == want && position == want_position && untouched, "force_score %s: \"%s\" at %d (want \"%s\" at %d)%s",
           what, as_status_message(st), position, as_status_message(want), want_position, untouched ? "" : ", output written");
    bad_texts++;
}

/* The greedy output scored unmasked is the greedy trace (alpha) and the
 * width-1 beam (step log-probabilities), bit for bit; a mask of all ones is
 * no mask; a window of half width 0 makes alpha one-hot; a mask that drops
 * the first position at scale 1e6 stays finite; every refusal of
 * src/alignscope.h comes with its code and position and writes nothing; a
 * model without attention ignores the mask. (tests/forced.test.mjs checks
 * the same through wasm and against PyTorch; this runs under ASan, UBSan and
 * valgrind.) */
static void forced(as_session *session, const as_model *model, const char *text) {
    const size_t len = strlen(text);
    const as_model_info *in = as_model_get_info(model);
    const int attends = in->attention_kind != AS_ATTENTION_NONE;
    const as_trace *tr = NULL;
    if (as_translate(session, text, len, NULL, &tr) != AS_OK) return;
    trace_copy greedy;
    if (!copy_trace(tr, &greedy)) return;
    const int32_t S = greedy.S, T = greedy.T, ns = S - tr->source_eos;
    EXPECT(as_model_source_positions(model, ns) == S, "source positions %d for %d tokens", S, ns);
    EXPECT(as_model_source_positions(model, 0) == 0 && as_model_source_positions(NULL, 3) == 0, "source positions of nothing");
    int32_t *src = malloc(sizeof(int32_t) * ((size_t)in->max_source_tokens + 1));
    float *lp = malloc(sizeof(float) * (size_t)T), *lp2 = malloc(sizeof(float) * (size_t)T);
    float *alpha = malloc(sizeof(float) * (size_t)T * (size_t)S), *step_lp = malloc(sizeof(float) * (size_t)T);
    uint8_t *keep = malloc((size_t)T * (size_t)S);
    int32_t *long_target = calloc((size_t)in->max_target_tokens + 1, sizeof(int32_t));
    if (!src || !lp || !lp2 || !alpha || !step_lp || !keep || !long_target) goto done;
    int32_t count = 0;
    EXPECT(as_tokenize(model, text, len, src, NULL, ns, &count) == AS_OK && count == ns, "tokenize for forced");

    const as_hypothesis *hyps = NULL;
    int32_t n_hyps = 0;
    as_options opt;
    as_options_default(&opt);
    if (as_translate_beam(session, text, len, &opt, &hyps, &n_hyps) != AS_OK || n_hyps != 1) goto done;
    memcpy(step_lp, hyps[0].step_log_probs, sizeof(float) * (size_t)T);

    int32_t position = -7;
    as_status st = as_force_score(session, src, ns, greedy.ids, T, NULL, 0.0f, lp, alpha, &position);
    EXPECT(st == AS_OK && position == -1, "force_score greedy: %s", as_status_message(st));
    EXPECT(!memcmp(lp, step_lp, sizeof(float) * (size_t)T), "force_score: log p differs from the beam's (bit for bit)");
    EXPECT(!attends || !memcmp(alpha, greedy.alpha, sizeof(float) * (size_t)T * (size_t)S),
           "force_score: alpha differs from the greedy trace's (bit for bit)");
    memset(keep, 1, (size_t)T * (size_t)S);
    st = as_force_score(session, src, ns, greedy.ids, T, keep, 0.0f, lp2, NULL, NULL);
    EXPECT(st == AS_OK && !memcmp(lp, lp2, sizeof(float) * (size_t)T), "force_score: an all-ones mask is no mask");
    EXPECT(as_window_mask(T, S, 0, keep) == AS_OK, "window mask");
    st = as_force_score(session, src, ns, greedy.ids, T, keep, 0.0f, lp2, alpha, NULL);
    EXPECT(st == AS_OK, "force_score window 0: %s", as_status_message(st));
    for (size_t i = 0; attends && st == AS_OK && i < (size_t)T * (size_t)S; i++)
        EXPECT(alpha[i] == (keep[i] ? 1.0f : 0.0f), "window 0: alpha[%zu] = %g", i, alpha[i]);
    for (int32_t t = 0; t < T; t++)
        for (int32_t j = 0; j < S; j++) keep[(size_t)t * S + j] = j > 0 || S == 1;
    st = as_force_score(session, src, ns, greedy.ids, T, keep, AS_MAX_SCORE_SCALE, lp2, alpha, NULL);
    EXPECT(st == AS_OK, "force_score at scale 1e6: %s", as_status_message(st));
    for (int32_t t = 0; st == AS_OK && t < T; t++) {
        EXPECT(isfinite(lp2[t]) && lp2[t] <= 0.0f, "scale 1e6: log p[%d] = %g", t, lp2[t]);
        float sum = 0.0f;
        for (int32_t j = 0; attends && j < S; j++) sum += alpha[(size_t)t * S + j];
        EXPECT(!attends || (fabsf(sum - 1.0f) < 1e-5f && (S == 1 || alpha[(size_t)t * S] == 0.0f)), "scale 1e6: row %d", t);
    }
    forced_scorings += 5;

    /* refusals, in the order the header lists them */
    const int32_t *tgt = greedy.ids;
    EXPECT(as_force_score(NULL, src, ns, tgt, T, NULL, 0.0f, lp, NULL, NULL) == AS_ERR_NULL_ARGUMENT, "NULL session");
    EXPECT(as_force_score(session, src, ns, tgt, T, NULL, 0.0f, NULL, NULL, NULL) == AS_ERR_NULL_ARGUMENT, "NULL log_probs");
    force_refused(session, NULL, ns, tgt, 1, NULL, 0.0f, AS_ERR_NULL_ARGUMENT, -1, "NULL source ids");
    force_refused(session, src, ns, NULL, 1, NULL, 0.0f, AS_ERR_NULL_ARGUMENT, -1, "NULL target ids");
    force_refused(session, src, ns, tgt, 1, NULL, 0.0f / 0.0f, AS_ERR_BAD_OPTION, -1, "scale NaN");
    force_refused(session, src, ns, tgt, 1, NULL, 2e6f, AS_ERR_BAD_OPTION, -1, "scale 2e6");
    force_refused(session, src, 0, tgt, 1, NULL, 0.0f, AS_ERR_EMPTY_INPUT, -1, "no source");
    for (uint32_t j = 0; j <= in->max_source_tokens; j++) src[j] = src[0];
    force_refused(session, src, (int32_t)in->max_source_tokens + 1, tgt, 1, NULL, 0.0f, AS_ERR_INPUT_TOO_LONG, -1,
                  "max_source_tokens + 1");
    EXPECT(as_session_source_count(session) == (int32_t)in->max_source_tokens + 1, "source count when too long");
    const int32_t bad_src[3] = {src[0], (int32_t)in->src_vocab_size, -1};
    force_refused(session, bad_src, 3, tgt, 1, NULL, 0.0f, AS_ERR_BAD_SOURCE_TOKEN, 1, "source id = vocabulary size");
    const int32_t bad_tgt[3] = {tgt[0], tgt[0], -1};
    force_refused(session, src, 1, bad_tgt, 3, NULL, 0.0f, AS_ERR_BAD_TARGET, 2, "target id -1");
    const int32_t big_tgt[1] = {(int32_t)in->tgt_vocab_size};
    force_refused(session, src, 1, big_tgt, 1, NULL, 0.0f, AS_ERR_BAD_TARGET, 0, "target id = vocabulary size");
    force_refused(session, src, 1, tgt, 0, NULL, 0.0f, AS_ERR_BAD_TARGET, -1, "no target");
    force_refused(session, src, 1, long_target, (int32_t)in->max_target_tokens + 1, NULL, 0.0f, AS_ERR_BAD_TARGET, -1,
                  "max_target_tokens + 1");
    const int32_t s1 = as_model_source_positions(model, 1); /* one source token: rows of s1 */
    uint8_t mask[3 * 2] = {1, 1, 1, 1, 1, 1};
    const int32_t three[3] = {tgt[0], tgt[0], tgt[0]};
    memset(mask + 1 * s1, 0, (size_t)s1); /* row 1 keeps nothing */
    if (attends) {
        force_refused(session, src, 1, three, 3, mask, 0.0f, AS_ERR_BAD_ATTENTION_MASK, 1, "an empty mask row");
        memset(mask, 1, sizeof mask);
        mask[2 * s1] = 2;
        force_refused(session, src, 1, three, 3, mask, 0.0f, AS_ERR_BAD_ATTENTION_MASK, 2, "a mask value of 2");
    } else { /* ignored, not even read: scored as without it, and no alpha written */
        float a[6] = {-1, -1, -1, -1, -1, -1}, l1[3], l2[3];
        st = as_force_score(session, src, 1, three, 3, mask, 0.0f, l1, a, NULL);
        EXPECT(st == AS_OK && as_force_score(session, src, 1, three, 3, NULL, 0.0f, l2, NULL, NULL) == AS_OK &&
               !memcmp(l1, l2, sizeof l1) && a[0] == -1 && a[5] == -1, "kind none: the mask is ignored");
        forced_scorings += 2;
    }
    /* window mask arguments */
    EXPECT(as_window_mask(1, 1, 0, NULL) == AS_ERR_NULL_ARGUMENT, "window NULL");
    EXPECT(as_window_mask(0, 1, 0, keep) == AS_ERR_BAD_OPTION && as_window_mask(1, 0, 0, keep) == AS_ERR_BAD_OPTION &&
           as_window_mask(1, 1, -1, keep) == AS_ERR_BAD_OPTION && as_window_mask(AS_WINDOW_MAX_LENGTH + 1, 1, 0, keep) == AS_ERR_BAD_OPTION,
           "window arguments out of range");
    /* and the session still translates as before */
    st = as_translate(session, text, len, NULL, &tr);
    EXPECT(st == AS_OK && tr->target_len == T && !memcmp(tr->target_ids, greedy.ids, sizeof(int32_t) * (size_t)T),
           "after forced decoding the same translation");
done:
    free(src), free(lp), free(lp2), free(alpha), free(step_lp), free(keep), free(long_target);
    free_copy(&greedy);
}

int main(int argc, char **argv) {
    const char *sentences_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sentences") == 0 && i + 1 < argc) {
            sentences_path = argv[++i];
        }
    }
    size_t sentences_len = 0;
    char *sentences = sentences_path ? (char *)read_file(sentences_path, &sentences_len) : NULL;
    if (sentences_path && !sentences) {
        fprintf(stderr, "engine_test: cannot read %s\n", sentences_path);
        return 2;
    }
    int models = 0, int8_seen = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sentences") == 0) {
            i++;
            continue;
        }
        size_t len;
        uint8_t *bytes = read_file(argv[i], &len);
        if (!bytes) {
            fprintf(stderr, "engine_test: cannot read %s\n", argv[i]);
            return 2;
        }
        as_model *model;
        as_session *session;
        as_status st = as_model_load(bytes, len, &model);
        EXPECT(st == AS_OK, "%s: %s", argv[i], as_status_message(st));
        if (st != AS_OK) {
            free(bytes);
            continue;
        }
        st = as_session_create(model, &session);
        EXPECT(st == AS_OK, "%s: session: %s", argv[i], as_status_message(st));
        if (st == AS_OK) {
            const long before = translations;
            static const float scales[] = {0.0f, 0.25f, 4.0f};
            for (size_t k = 0; k < 3; k++) {
                for (size_t s = 0; s < sizeof builtin_sentences / sizeof builtin_sentences[0]; s++)
                    translate_ok(session, model, builtin_sentences[s], strlen(builtin_sentences[s]), scales[k],
                                 (int32_t)(s % 17));
                for (size_t at = 0; sentences && at < sentences_len;) { /* one per line */
                    size_t end = at;
                    while (end < sentences_len && sentences[end] != '\n') end++;
                    if (end > at) translate_ok(session, model, sentences + at, end - at, scales[k], 5);
                    at = end + 1;
                }
            }
            bad_text(session, model);
            beam_and_pin(session, model, builtin_sentences[0]);
            forced(session, model, builtin_sentences[1]);
            printf("%s: %s attention, %ld translations ok, bad text refused or translated\n", argv[i],
                   (const char *[]){"none", "additive", "dot", "general", "scaled_dot"}[as_model_get_info(model)->attention_kind],
                   translations - before);
            as_session_free(session);
        }
        /* the first model, and the first int8 one (its own load path) */
        const int int8 = as_model_get_info(model)->weight_type == AS_WEIGHT_I8;
        if (models == 0 || (int8 && !int8_seen)) {
            if (models == 0) bad_files_from(bytes, len);
            if (int8) int8_seen = 1;
            const long failed = out_of_memory(bytes, len);
            printf("%s: %ld allocations failed in turn (load, session, translate), each refused cleanly\n", argv[i], failed);
        }
        as_model_free(model);
        free(bytes);
        models++;
    }
    free(sentences);
    printf("engine_test: %d models, %ld translations, %ld beam hypotheses, %ld pinned traces, %ld forced scorings, "
           "%ld bad files, %ld bad texts, %d failures\n", models, translations, beams, pins, forced_scorings, bad_files,
           bad_texts, failures);
    printf(failures || models == 0 ? "RESULT FAIL\n" : "RESULT PASS\n");
    return failures || models == 0 ? 1 : 0;
}
