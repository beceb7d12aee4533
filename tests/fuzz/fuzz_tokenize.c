/* fuzz_tokenize.c - libFuzzer harness for the tokeniser (src/tokenizer.c) and
 * the whole translation path (src/engine.c) on arbitrary text.
 *
 * Models are loaded once (fuzz_models.h: the seed models, each with its own
 * vocabularies and merges on a network 2 wide), so every tokeniser is fuzzed
 * as the test models have it while a translation costs little. Input layout:
 *   byte 0: which model (low 3 bits) and max_target_tokens (high bits)
 *   byte 1: score scale (low 4 bits, a table with extreme values) and top_k
 *   rest:   the text, UTF-8 or not, NULs allowed
 * Checks: as_tokenize agrees with itself at every capacity, spans are in
 * order and inside the text, as_translate refuses exactly the empty and the
 * too-long inputs, every trace keeps its rules, and a second call on the same
 * text reuses the encoder and gives the same tokens out.
 *
 *   build/fuzz/fuzz_tokenize [libFuzzer flags] [CORPUS_DIR | FILE ...]
 */
#include <stdint.h>

#include "fuzz_models.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_load_models("fuzz_tokenize");
    return 0;
}

/* Scales: trained, ordinary, and the extremes a caller may pass. */
static const float scales[16] = {0.0f, 1.0f, 0.25f, 4.0f, 16.0f, 64.0f, 1e3f, 1e6f,
                                  AS_MAX_SCORE_SCALE, 3.4e38f, -1.0f, 1e-30f, 1e-45f, 0.5f, 2.0f, 100.0f};

static void check_tokenize(const as_model *model, const char *text, size_t len, int32_t *count_out) {
    int32_t count = -1;
    FUZZ_CHECK(as_tokenize(model, text, len, NULL, NULL, 0, &count) == AS_OK);
    /* At most one token per byte. A subword model (FORMAT.md 5.2) spells a
     * character outside its vocabulary by its UTF-8 bytes, and an invalid byte
     * reads as U+FFFD, 3 bytes: 3 per byte, + 1 for a bare word mark at the
     * start (any other stands for the space before its word). */
    const int subwords = (as_model_get_info(model)->arch_flags & AS_ARCH_SUBWORDS) != 0;
    FUZZ_CHECK(count >= 0 && (size_t)count <= (subwords ? 3 * len + 1 : len));
    const size_t n = count ? (size_t)count : 1;
    int32_t *ids = malloc(n * sizeof *ids), *spans = malloc(2 * n * sizeof *spans);
    FUZZ_CHECK(ids && spans);
    int32_t again = -1;
    FUZZ_CHECK(as_tokenize(model, text, len, ids, spans, count, &again) == AS_OK && again == count);
    const uint32_t vs = as_model_get_info(model)->src_vocab_size;
    int32_t prev_start = 0, prev_end = 0;
    for (int32_t i = 0; i < count; i++) {
        FUZZ_CHECK(ids[i] >= 0 && (uint32_t)ids[i] < vs);
        const int32_t a = spans[2 * i], b = spans[2 * i + 1];
        FUZZ_CHECK((a >= prev_end || (a == prev_start && b == prev_end)) && a < b && (size_t)b <= len);
        prev_start = a;
        prev_end = b;
    }
    if (count > 1) { /* a smaller capacity fills a prefix and still counts all */
        const int32_t cap = count / 2;
        int32_t *ids2 = malloc((size_t)cap * sizeof *ids2), *spans2 = malloc(2 * (size_t)cap * sizeof *spans2);
        FUZZ_CHECK(ids2 && spans2);
        FUZZ_CHECK(as_tokenize(model, text, len, ids2, spans2, cap, &again) == AS_OK && again == count);
        FUZZ_CHECK(memcmp(ids2, ids, (size_t)cap * sizeof *ids) == 0);
        FUZZ_CHECK(memcmp(spans2, spans, 2 * (size_t)cap * sizeof *spans) == 0);
        free(ids2);
        free(spans2);
    }
    FUZZ_CHECK(as_tokenize(model, text, len, ids, spans, -1, &again) == AS_ERR_BAD_OPTION);
    free(ids);
    free(spans);
    *count_out = count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t c0 = size > 0 ? data[0] : 0, c1 = size > 1 ? data[1] : 0;
    const size_t skip = size >= 2 ? 2 : size;
    const size_t len = size - skip;
    /* the text in its own allocation of exactly len bytes (no terminator) */
    char *text = malloc(len ? len : 1);
    if (!text) return 0;
    if (len) memcpy(text, data + skip, len);

    const int which = (c0 & 7) % fuzz_model_count;
    const as_model *model = fuzz_models[which];
    as_session *session = fuzz_sessions[which];
    const as_model_info *in = as_model_get_info(model);
    int32_t count;
    check_tokenize(model, text, len, &count);

    as_options opt;
    as_options_default(&opt);
    opt.score_scale = scales[c1 & 15];
    opt.top_k = (c1 >> 4) > 16 ? 16 : (c1 >> 4);
    opt.max_target_tokens = c0 >> 3; /* 0 = the model's rule */
    const as_trace *tr;
    as_status st = as_translate(session, text, len, &opt, &tr);
    if (opt.score_scale > AS_MAX_SCORE_SCALE) {
        FUZZ_CHECK(st == AS_ERR_BAD_OPTION && tr == NULL && as_session_source_count(session) == 0);
        opt.score_scale = AS_MAX_SCORE_SCALE;
        st = as_translate(session, text, len, &opt, &tr);
    }
    FUZZ_CHECK(as_session_source_count(session) == count);
    if (count == 0) {
        FUZZ_CHECK(st == AS_ERR_EMPTY_INPUT && tr == NULL);
    } else if ((uint32_t)count > in->max_source_tokens) {
        FUZZ_CHECK(st == AS_ERR_INPUT_TOO_LONG && tr == NULL);
    } else {
        FUZZ_CHECK(st == AS_OK && tr != NULL);
        FUZZ_CHECK(tr->source_len == count + tr->source_eos);
        fuzz_check_trace(model, tr, len, &opt, 1);
        const int32_t T = tr->target_len;
        int32_t *first = malloc((size_t)T * sizeof *first);
        FUZZ_CHECK(first != NULL);
        memcpy(first, tr->target_ids, (size_t)T * sizeof *first);
        st = as_translate(session, text, len, &opt, &tr);
        FUZZ_CHECK(st == AS_OK && tr->encoder_reused == 1 && tr->target_len == T);
        FUZZ_CHECK(memcmp(first, tr->target_ids, (size_t)T * sizeof *first) == 0);
        free(first);
    }
    free(text);
    return 0;
}
