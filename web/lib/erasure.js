// erasure.js - "where it looked vs what it needed" (pure; the worker runs
// erasureMap, cards/erasure.js the rest; tests/web/erasure.test.mjs).
//
// Erasure of a source word j: score the SAME output again, teacher-forced
// (engine.forceScore), with j removed, and read off how much each target
// token's log-probability dropped:
//   drop[t, j] = log p(y_t | y_<t, x) − log p(y_t | y_<t, x without j)   (nats)
// Positive: the token needed the word; negative: it was likelier without it.
//
// How a word is removed depends on the model:
//   'mask'    (a model with attention) the word's source positions are
//             masked at every step and α renormalised over the others (the
//             engine's keep mask, src/alignscope.h as_force_score). The
//             encoder still read the word: the other positions' states carry
//             what the bidirectional GRU passed on from it; what is removed is
//             the decoder's direct look at it, which is what α shows.
//   'delete'  (the no-attention model, whose decoder reads one summary of the
//             source and ignores a mask) the word's tokens are deleted from
//             the source and the shorter source is encoded again.
// A column that cannot be removed is NaN throughout: the one group that
// covers every position (a mask must keep one), the last token of the
// source under 'delete', and the </s> the engine itself appends (a model
// that reads </s>: under 'mask' it is erasable as its own column, as the
// heatmap shows it; under 'delete' there is no way to leave it out).
//
// Levels follow the heatmap (lib/words.js alignmentMatrix): columns are its
// colGroups (a word's pieces are masked, or deleted, together; at piece
// level one position each), and a target word's row is the SUM of its
// pieces' drops (a word's log-probability is the sum of its pieces', so its
// drop is too), where the heatmap's α row is their mean.

import { finish } from './slices.js';

/** keep (T × S, row-major) with every step dropping the positions first … first+count−1. */
export function erasureMask(T, S, group) {
  const keep = new Uint8Array(T * S).fill(1);
  for (let t = 0; t < T; t++) keep.fill(0, t * S + group.first, t * S + Math.min(S, group.first + group.count));
  return keep;
}

/** The source ids without the group's tokens, or null when nothing would be left or the group is the appended </s>. */
export function deletedSource(sourceIds, group) {
  if (group.first >= sourceIds.length) return null;
  const out = Int32Array.from([...sourceIds.subarray(0, group.first), ...sourceIds.subarray(Math.min(sourceIds.length, group.first + group.count))]);
  return out.length > 0 ? out : null;
}

/**
 * The piece-row erasure map.
 *   sourceIds  Int32Array(n): the tokens the trace read (its </s> not among them)
 *   targetIds  Int32Array(T): the emitted tokens, </s> included where it was emitted
 *   S          the source positions (n, or n + 1 for a model that reads </s>)
 *   groups     [{ first, count }] over 0 … S−1: the columns
 *   method     'mask' | 'delete'
 *   score(sourceIds, keep | null) -> Float32Array(T) of log-probabilities (engine.forceScore's logProbs)
 * Returns { base: Float32Array(T) (the unmasked log p(y_t)), drop: Float32Array(T × G) (NaN: the
 * column cannot be removed), erasable: Uint8Array(G), T, G, method }.
 */
export function erasureMap(request, score) {
  return finish(erasureSteps(request, score));
}

/**
 * erasureMap as a generator that yields after each column's forced score
 * (lib/slices.js: the worker runs it in slices, so that a translation asked
 * for meanwhile is not kept waiting); returns erasureMap's value.
 */
export function* erasureSteps({ sourceIds, targetIds, S, groups, method }, score) {
  if (method !== 'mask' && method !== 'delete') throw new TypeError(`erasureMap: method must be 'mask' or 'delete', not ${method}`);
  let next = 0;
  for (const g of groups) {
    if (!g || g.first !== next || !Number.isInteger(g.count) || g.count < 1) break;
    next += g.count;
  }
  if (next !== S || groups.length === 0) throw new RangeError(`erasureMap: the columns must cover the ${S} source positions in order, one or more each`);
  const T = targetIds.length;
  const G = groups.length;
  const base = score(sourceIds, null);
  const drop = new Float32Array(T * G).fill(NaN);
  const erasable = new Uint8Array(G);
  yield -1; // the unmasked score
  for (let c = 0; c < G; c++) {
    const g = groups[c];
    let lp = null;
    if (method === 'mask') {
      if (g.count < S) lp = score(sourceIds, erasureMask(T, S, g));
    } else {
      const rest = deletedSource(sourceIds, g);
      if (rest) lp = score(rest, null);
    }
    if (!lp) continue;
    erasable[c] = 1;
    for (let t = 0; t < T; t++) drop[t * G + c] = base[t] - lp[t];
    yield c;
  }
  return { base, drop, erasable, T, G, method };
}

/** Piece rows (T × G) to the heatmap's rows: each row group's pieces summed. Float32Array(R × G). */
export function sumRows(drop, T, G, rowGroups) {
  const out = new Float32Array(rowGroups.length * G);
  rowGroups.forEach((w, r) => {
    for (let c = 0; c < G; c++) {
      let s = 0;
      for (let t = w.first; t < w.first + w.count && t < T; t++) s += drop[t * G + c];
      out[r * G + c] = s;
    }
  });
  return out;
}

/** Ranks 1 … n of xs, ties sharing their mean rank. */
export function ranks(xs) {
  const order = Array.from(xs, (_, i) => i).sort((a, b) => xs[a] - xs[b]);
  const r = new Float64Array(xs.length);
  for (let i = 0; i < order.length;) {
    let k = i;
    while (k + 1 < order.length && xs[order[k + 1]] === xs[order[i]]) k++;
    for (let m = i; m <= k; m++) r[order[m]] = (i + k) / 2 + 1;
    i = k + 1;
  }
  return r;
}

/**
 * Spearman's rank correlation of x and y over the pairs where both are
 * finite: Pearson's correlation of their ranks (ties: mean ranks). NaN with
 * fewer than two pairs or when either side's ranks are all equal.
 */
export function spearman(x, y) {
  const a = [], b = [];
  for (let i = 0; i < x.length; i++) if (Number.isFinite(x[i]) && Number.isFinite(y[i])) { a.push(x[i]); b.push(y[i]); }
  if (a.length < 2) return NaN;
  const ra = ranks(a), rb = ranks(b);
  const mean = (a.length + 1) / 2;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < a.length; i++) {
    const da = ra[i] - mean, db = rb[i] - mean;
    sab += da * db; saa += da * da; sbb += db * db;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN;
}

/** The index of the largest finite value, or -1. */
function argmax(row) {
  let best = -1;
  for (let j = 0; j < row.length; j++) if (Number.isFinite(row[j]) && (best < 0 || row[j] > row[best])) best = j;
  return best;
}

// A row whose largest drop is below this (nats; a factor of 1.05 in p) needed no word in particular:
// its argmax is noise, so it is neither an agreement nor a disagreement.
export const MIN_NEEDED_NATS = 0.05;

/**
 * Attention against erasure, row by row (R rows × G columns, the same at both):
 *   alpha   Float32Array(R × G) or null (no attention)
 *   drop    Float32Array(R × G)
 * -> { rows: [{ attended (argmax α, -1 without attention), needed (argmax drop; -1: none erasable,
 *               or no drop reaches minNeeded),
 *               agree (null without attention), rho (Spearman of the row, NaN if undefined),
 *               gap (drop[needed] − drop[attended], nats: what looking elsewhere missed) }],
 *      meanRho (the mean of the rows' finite ρ: the overall agreement), rhoRows (how many),
 *      agreeCount, compared (rows with both argmaxes) }
 * The overall figure is the MEAN PER ROW, not one correlation over all cells: a
 * row's α sums to 1 whatever the token, while its drops grow with how hard the
 * token was, so pooling cells would rank rows against each other.
 */
export function compareRows(alpha, drop, R, G, { minNeeded = MIN_NEEDED_NATS } = {}) {
  const rows = [];
  let sum = 0, rhoRows = 0, agreeCount = 0, compared = 0;
  for (let r = 0; r < R; r++) {
    const e = drop.subarray(r * G, (r + 1) * G);
    const a = alpha ? alpha.subarray(r * G, (r + 1) * G) : null;
    const top = argmax(e);
    const needed = top >= 0 && e[top] >= minNeeded ? top : -1;
    const attended = a ? argmax(a) : -1;
    const both = attended >= 0 && needed >= 0;
    const agree = both ? attended === needed : null;
    const rho = a ? spearman(a, e) : NaN;
    const gap = both && Number.isFinite(e[attended]) ? e[needed] - e[attended] : NaN;
    if (Number.isFinite(rho)) { sum += rho; rhoRows++; }
    if (both) { compared++; if (agree) agreeCount++; }
    rows.push({ attended, needed, agree, rho, gap });
  }
  return { rows, meanRho: rhoRows ? sum / rhoRows : NaN, rhoRows, agreeCount, compared };
}

/**
 * The rows where the most-attended and the most-needed word differ most:
 * up to k of them, largest gap first (a gap of 0, a tie, is no disagreement).
 * -> [{ row, attended, needed, gap }]
 */
export function worstDisagreements(cmp, k = 2) {
  return cmp.rows.map((r, row) => ({ row, ...r }))
    .filter((r) => r.agree === false && r.gap > 0)
    .sort((x, y) => y.gap - x.gap)
    .slice(0, k)
    .map(({ row, attended, needed, gap }) => ({ row, attended, needed, gap }));
}

/** The largest |drop| among finite cells (the colour scale's end), at least `floor`. */
export function dropScale(drop, floor = 0.1) {
  let m = floor;
  for (const v of drop) if (Number.isFinite(v) && Math.abs(v) > m) m = Math.abs(v);
  return m;
}

/** The request's columns as the worker takes them: [[first, count], …]. */
export const groupPairs = (groups) => groups.map((g) => [g.first, g.count]);
