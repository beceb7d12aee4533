// The relaxed kernel bench keeps working (tests/bench/kernels_relaxed.mjs):
// its quick mode in Chromium gives a well-formed, internally consistent
// result. No timing is asserted (timings belong to `./build.sh bench`):
// only that every figure is there and positive (a fraction of a peak is one
// timing over another: no bound holds for it on a loaded machine, where a
// quick run's peak can be measured low), that the twins computed the same
// thing (their checksums), and
// that the peak loops ran what they claim. Skipped when the module has not
// been built (`./build.sh bench --build-only`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, launchChromium } from '../support/chromium.mjs';

import {
  KERNELS_RELAXED_WASM, Q8C4_DIGITS, outputLayerShape, rdotChecksum, relaxedKernelBench, relaxedKernelLines, relaxedKernelTargets,
} from './kernels_relaxed.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const skip = !existsSync(KERNELS_RELAXED_WASM) ? 'not built (build/bench/kernels_bench_relaxed.wasm): run ./build.sh bench --build-only'
  : !existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM}` : false;

test('rdotChecksum: the relaxed-dot chains\' closed form, modulo 2^32', () => {
  assert.equal(rdotChecksum(8, 0), 28);
  assert.equal(rdotChecksum(12, 1), 66 - 12 * 1212);
  // 8 chains x 2e6 iterations x -1212 wraps around int32 (the C code's i32x4 lanes)
  const exact = 28 - 8 * 2_000_000 * 1212;
  assert.equal(rdotChecksum(8, 2_000_000), ((exact % 2 ** 32) + 2 ** 32 + 2 ** 31) % 2 ** 32 - 2 ** 31);
});

// Each peak loop must hold the instructions its flops count: a compiler that
// merges two chains with the same operands, or drops a chain it can prove
// constant, silently doubles a peak (tests/bench/kernels_bench.c's kb_peak_dot8
// runs 4 dots per iteration for the 8 it counts, its kb_peak12 11 chains).
// Read from clang 19's assembly of the bench source, the flags of build.sh:
// per loop trip, instruction count = chains x the trip's unrolling (the
// counter's step).
const hasClang = spawnSync('clang-19', ['--version']).status === 0;
test('the peak loops run the instructions they count (clang 19 assembly)', { skip: hasClang ? false : 'no clang-19' }, () => {
  const r = spawnSync('clang-19', ['--target=wasm32-wasi', '-std=c99', '-ffp-contract=off', '-O3', '-msimd128', '-mrelaxed-simd', '-S', '-o', '-',
    join(ROOT, 'tests', 'bench', 'kernels_bench_relaxed.c')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const expected = {
    kb_peak_muladd8: { 'f32x4.mul': 8, 'f32x4.add': 8 }, kb_peak_muladd12: { 'f32x4.mul': 12, 'f32x4.add': 12 },
    kb_peak_madd8: { 'f32x4.relaxed_madd': 8 }, kb_peak_madd12: { 'f32x4.relaxed_madd': 12 },
    kb_peak_dot8: { 'i32x4.dot_i16x8_s': 8, 'i32x4.add': 8 },
    kb_peak_rdot8: { 'i32x4.relaxed_dot_i8x16_i7x16_add_s': 8 }, kb_peak_rdot12: { 'i32x4.relaxed_dot_i8x16_i7x16_add_s': 12 },
  };
  for (const [fn, counts] of Object.entries(expected)) {
    const body = r.stdout.split(new RegExp(`^${fn}:`, 'm'))[1]?.split(/^\s*end_function/m)[0];
    assert.ok(body, `${fn} in the assembly`);
    const loops = body.split(/^\s*loop\b/m).slice(1).map((l) => l.split(/^\s*end_loop/m)[0]);
    assert.equal(loops.length, 1, `${fn}: one loop`);
    const step = /i32\.const\s+-(\d+)\s*\n\s*i32\.add\s*\n\s*local\.tee\s+\d+\s*\n\s*br_if\s+0/.exec(loops[0]);
    assert.ok(step, `${fn}: a counted loop`);
    const unroll = Number(step[1]);
    const ops = loops[0].split('\n').map((l) => l.trim().split(/\s+/)[0]);
    for (const [op, perIteration] of Object.entries(counts)) {
      assert.equal(ops.filter((o) => o === op).length, perIteration * unroll, `${fn}: ${op} per iteration (loop unrolled ${unroll}x)`);
    }
    // nothing spilled to the stack pointer's memory, no loads at all
    assert.ok(!ops.some((o) => /load|store/.test(o)), `${fn}: no memory access in the loop`);
  }
});

test('kernels_relaxed.mjs quick mode in Chromium: every figure, consistent', { skip, timeout: 120_000 }, async () => {
  const browser = await launchChromium();
  let r;
  try {
    r = await relaxedKernelBench(browser, { quick: true });
  } finally {
    await browser.close();
  }
  assert.equal(r.error, undefined, r.error);
  assert.deepEqual(JSON.parse(JSON.stringify(r)), r, 'JSON-able');
  assert.equal(r.crossOriginIsolated, true, 'fine timer resolution');

  // The shipped default model's output layer.
  const shape = await outputLayerShape();
  assert.equal(r.shape.model, 'models/en-fr-int8.alsc');
  assert.deepEqual([r.shape.rows, r.shape.cols], [shape.rows, shape.cols]);
  assert.equal(r.shape.weightType, 'int8');

  const positive = (x, what) => assert.ok(Number.isFinite(x) && x > 0, `${what}: ${x}`);
  for (const [name, p] of Object.entries(r.peaks)) {
    positive(p.gflops, name);
    assert.equal(p.gflops, Math.max(...p.chains.map((c) => c.gflops)), `${name}: the best chain count`);
    for (const c of p.chains) assert.ok(c.minMs <= c.medianMs, `${name}/${c.chains}: min <= median`);
  }
  for (const kind of ['f32', 'int8']) {
    positive(r.stream[kind].GBs, `stream ${kind}`);
    for (const m of [r.matvec[kind], r.matvec[kind].l1]) {
      assert.equal(m.cols, r.shape.cols);
      for (const twin of ['simd', 'relaxed']) {
        positive(m[twin].gflops, `${kind} ${m.rows} rows ${twin}`);
        assert.ok(m[twin].minMs <= m[twin].medianMs);
        assert.ok(Math.abs(m[twin].gflops - (2 * m.rows * m.cols) / (m[twin].minMs * 1e6)) < 1e-9 * m[twin].gflops, '2 flops per weight');
      }
      assert.ok(Math.abs(m.relaxedSpeedup - m.simd.minMs / m.relaxed.minMs) < 1e-12 * m.relaxedSpeedup);
    }
  }
  assert.equal(r.matvec.f32.rows, r.shape.rows);
  assert.equal(r.matvec.int8.rows, r.shape.rows);

  // Fractions of the instructions' peaks: there and positive. (Not bounded: a ratio of two timings of a quick
  // run. Under load a peak loop interrupted in each of its 3 repetitions made simdF32OfMulAddPeak 1.51.)
  const fr = r.fractions;
  for (const name of ['relaxedInt8OfRelaxedDotPeak', 'relaxedInt8DotRateOfPeak', 'relaxedInt8L1OfRelaxedDotPeak', 'relaxedInt8L1DotRateOfPeak',
    'relaxedF32OfRelaxedMaddPeak', 'relaxedF32L1OfRelaxedMaddPeak', 'simdInt8OfDotPeak', 'simdInt8L1OfDotPeak', 'simdF32OfMulAddPeak']) {
    assert.ok(Number.isFinite(fr[name]) && fr[name] > 0, `${name}: ${fr[name]}`);
  }
  assert.equal(fr.relaxedInt8Ceiling, 1 / Q8C4_DIGITS);
  // the two ways of counting the relaxed int8 matvec differ by exactly the digits (cols % 4 == 0)
  if (r.shape.cols % 4 === 0) assert.ok(Math.abs(fr.relaxedInt8DotRateOfPeak * fr.relaxedInt8Ceiling - fr.relaxedInt8OfRelaxedDotPeak) < 1e-12);

  // The checksums: the twins computed the same products, the peaks ran.
  assert.equal(r.checks.int8TwinsEqual, true, 'q32 SIMD128 and q8c4 relaxed: bit for bit');
  assert.equal(r.matvec.int8.simd.checksum, r.matvec.int8.relaxed.checksum);
  assert.ok(r.checks.f32TwinsRelDiff < 1e-4, `f32 twins: ${r.checks.f32TwinsRelDiff}`);
  assert.equal(r.checks.relaxedDotChecksums, true, JSON.stringify(r.peaks.relaxedDot.chains.map((c) => [c.chains, c.checksum, rdotChecksum(c.chains, r.peakIters)])));
  assert.equal(r.checks.f32PeaksConverged, true);

  const lines = relaxedKernelLines(r);
  assert.ok(lines.every((l) => typeof l === 'string'));
  const md = lines.join('\n');
  assert.match(md, /\| \| SIMD128 \| relaxed SIMD \| relaxed ÷ SIMD128 \|/);
  assert.match(md, new RegExp(`int8 ${r.shape.rows}×${r.shape.cols} matvec`));
  assert.doesNotMatch(md, /NaN|undefined|–/);

  const targets = relaxedKernelTargets(r);
  assert.match(targets[0].name, /^int8 matvec the page runs \(q32, both builds\)/);
  assert.equal(targets[0].goal, 0.70);
  assert.equal(targets[0].unit, '');
  assert.equal(targets[0].value, fr.simdInt8OfDotPeak);
  assert.equal(targets[0].met, fr.simdInt8OfDotPeak >= 0.70);
  for (const t of targets.slice(1)) {
    assert.equal(t.goal, null, t.name);
    assert.equal(t.met, null, t.name);
    positive(t.value, t.name);
  }
});

test('relaxedKernelLines / Targets on an unavailable result', () => {
  assert.match(relaxedKernelLines({ error: 'no relaxed SIMD' }).join('\n'), /unavailable: no relaxed SIMD/);
  assert.deepEqual(relaxedKernelTargets({ error: 'x' }), []);
});
