// The side-by-side comparison's pure parts (web/lib/compare.js): the `vs=`
// list of a link, and the difference heatmap α_A − α_B.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMPARE_MAX, parseCompareList, comparedIds, differenceMatrix, sameColumns, scoreSpread, spreadVerdict } from '../../web/lib/compare.js';
import { parseShareString, serializeShareState, defaultShareState } from '../../web/state.js';

/** A figure matrix as lib/figure.js makes it (only what differenceMatrix reads). */
const matrix = (rowLabels, colLabels, rows) => ({
  T: rowLabels.length, S: colLabels.length, rowLabels, colLabels, level: 'words', alpha: Float32Array.from(rows.flat()),
});

test('vs= keeps ids in order, once each, at most COMPARE_MAX; anything else is dropped', () => {
  assert.deepEqual(parseCompareList('en-fr-dot,en-fr-none'), ['en-fr-dot', 'en-fr-none']);
  assert.deepEqual(parseCompareList('a,a,b'), ['a', 'b']);
  assert.deepEqual(parseCompareList('../x,https://evil.example/m.alsc,ok'), ['ok']);
  assert.equal(parseCompareList('a,b,c,d,e,f').length, COMPARE_MAX);
  assert.deepEqual(parseCompareList(''), []);
  assert.deepEqual(parseCompareList(null), []);
  // The main model is never compared with itself.
  assert.deepEqual(comparedIds(['m', 'x', 'y'], 'm'), ['x', 'y']);
});

test('the compared models round-trip through a link, and a link without them has none', () => {
  const st = { ...defaultShareState(), model: 'en-fr-int8', compare: ['en-fr-dot', 'en-fr-none'] };
  const text = serializeShareState(st);
  assert.match(text, /vs=en-fr-dot%2Cen-fr-none/);
  assert.deepEqual(parseShareString(`#${text}`).compare, ['en-fr-dot', 'en-fr-none']);
  assert.doesNotMatch(serializeShareState(defaultShareState()), /vs=/);
  assert.equal(parseShareString('#s=x').compare, undefined);
});

test('the difference heatmap subtracts row by row and measures each row by total variation', () => {
  const a = matrix(['le', 'chat', '</s>'], ['the', 'cat', '</s>'], [[0.9, 0.1, 0], [0.2, 0.8, 0], [0, 0, 1]]);
  const b = matrix(['le', 'matou'], ['the', 'cat', '</s>'], [[0.5, 0.5, 0], [0.2, 0.8, 0]]);
  const d = differenceMatrix(a, b);
  assert.equal(d.T, 2, 'rows past the shorter translation are left out');
  assert.equal(d.dropped, 1);
  assert.deepEqual(d.rowLabels, ['le', 'chat | matou']);
  const close = (x, y) => assert.ok(Math.abs(x - y) < 1e-6, `${x} vs ${y}`);
  [0.4, -0.4, 0, 0, 0, 0].forEach((v, i) => close(d.alpha[i], v));
  close(d.entropies[0], 0.4); // ½ (|0.4| + |−0.4|)
  close(d.entropies[1], 0);
  assert.ok(d.difference);
  // Identical rows: zero everywhere.
  const same = differenceMatrix(a, a);
  assert.ok(same.alpha.every((v) => v === 0));
});

test('no difference when the columns do not line up or a model has no attention', () => {
  const a = matrix(['x'], ['the', 'cat'], [[0.5, 0.5]]);
  const b = matrix(['x'], ['The', 'cat'], [[0.5, 0.5]]);
  assert.equal(sameColumns(a, b), false);
  assert.match(differenceMatrix(a, b).reason, /different words/);
  assert.match(differenceMatrix(a, { ...b, alpha: null }, { labelB: 'none' }).reason, /none has no attention/);
});

test('score spread: the mean over rows of the scores’ standard deviation, before and after the divisor', () => {
  // Row 0: scores 1, 3 (σ 1); row 1: 0, 0, … (σ 0) -> mean 0.5; trained divisor 1, slider ×4.
  const trace = { T: 2, S: 2, scores: new Float32Array([1, 3, 0, 0]), scoreScale: 0.25 };
  const s = scoreSpread(trace);
  assert.ok(Math.abs(s.raw - 0.5) < 1e-9, s.raw);
  assert.ok(Math.abs(s.divisor - 4) < 1e-9);
  assert.ok(Math.abs(s.seen - 0.125) < 1e-9, 'the softmax sees raw ÷ divisor');
  assert.equal(scoreSpread({ T: 2, S: 2, scores: null, scoreScale: 1 }), null, 'no attention: no scores');
  assert.equal(scoreSpread({ T: 0, S: 2, scores: new Float32Array(0), scoreScale: 1 }), null);
  assert.equal(scoreSpread(null), null);
});

test('spread verdict: the column the softmax sees most widely spread against the least; agrees when it is the sharper', () => {
  const col = (name, seen, entropy) => ({ name, spread: { raw: seen, divisor: 1, seen }, entropy });
  const agrees = spreadVerdict([col('additive', 2, 2.5), col('dot', 9, 0.4), { name: 'none', spread: null, entropy: NaN }]);
  assert.equal(agrees.wide.name, 'dot');
  assert.equal(agrees.narrow.name, 'additive');
  assert.equal(agrees.agrees, true);
  const disagrees = spreadVerdict([col('a', 9, 2.5), col('b', 2, 0.4)]);
  assert.equal(disagrees.wide.name, 'a');
  assert.equal(disagrees.agrees, false, 'wider yet flatter: the note says so');
  assert.equal(spreadVerdict([col('a', 2, 1)]), null, 'one column: nothing to compare');
  assert.equal(spreadVerdict([col('a', 2, 1), col('b', 2, 3)]), null, 'the same spread: no claim');
});
