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
    if (!(err <= r->max_err)) r->max_err = err; /* NaN sticks */
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
    as_f32_context_fn context;
    as_f32_tanh_fn tanh_;
    as_f32_gru_update_fn gru_update;
    void (*exp_)(size_t, const float *, float *);
} variant;

static const variant variants[] = {
    {"scalar", as_f32_matvec__scalar, as_f32_additive_scores__scalar, as_f32_dot_scores__scalar,
     as_f32_softmax__scalar, as_f32_context__scalar, as_f32_tanh__scalar, as_f32_gru_update__scalar,
     as_f32_exp__scalar},
#if defined(__wasm_simd128__)
    {"wasmsimd", as_f32_matvec__wasmsimd_r4, as_f32_additive_scores__wasmsimd, as_f32_dot_scores__wasmsimd,
     as_f32_softmax__wasmsimd, as_f32_context__wasmsimd, as_f32_tanh__wasmsimd, as_f32_gru_update__wasmsimd,
     as_f32_exp__wasmsimd},
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
        free(x);
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

/* SIMD and scalar twins on the same inputs: they may differ only by
 * summation order (elementwise kernels are designed to agree exactly). */
static void test_twins(void) {
#if defined(__wasm_simd128__)
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
#endif
}

int main(int argc, char **argv) {
    /* --tolerance-scale K multiplies every tolerance (0 makes the run fail,
     * which the JS test uses to prove the checks can fail). */
    if (argc == 3 && strcmp(argv[1], "--tolerance-scale") == 0) tol_scale = atof(argv[2]);
    printf("kernels_test: isa=%s variants=%d\n", AS_KERNEL_ISA, (int)N_VARIANTS);
    for (size_t i = 0; i < N_VARIANTS; i++) {
        test_matvec(&variants[i], 0);
        test_matvec(&variants[i], 1);
        test_additive(&variants[i]);
        test_softmax(&variants[i]);
        test_context(&variants[i]);
        test_tanh(&variants[i]);
        test_exp(&variants[i]);
        test_gru(&variants[i]);
    }
    test_twins();
    printf("RESULT %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
