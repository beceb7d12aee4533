// byhand-kinds.test.mjs - the three kinds of attention and the additive
// score by hand (web/lib/kinds.js): numbers worked out on paper, a plain
// reference loop written here (not the module's code) on many inputs, and
// the properties the lesson states: rows sum to 1, masked weights are
// exactly 0, causal row 0 attends only to itself, identical keys give
// uniform weights. (tests/web/kinds.test.mjs is about the engine's kinds
// of score; tests/web/page-logic.test.mjs checks the seed's exercise.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attentionMatrix, additiveScore, additiveAttention, projectKind, matMul, matVec, KINDS_EXAMPLE, kindsExample } from '../../web/lib/kinds.js';

const close = (a, b, tol, msg) => assert.ok(Math.abs(a - b) <= tol, `${msg}: ${a} vs ${b}`);
const closeAll = (a, b, tol, msg) => { assert.equal(a.length, b.length, `${msg}: length`); a.forEach((x, i) => close(x, b[i], tol, `${msg}[${i}]`)); };

// The reference: attention written as three loops, no shared code.
function reference(Q, K, V, causal, divisor) {
  const weights = [];
  const outputs = [];
  for (let i = 0; i < Q.length; i++) {
    const e = [];
    for (let j = 0; j < K.length; j++) {
      if (causal && j > i) { e.push(0); continue; }
      let dot = 0;
      for (let c = 0; c < Q[i].length; c++) dot += Q[i][c] * K[j][c];
      e.push(Math.exp(dot / divisor));
    }
    let sum = 0;
    for (const x of e) sum += x;
    const w = e.map((x) => x / sum);
    const z = new Array(V[0].length).fill(0);
    for (let j = 0; j < V.length; j++) for (let c = 0; c < z.length; c++) z[c] += w[j] * V[j][c];
    weights.push(w);
    outputs.push(z);
  }
  return { weights, outputs };
}

// A small deterministic generator (so a failure can be reproduced).
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return (s / 2 ** 32) * 6 - 3; };
}
const randMatrix = (next, n, m) => Array.from({ length: n }, () => Array.from({ length: m }, next));

test('causal self-attention on the card’s sequence, worked on paper', () => {
  // X = (1,0), (0,1), (1,1), (−1,0); every W the identity, so Q = K = V = X; d = 2, divisor √2.
  const X = KINDS_EXAMPLE.sequence;
  const r = attentionMatrix(X, X, X, { causal: true });
  // Row 0 sees only itself: score 1/√2, weight 1, output x₀.
  assert.deepEqual(r.weights[0], [1, 0, 0, 0]);
  assert.deepEqual(r.outputs[0], [1, 0]);
  // Row 1: scores (0, 1/√2): e^0 = 1, e^0.7071 = 2.0281, Σ = 3.0281 → α = (0.3302, 0.6698).
  close(r.scores[1][1], 1 / Math.SQRT2, 1e-15, 'row 1 score on itself');
  close(r.sums[1], 1 + Math.exp(Math.SQRT1_2), 1e-12, 'row 1 Σ');
  closeAll(r.weights[1], [0.33024, 0.66976, 0, 0], 5e-6, 'row 1 weights');
  closeAll(r.outputs[1], [0.33024, 0.66976], 5e-6, 'row 1 output');
  // Row 2, x₂ = (1,1): raw scores (1, 1, 2) → α = (0.24826, 0.24826, 0.50349); z = α₀x₀ + α₁x₁ + α₂x₂.
  assert.deepEqual(r.raw[2], [1, 1, 2, -1]);
  closeAll(r.weights[2], [0.248255, 0.248255, 0.503490, 0], 5e-6, 'row 2 weights');
  closeAll(r.outputs[2], [0.751745, 0.751745], 5e-6, 'row 2 output');
  // What is masked is shown as −∞ and weighs exactly 0.
  assert.equal(r.scores[2][3], -Infinity);
  assert.equal(r.exps[2][3], 0);
  assert.equal(r.masked[2][3], true);
  assert.equal(r.masked[3].some(Boolean), false, 'the last row sees every position');
});

test('the additive score term by term, worked on paper', () => {
  // W₁ = I, W₂ swaps, v = (1,1), s = (1,0) → W₂s = (0,1).
  const e = KINDS_EXAMPLE;
  const t1 = additiveScore(e.w1, e.w2, e.v, [1, 0], e.state);
  assert.deepEqual(t1.W1h, [1, 0]);
  assert.deepEqual(t1.W2s, [0, 1]);
  assert.deepEqual(t1.sum, [1, 1]);
  closeAll(t1.tanh, [0.761594, 0.761594], 1e-6, 'tanh(1, 1)');
  close(t1.score, 1.523188, 1e-6, 'e₁ = 2 tanh 1');
  // h₃ = (−1, 0): sum (−1, 1), tanh (−0.7616, 0.7616), score 0.
  close(additiveScore(e.w1, e.w2, e.v, [-1, 0], e.state).score, 0, 1e-15, 'e₃');
  // A non-square W: W₁ (1×2) h → one number.
  assert.deepEqual(additiveScore([[2, 3]], [[1, -1]], [1], [1, 1], [4, 1]).sum, [8]);

  const a = additiveAttention(e.w1, e.w2, e.v, e.states, e.state);
  closeAll(a.scores, [1.523188, 0.964028, 0, 0], 1e-6, 'e_j');
  close(a.sum, 9.209063, 1e-6, 'Σ e^e_j');
  closeAll(a.weights, [0.498077, 0.284745, 0.108589, 0.108589], 1e-6, 'α_j');
  closeAll(a.context, [0.389489, 0.176157], 1e-6, 'c = Σ α_j h_j');
});

test('additive terms against a loop written out here', () => {
  const next = rng(7);
  for (let n = 0; n < 40; n++) {
    const W1 = randMatrix(next, 2, 2); const W2 = randMatrix(next, 2, 2);
    const v = [next(), next()]; const h = [next(), next()]; const s = [next(), next()];
    const r = additiveScore(W1, W2, v, h, s);
    const pre = [0, 1].map((i) => W1[i][0] * h[0] + W1[i][1] * h[1] + W2[i][0] * s[0] + W2[i][1] * s[1]);
    closeAll(r.sum, pre, 1e-12, `sum ${n}`);
    close(r.score, v[0] * Math.tanh(pre[0]) + v[1] * Math.tanh(pre[1]), 1e-12, `score ${n}`);
  }
});

test('every kind against the reference loop, on many inputs', () => {
  const next = rng(1234);
  for (let n = 0; n < 60; n++) {
    const nq = 1 + (n % 4); const nk = n % 3 === 0 ? nq : 1 + ((n * 7) % 4); const d = 1 + (n % 3);
    const Q = randMatrix(next, nq, d); const K = randMatrix(next, nk, d); const V = randMatrix(next, nk, 2);
    const divisor = n % 2 ? Math.sqrt(d) : 1 + (n % 5);
    for (const causal of nq === nk ? [false, true] : [false]) {
      const got = attentionMatrix(Q, K, V, { causal, divisor });
      const want = reference(Q, K, V, causal, divisor);
      got.weights.forEach((row, i) => closeAll(row, want.weights[i], 1e-12, `weights ${n} ${causal} row ${i}`));
      got.outputs.forEach((row, i) => closeAll(row, want.outputs[i], 1e-12, `outputs ${n} ${causal} row ${i}`));
    }
  }
});

test('properties: rows sum to 1, masked weights are exactly 0, causal row 0 attends only to itself', () => {
  const next = rng(99);
  for (let n = 0; n < 40; n++) {
    const len = 2 + (n % 3);
    const X = randMatrix(next, len, 2);
    const { Q, K, V } = projectKind('causal', { sequence: X, wq: randMatrix(next, 2, 2), wk: randMatrix(next, 2, 2), wv: randMatrix(next, 2, 2) });
    const r = attentionMatrix(Q, K, V, { causal: true });
    for (let i = 0; i < len; i++) {
      close(r.weights[i].reduce((a, b) => a + b, 0), 1, 1e-12, `row ${i} sums to 1`);
      for (let j = 0; j < len; j++) {
        assert.equal(r.masked[i][j], j > i, `mask (${i}, ${j})`);
        if (j > i) { assert.equal(r.weights[i][j], 0); assert.equal(r.scores[i][j], -Infinity); } else assert.ok(r.weights[i][j] > 0);
      }
    }
    assert.deepEqual(r.weights[0], [1, ...new Array(len - 1).fill(0)]);
    closeAll(r.outputs[0], V[0], 0, 'row 0 output is v₀ itself');
    const plain = attentionMatrix(Q, K, V);
    assert.ok(plain.masked.flat().every((m) => !m), 'self-attention masks nothing');
    closeAll(plain.weights[len - 1], r.weights[len - 1], 1e-15, 'the last row is the same with or without the mask');
  }
});

test('cross-attention with identical keys gives uniform weights, whatever the query', () => {
  const next = rng(5);
  for (const nk of [2, 3, 4]) {
    const k = [next(), next()];
    const K = Array.from({ length: nk }, () => [...k]);
    const V = randMatrix(next, nk, 2);
    const r = attentionMatrix(randMatrix(next, 3, 2), K, V);
    for (const row of r.weights) closeAll(row, new Array(nk).fill(1 / nk), 1e-12, `uniform over ${nk}`);
    const mean = [0, 1].map((c) => V.reduce((s, v) => s + v[c], 0) / nk);
    for (const z of r.outputs) closeAll(z, mean, 1e-12, 'the output is the mean value');
  }
});

test('the sources: cross reads the decoder for Q and the encoder for K and V; self reads X for all three', () => {
  const ex = kindsExample();
  ex.wq = [[1, 2], [0, 1]];
  const c = projectKind('cross', ex);
  assert.deepEqual(c.Q, ex.decoder.map(([a, b]) => [a, 2 * a + b]));
  assert.deepEqual(c.K, ex.encoder);
  assert.deepEqual(c.V, ex.encoder);
  const s = projectKind('self', ex);
  assert.deepEqual(s.Q, ex.sequence.map(([a, b]) => [a, 2 * a + b]));
  assert.deepEqual(s.K, ex.sequence);
  assert.deepEqual(projectKind('causal', ex), s);
  assert.deepEqual(matMul([[1, 2, 3]], [[1], [0], [-1]]), [[-2]]);
  assert.deepEqual(matVec([[1, 2], [3, 4]], [1, -1]), [-1, -1]);
  // The example is frozen; kindsExample() gives copies the card may edit.
  ex.sequence[0][0] = 9;
  assert.equal(KINDS_EXAMPLE.sequence[0][0], 1);
});

test('large scores stay finite, and bad shapes are refused with a message', () => {
  const r = attentionMatrix([[100, 0]], [[100, 0], [99, 0]], [[1, 0], [0, 1]], { divisor: 1 });
  assert.ok(r.shifted[0], 'e^score would overflow: the row is shifted');
  close(r.weights[0][0], 1 / (1 + Math.exp(-100)), 1e-12, 'w0');
  assert.throws(() => attentionMatrix([[1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], { causal: true }), /causal mask needs as many queries as keys/);
  assert.throws(() => attentionMatrix([[1, 0]], [[1, 0, 0]], [[1, 0]]), /K must be a matrix with 2 numbers/);
  assert.throws(() => attentionMatrix([[1, 0]], [[1, 0]], [[1, 0], [0, 1]]), /one row per key/);
  assert.throws(() => attentionMatrix([[1, NaN]], [[1, 0]], [[1, 0]]), /not a finite number/);
  assert.throws(() => attentionMatrix([[1, 0]], [[1, 0]], [[1, 0]], { divisor: 0 }), /divisor must be a positive number/);
  assert.throws(() => attentionMatrix([], [[1, 0]], [[1, 0]]), /non-empty/);
  assert.throws(() => additiveScore([[1, 0]], [[1, 0], [0, 1]], [1], [1, 0], [1, 0]), /same number of rows/);
  assert.throws(() => additiveScore([[1, 0]], [[1, 0]], [1, 2], [1, 0], [1, 0]), /v must be a vector of 1/);
  assert.throws(() => projectKind('sideways', kindsExample()), /no such kind/);
});
