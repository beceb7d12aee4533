// The engine's attention overrides and beam search reproduce their PyTorch
// twins (models/train/decode.py, on the model rebuilt from the .alsc file by
// models/train/alsc_to_torch.py, so nothing git-ignored is needed): on the
// fixture sentences of every shipped model (and the test build's subword
// model and its layer-normalised twin), a pin and a ramp override give the same tokens, alpha within
// TOLERANCES (tests/support/alsc.mjs; int8 files the looser TOLERANCES.int8,
// for the engine's int16 inputs), and beams of 3, 4 and 8 give the same
// hypotheses in the same order, each with the same tokens, alpha, scores,
// candidates and log-probability. On the simd and scalar wasm builds and the
// native CLI (--force, --beam, --json). PyTorch runs once, for all models,
// through /usr/bin/python3.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { PYTHON, ROOT, TEST_MODELS, TOLERANCES, VARIANTS, createEngine, requireBuilt, runNative } from './support/alsc.mjs';

requireBuilt();

const SENTENCES = join(ROOT, 'models', 'train', 'fixture_sentences.en.txt');
const models = readdirSync(join(ROOT, 'models', 'fixtures')).filter((f) => f.endsWith('.parity.json')).sort()
  .map((f) => join(ROOT, 'models', JSON.parse(readFileSync(join(ROOT, 'models', 'fixtures', f), 'utf8')).model))
  .filter(existsSync);
for (const name of ['subwords', 'layer-norm']) if (existsSync(join(TEST_MODELS, `${name}.alsc`))) models.push(join(TEST_MODELS, `${name}.alsc`));

// The first 6 fixture sentences (short to long): every case kind on every
// model, at half the PyTorch time of all 12 (the suite's budget).
const SENTENCE_LIMIT = 6;
const run = spawnSync(PYTHON, [join(ROOT, 'models', 'train', 'decode.py'), ...models, '--sentences', SENTENCES, '--limit', String(SENTENCE_LIMIT)],
  { cwd: ROOT, encoding: 'utf8', maxBuffer: 512 << 20, env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } });
if (run.status !== 0) throw new Error(`models/train/decode.py failed: ${run.stderr}`);
const twins = JSON.parse(run.stdout);

// log p(y_t | ...) per step: an absolute error in log p is a relative error
// in p. 1e-4 per step (f32 and f16 files: the engine's exp and sums against
// PyTorch's), 2e-3 for int8 files (the int16 inputs move each logit by up to
// ~1e-3); a hypothesis's log p and score sum T steps, so T times that.
const LOG_PROB_PER_STEP = { default: 1e-4, int8: 2e-3 };
const tally = { nearTies: 0, beams: 0, candidateSwaps: 0 };

function near(label, got, want, tol, relative = false) {
  const d = Math.abs(got - want) / (relative ? Math.max(1, Math.abs(want)) : 1);
  assert.ok(d <= tol, `${label}: ${got} vs ${want} (tolerance ${tol})`);
  return d;
}

/** A trace (engine shape: see rows()) against a twin's, step by step. */
function compareTrace(label, got, want, tol, stats) {
  assert.deepEqual(got.sourceIds, want.source_ids, `${label}: source ids`);
  assert.deepEqual(got.targetIds, want.target_ids, `${label}: tokens ${JSON.stringify(got.targetIds)} vs torch ${JSON.stringify(want.target_ids)}`);
  const S = want.source_ids.length;
  want.target_ids.forEach((_, t) => {
    if (want.alpha.length) {
      for (let j = 0; j < S; j++) {
        stats.alpha = Math.max(stats.alpha, near(`${label}: alpha[${t}][${j}]`, got.alpha[t][j], want.alpha[t][j], tol.alpha));
        near(`${label}: scores[${t}][${j}]`, got.scores[t][j], want.scores[t][j], tol.scores, true);
      }
    } else {
      assert.equal(got.alpha, null, `${label}: kind none has no alpha`);
    }
    want.context_head[t].forEach((x, i) => near(`${label}: context[${t}][${i}]`, got.context[t][i], x, tol.context, true));
    // Candidates k and k+1 (or the 6th, spare_prob) whose probabilities are
    // within the tolerance of each other may come in either order.
    const wp = [...want.top[t].probs, want.top[t].spare_prob ?? -1];
    want.top[t].ids.forEach((id, k) => {
      if (got.top[t].ids[k] === id) return;
      const tie = Math.min(Math.abs(wp[k] - (wp[k + 1] ?? -1)), k > 0 ? Math.abs(wp[k] - wp[k - 1]) : Infinity);
      assert.ok(tie <= 2 * tol.probs, `${label}: top-5 ids at step ${t}: ${JSON.stringify(got.top[t].ids)} vs torch ${JSON.stringify(want.top[t].ids)} (no near tie)`);
      tally.candidateSwaps++;
    });
    want.top[t].probs.forEach((p, k) => near(`${label}: top prob ${k} at step ${t}`, got.top[t].probs[k], p, tol.probs));
  });
}

function rows(a, n, m) {
  return a ? Array.from({ length: n }, (_, t) => Array.from(a.subarray(t * m, (t + 1) * m))) : null;
}

function fromEngine(r) {
  return {
    sourceIds: r.source.map((s) => s.id), targetIds: r.target.map((t) => t.id),
    alpha: rows(r.alpha, r.T, r.S), scores: rows(r.scores, r.T, r.S), context: rows(r.context, r.T, r.contextDim),
    top: Array.from({ length: r.T }, (_, t) => ({
      ids: Array.from(r.topIds.subarray(t * r.topK, (t + 1) * r.topK)),
      probs: Array.from(r.topProbs.subarray(t * r.topK, (t + 1) * r.topK)),
    })),
    logProb: r.logProb, score: r.score, stepLogProbs: r.stepLogProbs ? Array.from(r.stepLogProbs) : undefined,
    stoppedAtEos: r.stoppedAtEos,
  };
}

function fromNative(j) {
  return {
    sourceIds: j.source_ids, targetIds: j.target_ids, alpha: j.alpha, scores: j.scores, context: j.context, top: j.top,
    logProb: j.log_prob, score: j.score, stepLogProbs: j.step_log_probs, stoppedAtEos: j.stopped_at_eos === 1,
  };
}

const overridesOf = (c) => c.overrides.map(([step, weights]) => ({ step, weights }));

function compareBeam(label, got, c, weights, stats) {
  const tol = TOLERANCES[weights] ?? TOLERANCES.default;
  const perStep = LOG_PROB_PER_STEP[weights] ?? LOG_PROB_PER_STEP.default;
  tally.beams++;
  assert.equal(got.length, c.hypotheses.length, `${label}: the number of hypotheses`);
  // A near tie (the twin's closest call, kept vs dropped candidate or two final
  // scores, within twice the log p tolerance) may be decided either way by
  // rounding; the hypotheses both found must still agree.
  const tieLimit = 2 * perStep * Math.max(...c.hypotheses.map((h) => h.target_ids.length));
  const nearTie = c.hypotheses[0].search_margin <= tieLimit;
  const key = (ids) => JSON.stringify(ids);
  if (!nearTie) {
    assert.deepEqual(got.map((h) => h.targetIds), c.hypotheses.map((h) => h.target_ids),
      `${label}: the hypotheses, in order (closest call ${c.hypotheses[0].search_margin})`);
  } else {
    tally.nearTies++;
    assert.equal(key(got[0].targetIds) === key(c.hypotheses[0].target_ids) || c.hypotheses[0].score - c.hypotheses[1].score <= tieLimit,
      true, `${label}: the best hypothesis`);
  }
  c.hypotheses.forEach((want, h) => {
    const g = nearTie ? got.find((x) => key(x.targetIds) === key(want.target_ids)) : got[h];
    if (!g) return; // decided the other way at the near tie
    compareTrace(`${label} hypothesis ${h}`, g, want, tol, stats);
    assert.equal(g.stoppedAtEos, want.stopped_at_eos, `${label} hypothesis ${h}: stopped at </s>`);
    const T = want.target_ids.length;
    stats.logProb = Math.max(stats.logProb, near(`${label} hypothesis ${h}: log p`, g.logProb, want.log_prob, perStep * T));
    near(`${label} hypothesis ${h}: score`, g.score, want.score, perStep * T);
    want.step_log_probs.forEach((x, t) => near(`${label} hypothesis ${h}: log p of step ${t}`, g.stepLogProbs[t], x, perStep));
  });
}

for (const twin of twins) {
  const name = twin.model.slice(ROOT.length + 1);
  describe(`twins ${name}`, () => {
    if (twin.error) {
      test('loads in PyTorch', () => assert.fail(`alsc_to_torch refused ${name}: ${twin.error}`));
      return;
    }
    const bytes = new Uint8Array(readFileSync(twin.model));
    const tol = TOLERANCES[twin.weights] ?? TOLERANCES.default;
    const forced = twin.cases.filter((c) => c.kind === 'forced');
    const beams = twin.cases.filter((c) => c.kind === 'beam');

    test('the cases cover what they should', () => {
      // A width-4 beam per sentence plus the extra widths on the first; a pin and a ramp per sentence.
      assert.equal(beams.length >= SENTENCE_LIMIT + 1, true, `${beams.length} beams`);
      if (twin.attention !== 'none') assert.equal(forced.length, 2 * SENTENCE_LIMIT, `${forced.length} forced cases`);
      // A pin moves the finger somewhere new: its step's alpha is one-hot.
      for (const c of forced.filter((x) => x.overrides[0][1].filter((w) => w > 0).length === 1)) {
        const [step, weights] = c.overrides[0];
        assert.deepEqual(c.result.alpha[step], weights, `${c.text}: the twin's alpha at the pinned step`);
      }
    });

    for (const variant of VARIANTS) {
      test(`${variant} wasm`, async () => {
        const engine = await createEngine({ variant });
        engine.load(bytes);
        const stats = { alpha: 0, logProb: 0 };
        for (const c of forced) {
          const r = engine.translate(c.text, { topK: 5, overrides: overridesOf(c) });
          compareTrace(`${name} ${variant} forced ${JSON.stringify(c.overrides.map(([s]) => s))} "${c.text}"`, fromEngine(r), c.result, tol, stats);
        }
        for (const c of beams) {
          const r = engine.beam(c.text, { topK: 5, beamWidth: c.width, lengthPenalty: c.length_penalty, overrides: overridesOf(c) });
          compareBeam(`${name} ${variant} beam ${c.width} "${c.text}"`, r.hypotheses.map(fromEngine), c, twin.weights, stats);
        }
        console.log(`# ${name} ${variant}: ${forced.length} forced, ${beams.length} beams, ` +
          `max |dalpha|=${stats.alpha.toExponential(2)} max |dlog p|=${stats.logProb.toExponential(2)}`);
        engine.dispose();
      });
    }

    test('native CLI --force / --beam --json', () => {
      const stats = { alpha: 0, logProb: 0 };
      const flags = (c) => c.overrides.flatMap(([step, weights]) => ['--force', `${step}:${weights.join(',')}`]);
      for (const c of forced) {
        const r = runNative(['--model', twin.model, '--beam', '1', '--json', '--top-k', '5', ...flags(c), '--', c.text]);
        assert.equal(r.status, 0, r.stderr);
        compareTrace(`${name} native forced "${c.text}"`, fromNative(JSON.parse(r.stdout)), c.result, tol, stats);
      }
      // one run per setting, its sentences together
      const groups = new Map();
      for (const c of beams) {
        const key = JSON.stringify([c.width, c.length_penalty, c.overrides]);
        groups.set(key, [...(groups.get(key) ?? []), c]);
      }
      for (const group of groups.values()) {
        const c0 = group[0];
        const r = runNative(['--model', twin.model, '--json', '--top-k', '5', '--beam', String(c0.width),
          '--length-penalty', String(c0.length_penalty), ...flags(c0), '--', ...group.map((c) => c.text)]);
        assert.equal(r.status, 0, r.stderr);
        const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
        assert.equal(lines.length, group.length);
        group.forEach((c, i) => {
          assert.equal(lines[i].beam_width, c.width);
          compareBeam(`${name} native beam ${c.width} "${c.text}"`, lines[i].hypotheses.map(fromNative), c, twin.weights, stats);
        });
      }
      console.log(`# ${name} native: max |dalpha|=${stats.alpha.toExponential(2)} max |dlog p|=${stats.logProb.toExponential(2)}`);
    });
  });
}

test('near ties', () => {
  console.log(`# ${tally.beams} beams compared, ${tally.nearTies} with a near tie (the closest call within twice the ` +
    `log p tolerance); ${tally.candidateSwaps} candidate pairs within the tolerance came in the other order`);
});
