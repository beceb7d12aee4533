// catalog.js - what the page says about a model: the picker's option text,
// the line under the picker, the comparison table. Pure functions over a
// models/index.json entry or over the engine's info for a file from disk, so
// that Node tests can check every word.

import { formatBytes } from '../client.js';
import { t, num, fixed } from '../i18n/index.js';
import { own } from './own.js';

/** The attention kinds the engine knows (their names: `attention.KIND` in web/i18n/). */
export const ATTENTION_NAMES = Object.freeze(Object.fromEntries(['additive', 'dot', 'general', 'scaled_dot', 'none'].map((k) => [k, `attention.${k}`])));

// The source languages the sentence box can be named after (`sentence.CODE` in web/i18n/).
const LANGUAGES = Object.freeze(['en', 'fr', 'de', 'es', 'it', 'pt', 'nl']);

/** The label of the sentence box for a model's source language: "French sentence", "Sentence (xx)". */
export function sentenceLabel(code) {
  if (!code) return t('sentence.none');
  return LANGUAGES.includes(code) ? t(`sentence.${code}`) : t('sentence.other', { code });
}

/** "additive attention (Bahdanau)"; an unknown kind is named as it is. */
export function attentionName(kind) {
  const name = own(ATTENTION_NAMES, kind);
  return name ? t(name) : (kind ? t('attention.unknown', { kind }) : t('attention.unstated'));
}

const WEIGHT_NAMES = Object.freeze({ f32: 'weights.f32', f16: 'weights.f16', int8: 'weights.int8' });

/** "int8 weights" in a short list, "8-bit integer weights (int8)" in a sentence. */
export function weightsName(weights, { short = false } = {}) {
  if (!weights) return '';
  const name = own(WEIGHT_NAMES, weights);
  if (short || !name) return t('weights.short', { weights });
  return t(name);
}

/** "5.9 M" / "48 k" parameters. */
export function formatParameters(n) {
  if (!(n > 0)) return '';
  if (n >= 1e6) return `${fixed(n / 1e6, 1)} M`;
  if (n >= 1e3) return `${num(Math.round(n / 1e3))} k`;
  return num(n);
}

// BLEU says little without the training budget behind it (a 1,000-update
// model next to a 6,000-update one is not a fair comparison): both together.
const updatesText = (n) => (n > 0 ? t('catalog.afterUpdates', { n: Math.round(n) }) : '');
const bleuText = (bleu, updates) => (Number.isFinite(bleu) ? `BLEU ${fixed(bleu, 1)}${updatesText(updates)}` : '');

/** "3 h 17 min" / "21 min" for a training time in seconds, or '' when there is none. */
export function formatDuration(seconds) {
  if (!(seconds > 0)) return '';
  const minutes = Math.max(1, Math.round(seconds / 60));
  return minutes < 60 ? t('duration.minutes', { m: num(minutes) })
    : t('duration.hours', { h: num(Math.floor(minutes / 60)), m: num(minutes % 60) });
}

/**
 * "4 h 37 min (CPU time 2 h 1 min)": a model's training time, wall clock and,
 * where its metrics recorded it, the process's CPU time, which a paused run or
 * a core shared with another training does not inflate; '' when neither.
 */
export function trainingTime(entry) {
  const wall = formatDuration(entry?.trainSeconds);
  const cpu = formatDuration(entry?.trainCpuSeconds);
  return wall && cpu ? t('catalog.timeWithCpu', { wall, cpu }) : wall;
}

/**
 * The BLEU the page names a model by: the cased UI-test figure its card leads
 * with, where the catalogue has it (catalogue.py's uiBleuCased), else `bleu`
 * ("test BLEU": older catalogues and the toy test models). `bleu` itself is
 * the lower-cased figure, kept for continuity with the first models: shown
 * as the headline, it put 28.2 on the page beside a card that says 25.4.
 */
function headlineBleu(entry) {
  if (Number.isFinite(entry?.uiBleuCased)) return { bleu: entry.uiBleuCased, key: 'catalog.uiBleu' };
  if (Number.isFinite(entry?.bleu)) return { bleu: entry.bleu, key: 'catalog.testBleu' };
  return null;
}

/** "UI test BLEU 25.4 after 18,000 updates" for a catalogue entry, or '' when it has no BLEU. */
export function bleuWithBudget(entry) {
  const head = headlineBleu(entry);
  return head ? `${t(head.key, { bleu: fixed(head.bleu, 1) })}${updatesText(entry.updates)}` : '';
}

/** The teacher's set's cased BLEU with beam, { bleu, width }, or null where the record is missing or half there. */
function teacherBeam(entry) {
  const tb = entry?.teacherBleu;
  return tb && Number.isFinite(tb.beam) && Number.isInteger(tb.beamWidth) && tb.beamWidth > 0 ? { bleu: tb.beam, width: tb.beamWidth } : null;
}

/** "everyday sentences BLEU 14.5 (beam 5)": cased BLEU on the teacher's set with the page's beam, or '' without one. */
export function teacherBleuText(entry) {
  const tb = teacherBeam(entry);
  return tb ? t('catalog.teacherBleu', { bleu: fixed(tb.bleu, 1), width: num(tb.width) }) : '';
}

/**
 * One line per catalogue model, for the <option>: the label, then what a
 * teacher weighs (attention kind, download size, BLEU, weight type), less
 * what the label already says ("(Bahdanau additive, int8)" names the kind
 * and the weights): a closed picker shows only as much of the line as fits.
 * Options hold text only, and screen readers read the whole of it.
 */
export function optionText(entry) {
  const label = entry.label || entry.id;
  const named = (word) => label.toLowerCase().includes(word.toLowerCase());
  const facts = [
    kindUnlessNamed(entry),
    entry.bytes > 0 ? formatBytes(entry.bytes) : '',
    bleuText(headlineBleu(entry)?.bleu, entry.updates),
    entry.weights && !named(entry.weights) ? entry.weights : '',
  ].filter(Boolean);
  return `${label}${facts.length ? ` — ${facts.join(' · ')}` : ''}`;
}

/** The attention kind in a word or two ("scaled dot", "no attention"), or '' when the entry's label already names it. */
export function kindUnlessNamed(entry) {
  const kind = entry.attention ? (entry.attention === 'none' ? t('attention.noneShort') : entry.attention.replace('_', ' ')) : '';
  return kind && !(entry.label || entry.id).toLowerCase().includes(kind.toLowerCase()) ? kind : '';
}

/** "6,000 updates", or '' for a model without a training budget (the toy test models). */
export function updatesCount(entry) {
  return entry?.updates > 0 ? t('models.budgetUpdates', { n: Math.round(entry.updates) }) : '';
}

/** The line under the picker for a catalogue model. */
export function describeEntry(entry) {
  const pair = entry.source && entry.target ? `${entry.source} → ${entry.target}` : '';
  const parts = [
    attentionName(entry.attention),
    entry.bytes > 0 ? t('catalog.download', { size: formatBytes(entry.bytes) }) : '',
    weightsName(entry.weights, { short: true }),
    entry.layerNorm ? t('arch.layerNorm') : '',
    entry.parameters > 0 ? t('catalog.parameters', { n: formatParameters(entry.parameters) }) : '',
    bleuWithBudget(entry),
    trainingTime(entry) && t('catalog.trainingTime', { time: trainingTime(entry) }),
    teacherBleuText(entry),
    pair,
  ].filter(Boolean);
  return `${parts.join(' · ')}${entry.note ? `. ${entry.note}` : ''}`;
}

// Format-3 architecture flags (info.architecture from engine.js), in words.
// (Their words: `arch.FLAG` in web/i18n/.) The tutorial's six, which together
// are its architecture, then our own variations (layer normalisation).
const ARCHITECTURE_WORDS = Object.freeze(Object.fromEntries(['unidirectional', 'initFromEncoder', 'attentionBias', 'directOutput', 'sourceEos', 'tutorialTokenizer'].map((k) => [k, `arch.${k}`])));
const VARIATION_WORDS = Object.freeze({ layerNorm: 'arch.layerNorm' });

/** "the PyTorch seq2seq tutorial’s architecture", a list of its differences from ours, or '' for ours. */
export function architectureName(info) {
  const on = Object.keys(ARCHITECTURE_WORDS).filter((k) => info?.architecture?.[k]);
  const tutorial = on.length === Object.keys(ARCHITECTURE_WORDS).length ? [t('arch.tutorial')] : on.map((k) => t(ARCHITECTURE_WORDS[k]));
  const variations = Object.keys(VARIATION_WORDS).filter((k) => info?.architecture?.[k]).map((k) => t(VARIATION_WORDS[k]));
  return [...tutorial, ...variations].join(', ');
}

/**
 * What a decoder without attention sees at every step: the encoder's last
 * state in each direction, or, for a one-direction encoder, its last state.
 */
export function fixedSummary(info) {
  return info?.architecture?.unidirectional
    ? { formula: 'c = h_S', words: t('summary.oneWay') }
    : { formula: 'c = [→h_S ; ←h_1]', words: t('summary.twoWay') };
}

/**
 * The line under the picker for a model file from the reader's disk: its
 * name and size, and what the engine read from its header.
 */
export function describeLocal(local, info) {
  const pair = info?.sourceLanguage && info?.targetLanguage ? `${info.sourceLanguage} → ${info.targetLanguage}` : '';
  const parts = [
    t('catalog.yourFile', { name: local.name, size: formatBytes(local.size) }),
    info ? attentionName(info.attention) : '',
    architectureName(info),
    info ? weightsName(info.weightType, { short: true }) : '',
    info?.parameterCount > 0 ? t('catalog.parameters', { n: formatParameters(info.parameterCount) }) : '',
    pair,
  ].filter(Boolean);
  return `${parts.join(' · ')}. ${t('catalog.notListed')}`;
}

/** Rows of the comparison table: label, attention, weights, size, parameters, training updates and time, BLEU (UI test; the teacher's set with beam), note. */
export function comparisonRows(catalog) {
  return (catalog?.models ?? []).map((m) => {
    const head = headlineBleu(m);
    const teacher = teacherBeam(m);
    return {
      id: m.id,
      label: m.label || m.id,
      attention: attentionName(m.attention),
      weights: m.weights ?? '—',
      size: m.bytes > 0 ? formatBytes(m.bytes) : '—',
      parameters: m.parameters > 0 ? formatParameters(m.parameters) : '—',
      updates: m.updates > 0 ? num(Math.round(m.updates)) : '—',
      time: trainingTime(m) || '—',
      bleu: head ? fixed(head.bleu, 1) : '—',
      teacher: teacher ? fixed(teacher.bleu, 1) : '—',
      note: m.note ?? '',
      card: typeof m.card === 'string' && /^[A-Za-z0-9_.-]+\.md$/.test(m.card) ? m.card : null,
      isDefault: m.id === catalog.default,
    };
  });
}

// The catalogue's model report (models/REPORT.md and its figure), if it names
// one: paths are checked to stay inside models/ (no scheme, no ".."); budgets
// ({kind: updates}, what each line of the figure was trained for) keep only
// known kinds with whole positive counts.
export function reportOf(catalog) {
  const r = catalog?.report;
  const safe = (f) => typeof f === 'string' && /^[A-Za-z0-9_./-]+\.(svg|md)$/.test(f) && !f.includes('..') && !f.startsWith('/');
  if (!r || !safe(r.figure) || !safe(r.text)) return null;
  const text = (v) => (typeof v === 'string' ? v : '');
  const budgets = Object.fromEntries(Object.entries(r.budgets && typeof r.budgets === 'object' ? r.budgets : {})
    .filter(([kind, n]) => Object.hasOwn(ATTENTION_NAMES, kind) && Number.isInteger(n) && n > 0));
  return { figure: r.figure, text: r.text, caption: text(r.caption), budgets };
}

/**
 * The figure's caption and alt text, from its budgets: "equal training budget
 * (6,000 updates each)" only when every line had the same number of updates;
 * otherwise each kind's count, and that the lines mix kind with training length.
 */
export function reportFigureText(report) {
  const counts = Object.values(report?.budgets ?? {});
  if (!counts.length) return { caption: t('models.figureCaption'), alt: t('models.figureAlt') };
  if (counts.every((n) => n === counts[0])) {
    const budget = t('models.budgetUpdates', { n: counts[0] });
    return { caption: t('models.figureCaptionBudget', { budget }), alt: t('models.figureAltBudget', { budget }) };
  }
  const budgets = Object.entries(report.budgets).map(([kind, n]) => t('models.budgetEntry', { kind: attentionName(kind), updates: t('models.budgetUpdates', { n }) })).join('; ');
  return { caption: t('models.figureCaptionUnequal', { budgets }), alt: t('models.figureAltUnequal', { budgets }) };
}

/**
 * The line beside the translation: what the model was trained on and what to
 * expect, in the UI language. A catalogue entry with `trainPairs` (the
 * subword models: models/train/catalogue.py) is worded here, its number in
 * the UI language's digits; any other entry's `trainedOn` (the catalogue's
 * own English line) is shown as it is. '' when there is none.
 */
export function trainedOnText(entry) {
  if (Number.isInteger(entry?.trainPairs) && entry.trainPairs > 0) return t('input.trainedOn', { pairs: num(entry.trainPairs) });
  return entry?.trainedOn ?? '';
}
