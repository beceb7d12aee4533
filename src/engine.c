/* engine.c - a session: tokenise, encode (cached), decode greedily, and keep
 * everything the page draws (scores, alpha, contexts, states, candidates).
 *
 * The computation is models/FORMAT.md section 4, which mirrors
 * models/train/model.py step for step. All buffers are sized for the model's
 * max_source_tokens / max_target_tokens when the session is created, so a
 * translation allocates nothing (except the display string, which grows if a
 * copied source word is unusually long).
 */
#include <stdlib.h>
#include <string.h>

#include "detokenize.h"
#include "fastmath.h"
#include "kernels.h"
#include "model_internal.h"

#define AS_TOP_K_MAX 16
#define AS_TOP_K_DEFAULT 5

struct as_session {
    const as_model *model;
    int32_t max_s, max_t;    /* the model's max_source_tokens, max_target_tokens */
    int32_t max_positions;   /* encoder positions: max_s, + 1 for the appended </s> */

    /* tokenisation of the current text */
    int32_t source_count;    /* tokens in the last text, also when it was refused */
    int32_t *source_ids;     /* (P) P = max_positions; the text's ids [, </s>] */
    int32_t *source_spans;   /* (P, 2) */
    char *source_tokens;     /* (P, AS_TOKEN_TEXT_STRIDE) */
    int32_t *source_words;   /* (P) word index of each token */

    /* encoder result, reused while the token ids stay the same */
    int32_t *cached_ids;     /* (P) */
    int32_t cached_len;      /* 0 = nothing cached */
    float *enc_gi;           /* (P, 3He) input projections of one direction */
    float *enc_gh;           /* (3He) recurrent projection */
    float *enc_h;            /* (He) running state */
    float *annotations;      /* (P, C) h_j = [fwd_j ; bwd_j], or fwd_j if unidirectional */
    float *keys;             /* (P, key_dim) additive/general; dot uses annotations */
    float *s0;               /* (Hd) */
    float *summary;          /* (C) [fwd_S ; bwd_1] (or fwd_S), kind none */
    float *ctx_proj;         /* (P, R) [dec_w_ctx h_j ; out_w_ctx h_j], R = 3Hd (+ O
                                with the deep output); kind none: row 0 for the summary */
    float *src_embedded;     /* (P, E) the source's embedding rows, dequantised if int8 */

    /* decoder scratch */
    float *state;            /* (Hd) s_t */
    float *query;            /* (A) W_a s, additive */
    float *embedding;        /* (E) emb(y_{t-1}) */
    float *ctx_term;         /* (R) sum_j alpha_tj ctx_proj[j] = [dec_w_ctx c_t ; out_w_ctx c_t] */
    float *dec_gi, *dec_gh;  /* (3Hd) */
    float *out_in;           /* (Hd + E) [state ; embedding] */
    float *features;         /* (O) */
    float *logits;           /* (Vt) */

    /* the trace */
    int32_t *target_ids;     /* (max_t) */
    int32_t *copy_source;    /* (max_t) */
    float *scores;           /* (max_t, P) */
    float *alpha;            /* (max_t, P) */
    float *context;          /* (max_t, C) */
    float *states;           /* (max_t, Hd) */
    int32_t *top_ids;        /* (max_t, AS_TOP_K_MAX) */
    float *top_probs;        /* (max_t, AS_TOP_K_MAX) */
    int32_t *translation_spans; /* (max_t, 2) */
    int32_t *target_words;   /* (max_t) */
    char *translation;
    size_t translation_cap;
    uint8_t *pieces_raw;     /* (max_t * AS_MAX_TOKEN_BYTES + 1) subword display scratch */
    int32_t *pieces_map;     /* (same) */
    as_trace trace;
};

/* ---- session lifetime -------------------------------------------------- */

/* R: the rows of the context products, 3Hd for the GRU input, + O for the
 * deep output unless the model projects the state directly. */
static size_t ctx_rows(const as_model_info *in) {
    return 3 * (size_t)in->decoder_hidden + ((in->arch_flags & AS_ARCH_DIRECT_OUTPUT) ? 0 : in->output_dim);
}

static void *alloc_array(size_t count, size_t size, int *failed) {
    void *p = calloc(count ? count : 1, size);
    if (!p) *failed = 1;
    return p;
}

as_status as_session_create(const as_model *model, as_session **session_out) {
    if (!model || !session_out) return AS_ERR_NULL_ARGUMENT;
    *session_out = NULL;
    const as_model_info *in = &model->info;
    as_session *s = calloc(1, sizeof *s);
    if (!s) return AS_ERR_OUT_OF_MEMORY;
    s->model = model;
    s->max_s = (int32_t)in->max_source_tokens;
    s->max_t = (int32_t)in->max_target_tokens;
    s->max_positions = s->max_s + ((in->arch_flags & AS_ARCH_SOURCE_EOS) ? 1 : 0);
    const size_t ms = (size_t)s->max_positions, mt = (size_t)s->max_t;
    const size_t he = in->encoder_hidden, hd = in->decoder_hidden, e = in->embed_dim;
    const size_t o = in->output_dim, vt = in->tgt_vocab_size, a = in->attention_dim;
    const size_t c = in->context_dim;
    int failed = 0;
    s->source_ids = alloc_array(ms, sizeof(int32_t), &failed);
    s->source_spans = alloc_array(ms * 2, sizeof(int32_t), &failed);
    s->source_tokens = alloc_array(ms * AS_TOKEN_TEXT_STRIDE, 1, &failed);
    s->source_words = alloc_array(ms, sizeof(int32_t), &failed);
    s->cached_ids = alloc_array(ms, sizeof(int32_t), &failed);
    s->enc_gi = alloc_array(ms * 3 * he, sizeof(float), &failed);
    s->enc_gh = alloc_array(3 * he, sizeof(float), &failed);
    s->enc_h = alloc_array(he, sizeof(float), &failed);
    s->annotations = alloc_array(ms * c, sizeof(float), &failed);
    if (in->attention_kind == AS_ATTENTION_ADDITIVE || in->attention_kind == AS_ATTENTION_GENERAL)
        s->keys = alloc_array(ms * in->key_dim, sizeof(float), &failed);
    s->s0 = alloc_array(hd, sizeof(float), &failed);
    s->summary = alloc_array(c, sizeof(float), &failed);
    s->ctx_proj = alloc_array(ms * ctx_rows(in), sizeof(float), &failed);
    s->ctx_term = alloc_array(ctx_rows(in), sizeof(float), &failed);
    s->src_embedded = alloc_array(ms * e, sizeof(float), &failed);
    s->state = alloc_array(hd, sizeof(float), &failed);
    s->query = alloc_array(a, sizeof(float), &failed);
    s->embedding = alloc_array(e, sizeof(float), &failed);
    s->dec_gi = alloc_array(3 * hd, sizeof(float), &failed);
    s->dec_gh = alloc_array(3 * hd, sizeof(float), &failed);
    s->out_in = alloc_array(hd + e, sizeof(float), &failed);
    s->features = alloc_array(o, sizeof(float), &failed);
    s->logits = alloc_array(vt, sizeof(float), &failed);
    s->target_ids = alloc_array(mt, sizeof(int32_t), &failed);
    s->copy_source = alloc_array(mt, sizeof(int32_t), &failed);
    s->scores = alloc_array(mt * ms, sizeof(float), &failed);
    s->alpha = alloc_array(mt * ms, sizeof(float), &failed);
    s->context = alloc_array(mt * c, sizeof(float), &failed);
    s->states = alloc_array(mt * hd, sizeof(float), &failed);
    s->top_ids = alloc_array(mt * AS_TOP_K_MAX, sizeof(int32_t), &failed);
    s->top_probs = alloc_array(mt * AS_TOP_K_MAX, sizeof(float), &failed);
    s->translation_spans = alloc_array(mt * 2, sizeof(int32_t), &failed);
    /* room for every step's longest vocabulary token plus a separator */
    s->translation_cap = mt * (AS_MAX_TOKEN_BYTES + 1) + 1;
    s->translation = alloc_array(s->translation_cap, 1, &failed);
    s->target_words = alloc_array(mt, sizeof(int32_t), &failed);
    if (in->arch_flags & AS_ARCH_SUBWORDS) {
        s->pieces_raw = alloc_array(mt * AS_MAX_TOKEN_BYTES + 1, 1, &failed);
        s->pieces_map = alloc_array(mt * AS_MAX_TOKEN_BYTES + 1, sizeof(int32_t), &failed);
    }
    if (failed) {
        as_session_free(s);
        return AS_ERR_OUT_OF_MEMORY;
    }
    *session_out = s;
    return AS_OK;
}

void as_session_free(as_session *s) {
    if (!s) return;
    void *buffers[] = {
        s->source_ids, s->source_spans, s->source_tokens, s->cached_ids, s->enc_gi, s->enc_gh,
        s->enc_h, s->annotations, s->keys, s->s0, s->summary, s->ctx_proj, s->ctx_term, s->src_embedded,
        s->state, s->query, s->embedding, s->dec_gi, s->dec_gh, s->out_in, s->features, s->logits, s->target_ids,
        s->copy_source, s->scores, s->alpha, s->context, s->states, s->top_ids, s->top_probs,
        s->translation_spans, s->translation, s->source_words, s->target_words, s->pieces_raw, s->pieces_map};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) free(buffers[i]);
    free(s);
}

void as_options_default(as_options *options) {
    if (!options) return;
    options->score_scale = 0.0f;
    options->top_k = AS_TOP_K_DEFAULT;
    options->max_target_tokens = 0;
}

/* W (rows, cols) @ x + b -> y with W packed by as_model_pack_weights: the
 * f32 or the int8 kernel. */
static void matvec(const as_matrix *w, size_t rows, size_t cols, const float *x, const float *b, float *y) {
    if (w->i8) as_i8_matvec_packed(rows, cols, w->i8, w->scale, x, b, y);
    else as_f32_matvec_p24(rows, cols, w->f32, x, b, y);
}

/* The same product for `count` inputs x + j * x_stride -> y + j * y_stride,
 * each bit for bit what matvec gives, the weights read once (kernels.h). */
static void matvec_batch(const as_matrix *w, size_t rows, size_t cols, size_t count, const float *x,
                         size_t x_stride, const float *b, float *y, size_t y_stride) {
    if (w->i8) as_i8_matvec_packed_batch(rows, cols, w->i8, w->scale, count, x, x_stride, b, y, y_stride);
    else as_f32_matvec_p24_batch(rows, cols, w->f32, count, x, x_stride, b, y, y_stride);
}

/* Row id of an embedding (row-major, `dim` wide) -> out, dequantised (one
 * f32 multiply per value, as the file defines) if it is int8. */
static void embedding_row(const as_matrix *table, size_t dim, int32_t id, float *out) {
    const size_t at = (size_t)id * dim;
    if (table->i8) {
        const float scale = table->scale[id];
        for (size_t i = 0; i < dim; i++) out[i] = scale * (float)table->i8[at + i];
    } else {
        memcpy(out, table->f32 + at, dim * sizeof(float));
    }
}

/* ---- encoder ----------------------------------------------------------- */

/* The GRU over the source (both directions, or forward only), then s0, the
 * keys and the summary. Input projections for all positions come first (one
 * fused (3He x E) matvec per position), so the sequential part is only the
 * recurrent matvec. */
static void run_encoder(as_session *s, int32_t len) {
    const as_model *m = s->model;
    const as_model_info *in = &m->info;
    const size_t e = in->embed_dim, he = in->encoder_hidden, hd = in->decoder_hidden;
    const size_t c = in->context_dim, n = (size_t)len;
    const int directions = (in->arch_flags & AS_ARCH_UNIDIRECTIONAL) ? 1 : 2;
    for (size_t j = 0; j < n; j++)
        embedding_row(&m->src_embedding, e, s->source_ids[j], s->src_embedded + j * e);
    for (int dir = 0; dir < directions; dir++) {
        /* all positions' input projections in one pass over W_ih */
        matvec_batch(&m->enc_w_ih[dir], 3 * he, e, n, s->src_embedded, e, m->enc_b_ih[dir], s->enc_gi, 3 * he);
        memset(s->enc_h, 0, he * sizeof(float));
        for (size_t step = 0; step < n; step++) {
            const size_t j = dir == 0 ? step : n - 1 - step;
            matvec(&m->enc_w_hh[dir], 3 * he, he, s->enc_h, m->enc_b_hh[dir], s->enc_gh);
            as_f32_gru_update(he, s->enc_gi + j * 3 * he, s->enc_gh, s->enc_h);
            memcpy(s->annotations + j * c + (size_t)dir * he, s->enc_h, he * sizeof(float));
        }
    }
    /* The final state f: the last direction's last state, <-h_1 or ->h_S (He). */
    const float *final_state = directions == 2 ? s->annotations + he : s->annotations + (n - 1) * c;
    if (in->arch_flags & AS_ARCH_INIT_FROM_ENCODER) {
        memcpy(s->s0, final_state, hd * sizeof(float)); /* Hd == He (loader) */
    } else {
        matvec(&m->init_w, hd, he, final_state, m->init_b, s->s0);
        as_f32_tanh(hd, s->s0, s->s0);
    }
    if (in->attention_kind == AS_ATTENTION_ADDITIVE || in->attention_kind == AS_ATTENTION_GENERAL)
        matvec_batch(&m->attn_key_w, in->key_dim, c, n, s->annotations, c, m->attn_key_b, s->keys, in->key_dim);
    memcpy(s->summary, s->annotations + (n - 1) * c, he * sizeof(float));           /* ->h_S */
    if (directions == 2) memcpy(s->summary + he, s->annotations + he, he * sizeof(float)); /* <-h_1 */

    /* The context products per position (model_internal.h): ctx_proj[j] =
     * [dec_w_ctx h_j ; out_w_ctx h_j], (n, R), each weight panel read once.
     * Without attention the context is the summary at every step: one row. */
    const size_t rows = ctx_rows(in);
    const float *ctx_in = in->attention_kind == AS_ATTENTION_NONE ? s->summary : s->annotations;
    const size_t ctx_count = in->attention_kind == AS_ATTENTION_NONE ? 1 : n;
    matvec_batch(&m->dec_w_ctx, 3 * hd, c, ctx_count, ctx_in, c, NULL, s->ctx_proj, rows);
    if (!(in->arch_flags & AS_ARCH_DIRECT_OUTPUT))
        matvec_batch(&m->out_w_ctx, in->output_dim, c, ctx_count, ctx_in, c, NULL, s->ctx_proj + 3 * hd, rows);
}

/* ---- decoder ----------------------------------------------------------- */

/* One step t: reads s->state (s_{t-1}) and prev, writes every trace row t. */
static void decoder_step(as_session *s, int32_t len, int32_t t, int32_t prev, float scale, int32_t top_k) {
    const as_model *m = s->model;
    const as_model_info *in = &m->info;
    const size_t e = in->embed_dim, hd = in->decoder_hidden;
    const size_t o = in->output_dim, vt = in->tgt_vocab_size, n = (size_t)len;
    const size_t ctx_dim = in->context_dim;
    float *scores = s->scores + (size_t)t * n;
    float *alpha = s->alpha + (size_t)t * n;
    float *context = s->context + (size_t)t * ctx_dim;

    switch (in->attention_kind) {
    case AS_ATTENTION_ADDITIVE:
        matvec(&m->attn_query_w, in->attention_dim, hd, s->state, m->attn_query_b, s->query);
        as_f32_additive_scores(n, in->attention_dim, s->keys, s->query, m->attn_v, scores);
        if (m->attn_v_b) /* shifts every score alike: alpha is unchanged, the raw scores are not */
            for (size_t j = 0; j < n; j++) scores[j] += m->attn_v_b[0];
        break;
    case AS_ATTENTION_GENERAL:
        as_f32_dot_scores(n, hd, s->keys, s->state, scores);
        break;
    case AS_ATTENTION_DOT:
    case AS_ATTENTION_SCALED_DOT:
        as_f32_dot_scores(n, hd, s->annotations, s->state, scores);
        break;
    default: /* none: a fixed summary stands in for the context */
        memset(scores, 0, n * sizeof(float));
        memcpy(context, s->summary, ctx_dim * sizeof(float));
        break;
    }
    /* c_t (the trace's), and its products [dec_w_ctx c_t ; out_w_ctx c_t]
     * as the alpha-weighted sum of the encoder's per-position products */
    if (in->attention_kind != AS_ATTENTION_NONE) {
        as_f32_softmax(n, scores, scale, alpha);
        as_f32_context(n, ctx_dim, alpha, s->annotations, context);
        as_f32_context(n, ctx_rows(in), alpha, s->ctx_proj, s->ctx_term);
    } else {
        memcpy(s->ctx_term, s->ctx_proj, ctx_rows(in) * sizeof(float));
    }

    /* s_t = GRUCell([emb ; c_t], s_{t-1}): input gates dec_w_emb emb + b + dec_w_ctx c_t */
    embedding_row(&m->tgt_embedding, e, prev, s->embedding);
    matvec(&m->dec_w_emb, 3 * hd, e, s->embedding, m->dec_b_ih, s->dec_gi);
    for (size_t i = 0; i < 3 * hd; i++) s->dec_gi[i] += s->ctx_term[i];
    matvec(&m->dec_w_hh, 3 * hd, hd, s->state, m->dec_b_hh, s->dec_gh);
    as_f32_gru_update(hd, s->dec_gi, s->dec_gh, s->state);
    memcpy(s->states + (size_t)t * hd, s->state, hd * sizeof(float));

    if (in->arch_flags & AS_ARCH_DIRECT_OUTPUT) {
        /* logits = W_p s_t + b_p (O == Hd) */
        matvec(&m->proj_w, vt, o, s->state, m->proj_b, s->logits);
    } else {
        /* o_t = tanh(W_o [s_t ; c_t ; emb] + b_o), as out_w_se [s_t ; emb] + b_o
         * + out_w_ctx c_t; logits = W_p o_t + b_p */
        memcpy(s->out_in, s->state, hd * sizeof(float));
        memcpy(s->out_in + hd, s->embedding, e * sizeof(float));
        matvec(&m->out_w_se, o, hd + e, s->out_in, m->out_b, s->features);
        for (size_t i = 0; i < o; i++) s->features[i] += s->ctx_term[3 * hd + i];
        as_f32_tanh(o, s->features, s->features);
        matvec(&m->proj_w, vt, o, s->features, m->proj_b, s->logits);
    }

    /* The argmax comes from the logits (exact order); top_ids row t holds at
     * least the winner even when the caller asked for no candidates. The
     * candidates' probabilities need only the softmax normaliser, taken
     * around the best logit: softmax_i = exp(l_i - l_max) / sum_j exp(l_j - l_max). */
    int32_t *top = s->top_ids + (size_t)t * AS_TOP_K_MAX;
    as_f32_top_k(vt, s->logits, top_k > 0 ? top_k : 1, top);
    if (top_k > 0) { /* the normaliser is a pass of exp over the vocabulary: only when asked */
        const float best = s->logits[top[0]];
        const float inv_sum = 1.0f / as_f32_sum_exp(vt, s->logits, best);
        for (int32_t i = 0; i < top_k; i++)
            s->top_probs[(size_t)t * AS_TOP_K_MAX + i] = as_exp_scalar(s->logits[top[i]] - best) * inv_sum;
    }
    s->target_ids[t] = top[0];
}

/* ---- translate --------------------------------------------------------- */

as_status as_translate(as_session *s, const char *text, size_t length,
                       const as_options *options, const as_trace **trace_out) {
    if (!s || !trace_out) return AS_ERR_NULL_ARGUMENT;
    *trace_out = NULL;
    s->source_count = 0;
    if (!text && length > 0) return AS_ERR_NULL_ARGUMENT;
    as_options opt;
    as_options_default(&opt);
    if (options) opt = *options;
    const as_model_info *in = &s->model->info;
    uint32_t scale_bits;
    memcpy(&scale_bits, &opt.score_scale, sizeof scale_bits);
    if (((scale_bits >> 23) & 0xFFu) == 0xFFu) return AS_ERR_BAD_OPTION; /* inf / NaN */
    if (opt.score_scale > AS_MAX_SCORE_SCALE) return AS_ERR_BAD_OPTION;  /* would overflow */
    if (opt.top_k < 0 || opt.top_k > AS_TOP_K_MAX || opt.max_target_tokens < 0) return AS_ERR_BAD_OPTION;
    const float scale = opt.score_scale > 0.0f ? opt.score_scale : in->trained_score_scale;

    int32_t count = 0, word_count = 0;
    as_status st = as_tokenize_internal(s->model, text, length, s->source_ids, s->source_spans,
                                        s->source_tokens, s->source_words, s->max_s, &count, &word_count);
    if (st != AS_OK) return st;
    s->source_count = count;
    if (count == 0) return AS_ERR_EMPTY_INPUT;
    if (count > s->max_s) return AS_ERR_INPUT_TOO_LONG;
    const int32_t source_eos = (in->arch_flags & AS_ARCH_SOURCE_EOS) != 0;
    if (source_eos) { /* the encoder reads </s> last: a position like the words */
        s->source_ids[count] = AS_TOKEN_EOS;
        s->source_spans[2 * count] = s->source_spans[2 * count + 1] = (int32_t)length;
        memcpy(s->source_tokens + (size_t)count * AS_TOKEN_TEXT_STRIDE, "</s>", 5);
        s->source_words[count] = word_count++;
        count++;
    }

    const int reuse = s->cached_len == count &&
                      memcmp(s->cached_ids, s->source_ids, (size_t)count * sizeof(int32_t)) == 0;
    if (!reuse) {
        s->cached_len = 0;
        run_encoder(s, count);
        memcpy(s->cached_ids, s->source_ids, (size_t)count * sizeof(int32_t));
        s->cached_len = count;
    }

    int32_t cap = 2 * count + 10;
    if (cap > s->max_t) cap = s->max_t;
    if (opt.max_target_tokens > 0 && opt.max_target_tokens < cap) cap = opt.max_target_tokens;

    memcpy(s->state, s->s0, in->decoder_hidden * sizeof(float));
    int32_t prev = AS_TOKEN_BOS, steps = 0, eos = 0;
    while (steps < cap) {
        decoder_step(s, count, steps, prev, scale, opt.top_k);
        prev = s->target_ids[steps++];
        if (prev == AS_TOKEN_EOS) {
            eos = 1;
            break;
        }
    }

    as_trace *tr = &s->trace;
    tr->source_len = count;
    tr->source_eos = source_eos;
    tr->source_ids = s->source_ids;
    tr->source_spans = s->source_spans;
    tr->source_tokens = s->source_tokens;
    tr->target_len = steps;
    tr->target_ids = s->target_ids;
    tr->target_copy_source = s->copy_source;
    tr->scores = s->scores;
    tr->alpha = in->attention_kind == AS_ATTENTION_NONE ? NULL : s->alpha;
    tr->context = s->context;
    tr->context_dim = (int32_t)in->context_dim;
    tr->state = s->states;
    tr->state_dim = (int32_t)in->decoder_hidden;
    tr->score_scale = scale;
    tr->stopped_at_eos = eos;
    tr->encoder_reused = reuse;
    tr->source_words = s->source_words;
    tr->source_word_count = word_count;
    as_display display = {
        s->model, text, length, s->target_ids, steps, eos, tr->alpha, count, source_eos, s->source_spans,
        s->copy_source, s->translation_spans, s->target_words, 0, s->translation, s->translation_cap,
        s->pieces_raw, s->pieces_map, s->pieces_raw ? (size_t)s->max_t * AS_MAX_TOKEN_BYTES + 1 : 0};
    st = as_display_build(&display);
    s->translation = display.translation; /* it may have grown */
    s->translation_cap = display.translation_cap;
    if (st != AS_OK) return st;
    tr->target_words = s->target_words;
    tr->target_word_count = display.target_word_count;
    /* candidates are stored with stride AS_TOP_K_MAX; pack them to (T,K) */
    tr->top_k = opt.top_k;
    for (int32_t t = 1; t < steps; t++) {
        memmove(s->top_ids + (size_t)t * opt.top_k, s->top_ids + (size_t)t * AS_TOP_K_MAX, (size_t)opt.top_k * sizeof(int32_t));
        memmove(s->top_probs + (size_t)t * opt.top_k, s->top_probs + (size_t)t * AS_TOP_K_MAX, (size_t)opt.top_k * sizeof(float));
    }
    tr->top_ids = s->top_ids;
    tr->top_probs = s->top_probs;
    tr->translation = s->translation;
    tr->translation_spans = s->translation_spans;
    *trace_out = tr;
    return AS_OK;
}

int32_t as_session_source_count(const as_session *s) {
    return s ? s->source_count : 0;
}
