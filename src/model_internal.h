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

/* A weight matrix as the engine reads it: f32, or int8 with one f32 scale
 * per row (weight = scale[r] * q[r][c], models/FORMAT.md 3.1). Exactly one
 * of f32 / i8 is set; both NULL = absent. The embeddings stay row-major; the
 * other matrices are repacked at load (p24 for f32, q32 for int8, kernels.h). */
typedef struct {
    const float *f32;    /* (rows, cols) */
    const int8_t *i8;    /* (rows, cols) */
    const float *scale;  /* (rows), with i8 */
} as_matrix;

/* A layer normalisation's gain and shift (AS_ARCH_LAYER_NORM), each as
 * wide as what it normalises (3H for a GRU's gates, O for the deep output);
 * both NULL = absent (the model uses biases there). */
typedef struct {
    const float *gain;
    const float *shift;
} as_layer_norm;

/* The source side's merge table (AS_ARCH_SUBWORDS): entries (count, 3) are
 * left, right, result ids in rank order; hash is open addressing on the
 * (left, right) pair, slot = rank + 1, 0 = empty. */
typedef struct {
    uint32_t count;
    uint16_t *entries;
    uint32_t *hash;
    uint32_t hash_mask;
} as_merges;

struct as_model {
    as_model_info info;
    as_vocab src, tgt;
    as_merges merges;            /* empty unless AS_ARCH_SUBWORDS */
    /* Open-addressing hash of source tokens: slot holds id+1, 0 = empty;
     * capacity is a power of two at least twice the vocabulary size. */
    uint32_t *src_hash;
    uint32_t src_hash_mask;
    /* Owned storage: weights holds every f32 value (all tensors of an f32 or
     * f16 file, widened; for int8, the 1-D tensors and the row scales);
     * qweights the int8 matrices' values (NULL unless int8). */
    float *weights;
    int8_t *qweights;
    /* Named views (shapes as in alignscope_format.h). */
    as_matrix src_embedding;     /* (Vs, E) */
    as_matrix enc_w_ih[2];       /* (3He, E)   [0] forward, [1] backward (absent if
                                    AS_ARCH_UNIDIRECTIONAL) */
    as_matrix enc_w_hh[2];       /* (3He, He) */
    const float *enc_b_ih[2];    /* (3He) */
    const float *enc_b_hh[2];    /* (3He)     enc_b_*: absent with AS_ARCH_LAYER_NORM */
    as_layer_norm enc_ln_ih[2];  /* (3He)     normalises W_ih x, gate by gate: AS_ARCH_LAYER_NORM only */
    as_layer_norm enc_ln_hh[2];  /* (3He)     normalises W_hh h, the same way */
    as_matrix init_w;            /* (Hd, He)  absent with AS_ARCH_INIT_FROM_ENCODER */
    const float *init_b;         /* (Hd) */
    as_matrix attn_query_w;      /* (A, Hd)   additive only */
    const float *attn_query_b;   /* (A)       additive + AS_ARCH_ATTENTION_BIAS, else NULL */
    as_matrix attn_key_w;        /* (A, C)    additive; (Hd, C) general; C = info.context_dim */
    const float *attn_key_b;     /* (A)       as attn_query_b */
    const float *attn_v;         /* (A)       additive only */
    const float *attn_v_b;       /* (1)       as attn_query_b */
    as_matrix tgt_embedding;     /* (Vt, E) */
    as_matrix dec_w_ih;          /* (3Hd, E + C), input [embedding; context]: the
                                    file's tensor; as_model_pack_weights splits it
                                    into dec_w_emb and dec_w_ctx and clears it */
    as_matrix dec_w_hh;          /* (3Hd, Hd) */
    const float *dec_b_ih;       /* (3Hd) */
    const float *dec_b_hh;       /* (3Hd)     dec_b_*: absent with AS_ARCH_LAYER_NORM */
    as_layer_norm dec_ln_ih;     /* (3Hd)     normalises W_ih [emb ; c_t] (context included) */
    as_layer_norm dec_ln_hh;     /* (3Hd)     normalises W_hh s */
    as_matrix out_w;             /* (O, Hd + C + E), input [state; context; embedding];
                                    absent with AS_ARCH_DIRECT_OUTPUT; split into
                                    out_w_se and out_w_ctx, then cleared */
    const float *out_b;          /* (O) */
    as_layer_norm out_ln;        /* (O)       normalises the deep output's pre-activation (after
                                    out_b, before the tanh): AS_ARCH_LAYER_NORM, no DIRECT_OUTPUT */
    /* The same weights as the engine multiplies them (as_model_pack_weights).
     * A context c_t = sum_j alpha_tj h_j enters the decoder only through
     * W_ctx c_t, which is sum_j alpha_tj (W_ctx h_j): the engine computes
     * W_ctx h_j once per source position (encoder) and each step takes the
     * alpha-weighted sum of those S vectors instead of streaming W_ctx. */
    as_matrix dec_w_emb;         /* (3Hd, E)  the embedding columns of dec_w_ih */
    as_matrix dec_w_ctx;         /* (3Hd, C)  its context columns */
    as_matrix out_w_se;          /* (O, Hd + E) out_w's state and embedding columns,
                                    input [state; embedding] */
    as_matrix out_w_ctx;         /* (O, C)    out_w's context columns */
    as_matrix proj_w;            /* (Vt, O) */
    const float *proj_b;         /* (Vt) */
};

/* Repacks the weight matrices into the layout the engine's kernels read
 * (engine.c); the loader calls it once, last. */
as_status as_model_pack_weights(as_model *model);

/* FNV-1a over a token's bytes; the loader and the lookup must agree. */
uint32_t as_token_hash(const char *bytes, size_t length);
/* Source id of a token's (folded) bytes, AS_TOKEN_UNK if absent. */
int32_t as_model_lookup_source(const as_model *model, const char *bytes, size_t length);

/* The rank of merging source tokens (left, right), and in *result the token
 * it makes; -1 if the table has no such merge. */
int32_t as_model_merge_rank(const as_model *model, int32_t left, int32_t right, int32_t *result);

/* FORMAT.md 5 step 3: is cp a word character (a letter, a digit, or anything
 * non-ASCII that is not punctuation)? The tokeniser's rule, which the display
 * text's word boundaries follow too (tokenizer.c). */
int as_is_word_char(uint32_t cp);

/* Tokeniser core (tokenizer.c). As as_tokenize, and when token_text is not
 * NULL also writes each token's text as looked up (words: folded and
 * lower-cased; subwords: the piece), NUL-terminated and cut at a character
 * boundary to at most AS_TOKEN_TEXT_STRIDE - 1 bytes, at token_text + i *
 * AS_TOKEN_TEXT_STRIDE; when words is not NULL, each token's word index (a
 * subword model's pre-token; otherwise the token itself), and in
 * *word_count_out (if not NULL) the number of words. */
as_status as_tokenize_internal(const as_model *model, const char *text, size_t length,
                               int32_t *ids, int32_t *spans, char *token_text, int32_t *words,
                               int32_t capacity, int32_t *count_out, int32_t *word_count_out);

#endif
