// lib/words.js: subword pieces to words. A synthetic trace with pieces
// ("un" + "saved", a three-piece target word) built by hand, and the
// identity fallback for traces without word fields (today's models).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignmentMatrix, sourceWords, targetWords, wordAlpha, wordOfStep, pieceToWord } from '../../web/lib/words.js';

const close = (a, b, msg) => assert.ok(Math.abs(a - b) <= 1e-6, `${msg}: ${a} vs ${b}`);

// Source pieces: "un" "saved" "file" "s" "."  → words: unsaved, files, .
// Target pieces: "fich" "iers" "non" "en" "reg" "istr" "és" "</s>" → words: fichiers, non, enregistrés, </s>
const S = 5;
const T = 8;
const alpha = new Float32Array([
  0.1, 0.1, 0.6, 0.2, 0.0,
  0.0, 0.2, 0.5, 0.3, 0.0,
  0.7, 0.2, 0.1, 0.0, 0.0,
  0.3, 0.6, 0.1, 0.0, 0.0,
  0.1, 0.8, 0.1, 0.0, 0.0,
  0.0, 0.9, 0.1, 0.0, 0.0,
  0.2, 0.5, 0.1, 0.1, 0.1,
  0.0, 0.0, 0.1, 0.1, 0.8,
]);
const piece = (text, word, extra = {}) => ({ text, word, ...extra });
const subwordTrace = {
  S, T, alpha,
  source: [piece('un', 0), piece('saved', 0), piece('file', 1), piece('s', 1), piece('.', 2)],
  target: [piece('fich', 0), piece('iers', 0), piece('non', 1), piece('en', 2), piece('reg', 2), piece('istr', 2), piece('és', 2), piece('</s>', 3, { isEnd: true })],
  sourceWords: [{ text: 'unsaved', start: 0, end: 7, first: 0, count: 2 }, { text: 'files', start: 8, end: 13, first: 2, count: 2 }, { text: '.', start: 13, end: 14, first: 4, count: 1 }],
  targetWords: [{ text: 'fichiers', first: 0, count: 2 }, { text: 'non', first: 2, count: 1 }, { text: 'enregistrés', first: 3, count: 4 }, { text: '</s>', first: 7, count: 1 }],
};

test('word matrix: a source word’s column is the sum of its pieces, a target word’s row the mean of its pieces', () => {
  const m = alignmentMatrix(subwordTrace);
  assert.equal(m.level, 'words');
  assert.equal(m.identity, false);
  assert.deepEqual([m.T, m.S], [4, 3]);
  assert.deepEqual(m.rowLabels, ['fichiers', 'non', 'enregistrés', '</s>']);
  assert.deepEqual(m.colLabels, ['unsaved', 'files', '.']);
  const at = (r, c) => m.alpha[r * m.S + c];
  // "fichiers" = mean of pieces 0 and 1; "unsaved" = columns 0 + 1.
  close(at(0, 0), ((0.1 + 0.1) + (0.0 + 0.2)) / 2, 'fichiers ← unsaved');
  close(at(0, 1), ((0.6 + 0.2) + (0.5 + 0.3)) / 2, 'fichiers ← files');
  close(at(1, 0), 0.7 + 0.2, 'non ← unsaved');
  close(at(2, 0), ((0.3 + 0.6) + (0.1 + 0.8) + (0.0 + 0.9) + (0.2 + 0.5)) / 4, 'enregistrés ← unsaved');
  close(at(3, 2), 0.8, '</s> ← .');
  for (let r = 0; r < m.T; r++) {
    let sum = 0;
    for (let c = 0; c < m.S; c++) sum += at(r, c);
    close(sum, 1, `row ${r} still sums to 1`);
  }
});

test('piece matrix: the trace itself, with piece labels', () => {
  const m = alignmentMatrix(subwordTrace, { pieces: true });
  assert.equal(m.level, 'pieces');
  assert.deepEqual([m.T, m.S], [T, S]);
  assert.equal(m.alpha, alpha);
  assert.deepEqual(m.colLabels, ['un', 'saved', 'file', 's', '.']);
  assert.equal(m.rowLabels[7], '</s>');
});

test('without word fields every piece is a word: the two matrices are equal', () => {
  const trace = { S: 2, T: 2, alpha: new Float32Array([0.25, 0.75, 0.5, 0.5]), source: [{ text: 'Open', start: 0, end: 4 }, { text: 'file', start: 5, end: 9 }], target: [{ text: 'Ouvrir' }, { text: '', isEnd: true }] };
  const w = alignmentMatrix(trace);
  const p = alignmentMatrix(trace, { pieces: true });
  assert.equal(w.identity, true);
  assert.deepEqual(w.rowLabels, ['Ouvrir', '</s>']);
  assert.deepEqual(Array.from(w.alpha), Array.from(p.alpha));
  assert.deepEqual(sourceWords(trace).map((g) => [g.text, g.first, g.count]), [['Open', 0, 1], ['file', 1, 1]]);
  assert.deepEqual(targetWords(trace).map((g) => g.text), ['Ouvrir', '</s>']);
});

test('word groups that do not cover the pieces in order are not trusted (identity instead)', () => {
  const bad = { ...subwordTrace, sourceWords: [{ text: 'x', first: 0, count: 2 }, { text: 'y', first: 3, count: 2 }] };
  assert.equal(sourceWords(bad).length, S);
  const short = { ...subwordTrace, targetWords: [{ text: 'x', first: 0, count: 7 }] };
  assert.equal(targetWords(short).length, T);
});

test('the step-through names the word of each piece', () => {
  assert.deepEqual(wordOfStep(subwordTrace, 4), { word: 'enregistrés', wordIndex: 2, index: 1, of: 4 });
  assert.deepEqual(wordOfStep(subwordTrace, 2), { word: 'non', wordIndex: 1, index: 0, of: 1 });
  assert.deepEqual(Array.from(pieceToWord(subwordTrace.sourceWords, S)), [0, 0, 1, 1, 2]);
  assert.equal(wordAlpha(alpha, T, S, subwordTrace.targetWords, subwordTrace.sourceWords).length, 12);
});

test('displayPiece: the word mark dropped, a continuation marked, specials and word models as they are', async () => {
  const { displayPiece, CONTINUES_MARK } = await import('../../web/lib/words.js');
  assert.deepEqual(displayPiece('\u2581chat'), { text: 'chat', continues: false });
  assert.deepEqual(displayPiece('at'), { text: `${CONTINUES_MARK}at`, continues: true });
  assert.deepEqual(displayPiece('\u2581'), { text: '\u2581', continues: false });
  assert.deepEqual(displayPiece('</s>'), { text: '</s>', continues: false });
  assert.deepEqual(displayPiece('<0xE2>'), { text: '<0xE2>', continues: false });
  assert.deepEqual(displayPiece('at', { subwords: false }), { text: 'at', continues: false });
});
