// catalog.js - what the page says about a model: the picker's option text,
// the line under the picker, the comparison table. Pure functions over a
// models/index.json entry or over the engine's info for a file from disk, so
// that Node tests can check every word.

import { formatBytes } from '../client.js';

/** The attention kinds the engine knows, in the words of the teaching notes. */
export const ATTENTION_NAMES = Object.freeze({
  additive: 'additive attention (Bahdanau)',
  dot: 'dot-product attention (Luong)',
  general: 'general attention (Luong)',
  scaled_dot: 'scaled dot-product attention',
  none: 'no attention (baseline)',
});

const LANGUAGES = Object.freeze({ en: 'English', fr: 'French', de: 'German', es: 'Spanish', it: 'Italian', pt: 'Portuguese', nl: 'Dutch' });

/** The label of the sentence box for a model's source language: "French sentence", "Sentence (xx)". */
export function sentenceLabel(code) {
  if (!code) return 'Sentence';
  return LANGUAGES[code] ? `${LANGUAGES[code]} sentence` : `Sentence (${code})`;
}

/** "additive attention (Bahdanau)"; an unknown kind is named as it is. */
export function attentionName(kind) {
  return ATTENTION_NAMES[kind] ?? (kind ? `${kind} attention` : 'attention kind not stated');
}

const WEIGHT_NAMES = Object.freeze({ f32: '32-bit float weights', f16: '16-bit float weights', int8: '8-bit integer weights (int8)' });

/** "int8 weights" in a short list, "8-bit integer weights (int8)" in a sentence. */
export function weightsName(weights, { short = false } = {}) {
  if (!weights) return '';
  if (short) return `${weights} weights`;
  return WEIGHT_NAMES[weights] ?? `${weights} weights`;
}

/** "5.9 M" / "48 k" parameters. */
export function formatParameters(n) {
  if (!(n > 0)) return '';
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} k`;
  return String(n);
}

// BLEU says little without the training budget behind it (a 1,000-update
// model next to a 6,000-update one is not a fair comparison): both together.
const updatesText = (n) => (n > 0 ? ` after ${Math.round(n).toLocaleString('en-US')} updates` : '');
const bleuText = (bleu, updates) => (Number.isFinite(bleu) ? `BLEU ${bleu.toFixed(1)}${updatesText(updates)}` : '');

/** "test BLEU 12.2 after 1,000 updates" for a catalogue entry, or '' when it has no BLEU. */
export function bleuWithBudget(entry) {
  return entry && Number.isFinite(entry.bleu) ? `test ${bleuText(entry.bleu, entry.updates)}` : '';
}

/**
 * One line per catalogue model, for the <option>: the label, then what a
 * teacher weighs (attention kind, download size, BLEU, weight type).
 * Options hold text only, and screen readers read the whole of it.
 */
export function optionText(entry) {
  const facts = [
    entry.attention ? (entry.attention === 'none' ? 'no attention' : entry.attention.replace('_', ' ')) : '',
    entry.bytes > 0 ? formatBytes(entry.bytes) : '',
    bleuText(entry.bleu, entry.updates),
    entry.weights ?? '',
  ].filter(Boolean);
  return `${entry.label || entry.id}${facts.length ? ` — ${facts.join(' · ')}` : ''}`;
}

/** The line under the picker for a catalogue model. */
export function describeEntry(entry) {
  const pair = entry.source && entry.target ? `${entry.source} → ${entry.target}` : '';
  const parts = [
    attentionName(entry.attention),
    entry.bytes > 0 ? `${formatBytes(entry.bytes)} download` : '',
    weightsName(entry.weights, { short: true }),
    entry.parameters > 0 ? `${formatParameters(entry.parameters)} parameters` : '',
    Number.isFinite(entry.bleu) ? `test ${bleuText(entry.bleu, entry.updates)}` : '',
    pair,
  ].filter(Boolean);
  return `${parts.join(' · ')}${entry.note ? `. ${entry.note}` : ''}`;
}

// Format-3 architecture flags (info.architecture from engine.js), in words.
const ARCHITECTURE_WORDS = Object.freeze({
  unidirectional: 'one-direction encoder',
  initFromEncoder: 'decoder starts from the encoder’s state',
  attentionBias: 'attention with a bias',
  directOutput: 'output read straight from the decoder state',
  sourceEos: 'reads </s> after the words',
  tutorialTokenizer: 'the tutorial’s tokeniser',
});

/** "the PyTorch seq2seq tutorial’s architecture", a list of its differences, or '' for ours. */
export function architectureName(info) {
  const on = Object.keys(ARCHITECTURE_WORDS).filter((k) => info?.architecture?.[k]);
  if (!on.length) return '';
  if (on.length === Object.keys(ARCHITECTURE_WORDS).length) return 'the PyTorch seq2seq tutorial’s architecture';
  return on.map((k) => ARCHITECTURE_WORDS[k]).join(', ');
}

/**
 * What a decoder without attention sees at every step: the encoder's last
 * state in each direction, or, for a one-direction encoder, its last state.
 */
export function fixedSummary(info) {
  return info?.architecture?.unidirectional
    ? { formula: 'c = h_S', words: 'the encoder’s last state' }
    : { formula: 'c = [→h_S ; ←h_1]', words: 'the encoder’s last state in each direction' };
}

/**
 * The line under the picker for a model file from the reader's disk: its
 * name and size, and what the engine read from its header.
 */
export function describeLocal(local, info) {
  const pair = info?.sourceLanguage && info?.targetLanguage ? `${info.sourceLanguage} → ${info.targetLanguage}` : '';
  const parts = [
    `Your file “${local.name}” (${formatBytes(local.size)})`,
    info ? attentionName(info.attention) : '',
    architectureName(info),
    info ? weightsName(info.weightType, { short: true }) : '',
    info?.parameterCount > 0 ? `${formatParameters(info.parameterCount)} parameters` : '',
    pair,
  ].filter(Boolean);
  return `${parts.join(' · ')}. Not from this site’s list: no BLEU measured here.`;
}

/** Rows of the comparison table: label, attention, weights, size, parameters, training updates, BLEU, note. */
export function comparisonRows(catalog) {
  return (catalog?.models ?? []).map((m) => ({
    id: m.id,
    label: m.label || m.id,
    attention: attentionName(m.attention),
    weights: m.weights ?? '—',
    size: m.bytes > 0 ? formatBytes(m.bytes) : '—',
    parameters: m.parameters > 0 ? formatParameters(m.parameters) : '—',
    updates: m.updates > 0 ? Math.round(m.updates).toLocaleString('en-US') : '—',
    bleu: Number.isFinite(m.bleu) ? m.bleu.toFixed(1) : '—',
    note: m.note ?? '',
    card: typeof m.card === 'string' && /^[A-Za-z0-9_.-]+\.md$/.test(m.card) ? m.card : null,
    isDefault: m.id === catalog.default,
  }));
}

// The catalogue's model report (models/REPORT.md and its figure), if it names
// one: paths are checked to stay inside models/ (no scheme, no "..").
export function reportOf(catalog) {
  const r = catalog?.report;
  const safe = (f) => typeof f === 'string' && /^[A-Za-z0-9_./-]+\.(svg|md)$/.test(f) && !f.includes('..') && !f.startsWith('/');
  if (!r || !safe(r.figure) || !safe(r.text)) return null;
  const text = (v) => (typeof v === 'string' ? v : '');
  return { figure: r.figure, text: r.text, caption: text(r.caption), budget: text(r.budget), additiveNote: text(r.additiveNote) };
}
