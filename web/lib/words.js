// words.js - from subword pieces to words (pure; tested in tests/web/words.test.mjs).
//
// A model with a subword vocabulary reads and writes pieces: "unsaved" may be
// "un" + "saved". The engine's trace then says which word each piece belongs
// to (source[j].word, target[t].word, sourceWords, targetWords: pieces
// first … first+count-1). The heatmap shows words by default:
//   - a source word's column is the SUM of its pieces' α (the attention the
//     step gave to that word), so each row still sums to 1;
//   - a target word's row is the MEAN of its pieces' rows (each piece is one
//     decoder step; their mean again sums to 1).
// A trace without those fields (today's word-level models) is its own word
// matrix: every piece is a word.

/** Groups as [{ text, first, count }] covering 0 … n-1 in order, or null if `groups` does not. */
function checkedGroups(groups, n) {
  if (!Array.isArray(groups) || groups.length === 0) return null;
  let next = 0;
  for (const g of groups) {
    if (!g || g.first !== next || !(g.count >= 1) || !Number.isInteger(g.count)) return null;
    next += g.count;
  }
  return next === n ? groups : null;
}

const targetText = (p) => (p.isEnd ? '</s>' : p.text);

/** The source words of a trace: [{ text, first, count, start?, end? }]. */
export function sourceWords(trace) {
  return checkedGroups(trace.sourceWords, trace.S)
    ?? trace.source.map((p, j) => ({ text: p.text, first: j, count: 1, start: p.start, end: p.end }));
}

/** The target words of a trace: [{ text, first, count }]. */
export function targetWords(trace) {
  return checkedGroups(trace.targetWords, trace.T)
    ?? trace.target.map((p, t) => ({ text: targetText(p), first: t, count: 1 }));
}

/** The word each piece belongs to: Int32Array(n) of group indices. */
export function pieceToWord(groups, n) {
  const out = new Int32Array(n);
  groups.forEach((g, w) => out.fill(w, g.first, g.first + g.count));
  return out;
}

/**
 * The matrix a heatmap shows, at the level of words or of pieces:
 *   { level, T, S, rowLabels, colLabels, alpha (Float32Array T*S or null),
 *     rowGroups, colGroups, identity }
 * identity: every word is a single piece (the two levels are the same matrix).
 */
export function alignmentMatrix(trace, { pieces = false } = {}) {
  const tw = targetWords(trace);
  const sw = sourceWords(trace);
  const identity = tw.length === trace.T && sw.length === trace.S;
  if (pieces || identity) {
    return {
      level: pieces ? 'pieces' : 'words', T: trace.T, S: trace.S,
      rowLabels: trace.target.map(targetText), colLabels: trace.source.map((p) => p.text),
      alpha: trace.alpha ?? null,
      rowGroups: trace.target.map((p, t) => ({ text: targetText(p), first: t, count: 1 })),
      colGroups: trace.source.map((p, j) => ({ text: p.text, first: j, count: 1 })),
      identity,
    };
  }
  return {
    level: 'words', T: tw.length, S: sw.length,
    rowLabels: tw.map((w) => w.text), colLabels: sw.map((w) => w.text),
    alpha: trace.alpha ? wordAlpha(trace.alpha, trace.T, trace.S, tw, sw) : null,
    rowGroups: tw, colGroups: sw, identity,
  };
}

/** Word-level α: columns summed over a word's pieces, rows averaged over a word's pieces. */
export function wordAlpha(alpha, T, S, tw, sw) {
  const colOf = pieceToWord(sw, S);
  const Sw = sw.length;
  const out = new Float32Array(tw.length * Sw);
  tw.forEach((w, r) => {
    const acc = new Float64Array(Sw);
    for (let t = w.first; t < w.first + w.count; t++) {
      for (let j = 0; j < S; j++) acc[colOf[j]] += alpha[t * S + j];
    }
    for (let c = 0; c < Sw; c++) out[r * Sw + c] = acc[c] / w.count;
  });
  return out;
}

/** The row of a figure matrix (alignmentMatrix) that decoder step `step` is in: its word's row, or its piece's. */
export function rowOfStep(matrix, step) {
  return Math.max(0, matrix.rowGroups.findIndex((g) => step >= g.first && step < g.first + g.count));
}

/** For decoder step (piece) t: { word, index, of } — the target word it belongs to and its place in it. */
export function wordOfStep(trace, t) {
  const tw = targetWords(trace);
  const w = pieceToWord(tw, trace.T)[t];
  const g = tw[w];
  return { word: g.text, wordIndex: w, index: t - g.first, of: g.count };
}

// The subword word mark (models/FORMAT.md 5.2): a piece that begins a word
// starts with it; a piece without it continues the word before it.
export const WORD_MARK = '\u2581';
// How a continuation piece is written where pieces stand alone (the
// step-through's candidates): a middle dot before it, as in "·at".
export const CONTINUES_MARK = '\u00b7';

/**
 * A vocabulary piece as a reader sees it: "▁chat" → { text: 'chat',
 * continues: false }, "at" → { text: '·at', continues: true }. Special
 * tokens (</s>, <unk>) and byte pieces (<0xE2>) are shown as they are.
 * A word model's tokens are whole words: shown unchanged.
 */
export function displayPiece(token, { subwords = true } = {}) {
  const s = String(token ?? '');
  if (!subwords || /^<.*>$/.test(s)) return { text: s, continues: false };
  if (s.startsWith(WORD_MARK)) return { text: s.slice(WORD_MARK.length) || WORD_MARK, continues: false };
  return { text: `${CONTINUES_MARK}${s}`, continues: true };
}
