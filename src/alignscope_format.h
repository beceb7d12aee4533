/* alignscope_format.h - the model file format, defined in this one place.
 *
 * models/FORMAT.md is the prose version of this header; models/train/export.py
 * writes it and src/model.c reads it. Any change: update all three, and bump
 * AS_FORMAT_VERSION unless an older reader already refuses the new files by
 * name (a new arch_flags bit: AS_ERR_UNKNOWN_FEATURE; models/FORMAT.md).
 */
#ifndef ALIGNSCOPE_FORMAT_H
#define ALIGNSCOPE_FORMAT_H

#include <stdint.h>

#define AS_FORMAT_MAGIC "ALNSCOPE" /* 8 bytes, no terminator in the file */
/* 2 added weight_type 2 (int8); 3 added arch_flags (the header's last u32);
 * 4 added AS_ARCH_SUBWORDS and its merge table; 5 put the header under the
 * CRC (AS_OFF_CRC32) and tightened the language tags and the trained score
 * scale (AS_MIN/MAX_TRAINED_SCORE_SCALE). Before 5 the CRC covered only the
 * bytes after the header, so a flipped header bit changed a translation
 * without a word: this engine loads version 5 only and refuses older files
 * with AS_ERR_VERSION_UNSUPPORTED ("re-export"; models/train/migrate_format.py
 * rewrites an old file's header and CRC without touching the rest). */
#define AS_FORMAT_VERSION 5u
#define AS_FORMAT_VERSION_OLDEST 5u
#define AS_HEADER_SIZE 96u

/* attention_kind */
enum as_attention_kind {
    AS_ATTENTION_NONE = 0,       /* fixed summary context, no alignment */
    AS_ATTENTION_ADDITIVE = 1,   /* v^T tanh(W_a s + U_a h)  (Bahdanau) */
    AS_ATTENTION_DOT = 2,        /* s^T h                     (Luong dot) */
    AS_ATTENTION_GENERAL = 3,    /* s^T W h                   (Luong general) */
    AS_ATTENTION_SCALED_DOT = 4  /* s^T h / sqrt(d)           (Vaswani et al.) */
};

/* weight_type. f32 and f16 store every tensor as elements of that type.
 * AS_WEIGHT_I8 (format version >= 2): every 2-D tensor (a matrix, embeddings
 * included) is stored as
 *     f32 scale[rows], then int8 q[rows * cols] (row-major),
 * with weight (r, c) = scale[r] * q[r * cols + c] (one f32 multiply). Each
 * scale is finite and >= 0, each q in -127 ... 127 (-128 is refused). No
 * padding: the next tensor starts right after the last q byte. The 1-D
 * tensors (biases, attn_v) stay f32. The writer uses scale = max|row| / 127
 * and q = round(w / scale) (0 for an all-zero row), but the reader relies
 * only on the rule above. */
enum as_weight_type { AS_WEIGHT_F32 = 0, AS_WEIGHT_F16 = 1, AS_WEIGHT_I8 = 2 };
#define AS_I8_MAX 127

/* Byte offsets of the little-endian header fields. */
enum as_header_offset {
    AS_OFF_MAGIC = 0,
    AS_OFF_FORMAT_VERSION = 8,
    AS_OFF_HEADER_SIZE = 12,
    AS_OFF_ATTENTION_KIND = 16,
    AS_OFF_WEIGHT_TYPE = 20,
    AS_OFF_SRC_VOCAB_SIZE = 24,
    AS_OFF_TGT_VOCAB_SIZE = 28,
    AS_OFF_EMBED_DIM = 32,
    AS_OFF_ENCODER_HIDDEN = 36,
    AS_OFF_DECODER_HIDDEN = 40,
    AS_OFF_ATTENTION_DIM = 44,
    AS_OFF_OUTPUT_DIM = 48,
    AS_OFF_MAX_SOURCE_TOKENS = 52,
    AS_OFF_MAX_TARGET_TOKENS = 56,
    AS_OFF_TRAINED_SCORE_SCALE = 60, /* f32 */
    AS_OFF_VOCAB_BYTES = 64,
    AS_OFF_TENSOR_BYTES = 68,
    AS_OFF_CRC32 = 72,               /* CRC-32 (zlib) of the whole file, these 4 bytes read as 0 */
    AS_OFF_SOURCE_LANGUAGE = 76,     /* char[8]: 2 or 3 of a-z, then NUL padding */
    AS_OFF_TARGET_LANGUAGE = 84,     /* char[8]: 2 or 3 of a-z, then NUL padding */
    AS_OFF_ARCH_FLAGS = 92           /* u32, enum as_arch_flag */
};

/* arch_flags: variations of the one architecture,
 * each a bit. 0 is the architecture of models/train/model.py; the bits were
 * added to run models of the PyTorch seq2seq tutorial
 * (models/train/convert_tutorial.py). The loader refuses a bit it does not
 * know (AS_ERR_UNKNOWN_FEATURE) and a combination whose rule below fails
 * (AS_ERR_BAD_HEADER). C below is the annotation width: 2He, or He with
 * AS_ARCH_UNIDIRECTIONAL. */
enum as_arch_flag {
    /* Forward GRU only: no ENC_BWD_* tensors; annotations h_j are He wide. */
    AS_ARCH_UNIDIRECTIONAL = 1u << 0,
    /* s_0 = the encoder's final state f (no INIT_W / INIT_B); needs Hd == He.
     * f is <-h_1 for a bidirectional encoder, ->h_S for a unidirectional one
     * (without this bit, s_0 = tanh(INIT_W f + INIT_B) with the same f). */
    AS_ARCH_INIT_FROM_ENCODER = 1u << 1,
    /* Additive attention with biases: ATTN_QUERY_B (A) on W_a s, ATTN_KEY_B
     * (A) on U_a h_j and the scalar ATTN_V_B (1) on v . tanh(...). The last
     * does not change alpha but is part of the raw scores. Additive only. */
    AS_ARCH_ATTENTION_BIAS = 1u << 2,
    /* logits = PROJ_W s_t + PROJ_B, no OUT_W / OUT_B; needs O == Hd. */
    AS_ARCH_DIRECT_OUTPUT = 1u << 3,
    /* The encoder reads the source tokens then </s> (id AS_TOKEN_EOS): a real
     * position in alpha and the trace, S = words + 1. */
    AS_ARCH_SOURCE_EOS = 1u << 4,
    /* Tokeniser "tutorial" (models/FORMAT.md 5.1) instead of section 5's. */
    AS_ARCH_TOKENIZER_TUTORIAL = 1u << 5,
    /* Cased subword pieces (models/FORMAT.md 5.2): both
     * vocabularies start with the specials, the 256 byte tokens and the bare
     * word mark, and the vocabulary section ends with the source side's merge
     * table (AS_MERGE_*). Not with AS_ARCH_TOKENIZER_TUTORIAL. */
    AS_ARCH_SUBWORDS = 1u << 6,
    /* Layer normalisation (Ba, Kiros & Hinton 2016) inside both GRUs and of
     * the deep output (models/train/model.py --layer-norm): every GRU's
     * pre-activations W_ih x and W_hh h are normalised gate block by gate
     * block (r | z | n, each H wide) and take a gain and a shift, which stand
     * in for the biases: the ENC_*_B_* and DEC_B_* tensors are absent and
     * the *_LN_* tensors present. The decoder normalises its input part
     * after adding the context's product, W_ih [emb ; c_t] as a whole. The
     * deep output is normalised (one block of O) after OUT_B, before its
     * tanh; no OUT_LN_* with AS_ARCH_DIRECT_OUTPUT. Added within version 5:
     * an engine that does not know the bit refuses the file by name
     * (AS_ERR_UNKNOWN_FEATURE), which is what a version bump would buy. */
    AS_ARCH_LAYER_NORM = 1u << 7
};
#define AS_ARCH_KNOWN_FLAGS 0xFFu
/* The epsilon under the square root of every layer normalisation:
 * (x - mean) / sqrt(var + eps), var the biased (1/n) variance, as PyTorch's
 * layer_norm (models/train/model.py BlockLayerNorm). */
#define AS_LAYER_NORM_EPSILON 1e-5f

/* Subword vocabularies (AS_ARCH_SUBWORDS): ids AS_FIRST_BYTE_TOKEN +
 * 0..255 are "<0x00>" ... "<0xFF>" (a character outside the vocabulary is
 * spelled by its UTF-8 bytes; they never merge), id AS_WORD_MARK_TOKEN is
 * the word mark U+2581 alone, which a piece that starts a word after a space
 * carries as its prefix. The merge table follows the target vocabulary:
 * u32 count, then count entries of u16 left, u16 right, u16 result, in rank
 * order; result's text is left's followed by right's; none is below
 * AS_WORD_MARK_TOKEN. A pre-token (a word, or one punctuation character)
 * longer than AS_MAX_PRETOKEN_CHARS characters is cut into pieces of that
 * many, each segmented alone (the first keeps the mark). */
#define AS_FIRST_BYTE_TOKEN 4
#define AS_WORD_MARK_TOKEN (AS_FIRST_BYTE_TOKEN + 256)
#define AS_WORD_MARK_UTF8 "\xE2\x96\x81"
#define AS_MERGE_ENTRY_BYTES 6u
#define AS_MAX_PRETOKEN_CHARS 256

/* Limits the loader enforces before computing any size. */
#define AS_MIN_VOCAB 5u
#define AS_MAX_VOCAB 65536u
#define AS_MAX_DIM 4096u
#define AS_MAX_TOKENS_LIMIT 1024u
#define AS_MAX_TOKEN_BYTES 255u
/* trained_score_scale: 1 for additive, dot and general, 1/sqrt(Hd) >= 1/64
 * for scaled_dot; the range leaves a factor of 16 below that and 1000 above
 * 1 for a learnt temperature, and refuses what only damage makes (1e-30,
 * 3e38, a subnormal). */
#define AS_MIN_TRAINED_SCORE_SCALE 0.001f
#define AS_MAX_TRAINED_SCORE_SCALE 1000.0f
/* Language tags: 2 or 3 lower-case ASCII letters (ISO 639-1 or 639-3). */
#define AS_MIN_LANGUAGE_LETTERS 2u
#define AS_MAX_LANGUAGE_LETTERS 3u

/* Special token ids, identical in both vocabularies. */
enum as_special_token { AS_TOKEN_PAD = 0, AS_TOKEN_UNK = 1, AS_TOKEN_BOS = 2, AS_TOKEN_EOS = 3 };

/* Tensor order in the file (models/FORMAT.md section 3). A tensor the
 * attention kind or the arch_flags do not use is absent. Shapes are (rows,
 * cols), row-major, with C = 2He (He if unidirectional):
 *   SRC_EMBEDDING (Vs,E)   ENC_*_W_IH (3He,E)  ENC_*_W_HH (3He,He)  ENC_*_B_* (3He)
 *     [ENC_*_B_*: not with AS_ARCH_LAYER_NORM, which has ENC_*_LN_* (3He) instead]
 *     [ENC_BWD_*: not if unidirectional]
 *   INIT_W (Hd,He)  INIT_B (Hd)  [not with AS_ARCH_INIT_FROM_ENCODER]
 *   ATTN_QUERY_W (A,Hd) [additive]  ATTN_QUERY_B (A) [additive + AS_ARCH_ATTENTION_BIAS]
 *   ATTN_KEY_W (A,C) [additive; (Hd,C) general]  ATTN_KEY_B (A) [as ATTN_QUERY_B]
 *   ATTN_V (A) [additive]  ATTN_V_B (1) [as ATTN_QUERY_B]
 *   TGT_EMBEDDING (Vt,E)  DEC_W_IH (3Hd,E+C)  DEC_W_HH (3Hd,Hd)  DEC_B_* (3Hd)
 *     [DEC_B_*: not with AS_ARCH_LAYER_NORM, which has DEC_LN_* (3Hd) instead]
 *   OUT_W (O,Hd+C+E)  OUT_B (O)  [not with AS_ARCH_DIRECT_OUTPUT]
 *   OUT_LN_GAIN (O)  OUT_LN_SHIFT (O)  [AS_ARCH_LAYER_NORM without AS_ARCH_DIRECT_OUTPUT]
 *   PROJ_W (Vt,O)  PROJ_B (Vt)
 * Each *_LN_IH_* pair normalises W_ih x and each *_LN_HH_* pair W_hh h.
 * The 2-D ones are the matrices of AS_WEIGHT_I8; ATTN_V, the biases and the
 * gains and shifts are 1-D.
 */
enum as_tensor_id {
    AS_T_SRC_EMBEDDING,
    AS_T_ENC_FWD_W_IH, AS_T_ENC_FWD_W_HH, AS_T_ENC_FWD_B_IH, AS_T_ENC_FWD_B_HH,
    AS_T_ENC_FWD_LN_IH_GAIN, AS_T_ENC_FWD_LN_IH_SHIFT, AS_T_ENC_FWD_LN_HH_GAIN, AS_T_ENC_FWD_LN_HH_SHIFT,
    AS_T_ENC_BWD_W_IH, AS_T_ENC_BWD_W_HH, AS_T_ENC_BWD_B_IH, AS_T_ENC_BWD_B_HH,
    AS_T_ENC_BWD_LN_IH_GAIN, AS_T_ENC_BWD_LN_IH_SHIFT, AS_T_ENC_BWD_LN_HH_GAIN, AS_T_ENC_BWD_LN_HH_SHIFT,
    AS_T_INIT_W, AS_T_INIT_B,
    AS_T_ATTN_QUERY_W, AS_T_ATTN_QUERY_B, AS_T_ATTN_KEY_W, AS_T_ATTN_KEY_B, AS_T_ATTN_V, AS_T_ATTN_V_B,
    AS_T_TGT_EMBEDDING,
    AS_T_DEC_W_IH, AS_T_DEC_W_HH, AS_T_DEC_B_IH, AS_T_DEC_B_HH,
    AS_T_DEC_LN_IH_GAIN, AS_T_DEC_LN_IH_SHIFT, AS_T_DEC_LN_HH_GAIN, AS_T_DEC_LN_HH_SHIFT,
    AS_T_OUT_W, AS_T_OUT_B, AS_T_OUT_LN_GAIN, AS_T_OUT_LN_SHIFT,
    AS_T_PROJ_W, AS_T_PROJ_B,
    AS_TENSOR_COUNT
};

#endif
