/* peak_dot.h - the peak loop of the int8 SIMD128 product's instruction pair,
 * i32x4.dot_i16x8_s + i32x4.add, for both kernel benches
 * (kernels_bench.c, emcc; kernels_bench_relaxed.c, clang 19): 8 independent
 * a += dot(w, x) chains, 8 multiply-adds = 16 flop-equivalents per dot,
 * nothing loaded or stored.
 * Every chain's dot has its own operands, four weight vectors times two
 * inputs: with one input the compiler computed each of the four distinct
 * dots once for two chains (4 dots and 8 adds ran, not 8 pairs); with eight
 * weight vectors V8 ran out of its 16 vector registers and spilled. The
 * inputs move on each other every iteration (xa += xb, xb += xa, wrapping:
 * no constant register) so that the dots, whose add is a separate
 * instruction, cannot be hoisted: 8 + 4 + 2 live v128 and one temporary.
 * Returns a checksum so that nothing is optimised away. */
#ifndef ALIGNSCOPE_PEAK_DOT_H
#define ALIGNSCOPE_PEAK_DOT_H
#include <wasm_simd128.h>

#define PEAK_DOT_BODY(a, wv, xv) a = wasm_i32x4_add(a, wasm_i32x4_dot_i16x8(wv, xv))

static inline int peak_dot_i16x8_8chains(int iters) {
    const v128_t w0 = wasm_i16x8_splat(3), w1 = wasm_i16x8_splat(-5), w2 = wasm_i16x8_splat(7), w3 = wasm_i16x8_splat(-11);
    v128_t xa = wasm_i16x8_splat(1), xb = wasm_i16x8_splat(2);
    v128_t a0 = wasm_i32x4_splat(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (int i = 0; i < iters; i++) {
        PEAK_DOT_BODY(a0, w0, xa); PEAK_DOT_BODY(a1, w1, xa); PEAK_DOT_BODY(a2, w2, xa); PEAK_DOT_BODY(a3, w3, xa);
        PEAK_DOT_BODY(a4, w0, xb); PEAK_DOT_BODY(a5, w1, xb); PEAK_DOT_BODY(a6, w2, xb); PEAK_DOT_BODY(a7, w3, xb);
        xa = wasm_i16x8_add(xa, xb);
        xb = wasm_i16x8_add(xb, xa);
    }
    const v128_t s = wasm_i32x4_add(wasm_i32x4_add(wasm_i32x4_add(a0, a1), wasm_i32x4_add(a2, a3)),
                                    wasm_i32x4_add(wasm_i32x4_add(a4, a5), wasm_i32x4_add(a6, a7)));
    return wasm_i32x4_extract_lane(s, 0) ^ wasm_i32x4_extract_lane(s, 3);
}
#endif
