/* fuzz_model_load.c - libFuzzer harness for the loader (src/model.c).
 *
 * Each input is loaded twice: as given, and with the CRC-32 recomputed (over
 * the whole file, FORMAT.md section 1). The CRC rejects almost every
 * mutation, so without the second load the fuzzer would never get past it to
 * the header's cross-field rules, the vocabulary and the weight parsers. A file that loads gets a session and
 * translates a few fixed sentences (encoder reuse, option edge cases), and
 * every trace is checked against the rules in src/alignscope.h.
 *
 *   build/fuzz/fuzz_model_load [libFuzzer flags] [CORPUS_DIR | FILE ...]
 */
#include <stdint.h>

#include "fuzz_common.h"

static const char *const sentences[] = {
    "Open the file",
    "Print the Zorglub page, then SAVE it\xe2\x80\xa6 \xf0\x9f\x98\x80",
    "a",
};

static void exercise(const as_model *model) {
    const as_model_info *in = as_model_get_info(model);
    FUZZ_CHECK(in != NULL);
    FUZZ_CHECK(in->src_vocab_size >= 5 && in->tgt_vocab_size >= 5);
    for (int32_t id = -1; id <= 4; id++) {
        size_t n = 99;
        const char *tok = as_model_target_token(model, id, &n);
        FUZZ_CHECK(id < 0 ? tok == NULL && n == 0 : tok != NULL && strlen(tok) == n);
    }
    size_t n;
    FUZZ_CHECK(as_model_source_token(model, (int32_t)in->src_vocab_size - 1, &n) != NULL);
    FUZZ_CHECK(as_model_source_token(model, (int32_t)in->src_vocab_size, &n) == NULL);

    as_session *session;
    as_status st = as_session_create(model, &session);
    if (st == AS_ERR_OUT_OF_MEMORY) return;
    FUZZ_CHECK(st == AS_OK);
    for (size_t i = 0; i < sizeof sentences / sizeof sentences[0]; i++) {
        const char *text = sentences[i];
        const size_t len = strlen(text);
        as_options opt;
        as_options_default(&opt);
        opt.top_k = (int32_t)(i * 7 % 17);
        for (int round = 0; round < 2; round++) { /* the second reuses the encoder */
            opt.score_scale = round ? 4.0f : 0.0f;
            const as_trace *tr;
            st = as_translate(session, text, len, &opt, &tr);
            if (st == AS_ERR_INPUT_TOO_LONG) {
                FUZZ_CHECK(tr == NULL);
                break; /* max_source_tokens is small in this file */
            }
            FUZZ_CHECK(st == AS_OK && tr != NULL);
            FUZZ_CHECK(tr->encoder_reused == round);
            fuzz_check_trace(model, tr, len, &opt, 0);
        }
    }
    as_session_free(session);
}

static void load_and_run(const uint8_t *data, size_t size) {
    as_model *model = (as_model *)(uintptr_t)1; /* must be reset to NULL on failure */
    as_status st = as_model_load(data, size, &model);
    FUZZ_CHECK(st >= AS_OK && st < AS_STATUS_COUNT);
    FUZZ_CHECK(as_status_message(st) != NULL);
    if (st != AS_OK) {
        FUZZ_CHECK(model == NULL);
        return;
    }
    FUZZ_CHECK(model != NULL);
    exercise(model);
    as_model_free(model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A copy of exactly `size` bytes, so ASan sees any read past the end. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    load_and_run(copy, size);
    if (size >= AS_HEADER_SIZE && fuzz_fix_crc(copy, size)) load_and_run(copy, size);
    free(copy);
    return 0;
}
