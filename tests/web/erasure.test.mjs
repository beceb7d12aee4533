// The erasure card's numbers (web/lib/erasure.js), pure: the masks and the
// shortened sources, the map from a scoring function (checked against one
// that computes log p by hand from which positions it is shown), a target
// word's drop as the sum of its pieces', Spearman's ρ against hand-worked
// values (ties, NaN cells, constant rows), the per-row comparison, the
// worst disagreements and the colour scale; the card's figures built
// from a store state have exactly the heatmap's rows and columns; and the
// controller cancels a map the reader no longer wants (another sentence).
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  erasureMask, deletedSource, erasureMap, sumRows, ranks, spearman, compareRows, worstDisagreements, dropScale, groupPairs, MIN_NEEDED_NATS,
} from '../../web/lib/erasure.js';
import { erasureRequest, createErasure } from '../../web/controllers/erasure.js';
import { createStore } from '../../web/state.js';
import { setUiLanguage } from '../../web/i18n/index.js';
import { erasureFigures } from '../../web/cards/erasure.js';
import { figureMatrix } from '../../web/lib/figure.js';

test('erasureMask drops the group at every step and keeps the rest', () => {
  const keep = erasureMask(3, 5, { first: 1, count: 2 });
  assert.deepEqual(Array.from(keep), [1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1]);
  assert.deepEqual(Array.from(erasureMask(1, 2, { first: 1, count: 1 })), [1, 0], 'the last position (a model’s </s>)');
});

test('deletedSource leaves the group out; nothing left or the appended </s>: null', () => {
  const ids = Int32Array.from([10, 11, 12, 13]);
  assert.deepEqual(Array.from(deletedSource(ids, { first: 1, count: 2 })), [10, 13]);
  assert.deepEqual(Array.from(deletedSource(ids, { first: 0, count: 1 })), [11, 12, 13]);
  assert.equal(deletedSource(ids, { first: 4, count: 1 }), null, '</s> is the engine’s own');
  assert.equal(deletedSource(Int32Array.from([7]), { first: 0, count: 1 }), null);
});

// A scoring function whose log p(y_t) is minus the sum over the positions it can see of w[t][j]:
// the drop of removing a group is then exactly that group's w at every step.
function fakeScore(w, S) {
  return (sourceIds, keep) => Float32Array.from(w, (row, t) => {
    let s = 0;
    for (let j = 0; j < S; j++) {
      const seen = keep ? keep[t * S + j] === 1 : j < sourceIds.length || j === S - 1;
      if (seen) s += row[j];
    }
    return -s;
  });
}

test('erasureMap (mask): drop[t, g] = base − masked; a group that is every position cannot be removed', () => {
  const w = [[0.5, 1, 0.25], [2, 0, 1]];
  const groups = [{ first: 0, count: 2 }, { first: 2, count: 1 }];
  const map = erasureMap({ sourceIds: Int32Array.from([4, 5]), targetIds: Int32Array.from([6, 3]), S: 3, groups, method: 'mask' }, fakeScore(w, 3));
  // Removing positions 0-1 raises log p by their w (the fake's log p is −Σ w): the drop is −(w0 + w1).
  assert.deepEqual(Array.from(map.drop), [-1.5, -0.25, -2, -1]);
  assert.deepEqual(Array.from(map.erasable), [1, 1]);
  assert.deepEqual(Array.from(map.base), [-1.75, -3]);
  const all = erasureMap({ sourceIds: Int32Array.from([4]), targetIds: Int32Array.from([3]), S: 1, groups: [{ first: 0, count: 1 }], method: 'mask' }, fakeScore([[1]], 1));
  assert.ok(Number.isNaN(all.drop[0]));
  assert.deepEqual(Array.from(all.erasable), [0]);
});

test('erasureMap (delete): the shorter source is scored; the </s> column and a last token cannot be removed', () => {
  const calls = [];
  const score = (src, keep) => { calls.push([Array.from(src), keep]); return Float32Array.from([-src.length]); };
  const groups = [{ first: 0, count: 1 }, { first: 1, count: 1 }, { first: 2, count: 1 }];
  const map = erasureMap({ sourceIds: Int32Array.from([8, 9]), targetIds: Int32Array.from([3]), S: 3, groups, method: 'delete' }, score);
  assert.deepEqual(calls, [[[8, 9], null], [[9], null], [[8], null]], 'no mask ever; </s> not deleted');
  assert.deepEqual(Array.from(map.drop).map((x) => (Number.isNaN(x) ? 'NaN' : x)), [-1, -1, 'NaN']);
  assert.deepEqual(Array.from(map.erasable), [1, 1, 0]);
});

test('erasureMap refuses columns that do not cover the source positions, and an unknown method', () => {
  const score = () => Float32Array.from([0]);
  const args = { sourceIds: Int32Array.from([1, 2]), targetIds: Int32Array.from([3]), S: 2, method: 'mask' };
  assert.throws(() => erasureMap({ ...args, groups: [{ first: 0, count: 1 }] }, score), /cover the 2 source positions/);
  assert.throws(() => erasureMap({ ...args, groups: [{ first: 1, count: 1 }, { first: 0, count: 1 }] }, score), /cover/);
  assert.throws(() => erasureMap({ ...args, groups: [] }, score), /cover/);
  assert.throws(() => erasureMap({ ...args, groups: [{ first: 0, count: 2 }], method: 'zero' }, score), /method/);
});

test('sumRows: a target word’s drop is the sum of its pieces’ (log p of a word is the sum of its pieces’)', () => {
  const drop = Float32Array.from([1, 2, 3, 4, 5, 6]); // T = 3 pieces × G = 2
  const rows = sumRows(drop, 3, 2, [{ first: 0, count: 2 }, { first: 2, count: 1 }]);
  assert.deepEqual(Array.from(rows), [4, 6, 5, 6]);
  assert.deepEqual(Array.from(sumRows(drop, 3, 2, [0, 1, 2].map((t) => ({ first: t, count: 1 })))), Array.from(drop), 'pieces: unchanged');
});

test('ranks share ties; Spearman’s ρ against hand-worked values', () => {
  assert.deepEqual(Array.from(ranks([10, 30, 20, 20])), [1, 4, 2.5, 2.5]);
  assert.equal(spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1);
  assert.equal(spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1);
  // x ranks 1 2 3 4 5, y = [2, 1, 4, 3, 5] ranks the same: Σd² = 4, ρ = 1 − 6·4/(5·24) = 0.8.
  assert.ok(Math.abs(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) - 0.8) < 1e-12);
  // Ties: x ranks [1, 2.5, 2.5, 4], y ranks [1, 2, 3, 4]: Pearson of the ranks = 4.5 / sqrt(4.5 · 5).
  assert.ok(Math.abs(spearman([0, 1, 1, 2], [0, 1, 2, 3]) - 4.5 / Math.sqrt(4.5 * 5)) < 1e-12);
  // NaN cells are left out; fewer than two pairs or a constant side: NaN.
  assert.equal(spearman([1, 2, NaN, 3], [5, 6, 0, 7]), 1);
  assert.ok(Number.isNaN(spearman([1], [2])));
  assert.ok(Number.isNaN(spearman([1, 1, 1], [1, 2, 3])));
});

test('compareRows: argmaxes, agreement, ρ per row and their mean; without attention no agreement is claimed', () => {
  const alpha = Float32Array.from([0.7, 0.2, 0.1, /**/ 0.1, 0.8, 0.1, /**/ 0.2, 0.3, 0.5]);
  const drop = Float32Array.from([2, 1, 0, /**/ 3, 0.5, 0.1, /**/ 0.1, 0.3, 0.2]);
  const c = compareRows(alpha, drop, 3, 3);
  assert.deepEqual(c.rows.map((r) => [r.attended, r.needed, r.agree]), [[0, 0, true], [1, 0, false], [2, 1, false]]);
  assert.equal(c.rows[0].rho, 1);
  assert.ok(Math.abs(c.rows[1].gap - 2.5) < 1e-6, 'needed 3 vs attended 0.5');
  assert.ok(Math.abs(c.rows[2].gap - 0.1) < 1e-6);
  assert.equal(c.agreeCount, 1);
  assert.equal(c.compared, 3);
  assert.equal(c.rhoRows, 3);
  assert.ok(Math.abs(c.meanRho - (c.rows[0].rho + c.rows[1].rho + c.rows[2].rho) / 3) < 1e-12);
  assert.deepEqual(worstDisagreements(c, 1), [{ row: 1, attended: 1, needed: 0, gap: c.rows[1].gap }]);
  assert.deepEqual(worstDisagreements(c).map((d) => d.row), [1, 2], 'largest gap first');
  const none = compareRows(null, drop, 3, 3);
  assert.deepEqual(none.rows.map((r) => [r.attended, r.needed, r.agree]), [[-1, 0, null], [-1, 0, null], [-1, 1, null]]);
  assert.ok(Number.isNaN(none.meanRho));
  assert.deepEqual(worstDisagreements(none), []);
  // A column that cannot be removed (NaN) is never the most needed.
  const nan = compareRows(Float32Array.from([0.9, 0.1]), Float32Array.from([NaN, 0.4]), 1, 2);
  assert.deepEqual([nan.rows[0].attended, nan.rows[0].needed, nan.rows[0].agree], [0, 1, false]);
  assert.ok(Number.isNaN(nan.rows[0].gap), 'no gap to a column without a drop');
  // A row whose drops all stay under MIN_NEEDED_NATS needed no word: neither agreement nor disagreement.
  const flat = compareRows(Float32Array.from([0.9, 0.1, 0.2, 0.8]), Float32Array.from([0.001, 0.04, 0.5, 0.2]), 2, 2);
  assert.deepEqual(flat.rows.map((r) => [r.needed, r.agree]), [[-1, null], [0, false]]);
  assert.equal(flat.compared, 1);
  assert.ok(MIN_NEEDED_NATS > 0.04 && MIN_NEEDED_NATS <= 0.2, 'precondition: the threshold lies between the two rows’ largest drops');
});

test('dropScale: the largest |drop| of the finite cells, at least the floor', () => {
  assert.equal(dropScale(Float32Array.from([0.5, -2, NaN, 1])), 2);
  assert.equal(dropScale(Float32Array.from([0.01, NaN])), 0.1);
});

// A subword trace by hand: source "unsaved files" = pieces un|saved|files + </s>, target "fichiers non" + </s>
// with "fichiers" in two pieces. (The shapes the engine's trace has, lib/words.js.)
function subwordTrace(withAlpha = true) {
  const source = [
    { text: 'un', id: 20, isEnd: false, word: 0 }, { text: 'saved', id: 21, isEnd: false, word: 0 },
    { text: 'files', id: 22, isEnd: false, word: 1 }, { text: '</s>', id: 3, isEnd: true, word: 2 },
  ];
  const target = [
    { text: 'fich', id: 30, isEnd: false, word: 0 }, { text: 'iers', id: 31, isEnd: false, word: 0 },
    { text: 'non', id: 32, isEnd: false, word: 1 }, { text: '', id: 3, isEnd: true, word: 2 },
  ];
  const alpha = withAlpha ? Float32Array.from({ length: 16 }, (_, i) => [0.1, 0.2, 0.6, 0.1][i % 4]) : null;
  return {
    text: 'unsaved files', translation: 'fichiers non', S: 4, T: 4, source, target, alpha,
    sourceWords: [{ text: 'unsaved', first: 0, count: 2 }, { text: 'files', first: 2, count: 1 }, { text: '</s>', first: 3, count: 1, isEnd: true }],
    targetWords: [{ text: 'fichiers', first: 0, count: 2 }, { text: 'non', first: 2, count: 1 }, { text: '</s>', first: 3, count: 1 }],
    scoreScale: 1,
  };
}

for (const pieces of [false, true]) {
  for (const attention of ['additive', 'none']) {
    test(`the card’s figures have the heatmap’s rows and columns (${pieces ? 'pieces' : 'words'}, ${attention})`, () => {
      const trace = subwordTrace(attention !== 'none');
      const info = { attention };
      const matrix = figureMatrix(trace, info, pieces);
      const st = { trace, info, matrix, pieces };
      const req = erasureRequest(st);
      assert.deepEqual(req.groups, groupPairs(matrix.colGroups));
      const G = matrix.S;
      // The worker's answer at piece rows: drop[t, g] = 10 t + g.
      const drop = Float32Array.from({ length: trace.T * G }, (_, i) => 10 * Math.floor(i / G) + (i % G));
      const fig = erasureFigures({ ...st, erasure: { for: trace, columns: req.columns, result: { method: attention === 'none' ? 'delete' : 'mask', base: new Float32Array(4), drop, erasable: new Uint8Array(G).fill(1), T: 4, G } } });
      assert.deepEqual(fig.erasure.rowLabels, matrix.rowLabels);
      assert.deepEqual(fig.erasure.colLabels, matrix.colLabels);
      assert.equal(fig.erasure.T, matrix.T);
      assert.equal(fig.erasure.S, matrix.S);
      assert.deepEqual(matrix.colLabels, pieces ? ['un', 'saved', 'files', '</s>'] : ['unsaved', 'files', '</s>']);
      // Words: "fichiers" is pieces 0 and 1 summed.
      if (!pieces) assert.deepEqual(Array.from(fig.erasure.alpha.subarray(0, G)), [10, 12, 14]);
      assert.equal(fig.attention.alpha === null, attention === 'none');
      // A result for other columns (the other level) is not shown.
      assert.equal(erasureFigures({ ...st, erasure: { for: trace, columns: `${req.columns}x`, result: {} } }), null);
    });
  }
}

test('the controller cancels the map in flight when the translation changes, then asks for the new one; a cancel is no error', async () => {
  setUiLanguage('en');
  const settle = () => new Promise((r) => setTimeout(r, 0));
  // A stand-in for EngineClient.erasure: answers when the test says; an abort rejects as the client does.
  const asked = [];
  const client = {
    erasure(req, { signal } = {}) {
      return new Promise((resolve, reject) => {
        const entry = { req, signal, resolve };
        asked.push(entry);
        signal?.addEventListener('abort', () => reject(Object.assign(new Error('cancelled'), { cancelled: true })), { once: true });
      });
    },
  };
  const traceOf = (ids) => ({ source: [...ids.map((id) => ({ id })), { id: 3, isEnd: true }], target: [{ id: 40 }, { id: 3 }], scoreScale: 1 });
  const matrixOf = (trace) => ({ trace, level: 'words', colGroups: trace.source.map((_, j) => ({ first: j, count: 1 })) });
  const a = traceOf([11, 12]);
  const store = createStore({ trace: a, info: { attention: 'dot' }, matrix: matrixOf(a), erasure: null });
  const ctl = createErasure(store, { client });
  await settle();
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0].req.sourceIds, [11, 12]);
  assert.equal(store.get().erasure.busy, true);
  // The reader translates another sentence: the first map is stopped, the second asked for.
  const b = traceOf([21, 22, 23]);
  store.set({ trace: b, matrix: matrixOf(b) });
  await settle();
  assert.equal(asked[0].signal.aborted, true, 'the map of the old sentence is cancelled');
  assert.equal(asked.length, 2);
  assert.deepEqual(asked[1].req.sourceIds, [21, 22, 23]);
  assert.equal(asked[1].signal.aborted, false);
  assert.equal(store.get().erasure.for, b);
  assert.equal(store.get().erasure.error, null, 'a cancel is not shown as a failure');
  const result = { method: 'mask', base: new Float32Array(2), drop: new Float32Array(8), erasable: new Uint8Array(4), T: 2, G: 4, workerMs: 1, cached: false };
  asked[1].resolve(result);
  await settle();
  assert.equal(store.get().erasure.result, result);
  assert.equal(store.get().erasure.busy, false);
  // The other level (pieces) is another map; destroy() stops a map in flight.
  store.set({ matrix: { ...matrixOf(b), level: 'pieces' } });
  await settle();
  assert.equal(asked.length, 3, 'the other level is another map');
  ctl.destroy();
  assert.equal(asked[2].signal.aborted, true);
});
