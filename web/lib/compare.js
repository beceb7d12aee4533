// compare.js - the side-by-side comparison's arithmetic (pure; tested in
// tests/web/compare.test.mjs): which models a link asks to compare, the
// difference heatmap α_A − α_B of two models on one sentence, and how widely
// each model's scores spread before and after the slider's divisor.

import { MODEL_ID } from '../config.js';
import { t as tr } from '../i18n/core.js';

/** At most this many models beside the main one (four columns in all). */
export const COMPARE_MAX = 3;

/**
 * The `vs=` value of a link ("en-fr-dot,en-fr-none") -> ids, in order,
 * without repeats, at most COMPARE_MAX; values that are not ids are dropped.
 * With report: { ids, bad: the parts that are no ids, extra: whether ids
 * past COMPARE_MAX were left out } (state.js says them). Empty parts
 * ("a,,b", a trailing comma) are no one's mistake and are skipped.
 */
export function parseCompareList(text, { report = false } = {}) {
  const ids = [];
  const bad = [];
  let extra = false;
  for (const part of typeof text === 'string' ? text.split(',') : []) {
    const id = part.trim();
    if (!id || ids.includes(id)) continue;
    if (!MODEL_ID.test(id)) { if (bad.length < 8) bad.push(id); continue; }
    if (ids.length === COMPARE_MAX) { extra = true; continue; }
    ids.push(id);
  }
  return report ? { ids, bad, extra } : ids;
}

/** The ids to compare, without the main model (it is always the first column). */
export function comparedIds(list, mainModel) {
  return (list ?? []).filter((id) => id !== mainModel).slice(0, COMPARE_MAX);
}

/** True when two figure matrices have the same source columns (same words or pieces, same order). */
export function sameColumns(a, b) {
  return !!a && !!b && a.S === b.S && a.colLabels.every((label, j) => label === b.colLabels[j]);
}

/**
 * α_A − α_B, row by row, for two figure matrices (lib/figure.js) of the same
 * sentence. Row t pairs model A's t-th target row with model B's: they may
 * write different words there, and the row labels say both. Rows past the
 * shorter translation are left out.
 *   -> { T, S, rowLabels, colLabels, alpha (Float32Array T*S, values in [-1, 1]),
 *        entropies: per-row total-variation distance ½ Σ_j |α_A − α_B| (0 … 1),
 *        rowMax: null, dropped: rows left out, difference: true }
 *   or { reason } when there is nothing to subtract.
 */
export function differenceMatrix(a, b, { labelA = 'A', labelB = 'B' } = {}) {
  if (!a?.alpha || !b?.alpha) return { reason: tr('compare.noAlpha', { name: !a?.alpha ? labelA : labelB }) };
  if (!sameColumns(a, b)) {
    return { reason: tr(a.level === 'pieces' || b.level === 'pieces' ? 'compare.misalignedPieces' : 'compare.misalignedWords', { a: labelA, b: labelB, colsA: a.colLabels.join(' '), colsB: b.colLabels.join(' ') }) };
  }
  const T = Math.min(a.T, b.T);
  const S = a.S;
  const alpha = new Float32Array(T * S);
  const tv = new Array(T).fill(0);
  for (let t = 0; t < T; t++) {
    let sum = 0;
    for (let j = 0; j < S; j++) {
      const d = a.alpha[t * S + j] - b.alpha[t * S + j];
      alpha[t * S + j] = d;
      sum += Math.abs(d);
    }
    tv[t] = sum / 2;
  }
  const rowLabels = Array.from({ length: T }, (_, t) => (a.rowLabels[t] === b.rowLabels[t] ? a.rowLabels[t] : `${a.rowLabels[t]} | ${b.rowLabels[t]}`));
  return { T, S, rowLabels, colLabels: a.colLabels.slice(), alpha, entropies: tv, rowMax: null, dropped: Math.max(a.T, b.T) - T, difference: true, level: a.level };
}

/**
 * How widely a translation's attention scores spread, the number behind √d:
 * for each decoder step the standard deviation of its raw scores e_tj over
 * the S source tokens, averaged over the T steps. The softmax sees the scores
 * times trace.scoreScale (÷ the divisor), so their spread there is raw ×
 * scoreScale; the wider that is, the more the row's weight gathers on its
 * largest score.
 *   trace: { T, S, scores (Float32Array T*S, raw), scoreScale }
 *   -> { raw, divisor, seen } or null (no scores: no attention, or S = 0)
 */
export function scoreSpread(trace) {
  const { T, S, scores, scoreScale } = trace ?? {};
  if (!scores || !(T > 0) || !(S > 0) || !(scoreScale > 0)) return null;
  let total = 0;
  for (let t = 0; t < T; t++) {
    let sum = 0;
    let squares = 0;
    for (let j = 0; j < S; j++) { const e = scores[t * S + j]; sum += e; squares += e * e; }
    const m = sum / S;
    total += Math.sqrt(Math.max(squares / S - m * m, 0));
  }
  const raw = total / T;
  return { raw, divisor: 1 / scoreScale, seen: raw * scoreScale };
}

/**
 * What the columns' spreads and entropies say together, for the card's note:
 * the attention column whose scores reach the softmax most widely spread
 * against the one whose reach it least spread, and whether the wider one has
 * the sharper rows (lower mean entropy), as the √d argument says it should.
 *   columns: [{ name, spread: scoreSpread(), entropy (mean bits) }]
 *   -> { wide, narrow, agrees } or null (fewer than two to compare)
 */
export function spreadVerdict(columns) {
  const usable = columns.filter((c) => c.spread && Number.isFinite(c.entropy));
  if (usable.length < 2) return null;
  const bySeen = usable.slice().sort((a, b) => b.spread.seen - a.spread.seen);
  const wide = bySeen[0];
  const narrow = bySeen[bySeen.length - 1];
  if (wide.spread.seen === narrow.spread.seen) return null;
  return { wide, narrow, agrees: wide.entropy < narrow.entropy };
}

/** Mean of a list of numbers (NaN when empty). */
export function mean(values) {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : NaN;
}
