// kernels_relaxed.mjs - the relaxed-SIMD weight products against the peaks of
// their own instructions, and against their SIMD128 twins, in Chromium
// (build/bench/kernels_bench_relaxed.wasm from tests/bench/kernels_bench_relaxed.c;
// Node 20 computes i32x4.relaxed_dot_i8x16_i7x16_add_s wrongly, web/engine.js).
//
//   node tests/bench/kernels_relaxed.mjs [--quick]      prints JSON
//   (bench.mjs calls relaxedKernelBench(browser, { quick }) in its Chromium part)
//
// Measured, on the shipped default model's output layer shape (tgtVocabSize x
// outputDim of models/en-fr-int8.alsc, read through web/engine.js):
// - the f32 matvec, p24 layout: SIMD128 twin (f32x4.mul + add) and relaxed
//   twin (f32x4.relaxed_madd), in GFLOP/s (2 flops per weight);
// - the int8 matvec: SIMD128 twin on q32 (i32x4.dot_i16x8_s + add) and
//   relaxed twin on q8c4 (i32x4.relaxed_dot_i8x16_i7x16_add_s), GFLOP/s
//   counted the same way (2 per weight);
// - each on a panel that stays in L1 (the loop's own ceiling);
// - the peak of each one's instructions: independent chains of them, no memory
//   traffic, counted as flops as today's kernel bench does (f32x4 mul + add
//   and relaxed_madd: 8 per chain step; dot_i16x8_s: 8 multiply-adds = 16;
//   relaxed_dot_i8x16_i7x16_add_s: 16 multiply-adds = 32);
// - the streaming read of each matrix (f32 and int8), the memory roof.
// Every figure: the minimum and the median per-call time over repetitions
// after a warm-up; GFLOP/s from the minimum (the kernel's capability, not the
// noise), the two twins of a product timed in alternation. The page is
// cross-origin isolated so that performance.now() has its fine resolution.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ISOLATION_HEADERS } from './rounds.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KERNELS_RELAXED_WASM = join(ROOT, 'build', 'bench', 'kernels_bench_relaxed.wasm');
export const SHIPPED_MODEL = join(ROOT, 'models', 'en-fr-int8.alsc');

// Flop-equivalents per instruction (per chain step) in the peak loops.
const FLOPS = { muladd: 8, madd: 8, dot: 16, rdot: 32 };
// The q8c4 kernel cuts each input value into this many 7-bit digits
// (src/kernels.h), one relaxed dot per digit: of the 16 byte products of one
// instruction, 16 / Q8C4_DIGITS are multiply-adds of the matvec.
export const Q8C4_DIGITS = 4;
// Panels that stay in L1: 24 f32 rows (24 KB) and 96 int8 rows (24 KB; a
// multiple of the q32 and q8c4 panels, so the first rows are a matrix of
// their own in both layouts).
const L1_ROWS = { f32: 24, int8: 96 };

/** The output layer of the shipped default model: rows = target vocabulary,
 * cols = output (deep-output) dimension. */
export async function outputLayerShape(modelPath = SHIPPED_MODEL) {
  const { createEngine } = await import('../../web/engine.js');
  const engine = await createEngine({ variant: 'simd' });
  try {
    const info = engine.load(readFileSync(modelPath));
    return { rows: info.tgtVocabSize, cols: info.outputDim, model: modelPath.slice(ROOT.length + 1), weightType: info.weightType };
  } finally {
    engine.dispose();
  }
}

/** The checksum kb_peak_rdotN returns after `iters` iterations (its C comment):
 * lane 0 of the sum of the chains, chain k = k + iters * 4 * (-3) * 101, mod 2^32. */
export function rdotChecksum(chains, iters) {
  const start = BigInt((chains * (chains - 1)) / 2);
  return Number(BigInt.asIntN(32, start + BigInt(chains) * BigInt(iters) * -1212n));
}

const PAGE = '<!doctype html><meta charset="utf-8"><title>relaxed kernels</title>\n';

/**
 * Runs in the page: loads the module once (window.__kb), then times a group
 * of calls in alternation. plan: { name: [export, ...args] } with the last
 * argument `iters`; returns { name: { samples (ms per iteration), checksum } }.
 */
async function pageTime({ url, setup, plan, iters, reps, bursts, warmMs, pauseMs }) {
  if (!window.__kb) {
    const bytes = await (await fetch(url)).arrayBuffer();
    // The module imports nothing (nothing in it prints); should a later
    // wasi-libc add an import, each gets a stub that fails loudly.
    const module = await WebAssembly.compile(bytes);
    const imports = {};
    for (const imp of WebAssembly.Module.imports(module)) {
      (imports[imp.module] ??= {})[imp.name] = () => { throw new Error(`kernels_bench_relaxed: unexpected import ${imp.module}.${imp.name}`); };
    }
    const instance = await WebAssembly.instantiate(module, imports);
    instance.exports._initialize?.();
    const rc = instance.exports.kb_setup(setup.rows, setup.cols);
    if (rc !== 0) throw new Error(`kernels_bench_relaxed: kb_setup(${setup.rows}, ${setup.cols}) returned ${rc}`);
    window.__kb = instance.exports;
  }
  const k = window.__kb;
  const names = Object.keys(plan);
  const call = (name) => { const [fn, ...args] = plan[name]; return k[fn](...args, iters); };
  // Warm-up: at least 3 calls of each and warmMs in all (V8 first runs wasm
  // in Liftoff, and swaps in TurboFan code for later calls).
  const start = performance.now();
  for (let i = 0; i < 3 || performance.now() - start < warmMs; i++) for (const n of names) call(n);
  const out = Object.fromEntries(names.map((n) => [n, { samples: [], checksum: null }]));
  for (let burst = 0; burst < bursts; burst++) {
    if (burst > 0) await new Promise((r) => setTimeout(r, pauseMs));
    for (let r = 0; r < reps; r++) {
      for (const n of (r + burst) % 2 ? [...names].reverse() : names) {
        const t0 = performance.now();
        const c = call(n);
        out[n].samples.push((performance.now() - t0) / iters);
        out[n].checksum = c;
      }
    }
  }
  return { out, isolated: window.crossOriginIsolated };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/** { minMs, medianMs } per iteration, and GFLOP/s from them for `flops` per iteration. */
function summary(t, flops) {
  const minMs = Math.min(...t.samples), medianMs = median(t.samples);
  return { minMs, medianMs, gflops: flops / (minMs * 1e6), gflopsMedian: flops / (medianMs * 1e6), checksum: t.checksum };
}

/**
 * The relaxed kernel bench in an already launched playwright-core Chromium.
 * quick: the smoke test's few-second mode. Returns a JSON-able result (or
 * { error } when the page cannot run relaxed SIMD).
 */
export async function relaxedKernelBench(browser, { quick = false } = {}) {
  const { startServer } = await import('../../web/tools/serve.mjs');
  const began = performance.now();
  const shape = await outputLayerShape();
  const server = await startServer({
    root: ROOT, port: 0, headers: () => ISOLATION_HEADERS,
    intercept(req, res, rel) {
      if (rel !== '/kernels-relaxed.html') return false;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...ISOLATION_HEADERS }).end(PAGE);
      return true;
    },
  });
  const context = await browser.newContext();
  try {
    return await measure(browser, await context.newPage(), server, shape, quick, began);
  } catch (err) {
    // e.g. a Chromium without relaxed SIMD: the module does not compile
    return { error: String(err.message ?? err).split('\n')[0], chromium: browser.version(), shape };
  } finally {
    await context.close();
    await server.close();
  }
}

async function measure(browser, page, server, shape, quick, began) {
  const { rows, cols } = shape;
  await page.goto(`${server.url}kernels-relaxed.html`);
  const base = {
    url: '/build/bench/kernels_bench_relaxed.wasm', setup: { rows, cols },
    reps: quick ? 3 : 15, bursts: quick ? 1 : 3, warmMs: quick ? 60 : 250, pauseMs: 150,
  };
  let isolated = null;
  const run = async (plan, iters) => {
    const r = await page.evaluate(pageTime, { ...base, plan, iters });
    isolated = r.isolated;
    return r.out;
  };
  const peakIters = quick ? 200_000 : 2_000_000;
  // The peaks: each instruction's chains (8 and 12 where 12 fit V8's registers).
  const p = await run({
    muladd8: ['kb_peak_muladd8'], muladd12: ['kb_peak_muladd12'], madd8: ['kb_peak_madd8'], madd12: ['kb_peak_madd12'],
  }, peakIters);
  const d = await run({ dot8: ['kb_peak_dot8'], rdot8: ['kb_peak_rdot8'], rdot12: ['kb_peak_rdot12'] }, peakIters);
  const peakOf = (kind, entries) => {
    const chains = entries.map(([n, t]) => ({ chains: n, ...summary(t, FLOPS[kind] * n) }));
    const best = chains.reduce((a, c) => (c.gflops > a.gflops ? c : a));
    return { gflops: best.gflops, gflopsMedian: best.gflopsMedian, flopsPerInstruction: FLOPS[kind], chains };
  };
  const peaks = {
    f32MulAdd: peakOf('muladd', [[8, p.muladd8], [12, p.muladd12]]),
    f32RelaxedMadd: peakOf('madd', [[8, p.madd8], [12, p.madd12]]),
    dotI16x8: peakOf('dot', [[8, d.dot8]]),
    relaxedDot: peakOf('rdot', [[8, d.rdot8], [12, d.rdot12]]),
  };
  // The streaming read of each matrix: the memory roof.
  const s = await run({ f32: ['kb_stream', 0], int8: ['kb_stream', 1] }, quick ? 2 : 4);
  const stream = {};
  for (const [name, bytes, flopsPerByte] of [['f32', 4 * rows * cols, 0.5], ['int8', rows * cols, 2]]) {
    const t = summary(s[name], bytes);
    stream[name] = { bytes, minMs: t.minMs, GBs: t.gflops, GBsMedian: t.gflopsMedian, roofGflops: t.gflops * flopsPerByte };
  }
  // The products, the two twins in alternation: the whole matrix, then an L1 panel.
  const product = async (fn, rowsHere, iters) => {
    const t = await run({ simd: [fn, 0, rowsHere], relaxed: [fn, 1, rowsHere] }, iters);
    const flops = 2 * rowsHere * cols;
    const simd = summary(t.simd, flops), relaxed = summary(t.relaxed, flops);
    return { rows: rowsHere, cols, simd, relaxed, relaxedSpeedup: simd.minMs / relaxed.minMs };
  };
  const f32 = await product('kb_matvec', rows, quick ? 4 : 20);
  const f32L1 = await product('kb_matvec', L1_ROWS.f32, quick ? 400 : 4000);
  const int8 = await product('kb_matvec_i8', rows, quick ? 10 : 50);
  const int8L1 = await product('kb_matvec_i8', L1_ROWS.int8, quick ? 200 : 2000);

  // Fractions of the instructions' peaks. The relaxed int8 matvec also as
  // its rate of relaxed dots against the chains' rate: (rows / 4) x
  // (cols / 4) x Q8C4_DIGITS instructions per product.
  const dotsPerProduct = (r) => (r / 4) * Math.floor(cols / 4) * Q8C4_DIGITS;
  const dotRate = (m) => dotsPerProduct(m.rows) / (m.relaxed.minMs * 1e6); // G instructions / s
  const peakDotRate = peaks.relaxedDot.gflops / FLOPS.rdot;
  const fractions = {
    relaxedInt8OfRelaxedDotPeak: int8.relaxed.gflops / peaks.relaxedDot.gflops,
    relaxedInt8DotRateOfPeak: dotRate(int8) / peakDotRate,
    relaxedInt8L1OfRelaxedDotPeak: int8L1.relaxed.gflops / peaks.relaxedDot.gflops,
    relaxedInt8L1DotRateOfPeak: dotRate(int8L1) / peakDotRate,
    // by construction: a relaxed dot does 16 byte products, 16 / Q8C4_DIGITS of them the matvec's
    relaxedInt8Ceiling: 1 / Q8C4_DIGITS,
    relaxedF32OfRelaxedMaddPeak: f32.relaxed.gflops / peaks.f32RelaxedMadd.gflops,
    relaxedF32L1OfRelaxedMaddPeak: f32L1.relaxed.gflops / peaks.f32RelaxedMadd.gflops,
    simdInt8OfDotPeak: int8.simd.gflops / peaks.dotI16x8.gflops,
    simdInt8L1OfDotPeak: int8L1.simd.gflops / peaks.dotI16x8.gflops,
    simdF32OfMulAddPeak: f32.simd.gflops / peaks.f32MulAdd.gflops,
  };
  // What the checksums say: the twins computed the same thing, and the peak
  // loops ran what they claim.
  const chainsConverged = (e) => e.chains.every((c) => Math.abs(c.checksum - 2 * c.chains) < 1e-3 * c.chains);
  const checks = {
    int8TwinsEqual: int8.simd.checksum === int8.relaxed.checksum && int8L1.simd.checksum === int8L1.relaxed.checksum,
    f32TwinsRelDiff: Math.max(...[f32, f32L1].map((m) => Math.abs(m.simd.checksum - m.relaxed.checksum) / Math.max(1e-30, Math.abs(m.simd.checksum)))),
    relaxedDotChecksums: peaks.relaxedDot.chains.every((c) => c.checksum === rdotChecksum(c.chains, peakIters)),
    f32PeaksConverged: chainsConverged(peaks.f32MulAdd) && chainsConverged(peaks.f32RelaxedMadd),
  };
  return {
    chromium: browser.version(), crossOriginIsolated: isolated, quick,
    shape: { ...shape, what: 'the output projection (target vocabulary x output dim) of the shipped default model' },
    peakIters, peaks, stream,
    matvec: { f32: { ...f32, layout: 'p24', l1: f32L1 }, int8: { ...int8, layout: { simd: 'q32', relaxed: 'q8c4' }, l1: int8L1 } },
    fractions, checks, elapsedMs: performance.now() - began,
  };
}

const f = (x, d = 2) => (x == null || !Number.isFinite(x) ? '–' : x.toFixed(d));
const pct = (x) => `${f(100 * x, 0)} %`;

/** Markdown lines for results.md. */
export function relaxedKernelLines(r) {
  if (!r || r.error) return ['### Relaxed SIMD kernels (Chromium)', '', `unavailable: ${r?.error ?? 'not run'}`, ''];
  const { rows, cols } = r.shape, m = r.matvec, pk = r.peaks, fr = r.fractions;
  const lines = ['### Relaxed SIMD kernels (Chromium)', ''];
  lines.push(`build/bench/kernels_bench_relaxed.wasm (clang 19, both twins in one module) in ${r.chromium}, min over repetitions, ` +
    `the two twins of each product timed in alternation; ${rows}×${cols} = the output layer of ${r.shape.model} ` +
    `(target vocabulary × output dim). GFLOP/s count 2 flops per weight for every product, int8 included; ` +
    `a peak counts its instruction's multiply-adds twice (f32x4 mul+add and relaxed_madd: 8 flops, dot_i16x8_s: 16, ` +
    `relaxed_dot_i8x16_i7x16_add_s: 32) over independent chains of that instruction alone.`, '');
  lines.push('| | SIMD128 | relaxed SIMD | relaxed ÷ SIMD128 |', '|---|---|---|---|');
  const row = (name, a, b, unit = 'GFLOP/s', d = 1) => lines.push(`| ${name} | ${f(a, d)} ${unit} | ${f(b, d)} ${unit} | ${f(b / a)}× |`);
  row(`f32 ${rows}×${cols} matvec (p24: mul+add / relaxed_madd)`, m.f32.simd.gflops, m.f32.relaxed.gflops);
  row(`the same, ${m.f32.l1.rows}-row panel in L1`, m.f32.l1.simd.gflops, m.f32.l1.relaxed.gflops);
  row(`int8 ${rows}×${cols} matvec (q32 dot_i16x8 / q8c4 relaxed_dot)`, m.int8.simd.gflops, m.int8.relaxed.gflops);
  row(`the same, ${m.int8.l1.rows}-row panel in L1`, m.int8.l1.simd.gflops, m.int8.l1.relaxed.gflops);
  row('f32 peak (f32x4 mul+add / relaxed_madd chains)', pk.f32MulAdd.gflops, pk.f32RelaxedMadd.gflops);
  row('int8 peak (dot_i16x8_s+add / relaxed_dot_i8x16_i7x16_add_s chains)', pk.dotI16x8.gflops, pk.relaxedDot.gflops);
  lines.push(`| f32 matvec, fraction of its instructions' peak | ${pct(fr.simdF32OfMulAddPeak)} | ${pct(fr.relaxedF32OfRelaxedMaddPeak)} | |`);
  lines.push(`| int8 matvec, fraction of its instructions' peak | ${pct(fr.simdInt8OfDotPeak)} | ${pct(fr.relaxedInt8OfRelaxedDotPeak)} | |`, '');
  lines.push(`The relaxed int8 kernel cuts each 16-bit input into ${Q8C4_DIGITS} seven-bit digits (the instruction is deterministic only for a second operand in [0, 127]; src/kernels.h), ` +
    `one relaxed dot per digit, so ${16 / Q8C4_DIGITS} of an instruction's 16 byte products are multiply-adds of the matvec: ` +
    `its fraction of the instruction's peak cannot pass ${pct(fr.relaxedInt8Ceiling)}. Its relaxed dots run at ${pct(fr.relaxedInt8DotRateOfPeak)} of the chains' rate ` +
    `(${pct(fr.relaxedInt8L1DotRateOfPeak)} on the L1 panel). Streaming read: f32 matrix ${f(r.stream.f32.GBs, 1)} GB/s (roof ${f(r.stream.f32.roofGflops, 1)} GFLOP/s), ` +
    `int8 matrix ${f(r.stream.int8.GBs, 1)} GB/s (roof ${f(r.stream.int8.roofGflops, 1)} GFLOP/s). ` +
    `Checksums: int8 twins ${r.checks.int8TwinsEqual ? 'equal' : 'DIFFERENT'}, f32 twins within ${r.checks.f32TwinsRelDiff.toExponential(1)} (relative), ` +
    `relaxed-dot chains ${r.checks.relaxedDotChecksums ? 'as computed by hand' : 'WRONG'}.`, '');
  return lines;
}

/** Target rows: the goal for the relaxed int8 matvec, and context. */
export function relaxedKernelTargets(r) {
  if (!r || r.error) return [];
  const fr = r.fractions, m = r.matvec;
  const row = (name, value, goal, unit) => ({ name, value, range: null, goal, met: goal == null || !Number.isFinite(value) ? null : value >= goal, unit });
  // Both builds run the q32 int8 product (src/kernels.h: the relaxed build
  // keeps it, by the measurement in the rows below), so the goal is judged on
  // it; the q8c4 relaxed-dot product is context: four dots per weight quad
  // cap it at 25 % of its instruction's peak.
  return [
    row('int8 matvec the page runs (q32, both builds), fraction of the peak of its instructions (dot_i16x8_s + add chains), Chromium', fr.simdInt8OfDotPeak, 0.70, ''),
    row('q8c4 relaxed int8 matvec (not used by the page), fraction of the peak of relaxed_dot_i8x16_i7x16_add_s chains (≤ 25 % by design), Chromium', fr.relaxedInt8OfRelaxedDotPeak, null, ''),
    row(`the same, its relaxed dots' rate as a fraction of the chains' rate (${Q8C4_DIGITS} per weight: the input's digits)`, fr.relaxedInt8DotRateOfPeak, null, ''),
    row('relaxed f32 matvec, fraction of the peak of its instructions (relaxed_madd chains), Chromium', fr.relaxedF32OfRelaxedMaddPeak, null, ''),
    row('relaxed vs SIMD128 int8 matvec (q8c4 vs q32), Chromium', m.int8.relaxedSpeedup, null, '×'),
    row('relaxed vs SIMD128 f32 matvec (p24), Chromium', m.f32.relaxedSpeedup, null, '×'),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { launchChromium } = await import('../support/chromium.mjs');
  const browser = await launchChromium();
  try {
    const r = await relaxedKernelBench(browser, { quick: process.argv.includes('--quick') });
    if (process.argv.includes('--md')) console.log(relaxedKernelLines(r).join('\n'));
    else console.log(JSON.stringify(r, null, 1));
  } finally {
    await browser.close();
  }
}
