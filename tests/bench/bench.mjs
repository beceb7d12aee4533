// bench.mjs - alignscope against onnxruntime-web and PyTorch, in one process
// tree, interleaved, on the same weights and the same sentences.
//
//   ./build.sh bench [--quick] [--no-browser] [--no-kernels] [--only simd,ort,...] [--out FILE]
//   (builds what it needs, then runs: node tests/bench/bench.mjs ...)
//
// Backends (each optional; one that cannot start is reported, not fatal):
//   simd, scalar  web/engine.js + web/gen/alignscope-{simd,scalar}.wasm, here in Node
//   simd-int8     the simd build on the same weights stored as int8 (model-int8.alsc,
//                 per-row scales; matrices stay int8 in memory)
//   simd-page     the simd build asked for 5 candidates per step with their
//                 probabilities, as the page asks (the others ask for none: the
//                 greedy tokens and the attention are the work every backend does)
//   ort           onnxruntime-web (npm), wasm backend, 1 thread, SIMD build:
//                 encoder.onnx once, decoder_step.onnx per step, greedy loop in JS
//   torch         PyTorch eager, 1 thread (tests/bench/torch_bench.py, a child process)
//   native        the C library with the SIMD twin (src/native/wasm_simd128.h),
//                 gcc -O3 -march=native (build/bench/native_bench)
//   native-int8   the same on model-int8.alsc: the native CLI's default model
//                 (until 2026-12-07 its int8 kernel ran 12x slower than the
//                 wasm build's, and no row showed it)
// Each round runs every backend in turn (the order rotates). A backend first
// translates the set once untimed (its weights back in cache after the other
// backends ran: otherwise the first sentence of its turn pays for that), then
// does `reps` timed repetitions of every sentence: a translation with a new
// source (encoder + greedy decode, "whole") and the decode alone ("decode":
// ours reuse the cached encoder, ORT and torch time their loop). Per-step
// time = decode / steps. Reported: min and median over all samples after a
// warm-up round. Ratios are ort_time / backend_time (> 1 = faster than ORT),
// paired by round: each round's median against ORT's median in the same
// round, then the median over rounds, with the middle half of the rounds as
// a range (tests/bench/stats.mjs). This host's memory bandwidth drifts by 2x
// within minutes: times taken seconds apart share its state, and a
// disturbance during one backend's turn moves one round's ratio only.
//
// Also: beam search (the default width) against greedy on the shipped default
// model, side by side (beam_greedy.mjs), the erasure card's map for 10 and 30 words (erasure_bench.mjs), the kernel micro-benchmarks (kernels_bench.mjs), greedy-token
// agreement of every backend with the simd build, and in Chromium the
// re-decode time of one slider event (20-word sentence, encoder reused),
// navigation -> first heatmap on the real page (web/ and dist/, bundled),
// the offline second visit of dist/, and the page's render budget
// (render_budget.mjs: slider input -> paint on a 30-word sentence, desktop,
// 4x CPU throttling, every card open and a phone, the longest task while
// dragging, keystroke -> paint, and which card's work took longest in one frame).
// Writes tests/bench/results.json (or --out) and tests/bench/results.md.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { createEngine } from '../../web/engine.js';
import { engineRound, engineTokens, ortGreedy, ortRound, ortTokens } from './rounds.js';
import { decoderStepMacs, encoderWeights, median, pairedRatios, summarise } from './stats.mjs';
import { renderBudget, budgetLines, budgetTargets, longestCards, QUICK_RUN } from './render_budget.mjs';
import { offlineVisit, offlineLines, offlineTargets } from './offline_visit.mjs';
import { buildDist } from '../../web/tools/dist.mjs';
import { browserStepBench, browserStepLines, browserStepTargets } from './browser_steps.mjs';
import { growthBench, growthLines, growthTargets } from './growth.mjs';
import { startupBench, startupLines, startupTargets } from './startup.mjs';
import { relaxedKernelBench, relaxedKernelLines, relaxedKernelTargets } from './kernels_relaxed.mjs';
import { beamVsGreedy, beamVsGreedyLines } from './beam_greedy.mjs';
import { erasureBench, erasureLines, erasureTargets } from './erasure_bench.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const ART = join(ROOT, 'build', 'bench');
const PYTHON = '/usr/bin/python3';
export const SLIDER_SENTENCE =
  'Please save your changes to this document before you close the window, or all of your recent work will be lost.';

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const BROWSER = args.includes('--browser') || (!args.includes('--no-browser') && !QUICK);
const OUT = args.includes('--out') ? args[args.indexOf('--out') + 1] : QUICK ? join(ART, 'results.quick.json') : join(HERE, 'results.json');
// --only simd,scalar,...: a subset of the backends (the test suite's check)
const ONLY = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',')) : null;
const NO_KERNELS = args.includes('--no-kernels');
// A full garbage collection before each backend's turn: the in-process
// backends share one V8 heap, and onnxruntime-web leaves a tensor object and
// a 32 KB logits array per step; without this, collecting them lands in the
// next backend's timed turn. (--no-gc to see that.)
v8.setFlagsFromString('--expose-gc');
const collectGarbage = args.includes('--no-gc') ? () => {} : vm.runInNewContext('gc');
const ROUNDS = QUICK ? 2 : 30;   // measured rounds (plus one warm-up round)
const REPS = QUICK ? 1 : 3;      // timed repetitions of the whole set per backend per round

const log = (...a) => console.error('[bench]', ...a);
const sentences = readFileSync(join(HERE, 'sentences.txt'), 'utf8').split('\n').filter((l) => l.trim());

// ---- backends --------------------------------------------------------------
// Each: { name, tokens() -> [[id...]], round(reps) -> [{i, whole_ms, decode_ms, steps}], close() }

// topK: candidates per step. 0 (the default here) is the other backends'
// work: greedy tokens, nothing but the argmax from the logits. The page asks
// for 5 with their probabilities, which adds the softmax normaliser (a pass
// of exp over the V words) to every step: the simd-page backend.
async function wasmBackend(variant, modelBytes, name = variant, { topK = 0 } = {}) {
  const engine = await createEngine({ variant });
  const info = engine.load(modelBytes);
  const options = { topK };
  return {
    name, detail: `web/gen/alignscope-${variant}.wasm via web/engine.js (isa ${engine.isa}, ${info.weightType} weights, ${topK} candidates per step), Node ${process.version}`,
    engine, info,
    async tokens() { return engineTokens(engine, sentences, options); },
    async round(reps) { return engineRound(engine, sentences, options, reps); },
    close() { engine.dispose(); },
  };
}

async function ortBackend(sourceIds) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true; // older releases read it; 1.2x ships only the SIMD build
  const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const enc = await ort.InferenceSession.create(readFileSync(join(ART, 'encoder.onnx')), opts);
  const dec = await ort.InferenceSession.create(readFileSync(join(ART, 'decoder_step.onnx')), opts);
  const greedy = (ids) => ortGreedy(ort, enc, dec, ids);
  return {
    name: 'ort', detail: `onnxruntime-web ${ort.env.versions?.web ?? '?'} (wasm backend, numThreads 1, SIMD build), Node ${process.version}`,
    tokens: () => ortTokens(greedy, sourceIds),
    async round(reps) { return ortRound(greedy, sourceIds, reps); },
    close() { enc.release?.(); dec.release?.(); },
  };
}

/** A child process speaking the line protocol of torch_bench.py / native_bench.c. */
async function childBackend(name, detail, cmd, argv, env = {}) {
  const child = spawn(cmd, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  async function ask(line) {
    child.stdin.write(`${line}\n`);
    const next = await Promise.race([lines.next(), exited.then((code) => ({ done: true, code }))]);
    if (next.done) throw new Error(`${name} exited (${next.code}): ${stderr.trim().slice(-500)}`);
    const reply = JSON.parse(next.value);
    if (reply.error) throw new Error(`${name}: ${reply.error}`);
    return reply;
  }
  let info = {};
  return {
    name, get detail() { return info.version ? `${detail} ${info.version}, ${info.threads} thread(s)${info.openblas_core ? `, OpenBLAS ${info.openblas_core} kernels` : ''}` : detail; },
    async tokens() { const r = await ask('tokens'); info = r; return r.tokens; },
    sourceIds: async () => (await ask('tokens')).source_ids,
    async round(reps) { return (await ask(`round ${reps}`)).samples; },
    close() { child.stdin.end('quit\n'); return exited; }, // resolves when the child has exited
  };
}

// ---- browser -----------------------------------------------------------------

async function browserBench() {
  const { launchChromium } = await import('../support/chromium.mjs');
  const { startServer } = await import('../../web/tools/serve.mjs');
  const result = {};
  // --expose-gc: the step rounds collect garbage before each backend's turn, as in Node.
  const browser = await launchChromium({ args: ['--js-flags=--expose-gc'] });
  result.chromium = browser.version();
  try {
    // (0) the decoder-step rounds, relaxed SIMD and SIMD128 against
    // onnxruntime-web, in the page's runtime (tests/bench/browser_steps.mjs).
    try {
      result.steps = await browserStepBench(browser, { quick: QUICK, sentences, log });
    } catch (e) {
      result.steps = { error: String(e.message ?? e).split('\n')[0] };
    }
    // (1) engine.js on the bench model, main thread: one slider event = a
    // translate() with a new scoreScale, encoder reused.
    writeFileSync(join(ART, 'browser.html'), '<!doctype html><meta charset="utf-8"><title>bench</title>\n' +
      '<script type="module">import { createEngine, bestVariant } from "/web/engine.js"; window.createEngine = createEngine; window.bestVariant = bestVariant; window.benchReady = true;</script>\n');
    const server = await startServer({ root: ROOT, port: 0 });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`http://127.0.0.1:${server.port}/build/bench/browser.html`);
      await page.waitForFunction(() => window.benchReady === true);
      result.sliderRedecode = await page.evaluate(async ({ text, events }) => {
        // What the page runs: the build it would pick, the default (int8) model.
        const engine = await window.createEngine({ variant: window.bestVariant() });
        engine.load(new Uint8Array(await (await fetch('/build/bench/model-int8.alsc')).arrayBuffer()));
        const first = engine.translate(text, { scoreScale: 1 });
        const times = [];
        for (let k = 0; k < events; k++) {
          const scale = 0.25 + ((k * 37) % 100) / 25; // the slider's range, in a scattered order
          const t0 = performance.now();
          const r = engine.translate(text, { scoreScale: scale });
          times.push(performance.now() - t0);
          if (!r.encoderReused) throw new Error('encoder not reused');
        }
        const warm = times.slice(10).sort((a, b) => a - b);
        return { words: text.split(/\s+/).length, sourceTokens: first.S, steps: first.T, events: warm.length,
          minMs: warm[0], medianMs: warm[warm.length >> 1], p90Ms: warm[Math.floor(warm.length * 0.9)],
          coldFirstMs: first.elapsedMs, isa: engine.isa, variant: window.bestVariant(), model: 'model-int8.alsc (the page\'s default)' };
      }, { text: SLIDER_SENTENCE, events: 110 });
    } finally {
      await server.close();
    }

    // (2) the real page's start-up: navigation -> first heatmap and its
    // phases, cold cache, fresh context each time (tests/bench/startup.mjs).
    try {
      result.startup = await startupBench(browser, { quick: QUICK });
    } catch (e) {
      result.startup = { error: String(e.message ?? e).split('\n')[0] };
    }
    // (2') the same on dist/, the page as deployed (bundled: web/tools/dist.mjs),
    // and its second visit with the network off (tests/bench/offline_visit.mjs).
    let dist = null;
    try {
      dist = buildDist({ out: join(ART, 'dist'), quiet: true }).out;
    } catch (e) {
      result.startupDist = { error: String(e.message ?? e).split('\n')[0] };
    }
    if (dist) {
      try {
        result.startupDist = await startupBench(browser, { quick: QUICK, root: dist, served: 'dist/ (bundled)' });
      } catch (e) {
        result.startupDist = { error: String(e.message ?? e).split('\n')[0] };
      }
      try {
        result.offlineVisit = await offlineVisit({ runs: QUICK ? 2 : 7, dist, browser });
      } catch (e) {
        result.offlineVisit = { error: String(e.message ?? e).split('\n')[0] };
      }
    }
    // (2a) the weight products of both builds against their instructions' peaks, in Chromium.
    try {
      result.relaxedKernels = await relaxedKernelBench(browser, { quick: QUICK });
    } catch (e) {
      result.relaxedKernels = { error: String(e.message ?? e).split('\n')[0] };
    }
    // (2b) how a translation's cost grows with the source length, on the page's path.
    try {
      result.growth = await growthBench(browser, { quick: QUICK });
    } catch (e) {
      result.growth = { error: String(e.message ?? e).split('\n')[0] };
    }
  } finally {
    await browser.close();
  }
  // (3) the page's render budget, in a browser of its own: desktop, 4× throttling,
  // every card open, a phone; and which card's work took longest in one frame.
  try {
    result.renderBudget = await renderBudget(QUICK ? QUICK_RUN : {});
    for (const c of longestCards(result.renderBudget)) log(`longest card paint, ${c.profile}: ${c.card} (${c.ms.toFixed(1)} ms in one frame)`);
  } catch (e) {
    result.renderBudget = { error: String(e.message ?? e).split('\n')[0] };
  }
  const metricsFile = join(ROOT, 'tests', 'artifacts', 'metrics.json');
  if (existsSync(metricsFile)) result.pageTestMetrics = JSON.parse(readFileSync(metricsFile, 'utf8'));
  return result;
}

// ---- main --------------------------------------------------------------------

/** Share (0..1 of all cores) of CPU time other processes used during one idle
 * second of ours. The load average would also count the command that just
 * finished before the bench, and the bench itself; this does not. null off Linux. */
async function otherCpuBusyShare() {
  const sample = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + (fields[4] || 0); // idle + iowait
    return { idle, total: fields.reduce((a, b) => a + b, 0) };
  };
  try {
    const a = sample();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const b = sample();
    return b.total > a.total ? 1 - (b.idle - a.idle) / (b.total - a.total) : null;
  } catch {
    return null;
  }
}

/** tests/bench/kernels_bench.mjs in a child process with --no-liftoff: the
 * kernels' steady-state (TurboFan) code from the first call, not V8's
 * baseline code during the warm-up. */
async function kernelBench() {
  log('kernel micro-benchmarks (node --no-liftoff tests/bench/kernels_bench.mjs)');
  const child = await new Promise((resolve) => {
    const p = spawn(process.execPath, ['--no-liftoff', join(HERE, 'kernels_bench.mjs'), ...(QUICK ? ['--quick'] : [])], { cwd: ROOT });
    let out = '', err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => resolve({ code, out, err }));
  });
  if (child.code !== 0) throw new Error(`kernels_bench.mjs failed: ${child.err}`);
  return JSON.parse(child.out);
}

async function main() {
  const loadavgBefore = os.loadavg();
  const otherCpuBusyBefore = await otherCpuBusyShare();
  const modelInfo = JSON.parse(readFileSync(join(ART, 'models.json'), 'utf8'));
  const modelBytes = new Uint8Array(readFileSync(join(ART, 'model.alsc')));
  log(`model: ${modelInfo.source}, ${modelInfo.parameters} parameters; ${sentences.length} sentences; ${QUICK ? 'quick' : 'full'} run`);

  // The kernel micro-benchmarks run twice, first while nothing else of the
  // bench is loaded or running and again after the rounds, and the run with
  // the faster V x O f32 matvec is reported (both are recorded): the
  // memory-bound kernels follow this shared host's bandwidth, which can stay
  // low for longer than one run of them.
  const kernelRuns = [];
  if (!NO_KERNELS) kernelRuns.push(await kernelBench());
  const backends = [];
  const failed = {};
  const tryAdd = async (name, make) => {
    if (ONLY && !ONLY.has(name)) return;
    try { backends.push(await make()); } catch (e) { failed[name] = String(e.message ?? e).split('\n')[0]; log(`${name}: unavailable: ${failed[name]}`); }
  };
  // Node 20 validates relaxed SIMD only with --experimental-wasm-relaxed-simd
  // (./build.sh bench passes it) and even then computes its 8-bit dot
  // product wrongly: engine.js refuses the build and says why, and the
  // relaxed rows come from Chromium (browser_steps.mjs).
  await tryAdd('relaxed', () => wasmBackend('relaxed', modelBytes));
  await tryAdd('simd', () => wasmBackend('simd', modelBytes));
  await tryAdd('scalar', () => wasmBackend('scalar', modelBytes));
  await tryAdd('simd-int8', () => wasmBackend('simd', new Uint8Array(readFileSync(join(ART, 'model-int8.alsc'))), 'simd-int8'));
  await tryAdd('simd-page', () => wasmBackend('simd', modelBytes, 'simd-page', { topK: 5 }));
  const ours = backends.find((b) => b.name === 'simd') ?? backends[0];
  if (!ours?.engine) throw new Error('no wasm build: run ./build.sh wasm');
  const sourceIds = sentences.map((s) => ours.engine.tokenize(s).map((t) => t.id));
  await tryAdd('ort', () => ortBackend(sourceIds));
  await tryAdd('torch', () => childBackend('torch', 'PyTorch eager', PYTHON,
    [join(HERE, 'torch_bench.py'), join(ART, 'model.pt'), join(HERE, 'sentences.txt')], { OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' }));
  const nativeBin = join(ART, 'native_bench');
  const nativeBackend = (name, detail, modelFile) => async () => {
    if (!existsSync(nativeBin)) throw new Error(`${relative(ROOT, nativeBin)} missing (./build.sh bench builds it)`);
    return childBackend(name, detail, nativeBin, [join(ART, modelFile), join(HERE, 'sentences.txt')]);
  };
  await tryAdd('native', nativeBackend('native', 'C library with the SIMD twin through src/native/wasm_simd128.h, gcc -O3 -march=native', 'model.alsc'));
  await tryAdd('native-int8', nativeBackend('native-int8', 'the native build on int8 weights', 'model-int8.alsc'));

  // Same greedy tokens everywhere?
  const tokens = {};
  for (const b of backends) {
    try { tokens[b.name] = await b.tokens(); } catch (e) { failed[b.name] = String(e.message ?? e); }
  }
  const live = backends.filter((b) => tokens[b.name]);
  const agreement = {};
  const sameAs = (name, reference) => tokens[name].map((t, i) => JSON.stringify(t) === JSON.stringify(tokens[reference][i]));
  for (const b of live) {
    const same = sameAs(b.name, ours.name);
    agreement[b.name] = { sameTokens: same.every(Boolean), perSentence: same };
    // Another build on the int8 file must give the simd build's int8 tokens exactly (the same kernels).
    if (b.name.endsWith('-int8') && b.name !== 'simd-int8' && tokens['simd-int8']) {
      agreement[b.name].sameAsSimdInt8 = sameAs(b.name, 'simd-int8').every(Boolean);
    }
  }
  const torch = live.find((b) => b.name === 'torch');
  if (torch) agreement.torchSourceIdsMatch = JSON.stringify(await torch.sourceIds()) === JSON.stringify(sourceIds);
  log('token agreement with simd:', Object.entries(agreement).map(([k, v]) => `${k}=${v.sameTokens ?? v}`).join(' '));

  // Interleaved rounds; round 0 is warm-up. In every round each backend
  // first runs the set once untimed (caches), then REPS timed repetitions.
  const samples = Object.fromEntries(live.map((b) => [b.name, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    const order = live.map((_, k) => live[(k + round) % live.length]);
    for (const b of order) {
      collectGarbage();
      await b.round(1);
      const got = await b.round(round === 0 ? 1 : REPS);
      if (round > 0) samples[b.name].push(...got.map((s) => ({ ...s, round })));
    }
    log(`round ${round}/${ROUNDS}`);
  }
  for (const b of live) await b.close();

  const stats = Object.fromEntries(live.map((b) => [b.name, summarise(samples[b.name], sentences)]));
  const vsOrt = {};
  if (stats.ort) for (const b of live) vsOrt[b.name] = pairedRatios(samples[b.name], samples.ort, sentences.length);
  const vsTorch = {};
  if (stats.torch) for (const b of live) vsTorch[b.name] = pairedRatios(samples[b.name], samples.torch, sentences.length);
  // int8 against f32 weights, same simd build: > 1 means int8 is faster
  const int8VsF32 = stats['simd-int8'] && stats.simd ? pairedRatios(samples['simd-int8'], samples.simd, sentences.length) : null;
  if (int8VsF32) log(`simd-int8 vs simd f32: decoder step ${int8VsF32.step.median.toFixed(2)}×, whole sentence ${int8VsF32.wholeGeomean.toFixed(2)}× (geomean)`);
  // the same natively: the CLI's int8 kernel against its f32 one
  const nativeInt8VsF32 = stats['native-int8'] && stats.native ? pairedRatios(samples['native-int8'], samples.native, sentences.length) : null;
  if (nativeInt8VsF32) log(`native-int8 vs native f32: decoder step ${nativeInt8VsF32.step.median.toFixed(2)}×, whole sentence ${nativeInt8VsF32.wholeGeomean.toFixed(2)}× (geomean)`);

  let kernels = null;
  if (!NO_KERNELS) {
    if (!QUICK) kernelRuns.push(await kernelBench());
    kernels = kernelRuns.reduce((best, k) => (k.matvec.simd.gflops > best.matvec.simd.gflops ? k : best));
    kernels.runs = kernelRuns.map((k) => ({ matvecGflops: k.matvec.simd.gflops, streamGBs: k.stream.GBs, peakGflops: k.peak.gflops,
      int8Gflops: k.matvec.int8Q32.simd.gflops, chosen: k === kernels }));
  }

  // Beam search by default: its cost against greedy on the shipped default model (beam_greedy.mjs).
  let beam = null;
  if (!ONLY || ONLY.has('beam')) {
    collectGarbage();
    try {
      beam = await beamVsGreedy({ root: ROOT, sentences, reps: QUICK ? 3 : 15 });
      log(`beam (width ${beam.width}) vs greedy on ${beam.model}: ${beam.ratioGeomean.toFixed(2)}× the time per sentence (geomean; ` +
        beam.sentences.map((r) => `#${r.i + 1} ${r.beamMs.toFixed(1)} / ${r.greedyMs.toFixed(1)} ms`).join(', ') + ')');
    } catch (e) { beam = { error: String(e.message ?? e).split('\n')[0] }; log(`beam vs greedy: unavailable: ${beam.error}`); }
  }

  // The erasure card's map: 10 and 30 words, the default model and the no-attention one (erasure_bench.mjs).
  let erasure = null;
  if (!ONLY || ONLY.has('erasure')) {
    collectGarbage();
    try {
      erasure = await erasureBench({ root: ROOT, reps: QUICK ? 2 : 15 });
      log(`erasure map: ${erasure.rows.map((r) => `${r.model} ${r.words} words ${r.workerMs.toFixed(1)} ms`).join(', ')}`);
    } catch (e) { erasure = { error: String(e.message ?? e).split('\n')[0] }; log(`erasure map: unavailable: ${erasure.error}`); }
  }

  let browser = null;
  if (BROWSER) {
    log('chromium');
    try { browser = await browserBench(); } catch (e) { browser = { error: String(e.message ?? e).split('\n')[0] }; }
  }

  const results = {
    date: new Date().toISOString(), quick: QUICK, rounds: ROUNDS, repsPerRound: REPS,
    machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, loadavgBefore, otherCpuBusyBefore, loadavgAfter: os.loadavg() },
    model: modelInfo, sentences, sourceIds,
    backends: Object.fromEntries(live.map((b) => [b.name, b.detail])), unavailable: failed,
    tokens, agreement, stats, ratiosVsOrt: vsOrt, ratiosVsTorch: vsTorch, int8VsF32, nativeInt8VsF32, beamVsGreedy: beam, erasure, kernels, browser,
  };
  results.stepFloor = stepFloor(ours.info, stats, kernels);
  results.targets = targets(results);
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(results, null, 1)}\n`);
  const md = markdown(results);
  if (!QUICK) writeFileSync(join(HERE, 'results.md'), md);
  console.log(md);
  log(`wrote ${relative(ROOT, OUT)}${QUICK ? '' : ' and tests/bench/results.md'}`);
}

/** What bounds a decoder step: its weight products (decoderStepMacs) timed
 * at the matvec loop's own best rate, measured by the kernel bench (f32: the
 * p24 loop on a panel in L1; int8: the q32 loop on the V x O matrix,
 * compute-bound), with nothing else in the step. ORT's median step over that
 * floor is the most this loop shape could reach against ORT. */
function stepFloor(info, stats, kernels) {
  if (!kernels) return null;
  const macs = decoderStepMacs(info);
  const f32Rate = kernels.matvec.l1Resident24x256.simd.gflops, int8Rate = kernels.matvec.int8Q32.simd.gflops;
  const f32Ms = (2 * macs) / (f32Rate * 1e6), int8Ms = (2 * macs) / (int8Rate * 1e6);
  const ort = stats.ort?.stepMedianMs;
  const of = (name) => stats[name] && { minMs: stats[name].stepMinMs, medianMs: stats[name].stepMedianMs };
  // The encoder of the shortest source: whole - decode (medians), against
  // the bytes of encoder weights it reads (f32; int8 a quarter).
  const shortest = stats.simd ? stats.simd.sentences.reduce((a, p) => (p.steps < a.steps ? p : a)) : null;
  const w = encoderWeights(info), ours = w.encoder + w.contextColumns;
  const encoder = { sentence: shortest?.i, weights: w };
  for (const [name, bytes] of [['simd', 4 * ours], ['simd-int8', ours], ['ort', 4 * w.encoder]]) {
    const p = stats[name]?.sentences[shortest?.i];
    if (!p) continue;
    const ms = p.wholeMedianMs - p.decodeMedianMs;
    encoder[name] = { ms, GBs: bytes / (ms * 1e6) };
  }
  return {
    macs, f32Bytes: 4 * macs, int8Bytes: macs, encoder,
    f32: { rateGflops: f32Rate, floorMs: f32Ms, ceilingVsOrt: ort ? ort / f32Ms : null, measured: of('simd') },
    int8: { rateGflops: int8Rate, floorMs: int8Ms, ceilingVsOrt: ort ? ort / int8Ms : null, measured: of('simd-int8') },
  };
}

function targets(r) {
  const t = [];
  // v: a number, or a spread over rounds ({ median, q1, q3 }: the median is judged)
  const valueOf = (v) => (v != null && typeof v === 'object' ? { value: v.median, range: [v.q1, v.q3] } : { value: v, range: null });
  const add = (name, v, goal, unit = '×') => {
    const { value, range } = valueOf(v);
    t.push({ name, value, range, goal, met: value != null && Number.isFinite(value) ? value >= goal : null, unit });
  };
  const o = r.ratiosVsOrt.simd, p = r.ratiosVsTorch.simd;
  // Node's rows run SIMD128: Node 20 cannot run the relaxed build (see the
  // unavailable list); Chromium's rows (browserStepTargets) run both.
  add('f32 decoder step vs onnxruntime-web, Node', o?.step, 2);
  add('whole sentence vs onnxruntime-web (worst sentence)', o?.wholeMinSpread, 2);
  add('whole sentence vs PyTorch eager (worst sentence)', p?.wholeMinSpread, 5);
  const shape = r.kernels?.shape ? `${r.kernels.shape.rows}×${r.kernels.shape.cols}` : 'V×O';
  add(`${shape} f32 matvec, fraction of V8 SIMD128 peak, Node`, r.kernels?.matvec.fractionOfPeak, 0.75, '');
  const att = (r.kernels?.attention ?? []).filter((a) => a.S >= 32);
  add('attention core SIMD vs scalar, S ≥ 32 (worst length)', att.length ? Math.min(...att.map((a) => a.speedup)) : null, 3);
  if (r.browser?.sliderRedecode) t.push({ name: 'slider re-decode, 20-word sentence, Chromium (median)', value: r.browser.sliderRedecode.medianMs, goal: 8, met: r.browser.sliderRedecode.medianMs < 8, unit: 'ms', lowerIsBetter: true });
  add('int8 decoder step vs onnxruntime-web f32, Node', r.ratiosVsOrt['simd-int8']?.step, 5);
  const bg = r.beamVsGreedy;
  if (bg && !bg.error) t.push({ name: `beam (width ${bg.width}) vs greedy, time per sentence, ${bg.model}, Node (geomean)`, value: bg.ratioGeomean, goal: 2, met: bg.ratioGeomean < 2, unit: '×', lowerIsBetter: true });
  if (r.erasure && !r.erasure.error) t.push(...erasureTargets(r.erasure));
  if (r.browser?.steps) t.push(...browserStepTargets(r.browser.steps));
  if (r.browser?.startup && !r.browser.startup.error) t.push(...startupTargets(r.browser.startup));
  if (r.browser?.startupDist && !r.browser.startupDist.error) t.push(...startupTargets(r.browser.startupDist));
  if (r.browser?.offlineVisit && !r.browser.offlineVisit.error) t.push(...offlineTargets(r.browser.offlineVisit));
  if (r.browser?.relaxedKernels) t.push(...relaxedKernelTargets(r.browser.relaxedKernels));
  if (r.browser?.growth && !r.browser.growth.error) t.push(...growthTargets(r.browser.growth));
  // Context only in Node: its V8 (11.3) runs the register-only dot chains
  // below the matvec itself (which feeds each dot fresh loaded operands), so
  // the fraction passes 100 %; the goal is judged in Chromium (kernels_relaxed.mjs).
  t.push({ name: 'int8 matvec (SIMD128, q32), fraction of the peak of its instructions (dot_i16x8 + add chains), Node: its V8 runs the chains slower than the matvec', ...valueOf(r.kernels?.matvec.int8Q32?.fractionOfDotPeak), goal: null, met: null, unit: '' });
  if (r.browser?.renderBudget && !r.browser.renderBudget.error) t.push(...budgetTargets(r.browser.renderBudget));
  // Context rows (no goal of their own): what bounds the matvec, and the int8 model's whole sentences.
  const info = (name, v, unit) => t.push({ name, ...valueOf(v), goal: null, met: null, unit });
  const mv = r.kernels?.matvec;
  if (mv && r.kernels?.stream) info('the same f32 matvec, fraction of the streaming-read roof (memory bound)', mv.simd.gflops / r.kernels.stream.roofGflops, '');
  if (mv?.l1Resident24x256) info('the same f32 loop on a 24-row panel in L1 (its own ceiling), fraction of peak', mv.l1Resident24x256.simd.gflops / r.kernels.peak.gflops, '');
  if (mv?.int8Q32) info(`int8 ${shape} matvec, f32-equivalent GFLOP/s as a fraction of the f32 peak`, mv.int8Q32.simd.gflops / (mv.simd.gflops / mv.fractionOfPeak), '');
  if (r.stepFloor?.f32.ceilingVsOrt) info('f32 step ceiling vs onnxruntime-web: every product at the L1 loop rate, nothing else', r.stepFloor.f32.ceilingVsOrt, '×');
  if (r.stepFloor?.int8.ceilingVsOrt) info('int8 step ceiling vs onnxruntime-web f32: every product at the int8 loop rate, nothing else', r.stepFloor.int8.ceilingVsOrt, '×');
  info('int8 whole sentence vs onnxruntime-web f32 (worst sentence)', r.ratiosVsOrt['simd-int8']?.wholeMinSpread, '×');
  return t;
}

// ---- Markdown ----------------------------------------------------------------

function markdown(r) {
  const f = (x, d = 2) => (x == null || !Number.isFinite(x) ? '–' : x.toFixed(d));
  const names = Object.keys(r.stats);
  const label = { relaxed: 'alignscope wasm relaxed SIMD', simd: 'alignscope wasm SIMD128', 'simd-int8': 'alignscope wasm SIMD128, int8 weights', 'simd-page': 'alignscope wasm SIMD128, + 5 candidates per step (the page)', scalar: 'alignscope wasm scalar', ort: 'onnxruntime-web (wasm, 1 thread)', torch: 'PyTorch eager (1 thread)', native: 'alignscope native (SIMD twin, gcc -O3 -march=native)', 'native-int8': 'alignscope native, int8 weights' };
  const lines = [];
  const busyShare = r.machine.otherCpuBusyBefore;
  lines.push(`Run of ${r.date.slice(0, 16).replace('T', ' ')} UTC on ${r.machine.cpu} (${r.machine.cores} cores), Node ${r.machine.node}` +
    `${r.browser?.chromium ? `, Chromium ${r.browser.chromium}` : ''}; other processes used ${busyShare == null ? '?' : `${(100 * busyShare).toFixed(0)} %`} of the CPU in the second before it started.`, '');
  lines.push(`### Speed (${r.model.source === 'random init (seed 1234)' ? 'random weights, ' : ''}${r.model.parameters.toLocaleString('en')} parameters, f32 unless marked int8; ${r.machine.cpu}, 1 thread)`, '');
  lines.push('ms per whole translation (encoder + greedy decoding) and per decoder step, min / median over all timed samples; ×ORT = how many times faster than onnxruntime-web, paired by round (median over rounds).', '');
  // Which file each backend ran (tests/bench/make_models.py: the shipped model unless --random).
  if (r.model.backend_weights) {
    lines.push(`Weights: ${Object.entries(r.model.backend_weights).map(([who, what]) => `${who}: ${what}`).join('; ')}.`, '');
  }
  const busy = r.machine.otherCpuBusyBefore;
  if (busy != null && busy > 0.25) {
    lines.push(`**Contended run:** other processes used ${(100 * busy).toFixed(0)} % of the ${r.machine.cores} cores in the second before the bench started; absolute times are pessimistic and memory-bound kernels suffer most. Re-run \`./build.sh bench\` on an idle machine.`, '');
  }
  const head = ['backend', ...r.sentences.map((s, i) => `#${i + 1} (${s.split(/\s+/).length} w, ${r.stats[names[0]].sentences[i].steps} steps)`), 'step ms (min / med)', 'step ×ORT', 'sentence ×ORT (geomean)'];
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const n of names) {
    const s = r.stats[n], o = r.ratiosVsOrt[n];
    lines.push(`| ${label[n] ?? n} | ${s.sentences.map((p) => `${f(p.wholeMinMs)} / ${f(p.wholeMedianMs)}`).join(' | ')} | ${f(s.stepMinMs, 3)} / ${f(s.stepMedianMs, 3)} | ${f(o?.step.median)} | ${f(o?.wholeGeomean)} |`);
  }
  lines.push('', 'Sentences: ' + r.sentences.map((s, i) => `#${i + 1} “${s}”`).join('; ') + '.', '');
  // (The int8 file is other weights than the f16 one the SIMD build runs: it may choose another word, and that is not a build's error.)
  const ag = Object.entries(r.agreement).filter(([, v]) => typeof v === 'object')
    .map(([k, v]) => `${k} ${v.sameTokens ? 'same' : k.endsWith('-int8') ? `differs on ${v.perSentence.filter((x) => !x).length} sentence(s): int8 weights, another model` : 'DIFFERENT'}`
      + (v.sameAsSimdInt8 === undefined ? '' : v.sameAsSimdInt8 ? ' (the same as simd-int8)' : ' (DIFFERENT from simd-int8)'));
  lines.push(`Greedy tokens against the SIMD build: ${ag.join(', ')}.`, '');
  if (Object.keys(r.unavailable ?? {}).length) {
    lines.push(`Not run in Node ${r.machine.node}: ${Object.entries(r.unavailable).map(([k, v]) => `${k} (${v})`).join('; ')}.`, '');
  }
  if (r.int8VsF32) {
    lines.push(`int8 weights against f32 on the same SIMD build: decoder step ${f(r.int8VsF32.step.median)}× (paired by round), ` +
      `whole sentence ${f(r.int8VsF32.wholeGeomean)}× (geomean); > 1 = int8 faster.`, '');
  }
  if (r.nativeInt8VsF32) {
    lines.push(`The same natively (the CLI's kernels): decoder step ${f(r.nativeInt8VsF32.step.median)}× (paired by round), ` +
      `whole sentence ${f(r.nativeInt8VsF32.wholeGeomean)}× (geomean); > 1 = int8 faster.`, '');
  }
  if (r.beamVsGreedy) lines.push(...(r.beamVsGreedy.error ? [`Beam vs greedy: unavailable (${r.beamVsGreedy.error}).`, ''] : beamVsGreedyLines(r.beamVsGreedy, f)));
  if (r.erasure) lines.push(...(r.erasure.error ? [`Erasure map: unavailable (${r.erasure.error}).`, ''] : erasureLines(r.erasure, f)));
  const k = r.kernels;
  if (k) {
  lines.push('### Kernels (V8 in Node, min over repetitions)', '');
  if (k.runs?.length > 1) {
    lines.push(`Run twice (before and after the rounds); the run with the faster f32 matvec is reported: ${k.runs.map((x) => `${f(x.matvecGflops, 1)} GFLOP/s at ${f(x.streamGBs, 1)} GB/s streaming`).join(' and ')}.`, '');
  }
  const shape = `${k.shape?.rows ?? 8000}×${k.shape?.cols ?? 256}`;
  lines.push(`Output projection ${shape} matvec (the shipped model's V × O): SIMD ${f(k.matvec.simd.gflops, 1)} GFLOP/s (${f(k.matvec.simd.minMs, 3)} ms), scalar ${f(k.matvec.scalar.gflops, 1)} GFLOP/s; ` +
    `V8 SIMD128 peak (f32x4 mul+add chains) ${f(k.peak.gflops, 1)} GFLOP/s → ${f(100 * k.matvec.fractionOfPeak, 0)} % of peak. ` +
    `Streaming read of the same ${(k.stream.bytes / 1e6).toFixed(1)} MB: ${f(k.stream.GBs, 1)} GB/s (roof ${f(k.stream.roofGflops, 1)} GFLOP/s); the same kernel on an L2-resident 264×256: ${f(k.matvec.l2Resident264x256.simd.gflops, 1)} GFLOP/s. ` +
    `Before (row-major W): SIMD r4 ${f(k.matvec.rowMajor.simd.gflops, 1)} GFLOP/s, scalar ${f(k.matvec.rowMajor.scalar.gflops, 1)} GFLOP/s. ` +
    (k.matvec.int8Q32 ? `int8 weights (q32, ${((k.shape?.rows ?? 8000) * (k.shape?.cols ?? 256) / 1e6).toFixed(1)} MB): SIMD ${f(k.matvec.int8Q32.simd.gflops, 1)} GFLOP/s (${f(k.matvec.int8Q32.simd.minMs, 3)} ms, ${f(k.matvec.int8Q32.simd.vsF32)}× f32), scalar ${f(k.matvec.int8Q32.scalar.gflops, 1)} GFLOP/s. ` : '') +
    `Vocabulary softmax (${k.shape?.rows ?? 8000}): SIMD ${f(k.vocabSoftmax.simd.minUs, 1)} µs, scalar ${f(k.vocabSoftmax.scalar.minUs, 1)} µs.`, '');
  const sf = r.stepFloor;
  if (sf) {
    const mb = (x) => (x / 1e6).toFixed(1);
    lines.push(`What bounds a decoder step: its weight products are ${sf.macs.toLocaleString('en')} multiply-adds (${mb(sf.f32Bytes)} MB of f32 weights, ${mb(sf.int8Bytes)} MB int8) whatever the source length. ` +
      `At the f32 loop's own best rate (${f(sf.f32.rateGflops, 1)} GFLOP/s, the 24-row panel in L1) they take ${f(sf.f32.floorMs, 3)} ms; ` +
      `the measured f32 step is ${f(sf.f32.measured?.minMs, 3)} ms (min) / ${f(sf.f32.measured?.medianMs, 3)} ms (median), and onnxruntime-web's median step is ${f(sf.f32.ceilingVsOrt)}× the floor: ` +
      `the most an f32 step in this loop shape could gain on it. int8: ${f(sf.int8.rateGflops, 1)} GFLOP/s-equivalent, floor ${f(sf.int8.floorMs, 3)} ms, ` +
      `measured ${f(sf.int8.measured?.minMs, 3)} / ${f(sf.int8.measured?.medianMs, 3)} ms, ceiling ${f(sf.int8.ceilingVsOrt)}× onnxruntime-web f32.`, '');
    const en = sf.encoder;
    if (en?.simd && en?.ort) {
      const ew = en.weights;
      lines.push(`The encoder of the shortest source (#${en.sentence + 1}; whole − decode, medians): ours reads ${mb(4 * (ew.encoder + ew.contextColumns))} MB of f32 weights ` +
        `(${mb(4 * ew.encoder)} MB for the encoder, ${mb(4 * ew.contextColumns)} MB for the decoder's context columns, multiplied here once per position) in ${f(en.simd.ms, 3)} ms (${f(en.simd.GBs, 1)} GB/s); ` +
        `onnxruntime-web reads ${mb(4 * ew.encoder)} MB in ${f(en.ort.ms, 3)} ms (${f(en.ort.GBs, 1)} GB/s)` +
        (en['simd-int8'] ? `; ours on int8 weights ${f(en['simd-int8'].ms, 3)} ms (${mb(ew.encoder + ew.contextColumns)} MB).` : '.'), '');
    }
  }
  lines.push('| attention core (A=256, D=512) | ' + k.attention.map((a) => `S=${a.S}`).join(' | ') + ' |', '|---|' + k.attention.map(() => '---').join('|') + '|');
  lines.push('| SIMD µs | ' + k.attention.map((a) => f(a.simdUs, 1)).join(' | ') + ' |');
  lines.push('| scalar µs | ' + k.attention.map((a) => f(a.scalarUs, 1)).join(' | ') + ' |');
  lines.push('| speed-up | ' + k.attention.map((a) => f(a.speedup)).join(' | ') + ' |', '');
  }
  if (r.browser) {
    const b = r.browser;
    lines.push('### In Chromium', '');
    if (b.error) lines.push(`unavailable: ${b.error}`, '');
    if (b.steps) lines.push(...browserStepLines(b.steps, r.sentences));
    if (b.sliderRedecode) lines.push(`One slider event (re-decode, encoder reused), ${b.sliderRedecode.words}-word sentence (${b.sliderRedecode.steps} steps): median ${f(b.sliderRedecode.medianMs)} ms, min ${f(b.sliderRedecode.minMs)} ms, p90 ${f(b.sliderRedecode.p90Ms)} ms (engine.js on the main thread, ${b.sliderRedecode.variant ?? 'simd'} build${b.sliderRedecode.model ? `, ${b.sliderRedecode.model}` : ''}, ${b.chromium}).`, '');
    if (b.startup) lines.push(...(b.startup.error ? [`Start-up: unavailable (${b.startup.error}).`] : startupLines(b.startup)), '');
    if (b.startupDist) lines.push(...(b.startupDist.error ? [`Start-up of dist/: unavailable (${b.startupDist.error}).`] : startupLines(b.startupDist)), '');
    if (b.offlineVisit) lines.push(...(b.offlineVisit.error ? [`Offline second visit: unavailable (${b.offlineVisit.error}).`] : offlineLines(b.offlineVisit)), '');
    if (b.relaxedKernels) lines.push(...(b.relaxedKernels.error ? [`Kernels in Chromium: unavailable (${b.relaxedKernels.error}).`] : relaxedKernelLines(b.relaxedKernels)), '');
    if (b.growth) lines.push(...(b.growth.error ? [`How cost grows with length: unavailable (${b.growth.error}).`] : growthLines(b.growth)), '');
    if (b.renderBudget) lines.push(...(b.renderBudget.error ? [`Render budget: unavailable (${b.renderBudget.error}).`] : budgetLines(b.renderBudget)), '');
    if (b.pageTestMetrics?.sliderRoundTripMedianMs != null) lines.push(`Page test (tests/artifacts/metrics.json): slider round trip through the worker, median ${b.pageTestMetrics.sliderRoundTripMedianMs} ms; navigation → first heatmap ${b.pageTestMetrics.navigationToFirstHeatmapMs} ms.`, '');
  }
  lines.push('### Targets', '', '| target | measured | goal | met |', '|---|---|---|---|');
  for (const t of r.targets) {
    const v = t.value == null ? (t.note ?? '–') : t.unit === '' ? `${f(100 * t.value, 0)} %` :
      `${f(t.value)} ${t.unit}${t.range ? ` (${f(t.range[0])}–${f(t.range[1])})` : ''}`;
    const g = t.goal == null ? '(context)' : t.unit === '' ? `≥ ${100 * t.goal} %` : t.lowerIsBetter ? `${t.orEqual ? '≤' : '<'} ${t.goal} ${t.unit}` : `≥ ${t.goal} ${t.unit}`;
    lines.push(`| ${t.name} | ${v} | ${g} | ${t.goal == null ? '' : t.met == null ? 'n/a' : t.met ? 'yes' : 'no'} |`);
  }
  return `${lines.join('\n')}\n`;
}

await main();
