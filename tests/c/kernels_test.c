/* kernels_test.c - every kernel against a double-precision reference, at
 * lengths below, at and above each tile size, with canaries after every
 * output. Built natively (scalar twin only) and as wasm with -msimd128 (both
 * twins, plus twin-vs-twin agreement). tests/kernels.test.mjs runs both and
 * reads the report; the exit status is non-zero on any failure.
 *
 * Output: one line per kernel and variant, "KERNEL VARIANT max_err=... tol=...
 * ok|FAIL", then "RESULT PASS" or "RESULT FAIL".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/kernels.h"

static const size_t lengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257};
#define N_LENGTHS (sizeof lengths / sizeof lengths[0])
#define CANARY_COUNT 8
static const uint32_t CANARY_BITS = 0x7FC0DEADu; /* a NaN no kernel produces */

static int failures;
static double tol_scale = 1.0; /* --tolerance-scale */

/* ---- helpers ----------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static float uniform(float lo, float hi) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (float)((rng_state >> 40) * (1.0 / 16777216.0));
}

static void fill(float *p, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) p[i] = uniform(lo, hi);
}

/* An output buffer with CANARY_COUNT canaries after n floats. */
static float *out_buffer(size_t n) {
    float *p = malloc((n + CANARY_COUNT) * sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) p[i] = 0.0f;
    for (size_t i = 0; i < CANARY_COUNT; i++) memcpy(p + n + i, &CANARY_BITS, 4);
    return p;
}

static int canaries_ok(const float *p, size_t n) {
    for (size_t i = 0; i < CANARY_COUNT; i++)
        if (memcmp(p + n + i, &CANARY_BITS, 4) != 0) return 0;
    return 1;
}

typedef struct {
    const char *kernel, *variant;
    double max_err, tol;
    int canary_failures;
    long checks;
} report;

static void note(report *r, double err) {
    /* NaN must stick: once seen, no later (finite) error may replace it. */
    if (!isnan(r->max_err) && (isnan(err) || err > r->max_err)) r->max_err = err;
    r->checks++;
}

static void note_canary(report *r, const float *p, size_t n) {
    if (!canaries_ok(p, n)) r->canary_failures++;
}

static void finish(const report *r) {
    const double tol = r->tol * tol_scale;
    int ok = r->max_err <= tol && r->canary_failures == 0 && r->checks > 0;
    printf("%-16s %-9s max_err=%.3e tol=%.1e checks=%ld canary_failures=%d %s\n", r->kernel, r->variant,
           r->max_err, tol, r->checks, r->canary_failures, ok ? "ok" : "FAIL");
    if (!ok) failures++;
}

/* ---- the variants under test ------------------------------------------ */

typedef struct {
    const char *name;
    as_f32_matvec_fn matvec;
    as_f32_additive_scores_fn additive_scores;
    as_f32_dot_scores_fn dot_scores;
    as_f32_softmax_fn softmax;
    as_f32_softmax_masked_fn softmax_masked;
    as_f32_context_fn context;
    as_f32_tanh_fn tanh_;
    as_f32_gru_update_fn gru_update;
    void (*exp_)(size_t, const float *, float *);
    as_f32_matvec_p24_fn matvec_p24;
    as_f32_top_k_fn top_k;
    as_f32_sum_exp_fn sum_exp;
    as_i8_matvec_q32_fn i8_matvec_q32;
    as_f32_matvec_p24_batch_fn matvec_p24_batch;
    as_i8_matvec_q32_batch_fn i8_matvec_q32_batch;
    as_f32_block_layer_norm_fn block_layer_norm;
} variant;

static const variant variants[] = {
    {"scalar", as_f32_matvec__scalar, as_f32_additive_scores__scalar, as_f32_dot_scores__scalar,
     as_f32_softmax__scalar, as_f32_softmax_masked__scalar, as_f32_context__scalar, as_f32_tanh__scalar, as_f32_gru_update__scalar,
     as_f32_exp__scalar, as_f32_matvec_p24__scalar,
     as_f32_top_k__scalar, as_f32_sum_exp__scalar, as_i8_matvec_q32__scalar,
     as_f32_matvec_p24_batch__scalar, as_i8_matvec_q32_batch__scalar, as_f32_block_layer_norm__scalar},
#if defined(__wasm_simd128__) || defined(AS_SIMD128_SHIM)
    {"wasmsimd", as_f32_matvec__wasmsimd_r4, as_f32_additive_scores__wasmsimd, as_f32_dot_scores__wasmsimd,
     as_f32_softmax__wasmsimd, as_f32_softmax_masked__wasmsimd, as_f32_context__wasmsimd, as_f32_tanh__wasmsimd, as_f32_gru_update__wasmsimd,
     as_f32_exp__wasmsimd, as_f32_matvec_p24__wasmsimd,
     as_f32_top_k__wasmsimd, as_f32_sum_exp__wasmsimd, as_i8_matvec_q32__wasmsimd,
     as_f32_matvec_p24_batch__wasmsimd, as_i8_matvec_q32_batch__wasmsimd, as_f32_block_layer_norm__wasmsimd},
#endif
};
#define N_VARIANTS (sizeof variants / sizeof variants[0])

/* ---- tests -------------------------------------------------------------- */

/* Error normalised by the sum of |terms|, ggml style: independent of
 * cancellation in the exact result. */
static void test_matvec(const variant *v, int dot_form) {
    report r = {dot_form ? "dot_scores" : "matvec", v->name, 0, 2e-6, 0, 0};
    for (size_t ri = 0; ri < N_LENGTHS; ri++) {
        for (size_t ci = 0; ci < N_LENGTHS; ci++) {
            const size_t rows = lengths[ri], cols = lengths[ci];
            float *w = malloc(rows * cols * sizeof(float)), *x = malloc(cols * sizeof(float));
            float *b = malloc(rows * sizeof(float));
            float *y = out_buffer(rows);
            fill(w, rows * cols, -1, 1);
            fill(x, cols, -2, 2);
            fill(b, rows, -1, 1);
            const int with_bias = !dot_form && (ci % 2 == 0);
            if (dot_form) v->dot_scores(rows, cols, w, x, y);
            else v->matvec(rows, cols, w, x, with_bias ? b : NULL, y);
            note_canary(&r, y, rows);
            for (size_t i = 0; i < rows; i++) {
                double ref = with_bias ? b[i] : 0.0, mag = with_bias ? fabs(b[i]) : 0.0;
                for (size_t c = 0; c < cols; c++) {
                    ref += (double)w[i * cols + c] * x[c];
                    mag += fabs((double)w[i * cols + c] * x[c]);
                }
                note(&r, fabs(y[i] - ref) / (mag + 1e-30));
            }
            free(w); free(x); free(b); free(y);
        }
    }
    finish(&r);
}

/* The p24 matvec: W packed by as_f32_pack_p24, checked against the
 * row-major original. Row counts around the panel height (24) and its
 * multiples, and tails of every width 1..23. */
static const size_t p24_rows[] = {1, 3, 4, 5, 8, 16, 20, 23, 24, 25, 28, 47, 48, 49, 71, 72, 73, 100, 256, 257};
#define N_P24_ROWS (sizeof p24_rows / sizeof p24_rows[0])

static float *packed_copy(const float *w, size_t rows, size_t cols) {
    float *p = malloc((rows * cols > 0 ? rows * cols : 1) * sizeof(float));
    if (!p || (memcpy(p, w, rows * cols * sizeof(float)), as_f32_pack_p24(rows, cols, p)) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static void test_matvec_p24(const variant *v) {
    report r = {"matvec_p24", v->name, 0, 2e-6, 0, 0};
    for (size_t ri = 0; ri < N_P24_ROWS; ri++) {
        for (size_t ci = 0; ci < N_LENGTHS; ci += 2) {
            const size_t rows = p24_rows[ri], cols = lengths[ci];
            float *w = malloc(rows * cols * sizeof(float)), *x = malloc(cols * sizeof(float));
            float *b = malloc(rows * sizeof(float));
            float *y = out_buffer(rows);
            fill(w, rows * cols, -1, 1);
            fill(x, cols, -2, 2);
            fill(b, rows, -1, 1);
            const int with_bias = (ri + ci) % 2 == 0;
            float *packed = packed_copy(w, rows, cols);
            v->matvec_p24(rows, cols, packed, x, with_bias ? b : NULL, y);
            note_canary(&r, y, rows);
            for (size_t i = 0; i < rows; i++) {
                double ref = with_bias ? b[i] : 0.0, mag = with_bias ? fabs(b[i]) : 0.0;
                for (size_t c = 0; c < cols; c++) {
                    ref += (double)w[i * cols + c] * x[c];
                    mag += fabs((double)w[i * cols + c] * x[c]);
                }
                note(&r, fabs(y[i] - ref) / (mag + 1e-30));
            }
            free(w); free(x); free(b); free(y); free(packed);
        }
    }
    finish(&r);
}

/* The int8 matvec: q (row-major, -127..127, with rows at the extremes and
 * an all-zero row of scale 0) packed by as_i8_pack_q32, checked against the
 * double-precision product with the dequantised weights scale[r] * q (f32,
 * as models/FORMAT.md 3.1 defines them). Row counts around the panel height
 * (32), its half (the SIMD tail's 16-row pass) and multiples. */
static const size_t q32_rows[] = {1, 3, 4, 5, 15, 16, 17, 20, 31, 32, 33, 47, 48, 63, 64, 65, 100, 256, 257};
#define N_Q32_ROWS (sizeof q32_rows / sizeof q32_rows[0])

typedef struct {
    int8_t *q, *packed;
    float *scale;
} i8_matrix;

static i8_matrix i8_random(size_t rows, size_t cols) {
    i8_matrix m;
    m.q = malloc(rows * cols > 0 ? rows * cols : 1);
    m.packed = malloc(rows * cols > 0 ? rows * cols : 1);
    m.scale = malloc(rows * sizeof(float));
    if (!m.q || !m.packed || !m.scale) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t r = 0; r < rows; r++) {
        m.scale[r] = uniform(1e-4f, 0.05f);
        for (size_t c = 0; c < cols; c++) {
            int v = (int)uniform(-127.0f, 128.0f);
            if (v > 127) v = 127;
            if (r % 7 == 1) v = (c % 2) ? 127 : -127; /* extremes */
            if (r % 11 == 5) v = 0;                   /* an all-zero row ... */
            m.q[r * cols + c] = (int8_t)v;
        }
        if (r % 11 == 5) m.scale[r] = 0.0f;          /* ... has scale 0 */
    }
    memcpy(m.packed, m.q, rows * cols);
    if (as_i8_pack_q32(rows, cols, m.packed) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return m;
}

static void i8_free(i8_matrix *m) {
    free(m->q); free(m->packed); free(m->scale);
}

/* The error is measured against the bound the kernel promises (kernels.h):
 * the int16 input quantisation moves each x[c] by at most half a step,
 * sx / 2 with sx = max|x| / L, L = min(32767, (2^31 - 1) / (127 cols)), so
 * |y - ref| <= sum_c |w_rc| sx / 2, plus f32 rounding of the final scaling
 * (4e-6 of sum |w x|). Reported as error / bound; tol 1. */
static void test_i8_matvec_q32(const variant *v) {
    report r = {"i8_matvec_q32", v->name, 0, 1.0, 0, 0};
    for (size_t ri = 0; ri < N_Q32_ROWS; ri++) {
        for (size_t ci = 0; ci < N_LENGTHS; ci += 2) {
            const size_t rows = q32_rows[ri], cols = lengths[ci];
            i8_matrix m = i8_random(rows, cols);
            float *x = malloc(cols * sizeof(float)), *b = malloc(rows * sizeof(float));
            float *y = out_buffer(rows);
            fill(x, cols, -2, 2);
            fill(b, rows, -1, 1);
            const int with_bias = (ri + ci) % 2 == 0;
            v->i8_matvec_q32(rows, cols, m.packed, m.scale, x, with_bias ? b : NULL, y);
            note_canary(&r, y, rows);
            double amax = 0.0;
            for (size_t c = 0; c < cols; c++) amax = fmax(amax, fabs((double)x[c]));
            const long room = 2147483647L / (127L * (long)cols);
            const double half_step = 0.5 * amax / (double)(room < 32767 ? room : 32767);
            for (size_t i = 0; i < rows; i++) {
                double ref = with_bias ? b[i] : 0.0, mag = with_bias ? fabs(b[i]) : 0.0, wsum = 0.0;
                for (size_t c = 0; c < cols; c++) {
                    const float w = m.scale[i] * (float)m.q[i * cols + c]; /* dequantised */
                    ref += (double)w * x[c];
                    mag += fabs((double)w * x[c]);
                    wsum += fabs((double)w);
                }
                note(&r, fabs(y[i] - ref) / (wsum * half_step * 1.0001 + 4e-6 * mag + 1e-30));
            }
            i8_free(&m);
            free(x); free(b); free(y);
        }
    }
    finish(&r);
}

/* Row maxima below 2^-64, where as_i8_quantise_input scales the row by 2^64
 * before quantising (kernels_scalar.c): the smallest subnormal, subnormals,
 * normal maxima below levels / FLT_MAX ~ 2^-113 (levels / amax was +inf
 * there, 0 * inf NaN reached the int16 cast), and both sides of 2^-64. */
static const float tiny_maxima[] = {0x1p-149f, 0x1p-140f, 1e-40f, 0x1p-127f, 0x1p-126f, 0x1p-120f,
                                    0x1p-114f, 0x1p-100f, 0x1p-65f, 0x1p-64f};
#define N_TINY (sizeof tiny_maxima / sizeof tiny_maxima[0])

/* x (cols): largest |x| exactly amax (at cols / 2), the rest spread over
 * [-amax, amax], every third value 0 (the 0 * inf = NaN case). */
static void tiny_row(float *x, size_t cols, float amax) {
    for (size_t c = 0; c < cols; c++) x[c] = c % 3 == 0 ? 0.0f : amax * uniform(-1.0f, 1.0f);
    x[cols / 2] = -amax;
}

static float q32_levels(size_t cols) {
    const long room = 2147483647L / (127L * (long)cols);
    return (float)(room < 32767 ? room : 32767);
}

/* The shared int16 quantisation on tiny rows: xq must be what the plain path
 * gives for the same row times 2^100 (exact; its maximum is >= 2^-49), within
 * 1 of round(x / amax * L) in double, sx = amax / L, and nothing written past
 * xq (cols) (int16 canaries). */
static void test_i8_quantise_tiny(void) {
    report r = {"i8_quantise_tiny", "shared", 0, 0.0, 0, 0};
    static const size_t tiny_cols[] = {1, 2, 7, 33, 257};
    const int16_t canary = 0x7EAD;
    for (size_t ai = 0; ai < N_TINY; ai++) {
        for (size_t ci = 0; ci < sizeof tiny_cols / sizeof tiny_cols[0]; ci++) {
            const size_t cols = tiny_cols[ci];
            const float amax = tiny_maxima[ai], levels = q32_levels(cols);
            float x[257], big[257];
            int16_t xq[257 + CANARY_COUNT], xb[257];
            tiny_row(x, cols, amax);
            for (size_t c = 0; c < cols; c++) big[c] = x[c] * 0x1p100f;
            for (size_t c = 0; c < CANARY_COUNT; c++) xq[cols + c] = canary;
            const float sx = as_i8_quantise_input(cols, x, xq);
            (void)as_i8_quantise_input(cols, big, xb);
            note(&r, memcmp(xq, xb, cols * sizeof *xq) == 0 ? 0.0 : 1.0);
            note(&r, sx == amax / levels ? 0.0 : 1.0);
            for (size_t c = 0; c < cols; c++)
                note(&r, fabs(xq[c] - nearbyint((double)x[c] / amax * levels)) <= 1.0 ? 0.0 : 1.0);
            for (size_t c = 0; c < CANARY_COUNT; c++)
                if (xq[cols + c] != canary) r.canary_failures++;
        }
    }
    finish(&r);
}

/* The product of each variant on tiny rows, against the double reference
 * with the bound of test_i8_matvec_q32 plus the rounding of the subnormal
 * factor scale[r] * sx (absolute error <= 2^-149 times |acc| <= L sum|q|). */
static void test_i8_matvec_q32_tiny(const variant *v) {
    report r = {"i8_q32_tiny", v->name, 0, 1.0, 0, 0};
    const size_t rows = 40, cols = 33;
    i8_matrix m = i8_random(rows, cols);
    float x[33], b[40];
    float *y = out_buffer(rows);
    fill(b, rows, -1, 1);
    for (size_t ai = 0; ai < 2 * N_TINY; ai++) {
        const float amax = tiny_maxima[ai % N_TINY], levels = q32_levels(cols);
        const int with_bias = ai >= N_TINY;
        tiny_row(x, cols, amax);
        v->i8_matvec_q32(rows, cols, m.packed, m.scale, x, with_bias ? b : NULL, y);
        note_canary(&r, y, rows);
        const double half_step = 0.5 * amax / levels;
        for (size_t i = 0; i < rows; i++) {
            double ref = with_bias ? b[i] : 0.0, mag = with_bias ? fabs(b[i]) : 0.0, wsum = 0.0, qsum = 0.0;
            for (size_t c = 0; c < cols; c++) {
                const float w = m.scale[i] * (float)m.q[i * cols + c];
                ref += (double)w * x[c];
                mag += fabs((double)w * x[c]);
                wsum += fabs((double)w);
                qsum += abs(m.q[i * cols + c]);
            }
            const double bound = wsum * half_step * 1.0001 + 4e-6 * mag + qsum * levels * 0x1p-149 + 0x1p-149;
            note(&r, isfinite(y[i]) ? fabs(y[i] - ref) / bound : NAN);
        }
    }
    i8_free(&m);
    free(y);
    finish(&r);
}

/* The int8 product's input edge cases: an all-zero x gives exactly b (or 0),
 * a non-finite x gives NaN in every row (never a silently wrong number). */
static void test_i8_matvec_q32_edges(const variant *v) {
    report r = {"i8_q32_edges", v->name, 0, 0.0, 0, 0};
    const size_t rows = 40, cols = 33;
    i8_matrix m = i8_random(rows, cols);
    float x[33], b[40];
    float *y = out_buffer(rows);
    fill(b, rows, -1, 1);
    for (size_t c = 0; c < cols; c++) x[c] = 0.0f;
    v->i8_matvec_q32(rows, cols, m.packed, m.scale, x, b, y);
    for (size_t i = 0; i < rows; i++) note(&r, y[i] == b[i] ? 0.0 : 1.0);
    x[7] = INFINITY;
    v->i8_matvec_q32(rows, cols, m.packed, m.scale, x, b, y);
    for (size_t i = 0; i < rows; i++) note(&r, isnan(y[i]) ? 0.0 : 1.0);
    note_canary(&r, y, rows);
    i8_free(&m);
    free(y);
    finish(&r);
}

/* The batched products must give each y_j bit for bit what the single
 * product gives for x_j, leave the gaps between strided outputs alone, and
 * handle counts around the int8 quantisation block (AS_Q32_BATCH) and
 * count 0. Error = number of differing or overwritten values. */
static void test_batches(const variant *v) {
    report r = {"matvec_batches", v->name, 0, 0.0, 0, 0};
    static const size_t shapes[][3] = {{24, 8, 1}, {50, 33, 17}, {96, 128, 3}, {33, 64, 0},
                                       {64, 65, 40}, {7, 5, 16}, {100, 256, 33}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const size_t rows = shapes[si][0], cols = shapes[si][1], count = shapes[si][2];
        const size_t x_stride = cols + 2, y_stride = rows + 3;
        float *w = malloc(rows * cols * sizeof(float)), *b = malloc(rows * sizeof(float));
        float *x = malloc((count * x_stride + 1) * sizeof(float));
        float *y = out_buffer(count * y_stride), *single = out_buffer(rows);
        fill(w, rows * cols, -1, 1);
        fill(b, rows, -1, 1);
        fill(x, count * x_stride + 1, -2, 2);
        for (size_t i = 0; i < count * y_stride; i++) memcpy(y + i, &CANARY_BITS, 4);
        float *packed = packed_copy(w, rows, cols);
        i8_matrix m = i8_random(rows, cols);
        for (int kind = 0; kind < 2; kind++) {
            const float *bias = (si + kind) % 2 ? b : NULL;
            if (kind == 0) v->matvec_p24_batch(rows, cols, packed, count, x, x_stride, bias, y, y_stride);
            else v->i8_matvec_q32_batch(rows, cols, m.packed, m.scale, count, x, x_stride, bias, y, y_stride);
            for (size_t j = 0; j < count; j++) {
                if (kind == 0) v->matvec_p24(rows, cols, packed, x + j * x_stride, bias, single);
                else v->i8_matvec_q32(rows, cols, m.packed, m.scale, x + j * x_stride, bias, single);
                for (size_t i = 0; i < rows; i++)
                    note(&r, memcmp(&single[i], &y[j * y_stride + i], 4) == 0 ? 0.0 : 1.0);
                for (size_t i = rows; i < y_stride; i++) /* the gap after y_j */
                    note(&r, memcmp(&y[j * y_stride + i], &CANARY_BITS, 4) == 0 ? 0.0 : 1.0);
            }
            note_canary(&r, y, count * y_stride);
            r.checks++;
        }
        i8_free(&m);
        free(w); free(b); free(x); free(y); free(single); free(packed);
    }
    finish(&r);
}

/* top_k against a selection by the definition (value desc, index asc), on
 * values with many ties (a coarse grid) and on distinct ones; the list is
 * written in place, so canaries guard ids[k..]. Error = count of wrong ids. */
static void test_top_k(const variant *v) {
    report r = {"top_k", v->name, 0, 0.0, 0, 0};
    static const int32_t ks[] = {1, 2, 5, 16};
    static const size_t ns[] = {1, 3, 5, 15, 16, 17, 31, 33, 64, 100, 257, 8000};
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        const size_t n = ns[ni];
        float *x = malloc(n * sizeof(float));
        for (int ties = 0; ties < 2; ties++) {
            fill(x, n, -10, 10);
            if (ties) for (size_t i = 0; i < n; i++) x[i] = (float)(int)(x[i] * 0.3f); /* few distinct values */
            if (n > 40 && !ties) x[n - 1] = 11.0f, x[n / 2] = 11.0f; /* a late winner, tied */
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
                const int32_t k = ks[ki];
                const size_t held = (size_t)k < n ? (size_t)k : n;
                int32_t *ids = malloc((held + CANARY_COUNT) * sizeof(int32_t));
                for (size_t i = 0; i < held + CANARY_COUNT; i++) memcpy(ids + i, &CANARY_BITS, 4);
                v->top_k(n, x, k, ids);
                for (size_t i = held; i < held + CANARY_COUNT; i++)
                    if (memcmp(ids + i, &CANARY_BITS, 4) != 0) r.canary_failures++;
                /* the reference: repeatedly the best not yet taken */
                unsigned char *taken = calloc(n, 1);
                for (size_t j = 0; j < held; j++) {
                    size_t best = n;
                    for (size_t i = 0; i < n; i++)
                        if (!taken[i] && (best == n || x[i] > x[best])) best = i;
                    taken[best] = 1;
                    note(&r, ids[j] == (int32_t)best ? 0.0 : 1.0);
                }
                free(taken);
                free(ids);
            }
        }
        free(x);
    }
    finish(&r);
}

static void test_sum_exp(const variant *v) {
    /* f32 running sums over up to ~8000 terms: n * eps / 4 per partial sum */
    report r = {"sum_exp", v->name, 0, 2e-6, 0, 0};
    for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t n = lengths[li] * 31 + 1; /* up to ~8000, the vocabulary */
        float *x = malloc(n * sizeof(float));
        fill(x, n, -30, 30);
        float m = x[0];
        for (size_t i = 1; i < n; i++) if (x[i] > m) m = x[i];
        const float got = v->sum_exp(n, x, m);
        double ref = 0;
        for (size_t i = 0; i < n; i++) ref += exp((double)x[i] - m);
        note(&r, fabs(got - ref) / ref);
        free(x);
    }
    finish(&r);
}

static void test_additive(const variant *v) {
    report r = {"additive_scores", v->name, 0, 2e-6, 0, 0};
    for (size_t si = 0; si < N_LENGTHS; si++) {
        for (size_t ai = 0; ai < N_LENGTHS; ai += (si % 3) + 1) {
            const size_t s = lengths[si], a = lengths[ai];
            float *keys = malloc(s * a * sizeof(float)), *q = malloc(a * sizeof(float));
            float *vv = malloc(a * sizeof(float)), *e = out_buffer(s);
            fill(keys, s * a, -3, 3);
            fill(q, a, -3, 3);
            fill(vv, a, -1, 1);
            v->additive_scores(s, a, keys, q, vv, e);
            note_canary(&r, e, s);
            for (size_t j = 0; j < s; j++) {
                double ref = 0, mag = 0;
                for (size_t i = 0; i < a; i++) {
                    double t = tanh((double)q[i] + (double)keys[j * a + i]);
                    ref += vv[i] * t;
                    mag += fabs(vv[i] * t) + fabs((double)vv[i]) * 1e-3; /* floor for t ~ 0 */
                }
                note(&r, fabs(e[j] - ref) / (mag + 1e-30));
            }
            free(keys); free(q); free(vv); free(e);
        }
    }
    finish(&r);
}

static void check_softmax(report *r, const variant *v, const float *x, size_t n, float scale) {
    float *y = out_buffer(n);
    v->softmax(n, x, scale, y);
    note_canary(r, y, n);
    double m = -INFINITY, sum = 0, ysum = 0;
    for (size_t i = 0; i < n; i++) if ((double)scale * x[i] > m) m = (double)scale * x[i];
    for (size_t i = 0; i < n; i++) sum += exp((double)scale * x[i] - m);
    for (size_t i = 0; i < n; i++) {
        double ref = exp((double)scale * x[i] - m) / sum;
        /* absolute error, plus relative error for the entries that matter */
        note(r, fabs(y[i] - ref) / (ref > 1e-6 ? ref : 1e-6));
        ysum += y[i];
    }
    note(r, fabs(ysum - 1.0));
    /* in place (the engine never does this, but the contract allows it) */
    float *z = out_buffer(n);
    memcpy(z, x, n * sizeof(float));
    v->softmax(n, z, scale, z);
    note_canary(r, z, n);
    for (size_t i = 0; i < n; i++) note(r, fabs(z[i] - y[i]) > 0 ? 1.0 : 0.0);
    free(y);
    free(z);
}

static void test_softmax(const variant *v) {
    report r = {"softmax", v->name, 0, 2e-6, 0, 0};
    static const float scales[] = {1.0f, 0.0625f, 4.0f};
    for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t n = lengths[li];
        float *x = malloc(n * sizeof(float));
        for (size_t si = 0; si < 3; si++) {
            fill(x, n, -5, 5);
            check_softmax(&r, v, x, n, scales[si]);
        }
        fill(x, n, -80, 80); /* large logits: must not overflow */
        check_softmax(&r, v, x, n, 1.0f);
        for (size_t i = 0; i < n; i++) x[i] = (i % 2) ? 80.0f : -80.0f;
        check_softmax(&r, v, x, n, 1.0f);
        memset(x, 0, n * sizeof(float)); /* zeros: uniform */
        check_softmax(&r, v, x, n, 1.0f);
        for (size_t i = 0; i < n; i++) x[i] = 3.25f; /* identical scores */
        check_softmax(&r, v, x, n, 2.0f);
        for (size_t i = 0; i < n; i++) x[i] = i == n / 2 ? 1000.0f : 0.0f; /* one-hot */
        check_softmax(&r, v, x, n, 1.0f);
        /* scale * x overflows f32 (1e41): the kernel must still give finite
         * weights (regression: it once computed inf - inf = NaN). */
        for (size_t i = 0; i < n; i++) x[i] = (i % 3) ? -1e35f : 1e35f;
        check_softmax(&r, v, x, n, 1e6f);
        free(x);
    }
    finish(&r);
}

/* The masked softmax against a double-precision softmax over the kept
 * entries: dropped entries exactly +0, the kept ones within 2e-6
 * (relative, as the plain softmax), the kept sum 1; in place the same bits;
 * an all-ones mask the plain softmax's bits. */
static void check_softmax_masked(report *r, const variant *v, const float *x, const uint8_t *keep, size_t n,
                                 float scale) {
    float *y = out_buffer(n);
    v->softmax_masked(n, x, keep, scale, y);
    note_canary(r, y, n);
    double m = -INFINITY, sum = 0, ysum = 0;
    for (size_t i = 0; i < n; i++) if (keep[i] && (double)scale * x[i] > m) m = (double)scale * x[i];
    for (size_t i = 0; i < n; i++) if (keep[i]) sum += exp((double)scale * x[i] - m);
    for (size_t i = 0; i < n; i++) {
        if (!keep[i]) {
            note(r, y[i] == 0.0f && !signbit(y[i]) ? 0.0 : 1.0);
            continue;
        }
        const double ref = exp((double)scale * x[i] - m) / sum;
        note(r, fabs(y[i] - ref) / (ref > 1e-6 ? ref : 1e-6));
        ysum += y[i];
    }
    note(r, fabs(ysum - 1.0));
    float *z = out_buffer(n);
    memcpy(z, x, n * sizeof(float));
    v->softmax_masked(n, z, keep, scale, z);
    note_canary(r, z, n);
    for (size_t i = 0; i < n; i++) note(r, memcmp(&z[i], &y[i], 4) == 0 ? 0.0 : 1.0);
    free(y);
    free(z);
}

static void test_softmax_masked(const variant *v) {
    report r = {"softmax_masked", v->name, 0, 2e-6, 0, 0};
    for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t n = lengths[li];
        float *x = malloc(n * sizeof(float)), *y = out_buffer(n), *z = out_buffer(n);
        uint8_t *keep = malloc(n);
        /* random masks of three densities, each with at least one kept entry */
        static const float densities[] = {0.1f, 0.5f, 0.9f};
        for (size_t di = 0; di < 3; di++) {
            fill(x, n, -5, 5);
            for (size_t i = 0; i < n; i++) keep[i] = uniform(0, 1) < densities[di];
            keep[(size_t)uniform(0, (float)n) % n] = 1;
            check_softmax_masked(&r, v, x, keep, n, di == 1 ? 0.0625f : 1.0f);
        }
        /* one kept entry: exactly 1 there, wherever it is */
        fill(x, n, -80, 80);
        for (size_t at = 0; at < n; at += (n > 9 ? n / 7 : 1)) {
            memset(keep, 0, n);
            keep[at] = 1;
            v->softmax_masked(n, x, keep, 1.0f, y);
            note_canary(&r, y, n);
            for (size_t i = 0; i < n; i++) note(&r, y[i] == (i == at ? 1.0f : 0.0f) ? 0.0 : 1.0);
        }
        /* the maximum dropped, the kept scores 1e4 below it: zeroing the
         * full softmax's weights would leave 0 / 0 here */
        for (size_t i = 0; i < n; i++) {
            x[i] = i == n / 2 ? 1e4f : uniform(-3, 3);
            keep[i] = i != n / 2 || n == 1;
        }
        check_softmax_masked(&r, v, x, keep, n, 1.0f);
        /* dropped entries that are inf, NaN or huge change nothing */
        for (size_t i = 0; i < n; i++) {
            keep[i] = i % 3 != 1 || n == 1;
            x[i] = keep[i] ? uniform(-5, 5) : (i % 2 ? INFINITY : NAN);
        }
        check_softmax_masked(&r, v, x, keep, n, 4.0f);
        /* scale * x overflows f32 on the kept entries too: still finite */
        for (size_t i = 0; i < n; i++) {
            x[i] = (i % 3) ? -1e35f : 1e35f;
            keep[i] = i % 2 == 0;
        }
        check_softmax_masked(&r, v, x, keep, n, 1e6f);
        /* every entry kept: the plain softmax's bits */
        fill(x, n, -20, 20);
        memset(keep, 1, n);
        v->softmax_masked(n, x, keep, 0.5f, y);
        v->softmax(n, x, 0.5f, z);
        for (size_t i = 0; i < n; i++) note(&r, memcmp(&y[i], &z[i], 4) == 0 ? 0.0 : 1.0);
        /* nothing kept (a contract breach the engine never makes): zeros */
        memset(keep, 0, n);
        v->softmax_masked(n, x, keep, 1.0f, y);
        note_canary(&r, y, n);
        for (size_t i = 0; i < n; i++) note(&r, y[i] == 0.0f ? 0.0 : 1.0);
        free(x); free(y); free(z); free(keep);
    }
    finish(&r);
}

static void test_context(const variant *v) {
    report r = {"context", v->name, 0, 2e-6, 0, 0};
    for (size_t si = 0; si < N_LENGTHS; si++) {
        for (size_t di = 0; di < N_LENGTHS; di++) {
            const size_t s = lengths[si], d = lengths[di];
            float *alpha = malloc(s * sizeof(float)), *h = malloc(s * d * sizeof(float));
            float *c = out_buffer(d);
            fill(alpha, s, 0, 1);
            fill(h, s * d, -1, 1);
            v->context(s, d, alpha, h, c);
            note_canary(&r, c, d);
            for (size_t i = 0; i < d; i++) {
                double ref = 0, mag = 0;
                for (size_t j = 0; j < s; j++) {
                    ref += (double)alpha[j] * h[j * d + i];
                    mag += fabs((double)alpha[j] * h[j * d + i]);
                }
                note(&r, fabs(c[i] - ref) / (mag + 1e-30));
            }
            free(alpha); free(h); free(c);
        }
    }
    finish(&r);
}

/* tanh over a dense sweep, the tiny range, and far outside the clamp. */
static void test_tanh(const variant *v) {
    report r = {"tanh", v->name, 0, 6e-7, 0, 0};
    const size_t n = 40001;
    float *x = malloc((n + 12) * sizeof(float)), *y = out_buffer(n + 12);
    for (size_t i = 0; i < n; i++) x[i] = -10.0f + 20.0f * (float)i / (float)(n - 1);
    const float extra[12] = {0.0f, -0.0f, 1e-30f, -1e-8f, 3.9e-4f, 4.1e-4f, -4.1e-4f, 7.9f, -7.95f, 30.0f, -100.0f, 1e30f};
    memcpy(x + n, extra, sizeof extra);
    v->tanh_(n + 12, x, y);
    note_canary(&r, y, n + 12);
    for (size_t i = 0; i < n + 12; i++) {
        double ref = tanh((double)x[i]);
        note(&r, fabs(y[i] - ref) / (fabs(ref) > 1e-30 ? fabs(ref) : 1e-30));
    }
    /* lengths: tails of every size */
    for (size_t li = 0; li < N_LENGTHS; li++) {
        float *z = out_buffer(lengths[li]);
        v->tanh_(lengths[li], x + 19000, z);
        note_canary(&r, z, lengths[li]);
        free(z);
    }
    free(x); free(y);
    finish(&r);
}

static void test_exp(const variant *v) {
    report r = {"exp", v->name, 0, 4e-7, 0, 0};
    const size_t n = 35001;
    float *x = malloc(n * sizeof(float)), *y = out_buffer(n);
    for (size_t i = 0; i < n; i++) x[i] = -87.0f + 175.0f * (float)i / (float)(n - 1);
    v->exp_(n, x, y);
    note_canary(&r, y, n);
    for (size_t i = 0; i < n; i++) {
        double ref = exp((double)x[i]);
        note(&r, fabs(y[i] - ref) / ref);
    }
    free(x); free(y);
    finish(&r);
}

static void test_gru(const variant *v) {
    report r = {"gru_update", v->name, 0, 2e-6, 0, 0};
    for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t hd = lengths[li];
        float *gi = malloc(3 * hd * sizeof(float)), *gh = malloc(3 * hd * sizeof(float));
        float *h0 = malloc(hd * sizeof(float)), *h = out_buffer(hd);
        fill(gi, 3 * hd, -4, 4);
        fill(gh, 3 * hd, -4, 4);
        fill(h0, hd, -1, 1);
        memcpy(h, h0, hd * sizeof(float));
        v->gru_update(hd, gi, gh, h);
        note_canary(&r, h, hd);
        for (size_t i = 0; i < hd; i++) {
            double rr = 1.0 / (1.0 + exp(-((double)gi[i] + gh[i])));
            double z = 1.0 / (1.0 + exp(-((double)gi[hd + i] + gh[hd + i])));
            double nn = tanh((double)gi[2 * hd + i] + rr * gh[2 * hd + i]);
            double ref = (1.0 - z) * nn + z * h0[i];
            note(&r, fabs(h[i] - ref));
        }
        free(gi); free(gh); free(h0); free(h);
    }
    finish(&r);
}

/* Layer normalisation, block by block, against a double-precision two-pass
 * reference: 1, 2 and 3 blocks of every length, inputs with a large common
 * offset (where a one-pass E[x^2] - E[x]^2 would lose every digit) and a
 * constant block (variance 0: the epsilon alone keeps it finite, and the
 * result is exactly the shift). Error relative to max(1, |ref|), in units of
 * the block's conditioning (below). */
static void test_block_layer_norm(const variant *v) {
    report r = {"block_layer_norm", v->name, 0, 2e-6, 0, 0};
    for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t size = lengths[li];
        for (size_t blocks = 1; blocks <= 3; blocks++) {
            for (int kind = 0; kind < 3; kind++) {
                const size_t n = blocks * size;
                float *x0 = malloc(n * sizeof(float)), *g = malloc(n * sizeof(float)), *t = malloc(n * sizeof(float));
                float *x = out_buffer(n);
                fill(x0, n, -3, 3);
                if (kind == 1) for (size_t i = 0; i < n; i++) x0[i] += 100.0f;
                if (kind == 2) for (size_t i = 0; i < n; i++) x0[i] = 0.75f;
                fill(g, n, -2, 2);
                fill(t, n, -1, 1);
                memcpy(x, x0, n * sizeof(float));
                v->block_layer_norm(blocks, size, x, g, t);
                note_canary(&r, x, n);
                for (size_t b = 0; b < blocks; b++) {
                    const float *in = x0 + b * size;
                    double mean = 0, var = 0;
                    for (size_t i = 0; i < size; i++) mean += in[i];
                    mean /= (double)size;
                    for (size_t i = 0; i < size; i++) var += (in[i] - mean) * (in[i] - mean);
                    var /= (double)size;
                    /* x - mean loses what the inputs' rounding (relative to
                     * max|x|) is worth against their spread: an offset of 100
                     * on a spread of 1.7 leaves 6 bits fewer, in any float32
                     * computation, so the error is measured in those units */
                    double largest = 0;
                    for (size_t i = 0; i < size; i++) largest = fmax(largest, fabs(in[i]));
                    const double condition = fmax(1.0, largest / sqrt(var + (double)AS_LAYER_NORM_EPSILON));
                    for (size_t i = 0; i < size; i++) {
                        const size_t k = b * size + i;
                        const double ref = (in[i] - mean) / sqrt(var + (double)AS_LAYER_NORM_EPSILON) * g[k] + t[k];
                        if (kind == 2) note(&r, x[k] == t[k] ? 0.0 : 1.0); /* 0 * inv * g + t: t exactly */
                        else note(&r, fabs(x[k] - ref) / (fmax(1.0, fabs(ref)) * condition));
                    }
                }
                free(x0); free(g); free(t); free(x);
            }
        }
    }
    finish(&r);
}

/* SIMD and scalar twins on the same inputs: they may differ only by
 * summation order (elementwise kernels are designed to agree exactly). */
static void test_twins(void) {
#if defined(__wasm_simd128__) || defined(AS_SIMD128_SHIM)
    const variant *a = &variants[0], *b = &variants[1];
    report m = {"twin:matvec", "simd-scal", 0, 2e-6, 0, 0};
    report e = {"twin:elementwise", "simd-scal", 0, 0.0, 0, 0};
    for (size_t ri = 0; ri < N_LENGTHS; ri++) {
        const size_t rows = lengths[ri], cols = lengths[N_LENGTHS - 1 - ri];
        float *w = malloc(rows * cols * sizeof(float)), *x = malloc(cols * sizeof(float));
        float *y1 = out_buffer(rows), *y2 = out_buffer(rows);
        fill(w, rows * cols, -1, 1);
        fill(x, cols, -1, 1);
        a->matvec(rows, cols, w, x, NULL, y1);
        b->matvec(rows, cols, w, x, NULL, y2);
        for (size_t i = 0; i < rows; i++) {
            double mag = 0;
            for (size_t c = 0; c < cols; c++) mag += fabs((double)w[i * cols + c] * x[c]);
            note(&m, fabs((double)y1[i] - y2[i]) / (mag + 1e-30));
        }
        free(w); free(x); free(y1); free(y2);

        const size_t n = lengths[ri];
        float *in = malloc(n * sizeof(float)), *t1 = out_buffer(n), *t2 = out_buffer(n);
        fill(in, n, -9, 9);
        a->tanh_(n, in, t1);
        b->tanh_(n, in, t2);
        for (size_t i = 0; i < n; i++) note(&e, fabs((double)t1[i] - t2[i]));
        fill(in, n, -80, 80);
        a->exp_(n, in, t1);
        b->exp_(n, in, t2);
        for (size_t i = 0; i < n; i++) note(&e, fabs((double)t1[i] - t2[i]) / t1[i]);
        free(in); free(t1); free(t2);
    }
    finish(&m);
    finish(&e);

    /* layer norm: the same lane sums and per-element operations, so exactly equal */
    report ln = {"twin:block_layer_norm", "simd-scal", 0, 0.0, 0, 0};
    for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t size = lengths[li], n = 3 * size;
        float *x1 = out_buffer(n), *x2 = out_buffer(n), *g = malloc(n * sizeof(float)), *t = malloc(n * sizeof(float));
        fill(x1, n, -5, 5);
        memcpy(x2, x1, n * sizeof(float));
        fill(g, n, -2, 2);
        fill(t, n, -1, 1);
        a->block_layer_norm(3, size, x1, g, t);
        b->block_layer_norm(3, size, x2, g, t);
        note_canary(&ln, x2, n);
        for (size_t i = 0; i < n; i++) note(&ln, memcmp(&x1[i], &x2[i], 4) == 0 ? 0.0 : 1.0);
        free(x1); free(x2); free(g); free(t);
    }
    finish(&ln);

    /* the masked softmax: the twins' sums run in different orders (as the
     * plain softmax's), so they agree to a few ulps, and on the dropped
     * entries (+0) exactly */
    report sm = {"twin:softmax_masked", "simd-scal", 0, 2e-6, 0, 0};
    for (size_t li = 0; li < N_LENGTHS; li++) {
        const size_t n = lengths[li];
        float *x = malloc(n * sizeof(float)), *y1 = out_buffer(n), *y2 = out_buffer(n);
        uint8_t *keep = malloc(n);
        for (int round = 0; round < 4; round++) {
            fill(x, n, -8, 8);
            for (size_t i = 0; i < n; i++) keep[i] = uniform(0, 1) < 0.25f * (float)(round + 1);
            keep[(size_t)uniform(0, (float)n) % n] = 1;
            a->softmax_masked(n, x, keep, 1.5f, y1);
            b->softmax_masked(n, x, keep, 1.5f, y2);
            note_canary(&sm, y2, n);
            for (size_t i = 0; i < n; i++)
                note(&sm, keep[i] ? fabs((double)y1[i] - y2[i]) / (y1[i] > 1e-6f ? y1[i] : 1e-6f)
                                  : (memcmp(&y1[i], &y2[i], 4) == 0 ? 0.0 : 1.0));
        }
        free(x); free(y1); free(y2); free(keep);
    }
    finish(&sm);

    /* p24: the same summation order in both twins, so exactly equal */
    report p = {"twin:matvec_p24", "simd-scal", 0, 0.0, 0, 0};
    for (size_t ri = 0; ri < N_P24_ROWS; ri++) {
        const size_t rows = p24_rows[ri], cols = lengths[(ri * 7) % N_LENGTHS];
        float *w = malloc(rows * cols * sizeof(float)), *x = malloc(cols * sizeof(float));
        float *bias = malloc(rows * sizeof(float)), *y1 = out_buffer(rows), *y2 = out_buffer(rows);
        fill(w, rows * cols, -1, 1);
        fill(x, cols, -1, 1);
        fill(bias, rows, -1, 1);
        float *packed = packed_copy(w, rows, cols);
        a->matvec_p24(rows, cols, packed, x, ri % 2 ? bias : NULL, y1);
        b->matvec_p24(rows, cols, packed, x, ri % 2 ? bias : NULL, y2);
        for (size_t i = 0; i < rows; i++) note(&p, y1[i] == y2[i] ? 0.0 : 1.0);
        free(w); free(x); free(bias); free(y1); free(y2); free(packed);
    }
    finish(&p);

    /* q32 int8: the same order in both twins, so exactly equal */
    report q = {"twin:i8_matvec_q32", "simd-scal", 0, 0.0, 0, 0};
    for (size_t ri = 0; ri < N_Q32_ROWS; ri++) {
        const size_t rows = q32_rows[ri], cols = lengths[(ri * 5) % N_LENGTHS];
        i8_matrix mat = i8_random(rows, cols);
        float *x = malloc(cols * sizeof(float)), *bias = malloc(rows * sizeof(float));
        float *y1 = out_buffer(rows), *y2 = out_buffer(rows);
        fill(x, cols, -1, 1);
        fill(bias, rows, -1, 1);
        a->i8_matvec_q32(rows, cols, mat.packed, mat.scale, x, ri % 2 ? bias : NULL, y1);
        b->i8_matvec_q32(rows, cols, mat.packed, mat.scale, x, ri % 2 ? bias : NULL, y2);
        for (size_t i = 0; i < rows; i++) note(&q, y1[i] == y2[i] ? 0.0 : 1.0);
        /* the batched form of both twins, 19 inputs (crosses AS_Q32_BATCH) */
        float *xs = malloc(19 * cols * sizeof(float)), *z1 = out_buffer(19 * rows), *z2 = out_buffer(19 * rows);
        fill(xs, 19 * cols, -1, 1);
        a->i8_matvec_q32_batch(rows, cols, mat.packed, mat.scale, 19, xs, cols, ri % 2 ? bias : NULL, z1, rows);
        b->i8_matvec_q32_batch(rows, cols, mat.packed, mat.scale, 19, xs, cols, ri % 2 ? bias : NULL, z2, rows);
        for (size_t i = 0; i < 19 * rows; i++) note(&q, memcmp(&z1[i], &z2[i], 4) == 0 ? 0.0 : 1.0);
        free(xs); free(z1); free(z2);
        i8_free(&mat);
        free(x); free(bias); free(y1); free(y2);
    }
    /* tiny row maxima (the scaled quantisation path), single and batched */
    {
        const size_t rows = 33, cols = 17;
        i8_matrix mat = i8_random(rows, cols);
        float xs[N_TINY * 17], *y1 = out_buffer(rows), *y2 = out_buffer(rows);
        float *z1 = out_buffer(N_TINY * rows), *z2 = out_buffer(N_TINY * rows);
        for (size_t ai = 0; ai < N_TINY; ai++) {
            tiny_row(xs + ai * cols, cols, tiny_maxima[ai]);
            a->i8_matvec_q32(rows, cols, mat.packed, mat.scale, xs + ai * cols, NULL, y1);
            b->i8_matvec_q32(rows, cols, mat.packed, mat.scale, xs + ai * cols, NULL, y2);
            for (size_t i = 0; i < rows; i++) note(&q, memcmp(&y1[i], &y2[i], 4) == 0 ? 0.0 : 1.0);
        }
        a->i8_matvec_q32_batch(rows, cols, mat.packed, mat.scale, N_TINY, xs, cols, NULL, z1, rows);
        b->i8_matvec_q32_batch(rows, cols, mat.packed, mat.scale, N_TINY, xs, cols, NULL, z2, rows);
        for (size_t i = 0; i < N_TINY * rows; i++) note(&q, memcmp(&z1[i], &z2[i], 4) == 0 ? 0.0 : 1.0);
        if (!canaries_ok(y1, rows) || !canaries_ok(y2, rows) || !canaries_ok(z1, N_TINY * rows) ||
            !canaries_ok(z2, N_TINY * rows))
            q.canary_failures++;
        i8_free(&mat);
        free(y1); free(y2); free(z1); free(z2);
    }
    finish(&q);
#endif
}

/* ---- the q8c4 layout and the relaxed-SIMD twins ------------------------ */

/* Row counts around the q8c4 panel (8) and its 4-row vectors, around the p24
 * panel (24) and its 4-row vectors; column counts are every entry of
 * `lengths` (around the 4-column quad, 8, 16, 32, ...). */
static const size_t q8c4_rows[] = {1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 64, 65, 100, 257};
#define N_Q8C4_ROWS (sizeof q8c4_rows / sizeof q8c4_rows[0])

/* A copy of m.q (row-major) packed into the q8c4 layout. */
static int8_t *q8c4_copy(const i8_matrix *m, size_t rows, size_t cols) {
    int8_t *p = malloc(rows * cols > 0 ? rows * cols : 1);
    if (!p || (memcpy(p, m->q, rows * cols), as_i8_pack_q8c4(rows, cols, p)) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

typedef void (*i8_batch_fn)(size_t, size_t, const int8_t *, const float *, size_t, const float *, size_t,
                            const float *, float *, size_t);

/* y of the q8c4 product `got` (its layout) against the q32 scalar twin on
 * the same weights: the same quantised input and exact integer sums, so the
 * same bits; single and batched (19 inputs, crossing AS_Q32_BATCH), with and
 * without bias, canaries after every output. Error = differing values. */
static void check_q8c4(report *r, i8_batch_fn got) {
    for (size_t ri = 0; ri < N_Q8C4_ROWS; ri++) {
        for (size_t ci = 0; ci < N_LENGTHS; ci++) {
            const size_t rows = q8c4_rows[ri], cols = lengths[ci], count = (ri + ci) % 3 ? 1 : 19;
            i8_matrix m = i8_random(rows, cols);
            int8_t *packed = q8c4_copy(&m, rows, cols);
            float *x = malloc(count * cols * sizeof(float)), *b = malloc(rows * sizeof(float));
            float *want = out_buffer(count * rows), *y = out_buffer(count * rows);
            fill(x, count * cols, -2, 2);
            fill(b, rows, -1, 1);
            if ((ri + ci) % 5 == 0) x[0] = 0.0f; /* a zero digit quad */
            const float *bias = (ri + ci) % 2 ? b : NULL;
            as_i8_matvec_q32_batch__scalar(rows, cols, m.packed, m.scale, count, x, cols, bias, want, rows);
            got(rows, cols, packed, m.scale, count, x, cols, bias, y, rows);
            for (size_t i = 0; i < count * rows; i++) note(r, memcmp(&want[i], &y[i], 4) == 0 ? 0.0 : 1.0);
            note_canary(r, y, count * rows);
            free(packed); free(x); free(b); free(want); free(y);
            i8_free(&m);
        }
    }
}

/* All-zero x gives exactly b; a non-finite x gives NaN rows (as q32). */
static void check_q8c4_edges(report *r, i8_batch_fn got) {
    const size_t rows = 21, cols = 19;
    i8_matrix m = i8_random(rows, cols);
    int8_t *packed = q8c4_copy(&m, rows, cols);
    float x[19], b[21];
    float *y = out_buffer(rows);
    fill(b, rows, -1, 1);
    for (size_t c = 0; c < cols; c++) x[c] = 0.0f;
    got(rows, cols, packed, m.scale, 1, x, 0, b, y, 0);
    for (size_t i = 0; i < rows; i++) note(r, y[i] == b[i] ? 0.0 : 1.0);
    x[18] = NAN;
    got(rows, cols, packed, m.scale, 1, x, 0, b, y, 0);
    for (size_t i = 0; i < rows; i++) note(r, isnan(y[i]) ? 0.0 : 1.0);
    note_canary(r, y, rows);
    /* tiny row maxima: the same bits as the q32 scalar twin */
    float *want = out_buffer(rows);
    for (size_t ai = 0; ai < N_TINY; ai++) {
        tiny_row(x, cols, tiny_maxima[ai]);
        as_i8_matvec_q32_batch__scalar(rows, cols, m.packed, m.scale, 1, x, 0, b, want, 0);
        got(rows, cols, packed, m.scale, 1, x, 0, b, y, 0);
        for (size_t i = 0; i < rows; i++) note(r, memcmp(&want[i], &y[i], 4) == 0 && isfinite(y[i]) ? 0.0 : 1.0);
        note_canary(r, y, rows);
    }
    free(want);
    free(packed); free(y);
    i8_free(&m);
}

static void test_q8c4_scalar(void) {
    report r = {"i8_matvec_q8c4", "scalar", 0, 0.0, 0, 0};
    check_q8c4(&r, as_i8_matvec_q8c4_batch__scalar);
    check_q8c4_edges(&r, as_i8_matvec_q8c4_batch__scalar);
    finish(&r);
}

#if defined(__wasm_relaxed_simd__)
static void test_relaxed(void) {
    /* int8: bit for bit the scalar twins (kernels.h: exact integer sums) */
    report q = {"twin:i8_matvec_q8c4", "relx-scal", 0, 0.0, 0, 0};
    check_q8c4(&q, as_i8_matvec_q8c4_batch__wasmrelaxed);
    check_q8c4_edges(&q, as_i8_matvec_q8c4_batch__wasmrelaxed);
    finish(&q);

    /* f32 p24 with relaxed_madd against the scalar twin: error / the bound
     * of kernels.h, 2 gamma(cols + 1) (|b| + sum |w x|); tol 1. Single and
     * batched (the batch must equal the single product bit for bit). */
    report p = {"twin:matvec_p24", "relx-scal", 0, 1.0, 0, 0};
    report pb = {"matvec_p24_batch", "relaxed", 0, 0.0, 0, 0};
    double worst_ratio = 0.0;
    for (size_t ri = 0; ri < N_P24_ROWS; ri++) {
        for (size_t ci = 0; ci < N_LENGTHS; ci++) {
            const size_t rows = p24_rows[ri], cols = lengths[ci], count = 3;
            float *w = malloc(rows * cols * sizeof(float)), *x = malloc(count * cols * sizeof(float));
            float *b = malloc(rows * sizeof(float));
            float *want = out_buffer(rows), *y = out_buffer(rows), *z = out_buffer(count * rows);
            fill(w, rows * cols, -1, 1);
            fill(x, count * cols, -2, 2);
            fill(b, rows, -1, 1);
            const float *bias = (ri + ci) % 2 ? b : NULL;
            float *packed = packed_copy(w, rows, cols);
            as_f32_matvec_p24__scalar(rows, cols, packed, x, bias, want);
            as_f32_matvec_p24__wasmrelaxed(rows, cols, packed, x, bias, y);
            note_canary(&p, y, rows);
            const double u = 1.0 / 16777216.0, n = (double)cols + 1.0, gamma = n * u / (1.0 - n * u);
            for (size_t i = 0; i < rows; i++) {
                double mag = bias ? fabs(bias[i]) : 0.0;
                for (size_t c = 0; c < cols; c++) mag += fabs((double)w[i * cols + c] * x[c]);
                const double bound = 2.0 * gamma * mag, err = fabs((double)y[i] - want[i]);
                note(&p, err / (bound + 1e-30));
                if (err / (bound + 1e-30) > worst_ratio) worst_ratio = err / (bound + 1e-30);
            }
            as_f32_matvec_p24_batch__wasmrelaxed(rows, cols, packed, count, x, cols, bias, z, rows);
            for (size_t j = 0; j < count; j++) {
                as_f32_matvec_p24__wasmrelaxed(rows, cols, packed, x + j * cols, bias, y);
                for (size_t i = 0; i < rows; i++) note(&pb, memcmp(&y[i], &z[j * rows + i], 4) == 0 ? 0.0 : 1.0);
            }
            note_canary(&pb, z, count * rows);
            free(w); free(x); free(b); free(want); free(y); free(z); free(packed);
        }
    }
    finish(&p);
    finish(&pb);
    /* 0 where this machine computes relaxed_madd unfused (then the twins agree bit for bit) */
    printf("relaxed_madd: worst |relaxed - scalar| / bound = %.3e\n", worst_ratio);
}
#endif

int main(int argc, char **argv) {
    /* --tolerance-scale K multiplies every tolerance (0 makes the run fail,
     * which the JS test uses to prove the checks can fail). */
    if (argc == 3 && strcmp(argv[1], "--tolerance-scale") == 0) tol_scale = atof(argv[2]);
    printf("kernels_test: isa=%s variants=%d\n", AS_KERNEL_ISA, (int)N_VARIANTS);
    for (size_t i = 0; i < N_VARIANTS; i++) {
        test_matvec(&variants[i], 0);
        test_matvec(&variants[i], 1);
        test_matvec_p24(&variants[i]);
        test_i8_matvec_q32(&variants[i]);
        test_i8_matvec_q32_edges(&variants[i]);
        test_i8_matvec_q32_tiny(&variants[i]);
        test_batches(&variants[i]);
        test_top_k(&variants[i]);
        test_sum_exp(&variants[i]);
        test_additive(&variants[i]);
        test_softmax(&variants[i]);
        test_softmax_masked(&variants[i]);
        test_context(&variants[i]);
        test_tanh(&variants[i]);
        test_exp(&variants[i]);
        test_gru(&variants[i]);
        test_block_layer_norm(&variants[i]);
    }
    test_i8_quantise_tiny();
    test_twins();
    test_q8c4_scalar();
#if defined(__wasm_relaxed_simd__)
    test_relaxed();
#endif
    printf("RESULT %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
