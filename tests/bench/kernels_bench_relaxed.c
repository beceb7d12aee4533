/* kernels_bench_relaxed.c - micro-benchmarks of the relaxed-SIMD weight
 * products and their SIMD128 twins, side by side in one module
 * (build/bench/kernels_bench_relaxed.wasm, clang 19 as web/gen/alignscope-relaxed.wasm;
 * tests/bench/kernels_relaxed.mjs times the exports in Chromium: Node 20
 * computes i32x4.relaxed_dot_i8x16_i7x16_add_s wrongly, web/engine.js).
 *
 * As in kernels_bench.c, each kb_* export runs its work `iters` times on the
 * buffers kb_setup made and returns a checksum, so the compiler cannot drop
 * the work and the caller can time one whole call. The products:
 *   - f32 matvec, p24 layout: the SIMD128 twin (f32x4.mul + f32x4.add) and
 *     the relaxed twin (f32x4.relaxed_madd);
 *   - int8 matvec: the SIMD128 twin on q32 (i32x4.dot_i16x8_s + i32x4.add)
 *     and the relaxed twin on q8c4 (i32x4.relaxed_dot_i8x16_i7x16_add_s);
 * and the peak of each one's instructions: independent chains of exactly
 * those instructions, nothing loaded or stored. The SIMD128 twins here are
 * compiled by clang 19, as they are in the relaxed build (which runs them for
 * every kernel but these two); the SIMD128 build itself is emcc's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wasm_simd128.h>

#include "../../src/kernels.h"
#include "peak_dot.h"

#define KB_EXPORT(name) __attribute__((used, export_name(name)))

/* One rows x cols matrix four ways: w row-major f32 (what the stream reads),
 * wp the same in p24, wq32 / wq8 its int8 quantisation (symmetric per row,
 * as export.py: scale = max |w| / 127, so every value is in [-127, 127]) in
 * the q32 and q8c4 layouts, with per-row scales wscale. x (cols), its
 * starting value x0, b (rows) -> y (rows). */
static float *w, *wp, *x, *x0, *b, *y, *wscale;
static int8_t *wq32, *wq8;
static size_t mv_rows, mv_cols;

static uint32_t rng = 0x12345678u;
static float uniform(float lo, float hi) {
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) * (1.0f / 16777216.0f);
}

static float *filled(size_t n, float lo, float hi) {
    float *p = malloc((n ? n : 1) * sizeof(float));
    if (p)
        for (size_t i = 0; i < n; i++) p[i] = uniform(lo, hi);
    return p;
}

/* Buffers for one rows x cols matvec; rows a multiple of 24 and of 8 (the
 * p24 and q8c4 panels). Returns 0 on success. */
KB_EXPORT("kb_setup") int kb_setup(int rows, int cols) {
    if (rows <= 0 || cols <= 0 || rows % AS_P24_ROWS || rows % AS_Q8C4_ROWS) return 2;
    mv_rows = (size_t)rows, mv_cols = (size_t)cols;
    const size_t n = mv_rows * mv_cols;
    w = filled(n, -0.06f, 0.06f);
    x0 = filled(mv_cols, -1.0f, 1.0f);
    x = filled(mv_cols, 0.0f, 0.0f);
    b = filled(mv_rows, -0.1f, 0.1f);
    y = filled(mv_rows, 0.0f, 0.0f);
    wscale = filled(mv_rows, 0.0f, 0.0f);
    wp = malloc(n * sizeof(float));
    wq32 = malloc(n);
    wq8 = malloc(n);
    if (!(w && x0 && x && b && y && wscale && wp && wq32 && wq8)) return 1;
    memcpy(wp, w, n * sizeof(float));
    for (size_t r = 0; r < mv_rows; r++) {
        float amax = 0.0f;
        for (size_t c = 0; c < mv_cols; c++) {
            const float a = w[r * mv_cols + c] < 0 ? -w[r * mv_cols + c] : w[r * mv_cols + c];
            if (a > amax) amax = a;
        }
        wscale[r] = amax / 127.0f;
        for (size_t c = 0; c < mv_cols; c++) {
            const float t = wscale[r] > 0.0f ? w[r * mv_cols + c] / wscale[r] : 0.0f;
            wq32[r * mv_cols + c] = (int8_t)(t < 0 ? t - 0.5f : t + 0.5f);
        }
    }
    memcpy(wq8, wq32, n);
    if (as_i8_pack_q32(mv_rows, mv_cols, wq32) != 0 || as_i8_pack_q8c4(mv_rows, mv_cols, wq8) != 0) return 1;
    return as_f32_pack_p24(mv_rows, mv_cols, wp) == 0 ? 0 : 1;
}

/* y = W x + b over the first `rows` rows (a multiple of 24: the p24 panels
 * of the first rows are those of the whole matrix). relaxed 0: the SIMD128
 * twin, 1: the relaxed twin. x starts from x0 on every call and moves on by
 * 1e-7 each product (a new input each time, as in a decoder), so a call's
 * checksum depends only on rows and iters: the two twins' agree to within
 * relaxed_madd's rounding (kernels.h). */
KB_EXPORT("kb_matvec") float kb_matvec(int relaxed, int rows, int iters) {
    memcpy(x, x0, mv_cols * sizeof(float));
    float check = 0.0f;
    for (int it = 0; it < iters; it++) {
        if (relaxed) as_f32_matvec_p24__wasmrelaxed((size_t)rows, mv_cols, wp, x, b, y);
        else as_f32_matvec_p24__wasmsimd((size_t)rows, mv_cols, wp, x, b, y);
        check += y[((size_t)it * 7919u) % (size_t)rows];
        x[(size_t)it % mv_cols] += 1e-7f;
    }
    return check;
}

/* The same product with the int8 matrix: relaxed 0, the SIMD128 twin on q32
 * (`rows` a multiple of 32 or the whole matrix); 1, the relaxed twin on q8c4
 * (a multiple of 8). Both compute the same integer sums (kernels.h), so the
 * two checksums of a (rows, iters) are equal bit for bit. */
KB_EXPORT("kb_matvec_i8") float kb_matvec_i8(int relaxed, int rows, int iters) {
    memcpy(x, x0, mv_cols * sizeof(float));
    float check = 0.0f;
    for (int it = 0; it < iters; it++) {
        if (relaxed) as_i8_matvec_q8c4__wasmrelaxed((size_t)rows, mv_cols, wq8, wscale, x, b, y);
        else as_i8_matvec_q32__wasmsimd((size_t)rows, mv_cols, wq32, wscale, x, b, y);
        check += y[((size_t)it * 7919u) % (size_t)rows];
        x[(size_t)it % mv_cols] += 1e-7f;
    }
    return check;
}

/* ---- the peaks of the products' instructions ------------------------------
 * Fewer live v128 values than V8 keeps in registers (about 15 on x64: xmm15
 * is its scratch) in every loop, so that nothing spills. */

/* f32x4.mul then f32x4.add, CHAINS independent a = a * m + c chains: 8 flops
 * per chain per iteration (kernels_bench.c's kb_peak8 / kb_peak12). Every
 * chain converges to c / (1 - m) = 1, so after many iterations the checksum
 * (lanes 0 and 3 of the sum of the chains) is close to 2 CHAINS, whichever
 * of the two instructions computed it. */
#define MULADD_BODY(a) a = wasm_f32x4_add(wasm_f32x4_mul(a, m), c)
/* f32x4.relaxed_madd: the same a = a * m + c in one instruction, 8 flops. */
#define MADD_BODY(a) a = wasm_f32x4_relaxed_madd(a, m, c)

#define SPLAT8 v128_t a0 = wasm_f32x4_splat(0.1f), a1 = wasm_f32x4_splat(0.2f), a2 = wasm_f32x4_splat(0.3f), \
    a3 = wasm_f32x4_splat(0.4f), a4 = wasm_f32x4_splat(0.5f), a5 = wasm_f32x4_splat(0.6f), \
    a6 = wasm_f32x4_splat(0.7f), a7 = wasm_f32x4_splat(0.8f)
/* No chain may start at the fixed point 1: the compiler would see that it
 * never moves and drop it (kernels_bench.c's kb_peak12 runs 11 chains). */
#define SPLAT12 SPLAT8; v128_t a8 = wasm_f32x4_splat(0.9f), a9 = wasm_f32x4_splat(1.1f), \
    a10 = wasm_f32x4_splat(1.2f), a11 = wasm_f32x4_splat(1.3f)
#define BODY8(B) B(a0); B(a1); B(a2); B(a3); B(a4); B(a5); B(a6); B(a7)
#define BODY12(B) BODY8(B); B(a8); B(a9); B(a10); B(a11)
#define SUM8 wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)), \
                            wasm_f32x4_add(wasm_f32x4_add(a4, a5), wasm_f32x4_add(a6, a7)))
#define SUM12 wasm_f32x4_add(SUM8, wasm_f32x4_add(wasm_f32x4_add(a8, a9), wasm_f32x4_add(a10, a11)))
#define LANES_0_3(s) (wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 3))

KB_EXPORT("kb_peak_muladd8") float kb_peak_muladd8(int iters) {
    const v128_t m = wasm_f32x4_splat(0.9999f), c = wasm_f32x4_splat(1e-4f);
    SPLAT8;
    for (int i = 0; i < iters; i++) { BODY8(MULADD_BODY); }
    const v128_t s = SUM8;
    return LANES_0_3(s);
}

KB_EXPORT("kb_peak_muladd12") float kb_peak_muladd12(int iters) {
    const v128_t m = wasm_f32x4_splat(0.9999f), c = wasm_f32x4_splat(1e-4f);
    SPLAT12;
    for (int i = 0; i < iters; i++) { BODY12(MULADD_BODY); }
    const v128_t s = SUM12;
    return LANES_0_3(s);
}

KB_EXPORT("kb_peak_madd8") float kb_peak_madd8(int iters) {
    const v128_t m = wasm_f32x4_splat(0.9999f), c = wasm_f32x4_splat(1e-4f);
    SPLAT8;
    for (int i = 0; i < iters; i++) { BODY8(MADD_BODY); }
    const v128_t s = SUM8;
    return LANES_0_3(s);
}

KB_EXPORT("kb_peak_madd12") float kb_peak_madd12(int iters) {
    const v128_t m = wasm_f32x4_splat(0.9999f), c = wasm_f32x4_splat(1e-4f);
    SPLAT12;
    for (int i = 0; i < iters; i++) { BODY12(MADD_BODY); }
    const v128_t s = SUM12;
    return LANES_0_3(s);
}

/* The int8 instruction pair's peak (peak_dot.h, shared with the other kernel bench). */
KB_EXPORT("kb_peak_dot8") int kb_peak_dot8(int iters) {
    return peak_dot_i16x8_8chains(iters);
}

/* i32x4.relaxed_dot_i8x16_i7x16_add_s, CHAINS independent a = dot(wv, xv) + a
 * chains (16 byte multiply-adds = 32 flop-equivalents per instruction). The
 * add is part of the instruction, so fixed operands cannot be hoisted: the
 * loop is the instructions alone. wv = splat(-3) (signed), xv = splat(101)
 * (in [0, 127], where the instruction is deterministic), chain k starts at
 * splat(k): after n iterations every lane of chain k holds
 * k + n * 4 * (-3) * 101 (mod 2^32), and the checksum (lane 0 of the sum of
 * the chains) is sum_k k - CHAINS * n * 1212, which the caller checks. One
 * weight vector: V8 needs a temporary and a constant register per
 * instruction without AVX-VNNI (pmaddubsw, pmaddwd by splat(1), paddd). */
#define RDOT_BODY(a) a = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(wv, xv, a)

KB_EXPORT("kb_peak_rdot8") int kb_peak_rdot8(int iters) {
    const v128_t wv = wasm_i8x16_splat(-3), xv = wasm_i8x16_splat(101);
    v128_t a0 = wasm_i32x4_splat(0), a1 = wasm_i32x4_splat(1), a2 = wasm_i32x4_splat(2), a3 = wasm_i32x4_splat(3),
           a4 = wasm_i32x4_splat(4), a5 = wasm_i32x4_splat(5), a6 = wasm_i32x4_splat(6), a7 = wasm_i32x4_splat(7);
    for (int i = 0; i < iters; i++) {
        RDOT_BODY(a0); RDOT_BODY(a1); RDOT_BODY(a2); RDOT_BODY(a3);
        RDOT_BODY(a4); RDOT_BODY(a5); RDOT_BODY(a6); RDOT_BODY(a7);
    }
    const v128_t s = wasm_i32x4_add(wasm_i32x4_add(wasm_i32x4_add(a0, a1), wasm_i32x4_add(a2, a3)),
                                    wasm_i32x4_add(wasm_i32x4_add(a4, a5), wasm_i32x4_add(a6, a7)));
    return wasm_i32x4_extract_lane(s, 0);
}

KB_EXPORT("kb_peak_rdot12") int kb_peak_rdot12(int iters) {
    const v128_t wv = wasm_i8x16_splat(-3), xv = wasm_i8x16_splat(101);
    v128_t a0 = wasm_i32x4_splat(0), a1 = wasm_i32x4_splat(1), a2 = wasm_i32x4_splat(2), a3 = wasm_i32x4_splat(3),
           a4 = wasm_i32x4_splat(4), a5 = wasm_i32x4_splat(5), a6 = wasm_i32x4_splat(6), a7 = wasm_i32x4_splat(7),
           a8 = wasm_i32x4_splat(8), a9 = wasm_i32x4_splat(9), a10 = wasm_i32x4_splat(10), a11 = wasm_i32x4_splat(11);
    for (int i = 0; i < iters; i++) {
        RDOT_BODY(a0); RDOT_BODY(a1); RDOT_BODY(a2); RDOT_BODY(a3); RDOT_BODY(a4); RDOT_BODY(a5);
        RDOT_BODY(a6); RDOT_BODY(a7); RDOT_BODY(a8); RDOT_BODY(a9); RDOT_BODY(a10); RDOT_BODY(a11);
    }
    v128_t s = wasm_i32x4_add(wasm_i32x4_add(wasm_i32x4_add(a0, a1), wasm_i32x4_add(a2, a3)),
                              wasm_i32x4_add(wasm_i32x4_add(a4, a5), wasm_i32x4_add(a6, a7)));
    s = wasm_i32x4_add(s, wasm_i32x4_add(wasm_i32x4_add(a8, a9), wasm_i32x4_add(a10, a11)));
    return wasm_i32x4_extract_lane(s, 0);
}

/* Streaming read over the f32 matrix (kind 0: 4 rows cols bytes) or the
 * q8c4 one (kind 1: rows cols bytes), per iteration: the memory roof of each
 * product (kernels_bench.c's kb_stream; ORs, so the loads set the pace). */
KB_EXPORT("kb_stream") int kb_stream(int kind, int iters) {
    const uint8_t *p = kind ? (const uint8_t *)wq8 : (const uint8_t *)w;
    const size_t n = kind ? mv_rows * mv_cols : 4 * mv_rows * mv_cols;
    v128_t s0 = wasm_i32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (int it = 0; it < iters; it++) {
        for (size_t i = 0; i + 64 <= n; i += 64) {
            s0 = wasm_v128_or(s0, wasm_v128_load(p + i));
            s1 = wasm_v128_or(s1, wasm_v128_load(p + i + 16));
            s2 = wasm_v128_or(s2, wasm_v128_load(p + i + 32));
            s3 = wasm_v128_or(s3, wasm_v128_load(p + i + 48));
        }
    }
    const v128_t s = wasm_v128_or(wasm_v128_or(s0, s1), wasm_v128_or(s2, s3));
    return wasm_i32x4_extract_lane(s, 0) ^ wasm_i32x4_extract_lane(s, 3);
}
