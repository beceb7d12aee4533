/* fastmath.h - the one tanh and the one exp that every kernel uses.
 *
 * Scalar and SIMD kernels must compute the same function, so the
 * approximations live here once: the coefficients as macros (the SIMD twin in
 * kernels_wasmsimd.c splats them) and the scalar forms as static inline
 * functions. Neither calls libm, so a native build and a wasm build of the
 * scalar path give bit-identical results for the same inputs. The top-k
 * insertion at the end is shared by the two top-k twins for the same reason.
 */
#ifndef ALIGNSCOPE_FASTMATH_H
#define ALIGNSCOPE_FASTMATH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* tanh: Eigen's 13/6 odd/even rational approximation on [-7.9053, 7.9053];
 * beyond the clamp tanh(x) rounds to +-1 in f32. Below 4e-4 tanh(x) == x in
 * f32, which the rational form only approximates, so that range passes x
 * through. Max relative error ~2e-7 (tests/kernels.test.mjs measures it). */
#define AS_TANH_CLAMP 7.90531110763549805f
#define AS_TANH_TINY 0.0004f
#define AS_TANH_A1 4.89352455891786e-03f
#define AS_TANH_A3 6.37261928875436e-04f
#define AS_TANH_A5 1.48572235717979e-05f
#define AS_TANH_A7 5.12229709037114e-08f
#define AS_TANH_A9 -8.60467152213735e-11f
#define AS_TANH_A11 2.00018790482477e-13f
#define AS_TANH_A13 -2.76076847742355e-16f
#define AS_TANH_B0 4.89352518554385e-03f
#define AS_TANH_B2 2.26843463243900e-03f
#define AS_TANH_B4 1.18534705686654e-04f
#define AS_TANH_B6 1.19825839466702e-06f

/* exp: Cephes expf. x = n ln2 + r with |r| <= ln2/2, a degree-7 polynomial
 * for e^r, then 2^n built in the exponent bits. The input is clamped to
 * [-87, 88] so that 2^n stays a normal float (softmax inputs are <= 0, so the
 * upper clamp never matters there; e^-87 ~ 1.6e-38 stands in for 0). */
#define AS_EXP_LO -87.0f
#define AS_EXP_HI 88.0f
#define AS_EXP_LOG2E 1.44269504088896341f
#define AS_EXP_C1 0.693359375f     /* ln2 split in two for an exact n*C1 */
#define AS_EXP_C2 -2.12194440e-4f
#define AS_EXP_P0 1.9875691500e-4f
#define AS_EXP_P1 1.3981999507e-3f
#define AS_EXP_P2 8.3334519073e-3f
#define AS_EXP_P3 4.1665795894e-2f
#define AS_EXP_P4 1.6666665459e-1f
#define AS_EXP_P5 5.0000001201e-1f

static inline float as_tanh_scalar(float x) {
    float ax = x < 0.0f ? -x : x;
    if (ax < AS_TANH_TINY) return x;
    if (x > AS_TANH_CLAMP) x = AS_TANH_CLAMP;
    if (x < -AS_TANH_CLAMP) x = -AS_TANH_CLAMP;
    float x2 = x * x;
    float p = x2 * AS_TANH_A13 + AS_TANH_A11;
    p = x2 * p + AS_TANH_A9;
    p = x2 * p + AS_TANH_A7;
    p = x2 * p + AS_TANH_A5;
    p = x2 * p + AS_TANH_A3;
    p = x2 * p + AS_TANH_A1;
    p = x * p;
    float q = x2 * AS_TANH_B6 + AS_TANH_B4;
    q = x2 * q + AS_TANH_B2;
    q = x2 * q + AS_TANH_B0;
    return p / q;
}

/* sigmoid(x) = (1 + tanh(x/2)) / 2: one approximation to keep accurate. */
static inline float as_sigmoid_scalar(float x) {
    return 0.5f + 0.5f * as_tanh_scalar(0.5f * x);
}

static inline float as_floor_scalar(float x) {
    /* |x| < 2^7 here, so the int conversion is exact and safe. */
    int32_t i = (int32_t)x;
    float f = (float)i;
    return f > x ? f - 1.0f : f;
}

static inline float as_exp_scalar(float x) {
    /* NaN in, NaN out (as the SIMD twin gives): converting it to int below
     * would be undefined behaviour (found by tests/fuzz/fuzz_tokenize.c). */
    if (x != x) return x;
    if (x > AS_EXP_HI) x = AS_EXP_HI;
    if (x < AS_EXP_LO) x = AS_EXP_LO;
    float n = as_floor_scalar(x * AS_EXP_LOG2E + 0.5f);
    float r = x - n * AS_EXP_C1;
    r = r - n * AS_EXP_C2;
    float y = AS_EXP_P0;
    y = y * r + AS_EXP_P1;
    y = y * r + AS_EXP_P2;
    y = y * r + AS_EXP_P3;
    y = y * r + AS_EXP_P4;
    y = y * r + AS_EXP_P5;
    y = y * (r * r) + r + 1.0f;
    uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return y * scale;
}

/* x[i] into the sorted list ids[0..*have) of at most k, best first
 * (insertion). Both top-k twins use this one function, so their lists come
 * out identical, ties included (an equal value never displaces an earlier id). */
static inline void as_top_k_insert(const float *x, size_t i, int32_t k, int32_t *ids, int32_t *have) {
    const float v = x[i];
    if (*have == k && !(v > x[ids[k - 1]])) return;
    int32_t at = *have < k ? (*have)++ : k - 1;
    while (at > 0 && v > x[ids[at - 1]]) {
        ids[at] = ids[at - 1];
        at--;
    }
    ids[at] = (int32_t)i;
}

#endif
