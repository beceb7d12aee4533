/* utf8.h - the one UTF-8 decoder and encoder of the library (utf8.c). */
#ifndef ALIGNSCOPE_UTF8_H
#define ALIGNSCOPE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one code point at text[*pos] (pos < length), advancing *pos.
 * An invalid or truncated sequence yields U+FFFD and consumes one byte
 * (strict: no overlongs, surrogates or values above U+10FFFF, the same
 * sequences Python's decoder accepts). */
uint32_t as_utf8_decode(const uint8_t *text, size_t length, size_t *pos);
/* Encodes cp into out (4 bytes room); returns the byte count. */
size_t as_utf8_encode(uint32_t cp, char *out);

#endif
