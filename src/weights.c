/* weights.c - the weight layout the engine multiplies: at load (model.c calls
 * as_model_pack_weights last) the decoder's context columns are split off and
 * every matrix is repacked for its kernel (kernels.h), in place. */
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "model_internal.h"

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
 * reads (kernels.h: p24 for f32, q32 or q8c4 for int8) once, when the model is
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
        if (w->i8) failed = as_i8_pack_weights(matrices[i].rows, matrices[i].cols, (int8_t *)w->i8) != 0;
        else if (w->f32) failed = as_f32_pack_p24(matrices[i].rows, matrices[i].cols, (float *)w->f32) != 0;
        if (failed) return AS_ERR_OUT_OF_MEMORY;
    }
    return AS_OK;
}

