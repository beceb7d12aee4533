// mathcheck.js - the numbers behind the math check card (cards/mathcheck.js):
// why a dot product's scores are divided by √d. A query and n keys with
// entries drawn from N(0, 1), scored by their dot products (by the engine's
// own kernel: the worker passes engine.dotScores in), raw and divided by √d,
// and per draw four statistics of each: the scores' standard deviation, the
// softmax's top weight, its entropy in bits, and its largest gradient entry
// max α(1 − α). The curves are their mean over many draws at each d, with a
// band between two quantiles. Pure (no DOM, no UI strings), so the engine
// worker runs it and the tests call it from Node.
//
// The draws, exactly (what a test reproduces from the seed alone):
//   drawSeeds(seed, D): D 32-bit seeds, mulberry32(seed)'s first D outputs × 2^32;
//   drawVectors(drawSeed, n + 1): one mulberry32(drawSeed) stream through
//     normalSampler (Box–Muller), rounded to f32, row-major (n + 1, 1024): row 0
//     the query, rows 1 … n the keys. At dimension d every vector is the first d
//     entries of its row, so one draw moves smoothly as d grows, and more keys
//     keep the first ones. Draw 0 is "the current draw" the card shows as bars.

import { CONFIG } from '../config.js';
import { mulberry32, normalSampler } from './random.js';
import { finish } from './slices.js';

/** The slider's key dimensions: the powers of two 1 … CONFIG.mathDMax. */
export const MATH_POWERS = Object.freeze(Array.from({ length: Math.log2(CONFIG.mathDMax) + 1 }, (_, k) => 2 ** k));

/** Where the curves are computed: quarter octaves, rounded (every power of two among them), 1 … mathDMax. */
export const MATH_DIMS = Object.freeze([...new Set(Array.from({ length: 4 * Math.log2(CONFIG.mathDMax) + 1 }, (_, k) => Math.round(2 ** (k / 4))))]);

/** The four statistics, in the card's order. */
export const MATH_STATS = Object.freeze(['sd', 'top', 'entropy', 'grad']);

/** D seeds for the draws of `seed` (mulberry32's first D outputs as 32-bit integers). */
export function drawSeeds(seed, draws) {
  const next = mulberry32(seed);
  return Uint32Array.from({ length: draws }, () => next() * 4294967296);
}

/** rows × dim numbers from N(0, 1) for one draw, rounded to f32, row-major: row 0 the query, then the keys. */
export function drawVectors(drawSeed, rows, dim = CONFIG.mathDMax) {
  const z = normalSampler(mulberry32(drawSeed));
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) out[i] = z();
  return out;
}

/**
 * The statistics of one draw's scores e (n) divided by `divisor`:
 * { sd (standard deviation, n − 1 in the denominator), top (the largest
 * softmax weight), entropy (bits), grad (max α(1 − α)), weights (α) }.
 * In double precision.
 */
export function scoreStats(e, divisor = 1) {
  const n = e.length;
  const x = Array.from(e, (v) => v / divisor);
  const mean = x.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(x.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const m = Math.max(...x);
  const ex = x.map((v) => Math.exp(v - m));
  const sum = ex.reduce((a, b) => a + b, 0);
  const weights = ex.map((v) => v / sum);
  let top = 0, entropy = 0, grad = 0;
  for (const w of weights) {
    if (w > top) top = w;
    if (w > 0) entropy -= w * Math.log2(w);
    if (w * (1 - w) > grad) grad = w * (1 - w);
  }
  return { sd, top, entropy, grad, weights };
}

/** The q-quantile of sorted numbers, linearly between order statistics. */
export function quantile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return lo + 1 < sorted.length ? sorted[lo] + (at - lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

/**
 * The curves for `seed` and `keys` n over `draws` draws at every MATH_DIMS d.
 * dotScores(q (d), keys, count, stride) -> Float32Array(count): the scores
 * (engine.dotScores in the worker). Returns
 *   { seed, keys, draws, dims, band,
 *     raw | scaled: { sd | top | entropy | grad: { mean, lo, hi } } (arrays over dims),
 *     current: [scores of draw 0 at each dim] (arrays of n) }
 * as plain arrays (a worker posts it as it is).
 */
export function mathCurves(request, dotScores) {
  return finish(mathCurvesSteps(request, dotScores));
}

/**
 * mathCurves as a generator that yields after each draw (lib/slices.js: the
 * worker runs it in slices, so that a translation asked for meanwhile is not
 * kept waiting behind its few hundred thousand scores); returns mathCurves's value.
 */
export function* mathCurvesSteps({ seed, keys, draws = CONFIG.mathDraws, band = CONFIG.mathBand }, dotScores) {
  const D = CONFIG.mathDMax;
  const dims = MATH_DIMS;
  const values = { raw: {}, scaled: {} };
  for (const kind of ['raw', 'scaled']) for (const s of MATH_STATS) values[kind][s] = dims.map(() => new Float64Array(draws));
  const current = [];
  const seeds = drawSeeds(seed, draws);
  for (let i = 0; i < draws; i++) {
    const v = drawVectors(seeds[i], keys + 1, D);
    const q = v.subarray(0, D);
    const k = v.subarray(D);
    dims.forEach((d, di) => {
      const e = dotScores(q.subarray(0, d), k, keys, D);
      if (i === 0) current.push(Array.from(e));
      const raw = scoreStats(e, 1);
      const scaled = scoreStats(e, Math.sqrt(d));
      for (const s of MATH_STATS) {
        values.raw[s][di][i] = raw[s];
        values.scaled[s][di][i] = scaled[s];
      }
    });
    yield i;
  }
  const summary = (per) => {
    const mean = [], lo = [], hi = [];
    for (const arr of per) {
      mean.push(arr.reduce((a, b) => a + b, 0) / arr.length);
      const sorted = Float64Array.from(arr).sort();
      lo.push(quantile(sorted, band[0]));
      hi.push(quantile(sorted, band[1]));
    }
    return { mean, lo, hi };
  };
  const out = { seed, keys, draws, dims: [...dims], band: [...band], current };
  for (const kind of ['raw', 'scaled']) out[kind] = Object.fromEntries(MATH_STATS.map((s) => [s, summary(values[kind][s])]));
  return out;
}

/** The draws a widget's state asks for (its mathSeed, mathKeys, or the defaults): { seed, keys, draws, key }. */
export function mathRequest(st) {
  const seed = st.mathSeed ?? CONFIG.mathDefaultSeed;
  const keys = st.mathKeys ?? CONFIG.mathDefaultKeys;
  const draws = CONFIG.mathDraws;
  return { seed, keys, draws, key: `${seed}:${keys}:${draws}` };
}
