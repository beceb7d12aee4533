// Beam search and attention overrides in the engine itself (their PyTorch
// parity is tests/twins.test.mjs): beam width 1 is the greedy result bit for
// bit on every model's fixture sentences (simd, scalar, native CLI); a beam
// returns k distinct hypotheses ranked by log p / T^penalty, each with its
// own full trace; an override replaces alpha at its step exactly, leaves the
// steps before it untouched and is renormalised; and every bad argument gets
// its own clear error, after which the engine translates as before.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../web/engine.js';
import { AlignscopeError, ROOT, TEST_MODELS, VARIANTS, createEngine, fixtureFiles, modelBytes, requireBuilt, runNative } from './support/alsc.mjs';

requireBuilt();

const ARRAYS = ['alpha', 'scores', 'context', 'state', 'topIds', 'topProbs'];

function sameBits(label, a, b) {
  if (a === null || b === null) return assert.equal(a, b, label);
  assert.equal(a.length, b.length, `${label}: length`);
  assert.ok(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
    `${label}: not bit for bit the same`);
}

describe('beam width 1 is greedy, bit for bit', () => {
  for (const { name, fixture, model } of fixtureFiles()) {
    if (!existsSync(fixture) || !existsSync(model)) continue;
    const cases = JSON.parse(readFileSync(fixture, 'utf8')).cases;
    const bytes = new Uint8Array(readFileSync(model));
    for (const variant of VARIANTS) {
      test(`${name} ${variant}`, async () => {
        const engine = await createEngine({ variant });
        engine.load(bytes);
        for (const c of cases) {
          const label = `${name} ${variant} "${c.text}" scale ${c.score_scale}`;
          const greedy = engine.translate(c.text, { scoreScale: c.score_scale, topK: 5 });
          const beam = engine.beam(c.text, { scoreScale: c.score_scale, topK: 5, beamWidth: 1 });
          assert.equal(beam.hypotheses.length, 1, label);
          const h = beam.hypotheses[0];
          assert.equal(h.translation, greedy.translation, label);
          assert.deepEqual(h.target.map((x) => x.id), greedy.target.map((x) => x.id), label);
          assert.equal(h.stoppedAtEos, greedy.stoppedAtEos, label);
          for (const key of ARRAYS) sameBits(`${label}: ${key}`, h[key], greedy[key]);
          // log p of each step is the log of the emitted token's probability
          let sum = 0;
          for (let t = 0; t < h.T; t++) {
            assert.ok(Math.abs(h.stepLogProbs[t] - Math.log(greedy.topProbs[t * 5])) < 1e-4, `${label}: log p of step ${t}`);
            sum += h.stepLogProbs[t];
          }
          assert.ok(Math.abs(sum - h.logProb) < 1e-4 * h.T, `${label}: log p is the sum of the steps'`);
          assert.ok(Math.abs(h.score - h.logProb / h.T) < 1e-5 * Math.max(1, Math.abs(h.score)), `${label}: score`);
        }
        engine.dispose();
      });
    }
    test(`${name} native CLI: the default is the beam's best, --beam 1 is greedy`, async () => {
      const engine = await createEngine({ variant: 'simd' }); // the native CLI runs the same SIMD twin
      engine.load(bytes);
      const scales = [...new Set(cases.map((c) => c.score_scale))];
      for (const scale of scales) {
        const texts = cases.filter((c) => c.score_scale === scale).map((c) => c.text);
        const args = ['--model', model, '--json', '--top-k', '5', '--scale', String(scale)];
        const lines = (r) => { assert.equal(r.status, 0, r.stderr); return r.stdout.trim().split('\n').map((l) => JSON.parse(l)); };
        const byDefault = lines(runNative([...args, '--', ...texts]));
        const all = lines(runNative([...args, '--beam', String(DEFAULT_BEAM_WIDTH), '--', ...texts]));
        const greedy = lines(runNative([...args, '--beam', '1', '--', ...texts]));
        texts.forEach((text, i) => {
          const label = `${name} native "${text}" scale ${scale}`;
          // the default: a beam of DEFAULT_BEAM_WIDTH, its best hypothesis as one translation
          const { beam_width: width, length_penalty: lp, ...best } = byDefault[i];
          assert.equal(width, DEFAULT_BEAM_WIDTH, label);
          assert.equal(lp, DEFAULT_LENGTH_PENALTY, label);
          const { step_log_probs: steps, ...first } = all[i].hypotheses[0];
          assert.equal(steps.length, first.target_ids.length, label);
          assert.deepEqual(best, first, `${label}: default vs --beam ${DEFAULT_BEAM_WIDTH}'s #1`); // the same printed digits
          // --beam 1: greedy decoding (as_translate), printed as one translation
          const g = greedy[i];
          assert.equal(g.hypotheses, undefined, label);
          assert.equal(g.beam_width, undefined, label);
          const want = engine.translate(text, { scoreScale: scale, topK: 5 });
          assert.deepEqual(g.target_ids, want.target.map((x) => x.id), label);
          assert.equal(g.translation, want.translation, label);
          g.alpha?.flat().forEach((a, k) => assert.equal(Math.fround(a), want.alpha[k], `${label}: alpha ${k}`));
        });
      }
      engine.dispose();
    });
  }
});

describe('beam search', () => {
  const SENTENCE = 'Save the document before closing?';
  test('k hypotheses, distinct, best score first, each with its own trace', async () => {
    const engine = await createEngine({ variant: 'simd' });
    engine.load(new Uint8Array(readFileSync(join(ROOT, 'models', 'en-fr.alsc'))));
    for (let k = 1; k <= 8; k++) {
      for (const lengthPenalty of [0, 0.6, 1, 2]) {
        const { hypotheses } = engine.beam(SENTENCE, { beamWidth: k, lengthPenalty });
        assert.equal(hypotheses.length, k, `k=${k}`);
        const keys = new Set(hypotheses.map((h) => h.target.map((x) => x.id).join(' ')));
        assert.equal(keys.size, k, `k=${k}: distinct hypotheses`);
        hypotheses.forEach((h, i) => {
          const want = lengthPenalty === 0 ? h.logProb : h.logProb / h.T ** lengthPenalty;
          assert.ok(Math.abs(h.score - want) < 1e-5 * Math.max(1, Math.abs(want)), `k=${k} score ${i}`);
          if (i > 0) assert.ok(hypotheses[i - 1].score >= h.score, `k=${k}: ranked by score`);
          assert.equal(h.alpha.length, h.T * h.S);
          assert.equal(h.stepLogProbs.length, h.T);
          for (let t = 0; t < h.T; t++) {
            const row = h.alpha.subarray(t * h.S, (t + 1) * h.S);
            assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5, `k=${k} hyp ${i} step ${t}: alpha sums to 1`);
          }
          assert.equal(h.stoppedAtEos, h.target[h.T - 1].isEnd);
        });
      }
    }
    // Hypotheses that share a prefix share its steps' alpha: a step depends on the prefix only.
    const { hypotheses } = engine.beam(SENTENCE, { beamWidth: 8 });
    for (const a of hypotheses) {
      for (const b of hypotheses) {
        let shared = 0;
        while (shared < Math.min(a.T, b.T) && a.target[shared].id === b.target[shared].id) shared++;
        // steps 0..shared are computed from the same prefix (step shared from y_<shared)
        const rows = Math.min(shared + 1, a.T, b.T);
        sameBits('shared prefix', a.alpha.subarray(0, rows * a.S), b.alpha.subarray(0, rows * b.S));
      }
    }
    engine.dispose();
  });

  test('the heap returns to the same size after many beams (no leak)', async () => {
    const engine = await createEngine({ variant: 'scalar' });
    engine.load(modelBytes('additive'));
    // Buffers grow to the largest call (each hypothesis's display text to the
    // longest it held): one round of every width first, then no growth.
    const round = () => {
      for (let i = 0; i < 16; i++) {
        engine.beam('open the file', { beamWidth: 1 + (i % 8), overrides: [{ step: 0, weights: [1, 2, 3] }] });
        engine.translate('open the file', { overrides: [{ step: 1, weights: [0, 0, 1] }] });
      }
    };
    round();
    const before = engine.heapBytes();
    for (let r = 0; r < 10; r++) round();
    assert.equal(engine.heapBytes(), before);
    engine.dispose();
  });
});

describe('attention overrides', () => {
  for (const variant of VARIANTS) {
    test(`${variant}: alpha replaced at its step, the steps before untouched, renormalised`, async () => {
      const engine = await createEngine({ variant });
      engine.load(new Uint8Array(readFileSync(join(ROOT, 'models', 'en-fr.alsc'))));
      const text = 'Show the preferences dialog';
      const greedy = engine.translate(text);
      const S = greedy.S;
      for (let step = 0; step < greedy.T; step++) {
        for (let j = 0; j < S; j++) {
          const oneHot = Array.from({ length: S }, (_, i) => (i === j ? 1 : 0));
          const r = engine.translate(text, { overrides: [{ step, weights: oneHot }] });
          assert.deepEqual(Array.from(r.alpha.subarray(step * S, (step + 1) * S)), oneHot, `step ${step} token ${j}`);
          // the steps before are the greedy ones, bit for bit, and so are the raw scores at the step
          sameBits('before', r.alpha.subarray(0, step * S), greedy.alpha.subarray(0, step * S));
          sameBits('scores', r.scores.subarray(0, (step + 1) * S), greedy.scores.subarray(0, (step + 1) * S));
          assert.deepEqual(r.target.slice(0, step).map((x) => x.id), greedy.target.slice(0, step).map((x) => x.id));
          // weights are divided by their sum: 7 * one-hot is the same override
          const scaled = engine.translate(text, { overrides: [{ step, weights: oneHot.map((w) => 7 * w) }] });
          for (const key of ARRAYS) sameBits(`scaled ${key}`, scaled[key], r[key]);
        }
      }
      const ramp = Array.from({ length: S }, (_, j) => j + 1);
      const r = engine.translate(text, { overrides: [{ step: 0, weights: ramp }] });
      const sum = ramp.reduce((a, b) => a + b, 0);
      Array.from(r.alpha.subarray(0, S)).forEach((a, j) => assert.ok(Math.abs(a - ramp[j] / sum) < 1e-7));
      // several overrides at once
      const two = engine.translate(text, { overrides: [{ step: 0, weights: ramp }, { step: 1, weights: ramp.slice().reverse() }] });
      assert.ok(Math.abs(two.alpha[S] - S / sum) < 1e-7);
      sameBits('first step', two.alpha.subarray(0, S), r.alpha.subarray(0, S));
      engine.dispose();
    });
  }
});

describe('bad arguments: a clear error, and the engine as before', () => {
  const REFERENCE = 'open the file';
  for (const variant of VARIANTS) {
    test(variant, async () => {
      const engine = await createEngine({ variant });
      engine.load(modelBytes('additive'));
      const reference = engine.translate(REFERENCE);
      const S = reference.S, T = reference.T;
      const good = Array.from({ length: S }, () => 1);
      const bad = [
        ['weights one short', { overrides: [{ step: 0, weights: good.slice(1) }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /one weight per source token/],
        ['weights one too many', { overrides: [{ step: 0, weights: [...good, 1] }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /length S/],
        ['no weights', { overrides: [{ step: 0, weights: [] }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /one weight per source token/],
        ['NaN', { overrides: [{ step: 0, weights: [NaN, ...good.slice(1)] }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /finite/],
        ['infinity', { overrides: [{ step: 0, weights: [Infinity, ...good.slice(1)] }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /finite/],
        ['a number beyond f32', { overrides: [{ step: 0, weights: [1e39, ...good.slice(1)] }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /finite/],
        ['negative', { overrides: [{ step: 0, weights: [-0.5, ...good.slice(1)] }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /at least 0/],
        ['all zero', { overrides: [{ step: 0, weights: good.map(() => 0) }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /not all zero/],
        ['a text for a weight', { overrides: [{ step: 0, weights: ['x', ...good.slice(1)] }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /finite/],
        ['two at one step', { overrides: [{ step: 1, weights: good }, { step: 1, weights: good }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /one override per step/],
        ['step -1', { overrides: [{ step: -1, weights: good }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /alpha rows/],
        ['step 1.5', { overrides: [{ step: 1.5, weights: good }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /alpha rows/],
        ['step T (after </s>)', { overrides: [{ step: T, weights: good }] }, 'AS_ERR_OVERRIDE_STEP', /does not reach/],
        ['step 10000', { overrides: [{ step: 10000, weights: good }] }, 'AS_ERR_OVERRIDE_STEP', /below its number of target tokens/],
        ['step beyond, after a good one', { overrides: [{ step: 0, weights: good }, { step: T + 3, weights: good }] }, 'AS_ERR_OVERRIDE_STEP', /does not reach/],
      ];
      const beamBad = [
        ['beam width 0', { beamWidth: 0 }, 'AS_ERR_BAD_BEAM_WIDTH', /from 1 to 8/],
        ['beam width 9', { beamWidth: 9 }, 'AS_ERR_BAD_BEAM_WIDTH', /from 1 to 8/],
        ['beam width 1000', { beamWidth: 1000 }, 'AS_ERR_BAD_BEAM_WIDTH', /from 1 to 8/],
        ['beam width -1', { beamWidth: -1 }, 'AS_ERR_BAD_BEAM_WIDTH', /from 1 to 8/],
        ['beam width 2.5', { beamWidth: 2.5 }, 'AS_ERR_BAD_BEAM_WIDTH', /whole number/],
        ['beam width "4"', { beamWidth: '4' }, 'AS_ERR_BAD_BEAM_WIDTH', /whole number/],
        ['length penalty -1', { lengthPenalty: -1 }, 'AS_ERR_BAD_OPTION', /length penalty: 0 to 4/],
        ['length penalty NaN', { lengthPenalty: NaN }, 'AS_ERR_BAD_OPTION', /length penalty: 0 to 4/],
        ['length penalty 5', { lengthPenalty: 5 }, 'AS_ERR_BAD_OPTION', /length penalty: 0 to 4/],
        ['beam with an override beyond', { beamWidth: 4, overrides: [{ step: 10000, weights: good }] }, 'AS_ERR_OVERRIDE_STEP', /does not reach/],
        ['beam with NaN weights', { beamWidth: 4, overrides: [{ step: 0, weights: good.map(() => NaN) }] }, 'AS_ERR_BAD_ATTENTION_OVERRIDE', /finite/],
      ];
      const check = (label, call, code, message) => {
        assert.throws(call, (e) => {
          assert.ok(e instanceof AlignscopeError, `${label}: ${e}`);
          assert.equal(e.code, code, `${label}: ${e.message}`);
          assert.match(e.message, message, label);
          return true;
        }, label);
        const after = engine.translate(REFERENCE);
        assert.equal(after.translation, reference.translation, `${label}: the engine changed`);
        sameBits(`${label}: alpha after`, after.alpha, reference.alpha);
        assert.equal(engine.beam(REFERENCE, { beamWidth: 2 }).hypotheses.length, 2, `${label}: beams after`);
      };
      for (const [label, options, code, message] of bad) {
        check(`translate: ${label}`, () => engine.translate(REFERENCE, options), code, message);
        // a longer hypothesis of the beam may reach the step greedy decoding does not
        if (!label.startsWith('step T') && !label.startsWith('step beyond')) {
          check(`beam: ${label}`, () => engine.beam(REFERENCE, { beamWidth: 3, ...options }), code, message);
        }
      }
      for (const [label, options, code, message] of beamBad) check(label, () => engine.beam(REFERENCE, options), code, message);
      assert.throws(() => engine.translate(REFERENCE, { overrides: { step: 0 } }), TypeError);
      assert.throws(() => engine.translate(REFERENCE, { overrides: [{ step: 0 }] }), /needs \{ step, weights \}/);
      engine.dispose();
    });
  }

  test('a model without attention has no weights to force', async () => {
    const engine = await createEngine({ variant: 'simd' });
    engine.load(modelBytes('none'));
    const reference = engine.translate(REFERENCE);
    assert.throws(() => engine.translate(REFERENCE, { overrides: [{ step: 0, weights: Array(reference.S).fill(1) }] }),
      (e) => e.code === 'AS_ERR_BAD_ATTENTION_OVERRIDE' && /without attention/.test(e.message));
    assert.equal(engine.translate(REFERENCE).translation, reference.translation);
    assert.equal(engine.beam(REFERENCE, { beamWidth: 3 }).hypotheses.length, 3);
    engine.dispose();
  });

  test('native CLI: the library\'s message, exit status 1 (2, naming the flag, for a value out of its range)', () => {
    const model = join(TEST_MODELS, 'additive.alsc');
    const cases = [
      [['--beam', '0'], 2, /--beam needs a whole number from 1 to 8 \(got "0"\)/],
      [['--beam', '9'], 2, /--beam needs a whole number from 1 to 8/],
      [['--beam', '1000'], 2, /--beam needs a whole number from 1 to 8/],
      [['--beam', 'many'], 2, /--beam needs a whole number/],
      [['--force', '0:1,nan,1'], 2, /--force needs STEP:W0,W1,... with each W a number at least 0 \(weight 1 of/],
      [['--force', '0:1,1'], 1, /one weight per source token.*\(--force \/ --pin\)/],
      [['--force', '0:0,0,0'], 1, /not all zero/],
      [['--force', '0:-1,1,1'], 2, /--force needs .* each W a number at least 0 \(weight 0 of/],
      [['--force', '500:1,1,1'], 1, /does not reach.*\(--force \/ --pin\)/],
      [['--force', 'x:1'], 2, /--force needs STEP:W0,W1/],
      [['--pin', '0:7'], 1, /--pin 0:7: the sentence has source tokens 0\.\.2/],
      [['--length-penalty', '9', '--beam', '2'], 2, /--length-penalty needs a number from 0 to 4 \(got "9"\)/],
    ];
    for (const [flags, status, message] of cases) {
      const r = runNative(['--model', model, ...flags, 'open the file']);
      assert.equal(r.status, status, `${flags.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, flags.join(' '));
      if (status === 2) assert.equal(r.stdout, '', `${flags.join(' ')}: printed output`);
    }
  });
});
