// kernels_bench.mjs - micro-benchmarks of the kernels in V8 (Node), from
// build/bench/kernels_bench.wasm (tests/bench/kernels_bench.c, both twins).
//
//   node --no-liftoff tests/bench/kernels_bench.mjs [--quick]      prints JSON
//   (bench.mjs runs it so: TurboFan code from the first call; without the
//   flag the time-based warm-up below has to outlast V8's tier-up)
//
// - attention core (additive scores + softmax + context, A = 256, D = 512)
//   for source lengths 8 ... 512, SIMD twin against scalar twin;
// - the shipped model's output projection matvec (V x O, e.g. 6000 x 256) in GFLOP/s (2 flops per weight),
//   p24 layout (what the engine runs) and row-major (what it ran before),
//   against the V8 SIMD128 arithmetic peak measured here (f32x4 mul + add
//   chains, no memory traffic) and the streaming read bandwidth over the
//   same 8 MB matrix; also on an L2-resident and an L1-resident panel;
// - the same product with int8 weights (q32), against the peak of its
//   instruction pair (i32x4.dot_i16x8_s + add chains).
// Every figure is the minimum and the median over repetitions after warm-up;
// GFLOP/s use the minimum time (the kernel's capability, not the noise).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KERNELS_WASM = join(ROOT, 'build', 'bench', 'kernels_bench.wasm');

export const ATTENTION_LENGTHS = [8, 16, 32, 64, 128, 256, 512];
// The shipped model's shapes (build/bench/models.json, tests/bench/make_models.py):
// attention dim A, annotation dim D = 2 x encoder hidden, and the output
// projection ROWS (target vocabulary) x COLS (output dim).
const MODELS_JSON = join(ROOT, 'build', 'bench', 'models.json');
const shipped = existsSync(MODELS_JSON) ? JSON.parse(readFileSync(MODELS_JSON, 'utf8')).config : null;
const A = shipped?.attention_dim ?? 256, D = 2 * (shipped?.encoder_hidden ?? 256);
const ROWS = shipped?.tgt_vocab_size ?? 8000, COLS = shipped?.output_dim ?? 256;

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

let warmMs = 200;

let burstPauseMs = 150;
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Times fn(iters) `reps` times after warming up (at least 3 calls and
 * warmMs of running: V8 first runs wasm in its baseline compiler, Liftoff,
 * and swaps in TurboFan code only for later calls); per-iteration ms. With
 * bursts > 1 the samples come in that many bursts, burstPauseMs apart: this
 * host's memory bandwidth is shared and drifts, and a memory-bound kernel
 * timed in one 40 ms burst can land wholly in a slow spell. */
function time(fn, iters, reps, bursts = 1) {
  const start = performance.now();
  for (let i = 0; i < 3 || performance.now() - start < warmMs; i++) fn(iters);
  const samples = [];
  for (let burst = 0; burst < bursts; burst++) {
    if (burst > 0) sleep(burstPauseMs);
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      fn(iters);
      samples.push((performance.now() - t0) / iters);
    }
  }
  return { min: Math.min(...samples), median: median(samples) };
}

export async function runKernelBench({ quick = false } = {}) {
  const { instance } = await WebAssembly.instantiate(readFileSync(KERNELS_WASM), {
    env: { emscripten_notify_memory_growth() {} },
  });
  const k = instance.exports;
  k._initialize?.();
  if (k.kb_setup(512, A, D, ROWS, COLS) !== 0) throw new Error('kernels_bench: out of memory');
  const reps = quick ? 3 : 15;
  warmMs = quick ? 60 : 200;

  // peak: 8 flops per chain per iteration
  const peakIters = quick ? 200_000 : 2_000_000;
  const bursts = quick ? 1 : 5;
  const peaks = [[8, k.kb_peak8], [12, k.kb_peak12]].map(([chains, fn]) => {
    const t = time(fn, peakIters, reps, bursts);
    return { chains, gflops: (8 * chains) / (t.min * 1e6), gflopsMedian: (8 * chains) / (t.median * 1e6) };
  });
  const peak = Math.max(...peaks.map((p) => p.gflops));
  // the int8 kernel's pair (i32x4.dot_i16x8_s + i32x4.add), 8 chains: 128 flop-equivalents per iteration
  const dotT = time(k.kb_peak_dot8, peakIters, reps, bursts);
  const dotPeak = { chains: 8, gflops: 128 / (dotT.min * 1e6), gflopsMedian: 128 / (dotT.median * 1e6) };

  const streamT = time(k.kb_stream, 1, reps * 2, bursts);
  const streamGBs = (4 * ROWS * COLS) / (streamT.min * 1e6);

  // The V x O output projection, in the layout the engine uses (p24)
  // and row-major (the kernels the engine used before).
  const matvec = {}, rowMajor = {};
  for (const [name, simd] of [['simd', 1], ['scalar', 0]]) {
    for (const [into, layout] of [[matvec, 0], [rowMajor, 1]]) {
      const t = time((n) => k.kb_matvec(simd, layout, ROWS, n), quick ? 2 : 10, reps * 2, bursts);
      into[name] = {
        minMs: t.min, medianMs: t.median,
        gflops: (2 * ROWS * COLS) / (t.min * 1e6), gflopsMedian: (2 * ROWS * COLS) / (t.median * 1e6),
      };
    }
  }
  // The same product with int8 weights (q32 layout, a quarter of the bytes).
  const i8 = {};
  for (const [name, simd] of [['simd', 1], ['scalar', 0]]) {
    const t = time((n) => k.kb_matvec_i8(simd, ROWS, n), quick ? 2 : 10, reps * 2, bursts);
    i8[name] = {
      minMs: t.min, medianMs: t.median,
      gflops: (2 * ROWS * COLS) / (t.min * 1e6), gflopsMedian: (2 * ROWS * COLS) / (t.median * 1e6),
      vsF32: matvec[name].minMs / t.min,
    };
  }
  // The same kernel on a matrix that fits in L2 (264 x 256, 270 KB): the
  // arithmetic capability with the memory roof out of the way.
  const small = {};
  for (const [name, simd] of [['simd', 1], ['scalar', 0]]) {
    const t = time((n) => k.kb_matvec(simd, 0, 264, n), quick ? 50 : 500, reps * 2, bursts);
    small[name] = { minMs: t.min, gflops: (2 * 264 * COLS) / (t.min * 1e6) };
  }
  // ... and on one 24-row panel (24 KB, in L1): the loop's own ceiling.
  const l1 = {};
  {
    const t = time((n) => k.kb_matvec(1, 0, 24, n), quick ? 500 : 5000, reps * 2, bursts);
    l1.simd = { minMs: t.min, gflops: (2 * 24 * COLS) / (t.min * 1e6) };
  }
  const softmax = {};
  for (const [name, simd] of [['simd', 1], ['scalar', 0]]) {
    const t = time((n) => k.kb_softmax(simd, ROWS, n), quick ? 10 : 100, reps * 2);
    softmax[name] = { minUs: t.min * 1e3, medianUs: t.median * 1e3 };
  }

  const attention = [];
  for (const s of quick ? [8, 32, 512] : ATTENTION_LENGTHS) {
    const iters = Math.max(4, Math.round((quick ? 2000 : 20000) / s));
    const simd = time((n) => k.kb_attention(1, s, n), iters, reps);
    const scalar = time((n) => k.kb_attention(0, s, n), iters, reps);
    const parts = {};
    for (const [p, name] of ['scores', 'softmax', 'context'].entries()) {
      const ps = time((n) => k.kb_attention_part(1, p, s, n), iters, reps);
      const pc = time((n) => k.kb_attention_part(0, p, s, n), iters, reps);
      parts[name] = { simdUs: ps.min * 1e3, scalarUs: pc.min * 1e3, speedup: pc.min / ps.min };
    }
    attention.push({
      S: s, simdUs: simd.min * 1e3, simdMedianUs: simd.median * 1e3, scalarUs: scalar.min * 1e3,
      scalarMedianUs: scalar.median * 1e3, speedup: scalar.min / simd.min, parts,
    });
  }
  return {
    peak: { gflops: peak, chains: peaks },
    dotPeak,
    stream: { GBs: streamGBs, bytes: 4 * ROWS * COLS, roofGflops: streamGBs / 2 },
    matvec: { rows: ROWS, cols: COLS, layout: 'p24', ...matvec, fractionOfPeak: matvec.simd.gflops / peak, l2Resident264x256: small, l1Resident24x256: l1, rowMajor,
      int8Q32: { ...i8, fractionOfDotPeak: i8.simd.gflops / dotPeak.gflops } },
    vocabSoftmax: { n: ROWS, ...softmax },
    attention, shape: { A, D, rows: ROWS, cols: COLS, from: shipped ? 'build/bench/models.json' : 'default shape (no build/bench/models.json)' },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runKernelBench({ quick: process.argv.includes('--quick') });
  console.log(JSON.stringify(r, null, 1));
}
