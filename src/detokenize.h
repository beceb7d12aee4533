/* detokenize.h - the translation's display text from the decoder's tokens
 * (detokenize.c): whole words joined by the rules of models/FORMAT.md 5
 * (with <unk> replaced by the user's own source word), or subword pieces
 * joined by FORMAT.md 5.2; each step's byte span in the text, and the word
 * each step belongs to. */
#ifndef ALIGNSCOPE_DETOKENIZE_H
#define ALIGNSCOPE_DETOKENIZE_H

#include "model_internal.h"

typedef struct {
    /* in */
    const as_model *model;
    const char *text;              /* the user's source text (copied words, its case) */
    size_t text_len;
    const int32_t *target_ids;     /* (steps) */
    int32_t steps;
    int32_t stopped_at_eos;        /* the last step is </s> */
    const float *alpha;            /* (steps, source_len), NULL for kind none */
    int32_t source_len, source_eos;
    const int32_t *source_spans;   /* (source_len, 2) */
    /* out (buffers owned by the caller; translation grows if it must) */
    int32_t *copy_source;          /* (steps) source position an <unk> copies, else -1 */
    int32_t *translation_spans;    /* (steps, 2) byte [start, end) in translation */
    int32_t *target_words;         /* (steps) word index of each step (</s>: one of its own) */
    int32_t target_word_count;
    char *translation;             /* NUL-terminated */
    size_t translation_cap;
    /* subword scratch: the raw bytes of the pieces and, per raw byte, where it
     * lands in the text; scratch_cap >= steps * AS_MAX_TOKEN_BYTES + 1 */
    uint8_t *scratch;
    int32_t *scratch_map;
    size_t scratch_cap;
} as_display;

/* Fills the out fields; AS_ERR_OUT_OF_MEMORY if translation cannot grow. */
as_status as_display_build(as_display *d);

#endif
