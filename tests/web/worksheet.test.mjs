// worksheet.test.mjs - the alignment worksheet's pure parts (web/lib/worksheet.js):
// the labels of a map (argmax path, backward jumps, mean row entropy against
// the threshold, the shape), the model's confidence from a trace (greedy's
// top-k and a beam's own step log-probabilities), and the sheet in a link
// (ws, wx, wn): what it keeps, cuts and leaves out, and the round trip
// through state.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { argmaxPath, backwardJumps, alignmentShape, tokenProbabilities, modelConfidence, parseSheet, sheetParams, lineOf, entryOf } from '../../web/lib/worksheet.js';
import { parseShareString, serializeShareState, defaultShareState, linkProblemText } from '../../web/state.js';
import { CONFIG } from '../../web/config.js';

const m = (rows) => ({ T: rows.length, S: rows[0].length, alpha: Float32Array.from(rows.flat()) });
const H = (row) => row.reduce((h, p) => (p > 0 ? h - p * Math.log2(p) : h), 0);

test('argmaxPath: each row’s strongest column, the first of equal ones', () => {
  const a = m([[0.1, 0.7, 0.2], [0.5, 0.5, 0], [0, 0.2, 0.8]]);
  assert.deepEqual(Array.from(argmaxPath(a.alpha, a.T, a.S)), [1, 0, 2]);
  assert.throws(() => argmaxPath(new Float32Array(3), 2, 2), /3 weights for 2 × 2/);
});

test('backwardJumps: the rows where the path goes to an earlier column; staying is no jump', () => {
  assert.deepEqual(backwardJumps([0, 1, 1, 2, 3]), []);
  assert.deepEqual(backwardJumps([0, 2, 1, 3, 0]), [2, 4]);
  assert.deepEqual(backwardJumps([]), []);
});

test('alignmentShape: diagonal, with jumps, diffuse; the mean entropy in bits; the threshold is the config’s', () => {
  const diag = m([[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]]);
  const d = alignmentShape(diag);
  assert.equal(d.shape, 'diagonal');
  assert.equal(d.threshold, CONFIG.worksheetDiffuseBits);
  assert.ok(Math.abs(d.meanEntropy - H([0.9, 0.05, 0.05])) < 1e-6);
  // A swap (an adjective after its noun): one jump back, at row 2.
  const swap = m([[0.9, 0.05, 0.05], [0.05, 0.05, 0.9], [0.05, 0.9, 0.05]]);
  assert.deepEqual({ shape: alignmentShape(swap).shape, jumps: alignmentShape(swap).jumps }, { shape: 'jumps', jumps: [2] });
  // Uniform over 4: 2 bits a row, above 1.5: diffuse (even where the path jumps).
  const flat = m([[0.25, 0.25, 0.25, 0.25], [0.26, 0.25, 0.25, 0.24], [0.24, 0.25, 0.25, 0.26]]);
  const f = alignmentShape(flat);
  assert.equal(f.shape, 'diffuse');
  assert.ok(f.meanEntropy > 1.99 && f.meanEntropy < 2.01);
  // The threshold decides: the same map, a higher threshold, is read by its path.
  assert.equal(alignmentShape(flat, 2.5).shape, 'diagonal');
  assert.equal(alignmentShape(swap, 0).shape, 'diffuse');
  // Exactly at the threshold is not above it.
  const two = m([[0.5, 0.5], [0.5, 0.5]]);
  assert.equal(alignmentShape(two, 1).shape, 'diagonal');
  assert.equal(alignmentShape({ T: 2, S: 2, alpha: null }), null, 'no attention: no shape');
  assert.throws(() => alignmentShape({ T: 0, S: 2, alpha: new Float32Array(0) }), /empty map/);
});

const trace = ({ ids, topIds, topProbs, K, stepLogProbs }) => ({ T: ids.length, target: ids.map((id) => ({ id })), topK: K, topIds: Int32Array.from(topIds), topProbs: Float32Array.from(topProbs), ...(stepLogProbs ? { stepLogProbs: Float32Array.from(stepLogProbs) } : {}) });

test('model confidence: the geometric mean of the written tokens’ probabilities, and the least likely one', () => {
  // Greedy: each written token is its step's first candidate.
  const greedy = trace({ ids: [7, 9, 3], K: 2, topIds: [7, 8, 9, 4, 3, 5], topProbs: [0.8, 0.1, 0.5, 0.3, 0.9, 0.05] });
  assert.deepEqual(Array.from(tokenProbabilities(greedy), (p) => Number(p.toFixed(6))), [0.8, 0.5, 0.9]);
  const c = modelConfidence(greedy);
  assert.ok(Math.abs(c.geometricMean - Math.cbrt(0.8 * 0.5 * 0.9)) < 1e-6);
  assert.equal(c.minStep, 1);
  assert.ok(Math.abs(c.min - 0.5) < 1e-6);
  // A beam wrote a runner-up: found among the candidates…
  const runnerUp = trace({ ids: [8, 9], K: 2, topIds: [7, 8, 9, 4], topProbs: [0.6, 0.3, 0.5, 0.3] });
  assert.ok(Math.abs(modelConfidence(runnerUp).geometricMean - Math.sqrt(0.3 * 0.5)) < 1e-6);
  // …and its own step log-probabilities win where the trace has them.
  const beam = trace({ ids: [8, 9], K: 2, topIds: [7, 8, 9, 4], topProbs: [0.6, 0.3, 0.5, 0.3], stepLogProbs: [Math.log(0.25), Math.log(0.64)] });
  assert.ok(Math.abs(modelConfidence(beam).geometricMean - 0.4) < 1e-6);
  // A written token that is none of the candidates, and no log p: the trace cannot say.
  assert.equal(modelConfidence(trace({ ids: [5], K: 2, topIds: [7, 8], topProbs: [0.6, 0.3] })), null);
  assert.equal(modelConfidence({ T: 0 }), null);
});

test('the sheet in a link: sentences, ticks and notes round-trip, one line each', () => {
  const sheet = [entryOf('Open the file'), entryOf('Show the new window', { wrong: true, notes: 'nouvelle: right' }), entryOf('Close it', { notes: 'diffuse at “it”' })];
  const params = sheetParams(sheet);
  assert.deepEqual(params, { ws: 'Open the file\nShow the new window\nClose it', wx: '2', wn: '\nnouvelle: right\ndiffuse at “it”' });
  const back = parseSheet(params);
  assert.deepEqual(back.problems, []);
  assert.deepEqual(back.sheet.map(({ text, wrong, notes }) => ({ text, wrong, notes })), sheet);
  assert.ok(back.sheet.every((e) => e.linked), 'from a link: marked so');
  // Through the whole share state (URL-encoded), and an empty sheet writes no keys.
  const hash = serializeShareState({ ...defaultShareState(), sheet });
  assert.match(hash, /ws=Open\+the\+file%0AShow/);
  assert.deepEqual(parseShareString(`#${hash}`).sheet.map((e) => e.text), sheet.map((e) => e.text));
  assert.doesNotMatch(serializeShareState(defaultShareState()), /ws=|wx=|wn=/);
  assert.deepEqual(sheetParams([entryOf('a')]), { ws: 'a', wx: null, wn: null });
  assert.equal(lineOf('  two\nlines\t here '), 'two lines here');
  assert.equal(parseShareString('#s=x').sheet, undefined, 'no ws: the sheet is left as it is');
});

test('a link with more than five sentences keeps five and names those it left out, with their ticks and notes', () => {
  const ws = ['a one', 'b two', 'c three', 'd four', 'e five', 'f six', 'g seven'].join('\n');
  const r = parseSheet({ ws, wx: '1,6', wn: 'n1\n\n\n\n\nn6' });
  assert.deepEqual(r.sheet.map((e) => e.text), ['a one', 'b two', 'c three', 'd four', 'e five']);
  assert.deepEqual(r.sheet.map((e) => e.wrong), [true, false, false, false, false]);
  assert.deepEqual(r.sheet.map((e) => e.notes), ['n1', '', '', '', '']);
  assert.deepEqual(r.problems, [{ key: 'ws', reason: 'sheetMany', max: 5, dropped: ['f six', 'g seven'] }]);
  const st = parseShareString(`#${new URLSearchParams({ ws, wx: '1,6' })}`);
  assert.equal(st.sheet.length, 5);
  assert.equal(linkProblemText(st.problems[0]), 'The worksheet (ws) has more than 5 sentences: the first 5 are kept, and these 2 were left out with their ticks and notes: “f six”, “g seven”.');
});

test('a link’s bad parts: blank lines, ticks that name nothing, long sentences and notes, notes past the end', () => {
  const long = 'word '.repeat(60).trim();
  const r = parseSheet({ ws: `one\n\n${long}`, wx: '2,3,x,9', wn: `a\n\n${'n'.repeat(CONFIG.worksheetNoteMaxChars + 10)}\nextra` });
  assert.deepEqual(r.sheet.map((e) => e.text.length), [3, CONFIG.worksheetSentenceMaxChars]);
  assert.deepEqual(r.sheet.map((e) => e.wrong), [false, true]);
  assert.equal(r.sheet[1].notes.length, CONFIG.worksheetNoteMaxChars);
  assert.deepEqual(r.problems.map((p) => p.reason), ['sheetBlank', 'sheetTicks', 'sheetNotesExtra', 'sheetCut', 'sheetNoteCut']);
  assert.deepEqual(r.problems.find((p) => p.reason === 'sheetTicks').values, ['x', '9', '2']);
  // Every problem has its words.
  for (const p of r.problems) assert.doesNotMatch(linkProblemText({ ...p, name: p.key }), /^link\./);
  // Ticks or notes without sentences.
  assert.deepEqual(parseSheet({ wx: '1' }).problems.map((p) => p.reason), ['sheetTicks']);
});
