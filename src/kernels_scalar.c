/* kernels_scalar.c - the plain-C twin of every kernel (see kernels.h).
 *
 * This file is the reference the SIMD twins are tested against and the path
 * the scalar wasm build runs. It is compiled with -fno-vectorize
 * -fno-slp-vectorize in the wasm builds so that it stays truly scalar.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "fastmath.h"

/* W (rows,cols) @ x (cols) + b (rows) -> y (rows). Four independent partial
 * sums per row, so the dependency chain is short even without SIMD. */
void as_f32_matvec__scalar(size_t rows, size_t cols, const float *w,
                           const float *x, const float *b, float *y) {
    for (size_t r = 0; r < rows; r++) {
        const float *row = w + r * cols;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        size_t c = 0;
        for (; c + 4 <= cols; c += 4) {
            s0 += row[c] * x[c];
            s1 += row[c + 1] * x[c + 1];
            s2 += row[c + 2] * x[c + 2];
            s3 += row[c + 3] * x[c + 3];
        }
        for (; c < cols; c++) s0 += row[c] * x[c];
        float sum = (s0 + s1) + (s2 + s3);
        y[r] = b ? sum + b[r] : sum;
    }
}

/* Row-major w (rows, cols) -> the p24 layout (kernels.h), one panel at a
 * time through a scratch copy of the panel's rows. A layout change, not a
 * numeric kernel: both builds use this one. */
int as_f32_pack_p24(size_t rows, size_t cols, float *w) {
    if (rows == 0 || cols == 0) return 0;
    const size_t panel_rows = rows < AS_P24_ROWS ? rows : AS_P24_ROWS;
    if (cols > (size_t)-1 / sizeof(float) / panel_rows) return -1;
    float *scratch = malloc(panel_rows * cols * sizeof(float));
    if (!scratch) return -1;
    for (size_t r0 = 0; r0 < rows; r0 += AS_P24_ROWS) {
        const size_t n = rows - r0 < AS_P24_ROWS ? rows - r0 : AS_P24_ROWS;
        float *panel = w + r0 * cols;
        memcpy(scratch, panel, n * cols * sizeof(float));
        for (size_t c = 0; c < cols; c++)
            for (size_t i = 0; i < n; i++) panel[c * n + i] = scratch[i * cols + c];
    }
    free(scratch);
    return 0;
}

/* W (rows, cols) in the p24 layout @ x_j + b -> y_j for each of `count`
 * inputs, panel by panel. Each row is summed from its bias through the
 * columns in order, 4 rows of a panel at a time. */
void as_f32_matvec_p24_batch__scalar(size_t rows, size_t cols, const float *w, size_t count,
                                     const float *x, size_t x_stride, const float *b,
                                     float *y, size_t y_stride) {
    for (size_t r0 = 0; r0 < rows; r0 += AS_P24_ROWS) {
        const size_t n = rows - r0 < AS_P24_ROWS ? rows - r0 : AS_P24_ROWS;
        const float *panel = w + r0 * cols;
        for (size_t j = 0; j < count; j++) {
            const float *xj = x + j * x_stride;
            float *yj = y + j * y_stride;
            size_t g = 0;
            for (; g + 4 <= n; g += 4) {
                float s0 = b ? b[r0 + g] : 0.0f, s1 = b ? b[r0 + g + 1] : 0.0f;
                float s2 = b ? b[r0 + g + 2] : 0.0f, s3 = b ? b[r0 + g + 3] : 0.0f;
                const float *p = panel + g;
                for (size_t c = 0; c < cols; c++, p += n) {
                    const float xc = xj[c];
                    s0 += p[0] * xc;
                    s1 += p[1] * xc;
                    s2 += p[2] * xc;
                    s3 += p[3] * xc;
                }
                yj[r0 + g] = s0;
                yj[r0 + g + 1] = s1;
                yj[r0 + g + 2] = s2;
                yj[r0 + g + 3] = s3;
            }
            for (; g < n; g++) {
                float s = b ? b[r0 + g] : 0.0f;
                for (size_t c = 0; c < cols; c++) s += panel[c * n + g] * xj[c];
                yj[r0 + g] = s;
            }
        }
    }
}

void as_f32_matvec_p24__scalar(size_t rows, size_t cols, const float *w,
                               const float *x, const float *b, float *y) {
    as_f32_matvec_p24_batch__scalar(rows, cols, w, 1, x, 0, b, y, 0);
}

/* Row-major q (rows, cols) -> the q32 layout (kernels.h): column pairs of
 * each row side by side, rows of a panel one after another. */
int as_i8_pack_q32(size_t rows, size_t cols, int8_t *q) {
    if (rows == 0 || cols == 0) return 0;
    const size_t panel_rows = rows < AS_Q32_ROWS ? rows : AS_Q32_ROWS;
    if (cols > (size_t)-1 / panel_rows) return -1;
    int8_t *scratch = malloc(panel_rows * cols);
    if (!scratch) return -1;
    const size_t pairs = cols / 2;
    for (size_t r0 = 0; r0 < rows; r0 += AS_Q32_ROWS) {
        const size_t n = rows - r0 < AS_Q32_ROWS ? rows - r0 : AS_Q32_ROWS;
        int8_t *panel = q + r0 * cols;
        memcpy(scratch, panel, n * cols);
        for (size_t k = 0; k < pairs; k++)
            for (size_t i = 0; i < n; i++) {
                panel[k * 2 * n + 2 * i] = scratch[i * cols + 2 * k];
                panel[k * 2 * n + 2 * i + 1] = scratch[i * cols + 2 * k + 1];
            }
        if (cols % 2)
            for (size_t i = 0; i < n; i++) panel[pairs * 2 * n + i] = scratch[i * cols + cols - 1];
    }
    free(scratch);
    return 0;
}

float as_i8_quantise_input(size_t cols, const float *x, int16_t *xq) {
    float amax = 0.0f;
    for (size_t c = 0; c < cols; c++) {
        const float a = fabsf(x[c]);
        if (!(a <= FLT_MAX)) { /* inf or NaN: every row becomes NaN */
            memset(xq, 0, cols * sizeof *xq);
            return NAN;
        }
        if (a > amax) amax = a;
    }
    if (amax == 0.0f) {
        memset(xq, 0, cols * sizeof *xq);
        return 0.0f;
    }
    const long room = 2147483647L / (127L * (long)(cols > 0 ? cols : 1));
    const float levels = (float)(room < 32767 ? room : 32767);
    /* levels / amax overflows to +inf once amax < levels / FLT_MAX (about
     * 2^-113: every subnormal maximum and the smallest normal ones), and then
     * 0 * inf = NaN reaches the int16 cast (undefined) while every nonzero
     * x[c] clamps to +-levels. Such a row is first scaled by 2^64: exact (a
     * power of two, |x| >= 2^-149 lands >= 2^-85, normal), so xq keeps the
     * ratio x / amax that the plain path computes, and the inverse stays
     * <= 2^15 / 2^-85 = 2^100. For amax >= 2^-64 pre is 1: the same bits as
     * before. sx stays amax / levels (x ~ sx * xq as documented). */
    const float pre = amax < 0x1p-64f ? 0x1p64f : 1.0f;
    const float inverse = levels / (amax * pre);
    for (size_t c = 0; c < cols; c++) {
        float v = nearbyintf(x[c] * pre * inverse);
        if (v > levels) v = levels;     /* x * inverse may round a hair above */
        if (v < -levels) v = -levels;
        xq[c] = (int16_t)v;
    }
    return amax / levels;
}

int32_t as_i8_q32_row_sum(const int8_t *panel, size_t n, size_t i, size_t cols, const int16_t *xq) {
    const size_t pairs = cols / 2;
    int32_t acc = 0;
    for (size_t k = 0; k < pairs; k++)
        acc += panel[k * 2 * n + 2 * i] * xq[2 * k] + panel[k * 2 * n + 2 * i + 1] * xq[2 * k + 1];
    if (cols % 2) acc += panel[pairs * 2 * n + i] * xq[cols - 1];
    return acc;
}

/* diag(scale) (Q in the q32 layout) @ x_j + b -> y_j, in exact integer sums
 * (kernels.h), AS_Q32_BATCH inputs at a time, one row at a time. */
void as_i8_matvec_q32_batch__scalar(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                    size_t count, const float *x, size_t x_stride, const float *b,
                                    float *y, size_t y_stride) {
    const size_t per_block = cols <= AS_Q32_BATCH_COLS ? AS_Q32_BATCH : 1; /* bounds the stack buffer */
    int16_t xq[per_block * (cols > 0 ? cols : 1)];
    float sx[AS_Q32_BATCH];
    for (size_t j0 = 0; j0 < count; j0 += per_block) {
        const size_t block = count - j0 < per_block ? count - j0 : per_block;
        for (size_t j = 0; j < block; j++) sx[j] = as_i8_quantise_input(cols, x + (j0 + j) * x_stride, xq + j * cols);
        for (size_t r0 = 0; r0 < rows; r0 += AS_Q32_ROWS) {
            const size_t n = rows - r0 < AS_Q32_ROWS ? rows - r0 : AS_Q32_ROWS;
            const int8_t *panel = q + r0 * cols;
            for (size_t j = 0; j < block; j++) {
                const int16_t *xj = xq + j * cols;
                float *yj = y + (j0 + j) * y_stride;
                for (size_t i = 0; i < n; i++) {
                    const size_t r = r0 + i;
                    const float scaled = (float)as_i8_q32_row_sum(panel, n, i, cols, xj) * (scale[r] * sx[j]);
                    yj[r] = b ? scaled + b[r] : scaled;
                }
            }
        }
    }
}

void as_i8_matvec_q32__scalar(size_t rows, size_t cols, const int8_t *q, const float *scale,
                              const float *x, const float *b, float *y) {
    as_i8_matvec_q32_batch__scalar(rows, cols, q, scale, 1, x, 0, b, y, 0);
}

/* Row-major q (rows, cols) -> the q8c4 layout (kernels.h): each row's four
 * values of a column quad side by side, rows of a panel one after another,
 * the cols % 4 last columns row by row after the quads. */
int as_i8_pack_q8c4(size_t rows, size_t cols, int8_t *q) {
    if (rows == 0 || cols == 0) return 0;
    const size_t panel_rows = rows < AS_Q8C4_ROWS ? rows : AS_Q8C4_ROWS;
    if (cols > (size_t)-1 / panel_rows) return -1;
    int8_t *scratch = malloc(panel_rows * cols);
    if (!scratch) return -1;
    const size_t quads = cols / 4, tail = cols - 4 * quads;
    for (size_t r0 = 0; r0 < rows; r0 += AS_Q8C4_ROWS) {
        const size_t n = rows - r0 < AS_Q8C4_ROWS ? rows - r0 : AS_Q8C4_ROWS;
        int8_t *panel = q + r0 * cols;
        memcpy(scratch, panel, n * cols);
        for (size_t k = 0; k < quads; k++)
            for (size_t i = 0; i < n; i++) memcpy(panel + k * 4 * n + 4 * i, scratch + i * cols + 4 * k, 4);
        for (size_t i = 0; i < n; i++) memcpy(panel + quads * 4 * n + i * tail, scratch + i * cols + 4 * quads, tail);
    }
    free(scratch);
    return 0;
}

int32_t as_i8_q8c4_row_sum(const int8_t *panel, size_t n, size_t i, size_t cols, const int16_t *xq) {
    const size_t quads = cols / 4, tail = cols - 4 * quads;
    int32_t acc = 0;
    for (size_t k = 0; k < quads; k++) {
        const int8_t *p = panel + k * 4 * n + 4 * i;
        const int16_t *xk = xq + 4 * k;
        acc += p[0] * xk[0] + p[1] * xk[1] + p[2] * xk[2] + p[3] * xk[3];
    }
    const int8_t *p = panel + quads * 4 * n + i * tail;
    for (size_t c = 0; c < tail; c++) acc += p[c] * xq[4 * quads + c];
    return acc;
}

/* The q8c4 twin: the q32 twin's arithmetic (the same quantised input, the
 * same exact row sums, the same final expression) on the q8c4 layout. */
void as_i8_matvec_q8c4_batch__scalar(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                     size_t count, const float *x, size_t x_stride, const float *b,
                                     float *y, size_t y_stride) {
    const size_t per_block = cols <= AS_Q32_BATCH_COLS ? AS_Q32_BATCH : 1;
    int16_t xq[per_block * cols];
    float sx[AS_Q32_BATCH];
    for (size_t j0 = 0; j0 < count; j0 += per_block) {
        const size_t block = count - j0 < per_block ? count - j0 : per_block;
        for (size_t j = 0; j < block; j++) sx[j] = as_i8_quantise_input(cols, x + (j0 + j) * x_stride, xq + j * cols);
        for (size_t r0 = 0; r0 < rows; r0 += AS_Q8C4_ROWS) {
            const size_t n = rows - r0 < AS_Q8C4_ROWS ? rows - r0 : AS_Q8C4_ROWS;
            const int8_t *panel = q + r0 * cols;
            for (size_t j = 0; j < block; j++) {
                float *yj = y + (j0 + j) * y_stride;
                for (size_t i = 0; i < n; i++) {
                    const size_t r = r0 + i;
                    const float scaled = (float)as_i8_q8c4_row_sum(panel, n, i, cols, xq + j * cols) * (scale[r] * sx[j]);
                    yj[r] = b ? scaled + b[r] : scaled;
                }
            }
        }
    }
}

void as_i8_matvec_q8c4__scalar(size_t rows, size_t cols, const int8_t *q, const float *scale,
                               const float *x, const float *b, float *y) {
    as_i8_matvec_q8c4_batch__scalar(rows, cols, q, scale, 1, x, 0, b, y, 0);
}

/* keys (S,A), q (A), v (A) -> e (S), e_j = v . tanh(q + k_j). */
void as_f32_additive_scores__scalar(size_t s, size_t a, const float *keys,
                                    const float *q, const float *v, float *e) {
    for (size_t j = 0; j < s; j++) {
        const float *k = keys + j * a;
        float sum = 0.0f;
        for (size_t i = 0; i < a; i++) sum += v[i] * as_tanh_scalar(q[i] + k[i]);
        e[j] = sum;
    }
}

/* keys (S,D), q (D) -> e (S): a matvec with the keys as the matrix. */
void as_f32_dot_scores__scalar(size_t s, size_t d, const float *keys,
                               const float *q, float *e) {
    as_f32_matvec__scalar(s, d, keys, q, NULL, e);
}

/* y = softmax(scale * x). Subtracting the max keeps exp() in range for any
 * logits; the sum is at least 1 (the max term), so the division is safe. */
void as_f32_softmax__scalar(size_t n, const float *x, float scale, float *y) {
    /* scale * (x - max x), not scale * x - max(scale * x): the difference is
     * <= 0 and finite, so a huge scale or score underflows to exp = 0 instead
     * of overflowing to inf - inf = NaN. scale > 0 keeps the argmax. */
    float m = x[0];
    for (size_t i = 1; i < n; i++) {
        if (x[i] > m) m = x[i];
    }
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float e = as_exp_scalar(scale * (x[i] - m));
        y[i] = e;
        sum += e;
    }
    float inv = 1.0f / sum;
    for (size_t i = 0; i < n; i++) y[i] *= inv;
}

/* The softmax over the kept entries (kernels.h): the same operations as
 * as_f32_softmax__scalar on them, a dropped entry adding an exact +0 to the
 * sum, so an all-ones mask gives that kernel's bits. */
void as_f32_softmax_masked__scalar(size_t n, const float *x, const uint8_t *keep, float scale, float *y) {
    size_t first = 0;
    while (first < n && !keep[first]) first++;
    if (first == n) { /* nothing kept: refused by the engine; zeros, not 0 / 0 */
        for (size_t i = 0; i < n; i++) y[i] = 0.0f;
        return;
    }
    float m = x[first];
    for (size_t i = first + 1; i < n; i++) {
        if (keep[i] && x[i] > m) m = x[i];
    }
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++) {
        const float e = keep[i] ? as_exp_scalar(scale * (x[i] - m)) : 0.0f;
        y[i] = e;
        sum += e;
    }
    const float inv = 1.0f / sum;
    for (size_t i = 0; i < n; i++) y[i] *= inv;
}

/* alpha (S), h (S,D) -> c (D). */
void as_f32_context__scalar(size_t s, size_t d, const float *alpha,
                            const float *h, float *c) {
    for (size_t i = 0; i < d; i++) c[i] = 0.0f;
    for (size_t j = 0; j < s; j++) {
        const float a = alpha[j];
        const float *row = h + j * d;
        for (size_t i = 0; i < d; i++) c[i] += a * row[i];
    }
}

/* The best k of x, best first: n x k compares at worst, nothing allocated. */
void as_f32_top_k__scalar(size_t n, const float *x, int32_t k, int32_t *ids) {
    int32_t have = 0;
    for (size_t i = 0; i < n; i++) as_top_k_insert(x, i, k, ids, &have);
}

/* Four partial sums: a shorter add chain and a quarter of the rounding
 * error of one running sum over the ~8000 terms of a vocabulary. */
float as_f32_sum_exp__scalar(size_t n, const float *x, float m) {
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += as_exp_scalar(x[i] - m);
        s1 += as_exp_scalar(x[i + 1] - m);
        s2 += as_exp_scalar(x[i + 2] - m);
        s3 += as_exp_scalar(x[i + 3] - m);
    }
    for (; i < n; i++) s0 += as_exp_scalar(x[i] - m);
    return (s0 + s1) + (s2 + s3);
}

void as_f32_tanh__scalar(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; i++) y[i] = as_tanh_scalar(x[i]);
}

void as_f32_exp__scalar(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; i++) y[i] = as_exp_scalar(x[i]);
}

/* gi, gh (3H) in gate order r, z, n; h (H) updated in place. */
void as_f32_gru_update__scalar(size_t h_dim, const float *gi, const float *gh, float *h) {
    for (size_t i = 0; i < h_dim; i++) {
        float r = as_sigmoid_scalar(gi[i] + gh[i]);
        float z = as_sigmoid_scalar(gi[h_dim + i] + gh[h_dim + i]);
        float n = as_tanh_scalar(gi[2 * h_dim + i] + r * gh[2 * h_dim + i]);
        h[i] = (1.0f - z) * n + z * h[i];
    }
}

/* Four lane sums, combined as the SIMD twin's hsum, then the tail in order. */
static float lane_sum(size_t n, const float *x, float centre, int squared) {
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++) {
            const float d = x[i + l] - centre;
            s[l] += squared ? d * d : d;
        }
    float sum = (s[0] + s[1]) + (s[2] + s[3]);
    for (; i < n; i++) {
        const float d = x[i] - centre;
        sum += squared ? d * d : d;
    }
    return sum;
}

/* x (blocks * size) normalised block by block, in place (kernels.h). */
void as_f32_block_layer_norm__scalar(size_t blocks, size_t size, float *x, const float *gain, const float *shift) {
    for (size_t b = 0; b < blocks; b++) {
        float *block = x + b * size;
        const float *g = gain + b * size, *t = shift + b * size;
        const float mean = lane_sum(size, block, 0.0f, 0) / (float)size;
        const float var = lane_sum(size, block, mean, 1) / (float)size;
        const float inv = 1.0f / sqrtf(var + AS_LAYER_NORM_EPSILON);
        for (size_t i = 0; i < size; i++) block[i] = (block[i] - mean) * inv * g[i] + t[i];
    }
}
