// mathcheck.test.mjs - the math check's numbers in Node: engine.dotScores
// (asw_dot_scores, the engine's own dot-product kernel) against a
// double-precision product on the SIMD and scalar builds, at tile-edge
// sizes, strided, with canaries and bad arguments; the seeded draws
// (lib/mathcheck.js: mulberry32 + Box–Muller) are reproducible, nested
// (more keys keep the first ones) and N(0, 1); the statistics of one draw;
// the curves scored by the engine agree with the same curves scored in
// double precision, and show the lesson's law: raw scores spread as √d,
// scores ÷ √d stay at 1, the raw softmax saturates while the scaled one
// does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../web/engine.js';
import { drawSeeds, drawVectors, scoreStats, quantile, mathCurves, MATH_DIMS, MATH_POWERS, MATH_STATS } from '../web/lib/mathcheck.js';
import { parseMathValue } from '../web/state.js';
import { mulberry32, normalSampler } from '../web/lib/random.js';
import { mulberry32 as pageMulberry } from '../web/lib/math.js';
import { CONFIG } from '../web/config.js';

const VARIANTS = ['simd', 'scalar'];
const engines = Object.fromEntries(await Promise.all(VARIANTS.map(async (v) => [v, await createEngine({ variant: v })])));

// e_j = q · k_j in double precision, and the bound on an f32 sum of d products: d u Σ|q_i k_ji| (u = 2^-24), twice for safety.
function reference(q, keys, count, stride) {
  const d = q.length;
  return Array.from({ length: count }, (_, j) => {
    let e = 0, abs = 0;
    for (let i = 0; i < d; i++) { e += q[i] * keys[j * stride + i]; abs += Math.abs(q[i] * keys[j * stride + i]); }
    return { e, bound: 2 * (d + 1) * 2 ** -24 * abs + 1e-30 };
  });
}

test('dotScores is the double-precision product within f32 rounding, both builds, tile edges, strided', () => {
  const rand = normalSampler(mulberry32(31));
  for (const v of VARIANTS) {
    const engine = engines[v];
    const heap = engine.heapBytes();
    for (const count of [1, 3, 4, 5, 8, 17, 50]) {
      for (const d of [1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 64, 1023, 1024]) {
        for (const stride of [d, d + 3]) {
          const q = Float32Array.from({ length: d }, rand);
          const keys = Float32Array.from({ length: (count - 1) * stride + d }, rand);
          const got = engine.dotScores(q, keys, count, stride);
          assert.equal(got.length, count);
          reference(q, keys, count, stride).forEach(({ e, bound }, j) => {
            assert.ok(Math.abs(got[j] - e) <= bound, `${v} count ${count} d ${d} stride ${stride} key ${j}: ${got[j]} vs ${e} (bound ${bound})`);
          });
        }
      }
    }
    // The defaults: count from the lengths, rows packed.
    assert.deepEqual(Array.from(engine.dotScores(new Float32Array([1, 2]), new Float32Array([3, 4, -1, 0.5]))), [11, 0]);
    assert.equal(engine.heapBytes(), heap, `${v}: nothing left on the heap`);
    for (const bad of [[new Float32Array(0), new Float32Array(4)], [[1, 2], new Float32Array(4)], [new Float32Array(2), new Float32Array(3), 2], [new Float32Array(2), new Float32Array(8), 2, 1], [new Float32Array(2), new Float32Array(8), 0]]) {
      assert.throws(() => engine.dotScores(...bad), TypeError, `${v}: ${bad.map(String)}`);
    }
    assert.equal(engine.heapBytes(), heap);
  }
});

test('the two builds give the same scores bit for bit where the SIMD twin sums as the scalar one (d ≤ 3)', () => {
  // The SIMD kernel sums in lanes of four, so from d = 4 on its rounding may differ; below, the order is the same.
  const rand = normalSampler(mulberry32(7));
  for (const d of [1, 2, 3]) {
    const q = Float32Array.from({ length: d }, rand);
    const keys = Float32Array.from({ length: 9 * d }, rand);
    assert.deepEqual(Array.from(engines.simd.dotScores(q, keys)), Array.from(engines.scalar.dotScores(q, keys)), `d ${d}`);
  }
});

test('the draws: one mulberry32, reproducible from the seed, nested in n and d, N(0, 1)', () => {
  assert.equal(mulberry32, pageMulberry, 'lib/math.js re-exports the one generator');
  const seeds = drawSeeds(7, 5);
  const g = mulberry32(7);
  assert.deepEqual(Array.from(seeds), Array.from({ length: 5 }, () => g() * 2 ** 32));
  assert.deepEqual(Array.from(drawSeeds(7, 3)), Array.from(seeds.subarray(0, 3)), 'more draws keep the first ones');
  const a = drawVectors(seeds[0], 11);
  assert.equal(a.length, 11 * CONFIG.mathDMax);
  assert.deepEqual(drawVectors(seeds[0], 11), a, 'the same seed, the same numbers');
  assert.deepEqual(drawVectors(seeds[0], 4), a.subarray(0, 4 * CONFIG.mathDMax), 'fewer keys: the first ones');
  // Box–Muller by hand for the first two numbers.
  const u = mulberry32(seeds[0]);
  const u1 = u(), u2 = u();
  const r = Math.sqrt(-2 * Math.log(1 - u1));
  assert.equal(a[0], Math.fround(r * Math.cos(2 * Math.PI * u2)));
  assert.equal(a[1], Math.fround(r * Math.sin(2 * Math.PI * u2)));
  // 200 draws of 11 × 1024: mean 0, variance 1, a normal's tails.
  let n = 0, s1 = 0, s2 = 0, beyond2 = 0;
  for (const seed of drawSeeds(1, 40)) for (const x of drawVectors(seed, 11)) { n++; s1 += x; s2 += x * x; if (Math.abs(x) > 2) beyond2++; }
  const mean = s1 / n;
  assert.ok(Math.abs(mean) < 0.01, `mean ${mean}`);
  assert.ok(Math.abs(s2 / n - mean * mean - 1) < 0.015, `variance ${s2 / n}`);
  assert.ok(Math.abs(beyond2 / n - 0.0455) < 0.003, `P(|z| > 2) = ${beyond2 / n}`);
});

test('the statistics of one draw: the seed exercise’s scores, a flat and a one-hot row', () => {
  const s = scoreStats([3, 1, 0, 1]);
  assert.deepEqual(s.weights.map((w) => Number(w.toFixed(4))), [0.7573, 0.1025, 0.0377, 0.1025]);
  assert.ok(Math.abs(s.top - 0.7573) < 1e-4);
  assert.ok(Math.abs(s.sd - Math.sqrt(((3 - 1.25) ** 2 + 2 * 0.25 ** 2 + 1.25 ** 2) / 3)) < 1e-12, 'n − 1 in the denominator');
  assert.ok(Math.abs(s.entropy - -s.weights.reduce((h, w) => h + w * Math.log2(w), 0)) < 1e-12);
  assert.ok(Math.abs(s.grad - 0.7573 * 0.2427) < 1e-4);
  const flat = scoreStats([5, 5, 5, 5], 2);
  assert.deepEqual([flat.sd, flat.top, flat.entropy, flat.grad], [0, 0.25, 2, 0.1875]);
  const sharp = scoreStats([1000, 0, -1000]);
  assert.deepEqual([sharp.top, sharp.entropy, sharp.grad], [1, 0, 0], 'saturated: the gradient vanishes');
  assert.equal(scoreStats([4, 2], 2).sd, scoreStats([2, 1]).sd);
  assert.equal(quantile([1, 2, 3, 4, 5], 0.5), 3);
  assert.equal(quantile([1, 2, 3, 4, 5], 0.1), 1.4);
  assert.equal(quantile([7], 0.9), 7);
});

test('the curves: the engine’s scores agree with double precision, and show the √d law', () => {
  assert.deepEqual(MATH_POWERS, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
  assert.ok(MATH_POWERS.every((p) => MATH_DIMS.includes(p)), 'every slider value is a curve point');
  const double = (q, keys, count, stride) => reference(q, keys, count, stride).map((r) => r.e);
  const opts = { seed: 3, keys: 10, draws: 60 };
  const exact = mathCurves(opts, double);
  for (const v of VARIANTS) {
    const c = mathCurves(opts, (...args) => engines[v].dotScores(...args));
    assert.deepEqual([c.seed, c.keys, c.draws, c.dims], [3, 10, 60, [...MATH_DIMS]]);
    for (const kind of ['raw', 'scaled']) {
      for (const s of MATH_STATS) {
        for (const part of ['mean', 'lo', 'hi']) {
          c[kind][s][part].forEach((x, i) => assert.ok(Math.abs(x - exact[kind][s][part][i]) <= 1e-4 * (1 + Math.abs(x)), `${v} ${kind} ${s} ${part} d=${c.dims[i]}: ${x} vs ${exact[kind][s][part][i]}`));
        }
      }
    }
    c.current.forEach((e, i) => assert.equal(e.length, 10, `d=${c.dims[i]}`));
  }
  // The lesson: raw scores spread as √d, scaled ones stay near 1; the raw
  // softmax saturates. (One draw's n scores share its query, so their
  // deviation estimates |q|, whose mean is below √d for small d: 0.80 √d at
  // d = 1, 0.97 √d at d = 16; and the n − 1 sample deviation of 10 scores
  // averages about 0.97 σ.)
  const c = mathCurves({ seed: 1, keys: 10 }, (...args) => engines.simd.dotScores(...args));
  c.dims.forEach((d, i) => {
    const lo = d >= 8 ? 0.88 : 0.7;
    const ratio = c.raw.sd.mean[i] / Math.sqrt(d);
    assert.ok(ratio > lo && ratio < 1.06, `raw σ / √d at d=${d}: ${ratio}`);
    assert.ok(c.scaled.sd.mean[i] > lo && c.scaled.sd.mean[i] < 1.06, `scaled σ at d=${d}: ${c.scaled.sd.mean[i]}`);
    assert.ok(Math.abs(c.raw.sd.mean[i] / c.scaled.sd.mean[i] - Math.sqrt(d)) < 1e-9 * Math.sqrt(d), 'the ratio is √d');
    assert.ok(c.raw.sd.lo[i] <= c.raw.sd.mean[i] && c.raw.sd.mean[i] <= c.raw.sd.hi[i], 'the band holds the mean');
  });
  const at = (d) => c.dims.indexOf(d);
  assert.ok(c.raw.top.mean[at(1024)] > 0.9 && c.scaled.top.mean[at(1024)] < 0.5, 'at d = 1024 the raw top weight saturates, the scaled one does not');
  assert.ok(c.raw.grad.mean[at(1024)] < 0.08 && c.scaled.grad.mean[at(1024)] > 0.15, 'and the raw gradient vanishes');
  assert.ok(c.raw.entropy.mean[at(1024)] < 0.5 && c.scaled.entropy.mean[at(1024)] > 2.5);
  assert.ok(Math.abs(c.scaled.top.mean[at(1024)] - c.scaled.top.mean[at(16)]) < 0.05, 'scaled: the same softmax at every d');
});

test('link values: the nearest valid value, or null for what is no number', () => {
  assert.deepEqual(parseMathValue('d', '512'), { value: 512, nearest: false });
  assert.deepEqual(parseMathValue('d', '600'), { value: 512, nearest: true });
  assert.deepEqual(parseMathValue('d', '1e9'), { value: 1024, nearest: true });
  assert.deepEqual(parseMathValue('d', '0'), { value: 1, nearest: true });
  assert.deepEqual(parseMathValue('keys', ' 12 '), { value: 12, nearest: false });
  assert.deepEqual(parseMathValue('keys', '99'), { value: 50, nearest: true });
  assert.deepEqual(parseMathValue('seed', '4294967296'), { value: 4294967295, nearest: true });
  assert.deepEqual(parseMathValue('seed', '1e400'), { value: 4294967295, nearest: true });
  for (const bad of ['', 'abc', '0x10', '1,5', 'NaN', 'Infinity', '--1']) assert.equal(parseMathValue('seed', bad), null, bad);
});

test('the controller: waits for the engine and the card, asks once per seed and n, the latest request is sent next, no retry loop on an error', async () => {
  const { createStore } = await import('../web/state.js');
  const { createMathCheck } = await import('../web/controllers/mathcheck.js');
  const store = createStore({ build: null, status: 'starting', mathSeed: null, mathKeys: null, mathD: null, mathResult: null, mathBusy: false, mathError: null });
  const asked = [];
  const client = { mathCheck: (req) => new Promise((resolve, reject) => asked.push({ req, resolve, reject })) };
  let active = false;
  let wake = null;
  const mc = createMathCheck(store, { client, seen: { active: () => active, onWake: (fn) => { wake = fn; return () => {}; } } });
  const tick = () => new Promise((r) => setTimeout(r, 0));
  await tick();
  assert.equal(asked.length, 0, 'no engine yet');
  store.set({ build: 'simd', status: 'ready' });
  await tick();
  assert.equal(asked.length, 0, 'the card is not on screen');
  active = true;
  wake();
  assert.equal(asked.length, 1);
  assert.deepEqual([asked[0].req.seed, asked[0].req.keys], [CONFIG.mathDefaultSeed, CONFIG.mathDefaultKeys]);
  assert.equal(store.get().mathBusy, true);
  // While it runs: d changes nothing; two new n values, only the last is asked for next.
  store.set({ mathD: 512 });
  store.set({ mathKeys: 20 });
  store.set({ mathKeys: 30 });
  await tick();
  assert.equal(asked.length, 1, 'one request at a time');
  asked[0].resolve({ curves: { keys: CONFIG.mathDefaultKeys } });
  await tick();
  assert.equal(asked.length, 2);
  assert.equal(asked[1].req.keys, 30, 'the latest request is next');
  assert.deepEqual([store.get().mathResult.keys, store.get().mathBusy], [CONFIG.mathDefaultKeys, true], 'the answer is shown meanwhile, busy');
  asked[1].resolve({ curves: { keys: 30 } });
  await tick();
  assert.deepEqual([store.get().mathResult.keys, store.get().mathResult.key, store.get().mathBusy], [30, `${CONFIG.mathDefaultSeed}:30:${CONFIG.mathDraws}`, false]);
  wake();
  assert.equal(asked.length, 2, 'the curves shown are not asked for again');
  // An error is said, and not asked again on every quiet moment; a restarted engine asks again.
  store.set({ mathSeed: 9 });
  await tick();
  asked[2].reject(new Error('stopped'));
  await tick();
  assert.match(store.get().mathError, /stopped/);
  assert.equal(store.get().mathBusy, false);
  wake();
  wake();
  assert.equal(asked.length, 3, 'no retry loop');
  store.set({ status: 'starting' });
  store.set({ status: 'ready' });
  await tick();
  assert.equal(asked.length, 4, 'asked again once the engine is ready again');
  asked[3].resolve({ curves: { keys: 30 } });
  await tick();
  assert.equal(store.get().mathError, null);
  mc.destroy();
});
