/* tokenizer.c - text to source tokens, exactly as models/FORMAT.md section 5
 * and models/train/tokenize_text.py define it (tests/loader.test.mjs runs both
 * on the same strings), or, for a model with AS_ARCH_TOKENIZER_TUTORIAL, as
 * the PyTorch tutorial's normalizeString + split (FORMAT.md 5.1;
 * tests/byo.test.mjs compares). Spans are byte offsets into the caller's text. */
#include <string.h>

#include "model_internal.h"

/* ---- UTF-8 ------------------------------------------------------------- */

static int is_cont(uint8_t b) { return (b & 0xC0u) == 0x80u; }

/* Strict decoding (no overlongs, surrogates or values above U+10FFFF), the
 * same sequences Python's decoder accepts. */
uint32_t as_utf8_decode(const uint8_t *t, size_t n, size_t *pos) {
    size_t i = *pos;
    uint8_t b0 = t[i];
    if (b0 < 0x80u) {
        *pos = i + 1;
        return b0;
    }
    size_t need;
    uint8_t lo = 0x80u, hi = 0xBFu; /* allowed range of the second byte */
    if (b0 >= 0xC2u && b0 <= 0xDFu) need = 1;
    else if (b0 >= 0xE0u && b0 <= 0xEFu) {
        need = 2;
        if (b0 == 0xE0u) lo = 0xA0u;
        if (b0 == 0xEDu) hi = 0x9Fu;
    } else if (b0 >= 0xF0u && b0 <= 0xF4u) {
        need = 3;
        if (b0 == 0xF0u) lo = 0x90u;
        if (b0 == 0xF4u) hi = 0x8Fu;
    } else {
        *pos = i + 1;
        return 0xFFFDu;
    }
    if (n - i - 1 < need || t[i + 1] < lo || t[i + 1] > hi) {
        *pos = i + 1;
        return 0xFFFDu;
    }
    for (size_t k = 2; k <= need; k++) {
        if (!is_cont(t[i + k])) {
            *pos = i + 1;
            return 0xFFFDu;
        }
    }
    uint32_t cp = b0 & (need == 1 ? 0x1Fu : need == 2 ? 0x0Fu : 0x07u);
    for (size_t k = 1; k <= need; k++) cp = (cp << 6) | (t[i + k] & 0x3Fu);
    *pos = i + 1 + need;
    return cp;
}

size_t as_utf8_encode(uint32_t cp, char *out) {
    if (cp < 0x80u) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800u) {
        out[0] = (char)(0xC0u | (cp >> 6));
        out[1] = (char)(0x80u | (cp & 0x3Fu));
        return 2;
    }
    if (cp < 0x10000u) {
        out[0] = (char)(0xE0u | (cp >> 12));
        out[1] = (char)(0x80u | ((cp >> 6) & 0x3Fu));
        out[2] = (char)(0x80u | (cp & 0x3Fu));
        return 3;
    }
    out[0] = (char)(0xF0u | (cp >> 18));
    out[1] = (char)(0x80u | ((cp >> 12) & 0x3Fu));
    out[2] = (char)(0x80u | ((cp >> 6) & 0x3Fu));
    out[3] = (char)(0x80u | (cp & 0x3Fu));
    return 4;
}

/* ---- the rules --------------------------------------------------------- */

/* Step 1 and 2: one code point -> its folded, lower-cased form (1..3 code
 * points in out; returns how many). */
static int fold_char(uint32_t cp, uint32_t out[3]) {
    switch (cp) {
    case 0x00A0: case 0x2007: case 0x2009: case 0x202F: case 0x200B:
        out[0] = ' '; return 1;
    case 0x2018: case 0x2019: case 0x201B: case 0x02BC: case 0x0060: case 0x00B4:
        out[0] = '\''; return 1;
    case 0x201C: case 0x201D: case 0x201E: case 0x00AB: case 0x00BB:
        out[0] = '"'; return 1;
    case 0x2026:
        out[0] = out[1] = out[2] = '.'; return 3;
    case 0x2013: case 0x2014: case 0x2212:
        out[0] = '-'; return 1;
    default: break;
    }
    if (cp < 0x20u || cp == 0x7Fu) out[0] = ' ';
    else if (cp >= 0x41u && cp <= 0x5Au) out[0] = cp + 0x20u;
    else if (cp >= 0xC0u && cp <= 0xDEu && cp != 0xD7u) out[0] = cp + 0x20u;
    else if (cp == 0x0152u) out[0] = 0x0153u;
    else if (cp == 0x0178u) out[0] = 0x00FFu;
    else out[0] = cp;
    return 1;
}

/* Step 3: letters, digits and everything non-ASCII that is not punctuation. */
static int is_word_char(uint32_t cp) {
    if (cp < 0x80u)
        return (cp >= 0x30u && cp <= 0x39u) || (cp >= 0x61u && cp <= 0x7Au) || (cp >= 0x41u && cp <= 0x5Au);
    if (cp < 0xC0u || cp == 0xD7u || cp == 0xF7u) return 0;
    if ((cp >= 0x2000u && cp <= 0x2BFFu) || (cp >= 0x3000u && cp <= 0x303Fu)) return 0;
    return 1;
}

/* ---- the tokeniser ----------------------------------------------------- */

/* The token being built. Longer than AS_MAX_TOKEN_BYTES it cannot be in any
 * vocabulary, so only that much is kept (cut at a character boundary). */
typedef struct {
    char bytes[AS_MAX_TOKEN_BYTES + 1];
    size_t length;
    int overflow;
} token_buf;

typedef struct {
    const as_model *model;
    int32_t *ids, *spans;
    char *token_text;
    int32_t capacity, count;
} token_sink;

static void token_append(token_buf *tb, uint32_t cp) {
    char enc[4];
    size_t n = as_utf8_encode(cp, enc);
    if (tb->overflow || tb->length + n > AS_MAX_TOKEN_BYTES) {
        tb->overflow = 1;
        return;
    }
    memcpy(tb->bytes + tb->length, enc, n);
    tb->length += n;
}

static void emit(token_sink *sink, const token_buf *tb, size_t start, size_t end) {
    if (sink->count == INT32_MAX) return; /* the count saturates; callers only compare it */
    int32_t i = sink->count++;
    if (i >= sink->capacity) return;
    if (sink->ids) {
        sink->ids[i] = (tb->overflow || !sink->model) ? AS_TOKEN_UNK
                     : as_model_lookup_source(sink->model, tb->bytes, tb->length);
    }
    if (sink->spans) {
        sink->spans[2 * i] = (int32_t)start;
        sink->spans[2 * i + 1] = (int32_t)end;
    }
    if (sink->token_text) {
        char *dst = sink->token_text + (size_t)i * AS_TOKEN_TEXT_STRIDE;
        memcpy(dst, tb->bytes, tb->length);
        dst[tb->length] = '\0';
    }
}

/* ---- the tutorial's tokeniser (FORMAT.md 5.1) --------------------------- */

/* What the tutorial's lower() + NFD + dropping combining marks leaves of
 * U+00C0 ... U+017F, one entry per code point: the base letter, or ' ' where
 * nothing of a-z remains (ae, eth, o-slash, thorn, sharp s, dotless i, oe,
 * l-stroke, ...), which then separates words like any non-letter. Made with
 * Python's unicodedata; tests/byo.test.mjs checks every entry against it. */
static const char tutorial_latin[0x180 - 0xC0 + 1] =
    "aaaaaa ceeeeiiii nooooo  uuuuy  "
    "aaaaaa ceeeeiiii nooooo  uuuuy y"
    "aaaaaaccccccccdd  eeeeeeeeeegggg"
    "gggghh  iiiiiiiii   jjkk llllll "
    "   nnnnnn   oooooo  rrrrrrssssss"
    "sstttt  uuuuuuuuuuuuwwyyyzzzzzz ";

/* One code point -> a-z, '!' or '?' (kept), 0 (dropped: a combining mark,
 * which NFD + the Mn filter remove without splitting the word) or ' ' (any
 * other character: a separator, like the tutorial's [^a-zA-Z!?]+ -> " "). */
static uint32_t tutorial_fold(uint32_t cp) {
    if (cp >= 'A' && cp <= 'Z') return cp + 0x20u;
    if ((cp >= 'a' && cp <= 'z') || cp == '!' || cp == '?') return cp;
    if (cp >= 0xC0u && cp <= 0x17Fu) return (uint8_t)tutorial_latin[cp - 0xC0u];
    if (cp >= 0x300u && cp <= 0x36Fu) return 0;
    return ' ';
}

/* normalizeString then split(' '): a token is a run of kept characters; '!'
 * and '?' also start a new token (the tutorial puts a space before them, not
 * after); '.' and everything else separate. A token's span runs from its
 * first kept character to its last, plus any combining marks after it. */
static void tokenize_tutorial(token_sink *sink, const uint8_t *t, size_t length) {
    token_buf current;
    current.length = 0;
    current.overflow = 0;
    int in_word = 0;
    size_t start = 0, end = 0, pos = 0;
    while (pos < length) {
        const size_t char_start = pos;
        const uint32_t f = tutorial_fold(as_utf8_decode(t, length, &pos));
        if (f == 0) {
            if (in_word) end = pos;
            continue;
        }
        if (in_word && (f == ' ' || f == '!' || f == '?')) {
            emit(sink, &current, start, end);
            in_word = 0;
            current.length = 0;
            current.overflow = 0;
        }
        if (f == ' ') continue;
        if (!in_word) {
            in_word = 1;
            start = char_start;
        }
        token_append(&current, f);
        end = pos;
    }
    if (in_word) emit(sink, &current, start, end);
}

as_status as_tokenize_internal(const as_model *model, const char *text, size_t length,
                               int32_t *ids, int32_t *spans, char *token_text,
                               int32_t capacity, int32_t *count_out) {
    if (!count_out || (!text && length > 0)) return AS_ERR_NULL_ARGUMENT;
    if (capacity < 0) return AS_ERR_BAD_OPTION;
    /* spans are int32: refuse texts whose offsets would not fit */
    if (length > (size_t)INT32_MAX) return AS_ERR_INPUT_TOO_LONG;
    token_sink sink = {model, ids, spans, token_text, capacity, 0};
    if (model && (model->info.arch_flags & AS_ARCH_TOKENIZER_TUTORIAL)) {
        tokenize_tutorial(&sink, (const uint8_t *)text, length);
        *count_out = sink.count;
        return AS_OK;
    }
    token_buf current;
    current.length = 0;
    current.overflow = 0;
    int in_word = 0;
    size_t start = 0, pos = 0;
    const uint8_t *t = (const uint8_t *)text;
    while (pos < length) {
        const size_t char_start = pos;
        const uint32_t cp = as_utf8_decode(t, length, &pos);
        uint32_t folded[3];
        const int nf = fold_char(cp, folded);
        for (int k = 0; k < nf; k++) {
            const uint32_t f = folded[k];
            if (is_word_char(f)) {
                if (!in_word) {
                    in_word = 1;
                    start = char_start;
                }
                token_append(&current, f);
                continue;
            }
            if (in_word) {
                emit(&sink, &current, start, char_start);
                in_word = 0;
                current.length = 0;
                current.overflow = 0;
            }
            if (f != ' ') {
                token_buf single;
                single.length = as_utf8_encode(f, single.bytes);
                single.overflow = 0;
                emit(&sink, &single, char_start, pos);
            }
        }
    }
    if (in_word) emit(&sink, &current, start, length);
    *count_out = sink.count;
    return AS_OK;
}

as_status as_tokenize(const as_model *model, const char *text, size_t length,
                      int32_t *ids, int32_t *spans, int32_t capacity, int32_t *count_out) {
    if (!model) return AS_ERR_NULL_ARGUMENT;
    return as_tokenize_internal(model, text, length, ids, spans, NULL, capacity, count_out);
}
