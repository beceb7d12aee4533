// Local attention in free decoding (issue 32 part 3): the engine's local-m
// window (src/alignscope.h as_options.window_half_width / window_steps,
// web/engine.js translate/beam { window, windowSteps }), on the simd and
// scalar wasm builds:
//
// - parity with its PyTorch twin (models/train/decode.py windowed_cases:
//   greedy with half widths 0, 1, 2 at the global translation's length T,
//   half width 0 at the reference lengths 1 and T // 2 so that the steps past
//   it sit at the source's end, and a beam of 3 with half width 1) on the test
//   model of every attention kind: the same tokens, alpha within TOLERANCES,
//   positions outside the window exactly 0;
// - the engine against itself: a window over the whole source, and half width
//   0 on a one-position source, are global attention bit for bit; the windowed
//   decode's alpha is forceScore's with the window's rows as its keep mask (the
//   rows as_window_mask gives for steps before T, the last position after);
//   a beam of 1 is the windowed greedy result;
// - bad options refused (AS_ERR_BAD_OPTION), the engine unharmed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import {
  AlignscopeError, KINDS, PYTHON, ROOT, TEST_MODELS, TOLERANCES, VARIANTS, createEngine, modelBytes, requireBuilt,
} from './support/alsc.mjs';

requireBuilt();

const LOG_PROB_PER_STEP = { default: 1e-4, int8: 2e-3 }; // as tests/forced.test.mjs

const models = [...KINDS, 'additive-int8'].map((k) => join(TEST_MODELS, `${k}.alsc`)).filter(existsSync);
const run = spawnSync(PYTHON, [join(ROOT, 'models', 'train', 'decode.py'), ...models, '--sentences',
  join(TEST_MODELS, 'sentences.txt'), '--limit', '4', '--windowed'],
{ cwd: ROOT, encoding: 'utf8', maxBuffer: 512 << 20, env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } });
if (run.status !== 0) throw new Error(`models/train/decode.py --windowed failed: ${run.stderr}`);
const twins = JSON.parse(run.stdout);

const rowsOf = (flat, T, S) => Array.from({ length: T }, (_, t) => Array.from(flat.subarray(t * S, (t + 1) * S)));

/** engine.c window_centre, written out: the centre of step t with reference length T over S positions. */
function centre(t, T, S) {
  if (t === 0) return 0;
  if (t >= T - 1) return S - 1;
  return Math.floor((2 * t * (S - 1) + (T - 1)) / (2 * (T - 1)));
}
const keepRows = (steps, T, S, D) => Array.from({ length: steps }, (_, t) =>
  Array.from({ length: S }, (_, j) => (Math.abs(j - centre(t, T, S)) <= D ? 1 : 0)));

for (const twin of twins) {
  const name = twin.model.slice(ROOT.length + 1);
  describe(`local window ${name}`, () => {
    const bytes = new Uint8Array(readFileSync(twin.model));
    const tol = TOLERANCES[twin.weights] ?? TOLERANCES.default;
    const perStep = LOG_PROB_PER_STEP[twin.weights] ?? LOG_PROB_PER_STEP.default;
    for (const variant of VARIANTS) {
      test(`${variant} wasm: the windowed decode as PyTorch's`, async () => {
        const engine = await createEngine({ variant });
        engine.load(bytes);
        let worst = 0;
        const checkAlpha = (label, got, want, S, c) => {
          const T = want.length;
          const keep = keepRows(T, c.window_steps, S, c.window);
          want.forEach((row, t) => row.forEach((a, j) => {
            const g = got[t * S + j];
            if (!keep[t][j]) assert.ok(Object.is(g, 0) && a === 0, `${label}: alpha[${t}][${j}] outside the window: ${g}`);
            worst = Math.max(worst, Math.abs(g - a));
            assert.ok(Math.abs(g - a) <= tol.alpha, `${label}: alpha[${t}][${j}] ${g} vs ${a}`);
          }));
        };
        for (const c of twin.cases) {
          const label = `${name} ${variant} "${c.text}" ${c.kind} D=${c.window} T=${c.window_steps}`;
          if (c.kind === 'greedy') {
            const r = engine.translate(c.text, { window: c.window, windowSteps: c.window_steps });
            assert.deepEqual(r.target.map((t) => t.id), c.result.target_ids, `${label}: tokens`);
            if (twin.attention === 'none') assert.equal(r.alpha, null);
            else checkAlpha(label, r.alpha, c.result.alpha, r.S, c);
          } else {
            const r = engine.beam(c.text, { beamWidth: c.width, window: c.window, windowSteps: c.window_steps });
            assert.equal(r.hypotheses.length, c.hypotheses.length, label);
            r.hypotheses.forEach((h, i) => {
              const want = c.hypotheses[i];
              assert.deepEqual(h.target.map((t) => t.id), want.target_ids, `${label}: hypothesis ${i}`);
              want.step_log_probs.forEach((lp, t) => assert.ok(Math.abs(h.stepLogProbs[t] - lp) <= perStep,
                `${label}: hypothesis ${i} log p at step ${t}: ${h.stepLogProbs[t]} vs ${lp}`));
              if (twin.attention !== 'none') checkAlpha(`${label} hypothesis ${i}`, h.alpha, want.alpha, h.S, c);
            });
          }
        }
        console.log(`# ${name} ${variant}: ${twin.cases.length} cases, max |dalpha|=${worst.toExponential(2)}`);
        engine.dispose();
      });
    }
  });
}

const SENTENCE = 'Show the new window';

function expectBadOption(fn) {
  assert.throws(fn, (err) => err instanceof AlignscopeError && err.code === 'AS_ERR_BAD_OPTION');
}

for (const variant of VARIANTS) {
  describe(`the window in free decoding (${variant})`, () => {
    test('a window over the whole source, and half width 0 on a one-position source, are global attention bit for bit', async () => {
      const engine = await createEngine({ variant });
      for (const kind of [...KINDS, 'additive-int8', 'subwords']) {
        engine.load(modelBytes(kind));
        const global = engine.translate(SENTENCE);
        const wide = engine.translate(SENTENCE, { window: global.S - 1, windowSteps: global.T });
        assert.deepEqual(wide.target.map((t) => t.id), global.target.map((t) => t.id), kind);
        if (global.alpha) assert.deepEqual(Array.from(wide.alpha), Array.from(global.alpha), kind);
        const beamGlobal = engine.beam(SENTENCE, { beamWidth: 3 }).hypotheses.map((h) => h.translation);
        const beamWide = engine.beam(SENTENCE, { beamWidth: 3, window: 50, windowSteps: global.T }).hypotheses.map((h) => h.translation);
        assert.deepEqual(beamWide, beamGlobal, `${kind}: beam`);
        // one word (S = 1 for these models, which read no </s> after the source)
        const one = engine.translate('file');
        if (one.S === 1) {
          const local = engine.translate('file', { window: 0, windowSteps: one.T });
          assert.deepEqual(local.target.map((t) => t.id), one.target.map((t) => t.id), `${kind}: one word`);
          if (one.alpha) assert.deepEqual(Array.from(local.alpha), Array.from(one.alpha), `${kind}: one word, alpha`);
        }
      }
      engine.dispose();
    });

    test('the windowed decode is forceScore with the window\'s rows as its mask; a beam of 1 is the greedy result', async () => {
      const engine = await createEngine({ variant });
      for (const kind of ['additive', 'dot', 'general', 'scaled_dot', 'tutorial']) {
        engine.load(modelBytes(kind));
        const global = engine.translate(SENTENCE);
        for (const [D, T] of [[0, global.T], [1, global.T], [0, 2], [2, 1]]) {
          const r = engine.translate(SENTENCE, { window: D, windowSteps: T, topK: 0 });
          const S = r.S;
          const keep = keepRows(r.T, T, S, D);
          if (r.T <= T) assert.deepEqual(keep.slice(0, r.T), rowsOf(engine.windowMask(T, S, D), T, S).slice(0, r.T), 'as_window_mask\'s rows');
          const ids = r.target.map((t) => t.id);
          const forced = engine.forceScore(SENTENCE, ids, { keep: keep.flat() });
          assert.deepEqual(Array.from(forced.alpha), Array.from(r.alpha), `${kind} D=${D} T=${T}: alpha`);
          const beam1 = engine.beam(SENTENCE, { beamWidth: 1, window: D, windowSteps: T }).hypotheses[0];
          assert.deepEqual(beam1.target.map((t) => t.id), ids, `${kind} D=${D} T=${T}: beam of 1`);
          assert.deepEqual(Array.from(beam1.stepLogProbs), Array.from(forced.logProbs), `${kind} D=${D} T=${T}: log p`);
        }
      }
      engine.dispose();
    });

    test('bad window options: refused as a bad option, the engine unharmed', async () => {
      const engine = await createEngine({ variant });
      engine.load(modelBytes('additive'));
      const reference = engine.translate(SENTENCE);
      for (const opts of [{ window: -1, windowSteps: 3 }, { window: 1.5, windowSteps: 3 }, { window: 1, windowSteps: 0 },
        { window: 1 }, { window: 1, windowSteps: 4097 }, { window: 1, windowSteps: 2.5 }, { window: NaN, windowSteps: 3 },
        { window: 1, windowSteps: 3, overrides: [{ step: 0, weights: new Array(reference.S).fill(1) }] }]) {
        expectBadOption(() => engine.translate(SENTENCE, opts));
        expectBadOption(() => engine.beam(SENTENCE, { beamWidth: 2, ...opts }));
      }
      // the window is ignored by a model without attention
      engine.load(modelBytes('none'));
      const plain = engine.translate(SENTENCE);
      assert.equal(engine.translate(SENTENCE, { window: 0, windowSteps: 1 }).translation, plain.translation);
      engine.load(modelBytes('additive'));
      assert.deepEqual(engine.translate(SENTENCE).alpha, reference.alpha);
      engine.dispose();
    });
  });
}
