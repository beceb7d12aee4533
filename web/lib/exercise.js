// exercise.js - the numbers of the exercise card (cards/exercise.js), pure and
// tested in tests/web/exercise.test.mjs: the notes' "Add attention to your
// seq2seq. Compare validation BLEU and the quality on the longest 10% of
// sentences against the no-attention model." The numbers are the model
// report's own (models/train/catalogue.py copies them into the catalogue's
// report.byLength from the metrics REPORT.md's tables are made of, and from
// models/report/longest-tenth.json): read and checked here, never computed
// again, so the card cannot say other numbers than the report.

import { MODEL_ID } from '../config.js';
import { COMPARE_MAX } from './compare.js';

/** The models of the exercise, in the order the card lists them. */
export const EXERCISE_KINDS = Object.freeze(['none', 'additive', 'dot']);
/** The measures the catalogue may name (catalogue.py MEASURES). */
const MEASURES = new Set(['cased13a', 'lowercaseWords']);
const BUCKET = /^(\d{1,3})-(\d{1,3})$|^>(\d{1,3})$/;

const isBleu = (x) => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 100;
const isCount = (x) => Number.isInteger(x) && x > 0;
/** { bleu, ci90: [lo, hi] | null } from a catalogue cell, or null when it is no BLEU. */
function cell(v) {
  if (!v || !isBleu(v.bleu)) return null;
  const ci = Array.isArray(v.ci90) && v.ci90.length === 2 && v.ci90.every(isBleu) && v.ci90[0] <= v.ci90[1] ? [v.ci90[0], v.ci90[1]] : null;
  return { bleu: v.bleu, ci90: ci };
}
/** A difference (−100 … 100) with its interval, or null. */
function difference(v) {
  const ok = (x) => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= 100;
  if (!v || !ok(v.bleu) || !Array.isArray(v.ci90) || v.ci90.length !== 2 || !v.ci90.every(ok) || v.ci90[0] > v.ci90[1]) return null;
  return { bleu: v.bleu, ci90: [v.ci90[0], v.ci90[1]] };
}

/** A bucket label ("11-20", ">50") -> { lo, hi } in words (hi Infinity for ">50"), or null. */
export function bucketRange(label) {
  const m = typeof label === 'string' ? BUCKET.exec(label) : null;
  if (!m) return null;
  if (m[3] !== undefined) return { lo: Number(m[3]) + 1, hi: Infinity };
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  return lo >= 1 && lo <= hi ? { lo, hi } : null;
}

/**
 * The catalogue's report.byLength, checked: { testSet, measure, kinds (those
 * of EXERCISE_KINDS it has, at least two, 'none' among them), models: {kind:
 * { id, bleu, devBleu, devSentences }}, buckets: [{ words, lo, hi, sentences,
 * bleu: {kind: cell} }], longest: { share, minWords, sentences, sentencesInSet,
 * measure, bleu: {kind: cell + minusNone} } | null }, or null when it is
 * missing or does not hold together (a model id that is no id, a bucket
 * without every kind's BLEU, buckets out of order).
 */
export function exerciseReport(catalog) {
  const r = catalog?.report?.byLength;
  if (!r || typeof r !== 'object' || typeof r.testSet !== 'string' || !MEASURES.has(r.measure)) return null;
  const models = {};
  for (const kind of EXERCISE_KINDS) {
    const m = r.models?.[kind];
    if (!m) continue;
    if (typeof m.id !== 'string' || !MODEL_ID.test(m.id) || !isBleu(m.bleu)) return null;
    models[kind] = { id: m.id, bleu: m.bleu, devBleu: isBleu(m.devBleu) ? m.devBleu : null, devSentences: isCount(m.devSentences) ? m.devSentences : null };
  }
  const kinds = EXERCISE_KINDS.filter((k) => models[k]);
  if (kinds.length < 2 || !models.none || !Array.isArray(r.buckets) || !r.buckets.length) return null;
  const buckets = [];
  for (const b of r.buckets) {
    const range = bucketRange(b?.words);
    if (!range || !isCount(b.sentences) || (buckets.length && range.lo <= buckets.at(-1).hi)) return null;
    const bleu = Object.fromEntries(kinds.map((k) => [k, cell(b.bleu?.[k])]));
    if (kinds.some((k) => !bleu[k])) return null;
    buckets.push({ words: b.words, ...range, sentences: b.sentences, bleu });
  }
  return { testSet: r.testSet, measure: r.measure, kinds, models, buckets, longest: longestOf(r.longest, kinds) };
}

function longestOf(l, kinds) {
  if (!l || !isCount(l.minWords) || !isCount(l.sentences) || !isCount(l.sentencesInSet) || l.sentences > l.sentencesInSet
      || !(l.share > 0 && l.share < 1) || !MEASURES.has(l.measure)) return null;
  const bleu = {};
  for (const k of kinds) {
    const c = cell(l.bleu?.[k]);
    if (!c) return null;
    bleu[k] = { ...c, minusNone: k === 'none' ? null : difference(l.bleu[k].minusNone) };
  }
  return { share: l.share, minWords: l.minWords, sentences: l.sentences, sentencesInSet: l.sentencesInSet, measure: l.measure, bleu };
}

/**
 * How much of a length bucket lies in the longest share: 'all' (every
 * sentence of it has minWords words or more), 'part' (the threshold falls
 * inside it) or null.
 */
export function longestPart(bucket, minWords) {
  if (bucket.lo >= minWords) return 'all';
  if (bucket.hi >= minWords) return 'part';
  return null;
}

/**
 * What a difference from no attention says: 'ahead' (its 90% interval lies
 * above 0), 'behind' (below 0) or 'tied' (it holds 0: not told apart by this
 * test); null without a difference.
 */
export function verdictOf(minusNone) {
  if (!minusNone) return null;
  if (minusNone.ci90[0] > 0) return 'ahead';
  if (minusNone.ci90[1] < 0) return 'behind';
  return 'tied';
}

/**
 * The comparison card's selection that shows the exercise's models beside
 * the reader's main model, on the reader's sentence: the report's models
 * that the catalogue lists, less the main one (its column is always there),
 * at most COMPARE_MAX. -> { compare: ids, shown: ids of the exercise in the
 * columns (the main one first when it is one), missing: ids the catalogue lacks }.
 */
export function sideBySide(report, catalog, mainModel) {
  const listed = new Set((catalog?.models ?? []).map((m) => m.id));
  const ids = report.kinds.map((k) => report.models[k].id);
  const missing = ids.filter((id) => !listed.has(id));
  const compare = ids.filter((id) => listed.has(id) && id !== mainModel).slice(0, COMPARE_MAX);
  const shown = [...(ids.includes(mainModel) ? [mainModel] : []), ...compare];
  return { compare, shown, missing };
}

/** Is the comparison showing every model of the exercise now (the main model counts)? */
export function sideBySideShown(report, catalog, mainModel, compare) {
  const want = sideBySide(report, catalog, mainModel);
  return want.compare.every((id) => (compare ?? []).includes(id));
}

/**
 * The figure's y axis: 0 to the first multiple of `step` at or above the
 * largest number drawn (a BLEU or an interval's top), and its ticks.
 */
export function yAxis(report, step = 5) {
  let max = 0;
  const see = (c) => { max = Math.max(max, c.bleu, c.ci90?.[1] ?? 0); };
  for (const b of report.buckets) for (const k of report.kinds) see(b.bleu[k]);
  if (report.longest) for (const k of report.kinds) see(report.longest.bleu[k]);
  const hi = Math.max(step, Math.ceil(max / step) * step);
  return { lo: 0, hi, ticks: Array.from({ length: hi / step + 1 }, (_, i) => i * step) };
}
