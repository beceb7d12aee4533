// The benchmark keeps working (no timing is asserted: timings belong to
// `./build.sh bench`, not to tests). A quick run of tests/bench/bench.mjs on
// our own backends (simd, scalar wasm; native) and of the kernel
// micro-benchmarks must produce well-formed JSON. Skipped when the bench
// artefacts have not been built (`./build.sh bench --build-only`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PYTHON } from '../support/alsc.mjs';
import { runGroup } from '../support/run-group.mjs';
import { PROFILES, cardCosts, budgetTargets } from './render_budget.mjs';
import { offlineTargets } from './offline_visit.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NEEDED = ['build/bench/model.alsc', 'build/bench/model-int8.alsc', 'build/bench/models.json', 'build/bench/native_bench', 'build/bench/kernels_bench.wasm',
  'web/gen/alignscope-simd.wasm', 'web/gen/alignscope-scalar.wasm'];
const missing = NEEDED.filter((f) => !existsSync(join(ROOT, f)));
const skip = missing.length ? `not built (${missing[0]}): run ./build.sh bench --build-only` : false;

test('bench.mjs --quick on our backends writes well-formed results', { skip, timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-bench-'));
  try {
    const out = join(dir, 'results.json');
    const r = spawnSync(process.execPath, [join(ROOT, 'tests', 'bench', 'bench.mjs'), '--quick', '--no-kernels',
      '--only', 'simd,scalar,simd-int8,native,native-int8', '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
    assert.equal(r.status, 0, r.stderr);
    const res = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(Object.keys(res.stats).sort(), ['native', 'native-int8', 'scalar', 'simd', 'simd-int8']);
    assert.ok(res.int8VsF32.step.median > 0, 'int8 vs f32 ratio');
    assert.ok(res.nativeInt8VsF32.step.median > 0, 'int8 vs f32 ratio, natively');
    assert.equal(res.agreement.native.sameTokens, true, 'native f32: the simd build\'s tokens');
    assert.equal(res.agreement['native-int8'].sameAsSimdInt8, true, 'native int8: the simd build\'s int8 tokens');
    for (const [name, s] of Object.entries(res.stats)) {
      assert.equal(s.sentences.length, res.sentences.length, name);
      for (const p of s.sentences) {
        assert.ok(p.wholeMedianMs > 0 && p.stepMedianMs > 0 && p.steps >= 1, `${name}: ${JSON.stringify(p)}`);
      }
      assert.equal(res.tokens[name].length, res.sentences.length);
    }
    assert.equal(res.agreement.scalar.perSentence.length, res.sentences.length);
    assert.match(r.stdout, /\| backend \|/, 'the Markdown table');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('kernels_bench.mjs --quick reports every kernel', { skip, timeout: 120_000 }, () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'tests', 'bench', 'kernels_bench.mjs'), '--quick'], { cwd: ROOT, encoding: 'utf8', timeout: 110_000 });
  assert.equal(r.status, 0, r.stderr);
  const k = JSON.parse(r.stdout);
  assert.ok(k.peak.gflops > 0 && k.stream.GBs > 0);
  for (const v of ['simd', 'scalar']) assert.ok(k.matvec[v].gflops > 0 && k.matvec.rowMajor[v].gflops > 0 && k.matvec.int8Q32[v].gflops > 0 && k.vocabSoftmax[v].minUs > 0);
  assert.ok(k.attention.length >= 3 && k.attention.every((a) => a.simdUs > 0 && a.scalarUs > 0));
});

test('render_budget.mjs: a card’s costliest frame sums its update and the paints it queued in that frame; the targets of the issue, the rest context', () => {
  const costs = cardCosts([['heat', 'update', 'heat', 2, 1], ['heat', 'job', 'heatmap-1', 5, 1], ['steps', 'update', 'steps', 3, 1], ['heat', 'update', 'heat', 1, 2], ['steps', 'update', 'steps', 4, 2]]);
  assert.deepEqual(costs, [{ card: 'heat', maxFrameMs: 7, totalMs: 8, frames: 2 }, { card: 'steps', maxFrameMs: 4, totalMs: 7, frames: 2 }]);
  const p = (ms) => ({ slider: { p90Ms: ms, longestTaskMs: 10 }, keystroke: { p90: 5 } });
  const rows = budgetTargets({ profiles: Object.keys(PROFILES), desktop: p(12), throttled4x: p(70), everyCardOpen: p(30), phone: p(90) });
  const goal = (re) => rows.find((t) => re.test(t.name));
  assert.deepEqual([goal(/desktop \(p90\)/).goal, goal(/every card present/).goal, goal(/every card open \(p90\)/).goal], [16, 60, 33]);
  assert.deepEqual([goal(/desktop \(p90\)/).met, goal(/every card present/).met, goal(/every card open \(p90\)/).met], [true, false, true]);
  assert.equal(goal(/phone profile/).goal, null, 'the phone: context, no goal of its own');
  assert.equal(goal(/keystroke → paint, 4× throttling/).goal, 50);
  assert.equal(goal(/longest main-thread task while dragging, desktop/).goal, 50);
  const [off] = offlineTargets({ runs: 7, medianMs: 280, goalMs: 300 });
  assert.deepEqual([off.goal, off.met, off.unit], [300, true, 'ms']);
});

test('render_budget.mjs --quick measures the page in Chromium and reports every figure', { skip: existsSync(join(ROOT, 'web', 'gen', 'alignscope-simd.wasm')) ? false : 'web/gen not built: run ./build.sh wasm', timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-budget-'));
  try {
    const out = join(dir, 'budget.json');
    const r = await runGroup([join(ROOT, 'tests', 'bench', 'render_budget.mjs'), '--quick', '--json', out], 290_000);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout.slice(-2000)}`);
    const b = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(b.words, 30);
    assert.deepEqual(b.profiles, Object.keys(PROFILES), 'every profile ran');
    for (const name of b.profiles) {
      const p = b[name];
      assert.ok(p.slider.inputs > 0 && p.slider.paints > 0 && p.slider.answered > 0, `${name}: ${JSON.stringify(p.slider)}`);
      assert.ok(p.slider.p50Ms > 0 && p.slider.p90Ms >= p.slider.p50Ms && p.slider.longestTaskMs > 0, `${name}: ${JSON.stringify(p.slider)}`);
      assert.ok(p.keystroke.keys > 0 && p.keystroke.p90 > 0, `${name}: ${JSON.stringify(p.keystroke)}`);
      // The scheduler's timing hook: the heatmap card is among the cards that worked, costliest first.
      assert.ok(p.cards.some((c) => c.card === 'heat' && c.maxFrameMs > 0), `${name}: ${JSON.stringify(p.cards)}`);
      for (let i = 1; i < p.cards.length; i++) assert.ok(p.cards[i - 1].maxFrameMs >= p.cards[i].maxFrameMs, `${name}: sorted`);
    }
    // The long paste, on the desktop: its translation came, and the page's long tasks were recorded.
    const paste = b.desktop.paste;
    assert.ok(paste && paste.shownMs > 0 && Number.isFinite(paste.longestTaskMs) && paste.tasksOver50 >= 0, JSON.stringify(paste));
    assert.ok(b.profiles.filter((n) => b[n].paste).length === 1, 'the paste on the desktop only');
    assert.match(r.stdout, /A 10,000-character paste .*desktop: on screen [0-9.]+ ms after the paste; longest main-thread task until quiet [0-9.]+ ms/);
    assert.equal(b.throttled4x.cpuThrottling, 4);
    assert.equal(b.phone.cpuThrottling, 4);
    assert.equal(b.phone.input, 'touch');
    assert.equal(b.phone.viewport, '360×740');
    assert.equal(b.everyCardOpen.open.everyCardOnScreen, true);
    assert.ok(b.everyCardOpen.open.compared >= 1, 'models compared');
    // The drag's work (up to the paint of its last value): the cards below the first screen follow it with
    // every card open, in more frames than on the desktop (there at most in a quiet catch-up of a slow machine).
    const framesOf = (name, card) => b[name].cards.find((c) => c.card === card)?.frames ?? 0;
    for (const far of ['compare', 'training']) {
      assert.ok(framesOf('everyCardOpen', far) > framesOf('desktop', far), `${far}: ${framesOf('everyCardOpen', far)} frames with every card open, ${framesOf('desktop', far)} on the desktop`);
    }
    assert.match(r.stdout, /\| desktop \|.*\| 4× CPU throttling \(every card present\) \|.*\| desktop, every card open \|.*\| phone /s, 'the Markdown table');
    // The costliest is a card (heat) or a job a card queued, named by its key (heatmap-2: the second heatmap's paint).
    const costliest = b.desktop.cards[0];
    assert.match(costliest.card, /^[a-z][\w-]*$/, JSON.stringify(costliest));
    assert.ok(r.stdout.includes(`longest card paint, desktop: ${costliest.card} (${costliest.maxFrameMs.toFixed(1)} ms in one frame)`), `which card took longest: ${r.stdout.slice(-600)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('browser_steps.mjs --quick: every build and onnxruntime-web in Chromium, paired, same tokens', { skip: skip || (existsSync(join(ROOT, 'build', 'bench', 'decoder_step.onnx')) ? false : 'build/bench/*.onnx not built'), timeout: 170_000 }, async () => {
  const r = await runGroup([join(ROOT, 'tests', 'bench', 'browser_steps.mjs'), '--quick'], 160_000);
  assert.equal(r.status, 0, `${r.stderr.slice(-3000)}`);
  const res = JSON.parse(r.stdout);
  assert.equal(res.crossOriginIsolated, true, 'a fine timer');
  // Chromium 114+ runs relaxed SIMD: nothing of ours may be missing there.
  assert.deepEqual(Object.keys(res.stats).sort(), ['ort', 'relaxed', 'relaxed-int8', 'simd', 'simd-int8']);
  assert.deepEqual(res.unavailable, {});
  for (const [name, s] of Object.entries(res.stats)) {
    for (const p of s.sentences) assert.ok(p.wholeMedianMs > 0 && p.decodeMedianMs > 0 && p.steps >= 1, `${name}: ${JSON.stringify(p)}`);
    assert.equal(res.ratiosVsOrt[name].step.rounds, res.rounds, name);
  }
  // Every build agrees with the SIMD128 build of the same weights on every greedy token of the shipped
  // files, ORT with the f32 one (relaxed rounding may differ, but not enough to flip one here).
  assert.equal(res.agreement['relaxed-int8'].reference, 'simd-int8');
  assert.equal(res.agreement.ort.reference, 'simd');
  for (const [name, a] of Object.entries(res.agreement)) assert.equal(a.sameTokens, true, `${name} against ${a.reference}: ${JSON.stringify(a.perSentence)}`);
  assert.ok(res.relaxedVsSimd.f32.step.median > 0 && res.relaxedVsSimd.int8.step.median > 0);
  assert.match(r.stderr, /\| alignscope wasm relaxed SIMD, int8 weights \|/, 'the Markdown table');
});

// The erasure card's bench row (erasure_bench.mjs): once, one repetition, on the shipped models
// (no timing judged): 10 and 30 words on the default model and the no-attention one, a column per source word.
test('erasure_bench.mjs: the map for 10 and 30 words, in rows the report and the targets take', { skip: existsSync(join(ROOT, 'web/gen/alignscope-simd.wasm')) ? false : 'web/gen not built (./build.sh wasm)', timeout: 170_000 }, async () => {
  const { erasureBench, erasureLines, erasureTargets, ERASURE_SENTENCES } = await import('./erasure_bench.mjs');
  assert.deepEqual(ERASURE_SENTENCES.map((s) => s.split(/\s+/).length), [10, 30]);
  const b = await erasureBench({ root: ROOT, reps: 1 });
  const catalogue = JSON.parse(readFileSync(join(ROOT, 'models', 'index.json'), 'utf8'));
  assert.deepEqual(b.rows.map((r) => [r.model, r.words]), [[catalogue.default, 10], [catalogue.default, 30], ['en-fr-none', 10], ['en-fr-none', 30]]);
  for (const r of b.rows) {
    assert.ok(r.workerMs > 0 && r.mainMs >= 0 && r.steps >= 1, JSON.stringify(r));
    assert.ok(r.columns >= r.words - 1, `${r.model}: a column per source word (${r.columns} for ${r.words} words)`);
  }
  assert.equal(erasureTargets(b).length, 2 * b.rows.length);
  assert.ok(erasureLines(b, (x) => x.toFixed(2)).some((l) => l.startsWith(`| ${catalogue.default} (`)));
});

// A layer-norm model's encoder is a loop over the positions: make_models.py
// scripts it, so its ONNX graph keeps the loop and runs any source length
// (a traced export would be fixed at the length it was traced with).
test('make_models.py on the layer-norm test model: its ONNX encoder runs any source length in onnxruntime-web, as PyTorch encodes', { timeout: 120_000 }, async (t) => {
  const model = join(ROOT, 'build', 'test-models', 'layer-norm.alsc');
  if (!existsSync(model)) return t.skip('build/test-models/layer-norm.alsc not built (./build.sh models)');
  const out = mkdtempSync(join(tmpdir(), 'alignscope-ln-onnx-'));
  try {
    const env = { ...process.env, OPENBLAS_NUM_THREADS: '1' };
    const made = spawnSync(PYTHON, [join(ROOT, 'tests', 'bench', 'make_models.py'), out, '--model', model,
      '--int8-model', join(ROOT, 'build', 'test-models', 'layer-norm-int8.alsc')], { encoding: 'utf8', env });
    assert.equal(made.status, 0, made.stderr);
    const lengths = [1, 3, 11];
    const torchSide = spawnSync(PYTHON, ['-c', `
import json, sys, torch
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'models', 'train'))})
import alsc_to_torch
m = alsc_to_torch.load(${JSON.stringify(model)}).model
out = []
with torch.no_grad():
    for n in ${JSON.stringify(lengths)}:
        src = torch.arange(n).unsqueeze(0) * 7 % 300 + 4
        a, k, s0 = m.encode(src, torch.tensor([n]))
        out.append({"src": src[0].tolist(), "annotations": a.flatten().tolist(), "s0": s0.flatten().tolist()})
print(json.dumps(out))`], { encoding: 'utf8', env });
    assert.equal(torchSide.status, 0, torchSide.stderr);
    const { createRequire } = await import('node:module');
    const ort = createRequire(join(ROOT, 'package.json'))('onnxruntime-web');
    ort.env.wasm.numThreads = 1;
    const session = await ort.InferenceSession.create(readFileSync(join(out, 'encoder.onnx')));
    for (const want of JSON.parse(torchSide.stdout)) {
      const src = new ort.Tensor('int64', BigInt64Array.from(want.src.map(BigInt)), [1, want.src.length]);
      const got = await session.run({ src });
      assert.deepEqual(got.annotations.dims.slice(0, 2), [1, want.src.length]);
      const worst = Math.max(...want.annotations.map((v, i) => Math.abs(v - got.annotations.data[i])), ...want.s0.map((v, i) => Math.abs(v - got.s0.data[i])));
      assert.ok(worst < 1e-5, `S=${want.src.length}: ONNX against PyTorch ${worst}`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
