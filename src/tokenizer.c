/* tokenizer.c - text to source tokens, exactly as models/FORMAT.md section 5
 * and models/train/tokenize_text.py define it (tests/loader.test.mjs runs both
 * on the same strings); for a model with AS_ARCH_TOKENIZER_TUTORIAL, as the
 * PyTorch tutorial's normalizeString + split (FORMAT.md 5.1; tests/byo.test.mjs
 * compares); for AS_ARCH_SUBWORDS, cased pre-tokens cut into subword pieces
 * exactly as models/train/subword.py does (FORMAT.md 5.2;
 * tests/subword.test.mjs compares). Spans are byte offsets into the caller's
 * text; each token also gets the index of the word it belongs to. */
#include <string.h>

#include "model_internal.h"
#include "utf8.h"

/* ---- the rules --------------------------------------------------------- */

/* Step 1 and 2: one code point -> its folded, lower-cased form (1..3 code
 * points in out; returns how many); lower = 0 skips step 2 (subwords). */
static int fold_char(uint32_t cp, uint32_t out[3], int lower) {
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
    else if (!lower) out[0] = cp;
    else if (cp >= 0x41u && cp <= 0x5Au) out[0] = cp + 0x20u;
    else if (cp >= 0xC0u && cp <= 0xDEu && cp != 0xD7u) out[0] = cp + 0x20u;
    else if (cp == 0x0152u) out[0] = 0x0153u;
    else if (cp == 0x0178u) out[0] = 0x00FFu;
    else out[0] = cp;
    return 1;
}

/* Step 3: letters, digits and everything non-ASCII that is not punctuation. */
int as_is_word_char(uint32_t cp) {
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
    int32_t *words;      /* (capacity) word index of each token, or NULL */
    int32_t capacity, count;
    int32_t word;        /* index of the word being emitted */
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
    if (sink->words) sink->words[i] = sink->word;
    sink->word++; /* in these tokenisers every token is a word */
}

/* ---- subword pieces (FORMAT.md 5.2) -------------------------------------- */

/* One pre-token being collected: its code points and each one's byte span in
 * the caller's text (a folded expansion, ... for U+2026, repeats the span). */
typedef struct {
    uint32_t cp[AS_MAX_PRETOKEN_CHARS];
    size_t start[AS_MAX_PRETOKEN_CHARS], end[AS_MAX_PRETOKEN_CHARS];
    size_t length;
    int marked;          /* follows a space (or starts the text): first symbol carries the mark */
} pretoken;

/* A symbol while merging: a token id and the pre-token characters [a, b) it
 * covers (a bare mark covers the character after it, like that one). */
typedef struct {
    int32_t id;
    uint16_t a, b;
} piece;

#define MAX_PIECES (4 * AS_MAX_PRETOKEN_CHARS + 1)

static void emit_piece(token_sink *sink, const pretoken *pt, const piece *p) {
    if (sink->count == INT32_MAX) return;
    int32_t i = sink->count++;
    if (i >= sink->capacity) return;
    if (sink->ids) sink->ids[i] = p->id;
    if (sink->spans) {
        sink->spans[2 * i] = (int32_t)pt->start[p->a];
        sink->spans[2 * i + 1] = (int32_t)pt->end[p->b - 1];
    }
    if (sink->token_text) {
        size_t n;
        const char *text = as_model_source_token(sink->model, p->id, &n);
        char *dst = sink->token_text + (size_t)i * AS_TOKEN_TEXT_STRIDE;
        memcpy(dst, text, n);
        dst[n] = '\0';
    }
    if (sink->words) sink->words[i] = sink->word;
}

/* subword.py initial_symbols: each character (the first one marked) as a
 * token, else the bare mark then the character, else its UTF-8 bytes. */
static size_t initial_pieces(const as_model *m, const pretoken *pt, piece *out) {
    size_t n = 0;
    for (size_t k = 0; k < pt->length; k++) {
        char bytes[3 + 4];
        const size_t len = as_utf8_encode(pt->cp[k], bytes + 3);
        if (k == 0 && pt->marked) {
            memcpy(bytes, AS_WORD_MARK_UTF8, 3);
            const int32_t id = as_model_lookup_source(m, bytes, 3 + len);
            if (id != AS_TOKEN_UNK) {
                out[n++] = (piece){id, (uint16_t)k, (uint16_t)(k + 1)};
                continue;
            }
            out[n++] = (piece){AS_WORD_MARK_TOKEN, (uint16_t)k, (uint16_t)(k + 1)}; /* see flush_pretoken */
        }
        const int32_t id = as_model_lookup_source(m, bytes + 3, len);
        if (id != AS_TOKEN_UNK) {
            out[n++] = (piece){id, (uint16_t)k, (uint16_t)(k + 1)};
            continue;
        }
        for (size_t b = 0; b < len; b++)
            out[n++] = (piece){AS_FIRST_BYTE_TOKEN + (uint8_t)bytes[3 + b], (uint16_t)k, (uint16_t)(k + 1)};
    }
    return n;
}

/* subword.py apply_merges: merge the adjacent pair of lowest rank everywhere
 * (left to right, no overlap) until no adjacent pair has a merge. */
static size_t apply_merges(const as_model *m, piece *p, size_t n) {
    while (n > 1) {
        int32_t best_rank = -1, best_left = 0, best_right = 0, best_result = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            int32_t result;
            const int32_t rank = as_model_merge_rank(m, p[i].id, p[i + 1].id, &result);
            if (rank >= 0 && (best_rank < 0 || rank < best_rank)) {
                best_rank = rank;
                best_left = p[i].id;
                best_right = p[i + 1].id;
                best_result = result;
            }
        }
        if (best_rank < 0) break;
        size_t out = 0;
        for (size_t i = 0; i < n; i++) {
            if (i + 1 < n && p[i].id == best_left && p[i + 1].id == best_right) {
                p[out++] = (piece){best_result, p[i].a, p[i + 1].b};
                i++;
            } else {
                p[out++] = p[i];
            }
        }
        n = out;
    }
    return n;
}

static void flush_pretoken(token_sink *sink, pretoken *pt) {
    if (pt->length == 0) return;
    piece pieces[MAX_PIECES];
    size_t n = initial_pieces(sink->model, pt, pieces);
    n = apply_merges(sink->model, pieces, n);
    /* a bare mark spans the piece it marks, as that piece's own span */
    if (n > 1 && pieces[0].id == AS_WORD_MARK_TOKEN) pieces[0].b = pieces[1].b;
    for (size_t i = 0; i < n; i++) emit_piece(sink, pt, &pieces[i]);
    pt->length = 0;
}

static void pretoken_push(token_sink *sink, pretoken *pt, uint32_t cp, size_t start, size_t end, int marked) {
    if (pt->length == AS_MAX_PRETOKEN_CHARS) { /* cut: the next piece of the same word is unmarked */
        flush_pretoken(sink, pt);
        marked = 0;
    }
    if (pt->length == 0) pt->marked = marked;
    pt->cp[pt->length] = cp;
    pt->start[pt->length] = start;
    pt->end[pt->length] = end;
    pt->length++;
}

/* subword.py pretokenize (source side) then segmentation of each pre-token. */
static void tokenize_subwords(token_sink *sink, const uint8_t *t, size_t length) {
    pretoken pt; /* 5 KB on the stack, with flush_pretoken's 8 KB of pieces */
    pt.length = 0;
    pt.marked = 1;
    int space_before = 1;
    size_t pos = 0;
    while (pos < length) {
        const size_t char_start = pos;
        const uint32_t cp = as_utf8_decode(t, length, &pos);
        uint32_t folded[3];
        const int nf = fold_char(cp, folded, 0);
        for (int k = 0; k < nf; k++) {
            const uint32_t f = folded[k];
            if (f == ' ') {
                if (pt.length) {
                    flush_pretoken(sink, &pt);
                    sink->word++;
                }
                space_before = 1;
                continue;
            }
            if (as_is_word_char(f)) {
                pretoken_push(sink, &pt, f, char_start, pos, pt.length ? pt.marked : space_before);
            } else {
                if (pt.length) {
                    flush_pretoken(sink, &pt);
                    sink->word++;
                }
                pretoken_push(sink, &pt, f, char_start, pos, space_before);
                flush_pretoken(sink, &pt);
                sink->word++;
            }
            space_before = 0;
        }
    }
    if (pt.length) {
        flush_pretoken(sink, &pt);
        sink->word++;
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
                               int32_t *ids, int32_t *spans, char *token_text, int32_t *words,
                               int32_t capacity, int32_t *count_out, int32_t *word_count_out) {
    if (!count_out || (!text && length > 0)) return AS_ERR_NULL_ARGUMENT;
    if (capacity < 0) return AS_ERR_BAD_OPTION;
    /* spans are int32: refuse texts whose offsets would not fit */
    if (length > (size_t)INT32_MAX) return AS_ERR_INPUT_TOO_LONG;
    token_sink sink = {model, ids, spans, token_text, words, capacity, 0, 0};
    if (model && (model->info.arch_flags & (AS_ARCH_TOKENIZER_TUTORIAL | AS_ARCH_SUBWORDS))) {
        if (model->info.arch_flags & AS_ARCH_SUBWORDS) tokenize_subwords(&sink, (const uint8_t *)text, length);
        else tokenize_tutorial(&sink, (const uint8_t *)text, length);
        *count_out = sink.count;
        if (word_count_out) *word_count_out = sink.word;
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
        const int nf = fold_char(cp, folded, 1);
        for (int k = 0; k < nf; k++) {
            const uint32_t f = folded[k];
            if (as_is_word_char(f)) {
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
    if (word_count_out) *word_count_out = sink.word;
    return AS_OK;
}

as_status as_tokenize(const as_model *model, const char *text, size_t length,
                      int32_t *ids, int32_t *spans, int32_t capacity, int32_t *count_out) {
    if (!model) return AS_ERR_NULL_ARGUMENT;
    return as_tokenize_internal(model, text, length, ids, spans, NULL, NULL, capacity, count_out, NULL);
}
