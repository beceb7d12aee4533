// The C engine reproduces PyTorch: same source ids, same greedy output, alpha
// within 1e-4, raw scores within 1e-3 (relative to the row's largest |score|, at
// least 1: every score in a row is the same product with the decoder state, so its
// rounding error scales with the row), context within 1e-4 (relative to
// max(1,|x|)), same top-5 candidates with probabilities within 1e-4. Checked
// on the simd and scalar wasm builds and the native CLI (--json); int8 files
// within the looser TOLERANCES.int8 (tests/support/alsc.mjs, with why).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { beforeEach, describe, test } from 'node:test';

import { TOLERANCES, VARIANTS, alphaRowTolerance, contextTolerance, createEngine, fixtureFiles, requireBuilt, runNative, softmaxRow } from './support/alsc.mjs';

requireBuilt();
let TOL = TOLERANCES.default;
const worst = {}; // build -> max |alpha - alpha_torch|

function compareCase(label, want, got, stats) {
  assert.deepEqual(got.sourceIds, want.source_ids, `${label}: source ids`);
  // A subword model's fixture also has each piece's word and the display text
  // that models/train/subword.py makes of the pieces (FORMAT.md 5.2).
  if (want.translation !== undefined) {
    assert.equal(got.translation, want.translation, `${label}: display text`);
    assert.deepEqual(got.sourceWords, want.source_words, `${label}: source words`);
    assert.deepEqual(got.targetWords.slice(0, want.target_words.length), want.target_words, `${label}: target words`);
  }
  assert.deepEqual(got.targetIds, want.target_ids,
    `${label}: greedy output ${JSON.stringify(got.targetIds)} vs torch ${JSON.stringify(want.target_ids)} (${want.target_tokens.join(' ')})`);
  const T = want.target_ids.length, S = want.source_ids.length;
  for (let t = 0; t < T; t++) {
    if (want.alpha.length) {
      // The engine's α is the softmax of its own scores; against PyTorch it may
      // differ as far as the two score rows' difference explains (alsc.mjs).
      const own = softmaxRow(got.scores[t], want.score_scale);
      const bound = alphaRowTolerance(TOL.alpha, want.alpha[t], want.scores[t], got.scores[t], want.score_scale);
      const rowScale = Math.max(1, ...want.scores[t].map(Math.abs));
      for (let j = 0; j < S; j++) {
        assert.ok(Math.abs(got.alpha[t][j] - own[j]) <= 1e-5, `${label}: alpha[${t}][${j}] ${got.alpha[t][j]} is not the softmax of the engine's scores (${own[j]})`);
        const da = Math.abs(got.alpha[t][j] - want.alpha[t][j]);
        stats.alpha = Math.max(stats.alpha, da);
        assert.ok(da <= bound[j], `${label}: alpha[${t}][${j}] ${got.alpha[t][j]} vs ${want.alpha[t][j]} (allowed ${bound[j].toExponential(2)})`);
        const x = want.scores[t][j];
        const ds = Math.abs(got.scores[t][j] - x) / rowScale;
        stats.scores = Math.max(stats.scores, ds);
        assert.ok(ds <= TOL.scores, `${label}: scores[${t}][${j}] ${got.scores[t][j]} vs ${x} (row's largest |score| ${rowScale.toFixed(2)})`);
      }
    } else {
      assert.equal(got.alpha, null, `${label}: kind none has no alpha`);
    }
    // A context component may differ as far as the row's α difference explains (alsc.mjs).
    const contextBound = want.alpha.length ? contextTolerance(TOL.context, want.alpha[t], got.alpha[t]) : TOL.context;
    want.context_head[t].forEach((x, i) => {
      const dc = Math.abs(got.context[t][i] - x) / Math.max(1, Math.abs(x));
      stats.context = Math.max(stats.context, dc);
      assert.ok(dc <= contextBound, `${label}: context[${t}][${i}] ${got.context[t][i]} vs ${x} (allowed ${contextBound.toExponential(2)})`);
    });
    assert.deepEqual(got.top[t].ids, want.top[t].ids, `${label}: top-5 ids at step ${t}`);
    want.top[t].probs.forEach((p, k) => {
      const dp = Math.abs(got.top[t].probs[k] - p);
      stats.probs = Math.max(stats.probs, dp);
      assert.ok(dp <= TOL.probs, `${label}: top prob ${k} at step ${t}: ${got.top[t].probs[k]} vs ${p}`);
    });
  }
}

// engine.translate() result -> the comparable shape
function fromEngine(r) {
  const rows = (a, n, m) => (a ? Array.from({ length: n }, (_, t) => Array.from(a.subarray(t * m, (t + 1) * m))) : null);
  return {
    sourceIds: r.source.map((s) => s.id), targetIds: r.target.map((t) => t.id), translation: r.translation,
    sourceWords: r.source.map((s) => s.word), targetWords: r.target.map((t) => t.word),
    alpha: rows(r.alpha, r.T, r.S), scores: rows(r.scores, r.T, r.S), context: rows(r.context, r.T, r.contextDim),
    top: Array.from({ length: r.T }, (_, t) => ({
      ids: Array.from(r.topIds.subarray(t * r.topK, (t + 1) * r.topK)),
      probs: Array.from(r.topProbs.subarray(t * r.topK, (t + 1) * r.topK)),
    })),
  };
}

// CLI --json line -> the comparable shape
function fromNative(j) {
  return {
    sourceIds: j.source_ids, targetIds: j.target_ids, alpha: j.alpha, scores: j.scores, context: j.context, top: j.top,
    translation: j.translation, sourceWords: j.source_words, targetWords: j.target_words,
  };
}

for (const { name, fixture, model } of fixtureFiles()) {
  describe(`parity ${name}`, () => {
    const present = existsSync(fixture) && existsSync(model);
    if (!present) {
      test(`skipped: ${existsSync(fixture) ? model : fixture} not present`, { skip: `${model} not present (the real model appears after training)` }, () => {});
      return;
    }
    const fx = JSON.parse(readFileSync(fixture, 'utf8'));
    const bytes = new Uint8Array(readFileSync(model));
    const tolerance = TOLERANCES[fx.weights] ?? TOLERANCES.default;
    beforeEach(() => { TOL = tolerance; });

    for (const variant of VARIANTS) {
      test(`${variant} wasm`, async () => {
        const engine = await createEngine({ variant });
        const info = engine.load(bytes);
        assert.equal(info.attention, fx.attention);
        assert.ok(Math.abs(info.trainedScoreScale - fx.trained_score_scale) < 1e-6);
        const stats = { alpha: 0, scores: 0, context: 0, probs: 0 };
        fx.cases.forEach((c, i) => {
          const r = engine.translate(c.text, { scoreScale: c.score_scale, topK: 5 });
          compareCase(`${name} ${variant} case ${i} "${c.text}" scale ${c.score_scale}`, c, fromEngine(r), stats);
        });
        worst[`${variant}`] = Math.max(worst[variant] ?? 0, stats.alpha);
        console.log(`# ${name} ${variant}: ${fx.cases.length} cases, max |dalpha|=${stats.alpha.toExponential(2)} ` +
          `max dscore=${stats.scores.toExponential(2)} max dcontext=${stats.context.toExponential(2)} max dprob=${stats.probs.toExponential(2)}`);
        engine.dispose();
      });
    }

    test('native CLI --json', () => {
      const stats = { alpha: 0, scores: 0, context: 0, probs: 0 };
      const scales = [...new Set(fx.cases.map((c) => c.score_scale))];
      for (const scale of scales) {
        const cases = fx.cases.filter((c) => c.score_scale === scale);
        const r = runNative(['--model', model, '--beam', '1', '--json', '--top-k', '5', '--scale', String(scale), '--', ...cases.map((c) => c.text)]);
        assert.equal(r.status, 0, r.stderr);
        const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
        assert.equal(lines.length, cases.length);
        cases.forEach((c, i) => compareCase(`${name} native "${c.text}" scale ${scale}`, c, fromNative(lines[i]), stats));
      }
      worst.native = Math.max(worst.native ?? 0, stats.alpha);
      // --no-context (models/train/report.py's reading) drops only the context vectors.
      const some = fx.cases.filter((c) => c.score_scale === scales[0]).slice(0, 3).map((c) => c.text);
      const full = runNative(['--model', model, '--beam', '1', '--json', '--top-k', '0', '--scale', String(scales[0]), '--', ...some]);
      const lean = runNative(['--model', model, '--beam', '1', '--json', '--no-context', '--top-k', '0', '--scale', String(scales[0]), '--', ...some]);
      assert.equal(lean.status, 0, lean.stderr);
      const [fullLines, leanLines] = [full, lean].map((r) => r.stdout.trim().split('\n').map((l) => JSON.parse(l)));
      assert.equal(leanLines.length, some.length);
      leanLines.forEach((l, i) => {
        assert.equal(l.context, null);
        assert.ok(Array.isArray(fullLines[i].context) && fullLines[i].context.length === fullLines[i].target.length);
        assert.deepEqual({ ...l, context: undefined }, { ...fullLines[i], context: undefined });
      });
      console.log(`# ${name} native: ${fx.cases.length} cases, max |dalpha|=${stats.alpha.toExponential(2)} ` +
        `max dscore=${stats.scores.toExponential(2)} max dcontext=${stats.context.toExponential(2)} max dprob=${stats.probs.toExponential(2)}`);
    });
  });
}

test('parity summary', () => {
  console.log(`# max |alpha - alpha_torch| per build: ${JSON.stringify(Object.fromEntries(Object.entries(worst).map(([k, v]) => [k, v.toExponential(2)])))}`);
});
