/* wasm_simd128.h (native) - the WebAssembly SIMD128 intrinsics that
 * src/kernels_wasmsimd.c uses, for a native compiler, so that the native
 * build (CLI, native bench) runs the same SIMD twin as the page instead of
 * the scalar one. Built with -Isrc/native -DAS_SIMD128_SHIM (build.sh).
 *
 * Each function is the WebAssembly instruction's definition, lane by lane,
 * in GCC/Clang vector extensions (but one x86 intrinsic, pmaddwd for
 * i32x4.dot_i16x8_s, where the compilers find no good instructions; the
 * lane arithmetic is its fallback elsewhere): the compiler picks the
 * instructions, and with -ffp-contract=off every float lane is the
 * same IEEE operation in the same order as in WebAssembly, so the results
 * are bit for bit those of the wasm build (tests/parity.test.mjs compares the
 * native CLI with PyTorch; tests/c/kernels_test.c both twins natively).
 * Only what kernels_wasmsimd.c calls is here.
 */
#ifndef ALIGNSCOPE_NATIVE_WASM_SIMD128_H
#define ALIGNSCOPE_NATIVE_WASM_SIMD128_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef int32_t v128_t __attribute__((vector_size(16), aligned(16)));
typedef float as_f32x4 __attribute__((vector_size(16), aligned(16)));
typedef int32_t as_i32x4 __attribute__((vector_size(16), aligned(16)));
typedef uint32_t as_u32x4 __attribute__((vector_size(16), aligned(16)));
typedef int16_t as_i16x8 __attribute__((vector_size(16), aligned(16)));
typedef int8_t as_i8x16 __attribute__((vector_size(16), aligned(16)));

/* Same-size vector casts reinterpret the bits (no conversion). */
#define AS_F(v) ((as_f32x4)(v))
#define AS_V(v) ((v128_t)(v))

/* ---- memory (any alignment, as in wasm) -------------------------------- */
static inline v128_t wasm_v128_load(const void *p) {
    v128_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void wasm_v128_store(void *p, v128_t v) { memcpy(p, &v, sizeof v); }
static inline v128_t wasm_v128_load32_splat(const void *p) {
    int32_t x;
    memcpy(&x, p, sizeof x);
    return (v128_t){x, x, x, x};
}
static inline v128_t wasm_v128_load64_zero(const void *p) {
    v128_t v = {0, 0, 0, 0};
    memcpy(&v, p, 8);
    return v;
}

/* ---- f32x4 --------------------------------------------------------------- */
static inline v128_t wasm_f32x4_splat(float x) { return AS_V(((as_f32x4){x, x, x, x})); }
static inline v128_t wasm_f32x4_add(v128_t a, v128_t b) { return AS_V(AS_F(a) + AS_F(b)); }
static inline v128_t wasm_f32x4_sub(v128_t a, v128_t b) { return AS_V(AS_F(a) - AS_F(b)); }
static inline v128_t wasm_f32x4_mul(v128_t a, v128_t b) { return AS_V(AS_F(a) * AS_F(b)); }
static inline v128_t wasm_f32x4_div(v128_t a, v128_t b) { return AS_V(AS_F(a) / AS_F(b)); }
/* comparisons: all ones where true (as_i32x4 -1), else 0 */
static inline v128_t wasm_f32x4_gt(v128_t a, v128_t b) { return AS_V(AS_F(a) > AS_F(b)); }
static inline v128_t wasm_f32x4_lt(v128_t a, v128_t b) { return AS_V(AS_F(a) < AS_F(b)); }
/* pmin: b < a ? b : a; pmax: a < b ? b : a (lane by lane, NaN-exact as wasm) */
static inline v128_t wasm_v128_bitselect(v128_t a, v128_t b, v128_t mask) { return (a & mask) | (b & ~mask); }
static inline v128_t wasm_f32x4_pmin(v128_t a, v128_t b) { return wasm_v128_bitselect(b, a, wasm_f32x4_lt(b, a)); }
static inline v128_t wasm_f32x4_pmax(v128_t a, v128_t b) { return wasm_v128_bitselect(b, a, wasm_f32x4_lt(a, b)); }
static inline v128_t wasm_f32x4_abs(v128_t a) { return a & (v128_t){0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff}; }
static inline v128_t wasm_f32x4_floor(v128_t a) {
    const as_f32x4 f = AS_F(a);
    return AS_V(((as_f32x4){floorf(f[0]), floorf(f[1]), floorf(f[2]), floorf(f[3])}));
}
static inline v128_t wasm_f32x4_convert_i32x4(v128_t a) { return AS_V(__builtin_convertvector(a, as_f32x4)); }
#define wasm_f32x4_extract_lane(v, lane) (AS_F(v)[(lane)])

/* ---- integers ------------------------------------------------------------ */
static inline v128_t wasm_i32x4_splat(int32_t x) { return (v128_t){x, x, x, x}; }
static inline v128_t wasm_i16x8_splat(int16_t x) { return AS_V(((as_i16x8){x, x, x, x, x, x, x, x})); }
/* wrapping adds and shifts, as wasm (unsigned arithmetic: no overflow UB) */
static inline v128_t wasm_i32x4_add(v128_t a, v128_t b) { return AS_V((as_u32x4)a + (as_u32x4)b); }
static inline v128_t wasm_i32x4_shl(v128_t a, uint32_t n) { return AS_V((as_u32x4)a << (n & 31)); }
static inline v128_t wasm_v128_or(v128_t a, v128_t b) { return a | b; }
static inline v128_t wasm_v128_and(v128_t a, v128_t b) { return a & b; }
static inline v128_t wasm_i32x4_make(int32_t c0, int32_t c1, int32_t c2, int32_t c3) { return (v128_t){c0, c1, c2, c3}; }
static inline int wasm_v128_any_true(v128_t a) { return (a[0] | a[1] | a[2] | a[3]) != 0; }
/* i32x4.shuffle with constant lane indices 0..7 over a then b */
#if defined(__clang__)
#define wasm_i32x4_shuffle(a, b, c0, c1, c2, c3) \
    ((v128_t)__builtin_shufflevector((v128_t)(a), (v128_t)(b), (c0), (c1), (c2), (c3)))
#else
#define wasm_i32x4_shuffle(a, b, c0, c1, c2, c3) \
    ((v128_t)__builtin_shuffle((v128_t)(a), (v128_t)(b), ((v128_t){(c0), (c1), (c2), (c3)})))
#endif

/* The int8 kernels' lane widenings, as whole-vector shuffles and
 * conversions: the compiler turns them into a few vector instructions
 * (pmovsx, pmaddwd, pmulld on x86). Written lane by lane (a vector built
 * from 8 extracted elements, a loop over 4 lanes), GCC -O2 emitted scalar
 * code: the native CLI ran the int8 model 9 x slower than the f32 one
 * (200 sentences: 13.0 s vs 1.5 s). __builtin_shufflevector with fewer
 * indices than lanes is GCC 12's and clang's. */
typedef int8_t as_i8x8 __attribute__((vector_size(8)));
typedef int16_t as_i16x4 __attribute__((vector_size(8)));
#define AS_HALF_I8(v, i0) __builtin_shufflevector((as_i8x16)(v), (as_i8x16)(v), i0, i0 + 1, i0 + 2, i0 + 3, i0 + 4, i0 + 5, i0 + 6, i0 + 7)
#define AS_PICK_I16(v, a, b, c, d) __builtin_shufflevector((as_i16x8)(v), (as_i16x8)(v), a, b, c, d)

/* sign extension of the low / high 8 bytes to 16 bits */
static inline v128_t wasm_i16x8_extend_low_i8x16(v128_t a) {
    return AS_V(__builtin_convertvector((as_i8x8)AS_HALF_I8(a, 0), as_i16x8));
}
static inline v128_t wasm_i16x8_extend_high_i8x16(v128_t a) {
    return AS_V(__builtin_convertvector((as_i8x8)AS_HALF_I8(a, 8), as_i16x8));
}
/* i32x4.dot_i16x8_s: lane i = a[2i] b[2i] + a[2i+1] b[2i+1] (wrapping: each
 * product fits in 31 bits, only their sum can wrap, so it is added unsigned) */
static inline v128_t wasm_i32x4_dot_i16x8(v128_t a, v128_t b) {
#if defined(__SSE2__)
    /* The one x86 intrinsic here: pmaddwd is this instruction exactly (its
     * one overflow, -32768^2 twice, wraps to INT32_MIN as in wasm), and
     * neither GCC nor clang makes it from the lane arithmetic below, which
     * costs two pmulld a call: the 200 sentences above took 3.6 s with that,
     * 1.1 s with pmaddwd (the f32 model: 1.5 s). */
    return (v128_t)_mm_madd_epi16((__m128i)a, (__m128i)b);
#else
    const as_i32x4 even = __builtin_convertvector((as_i16x4)AS_PICK_I16(a, 0, 2, 4, 6), as_i32x4)
                        * __builtin_convertvector((as_i16x4)AS_PICK_I16(b, 0, 2, 4, 6), as_i32x4);
    const as_i32x4 odd = __builtin_convertvector((as_i16x4)AS_PICK_I16(a, 1, 3, 5, 7), as_i32x4)
                       * __builtin_convertvector((as_i16x4)AS_PICK_I16(b, 1, 3, 5, 7), as_i32x4);
    return AS_V((as_u32x4)even + (as_u32x4)odd);
#endif
}
/* i32x4.extmul_{low,high}_i16x8_s: 16 x 16 -> 32-bit products of lanes 0..3 / 4..7 */
static inline v128_t wasm_i32x4_extmul_low_i16x8(v128_t a, v128_t b) {
    return AS_V(__builtin_convertvector((as_i16x4)AS_PICK_I16(a, 0, 1, 2, 3), as_i32x4)
              * __builtin_convertvector((as_i16x4)AS_PICK_I16(b, 0, 1, 2, 3), as_i32x4));
}
static inline v128_t wasm_i32x4_extmul_high_i16x8(v128_t a, v128_t b) {
    return AS_V(__builtin_convertvector((as_i16x4)AS_PICK_I16(a, 4, 5, 6, 7), as_i32x4)
              * __builtin_convertvector((as_i16x4)AS_PICK_I16(b, 4, 5, 6, 7), as_i32x4));
}

#endif
