/* wasm_api.c - the flat functions web/engine.js calls.
 *
 * One wasm instance holds at most one model and its session (engine.js makes
 * one instance per engine), so the state lives in two statics here. Every
 * function returns plain numbers: statuses, pointers into linear memory and
 * lengths; engine.js copies what it needs out before the next call.
 */
#include <malloc.h> /* mallinfo(): emscripten's default allocator is dlmalloc */
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

ASW_EXPORT void *asw_malloc(size_t n) { return malloc(n ? n : 1); }
ASW_EXPORT void asw_free(void *p) { free(p); }

/* Heap bytes in use (allocated, not yet freed). The soak test checks that it
 * returns to the same value after thousands of calls: a leak smaller than
 * the 16 MB initial memory would never show in memory.buffer.byteLength. */
ASW_EXPORT int32_t asw_heap_bytes(void) { return (int32_t)mallinfo().uordblks; }

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

/* Model info by field number (see engine.js INFO_FIELDS). Returned as double
 * so that the parameter count (u64) and the f32 scale both fit. */
ASW_EXPORT double asw_info(int field) {
    if (!current_model) return -1;
    const as_model_info *in = as_model_get_info(current_model);
    switch (field) {
    case 0: return in->format_version;
    case 1: return in->attention_kind;
    case 2: return in->weight_type;
    case 3: return in->src_vocab_size;
    case 4: return in->tgt_vocab_size;
    case 5: return in->embed_dim;
    case 6: return in->encoder_hidden;
    case 7: return in->decoder_hidden;
    case 8: return in->attention_dim;
    case 9: return in->output_dim;
    case 10: return in->max_source_tokens;
    case 11: return in->max_target_tokens;
    case 12: return in->trained_score_scale;
    case 13: return in->key_dim;
    case 14: return (double)in->parameter_count;
    case 15: return in->arch_flags;
    case 16: return in->context_dim;
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

ASW_EXPORT int asw_translate(const char *text, size_t length, float score_scale, int32_t top_k,
                             int32_t max_target_tokens) {
    current_trace = NULL;
    if (!current_session) return AS_ERR_NULL_ARGUMENT;
    as_options opt;
    as_options_default(&opt);
    opt.score_scale = score_scale;
    opt.top_k = top_k;
    opt.max_target_tokens = max_target_tokens;
    return as_translate(current_session, text, length, &opt, &current_trace);
}

/* Trace fields by number (see engine.js TRACE_FIELDS): counts as numbers,
 * arrays as pointers into linear memory (0 when absent). */
ASW_EXPORT uintptr_t asw_trace(int field) {
    const as_trace *t = current_trace;
    if (!t) return 0;
    switch (field) {
    case 0: return (uintptr_t)t->source_len;
    case 1: return (uintptr_t)t->source_ids;
    case 2: return (uintptr_t)t->source_spans;
    case 3: return (uintptr_t)t->source_tokens;
    case 4: return (uintptr_t)t->target_len;
    case 5: return (uintptr_t)t->target_ids;
    case 6: return (uintptr_t)t->target_copy_source;
    case 7: return (uintptr_t)t->scores;
    case 8: return (uintptr_t)t->alpha;
    case 9: return (uintptr_t)t->context;
    case 10: return (uintptr_t)t->context_dim;
    case 11: return (uintptr_t)t->state;
    case 12: return (uintptr_t)t->state_dim;
    case 13: return (uintptr_t)t->top_k;
    case 14: return (uintptr_t)t->top_ids;
    case 15: return (uintptr_t)t->top_probs;
    case 16: return (uintptr_t)t->stopped_at_eos;
    case 17: return (uintptr_t)t->encoder_reused;
    case 18: return (uintptr_t)t->translation;
    case 19: return (uintptr_t)t->translation_spans;
    case 20: return (uintptr_t)t->source_eos;
    default: return 0;
    }
}

/* Source tokens in the last translate call's text, also when it was refused
 * as too long (engine.js puts the count and the limit in its message). */
ASW_EXPORT int32_t asw_source_count(void) { return as_session_source_count(current_session); }

ASW_EXPORT float asw_trace_score_scale(void) { return current_trace ? current_trace->score_scale : 0.0f; }

/* ---- tokenisation alone (the page's live token preview, tokeniser tests) */

static int32_t *tok_ids, *tok_spans;
static char *tok_text;

static void asw_tokenize_reset(void) {
    free(tok_ids);
    free(tok_spans);
    free(tok_text);
    tok_ids = NULL;
    tok_spans = NULL;
    tok_text = NULL;
}

/* Tokenises text with the loaded model's rules and vocabulary. Returns the
 * token count (>= 0) or a negated as_status. Results stay until the next call. */
ASW_EXPORT int32_t asw_tokenize(const char *text, size_t length) {
    asw_tokenize_reset();
    if (!current_model) return -(int32_t)AS_ERR_NULL_ARGUMENT;
    int32_t count = 0;
    as_status st = as_tokenize_internal(current_model, text, length, NULL, NULL, NULL, 0, &count);
    if (st != AS_OK) return -(int32_t)st;
    const size_t n = count ? (size_t)count : 1;
    /* wasm32's size_t is 32 bits: from 16.7 M tokens (a 33 MB text) on,
     * n * AS_TOKEN_TEXT_STRIDE would wrap, and the buffer come out too small. */
    if (n > SIZE_MAX / AS_TOKEN_TEXT_STRIDE) return -(int32_t)AS_ERR_OUT_OF_MEMORY;
    tok_ids = malloc(n * sizeof(int32_t));
    tok_spans = malloc(n * 2 * sizeof(int32_t));
    tok_text = malloc(n * AS_TOKEN_TEXT_STRIDE);
    if (!tok_ids || !tok_spans || !tok_text) return -(int32_t)AS_ERR_OUT_OF_MEMORY;
    st = as_tokenize_internal(current_model, text, length, tok_ids, tok_spans, tok_text, count, &count);
    return st == AS_OK ? count : -(int32_t)st;
}

/* 0: ids (N), 1: byte spans (N,2), 2: token texts (N, AS_TOKEN_TEXT_STRIDE). */
ASW_EXPORT uintptr_t asw_tokens(int field) {
    return field == 0 ? (uintptr_t)tok_ids : field == 1 ? (uintptr_t)tok_spans : (uintptr_t)tok_text;
}
