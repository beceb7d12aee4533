/* alignscope.h - public API of the alignscope inference engine (C99).
 *
 * The library never exits and never prints: every call returns an
 * as_status, and as_status_message() turns one into a sentence.
 * Typical use:
 *   as_model *model; as_session *session; const as_trace *trace;
 *   as_model_load(bytes, length, &model);      // validates everything first
 *   as_session_create(model, &session);        // buffers reused across calls
 *   as_translate(session, text, strlen(text), NULL, &trace);
 *   ... read trace (owned by the session, valid until its next call) ...
 *   as_session_free(session); as_model_free(model);
 */
#ifndef ALIGNSCOPE_H
#define ALIGNSCOPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    AS_OK = 0,
    AS_ERR_NULL_ARGUMENT,     /* a required pointer was NULL */
    AS_ERR_TOO_SHORT,         /* shorter than the fixed header */
    AS_ERR_BAD_MAGIC,         /* not an alignscope model file */
    AS_ERR_VERSION_TOO_NEW,   /* made by a newer alignscope */
    AS_ERR_VERSION_UNSUPPORTED, /* an old/unknown version */
    AS_ERR_BAD_HEADER,        /* a header field is out of range or inconsistent */
    AS_ERR_SIZE_MISMATCH,     /* file length differs from what the header implies */
    AS_ERR_CHECKSUM,          /* CRC-32 mismatch: file damaged */
    AS_ERR_BAD_VOCABULARY,    /* vocabulary entries malformed */
    AS_ERR_BAD_WEIGHTS,       /* non-finite weight values, int8 -128, bad int8 scales */
    AS_ERR_OUT_OF_MEMORY,
    AS_ERR_EMPTY_INPUT,       /* the text has no tokens */
    AS_ERR_INPUT_TOO_LONG,    /* more source tokens than the model allows */
    AS_ERR_BAD_OPTION,        /* an option is out of range */
    AS_ERR_UNKNOWN_FEATURE,   /* arch_flags has a bit this engine does not know */
    AS_ERR_BAD_SEGMENTATION,  /* the subword merge table is truncated or inconsistent */
    AS_ERR_BAD_ATTENTION_OVERRIDE, /* forced weights: wrong length, NaN/inf, negative, all zero,
                                      two at one step, or a model without attention */
    AS_ERR_OVERRIDE_STEP,     /* an override's step is one the translation never reaches */
    AS_ERR_BAD_BEAM_WIDTH,    /* beam width outside 1..AS_BEAM_MAX_WIDTH */
    AS_ERR_BEAM_TOO_LARGE,    /* the beam's traces would exceed AS_BEAM_MAX_BYTES */
    AS_ERR_BAD_SOURCE_TOKEN,  /* as_force_score: a source id outside the source vocabulary */
    AS_ERR_BAD_TARGET,        /* as_force_score: no target tokens, more than max_target_tokens,
                                 or an id outside the target vocabulary */
    AS_ERR_BAD_ATTENTION_MASK, /* as_force_score: a mask row keeps no source position, or a
                                  value other than 0 and 1 */
    AS_STATUS_COUNT
} as_status;

/* A sentence for any status code (never NULL). */
const char *as_status_message(as_status status);

typedef struct as_model as_model;
typedef struct as_session as_session;

/* What a loaded model is (copied from its header). */
typedef struct {
    uint32_t format_version;
    uint32_t attention_kind;      /* enum as_attention_kind */
    uint32_t weight_type;         /* as stored in the file */
    uint32_t src_vocab_size, tgt_vocab_size;
    uint32_t embed_dim, encoder_hidden, decoder_hidden, attention_dim, output_dim;
    uint32_t max_source_tokens, max_target_tokens;
    float trained_score_scale;
    uint32_t arch_flags;          /* enum as_arch_flag bits */
    uint32_t context_dim;         /* annotation / context width C: 2He, or He if unidirectional */
    uint32_t key_dim;             /* length of the vectors scores compare: A, Hd or C */
    uint64_t parameter_count;
    char source_language[9], target_language[9];
} as_model_info;

/* Validates every size against `length` before forming a pointer; on error
 * *model_out is NULL. The bytes are copied (widened to f32): the caller may
 * free `bytes` afterwards. */
as_status as_model_load(const uint8_t *bytes, size_t length, as_model **model_out);
void as_model_free(as_model *model);
const as_model_info *as_model_get_info(const as_model *model);
/* Token text for an id (NULL if out of range); length in *length_out. */
const char *as_model_source_token(const as_model *model, int32_t id, size_t *length_out);
const char *as_model_target_token(const as_model *model, int32_t id, size_t *length_out);

as_status as_session_create(const as_model *model, as_session **session_out);
void as_session_free(as_session *session);

/* The largest score_scale a caller may pass. Far beyond any useful value
 * (alpha is one-hot long before), and small enough that scale * score stays
 * finite for any trained model's scores, so softmax never sees inf - inf. */
#define AS_MAX_SCORE_SCALE 1e6f

/* Pinning the decoder's finger: at decoder step `step` (0 = the first target
 * token) the attention weights alpha_t are `weights` instead of the softmax
 * of the scores. The weights must be `length` == S values (one per source
 * token, the appended </s> included), finite, >= 0 and not all zero; the
 * engine divides them by their sum (in f32, left to right), so a one-hot
 * vector pins all the weight on one token. The raw scores of that step are
 * still the model's own. Later steps follow from it: the context c_t, the
 * state s_t, the token emitted and every step after are computed from the
 * forced alpha. Otherwise AS_ERR_BAD_ATTENTION_OVERRIDE; a step the
 * translation does not reach (it emitted </s> earlier, or hit its length
 * cap) gives AS_ERR_OVERRIDE_STEP. */
typedef struct {
    int32_t step;
    int32_t length;           /* S */
    const float *weights;     /* (length) */
} as_attention_override;

/* Beam search (as_translate_beam). */
#define AS_BEAM_MAX_WIDTH 8
/* The most bytes one beam search may hold for its traces: the tree of every
 * step's live hypotheses plus each final hypothesis's own trace. 13 to 16 MiB
 * for the shipped models at width 8 and 100 source tokens; far more only
 * for a model with huge dimensions or length limits. */
#define AS_BEAM_MAX_BYTES ((size_t)64 << 20)
#define AS_MAX_LENGTH_PENALTY 4.0f
/* The most candidates per step a trace records (as_options.top_k). */
#define AS_TOP_K_MAX 16

/* How the front ends decode unless told otherwise: the CLI, the page and the
 * <align-scope> element run a beam of AS_DEFAULT_BEAM_WIDTH ranked with
 * AS_DEFAULT_LENGTH_PENALTY (web/engine.js copies both, checked by
 * tests/definitions.test.mjs); width 1 is greedy (as_translate). Width 5,
 * penalty 1: the setting measured on held-out dialogue in issue 28 (cased
 * BLEU en-fr 9.8 -> 12.0, en-es 11.8 -> 15.1, en-de 7.2 -> 8.4 over greedy).
 * models/train/choose_beam.py searches widths {1,3,5,8} x penalties {0.6,
 * 0.8, 1.0, 1.2} on a dev set for the best cased BLEU; it had no dev set to
 * read when these were set (the corpus was still being built), so they are
 * the measured setting until it is run. as_options_default keeps
 * beam_width 1: options left at their defaults ask for one hypothesis. */
#define AS_DEFAULT_BEAM_WIDTH 5
#define AS_DEFAULT_LENGTH_PENALTY 1.0f

typedef struct {
    float score_scale;      /* multiplier before the softmax; <= 0 means trained value;
                               NaN, inf or > AS_MAX_SCORE_SCALE: AS_ERR_BAD_OPTION */
    int32_t top_k;          /* candidates recorded per step, 0..AS_TOP_K_MAX (default 5) */
    int32_t max_target_tokens; /* 0 = model's rule min(2S+10, max_target_tokens) */
    const as_attention_override *overrides; /* (override_count) forced alpha, at distinct steps */
    int32_t override_count;  /* 0 (default): the softmax at every step */
    int32_t beam_width;      /* as_translate_beam: 1..AS_BEAM_MAX_WIDTH (default 1);
                                as_translate ignores it */
    float length_penalty;    /* as_translate_beam: a hypothesis of T steps (its </s>
                                included) ranks by log_prob / T^length_penalty;
                                0 .. AS_MAX_LENGTH_PENALTY, default
                                AS_DEFAULT_LENGTH_PENALTY (1: the mean
                                log-probability per token); 0 = the raw log_prob */
    int32_t cut_source;      /* 0 (default): a text of more than max_source_tokens tokens
                                is refused (AS_ERR_INPUT_TOO_LONG); 1: only its first
                                max_source_tokens tokens are read (a token-level cut:
                                a cut of the text itself cannot always land there, as
                                one character may be several byte tokens) and
                                as_session_source_count still gives the whole count */
    int32_t window_half_width; /* -1 (default): global attention. D >= 0: Luong et al.'s
                                local-m window in free decoding (as_translate and
                                as_translate_beam): step t attends only to the source
                                positions j with |j - p_t| <= D, alpha the softmax over
                                them (as_f32_softmax_masked, as as_force_score's mask),
                                every hypothesis of a beam alike. Free decoding does not
                                know its length beforehand, so p_t is scaled with a
                                reference length T = window_steps (the page and the report
                                pass the global translation's T): p_t =
                                round(t (S - 1) / (T - 1)) as as_window_mask's rows for
                                t < T, and S - 1 (the last position) for steps at or past
                                T - 1 (T = 1: p_0 = 0, then S - 1). So a decode of at
                                most T steps sees exactly as_window_mask(T, S, D)'s rows.
                                Less than -1, or D >= 0 with window_steps outside
                                1 .. AS_WINDOW_MAX_LENGTH: AS_ERR_BAD_OPTION. Not with
                                overrides (AS_ERR_BAD_OPTION); a model without attention
                                ignores it. */
    int32_t window_steps;     /* T of window_half_width's p_t (0 = none given) */
} as_options;

void as_options_default(as_options *options);

/* Everything one translation produced. Arrays are row-major; T counts every
 * decoder step, including the one that emitted </s> (stopped_at_eos = 1). */
/* Bytes reserved per source token in as_trace.source_tokens. */
#define AS_TOKEN_TEXT_STRIDE 256

typedef struct {
    int32_t source_len;              /* S: the tokens of the text, plus one for the </s>
                                        the encoder reads last if source_eos */
    const int32_t *source_ids;       /* (S) */
    const int32_t *source_spans;     /* (S,2) byte [start,end) in the caller's text */
    const char *source_tokens;       /* (S,AS_TOKEN_TEXT_STRIDE) each token as looked up
                                        (words: folded, lower-cased; subwords: the
                                        piece), NUL-terminated, cut at a character
                                        boundary to at most 255 bytes */
    int32_t target_len;              /* T */
    const int32_t *target_ids;       /* (T) token emitted at each step */
    const int32_t *target_copy_source; /* (T) for an <unk> output: source index it was
                                          replaced by (most attended); otherwise -1 */
    const float *scores;             /* (T,S) raw scores e_tj, before score_scale;
                                        all zero for kind none (nothing is scored) */
    const float *alpha;              /* (T,S) attention weights; NULL for kind none */
    const float *context;            /* (T,context_dim) c_t */
    int32_t context_dim;             /* C (as_model_info.context_dim) */
    const float *state;              /* (T,Hd) decoder state s_t after each step */
    int32_t state_dim;
    int32_t top_k;                   /* K */
    const int32_t *top_ids;          /* (T,K) best candidates, best first */
    const float *top_probs;          /* (T,K) their softmax probabilities */
    float score_scale;               /* the multiplier actually used */
    int32_t stopped_at_eos;          /* 1 if the last step emitted </s> */
    int32_t encoder_reused;          /* 1 if the encoder result was cached */
    const char *translation;         /* NUL-terminated display text (src/detokenize.c):
                                        words joined, <unk> replaced by the user's
                                        source word, first letter capitalised like the
                                        source; or subword pieces joined (never a NUL
                                        inside: byte token <0x00> shows as U+FFFD) */
    const int32_t *translation_spans; /* (T,2) byte [start,end) of each step's token in
                                        translation ([n,n) for </s>) */
    int32_t source_eos;              /* 1 if position S-1 is the appended </s>
                                        (AS_ARCH_SOURCE_EOS): id AS_TOKEN_EOS, token
                                        "</s>", span [length,length) */
    /* Words: a subword model's tokens are pieces of words (models/FORMAT.md
     * 5.2); the page and the CLI show words, so each token says which word it
     * belongs to. For a word model every token is its own word. */
    const int32_t *source_words;     /* (S) word index of each source token, 0.. */
    int32_t source_word_count;       /* the appended </s> is a word of its own */
    const int32_t *target_words;     /* (T) word index of each step; </s> one of its own */
    int32_t target_word_count;
} as_trace;

/* Tokenises `text` (UTF-8, `length` bytes, NULs allowed), runs the encoder
 * (reused if the tokens equal the previous call's) and greedy decoding. */
as_status as_translate(as_session *session, const char *text, size_t length,
                       const as_options *options, const as_trace **trace_out);

/* One final hypothesis of a beam search: its trace (as as_translate's; every
 * array is the hypothesis's own, top_k candidates included) and its
 * log-probability log p(y | x) = sum_t log p(y_t | y_<t, x), natural log. */
typedef struct {
    as_trace trace;
    float log_prob;
    float score;                  /* log_prob / T^length_penalty: the rank */
    const float *step_log_probs;  /* (T) log p(y_t | y_<t, x) of each step's token */
} as_hypothesis;

/* Beam search with options->beam_width = k hypotheses (1..AS_BEAM_MAX_WIDTH,
 * else AS_ERR_BAD_BEAM_WIDTH). At each step every live hypothesis is
 * extended by every token; the best n of those (n = the live count, at most
 * k; by log-probability, ties to the older hypothesis, then to the higher
 * logit) stay. One that emits </s> is final and leaves the beam, which
 * then holds one fewer; those still live at the length cap are final too
 * (stopped_at_eos 0). So exactly k hypotheses come back (*hypotheses_out,
 * *count_out), best score first (ties: the one final first). k = 1 is
 * as_translate's greedy result bit for bit. Overrides apply to every
 * hypothesis at their step (AS_ERR_OVERRIDE_STEP if none reaches it). The
 * hypotheses are owned by the session, valid until its next call. */
as_status as_translate_beam(as_session *session, const char *text, size_t length, const as_options *options,
                            const as_hypothesis **hypotheses_out, int32_t *count_out);

/* ---- forced decoding (teacher forcing) with an attention mask ----------
 *
 * as_force_score scores a given target y_0 .. y_{T-1} for a given source:
 * log_probs[t] = log p(y_t | y_<t, x), natural log, each step fed the GIVEN
 * previous token (y_{t-1}; <s> before y_0), never the decoder's own choice.
 * Include </s> (AS_TOKEN_EOS, 3) as the last target token to score the
 * sentence's end too; log p(y | x) is the sum of the T values.
 *
 * The source is token ids (as_tokenize's, or any ids 0 .. src_vocab_size-1),
 * source_count of them (1 .. max_source_tokens); a model with
 * AS_ARCH_SOURCE_EOS reads </s> after them, as as_translate does, so the
 * encoder has S = as_model_source_positions(model, source_count) positions
 * and alpha rows and mask rows are S wide.
 *
 * The mask: keep (T, S), row-major, or NULL for none. keep[t*S + j] = 1 lets
 * step t attend to source position j, 0 drops it: alpha_t is the softmax of
 * score_scale * e_t over the kept positions only, the dropped ones exactly 0
 * (the same as zeroing their weights and renormalising, computed from the
 * kept scores alone so that it cannot underflow to 0 / 0; kernels.h,
 * as_f32_softmax_masked). Each row must keep at least one position and hold
 * only 0 and 1, else AS_ERR_BAD_ATTENTION_MASK with *error_position = t: a
 * clear refusal, never a NaN. A row of all 1 is exactly the unmasked step.
 * as_window_mask builds the local window of Luong et al. (2015). For a model
 * without attention (kind none) the mask is ignored (not even read: there is
 * no alpha for it to act on) and alpha is not written.
 *
 * score_scale: as as_options.score_scale (<= 0: the trained value; NaN, inf
 * or > AS_MAX_SCORE_SCALE: AS_ERR_BAD_OPTION).
 *
 * Outputs are the caller's: log_probs (T), alpha (T, S) or NULL. Refusals,
 * checked in this order before the encoder runs, leave both unwritten and
 * set *error_position (if error_position is not NULL; -1 when no position
 * applies, and on success):
 *   AS_ERR_NULL_ARGUMENT       session or log_probs NULL, or ids NULL with a count > 0
 *   AS_ERR_BAD_OPTION          score_scale out of range
 *   AS_ERR_EMPTY_INPUT         source_count < 1
 *   AS_ERR_INPUT_TOO_LONG      source_count > max_source_tokens
 *   AS_ERR_BAD_SOURCE_TOKEN    source_ids[j] out of range: position j
 *   AS_ERR_BAD_TARGET          target_count < 1 or > max_target_tokens (-1), or
 *                              target_ids[t] out of range: position t
 *   AS_ERR_BAD_ATTENTION_MASK  mask row t empty or not 0/1: position t
 * The encoder result is cached as for as_translate (the same source ids
 * reuse it). The session's last trace or hypotheses are no longer valid
 * after the call (its buffers are the steps' scratch). */
as_status as_force_score(as_session *session, const int32_t *source_ids, int32_t source_count,
                         const int32_t *target_ids, int32_t target_count, const uint8_t *keep,
                         float score_scale, float *log_probs, float *alpha, int32_t *error_position);

/* S, the encoder positions (alpha and mask row width) of a source of
 * source_count tokens: source_count, + 1 for a model that reads </s> after
 * them (AS_ARCH_SOURCE_EOS). 0 for a NULL model or a count < 1. */
int32_t as_model_source_positions(const as_model *model, int32_t source_count);

/* The local window mask of Luong, Pham & Manning (2015), "local-m" with the
 * centre scaled to the source: step t of T keeps the source positions j with
 * |j - p_t| <= half_width, where p_t = round(t (S - 1) / (T - 1)) (halves
 * up; p_0 = 0 when T = 1), so the window runs from the first source position
 * at t = 0 to the last at t = T - 1 (T > 1) and every row keeps at least
 * one. Writes
 * keep (T, S), 0 or 1. T and S from 1 to AS_WINDOW_MAX_LENGTH, half_width
 * >= 0 (S - 1 or more keeps everything), else AS_ERR_BAD_OPTION; keep NULL:
 * AS_ERR_NULL_ARGUMENT. models/train/decode.py window_mask is its twin
 * (tests/forced.test.mjs). The limit is 4 times any model's token limit
 * (AS_MAX_TOKENS_LIMIT, 1024), and keeps a mask to 16 MiB. */
#define AS_WINDOW_MAX_LENGTH 4096
as_status as_window_mask(int32_t target_count, int32_t source_positions, int32_t half_width, uint8_t *keep);

/* Source tokens in the text of the session's last as_translate call, also
 * when it was refused with AS_ERR_INPUT_TOO_LONG (so a message can say "150
 * words, at most 100") or AS_ERR_EMPTY_INPUT; 0 if it failed before
 * tokenising (bad option) or no call was made yet. After as_force_score:
 * its source_count (0 if refused before that was looked at). */
int32_t as_session_source_count(const as_session *session);

/* Tokenisation alone (models/FORMAT.md section 5): fills up to `capacity`
 * tokens' ids and byte spans; *count_out gets the total (may exceed capacity). */
as_status as_tokenize(const as_model *model, const char *text, size_t length,
                      int32_t *ids, int32_t *spans, int32_t capacity, int32_t *count_out);

#ifdef __cplusplus
}
#endif
#endif
