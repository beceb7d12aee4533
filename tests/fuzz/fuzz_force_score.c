/* fuzz_force_score.c - libFuzzer harness for forced decoding with an
 * attention mask (as_force_score, as_window_mask; src/alignscope.h) on
 * arbitrary source ids, target ids and masks, with the seed models of
 * fuzz_models.h. Input layout (bytes past the end read as 0):
 *   byte 0: which model (low 3 bits), the mask (bits 3-4: 0 none, 1 a window,
 *           2 one bit per position, 3 one byte per position, as it is),
 *           the window's half width (bits 5-7)
 *   byte 1: score scale (low 4 bits: a table with the extreme values, NaN
 *           and inf included) and whether to also pass alpha (bit 4)
 *   byte 2: source count (0 .. 255; above max_source_tokens is refused)
 *   byte 3: target count, modulo 16 (0 is refused, and so is more than
 *           max_target_tokens: the seed models decode at most 12)
 *   then each source id and each target id as 2 bytes (little-endian), read
 *   modulo (vocabulary size + 4), minus 2: every id, and a few just outside
 *   on each side; then the mask (2: T x S bits, 3: T x S bytes).
 * Checks: the status and the position are exactly what an independent
 * reading of the header's rules gives; a refusal writes no output; a
 * success gives finite log-probabilities <= 0, alpha rows that are
 * distributions with the dropped positions exactly 0 (no alpha written for
 * kind none), no write past T or T x S (canaries), the same bits again on a
 * second call (encoder cached), and for a mask of all ones the bits of no mask.
 *
 *   build/fuzz/fuzz_force_score [libFuzzer flags] [CORPUS_DIR | FILE ...]
 */
#include <stdint.h>

#include "fuzz_models.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_load_models("fuzz_force_score");
    return 0;
}

static const float scales[16] = {0.0f, 1.0f, 0.25f, 4.0f, 16.0f, 64.0f, 1e3f, 1e6f,
                                  AS_MAX_SCORE_SCALE, 3.4e38f, -1.0f, 1e-30f, 1e-45f, INFINITY, 2.0f, NAN};

typedef struct {
    const uint8_t *data;
    size_t size, at;
} reader;

static uint8_t next_byte(reader *r) { return r->at < r->size ? r->data[r->at++] : 0; }

static int32_t next_id(reader *r, uint32_t vocab) {
    const uint32_t raw = (uint32_t)next_byte(r) | (uint32_t)next_byte(r) << 8;
    return (int32_t)(raw % (vocab + 4)) - 2;
}

static const uint32_t CANARY = 0x7FC0DEADu; /* a NaN the engine never writes */
#define CANARIES 4

static float *canaried(size_t n) {
    float *p = malloc((n + CANARIES) * sizeof *p);
    FUZZ_CHECK(p != NULL);
    for (size_t i = 0; i < n + CANARIES; i++) memcpy(p + i, &CANARY, 4);
    return p;
}

static int untouched(const float *p, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        if (memcmp(p + i, &CANARY, 4) != 0) return 0;
    return 1;
}

/* What as_force_score must answer, from the rules of src/alignscope.h alone. */
static as_status expected(const as_model_info *in, float scale, const int32_t *src, int32_t ns, const int32_t *tgt,
                          int32_t nt, const uint8_t *keep, int32_t s_len, int32_t *position) {
    *position = -1;
    if (!(scale == scale) || isinf(scale) || scale > AS_MAX_SCORE_SCALE) return AS_ERR_BAD_OPTION;
    if (ns < 1) return AS_ERR_EMPTY_INPUT;
    if ((uint32_t)ns > in->max_source_tokens) return AS_ERR_INPUT_TOO_LONG;
    for (int32_t j = 0; j < ns; j++)
        if (src[j] < 0 || (uint32_t)src[j] >= in->src_vocab_size) return *position = j, AS_ERR_BAD_SOURCE_TOKEN;
    if (nt < 1 || (uint32_t)nt > in->max_target_tokens) return AS_ERR_BAD_TARGET;
    for (int32_t t = 0; t < nt; t++)
        if (tgt[t] < 0 || (uint32_t)tgt[t] >= in->tgt_vocab_size) return *position = t, AS_ERR_BAD_TARGET;
    if (keep && in->attention_kind != AS_ATTENTION_NONE) {
        for (int32_t t = 0; t < nt; t++) {
            int any = 0, bad = 0;
            for (int32_t j = 0; j < s_len; j++) {
                any |= keep[(size_t)t * s_len + j] == 1;
                bad |= keep[(size_t)t * s_len + j] > 1;
            }
            if (!any || bad) return *position = t, AS_ERR_BAD_ATTENTION_MASK;
        }
    }
    return AS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    const uint8_t c0 = next_byte(&r), c1 = next_byte(&r);
    const int which = (c0 & 7) % fuzz_model_count, mask_mode = (c0 >> 3) & 3, half_width = c0 >> 5;
    const as_model *model = fuzz_models[which];
    as_session *session = fuzz_sessions[which];
    const as_model_info *in = as_model_get_info(model);
    const float scale = scales[c1 & 15];
    const int with_alpha = (c1 >> 4) & 1;
    const int32_t ns = next_byte(&r), nt = next_byte(&r) % 16;
    const int attends = in->attention_kind != AS_ATTENTION_NONE;

    int32_t *src = malloc((ns ? (size_t)ns : 1) * sizeof *src), *tgt = malloc((nt ? (size_t)nt : 1) * sizeof *tgt);
    FUZZ_CHECK(src && tgt);
    for (int32_t j = 0; j < ns; j++) src[j] = next_id(&r, in->src_vocab_size);
    for (int32_t t = 0; t < nt; t++) tgt[t] = next_id(&r, in->tgt_vocab_size);
    const int32_t s_len = as_model_source_positions(model, ns);
    FUZZ_CHECK(s_len == (ns < 1 ? 0 : ns + ((in->arch_flags & AS_ARCH_SOURCE_EOS) ? 1 : 0)));
    const size_t cells = (size_t)nt * (size_t)s_len;

    uint8_t *keep = NULL;
    if (mask_mode != 0 && cells > 0) {
        keep = malloc(cells);
        FUZZ_CHECK(keep != NULL);
        if (mask_mode == 1) {
            FUZZ_CHECK(as_window_mask(nt, s_len, half_width, keep) == AS_OK);
            for (int32_t t = 0; t < nt; t++) { /* one run of at most 2D + 1 positions, never empty */
                int32_t first = -1, last = -1, kept = 0;
                for (int32_t j = 0; j < s_len; j++) {
                    const uint8_t v = keep[(size_t)t * s_len + j];
                    FUZZ_CHECK(v <= 1);
                    if (v) {
                        if (first < 0) first = j;
                        last = j;
                        kept++;
                    }
                }
                FUZZ_CHECK(kept >= 1 && kept <= 2 * half_width + 1 && last - first + 1 == kept);
            }
            /* from the first position (t = 0) to the last (t = T - 1, when T > 1) */
            FUZZ_CHECK(keep[0] == 1 && (nt == 1 || keep[cells - 1] == 1));
        } else if (mask_mode == 2) {
            uint8_t byte = 0;
            for (size_t i = 0; i < cells; i++) {
                if (i % 8 == 0) byte = next_byte(&r);
                keep[i] = (byte >> (i % 8)) & 1;
            }
        } else {
            for (size_t i = 0; i < cells; i++) keep[i] = next_byte(&r);
        }
    }

    int32_t want_position;
    const as_status want = expected(in, scale, src, ns, tgt, nt, keep, s_len, &want_position);
    const size_t out_t = nt ? (size_t)nt : 1, out_a = cells ? cells : 1;
    float *log_probs = canaried(out_t), *alpha = canaried(out_a);
    int32_t position = -7;
    const as_status st = as_force_score(session, src, ns, tgt, nt, keep, scale, log_probs,
                                        with_alpha ? alpha : NULL, &position);
    FUZZ_CHECK(st == want);
    FUZZ_CHECK(position == want_position);
    if (st != AS_OK) {
        FUZZ_CHECK(untouched(log_probs, 0, out_t + CANARIES) && untouched(alpha, 0, out_a + CANARIES));
    } else {
        FUZZ_CHECK(untouched(log_probs, (size_t)nt, (size_t)nt + CANARIES));
        for (int32_t t = 0; t < nt; t++) FUZZ_CHECK(isfinite(log_probs[t]) && log_probs[t] <= 0.0f);
        if (!with_alpha || !attends) {
            FUZZ_CHECK(untouched(alpha, 0, out_a + CANARIES));
        } else {
            FUZZ_CHECK(untouched(alpha, cells, cells + CANARIES));
            for (int32_t t = 0; t < nt; t++) {
                float sum = 0.0f;
                for (int32_t j = 0; j < s_len; j++) {
                    const float a = alpha[(size_t)t * s_len + j];
                    FUZZ_CHECK(isfinite(a) && a >= 0.0f && a <= 1.0f);
                    if (keep && keep[(size_t)t * s_len + j] == 0) FUZZ_CHECK(a == 0.0f);
                    sum += a;
                }
                FUZZ_CHECK(fabsf(sum - 1.0f) < 1e-3f);
            }
        }
        /* again: the cached encoder, the same bits; all ones: no mask's bits */
        int all_ones = keep != NULL;
        for (size_t i = 0; keep && i < cells; i++) all_ones &= keep[i] == 1;
        float *again = canaried(out_t);
        FUZZ_CHECK(as_force_score(session, src, ns, tgt, nt, all_ones ? NULL : keep, scale, again, NULL, NULL) == AS_OK);
        FUZZ_CHECK(memcmp(again, log_probs, (size_t)nt * sizeof *again) == 0 && untouched(again, (size_t)nt, (size_t)nt + CANARIES));
        free(again);
    }
    free(log_probs);
    free(alpha);
    free(keep);
    free(src);
    free(tgt);
    return 0;
}
