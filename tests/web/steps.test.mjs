// lib/steps.js: what the step-through shows at each step, at the heatmap's
// level. The committed default model (subword pieces) on two sentences whose
// words split into pieces: at both levels, at every step, the step view's
// bars are the heatmap's row for that step (the matrix the card draws), the
// steps are the matrix's rows (a word's pieces are sub-steps, not steps), and
// "Translation so far" is the engine's own detokenised text. Plus a hand-made
// trace (no byte spans) for the fallback. stepName (what the pin, comparison
// and local-window cards call a decoder step) numbers and names it as the
// step view does, and views/step-name.js says it in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/engine.js';
import { figureMatrix } from '../../web/lib/figure.js';
import { rowOfStep } from '../../web/lib/words.js';
import { stepView, stepOfRow, rowTexts, stepName } from '../../web/lib/steps.js';
import { sayStep } from '../../web/views/step-name.js';
import { setUiLanguage } from '../../web/i18n/all.js'; // every UI language, registered

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SENTENCES = [
  'The agreement on the European Economic Area was signed in August 1992.',
  'Unsaved changes to the spreadsheet will be lost if you close it now.',
];

const info = { tokenizer: 'subwords' };
let engine = null;
async function traceOf(text) {
  if (!engine) {
    engine = await createEngine({ variant: 'scalar' });
    engine.load(new Uint8Array(fs.readFileSync(path.join(REPO, 'models', 'en-fr-int8.alsc'))));
  }
  return engine.translate(text, { topK: 3 });
}

/** Walk the step-through as the card does: Next from step 0 until there is none. */
function walk(matrix) {
  const seen = [];
  let step = 0;
  for (;;) {
    const v = stepView(matrix, step);
    seen.push({ step, v });
    if (v.next < 0) return seen;
    assert.ok(v.next > step, 'Next moves forward');
    step = v.next;
  }
}

for (const text of SENTENCES) {
  test(`step view = heatmap row at every step, words and pieces: “${text}”`, async () => {
    const trace = await traceOf(text);
    const words = figureMatrix(trace, info, false);
    const pieces = figureMatrix(trace, info, true);
    assert.equal(words.identity, false, 'a sentence with words of several pieces (else the test proves nothing)');
    assert.ok(words.T < trace.T, `fewer target words (${words.T}) than decoder steps (${trace.T})`);
    for (const m of [words, pieces]) {
      const seen = walk(m);
      assert.equal(seen.length, m.T, `${m.level}: one step per heatmap row (${m.T}), not per decoder step (${trace.T})`);
      // Every decoder step (also a piece reached as a sub-step, or by a link's step=) shows its row.
      for (let t = 0; t < trace.T; t++) {
        const v = stepView(m, t);
        const r = rowOfStep(m, t);
        assert.equal(v.row, r, `${m.level} step ${t}: the heatmap's marked row`);
        assert.equal(v.bars.length, m.S, `${m.level}: one bar per heatmap column`);
        for (let j = 0; j < m.S; j++) assert.equal(v.bars[j], m.alpha[r * m.S + j], `${m.level} step ${t}, column ${j}`);
        assert.deepEqual(v.labels, m.colLabels, 'the chips are the heatmap\'s columns');
        assert.equal(v.bars[v.best], Math.max(...v.bars), 'the finger marks the largest weight');
        assert.equal(t - v.first, v.piece, 'the piece within its word');
        assert.ok(v.piece < v.count);
        assert.equal(stepOfRow(m, v.row), v.first);
      }
      assert.equal(stepView(m, 0).lastStep, m.rowGroups[m.T - 1].first, 'End: the last row');
      // Detokenised: the rows' texts with their leads are the translation (then </s>).
      const texts = rowTexts(trace, m);
      assert.equal(texts.length, m.T);
      assert.equal(texts.map((x) => x.lead + x.text).join(''), `${trace.translation} </s>`, `${m.level}: translation so far = the engine's text`);
    }
    // At word level each sub-step is a piece of the word; at piece level each piece is a step.
    const several = words.rowGroups.find((g) => g.count > 1);
    assert.ok(several, 'a target word of several pieces');
    const v = stepView(words, several.first + 1);
    assert.deepEqual([v.first, v.count, v.piece], [several.first, several.count, 1]);
    assert.equal(stepView(pieces, several.first + 1).count, 1);
    // A source word of several pieces: its bar is the sum of its pieces' weights.
    const sw = words.colGroups.findIndex((g) => g.count > 1);
    assert.ok(sw >= 0, 'a source word of several pieces');
    const g = words.colGroups[sw];
    const r0 = words.rowGroups[0];
    let sum = 0;
    for (let t = r0.first; t < r0.first + r0.count; t++) for (let j = g.first; j < g.first + g.count; j++) sum += trace.alpha[t * trace.S + j];
    assert.ok(Math.abs(stepView(words, 0).bars[sw] - sum / r0.count) < 1e-6, 'the word bar is its pieces summed (and the row the mean of the word\'s pieces)');
  });
}

test('French elision: no space after L\' in "Translation so far"', async () => {
  const trace = await traceOf('The agreement on the European Economic Area was signed in August 1992.');
  const texts = rowTexts(trace, figureMatrix(trace, info, true));
  const soFar = texts.slice(0, 3).map((x) => x.lead + x.text).join('');
  assert.ok(trace.translation.startsWith(soFar), `${JSON.stringify(soFar)} is how the translation begins (${trace.translation})`);
});

test('a hand-made trace without byte spans is joined with spaces', () => {
  const trace = {
    S: 2, T: 3, alpha: new Float32Array([0.9, 0.1, 0.2, 0.8, 0.5, 0.5]), translation: 'le chat',
    source: [{ text: 'the' }, { text: 'cat' }],
    target: [{ text: 'le' }, { text: 'chat' }, { text: '', isEnd: true }],
  };
  const m = figureMatrix(trace, {}, false);
  assert.deepEqual(rowTexts(trace, m), [{ lead: '', text: 'le' }, { lead: ' ', text: 'chat' }, { lead: ' ', text: '</s>' }]);
  assert.deepEqual(Array.from(stepView(m, 1).bars), [Math.fround(0.2), Math.fround(0.8)]);
  assert.deepEqual([stepView(m, 0).prev, stepView(m, 0).next, stepView(m, 2).next], [-1, 1, -1]);
});

test('beam card: where a hypothesis parts and looks, named at the heatmap\'s level (words, not pieces such as "co")', async () => {
  const { differenceFromBest, differenceAtLevel } = await import('../../web/lib/beam.js');
  await traceOf('x'); // the engine, loaded
  let checked = 0;
  for (const text of SENTENCES) {
    const { hypotheses } = engine.beam(text, { beamWidth: 4, lengthPenalty: 1, topK: 3 });
    for (const hyp of hypotheses.slice(1)) {
      const diff = differenceFromBest(hyp, hypotheses[0]);
      if (!diff?.most) continue;
      const [mh, mb] = [figureMatrix(hyp, info, false), figureMatrix(hypotheses[0], info, false)];
      const lv = differenceAtLevel(diff, mh, mb);
      const r = rowOfStep(mh, diff.most.step);
      const row = Array.from(mh.alpha.subarray(r * mh.S, (r + 1) * mh.S));
      assert.equal(lv.most.step, r, 'the marked row');
      assert.equal(lv.most.a, Math.max(...row), 'the largest weight of the word row');
      assert.equal(lv.most.col, mh.colLabels[row.indexOf(Math.max(...row))]);
      assert.ok(mh.colLabels.includes(lv.most.col) && mb.colLabels.includes(lv.most.bestCol), 'source words');
      assert.ok(mh.rowLabels.includes(lv.wrote), `it wrote a word (${lv.wrote})`);
      // At piece level it is differenceFromBest's own answer.
      const lp = differenceAtLevel(diff, figureMatrix(hyp, info, true), figureMatrix(hypotheses[0], info, true));
      assert.equal(lp.most.step, diff.most.step);
      assert.equal(lp.most.col, hyp.source[diff.most.col].text);
      checked++;
    }
  }
  assert.ok(checked > 0, 'some hypothesis looked elsewhere than #1');
});

test('stepName: the step view\'s number and row label at both levels; a word\'s pieces are its sub-steps', async () => {
  const trace = await traceOf(SENTENCES[0]);
  const words = figureMatrix(trace, info, false);
  const pieces = figureMatrix(trace, info, true);
  const tw = words.rowGroups;
  for (let t = 0; t < trace.T; t++) {
    for (const m of [words, pieces]) {
      const v = stepView(m, t);
      const n = stepName(m, trace, t);
      assert.deepEqual([n.number, n.of, n.row, n.text, n.level], [v.row + 1, v.rows, v.row, v.word, m.level], `${m.level} step ${t}: “step ${v.row + 1} / ${v.rows}”, row “${v.word}”`);
      assert.equal(n.piece, trace.target[t].isEnd ? '</s>' : trace.target[t].text, 'the piece this decoder step writes');
    }
    // Its word and its place in it: the word-level row's group.
    const g = tw[rowOfStep(words, t)];
    const n = stepName(pieces, trace, t);
    assert.deepEqual([n.word, n.i, n.n], [g.text, t - g.first + 1, g.count], `step ${t}: piece ${t - g.first + 1} of ${g.count} of “${g.text}”`);
  }
  // Piece level counts every decoder step; word level only the words.
  assert.equal(stepName(pieces, trace, trace.T - 1).number, trace.T);
  assert.equal(stepName(words, trace, trace.T - 1).number, words.T);
  assert.ok(words.T < trace.T);
  // Out of range: clamped to the translation.
  assert.equal(stepName(words, trace, trace.T + 5).number, words.T);
  assert.equal(stepName(words, trace, -1).number, 1);
});

test('sayStep: a word; a word with the piece this step writes (word level); a piece with its word (piece level); in the UI languages', () => {
  // L' = L + ', then accord, then the end.
  const trace = {
    S: 2, T: 4, alpha: new Float32Array(8).fill(0.5), translation: "L'accord",
    source: [{ text: 'The' }, { text: 'agreement' }],
    target: [{ text: 'L' }, { text: "'" }, { text: 'accord' }, { text: '', isEnd: true }],
    targetWords: [{ text: "L'", first: 0, count: 2 }, { text: 'accord', first: 2, count: 1 }, { text: '</s>', first: 3, count: 1 }],
  };
  const words = figureMatrix(trace, {}, false);
  const pieces = figureMatrix(trace, {}, true);
  assert.equal(words.T, 3);
  setUiLanguage('en');
  try {
    assert.equal(sayStep(stepName(words, trace, 0)), '“L\'” (piece 1 of 2: “L”)');
    assert.equal(sayStep(stepName(words, trace, 1)), '“L\'” (piece 2 of 2: “\'”)');
    assert.equal(sayStep(stepName(words, trace, 2)), '“accord”');
    assert.equal(stepName(words, trace, 2).number, 2, 'accord is the second word');
    assert.equal(sayStep(stepName(pieces, trace, 1)), '“\'” (piece 2 of 2 of “L\'”)');
    assert.equal(sayStep(stepName(pieces, trace, 2)), '“accord”');
    assert.equal(stepName(pieces, trace, 2).number, 3, 'accord is the third piece');
    assert.equal(sayStep(stepName(words, trace, 3)), '“</s>”');
    setUiLanguage('fr');
    assert.equal(sayStep(stepName(words, trace, 0)), '« L\' » (morceau 1 sur 2 : « L »)');
    assert.equal(sayStep(stepName(pieces, trace, 0)), '« L » (morceau 1 sur 2 de « L\' »)');
  } finally { setUiLanguage('en'); }
});
