/* read_file.h - a whole file into memory, for the programs around the
 * library (the CLI, test drivers, fuzz harnesses, the native bench). The
 * library itself never touches files: it takes (buffer, length).
 */
#ifndef ALIGNSCOPE_READ_FILE_H
#define ALIGNSCOPE_READ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of `path` plus a terminating NUL (not counted in *len_out), or
 * NULL if it cannot be opened, read or allocated. Reads in growing chunks, so
 * pipes and other unseekable files work too. The caller frees. */
static uint8_t *read_file(const char *path, size_t *len_out) {
    FILE *f = fopen(path, "rb");
    *len_out = 0;
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (len == cap - 1) { /* keep one byte for the NUL */
            uint8_t *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) break;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[len] = 0;
    *len_out = len;
    return buf;
}

#endif
