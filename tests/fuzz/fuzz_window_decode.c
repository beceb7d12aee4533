/* fuzz_window_decode.c - libFuzzer harness for free decoding with a local
 * window (as_options.window_half_width / window_steps in as_translate and
 * as_translate_beam; src/alignscope.h) on arbitrary text and options, with
 * the seed models of fuzz_models.h. Input layout (bytes past the end read as 0):
 *   byte 0: which model (low 3 bits), beam width (bits 3-5: 0 greedy
 *           as_translate, else as_translate_beam of that width), one override
 *           at step 0 as well (bit 6: refused with a window)
 *   byte 1: the half width, (byte % 12) - 2: -2 (refused), -1 (off), 0 .. 9
 *   bytes 2-3: window_steps, little-endian, minus 2 (-2 .. 65533: 1 .. 4096 is
 *           valid)
 *   the rest: the text.
 * Checks: a window the header's rules refuse gives AS_ERR_BAD_OPTION and
 * nothing else; a valid one gives the status the same call without it
 * gives (the window refuses nothing else); a success has, at every step of
 * every hypothesis, alpha exactly 0 outside |j - p_t| <= D with p_t computed
 * here from the header's rule (round(t (S-1)/(T-1)) before T - 1, S - 1 from
 * there on) and a distribution inside it; a window over the whole source is
 * global attention bit for bit; the same call again gives the same bits.
 *
 *   build/fuzz/fuzz_window_decode [libFuzzer flags] [CORPUS_DIR | FILE ...]
 */
#include <stdint.h>

#include "fuzz_models.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzz_load_models("fuzz_window_decode");
    return 0;
}

/* The window's centre, from the header's words alone. */
static int64_t centre_of(int64_t t, int64_t steps, int64_t positions) {
    if (t == 0) return 0;
    if (t >= steps - 1) return positions - 1;
    const double exact = (double)t * (double)(positions - 1) / (double)(steps - 1);
    return (int64_t)floor(exact + 0.5); /* halves up; t (S-1) and T-1 are small: exact in double */
}

/* One decoded sequence's checks (alpha NULL for kind none). */
static void check_trace(const as_trace *tr, int32_t d, int32_t steps) {
    const int32_t S = tr->source_len;
    FUZZ_CHECK(S >= 1 && tr->target_len >= 1);
    if (!tr->alpha) return;
    for (int32_t t = 0; t < tr->target_len; t++) {
        const float *row = tr->alpha + (size_t)t * (size_t)S;
        const int64_t c = d >= 0 ? centre_of(t, steps, S) : 0;
        double sum = 0.0;
        for (int32_t j = 0; j < S; j++) {
            FUZZ_CHECK(row[j] >= 0.0f && row[j] <= 1.0f);
            if (d >= 0 && (j < c - d || j > c + d)) FUZZ_CHECK(row[j] == 0.0f);
            sum += row[j];
        }
        FUZZ_CHECK(fabs(sum - 1.0) < 1e-4);
    }
}

/* The bits a check compares: target ids and alpha of the first hypothesis. */
typedef struct {
    int32_t steps, source_len;
    int32_t *ids;
    float *alpha;
} snapshot;

static snapshot snap(const as_trace *tr) {
    snapshot s = {tr->target_len, tr->source_len, malloc((size_t)tr->target_len * sizeof(int32_t)), NULL};
    FUZZ_CHECK(s.ids != NULL);
    memcpy(s.ids, tr->target_ids, (size_t)tr->target_len * sizeof(int32_t));
    if (tr->alpha) {
        const size_t n = (size_t)tr->target_len * (size_t)tr->source_len;
        s.alpha = malloc(n * sizeof(float));
        FUZZ_CHECK(s.alpha != NULL);
        memcpy(s.alpha, tr->alpha, n * sizeof(float));
    }
    return s;
}

static int same_snap(const snapshot *a, const as_trace *tr) {
    if (a->steps != tr->target_len || a->source_len != tr->source_len) return 0;
    if (memcmp(a->ids, tr->target_ids, (size_t)a->steps * sizeof(int32_t)) != 0) return 0;
    if (!a->alpha != !tr->alpha) return 0;
    return !a->alpha || memcmp(a->alpha, tr->alpha, (size_t)a->steps * (size_t)a->source_len * sizeof(float)) == 0;
}

/* One call: greedy (width 0) or a beam; *first gets the best sequence's trace. */
static as_status decode(as_session *session, const char *text, size_t len, const as_options *opt, int width,
                        const as_trace **first, const as_hypothesis **hyps, int32_t *count) {
    *first = NULL;
    *hyps = NULL;
    *count = 0;
    if (width == 0) {
        const as_status st = as_translate(session, text, len, opt, first);
        if (st == AS_OK) *count = 1;
        return st;
    }
    const as_status st = as_translate_beam(session, text, len, opt, hyps, count);
    if (st == AS_OK) *first = &(*hyps)[0].trace;
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t c0 = size > 0 ? data[0] : 0, c1 = size > 1 ? data[1] : 0;
    const uint32_t raw_steps = (uint32_t)(size > 2 ? data[2] : 0) | (uint32_t)(size > 3 ? data[3] : 0) << 8;
    const int which = (c0 & 7) % fuzz_model_count, width = (c0 >> 3) & 7, with_override = (c0 >> 6) & 1;
    const int32_t d = (int32_t)(c1 % 12) - 2, steps = (int32_t)raw_steps - 2;
    const char *text = size > 4 ? (const char *)data + 4 : "";
    const size_t len = size > 4 ? size - 4 : 0;
    as_session *session = fuzz_sessions[which];
    const as_model_info *in = as_model_get_info(fuzz_models[which]);

    /* the override: all the weight on position 0 at step 0, sized after a first look at S */
    as_options opt;
    as_options_default(&opt);
    opt.beam_width = width == 0 ? 1 : width;
    float *weights = NULL;
    as_attention_override override = {0, 0, NULL};
    const as_trace *first;
    const as_hypothesis *hyps;
    int32_t count;
    const as_status plain = decode(session, text, len, &opt, width, &first, &hyps, &count);
    snapshot global = {0, 0, NULL, NULL};
    if (plain == AS_OK) global = snap(first);
    if (with_override && plain == AS_OK && in->attention_kind != AS_ATTENTION_NONE) {
        weights = calloc((size_t)global.source_len, sizeof(float));
        FUZZ_CHECK(weights != NULL);
        weights[0] = 1.0f;
        override = (as_attention_override){0, global.source_len, weights};
        opt.overrides = &override;
        opt.override_count = 1;
    }
    const as_status without_window = opt.override_count ? decode(session, text, len, &opt, width, &first, &hyps, &count) : plain;

    opt.window_half_width = d;
    opt.window_steps = steps;
    const int refused = d < -1 || (d >= 0 && (steps < 1 || steps > AS_WINDOW_MAX_LENGTH || opt.override_count != 0));
    as_status st = decode(session, text, len, &opt, width, &first, &hyps, &count);
    if (refused) {
        /* (a bad beam width or penalty is checked first; the harness passes valid ones) */
        FUZZ_CHECK(st == AS_ERR_BAD_OPTION);
    } else {
        FUZZ_CHECK(st == without_window);
    }
    if (st == AS_OK && !refused) {
        for (int32_t h = 0; h < count; h++) check_trace(width == 0 ? first : &hyps[h].trace, d, steps);
        snapshot again = snap(first);
        /* a window over the whole source, or none: the global decode's bits */
        if (opt.override_count == 0 && (d < 0 || d >= first->source_len - 1)) FUZZ_CHECK(same_snap(&global, first));
        /* the same call again: the same bits */
        st = decode(session, text, len, &opt, width, &first, &hyps, &count);
        FUZZ_CHECK(st == AS_OK && same_snap(&again, first));
        free(again.ids);
        free(again.alpha);
    }
    free(global.ids);
    free(global.alpha);
    free(weights);
    return 0;
}
