/* wasm_simd128.h (native) - the WebAssembly SIMD128 intrinsics that
 * src/kernels_wasmsimd.c uses, for a native compiler, so that the native
 * build (CLI, native bench) runs the same SIMD twin as the page instead of
 * the scalar one. Built with -Isrc/native -DAS_SIMD128_SHIM (build.sh).
 *
 * Each function is the WebAssembly instruction's definition, lane by lane,
 * in GCC/Clang vector extensions (no x86 or Arm intrinsics): the compiler
 * picks the instructions, and with -ffp-contract=off every float lane is the
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

/* sign extension of the low / high 8 bytes to 16 bits */
static inline v128_t wasm_i16x8_extend_low_i8x16(v128_t a) {
    const as_i8x16 b = (as_i8x16)a;
    return AS_V(((as_i16x8){b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]}));
}
static inline v128_t wasm_i16x8_extend_high_i8x16(v128_t a) {
    const as_i8x16 b = (as_i8x16)a;
    return AS_V(((as_i16x8){b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]}));
}
/* i32x4.dot_i16x8_s: lane i = a[2i] b[2i] + a[2i+1] b[2i+1] (wrapping) */
static inline v128_t wasm_i32x4_dot_i16x8(v128_t a, v128_t b) {
    const as_i16x8 x = (as_i16x8)a, y = (as_i16x8)b;
    v128_t out;
    for (int i = 0; i < 4; i++)
        out[i] = (int32_t)((uint32_t)((int32_t)x[2 * i] * y[2 * i]) + (uint32_t)((int32_t)x[2 * i + 1] * y[2 * i + 1]));
    return out;
}
/* i32x4.extmul_{low,high}_i16x8_s: 16 x 16 -> 32-bit products of lanes 0..3 / 4..7 */
static inline v128_t wasm_i32x4_extmul_low_i16x8(v128_t a, v128_t b) {
    const as_i16x8 x = (as_i16x8)a, y = (as_i16x8)b;
    return (v128_t){x[0] * y[0], x[1] * y[1], x[2] * y[2], x[3] * y[3]};
}
static inline v128_t wasm_i32x4_extmul_high_i16x8(v128_t a, v128_t b) {
    const as_i16x8 x = (as_i16x8)a, y = (as_i16x8)b;
    return (v128_t){x[4] * y[4], x[5] * y[5], x[6] * y[6], x[7] * y[7]};
}

#endif
