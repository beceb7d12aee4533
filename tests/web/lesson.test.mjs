// The lesson path without a browser (web/lib/lesson.js): the built-in path
// is the notes' 7 recap points then 4 pitfalls, its words in every UI
// language, its sentences translated correctly by the default model (Node's
// engine, decoded as the page decodes, at each step's scale); a teacher's
// path is read and checked, and each fault names its line, step and field;
// the link's lesson= and ls= round-trip, and a bad lesson is the link's only
// result; a step's store patch; "Save this step".
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_LESSONS, LESSON_CARDS, LESSON_MAX_STEPS, parseLesson, parseLessonParam, lessonParam, lessonFile, lessonStepPatch, stepFromState, lessonText, checkLesson } from '../../web/lib/lesson.js';
import { parseShareString, serializeShareState, defaultShareState, lessonProblemText, linkProblemText } from '../../web/state.js';
import { STRINGS, setUiLanguage } from '../../web/i18n/all.js';
import { createEngine, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/engine.js';

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LESSON = BUILTIN_LESSONS.attention;

test('the built-in path: the 7 recap points, then the 4 pitfalls, each on a card of the page, its words in the four UI languages', () => {
  assert.deepEqual(LESSON.steps.map((s) => `${s.kind} ${s.n}`),
    ['recap 1', 'recap 2', 'recap 3', 'recap 4', 'recap 5', 'recap 6', 'recap 7', 'pitfall 1', 'pitfall 2', 'pitfall 3', 'pitfall 4']);
  for (const s of LESSON.steps) {
    assert.ok(LESSON_CARDS.includes(s.card), s.card);
    for (const code of ['en', 'fr', 'de', 'es']) {
      for (const part of ['title', 'text']) {
        const text = STRINGS[code][`${s.key}.${part}`];
        assert.equal(typeof text, 'string', `${code} ${s.key}.${part}`);
        assert.ok(part === 'title' || (text.length > 100 && text.length <= 420), `${code} ${s.key}.text: one short paragraph (${text.length})`);
      }
    }
  }
  // The step's card is the one its paragraph talks about (a few anchors). √d: the heatmap, whose
  // header holds the slider, so the rows the paragraph speaks of are on screen with it.
  assert.equal(LESSON.steps[5].card, 'heat');
  assert.equal(LESSON.steps[5].scale, 4);
  assert.deepEqual(LESSON.steps[2].compare, ['en-fr-additive', 'en-fr-dot']);
  assert.deepEqual(LESSON.steps[6].compare, ['en-fr-additive', 'en-fr-none']);
  assert.equal(LESSON.steps[8].card, 'erasure');
});

let engine = null;
after(() => engine?.dispose());

test('the built-in path’s sentences come from the teacher’s set and the default model translates each correctly at its step’s scale', async () => {
  engine = await createEngine({ variant: 'simd' });
  const info = engine.load(fs.readFileSync(path.join(REPO, 'models', 'en-fr-int8.alsc')));
  const refs = Object.fromEntries(fs.readFileSync(path.join(REPO, 'models', 'testsets', 'teacher.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t').slice(0, 2)));
  // Correct: the set's reference, or one of these two, checked by hand (formal “votre”; “tout le monde” for “à tous”).
  const alsoCorrect = { 'Thank you for your help.': 'Merci pour votre aide.', 'Good morning, everyone.': 'Bonjour, tout le monde.' };
  const trained = info.trainedScoreScale > 0 ? info.trainedScoreScale : 1;
  for (let i = 0; i < LESSON.steps.length; i++) {
    const { sentence, scale } = lessonStepPatch(LESSON, i);
    assert.ok(refs[sentence], `step ${i + 1}: “${sentence}” is in models/testsets/teacher.tsv`);
    const out = engine.beam(sentence, { scoreScale: trained / scale, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses[0].translation;
    assert.ok(out === refs[sentence] || out === alsoCorrect[sentence], `step ${i + 1}: “${sentence}” at scale ${scale} → “${out}”`);
  }
});

const FILE = `{
  "title": "Mine",
  "steps": [
    { "card": "heat", "sentence": "I lost my keys.", "step": 1, "text": "Rows sum to 1." },
    { "card": "slider", "scale": 4, "title": "Flat", "text": { "en": "Flatter.", "fr": "Plus plat." } },
    { "card": "pin", "pin": "2:@0", "pieces": true, "colour": "row", "compare": ["en-fr-dot", "en-fr-dot"], "text": "Pinned." }
  ]
}
`;

test('a teacher’s file: read, checked, and as a link and a file again the same lesson', () => {
  const { lesson, error } = parseLesson(FILE);
  assert.equal(error, undefined);
  assert.equal(lesson.title, 'Mine');
  assert.deepEqual(lesson.steps[1], { card: 'slider', scale: 4, title: 'Flat', text: { en: 'Flatter.', fr: 'Plus plat.' } });
  assert.deepEqual(lesson.steps[2].compare, ['en-fr-dot'], 'a model once');
  assert.equal(lessonText(lesson.steps[1], 'fr'), 'Plus plat.');
  assert.equal(lessonText(lesson.steps[1], 'de'), 'Flatter.', 'English when the language is not written');
  assert.deepEqual(parseLesson(lessonParam(lesson)).lesson, lesson, 'the link’s form');
  assert.deepEqual(parseLesson(lessonFile(lesson)).lesson, lesson, 'the file’s form');
  assert.equal(lessonParam(lesson).split('\n').length, 5, 'one step a line in a link');
  assert.deepEqual(parseLesson(`\uFEFF${FILE}`).lesson, lesson, 'a byte-order mark is no fault');
});

// The first fault of FILE with one line replaced.
const faultIn = (lineNo, text) => parseLesson(FILE.split('\n').map((l, i) => (i + 1 === lineNo ? text : l)).join('\n')).error;

test('each fault names its line, step and field', () => {
  const cases = [
    [5, '    { "card": "slider", "scale": "4", "text": "x" },', { line: 5, step: 2, field: 'scale', reason: 'type', expected: 'number' }],
    [5, '    { "card": "slider", "scale": 400, "text": "x" },', { line: 5, step: 2, field: 'scale', reason: 'range', expected: 'number', lo: 1 / 16, hi: 64, value: 400 }],
    [5, '    { "card": "slider", "scal": 4, "text": "x" },', { line: 5, step: 2, field: 'scal', reason: 'unknownField' }],
    [5, '    { "card": "heatmap", "text": "x" },', { line: 5, step: 2, field: 'card', reason: 'unknownCard', value: 'heatmap', list: LESSON_CARDS }],
    [5, '    { "scale": 4, "text": "x" },', { line: 5, step: 2, field: 'card', reason: 'missing' }],
    [5, '    { "card": "heat" },', { line: 5, step: 2, field: 'text', reason: 'missing' }],
    [5, '    { "card": "heat", "text": "" },', { line: 5, step: 2, field: 'text', reason: 'type', expected: 'text' }],
    [5, '    { "card": "heat", "text": { "it": "Ciao" } },', { line: 5, step: 2, field: 'text.it', reason: 'unknownField' }],
    [5, '    { "card": "heat", "step": 1.5, "text": "x" },', { line: 5, step: 2, field: 'step', reason: 'range', expected: 'whole', lo: 0, hi: 1024, value: 1.5 }],
    [5, '    { "card": "heat", "pin": "2:@", "text": "x" },', { line: 5, step: 2, field: 'pin', reason: 'badPin', value: '2:@' }],
    [5, '    { "card": "heat", "pieces": "yes", "text": "x" },', { line: 5, step: 2, field: 'pieces', reason: 'type', expected: 'boolean' }],
    [5, '    { "card": "heat", "colour": "blue", "text": "x" },', { line: 5, step: 2, field: 'colour', reason: 'range', expected: 'oneOf', list: ['absolute', 'row'], value: 'blue' }],
    [5, '    { "card": "heat", "compare": ["https://x.org/m.alsc"], "text": "x" },', { line: 5, step: 2, field: 'compare', reason: 'badModel', value: 'https://x.org/m.alsc' }],
    [5, '    { "card": "heat", "sentence": "  ", "text": "x" },', { line: 5, step: 2, field: 'sentence', reason: 'type', expected: 'text' }],
    [5, '    "heat",', { line: 5, step: 2, field: null, reason: 'type', expected: 'step' }],
    [2, '  "title": 3,', { line: 2, field: 'title', reason: 'type', expected: 'text' }],
    [2, '  "name": "Mine",', { line: 2, field: 'name', reason: 'unknownField' }],
    // Syntax: the line and the column.
    [5, '    { "card": "slider" "scale": 4, "text": "x" },', { line: 5, column: 24, reason: 'syntax', syntax: 'comma' }],
    [5, '    { "card": "slider", "scale": 4, "text": "x" }', { line: 6, column: 5, reason: 'syntax', syntax: 'comma' }],
    [5, "    { 'card': 'slider', \"text\": \"x\" },", { line: 5, column: 7, reason: 'syntax', syntax: 'key' }],
    [5, '    { "card": "slider", "card": "heat", "text": "x" },', { line: 5, column: 25, reason: 'syntax', syntax: 'duplicate' }],
    [5, '    { "card": "slider", "scale": .5, "text": "x" },', { line: 5, column: 34, reason: 'syntax', syntax: 'value' }],
    [5, '    { "card": "slider", "text": "x\\q" },', { line: 5, column: 33, reason: 'syntax', syntax: 'escape' }],
  ];
  for (const [lineNo, text, expected] of cases) {
    const e = faultIn(lineNo, text);
    assert.deepEqual(Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'list' || expected.list)), expected, text);
  }
  assert.deepEqual(parseLesson('{"steps":[{"card":"heat","text":"unclosed}]}'), { error: { line: 1, column: 33, reason: 'syntax', syntax: 'unterminated' } });
  assert.deepEqual(parseLesson('{"steps":[]}'), { error: { line: 1, field: 'steps', reason: 'noSteps' } });
  assert.deepEqual(parseLesson('{"title":"x"}\n'), { error: { line: 1, field: 'steps', reason: 'missing', expected: 'list' } });
  assert.deepEqual(parseLesson('[1]'), { error: { line: 1, reason: 'notObject' } });
  assert.deepEqual(parseLesson('{"steps":[]} x'), { error: { line: 1, column: 14, reason: 'syntax', syntax: 'after' } });
  assert.deepEqual(parseLesson('{"steps":['), { error: { line: 1, column: 11, reason: 'syntax', syntax: 'end' } });
  const many = JSON.stringify({ steps: Array.from({ length: LESSON_MAX_STEPS + 1 }, () => ({ card: 'heat', text: 'x' })) }, null, 1);
  assert.equal(parseLesson(many).error.reason, 'tooManySteps');
  assert.equal(parseLesson('x'.repeat(70_000)).error.reason, 'tooLong');
  // A lesson object from elsewhere is checked by the same rules.
  assert.equal(checkLesson({ steps: [{ card: 'heat', text: 'x', scale: -1 }] }).error.field, 'scale');
});

test('faults said in the UI language, with the line, the step and the field', () => {
  const e = faultIn(5, '    { "card": "slider", "scale": 400, "text": "x" },');
  setUiLanguage('en');
  assert.equal(lessonProblemText(e, 'file'), 'The lesson file, line 5 (step 2), field “scale”: 400 is not between 0.0625 and 64. The lesson was not started and nothing on the page changed.');
  setUiLanguage('fr');
  try {
    assert.equal(lessonProblemText(e, 'link'), 'La leçon du lien, ligne 5 (étape 2), champ « scale » : 400 n’est pas entre 0,0625 et 64. La leçon n’a pas commencé et rien n’a changé sur la page.');
    // Every reason has words in every language (no key shown as itself).
    for (const code of ['en', 'fr', 'de', 'es']) {
      setUiLanguage(code);
      for (const [lineNo, text] of [[5, '    { "scale": 4, "text": "x" },'], [5, '    { "card": "x", "text": "x" },'], [5, '    { "card": "heat" "text": "x" },'], [5, '    { "card": "heat", "pin": "z", "text": "x" },']]) {
        const said = lessonProblemText(faultIn(lineNo, text), 'file');
        assert.doesNotMatch(said, /lesson\.err/, `${code}: ${said}`);
      }
    }
  } finally {
    setUiLanguage('en');
  }
});

test('the link: lesson= and ls= round-trip; a bad lesson is the link’s only result; ls past the end is said', () => {
  const mine = parseLesson(FILE).lesson;
  for (const [lesson, step] of [[LESSON, 4], [mine, 2]]) {
    const hash = serializeShareState({ ...defaultShareState(), sentence: 'I lost my keys.', lesson, lessonStep: step });
    const back = parseShareString(hash);
    assert.deepEqual(back.lesson, lesson);
    assert.equal(back.lessonStep, step);
    assert.equal(back.problems, undefined);
  }
  assert.equal(parseShareString('#lesson=attention').lesson, LESSON, 'the built-in path itself');
  assert.equal(parseShareString('#lesson=attention').lessonStep, 0);
  const past = parseShareString('#lesson=attention&ls=12');
  assert.equal(past.lessonStep, 0);
  assert.match(linkProblemText(past.problems[0]), /“12”.*1.*11/);
  // A bad lesson: nothing of the link applies (not even its sentence), and the problem says where.
  const bad = parseShareString(`#${new URLSearchParams({ s: 'Hello', scale: '2', lesson: '{"steps":[\n{"card":"heat","text":"a"},\n{"card":"heat","text":"b","step":-1}\n]}' })}`);
  assert.deepEqual(Object.keys(bad), ['problems']);
  assert.equal(linkProblemText(bad.problems[0]), 'The lesson in the link, line 3 (step 2), field “step”: -1 is not a whole number from 0 to 1,024. The lesson was not started and nothing on the page changed.');
  assert.deepEqual(parseLessonParam('geometry').error, { line: 1, reason: 'unknownLesson', value: 'geometry', list: ['attention'] });
});

test('a step’s store patch: what it leaves out takes the defaults, and the sentence carries on from the steps before', () => {
  const mine = parseLesson(FILE).lesson;
  assert.deepEqual(lessonStepPatch(mine, 0), { sentence: 'I lost my keys.', scale: 1, step: 1, pieces: false, colour: 'absolute', compare: [], pin: null, quiz: null });
  assert.deepEqual(lessonStepPatch(mine, 1), { sentence: 'I lost my keys.', scale: 4, step: 0, pieces: false, colour: 'absolute', compare: [], pin: null, quiz: null });
  const third = lessonStepPatch(mine, 2);
  assert.deepEqual(third.pin, { step: 2, at: 0 });
  assert.deepEqual([third.pieces, third.colour, third.compare], [true, 'row', ['en-fr-dot']]);
  // A path with no sentence leaves the page's.
  assert.equal('sentence' in lessonStepPatch({ steps: [{ card: 'theory', text: 'x' }] }, 0), false);
});

test('“Save this step”: the page’s state as a step, only what differs from the defaults, and a valid lesson', () => {
  const st = { ...defaultShareState(), sentence: 'I lost my keys.', scale: 0.5, step: 2, pin: { step: 1, at: 0 }, compare: ['en-fr-none'] };
  const step = stepFromState(st, { card: 'steps', text: 'Look.', title: 'T' });
  assert.deepEqual(step, { card: 'steps', text: 'Look.', title: 'T', sentence: 'I lost my keys.', scale: 0.5, step: 2, pin: '1:@0', compare: ['en-fr-none'] });
  assert.deepEqual(stepFromState({ ...defaultShareState(), sentence: 'Hi.' }, { card: 'heat', text: 'x' }), { card: 'heat', text: 'x', sentence: 'Hi.' });
  const lesson = { title: null, steps: [step] };
  assert.deepEqual(parseLesson(lessonParam(lesson)).lesson, lesson);
});
