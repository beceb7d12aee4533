/* fuzz_common.h - what both libFuzzer harnesses share: a failed check is a
 * crash (abort with a message), and the invariants every trace must keep.
 * Built only by `./build.sh fuzz` (clang, -fsanitize=fuzzer,address,undefined).
 */
#ifndef ALIGNSCOPE_FUZZ_COMMON_H
#define ALIGNSCOPE_FUZZ_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/alignscope.h"
#include "../../src/alignscope_format.h" /* AS_ARCH_SOURCE_EOS, AS_OFF_CRC32 */

/* The file CRC of models/FORMAT.md section 1: zlib's CRC-32 of the whole
 * file with the 4 bytes of the crc32 field read as zero. Written from the
 * rule, apart from src/model.c's. Needs n >= AS_HEADER_SIZE. */
static inline uint32_t fuzz_file_crc32(const uint8_t *p, size_t n) {
    static uint32_t table[256];
    if (!table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        const uint8_t byte = i >= AS_OFF_CRC32 && i < AS_OFF_CRC32 + 4 ? 0 : p[i];
        crc = table[(crc ^ byte) & 0xFFu] ^ (crc >> 8);
    }
    return crc ^ 0xFFFFFFFFu;
}

/* Writes fuzz_file_crc32 into the crc32 field; 1 if that changed it. */
static inline int fuzz_fix_crc(uint8_t *p, size_t n) {
    const uint32_t crc = fuzz_file_crc32(p, n);
    const uint8_t le[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24)};
    if (memcmp(p + AS_OFF_CRC32, le, 4) == 0) return 0;
    memcpy(p + AS_OFF_CRC32, le, 4);
    return 1;
}

/* A broken invariant is a finding like any sanitizer report. */
#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* Every rule of a successful trace (src/alignscope.h) for a text of `length`
 * bytes; all arrays are read in full so ASan sees any short allocation.
 * `strict` (a trained model): probabilities and alpha must also be finite;
 * a fuzzed model's finite-but-huge weights may legitimately overflow.
 * `strict | FUZZ_BEAM_HYPOTHESIS`: a beam search's hypothesis, whose token at
 * a step need not be that step's best candidate (the beam keeps others). */
#define FUZZ_BEAM_HYPOTHESIS 2
static inline void fuzz_check_trace(const as_model *model, const as_trace *tr, size_t length,
                                    const as_options *opt, int strict) {
    const as_model_info *in = as_model_get_info(model);
    const int32_t S = tr->source_len, T = tr->target_len, K = tr->top_k;
    const int beam = (strict & FUZZ_BEAM_HYPOTHESIS) != 0;
    strict &= 1;
    /* a model with AS_ARCH_SOURCE_EOS reads </s> after the words: S = words + 1 */
    FUZZ_CHECK(tr->source_eos == ((in->arch_flags & AS_ARCH_SOURCE_EOS) != 0));
    const int32_t words = S - tr->source_eos;
    FUZZ_CHECK(words >= 1 && (uint32_t)words <= in->max_source_tokens);
    int32_t cap = 2 * S + 10;
    if ((uint32_t)cap > in->max_target_tokens) cap = (int32_t)in->max_target_tokens;
    if (opt->max_target_tokens > 0 && opt->max_target_tokens < cap) cap = opt->max_target_tokens;
    FUZZ_CHECK(T >= 1 && T <= cap);
    FUZZ_CHECK(K == opt->top_k);
    FUZZ_CHECK(tr->context_dim == (int32_t)in->context_dim);
    FUZZ_CHECK(in->context_dim == ((in->arch_flags & AS_ARCH_UNIDIRECTIONAL) ? 1u : 2u) * in->encoder_hidden);
    FUZZ_CHECK(tr->state_dim == (int32_t)in->decoder_hidden);
    int32_t prev_start = 0, prev_end = 0;
    for (int32_t j = 0; j < S; j++) {
        FUZZ_CHECK(tr->source_ids[j] >= 0 && (uint32_t)tr->source_ids[j] < in->src_vocab_size);
        const int32_t a = tr->source_spans[2 * j], b = tr->source_spans[2 * j + 1];
        if (j == words) { /* the appended </s>: the empty span at the end */
            FUZZ_CHECK(tr->source_ids[j] == 3 && a == b && (size_t)a == length);
            FUZZ_CHECK(strcmp(tr->source_tokens + (size_t)j * AS_TOKEN_TEXT_STRIDE, "</s>") == 0);
            continue;
        }
        /* in order and disjoint, except "..." from one U+2026: three tokens, one span */
        FUZZ_CHECK((a >= prev_end || (a == prev_start && b == prev_end)) && a < b && (size_t)b <= length);
        prev_start = a;
        prev_end = b;
        const char *tok = tr->source_tokens + (size_t)j * AS_TOKEN_TEXT_STRIDE;
        FUZZ_CHECK(memchr(tok, '\0', AS_TOKEN_TEXT_STRIDE) != NULL);
    }
    const size_t out_len = strlen(tr->translation);
    for (int32_t t = 0; t < T; t++) {
        FUZZ_CHECK(tr->target_ids[t] >= 0 && (uint32_t)tr->target_ids[t] < in->tgt_vocab_size);
        FUZZ_CHECK(tr->target_copy_source[t] >= -1 && tr->target_copy_source[t] < words);
        const int32_t a = tr->translation_spans[2 * t], b = tr->translation_spans[2 * t + 1];
        FUZZ_CHECK(a >= 0 && a <= b && (size_t)b <= out_len);
        for (int32_t k = 0; k < K; k++) {
            const int32_t id = tr->top_ids[(size_t)t * K + k];
            const float p = tr->top_probs[(size_t)t * K + k];
            FUZZ_CHECK(id >= 0 && (uint32_t)id < in->tgt_vocab_size);
            FUZZ_CHECK(!(p < 0.0f) && !(p > 1.0001f));
            if (strict) FUZZ_CHECK(isfinite(p));
        }
        if (K > 0 && !beam) FUZZ_CHECK(tr->top_ids[(size_t)t * K] == tr->target_ids[t]);
        float sum = 0.0f;
        int finite = 1;
        for (int32_t j = 0; j < S; j++) {
            if (tr->alpha) {
                const float a2 = tr->alpha[(size_t)t * S + j];
                FUZZ_CHECK(!(a2 < 0.0f) && !(a2 > 1.0001f));
                if (strict) FUZZ_CHECK(isfinite(a2));
                finite &= isfinite(a2);
                sum += a2;
            }
        }
        /* alpha is a distribution. (A fuzzed model's weights near FLT_MAX can
         * make scale * score overflow, and softmax then gives NaN: allowed
         * only when not strict.) */
        if (tr->alpha && finite) FUZZ_CHECK(fabsf(sum - 1.0f) < 1e-3f);
        volatile float touch = 0.0f;
        for (int32_t j = 0; j < S; j++) touch += tr->scores[(size_t)t * S + j];
        for (int32_t i = 0; i < tr->context_dim; i++) touch += tr->context[(size_t)t * tr->context_dim + i];
        for (int32_t i = 0; i < tr->state_dim; i++) touch += tr->state[(size_t)t * tr->state_dim + i];
        (void)touch;
    }
    FUZZ_CHECK(tr->stopped_at_eos == (tr->target_ids[T - 1] == 3));
}

#endif
