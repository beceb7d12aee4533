// pin.js - "pin the finger" (cards/pin.js, controllers/pin.js), its pure
// parts (tested in tests/web/pin.test.mjs): the `pin=` value of a link, the
// weights a learner sets, how far they move α, and which target words the
// pinned translation changed.
//
// A pin is one decoder step whose α the engine replaces (engine.translate's
// `overrides`). It is counted in the engine's own units: `step` a decoder
// step (0-based, a piece with a subword model), the weights one per source
// position (the trace's S, pieces with a subword model). In the store and in
// a link it is either
//   { step, at }       all the weight on source position `at`   (pin=3:@2)
//   { step, weights }  S weights >= 0, not all zero              (pin=3:0,0.25,0.75,0)
// The engine divides the weights by their sum; the page keeps them rounded
// to WEIGHT_DECIMALS, so the link carries exactly what was decoded.

import { t, num } from '../i18n/core.js';

/** Decimals a weight keeps (in the store and in the link). */
export const WEIGHT_DECIMALS = 4;
/** The most weights a link may carry (a model reads at most a few hundred source tokens). */
export const MAX_PIN_WEIGHTS = 1024;
/** The largest step or position a link may name (as state.js parseStep). */
const MAX_INDEX = 1024;

const INDEX = /^[0-9]{1,4}$/;
const WEIGHT = /^[0-9]{1,6}(\.[0-9]{1,8})?$/;

/**
 * The `pin=` value of a link -> { pin } or { error: { reason, text, ... } }.
 * reason: 'format' (not STEP:@INDEX or STEP:W,W,…), 'notNumber' (weight i is
 * not a plain decimal: NaN, Infinity, 1e3, empty), 'negative', 'allZero',
 * 'tooMany'. Whether the step and the length fit the translation is known
 * only once there is one (checkPin).
 */
export function parsePin(text) {
  if (typeof text !== 'string') return { error: { reason: 'format', text: '' } };
  const shown = text.length > 80 ? `${text.slice(0, 79)}…` : text;
  const bad = (reason, extra = {}) => ({ error: { reason, text: shown, ...extra } });
  const colon = text.indexOf(':');
  if (colon < 0) return bad('format');
  const stepText = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (!INDEX.test(stepText) || Number(stepText) > MAX_INDEX) return bad('format');
  const step = Number(stepText);
  if (rest.startsWith('@')) {
    const at = rest.slice(1);
    if (!INDEX.test(at) || Number(at) > MAX_INDEX) return bad('format');
    return { pin: { step, at: Number(at) } };
  }
  const parts = rest.split(',');
  if (parts.length > MAX_PIN_WEIGHTS) return bad('tooMany', { max: MAX_PIN_WEIGHTS });
  const weights = [];
  for (let i = 0; i < parts.length; i++) {
    const w = parts[i].trim();
    if (WEIGHT.test(w)) { weights.push(Number(w)); continue; }
    if (w.startsWith('-') && WEIGHT.test(w.slice(1)) && Number(w.slice(1)) > 0) return bad('negative', { i: i + 1, w });
    return bad('notNumber', { i: i + 1, w: w.length > 20 ? `${w.slice(0, 19)}…` : w });
  }
  if (!weights.some((w) => w > 0)) return bad('allZero');
  return { pin: { step, weights } };
}

/** A weight as the link writes it: at most WEIGHT_DECIMALS decimals, no trailing zeros ("0.25", "0", "1"). */
const weightText = (w) => String(Number(w.toFixed(WEIGHT_DECIMALS)));

/** The `pin=` value for a pin: STEP:@INDEX when all the weight is on one position, else STEP:W,W,… */
export function pinToString(pin) {
  if (pin.at != null) return `${pin.step}:@${pin.at}`;
  const nonzero = pin.weights.flatMap((w, j) => (w > 0 ? [j] : []));
  if (nonzero.length === 1) return `${pin.step}:@${nonzero[0]}`;
  return `${pin.step}:${pin.weights.map(weightText).join(',')}`;
}

/** True when two pins (or nulls) are the same pin (the same link value). */
export function samePin(a, b) {
  if (!a || !b) return !a && !b;
  return pinToString(a) === pinToString(b);
}

/** The weights a pin gives the engine for S source positions: number[S] (one-hot for { at }). */
export function pinWeights(pin, S) {
  if (pin.at != null) return Array.from({ length: S }, (_, j) => (j === pin.at ? 1 : 0));
  return pin.weights.slice();
}

/** The α row the engine forces: the weights divided by their sum (number[S]). */
export function forcedRow(pin, S) {
  const w = pinWeights(pin, S);
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / sum);
}

/**
 * Whether a pin fits a translation (the trace it would re-decode): null, or
 * { reason, ... } with reason 'noAttention', 'step' (the translation has
 * fewer steps), 'index' (no such source position) or 'length' (not one
 * weight per source position).
 */
export function checkPin(pin, trace) {
  if (!trace.alpha) return { reason: 'noAttention' };
  if (pin.step >= trace.T) return { reason: 'step', step: pin.step, T: trace.T };
  if (pin.at != null && pin.at >= trace.S) return { reason: 'index', at: pin.at, S: trace.S };
  if (pin.weights && pin.weights.length !== trace.S) return { reason: 'length', n: pin.weights.length, S: trace.S };
  return null;
}

/** Why a pin was not applied, in words ({ reason, ... } from parsePin or checkPin). */
export function pinProblemText(problem, text) {
  const p = { text: problem.text ?? text ?? '' };
  switch (problem.reason) {
    case 'notNumber': return t('pin.bad.notNumber', { ...p, i: num(problem.i), w: problem.w });
    case 'negative': return t('pin.bad.negative', { ...p, i: num(problem.i), w: problem.w });
    case 'allZero': return t('pin.bad.allZero', p);
    case 'tooMany': return t('pin.bad.tooMany', { ...p, max: num(problem.max) });
    case 'noAttention': return t('pin.bad.noAttention', p);
    case 'step': return t('pin.bad.step', { ...p, step: num(problem.step), n: problem.T, last: num(problem.T - 1) });
    case 'index': return t('pin.bad.index', { ...p, at: num(problem.at), n: problem.S, last: num(problem.S - 1) });
    case 'length': return t('pin.bad.length', { ...p, count: num(problem.n), n: problem.S });
    default: return t('pin.bad.format', p);
  }
}

/** Weights rounded as the store and the link keep them. */
export function roundWeights(weights) {
  return weights.map((w) => Number(Math.max(0, w).toFixed(WEIGHT_DECIMALS)));
}

/**
 * Set the weight of one group of source positions (a word's pieces, or one
 * piece: { first, count }) to v in [0, 1], keeping the total 1: the group's
 * pieces share v evenly; every other position keeps its share of the rest
 * (scaled by (1 − v) / what they had), or, when they had nothing, the rest
 * is shared evenly among them. weights: number[S], summing to 1 (an α row).
 *   -> number[S]
 */
export function setGroupWeight(weights, group, v) {
  const S = weights.length;
  const value = Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0));
  const inGroup = (j) => j >= group.first && j < group.first + group.count;
  const others = S - group.count;
  let had = 0;
  for (let j = 0; j < S; j++) if (!inGroup(j)) had += Math.max(0, weights[j]);
  // Nowhere else to put the rest: the group keeps everything.
  const own = others === 0 ? 1 : value;
  const rest = 1 - own;
  return weights.map((w, j) => {
    if (inGroup(j)) return own / group.count;
    return had > 0 ? (Math.max(0, w) / had) * rest : rest / others;
  });
}

/**
 * α at one decoder step, at the level the page shows: number[groups.length],
 * each group's (word's) pieces summed (groups: [{ first, count }], e.g.
 * lib/words.js sourceWords; one group per position for pieces).
 */
export function groupRow(row, groups) {
  return groups.map((g) => {
    let s = 0;
    for (let j = g.first; j < g.first + g.count; j++) s += row[j];
    return s;
  });
}

/** The α row of decoder step `step` of a trace: number[S]. */
export function alphaRow(trace, step) {
  return Array.from(trace.alpha.subarray(step * trace.S, (step + 1) * trace.S));
}

/** Total variation distance ½ Σ |p − q| between two rows of weights (0: the same … 1: no overlap). */
export function totalVariation(p, q) {
  let s = 0;
  for (let j = 0; j < p.length; j++) s += Math.abs(p[j] - q[j]);
  return s / 2;
}

/** Index of the largest value (the first of equals). */
const argmax = (row) => row.reduce((b, x, j) => (x > row[b] ? j : b), 0);

/**
 * What the pin changed at its step, at the level shown (groups as groupRow):
 * { before: number[], after: number[], tv, from (largest before), to
 * (largest after), oneHot (all the weight on one group: its index, or -1),
 * hadThere (the weight `to` had before) }.
 */
export function pinChange(originalRow, forced, groups) {
  const before = groupRow(originalRow, groups);
  const after = groupRow(forced, groups);
  const to = argmax(after);
  const oneHot = after[to] > 1 - 1e-6 ? to : -1;
  return { before, after, tv: totalVariation(before, after), from: argmax(before), to, oneHot, hadThere: before[to] };
}

/**
 * A word-level diff of two translations (arrays of words): the fewest
 * substitutions, deletions and insertions that turn `a` into `b` (word edit
 * distance, each edit 1). -> { distance, ops: [{ op: 'same'|'sub'|'del'|'ins',
 * a?: index in a, b?: index in b }] in order, changedA: bool[a.length] (words
 * of a that were replaced or dropped), changedB: bool[b.length] (words of b
 * that are new or replace others) }. Ties prefer keeping words in place.
 */
export function diffWords(a, b) {
  const n = a.length;
  const m = b.length;
  // d[i][j]: distance between a[i:] and b[j:] (suffixes: the walk below reads it front to back).
  const d = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n; i >= 0; i--) {
    for (let j = m; j >= 0; j--) {
      if (i === n) d[i][j] = m - j;
      else if (j === m) d[i][j] = n - i;
      else d[i][j] = a[i] === b[j] ? d[i + 1][j + 1] : 1 + Math.min(d[i + 1][j + 1], d[i + 1][j], d[i][j + 1]);
    }
  }
  const ops = [];
  const changedA = new Array(n).fill(false);
  const changedB = new Array(m).fill(false);
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j] && d[i][j] === d[i + 1][j + 1]) { ops.push({ op: 'same', a: i++, b: j++ }); continue; }
    if (i < n && j < m && d[i][j] === 1 + d[i + 1][j + 1]) { changedA[i] = true; changedB[j] = true; ops.push({ op: 'sub', a: i++, b: j++ }); continue; }
    if (i < n && d[i][j] === 1 + d[i + 1][j]) { changedA[i] = true; ops.push({ op: 'del', a: i++ }); continue; }
    changedB[j] = true;
    ops.push({ op: 'ins', b: j++ });
  }
  return { distance: d[0][0], ops, changedA, changedB };
}

/** The words of a translation as the diff compares them: the trace's target words, without </s>. */
export function translationWords(trace) {
  const words = trace.targetWords ?? trace.target.map((p) => ({ text: p.text, isEnd: p.isEnd }));
  return words.filter((w) => !w.isEnd).map((w) => w.text);
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * The translation string cut into its words and what lies between them, so
 * the changed words can be marked without respacing the text ("l'icône",
 * "fenêtre."): [{ text, word }] in order, word = the index in
 * translationWords(trace) or null for the gaps. Uses the target pieces'
 * UTF-8 spans (engine.js byteStart/byteEnd); a trace without them gives the
 * words joined by spaces.
 */
export function translationSegments(trace) {
  const groups = (trace.targetWords ?? trace.target.map((p, t) => ({ text: p.text, isEnd: p.isEnd, first: t, count: 1 })))
    .filter((w) => !w.isEnd);
  const spans = groups.map((g) => [trace.target[g.first]?.byteStart, trace.target[g.first + g.count - 1]?.byteEnd]);
  if (spans.some(([s, e]) => !Number.isInteger(s) || !Number.isInteger(e))) {
    return groups.flatMap((g, i) => (i ? [{ text: ' ', word: null }, { text: g.text, word: i }] : [{ text: g.text, word: i }]));
  }
  const bytes = utf8.encode(trace.translation);
  const out = [];
  let at = 0;
  spans.forEach(([s, e], i) => {
    if (s > at) out.push({ text: fromUtf8.decode(bytes.subarray(at, s)), word: null });
    out.push({ text: fromUtf8.decode(bytes.subarray(s, e)), word: i });
    at = Math.max(at, e);
  });
  if (at < bytes.length) out.push({ text: fromUtf8.decode(bytes.subarray(at)), word: null });
  return out;
}
