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
import { runGroup } from '../support/run-group.mjs';

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
      '--only', 'simd,scalar,simd-int8,native', '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 });
    assert.equal(r.status, 0, r.stderr);
    const res = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(Object.keys(res.stats).sort(), ['native', 'scalar', 'simd', 'simd-int8']);
    assert.ok(res.int8VsF32.step.median > 0, 'int8 vs f32 ratio');
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

test('render_budget.mjs --quick measures the page in Chromium and reports every figure', { skip: existsSync(join(ROOT, 'web', 'gen', 'alignscope-simd.wasm')) ? false : 'web/gen not built: run ./build.sh wasm', timeout: 170_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-budget-'));
  try {
    const out = join(dir, 'budget.json');
    const r = await runGroup([join(ROOT, 'tests', 'bench', 'render_budget.mjs'), '--quick', '--json', out], 160_000);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout.slice(-2000)}`);
    const b = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(b.words, 30);
    for (const name of ['desktop', 'throttled4x']) {
      const p = b[name];
      assert.ok(p.slider.inputs > 0 && p.slider.paints > 0 && p.slider.answered > 0, `${name}: ${JSON.stringify(p.slider)}`);
      assert.ok(p.slider.p50Ms > 0 && p.slider.p90Ms >= p.slider.p50Ms && p.slider.longestTaskMs > 0, `${name}: ${JSON.stringify(p.slider)}`);
      assert.ok(p.keystroke.keys > 0 && p.keystroke.p90 > 0, `${name}: ${JSON.stringify(p.keystroke)}`);
    }
    assert.equal(b.throttled4x.cpuThrottling, 4);
    assert.match(r.stdout, /\| desktop \|.*\| 4× CPU throttling \|/s, 'the Markdown table');
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
  // The builds and ORT agree on every greedy token of the shipped model (relaxed rounding may differ, but not enough to flip one here).
  for (const [name, a] of Object.entries(res.agreement)) assert.equal(a.sameTokens, true, `${name}: ${JSON.stringify(a.perSentence)}`);
  assert.ok(res.relaxedVsSimd.f32.step.median > 0 && res.relaxedVsSimd.int8.step.median > 0);
  assert.match(r.stderr, /\| alignscope wasm relaxed SIMD, int8 weights \|/, 'the Markdown table');
});
