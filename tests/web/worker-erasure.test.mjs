// The engine worker's erasure map (web/worker.js 'erasure', lib/erasure.js),
// in Node with the worker's module run in this thread (self = globalThis,
// as tests/web/worker-download.test.mjs does), on the shipped models of
// every attention kind and the no-attention model (scalar build):
//   - each column of the map equals, step by step and bit for bit, the
//     drop computed here from engine.forceScore with a mask built by hand
//     (attention) or the source with the word deleted (no attention), at the
//     trace's own score scale; at word level for a subword model (a word's
//     pieces masked together) and at piece level;
//   - the unmasked score is the greedy trace's own log-probabilities;
//   - asked again, the answer comes from the cache with the same numbers; a
//     model load empties the cache;
//   - a target id outside the vocabulary is refused with the engine's code.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/engine.js';
import { figureMatrix } from '../../web/lib/figure.js';
import { groupPairs } from '../../web/lib/erasure.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WASM = path.join(REPO, 'web', 'gen', 'alignscope-scalar.wasm');
const MODELS = { additive: 'en-fr-additive', dot: 'en-fr-dot', general: 'en-fr-general', scaled_dot: 'en-fr-scaled_dot', none: 'en-fr-none' };
// "Reconfigure" and "shortcuts" are several pieces to the subword models, in and out.
const SENTENCE = 'Reconfigure the keyboard shortcuts.';
const skip = !fs.existsSync(WASM) ? 'web/gen not built (./build.sh wasm)' : false;

let engine;
let waiters = [];
let loadId = 0;

before(async () => {
  if (skip) return;
  const wasmBytes = fs.readFileSync(WASM);
  engine = await createEngine({ variant: 'scalar', wasmBytes });
  globalThis.self = globalThis;
  globalThis.postMessage = (msg) => { waiters = waiters.filter((w) => !(w.until(msg) && (w.resolve(msg), true))); };
  await import('../../web/worker.js');
  await send({ type: 'init', variant: 'scalar', wasmBytes: wasmBytes.buffer.slice(0) }, (m) => m.type === 'ready' || m.type === 'error');
});

function send(msg, until) {
  const p = new Promise((resolve) => waiters.push({ until, resolve }));
  globalThis.onmessage({ data: msg });
  return p;
}
const byId = (id) => (m) => m.id === id;
let nextId = 1;

async function load(model) {
  const bytes = new Uint8Array(fs.readFileSync(path.join(REPO, 'models', `${model}.alsc`)));
  engine.load(bytes);
  const id = ++loadId;
  const m = await send({ type: 'load', modelId: model, loadId: id, bytes: bytes.slice().buffer }, (x) => x.loadId === id && (x.type === 'loaded' || x.type === 'error'));
  assert.equal(m.type, 'loaded', JSON.stringify(m));
}

/** The worker's erasure of `trace` at the matrix's columns. */
function ask(trace, groups, extra = {}) {
  const id = nextId++;
  return send({
    type: 'erasure', id, sourceIds: trace.source.filter((p) => !p.isEnd).map((p) => p.id), targetIds: trace.target.map((p) => p.id),
    scoreScale: trace.scoreScale, groups: groupPairs(groups), ...extra,
  }, byId(id));
}

for (const [kind, model] of Object.entries(MODELS)) {
  test(`${model}: every column is forceScore with the word removed by hand, at word and piece level`, { skip }, async () => {
    await load(model);
    const info = engine.info;
    const trace = engine.translate(SENTENCE);
    const sourceIds = Int32Array.from(trace.source.filter((p) => !p.isEnd), (p) => p.id);
    const targetIds = Int32Array.from(trace.target, (p) => p.id);
    const base = engine.forceScore(sourceIds, targetIds, { scoreScale: trace.scoreScale }).logProbs;
    // The unmasked forced score of the greedy output is the greedy decode's own (src/alignscope.h).
    const greedy = engine.beam(SENTENCE, { beamWidth: 1 }).hypotheses[0].stepLogProbs;
    assert.deepEqual(Array.from(base), Array.from(greedy), 'forced = greedy, bit for bit');
    const levels = [false, true].map((pieces) => figureMatrix(trace, info, pieces));
    if (kind === 'additive') assert.ok(levels[0].S < levels[1].S, 'the subword model has a word of several pieces here');
    for (const m of levels) {
      const r = await ask(trace, m.colGroups);
      assert.equal(r.type, 'erasure-result', JSON.stringify(r));
      assert.equal(r.method, kind === 'none' ? 'delete' : 'mask');
      assert.equal(r.T, trace.T);
      assert.equal(r.G, m.S);
      assert.deepEqual(Array.from(r.base), Array.from(base));
      m.colGroups.forEach((g, c) => {
        let lp = null;
        if (kind !== 'none') {
          // The mask by hand: positions first … first+count−1 dropped at every step.
          const keep = [];
          for (let t = 0; t < trace.T; t++) for (let j = 0; j < trace.S; j++) keep.push(j >= g.first && j < g.first + g.count ? 0 : 1);
          lp = engine.forceScore(sourceIds, targetIds, { keep, scoreScale: trace.scoreScale }).logProbs;
        } else if (g.first < sourceIds.length) {
          const rest = [...sourceIds].filter((_, j) => j < g.first || j >= g.first + g.count);
          lp = engine.forceScore(rest, targetIds, { scoreScale: trace.scoreScale }).logProbs;
        }
        for (let t = 0; t < trace.T; t++) {
          const got = r.drop[t * r.G + c];
          if (lp) assert.equal(got, Math.fround(base[t] - lp[t]), `${m.level} column ${c} (${m.colLabels[c]}) step ${t}`);
          else assert.ok(Number.isNaN(got), `${m.level} column ${c} (${m.colLabels[c]}) cannot be removed`);
        }
        assert.equal(r.erasable[c], lp ? 1 : 0);
      });
      // Some word mattered: the map is not all zeros (a mask that did nothing would give zeros).
      assert.ok(Array.from(r.drop).some((x) => Math.abs(x) > 1e-3), `${m.level}: some drop`);
      const again = await ask(trace, m.colGroups);
      assert.equal(again.cached, true);
      assert.deepEqual(Array.from(again.drop), Array.from(r.drop));
    }
  });
}

test('a model load empties the cache; a bad target id is refused with the engine’s code', { skip }, async () => {
  await load(MODELS.dot);
  const trace = engine.translate(SENTENCE);
  const groups = figureMatrix(trace, engine.info, false).colGroups;
  assert.equal((await ask(trace, groups)).cached, false);
  assert.equal((await ask(trace, groups)).cached, true);
  await load(MODELS.dot);
  assert.equal((await ask(trace, groups)).cached, false, 'after a load');
  const bad = await ask(trace, groups, { targetIds: [...trace.target.map((p) => p.id).slice(0, -1), 1e6] });
  assert.equal(bad.type, 'error');
  assert.equal(bad.stage, 'erasure');
  assert.equal(bad.code, 'AS_ERR_BAD_TARGET');
  assert.match(bad.message, /target position/);
});

// The map of a long sentence is seconds of forced decodes: the worker runs it in slices
// (lib/slices.js), so the page's next translation is answered in between, the page can
// stop it, and a model load stops it (its columns would be scored by another model).
const LONG = Array.from({ length: 12 }, () => 'Open the file and save the document.').join(' ');

async function longRequest() {
  const trace = engine.translate(LONG, { cutSource: true });
  const groups = figureMatrix(trace, engine.info, true).colGroups;
  assert.ok(groups.length > 60, `a long source: ${groups.length} columns`);
  const id = nextId++;
  const replies = [];
  const done = new Promise((resolve) => waiters.push({ until: (m) => m.id === id, resolve }));
  globalThis.onmessage({ data: { type: 'erasure', id, sourceIds: trace.source.filter((p) => !p.isEnd).map((p) => p.id),
    targetIds: trace.target.map((p) => p.id), scoreScale: trace.scoreScale, groups: groupPairs(groups) } });
  return { id, done, replies, trace };
}

test('a long map runs in slices: a translation asked for meanwhile is answered first; a cancel or a model load stops it', { skip }, async () => {
  await load(MODELS.dot);
  // 1. A translation sent while the map runs is answered before the map.
  const order = [];
  const long = await longRequest();
  long.done.then(() => order.push('erasure'));
  const tid = nextId++;
  const tr = await send({ type: 'translate', id: tid, text: 'Open the file', scoreScale: 1, topK: 5 }, byId(tid));
  order.push('translate');
  assert.equal(tr.type, 'result', JSON.stringify(tr).slice(0, 200));
  const map = await long.done;
  assert.equal(map.type, 'erasure-result', JSON.stringify(map).slice(0, 200));
  assert.deepEqual(order, ['translate', 'erasure'], 'the translation did not wait for the map');
  // The map made in slices is the map made in one go (lib/erasure.js erasureMap, here).
  const again = await ask(long.trace, figureMatrix(long.trace, engine.info, true).colGroups);
  assert.equal(again.cached, true);
  assert.deepEqual(Array.from(again.drop), Array.from(map.drop));

  // 2. The page cancels it: an error that says so, not a map.
  await load(MODELS.dot); // an empty cache: the map is computed again
  const cancelled = await longRequest();
  globalThis.onmessage({ data: { type: 'cancel', id: cancelled.id } });
  const c = await cancelled.done;
  assert.equal(c.type, 'error', JSON.stringify(c).slice(0, 200));
  assert.equal(c.cancelled, true);
  assert.equal(c.stage, 'erasure');

  // 3. A model load under it: stopped, said to be superseded.
  const overtaken = await longRequest();
  await load(MODELS.general);
  const o = await overtaken.done;
  assert.equal(o.type, 'error', JSON.stringify(o).slice(0, 200));
  assert.equal(o.superseded, true);
});

test('the math check’s curves run in slices too: a token count asked for meanwhile is answered first', { skip }, async () => {
  const order = [];
  const mid = nextId++;
  const curves = send({ type: 'mathcheck', id: mid, seed: 1, keys: 64, draws: 400 }, byId(mid)).then((m) => { order.push('mathcheck'); return m; });
  const kid = nextId++;
  const tokens = await send({ type: 'tokenize', id: kid, text: 'Open the file' }, byId(kid));
  order.push('tokens');
  assert.equal(tokens.type, 'tokens');
  assert.equal((await curves).type, 'mathcheck-result');
  assert.deepEqual(order, ['tokens', 'mathcheck']);
});
