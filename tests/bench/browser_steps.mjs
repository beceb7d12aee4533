// browser_steps.mjs - the decoder-step and whole-sentence rounds in Chromium:
// our relaxed-SIMD and SIMD128 builds on the shipped f32 and int8 files
// against onnxruntime-web on the same weights, interleaved and paired by
// round exactly as bench.mjs does in Node (tests/bench/browser_rounds.js
// runs in the page). Node 20 cannot run the relaxed build's 8-bit dot
// product (web/engine.js relaxedSimdProblem), so the relaxed rows come from
// here; the page runs the same builds.
//
//   node tests/bench/browser_steps.mjs [--quick]     prints JSON (needs ./build.sh bench's build/bench/)
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ISOLATION_HEADERS } from './rounds.js';
import { pairedRatios, summarise } from './stats.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

export const BROWSER_LABELS = {
  relaxed: 'alignscope wasm relaxed SIMD', 'relaxed-int8': 'alignscope wasm relaxed SIMD, int8 weights',
  simd: 'alignscope wasm SIMD128', 'simd-int8': 'alignscope wasm SIMD128, int8 weights', ort: 'onnxruntime-web (wasm, 1 thread)',
};

/**
 * Runs the rounds in a page of `browser` (playwright-core Chromium; launch it
 * with --js-flags=--expose-gc for a collection before each turn). Returns
 * { chromium, rounds, reps, details, unavailable, agreement, stats, ratiosVsOrt, relaxedVsSimd } where
 * stats and ratios have bench.mjs's shapes (tests/bench/stats.mjs).
 */
export async function browserStepBench(browser, { quick = false, sentences, log = () => {} } = {}) {
  for (const f of ['model.alsc', 'model-int8.alsc', 'encoder.onnx', 'decoder_step.onnx']) {
    if (!existsSync(join(ROOT, 'build', 'bench', f))) throw new Error(`build/bench/${f} missing (./build.sh bench makes it)`);
  }
  const rounds = quick ? 2 : 20, reps = quick ? 1 : 3;
  const { startServer } = await import('../../web/tools/serve.mjs');
  // Cross-origin isolated: a 5 µs timer (rounds.js).
  const server = await startServer({ root: ROOT, port: 0, headers: () => ISOLATION_HEADERS });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.port}/tests/bench/browser_rounds.html`);
    await page.waitForFunction(() => window.benchRounds != null || window.benchError != null, null, { timeout: 60_000 });
    const loadError = await page.evaluate(() => window.benchError ?? null);
    if (loadError) throw new Error(`browser_rounds.js: ${loadError}`);
    const setup = await page.evaluate((s) => window.benchRounds.setUp({ sentences: s }), sentences);
    log(`chromium rounds: ${setup.names.join(', ')}${Object.keys(setup.unavailable).length ? `; unavailable: ${JSON.stringify(setup.unavailable)}` : ''}`);
    const samples = Object.fromEntries(setup.names.map((n) => [n, []]));
    for (let r = 0; r <= rounds; r++) {
      const got = await page.evaluate(([index, n]) => window.benchRounds.round(index, n), [r, r === 0 ? 1 : reps]);
      if (r > 0) for (const [name, xs] of Object.entries(got)) samples[name].push(...xs.map((s) => ({ ...s, round: r })));
      log(`chromium round ${r}/${rounds}`);
    }
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    const isolated = await page.evaluate(() => globalThis.crossOriginIsolated === true);
    const stats = Object.fromEntries(setup.names.map((n) => [n, summarise(samples[n], sentences)]));
    const ratiosVsOrt = samples.ort ? Object.fromEntries(setup.names.map((n) => [n, pairedRatios(samples[n], samples.ort, sentences.length)])) : {};
    const relaxedVsSimd = {};
    if (samples.relaxed && samples.simd) relaxedVsSimd.f32 = pairedRatios(samples.relaxed, samples.simd, sentences.length);
    if (samples['relaxed-int8'] && samples['simd-int8']) relaxedVsSimd.int8 = pairedRatios(samples['relaxed-int8'], samples['simd-int8'], sentences.length);
    // Each build against the SIMD128 build of the same weights (int8 and f32
    // are two models: the shipped int8 file may choose another word than the
    // f16 file's weights on a long sentence); ORT runs the f32 weights.
    const referenceOf = (n) => (n.endsWith('-int8') && setup.tokens['simd-int8'] ? 'simd-int8' : setup.reference);
    const agreement = Object.fromEntries(Object.entries(setup.tokens).map(([n, t]) => {
      const reference = referenceOf(n);
      const ref = setup.tokens[reference];
      return [n, {
        reference,
        sameTokens: t.every((x, i) => JSON.stringify(x) === JSON.stringify(ref[i])),
        perSentence: t.map((x, i) => JSON.stringify(x) === JSON.stringify(ref[i])),
      }];
    }));
    return { chromium: browser.version(), crossOriginIsolated: isolated, rounds, reps, reference: setup.reference, details: setup.details, unavailable: setup.unavailable,
      agreement, stats, ratiosVsOrt, relaxedVsSimd };
  } finally {
    await context.close();
    await server.close();
  }
}

const f = (x, d = 2) => (x == null || !Number.isFinite(x) ? '–' : x.toFixed(d));

/** Markdown: the per-backend table (as bench.mjs's Node table) and the relaxed-vs-SIMD128 ratios. */
export function browserStepLines(r, sentences) {
  if (r.error) return [`Decoder steps in Chromium: unavailable (${r.error}).`];
  const names = Object.keys(r.stats);
  const lines = [`Decoder steps and whole sentences in Chromium ${r.chromium} (the page's runtime; ${r.crossOriginIsolated ? 'cross-origin isolated: 5 µs timer' : 'not isolated: 100 µs timer'}), ${r.rounds} rounds × ${r.reps}, paired by round as above:`, ''];
  const head = ['backend', ...sentences.map((s, i) => `#${i + 1} (${r.stats[names[0]].sentences[i].steps} steps)`), 'step ms (min / med)', 'step ×ORT', 'sentence ×ORT (geomean)'];
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const n of names) {
    const s = r.stats[n], o = r.ratiosVsOrt[n];
    lines.push(`| ${BROWSER_LABELS[n] ?? n} | ${s.sentences.map((p) => `${f(p.wholeMinMs)} / ${f(p.wholeMedianMs)}`).join(' | ')} | ${f(s.stepMinMs, 3)} / ${f(s.stepMedianMs, 3)} | ${f(o?.step.median)} | ${f(o?.wholeGeomean)} |`);
  }
  lines.push('');
  const rs = r.relaxedVsSimd;
  if (rs.f32 || rs.int8) {
    lines.push(`Relaxed SIMD against SIMD128, same weights (> 1 = relaxed faster): ${[
      rs.f32 && `f32 step ${f(rs.f32.step.median)}× (${f(rs.f32.step.q1)}–${f(rs.f32.step.q3)})`,
      rs.int8 && `int8 step ${f(rs.int8.step.median)}× (${f(rs.int8.step.q1)}–${f(rs.int8.step.q3)})`,
    ].filter(Boolean).join(', ')}.`, '');
  }
  const ag = Object.entries(r.agreement).filter(([k, v]) => k !== v.reference)
    .map(([k, v]) => `${k} against ${v.reference} ${v.sameTokens ? 'same' : 'DIFFERENT'}`);
  lines.push(`Greedy tokens in Chromium, each build against the SIMD128 build of the same weights: ${ag.join(', ')}.`, '');
  if (Object.keys(r.unavailable).length) lines.push(`Not run in Chromium: ${Object.entries(r.unavailable).map(([k, v]) => `${k} (${v})`).join('; ')}.`, '');
  return lines;
}

/** The issue's step targets in Chromium: the fastest build of ours the page would pick for each weight type. */
export function browserStepTargets(r) {
  if (!r || r.error) return [];
  const t = [];
  const pick = (...names) => names.find((n) => r.ratiosVsOrt[n]);
  const add = (name, who, goal) => {
    const v = who ? r.ratiosVsOrt[who].step : null;
    t.push({ name: `${name}${who ? ` (${BROWSER_LABELS[who]})` : ''}, Chromium`, value: v?.median ?? null, range: v ? [v.q1, v.q3] : null,
      goal, met: v ? v.median >= goal : null, unit: '×' });
  };
  add('int8 decoder step vs onnxruntime-web f32', pick('relaxed-int8', 'simd-int8'), 5);
  add('f32 decoder step vs onnxruntime-web', pick('relaxed', 'simd'), 2);
  return t;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { readFileSync } = await import('node:fs');
  const { launchChromium } = await import('../support/chromium.mjs');
  const sentences = readFileSync(join(HERE, 'sentences.txt'), 'utf8').split('\n').filter((l) => l.trim());
  const browser = await launchChromium({ args: ['--js-flags=--expose-gc'] });
  try {
    const r = await browserStepBench(browser, { quick: process.argv.includes('--quick'), sentences, log: (m) => console.error(m) });
    console.log(JSON.stringify(r, null, 1));
    console.error(browserStepLines(r, sentences).join('\n'));
  } finally {
    await browser.close();
  }
}
