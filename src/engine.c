/* engine.c - a session: tokenise, encode (cached), decode greedily, and keep
 * everything the page draws (scores, alpha, contexts, states, candidates).
 *
 * The computation is models/FORMAT.md section 4, which mirrors
 * models/train/model.py step for step. All buffers are sized for the model's
 * max_source_tokens / max_target_tokens when the session is created, so a
 * translation allocates nothing (except the display string, which grows if a
 * copied source word is unusually long).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detokenize.h"
#include "fastmath.h"
#include "kernels.h"
#include "model_internal.h"

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

    /* decoder scratch for step_width hypotheses decoded together (1 for
     * greedy, the beam's width): row i of each belongs to hypothesis i, so
     * every weight matrix multiplies all of them in one batched product.
     * One block (step_block), grown by reserve_step_width. */
    int32_t step_width;
    void *step_block;
    float *state;            /* (W, Hd) s_t */
    float *query;            /* (W, A) W_a s, additive */
    float *embedding;        /* (W, E) emb(y_{t-1}) */
    float *ctx_term;         /* (W, R) sum_j alpha_tj ctx_proj[j] = [dec_w_ctx c_t ; out_w_ctx c_t] */
    float *dec_gi, *dec_gh;  /* (W, 3Hd) */
    float *out_in;           /* (W, Hd + E) [state ; embedding] */
    float *features;         /* (W, O) */
    float *logits;           /* (W, Vt) */

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

    /* attention overrides of the current call, validated and renormalised */
    float *forced_alpha;     /* (forced_cap / S, S) one row per override */
    size_t forced_cap;       /* floats */
    int32_t *forced_row;     /* (max_t) row of forced_alpha for step t, -1 = softmax */
    uint8_t *window_keep;    /* (P) the local window's mask row of the current step */

    /* beam search (as_translate_beam): one block, grown to the largest call */
    void *beam_block;
    size_t beam_block_bytes;
    as_hypothesis hypotheses[AS_BEAM_MAX_WIDTH];
    char *hyp_translation[AS_BEAM_MAX_WIDTH]; /* each final hypothesis's display text */
    size_t hyp_translation_cap[AS_BEAM_MAX_WIDTH];
};

/* What one decoder step writes: its rows of a trace. */
typedef struct {
    float *scores;           /* (S) */
    float *alpha;            /* (S) */
    float *context;          /* (C) */
    float *state;            /* (Hd) */
    int32_t *top_ids;        /* (AS_TOP_K_MAX) */
    float *top_probs;        /* (AS_TOP_K_MAX) */
} step_rows;

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

/* Grows the decoder scratch to `width` hypotheses (never shrinks): one
 * block holding every (W, .) array of the session's decoder scratch. */
static as_status reserve_step_width(as_session *s, int32_t width) {
    if (width <= s->step_width) return AS_OK;
    const as_model_info *in = &s->model->info;
    const size_t hd = in->decoder_hidden, e = in->embed_dim, o = in->output_dim;
    const size_t per = hd + in->attention_dim + e + ctx_rows(in) + 6 * hd + hd + e + o + in->tgt_vocab_size;
    float *f = malloc((size_t)width * per * sizeof(float)); /* header limits: no overflow */
    if (!f) return AS_ERR_OUT_OF_MEMORY;
    free(s->step_block);
    s->step_block = f;
    s->step_width = width;
    const size_t w = (size_t)width;
    s->state = f, f += w * hd;
    s->query = f, f += w * in->attention_dim;
    s->embedding = f, f += w * e;
    s->ctx_term = f, f += w * ctx_rows(in);
    s->dec_gi = f, f += w * 3 * hd;
    s->dec_gh = f, f += w * 3 * hd;
    s->out_in = f, f += w * (hd + e);
    s->features = f, f += w * o;
    s->logits = f;
    return AS_OK;
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
    s->src_embedded = alloc_array(ms * e, sizeof(float), &failed);
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
    s->forced_row = alloc_array(mt, sizeof(int32_t), &failed);
    s->window_keep = alloc_array(ms, 1, &failed);
    if (in->arch_flags & AS_ARCH_SUBWORDS) {
        s->pieces_raw = alloc_array(mt * AS_MAX_TOKEN_BYTES + 1, 1, &failed);
        s->pieces_map = alloc_array(mt * AS_MAX_TOKEN_BYTES + 1, sizeof(int32_t), &failed);
    }
    if (failed || reserve_step_width(s, 1) != AS_OK) {
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
        s->enc_h, s->annotations, s->keys, s->s0, s->summary, s->ctx_proj, s->src_embedded, s->step_block,
        s->target_ids,
        s->copy_source, s->scores, s->alpha, s->context, s->states, s->top_ids, s->top_probs,
        s->translation_spans, s->translation, s->source_words, s->target_words, s->pieces_raw, s->pieces_map,
        s->forced_alpha, s->forced_row, s->window_keep, s->beam_block};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) free(buffers[i]);
    for (int i = 0; i < AS_BEAM_MAX_WIDTH; i++) free(s->hyp_translation[i]);
    free(s);
}

void as_options_default(as_options *options) {
    if (!options) return;
    options->score_scale = 0.0f;
    options->top_k = AS_TOP_K_DEFAULT;
    options->max_target_tokens = 0;
    options->overrides = NULL;
    options->override_count = 0;
    options->beam_width = 1;
    options->length_penalty = AS_DEFAULT_LENGTH_PENALTY;
    options->cut_source = 0;
    options->window_half_width = -1;
    options->window_steps = 0;
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
        if (m->enc_ln_ih[dir].gain) /* layer norm: no biases; each position's W_ih x, gate by gate */
            for (size_t j = 0; j < n; j++)
                as_f32_block_layer_norm(3, he, s->enc_gi + j * 3 * he, m->enc_ln_ih[dir].gain, m->enc_ln_ih[dir].shift);
        memset(s->enc_h, 0, he * sizeof(float));
        for (size_t step = 0; step < n; step++) {
            const size_t j = dir == 0 ? step : n - 1 - step;
            matvec(&m->enc_w_hh[dir], 3 * he, he, s->enc_h, m->enc_b_hh[dir], s->enc_gh);
            if (m->enc_ln_hh[dir].gain)
                as_f32_block_layer_norm(3, he, s->enc_gh, m->enc_ln_hh[dir].gain, m->enc_ln_hh[dir].shift);
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

/* One step for `count` hypotheses at once (count <= s->step_width): reads
 * row i of s->state (s_{t-1} of hypothesis i, (count, Hd)) and prev[i],
 * writes row i of s->state (s_t), of s->logits ((count, Vt)) and every row
 * of rows[i]. Each weight matrix multiplies all `count` vectors in one
 * batched product (kernels.h: the weights stream once per step, not once
 * per hypothesis), and each hypothesis's numbers are bit for bit what it
 * alone would give (the batched products are the single one's, row by row).
 * forced (S) or NULL: alpha_t given by the caller (already renormalised)
 * instead of the softmax of the scores, for every hypothesis. keep (S) or
 * NULL: the softmax over the kept positions only (as_force_score's mask,
 * validated: 0/1, at least one 1), for every hypothesis. best, sums
 * (count) or NULL: each hypothesis's largest logit and sum_i exp(l_i - best),
 * the softmax normaliser the candidates and the beam share. */
static void decoder_step(as_session *s, int32_t len, int32_t count, const int32_t *prev, float scale,
                         int32_t top_k, const float *forced, const uint8_t *keep, const step_rows *rows,
                         float *best, float *sums) {
    const as_model *m = s->model;
    const as_model_info *in = &m->info;
    const size_t e = in->embed_dim, hd = in->decoder_hidden, a = in->attention_dim;
    const size_t o = in->output_dim, vt = in->tgt_vocab_size, n = (size_t)len, k = (size_t)count;
    const size_t ctx_dim = in->context_dim, r_dim = ctx_rows(in);

    if (in->attention_kind == AS_ATTENTION_ADDITIVE) /* every hypothesis's query in one product */
        matvec_batch(&m->attn_query_w, a, hd, k, s->state, hd, m->attn_query_b, s->query, a);
    for (size_t i = 0; i < k; i++) {
        const float *state = s->state + i * hd;
        float *scores = rows[i].scores, *alpha = rows[i].alpha, *context = rows[i].context;
        float *ctx_term = s->ctx_term + i * r_dim;
        switch (in->attention_kind) {
        case AS_ATTENTION_ADDITIVE:
            as_f32_additive_scores(n, a, s->keys, s->query + i * a, m->attn_v, scores);
            if (m->attn_v_b) /* shifts every score alike: alpha is unchanged, the raw scores are not */
                for (size_t j = 0; j < n; j++) scores[j] += m->attn_v_b[0];
            break;
        case AS_ATTENTION_GENERAL:
            as_f32_dot_scores(n, hd, s->keys, state, scores);
            break;
        case AS_ATTENTION_DOT:
        case AS_ATTENTION_SCALED_DOT:
            as_f32_dot_scores(n, hd, s->annotations, state, scores);
            break;
        default: /* none: a fixed summary stands in for the context */
            memset(scores, 0, n * sizeof(float));
            memcpy(context, s->summary, ctx_dim * sizeof(float));
            break;
        }
        /* c_t (the trace's), and its products [dec_w_ctx c_t ; out_w_ctx c_t]
         * as the alpha-weighted sum of the encoder's per-position products */
        if (in->attention_kind != AS_ATTENTION_NONE) {
            if (forced) memcpy(alpha, forced, n * sizeof(float)); /* the pinned finger */
            else if (keep) as_f32_softmax_masked(n, scores, keep, scale, alpha); /* forced decoding's mask */
            else as_f32_softmax(n, scores, scale, alpha);
            as_f32_context(n, ctx_dim, alpha, s->annotations, context);
            as_f32_context(n, r_dim, alpha, s->ctx_proj, ctx_term);
        } else {
            memcpy(ctx_term, s->ctx_proj, r_dim * sizeof(float));
        }
        embedding_row(&m->tgt_embedding, e, prev[i], s->embedding + i * e);
    }

    /* s_t = GRUCell([emb ; c_t], s_{t-1}): input gates dec_w_emb emb + b + dec_w_ctx c_t.
     * With layer norm there is no b, and the whole W_ih [emb ; c_t] is
     * normalised: after the context's product is added, so the per-position
     * products above still stand in for W_ctx c_t. */
    matvec_batch(&m->dec_w_emb, 3 * hd, e, k, s->embedding, e, m->dec_b_ih, s->dec_gi, 3 * hd);
    matvec_batch(&m->dec_w_hh, 3 * hd, hd, k, s->state, hd, m->dec_b_hh, s->dec_gh, 3 * hd);
    for (size_t i = 0; i < k; i++) {
        float *gi = s->dec_gi + i * 3 * hd, *gh = s->dec_gh + i * 3 * hd, *state = s->state + i * hd;
        const float *ctx_term = s->ctx_term + i * r_dim;
        for (size_t r = 0; r < 3 * hd; r++) gi[r] += ctx_term[r];
        if (m->dec_ln_ih.gain) {
            as_f32_block_layer_norm(3, hd, gi, m->dec_ln_ih.gain, m->dec_ln_ih.shift);
            as_f32_block_layer_norm(3, hd, gh, m->dec_ln_hh.gain, m->dec_ln_hh.shift);
        }
        as_f32_gru_update(hd, gi, gh, state);
        memcpy(rows[i].state, state, hd * sizeof(float));
    }

    if (in->arch_flags & AS_ARCH_DIRECT_OUTPUT) {
        /* logits = W_p s_t + b_p (O == Hd) */
        matvec_batch(&m->proj_w, vt, o, k, s->state, hd, m->proj_b, s->logits, vt);
    } else {
        /* o_t = tanh(W_o [s_t ; c_t ; emb] + b_o), as out_w_se [s_t ; emb] + b_o
         * + out_w_ctx c_t (with layer norm, tanh(LN(...))); logits = W_p o_t + b_p */
        for (size_t i = 0; i < k; i++) {
            memcpy(s->out_in + i * (hd + e), s->state + i * hd, hd * sizeof(float));
            memcpy(s->out_in + i * (hd + e) + hd, s->embedding + i * e, e * sizeof(float));
        }
        matvec_batch(&m->out_w_se, o, hd + e, k, s->out_in, hd + e, m->out_b, s->features, o);
        for (size_t i = 0; i < k; i++) {
            float *features = s->features + i * o;
            const float *ctx_term = s->ctx_term + i * r_dim;
            for (size_t r = 0; r < o; r++) features[r] += ctx_term[3 * hd + r];
            if (m->out_ln.gain) as_f32_block_layer_norm(1, o, features, m->out_ln.gain, m->out_ln.shift);
            as_f32_tanh(o, features, features);
        }
        matvec_batch(&m->proj_w, vt, o, k, s->features, o, m->proj_b, s->logits, vt);
    }

    /* The argmax comes from the logits (exact order); top_ids row t holds at
     * least the winner even when the caller asked for no candidates. The
     * candidates' probabilities need only the softmax normaliser, taken
     * around the best logit: softmax_i = exp(l_i - l_max) / sum_j exp(l_j - l_max). */
    for (size_t i = 0; i < k; i++) {
        const float *logits = s->logits + i * vt;
        int32_t *top = rows[i].top_ids;
        as_f32_top_k(vt, logits, top_k > 0 ? top_k : 1, top);
        if (top_k == 0 && !sums) continue; /* the normaliser is a pass of exp over the vocabulary: only when asked */
        const float top_logit = logits[top[0]];
        const float sum = as_f32_sum_exp(vt, logits, top_logit);
        if (sums) best[i] = top_logit, sums[i] = sum;
        const float inv_sum = 1.0f / sum;
        for (int32_t c = 0; c < top_k; c++)
            rows[i].top_probs[c] = as_exp_scalar(logits[top[c]] - top_logit) * inv_sum;
    }
}

/* Row t of the session's own (greedy) trace. */
static step_rows greedy_rows(as_session *s, int32_t len, int32_t t) {
    const as_model_info *in = &s->model->info;
    step_rows r = {s->scores + (size_t)t * (size_t)len, s->alpha + (size_t)t * (size_t)len,
                   s->context + (size_t)t * in->context_dim, s->states + (size_t)t * in->decoder_hidden,
                   s->top_ids + (size_t)t * AS_TOP_K_MAX, s->top_probs + (size_t)t * AS_TOP_K_MAX};
    return r;
}

/* ---- translate --------------------------------------------------------- */

/* What every call shares once the text is encoded. */
typedef struct {
    as_options opt;
    float scale;             /* the multiplier actually used */
    int32_t count;           /* S: encoder positions (tokens, + </s> if source_eos) */
    int32_t word_count;
    int32_t source_eos;
    int32_t reuse;           /* the encoder result was cached */
    int32_t cap;             /* decoding stops after this many steps */
    int32_t last_forced;     /* the largest override step, -1 if none */
} prepared;

/* The overrides of opt, checked against S and the cap: each row of
 * s->forced_alpha is one override's weights divided by their sum, and
 * s->forced_row[t] says which row step t uses (-1: the softmax). */
static as_status prepare_overrides(as_session *s, prepared *p) {
    const as_options *opt = &p->opt;
    const size_t n = (size_t)p->count;
    p->last_forced = -1;
    for (int32_t t = 0; t < s->max_t; t++) s->forced_row[t] = -1;
    if (opt->override_count == 0) return AS_OK;
    if (opt->override_count < 0 || !opt->overrides) return AS_ERR_BAD_ATTENTION_OVERRIDE;
    if (s->model->info.attention_kind == AS_ATTENTION_NONE) return AS_ERR_BAD_ATTENTION_OVERRIDE;
    /* distinct steps below the cap: at most cap rows (checked before the size) */
    if (opt->override_count > p->cap) {
        for (int32_t i = 0; i < opt->override_count; i++)
            if (opt->overrides[i].step >= p->cap) return AS_ERR_OVERRIDE_STEP;
        return AS_ERR_BAD_ATTENTION_OVERRIDE; /* then two share a step */
    }
    const size_t need = (size_t)opt->override_count * n;
    if (need > s->forced_cap) {
        float *grown = realloc(s->forced_alpha, need * sizeof(float));
        if (!grown) return AS_ERR_OUT_OF_MEMORY;
        s->forced_alpha = grown;
        s->forced_cap = need;
    }
    for (int32_t i = 0; i < opt->override_count; i++) {
        const as_attention_override *o = &opt->overrides[i];
        if (o->length != p->count || !o->weights || o->step < 0) return AS_ERR_BAD_ATTENTION_OVERRIDE;
        float sum = 0.0f;
        for (size_t j = 0; j < n; j++) {
            const float w = o->weights[j];
            if (!(w >= 0.0f) || w > 3.4e38f) return AS_ERR_BAD_ATTENTION_OVERRIDE; /* NaN, negative, inf */
            sum += w;
        }
        if (!(sum > 0.0f) || sum > 3.4e38f) return AS_ERR_BAD_ATTENTION_OVERRIDE; /* all zero, or overflows */
        if (o->step >= p->cap) return AS_ERR_OVERRIDE_STEP;
        if (s->forced_row[o->step] >= 0) return AS_ERR_BAD_ATTENTION_OVERRIDE; /* two at one step */
        float *row = s->forced_alpha + (size_t)i * n;
        for (size_t j = 0; j < n; j++) row[j] = o->weights[j] / sum;
        s->forced_row[o->step] = i;
        if (o->step > p->last_forced) p->last_forced = o->step;
    }
    return AS_OK;
}

static const float *forced_at(const as_session *s, const prepared *p, int32_t t) {
    const int32_t row = s->forced_row[t];
    return row < 0 ? NULL : s->forced_alpha + (size_t)row * (size_t)p->count;
}

/* The centre p_t of the local-m window at free-decoding step t, with the
 * reference length T (as_options.window_steps, the global translation's):
 * as_window_mask's round(t (S - 1) / (T - 1)), halves up, for t < T - 1;
 * the last source position from T - 1 on (a decode that outruns T stays at
 * the end of the source rather than leaving it); p_0 = 0 when T = 1. */
static int32_t window_centre(int32_t t, int32_t steps, int32_t positions) {
    const int64_t t_span = steps - 1, s_span = positions - 1;
    if (t == 0) return 0;
    if (t >= t_span) return (int32_t)s_span;
    return (int32_t)((2 * (int64_t)t * s_span + t_span) / (2 * t_span));
}

/* The mask row of step t (s->window_keep, S values), or NULL for global
 * attention (no window asked, or a model without attention). */
static const uint8_t *window_at(as_session *s, const prepared *p, int32_t t) {
    const int32_t d = p->opt.window_half_width;
    if (d < 0 || s->model->info.attention_kind == AS_ATTENTION_NONE) return NULL;
    const int32_t centre = window_centre(t, p->opt.window_steps, p->count);
    for (int32_t j = 0; j < p->count; j++)
        s->window_keep[j] = (j >= centre - d && j <= centre + d) ? 1 : 0; /* the centre is kept: never empty */
    return s->window_keep;
}

/* The multiplier a call uses: score_scale, or the trained one for <= 0;
 * AS_ERR_BAD_OPTION for NaN, inf or more than AS_MAX_SCORE_SCALE. */
static as_status score_scale_of(float score_scale, const as_model_info *in, float *scale_out) {
    uint32_t scale_bits;
    memcpy(&scale_bits, &score_scale, sizeof scale_bits);
    if (((scale_bits >> 23) & 0xFFu) == 0xFFu) return AS_ERR_BAD_OPTION; /* inf / NaN */
    if (score_scale > AS_MAX_SCORE_SCALE) return AS_ERR_BAD_OPTION;       /* would overflow */
    *scale_out = score_scale > 0.0f ? score_scale : in->trained_score_scale;
    return AS_OK;
}

/* Runs the encoder on s->source_ids (count positions) unless the cached
 * result is for the same ids; 1 if it was reused. */
static int32_t encode_cached(as_session *s, int32_t count) {
    const int32_t reuse = s->cached_len == count &&
                          memcmp(s->cached_ids, s->source_ids, (size_t)count * sizeof(int32_t)) == 0;
    if (!reuse) {
        s->cached_len = 0;
        run_encoder(s, count);
        memcpy(s->cached_ids, s->source_ids, (size_t)count * sizeof(int32_t));
        s->cached_len = count;
    }
    return reuse;
}

/* Options, tokenisation, the encoder (cached), the length cap, overrides. */
static as_status prepare_call(as_session *s, const char *text, size_t length, const as_options *options,
                              prepared *p) {
    s->source_count = 0;
    if (!text && length > 0) return AS_ERR_NULL_ARGUMENT;
    as_options_default(&p->opt);
    if (options) p->opt = *options;
    const as_options *opt = &p->opt;
    const as_model_info *in = &s->model->info;
    if (score_scale_of(opt->score_scale, in, &p->scale) != AS_OK) return AS_ERR_BAD_OPTION;
    if (opt->top_k < 0 || opt->top_k > AS_TOP_K_MAX || opt->max_target_tokens < 0) return AS_ERR_BAD_OPTION;
    if (opt->cut_source != 0 && opt->cut_source != 1) return AS_ERR_BAD_OPTION;
    if (opt->window_half_width < -1) return AS_ERR_BAD_OPTION;
    if (opt->window_half_width >= 0 &&
        (opt->window_steps < 1 || opt->window_steps > AS_WINDOW_MAX_LENGTH || opt->override_count != 0))
        return AS_ERR_BAD_OPTION;

    int32_t count = 0, word_count = 0;
    as_status st = as_tokenize_internal(s->model, text, length, s->source_ids, s->source_spans,
                                        s->source_tokens, s->source_words, s->max_s, &count, &word_count);
    if (st != AS_OK) return st;
    s->source_count = count;
    if (count == 0) return AS_ERR_EMPTY_INPUT;
    if (count > s->max_s) {
        if (!opt->cut_source) return AS_ERR_INPUT_TOO_LONG;
        /* The tokeniser filled the first max_s tokens (its capacity); the
         * words are those these tokens belong to. */
        count = s->max_s;
        word_count = s->source_words[count - 1] + 1;
    }
    p->source_eos = (in->arch_flags & AS_ARCH_SOURCE_EOS) != 0;
    if (p->source_eos) { /* the encoder reads </s> last: a position like the words */
        s->source_ids[count] = AS_TOKEN_EOS;
        s->source_spans[2 * count] = s->source_spans[2 * count + 1] = (int32_t)length;
        memcpy(s->source_tokens + (size_t)count * AS_TOKEN_TEXT_STRIDE, "</s>", 5);
        s->source_words[count] = word_count++;
        count++;
    }
    p->count = count;
    p->word_count = word_count;

    int32_t cap = 2 * count + 10;
    if (cap > s->max_t) cap = s->max_t;
    if (opt->max_target_tokens > 0 && opt->max_target_tokens < cap) cap = opt->max_target_tokens;
    p->cap = cap;
    /* before the encoder: a refused override costs nothing */
    st = prepare_overrides(s, p);
    if (st != AS_OK) return st;

    p->reuse = encode_cached(s, count);
    return AS_OK;
}

/* The arrays of one decoded sequence (steps rows each). */
typedef struct {
    int32_t *target_ids, *copy_source, *translation_spans, *target_words;
    float *scores, *alpha, *context, *states;
    int32_t *top_ids;        /* (steps, AS_TOP_K_MAX) on entry; packed to (steps, K) */
    float *top_probs;        /* as top_ids */
    char **translation;      /* grows */
    size_t *translation_cap;
} sequence_arrays;

/* Fills tr from a decoded sequence: the source side, the display text
 * (src/detokenize.c), the candidates packed from stride AS_TOP_K_MAX to K. */
static as_status finish_trace(as_session *s, const prepared *p, const char *text, size_t length,
                              const sequence_arrays *a, int32_t steps, int32_t eos, as_trace *tr) {
    const as_model_info *in = &s->model->info;
    const int32_t count = p->count;
    tr->source_len = count;
    tr->source_eos = p->source_eos;
    tr->source_ids = s->source_ids;
    tr->source_spans = s->source_spans;
    tr->source_tokens = s->source_tokens;
    tr->target_len = steps;
    tr->target_ids = a->target_ids;
    tr->target_copy_source = a->copy_source;
    tr->scores = a->scores;
    tr->alpha = in->attention_kind == AS_ATTENTION_NONE ? NULL : a->alpha;
    tr->context = a->context;
    tr->context_dim = (int32_t)in->context_dim;
    tr->state = a->states;
    tr->state_dim = (int32_t)in->decoder_hidden;
    tr->score_scale = p->scale;
    tr->stopped_at_eos = eos;
    tr->encoder_reused = p->reuse;
    tr->source_words = s->source_words;
    tr->source_word_count = p->word_count;
    as_display display = {
        s->model, text, length, a->target_ids, steps, eos, tr->alpha, count, p->source_eos, s->source_spans,
        a->copy_source, a->translation_spans, a->target_words, 0, *a->translation, *a->translation_cap,
        s->pieces_raw, s->pieces_map, s->pieces_raw ? (size_t)s->max_t * AS_MAX_TOKEN_BYTES + 1 : 0};
    as_status st = as_display_build(&display);
    *a->translation = display.translation; /* it may have grown */
    *a->translation_cap = display.translation_cap;
    if (st != AS_OK) return st;
    tr->target_words = a->target_words;
    tr->target_word_count = display.target_word_count;
    const int32_t k = p->opt.top_k;
    tr->top_k = k;
    for (int32_t t = 1; t < steps; t++) {
        memmove(a->top_ids + (size_t)t * k, a->top_ids + (size_t)t * AS_TOP_K_MAX, (size_t)k * sizeof(int32_t));
        memmove(a->top_probs + (size_t)t * k, a->top_probs + (size_t)t * AS_TOP_K_MAX, (size_t)k * sizeof(float));
    }
    tr->top_ids = a->top_ids;
    tr->top_probs = a->top_probs;
    tr->translation = *a->translation;
    tr->translation_spans = a->translation_spans;
    return AS_OK;
}

as_status as_translate(as_session *s, const char *text, size_t length,
                       const as_options *options, const as_trace **trace_out) {
    if (!s || !trace_out) return AS_ERR_NULL_ARGUMENT;
    *trace_out = NULL;
    prepared p;
    as_status st = prepare_call(s, text, length, options, &p);
    if (st != AS_OK) return st;

    memcpy(s->state, s->s0, s->model->info.decoder_hidden * sizeof(float));
    int32_t prev = AS_TOKEN_BOS, steps = 0, eos = 0;
    while (steps < p.cap) {
        const step_rows rows = greedy_rows(s, p.count, steps);
        decoder_step(s, p.count, 1, &prev, p.scale, p.opt.top_k, forced_at(s, &p, steps), window_at(s, &p, steps),
                     &rows, NULL, NULL);
        prev = s->target_ids[steps++] = rows.top_ids[0];
        if (prev == AS_TOKEN_EOS) {
            eos = 1;
            break;
        }
    }
    if (p.last_forced >= steps) return AS_ERR_OVERRIDE_STEP; /* it ended before that step */

    sequence_arrays a = {s->target_ids, s->copy_source, s->translation_spans, s->target_words, s->scores,
                         s->alpha, s->context, s->states, s->top_ids, s->top_probs, &s->translation,
                         &s->translation_cap};
    st = finish_trace(s, &p, text, length, &a, steps, eos, &s->trace);
    if (st != AS_OK) return st;
    *trace_out = &s->trace;
    return AS_OK;
}

/* ---- beam search ------------------------------------------------------- */

/* The beam's storage, carved from one block (s->beam_block). Steps run
 * t = 0 .. cap-1; at step t the live hypotheses sit in slots 0 .. live-1.
 *   tree rows, (cap * k): row t*k + i is what step t computed for slot i's
 *     prefix (its scores, alpha, context, state s_t, candidates);
 *   nodes, (cap * k): node t*k + j is the hypothesis in slot j after step t:
 *     the row it was computed in, its token y_t, log p(y_t | ...), its parent
 *     node (-1 at t = 0);
 *   hypotheses, (k): each final hypothesis's own arrays (cap rows). */
typedef struct {
    float *scores, *alpha, *context, *states, *top_probs; /* tree rows */
    int32_t *top_ids;
    int32_t *node_row, *node_token, *node_parent;         /* nodes */
    float *node_log_prob;
    float *hyp_floats;       /* k * cap * (2S + C + Hd + AS_TOP_K_MAX + 1) */
    int32_t *hyp_ints;       /* k * cap * (4 + 2 + AS_TOP_K_MAX) */
} beam_storage;

static size_t tree_row_floats(const prepared *p, const as_model_info *in) {
    return 2 * (size_t)p->count + in->context_dim + in->decoder_hidden + AS_TOP_K_MAX;
}

/* Carves the beam's arrays for width k out of s->beam_block, growing it;
 * AS_ERR_BEAM_TOO_LARGE past AS_BEAM_MAX_BYTES. */
static as_status beam_carve(as_session *s, const prepared *p, int32_t k, beam_storage *b) {
    const as_model_info *in = &s->model->info;
    const size_t rows = (size_t)p->cap * (size_t)k, n = (size_t)p->count;
    const size_t row_f = tree_row_floats(p, in);
    const size_t hyp_f = row_f + 1, hyp_i = 6 + AS_TOP_K_MAX;
    /* every factor is at most a few thousand (header limits): no overflow in size_t */
    const size_t floats = rows * (row_f + 1) + rows * hyp_f;
    const size_t ints = rows * (AS_TOP_K_MAX + 3) + rows * hyp_i;
    const size_t bytes = floats * sizeof(float) + ints * sizeof(int32_t);
    if (bytes > AS_BEAM_MAX_BYTES) return AS_ERR_BEAM_TOO_LARGE;
    if (bytes > s->beam_block_bytes) {
        void *grown = realloc(s->beam_block, bytes);
        if (!grown) return AS_ERR_OUT_OF_MEMORY;
        s->beam_block = grown;
        s->beam_block_bytes = bytes;
    }
    float *f = s->beam_block;
    b->scores = f, f += rows * n;
    b->alpha = f, f += rows * n;
    b->context = f, f += rows * in->context_dim;
    b->states = f, f += rows * in->decoder_hidden;
    b->top_probs = f, f += rows * AS_TOP_K_MAX;
    b->node_log_prob = f, f += rows;
    b->hyp_floats = f, f += rows * hyp_f;
    int32_t *i = (int32_t *)f;
    b->top_ids = i, i += rows * AS_TOP_K_MAX;
    b->node_row = i, i += rows;
    b->node_token = i, i += rows;
    b->node_parent = i, i += rows;
    b->hyp_ints = i;
    return AS_OK;
}

static step_rows beam_rows(const beam_storage *b, const prepared *p, const as_model_info *in, size_t row) {
    const size_t n = (size_t)p->count;
    step_rows r = {b->scores + row * n, b->alpha + row * n, b->context + row * in->context_dim,
                   b->states + row * in->decoder_hidden, b->top_ids + row * AS_TOP_K_MAX,
                   b->top_probs + row * AS_TOP_K_MAX};
    return r;
}

/* One candidate extension of a live hypothesis. */
typedef struct {
    float log_prob;          /* the hypothesis's log-probability with this token */
    float step_log_prob;     /* log p(token | prefix) */
    int32_t slot, rank, token;
} beam_candidate;

/* Better first: higher log-probability, then the older slot, then the
 * token with the higher logit (rank in its slot's top list). */
static int candidate_before(const beam_candidate *a, const beam_candidate *b) {
    if (a->log_prob != b->log_prob) return a->log_prob > b->log_prob;
    if (a->slot != b->slot) return a->slot < b->slot;
    return a->rank < b->rank;
}

typedef struct {
    int32_t node, steps, eos;
    float log_prob, score;
} beam_final;

static float length_normalised(float log_prob, int32_t steps, float length_penalty) {
    return length_penalty == 0.0f ? log_prob : log_prob / powf((float)steps, length_penalty);
}

as_status as_translate_beam(as_session *s, const char *text, size_t length, const as_options *options,
                            const as_hypothesis **hypotheses_out, int32_t *count_out) {
    if (!s || !hypotheses_out || !count_out) return AS_ERR_NULL_ARGUMENT;
    *hypotheses_out = NULL;
    *count_out = 0;
    if (options && (options->beam_width < 1 || options->beam_width > AS_BEAM_MAX_WIDTH)) {
        s->source_count = 0;
        return AS_ERR_BAD_BEAM_WIDTH;
    }
    if (options && !(options->length_penalty >= 0.0f && options->length_penalty <= AS_MAX_LENGTH_PENALTY)) {
        s->source_count = 0;
        return AS_ERR_BAD_OPTION; /* NaN too */
    }
    prepared p;
    as_status st = prepare_call(s, text, length, options, &p);
    if (st != AS_OK) return st;
    const as_model_info *in = &s->model->info;
    const int32_t k = p.opt.beam_width, vt = (int32_t)in->tgt_vocab_size;
    const size_t hd = in->decoder_hidden;
    beam_storage b;
    st = beam_carve(s, &p, k, &b);
    if (st == AS_OK) st = reserve_step_width(s, k);
    if (st != AS_OK) return st;

    beam_candidate candidates[AS_BEAM_MAX_WIDTH * AS_BEAM_MAX_WIDTH];
    beam_final finals[AS_BEAM_MAX_WIDTH];
    int32_t ranked[AS_BEAM_MAX_WIDTH];
    int32_t live_node[AS_BEAM_MAX_WIDTH]; /* node of each live slot; -1 before step 0 */
    float live_log_prob[AS_BEAM_MAX_WIDTH];
    int32_t live = 1, finished = 0, steps_run = 0;
    live_node[0] = -1;
    live_log_prob[0] = 0.0f;

    for (int32_t t = 0; t < p.cap && live > 0; t++) {
        const int32_t want = k - finished; /* hypotheses still to be made */
        const int32_t per_slot = want < vt ? want : vt;
        int32_t n_candidates = 0;
        /* every live hypothesis's step in one batched decoder step: its
         * parent's state in row i of s->state, its rows of the tree at t*k + i */
        step_rows rows[AS_BEAM_MAX_WIDTH];
        int32_t prev[AS_BEAM_MAX_WIDTH];
        float best[AS_BEAM_MAX_WIDTH], sums[AS_BEAM_MAX_WIDTH];
        for (int32_t i = 0; i < live; i++) {
            const int32_t parent = live_node[i];
            rows[i] = beam_rows(&b, &p, in, (size_t)t * k + (size_t)i);
            memcpy(s->state + (size_t)i * hd, parent < 0 ? s->s0 : b.states + (size_t)b.node_row[parent] * hd,
                   hd * sizeof(float));
            prev[i] = parent < 0 ? AS_TOKEN_BOS : b.node_token[parent];
        }
        decoder_step(s, p.count, live, prev, p.scale, p.opt.top_k, forced_at(s, &p, t), window_at(s, &p, t), rows,
                     best, sums);
        for (int32_t i = 0; i < live; i++) {
            const float *logits = s->logits + (size_t)i * (size_t)vt;
            /* the slot's best per_slot tokens; the first is decoder_step's winner */
            int32_t best_ids[AS_BEAM_MAX_WIDTH];
            as_f32_top_k((size_t)vt, logits, per_slot, best_ids);
            const float log_sum = logf(sums[i]);
            for (int32_t r = 0; r < per_slot; r++) {
                beam_candidate *c = &candidates[n_candidates++];
                c->step_log_prob = (logits[best_ids[r]] - best[i]) - log_sum;
                c->log_prob = live_log_prob[i] + c->step_log_prob;
                c->slot = i;
                c->rank = r;
                c->token = best_ids[r];
            }
        }
        steps_run = t + 1;
        /* the best `want` candidates, in order (insertion sort: at most 64) */
        for (int32_t i = 1; i < n_candidates; i++) {
            beam_candidate c = candidates[i];
            int32_t j = i;
            while (j > 0 && candidate_before(&c, &candidates[j - 1])) {
                candidates[j] = candidates[j - 1];
                j--;
            }
            candidates[j] = c;
        }
        const int32_t take = n_candidates < want ? n_candidates : want;
        int32_t next_live = 0, next_node[AS_BEAM_MAX_WIDTH];
        float next_log_prob[AS_BEAM_MAX_WIDTH];
        for (int32_t c = 0; c < take; c++) {
            const beam_candidate *cand = &candidates[c];
            /* node slots at step t are numbered in selection order */
            const int32_t node = t * k + c;
            b.node_row[node] = t * k + cand->slot;
            b.node_token[node] = cand->token;
            b.node_parent[node] = live_node[cand->slot];
            b.node_log_prob[node] = cand->step_log_prob;
            if (cand->token == AS_TOKEN_EOS) {
                finals[finished++] = (beam_final){node, t + 1, 1, cand->log_prob, 0.0f};
            } else {
                next_node[next_live] = node;
                next_log_prob[next_live++] = cand->log_prob;
            }
        }
        live = next_live;
        memcpy(live_node, next_node, (size_t)live * sizeof(int32_t));
        memcpy(live_log_prob, next_log_prob, (size_t)live * sizeof(float));
    }
    /* still live at the cap: final without </s> */
    for (int32_t i = 0; i < live; i++)
        finals[finished++] = (beam_final){live_node[i], steps_run, 0, live_log_prob[i], 0.0f};
    if (p.last_forced >= steps_run) return AS_ERR_OVERRIDE_STEP;

    /* rank: best normalised score first; ties keep the order they were made in */
    for (int32_t h = 0; h < finished; h++) {
        finals[h].score = length_normalised(finals[h].log_prob, finals[h].steps, p.opt.length_penalty);
        int32_t j = h;
        while (j > 0 && finals[h].score > finals[ranked[j - 1]].score) {
            ranked[j] = ranked[j - 1];
            j--;
        }
        ranked[j] = h;
    }

    /* each final hypothesis's own trace, walked back from its last node */
    const size_t n = (size_t)p.count, cap = (size_t)p.cap, c_dim = in->context_dim;
    const size_t hyp_f = tree_row_floats(&p, in) + 1, hyp_i = 6 + AS_TOP_K_MAX;
    for (int32_t h = 0; h < finished; h++) {
        const beam_final *f = &finals[ranked[h]];
        float *ff = b.hyp_floats + (size_t)h * cap * hyp_f;
        int32_t *ii = b.hyp_ints + (size_t)h * cap * hyp_i;
        float *scores = ff, *alpha = scores + cap * n, *context = alpha + cap * n, *states = context + cap * c_dim;
        float *top_probs = states + cap * hd, *step_lp = top_probs + cap * AS_TOP_K_MAX;
        int32_t *target_ids = ii, *copy_source = ii + cap, *spans = ii + 2 * cap, *words = ii + 4 * cap;
        int32_t *top_ids = ii + 5 * cap;
        int32_t node = f->node;
        for (int32_t t = f->steps - 1; t >= 0; t--, node = b.node_parent[node]) {
            const step_rows r = beam_rows(&b, &p, in, (size_t)b.node_row[node]);
            memcpy(scores + t * n, r.scores, n * sizeof(float));
            memcpy(alpha + t * n, r.alpha, n * sizeof(float));
            memcpy(context + t * c_dim, r.context, c_dim * sizeof(float));
            memcpy(states + t * hd, r.state, hd * sizeof(float));
            memcpy(top_ids + t * AS_TOP_K_MAX, r.top_ids, AS_TOP_K_MAX * sizeof(int32_t));
            memcpy(top_probs + t * AS_TOP_K_MAX, r.top_probs, AS_TOP_K_MAX * sizeof(float));
            target_ids[t] = b.node_token[node];
            step_lp[t] = b.node_log_prob[node];
        }
        sequence_arrays a = {target_ids, copy_source, spans, words, scores, alpha, context, states, top_ids,
                             top_probs, &s->hyp_translation[h], &s->hyp_translation_cap[h]};
        as_hypothesis *hyp = &s->hypotheses[h];
        st = finish_trace(s, &p, text, length, &a, f->steps, f->eos, &hyp->trace);
        if (st != AS_OK) return st;
        hyp->log_prob = f->log_prob;
        hyp->score = f->score;
        hyp->step_log_probs = step_lp;
    }
    *hypotheses_out = s->hypotheses;
    *count_out = finished;
    return AS_OK;
}

/* ---- forced decoding ---------------------------------------------------- */

int32_t as_model_source_positions(const as_model *model, int32_t source_count) {
    if (!model || source_count < 1) return 0;
    return source_count + ((model->info.arch_flags & AS_ARCH_SOURCE_EOS) ? 1 : 0);
}

as_status as_window_mask(int32_t target_count, int32_t source_positions, int32_t half_width, uint8_t *keep) {
    if (!keep) return AS_ERR_NULL_ARGUMENT;
    if (target_count < 1 || target_count > AS_WINDOW_MAX_LENGTH || source_positions < 1 ||
        source_positions > AS_WINDOW_MAX_LENGTH || half_width < 0)
        return AS_ERR_BAD_OPTION;
    const int64_t t_span = target_count - 1, s_span = source_positions - 1;
    for (int64_t t = 0; t < target_count; t++) {
        /* p_t = round(t (S-1) / (T-1)), halves up, in exact integers (2^33 at most) */
        const int64_t p = t_span == 0 ? 0 : (2 * t * s_span + t_span) / (2 * t_span);
        uint8_t *row = keep + t * source_positions;
        for (int64_t j = 0; j < source_positions; j++) row[j] = (j >= p - half_width && j <= p + half_width) ? 1 : 0;
    }
    return AS_OK;
}

/* The checks of as_force_score (src/alignscope.h lists them, in order),
 * before anything runs: *position gets the offending index, or -1. */
static as_status check_forced(const as_session *s, const int32_t *source_ids, int32_t source_count,
                              const int32_t *target_ids, int32_t target_count, const uint8_t *keep,
                              int32_t *position) {
    const as_model_info *in = &s->model->info;
    if (source_count < 1) return AS_ERR_EMPTY_INPUT;
    if (source_count > s->max_s) return AS_ERR_INPUT_TOO_LONG;
    for (int32_t j = 0; j < source_count; j++) {
        if (source_ids[j] < 0 || (uint32_t)source_ids[j] >= in->src_vocab_size) {
            *position = j;
            return AS_ERR_BAD_SOURCE_TOKEN;
        }
    }
    if (target_count < 1 || target_count > s->max_t) return AS_ERR_BAD_TARGET;
    for (int32_t t = 0; t < target_count; t++) {
        if (target_ids[t] < 0 || (uint32_t)target_ids[t] >= in->tgt_vocab_size) {
            *position = t;
            return AS_ERR_BAD_TARGET;
        }
    }
    if (keep && in->attention_kind != AS_ATTENTION_NONE) {
        const size_t n = (size_t)as_model_source_positions(s->model, source_count);
        for (int32_t t = 0; t < target_count; t++) {
            const uint8_t *row = keep + (size_t)t * n;
            uint8_t any = 0, other = 0;
            for (size_t j = 0; j < n; j++) {
                any |= row[j];
                other |= row[j] & 0xFEu; /* a value other than 0 and 1 */
            }
            if (!any || other) {
                *position = t;
                return AS_ERR_BAD_ATTENTION_MASK;
            }
        }
    }
    return AS_OK;
}

as_status as_force_score(as_session *s, const int32_t *source_ids, int32_t source_count,
                         const int32_t *target_ids, int32_t target_count, const uint8_t *keep,
                         float score_scale, float *log_probs, float *alpha, int32_t *error_position) {
    int32_t position = -1;
    if (error_position) *error_position = -1;
    if (!s || !log_probs || (source_count > 0 && !source_ids) || (target_count > 0 && !target_ids))
        return AS_ERR_NULL_ARGUMENT;
    s->source_count = 0;
    const as_model_info *in = &s->model->info;
    float scale;
    as_status st = score_scale_of(score_scale, in, &scale);
    if (st == AS_OK) {
        st = check_forced(s, source_ids, source_count, target_ids, target_count, keep, &position);
        if (source_count > 0) s->source_count = source_count;
    }
    if (st != AS_OK) {
        if (error_position) *error_position = position;
        return st;
    }

    /* the encoder reads the ids (and </s>) from s->source_ids, as for a text */
    const int32_t n = as_model_source_positions(s->model, source_count);
    memcpy(s->source_ids, source_ids, (size_t)source_count * sizeof(int32_t));
    if (n > source_count) s->source_ids[source_count] = AS_TOKEN_EOS;
    encode_cached(s, n);

    /* Teacher forcing: step t is fed y_{t-1} (<s> first), whatever the
     * decoder would have chosen. The session's trace rows are the scratch;
     * log p(y_t) = (l_{y_t} - l_max) - log sum_i exp(l_i - l_max), as the
     * beam's step log-probabilities. */
    const int attends = in->attention_kind != AS_ATTENTION_NONE;
    memcpy(s->state, s->s0, in->decoder_hidden * sizeof(float));
    int32_t prev = AS_TOKEN_BOS;
    for (int32_t t = 0; t < target_count; t++) {
        const step_rows rows = greedy_rows(s, n, t);
        const uint8_t *row_keep = keep && attends ? keep + (size_t)t * (size_t)n : NULL;
        float best, sum;
        decoder_step(s, n, 1, &prev, scale, 0, NULL, row_keep, &rows, &best, &sum);
        const int32_t y = target_ids[t];
        log_probs[t] = (s->logits[y] - best) - logf(sum);
        if (alpha && attends) memcpy(alpha + (size_t)t * (size_t)n, rows.alpha, (size_t)n * sizeof(float));
        prev = y;
    }
    return AS_OK;
}

int32_t as_session_source_count(const as_session *s) {
    return s ? s->source_count : 0;
}
