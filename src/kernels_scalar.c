/* kernels_scalar.c - the plain-C twin of every kernel (see kernels.h).
 *
 * This file is the reference the SIMD twins are tested against and the path
 * the scalar wasm build runs. It is compiled with -fno-vectorize
 * -fno-slp-vectorize in the wasm builds so that it stays truly scalar.
 */
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
    float m = scale * x[0];
    for (size_t i = 1; i < n; i++) {
        float v = scale * x[i];
        if (v > m) m = v;
    }
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float e = as_exp_scalar(scale * x[i] - m);
        y[i] = e;
        sum += e;
    }
    float inv = 1.0f / sum;
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
