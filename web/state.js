// state.js - the one place the page's state lives, and its URL form.
//
// Shareable state (sentence, model, scale, step, view, pieces, colour, compare, UI language,
// pin, beam search, quiz) round-trips through the URL hash:
// `#s=Open+the+file&m=en-fr&scale=2&step=1&view=full&pieces=1&colour=row&vs=en-fr-dot,en-fr-none&uilang=de&pin=1:@2&beam=4&lp=0.6&quiz=1`. `scale` is
// the divisor as a multiple of the model's trained divisor (1 = as trained);
// `uilang` the UI language (en, fr, de, es), written only once one was chosen;
// `beam` the beam width the translation is decoded with (1-8; 1 = greedy;
// default DEFAULT_BEAM_WIDTH, the engine's) and `lp` its length penalty
// (0-4), each written only once one was chosen (the greedy control beside
// the translation, cards/input.js; the beam search card, cards/beam.js).
// `quiz` the predict-then-reveal quiz (lib/quiz.js: quiz=1 or quiz=source+word),
// which starts at `step`.
// `d`, `keys` and `seed` the math check card's key dimension (a power of two
// 1-1024), number of keys (2-50) and draw (0-4294967295), each written only
// once one was chosen (cards/mathcheck.js; parseMathValue below):
// a number out of range, or a d between powers of two, gives the nearest
// valid value and a notice.
// `win` the step-through's local window (cards/local.js): its half width
// 0 … CONFIG.localWindowMax, written only while it is on; a value out of
// range is left out with a notice, and the window shown stays.
// `ws`, `wx` and `wn` the alignment worksheet (cards/worksheet.js,
// lib/worksheet.js): its sentences, one per line, the numbers of those
// ticked "translation wrong" ("1,3") and the notes, one line per sentence;
// written only while the sheet has a sentence. More than
// CONFIG.worksheetMax sentences, a sentence or a note too long, a tick
// that names no sentence: the rest is kept, and a notice says what was left
// out or cut (a sentence the model cannot read is left out once the model
// has tried it: controllers/worksheet.js).
// `lesson` and `ls` the lesson path (lib/lesson.js, controllers/lesson.js):
// `lesson=attention` the built-in path through the notes, or a teacher's
// path as JSON (one step a line), and `ls` the step shown (1-based). A
// lesson that does not parse or check leaves the whole link unapplied (the
// page stays as it was) and a notice names its line and field.
// Runtime state (trace, info, loading, error) lives here too but is never
// written to the URL. A model opened from the reader's disk cannot travel in
// a link: the link says so instead (`m=file:NAME`), and the page that opens
// it explains why it shows a model from its own list.

import { CONFIG, VIEWS, COLOUR_MODES, MODEL_ID } from './config.js';
import { parseCompareList, COMPARE_MAX } from './lib/compare.js';
import { cutText } from './lib/sentences.js';
import { own } from './lib/own.js';
import { parsePin, pinToString } from './lib/pin.js';
import { parseQuizValue, quizValue } from './lib/quiz.js';
import { parseSheet, sheetParams } from './lib/worksheet.js';
import { parseLessonParam, parseLessonStep, lessonParam } from './lib/lesson.js';
import { parseWindow } from './lib/local.js';
import { t, num, uiLanguageOf, uiLanguage, UI_LANGUAGES } from './i18n/core.js';
import { parseBeamWidth, parseLengthPenalty, formatLengthPenalty, BEAM_MAX_WIDTH, MAX_LENGTH_PENALTY } from './lib/beam.js';

// `m=file:NAME`: the link was made while a model file from a disk was in use.
const FILE_MARK = 'file:';
const FILE_NAME_MAX = 120;
// The largest step= a link may ask for (a translation is never this long).
const MAX_STEP = 1024;

/** The shareable part with its defaults. model null = the catalogue's default. */
export function defaultShareState() {
  return { sentence: CONFIG.defaultSentence, model: null, scale: 1, step: 0, view: 'full', pieces: false, colour: 'absolute', compare: [], uiLang: null, pin: null, beam: null, beamLp: null, quiz: null, mathD: null, mathKeys: null, mathSeed: null, sheet: [], lesson: null, lessonStep: 0, winD: null };
}

/**
 * Parse a hash or query string strictly (parseShareParams says what it
 * keeps). No length cap on the whole string: each value has its own, so
 * a huge `s` is cut and said, and the rest of the link still applies.
 */
export function parseShareString(str, opts) {
  if (typeof str !== 'string') return {};
  let params;
  try {
    params = new URLSearchParams(str.replace(/^[#?]/, ''));
  } catch {
    return {};
  }
  return parseShareParams(params, opts);
}

/**
 * The share state in `params` (URLSearchParams, or anything with get(key)):
 * unknown keys are ignored, numbers must be finite and in range, the
 * sentence is cut where a character ends (lib/sentences.js cutText). A
 * value that is left out or shortened is never silent: besides the
 * existing reports (rejectedModel, fileModel, pinError, rejectedBeam,
 * rejectedLp, rejectedQuiz) every other one is in `problems`
 * ([{ key, name, reason, … }], linkNotices() says them), and the valid
 * rest is kept. names: how the reader wrote each key ({ vs: 'compare' }
 * for <align-scope>'s attributes), for the notices.
 */
export function parseShareParams(params, { names = null } = {}) {
  const out = {};
  const problems = [];
  const nameOf = (key) => own(names, key) ?? key;
  const bad = (key, value, allowed) => problems.push({ key, name: nameOf(key), reason: 'badValue', value: clip(value), allowed });
  const s = params.get('s');
  if (s !== null) {
    // A lone surrogate (an attribute can hold one) is no text: U+FFFD, as the link would write it.
    const whole = typeof s.toWellFormed === 'function' ? s.toWellFormed() : s;
    out.sentence = cutText(whole, CONFIG.maxSentenceChars);
    if (out.sentence.length < whole.length) problems.push({ key: 's', name: nameOf('s'), reason: 'sentenceCut', max: CONFIG.maxSentenceChars });
  }
  const m = params.get('m');
  // Only ids: a URL or a path is refused here and reported as rejectedModel
  // (the page says so; it never fetches a model from anywhere but its own list).
  if (m !== null && MODEL_ID.test(m)) out.model = m;
  else if (m !== null && m.startsWith(FILE_MARK) && m.length > FILE_MARK.length) out.fileModel = m.slice(FILE_MARK.length, FILE_MARK.length + FILE_NAME_MAX);
  else if (m !== null && m !== '') out.rejectedModel = m.slice(0, 200);
  const scaleText = params.get('scale');
  const scale = parseScale(scaleText);
  // Rounded as the link writes it (roundScale), so that a link's state and its link's again are the same.
  if (scale !== null) out.scale = Number(roundScale(scale));
  else if (scaleText !== null) bad('scale', scaleText, { kind: 'number', lo: 2 ** CONFIG.scaleMinLog2, hi: 2 ** CONFIG.scaleMaxLog2 });
  const stepText = params.get('step');
  const step = parseStep(stepText);
  if (step !== null) out.step = step;
  else if (stepText !== null) bad('step', stepText, { kind: 'whole', lo: 0, hi: MAX_STEP });
  const view = params.get('view');
  if (view !== null && VIEWS.includes(view)) out.view = view;
  else if (view !== null) bad('view', view, { kind: 'oneOf', list: VIEWS });
  // pieces=1: the heatmap shows the model's subword pieces instead of words.
  const pieces = params.get('pieces');
  if (pieces === '1' || pieces === '0') out.pieces = pieces === '1';
  else if (pieces !== null) bad('pieces', pieces, { kind: 'oneOf', list: ['0', '1'] });
  // colour=row: each heatmap row scaled to its own maximum.
  const colour = params.get('colour');
  if (colour !== null && COLOUR_MODES.includes(colour)) out.colour = colour;
  else if (colour !== null) bad('colour', colour, { kind: 'oneOf', list: COLOUR_MODES });
  // vs=ID,ID: the models shown beside the main one (cards/compare.js). Parts
  // that are no ids, and those past COMPARE_MAX, are said; whether an id is
  // in the catalogue is checked once it has come (controllers/compare.js).
  const vs = params.get('vs');
  if (vs !== null) {
    const list = parseCompareList(vs, { report: true });
    out.compare = list.ids;
    if (list.bad.length) problems.push({ key: 'vs', name: nameOf('vs'), reason: 'compareBad', ids: list.bad.slice(0, 5).map(clip) });
    if (list.extra) problems.push({ key: 'vs', name: nameOf('vs'), reason: 'compareMany', max: COMPARE_MAX });
  }
  // uilang=de: the language of the page's own words (not the model's pair,
  // which `m` picks). An unknown value is left out (and said): the
  // browser's language, then English, apply.
  const uiLangText = params.get('uilang');
  const uiLang = uiLanguageOf(uiLangText);
  if (uiLang) out.uiLang = uiLang;
  else if (uiLangText !== null) bad('uilang', uiLangText, { kind: 'oneOf', list: UI_LANGUAGES.map((l) => l.code) });
  // pin=3:@2 or pin=3:0,0.5,0.5: the attention pinned at one step (cards/pin.js).
  // A malformed value is left out and reported as pinError ({ reason, text }):
  // the page says why it shows no pin. Whether it fits the translation is
  // checked once there is one (controllers/pin.js).
  const pin = params.get('pin');
  if (pin !== null) {
    const parsed = parsePin(pin);
    if (parsed.pin) out.pin = parsed.pin; else out.pinError = parsed.error;
  }
  // beam=K, lp=X: how the translation is decoded, and the beam search card
  // (lib/beam.js); beam=1 is greedy. A value out of range is reported
  // (rejectedBeam, rejectedLp: the page says so, beamNotices) and the page
  // keeps its width or penalty.
  const beam = params.get('beam');
  if (beam !== null && parseBeamWidth(beam) !== null) out.beam = parseBeamWidth(beam);
  else if (beam !== null) out.rejectedBeam = clip(beam);
  const lp = params.get('lp');
  if (lp !== null && parseLengthPenalty(lp) !== null) out.beamLp = parseLengthPenalty(lp);
  else if (lp !== null) out.rejectedLp = clip(lp);
  // quiz=1 / quiz=source+word: the quiz (cards/quiz.js). A value it does not
  // know still starts the quiz (source words only: the link asked for a quiz,
  // and the answers stay hidden) and is reported as rejectedQuiz.
  const quiz = params.get('quiz');
  if (quiz !== null) {
    const q = parseQuizValue(quiz);
    if (q.bad !== undefined) { out.quiz = 'source'; out.rejectedQuiz = q.bad; } else out.quiz = q.mode;
  }
  // d=256, keys=10, seed=7: the math check (cards/mathcheck.js). A number out
  // of range (or a d between powers of two) becomes the nearest valid value, said;
  // text that is no number is left out, said.
  for (const [key, field, allowed] of [
    ['d', 'mathD', { kind: 'power', lo: 1, hi: CONFIG.mathDMax }],
    ['keys', 'mathKeys', { kind: 'whole', lo: CONFIG.mathKeysMin, hi: CONFIG.mathKeysMax }],
    ['seed', 'mathSeed', { kind: 'whole', lo: 0, hi: CONFIG.mathSeedMax }],
  ]) {
    const text = params.get(key);
    if (text === null) continue;
    const parsed = parseMathValue(key, text);
    if (!parsed) { bad(key, text, allowed); continue; }
    out[field] = parsed.value;
    if (parsed.nearest) problems.push({ key, name: nameOf(key), reason: 'nearest', value: clip(text), allowed, shown: parsed.value });
  }
  // win=D: the step-through's local window of half width D (lib/local.js, cards/local.js);
  // off when absent. Anything but a whole number 0 … CONFIG.localWindowMax is left out and
  // said, and the window shown stays as it was.
  const winText = params.get('win');
  if (winText !== null && parseWindow(winText) !== null) out.winD = parseWindow(winText);
  else if (winText !== null) bad('win', winText, { kind: 'whole', lo: 0, hi: CONFIG.localWindowMax });
  // ws, wx, wn: the worksheet (lib/worksheet.js parseSheet says what it keeps).
  const sheet = parseSheet({ ws: params.get('ws'), wx: params.get('wx'), wn: params.get('wn') });
  if (sheet.sheet !== undefined) out.sheet = sheet.sheet;
  for (const p of sheet.problems) problems.push({ ...p, name: nameOf(p.key) });
  // lesson=, ls=: the lesson path. A bad one is the link's only result: nothing else of it applies.
  const lessonText = params.get('lesson') ?? null;
  if (lessonText !== null) {
    const parsed = parseLessonParam(lessonText);
    if (parsed.error) return { problems: [{ key: 'lesson', name: nameOf('lesson'), reason: 'lessonBad', error: parsed.error }] };
    out.lesson = parsed.lesson;
    const lsText = params.get('ls') ?? null;
    const ls = parseLessonStep(lsText);
    out.lessonStep = ls !== null && ls < parsed.lesson.steps.length ? ls : 0;
    if (lsText !== null && out.lessonStep !== ls) bad('ls', lsText, { kind: 'whole', lo: 1, hi: parsed.lesson.steps.length });
  }
  if (problems.length) out.problems = problems;
  return out;
}

/** The notice topic of a link key's problems (one line per key under the sentence). */
const linkTopic = (key) => `link.${key}`;
const LINK_TOPIC = /^link\./;

// A bound as it is (1/16 is 0.0625, not num()'s 0.063), in the UI language.
const exact = (x) => x.toLocaleString(uiLanguage(), { maximumFractionDigits: 6 });

/** What one of parseShareParams' problems (or controllers/compare.js's `compareUnknown`) tells the reader. */
export function linkProblemText(p) {
  const key = p.name ?? p.key;
  if (p.reason === 'sentenceCut') return t('link.sentenceCut', { key, max: num(p.max) });
  if (p.reason === 'compareBad') return t('link.compareBad', { key, ids: p.ids.map((id) => `“${id}”`).join(', ') });
  if (p.reason === 'compareMany') return t('link.compareMany', { key, max: num(p.max) });
  if (p.reason === 'sheetMany') return t('link.sheetMany', { key, max: num(p.max), n: p.dropped.length, dropped: p.dropped.map((s) => `“${s}”`).join(', ') });
  if (p.reason === 'sheetBlank') return t('link.sheetBlank', { key, n: p.count });
  if (p.reason === 'sheetCut') return t('link.sheetCut', { key, i: num(p.index), max: num(p.max) });
  if (p.reason === 'sheetTicks') return t('link.sheetTicks', { key, values: p.values.map((v) => `“${clip(v)}”`).join(', ') });
  if (p.reason === 'sheetNoteCut') return t('link.sheetNoteCut', { key, i: num(p.index), max: num(p.max) });
  if (p.reason === 'sheetNotesExtra') return t('link.sheetNotesExtra', { key, n: p.count });
  if (p.reason === 'sheetUnread') return t('link.sheetUnread', { key, text: clip(p.text), why: p.why });
  if (p.reason === 'lessonBad') return lessonProblemText(p.error, 'link');
  if (p.reason === 'compareUnknown') return t('link.compareUnknown', { ids: p.ids.map((id) => `“${clip(id)}”`).join(', ') });
  const a = p.allowed;
  const allowed = a.kind === 'oneOf' ? t('link.allowed.oneOf', { list: a.list.join(', ') })
    : t({ whole: 'link.allowed.whole', power: 'link.allowed.power' }[a.kind] ?? 'link.allowed.number', { lo: exact(a.lo), hi: exact(a.hi) });
  if (p.reason === 'nearest') return t('link.nearest', { key, value: p.value, allowed, shown: String(p.shown) });
  return t('link.badValue', { key, value: p.value, allowed });
}

/**
 * What a lesson's fault (lib/lesson.js parseLesson's error) tells the reader:
 * where (a link or a file), the line, the step and field, and what is wrong.
 */
export function lessonProblemText(e, where) {
  const place = t(e.field ? (e.step ? 'lesson.err.atStepField' : 'lesson.err.atField') : (e.step ? 'lesson.err.atStep' : 'lesson.err.atLine'),
    { where: t(`lesson.err.${where}`), line: num(e.line), step: num(e.step ?? 0), field: e.field ?? '' });
  let what;
  if (e.reason === 'syntax') what = t('lesson.err.syntax', { column: num(e.column), what: t(`lesson.err.syntax.${e.syntax}`) });
  else if (e.reason === 'type') what = t('lesson.err.type', { expected: t(`lesson.err.expected.${e.expected}`) });
  else if (e.reason === 'range' && e.expected === 'textMax') what = t('lesson.err.textMax', { max: num(e.max) });
  else if (e.reason === 'range' && e.expected === 'oneOf') what = t('lesson.err.oneOf', { value: clip(e.value), list: e.list.join(', ') });
  else if (e.reason === 'range') what = t(e.expected === 'whole' ? 'lesson.err.rangeWhole' : 'lesson.err.rangeNumber', { value: String(e.value), lo: exact(e.lo), hi: exact(e.hi) });
  else if (e.reason === 'unknownCard' || e.reason === 'unknownLesson') what = t(`lesson.err.${e.reason}`, { value: clip(e.value), list: e.list.join(', ') });
  else what = t(`lesson.err.${e.reason}`, { max: num(e.max ?? 0), value: clip(e.value ?? '') });
  return t('lesson.err.sentence', { place, what });
}

/**
 * The store patch that says a parsed link's (or the element's attributes')
 * problems, one notice per key, replacing what an earlier link said
 * (problems null: leaves them as they are).
 */
export function linkNoticesPatch(state, problems) {
  if (problems == null) return null;
  const notices = Object.fromEntries(Object.entries(state.notices ?? {}).filter(([k]) => !LINK_TOPIC.test(k)));
  for (const p of problems) {
    const topic = linkTopic(p.key);
    notices[topic] = notices[topic] ? `${notices[topic]} ${linkProblemText(p)}` : linkProblemText(p);
  }
  return { notices };
}

/** The store patch that says one more problem (controllers/compare.js: ids the catalogue lacks), beside the others. */
export function linkNoticeAdd(state, problem) {
  const topic = linkTopic(problem.key);
  const before = own(state.notices, topic);
  const text = linkProblemText(problem);
  return noticePatch(state, topic, before && !before.includes(text) ? `${before} ${text}` : text);
}

/** A scale (divisor ÷ trained divisor) from text, or null if invalid. */
export function parseScale(text) {
  if (text == null || !/^\s*[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?\s*$/i.test(text)) return null;
  const x = Number(text);
  const lo = 2 ** CONFIG.scaleMinLog2;
  const hi = 2 ** CONFIG.scaleMaxLog2;
  if (!Number.isFinite(x) || x < lo * 0.999999 || x > hi * 1.000001) return null;
  return Math.min(hi, Math.max(lo, x));
}

const MATH_NUMBER = /^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?\s*$/i;

/**
 * A link's value for the math check card (`which`: 'd', 'keys' or 'seed') from text:
 * { value, nearest } (nearest: the text was a number out of range or between
 * the valid values, and `value` is the nearest valid one), or null for text
 * that is no number. d: a power of two 1 … mathDMax (nearest on the log
 * scale); keys: a whole number mathKeysMin … mathKeysMax; seed: a whole
 * number 0 … mathSeedMax.
 */
export function parseMathValue(which, text) {
  if (text == null || !MATH_NUMBER.test(text)) return null;
  const x = Number(text);
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  let value;
  if (which === 'd') value = x > 0 ? 2 ** clamp(Math.round(Math.log2(x)), 0, Math.log2(CONFIG.mathDMax)) : 1;
  else if (which === 'keys') value = clamp(Math.round(x), CONFIG.mathKeysMin, CONFIG.mathKeysMax);
  else if (which === 'seed') value = clamp(Math.round(x), 0, CONFIG.mathSeedMax);
  else throw new Error(`parseMathValue: no value ${which}`);
  return { value, nearest: value !== x };
}

/** A step index from text, or null if invalid. */
export function parseStep(text) {
  if (text == null || !/^\s*[0-9]{1,4}\s*$/.test(text)) return null;
  const n = Number(text);
  return n <= MAX_STEP ? n : null;
}

/** The hash string (without '#') for the shareable state. */
export function serializeShareState(st) {
  const p = new URLSearchParams();
  p.set('s', cutText(st.sentence ?? '', CONFIG.maxSentenceChars));
  if (st.local) p.set('m', `${FILE_MARK}${st.local.name.slice(0, FILE_NAME_MAX)}`);
  else if (st.model) p.set('m', st.model);
  p.set('scale', roundScale(st.scale));
  p.set('step', String(st.step | 0));
  if (st.view && st.view !== 'full') p.set('view', st.view);
  if (st.pieces) p.set('pieces', '1');
  if (st.colour && st.colour !== 'absolute') p.set('colour', st.colour);
  if (st.compare?.length) p.set('vs', st.compare.join(','));
  if (st.uiLang) p.set('uilang', st.uiLang);
  if (st.pin) p.set('pin', pinToString(st.pin));
  if (st.beam != null) p.set('beam', String(st.beam));
  if (st.beamLp != null) p.set('lp', formatLengthPenalty(st.beamLp));
  if (st.quiz) p.set('quiz', quizValue(st.quiz));
  if (st.mathD != null) p.set('d', String(st.mathD));
  if (st.mathKeys != null) p.set('keys', String(st.mathKeys));
  if (st.mathSeed != null) p.set('seed', String(st.mathSeed));
  if (st.winD != null) p.set('win', String(st.winD));
  const sheet = sheetParams(st.sheet);
  for (const [k, v] of Object.entries(sheet)) if (v != null) p.set(k, v);
  if (st.lesson) { p.set('lesson', lessonParam(st.lesson)); p.set('ls', String((st.lessonStep | 0) + 1)); }
  return p.toString();
}

/**
 * Which catalogue model to show for a requested id, and what to tell the
 * reader when it is not the one asked for. Models are chosen only by id from
 * the site's own list: an id that is not listed, a refused value (a URL, a
 * path: `rejected`) or a link made with a file from a disk (`fileModel`)
 * each get the default model and a notice saying why.
 *   -> { model, notice }  (notice null when the request was honoured)
 */
export function resolveModel(catalog, requested, { rejected = null, fileModel = null, canOpenFiles = false } = {}) {
  const models = catalog?.models ?? [];
  const listed = (id) => models.some((m) => m.id === id);
  const fallback = listed(catalog?.default) ? catalog.default : models[0]?.id ?? null;
  const label = (id) => models.find((m) => m.id === id)?.label || id;
  const use = requested != null && listed(requested) ? requested : fallback;
  if (rejected != null) {
    return { model: use, notice: t('model.rejected', { asked: clip(rejected), shown: label(use) }) };
  }
  if (fileModel != null) {
    return {
      model: use,
      notice: t(canOpenFiles ? 'model.fromFileOpen' : 'model.fromFile', { file: clip(fileModel), shown: label(use) }),
    };
  }
  if (requested != null && !listed(requested)) {
    return { model: use, notice: t('model.unknown', { asked: clip(requested), shown: label(use) }) };
  }
  return { model: use, notice: null };
}

/**
 * What a link's refused beam keys tell the reader, by notice topic
 * ({ beam, beamLp }: text, or null to clear): the value asked for, what is
 * allowed, and what the card shows instead (`width`, `lengthPenalty`: the
 * values it keeps).
 */
export function beamNotices({ rejectedBeam = null, rejectedLp = null } = {}, { width, lengthPenalty }) {
  return {
    beam: rejectedBeam == null ? null : t('beam.linkWidth', { asked: rejectedBeam, max: num(BEAM_MAX_WIDTH), width: num(width) }),
    beamLp: rejectedLp == null ? null : t('beam.linkPenalty', { asked: rejectedLp, max: num(MAX_LENGTH_PENALTY), lp: num(lengthPenalty) }),
  };
}

function clip(text) {
  const chars = Array.from(String(text));
  return chars.length > 80 ? `${chars.slice(0, 79).join('')}…` : chars.join('');
}

/** Short but exact enough: the slider moves in 2^0.05 steps. */
export function roundScale(x) {
  return String(Number(x.toPrecision(6)));
}

/** A tiny observable store: set() merges a patch and notifies subscribers
 *  with the set of keys that changed. derive(state, changed) may return a
 *  patch of values computed from others (the heatmap's matrix from the
 *  trace): it is merged before anyone is notified, so every subscriber sees
 *  a consistent state once. A set() made while subscribers are being
 *  notified is queued and notified after them, in order. */
export function createStore(initial, { derive = null } = {}) {
  let state = { ...initial };
  const listeners = new Set();
  const queue = [];
  let notifying = false;
  const merge = (patch, changed) => {
    for (const [k, v] of Object.entries(patch)) if (state[k] !== v) changed.add(k);
    state = { ...state, ...patch };
  };
  function set(patch) {
    if (notifying) { queue.push(patch); return; }
    const changed = new Set();
    merge(patch, changed);
    if (changed.size === 0) return;
    if (derive) { const extra = derive(state, changed); if (extra) merge(extra, changed); }
    notifying = true;
    try {
      for (const fn of listeners) fn(state, changed);
    } finally {
      notifying = false;
    }
    while (queue.length) set(queue.shift());
  }
  return {
    get: () => state,
    set,
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

/** Divisor and multiplier for a model at a relative scale. */
export function scaleFor(info, relScale) {
  const trainedMultiplier = info?.trainedScoreScale > 0 ? info.trainedScoreScale : 1;
  const trainedDivisor = 1 / trainedMultiplier;
  const divisor = trainedDivisor * relScale;
  return { trainedDivisor, divisor, scoreScale: 1 / divisor };
}

/**
 * The store patch that sets (or, with text null, clears) the notice of one
 * topic: the messages under the sentence (a cut paste, a refused model or
 * file, why there is no link), one line per topic.
 */
export function noticePatch(state, topic, text) {
  const notices = { ...state.notices };
  if (text) notices[topic] = text; else delete notices[topic];
  return { notices };
}
