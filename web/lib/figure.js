// figure.js - what a heatmap shows for one trace (pure): the word- or
// piece-level matrix (lib/words.js) with each row's entropy and largest
// weight. The main heatmap and every column of the comparison use it.

import { rowEntropies } from './math.js';
import { alignmentMatrix } from './words.js';

/** Largest α of each row (for the per-row colour scale): Float32Array(T). */
export function rowMaxima(alpha, T, S) {
  const out = new Float32Array(T);
  for (let t = 0; t < T; t++) {
    let m = 0;
    for (let j = 0; j < S; j++) m = Math.max(m, alpha[t * S + j]);
    out[t] = m;
  }
  return out;
}

/** trace + model info -> { ...alignmentMatrix, trace, info, words, entropies (bits, per row), rowMax }. */
export function figureMatrix(trace, info, pieces) {
  const m = alignmentMatrix(trace, { pieces });
  return {
    ...m, trace, info,
    words: trace.source.filter((w) => !w.isEnd).length,
    entropies: rowEntropies(m.alpha, m.T, m.S),
    rowMax: m.alpha ? rowMaxima(m.alpha, m.T, m.S) : null,
  };
}
