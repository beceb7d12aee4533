// The predict-then-reveal quiz: lib/quiz.js (the link value, scoring a step,
// the summary, the next-word choices, where a game starts) and
// controllers/quiz.js (a whole game played on a store, as the card drives
// it), on a synthetic trace built by hand with subword pieces, so that the
// word and piece levels differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuizValue, quizValue, scoreStep, quizSummary, wordChoices, startRow, alphaRow, sameWord, seededShuffle, matrixKey } from '../../web/lib/quiz.js';
import { parseShareString, serializeShareState, defaultShareState, createStore } from '../../web/state.js';
import { figureMatrix } from '../../web/lib/figure.js';
import { createQuiz } from '../../web/controllers/quiz.js';
import { setUiLanguage } from '../../web/i18n/index.js';

const close = (a, b, msg) => assert.ok(Math.abs(a - b) <= 1e-6, `${msg}: ${a} vs ${b}`);

// Source pieces: "un" "saved" "file" "s" "."  → words: unsaved, files, .
// Target pieces: "fich" "iers" "non" "sauv" "és" "</s>" → words: fichiers, non, sauvés, </s>
const S = 5;
const T = 6;
const alpha = new Float32Array([
  0.10, 0.10, 0.60, 0.20, 0.00,
  0.00, 0.20, 0.50, 0.30, 0.00,
  0.70, 0.20, 0.10, 0.00, 0.00,
  0.30, 0.60, 0.10, 0.00, 0.00,
  0.10, 0.80, 0.10, 0.00, 0.00,
  0.00, 0.00, 0.10, 0.10, 0.80,
]);
const src = (text, word) => ({ text, token: `▁${text}`, word });
const tgt = (text, token, word, extra = {}) => ({ text, token, word, copiedFrom: -1, isEnd: false, ...extra });
const trace = {
  text: 'unsaved files.', translation: 'fichiers non sauvés.', S, T, alpha,
  source: [src('un', 0), src('saved', 0), src('file', 1), src('s', 1), src('.', 2)],
  target: [tgt('fich', '▁fich', 0), tgt('iers', 'iers', 0), tgt('non', '▁non', 1), tgt('sauv', '▁sauv', 2), tgt('és', 'és', 2), tgt('', '</s>', 3, { isEnd: true })],
  sourceWords: [{ text: 'unsaved', first: 0, count: 2 }, { text: 'files', first: 2, count: 2 }, { text: '.', first: 4, count: 1 }],
  targetWords: [{ text: 'fichiers', first: 0, count: 2 }, { text: 'non', first: 2, count: 1 }, { text: 'sauvés', first: 3, count: 2 }, { text: '</s>', first: 5, count: 1 }],
  topK: 4,
  topTokens: [
    ['▁fich', '▁Fich', '▁dossiers', '▁les'],
    ['iers', 'ier', '▁non', '.'],
    ['▁non', '▁pas', '▁ne', '▁sans'],
    ['▁sauv', '▁enregistr', '▁sauvés', '.'],
    ['és', 'ées', 'é', '</s>'],
    ['</s>', '.', '▁!', '▁les'],
  ],
};
const INFO = { tokenizer: 'subwords' };
const words = figureMatrix(trace, INFO, false);
const pieces = figureMatrix(trace, INFO, true);

test('the link value: quiz=1 / source / source+word / 0, strictly; it round-trips through the hash', () => {
  assert.deepEqual(parseQuizValue('1'), { mode: 'source' });
  assert.deepEqual(parseQuizValue('source'), { mode: 'source' });
  assert.deepEqual(parseQuizValue('source+word'), { mode: 'word' });
  assert.deepEqual(parseQuizValue('source word'), { mode: 'word' }, 'a + in a link is a space');
  assert.deepEqual(parseQuizValue('0'), { mode: null });
  for (const bad of ['', 'yes', 'Source', 'words', '2', ' 1']) assert.deepEqual(parseQuizValue(bad), { bad }, bad);

  assert.equal(parseShareString('#quiz=1').quiz, 'source');
  assert.equal(parseShareString('#quiz=source+word').quiz, 'word');
  assert.equal(parseShareString('#quiz=source%2Bword').quiz, 'word');
  assert.equal(parseShareString('#quiz=0').quiz, null);
  assert.equal(parseShareString('#s=x').quiz, undefined, 'no key: the page’s own state');
  // A value it does not know: the quiz still runs (source words only), and the value is reported.
  assert.deepEqual(((p) => [p.quiz, p.rejectedQuiz])(parseShareString('#quiz=sorce')), ['source', 'sorce']);
  assert.deepEqual(((p) => [p.quiz, p.rejectedQuiz])(parseShareString('#quiz=')), ['source', '']);

  const st = { ...defaultShareState(), sentence: 'Open the file', model: 'en-fr', step: 3 };
  assert.doesNotMatch(serializeShareState(st), /quiz/, 'no quiz, no key');
  assert.match(serializeShareState({ ...st, quiz: 'source' }), /(^|&)quiz=1(&|$)/);
  assert.match(serializeShareState({ ...st, quiz: 'word' }), /(^|&)quiz=source\+word(&|$)/);
  for (const mode of ['source', 'word']) {
    const back = parseShareString(serializeShareState({ ...st, quiz: mode }));
    assert.deepEqual([back.quiz, back.sentence, back.model, back.step], [mode, 'Open the file', 'en-fr', 3]);
  }
  assert.equal(quizValue('word'), 'source word');
});

test('scoring a step: right on the largest α (a tie counts), else how much less α and how far', () => {
  const row = [0.1, 0.5, 0.05, 0.3, 0.05];
  const right = scoreStep(row, 1);
  assert.deepEqual([right.right, right.best, right.gap, right.distance], [true, 1, 0, 0]);
  const wrong = scoreStep(row, 3);
  assert.equal(wrong.right, false);
  assert.equal(wrong.best, 1);
  close(wrong.gap, 0.2, 'gap = max α − α picked');
  assert.equal(wrong.distance, 2);
  assert.equal(scoreStep(row, 4).distance, 3);
  // Two columns share the largest α: either is right; a miss counts the distance to the nearer one.
  const tie = [0.4, 0.1, 0.1, 0.4];
  assert.equal(scoreStep(tie, 3).right, true);
  assert.equal(scoreStep(tie, 3).best, 3, 'a right pick of a tie is its own best');
  assert.equal(scoreStep(tie, 2).distance, 1);
  assert.equal(scoreStep(tie, 2).best, 0);
  // The next word: case-insensitive, trimmed.
  assert.equal(scoreStep(row, 1, { guess: 'Fenêtre', truth: 'fenêtre ' }).word.right, true);
  assert.equal(scoreStep(row, 1, { guess: 'porte', truth: 'fenêtre' }).word.right, false);
  assert.equal(scoreStep(row, 1).word, null);
  assert.throws(() => scoreStep(row, 5), RangeError);
  assert.throws(() => scoreStep(row, -1), RangeError);
  assert.throws(() => scoreStep(row, 1.5), RangeError);
  assert.ok(sameWord('É', 'é') && !sameWord(null, 'x') && !sameWord('a', 'b'));
});

test('the summary: right count, percent, mean and largest miss over the misses, words', () => {
  const results = [
    scoreStep([0.7, 0.2, 0.1], 0, { guess: 'a', truth: 'a' }),
    scoreStep([0.7, 0.2, 0.1], 2, { guess: 'b', truth: 'a' }),  // gap 0.6, 2 away
    scoreStep([0.1, 0.3, 0.6], 1, { guess: 'c', truth: 'C' }),  // gap 0.3, 1 away
    scoreStep([0.2, 0.5, 0.3], 1, { guess: 'x', truth: 'y' }),
  ];
  const s = quizSummary(results);
  assert.deepEqual([s.played, s.right, s.percent, s.misses.length], [4, 2, 50, 2]);
  close(s.meanGap, 0.45, 'mean gap over the misses');
  close(s.maxGap, 0.6, 'largest gap');
  close(s.meanDistance, 1.5, 'mean distance over the misses');
  assert.deepEqual(s.words, { right: 2, played: 4 });
  const none = quizSummary([]);
  assert.deepEqual([none.played, none.right, none.percent, none.meanGap, none.meanDistance, none.words], [0, 0, 0, 0, 0, null]);
  const perfect = quizSummary([scoreStep([0.9, 0.1], 0)]);
  assert.deepEqual([perfect.percent, perfect.meanGap, perfect.maxGap, perfect.words], [100, 0, 0, null]);
});

test('where a game starts: the row of the step; a step past the end starts at the last row, and says so', () => {
  assert.deepEqual(startRow(words, 0), { row: 0, beyond: false });
  assert.deepEqual(startRow(words, 1), { row: 0, beyond: false }, 'a piece of the first word: its word’s row');
  assert.deepEqual(startRow(words, 4), { row: 2, beyond: false });
  assert.deepEqual(startRow(words, 5), { row: 3, beyond: false });
  assert.deepEqual(startRow(words, 6), { row: 3, beyond: true });
  assert.deepEqual(startRow(words, 1000), { row: 3, beyond: true });
  assert.deepEqual(startRow(pieces, 4), { row: 4, beyond: false });
  assert.deepEqual(startRow(pieces, 99), { row: 5, beyond: true });
  // The word level's rows: the mean of a word's pieces, its columns summed (lib/words.js).
  close(alphaRow(words, 0)[0], (0.1 + 0.1 + 0.0 + 0.2) / 2, 'row fichiers, column unsaved');
});

test('next-word choices: the word it wrote and the runners-up at its first step, no case duplicates, in a fixed order', () => {
  const c = wordChoices(words, 0, 5);
  assert.equal(c.truth, 'fichiers');
  assert.deepEqual([...c.choices].sort(), ['Fich', 'dossiers', 'fichiers', 'les'], 'the piece it wrote (“▁fich”) stands as its word');
  assert.deepEqual([...wordChoices(pieces, 0, 5).choices].sort(), ['dossiers', 'fich', 'les'], '“Fich” is “fich” once more: left out');
  assert.deepEqual(wordChoices(words, 0, 5).choices, c.choices, 'the same order every time');
  assert.deepEqual(wordChoices(words, 0, 2).choices.length, 2);
  assert.ok(wordChoices(words, 0, 2).choices.includes('fichiers'), 'the truth is always offered');
  assert.deepEqual([...wordChoices(words, 3, 5).choices].sort(), ['!', '.', '</s>', 'les'], 'words: plain text, no continuation mark');
  // Pieces: written as the step-through writes them, what it wrote included ("·és" continues "sauv").
  assert.deepEqual(wordChoices(pieces, 4, 5).truth, '·és');
  assert.deepEqual([...wordChoices(pieces, 4, 5).choices].sort(), ['</s>', '·é', '·ées', '·és']);
  assert.deepEqual(wordChoices(pieces, 5, 5).truth, '</s>');
  assert.deepEqual([...wordChoices(words, 2, 9).choices].sort(), ['.', 'enregistr', 'sauvés'], '“▁sauvés” is the word itself, once');
  // A word model's tokens are shown as they are.
  assert.deepEqual([...wordChoices(figureMatrix(trace, {}, false), 1, 5).choices].sort(), ['non', '▁ne', '▁pas', '▁sans']);
  const list = ['a', 'b', 'c', 'd', 'e', 'f'];
  assert.deepEqual([...seededShuffle(list, 7)].sort(), list);
  assert.deepEqual(seededShuffle(list, 7), seededShuffle(list, 7));
  assert.notDeepEqual(seededShuffle(list, 7), seededShuffle(list, 8));
});

/** A store as ui.js makes one, with the matrix of `level`. */
function quizStore(extra = {}) {
  return createStore({ ...defaultShareState(), model: 'm', notices: {}, trace: null, matrix: null, local: null, quizPlay: null, ...extra });
}

test('the controller: a scripted game, its running results and its summary; the quiz never moves the step', () => {
  setUiLanguage('en');
  const store = quizStore();
  const quiz = createQuiz(store);
  store.set({ trace, matrix: words });
  assert.equal(store.get().quizPlay, null, 'no quiz, no game');
  quiz.start('word');
  let p = store.get().quizPlay;
  assert.deepEqual([p.mode, p.startRow, p.row, p.revealed, p.results.length], ['word', 0, 0, false, 0]);
  assert.ok(p.choices.includes('fichiers'));

  quiz.reveal();
  assert.equal(store.get().quizPlay.revealed, false, 'nothing picked: no reveal');
  // The word rows' α (columns unsaved, files, .): fichiers [0.2, 0.8, 0], non [0.9, 0.1, 0], sauvés [0.9, 0.1, 0], </s> [0, 0.2, 0.8].
  quiz.select(1);              // "files": α (0.6 + 0.2 + 0.5 + 0.3) / 2 = 0.8, the largest
  assert.equal(quiz.ready(), false, 'the word mode needs the word too');
  quiz.guess('not offered');
  assert.equal(store.get().quizPlay.word, null, 'only an offered word');
  quiz.guess('fichiers');
  quiz.reveal();
  p = store.get().quizPlay;
  assert.equal(p.revealed, true);
  assert.deepEqual([p.results[0].right, p.results[0].word.right], [true, true]);
  quiz.select(0);
  assert.equal(store.get().quizPlay.pick, 1, 'a revealed row keeps its pick');

  quiz.next();                 // row 1 "non": picks "files" (0.1), the decoder "unsaved" (0.9)
  quiz.select(1);
  quiz.guess(store.get().quizPlay.choices.find((w) => w !== 'non'));
  quiz.reveal();
  const miss = store.get().quizPlay.results[1];
  assert.deepEqual([miss.right, miss.best, miss.distance, miss.word.right], [false, 0, 1, false]);
  close(miss.gap, 0.8, 'gap');

  quiz.next();
  quiz.select(0); quiz.guess('sauvés'); quiz.reveal(); quiz.next();   // row 2: right
  quiz.select(2); quiz.guess('</s>'); quiz.reveal();                // row 3: "." has 0.8, right
  assert.equal(store.get().quizPlay.done, false);
  quiz.next();
  p = store.get().quizPlay;
  assert.equal(p.done, true, 'after the last row: the summary');
  const s = quizSummary(p.results);
  assert.deepEqual([s.played, s.right, s.words.right], [4, 3, 3]);
  close(s.meanGap, 0.8, 'one miss of 0.8');
  assert.equal(store.get().step, 0, 'the step-through’s step is untouched');

  quiz.again();
  p = store.get().quizPlay;
  assert.deepEqual([p.done, p.row, p.results.length], [false, 0, 0]);
  quiz.leave();
  assert.deepEqual([store.get().quiz, store.get().quizPlay], [null, null]);
  quiz.destroy();
});

test('the controller: a link’s step past the translation starts at the last row with a notice; a new translation restarts', () => {
  setUiLanguage('en');
  // As from a link: quiz=1&step=40, before any translation.
  const store = quizStore({ quiz: 'source', step: 40 });
  const quiz = createQuiz(store);
  // The translation arrives (ui.js clamps the step to it in the same set()).
  store.set({ trace, matrix: pieces, step: T - 1 });
  let p = store.get().quizPlay;
  assert.deepEqual([p.mode, p.startRow, p.row, p.choices], ['source', 5, 5, null]);
  assert.equal(store.get().notices.quizStep, 'This quiz link starts at step 41, but the translation has only 6 steps: the quiz starts at its last step.');
  quiz.select(4); quiz.reveal(); quiz.next();
  assert.equal(store.get().quizPlay.done, true, 'one row to play');

  // Words instead of pieces: another game, from the step the page is at.
  store.set({ matrix: words });
  p = store.get().quizPlay;
  assert.deepEqual([p.startRow, p.done, p.results.length], [3, false, 0]);
  assert.equal(p.restarted, 'A new translation: the quiz starts again.');
  // The same translation made again (a new object, the same content): the game goes on.
  quiz.select(0);
  store.set({ matrix: figureMatrix(trace, INFO, false) });
  assert.equal(matrixKey(figureMatrix(trace, INFO, false)), matrixKey(words));
  assert.notEqual(matrixKey(pieces), matrixKey(words));
  assert.equal(store.get().quizPlay.pick, 0);
  // Other weights for the same words (another model, another scale): a new game.
  store.set({ matrix: { ...words, alpha: words.alpha.map((a, i) => (i === 0 ? a + 1e-3 : a)) } });
  assert.equal(store.get().quizPlay.pick, null);
  assert.equal(store.get().quizPlay.restarted, 'A new translation: the quiz starts again.');
  // A model without attention: no game (the card says why).
  store.set({ matrix: { ...words, alpha: null } });
  assert.equal(store.get().quizPlay, null);
  quiz.leave();
  assert.equal(store.get().notices.quizStep, undefined, 'leaving takes the quiz’s notices away');
  quiz.destroy();
});
