/* kernels_wasmsimd.c - WebAssembly SIMD128 twins of the kernels in kernels.h.
 *
 * Each function matches its __scalar twin's signature and contract. Loops run
 * over 4-lane vectors and finish the leftovers with the scalar formulas from
 * fastmath.h, so every length works. Compiled with -msimd128 for the page,
 * and natively with src/native/wasm_simd128.h (same results, bit for bit).
 * The V8 notes below are about the wasm build.
 *
 * V8 keeps about 15 v128 values in registers before spilling (x64 has 16
 * xmm registers, one is its scratch), and TurboFan tends to issue a loop
 * body's loads before the arithmetic, so a kernel's accumulators plus the
 * vectors one iteration loads must fit in ~15. The row-major r4 matvec (8
 * accumulators + 10 loads) does not and spills; the weight matrices therefore
 * use the p24 kernel (6 + 6 + 1), and r4 is left for the dot scores, whose
 * "matrix" is the per-sentence keys. Other V8 costs avoided here: f32x4.min /
 * max (about 7 instructions each; pmin/pmax are one) and i32x4.trunc_sat
 * (5). `wasm-dis` on the .wasm and `node --print-wasm-code` show the code.
 */
#include <math.h> /* INFINITY, sqrtf */
#include <wasm_simd128.h>

#include "kernels.h"
#include "fastmath.h"

/* V8 register pressure (above): clang must not unroll the marked loops. GCC
 * (the native build) has no such pragma and needs none. */
#if defined(__clang__)
#define AS_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define AS_NO_UNROLL
#endif

/* ---- vector forms of the fastmath.h approximations -------------------- */

/* Same operation order as as_tanh_scalar (wasm has no FMA), so the lanes
 * agree with the scalar twin bit for bit. Clamps use pmin/pmax ("b < a ? b :
 * a", exactly the scalar twin's `if (x > c) x = c`): each is one minps/maxps
 * in V8, where f32x4.min/max (NaN- and signed-zero-exact) cost about seven
 * instructions. */
static inline v128_t tanh_f32x4(v128_t x) {
    const v128_t tiny = wasm_f32x4_lt(wasm_f32x4_abs(x), wasm_f32x4_splat(AS_TANH_TINY));
    v128_t xc = wasm_f32x4_pmin(x, wasm_f32x4_splat(AS_TANH_CLAMP));
    xc = wasm_f32x4_pmax(xc, wasm_f32x4_splat(-AS_TANH_CLAMP));
    const v128_t x2 = wasm_f32x4_mul(xc, xc);
    v128_t p = wasm_f32x4_add(wasm_f32x4_mul(x2, wasm_f32x4_splat(AS_TANH_A13)), wasm_f32x4_splat(AS_TANH_A11));
    p = wasm_f32x4_add(wasm_f32x4_mul(x2, p), wasm_f32x4_splat(AS_TANH_A9));
    p = wasm_f32x4_add(wasm_f32x4_mul(x2, p), wasm_f32x4_splat(AS_TANH_A7));
    p = wasm_f32x4_add(wasm_f32x4_mul(x2, p), wasm_f32x4_splat(AS_TANH_A5));
    p = wasm_f32x4_add(wasm_f32x4_mul(x2, p), wasm_f32x4_splat(AS_TANH_A3));
    p = wasm_f32x4_add(wasm_f32x4_mul(x2, p), wasm_f32x4_splat(AS_TANH_A1));
    p = wasm_f32x4_mul(xc, p);
    v128_t q = wasm_f32x4_add(wasm_f32x4_mul(x2, wasm_f32x4_splat(AS_TANH_B6)), wasm_f32x4_splat(AS_TANH_B4));
    q = wasm_f32x4_add(wasm_f32x4_mul(x2, q), wasm_f32x4_splat(AS_TANH_B2));
    q = wasm_f32x4_add(wasm_f32x4_mul(x2, q), wasm_f32x4_splat(AS_TANH_B0));
    return wasm_v128_bitselect(x, wasm_f32x4_div(p, q), tiny);
}

static inline v128_t sigmoid_f32x4(v128_t x) {
    const v128_t half = wasm_f32x4_splat(0.5f);
    return wasm_f32x4_add(half, wasm_f32x4_mul(half, tanh_f32x4(wasm_f32x4_mul(half, x))));
}

static inline v128_t exp_f32x4(v128_t x) {
    x = wasm_f32x4_pmin(x, wasm_f32x4_splat(AS_EXP_HI));
    x = wasm_f32x4_pmax(x, wasm_f32x4_splat(AS_EXP_LO));
    const v128_t n = wasm_f32x4_floor(wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(AS_EXP_LOG2E)),
                                                     wasm_f32x4_splat(0.5f)));
    v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(AS_EXP_C1)));
    r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(AS_EXP_C2)));
    v128_t y = wasm_f32x4_splat(AS_EXP_P0);
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(AS_EXP_P1));
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(AS_EXP_P2));
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(AS_EXP_P3));
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(AS_EXP_P4));
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(AS_EXP_P5));
    y = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(y, wasm_f32x4_mul(r, r)), r), wasm_f32x4_splat(1.0f));
    /* 2^n: n + 127 is an integer in [1, 254]; added to 1.5 * 2^23 it sits in
     * the low mantissa bits, and the shift drops everything above them (the
     * scalar twin's (int)n + 127 << 23, without V8's 5-instruction trunc_sat).
     * A NaN lane gives scale 0 and stays NaN. */
    const v128_t bits = wasm_i32x4_shl(wasm_f32x4_add(n, wasm_f32x4_splat(12582912.0f + 127.0f)), 23);
    return wasm_f32x4_mul(y, bits);
}

static inline float hsum_f32x4(v128_t v) {
    return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
           (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

/* ---- matvec ------------------------------------------------------------ */

/* W (rows,cols) @ x (cols) + b -> y (rows). A panel of 4 rows shares each
 * load of x; two accumulators per row break the add dependency chain. The
 * four row sums are reduced together by a transpose, one vector store-worth
 * of shuffles instead of four horizontal sums. */
void as_f32_matvec__wasmsimd_r4(size_t rows, size_t cols, const float *w,
                                const float *x, const float *b, float *y) {
    size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *w0 = w + r * cols, *w1 = w0 + cols, *w2 = w1 + cols, *w3 = w2 + cols;
        v128_t a0 = wasm_f32x4_splat(0.0f), a1 = a0, a2 = a0, a3 = a0;
        v128_t b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        size_t c = 0;
        for (; c + 8 <= cols; c += 8) {
            const v128_t x0 = wasm_v128_load(x + c), x1 = wasm_v128_load(x + c + 4);
            a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(w0 + c), x0));
            b0 = wasm_f32x4_add(b0, wasm_f32x4_mul(wasm_v128_load(w0 + c + 4), x1));
            a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(wasm_v128_load(w1 + c), x0));
            b1 = wasm_f32x4_add(b1, wasm_f32x4_mul(wasm_v128_load(w1 + c + 4), x1));
            a2 = wasm_f32x4_add(a2, wasm_f32x4_mul(wasm_v128_load(w2 + c), x0));
            b2 = wasm_f32x4_add(b2, wasm_f32x4_mul(wasm_v128_load(w2 + c + 4), x1));
            a3 = wasm_f32x4_add(a3, wasm_f32x4_mul(wasm_v128_load(w3 + c), x0));
            b3 = wasm_f32x4_add(b3, wasm_f32x4_mul(wasm_v128_load(w3 + c + 4), x1));
        }
        for (; c + 4 <= cols; c += 4) {
            const v128_t x0 = wasm_v128_load(x + c);
            a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(w0 + c), x0));
            a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(wasm_v128_load(w1 + c), x0));
            a2 = wasm_f32x4_add(a2, wasm_f32x4_mul(wasm_v128_load(w2 + c), x0));
            a3 = wasm_f32x4_add(a3, wasm_f32x4_mul(wasm_v128_load(w3 + c), x0));
        }
        a0 = wasm_f32x4_add(a0, b0);
        a1 = wasm_f32x4_add(a1, b1);
        a2 = wasm_f32x4_add(a2, b2);
        a3 = wasm_f32x4_add(a3, b3);
        /* transpose-reduce: lane i of `sums` = total of row r+i */
        const v128_t s01 = wasm_f32x4_add(wasm_i32x4_shuffle(a0, a1, 0, 4, 1, 5), wasm_i32x4_shuffle(a0, a1, 2, 6, 3, 7));
        const v128_t s23 = wasm_f32x4_add(wasm_i32x4_shuffle(a2, a3, 0, 4, 1, 5), wasm_i32x4_shuffle(a2, a3, 2, 6, 3, 7));
        const v128_t sums = wasm_f32x4_add(wasm_i32x4_shuffle(s01, s23, 0, 1, 4, 5), wasm_i32x4_shuffle(s01, s23, 2, 3, 6, 7));
        float out[4];
        wasm_v128_store(out, sums);
        for (; c < cols; c++) {
            const float xc = x[c];
            out[0] += w0[c] * xc;
            out[1] += w1[c] * xc;
            out[2] += w2[c] * xc;
            out[3] += w3[c] * xc;
        }
        for (size_t i = 0; i < 4; i++) y[r + i] = b ? out[i] + b[r + i] : out[i];
    }
    for (; r < rows; r++) {
        const float *row = w + r * cols;
        v128_t a0 = wasm_f32x4_splat(0.0f), a1 = a0;
        size_t c = 0;
        for (; c + 8 <= cols; c += 8) {
            a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(row + c), wasm_v128_load(x + c)));
            a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(wasm_v128_load(row + c + 4), wasm_v128_load(x + c + 4)));
        }
        for (; c + 4 <= cols; c += 4)
            a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(row + c), wasm_v128_load(x + c)));
        float sum = hsum_f32x4(wasm_f32x4_add(a0, a1));
        for (; c < cols; c++) sum += row[c] * x[c];
        y[r] = b ? sum + b[r] : sum;
    }
}

/* W (rows, cols) in the p24 layout @ x + b -> y. Per column of a 24-row
 * panel: one broadcast of x[c], six sequential W vectors, six independent
 * accumulators (rows 4k..4k+3 each), started from the bias. No horizontal
 * sums. TurboFan keeps this loop free of spills: 6 + 6 + 1 live v128 values.
 * Unrolling would double the loaded vectors and spill, hence the pragma. */
#define P24_MADD(k) acc##k = wasm_f32x4_add(acc##k, wasm_f32x4_mul(wasm_v128_load(p + 4 * k), xc))

static inline v128_t bias_or_zero(const float *b, size_t at) {
    return b ? wasm_v128_load(b + at) : wasm_f32x4_splat(0.0f);
}

/* The last panel, n < 24 rows: its n / 4 vectors of rows in one pass, the
 * n % 4 leftover rows in the scalar twin's order. */
static void matvec_p24_tail(size_t n, size_t cols, const float *panel, const float *x,
                            const float *b, float *y) {
    const size_t nv = n / 4;
    v128_t acc0 = nv > 0 ? bias_or_zero(b, 0) : wasm_f32x4_splat(0.0f), acc1 = nv > 1 ? bias_or_zero(b, 4) : acc0;
    v128_t acc2 = nv > 2 ? bias_or_zero(b, 8) : acc0, acc3 = nv > 3 ? bias_or_zero(b, 12) : acc0;
    v128_t acc4 = nv > 4 ? bias_or_zero(b, 16) : acc0;
    const float *p = panel;
    switch (nv) {
    case 5:
AS_NO_UNROLL
        for (size_t c = 0; c < cols; c++, p += n) {
            const v128_t xc = wasm_v128_load32_splat(x + c);
            P24_MADD(0); P24_MADD(1); P24_MADD(2); P24_MADD(3); P24_MADD(4);
        }
        break;
    case 4:
AS_NO_UNROLL
        for (size_t c = 0; c < cols; c++, p += n) {
            const v128_t xc = wasm_v128_load32_splat(x + c);
            P24_MADD(0); P24_MADD(1); P24_MADD(2); P24_MADD(3);
        }
        break;
    case 3:
AS_NO_UNROLL
        for (size_t c = 0; c < cols; c++, p += n) {
            const v128_t xc = wasm_v128_load32_splat(x + c);
            P24_MADD(0); P24_MADD(1); P24_MADD(2);
        }
        break;
    case 2:
AS_NO_UNROLL
        for (size_t c = 0; c < cols; c++, p += n) {
            const v128_t xc = wasm_v128_load32_splat(x + c);
            P24_MADD(0); P24_MADD(1);
        }
        break;
    case 1:
AS_NO_UNROLL
        for (size_t c = 0; c < cols; c++, p += n) {
            const v128_t xc = wasm_v128_load32_splat(x + c);
            P24_MADD(0);
        }
        break;
    default:
        break;
    }
    const v128_t acc[5] = {acc0, acc1, acc2, acc3, acc4};
    for (size_t k = 0; k < nv; k++) wasm_v128_store(y + 4 * k, acc[k]);
    for (size_t g = 4 * nv; g < n; g++) {
        float s = b ? b[g] : 0.0f;
        for (size_t c = 0; c < cols; c++) s += panel[c * n + g] * x[c];
        y[g] = s;
    }
}

/* diag(scale) (Q in the q32 layout) @ x + b -> y, in exact integer sums
 * (kernels.h). Per column pair of a 32-row panel: one broadcast of the int16
 * pair (xq[c], xq[c+1]), four i8x16 loads (8 rows x 2 columns each), each
 * sign-extended to two i16x8 and multiplied-and-pair-added by
 * i32x4.dot_i16x8_s into eight i32x4 accumulators; then
 * y = (float)acc * (scale * sx) + b, the scalar twin's expression. Rows of a
 * last short panel go 8 at a time, then one by one. */
static inline v128_t q32_pair_dot(v128_t bytes, v128_t pair, v128_t *low_acc, v128_t high_acc) {
    *low_acc = wasm_i32x4_add(*low_acc, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(bytes), pair));
    return wasm_i32x4_add(high_acc, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(bytes), pair));
}

static inline v128_t q32_finish(v128_t acc, const float *scale, float sx, const float *b, size_t at) {
    const v128_t scaled = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc),
                                         wasm_f32x4_mul(wasm_v128_load(scale + at), wasm_f32x4_splat(sx)));
    return b ? wasm_f32x4_add(scaled, wasm_v128_load(b + at)) : scaled;
}

/* The odd last column of 8 rows: q (8 bytes) * xq[cols-1], widened products. */
static inline void q32_odd_column(const int8_t *q, int16_t xlast, v128_t *lo, v128_t *hi) {
    const v128_t w16 = wasm_i16x8_extend_low_i8x16(wasm_v128_load64_zero(q));
    const v128_t xs = wasm_i16x8_splat(xlast);
    *lo = wasm_i32x4_add(*lo, wasm_i32x4_extmul_low_i16x8(w16, xs));
    *hi = wasm_i32x4_add(*hi, wasm_i32x4_extmul_high_i16x8(w16, xs));
}

/* Rows r0 .. r0+31 of one full panel (p = its first byte) against one
 * quantised input. */
static inline void q32_panel_full(size_t cols, const int8_t *p, const int16_t *xq, float sx,
                                  const float *scale, const float *b, size_t r0, float *y) {
    const size_t pairs = cols / 2;
    v128_t a0 = wasm_i32x4_splat(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
AS_NO_UNROLL
    for (size_t k = 0; k < pairs; k++, p += 2 * AS_Q32_ROWS) {
        const v128_t pair = wasm_v128_load32_splat(xq + 2 * k);
        a1 = q32_pair_dot(wasm_v128_load(p), pair, &a0, a1);
        a3 = q32_pair_dot(wasm_v128_load(p + 16), pair, &a2, a3);
        a5 = q32_pair_dot(wasm_v128_load(p + 32), pair, &a4, a5);
        a7 = q32_pair_dot(wasm_v128_load(p + 48), pair, &a6, a7);
    }
    if (cols % 2) {
        q32_odd_column(p, xq[cols - 1], &a0, &a1);
        q32_odd_column(p + 8, xq[cols - 1], &a2, &a3);
        q32_odd_column(p + 16, xq[cols - 1], &a4, &a5);
        q32_odd_column(p + 24, xq[cols - 1], &a6, &a7);
    }
    wasm_v128_store(y + r0, q32_finish(a0, scale, sx, b, r0));
    wasm_v128_store(y + r0 + 4, q32_finish(a1, scale, sx, b, r0 + 4));
    wasm_v128_store(y + r0 + 8, q32_finish(a2, scale, sx, b, r0 + 8));
    wasm_v128_store(y + r0 + 12, q32_finish(a3, scale, sx, b, r0 + 12));
    wasm_v128_store(y + r0 + 16, q32_finish(a4, scale, sx, b, r0 + 16));
    wasm_v128_store(y + r0 + 20, q32_finish(a5, scale, sx, b, r0 + 20));
    wasm_v128_store(y + r0 + 24, q32_finish(a6, scale, sx, b, r0 + 24));
    wasm_v128_store(y + r0 + 28, q32_finish(a7, scale, sx, b, r0 + 28));
}

/* The n < 32 rows of a last panel: 8 at a time, then one by one. */
static void q32_panel_short(size_t n, size_t cols, const int8_t *panel, const int16_t *xq, float sx,
                            const float *scale, const float *b, size_t r0, float *y) {
    const size_t pairs = cols / 2;
    size_t g = 0;
    for (; g + 8 <= n; g += 8) {
        const int8_t *p = panel + 2 * g;
        v128_t lo = wasm_i32x4_splat(0), hi = lo;
AS_NO_UNROLL
        for (size_t k = 0; k < pairs; k++, p += 2 * n)
            hi = q32_pair_dot(wasm_v128_load(p), wasm_v128_load32_splat(xq + 2 * k), &lo, hi);
        if (cols % 2) q32_odd_column(panel + pairs * 2 * n + g, xq[cols - 1], &lo, &hi);
        wasm_v128_store(y + r0 + g, q32_finish(lo, scale, sx, b, r0 + g));
        wasm_v128_store(y + r0 + g + 4, q32_finish(hi, scale, sx, b, r0 + g + 4));
    }
    for (; g < n; g++) {
        const size_t r = r0 + g;
        const float scaled = (float)as_i8_q32_row_sum(panel, n, g, cols, xq) * (scale[r] * sx);
        y[r] = b ? scaled + b[r] : scaled;
    }
}

/* Up to AS_Q32_BATCH inputs quantised at a time, then panel by panel each
 * of them against the panel (weights stream once per AS_Q32_BATCH inputs). */
void as_i8_matvec_q32_batch__wasmsimd(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                      size_t count, const float *x, size_t x_stride, const float *b,
                                      float *y, size_t y_stride) {
    const size_t width = cols + 1; /* + 1: the pair load of an odd last column stays inside */
    const size_t per_block = cols <= AS_Q32_BATCH_COLS ? AS_Q32_BATCH : 1; /* bounds the stack buffer */
    int16_t xq[per_block * width];
    float sx[AS_Q32_BATCH];
    const size_t panels = rows / AS_Q32_ROWS, r_short = panels * AS_Q32_ROWS;
    for (size_t j0 = 0; j0 < count; j0 += per_block) {
        const size_t block = count - j0 < per_block ? count - j0 : per_block;
        for (size_t j = 0; j < block; j++) {
            sx[j] = as_i8_quantise_input(cols, x + (j0 + j) * x_stride, xq + j * width);
            xq[j * width + cols] = 0;
        }
        for (size_t pi = 0; pi < panels; pi++) {
            const size_t r0 = pi * AS_Q32_ROWS;
            for (size_t j = 0; j < block; j++)
                q32_panel_full(cols, q + r0 * cols, xq + j * width, sx[j], scale, b, r0, y + (j0 + j) * y_stride);
        }
        if (r_short < rows)
            for (size_t j = 0; j < block; j++)
                q32_panel_short(rows - r_short, cols, q + r_short * cols, xq + j * width, sx[j], scale, b,
                                r_short, y + (j0 + j) * y_stride);
    }
}

void as_i8_matvec_q32__wasmsimd(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                const float *x, const float *b, float *y) {
    as_i8_matvec_q32_batch__wasmsimd(rows, cols, q, scale, 1, x, 0, b, y, 0);
}

/* Panel by panel, every vector against the panel while it is in L1/L2: the
 * weights stream from memory once per call, not once per vector. */
void as_f32_matvec_p24_batch__wasmsimd(size_t rows, size_t cols, const float *w, size_t count,
                                       const float *x, size_t x_stride, const float *b,
                                       float *y, size_t y_stride) {
    const size_t panels = rows / AS_P24_ROWS;
    for (size_t q = 0; q < panels; q++) {
        const size_t r0 = q * AS_P24_ROWS;
        for (size_t j = 0; j < count; j++) {
            const float *xj = x + j * x_stride;
            float *yj = y + j * y_stride;
            v128_t acc0 = bias_or_zero(b, r0), acc1 = bias_or_zero(b, r0 + 4), acc2 = bias_or_zero(b, r0 + 8);
            v128_t acc3 = bias_or_zero(b, r0 + 12), acc4 = bias_or_zero(b, r0 + 16), acc5 = bias_or_zero(b, r0 + 20);
            const float *p = w + r0 * cols;
AS_NO_UNROLL
            for (size_t c = 0; c < cols; c++, p += AS_P24_ROWS) {
                const v128_t xc = wasm_v128_load32_splat(xj + c);
                P24_MADD(0); P24_MADD(1); P24_MADD(2); P24_MADD(3); P24_MADD(4); P24_MADD(5);
            }
            wasm_v128_store(yj + r0, acc0);
            wasm_v128_store(yj + r0 + 4, acc1);
            wasm_v128_store(yj + r0 + 8, acc2);
            wasm_v128_store(yj + r0 + 12, acc3);
            wasm_v128_store(yj + r0 + 16, acc4);
            wasm_v128_store(yj + r0 + 20, acc5);
        }
    }
    const size_t r0 = panels * AS_P24_ROWS;
    if (r0 < rows)
        for (size_t j = 0; j < count; j++)
            matvec_p24_tail(rows - r0, cols, w + r0 * cols, x + j * x_stride, b ? b + r0 : NULL,
                            y + j * y_stride + r0);
}

void as_f32_matvec_p24__wasmsimd(size_t rows, size_t cols, const float *w,
                                 const float *x, const float *b, float *y) {
    as_f32_matvec_p24_batch__wasmsimd(rows, cols, w, 1, x, 0, b, y, 0);
}
#undef P24_MADD

/* ---- attention core ---------------------------------------------------- */

/* keys (S,A), q (A), v (A) -> e (S), e_j = v . tanh(q + k_j). */
void as_f32_additive_scores__wasmsimd(size_t s, size_t a, const float *keys,
                                      const float *q, const float *v, float *e) {
    for (size_t j = 0; j < s; j++) {
        const float *k = keys + j * a;
        v128_t acc0 = wasm_f32x4_splat(0.0f), acc1 = acc0;
        size_t i = 0;
        for (; i + 8 <= a; i += 8) {
            const v128_t t0 = tanh_f32x4(wasm_f32x4_add(wasm_v128_load(q + i), wasm_v128_load(k + i)));
            const v128_t t1 = tanh_f32x4(wasm_f32x4_add(wasm_v128_load(q + i + 4), wasm_v128_load(k + i + 4)));
            acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(wasm_v128_load(v + i), t0));
            acc1 = wasm_f32x4_add(acc1, wasm_f32x4_mul(wasm_v128_load(v + i + 4), t1));
        }
        for (; i + 4 <= a; i += 4) {
            const v128_t t0 = tanh_f32x4(wasm_f32x4_add(wasm_v128_load(q + i), wasm_v128_load(k + i)));
            acc0 = wasm_f32x4_add(acc0, wasm_f32x4_mul(wasm_v128_load(v + i), t0));
        }
        float sum = hsum_f32x4(wasm_f32x4_add(acc0, acc1));
        for (; i < a; i++) sum += v[i] * as_tanh_scalar(q[i] + k[i]);
        e[j] = sum;
    }
}

/* keys (S,D), q (D) -> e (S): the keys are the matrix of a matvec. */
void as_f32_dot_scores__wasmsimd(size_t s, size_t d, const float *keys,
                                 const float *q, float *e) {
    as_f32_matvec__wasmsimd_r4(s, d, keys, q, NULL, e);
}

/* y (n) *= 1 / sum: both softmaxes' last pass (the scalar twin's order). */
static inline void divide_by_sum(size_t n, float sum, float *y) {
    const float inv = 1.0f / sum;
    const v128_t vinv = wasm_f32x4_splat(inv);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, wasm_f32x4_mul(wasm_v128_load(y + i), vinv));
    for (; i < n; i++) y[i] *= inv;
}

/* y = softmax(scale * x), max-subtracted. y may alias x. */
void as_f32_softmax__wasmsimd(size_t n, const float *x, float scale, float *y) {
    const v128_t vscale = wasm_f32x4_splat(scale);
    /* scale * (x - max x), as the scalar twin: finite for any scale > 0. */
    float m = x[0];
    size_t i = 0;
    if (n >= 4) {
        v128_t vm = wasm_v128_load(x);
        for (i = 4; i + 4 <= n; i += 4) vm = wasm_f32x4_pmax(vm, wasm_v128_load(x + i));
        float lanes[4];
        wasm_v128_store(lanes, vm);
        for (size_t l = 0; l < 4; l++) if (lanes[l] > m) m = lanes[l];
    }
    for (; i < n; i++) if (x[i] > m) m = x[i];

    const v128_t vmax = wasm_f32x4_splat(m);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (i = 0; i + 4 <= n; i += 4) {
        const v128_t ex = exp_f32x4(wasm_f32x4_mul(vscale, wasm_f32x4_sub(wasm_v128_load(x + i), vmax)));
        wasm_v128_store(y + i, ex);
        vsum = wasm_f32x4_add(vsum, ex);
    }
    float sum = hsum_f32x4(vsum);
    for (; i < n; i++) {
        const float ex = as_exp_scalar(scale * (x[i] - m));
        y[i] = ex;
        sum += ex;
    }
    divide_by_sum(n, sum, y);
}

/* keep[0..3] (0 or 1 each) -> an all-ones lane where kept, zeros where
 * dropped: the mask of as_f32_softmax_masked's vector body. */
static inline v128_t keep_mask_4(const uint8_t *keep) {
    return wasm_i32x4_make(keep[0] ? -1 : 0, keep[1] ? -1 : 0, keep[2] ? -1 : 0, keep[3] ? -1 : 0);
}

/* The softmax over the kept entries (kernels.h), as as_f32_softmax__wasmsimd
 * with a lane mask: a dropped lane reads as -inf for the maximum, enters exp
 * as 0 (so exp only ever sees the kept entries' finite values <= 0, or 0)
 * and leaves it as +0. An all-ones mask makes every mask operation the
 * identity: that kernel's bits. y may alias x. */
void as_f32_softmax_masked__wasmsimd(size_t n, const float *x, const uint8_t *keep, float scale, float *y) {
    size_t first = 0;
    while (first < n && !keep[first]) first++;
    if (first == n) { /* nothing kept: refused by the engine; zeros, not 0 / 0 */
        for (size_t i = 0; i < n; i++) y[i] = 0.0f;
        return;
    }
    const v128_t vscale = wasm_f32x4_splat(scale);
    const v128_t minus_inf = wasm_f32x4_splat(-INFINITY);
    float m = x[first];
    size_t i = 0;
    if (n >= 4) {
        v128_t vm = wasm_v128_bitselect(wasm_v128_load(x), minus_inf, keep_mask_4(keep));
        for (i = 4; i + 4 <= n; i += 4)
            vm = wasm_f32x4_pmax(vm, wasm_v128_bitselect(wasm_v128_load(x + i), minus_inf, keep_mask_4(keep + i)));
        float lanes[4];
        wasm_v128_store(lanes, vm);
        for (size_t l = 0; l < 4; l++) if (lanes[l] > m) m = lanes[l];
    }
    for (; i < n; i++) if (keep[i] && x[i] > m) m = x[i];

    const v128_t vmax = wasm_f32x4_splat(m);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (i = 0; i + 4 <= n; i += 4) {
        const v128_t kept = keep_mask_4(keep + i);
        const v128_t arg = wasm_v128_and(wasm_f32x4_mul(vscale, wasm_f32x4_sub(wasm_v128_load(x + i), vmax)), kept);
        const v128_t ex = wasm_v128_and(exp_f32x4(arg), kept);
        wasm_v128_store(y + i, ex);
        vsum = wasm_f32x4_add(vsum, ex);
    }
    float sum = hsum_f32x4(vsum);
    for (; i < n; i++) {
        const float ex = keep[i] ? as_exp_scalar(scale * (x[i] - m)) : 0.0f;
        y[i] = ex;
        sum += ex;
    }
    divide_by_sum(n, sum, y);
}

/* alpha (S), h (S,D) -> c (D). Column blocks of 16 keep 4 accumulators live
 * across the whole sum over j; the per-element order matches the scalar twin. */
void as_f32_context__wasmsimd(size_t s, size_t d, const float *alpha,
                              const float *h, float *c) {
    size_t i = 0;
    for (; i + 16 <= d; i += 16) {
        v128_t c0 = wasm_f32x4_splat(0.0f), c1 = c0, c2 = c0, c3 = c0;
        for (size_t j = 0; j < s; j++) {
            const v128_t a = wasm_f32x4_splat(alpha[j]);
            const float *row = h + j * d + i;
            c0 = wasm_f32x4_add(c0, wasm_f32x4_mul(a, wasm_v128_load(row)));
            c1 = wasm_f32x4_add(c1, wasm_f32x4_mul(a, wasm_v128_load(row + 4)));
            c2 = wasm_f32x4_add(c2, wasm_f32x4_mul(a, wasm_v128_load(row + 8)));
            c3 = wasm_f32x4_add(c3, wasm_f32x4_mul(a, wasm_v128_load(row + 12)));
        }
        wasm_v128_store(c + i, c0);
        wasm_v128_store(c + i + 4, c1);
        wasm_v128_store(c + i + 8, c2);
        wasm_v128_store(c + i + 12, c3);
    }
    for (; i + 4 <= d; i += 4) {
        v128_t c0 = wasm_f32x4_splat(0.0f);
        for (size_t j = 0; j < s; j++)
            c0 = wasm_f32x4_add(c0, wasm_f32x4_mul(wasm_f32x4_splat(alpha[j]), wasm_v128_load(h + j * d + i)));
        wasm_v128_store(c + i, c0);
    }
    for (; i < d; i++) {
        float sum = 0.0f;
        for (size_t j = 0; j < s; j++) sum += alpha[j] * h[j * d + i];
        c[i] = sum;
    }
}

/* ---- the vocabulary: top-k and the softmax normaliser -------------------- */

/* Once the list is full, a block of 16 with no value above the k-th best
 * cannot change it (the threshold only rises), so it is skipped with four
 * compares; other blocks go through the scalar insertion in order, which
 * keeps the result identical to the scalar twin's. */
void as_f32_top_k__wasmsimd(size_t n, const float *x, int32_t k, int32_t *ids) {
    int32_t have = 0;
    size_t i = 0;
    for (; i < n && have < k; i++) as_top_k_insert(x, i, k, ids, &have);
    while (i + 16 <= n) {
        const v128_t thr = wasm_f32x4_splat(x[ids[k - 1]]);
        const v128_t hit = wasm_v128_or(
            wasm_v128_or(wasm_f32x4_gt(wasm_v128_load(x + i), thr), wasm_f32x4_gt(wasm_v128_load(x + i + 4), thr)),
            wasm_v128_or(wasm_f32x4_gt(wasm_v128_load(x + i + 8), thr), wasm_f32x4_gt(wasm_v128_load(x + i + 12), thr)));
        if (wasm_v128_any_true(hit)) {
            for (const size_t end = i + 16; i < end; i++) as_top_k_insert(x, i, k, ids, &have);
        } else {
            i += 16;
        }
    }
    for (; i < n; i++) as_top_k_insert(x, i, k, ids, &have);
}

/* sum_i exp(x_i - m): one exp vector per iteration (its 13 constants and
 * temporaries already fill V8's 15 v128 registers). */
float as_f32_sum_exp__wasmsimd(size_t n, const float *x, float m) {
    const v128_t vm = wasm_f32x4_splat(m);
    v128_t acc = wasm_f32x4_splat(0.0f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) acc = wasm_f32x4_add(acc, exp_f32x4(wasm_f32x4_sub(wasm_v128_load(x + i), vm)));
    float sum = hsum_f32x4(acc);
    for (; i < n; i++) sum += as_exp_scalar(x[i] - m);
    return sum;
}

/* ---- elementwise ------------------------------------------------------- */

void as_f32_tanh__wasmsimd(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, tanh_f32x4(wasm_v128_load(x + i)));
    for (; i < n; i++) y[i] = as_tanh_scalar(x[i]);
}

void as_f32_exp__wasmsimd(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, exp_f32x4(wasm_v128_load(x + i)));
    for (; i < n; i++) y[i] = as_exp_scalar(x[i]);
}

void as_f32_gru_update__wasmsimd(size_t h_dim, const float *gi, const float *gh, float *h) {
    const v128_t one = wasm_f32x4_splat(1.0f);
    size_t i = 0;
    for (; i + 4 <= h_dim; i += 4) {
        const v128_t r = sigmoid_f32x4(wasm_f32x4_add(wasm_v128_load(gi + i), wasm_v128_load(gh + i)));
        const v128_t z = sigmoid_f32x4(wasm_f32x4_add(wasm_v128_load(gi + h_dim + i), wasm_v128_load(gh + h_dim + i)));
        const v128_t n = tanh_f32x4(wasm_f32x4_add(wasm_v128_load(gi + 2 * h_dim + i),
                                                   wasm_f32x4_mul(r, wasm_v128_load(gh + 2 * h_dim + i))));
        const v128_t hv = wasm_v128_load(h + i);
        wasm_v128_store(h + i, wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_sub(one, z), n), wasm_f32x4_mul(z, hv)));
    }
    for (; i < h_dim; i++) {
        const float r = as_sigmoid_scalar(gi[i] + gh[i]);
        const float z = as_sigmoid_scalar(gi[h_dim + i] + gh[h_dim + i]);
        const float n = as_tanh_scalar(gi[2 * h_dim + i] + r * gh[2 * h_dim + i]);
        h[i] = (1.0f - z) * n + z * h[i];
    }
}

/* sum over x (n) of (x_i - centre), or of its square: four lanes, hsum, then
 * the tail in order (the scalar twin's lane_sum, bit for bit). */
static float lane_sum_f32x4(size_t n, const float *x, float centre, int squared) {
    const v128_t c = wasm_f32x4_splat(centre);
    v128_t acc = wasm_f32x4_splat(0.0f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const v128_t d = wasm_f32x4_sub(wasm_v128_load(x + i), c);
        acc = wasm_f32x4_add(acc, squared ? wasm_f32x4_mul(d, d) : d);
    }
    float sum = hsum_f32x4(acc);
    for (; i < n; i++) {
        const float d = x[i] - centre;
        sum += squared ? d * d : d;
    }
    return sum;
}

void as_f32_block_layer_norm__wasmsimd(size_t blocks, size_t size, float *x, const float *gain, const float *shift) {
    for (size_t b = 0; b < blocks; b++) {
        float *block = x + b * size;
        const float *g = gain + b * size, *t = shift + b * size;
        const float mean = lane_sum_f32x4(size, block, 0.0f, 0) / (float)size;
        const float var = lane_sum_f32x4(size, block, mean, 1) / (float)size;
        const float inv = 1.0f / sqrtf(var + AS_LAYER_NORM_EPSILON);
        const v128_t vmean = wasm_f32x4_splat(mean), vinv = wasm_f32x4_splat(inv);
        size_t i = 0;
        for (; i + 4 <= size; i += 4) {
            const v128_t normed = wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(block + i), vmean), vinv);
            wasm_v128_store(block + i, wasm_f32x4_add(wasm_f32x4_mul(normed, wasm_v128_load(g + i)),
                                                      wasm_v128_load(t + i)));
        }
        for (; i < size; i++) block[i] = (block[i] - mean) * inv * g[i] + t[i];
    }
}
