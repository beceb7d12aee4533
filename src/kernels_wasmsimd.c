/* kernels_wasmsimd.c - WebAssembly SIMD128 twins of the kernels in kernels.h.
 *
 * Each function matches its __scalar twin's signature and contract. Loops run
 * over 4-lane vectors and finish the leftovers with the scalar formulas from
 * fastmath.h, so every length works. Only compiled with -msimd128.
 *
 * V8 keeps about 15 v128 values in registers before spilling, which is why
 * the matvec holds 8 accumulators + 2 x vectors and no more.
 */
#include <wasm_simd128.h>

#include "kernels.h"
#include "fastmath.h"

/* ---- vector forms of the fastmath.h approximations -------------------- */

/* Same operation order as as_tanh_scalar (wasm has no FMA), so the lanes
 * agree with the scalar twin bit for bit. */
static inline v128_t tanh_f32x4(v128_t x) {
    const v128_t tiny = wasm_f32x4_lt(wasm_f32x4_abs(x), wasm_f32x4_splat(AS_TANH_TINY));
    v128_t xc = wasm_f32x4_min(x, wasm_f32x4_splat(AS_TANH_CLAMP));
    xc = wasm_f32x4_max(xc, wasm_f32x4_splat(-AS_TANH_CLAMP));
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
    x = wasm_f32x4_min(x, wasm_f32x4_splat(AS_EXP_HI));
    x = wasm_f32x4_max(x, wasm_f32x4_splat(AS_EXP_LO));
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
    const v128_t bits = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
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

/* y = softmax(scale * x), max-subtracted. y may alias x. */
void as_f32_softmax__wasmsimd(size_t n, const float *x, float scale, float *y) {
    const v128_t vscale = wasm_f32x4_splat(scale);
    float m = scale * x[0];
    size_t i = 0;
    if (n >= 4) {
        v128_t vm = wasm_f32x4_mul(vscale, wasm_v128_load(x));
        for (i = 4; i + 4 <= n; i += 4) vm = wasm_f32x4_max(vm, wasm_f32x4_mul(vscale, wasm_v128_load(x + i)));
        float lanes[4];
        wasm_v128_store(lanes, vm);
        for (size_t l = 0; l < 4; l++) if (lanes[l] > m) m = lanes[l];
    }
    for (; i < n; i++) if (scale * x[i] > m) m = scale * x[i];

    const v128_t vmax = wasm_f32x4_splat(m);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (i = 0; i + 4 <= n; i += 4) {
        const v128_t ex = exp_f32x4(wasm_f32x4_sub(wasm_f32x4_mul(vscale, wasm_v128_load(x + i)), vmax));
        wasm_v128_store(y + i, ex);
        vsum = wasm_f32x4_add(vsum, ex);
    }
    float sum = hsum_f32x4(vsum);
    for (; i < n; i++) {
        const float ex = as_exp_scalar(scale * x[i] - m);
        y[i] = ex;
        sum += ex;
    }
    const float inv = 1.0f / sum;
    const v128_t vinv = wasm_f32x4_splat(inv);
    for (i = 0; i + 4 <= n; i += 4) wasm_v128_store(y + i, wasm_f32x4_mul(wasm_v128_load(y + i), vinv));
    for (; i < n; i++) y[i] *= inv;
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
