/* utf8.c - strict UTF-8 decoding and encoding, shared by the loader (token
 * texts must be valid), the tokeniser, the display text and the CLI's JSON. */
#include "utf8.h"

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

