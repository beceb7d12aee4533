/* model_internal.h - what a loaded model holds; shared by model.c (which
 * builds it), tokenizer.c (which looks words up) and engine.c (which runs it).
 * Not part of the public API. */
#ifndef ALIGNSCOPE_MODEL_INTERNAL_H
#define ALIGNSCOPE_MODEL_INTERNAL_H

#include "alignscope.h"
#include "alignscope_format.h"

/* One vocabulary: token texts copied out of the file, each NUL-terminated
 * (the file forbids bytes below 0x20, so NUL cannot occur inside a token). */
typedef struct {
    uint32_t size;
    char *text;          /* all tokens back to back, NUL after each */
    uint32_t *offset;    /* (size) start of token id in text */
    uint8_t *length;     /* (size) byte length, 1..255 */
} as_vocab;

struct as_model {
    as_model_info info;
    as_vocab src, tgt;
    /* Open-addressing hash of source tokens: slot holds id+1, 0 = empty;
     * capacity is a power of two at least twice the vocabulary size. */
    uint32_t *src_hash;
    uint32_t src_hash_mask;
    float *weights;                          /* every tensor, widened to f32 */
    const float *tensor[AS_TENSOR_COUNT];    /* into weights; NULL if absent */
    /* Named views of tensor[] (shapes as in alignscope_format.h). The weight
     * matrices (enc_w_*, init_w, attn_*_w, dec_w_*, out_w, proj_w) are in the
     * p24 layout of kernels.h once the model is loaded, not row-major. */
    const float *src_embedding;  /* (Vs, E) */
    const float *enc_w_ih[2];    /* (3He, E)   [0] forward, [1] backward */
    const float *enc_w_hh[2];    /* (3He, He) */
    const float *enc_b_ih[2];    /* (3He) */
    const float *enc_b_hh[2];    /* (3He) */
    const float *init_w;         /* (Hd, He) */
    const float *init_b;         /* (Hd) */
    const float *attn_query_w;   /* (A, Hd)   additive only */
    const float *attn_key_w;     /* (A, 2He)  additive; (Hd, 2He) general */
    const float *attn_v;         /* (A)       additive only */
    const float *tgt_embedding;  /* (Vt, E) */
    const float *dec_w_ih;       /* (3Hd, E + 2He), input [embedding; context] */
    const float *dec_w_hh;       /* (3Hd, Hd) */
    const float *dec_b_ih;       /* (3Hd) */
    const float *dec_b_hh;       /* (3Hd) */
    const float *out_w;          /* (O, Hd + 2He + E), input [state; context; embedding] */
    const float *out_b;          /* (O) */
    const float *proj_w;         /* (Vt, O) */
    const float *proj_b;         /* (Vt) */
};

/* Repacks the weight matrices into the layout the engine's kernels read
 * (engine.c); the loader calls it once, last. */
as_status as_model_pack_weights(as_model *model);

/* FNV-1a over a token's bytes; the loader and the lookup must agree. */
uint32_t as_token_hash(const char *bytes, size_t length);
/* Source id of a token's (folded) bytes, AS_TOKEN_UNK if absent. */
int32_t as_model_lookup_source(const as_model *model, const char *bytes, size_t length);

/* Tokeniser core (tokenizer.c). As as_tokenize, and when token_text is not
 * NULL also writes each token's folded, lower-cased text, NUL-terminated and
 * cut at a character boundary to at most AS_TOKEN_TEXT_STRIDE - 1 bytes, at
 * token_text + i * AS_TOKEN_TEXT_STRIDE. */
as_status as_tokenize_internal(const as_model *model, const char *text, size_t length,
                               int32_t *ids, int32_t *spans, char *token_text,
                               int32_t capacity, int32_t *count_out);

/* Decodes one UTF-8 code point at text[*pos] (pos < length), advancing *pos.
 * An invalid or truncated sequence yields U+FFFD and consumes one byte. */
uint32_t as_utf8_decode(const uint8_t *text, size_t length, size_t *pos);
/* Encodes cp into out (4 bytes room); returns the byte count. */
size_t as_utf8_encode(uint32_t cp, char *out);

#endif
