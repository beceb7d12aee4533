/* wasm_heap_wasi.c - heap bytes in use, for the clang/wasi-libc build.
 *
 * asw_heap_bytes (wasm_api.c) reads mallinfo() in the Emscripten builds;
 * wasi-libc has no mallinfo, so the relaxed-SIMD module (build.sh links it
 * with --wrap=malloc,calloc,realloc,free) counts malloc_usable_size of every
 * block itself. The soak test only needs the count to come back to the same
 * value after each translation.
 */
#include <malloc.h>
#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t count, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static size_t heap_in_use;

void *__wrap_malloc(size_t n) {
    void *p = __real_malloc(n);
    if (p) heap_in_use += malloc_usable_size(p);
    return p;
}

void *__wrap_calloc(size_t count, size_t n) {
    void *p = __real_calloc(count, n);
    if (p) heap_in_use += malloc_usable_size(p);
    return p;
}

void *__wrap_realloc(void *p, size_t n) {
    const size_t before = p ? malloc_usable_size(p) : 0;
    void *q = __real_realloc(p, n);
    if (q) heap_in_use += malloc_usable_size(q) - before; /* a failed realloc keeps p */
    return q;
}

void __wrap_free(void *p) {
    if (p) heap_in_use -= malloc_usable_size(p);
    __real_free(p);
}

size_t as_wasi_heap_bytes(void) { return heap_in_use; }
