// kinds.js - the three kinds of attention and the additive score, by hand
// (pure; tested in Node by tests/web/byhand-kinds.test.mjs).
//
// The lesson: cross-attention, self-attention and causal self-attention are
// one formula, Z = softmax(Q Kᵀ ÷ divisor + M) V, with different sources for
// Q, K and V (and a mask M that is −∞ above the diagonal for the causal
// kind). Bahdanau's additive score e_j = vᵀ tanh(W₁ h_j + W₂ s) replaces
// the dot product with a small network; the softmax and the weighted sum
// after it are the same.
//
// Matrices are arrays of rows (number[][]); vectors are number[].

import { softmaxSteps, weightedSum } from './math.js';

/** The by-hand card's starting numbers for each kind (d = 2, 3–4 positions). */
export const KINDS_EXAMPLE = Object.freeze({
  d: 2,
  // Cross-attention: 3 decoder states (queries) read 4 encoder states (keys, values).
  decoder: [[2, 0], [0, 2], [1, 1]],
  encoder: [[1, 0], [0, 1], [-1, 0], [0, -1]],
  // Self-attention (plain and causal): one sequence of 4 positions.
  sequence: [[1, 0], [0, 1], [1, 1], [-1, 0]],
  // The projections start as the identity, so Q = K = V = the source rows
  // until the learner edits a W.
  wq: [[1, 0], [0, 1]],
  wk: [[1, 0], [0, 1]],
  wv: [[1, 0], [0, 1]],
  // Additive score: W₂ swaps the decoder state's two numbers, so W₁ and W₂ visibly differ.
  w1: [[1, 0], [0, 1]],
  w2: [[0, 1], [1, 0]],
  v: [1, 1],
  state: [1, 0],
  states: [[1, 0], [0, 1], [-1, 0], [0, -1]],
});

/** A fresh, editable copy of the example (the frozen one stays as it is). */
export function kindsExample() {
  const copy = (m) => m.map((r) => (Array.isArray(r) ? [...r] : r));
  const e = KINDS_EXAMPLE;
  return {
    decoder: copy(e.decoder), encoder: copy(e.encoder), sequence: copy(e.sequence),
    wq: copy(e.wq), wk: copy(e.wk), wv: copy(e.wv),
    w1: copy(e.w1), w2: copy(e.w2), v: [...e.v], state: [...e.state], states: copy(e.states),
  };
}

function checkMatrix(m, name, cols) {
  if (!Array.isArray(m) || m.length === 0) throw new Error(`${name} must be a non-empty array of rows`);
  const width = cols ?? m[0]?.length;
  for (const row of m) {
    if (!Array.isArray(row) || row.length !== width || width === 0) throw new Error(`${name} must be a matrix with ${width} numbers in every row`);
    for (const x of row) if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`${name} holds a value that is not a finite number`);
  }
  return width;
}

function checkVector(x, name, len) {
  if (!Array.isArray(x) || x.length !== len) throw new Error(`${name} must be a vector of ${len} numbers`);
  for (const v of x) if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`${name} holds a value that is not a finite number`);
}

/** A (n, k) @ B (k, m) -> (n, m). */
export function matMul(A, B) {
  const k = checkMatrix(A, 'A');
  const m = checkMatrix(B, 'B');
  if (B.length !== k) throw new Error(`cannot multiply: A has ${k} columns, B has ${B.length} rows`);
  return A.map((row) => Array.from({ length: m }, (_, c) => row.reduce((s, a, i) => s + a * B[i][c], 0)));
}

/** W (r, c) @ x (c,) -> (r,): the column-vector product of the additive score's W₁h and W₂s. */
export function matVec(W, x) {
  const c = checkMatrix(W, 'W');
  checkVector(x, 'x', c);
  return W.map((row) => row.reduce((s, w, i) => s + w * x[i], 0));
}

/** Where the causal mask hides a key: j > i (a position never sees a later one). */
export const isMaskedCausal = (i, j) => j > i;

/**
 * Scaled dot-product attention with the steps a student writes down.
 *   Q (n_q, d), K (n_k, d), V (n_k, d_v); causal needs n_q = n_k.
 *   divisor: the scores are QKᵀ ÷ divisor (default √d).
 * Returns, per query row i and key j:
 *   raw[i][j]      q_i · k_j
 *   scores[i][j]   raw ÷ divisor, −Infinity where masked
 *   masked[i][j]   true where the causal mask hides k_j from q_i
 *   exps[i][j]     e^score (0 where masked), as the softmax of math.js computes it
 *   sums[i]        Σ_j e^score
 *   shifted[i]     true when the row's exps were taken as e^(score − max) to stay finite
 *   weights[i][j]  the row-wise softmax; exactly 0 where masked
 *   outputs[i]     z_i = Σ_j weights[i][j] v_j  (d_v,)
 */
export function attentionMatrix(Q, K, V, { causal = false, divisor } = {}) {
  const d = checkMatrix(Q, 'Q');
  checkMatrix(K, 'K', d);
  checkMatrix(V, 'V');
  if (V.length !== K.length) throw new Error(`V must have one row per key: K has ${K.length} rows, V has ${V.length}`);
  if (causal && Q.length !== K.length) throw new Error(`the causal mask needs as many queries as keys (${Q.length} vs ${K.length})`);
  const div = divisor ?? Math.sqrt(d);
  if (!(typeof div === 'number' && Number.isFinite(div) && div > 0)) throw new Error('the divisor must be a positive number');
  const raw = Q.map((q) => K.map((k) => q.reduce((s, x, c) => s + x * k[c], 0)));
  const masked = Q.map((_, i) => K.map((_k, j) => causal && isMaskedCausal(i, j)));
  // The mask is added to the scores (−∞), so e^score is 0 and the weight is
  // exactly 0: the same softmax as the unmasked case, not a special path.
  const rows = raw.map((r, i) => softmaxSteps(r.map((x, j) => (masked[i][j] ? -Infinity : x)), 1 / div));
  const weights = rows.map((st) => st.weights);
  return {
    raw,
    scores: rows.map((st) => st.scaled),
    masked,
    exps: rows.map((st) => st.exps),
    sums: rows.map((st) => st.sum),
    shifted: rows.map((st) => st.shifted),
    weights,
    outputs: weights.map((w) => weightedSum(w, V)),
  };
}

/**
 * One additive (Bahdanau) score, term by term:
 *   W1 (a, d_h) @ h (d_h,) and W2 (a, d_s) @ s (d_s,), both (a,);
 *   sum = W1h + W2s; tanh = tanh(sum); score = v (a,) · tanh.
 */
export function additiveScore(W1, W2, v, h, s) {
  const W1h = matVec(W1, h);
  const W2s = matVec(W2, s);
  if (W1h.length !== W2s.length) throw new Error(`W₁ and W₂ must have the same number of rows (${W1h.length} vs ${W2s.length})`);
  checkVector(v, 'v', W1h.length);
  const sum = W1h.map((x, i) => x + W2s[i]);
  const tanh = sum.map(Math.tanh);
  const score = tanh.reduce((acc, x, i) => acc + v[i] * x, 0);
  return { W1h, W2s, sum, tanh, score };
}

/**
 * Additive attention of one decoder state s over encoder states H (n, d_h):
 * each state's terms, then the same softmax and weighted sum as the
 * dot-product kinds (values = the encoder states, as in Bahdanau).
 *   -> { terms[j] (additiveScore), scores, exps, sum, shifted, weights, context (d_h,) }
 */
export function additiveAttention(W1, W2, v, H, s) {
  checkMatrix(H, 'H');
  const terms = H.map((h) => additiveScore(W1, W2, v, h, s));
  const st = softmaxSteps(terms.map((x) => x.score), 1);
  return { terms, scores: st.scaled, exps: st.exps, sum: st.sum, shifted: st.shifted, weights: st.weights, context: weightedSum(st.weights, H) };
}

/**
 * Q, K and V for a kind, from its sources through the projections:
 *   cross:  Q = decoder W_Q, K = encoder W_K, V = encoder W_V
 *   self, causal: Q = X W_Q, K = X W_K, V = X W_V (X: the one sequence)
 * (each row times W: q_i = x_i W_Q, as in code that writes X @ W_Q).
 */
export function projectKind(kind, { decoder, encoder, sequence, wq, wk, wv }) {
  if (kind === 'cross') return { Q: matMul(decoder, wq), K: matMul(encoder, wk), V: matMul(encoder, wv) };
  if (kind === 'self' || kind === 'causal') return { Q: matMul(sequence, wq), K: matMul(sequence, wk), V: matMul(sequence, wv) };
  throw new Error(`no such kind of attention: ${kind}`);
}
