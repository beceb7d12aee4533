// The bench's statistics on made-up samples: paired-by-round ratios recover
// a constant speed ratio when the host drifts, and report a disturbance
// that hit one backend's turn as spread, not as a shifted median.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { decoderStepMacs, encoderWeights, median, pairedRatios, quantile, summarise } from './stats.mjs';

const close = (a, b, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test('median and quantile', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  close(quantile([1, 2, 3, 4, 5], 0.25), 2);
  close(quantile([10, 0], 0.75), 7.5);
});

/** Samples of one backend: `speed` ms per step, host slowed by `drift[round]`. */
function backend(speed, drift, { steps = [4, 10], encoder = 1, reps = 3, jitter = 0 } = {}) {
  const out = [];
  drift.forEach((slow, round) => {
    for (let r = 0; r < reps; r++) {
      steps.forEach((n, i) => {
        const noise = 1 + jitter * Math.sin(7 * round + 3 * r + i);
        const decode = n * speed * slow * noise;
        out.push({ round, i, steps: n, decode_ms: decode, whole_ms: decode + encoder * speed * slow * noise });
      });
    }
  });
  return out;
}

test('paired ratios give the true ratio when the host drifts', () => {
  // Rounds alternate between a fast and a 2x slower host; "ours" is 1.8x
  // faster than "ref" in every round.
  const drift = [1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1];
  const ours = backend(1, drift), ref = backend(1.8, drift);
  const p = pairedRatios(ours, ref, 2);
  close(p.step.median, 1.8, 1e-9);
  close(p.step.q1, 1.8, 1e-9);
  close(p.step.q3, 1.8, 1e-9);
  assert.equal(p.step.rounds, drift.length);
  close(p.wholeMin, 1.8, 1e-9);
  close(p.wholeGeomean, 1.8, 1e-9);
  assert.equal(p.perSentenceWhole.length, 2);
});

test('a disturbance in one backend\'s turn moves its rounds only', () => {
  // In 3 of 11 rounds something else ran during ref's turn (2x slower):
  // those rounds' ratios are 3.6, the median stays 1.8, the spread shows it.
  const drift = Array(11).fill(1);
  const ours = backend(1, drift), ref = backend(1.8, drift);
  ref.filter((s) => [2, 5, 8].includes(s.round)).forEach((s) => { s.decode_ms *= 2; s.whole_ms *= 2; });
  const p = pairedRatios(ours, ref, 2);
  close(p.step.median, 1.8, 1e-9);
  close(p.step.q1, 1.8, 1e-9);
  close(p.step.q3, 2.7, 1e-9);
  close(p.wholeMin, 1.8, 1e-9);
});

test('the worst sentence is the one with the lowest median ratio', () => {
  const drift = [1, 1, 1, 1, 1];
  // ref's encoder is cheap: the short sentence (4 steps) gains less
  const ours = backend(1, drift, { encoder: 4 }), ref = backend(2, drift, { encoder: 1 });
  const p = pairedRatios(ours, ref, 2);
  assert.equal(p.wholeMinSentence, 0);
  close(p.wholeMin, (4 * 2 + 2) / (4 + 4), 1e-9);
  close(p.perSentenceWhole[1].median, (10 * 2 + 2) / (10 + 4), 1e-9);
  close(p.step.median, 2, 1e-9);
});

test('rounds only one backend has are left out', () => {
  const ours = backend(1, [1, 1, 1]), ref = backend(2, [1, 1, 1]).filter((s) => s.round !== 1);
  assert.equal(pairedRatios(ours, ref, 2).step.rounds, 2);
});

test('summarise: per-sentence min and median, pooled step', () => {
  const s = summarise(backend(1, [1, 1.5, 2], { jitter: 0 }), ['a b', 'c d e']);
  assert.equal(s.sentences.length, 2);
  assert.equal(s.sentences[0].samples, 9);
  close(s.sentences[0].stepMinMs, 1);
  close(s.sentences[1].stepMedianMs, 1.5);
  close(s.stepMedianMs, 1.5);
  assert.equal(s.sentences[1].words, 3);
});

test('decoderStepMacs: the en-fr geometry', () => {
  const info = { attention: 'additive', decoderHidden: 256, embedDim: 128, contextDim: 512, attentionDim: 256, outputDim: 256, tgtVocabSize: 8000, architecture: { directOutput: false } };
  // query 256*256, GRU input 768*128, recurrent 768*256, deep output 256*384, projection 8000*256
  assert.equal(decoderStepMacs(info), 65536 + 98304 + 196608 + 98304 + 2048000);
  assert.equal(decoderStepMacs({ ...info, attention: 'dot' }), 98304 + 196608 + 98304 + 2048000);
  assert.equal(decoderStepMacs({ ...info, architecture: { directOutput: true } }), 65536 + 98304 + 196608 + 8000 * 256);
});

test('encoderWeights: the en-fr geometry', () => {
  const info = { attention: 'additive', encoderHidden: 256, decoderHidden: 256, embedDim: 128, contextDim: 512, keyDim: 256, outputDim: 256, architecture: {} };
  assert.deepEqual(encoderWeights(info), { encoder: 2 * 768 * 384 + 256 * 256 + 256 * 512, contextColumns: (768 + 256) * 512 });
  assert.equal(encoderWeights({ ...info, attention: 'dot' }).encoder, 2 * 768 * 384 + 256 * 256);
  assert.deepEqual(encoderWeights({ ...info, architecture: { unidirectional: true, initFromEncoder: true, directOutput: true } }),
    { encoder: 768 * 384 + 256 * 512, contextColumns: 768 * 512 });
});
