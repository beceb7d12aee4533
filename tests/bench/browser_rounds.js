// browser_rounds.js - the bench's interleaved rounds, run inside Chromium
// (a browser ES module: tests/bench/browser_steps.mjs serves the repository
// and loads it in a page). The same protocol as bench.mjs runs in Node:
// every backend translates the set once untimed, then `reps` timed
// repetitions of every sentence, each a translation with a new source
// ("whole": encoder + greedy decode) and the decode alone with the encoder
// reused ("decode"; ORT times its greedy loop). A sample is
// { i, whole_ms, decode_ms, steps } (tests/bench/stats.mjs).
//
// Backends: our builds (relaxed SIMD, SIMD128) on the f32 and the int8
// shipped files, and onnxruntime-web (wasm, 1 thread) on the same f32
// weights exported to ONNX (build/bench/*.onnx, tests/bench/make_models.py).
import { createEngine, relaxedSimdProblem } from '/web/engine.js';
import { engineRound, engineTokens, ortGreedy, ortRound, ortTokens } from './rounds.js';

const fetchBytes = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
};

async function wasmBackend(name, variant, modelUrl, sentences) {
  const engine = await createEngine({ variant });
  const info = engine.load(await fetchBytes(modelUrl));
  const options = { topK: 0 };
  return {
    name, engine, info,
    detail: `web/gen/alignscope-${variant}.wasm via web/engine.js (isa ${engine.isa}, ${info.weightType} weights), ${navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? 'Chromium'}`,
    tokens: () => engineTokens(engine, sentences, options),
    async round(reps) { return engineRound(engine, sentences, options, reps); },
  };
}

async function ortBackend(sourceIds) {
  const ort = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const enc = await ort.InferenceSession.create(await fetchBytes('/build/bench/encoder.onnx'), opts);
  const dec = await ort.InferenceSession.create(await fetchBytes('/build/bench/decoder_step.onnx'), opts);
  const greedy = (ids) => ortGreedy(ort, enc, dec, ids);
  return {
    name: 'ort',
    detail: `onnxruntime-web ${ort.env.versions?.web ?? '?'} (wasm backend, numThreads 1), ${navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? 'Chromium'}`,
    tokens: () => ortTokens(greedy, sourceIds),
    async round(reps) { return ortRound(greedy, sourceIds, reps); },
  };
}

/**
 * Makes every backend this browser can run; returns what each is, the ones
 * that could not start (with why), every backend's greedy tokens, and the
 * source ids. `only`: a subset of the names (null: all).
 */
export async function setUp({ sentences, only = null }) {
  const backends = [];
  const unavailable = {};
  const want = (name) => !only || only.includes(name);
  const tryAdd = async (name, make) => {
    if (!want(name)) return;
    try { backends.push(await make()); } catch (e) { unavailable[name] = String(e.message ?? e).split('\n')[0]; }
  };
  const problem = relaxedSimdProblem();
  for (const [name, variant, url] of [
    ['relaxed', 'relaxed', '/build/bench/model.alsc'], ['relaxed-int8', 'relaxed', '/build/bench/model-int8.alsc'],
    ['simd', 'simd', '/build/bench/model.alsc'], ['simd-int8', 'simd', '/build/bench/model-int8.alsc'],
  ]) {
    if (variant === 'relaxed' && problem) { if (want(name)) unavailable[name] = problem; continue; }
    await tryAdd(name, () => wasmBackend(name, variant, url, sentences));
  }
  const ours = backends.find((b) => b.name === 'simd') ?? backends[0];
  if (!ours) throw new Error(`no build of ours could start: ${JSON.stringify(unavailable)}`);
  const sourceIds = sentences.map((s) => ours.engine.tokenize(s).map((t) => t.id));
  await tryAdd('ort', () => ortBackend(sourceIds));
  const tokens = {};
  for (const b of backends) tokens[b.name] = await b.tokens();
  globalThis.benchBackends = backends;
  return {
    names: backends.map((b) => b.name), details: Object.fromEntries(backends.map((b) => [b.name, b.detail])),
    unavailable, tokens, sourceIds, reference: ours.name,
  };
}

/** One round: every backend in turn (the order rotates with the round), a
 * garbage collection before each turn when the page has gc (--expose-gc). */
export async function round(index, reps) {
  const backends = globalThis.benchBackends;
  const samples = {};
  for (let k = 0; k < backends.length; k++) {
    const b = backends[(k + index) % backends.length];
    globalThis.gc?.();
    await b.round(1);
    samples[b.name] = await b.round(reps);
  }
  return samples;
}
