// worksheet.js - the alignment worksheet's pure parts (cards/worksheet.js,
// controllers/worksheet.js; tested in tests/web/worksheet.test.mjs): the
// sheet in a link and back, and the labels measured on each map.
//
// A sheet is [{ text, wrong, notes }] (at most CONFIG.worksheetMax): the
// sentence, the student's "translation wrong" tick, one line of notes. In a
// link it is three keys, each a line per sentence, so the hash stays readable:
//   ws  the sentences, one per line ("\n" between them)
//   wx  the 1-based numbers of the sentences ticked wrong: "1,3"
//   wn  the notes, one line per sentence in the same order (blank: none)
// A sentence or a note is one line: newlines and runs of white space inside
// it are one space (lineOf).
//
// The labels of one map (its figure matrix, lib/figure.js: T rows of S
// weights, at the heatmap's level, words or pieces):
//   diffuse   the rows' mean entropy is above CONFIG.worksheetDiffuseBits bits;
//   jumps     otherwise, the argmax path (each row's strongest column) goes
//             back to an earlier column at least once;
//   diagonal  otherwise: the path never goes back.
// All rows count, </s> too: the map as the student sees it.
// The model's confidence: the geometric mean of the probabilities the model
// gave the tokens it wrote (</s> included), exp(log p(y | x) / T), with the
// least likely token beside it.

import { CONFIG } from '../config.js';
import { cutText } from './sentences.js';

export const SHEET_KEYS = Object.freeze(['ws', 'wx', 'wn']);
export const SHAPES = Object.freeze(['diagonal', 'jumps', 'diffuse']);

/** One line of text: well-formed, white space (newlines too) as single spaces, trimmed. */
export function lineOf(text) {
  const s = String(text ?? '');
  const whole = typeof s.toWellFormed === 'function' ? s.toWellFormed() : s;
  return whole.replace(/\s+/gu, ' ').trim();
}

/**
 * A sheet entry as the card and the link keep it. linked: it came from a
 * link, as it was (never written back: a sentence the model then cannot
 * read is left out of the sheet, where one being typed stays).
 */
export const entryOf = (text, { wrong = false, notes = '', linked = false } = {}) => (linked ? { text, wrong: !!wrong, notes, linked: true } : { text, wrong: !!wrong, notes });

/**
 * A link's sheet from its three values (strings, or null where the link has
 * no such key). -> { sheet (undefined when the link has no ws), problems }:
 * what was cut or left out, each { key, reason, … }:
 *   sheetMany    more than CONFIG.worksheetMax sentences: the first are kept; dropped: the others' texts
 *   sheetBlank   lines with no text, left out (count)
 *   sheetCut     a sentence longer than CONFIG.worksheetSentenceMaxChars, cut (index: its number, 1-based)
 *   sheetTicks   parts of wx that name no sentence kept (values)
 *   sheetNoteCut a note longer than CONFIG.worksheetNoteMaxChars, cut (index)
 *   sheetNotesExtra notes past the last sentence, left out (count)
 * Ticks and notes go with their sentence: a sentence left out takes them along.
 */
export function parseSheet({ ws = null, wx = null, wn = null } = {}) {
  const problems = [];
  if (ws == null) {
    // Ticks or notes without sentences: nothing to attach them to.
    if (wx != null && wx !== '') problems.push({ key: 'wx', reason: 'sheetTicks', values: [wx.slice(0, 40)] });
    if (wn != null && wn !== '') problems.push({ key: 'wn', reason: 'sheetNotesExtra', count: wn.split('\n').length });
    return { sheet: undefined, problems };
  }
  const lines = ws.split('\n');
  const notes = wn == null ? [] : wn.split('\n');
  const ticked = new Set();
  const badTicks = [];
  for (const part of (wx ?? '').split(',')) {
    const p = part.trim();
    if (p === '') continue;
    const n = /^[0-9]{1,3}$/.test(p) ? Number(p) : NaN;
    if (n >= 1 && n <= lines.length) ticked.add(n - 1); else badTicks.push(p.slice(0, 20));
  }
  let entries = lines.map((line, i) => ({ i, text: lineOf(line) }));
  const blank = entries.filter((e) => e.text === '').length;
  entries = entries.filter((e) => e.text !== '');
  if (blank) problems.push({ key: 'ws', reason: 'sheetBlank', count: blank });
  // Ticks on blank lines name no sentence either.
  for (const i of ticked) if (lineOf(lines[i]) === '') badTicks.push(String(i + 1));
  if (entries.length > CONFIG.worksheetMax) {
    problems.push({ key: 'ws', reason: 'sheetMany', max: CONFIG.worksheetMax, dropped: entries.slice(CONFIG.worksheetMax).map((e) => clip(e.text)) });
    entries = entries.slice(0, CONFIG.worksheetMax);
  }
  if (badTicks.length) problems.push({ key: 'wx', reason: 'sheetTicks', values: badTicks.slice(0, 5) });
  const extraNotes = notes.slice(lines.length).filter((n) => lineOf(n) !== '').length;
  if (extraNotes) problems.push({ key: 'wn', reason: 'sheetNotesExtra', count: extraNotes });
  const sheet = entries.map((e, k) => {
    const text = cutText(e.text, CONFIG.worksheetSentenceMaxChars);
    if (text.length < e.text.length) problems.push({ key: 'ws', reason: 'sheetCut', index: k + 1, max: CONFIG.worksheetSentenceMaxChars });
    const note = lineOf(notes[e.i] ?? '');
    const cutNote = cutText(note, CONFIG.worksheetNoteMaxChars);
    if (cutNote.length < note.length) problems.push({ key: 'wn', reason: 'sheetNoteCut', index: k + 1, max: CONFIG.worksheetNoteMaxChars });
    return entryOf(text, { wrong: ticked.has(e.i), notes: cutNote, linked: true });
  });
  return { sheet, problems };
}

/** The link's values of a sheet: { ws, wx, wn }, each a string or null (left out of the link). */
export function sheetParams(sheet) {
  if (!sheet?.length) return { ws: null, wx: null, wn: null };
  const ticks = sheet.flatMap((e, i) => (e.wrong ? [String(i + 1)] : []));
  const notes = sheet.map((e) => lineOf(e.notes));
  while (notes.length && notes[notes.length - 1] === '') notes.pop();
  return { ws: sheet.map((e) => lineOf(e.text)).join('\n'), wx: ticks.length ? ticks.join(',') : null, wn: notes.length ? notes.join('\n') : null };
}

// ---- the labels of one map ---------------------------------------------------

/** Each row's strongest column (the first of equal ones): Int32Array(T) for alpha (T × S, row-major). */
export function argmaxPath(alpha, T, S) {
  if (!alpha || alpha.length < T * S) throw new Error(`argmaxPath: ${alpha ? alpha.length : 'no'} weights for ${T} × ${S}`);
  const path = new Int32Array(T);
  for (let t = 0; t < T; t++) {
    let best = 0;
    for (let j = 1; j < S; j++) if (alpha[t * S + j] > alpha[t * S + best]) best = j;
    path[t] = best;
  }
  return path;
}

/** The rows where the path goes back to an earlier column than the row before it: [t, …]. */
export function backwardJumps(path) {
  const out = [];
  for (let t = 1; t < path.length; t++) if (path[t] < path[t - 1]) out.push(t);
  return out;
}

/** Shannon entropy in bits of row t of alpha (T × S). */
function rowEntropy(alpha, S, t) {
  let h = 0;
  for (let j = 0; j < S; j++) { const p = alpha[t * S + j]; if (p > 0) h -= p * Math.log2(p); }
  return h;
}

/**
 * The shape of a map (a figure matrix: { alpha, T, S }): { shape
 * ('diffuse' | 'jumps' | 'diagonal'), meanEntropy (bits), threshold, path,
 * jumps (rows where the path goes back) }; null for a model without attention.
 */
export function alignmentShape(matrix, threshold = CONFIG.worksheetDiffuseBits) {
  const { alpha, T, S } = matrix;
  if (!alpha) return null;
  if (!(T >= 1 && S >= 1)) throw new Error(`alignmentShape: an empty map (${T} × ${S})`);
  let sum = 0;
  for (let t = 0; t < T; t++) sum += rowEntropy(alpha, S, t);
  const meanEntropy = sum / T;
  const path = argmaxPath(alpha, T, S);
  const jumps = backwardJumps(path);
  const shape = meanEntropy > threshold ? 'diffuse' : jumps.length ? 'jumps' : 'diagonal';
  return { shape, meanEntropy, threshold, path, jumps };
}

/**
 * The probability the model gave each token it wrote: Float64Array(T), or
 * null when the trace cannot say. A beam's trace carries its own log p per
 * step (stepLogProbs); otherwise the token is found among the step's topK
 * candidates (greedy writes the first).
 */
export function tokenProbabilities(trace) {
  const T = trace?.T ?? 0;
  if (!(T > 0)) return null;
  const out = new Float64Array(T);
  if (trace.stepLogProbs && trace.stepLogProbs.length >= T) {
    for (let t = 0; t < T; t++) out[t] = Math.exp(trace.stepLogProbs[t]);
    return out;
  }
  const K = trace.topK ?? 0;
  if (!(K > 0) || !trace.topIds || !trace.topProbs) return null;
  for (let t = 0; t < T; t++) {
    const id = trace.target[t].id;
    let k = 0;
    while (k < K && trace.topIds[t * K + k] !== id) k++;
    if (k === K) return null;
    out[t] = trace.topProbs[t * K + k];
  }
  return out;
}

/**
 * The model's own confidence in a translation: { geometricMean
 * (exp of the mean log p of its tokens), min (the least likely token's p),
 * minStep (its decoder step) }, or null when the trace cannot say.
 */
export function modelConfidence(trace) {
  const p = tokenProbabilities(trace);
  if (!p) return null;
  let logSum = 0;
  let minStep = 0;
  for (let t = 0; t < p.length; t++) {
    logSum += Math.log(p[t]);
    if (p[t] < p[minStep]) minStep = t;
  }
  return { geometricMean: Math.exp(logSum / p.length), min: p[minStep], minStep };
}

function clip(text) {
  const chars = Array.from(text);
  return chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : text;
}
