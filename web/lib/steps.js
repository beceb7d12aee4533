// steps.js - what the step-through shows at one step, at the heatmap's level
// (pure; tested in tests/web/steps.test.mjs).
//
// The store's `step` is always a decoder step (one piece of a subword
// model): the link, the pin and the quiz speak of decoder steps. What the
// reader steps through is the heatmap's matrix (lib/figure.js, st.matrix):
// at word level a step is a target WORD, its row of the word matrix (α over
// source words: a word's column is the sum of its pieces', a target word's
// row the mean of its pieces' rows), and the pieces that make the word are
// sub-steps inside it ("piece 1 of 2"); at piece level a step is a piece.
// So the bars of the step view are, by construction, the marked row of the
// heatmap, at either level.

import { rowOfStep, wordOfStep } from './words.js';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * The text each matrix row adds to the translation, detokenised (the
 * engine's own spacing: "L'" then "un", not "L' un"):
 *   [{ lead, text }] per row: lead the whitespace before it ('' when it is
 *   glued to the row before), text the row's own characters ('</s>' for the end).
 * Uses the pieces' byte spans in trace.translation (byteStart, byteEnd, as
 * engine.js gives them); a trace without them (a hand-made one) is joined
 * with spaces.
 */
export function rowTexts(trace, matrix) {
  const groups = matrix.rowGroups;
  const spans = trace.target.every((p) => Number.isInteger(p.byteStart) && Number.isInteger(p.byteEnd));
  if (!spans || typeof trace.translation !== 'string') {
    return groups.map((g, r) => ({ lead: r ? ' ' : '', text: g.text }));
  }
  const bytes = utf8.encode(trace.translation);
  let prevEnd = 0;
  return groups.map((g) => {
    const first = trace.target[g.first];
    const last = trace.target[g.first + g.count - 1];
    if (first.isEnd) return { lead: prevEnd > 0 ? ' ' : '', text: '</s>' };
    const start = Math.max(prevEnd, first.byteStart);
    const end = Math.max(start, last.byteEnd);
    const lead = fromUtf8.decode(bytes.subarray(prevEnd, start));
    const text = fromUtf8.decode(bytes.subarray(start, end));
    prevEnd = end;
    // Whatever separates two rows in the translation is whitespace (or nothing).
    return { lead: lead.trim() === '' ? lead : ' ', text };
  });
}

/**
 * The step view at decoder step `step`, for the heatmap's matrix:
 *   { level, row (the matrix row, = the heatmap's marked row), rows (how many steps the reader steps through),
 *     first, count (the decoder steps of the row: its pieces), piece (step's place in them, 0-based),
 *     bars (Float32Array(matrix.S): α of the row over the matrix's columns, or null without attention),
 *     best (the column with the largest weight, -1 without), labels (matrix.colLabels),
 *     word (the row's label), prev, next (the decoder step that Back and Next go to, -1 at the ends),
 *     lastStep (the decoder step End goes to) }
 */
export function stepView(matrix, step) {
  const rows = matrix.T;
  const row = rowOfStep(matrix, step);
  const g = matrix.rowGroups[row];
  const bars = matrix.alpha ? matrix.alpha.subarray(row * matrix.S, (row + 1) * matrix.S) : null;
  let best = -1;
  if (bars) { best = 0; for (let j = 1; j < bars.length; j++) if (bars[j] > bars[best]) best = j; }
  return {
    level: matrix.level, row, rows, first: g.first, count: g.count,
    piece: Math.min(g.count - 1, Math.max(0, step - g.first)),
    bars, best, labels: matrix.colLabels, word: matrix.rowLabels[row],
    prev: row > 0 ? matrix.rowGroups[row - 1].first : -1,
    next: row < rows - 1 ? matrix.rowGroups[row + 1].first : -1,
    lastStep: matrix.rowGroups[rows - 1].first,
  };
}

/** The decoder step of matrix row `row` (its first piece), clamped to the matrix. */
export function stepOfRow(matrix, row) {
  const r = Math.max(0, Math.min(matrix.T - 1, row | 0));
  return matrix.rowGroups[r].first;
}

/** The decoder step `delta` rows of the step-through away from `step` (rows at the matrix's
 * level: words, or pieces), clamped to the first and last row (±Infinity: those). */
export function stepMovedBy(matrix, step, delta) {
  const row = Math.max(0, Math.min(matrix.T - 1, rowOfStep(matrix, step) + delta));
  return stepOfRow(matrix, row);
}

/**
 * What the cards that speak of one decoder step (the pin, the comparison,
 * the local window) call it, at the matrix's level, as the step view does:
 *   { level, number (the step view's "step i / n", 1-based: the matrix row + 1),
 *     of (n: the matrix's rows), row, text (the row's label: a word, or a piece),
 *     piece (the step's own piece, '</s>' at the end), word (the target word it is part of),
 *     i, n (its place in that word: piece i of n, 1-based; n = 1 for a word of one piece) }
 * At word level the pieces of a word of several are sub-steps of one step
 * (text the word, piece the sub-step's); at piece level each is a step.
 */
export function stepName(matrix, trace, step) {
  const t = Math.max(0, Math.min(trace.T - 1, step | 0));
  const row = rowOfStep(matrix, t);
  const p = trace.target[t];
  const w = wordOfStep(trace, t);
  return {
    level: matrix.level, number: row + 1, of: matrix.T, row, text: matrix.rowLabels[row],
    piece: p.isEnd ? '</s>' : p.text, word: w.word, i: w.index + 1, n: w.of,
  };
}
