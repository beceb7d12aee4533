// lesson.js - the lesson path: a list of steps, each a card to put in view,
// the state to set there (a sentence, the slider's scale, the step-through's
// step, …) and one short paragraph. The built-in path (`attention`) walks the
// teaching notes' 7 recap points and 4 pitfalls; a teacher's own path is a
// small JSON file or a link (`lesson=` holds the same JSON, one step a line).
// Pure: parsing and checking a path, naming the line and field at fault, the
// store patch of a step, and a step made from the page's state (the "Save
// this step" button). The words are the caller's (i18n keys lesson.*).
//
// A teacher's file:
//   { "title": "Attention in three steps",
//     "steps": [
//       { "card": "heat", "sentence": "I lost my keys.", "step": 1, "text": "Each row sums to 1." },
//       { "card": "slider", "scale": 4, "text": { "en": "Flatter.", "fr": "Plus plat." } } ] }

import { CONFIG, MODEL_ID, COLOUR_MODES } from '../config.js';
import { parsePin, pinToString } from './pin.js';

/** The cards a step may put in view (the full view's grid areas; the quiz hides the others, so not it). */
export const LESSON_CARDS = Object.freeze(['input', 'heat', 'slider', 'steps', 'ribbons', 'model', 'compare', 'beam', 'pin', 'erasure', 'training', 'theory', 'byhand', 'mathcheck', 'worksheet']);
export const LESSON_MAX_STEPS = 40;
export const LESSON_TEXT_MAX = 600;
export const LESSON_TITLE_MAX = 120;
/** The most characters a lesson file or link may have (40 steps of 600 characters, with room). */
export const LESSON_SOURCE_MAX = 60_000;
const LANGS = ['en', 'fr', 'de', 'es'];
const STEP_FIELDS = ['card', 'title', 'text', 'sentence', 'scale', 'step', 'pin', 'pieces', 'colour', 'compare'];
const MAX_STEP = 1024;
const COMPARE_MAX = 3;

/**
 * The built-in path: the notes' recap points (1-7) and pitfalls (1-4) in
 * order. Its titles and paragraphs are i18n keys (lesson.attention.N.title,
 * .text). Every sentence is one the default model (en-fr-int8) translates
 * correctly at the step's scale (tests/web/lesson.test.mjs checks it with
 * the engine): from models/testsets/teacher.tsv.
 */
export const BUILTIN_LESSONS = Object.freeze({
  attention: Object.freeze({
    id: 'attention',
    steps: Object.freeze([
      { card: 'steps', sentence: 'I need a new phone.', step: 2, kind: 'recap', n: 1 },
      { card: 'heat', sentence: 'I need a new phone.', step: 4, kind: 'recap', n: 2 },
      { card: 'compare', sentence: 'I lost my keys.', compare: ['en-fr-additive', 'en-fr-dot'], kind: 'recap', n: 3 },
      { card: 'theory', sentence: 'I lost my keys.', kind: 'recap', n: 4 },
      { card: 'byhand', sentence: 'I lost my keys.', kind: 'recap', n: 5 },
      { card: 'heat', sentence: 'I need a new phone.', scale: 4, kind: 'recap', n: 6 },
      { card: 'compare', sentence: 'Thank you for your help.', compare: ['en-fr-additive', 'en-fr-none'], kind: 'recap', n: 7 },
      { card: 'steps', sentence: 'I lost my keys.', step: 1, kind: 'pitfall', n: 1 },
      { card: 'erasure', sentence: 'I lost my keys.', kind: 'pitfall', n: 2 },
      { card: 'mathcheck', sentence: 'Good morning, everyone.', kind: 'pitfall', n: 3 },
      { card: 'heat', sentence: 'Good morning, everyone.', step: 1, colour: 'absolute', kind: 'pitfall', n: 4 },
    ].map((s, i) => Object.freeze({ ...s, key: `lesson.attention.${i + 1}` }))),
  }),
});

// ---------- JSON with positions ----------
// JSON.parse says where it failed only in some engines' words; a teacher needs
// the line. This reader takes the same grammar and remembers the line of each
// object member and array element, by path ('steps.2.scale').

class LessonSyntaxError extends Error {
  constructor(line, column, reason) { super(reason); this.line = line; this.column = column; this.reason = reason; }
}

function readJson(text) {
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const lines = new Map(); // path -> line
  const fail = (reason) => { throw new LessonSyntaxError(line, i - lineStart + 1, reason); };
  const space = () => {
    for (;;) {
      const c = text[i];
      if (c === '\n') { i++; line++; lineStart = i; } else if (c === ' ' || c === '\t' || c === '\r') i++; else break;
    }
  };
  const string = () => {
    const start = i;
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined || c === '\n') { i = start; fail('unterminated'); } // where the text began
      if (c === '"') break;
      if (c === '\\') i++;
      else if (c < ' ') fail('control');
      i++;
    }
    i++;
    try { return JSON.parse(text.slice(start, i)); } catch { i = start; return fail('escape'); }
  };
  const value = (path) => {
    space();
    lines.set(path, lines.get(path) ?? line);
    const c = text[i];
    if (c === '{') {
      i++;
      const out = {};
      space();
      if (text[i] === '}') { i++; return out; }
      for (;;) {
        space();
        if (text[i] !== '"') fail('key');
        const keyLine = line;
        const keyStart = i;
        const key = string();
        const sub = path ? `${path}.${key}` : key;
        lines.set(sub, keyLine);
        space();
        if (text[i] !== ':') fail('colon');
        i++;
        if (Object.hasOwn(out, key)) { i = keyStart; fail('duplicate'); }
        Object.defineProperty(out, key, { value: value(sub), enumerable: true, writable: true, configurable: true });
        space();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return out; }
        fail('comma');
      }
    }
    if (c === '[') {
      i++;
      const out = [];
      space();
      if (text[i] === ']') { i++; return out; }
      for (;;) {
        out.push(value(`${path}.${out.length}`));
        space();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return out; }
        fail('comma');
      }
    }
    if (c === '"') return string();
    const m = /^(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null)/.exec(text.slice(i, i + 40));
    if (!m) fail(c === undefined ? 'end' : 'value');
    i += m[0].length;
    return m[0] === 'true' ? true : m[0] === 'false' ? false : m[0] === 'null' ? null : Number(m[0]);
  };
  const root = value('');
  space();
  if (i < text.length) fail('after');
  return { root, lines };
}

// ---------- checking a path ----------

/**
 * A lesson from its JSON text (a file, or a link's `lesson=`):
 *   { lesson: { title, steps: [...] } }, or
 *   { error: { line, column?, step?, field?, reason, … } }: the first fault,
 *   with the line it is on (1-based), the step (1-based) and the field.
 * reason: syntax (with `syntax`: unterminated, control, escape, key, colon,
 * duplicate, comma, value, end, after), tooLong, notObject, noSteps,
 * tooManySteps, unknownField, missing, type, range, unknownCard, badPin,
 * badModel, tooManyModels.
 */
export function parseLesson(text) {
  if (typeof text !== 'string') return { error: { line: 1, reason: 'notObject' } };
  if (text.length > LESSON_SOURCE_MAX) return { error: { line: 1, reason: 'tooLong', max: LESSON_SOURCE_MAX } };
  let parsed;
  try { parsed = readJson(text.replace(/^\uFEFF/, '')); } catch (e) {
    if (e instanceof LessonSyntaxError) return { error: { line: e.line, column: e.column, reason: 'syntax', syntax: e.reason } };
    throw e;
  }
  // A field that is not there (missing) is on its step's line; the step's, on its list's.
  const lineOf = (path) => {
    for (let p = path; ; p = p.slice(0, Math.max(0, p.lastIndexOf('.')))) {
      if (parsed.lines.has(p)) return parsed.lines.get(p);
      if (!p) return 1;
    }
  };
  return checkLesson(parsed.root, lineOf);
}

/** A lesson object checked (lineOf(path): where each part is; 1 when unknown). */
export function checkLesson(root, lineOf = () => 1) {
  const err = (path, extra) => ({ error: { line: lineOf(path), ...extra } });
  if (!root || typeof root !== 'object' || Array.isArray(root)) return err('', { reason: 'notObject' });
  for (const k of Object.keys(root)) if (k !== 'title' && k !== 'steps') return err(k, { field: k, reason: 'unknownField' });
  let title = null;
  if (root.title !== undefined) {
    if (typeof root.title !== 'string') return err('title', { field: 'title', reason: 'type', expected: 'text' });
    if (root.title.length > LESSON_TITLE_MAX) return err('title', { field: 'title', reason: 'range', expected: 'textMax', max: LESSON_TITLE_MAX });
    title = root.title;
  }
  if (!Array.isArray(root.steps)) return err(root.steps === undefined ? '' : 'steps', { field: 'steps', reason: root.steps === undefined ? 'missing' : 'type', expected: 'list' });
  if (root.steps.length === 0) return err('steps', { field: 'steps', reason: 'noSteps' });
  if (root.steps.length > LESSON_MAX_STEPS) return err(`steps.${LESSON_MAX_STEPS}`, { field: 'steps', reason: 'tooManySteps', max: LESSON_MAX_STEPS });
  const steps = [];
  for (const [i, raw] of root.steps.entries()) {
    const at = (field) => (field ? `steps.${i}.${field}` : `steps.${i}`);
    const bad = (field, extra) => err(at(field), { step: i + 1, field, ...extra });
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return bad(null, { reason: 'type', expected: 'step' });
    for (const k of Object.keys(raw)) if (!STEP_FIELDS.includes(k)) return bad(k, { reason: 'unknownField' });
    const step = {};
    if (raw.card === undefined) return bad('card', { reason: 'missing' });
    if (!LESSON_CARDS.includes(raw.card)) return bad('card', { reason: 'unknownCard', value: String(raw.card).slice(0, 40), list: LESSON_CARDS });
    step.card = raw.card;
    if (raw.text === undefined) return bad('text', { reason: 'missing' });
    const text = checkText(raw.text);
    if (text.error) return bad(text.lang ? `text.${text.lang}` : 'text', text.error);
    step.text = text.value;
    if (raw.title !== undefined) {
      if (typeof raw.title !== 'string') return bad('title', { reason: 'type', expected: 'text' });
      if (raw.title.length > LESSON_TITLE_MAX) return bad('title', { reason: 'range', expected: 'textMax', max: LESSON_TITLE_MAX });
      step.title = raw.title;
    }
    if (raw.sentence !== undefined) {
      if (typeof raw.sentence !== 'string' || !raw.sentence.trim()) return bad('sentence', { reason: 'type', expected: 'text' });
      if (raw.sentence.length > CONFIG.maxSentenceChars) return bad('sentence', { reason: 'range', expected: 'textMax', max: CONFIG.maxSentenceChars });
      step.sentence = raw.sentence;
    }
    if (raw.scale !== undefined) {
      const lo = 2 ** CONFIG.scaleMinLog2;
      const hi = 2 ** CONFIG.scaleMaxLog2;
      if (typeof raw.scale !== 'number') return bad('scale', { reason: 'type', expected: 'number' });
      if (!(raw.scale >= lo && raw.scale <= hi)) return bad('scale', { reason: 'range', expected: 'number', lo, hi, value: raw.scale });
      step.scale = raw.scale;
    }
    if (raw.step !== undefined) {
      if (typeof raw.step !== 'number') return bad('step', { reason: 'type', expected: 'whole' });
      if (!Number.isInteger(raw.step) || raw.step < 0 || raw.step > MAX_STEP) return bad('step', { reason: 'range', expected: 'whole', lo: 0, hi: MAX_STEP, value: raw.step });
      step.step = raw.step;
    }
    if (raw.pin !== undefined) {
      const p = typeof raw.pin === 'string' ? parsePin(raw.pin) : null;
      if (!p?.pin) return bad('pin', { reason: 'badPin', value: String(raw.pin).slice(0, 40) });
      step.pin = pinToString(p.pin);
    }
    if (raw.pieces !== undefined) {
      if (typeof raw.pieces !== 'boolean') return bad('pieces', { reason: 'type', expected: 'boolean' });
      step.pieces = raw.pieces;
    }
    if (raw.colour !== undefined) {
      if (!COLOUR_MODES.includes(raw.colour)) return bad('colour', { reason: 'range', expected: 'oneOf', list: COLOUR_MODES, value: String(raw.colour).slice(0, 40) });
      step.colour = raw.colour;
    }
    if (raw.compare !== undefined) {
      if (!Array.isArray(raw.compare)) return bad('compare', { reason: 'type', expected: 'list' });
      if (raw.compare.length > COMPARE_MAX) return bad('compare', { reason: 'tooManyModels', max: COMPARE_MAX });
      const badId = raw.compare.find((id) => typeof id !== 'string' || !MODEL_ID.test(id));
      if (badId !== undefined) return bad('compare', { reason: 'badModel', value: String(badId).slice(0, 40) });
      step.compare = [...new Set(raw.compare)];
    }
    steps.push(step);
  }
  return { lesson: { title, steps } };
}

// A paragraph: text, or { en, fr, de, es } with at least one.
function checkText(text) {
  const one = (s) => (typeof s !== 'string' || !s.trim() ? { reason: 'type', expected: 'text' }
    : s.length > LESSON_TEXT_MAX ? { reason: 'range', expected: 'textMax', max: LESSON_TEXT_MAX } : null);
  if (typeof text === 'string') { const e = one(text); return e ? { error: e } : { value: text }; }
  if (!text || typeof text !== 'object' || Array.isArray(text)) return { error: { reason: 'type', expected: 'textOrLanguages' } };
  const keys = Object.keys(text);
  if (!keys.length) return { error: { reason: 'type', expected: 'textOrLanguages' } };
  for (const k of keys) {
    if (!LANGS.includes(k)) return { lang: k, error: { reason: 'unknownField' } };
    const e = one(text[k]);
    if (e) return { lang: k, error: e };
  }
  return { value: Object.fromEntries(keys.map((k) => [k, text[k]])) };
}

// ---------- links ----------

/** A link's `lesson=` value: 'attention' (the built-in path), or a teacher's JSON. → { lesson } | { error } */
export function parseLessonParam(value) {
  if (Object.hasOwn(BUILTIN_LESSONS, value)) return { lesson: BUILTIN_LESSONS[value] };
  if (!value.trimStart().startsWith('{')) return { error: { line: 1, reason: 'unknownLesson', value: value.slice(0, 40), list: Object.keys(BUILTIN_LESSONS) } };
  return parseLesson(value);
}

/** The `lesson=` value of a lesson: the built-in's name, or its JSON with one step a line (errors then name the step's line). */
export function lessonParam(lesson) {
  if (lesson.id) return lesson.id;
  const head = lesson.title != null ? `{"title":${JSON.stringify(lesson.title)},"steps":[` : '{"steps":[';
  return `${head}\n${lesson.steps.map((s) => JSON.stringify(s)).join(',\n')}\n]}`;
}

/** The JSON file of a lesson (the same format, indented for a teacher to edit). */
export function lessonFile(lesson) {
  const steps = lesson.steps.map((s) => `    ${JSON.stringify(s)}`).join(',\n');
  return `{\n${lesson.title != null ? `  "title": ${JSON.stringify(lesson.title)},\n` : ''}  "steps": [\n${steps}\n  ]\n}\n`;
}

// ---------- steps and the store ----------

/**
 * The store patch of step i: its card's state. What a step leaves out takes
 * the page's defaults (scale 1, step 0, no pin, words, absolute colour, no
 * comparison), so Back shows exactly what that step showed; the sentence is
 * the latest one given at or before the step (none: the page's stays).
 */
export function lessonStepPatch(lesson, i) {
  const s = lesson.steps[i];
  const patch = {
    scale: s.scale ?? 1, step: s.step ?? 0, pieces: s.pieces ?? false, colour: s.colour ?? 'absolute',
    compare: s.compare ? [...s.compare] : [], pin: s.pin ? parsePin(s.pin).pin : null, quiz: null,
  };
  for (let k = i; k >= 0; k--) if (lesson.steps[k].sentence !== undefined) { patch.sentence = lesson.steps[k].sentence; break; }
  return patch;
}

/** The paragraph of a teacher's step in a UI language (theirs, else English, else the first they wrote). */
export function lessonText(step, lang) {
  if (typeof step.text === 'string') return step.text;
  return step.text[lang] ?? step.text.en ?? Object.values(step.text)[0];
}

/**
 * "Save this step": a step made from the page's state (st: the store's),
 * the card chosen and the teacher's paragraph. Only what differs from the
 * defaults is written, and the sentence always.
 */
export function stepFromState(st, { card, text, title = '' }) {
  const step = { card, text };
  if (title) step.title = title;
  step.sentence = st.sentence;
  if (st.scale !== 1) step.scale = st.scale;
  if (st.step) step.step = st.step;
  if (st.pin) step.pin = pinToString(st.pin);
  if (st.pieces) step.pieces = true;
  if (st.colour && st.colour !== 'absolute') step.colour = st.colour;
  if (st.compare?.length) step.compare = [...st.compare];
  return step;
}

/** A step number from a link's `ls=` (1-based), or null. */
export function parseLessonStep(text) {
  if (text == null || !/^\s*[0-9]{1,3}\s*$/.test(text) || Number(text) < 1) return null;
  return Number(text) - 1;
}
