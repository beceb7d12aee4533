/* cli.c - the native command line: translate sentences and show alignments.
 *
 *   alignscope [--model FILE] [--json] [--no-context] [--scale X] [--top-k K] [--beam K]
 *              [--length-penalty X] [--force STEP:W0,W1,...] [--pin STEP:J] [SENTENCE ...]
 *
 * With no sentences it reads one per line from stdin. Text mode prints the
 * translation and a table of alpha (rows: target words, columns: source
 * words, '*' marks each row's maximum). --json prints one JSON object per
 * sentence per line; tests/parity.test.mjs reads it. Unlike the library, this
 * program may print and exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alignscope.h"
#include "alignscope_format.h" /* AS_ARCH_SOURCE_EOS: a pin counts the appended </s> */
#include "read_file.h"
#include "utf8.h" /* as_utf8_decode for JSON escaping */

static const char *const kind_names[] = {"none", "additive", "dot", "general", "scaled_dot"};

static void usage(FILE *f) {
    fprintf(f, "usage: alignscope [--model FILE] [--json] [--no-context] [--pieces] [--scale X] [--top-k K] [--beam K]\n"
               "                  [--length-penalty X] [--force STEP:W0,W1,...] [--pin STEP:J] [SENTENCE ...]\n"
               "  Translates each SENTENCE (or each line of stdin) and prints the attention\n"
               "  weights between words (a word's column sums its subword pieces' weights,\n"
               "  its row is their mean); --pieces prints the pieces' own matrix.\n"
               "  --scale overrides the score scale (the page's sqrt(d) slider);\n"
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

/* "STEP:REST" -> step, and the text after the colon in *rest; 0 if malformed. */
static int parse_step(const char *arg, int32_t *step, const char **rest) {
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end != ':' || errno || v < 0 || v > 1 << 20) return 0;
    *step = (int32_t)v;
    *rest = end + 1;
    return 1;
}

/* "W0,W1,..." -> a new array of floats (NaN and inf are parsed, for the
 * library to refuse with its own message); NULL if malformed. */
static float *parse_weights(const char *s, int32_t *length) {
    int32_t n = 1;
    for (const char *c = s; *c; c++) n += *c == ',';
    float *w = malloc(sizeof(float) * (size_t)n);
    if (!w) return NULL;
    for (int32_t i = 0; i < n; i++) {
        char *end;
        w[i] = strtof(s, &end);
        if (end == s || (*end != ',' && *end != '\0')) {
            free(w);
            return NULL;
        }
        s = *end ? end + 1 : end;
    }
    *length = n;
    return w;
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
        char *end;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--no-context") == 0) {
            json_with_context = 0;
        } else if (strcmp(a, "--pieces") == 0) {
            pieces = 1;
        } else if (strcmp(a, "--model") == 0 && i + 1 < argc) {
            model_path = argv[++i];
        } else if (strcmp(a, "--scale") == 0 && i + 1 < argc) {
            errno = 0;
            opt.score_scale = strtof(argv[++i], &end);
            if (*end || errno) {
                fprintf(stderr, "alignscope: --scale needs a number\n");
                return 2;
            }
        } else if (strcmp(a, "--top-k") == 0 && i + 1 < argc) {
            long k = strtol(argv[++i], &end, 10);
            if (*end || k < 0 || k > 16) {
                fprintf(stderr, "alignscope: --top-k needs a whole number 0..16\n");
                return 2;
            }
            opt.top_k = (int32_t)k;
        } else if (strcmp(a, "--beam") == 0 && i + 1 < argc) {
            long k = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i]) {
                fprintf(stderr, "alignscope: --beam needs a whole number 1..8\n");
                return 2;
            }
            /* the library judges the range, with its own message */
            opt.beam_width = k < -1 || k > 1000000 ? -1 : (int32_t)k;
            beam = k == 1 ? 0 : 1; /* width 1 is greedy: as_translate, printed as one translation */
        } else if (strcmp(a, "--length-penalty") == 0 && i + 1 < argc) {
            errno = 0;
            opt.length_penalty = strtof(argv[++i], &end);
            if (*end || errno) {
                fprintf(stderr, "alignscope: --length-penalty needs a number 0..4\n");
                return 2;
            }
        } else if ((strcmp(a, "--force") == 0 || strcmp(a, "--pin") == 0) && i + 1 < argc) {
            const int pin = strcmp(a, "--pin") == 0;
            const char *rest;
            cli_override *o = &overrides[override_count];
            if (override_count == 64) {
                fprintf(stderr, "alignscope: at most 64 --force / --pin options\n");
                status = 2;
                goto done;
            }
            if (!parse_step(argv[++i], &o->step, &rest)) {
                fprintf(stderr, "alignscope: %s needs STEP:%s (STEP a whole number from 0)\n", a,
                        pin ? "J" : "W0,W1,...");
                status = 2;
                goto done;
            }
            o->pin_token = -1;
            o->weights = NULL;
            o->length = 0;
            if (pin) {
                long j = strtol(rest, &end, 10);
                if (*end || end == rest || j < 0 || j > 1 << 20) {
                    fprintf(stderr, "alignscope: --pin needs STEP:J (J a source token index from 0)\n");
                    status = 2;
                    goto done;
                }
                o->pin_token = (int32_t)j;
            } else if (!(o->weights = parse_weights(rest, &o->length))) {
                fprintf(stderr, "alignscope: --force needs STEP:W0,W1,... (numbers separated by commas)\n");
                status = 2;
                goto done;
            }
            override_count++;
        } else if (strcmp(a, "--") == 0) {
            first_sentence = i + 1;
            break;
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "alignscope: unknown option %s\n", a);
            usage(stderr);
            status = 2;
            goto done;
        } else {
            first_sentence = i;
            break;
        }
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
}
