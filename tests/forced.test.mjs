// Forced decoding with an attention mask (src/alignscope.h as_force_score,
// web/engine.js forceScore), on the simd and scalar wasm builds:
//
// - parity with its PyTorch twin (models/train/decode.py forced_score, on the
//   model rebuilt from the .alsc file): every shipped model that PyTorch can
//   rebuild (models/fixtures) and the test models of every attention kind,
//   two targets per sentence (the greedy output, and its words reversed)
//   under five masks (none, windows of half width 1 and 0, each step's most
//   attended position dropped, a random one). log p(y_t | y_<t, x) within
//   LOG_PROB_PER_STEP of PyTorch's, alpha within TOLERANCES (as
//   tests/twins.test.mjs), dropped positions exactly 0; the window masks are
//   the same in C (windowMask) and Python (window_mask);
// - the engine against itself: the greedy output scored unmasked gives the
//   beam's step log-probabilities and translate()'s alpha bit for bit, and a
//   mask of all ones is no mask, bit for bit;
// - the binding: bad input refused with the status, a message naming the
//   position and err.position, never a NaN; the engine unharmed afterwards.
// PyTorch runs once per sentence file, for all models, through /usr/bin/python3.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import {
  AlignscopeError, KINDS, PYTHON, ROOT, TEST_MODELS, TOLERANCES, VARIANTS, createEngine, modelBytes, requireBuilt,
} from './support/alsc.mjs';

requireBuilt();

// log p per step: 1e-4 for f32 and f16 files (the engine's exp and sums
// against PyTorch's), 2e-3 for int8 files (the engine's int16 inputs move
// each logit by up to ~1e-3): tests/twins.test.mjs's bounds for beam search.
const LOG_PROB_PER_STEP = { default: 1e-4, int8: 2e-3 };

function twinsOf(models, sentences, limit) {
  if (!models.length) return [];
  const run = spawnSync(PYTHON, [join(ROOT, 'models', 'train', 'decode.py'), ...models, '--sentences', sentences,
    '--limit', String(limit), '--forced'],
  { cwd: ROOT, encoding: 'utf8', maxBuffer: 512 << 20, env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } });
  if (run.status !== 0) throw new Error(`models/train/decode.py --forced failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

// The shipped models (those with parity fixtures) and the subword test models
// on the fixture sentences; the test model of every kind on its own sentences.
const shipped = readdirSync(join(ROOT, 'models', 'fixtures')).filter((f) => f.endsWith('.parity.json')).sort()
  .map((f) => join(ROOT, 'models', JSON.parse(readFileSync(join(ROOT, 'models', 'fixtures', f), 'utf8')).model))
  .filter(existsSync);
const subwords = ['subwords', 'subwords-int8'].map((k) => join(TEST_MODELS, `${k}.alsc`)).filter(existsSync);
const kinds = [...KINDS, 'additive-int8'].map((k) => join(TEST_MODELS, `${k}.alsc`)).filter(existsSync);
const twins = [
  ...twinsOf([...shipped, ...subwords], join(ROOT, 'models', 'train', 'fixture_sentences.en.txt'), 4),
  ...twinsOf(kinds, join(TEST_MODELS, 'sentences.txt'), 5),
];
const worst = {}; // `${weights} ${variant}` -> { logProb, alpha }

const rowsOf = (flat, T, S) => Array.from({ length: T }, (_, t) => Array.from(flat.subarray(t * S, (t + 1) * S)));

for (const twin of twins) {
  const name = twin.model.slice(ROOT.length + 1);
  describe(`forced ${name}`, () => {
    if (twin.error) {
      test('loads in PyTorch', () => assert.fail(`alsc_to_torch refused ${name}: ${twin.error}`));
      return;
    }
    const bytes = new Uint8Array(readFileSync(twin.model));
    const tol = TOLERANCES[twin.weights] ?? TOLERANCES.default;
    const perStep = LOG_PROB_PER_STEP[twin.weights] ?? LOG_PROB_PER_STEP.default;

    test('the cases cover what they should', () => {
      const masks = new Set(twin.cases.map((c) => c.mask));
      for (const m of ['none', 'window 1', 'window 0', 'random']) assert.ok(masks.has(m), m);
      if (twin.attention !== 'none') assert.ok(masks.has('drop the most attended'));
      assert.ok(twin.cases.some((c) => c.target === 'reversed') && twin.cases.some((c) => c.score_scale > 0));
    });

    for (const variant of VARIANTS) {
      test(`${variant} wasm: log p and alpha as PyTorch's`, async () => {
        const engine = await createEngine({ variant });
        engine.load(bytes);
        const stats = { logProb: 0, alpha: 0 };
        for (const c of twin.cases) {
          const label = `${name} ${variant} "${c.text}" ${c.target} target, mask ${c.mask}, scale ${c.score_scale}`;
          const T = c.target_ids.length, S = c.source_ids.length;
          if (c.window != null) assert.deepEqual(rowsOf(engine.windowMask(T, S, c.window), T, S), c.keep, `${label}: window_mask`);
          const options = { scoreScale: c.score_scale, ...(c.window != null ? { window: c.window } : c.keep ? { keep: c.keep.flat() } : {}) };
          const r = engine.forceScore(c.source_ids, c.target_ids, options);
          assert.equal(r.T, T);
          assert.equal(r.S, S);
          c.log_probs.forEach((want, t) => {
            const d = Math.abs(r.logProbs[t] - want);
            stats.logProb = Math.max(stats.logProb, d);
            assert.ok(d <= perStep, `${label}: log p at step ${t}: ${r.logProbs[t]} vs ${want} (tolerance ${perStep})`);
          });
          if (twin.attention === 'none') {
            assert.equal(r.alpha, null, `${label}: no alpha without attention`);
            continue;
          }
          const got = rowsOf(r.alpha, T, S);
          c.alpha.forEach((row, t) => {
            let sum = 0;
            row.forEach((want, j) => {
              const a = got[t][j];
              sum += a;
              if (c.keep && c.keep[t][j] === 0) assert.ok(Object.is(a, 0) && want === 0, `${label}: alpha[${t}][${j}] dropped: ${a}`);
              const d = Math.abs(a - want);
              stats.alpha = Math.max(stats.alpha, d);
              assert.ok(d <= tol.alpha, `${label}: alpha[${t}][${j}] ${a} vs ${want} (tolerance ${tol.alpha})`);
            });
            assert.ok(Math.abs(sum - 1) < 1e-5, `${label}: row ${t} sums to ${sum}`);
          });
        }
        const key = `${twin.weights} ${variant}`;
        worst[key] = { logProb: Math.max(worst[key]?.logProb ?? 0, stats.logProb), alpha: Math.max(worst[key]?.alpha ?? 0, stats.alpha) };
        console.log(`# ${name} ${variant} (${twin.weights}, ${twin.attention}): ${twin.cases.length} cases, ` +
          `max |dlog p|=${stats.logProb.toExponential(2)} max |dalpha|=${stats.alpha.toExponential(2)}`);
        engine.dispose();
      });
    }
  });
}

test('forced parity summary', () => {
  for (const [key, s] of Object.entries(worst)) {
    console.log(`# ${key}: max |dlog p|=${s.logProb.toExponential(2)} max |dalpha|=${s.alpha.toExponential(2)}`);
  }
});

// ---- the engine against itself, and the binding ------------------------------

const SENTENCE = 'Show the new window';

function expectError(fn, code, { position, message } = {}) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof AlignscopeError, String(err));
    assert.equal(err.code, code, err.message);
    if (position !== undefined) assert.equal(err.position, position, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

for (const variant of VARIANTS) {
  describe(`forceScore binding (${variant})`, () => {
    test('the greedy output, unmasked: the beam\'s step log-probabilities and translate()\'s alpha, bit for bit', async () => {
      const engine = await createEngine({ variant });
      for (const kind of [...KINDS, 'additive-int8', 'tutorial', 'subwords', 'layer-norm']) {
        engine.load(modelBytes(kind));
        const greedy = engine.translate(SENTENCE, { topK: 0 });
        const ids = greedy.target.map((t) => t.id);
        const beam = engine.beam(SENTENCE, { beamWidth: 1 }).hypotheses[0];
        const r = engine.forceScore(SENTENCE, ids);
        assert.deepEqual(Array.from(r.sourceIds), greedy.source.filter((s) => !s.isEnd).map((s) => s.id), kind);
        assert.equal(r.S, greedy.S, `${kind}: S (with the </s> a tutorial model reads)`);
        assert.deepEqual(Array.from(r.logProbs), Array.from(beam.stepLogProbs), `${kind}: log p`);
        assert.ok(Math.abs(r.logProb - beam.logProb) < 1e-5 * ids.length, `${kind}: the sum`);
        if (kind === 'none') assert.equal(r.alpha, null);
        else assert.deepEqual(Array.from(r.alpha), Array.from(greedy.alpha), `${kind}: alpha`);
        // all ones is no mask; the window as big as the source too
        const ones = engine.forceScore(SENTENCE, ids, { keep: new Array(r.T * r.S).fill(true) });
        assert.deepEqual(Array.from(ones.logProbs), Array.from(r.logProbs), `${kind}: all-ones mask`);
        const wide = engine.forceScore(SENTENCE, ids, { window: r.S });
        assert.deepEqual(Array.from(wide.logProbs), Array.from(r.logProbs), `${kind}: a window over everything`);
        assert.equal(r.scoreScale, engine.info.trainedScoreScale);
      }
      engine.dispose();
    });

    test('a mask changes alpha and log p, and only where it should', async () => {
      const engine = await createEngine({ variant });
      engine.load(modelBytes('additive'));
      const ids = engine.translate(SENTENCE).target.map((t) => t.id);
      const plain = engine.forceScore(SENTENCE, ids);
      const { T, S } = plain;
      // step 1 may look only at position 0; every other row all ones
      const keep = Array.from({ length: T * S }, (_, i) => (Math.floor(i / S) === 1 ? (i % S === 0 ? 1 : 0) : 1));
      const r = engine.forceScore(SENTENCE, ids, { keep });
      assert.deepEqual(Array.from(r.alpha.subarray(S, 2 * S)), [1, ...new Array(S - 1).fill(0)]);
      assert.deepEqual(Array.from(r.alpha.subarray(0, S)), Array.from(plain.alpha.subarray(0, S)), 'step 0 is unmasked');
      assert.equal(r.logProbs[0], plain.logProbs[0], 'step 0 does not see the mask');
      assert.notEqual(r.logProbs[1], plain.logProbs[1], 'step 1 does');
      assert.ok(Array.from(r.logProbs).every((x) => Number.isFinite(x) && x <= 0));
      // a sharp scale and a mask that drops the most attended position: finite, never NaN
      const sharp = engine.forceScore(SENTENCE, ids, { scoreScale: 1e6, keep: Array.from({ length: T * S }, (_, i) => (i % S === 0 ? 0 : 1)) });
      assert.ok(Array.from(sharp.alpha).every(Number.isFinite) && Array.from(sharp.logProbs).every(Number.isFinite));
      for (let t = 0; t < T; t++) assert.equal(sharp.alpha[t * S], 0);
      engine.dispose();
    });

    test('the window mask: the engine\'s own, one row per step, at least one position each', async () => {
      const engine = await createEngine({ variant });
      const m = engine.windowMask(5, 4, 1);
      assert.deepEqual(rowsOf(m, 5, 4), [[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1]]);
      assert.deepEqual(Array.from(engine.windowMask(1, 3, 0)), [1, 0, 0], 'T = 1: the window at the first position');
      assert.deepEqual(rowsOf(engine.windowMask(3, 1, 0), 3, 1), [[1], [1], [1]]);
      for (const [T, S, D] of [[7, 13, 0], [13, 7, 2], [40, 3, 1], [2, 100, 5]]) {
        const rows = rowsOf(engine.windowMask(T, S, D), T, S);
        assert.equal(rows[0][0], 1);
        assert.equal(rows[T - 1][S - 1], 1);
        for (const row of rows) {
          const kept = row.flatMap((v, j) => (v ? [j] : []));
          assert.ok(kept.length >= 1 && kept.length <= 2 * D + 1);
          assert.equal(kept.at(-1) - kept[0] + 1, kept.length, 'contiguous');
        }
      }
      for (const [T, S, D] of [[0, 3, 1], [3, 0, 1], [3, 3, -1], [3, 3, 1.5], [4097, 1, 0], [1, 4097, 0], [3, 3, NaN]]) {
        expectError(() => engine.windowMask(T, S, D), 'AS_ERR_BAD_OPTION');
      }
      engine.dispose();
    });

    test('bad input: refused with the status, the position and a message that names it; the engine unharmed', async () => {
      const engine = await createEngine({ variant });
      engine.load(modelBytes('additive'));
      const info = engine.info;
      const reference = engine.translate(SENTENCE);
      const src = engine.tokenize(SENTENCE).map((t) => t.id);
      const ids = reference.target.map((t) => t.id);
      const { T, S } = engine.forceScore(src, ids);
      engine.forceScore(src, ids); // the heap as it stays
      const heap = engine.heapBytes();
      expectError(() => engine.forceScore(src, [ids[0], info.tgtVocabSize, ids[1]]), 'AS_ERR_BAD_TARGET',
        { position: 1, message: new RegExp(`target position 1 has id ${info.tgtVocabSize}`) });
      expectError(() => engine.forceScore(src, [-1]), 'AS_ERR_BAD_TARGET', { position: 0, message: /target position 0 has id -1/ });
      expectError(() => engine.forceScore(src, [5, 2.5]), 'AS_ERR_BAD_TARGET', { position: 1 });
      expectError(() => engine.forceScore(src, []), 'AS_ERR_BAD_TARGET', { position: -1, message: /the target has 0 tokens/ });
      expectError(() => engine.forceScore(src, new Array(info.maxTargetTokens + 1).fill(5)), 'AS_ERR_BAD_TARGET', { position: -1 });
      expectError(() => engine.forceScore([src[0], info.srcVocabSize], ids), 'AS_ERR_BAD_SOURCE_TOKEN',
        { position: 1, message: /source position 1 has id/ });
      expectError(() => engine.forceScore([], ids), 'AS_ERR_EMPTY_INPUT');
      expectError(() => engine.forceScore('', ids), 'AS_ERR_EMPTY_INPUT');
      expectError(() => engine.forceScore(new Array(info.maxSourceTokens + 1).fill(5), ids), 'AS_ERR_INPUT_TOO_LONG',
        { message: new RegExp(`at most ${info.maxSourceTokens}`) });
      const emptyRow = Array.from({ length: T * S }, (_, i) => (Math.floor(i / S) === 2 ? 0 : 1));
      expectError(() => engine.forceScore(src, ids, { keep: emptyRow }), 'AS_ERR_BAD_ATTENTION_MASK',
        { position: 2, message: /row 2 \(target position 2\) keeps none/ });
      const odd = new Array(T * S).fill(1);
      odd[S + 1] = 0.5;
      expectError(() => engine.forceScore(src, ids, { keep: odd }), 'AS_ERR_BAD_ATTENTION_MASK',
        { position: 1, message: /other than 0 and 1 .* source position 1/ });
      expectError(() => engine.forceScore(src, ids, { keep: new Array(T * S - 1).fill(1) }), 'AS_ERR_BAD_ATTENTION_MASK',
        { position: -1, message: new RegExp(`T × S = ${T} × ${S}`) });
      expectError(() => engine.forceScore(src, ids, { window: -1 }), 'AS_ERR_BAD_OPTION');
      expectError(() => engine.forceScore(src, ids, { scoreScale: Infinity }), 'AS_ERR_BAD_OPTION');
      expectError(() => engine.forceScore(src, ids, { scoreScale: 2e6 }), 'AS_ERR_BAD_OPTION');
      assert.throws(() => engine.forceScore(src, ids, { keep: [], window: 1 }), TypeError);
      assert.throws(() => engine.forceScore(src, 'le fichier'), TypeError);
      assert.throws(() => engine.forceScore(5, ids), TypeError);
      // unharmed: the same numbers, the same heap (the tokeniser's buffer
      // holds the last text's tokens: the same text again), the same translation
      engine.tokenize(SENTENCE);
      assert.equal(engine.heapBytes(), heap, 'no leak on refusal');
      assert.deepEqual(engine.translate(SENTENCE).alpha, reference.alpha);
      engine.dispose();
    });

    test('a model without attention ignores the mask, even an empty one', async () => {
      const engine = await createEngine({ variant });
      engine.load(modelBytes('none'));
      const ids = engine.translate(SENTENCE).target.map((t) => t.id);
      const plain = engine.forceScore(SENTENCE, ids);
      const empty = engine.forceScore(SENTENCE, ids, { keep: new Array(plain.T * plain.S).fill(0) });
      assert.deepEqual(Array.from(empty.logProbs), Array.from(plain.logProbs));
      assert.equal(empty.alpha, null);
      engine.dispose();
    });
  });
}
