/* kernels_wasmrelaxed.c - the relaxed-SIMD twins of the weight products.
 *
 * Two kernels of kernels.h get a third twin here, for the module
 * web/gen/alignscope-relaxed.wasm (clang 19, -msimd128 -mrelaxed-simd):
 *   - the p24 f32 matvec with f32x4.relaxed_madd (fused multiply-add where
 *     the machine has one): the SIMD128 twin's loop, one instruction fewer
 *     per four multiply-adds; its results may differ from the scalar twin's
 *     by the bound kernels.h states;
 *   - the int8 matvec on the q8c4 layout with
 *     i32x4.relaxed_dot_i8x16_i7x16_add_s (16 byte products per
 *     instruction): exact integer sums, bit for bit the q32 twins' results
 *     (kernels.h explains the input's four 7-bit digits).
 * Every other kernel of that build is the SIMD128 twin (kernels_wasmsimd.c).
 */
#include <wasm_simd128.h>

#include "kernels.h"

/* V8 register pressure (kernels_wasmsimd.c): the loops must not unroll. */
#define AS_NO_UNROLL _Pragma("clang loop unroll(disable)")

/* ---- f32: p24 with fused multiply-add ------------------------------------ */

/* acc_k += W vector k * broadcast x[c], fused where the machine fuses. */
#define P24_FMA(k) acc##k = wasm_f32x4_relaxed_madd(wasm_v128_load(p + 4 * k), xc, acc##k)

static inline v128_t bias_or_zero(const float *b, size_t at) {
    return b ? wasm_v128_load(b + at) : wasm_f32x4_splat(0.0f);
}

/* The last panel, n < 24 rows: n / 4 vectors of rows, then the n % 4 rows
 * one by one in the scalar twin's order. */
static void matvec_p24_tail(size_t n, size_t cols, const float *panel, const float *x,
                            const float *b, float *y) {
    const size_t nv = n / 4;
    v128_t acc[5];
    for (size_t k = 0; k < nv; k++) acc[k] = bias_or_zero(b, 4 * k);
    for (size_t k = 0; k < nv; k++) {
        v128_t a = acc[k];
        const float *p = panel + 4 * k;
AS_NO_UNROLL
        for (size_t c = 0; c < cols; c++, p += n) a = wasm_f32x4_relaxed_madd(wasm_v128_load(p), wasm_v128_load32_splat(x + c), a);
        acc[k] = a;
    }
    for (size_t k = 0; k < nv; k++) wasm_v128_store(y + 4 * k, acc[k]);
    for (size_t g = 4 * nv; g < n; g++) {
        float s = b ? b[g] : 0.0f;
        for (size_t c = 0; c < cols; c++) s += panel[c * n + g] * x[c];
        y[g] = s;
    }
}

/* Panel by panel, every input against the panel while it is in cache; per
 * column one broadcast of x, six loads, six relaxed_madd (6 + 6 + 1 live
 * v128, as the SIMD128 twin). */
void as_f32_matvec_p24_batch__wasmrelaxed(size_t rows, size_t cols, const float *w, size_t count,
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
                P24_FMA(0); P24_FMA(1); P24_FMA(2); P24_FMA(3); P24_FMA(4); P24_FMA(5);
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
#undef P24_FMA

void as_f32_matvec_p24__wasmrelaxed(size_t rows, size_t cols, const float *w,
                                    const float *x, const float *b, float *y) {
    as_f32_matvec_p24_batch__wasmrelaxed(rows, cols, w, 1, x, 0, b, y, 0);
}

/* ---- int8: q8c4 with the 8-bit dot product ------------------------------- */

/* The quantised input xq (cols) as its four digit planes (kernels.h):
 * digits + 0 * width .. 3 * width hold d0, d1, d2, s for every column, the
 * columns past the last full quad (up to width) zero, so that a quad's four
 * bytes are one 32-bit load of each plane. */
static void q8c4_digits(size_t cols, const int16_t *xq, size_t width, uint8_t *digits) {
    for (size_t c = 0; c < width; c++) {
        const uint32_t u = c < cols ? (uint32_t)(int32_t)xq[c] : 0u; /* two's complement */
        digits[c] = (uint8_t)(u & 127u);
        digits[width + c] = (uint8_t)((u >> 7) & 127u);
        digits[2 * width + c] = (uint8_t)((u >> 14) & 127u);
        digits[3 * width + c] = (uint8_t)(u >> 31);
    }
}

/* The four digit sums -> sum q xq, modulo 2^32 (exact: kernels.h). */
static inline v128_t q8c4_combine(v128_t a0, v128_t a1, v128_t a2, v128_t a3) {
    return wasm_i32x4_sub(wasm_i32x4_add(wasm_i32x4_add(a0, wasm_i32x4_shl(a1, 7)), wasm_i32x4_shl(a2, 14)),
                          wasm_i32x4_shl(a3, 21));
}

static inline v128_t q8c4_finish(v128_t acc, const float *scale, float sx, const float *b, size_t at) {
    const v128_t scaled = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc),
                                         wasm_f32x4_mul(wasm_v128_load(scale + at), wasm_f32x4_splat(sx)));
    return b ? wasm_f32x4_add(scaled, wasm_v128_load(b + at)) : scaled;
}

/* The cols % 4 last columns of 4 rows (row by row after the quads, kernels.h),
 * added to acc in exact integer arithmetic. */
static inline v128_t q8c4_tail_columns(const int8_t *tail_rows, size_t tail, const int16_t *xq_tail, v128_t acc) {
    int32_t add[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < 4; i++)
        for (size_t c = 0; c < tail; c++) add[i] += tail_rows[i * tail + c] * xq_tail[c];
    return wasm_i32x4_add(acc, wasm_v128_load(add));
}

/* Rows r0 .. r0 + 8 k - 1 of a panel of n rows (k = 1 or 2 vectors of 4 rows
 * for a full panel, or the 4-row groups of a short one). */
static void q8c4_rows(size_t n, size_t groups, size_t cols, const int8_t *panel, const uint8_t *digits,
                      size_t width, const int16_t *xq, float sx, const float *scale, const float *b, size_t r0,
                      float *y) {
    const size_t quads = cols / 4, tail = cols - 4 * quads;
    for (size_t g = 0; g + 2 <= groups; g += 2) { /* two vectors of 4 rows: 8 accumulators */
        v128_t a0 = wasm_i32x4_splat(0), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        const int8_t *p = panel + 16 * g;
AS_NO_UNROLL
        for (size_t k = 0; k < quads; k++, p += 4 * n) {
            const v128_t d0 = wasm_v128_load32_splat(digits + 4 * k);
            const v128_t d1 = wasm_v128_load32_splat(digits + width + 4 * k);
            const v128_t d2 = wasm_v128_load32_splat(digits + 2 * width + 4 * k);
            const v128_t d3 = wasm_v128_load32_splat(digits + 3 * width + 4 * k);
            const v128_t w0 = wasm_v128_load(p), w1 = wasm_v128_load(p + 16);
            a0 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, d0, a0);
            a1 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, d1, a1);
            a2 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, d2, a2);
            a3 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, d3, a3);
            b0 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w1, d0, b0);
            b1 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w1, d1, b1);
            b2 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w1, d2, b2);
            b3 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w1, d3, b3);
        }
        v128_t lo = q8c4_combine(a0, a1, a2, a3), hi = q8c4_combine(b0, b1, b2, b3);
        if (tail) {
            const int8_t *t = panel + quads * 4 * n + 4 * g * tail;
            lo = q8c4_tail_columns(t, tail, xq + 4 * quads, lo);
            hi = q8c4_tail_columns(t + 4 * tail, tail, xq + 4 * quads, hi);
        }
        wasm_v128_store(y + r0 + 4 * g, q8c4_finish(lo, scale, sx, b, r0 + 4 * g));
        wasm_v128_store(y + r0 + 4 * g + 4, q8c4_finish(hi, scale, sx, b, r0 + 4 * g + 4));
    }
    if (groups % 2) { /* one vector of 4 rows */
        const size_t g = groups - 1;
        v128_t a0 = wasm_i32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
        const int8_t *p = panel + 16 * g;
AS_NO_UNROLL
        for (size_t k = 0; k < quads; k++, p += 4 * n) {
            const v128_t w0 = wasm_v128_load(p);
            a0 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, wasm_v128_load32_splat(digits + 4 * k), a0);
            a1 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, wasm_v128_load32_splat(digits + width + 4 * k), a1);
            a2 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, wasm_v128_load32_splat(digits + 2 * width + 4 * k), a2);
            a3 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, wasm_v128_load32_splat(digits + 3 * width + 4 * k), a3);
        }
        v128_t acc = q8c4_combine(a0, a1, a2, a3);
        if (tail) acc = q8c4_tail_columns(panel + quads * 4 * n + 4 * g * tail, tail, xq + 4 * quads, acc);
        wasm_v128_store(y + r0 + 4 * g, q8c4_finish(acc, scale, sx, b, r0 + 4 * g));
    }
    for (size_t i = 4 * groups; i < n; i++) { /* the n % 4 last rows of a short panel */
        const size_t r = r0 + i;
        const float scaled = (float)as_i8_q8c4_row_sum(panel, n, i, cols, xq) * (scale[r] * sx);
        y[r] = b ? scaled + b[r] : scaled;
    }
}

/* Up to AS_Q32_BATCH inputs quantised (and cut into digits) at a time, then
 * panel by panel each of them against the panel. */
void as_i8_matvec_q8c4_batch__wasmrelaxed(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                          size_t count, const float *x, size_t x_stride, const float *b,
                                          float *y, size_t y_stride) {
    const size_t width = (cols + 3) / 4 * 4;
    const size_t per_block = cols <= AS_Q32_BATCH_COLS ? AS_Q32_BATCH : 1; /* bounds the stack buffers */
    int16_t xq[per_block * cols];
    uint8_t digits[per_block * 4 * width];
    float sx[AS_Q32_BATCH];
    for (size_t j0 = 0; j0 < count; j0 += per_block) {
        const size_t block = count - j0 < per_block ? count - j0 : per_block;
        for (size_t j = 0; j < block; j++) {
            sx[j] = as_i8_quantise_input(cols, x + (j0 + j) * x_stride, xq + j * cols);
            q8c4_digits(cols, xq + j * cols, width, digits + j * 4 * width);
        }
        for (size_t r0 = 0; r0 < rows; r0 += AS_Q8C4_ROWS) {
            const size_t n = rows - r0 < AS_Q8C4_ROWS ? rows - r0 : AS_Q8C4_ROWS;
            for (size_t j = 0; j < block; j++)
                q8c4_rows(n, n / 4, cols, q + r0 * cols, digits + j * 4 * width, width, xq + j * cols, sx[j],
                          scale, b, r0, y + (j0 + j) * y_stride);
        }
    }
}

void as_i8_matvec_q8c4__wasmrelaxed(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                    const float *x, const float *b, float *y) {
    as_i8_matvec_q8c4_batch__wasmrelaxed(rows, cols, q, scale, 1, x, 0, b, y, 0);
}
