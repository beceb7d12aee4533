/* kernels.h - the numeric core: every kernel in a scalar and a SIMD twin.
 *
 * Twins share one signature and differ only in the suffix after "__":
 * `__scalar` is plain C (compiled with auto-vectorisation off in the wasm
 * builds so it stays a true reference), `__wasmsimd*` uses WebAssembly SIMD128
 * intrinsics: in the wasm SIMD build, and natively (the CLI, the native
 * bench) through src/native/wasm_simd128.h, which defines them in portable
 * vector extensions (-DAS_SIMD128_SHIM -Isrc/native). The selection block at
 * the end of this file is the ONLY place that picks between them; the engine
 * calls the unsuffixed names.
 *
 * Conventions: matrices are row-major; sizes are element counts; outputs
 * never alias inputs unless a kernel says so.
 */
#ifndef ALIGNSCOPE_KERNELS_H
#define ALIGNSCOPE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "alignscope_format.h" /* AS_LAYER_NORM_EPSILON */

/* W (rows,cols) @ x (cols) + b (rows, may be NULL) -> y (rows). */
typedef void (*as_f32_matvec_fn)(size_t rows, size_t cols, const float *w,
                                 const float *x, const float *b, float *y);
/* The same product with W packed by as_f32_pack_p24 (below). */
typedef as_f32_matvec_fn as_f32_matvec_p24_fn;
/* Additive (Bahdanau) scores: keys (S,A), q (A), v (A) -> e (S),
 * e_j = v . tanh(q + k_j). */
typedef void (*as_f32_additive_scores_fn)(size_t s, size_t a, const float *keys,
                                          const float *q, const float *v, float *e);
/* Dot scores: keys (S,D), q (D) -> e (S), e_j = q . k_j. */
typedef void (*as_f32_dot_scores_fn)(size_t s, size_t d, const float *keys,
                                     const float *q, float *e);
/* y (n) = softmax(scale * x (n)), max-subtracted. n >= 1. y may alias x. */
typedef void (*as_f32_softmax_fn)(size_t n, const float *x, float scale, float *y);
/* The softmax over the kept entries only (forced decoding's attention mask,
 * as_force_score): keep (n) is 0 (dropped) or 1 (kept), y_j = 0 exactly
 * where keep_j = 0, and the kept y_j = exp(scale (x_j - m)) / sum over the
 * kept, m = the largest KEPT x_j. That is "zero the dropped weights and
 * renormalise", computed so that it cannot be 0 / 0: the kept maximum's term
 * is exp(0) = 1, however far below a dropped score it lies (zeroing the
 * full softmax's weights would underflow to 0 there). Dropped entries are
 * never passed to exp, so any value (inf, NaN) there changes nothing. With
 * every keep_j = 1 it is bit for bit the same twin's as_f32_softmax; one kept
 * entry gets exactly 1. No kept entry at all (the engine refuses such a
 * mask first): y is all zeros, never NaN. y may alias x. */
typedef void (*as_f32_softmax_masked_fn)(size_t n, const float *x, const uint8_t *keep, float scale, float *y);
/* alpha (S), h (S,D) -> c (D) = sum_j alpha_j h_j. */
typedef void (*as_f32_context_fn)(size_t s, size_t d, const float *alpha,
                                  const float *h, float *c);
/* The k best of x (n): their indices in ids (min(k, n) of them), best
 * first, ties to the lower index; NaNs never outrank a number once k are held.
 * A greedy decoder's argmax and its candidate list in one pass. k >= 1. */
typedef void (*as_f32_top_k_fn)(size_t n, const float *x, int32_t k, int32_t *ids);
/* sum_i exp(x_i - m), n >= 1: the softmax normaliser without the softmax
 * (m = max x keeps every term <= 1). */
typedef float (*as_f32_sum_exp_fn)(size_t n, const float *x, float m);
/* y (n) = tanh(x (n)); y may alias x. */
typedef void (*as_f32_tanh_fn)(size_t n, const float *x, float *y);
/* GRU update, PyTorch gate order (r, z, n):
 *   gi (3H) = W_ih x + b_ih, gh (3H) = W_hh h + b_hh (with AS_ARCH_LAYER_NORM
 *   their layer norms instead, as_f32_block_layer_norm), h (H) updated in place:
 *   r = sig(gi_r + gh_r), z = sig(gi_z + gh_z), n = tanh(gi_n + r * gh_n),
 *   h = (1 - z) * n + z * h. */
typedef void (*as_f32_gru_update_fn)(size_t h_dim, const float *gi, const float *gh, float *h);
/* Layer normalisation of x (blocks * size) in place, each block of `size`
 * (a GRU gate's H values, or the whole deep output) by its own statistics:
 *   x = (x - mean) * (1 / sqrt(var + AS_LAYER_NORM_EPSILON)) * gain + shift,
 * mean and the biased variance var = mean((x - mean)^2) taken in two passes:
 * the function PyTorch's layer_norm computes (its CPU kernel gets there by
 * other operations, so they agree to rounding: the parity tests bound it).
 * gain, shift (blocks * size). size >= 1. Both
 * twins sum in four lanes, (l0 + l1) + (l2 + l3), then the tail in order,
 * and apply the same operations per element (no FMA): they agree bit for bit. */
typedef void (*as_f32_block_layer_norm_fn)(size_t blocks, size_t size, float *x, const float *gain,
                                           const float *shift);

/* ---- the p24 weight layout ------------------------------------------------
 * Weight matrices the engine multiplies every step are repacked once, at
 * model load, so that the SIMD matvec keeps 6 f32x4 accumulators (24 rows)
 * live and reads W sequentially. Rows are grouped in panels of 24 (the last
 * panel has the remaining rows % 24, if any); inside a panel of n rows the n
 * values of one column are contiguous:
 *   element (r, c) at w[p * 24 * cols + c * n + (r - 24 p)],  p = r / 24
 * Same size as row-major, so the repacking is in place. Why 24: V8 keeps
 * about 15 v128 values in registers; 6 accumulators + 6 loaded W vectors + one
 * broadcast x fit, and 6 independent add chains cover the add latency.
 * Both twins sum each row in the same order (bias first, then the columns in
 * order, no FMA), so they agree bit for bit. */
#define AS_P24_ROWS 24
/* The same product for `count` inputs at once: x_j = x + j * x_stride
 * (cols), y_j = y + j * y_stride (rows); each y_j bit for bit what the
 * single product gives, but the weights stream through the cache once per
 * call instead of once per input (the encoder's input projections and keys,
 * one product per source position). */
typedef void (*as_f32_matvec_p24_batch_fn)(size_t rows, size_t cols, const float *w, size_t count,
                                           const float *x, size_t x_stride, const float *b,
                                           float *y, size_t y_stride);
/* Repacks w (rows, cols), row-major, into the p24 layout in place.
 * Returns 0, or -1 if the scratch (24 x cols floats) cannot be allocated. */
int as_f32_pack_p24(size_t rows, size_t cols, float *w);

/* ---- int8 weights: the q32 layout ----------------------------------------
 * A matrix of an int8 model (models/FORMAT.md 3.1) stays int8 in memory:
 * q (rows, cols) plus one f32 scale per row, weight = scale[r] * q[r][c].
 * q is repacked at load into panels of 32 rows (the last panel has the
 * n = rows % 32 left, if any), each panel holding its n rows' values column
 * pair by column pair, the two values of one row side by side:
 *   (r, c) with c < 2P, P = cols / 2:  panel + (c / 2) * 2n + 2i + c % 2
 *   (r, cols - 1) when cols is odd:    panel + 2P * n + i
 * where panel = q + 32 p * cols, p = r / 32, i = r - 32 p.
 * Why: 16 bytes of a panel are 8 rows x 2 columns; widened to i16 they are
 * exactly the operands of i32x4.dot_i16x8_s against the (x[c], x[c+1]) pair,
 * 8 multiply-adds per instruction in integer arithmetic. For that the input
 * is quantised once per product to int16 (as_i8_quantise_input below):
 *   x[c] ~ sx * xq[c],  |xq| <= L = min(32767, (2^31 - 1) / (127 cols)),
 * so the int32 row sums cannot overflow. Each row:
 *   acc = sum_c q[r][c] * xq[c]   (exact integer arithmetic, any order)
 *   y   = (float)acc * (scale[r] * sx) + b[r]
 * Integer sums do not depend on the order, so the twins agree bit for bit by
 * construction; against f32 arithmetic the quantised input adds a relative
 * error of at most 1/(2L) of max|x| per term (about 3e-5 at 896 columns;
 * tests/c/kernels_test.c bounds it). 32 rows: 8 i32x4 accumulators + the
 * broadcast pair + 4 loads fit V8's ~15 live v128 values. */
#define AS_Q32_ROWS 32
/* Repacks q (rows, cols), row-major, into the q32 layout in place.
 * Returns 0, or -1 if the scratch (32 x cols bytes) cannot be allocated. */
int as_i8_pack_q32(size_t rows, size_t cols, int8_t *q);
/* diag(scale (rows)) (Q (rows,cols), q32 layout) @ x (cols) + b (rows, may be
 * NULL) -> y (rows). A non-finite x gives NaN rows. */
typedef void (*as_i8_matvec_q32_fn)(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                    const float *x, const float *b, float *y);
/* The same for `count` inputs (strides as the p24 batch), each y_j bit for
 * bit the single product's; inputs are quantised AS_Q32_BATCH at a time
 * (a stack buffer of AS_Q32_BATCH x cols int16), one at a time above
 * AS_Q32_BATCH_COLS columns (at most 64 KB of stack either way). */
#define AS_Q32_BATCH 16
#define AS_Q32_BATCH_COLS 2048
typedef void (*as_i8_matvec_q32_batch_fn)(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                          size_t count, const float *x, size_t x_stride, const float *b,
                                          float *y, size_t y_stride);
/* The int16 input quantisation both twins share (kernels_scalar.c): writes
 * xq (cols) and returns sx (x ~ sx * xq); 0 for an all-zero x, NaN if x has
 * a non-finite value. Rows whose max |x| is below 2^-64 (subnormal ones
 * included) are scaled by 2^64 first, exactly, so L / max|x| stays finite.
 * Not a twin: one definition keeps the twins identical. */
float as_i8_quantise_input(size_t cols, const float *x, int16_t *xq);
/* Row i of a q32 panel of n rows against the quantised input: the exact
 * integer sum of q[r][c] * xq[c] (both twins' per-row path, also shared). */
int32_t as_i8_q32_row_sum(const int8_t *panel, size_t n, size_t i, size_t cols, const int16_t *xq);

/* ---- int8 weights for the 8-bit dot product: the q8c4 layout -------------
 * The relaxed-SIMD build (src/kernels_wasmrelaxed.c) multiplies int8 weights
 * with i32x4.relaxed_dot_i8x16_i7x16_add_s: each i32 lane gets the sum of 4
 * byte products, a[4l..4l+3] (signed i8) times b[4l..4l+3] (i7), plus the
 * accumulator. The result is the same on every machine only while every b
 * byte is in [0, 127] (x86 without VNNI reads b as unsigned, ARM as signed),
 * and then its pair sums (|.| <= 2 * 128 * 127) cannot saturate an i16. So:
 *  - the weights are the signed operand, unchanged (the file's int8 values,
 *    FORMAT.md 3.1: no re-quantisation); only their layout changes at load;
 *  - the input is the i7 operand. It is quantised exactly as for q32
 *    (as_i8_quantise_input: int16, |xq| <= L) and cut into 7-bit digits of
 *    its two's complement: d0 = bits 0-6, d1 = bits 7-13, d2 = bits 14-20
 *    (bit 14 and six copies of the sign), s = the sign bit, so that
 *      xq = d0 + 2^7 d1 + 2^14 d2 - 2^21 s,   d0, d1, d2 in [0, 127], s in {0, 1}
 *    and four dot products per weight vector give
 *      sum_c q xq = sum q d0 + 2^7 sum q d1 + 2^14 sum q d2 - 2^21 sum q s.
 *    Every step is an integer sum taken modulo 2^32 and the true value fits
 *    in int32 (the L bound), so the result is exact: the same acc as q32,
 *    bit for bit the SIMD128 and scalar builds' y. Fewer digits were measured
 *    against the PyTorch int8 fixtures (models/fixtures; the native CLI with
 *    the input capped at 7, 14 and 15 bits): 7-bit inputs change the greedy
 *    tokens of en-fr-dot and move alpha by up to 7.7e-2; 14-bit (two digits
 *    with an offset and a per-row weight sum) by up to 6.5e-4 and 15-bit
 *    (three digits, no weight sums) by up to 7.1e-4 on en-fr-general, both
 *    over the int8 tolerance of 5e-4 (tests/parity.test.mjs); 16-bit, 2.5e-4.
 * Layout: panels of 8 rows (the last has the n = rows % 8 left, if any);
 * inside a panel of n rows the 4 values of one row for one column quad are
 * contiguous (one i32 lane), rows after rows, quad after quad:
 *   (r, c) with c < 4Q, Q = cols / 4:  panel + (c / 4) * 4n + 4i + c % 4
 *   (r, c) with c >= 4Q:              panel + 4Q * n + i * (cols - 4Q) + c - 4Q
 * where panel = q + 8 p * cols, p = r / 8, i = r - 8 p. Same size as
 * row-major, repacked in place. 8 rows: 2 weight vectors x 4 digits = 8 i32x4
 * accumulators + 4 broadcast digit quads + 2 loads fit V8's ~15 v128. */
#define AS_Q8C4_ROWS 8
/* Repacks q (rows, cols), row-major, into the q8c4 layout in place.
 * Returns 0, or -1 if the scratch (8 x cols bytes) cannot be allocated. */
int as_i8_pack_q8c4(size_t rows, size_t cols, int8_t *q);
/* The q8c4 twins: the same contract as the q32 ones (as_i8_matvec_q32_fn,
 * as_i8_matvec_q32_batch_fn), on the q8c4 layout. */
typedef as_i8_matvec_q32_fn as_i8_matvec_q8c4_fn;
typedef as_i8_matvec_q32_batch_fn as_i8_matvec_q8c4_batch_fn;
/* Row i of a q8c4 panel of n rows against the quantised input: the exact
 * integer sum of q[r][c] * xq[c] (the scalar twin, and the relaxed twin's
 * rows of a short panel). */
int32_t as_i8_q8c4_row_sum(const int8_t *panel, size_t n, size_t i, size_t cols, const int16_t *xq);

/* ---- f32 products with fused multiply-add ---------------------------------
 * The relaxed build's p24 twins (same layout, same order) use
 * f32x4.relaxed_madd, which a machine may compute fused (one rounding) or
 * not (two, exactly the scalar twin). Each row therefore differs from the
 * scalar twin by at most the two sums' own error bounds, per row
 *   |y_relaxed - y_scalar| <= 2 gamma(cols + 1) (|b| + sum_c |w x_c|),
 *   gamma(n) = n u / (1 - n u), u = 2^-24,
 * which tests/c/kernels_test.c checks at every panel edge. */

/* ---- scalar twins (kernels_scalar.c) ---------------------------------- */
void as_f32_matvec__scalar(size_t rows, size_t cols, const float *w,
                           const float *x, const float *b, float *y);
void as_f32_matvec_p24__scalar(size_t rows, size_t cols, const float *w,
                               const float *x, const float *b, float *y);
void as_i8_matvec_q32__scalar(size_t rows, size_t cols, const int8_t *q, const float *scale,
                              const float *x, const float *b, float *y);
void as_f32_matvec_p24_batch__scalar(size_t rows, size_t cols, const float *w, size_t count,
                                     const float *x, size_t x_stride, const float *b,
                                     float *y, size_t y_stride);
void as_i8_matvec_q32_batch__scalar(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                    size_t count, const float *x, size_t x_stride, const float *b,
                                    float *y, size_t y_stride);
void as_f32_additive_scores__scalar(size_t s, size_t a, const float *keys,
                                    const float *q, const float *v, float *e);
void as_f32_dot_scores__scalar(size_t s, size_t d, const float *keys,
                               const float *q, float *e);
void as_f32_softmax__scalar(size_t n, const float *x, float scale, float *y);
void as_f32_softmax_masked__scalar(size_t n, const float *x, const uint8_t *keep, float scale, float *y);
void as_f32_context__scalar(size_t s, size_t d, const float *alpha,
                            const float *h, float *c);
void as_f32_top_k__scalar(size_t n, const float *x, int32_t k, int32_t *ids);
float as_f32_sum_exp__scalar(size_t n, const float *x, float m);
void as_f32_tanh__scalar(size_t n, const float *x, float *y);
void as_f32_gru_update__scalar(size_t h_dim, const float *gi, const float *gh, float *h);
void as_f32_block_layer_norm__scalar(size_t blocks, size_t size, float *x, const float *gain, const float *shift);
/* exp of each element; only for tests of the shared approximation. */
void as_f32_exp__scalar(size_t n, const float *x, float *y);

void as_i8_matvec_q8c4__scalar(size_t rows, size_t cols, const int8_t *q, const float *scale,
                               const float *x, const float *b, float *y);
void as_i8_matvec_q8c4_batch__scalar(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                     size_t count, const float *x, size_t x_stride, const float *b,
                                     float *y, size_t y_stride);

/* ---- SIMD128 twins (kernels_wasmsimd.c) ------------------------------- */
#if defined(__wasm_simd128__) || defined(AS_SIMD128_SHIM)
/* r4: panels of 4 rows, 8 columns per iteration (8 f32x4 accumulators). */
void as_f32_matvec__wasmsimd_r4(size_t rows, size_t cols, const float *w,
                                const float *x, const float *b, float *y);
/* p24: W in the p24 layout; one column of a panel per iteration. */
void as_f32_matvec_p24__wasmsimd(size_t rows, size_t cols, const float *w,
                                 const float *x, const float *b, float *y);
/* q32: one column pair of a 32-row panel (four i8x16 loads, eight
 * i32x4.dot_i16x8_s) per iteration. */
void as_i8_matvec_q32__wasmsimd(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                const float *x, const float *b, float *y);
void as_f32_matvec_p24_batch__wasmsimd(size_t rows, size_t cols, const float *w, size_t count,
                                       const float *x, size_t x_stride, const float *b,
                                       float *y, size_t y_stride);
void as_i8_matvec_q32_batch__wasmsimd(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                      size_t count, const float *x, size_t x_stride, const float *b,
                                      float *y, size_t y_stride);
void as_f32_additive_scores__wasmsimd(size_t s, size_t a, const float *keys,
                                      const float *q, const float *v, float *e);
void as_f32_dot_scores__wasmsimd(size_t s, size_t d, const float *keys,
                                 const float *q, float *e);
void as_f32_softmax__wasmsimd(size_t n, const float *x, float scale, float *y);
void as_f32_softmax_masked__wasmsimd(size_t n, const float *x, const uint8_t *keep, float scale, float *y);
void as_f32_context__wasmsimd(size_t s, size_t d, const float *alpha,
                              const float *h, float *c);
/* top_k: skips 16 values at a time that cannot enter the list. */
void as_f32_top_k__wasmsimd(size_t n, const float *x, int32_t k, int32_t *ids);
float as_f32_sum_exp__wasmsimd(size_t n, const float *x, float m);
void as_f32_tanh__wasmsimd(size_t n, const float *x, float *y);
void as_f32_gru_update__wasmsimd(size_t h_dim, const float *gi, const float *gh, float *h);
void as_f32_block_layer_norm__wasmsimd(size_t blocks, size_t size, float *x, const float *gain, const float *shift);
void as_f32_exp__wasmsimd(size_t n, const float *x, float *y);
#endif

/* ---- relaxed-SIMD twins (kernels_wasmrelaxed.c) ------------------------
 * Only the products: the p24 f32 matvec with f32x4.relaxed_madd and the int8
 * matvec on the q8c4 layout with i32x4.relaxed_dot_i8x16_i7x16_add_s. Every
 * other kernel of the relaxed build is the SIMD128 twin. Built by clang 19
 * (-mrelaxed-simd; build.sh explains why not emcc 3.1.6). */
#if defined(__wasm_relaxed_simd__)
void as_f32_matvec_p24__wasmrelaxed(size_t rows, size_t cols, const float *w,
                                    const float *x, const float *b, float *y);
void as_f32_matvec_p24_batch__wasmrelaxed(size_t rows, size_t cols, const float *w, size_t count,
                                          const float *x, size_t x_stride, const float *b,
                                          float *y, size_t y_stride);
void as_i8_matvec_q8c4__wasmrelaxed(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                    const float *x, const float *b, float *y);
void as_i8_matvec_q8c4_batch__wasmrelaxed(size_t rows, size_t cols, const int8_t *q, const float *scale,
                                          size_t count, const float *x, size_t x_stride, const float *b,
                                          float *y, size_t y_stride);
#endif

/* ---- the selection: the one place a twin is chosen --------------------- */
/* as_i8_pack_weights, as_i8_matvec_packed(_batch): the int8 layout the
 * chosen twin reads and its product.
 * The relaxed build takes relaxed_madd for its f32 products but keeps the
 * SIMD128 q32 product for int8, by measurement (./build.sh bench, Chromium,
 * tests/bench/kernels_relaxed.mjs): the exact q8c4 product needs four
 * relaxed dot products per weight quad (the input's four 7-bit digits), i.e.
 * twice q32's multiplier work even where the dot is one instruction (VNNI,
 * ARM sdot), and V8 lowers it to five instructions on x86 without VNNI: it
 * measured 0.3x the q32 product there. Both give the same bits, so the
 * choice costs no accuracy. -DAS_RELAXED_INT8_DOT builds the q8c4 product in
 * (the kernel tests and the kernel bench exercise it either way). */
#if defined(__wasm_relaxed_simd__)
#define AS_KERNEL_ISA "wasmrelaxed"
#define as_f32_matvec_p24 as_f32_matvec_p24__wasmrelaxed
#define as_f32_matvec_p24_batch as_f32_matvec_p24_batch__wasmrelaxed
#if defined(AS_RELAXED_INT8_DOT)
#define as_i8_pack_weights as_i8_pack_q8c4
#define as_i8_matvec_packed as_i8_matvec_q8c4__wasmrelaxed
#define as_i8_matvec_packed_batch as_i8_matvec_q8c4_batch__wasmrelaxed
#else
#define as_i8_pack_weights as_i8_pack_q32
#define as_i8_matvec_packed as_i8_matvec_q32__wasmsimd
#define as_i8_matvec_packed_batch as_i8_matvec_q32_batch__wasmsimd
#endif
#elif defined(__wasm_simd128__) || defined(AS_SIMD128_SHIM)
#define as_f32_matvec_p24 as_f32_matvec_p24__wasmsimd
#define as_f32_matvec_p24_batch as_f32_matvec_p24_batch__wasmsimd
#define as_i8_pack_weights as_i8_pack_q32
#define as_i8_matvec_packed as_i8_matvec_q32__wasmsimd
#define as_i8_matvec_packed_batch as_i8_matvec_q32_batch__wasmsimd
#else
#define as_f32_matvec_p24 as_f32_matvec_p24__scalar
#define as_f32_matvec_p24_batch as_f32_matvec_p24_batch__scalar
#define as_i8_pack_weights as_i8_pack_q32
#define as_i8_matvec_packed as_i8_matvec_q32__scalar
#define as_i8_matvec_packed_batch as_i8_matvec_q32_batch__scalar
#endif
#if defined(__wasm_simd128__) || defined(AS_SIMD128_SHIM)
#if defined(__wasm_relaxed_simd__)
/* AS_KERNEL_ISA above */
#elif defined(__wasm_simd128__)
#define AS_KERNEL_ISA "wasmsimd"
#else /* the same twin, compiled natively through src/native/wasm_simd128.h */
#define AS_KERNEL_ISA "wasmsimd-native"
#endif
#define as_f32_matvec as_f32_matvec__wasmsimd_r4
#define as_i8_matvec_q32 as_i8_matvec_q32__wasmsimd
#define as_i8_matvec_q32_batch as_i8_matvec_q32_batch__wasmsimd
#define as_f32_additive_scores as_f32_additive_scores__wasmsimd
#define as_f32_dot_scores as_f32_dot_scores__wasmsimd
#define as_f32_softmax as_f32_softmax__wasmsimd
#define as_f32_softmax_masked as_f32_softmax_masked__wasmsimd
#define as_f32_context as_f32_context__wasmsimd
#define as_f32_top_k as_f32_top_k__wasmsimd
#define as_f32_sum_exp as_f32_sum_exp__wasmsimd
#define as_f32_tanh as_f32_tanh__wasmsimd
#define as_f32_gru_update as_f32_gru_update__wasmsimd
#define as_f32_block_layer_norm as_f32_block_layer_norm__wasmsimd
#else /* scalar */
#define AS_KERNEL_ISA "scalar"
#define as_f32_matvec as_f32_matvec__scalar
#define as_i8_matvec_q32 as_i8_matvec_q32__scalar
#define as_i8_matvec_q32_batch as_i8_matvec_q32_batch__scalar
#define as_f32_additive_scores as_f32_additive_scores__scalar
#define as_f32_dot_scores as_f32_dot_scores__scalar
#define as_f32_softmax as_f32_softmax__scalar
#define as_f32_softmax_masked as_f32_softmax_masked__scalar
#define as_f32_context as_f32_context__scalar
#define as_f32_top_k as_f32_top_k__scalar
#define as_f32_sum_exp as_f32_sum_exp__scalar
#define as_f32_tanh as_f32_tanh__scalar
#define as_f32_gru_update as_f32_gru_update__scalar
#define as_f32_block_layer_norm as_f32_block_layer_norm__scalar
#endif

#endif
