/* detokenize.c - the display text of a translation (detokenize.h).
 *
 * Word models (FORMAT.md 5): tokens joined with a space except around a few
 * punctuation marks, an <unk> shown as the user's most-attended source word
 * (Luong et al. 2015), the first letter capitalised like the source's (the
 * model is lower-cased). Subword models (FORMAT.md 5.2): the pieces' bytes
 * concatenated, invalid UTF-8 and NUL shown as U+FFFD, each word mark a space, a
 * leading space dropped; the model writes its own case. */
#include <stdlib.h>
#include <string.h>

#include "detokenize.h"
#include "utf8.h"

/* ---- word models --------------------------------------------------------- */

/* Case of an ASCII / Latin-1 letter (plus the French Œ/œ and Ÿ): +1 upper,
 * -1 lower, 0 not a letter; 2 for a digit (which ends the search). */
static int latin_case(uint32_t cp) {
    if ((cp >= 'A' && cp <= 'Z') || (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) || cp == 0x152 || cp == 0x178)
        return 1;
    if ((cp >= 'a' && cp <= 'z') || (cp >= 0xDF && cp <= 0xFF && cp != 0xF7) || cp == 0x153) return -1;
    if (cp >= '0' && cp <= '9') return 2;
    return 0;
}

static uint32_t latin_upper(uint32_t cp) {
    if (cp >= 'a' && cp <= 'z') return cp - 0x20;
    if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 0x20;
    if (cp == 0xFF) return 0x178;
    if (cp == 0x153) return 0x152;
    return cp; /* ß has no one-letter capital */
}

/* Case of the first letter (or digit) in text[0..n): 1, -1, or 0/2. */
static int first_letter_case(const char *text, size_t n, size_t *at, uint32_t *cp_out) {
    size_t pos = 0;
    while (pos < n) {
        size_t start = pos;
        uint32_t cp = as_utf8_decode((const uint8_t *)text, n, &pos);
        int c = latin_case(cp);
        if (c != 0) {
            if (at) *at = start;
            if (cp_out) *cp_out = cp;
            return c;
        }
    }
    return 0;
}

static int no_space_before(const char *w, size_t n) {
    return n == 1 && strchr(",.)]}%'-/", w[0]) != NULL;
}

static int no_space_after(const char *w, size_t n) {
    return n == 1 && strchr("([{'-/", w[0]) != NULL;
}

/* The word step t shows: the vocabulary token, or for <unk> the user's own
 * source word at the most attended position (copy_source). */
static const char *display_word(as_display *d, int32_t t, size_t *len) {
    const as_model *m = d->model;
    const int32_t id = d->target_ids[t];
    d->copy_source[t] = -1;
    if (id == AS_TOKEN_UNK && d->alpha) {
        const int32_t n = d->source_len;
        const int32_t words = n - d->source_eos; /* the appended </s> is no word to copy */
        const float *alpha = d->alpha + (size_t)t * (size_t)n;
        int32_t best = 0;
        for (int32_t j = 1; j < words; j++) if (alpha[j] > alpha[best]) best = j;
        d->copy_source[t] = best;
        *len = (size_t)(d->source_spans[2 * best + 1] - d->source_spans[2 * best]);
        return d->text + d->source_spans[2 * best];
    }
    size_t n;
    const char *tok = as_model_target_token(m, id, &n);
    *len = n;
    return tok;
}

static as_status grow(as_display *d, size_t need) {
    if (need <= d->translation_cap) return AS_OK;
    char *grown = realloc(d->translation, need);
    if (!grown) return AS_ERR_OUT_OF_MEMORY;
    d->translation = grown;
    d->translation_cap = need;
    return AS_OK;
}

static as_status build_words(as_display *d, int32_t words) {
    size_t need = 1;
    for (int32_t t = 0; t < words; t++) {
        size_t n;
        display_word(d, t, &n);
        need += n + 1;
    }
    as_status st = grow(d, need);
    if (st != AS_OK) return st;
    size_t out = 0;
    const char *prev = NULL;
    size_t prev_len = 0;
    for (int32_t t = 0; t < words; t++) {
        size_t n;
        const char *w = display_word(d, t, &n);
        if (t > 0 && !no_space_before(w, n) && !no_space_after(prev, prev_len)) d->translation[out++] = ' ';
        memcpy(d->translation + out, w, n);
        d->translation_spans[2 * t] = (int32_t)out;
        d->translation_spans[2 * t + 1] = (int32_t)(out + n);
        d->target_words[t] = t;
        out += n;
        prev = w;
        prev_len = n;
    }
    d->translation[out] = '\0';
    /* "Open the file" -> "Ouvrir le fichier": follow the source's first letter.
     * Upper and lower forms in this range have equal UTF-8 lengths. A special
     * token shown as itself ("<unk>" for kind none) is left alone. */
    size_t at;
    uint32_t cp;
    const int special_first = words > 0 && d->target_ids[0] < 4 && d->copy_source[0] < 0;
    if (!special_first && first_letter_case(d->text, d->text_len, NULL, NULL) == 1 &&
        first_letter_case(d->translation, out, &at, &cp) == -1) {
        char enc[4];
        uint32_t up = latin_upper(cp);
        size_t a = as_utf8_encode(cp, enc), b = as_utf8_encode(up, enc);
        if (a == b) memcpy(d->translation + at, enc, b);
    }
    d->target_word_count = words;
    return AS_OK;
}

/* ---- subword models ------------------------------------------------------ */

static int is_byte_token(int32_t id) { return id >= AS_FIRST_BYTE_TOKEN && id < AS_WORD_MARK_TOKEN; }

static int has_mark(const char *text, size_t n) { return n >= 3 && memcmp(text, AS_WORD_MARK_UTF8, 3) == 0; }

/* subword.py is_punctuation_piece: the first character after the mark is not
 * a word character; byte tokens and specials are not punctuation. */
static int is_punctuation_piece(const as_model *m, int32_t id) {
    if (id < AS_FIRST_BYTE_TOKEN || is_byte_token(id)) return 0;
    size_t n, pos = 0;
    const char *text = as_model_target_token(m, id, &n);
    if (has_mark(text, n)) pos = 3;
    if (pos >= n) return 0;
    return !as_is_word_char(as_utf8_decode((const uint8_t *)text, n, &pos));
}

/* A bare apostrophe piece, ' or U+2019 (no mark). */
static int is_apostrophe_piece(const as_model *m, int32_t id) {
    if (id < AS_FIRST_BYTE_TOKEN || is_byte_token(id)) return 0;
    size_t n;
    const char *text = as_model_target_token(m, id, &n);
    return (n == 1 && text[0] == '\'') || (n == 3 && memcmp(text, "\xE2\x80\x99", 3) == 0);
}

/* A piece of a word: not punctuation, not a bare mark or special (byte
 * tokens are); `attached`: with no mark either (no space before it). */
static int is_word_piece(const as_model *m, int32_t id, int attached) {
    if (id < AS_FIRST_BYTE_TOKEN || id == AS_WORD_MARK_TOKEN) return 0;
    if (is_byte_token(id)) return 1;
    size_t n;
    const char *text = as_model_target_token(m, id, &n);
    return !(attached && has_mark(text, n)) && !is_punctuation_piece(m, id);
}

/* subword.py word_starts: a piece starts a word if it is the first, carries
 * the mark, or is or follows punctuation (but not right after a bare mark),
 * except an elision's apostrophe ("n'a", "l'homme": a bare ' after a word
 * piece and before one joined to it), which ends the word before it: "n'"
 * and "a" are the words, as a French reader splits them. */
static void subword_words(as_display *d, int32_t pieces) {
    int32_t word = -1;
    for (int32_t t = 0; t < pieces; t++) {
        const int32_t id = d->target_ids[t];
        size_t n;
        const char *text = as_model_target_token(d->model, id, &n);
        int starts = t == 0 || has_mark(text, n);
        if (!starts) {
            const int32_t prev = d->target_ids[t - 1];
            const int elision = t + 1 < pieces && is_apostrophe_piece(d->model, id) &&
                                is_word_piece(d->model, prev, 0) &&
                                is_word_piece(d->model, d->target_ids[t + 1], 1);
            starts = prev != AS_WORD_MARK_TOKEN && !elision &&
                     (is_punctuation_piece(d->model, id) || is_punctuation_piece(d->model, prev));
        }
        word += starts;
        d->target_words[t] = word;
    }
    d->target_word_count = word + 1;
}

static as_status build_subwords(as_display *d, int32_t pieces) {
    const as_model *m = d->model;
    size_t raw_len = 0;
    /* each step's raw bytes, [start, end) in translation_spans for now */
    for (int32_t t = 0; t < pieces; t++) {
        const int32_t id = d->target_ids[t];
        d->translation_spans[2 * t] = (int32_t)raw_len;
        if (is_byte_token(id)) {
            d->scratch[raw_len++] = (uint8_t)(id - AS_FIRST_BYTE_TOKEN);
        } else if (id >= AS_FIRST_BYTE_TOKEN) {
            size_t n;
            const char *text = as_model_target_token(m, id, &n);
            memcpy(d->scratch + raw_len, text, n);
            raw_len += n;
        }
        d->translation_spans[2 * t + 1] = (int32_t)raw_len;
    }
    /* At most 3 output bytes per raw byte (U+FFFD for an invalid one). */
    as_status st = grow(d, 3 * raw_len + 1);
    if (st != AS_OK) return st;
    /* scratch_map[k]: where raw byte k lands; a byte inside a character maps
     * past it, so a step whose bytes split a character shows all of it in
     * the earlier step. */
    size_t pos = 0, out = 0;
    while (pos < raw_len) {
        const size_t start = pos;
        uint32_t cp = as_utf8_decode(d->scratch, raw_len, &pos);
        const size_t before = out;
        if (cp == 0x2581u) cp = ' ';
        /* A NUL (only the byte token <0x00> spells one: token texts have no
         * byte < 0x20) would end the NUL-terminated translation early and
         * leave later spans past its strlen: shown as U+FFFD, like a byte
         * that is no UTF-8. The step keeps its id; only its text changes. */
        if (cp == 0) cp = 0xFFFDu;
        if (!(cp == ' ' && out == 0)) out += as_utf8_encode(cp, d->translation + out); /* no leading space */
        d->scratch_map[start] = (int32_t)before;
        for (size_t k = start + 1; k < pos; k++) d->scratch_map[k] = (int32_t)out;
    }
    d->scratch_map[raw_len] = (int32_t)out;
    d->translation[out] = '\0';
    for (int32_t t = 0; t < pieces; t++) {
        size_t start = (size_t)d->translation_spans[2 * t], end = (size_t)d->translation_spans[2 * t + 1];
        size_t n;
        const char *text = as_model_target_token(m, d->target_ids[t], &n);
        if (!is_byte_token(d->target_ids[t]) && has_mark(text, n)) start += 3; /* the space is no part of it */
        d->translation_spans[2 * t] = d->scratch_map[start];
        d->translation_spans[2 * t + 1] = d->scratch_map[end];
        d->copy_source[t] = -1;
    }
    subword_words(d, pieces);
    return AS_OK;
}

/* ---- both ---------------------------------------------------------------- */

as_status as_display_build(as_display *d) {
    const int32_t words = d->stopped_at_eos ? d->steps - 1 : d->steps;
    as_status st = (d->model->info.arch_flags & AS_ARCH_SUBWORDS) ? build_subwords(d, words) : build_words(d, words);
    if (st != AS_OK) return st;
    if (d->stopped_at_eos) {
        const int32_t last = d->steps - 1;
        const int32_t end = (int32_t)strlen(d->translation);
        d->copy_source[last] = -1;
        d->translation_spans[2 * last] = d->translation_spans[2 * last + 1] = end;
        d->target_words[last] = d->target_word_count++;
    }
    return AS_OK;
}
