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
// Runtime state (trace, info, loading, error) lives here too but is never
// written to the URL. A model opened from the reader's disk cannot travel in
// a link: the link says so instead (`m=file:NAME`), and the page that opens
// it explains why it shows a model from its own list.

import { CONFIG, VIEWS, COLOUR_MODES, MODEL_ID } from './config.js';
import { parseCompareList } from './lib/compare.js';
import { parsePin, pinToString } from './lib/pin.js';
import { parseQuizValue, quizValue } from './lib/quiz.js';
import { t, num, uiLanguageOf } from './i18n/core.js';
import { parseBeamWidth, parseLengthPenalty, formatLengthPenalty, BEAM_MAX_WIDTH, MAX_LENGTH_PENALTY } from './lib/beam.js';

// `m=file:NAME`: the link was made while a model file from a disk was in use.
const FILE_MARK = 'file:';
const FILE_NAME_MAX = 120;

/** The shareable part with its defaults. model null = the catalogue's default. */
export function defaultShareState() {
  return { sentence: CONFIG.defaultSentence, model: null, scale: 1, step: 0, view: 'full', pieces: false, colour: 'absolute', compare: [], uiLang: null, pin: null, beam: null, beamLp: null, quiz: null };
}

/**
 * Parse a hash or query string strictly. Unknown keys are ignored, numbers
 * must be finite and in range, the sentence is capped; anything invalid is
 * simply left out (the caller keeps its default).
 */
export function parseShareString(str) {
  const out = {};
  if (typeof str !== 'string') return out;
  const text = str.replace(/^[#?]/, '');
  if (text.length > 20_000) return out; // refuse absurd links outright
  let params;
  try {
    params = new URLSearchParams(text);
  } catch {
    return out;
  }
  const s = params.get('s');
  if (s !== null) out.sentence = s.slice(0, CONFIG.maxSentenceChars);
  const m = params.get('m');
  // Only ids: a URL or a path is refused here and reported as rejectedModel
  // (the page says so; it never fetches a model from anywhere but its own list).
  if (m !== null && MODEL_ID.test(m)) out.model = m;
  else if (m !== null && m.startsWith(FILE_MARK) && m.length > FILE_MARK.length) out.fileModel = m.slice(FILE_MARK.length, FILE_MARK.length + FILE_NAME_MAX);
  else if (m !== null && m !== '') out.rejectedModel = m.slice(0, 200);
  const scale = parseScale(params.get('scale'));
  if (scale !== null) out.scale = scale;
  const step = parseStep(params.get('step'));
  if (step !== null) out.step = step;
  const view = params.get('view');
  if (view !== null && VIEWS.includes(view)) out.view = view;
  // pieces=1: the heatmap shows the model's subword pieces instead of words.
  const pieces = params.get('pieces');
  if (pieces === '1' || pieces === '0') out.pieces = pieces === '1';
  // colour=row: each heatmap row scaled to its own maximum.
  const colour = params.get('colour');
  if (colour !== null && COLOUR_MODES.includes(colour)) out.colour = colour;
  // vs=ID,ID: the models shown beside the main one (cards/compare.js).
  const vs = params.get('vs');
  if (vs !== null) out.compare = parseCompareList(vs);
  // uilang=de: the language of the page's own words (not the model's pair,
  // which `m` picks). Unknown values are left out: the browser's language,
  // then English, apply.
  const uiLang = uiLanguageOf(params.get('uilang'));
  if (uiLang) out.uiLang = uiLang;
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
  return out;
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

/** A step index from text, or null if invalid. */
export function parseStep(text) {
  if (text == null || !/^\s*[0-9]{1,4}\s*$/.test(text)) return null;
  const n = Number(text);
  return n <= 1024 ? n : null;
}

/** The hash string (without '#') for the shareable state. */
export function serializeShareState(st) {
  const p = new URLSearchParams();
  p.set('s', (st.sentence ?? '').slice(0, CONFIG.maxSentenceChars));
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
