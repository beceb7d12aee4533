// local.js - the step-through's local window (cards/local.js,
// controllers/local.js), its pure parts (tests/web/local.test.mjs): the
// link's `win=` value, where the window sat at each step, why the windowed
// translation parted from the global one, and the report's numbers.
//
// The window is Luong, Pham & Manning's (2015) local-m: decoder step t
// attends only to the source positions within D of p_t = round(t (S − 1) /
// (T − 1)). A free decode does not know its length T beforehand: the page
// scales p_t with the GLOBAL translation's T, and steps past it stay at the
// last source position (src/alignscope.h as_options.window_half_width; the
// engine computes it, windowCentre below repeats it for the sentence, and
// tests/web/local.test.mjs checks the two agree).

import { CONFIG } from '../config.js';
import { t, num } from '../i18n/core.js';
import { pieceToWord, sourceWords, targetWords } from './words.js';

const WHOLE = /^[0-9]{1,2}$/;

/** The `win=` value of a link -> a half width 0 … CONFIG.localWindowMax, or null for anything else. */
export function parseWindow(text) {
  if (typeof text !== 'string' || !WHOLE.test(text.trim())) return null;
  const d = Number(text.trim());
  return d <= CONFIG.localWindowMax ? d : null;
}

/** The half widths the control offers: 0 … CONFIG.localWindowMax. */
export const WINDOW_CHOICES = Object.freeze(Array.from({ length: CONFIG.localWindowMax + 1 }, (_, d) => d));

/** The centre p_t of step t with reference length T over S positions (engine.c window_centre). */
export function windowCentre(t, T, S) {
  if (t === 0) return 0;
  if (t >= T - 1) return S - 1;
  return Math.floor((2 * t * (S - 1) + (T - 1)) / (2 * (T - 1)));
}

/** Index of the largest value (the first of equals). */
const argmax = (row) => row.reduce((b, x, j) => (x > row[b] ? j : b), 0);

/**
 * Why the windowed translation differs from the global one, from the two
 * traces (the same text, the same decoding but for the window of half width d
 * centred with the global translation's T):
 *   -> { same: true } when every token is the same, else
 *      { same: false, step (the first decoder step whose token differs: every
 *        step before it is the same in both), word (the global translation's
 *        target word there), looked (the source word global attention weighed
 *        most at that step), centre (the source word at the window's centre),
 *        distance (source positions from the centre to the nearest piece of
 *        `looked`), outside (that word lay wholly outside the window), lost
 *        (global attention's weight outside the window at that step, 0 … 1) }
 * Words are the traces' (a subword model's pieces grouped); with pieces:
 * true (the heatmap at piece level), `looked` and `centre` are source pieces.
 */
export function windowWhy(global, local, d, { pieces = false } = {}) {
  const T = global.T;
  const n = Math.min(T, local.T);
  let step = 0;
  while (step < n && global.target[step].id === local.target[step].id) step++;
  if (step === n && T === local.T) return { same: true };
  if (step >= T) step = T - 1; // the windowed one went on past the global end
  const S = global.S;
  const centre = windowCentre(step, T, S);
  const row = Array.from(global.alpha.subarray(step * S, (step + 1) * S));
  const words = pieces ? global.source.map((p, j) => ({ text: p.text, first: j, count: 1 })) : sourceWords(global);
  const wordOf = pieceToWord(words, S);
  const byWord = new Array(words.length).fill(0);
  row.forEach((a, j) => { byWord[wordOf[j]] += a; });
  const looked = argmax(byWord);
  const g = words[looked];
  let distance = Infinity;
  for (let j = g.first; j < g.first + g.count; j++) distance = Math.min(distance, Math.abs(j - centre));
  let lost = 0;
  row.forEach((a, j) => { if (Math.abs(j - centre) > d) lost += a; });
  const tw = targetWords(global);
  const word = tw[pieceToWord(tw, T)[step]];
  return {
    same: false, step, word: global.target[step].isEnd ? '</s>' : word.text, looked: g.text, centre: words[wordOf[centre]].text,
    distance, outside: distance > d, lost,
  };
}

/** A number or a [lo, hi] pair of numbers. */
const isNum = (x) => typeof x === 'number' && Number.isFinite(x);
const isPair = (p) => Array.isArray(p) && p.length === 2 && p.every(isNum) && p[0] <= p[1];

/**
 * The catalogue's report.local (models/train/catalogue.py, from
 * report/local-attention.json) for the model in use, checked. The report
 * measured one model file per attention kind (each kind's `id`): when that
 * file is the one in use (modelId, the catalogue id; null for a file opened
 * from disk) its own numbers, else the numbers of the model measured with the
 * same kind of attention, which the cards then name (the default en-fr-int8
 * is not measured: it gets en-fr-additive's).
 *   -> { sentences, sentencesInSet, agreement: { share, ci90, compared } | null,
 *        global: { bleu, ci90 }, windows: [{ d, bleu, ci90, minus: { bleu, ci90 } }],
 *        own (these numbers are the model in use's), measuredOn (the measured
 *        model's catalogue id, or null when the report does not say),
 *        updates (its training updates from the catalogue, or null) }
 * or null when it is missing or does not hold together.
 */
export function localReport(catalog, kind, modelId = null) {
  const r = catalog?.report?.local;
  const kinds = r?.kinds ?? {};
  const mine = modelId == null ? undefined : Object.values(kinds).find((e) => e?.id === modelId);
  const k = mine ?? kinds[kind];
  if (!r || !k || !Number.isInteger(r.sentences) || !Number.isInteger(r.sentencesInSet) || !Array.isArray(r.windows)) return null;
  const a = k.agreement;
  const agreement = a && isNum(a.share) && isPair(a.ci90) && Number.isInteger(k.compared) ? { share: a.share, ci90: a.ci90, compared: k.compared } : null;
  if (!k.global || !isNum(k.global.bleu) || !isPair(k.global.ci90)) return null;
  const windows = [];
  for (const d of r.windows) {
    const w = k.windows?.[d];
    if (!Number.isInteger(d) || !w || !isNum(w.bleu) || !isPair(w.ci90) || !isNum(w.minusGlobal?.bleu) || !isPair(w.minusGlobal?.ci90)) return null;
    windows.push({ d, bleu: w.bleu, ci90: w.ci90, minus: { bleu: w.minusGlobal.bleu, ci90: w.minusGlobal.ci90 } });
  }
  const measuredOn = typeof k.id === 'string' && k.id ? k.id : null;
  const updates = catalog?.models?.find?.((m) => m.id === measuredOn)?.updates;
  return {
    sentences: r.sentences, sentencesInSet: r.sentencesInSet, agreement, global: k.global, windows,
    own: !!mine, measuredOn, updates: Number.isInteger(updates) ? updates : null,
  };
}

/** localReport for the store's state: the model in use, by catalogue id unless it was opened from disk. */
export const localReportFor = (st) => (st.info ? localReport(st.catalog, st.info.attention, st.local ? null : st.model) : null);

/**
 * The sentence that says which model a stand-in report measured, in the UI
 * language: '' when the numbers are the model in use's own, or the report
 * does not name its model.
 */
export function measuredOnText(r) {
  if (!r || r.own || !r.measuredOn) return '';
  return r.updates == null ? t('local.measuredOnModel', { model: r.measuredOn })
    : t('local.measuredOn', { model: r.measuredOn, updates: num(r.updates) });
}
