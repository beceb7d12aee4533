/* cli.c - the native command line: translate sentences and show alignments.
 *
 *   alignscope [--model FILE] [--json] [--no-context] [--scale X] [--top-k K] [--beam K]
 *              [--length-penalty X] [--force STEP:W0,W1,...] [--pin STEP:J] [--window D] [SENTENCE ...]
 *
 * With no sentences it reads one per line from stdin. Text mode prints the
 * translation and a table of alpha (rows: target words, columns: source
 * words, '*' marks each row's maximum). --json prints one JSON object per
 * sentence per line; tests/parity.test.mjs reads it. Unlike the library, this
 * program may print and exit.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alignscope.h"
#include "alignscope_format.h" /* AS_ARCH_SOURCE_EOS (a pin counts the appended </s>), AS_MAX_TOKENS_LIMIT */
#include "read_file.h"
#include "utf8.h" /* as_utf8_decode for JSON escaping */

static const char *const kind_names[] = {"none", "additive", "dot", "general", "scaled_dot"};

static void usage(FILE *f) {
    fprintf(f, "usage: alignscope [--model FILE] [--json] [--no-context] [--pieces] [--scale X] [--top-k K] [--beam K]\n"
               "                  [--length-penalty X] [--force STEP:W0,W1,...] [--pin STEP:J] [--window D]\n"
               "                  [SENTENCE ...]\n"
               "  Translates each SENTENCE (or each line of stdin) and prints the attention\n"
               "  weights between words (a word's column sums its subword pieces' weights,\n"
               "  its row is their mean); --pieces prints the pieces' own matrix.\n"
               "  --scale overrides the score scale (the page's sqrt(d) slider; above 0, at most 1e6);\n"
               "  --top-k sets how many candidates per step --json lists (0..16, default 5).\n"
               "  --no-context: --json writes \"context\": null instead of the context vectors\n"
               "  (T x 2H numbers, most of each line), for callers that read only alignments.\n"
               "  Decodes with beam search by default: %d hypotheses ranked by log p / T^X\n"
               "  (--length-penalty X, 0..4, default %g), the best one printed (--json adds\n"
               "  its beam_width, length_penalty, log_prob and score).\n"
               "  --beam K: K hypotheses (2..8), all printed, best first; --beam 1: greedy.\n"
               "  --force STEP:W0,W1,... forces the attention weights at decoder step STEP\n"
               "  (0 = first target token) to W (one per source token, >= 0, renormalised);\n"
               "  --pin STEP:J puts all of step STEP's weight on source token J. Both repeat.\n"
               "  --window D decodes with Luong's local-m window: step t attends only to the\n"
               "  source tokens within D (0..4096) of round(t (S-1)/(T-1)), T the length of the\n"
               "  same decoding without the window (not with --force / --pin).\n"
               "  Numbers are decimal (1.5, 2e-3); a value that is empty, out of range or has\n"
               "  trailing characters is refused (exit 2).\n"
               "  Default model: models/en-fr.alsc\n", AS_DEFAULT_BEAM_WIDTH, (double)AS_DEFAULT_LENGTH_PENALTY);
}


/* A whole line of any length (without the newline); NULL at end of input. */
static char *read_line(FILE *f, size_t *len_out) {
    size_t cap = 256, len = 0;
    char *line = malloc(cap);
    int c = EOF;
    while (line && (c = fgetc(f)) != EOF && c != '\n') {
        if (len + 1 == cap) {
            char *grown = realloc(line, cap * 2);
            if (!grown) {
                free(line);
                return NULL;
            }
            line = grown;
            cap *= 2;
        }
        line[len++] = (char)c;
    }
    if (!line || (c == EOF && len == 0)) {
        free(line);
        return NULL;
    }
    if (len > 0 && line[len - 1] == '\r') len--;
    line[len] = '\0';
    *len_out = len;
    return line;
}

/* ---- JSON output ------------------------------------------------------- */

/* A JSON string from bytes that may be invalid UTF-8 (bad bytes -> U+FFFD). */
static void json_string(const char *s, size_t n) {
    size_t pos = 0;
    putchar('"');
    while (pos < n) {
        size_t start = pos;
        uint32_t cp = as_utf8_decode((const uint8_t *)s, n, &pos);
        if (cp == '"' || cp == '\\') printf("\\%c", (int)cp);
        else if (cp < 0x20) printf("\\u%04x", (unsigned)cp);
        else if (cp == 0xFFFD && pos - start == 1) fputs("\xEF\xBF\xBD", stdout);
        else fwrite(s + start, 1, pos - start, stdout);
    }
    putchar('"');
}

static void json_floats(const float *v, int32_t n) {
    putchar('[');
    for (int32_t i = 0; i < n; i++) printf(i ? ",%.9g" : "%.9g", (double)v[i]);
    putchar(']');
}

static void json_matrix(const float *v, int32_t rows, int32_t cols) {
    putchar('[');
    for (int32_t r = 0; r < rows; r++) {
        if (r) putchar(',');
        json_floats(v ? v + (size_t)r * cols : NULL, v ? cols : 0);
    }
    putchar(']');
}

/* Whether --json writes each step's context vector (T x 2H floats, most of a
 * line's bytes). models/train/report.py reads thousands of traces for their
 * alignments only and turns it off with --no-context. Set once, from argv. */
static int json_with_context = 1;

/* A trace's fields, without the braces around them. */
static void print_json_fields(const as_model *model, const char *text, size_t len, const as_trace *tr) {
    printf("\"text\":");
    json_string(text, len);
    printf(",\"translation\":");
    json_string(tr->translation, strlen(tr->translation));
    printf(",\"score_scale\":%.9g,\"encoder_reused\":%d,\"stopped_at_eos\":%d,\"source_eos\":%d",
           (double)tr->score_scale, tr->encoder_reused, tr->stopped_at_eos, tr->source_eos);
    printf(",\"source\":[");
    for (int32_t j = 0; j < tr->source_len; j++) {
        const int32_t a = tr->source_spans[2 * j], b = tr->source_spans[2 * j + 1];
        const char *tok = tr->source_tokens + (size_t)j * AS_TOKEN_TEXT_STRIDE;
        printf("%s{\"id\":%d,\"start\":%d,\"end\":%d,\"token\":", j ? "," : "", tr->source_ids[j], a, b);
        json_string(tok, strlen(tok));
        printf(",\"text\":");
        json_string(text + a, (size_t)(b - a));
        putchar('}');
    }
    printf("],\"source_ids\":[");
    for (int32_t j = 0; j < tr->source_len; j++) printf(j ? ",%d" : "%d", tr->source_ids[j]);
    printf("],\"source_words\":[");
    for (int32_t j = 0; j < tr->source_len; j++) printf(j ? ",%d" : "%d", tr->source_words[j]);
    printf("],\"target_ids\":[");
    for (int32_t t = 0; t < tr->target_len; t++) printf(t ? ",%d" : "%d", tr->target_ids[t]);
    printf("],\"target_words\":[");
    for (int32_t t = 0; t < tr->target_len; t++) printf(t ? ",%d" : "%d", tr->target_words[t]);
    printf("],\"target\":[");
    for (int32_t t = 0; t < tr->target_len; t++) {
        size_t n;
        const char *tok = as_model_target_token(model, tr->target_ids[t], &n);
        const int32_t a = tr->translation_spans[2 * t], b = tr->translation_spans[2 * t + 1];
        printf("%s{\"id\":%d,\"copied_from\":%d,\"token\":", t ? "," : "", tr->target_ids[t],
               tr->target_copy_source[t]);
        json_string(tok, n);
        printf(",\"text\":");
        json_string(tr->translation + a, (size_t)(b - a));
        putchar('}');
    }
    printf("],\"alpha\":");
    if (tr->alpha) json_matrix(tr->alpha, tr->target_len, tr->source_len);
    else printf("null");
    printf(",\"scores\":");
    json_matrix(tr->scores, tr->target_len, tr->source_len);
    printf(",\"context\":");
    if (json_with_context) json_matrix(tr->context, tr->target_len, tr->context_dim);
    else printf("null");
    printf(",\"top\":[");
    for (int32_t t = 0; t < tr->target_len; t++) {
        printf("%s{\"ids\":[", t ? "," : "");
        for (int32_t k = 0; k < tr->top_k; k++) printf(k ? ",%d" : "%d", tr->top_ids[t * tr->top_k + k]);
        printf("],\"probs\":");
        json_floats(tr->top_probs + (size_t)t * tr->top_k, tr->top_k);
        printf(",\"tokens\":[");
        for (int32_t k = 0; k < tr->top_k; k++) {
            size_t n;
            const char *tok = as_model_target_token(model, tr->top_ids[t * tr->top_k + k], &n);
            if (k) putchar(',');
            json_string(tok, n);
        }
        printf("]}");
    }
    putchar(']');
}

static void print_json(const as_model *model, const char *text, size_t len, const as_trace *tr) {
    putchar('{');
    print_json_fields(model, text, len, tr);
    printf("}\n");
}

/* A beam search: one line, {"text", "beam_width", "length_penalty",
 * "hypotheses": [{trace fields, "log_prob", "score", "step_log_probs"}]}. */
static void print_json_beam(const as_model *model, const char *text, size_t len, const as_options *opt,
                            const as_hypothesis *hyps, int32_t count) {
    printf("{\"text\":");
    json_string(text, len);
    printf(",\"beam_width\":%d,\"length_penalty\":%.9g,\"hypotheses\":[", opt->beam_width,
           (double)opt->length_penalty);
    for (int32_t h = 0; h < count; h++) {
        printf(h ? ",{" : "{");
        print_json_fields(model, text, len, &hyps[h].trace);
        printf(",\"log_prob\":%.9g,\"score\":%.9g,\"step_log_probs\":", (double)hyps[h].log_prob,
               (double)hyps[h].score);
        json_floats(hyps[h].step_log_probs, hyps[h].trace.target_len);
        putchar('}');
    }
    printf("]}\n");
}

/* The default decoding's answer: the best hypothesis as one translation
 * (print_json's fields), with how it was searched and its scores. */
static void print_json_best(const as_model *model, const char *text, size_t len, const as_options *opt,
                            const as_hypothesis *best) {
    putchar('{');
    print_json_fields(model, text, len, &best->trace);
    printf(",\"beam_width\":%d,\"length_penalty\":%.9g,\"log_prob\":%.9g,\"score\":%.9g}\n", opt->beam_width,
           (double)opt->length_penalty, (double)best->log_prob, (double)best->score);
}

/* ---- text output ------------------------------------------------------- */

static size_t display_width(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) if (((uint8_t)s[i] & 0xC0u) != 0x80u) w++;
    return w;
}

static void print_padded(const char *s, size_t n, size_t width) {
    fwrite(s, 1, n, stdout);
    for (size_t w = display_width(s, n); w < width; w++) putchar(' ');
}

/* The alignment as a table: rows target words, columns source words. A
 * source word's column is the sum of its pieces' alpha and a target word's
 * row the mean of its pieces' rows, so each row still sums to 1; with pieces
 * (--pieces) every token is its own row or column (for a word model the two
 * are the same table). */
static void print_table(const as_model *model, const char *text, const as_trace *tr, int pieces) {
    printf("%s\n", tr->translation);
    if (!tr->alpha) {
        printf("(attention kind none: no alignment to show)\n\n");
        return;
    }
    const int32_t S = tr->source_len, T = tr->target_len;
    const int32_t cols = pieces ? S : tr->source_word_count, rows = pieces ? T : tr->target_word_count;
    /* label spans: [first token, last token] of each row and column */
    int32_t *col_first = malloc(sizeof(int32_t) * 2 * (size_t)cols), *row_first = malloc(sizeof(int32_t) * 2 * (size_t)rows);
    double *cell = calloc((size_t)rows * (size_t)cols, sizeof(double));
    size_t *col_w = malloc(sizeof(size_t) * (size_t)cols);
    if (!col_first || !row_first || !cell || !col_w) {
        free(col_first), free(row_first), free(cell), free(col_w);
        return;
    }
    for (int32_t c = 0; c < cols; c++) col_first[2 * c] = -1;
    for (int32_t j = 0; j < S; j++) {
        const int32_t c = pieces ? j : tr->source_words[j];
        if (col_first[2 * c] < 0) col_first[2 * c] = j;
        col_first[2 * c + 1] = j;
    }
    for (int32_t r = 0; r < rows; r++) row_first[2 * r] = -1;
    for (int32_t t = 0; t < T; t++) {
        const int32_t r = pieces ? t : tr->target_words[t];
        if (row_first[2 * r] < 0) row_first[2 * r] = t;
        row_first[2 * r + 1] = t;
    }
    for (int32_t t = 0; t < T; t++) {
        const int32_t r = pieces ? t : tr->target_words[t];
        const double share = 1.0 / (double)(row_first[2 * r + 1] - row_first[2 * r] + 1);
        for (int32_t j = 0; j < S; j++)
            cell[(size_t)r * cols + (pieces ? j : tr->source_words[j])] += share * tr->alpha[(size_t)t * S + j];
    }
    size_t row_w = 4;
    for (int32_t r = 0; r < rows; r++) {
        const int32_t a = tr->translation_spans[2 * row_first[2 * r]], b = tr->translation_spans[2 * row_first[2 * r + 1] + 1];
        size_t n = (size_t)(b - a), w;
        if (n == 0) as_model_target_token(model, tr->target_ids[row_first[2 * r]], &n);
        w = display_width(tr->translation + a, n);
        if (w > row_w) row_w = w;
    }
    print_padded("", 0, row_w + 1);
    for (int32_t c = 0; c < cols; c++) {
        const int32_t j0 = col_first[2 * c], j1 = col_first[2 * c + 1];
        const int32_t a = tr->source_spans[2 * j0], b = tr->source_spans[2 * j1 + 1];
        /* the appended </s> (AS_ARCH_SOURCE_EOS) has no text of its own */
        const int end_marker = tr->source_eos && j1 == S - 1;
        const char *label = end_marker ? "</s>" : text + a;
        const size_t n = end_marker ? 4 : (size_t)(b - a);
        size_t w = display_width(label, n);
        col_w[c] = w > 5 ? w : 5;
        print_padded(label, n, col_w[c] + 1);
    }
    putchar('\n');
    for (int32_t r = 0; r < rows; r++) {
        const int32_t t0 = row_first[2 * r], t1 = row_first[2 * r + 1];
        const int32_t a = tr->translation_spans[2 * t0], b = tr->translation_spans[2 * t1 + 1];
        if (b > a) print_padded(tr->translation + a, (size_t)(b - a), row_w + 1);
        else {
            size_t n;
            const char *tok = as_model_target_token(model, tr->target_ids[t0], &n);
            print_padded(tok, n, row_w + 1);
        }
        const double *row = cell + (size_t)r * cols;
        int32_t best = 0;
        for (int32_t c = 1; c < cols; c++) if (row[c] > row[best]) best = c;
        for (int32_t c = 0; c < cols; c++) {
            char text_cell[16];
            snprintf(text_cell, sizeof text_cell, "%.2f%s", row[c], c == best ? "*" : "");
            print_padded(text_cell, strlen(text_cell), col_w[c] + 1);
        }
        putchar('\n');
    }
    putchar('\n');
    free(col_first);
    free(row_first);
    free(cell);
    free(col_w);
}

/* ---- main -------------------------------------------------------------- */

/* --force / --pin, parsed once; the weights' length is the sentence's S,
 * so a --pin becomes its one-hot vector per sentence (pin_token >= 0). */
typedef struct {
    int32_t step, pin_token;
    float *weights;
    int32_t length;
} cli_override;

static void report_failure(as_session *session, const as_model *model, const char *text, size_t len,
                           as_status st) {
    fprintf(stderr, "alignscope: \"%.*s\": %s", (int)(len > 200 ? 200 : len), text, as_status_message(st));
    if (st == AS_ERR_INPUT_TOO_LONG)
        fprintf(stderr, " (%d tokens; this model accepts at most %u)", (int)as_session_source_count(session),
                (unsigned)as_model_get_info(model)->max_source_tokens);
    if (st == AS_ERR_BAD_ATTENTION_OVERRIDE || st == AS_ERR_OVERRIDE_STEP) fputs(" (--force / --pin)", stderr);
    fputc('\n', stderr);
}

static int translate_one(as_session *session, const as_model *model, const char *text, size_t len,
                         const as_options *base, int json, int pieces, int beam, /* 0 greedy, 1 all, 2 best */
                         const cli_override *overrides, int32_t override_count) {
    as_options opt = *base;
    as_attention_override forced[64];
    float *one_hot = NULL;
    if (override_count > 0) {
        /* a pin needs S: the token count of this text, + 1 with the appended </s> */
        int32_t count = 0;
        as_status st = as_tokenize(model, text, len, NULL, NULL, 0, &count);
        if (st != AS_OK) {
            report_failure(session, model, text, len, st);
            return 1;
        }
        if (as_model_get_info(model)->arch_flags & AS_ARCH_SOURCE_EOS) count++;
        one_hot = calloc((size_t)override_count * (size_t)(count > 0 ? count : 1), sizeof(float));
        if (!one_hot) {
            report_failure(session, model, text, len, AS_ERR_OUT_OF_MEMORY);
            return 1;
        }
        for (int32_t i = 0; i < override_count; i++) {
            forced[i].step = overrides[i].step;
            if (overrides[i].pin_token >= 0) {
                float *row = one_hot + (size_t)i * (size_t)count;
                if (overrides[i].pin_token < count) row[overrides[i].pin_token] = 1.0f;
                else {
                    fprintf(stderr, "alignscope: \"%.*s\": --pin %d:%d: the sentence has source tokens 0..%d\n",
                            (int)(len > 200 ? 200 : len), text, overrides[i].step, overrides[i].pin_token,
                            count - 1);
                    free(one_hot);
                    return 1;
                }
                forced[i].weights = row;
                forced[i].length = count;
            } else {
                forced[i].weights = overrides[i].weights;
                forced[i].length = overrides[i].length;
            }
        }
        opt.overrides = forced;
        opt.override_count = override_count;
    }
    as_status st;
    if (opt.window_half_width >= 0) {
        /* Free decoding does not know its length beforehand: the window's
         * centre is scaled with T of the same decoding without it (as the page does). */
        as_options global = opt;
        global.window_half_width = -1;
        const as_hypothesis *hyps;
        const as_trace *tr;
        int32_t count;
        st = beam ? as_translate_beam(session, text, len, &global, &hyps, &count) : as_translate(session, text, len, &global, &tr);
        if (st != AS_OK) {
            free(one_hot);
            report_failure(session, model, text, len, st);
            return 1;
        }
        opt.window_steps = beam ? hyps[0].trace.target_len : tr->target_len;
    }
    if (beam) {
        const as_hypothesis *hyps;
        int32_t count;
        st = as_translate_beam(session, text, len, &opt, &hyps, &count);
        if (st == AS_OK) {
            if (beam == 2 && json) print_json_best(model, text, len, &opt, &hyps[0]);
            else if (beam == 2) print_table(model, text, &hyps[0].trace, pieces);
            else if (json) print_json_beam(model, text, len, &opt, hyps, count);
            else
                for (int32_t h = 0; h < count; h++) {
                    printf("hypothesis %d of %d: log p = %.4f, score = %.4f (%d steps%s)\n", h + 1, count,
                           (double)hyps[h].log_prob, (double)hyps[h].score, hyps[h].trace.target_len,
                           hyps[h].trace.stopped_at_eos ? "" : ", stopped at the length cap");
                    print_table(model, text, &hyps[h].trace, pieces);
                }
        }
    } else {
        const as_trace *tr;
        st = as_translate(session, text, len, &opt, &tr);
        if (st == AS_OK) {
            if (json) print_json(model, text, len, tr);
            else print_table(model, text, tr, pieces);
        }
    }
    free(one_hot);
    if (st != AS_OK) {
        report_failure(session, model, text, len, st);
        return 1;
    }
    return 0;
}

/* ---- numbers in flags ---------------------------------------------------- */

/* Every numeric flag, and each number inside --force and --pin, goes through
 * parse_number. strtod/strtol alone read "" as 0, "0x10" as 16, " 5", "inf"
 * and "nan" as numbers, stop quietly at trailing junk ("5abc" -> 5) and round
 * 1e-50 to 0, which --scale reads as "the trained scale". Here a number is
 * decimal only,
 *     whole: [+-]?[0-9]+
 *     real:  [+-]?([0-9]+(.[0-9]*)?|.[0-9]+)([eE][+-]?[0-9]+)?
 * and its value (for a real, after rounding to the float the library takes,
 * which must be finite and not so small that it rounds to 0 or a subnormal)
 * must lie in [lo, hi], or (lo, hi] with lo_open. Anything else is an error
 * naming the flag and its range; the ranges come from the library's own
 * limits (alignscope.h, alignscope_format.h). */
typedef struct {
    const char *flag;
    int whole;        /* 1: a whole number */
    double lo, hi;    /* inclusive, except lo with lo_open */
    int lo_open;
} number_rule;

static const number_rule RULE_SCALE = {"--scale", 0, 0.0, (double)AS_MAX_SCORE_SCALE, 1};
static const number_rule RULE_TOP_K = {"--top-k", 1, 0.0, AS_TOP_K_MAX, 0};
static const number_rule RULE_BEAM = {"--beam", 1, 1.0, AS_BEAM_MAX_WIDTH, 0};
static const number_rule RULE_LENGTH_PENALTY = {"--length-penalty", 0, 0.0, (double)AS_MAX_LENGTH_PENALTY, 0};
static const number_rule RULE_WINDOW = {"--window", 1, 0.0, AS_WINDOW_MAX_LENGTH, 0};
/* A decoder step below the largest max_target_tokens; a source token index
 * below the largest S (max_source_tokens words + the appended </s>). */
static const number_rule RULE_STEP = {"STEP", 1, 0.0, AS_MAX_TOKENS_LIMIT - 1, 0};
static const number_rule RULE_PIN_TOKEN = {"J", 1, 0.0, AS_MAX_TOKENS_LIMIT, 0};
static const number_rule RULE_WEIGHT = {"W", 0, 0.0, (double)FLT_MAX, 0};

/* The end of the longest prefix of s in the rule's grammar; NULL if none. */
static const char *scan_number(const char *s, int whole) {
    const char *p = s, *digits;
    if (*p == '+' || *p == '-') p++;
    digits = p;
    while (isdigit((unsigned char)*p)) p++;
    if (whole) return p > digits ? p : NULL;
    size_t mantissa = (size_t)(p - digits);
    if (*p == '.') {
        const char *frac = ++p;
        while (isdigit((unsigned char)*p)) p++;
        mantissa += (size_t)(p - frac);
    }
    if (mantissa == 0) return NULL;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-') q++;
        if (isdigit((unsigned char)*q)) {
            while (isdigit((unsigned char)*q)) q++;
            p = q;
        }
    }
    return p;
}

/* The number at the start of s -> *out, by the rule. It must end at the end
 * of s or at one of the characters in `followers` ("" for a whole argument);
 * *end (if not NULL) is where it ended. 0 if malformed or out of range. */
static int parse_number(const char *s, const number_rule *rule, const char *followers, double *out,
                        const char **end) {
    const char *stop = scan_number(s, rule->whole);
    if (!stop || (*stop != '\0' && !strchr(followers, *stop))) return 0;
    /* strtod reads exactly [s, stop) here: it could only go on with a digit,
     * '.', an exponent or a hex "x", and the scan stopped at none of those */
    double v = strtod(s, NULL);
    if (!rule->whole) {
        const float f = (float)v; /* what the library will see */
        if (!isfinite(f) || (f != 0.0f && fabsf(f) < FLT_MIN)) return 0;
        v = f;
    }
    if (v == 0.0) v = 0.0; /* -0 -> 0 */
    if (!(rule->lo_open ? v > rule->lo : v >= rule->lo) || !(v <= rule->hi)) return 0;
    *out = v;
    if (end) *end = stop;
    return 1;
}

/* "a whole number from 0 to 16", "a number greater than 0 and at most 1000000". */
static void describe_rule(FILE *f, const number_rule *rule) {
    fputs(rule->whole ? "a whole number " : "a number ", f);
    if (rule->hi == (double)FLT_MAX) fprintf(f, "%s%.10g", rule->lo_open ? "greater than " : "at least ", rule->lo);
    else if (rule->lo_open) fprintf(f, "greater than %.10g and at most %.10g", rule->lo, rule->hi);
    else fprintf(f, "from %.10g to %.10g", rule->lo, rule->hi);
}

/* argv[*i] is the flag of `rule`; parses argv[*i + 1] (and steps past it),
 * or says what the flag needs. */
static int flag_number(int argc, char **argv, int *i, const number_rule *rule, double *out) {
    const char *value = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (value && parse_number(value, rule, "", out, NULL)) {
        (*i)++;
        return 1;
    }
    fprintf(stderr, "alignscope: %s needs ", rule->flag);
    describe_rule(stderr, rule);
    if (value) fprintf(stderr, " (got \"%.200s\")\n", value);
    else fputs(" (no value given)\n", stderr);
    return 0;
}

/* --force STEP:W0,W1,... or --pin STEP:J (pin) -> o, or a message naming the
 * flag, the part that is wrong and its range. */
static int parse_override(const char *flag, const char *arg, int pin, cli_override *o) {
    double v;
    const char *p;
    o->pin_token = -1;
    o->weights = NULL;
    o->length = 0;
    if (!parse_number(arg, &RULE_STEP, ":", &v, &p) || *p != ':') {
        fprintf(stderr, "alignscope: %s needs STEP:%s with STEP ", flag, pin ? "J" : "W0,W1,...");
        describe_rule(stderr, &RULE_STEP);
        fprintf(stderr, " (got \"%.200s\")\n", arg);
        return 0;
    }
    o->step = (int32_t)v;
    p++;
    if (pin) {
        if (!parse_number(p, &RULE_PIN_TOKEN, "", &v, NULL)) {
            fprintf(stderr, "alignscope: %s needs STEP:J with J (a source token index) ", flag);
            describe_rule(stderr, &RULE_PIN_TOKEN);
            fprintf(stderr, " (got \"%.200s\")\n", arg);
            return 0;
        }
        o->pin_token = (int32_t)v;
        return 1;
    }
    int32_t n = 1;
    for (const char *c = p; *c; c++) n += *c == ',';
    o->weights = malloc(sizeof(float) * (size_t)n);
    if (!o->weights) {
        fprintf(stderr, "alignscope: %s\n", as_status_message(AS_ERR_OUT_OF_MEMORY));
        return 0;
    }
    for (int32_t k = 0; k < n; k++) {
        const char *stop;
        if (!parse_number(p, &RULE_WEIGHT, ",", &v, &stop)) {
            fprintf(stderr, "alignscope: %s needs STEP:W0,W1,... with each W ", flag);
            describe_rule(stderr, &RULE_WEIGHT);
            fprintf(stderr, " (weight %d of \"%.200s\")\n", (int)k, arg);
            free(o->weights);
            o->weights = NULL;
            return 0;
        }
        o->weights[k] = (float)v;
        p = *stop ? stop + 1 : stop;
    }
    o->length = n;
    return 1;
}

int main(int argc, char **argv) {
    const char *model_path = "models/en-fr.alsc";
    /* beam: 2 = the default search, only its best printed; 1 = --beam K, all; 0 = --beam 1, greedy */
    int json = 0, pieces = 0, beam = 2, first_sentence = argc, status = 0;
    as_options opt;
    as_options_default(&opt);
    opt.beam_width = AS_DEFAULT_BEAM_WIDTH;
    cli_override overrides[64];
    int32_t override_count = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--no-context") == 0) {
            json_with_context = 0;
        } else if (strcmp(a, "--pieces") == 0) {
            pieces = 1;
        } else if (strcmp(a, "--model") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                fprintf(stderr, "alignscope: --model needs a file name\n");
                status = 2;
                goto done;
            }
            model_path = argv[++i];
        } else if (strcmp(a, "--scale") == 0) {
            if (!flag_number(argc, argv, &i, &RULE_SCALE, &v)) goto usage_error;
            opt.score_scale = (float)v;
        } else if (strcmp(a, "--top-k") == 0) {
            if (!flag_number(argc, argv, &i, &RULE_TOP_K, &v)) goto usage_error;
            opt.top_k = (int32_t)v;
        } else if (strcmp(a, "--beam") == 0) {
            if (!flag_number(argc, argv, &i, &RULE_BEAM, &v)) goto usage_error;
            opt.beam_width = (int32_t)v;
            beam = opt.beam_width == 1 ? 0 : 1; /* width 1 is greedy: as_translate, printed as one translation */
        } else if (strcmp(a, "--length-penalty") == 0) {
            if (!flag_number(argc, argv, &i, &RULE_LENGTH_PENALTY, &v)) goto usage_error;
            opt.length_penalty = (float)v;
        } else if (strcmp(a, "--window") == 0) {
            if (!flag_number(argc, argv, &i, &RULE_WINDOW, &v)) goto usage_error;
            opt.window_half_width = (int32_t)v;
        } else if (strcmp(a, "--force") == 0 || strcmp(a, "--pin") == 0) {
            if (override_count == 64) {
                fprintf(stderr, "alignscope: at most 64 --force / --pin options\n");
                goto usage_error;
            }
            if (i + 1 >= argc) {
                fprintf(stderr, "alignscope: %s needs STEP:%s (no value given)\n", a,
                        strcmp(a, "--pin") == 0 ? "J" : "W0,W1,...");
                goto usage_error;
            }
            if (!parse_override(a, argv[++i], strcmp(a, "--pin") == 0, &overrides[override_count])) goto usage_error;
            override_count++;
        } else if (strcmp(a, "--") == 0) {
            first_sentence = i + 1;
            break;
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "alignscope: unknown option %s\n", a);
            usage(stderr);
            goto usage_error;
        } else {
            first_sentence = i;
            break;
        }
    }

    if (opt.window_half_width >= 0 && override_count > 0) {
        fprintf(stderr, "alignscope: --window cannot be used with --force / --pin\n");
        goto usage_error;
    }
    size_t len;
    uint8_t *bytes = read_file(model_path, &len);
    if (!bytes) {
        fprintf(stderr, "alignscope: cannot read %s: %s\n", model_path, strerror(errno));
        status = 1;
        goto done;
    }
    as_model *model;
    as_status st = as_model_load(bytes, len, &model);
    free(bytes);
    if (st != AS_OK) {
        fprintf(stderr, "alignscope: %s: %s\n", model_path, as_status_message(st));
        status = 1;
        goto done;
    }
    as_session *session;
    st = as_session_create(model, &session);
    if (st != AS_OK) {
        fprintf(stderr, "alignscope: %s\n", as_status_message(st));
        as_model_free(model);
        status = 1;
        goto done;
    }
    if (!json) {
        const as_model_info *info = as_model_get_info(model);
        printf("model %s: %s -> %s, attention %s", model_path, info->source_language,
               info->target_language, kind_names[info->attention_kind]);
        if (beam == 2) printf(", beam search of %d (--beam 1: greedy)", opt.beam_width);
        printf("\n\n");
    }
    int failures = 0;
    if (first_sentence < argc) {
        for (int i = first_sentence; i < argc; i++)
            failures += translate_one(session, model, argv[i], strlen(argv[i]), &opt, json, pieces, beam, overrides,
                                      override_count);
    } else {
        char *line;
        while ((line = read_line(stdin, &len)) != NULL) {
            if (len > 0) /* blank lines separate */
                failures += translate_one(session, model, line, len, &opt, json, pieces, beam, overrides,
                                          override_count);
            free(line);
        }
    }
    fflush(stdout);
    as_session_free(session);
    as_model_free(model);
    status = failures ? 1 : 0;
done:
    for (int32_t i = 0; i < override_count; i++) free(overrides[i].weights);
    return status;
usage_error: /* a malformed command line: exit 2, nothing on stdout */
    status = 2;
    goto done;
}
