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
    char *translation;
    size_t translation_cap;
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
        s->translation_spans, s->translation};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) free(buffers[i]);
    free(s);
}

void as_options_default(as_options *options) {
    if (!options) return;
    options->score_scale = 0.0f;
    options->top_k = AS_TOP_K_DEFAULT;
    options->max_target_tokens = 0;
}

/* ---- weight layout ----------------------------------------------------- */

/* Row-major (rows, cols) values of `size` bytes each at w: moves columns
 * [c0, c0 + width) out, in place, so that w holds the other columns as a
 * row-major (rows, cols - width) matrix followed by those columns as a
 * row-major (rows, width) one. 0, or -1 when out of memory. */
static int move_columns_last(void *w, size_t size, size_t rows, size_t cols, size_t c0, size_t width) {
    unsigned char *bytes = w;
    const size_t rest = cols - width;
    const size_t moved_bytes = rows * width * size;
    unsigned char *moved = malloc(moved_bytes > 0 ? moved_bytes : 1);
    if (!moved) return -1;
    for (size_t r = 0; r < rows; r++) {
        unsigned char *row = bytes + r * cols * size;
        memcpy(moved + r * width * size, row + c0 * size, width * size);
        /* row r's kept columns go to r * rest: never past where they are read */
        memmove(bytes + r * rest * size, row, c0 * size);
        memmove(bytes + (r * rest + c0) * size, row + (c0 + width) * size, (cols - c0 - width) * size);
    }
    memcpy(bytes + rows * rest * size, moved, rows * width * size);
    free(moved);
    return 0;
}

/* The views of the two blocks move_columns_last made of w (rows, cols):
 * kept (rows, cols - width) then moved (rows, width); int8 keeps w's row
 * scales for both (they scale whole rows). */
static void split_views(const as_matrix *w, size_t rows, size_t cols, size_t width,
                        as_matrix *kept, as_matrix *moved) {
    *kept = *w;
    *moved = *w;
    if (w->i8) moved->i8 = w->i8 + rows * (cols - width);
    else moved->f32 = w->f32 + rows * (cols - width);
}

/* Splits the decoder's matrices at their context columns (model_internal.h:
 * dec_w_emb / dec_w_ctx, out_w_se / out_w_ctx), in place. */
static as_status split_context_columns(as_model *m) {
    const as_model_info *in = &m->info;
    const size_t e = in->embed_dim, hd = in->decoder_hidden, o = in->output_dim, c = in->context_dim;
    const struct { as_matrix *w, *kept, *moved; size_t rows, cols, c0; } splits[] = {
        {&m->dec_w_ih, &m->dec_w_emb, &m->dec_w_ctx, 3 * hd, e + c, e},  /* [emb ; ctx] */
        {&m->out_w, &m->out_w_se, &m->out_w_ctx, o, hd + c + e, hd},      /* [state ; ctx ; emb] */
    };
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        as_matrix *w = splits[i].w;
        if (!w->i8 && !w->f32) continue; /* out_w with AS_ARCH_DIRECT_OUTPUT */
        void *values = w->i8 ? (void *)w->i8 : (void *)w->f32;
        const size_t size = w->i8 ? 1 : sizeof(float);
        if (move_columns_last(values, size, splits[i].rows, splits[i].cols, splits[i].c0, c) != 0)
            return AS_ERR_OUT_OF_MEMORY;
        split_views(w, splits[i].rows, splits[i].cols, c, splits[i].kept, splits[i].moved);
        memset(w, 0, sizeof *w); /* its layout is gone */
    }
    return AS_OK;
}

/* Every weight matrix the engine multiplies goes into the layout its kernel
 * reads (kernels.h: p24 for f32, q32 for int8) once, when the model is
 * loaded, after the decoder's context columns are split off
 * (split_context_columns); the row-major originals are not kept (all of it
 * happens in place, in the buffers the model owns). The embeddings stay
 * row-major. */
as_status as_model_pack_weights(as_model *m) {
    const as_model_info *in = &m->info;
    const size_t e = in->embed_dim, he = in->encoder_hidden, hd = in->decoder_hidden;
    const size_t o = in->output_dim, vt = in->tgt_vocab_size, c = in->context_dim;
    as_status st = split_context_columns(m);
    if (st != AS_OK) return st;
    /* absent matrices (both views NULL) are skipped */
    const struct { const as_matrix *w; size_t rows, cols; } matrices[] = {
        {&m->enc_w_ih[0], 3 * he, e}, {&m->enc_w_ih[1], 3 * he, e},
        {&m->enc_w_hh[0], 3 * he, he}, {&m->enc_w_hh[1], 3 * he, he},
        {&m->init_w, hd, he},
        {&m->attn_query_w, in->attention_dim, hd},   /* additive only */
        {&m->attn_key_w, in->key_dim, c},            /* additive and general */
        {&m->dec_w_emb, 3 * hd, e}, {&m->dec_w_ctx, 3 * hd, c}, {&m->dec_w_hh, 3 * hd, hd},
        {&m->out_w_se, o, hd + e}, {&m->out_w_ctx, o, c}, {&m->proj_w, vt, o},
    };
    for (size_t i = 0; i < sizeof matrices / sizeof matrices[0]; i++) {
        /* the views are const for the engine; the loader owns the buffers */
        const as_matrix *w = matrices[i].w;
        int failed = 0;
        if (w->i8) failed = as_i8_pack_q32(matrices[i].rows, matrices[i].cols, (int8_t *)w->i8) != 0;
        else if (w->f32) failed = as_f32_pack_p24(matrices[i].rows, matrices[i].cols, (float *)w->f32) != 0;
        if (failed) return AS_ERR_OUT_OF_MEMORY;
    }
    return AS_OK;
}

/* W (rows, cols) @ x + b -> y with W packed by as_model_pack_weights: the
 * f32 or the int8 kernel. */
static void matvec(const as_matrix *w, size_t rows, size_t cols, const float *x, const float *b, float *y) {
    if (w->i8) as_i8_matvec_q32(rows, cols, w->i8, w->scale, x, b, y);
    else as_f32_matvec_p24(rows, cols, w->f32, x, b, y);
}

/* The same product for `count` inputs x + j * x_stride -> y + j * y_stride,
 * each bit for bit what matvec gives, the weights read once (kernels.h). */
static void matvec_batch(const as_matrix *w, size_t rows, size_t cols, size_t count, const float *x,
                         size_t x_stride, const float *b, float *y, size_t y_stride) {
    if (w->i8) as_i8_matvec_q32_batch(rows, cols, w->i8, w->scale, count, x, x_stride, b, y, y_stride);
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

/* ---- display text ------------------------------------------------------ */

/* Case of an ASCII / Latin-1 letter (plus the French Œ/œ and Ÿ): +1 upper,
 * -1 lower, 0 not a letter; 2 for a digit (which ends the search). */
static int latin_case(uint32_t cp) {
    if ((cp >= 'A' && cp <= 'Z') || (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) || cp == 0x152 || cp == 0x178)
        return 1;
    if ((cp >= 'a' && cp <= 'z') || (cp >= 0xDF && cp <= 0xFF && cp != 0xF7) || cp == 0x153) return -1;
    if (cp >= '0' && cp <= '9') return 2;
    return 0;
}

static uint32_t latin_upper(uint32_t cp) {
    if (cp >= 'a' && cp <= 'z') return cp - 0x20;
    if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 0x20;
    if (cp == 0xFF) return 0x178;
    if (cp == 0x153) return 0x152;
    return cp; /* ß has no one-letter capital */
}

/* Case of the first letter (or digit) in text[0..n): 1, -1, or 0/2. */
static int first_letter_case(const char *text, size_t n, size_t *at, uint32_t *cp_out) {
    size_t pos = 0;
    while (pos < n) {
        size_t start = pos;
        uint32_t cp = as_utf8_decode((const uint8_t *)text, n, &pos);
        int c = latin_case(cp);
        if (c != 0) {
            if (at) *at = start;
            if (cp_out) *cp_out = cp;
            return c;
        }
    }
    return 0;
}

static int no_space_before(const char *w, size_t n) {
    return n == 1 && strchr(",.)]}%'-/", w[0]) != NULL;
}

static int no_space_after(const char *w, size_t n) {
    return n == 1 && strchr("([{'-/", w[0]) != NULL;
}

/* The word step t shows: the vocabulary token, or for <unk> the user's own
 * source word at the most attended position (target_copy_source). */
static const char *display_word(as_session *s, const char *text, int32_t t, size_t *len) {
    const as_model *m = s->model;
    const int32_t id = s->target_ids[t];
    s->copy_source[t] = -1;
    if (id == AS_TOKEN_UNK && m->info.attention_kind != AS_ATTENTION_NONE) {
        const int32_t n = s->trace.source_len;
        const int32_t words = n - s->trace.source_eos; /* the appended </s> is no word to copy */
        const float *alpha = s->alpha + (size_t)t * (size_t)n;
        int32_t best = 0;
        for (int32_t j = 1; j < words; j++) if (alpha[j] > alpha[best]) best = j;
        s->copy_source[t] = best;
        *len = (size_t)(s->source_spans[2 * best + 1] - s->source_spans[2 * best]);
        return text + s->source_spans[2 * best];
    }
    size_t n;
    const char *tok = as_model_target_token(m, id, &n);
    *len = n;
    return tok;
}

static as_status build_translation(as_session *s, const char *text, size_t text_len, int32_t steps) {
    const int32_t words = s->trace.stopped_at_eos ? steps - 1 : steps;
    size_t need = 1;
    for (int32_t t = 0; t < words; t++) {
        size_t n;
        display_word(s, text, t, &n);
        need += n + 1;
    }
    if (need > s->translation_cap) {
        char *grown = realloc(s->translation, need);
        if (!grown) return AS_ERR_OUT_OF_MEMORY;
        s->translation = grown;
        s->translation_cap = need;
    }
    size_t out = 0;
    const char *prev = NULL;
    size_t prev_len = 0;
    for (int32_t t = 0; t < words; t++) {
        size_t n;
        const char *w = display_word(s, text, t, &n);
        if (t > 0 && !no_space_before(w, n) && !no_space_after(prev, prev_len)) s->translation[out++] = ' ';
        memcpy(s->translation + out, w, n);
        s->translation_spans[2 * t] = (int32_t)out;
        s->translation_spans[2 * t + 1] = (int32_t)(out + n);
        out += n;
        prev = w;
        prev_len = n;
    }
    s->translation[out] = '\0';
    if (s->trace.stopped_at_eos) {
        s->copy_source[steps - 1] = -1;
        s->translation_spans[2 * (steps - 1)] = (int32_t)out;
        s->translation_spans[2 * (steps - 1) + 1] = (int32_t)out;
    }
    /* "Open the file" -> "Ouvrir le fichier": follow the source's first letter.
     * Upper and lower forms in this range have equal UTF-8 lengths. A special
     * token shown as itself ("<unk>" for kind none) is left alone. */
    size_t at;
    uint32_t cp;
    const int special_first = words > 0 && s->target_ids[0] < 4 && s->copy_source[0] < 0;
    if (!special_first && first_letter_case(text, text_len, NULL, NULL) == 1 &&
        first_letter_case(s->translation, out, &at, &cp) == -1) {
        char enc[4];
        uint32_t up = latin_upper(cp);
        size_t a = as_utf8_encode(cp, enc), b = as_utf8_encode(up, enc);
        if (a == b) memcpy(s->translation + at, enc, b);
    }
    return AS_OK;
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

    int32_t count = 0;
    as_status st = as_tokenize_internal(s->model, text, length, s->source_ids, s->source_spans,
                                        s->source_tokens, s->max_s, &count);
    if (st != AS_OK) return st;
    s->source_count = count;
    if (count == 0) return AS_ERR_EMPTY_INPUT;
    if (count > s->max_s) return AS_ERR_INPUT_TOO_LONG;
    const int32_t source_eos = (in->arch_flags & AS_ARCH_SOURCE_EOS) != 0;
    if (source_eos) { /* the encoder reads </s> last: a position like the words */
        s->source_ids[count] = AS_TOKEN_EOS;
        s->source_spans[2 * count] = s->source_spans[2 * count + 1] = (int32_t)length;
        memcpy(s->source_tokens + (size_t)count * AS_TOKEN_TEXT_STRIDE, "</s>", 5);
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
    st = build_translation(s, text, length, steps);
    if (st != AS_OK) return st;
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
