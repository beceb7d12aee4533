// math.js - the small numerics the page shows (pure; tested in Node).

import { fixed, uiLanguage, decimalMark } from '../i18n/index.js';
import { mulberry32 } from './random.js';

// The page's one seeded generator (lib/random.js, which the engine worker can import without the UI's strings).
export { mulberry32 };

/** Softmax of `scores` after multiplying by `scale` (max-subtracted, stable).
 *  Returns { exps, sum, weights } so the by-hand panel can show each step. */
export function softmaxSteps(scores, scale = 1) {
  const scaled = scores.map((s) => s * scale);
  const max = Math.max(...scaled);
  // The panel shows e^score itself (not e^(score-max)) because that is what a
  // student writes by hand; the max shift is only used when it would overflow.
  const shift = max > 80 ? max : 0;
  const exps = scaled.map((s) => Math.exp(s - shift));
  const sum = exps.reduce((a, b) => a + b, 0);
  return { scaled, exps, sum, weights: exps.map((e) => e / sum), shifted: shift !== 0 };
}

/** Context vector Σ_i w_i v_i for values given as arrays of equal length. */
export function weightedSum(weights, values) {
  const dim = values[0]?.length ?? 0;
  const out = new Array(dim).fill(0);
  weights.forEach((w, i) => values[i].forEach((v, k) => { out[k] += w * v; }));
  return out;
}

/** Shannon entropy in bits of one probability row. */
export function entropyBits(row) {
  let h = 0;
  for (const p of row) if (p > 0) h -= p * Math.log2(p);
  return h;
}

/** Rows of a row-major (T, S) matrix as plain arrays. */
export function rows(matrix, T, S) {
  const out = [];
  for (let t = 0; t < T; t++) out.push(Array.from(matrix.subarray ? matrix.subarray(t * S, (t + 1) * S) : matrix.slice(t * S, (t + 1) * S)));
  return out;
}

/** Per-row entropy (bits) of an attention matrix; [] when there is none. */
export function rowEntropies(alpha, T, S) {
  if (!alpha) return [];
  return rows(alpha, T, S).map(entropyBits);
}

export function argmax(arr) {
  let best = 0;
  for (let i = 1; i < arr.length; i++) if (arr[i] > arr[best]) best = i;
  return best;
}

export function clamp(x, lo, hi) {
  return Math.min(hi, Math.max(lo, x));
}

/**
 * Fixed decimals in the UI language's decimal mark (0.757, 0,757), with a
 * real minus sign so columns of numbers line up. For what people read; files
 * (CSV, JSON) keep JavaScript's own numbers.
 */
export function fmt(x, digits = 3) {
  if (!Number.isFinite(x)) return String(x);
  return fmtLocale(x, digits);
}

/**
 * fmt(x, digits) as one cached function, for the hundreds of numbers of a
 * table rewritten on every slider step: the same text (the value is rounded
 * by toFixed first in fmt too, so the Intl formatter only localises the
 * decimal mark; there is no grouping), without an Intl call per number.
 * The decimal mark is read again when the UI language changes.
 */
export function fixedFormatter(digits = 3) {
  let lang = null;
  let mark = '.';
  return (x) => {
    if (!Number.isFinite(x)) return String(x);
    if (uiLanguage() !== lang) { lang = uiLanguage(); mark = decimalMark(); }
    const s = x.toFixed(digits);
    const local = mark === '.' ? s : s.replace('.', mark);
    return local.charCodeAt(0) === 45 ? `\u2212${local.slice(1)}` : local;
  };
}

/** `digits` decimals in the UI language, minus as U+2212. */
export function fmtLocale(x, digits) {
  const s = fixed(Number(x.toFixed(digits)), digits);
  return s.replace(/^[-\u2212]/, '\u2212');
}

/** (0.757, 0.102): a vector as the reader writes it; `;` between numbers where the comma is the decimal mark. */
export function fmtVector(xs, digits = 3) {
  const parts = xs.map((x) => fmt(x, digits));
  return `(${parts.join(fmt(0.5, 1).includes(',') ? '; ' : ', ')})`;
}

/** A divisor like 0.0625 or 11.31 printed compactly. */
export function fmtDivisor(x) {
  if (x >= 100) return fmtLocale(x, 0);
  if (x >= 10) return fmtLocale(x, 1);
  if (x >= 1) return fmtLocale(x, 2);
  const digits = Math.max(0, 1 - Math.floor(Math.log10(Math.abs(Number(x.toPrecision(2))))));
  return fmtLocale(Number(x.toPrecision(2)), digits);
}
