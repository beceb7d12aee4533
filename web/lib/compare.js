// compare.js - the side-by-side comparison's arithmetic (pure; tested in
// tests/web/compare.test.mjs): which models a link asks to compare, and the
// difference heatmap α_A − α_B of two models on one sentence.

import { MODEL_ID } from '../config.js';
import { t as tr } from '../i18n/core.js';

/** At most this many models beside the main one (four columns in all). */
export const COMPARE_MAX = 3;

/**
 * The `vs=` value of a link ("en-fr-dot,en-fr-none") -> ids, in order,
 * without repeats, at most COMPARE_MAX; values that are not ids are dropped.
 */
export function parseCompareList(text) {
  if (typeof text !== 'string') return [];
  const out = [];
  for (const part of text.split(',')) {
    const id = part.trim();
    if (MODEL_ID.test(id) && !out.includes(id)) out.push(id);
    if (out.length === COMPARE_MAX) break;
  }
  return out;
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

/** Mean of a list of numbers (NaN when empty). */
export function mean(values) {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : NaN;
}
