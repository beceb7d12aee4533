// quiz.js - "Predict, then reveal" (pure; tested in tests/web/quiz.test.mjs).
//
// The learner plays the rows of the figure matrix (lib/words.js: target
// words, or pieces with "Show subword pieces"), from the link's step to the
// last row. At each row they pick the source column they think gets the
// largest α, and, in the 'word' mode, the target word the decoder writes
// there, from a shuffled list of that step's candidates. Then the row is
// revealed and scored here:
//   right      the picked column holds the row's largest α (a tie counts);
//   gap        max α − α of the picked column (0 when right): how much less
//              weight the decoder gave to the learner's word than to its own;
//   distance   how many columns (words, or pieces) from the picked column to
//              the nearest column with the largest α (0 when right).
// The link key is `quiz=1` (or `quiz=source`: source words only) or
// `quiz=source+word` (also the next word); `quiz=0` is no quiz.

import { rowOfStep, displayPiece } from './words.js';
import { mulberry32 } from './random.js';

/** The quiz modes as the store holds them: 'source' (pick the source word) and 'word' (also guess the next word). */
export const QUIZ_MODES = Object.freeze(['source', 'word']);

/**
 * A link's quiz value, strictly:
 *   '1', 'source'          -> { mode: 'source' }
 *   'source+word'          -> { mode: 'word' }   (a '+' in a link's query part
 *                             is a space, so 'source word' is the same value)
 *   '0'                    -> { mode: null }     (no quiz)
 *   anything else          -> { bad: text }      (the caller says so)
 */
export function parseQuizValue(text) {
  if (text === '1' || text === 'source') return { mode: 'source' };
  if (text === 'source+word' || text === 'source word') return { mode: 'word' };
  if (text === '0') return { mode: null };
  return { bad: String(text).slice(0, 80) };
}

/** The value URLSearchParams writes for a mode: 'source word' prints as source+word. */
export function quizValue(mode) {
  return mode === 'word' ? 'source word' : '1';
}

/** Where a game starts for the link's (or the step-through's) decoder step:
 *  { row (of the matrix), beyond (the step is past the translation's last one) }. */
export function startRow(matrix, step) {
  const T = matrix.trace?.T ?? matrix.T;
  const beyond = step > T - 1;
  return { row: rowOfStep(matrix, Math.max(0, Math.min(step, T - 1))), beyond };
}

/** Row `r` of a (T, S) row-major α as a plain array. */
export function alphaRow(matrix, r) {
  return Array.from(matrix.alpha.subarray(r * matrix.S, (r + 1) * matrix.S));
}

/** Case-insensitive, trimmed, Unicode-normalised: "Fenêtre " is "fenêtre". */
export function sameWord(a, b) {
  if (a == null || b == null) return false;
  const norm = (s) => String(s).normalize('NFC').trim().toLocaleLowerCase();
  return norm(a) === norm(b);
}

/**
 * Score one revealed row.
 *   row: α of the row (array of S), picked: the column picked,
 *   word: { guess, truth } in the 'word' mode, else null.
 * -> { picked, best, alphaPicked, alphaBest, gap, distance, right, word: null | { guess, truth, right } }
 */
export function scoreStep(row, picked, word = null) {
  if (!Number.isInteger(picked) || picked < 0 || picked >= row.length) throw new RangeError(`quiz: no column ${picked} in a row of ${row.length}`);
  let alphaBest = -Infinity;
  for (const a of row) if (a > alphaBest) alphaBest = a;
  let best = -1;
  let distance = Infinity;
  row.forEach((a, j) => {
    if (a !== alphaBest) return;
    if (best < 0) best = j;
    distance = Math.min(distance, Math.abs(j - picked));
  });
  const alphaPicked = row[picked];
  const right = alphaPicked === alphaBest;
  return {
    picked, best: right ? picked : best, alphaPicked, alphaBest,
    gap: alphaBest - alphaPicked, distance: right ? 0 : distance, right,
    word: word ? { guess: word.guess ?? null, truth: word.truth, right: sameWord(word.guess, word.truth) } : null,
  };
}

/**
 * The summary of a game: results are scoreStep()s (each with its row).
 * -> { played, right, percent, misses (the wrong ones, in order),
 *      meanGap, meanDistance (over the misses; 0 with none), maxGap,
 *      words: null | { right, played } }
 */
export function quizSummary(results) {
  const played = results.length;
  const misses = results.filter((r) => !r.right);
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const withWord = results.filter((r) => r.word);
  return {
    played,
    right: played - misses.length,
    percent: played ? Math.round((100 * (played - misses.length)) / played) : 0,
    misses,
    meanGap: mean(misses.map((r) => r.gap)),
    meanDistance: mean(misses.map((r) => r.distance)),
    maxGap: misses.reduce((m, r) => Math.max(m, r.gap), 0),
    words: withWord.length ? { right: withWord.filter((r) => r.word.right).length, played: withWord.length } : null,
  };
}

/**
 * What a game is of: the sentence, its translation, the level and the α
 * themselves (FNV-1a over their bits). Another model, scale or sentence
 * gives another key; the same translation made again, the same key.
 */
export function matrixKey(matrix) {
  const a = matrix.alpha instanceof Float32Array ? matrix.alpha : Float32Array.from(matrix.alpha);
  const bits = new Uint32Array(a.buffer, a.byteOffset, a.length);
  let h = 0x811c9dc5;
  for (let i = 0; i < bits.length; i++) { h ^= bits[i]; h = Math.imul(h, 0x01000193); }
  return JSON.stringify([matrix.trace.text, matrix.trace.translation, matrix.level, matrix.T, matrix.S, h >>> 0]);
}

/** A 32-bit hash of a string (FNV-1a): the shuffle's seed. */
export function hashString(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return h >>> 0;
}

/** A copy of `list` in an order fixed by `seed` (mulberry32 + Fisher–Yates). */
export function seededShuffle(list, seed) {
  const rand = mulberry32(seed);
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The next-word choices of row `r`: what it wrote there and the other
 * candidates the decoder's softmax ranked highest at the row's first decoder
 * step (for a word of several pieces, the alternatives to its first piece),
 * at most `k` in all, without case-insensitive duplicates, in an order fixed
 * by the sentence and the row (the same on every reload). With pieces shown,
 * every choice, what it wrote included, is written as the step-through writes
 * its candidates (lib/words.js displayPiece: "·és" continues a word); with
 * words, what it wrote is the row's word and the others are plain text (no
 * word mark, no continuation mark). Either way, nothing but the guess tells
 * them apart.
 *   -> { choices: [string], truth: string }
 */
export function wordChoices(matrix, r, k) {
  const trace = matrix.trace;
  const subwords = matrix.info?.tokenizer === 'subwords';
  const first = matrix.rowGroups[r].first;
  const target = trace.target[first];
  const written = target?.token;
  const truth = matrix.level === 'pieces' && written != null && !(target.copiedFrom >= 0) ? displayPiece(written, { subwords }).text : matrix.rowLabels[r];
  const out = [truth];
  for (const tok of trace.topTokens?.[first] ?? []) {
    if (out.length >= k) break;
    if (tok === written) continue; // the piece it wrote: `truth` stands for it
    const shown = displayPiece(tok, { subwords });
    // Words: a piece that would continue a word is written plainly, as the row's word is.
    const text = matrix.level === 'pieces' || !shown.continues ? shown.text : String(tok);
    if (!out.some((w) => sameWord(w, text))) out.push(text);
  }
  return { choices: seededShuffle(out, hashString(`${trace.text}\u0000${matrix.level}\u0000${r}`)), truth };
}
