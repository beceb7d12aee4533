/* wasm_api.c - the flat functions web/engine.js calls.
 *
 * One wasm instance holds at most one model and its session (engine.js makes
 * one instance per engine), so the state lives in two statics here. Every
 * function returns plain numbers: statuses, pointers into linear memory and
 * lengths; engine.js copies what it needs out before the next call.
 */
#if defined(__wasi__)
#include <stddef.h>
size_t as_wasi_heap_bytes(void); /* wasm_heap_wasi.c: wasi-libc has no mallinfo */
#else
#include <malloc.h> /* mallinfo(): emscripten's default allocator is dlmalloc */
#endif
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alignscope.h"
#include "kernels.h"
#include "model_internal.h" /* as_tokenize_internal: token texts too */

#define ASW_EXPORT __attribute__((used, visibility("default")))

static as_model *current_model;
static void asw_tokenize_reset(void);
static as_session *current_session;
static const as_trace *current_trace;
static const as_hypothesis *current_hypotheses; /* the last beam search's, best first */
static int32_t current_hypothesis_count;

ASW_EXPORT void *asw_malloc(size_t n) { return malloc(n ? n : 1); }
ASW_EXPORT void asw_free(void *p) { free(p); }

/* Heap bytes in use (allocated, not yet freed). The soak test checks that it
 * returns to the same value after thousands of calls: a leak smaller than
 * the 16 MB initial memory would never show in memory.buffer.byteLength. */
ASW_EXPORT int32_t asw_heap_bytes(void) {
#if defined(__wasi__)
    return (int32_t)as_wasi_heap_bytes();
#else
    return (int32_t)mallinfo().uordblks;
#endif
}

ASW_EXPORT const char *asw_status_message(int status) { return as_status_message((as_status)status); }

/* "wasmsimd" or "scalar": which twin the selection in kernels.h compiled in. */
ASW_EXPORT const char *asw_kernel_isa(void) { return AS_KERNEL_ISA; }

ASW_EXPORT void asw_unload(void) {
    asw_tokenize_reset();
    as_session_free(current_session);
    as_model_free(current_model);
    current_session = NULL;
    current_model = NULL;
    current_trace = NULL;
    current_hypotheses = NULL;
    current_hypothesis_count = 0;
}

/* Loads a model from bytes the caller placed in memory (and frees after).
 * The old model stays loaded if the new one fails. */
ASW_EXPORT int asw_load(const uint8_t *bytes, size_t length) {
    as_model *model;
    as_session *session;
    as_status st = as_model_load(bytes, length, &model);
    if (st != AS_OK) return st;
    st = as_session_create(model, &session);
    if (st != AS_OK) {
        as_model_free(model);
        return st;
    }
    asw_unload();
    current_model = model;
    current_session = session;
    return AS_OK;
}

/* Model info by field number, returned as double so that the parameter
 * count (u64) and the f32 scale both fit: (number, web/engine.js INFO name,
 * value). tests/definitions.test.mjs checks engine.js's table against this
 * list. */
#define INFO_FIELDS(X)                                  \
    X(0, formatVersion, in->format_version)             \
    X(1, attention, in->attention_kind)                 \
    X(2, weightType, in->weight_type)                   \
    X(3, srcVocabSize, in->src_vocab_size)              \
    X(4, tgtVocabSize, in->tgt_vocab_size)              \
    X(5, embedDim, in->embed_dim)                       \
    X(6, encoderHidden, in->encoder_hidden)             \
    X(7, decoderHidden, in->decoder_hidden)             \
    X(8, attentionDim, in->attention_dim)               \
    X(9, outputDim, in->output_dim)                     \
    X(10, maxSourceTokens, in->max_source_tokens)       \
    X(11, maxTargetTokens, in->max_target_tokens)       \
    X(12, trainedScoreScale, in->trained_score_scale)   \
    X(13, keyDim, in->key_dim)                          \
    X(14, parameterCount, (double)in->parameter_count)  \
    X(15, archFlags, in->arch_flags)                    \
    X(16, contextDim, in->context_dim)

ASW_EXPORT double asw_info(int field) {
    if (!current_model) return -1;
    const as_model_info *in = as_model_get_info(current_model);
    switch (field) {
#define INFO_CASE(number, name, value) case number: return (double)(value);
    INFO_FIELDS(INFO_CASE)
#undef INFO_CASE
    default: return -1;
    }
}

/* Language tags: 0 source, 1 target (NUL-terminated ASCII). */
ASW_EXPORT const char *asw_language(int which) {
    if (!current_model) return NULL;
    const as_model_info *in = as_model_get_info(current_model);
    return which == 0 ? in->source_language : in->target_language;
}

/* Vocabulary token (side 0 source, 1 target): pointer to its bytes, NUL
 * terminated, NULL if out of range. */
ASW_EXPORT const char *asw_token(int side, int32_t id) {
    if (!current_model) return NULL;
    return side == 0 ? as_model_source_token(current_model, id, NULL)
                     : as_model_target_token(current_model, id, NULL);
}

/* The overrides of a call, from engine.js's two arrays: meta (count, 2) =
 * (step, length) per override, weights = their weights back to back. The
 * list (NULL when count is 0) is freed by the caller. */
static as_status overrides_from(const int32_t *meta, const float *weights, int32_t count,
                                as_attention_override **list_out) {
    *list_out = NULL;
    if (count <= 0) return AS_OK;
    if (!meta || !weights) return AS_ERR_NULL_ARGUMENT;
    as_attention_override *list = malloc((size_t)count * sizeof *list);
    if (!list) return AS_ERR_OUT_OF_MEMORY;
    size_t at = 0;
    for (int32_t i = 0; i < count; i++) {
        list[i].step = meta[2 * i];
        list[i].length = meta[2 * i + 1];
        list[i].weights = weights + at;
        at += list[i].length > 0 ? (size_t)list[i].length : 0;
    }
    *list_out = list;
    return AS_OK;
}

static as_options options_from(float score_scale, int32_t top_k, int32_t max_target_tokens,
                               const as_attention_override *overrides, int32_t override_count,
                               int32_t cut_source, int32_t window_half_width, int32_t window_steps) {
    as_options opt;
    as_options_default(&opt);
    opt.score_scale = score_scale;
    opt.top_k = top_k;
    opt.max_target_tokens = max_target_tokens;
    opt.overrides = overrides;
    opt.override_count = overrides ? override_count : 0;
    opt.cut_source = cut_source;
    opt.window_half_width = window_half_width;
    opt.window_steps = window_steps;
    return opt;
}

/* The one body of asw_translate (greedy) and asw_translate_beam: the previous
 * result is dropped, the overrides and options are read, and the trace (or
 * the hypotheses) stay until the next call. override_count > 0 forces alpha
 * at those steps. */
static int translate_call(const char *text, size_t length, float score_scale, int32_t top_k,
                          int32_t max_target_tokens, const int32_t *override_meta,
                          const float *override_weights, int32_t override_count, int32_t cut_source,
                          int32_t window_half_width, int32_t window_steps, bool beam, int32_t beam_width,
                          float length_penalty) {
    current_trace = NULL;
    current_hypotheses = NULL;
    current_hypothesis_count = 0;
    if (!current_session) return AS_ERR_NULL_ARGUMENT;
    as_attention_override *overrides;
    as_status st = overrides_from(override_meta, override_weights, override_count, &overrides);
    if (st != AS_OK) return st;
    as_options opt = options_from(score_scale, top_k, max_target_tokens, overrides, override_count, cut_source,
                                  window_half_width, window_steps);
    if (beam) {
        opt.beam_width = beam_width;
        opt.length_penalty = length_penalty;
        st = as_translate_beam(current_session, text, length, &opt, &current_hypotheses, &current_hypothesis_count);
    } else {
        st = as_translate(current_session, text, length, &opt, &current_trace);
    }
    free(overrides);
    return st;
}

/* Greedy decoding. cut_source: as_options.cut_source (1: read the first
 * max_source_tokens tokens of a longer text). window_half_width,
 * window_steps: as_options' local-m window (-1, 0: global attention). */
ASW_EXPORT int asw_translate(const char *text, size_t length, float score_scale, int32_t top_k,
                             int32_t max_target_tokens, const int32_t *override_meta,
                             const float *override_weights, int32_t override_count, int32_t cut_source,
                             int32_t window_half_width, int32_t window_steps) {
    return translate_call(text, length, score_scale, top_k, max_target_tokens, override_meta, override_weights,
                          override_count, cut_source, window_half_width, window_steps, false, 0, 0);
}

/* Beam search: the hypotheses stay until the next call; asw_select_hypothesis
 * makes one of them the trace asw_trace reads. */
ASW_EXPORT int asw_translate_beam(const char *text, size_t length, float score_scale, int32_t top_k,
                                  int32_t max_target_tokens, const int32_t *override_meta,
                                  const float *override_weights, int32_t override_count, int32_t beam_width,
                                  float length_penalty, int32_t cut_source, int32_t window_half_width,
                                  int32_t window_steps) {
    return translate_call(text, length, score_scale, top_k, max_target_tokens, override_meta, override_weights,
                          override_count, cut_source, window_half_width, window_steps, true, beam_width,
                          length_penalty);
}

/* Hypothesis i's fields by number (as the trace's): (number, web/engine.js
 * HYPOTHESIS name, value). tests/definitions.test.mjs checks engine.js's
 * table against this list. */
#define HYPOTHESIS_FIELDS(X)                \
    X(0, logProb, h->log_prob)              \
    X(1, score, h->score)                   \
    X(2, stepLogProbs, (uintptr_t)h->step_log_probs)

ASW_EXPORT int32_t asw_hypothesis_count(void) { return current_hypothesis_count; }

ASW_EXPORT double asw_hypothesis(int32_t index, int field) {
    if (!current_hypotheses || index < 0 || index >= current_hypothesis_count) return 0;
    const as_hypothesis *h = &current_hypotheses[index];
    switch (field) {
#define HYPOTHESIS_CASE(number, name, value) case number: return (double)(value);
    HYPOTHESIS_FIELDS(HYPOTHESIS_CASE)
#undef HYPOTHESIS_CASE
    default: return 0;
    }
}

/* Makes hypothesis i the trace asw_trace() reads; 0 if there is none such. */
ASW_EXPORT int asw_select_hypothesis(int32_t index) {
    if (!current_hypotheses || index < 0 || index >= current_hypothesis_count) return 0;
    current_trace = &current_hypotheses[index].trace;
    return 1;
}

/* Trace fields by number: counts as numbers, arrays as pointers into linear
 * memory (0 when absent): (number, web/engine.js TRACE name, value).
 * tests/definitions.test.mjs checks engine.js's table against this list. */
#define TRACE_FIELDS(X)                                         \
    X(0, S, t->source_len)                                      \
    X(1, sourceIds, t->source_ids)                              \
    X(2, sourceSpans, t->source_spans)                          \
    X(3, sourceTokens, t->source_tokens)                        \
    X(4, T, t->target_len)                                      \
    X(5, targetIds, t->target_ids)                              \
    X(6, copySource, t->target_copy_source)                     \
    X(7, scores, t->scores)                                     \
    X(8, alpha, t->alpha)                                       \
    X(9, context, t->context)                                   \
    X(10, contextDim, t->context_dim)                           \
    X(11, state, t->state)                                      \
    X(12, stateDim, t->state_dim)                               \
    X(13, topK, t->top_k)                                       \
    X(14, topIds, t->top_ids)                                   \
    X(15, topProbs, t->top_probs)                               \
    X(16, stoppedAtEos, t->stopped_at_eos)                      \
    X(17, encoderReused, t->encoder_reused)                     \
    X(18, translation, t->translation)                          \
    X(19, translationSpans, t->translation_spans)               \
    X(20, sourceEos, t->source_eos)                             \
    X(21, sourceWords, t->source_words)                         \
    X(22, sourceWordCount, t->source_word_count)                \
    X(23, targetWords, t->target_words)                         \
    X(24, targetWordCount, t->target_word_count)

ASW_EXPORT uintptr_t asw_trace(int field) {
    const as_trace *t = current_trace;
    if (!t) return 0;
    switch (field) {
#define TRACE_CASE(number, name, value) case number: return (uintptr_t)(value);
    TRACE_FIELDS(TRACE_CASE)
#undef TRACE_CASE
    default: return 0;
    }
}

/* Source tokens in the last translate call's text, also when it was refused
 * as too long (engine.js puts the count and the limit in its message). */
ASW_EXPORT int32_t asw_source_count(void) { return as_session_source_count(current_session); }

ASW_EXPORT float asw_trace_score_scale(void) { return current_trace ? current_trace->score_scale : 0.0f; }

/* ---- forced decoding (as_force_score) ---------------------------------- */

static int32_t force_error_position = -1;

/* Scores target_ids given source_ids (engine.js copies both, the mask and
 * the outputs through memory it allocates): log_probs (T), alpha (T, S) or
 * 0, keep (T, S) or 0. The previous trace and hypotheses are dropped (the
 * session's buffers were the steps' scratch). */
ASW_EXPORT int asw_force_score(const int32_t *source_ids, int32_t source_count, const int32_t *target_ids,
                               int32_t target_count, const uint8_t *keep, float score_scale, float *log_probs,
                               float *alpha) {
    current_trace = NULL;
    current_hypotheses = NULL;
    current_hypothesis_count = 0;
    force_error_position = -1;
    if (!current_session) return AS_ERR_NULL_ARGUMENT;
    return as_force_score(current_session, source_ids, source_count, target_ids, target_count, keep, score_scale,
                          log_probs, alpha, &force_error_position);
}

/* The position the last asw_force_score refusal names (-1: none). */
ASW_EXPORT int32_t asw_force_error_position(void) { return force_error_position; }

/* S for a source of source_count tokens with the loaded model (0 without one). */
ASW_EXPORT int32_t asw_source_positions(int32_t source_count) {
    return as_model_source_positions(current_model, source_count);
}

ASW_EXPORT int asw_window_mask(int32_t target_count, int32_t source_positions, int32_t half_width, uint8_t *keep) {
    return as_window_mask(target_count, source_positions, half_width, keep);
}

/* ---- tokenisation alone (the page's live token preview, tokeniser tests) */

/* One block holds the last call's results: ids (N), spans (N,2), words (N),
 * then the token texts (N, AS_TOKEN_TEXT_STRIDE). */
static int32_t *tok_ids, *tok_spans, *tok_words;
static char *tok_text;

static void asw_tokenize_reset(void) {
    free(tok_ids);
    tok_ids = tok_spans = tok_words = NULL;
    tok_text = NULL;
}

/* Tokenises text with the loaded model's rules and vocabulary. Returns the
 * token count (>= 0) or a negated as_status. Results stay until the next call. */
ASW_EXPORT int32_t asw_tokenize(const char *text, size_t length) {
    asw_tokenize_reset();
    if (!current_model) return -(int32_t)AS_ERR_NULL_ARGUMENT;
    int32_t count = 0;
    as_status st = as_tokenize_internal(current_model, text, length, NULL, NULL, NULL, NULL, 0, &count, NULL);
    if (st != AS_OK) return -(int32_t)st;
    const size_t n = count ? (size_t)count : 1;
    /* wasm32's size_t is 32 bits: from 16.7 M tokens (a 33 MB text) on,
     * n * AS_TOKEN_TEXT_STRIDE would wrap, and the buffer come out too small. */
    const size_t per_token = 4 * sizeof(int32_t) + AS_TOKEN_TEXT_STRIDE;
    if (n > SIZE_MAX / per_token) return -(int32_t)AS_ERR_OUT_OF_MEMORY;
    tok_ids = malloc(n * per_token);
    if (!tok_ids) return -(int32_t)AS_ERR_OUT_OF_MEMORY;
    tok_spans = tok_ids + n;
    tok_words = tok_spans + 2 * n;
    tok_text = (char *)(tok_words + n);
    st = as_tokenize_internal(current_model, text, length, tok_ids, tok_spans, tok_text, tok_words, count,
                              &count, NULL);
    return st == AS_OK ? count : -(int32_t)st;
}

/* 0: ids (N), 1: byte spans (N,2), 2: token texts (N, AS_TOKEN_TEXT_STRIDE),
 * 3: word index of each token (N). */
ASW_EXPORT uintptr_t asw_tokens(int field) {
    switch (field) {
    case 0: return (uintptr_t)tok_ids;
    case 1: return (uintptr_t)tok_spans;
    case 2: return (uintptr_t)tok_text;
    case 3: return (uintptr_t)tok_words;
    default: return 0;
    }
}

/* ---- the engine's dot-product scores on the page's own numbers ----------
 * e (s) = K (s, d) q (d), K row-major: as_f32_dot_scores, the kernel that
 * dot and scaled-dot attention score with (engine.c decoder_step), the twin
 * kernels.h selects for this build. No model is needed: the math check card
 * (web/cards/mathcheck.js) scores keys and queries drawn from N(0, 1). */
ASW_EXPORT int asw_dot_scores(int32_t s, int32_t d, const float *keys, const float *q, float *e) {
    if (!keys || !q || !e) return AS_ERR_NULL_ARGUMENT;
    if (s < 1 || d < 1) return AS_ERR_BAD_OPTION;
    as_f32_dot_scores((size_t)s, (size_t)d, keys, q, e);
    return AS_OK;
}
