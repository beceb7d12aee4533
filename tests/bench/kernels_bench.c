/* kernels_bench.c - micro-benchmarks of single kernels, both twins in one
 * standalone wasm module (tests/bench/kernels_bench.mjs times the exports).
 *
 * Each kb_* export runs its work `iters` times on buffers made by kb_setup
 * and returns a checksum, so the compiler cannot drop the work; the caller
 * times the whole call, which keeps JS call overhead out of the numbers.
 * Built with -msimd128 (the scalar twin with auto-vectorisation off, exactly
 * as in web/gen/alignscope-scalar.wasm).
 */
#include <stdlib.h>
#include <wasm_simd128.h>

#include "../../src/kernels.h"
#include "peak_dot.h"

#define KB_EXPORT __attribute__((used, visibility("default")))

/* The attention core of one decoder step, as engine.c runs it (additive):
 * keys (S,A), annotations (S,D), query q (A), v (A). */
static float *keys, *annotations, *q, *v, *scores, *alpha, *context;
/* A matvec: w (rows,cols) row-major and wp the same in the p24 layout,
 * x (cols), b (rows) -> y (rows). */
static float *w, *wp, *x, *b, *y;
/* The same matrix as int8 (models/FORMAT.md 3.1): per-row scales wscale
 * (rows) and values wq (rows,cols) in the q32 layout. */
static int8_t *wq;
static float *wscale;
static size_t max_s, attn_a, attn_d, mv_rows, mv_cols;

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

/* Buffers for source lengths up to s, attention A = a, annotations D = d,
 * and one rows x cols matvec. Returns 0 on success. */
KB_EXPORT int kb_setup(int s, int a, int d, int rows, int cols) {
    max_s = (size_t)s, attn_a = (size_t)a, attn_d = (size_t)d, mv_rows = (size_t)rows, mv_cols = (size_t)cols;
    keys = filled(max_s * attn_a, -1.0f, 1.0f);
    annotations = filled(max_s * attn_d, -1.0f, 1.0f);
    q = filled(attn_a, -1.0f, 1.0f);
    v = filled(attn_a, -0.1f, 0.1f);
    scores = filled(max_s, 0.0f, 0.0f);
    alpha = filled(max_s, 0.0f, 0.0f);
    context = filled(attn_d, 0.0f, 0.0f);
    w = filled(mv_rows * mv_cols, -0.06f, 0.06f);
    x = filled(mv_cols, -1.0f, 1.0f);
    b = filled(mv_rows, -0.1f, 0.1f);
    y = filled(mv_rows, 0.0f, 0.0f);
    wp = filled(mv_rows * mv_cols, 0.0f, 0.0f);
    wq = malloc(mv_rows * mv_cols ? mv_rows * mv_cols : 1);
    wscale = filled(mv_rows, 0.0f, 0.0f);
    if (!(keys && annotations && q && v && scores && alpha && context && w && wp && x && b && y && wq && wscale)) return 1;
    for (size_t i = 0; i < mv_rows * mv_cols; i++) wp[i] = w[i];
    for (size_t r = 0; r < mv_rows; r++) { /* symmetric per-row, as export.py */
        float amax = 0.0f;
        for (size_t c = 0; c < mv_cols; c++) {
            const float a = w[r * mv_cols + c] < 0 ? -w[r * mv_cols + c] : w[r * mv_cols + c];
            if (a > amax) amax = a;
        }
        wscale[r] = amax / 127.0f;
        for (size_t c = 0; c < mv_cols; c++) {
            const float t = wscale[r] > 0.0f ? w[r * mv_cols + c] / wscale[r] : 0.0f;
            wq[r * mv_cols + c] = (int8_t)(t < 0 ? t - 0.5f : t + 0.5f);
        }
    }
    if (as_i8_pack_q32(mv_rows, mv_cols, wq) != 0) return 1;
    return as_f32_pack_p24(mv_rows, mv_cols, wp) == 0 ? 0 : 1;
}

/* Scores, softmax, context for source length s; simd selects the twin. */
KB_EXPORT float kb_attention(int simd, int s, int iters) {
    const size_t n = (size_t)s;
    float check = 0.0f;
    for (int it = 0; it < iters; it++) {
        if (simd) {
            as_f32_additive_scores__wasmsimd(n, attn_a, keys, q, v, scores);
            as_f32_softmax__wasmsimd(n, scores, 1.0f, alpha);
            as_f32_context__wasmsimd(n, attn_d, alpha, annotations, context);
        } else {
            as_f32_additive_scores__scalar(n, attn_a, keys, q, v, scores);
            as_f32_softmax__scalar(n, scores, 1.0f, alpha);
            as_f32_context__scalar(n, attn_d, alpha, annotations, context);
        }
        check += context[it % attn_d];
    }
    return check;
}

/* The three parts alone (part 0 scores, 1 softmax, 2 context). */
KB_EXPORT float kb_attention_part(int simd, int part, int s, int iters) {
    const size_t n = (size_t)s;
    float check = 0.0f;
    for (int it = 0; it < iters; it++) {
        if (part == 0) {
            if (simd) as_f32_additive_scores__wasmsimd(n, attn_a, keys, q, v, scores);
            else as_f32_additive_scores__scalar(n, attn_a, keys, q, v, scores);
            check += scores[it % n];
        } else if (part == 1) {
            if (simd) as_f32_softmax__wasmsimd(n, scores, 1.0f, alpha);
            else as_f32_softmax__scalar(n, scores, 1.0f, alpha);
            check += alpha[it % n];
        } else {
            if (simd) as_f32_context__wasmsimd(n, attn_d, alpha, annotations, context);
            else as_f32_context__scalar(n, attn_d, alpha, annotations, context);
            check += context[it % attn_d];
        }
    }
    return check;
}

/* y = W x + b over the first `rows` rows of the setup matrix (a multiple of
 * 24, so the p24 panels of the first rows are those of the whole matrix).
 * layout 0: p24, the kernels the engine uses; 1: row-major (the r4 SIMD
 * kernel and the plain scalar one, which the engine used before p24). */
KB_EXPORT float kb_matvec(int simd, int layout, int rows, int iters) {
    float check = 0.0f;
    for (int it = 0; it < iters; it++) {
        if (layout == 0 && simd) as_f32_matvec_p24__wasmsimd((size_t)rows, mv_cols, wp, x, b, y);
        else if (layout == 0) as_f32_matvec_p24__scalar((size_t)rows, mv_cols, wp, x, b, y);
        else if (simd) as_f32_matvec__wasmsimd_r4((size_t)rows, mv_cols, w, x, b, y);
        else as_f32_matvec__scalar((size_t)rows, mv_cols, w, x, b, y);
        check += y[(size_t)it % (size_t)rows];
        x[it % mv_cols] += 1e-7f; /* a new x each time, as in a decoder */
    }
    return check;
}

/* The same product with the int8 matrix (q32 layout), `rows` a multiple of 32. */
KB_EXPORT float kb_matvec_i8(int simd, int rows, int iters) {
    float check = 0.0f;
    for (int it = 0; it < iters; it++) {
        if (simd) as_i8_matvec_q32__wasmsimd((size_t)rows, mv_cols, wq, wscale, x, b, y);
        else as_i8_matvec_q32__scalar((size_t)rows, mv_cols, wq, wscale, x, b, y);
        check += y[(size_t)it % (size_t)rows];
        x[it % mv_cols] += 1e-7f;
    }
    return check;
}

/* Softmax over the matvec's output (the vocabulary softmax of a decoder step). */
KB_EXPORT float kb_softmax(int simd, int n, int iters) {
    float check = 0.0f;
    for (int it = 0; it < iters; it++) {
        if (simd) as_f32_softmax__wasmsimd((size_t)n, b, 1.0f, y);
        else as_f32_softmax__scalar((size_t)n, b, 1.0f, y);
        check += y[(size_t)it % (size_t)n];
    }
    return check;
}

/* ---- V8's SIMD128 arithmetic peak --------------------------------------
 * CHAINS independent a = a * m + c chains (f32x4 mul then add: 8 flops per
 * chain per iteration), nothing loaded or stored, fewer live v128 values than
 * V8 keeps in registers. flops = 8 * CHAINS * iters. */
#define PEAK_BODY(a) a = wasm_f32x4_add(wasm_f32x4_mul(a, m), c)

KB_EXPORT float kb_peak8(int iters) {
    const v128_t m = wasm_f32x4_splat(0.9999f), c = wasm_f32x4_splat(1e-4f);
    v128_t a0 = wasm_f32x4_splat(0.1f), a1 = wasm_f32x4_splat(0.2f), a2 = wasm_f32x4_splat(0.3f),
           a3 = wasm_f32x4_splat(0.4f), a4 = wasm_f32x4_splat(0.5f), a5 = wasm_f32x4_splat(0.6f),
           a6 = wasm_f32x4_splat(0.7f), a7 = wasm_f32x4_splat(0.8f);
    for (int i = 0; i < iters; i++) {
        PEAK_BODY(a0); PEAK_BODY(a1); PEAK_BODY(a2); PEAK_BODY(a3);
        PEAK_BODY(a4); PEAK_BODY(a5); PEAK_BODY(a6); PEAK_BODY(a7);
    }
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)),
                              wasm_f32x4_add(wasm_f32x4_add(a4, a5), wasm_f32x4_add(a6, a7)));
    return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 3);
}

KB_EXPORT float kb_peak12(int iters) {
    const v128_t m = wasm_f32x4_splat(0.9999f), c = wasm_f32x4_splat(1e-4f);
    /* No chain may start at the fixed point of a * m + c (1.0: 0.9999 + 1e-4
     * rounds to 1.0f), or the compiler folds it and 11 chains run for 12. */
    v128_t a0 = wasm_f32x4_splat(0.1f), a1 = wasm_f32x4_splat(0.2f), a2 = wasm_f32x4_splat(0.3f),
           a3 = wasm_f32x4_splat(0.4f), a4 = wasm_f32x4_splat(0.5f), a5 = wasm_f32x4_splat(0.6f),
           a6 = wasm_f32x4_splat(0.7f), a7 = wasm_f32x4_splat(0.8f), a8 = wasm_f32x4_splat(0.9f),
           a9 = wasm_f32x4_splat(1.05f), a10 = wasm_f32x4_splat(1.1f), a11 = wasm_f32x4_splat(1.2f);
    for (int i = 0; i < iters; i++) {
        PEAK_BODY(a0); PEAK_BODY(a1); PEAK_BODY(a2); PEAK_BODY(a3);
        PEAK_BODY(a4); PEAK_BODY(a5); PEAK_BODY(a6); PEAK_BODY(a7);
        PEAK_BODY(a8); PEAK_BODY(a9); PEAK_BODY(a10); PEAK_BODY(a11);
    }
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_add(a0, a1), wasm_f32x4_add(a2, a3)),
                              wasm_f32x4_add(wasm_f32x4_add(a4, a5), wasm_f32x4_add(a6, a7)));
    s = wasm_f32x4_add(s, wasm_f32x4_add(wasm_f32x4_add(a8, a9), wasm_f32x4_add(a10, a11)));
    return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 3);
}

/* The int8 instruction pair's peak (peak_dot.h, shared with the other kernel bench). */
KB_EXPORT int kb_peak_dot8(int iters) {
    return peak_dot_i16x8_8chains(iters);
}

/* Streaming read bandwidth over the matvec's matrix (bytes = 4*rows*cols*iters):
 * the memory roof a matvec of that size cannot beat. Integer ORs (1-cycle
 * latency) so that the loads, not an add chain, set the pace. */
KB_EXPORT int kb_stream(int iters) {
    const size_t n = mv_rows * mv_cols;
    v128_t s0 = wasm_i32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (int it = 0; it < iters; it++) {
        for (size_t i = 0; i + 16 <= n; i += 16) {
            s0 = wasm_v128_or(s0, wasm_v128_load(w + i));
            s1 = wasm_v128_or(s1, wasm_v128_load(w + i + 4));
            s2 = wasm_v128_or(s2, wasm_v128_load(w + i + 8));
            s3 = wasm_v128_or(s3, wasm_v128_load(w + i + 12));
        }
    }
    const v128_t s = wasm_v128_or(wasm_v128_or(s0, s1), wasm_v128_or(s2, s3));
    return wasm_i32x4_extract_lane(s, 0) ^ wasm_i32x4_extract_lane(s, 3);
}
