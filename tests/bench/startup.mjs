// startup.mjs - start-up of the real page in Chromium, cold: navigation →
// first heatmap with the default model, split into the phases the page marks
// itself (web/lib/startup.js, `alignscope:startup:<phase>`): the catalogue,
// the worker's module running, the model downloaded (and checked against
// its SHA-256), the wasm compiled (in the worker), the model loaded in the
// engine, the first translation done, the first heatmap painted. Each run is
// a fresh browser context (empty HTTP cache, no service worker, no Cache
// API entries), 1280×800, web/ served by web/tools/serve.mjs on localhost.
//
//   node tests/bench/startup.mjs [--quick] [--runs N] [--root DIR | --dist] [--json FILE]
//   (--quick: 2 runs, the test suite's check; --root: another copy of web/,
//   e.g. an older build to compare with, which must make the same marks;
//   --dist: dist/ as ./build.sh dist makes it, bundled, built in a temporary
//   folder: ./build.sh bench measures both)
//
// Reported per phase: when it ended, in ms from navigation (median and min
// over the runs), and its own duration where the page knows it (the mark's
// detail.ms: the download from the request to the checked bytes, the wasm's
// fetch + compile + instantiation, the engine reading the model, the worker's
// decode). Timings are reported, never asserted: run it on an idle machine.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const PREFIX = 'alignscope:startup:';
/** The phases the page marks (web/lib/startup.js STARTUP_PHASES), in the order they end. */
export const PHASES = ['catalog', 'worker', 'download', 'compile', 'load', 'translation', 'paint'];
const LABELS = {
  catalog: 'catalogue read (models/index.json)',
  worker: 'engine worker running (worker.js + engine.js)',
  download: 'model downloaded and checked (SHA-256, in the worker)',
  compile: 'wasm compiled and instantiated (worker)',
  load: 'model loaded in the engine (worker)',
  translation: 'first translation done (worker)',
  paint: 'first heatmap painted (= navigation → first heatmap)',
};
const GOAL_MS = 500;

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n ? (n % 2 ? s[n >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN; };

/** One cold load: every start-up mark, the build the page shows, and the page's first-heatmap mark. */
async function oneRun(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction((p) => performance.getEntriesByName(`${p}paint`).length > 0, PREFIX, { timeout: 60_000 });
    const got = await page.evaluate((p) => ({
      marks: performance.getEntriesByType('mark').filter((m) => m.name.startsWith(p))
        .map((m) => ({ phase: m.name.slice(p.length), at: m.startTime, detail: m.detail ?? null })),
      firstHeatmap: performance.getEntriesByName('alignscope:first-heatmap')[0]?.startTime ?? null,
      build: document.querySelector('#app .as-perf')?.dataset.build ?? null,
      domContentLoaded: performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? null,
    }), PREFIX);
    if (errors.length) throw new Error(`the page threw: ${errors[0]}`);
    return got;
  } finally {
    await context.close();
  }
}

/**
 * Runs the measurement in `browser` (a launched playwright-core Chromium).
 * served: what `root` is, in words ('web/', 'dist/ (bundled)').
 * Returns { chromium, runs, viewport, served, build, streamed, model: { id, file, bytes }, phases: { [phase]:
 * { medianMs, minMs, durationMedianMs, count } }, firstHeatmap: { medianMs, minMs, samples }, domContentLoadedMedianMs, samples }.
 */
export async function startupBench(browser, { quick = false, runs = quick ? 2 : 5, root = join(ROOT, 'web'), served = 'web/' } = {}) {
  const { startServer } = await import('../../web/tools/serve.mjs');
  const { assemble } = await import('../../web/tools/assemble.mjs');
  // (dist/ names its wasm by content hash: gen/alignscope-simd.<hash>.wasm.)
  if (!readdirSync(join(root, 'gen')).some((f) => /^alignscope-simd(\.[0-9a-f]{16})?\.wasm$/.test(f))) throw new Error(`${join(root, 'gen')}: no wasm (run ./build.sh wasm)`);
  // The served copy's own catalogue (dist/ names its models by content hash), after web/'s is assembled.
  const assembled = assemble({ quiet: true });
  const own = join(root, 'models', 'index.json');
  const catalog = existsSync(own) ? JSON.parse(readFileSync(own, 'utf8')) : assembled;
  const def = catalog.models.find((m) => m.id === catalog.default) ?? catalog.models[0];
  const modelFile = join(root, 'models', def.file);
  const server = await startServer({ root, port: 0 });
  const samples = [];
  try {
    for (let k = 0; k < runs; k++) samples.push(await oneRun(browser, server.url));
  } finally {
    await server.close();
  }
  const phases = {};
  for (const phase of PHASES) {
    const per = samples.map((s) => s.marks.filter((m) => m.phase === phase));
    // The phase's end in each run (its first mark: a second one is work done twice, counted below).
    const at = per.filter((ms) => ms.length).map((ms) => ms[0].at);
    const own = per.filter((ms) => ms.length && Number.isFinite(ms[0].detail?.ms)).map((ms) => ms[0].detail.ms);
    phases[phase] = {
      medianMs: median(at), minMs: at.length ? Math.min(...at) : NaN,
      durationMedianMs: own.length ? median(own) : null,
      // How many times the phase was marked in each run: 1 everywhere on a start with no work done twice.
      count: per.map((ms) => ms.length),
    };
  }
  const fh = samples.map((s) => s.firstHeatmap).filter(Number.isFinite);
  const compile = samples.map((s) => s.marks.find((m) => m.phase === 'compile')?.detail).filter(Boolean);
  const download = samples.map((s) => s.marks.find((m) => m.phase === 'download')?.detail).filter(Boolean);
  return {
    chromium: browser.version(), runs, viewport: '1280×800', goalMs: GOAL_MS, served,
    // The build the page says it ran (the timing line's data-build), and what the worker reported compiling.
    build: samples[0]?.build ?? null, builds: [...new Set(samples.map((s) => s.build))],
    compiledBuilds: [...new Set(compile.map((d) => d.variant))], streamed: compile.length ? compile.every((d) => d.streamed) : null,
    model: { id: def.id, file: def.file, bytes: existsSync(modelFile) ? readFileSync(modelFile).length : null,
      downloaded: [...new Set(download.map((d) => d.bytes))], from: [...new Set(download.map((d) => d.from))] },
    phases,
    firstHeatmap: { medianMs: median(fh), minMs: fh.length ? Math.min(...fh) : NaN, samples: fh },
    domContentLoadedMedianMs: median(samples.map((s) => s.domContentLoaded).filter(Number.isFinite)),
    samples,
  };
}

/** Markdown lines for a startupBench() result. */
export function startupLines(r) {
  const f = (x) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '–');
  const lines = [
    `Start-up (tests/bench/startup.mjs): the page served from ${r.served ?? 'web/'} on localhost, ${r.runs} cold loads (a fresh browser context each: empty HTTP cache, no service worker), ${r.viewport}, Chromium ${r.chromium}; default model ${r.model.file} (${r.model.bytes?.toLocaleString('en') ?? '?'} bytes), ${r.build ?? '?'} build${r.streamed ? ', wasm compiled while it streams (WebAssembly.instantiateStreaming)' : r.streamed === false ? ', wasm compiled from its downloaded bytes' : ''}.`,
    'Each phase as the page marks it (web/lib/startup.js): when it ended, in ms from navigation, and its own duration where the page measures it. The phases overlap: the model downloads while the worker compiles the wasm.', '',
    '| phase | ends at (median) | min | own duration (median) |', '|---|---|---|---|',
  ];
  for (const phase of PHASES) {
    const p = r.phases[phase];
    if (!p) continue;
    lines.push(`| ${LABELS[phase]} | ${f(p.medianMs)} | ${f(p.minMs)} | ${p.durationMedianMs == null ? '–' : f(p.durationMedianMs)} |`);
  }
  return lines;
}

/** Target rows for results.md (bench.mjs): navigation → first heatmap, median of the runs. */
export function startupTargets(r) {
  const v = r.phases?.paint?.medianMs;
  const where = r.served && r.served !== 'web/' ? `, ${r.served}` : '';
  return [{ name: `navigation → first heatmap, default model, cold cache, localhost${where} (median of ${r.runs})`, value: v, goal: r.goalMs ?? GOAL_MS,
    met: Number.isFinite(v) ? v <= (r.goalMs ?? GOAL_MS) : null, unit: 'ms', lowerIsBetter: true, orEqual: true }];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const quick = args.includes('--quick');
  const { launchChromium } = await import('../support/chromium.mjs');
  const browser = await launchChromium();
  let r;
  let tmp = null;
  try {
    let where = opt('--root') ? { root: resolve(opt('--root')), served: opt('--root') } : {};
    if (args.includes('--dist')) {
      const [{ mkdtempSync }, { tmpdir }, { buildDist }] = await Promise.all([import('node:fs'), import('node:os'), import('../../web/tools/dist.mjs')]);
      tmp = mkdtempSync(join(tmpdir(), 'alignscope-startup-dist-'));
      where = { root: buildDist({ out: join(tmp, 'dist'), quiet: true }).out, served: 'dist/ (bundled)' };
    }
    r = await startupBench(browser, { quick, ...(opt('--runs') ? { runs: Number(opt('--runs')) } : {}), ...where });
  } finally {
    await browser.close();
    if (tmp) (await import('node:fs')).rmSync(tmp, { recursive: true, force: true });
  }
  const file = opt('--json');
  if (file) { mkdirSync(dirname(resolve(file)), { recursive: true }); writeFileSync(file, `${JSON.stringify(r, null, 1)}\n`); }
  if (quick || args.includes('--print-json')) console.log(JSON.stringify(r, null, 1));
  else {
    console.log(startupLines(r).join('\n'));
    for (const t of startupTargets(r)) console.log(`${t.met ? 'met ' : 'MISS'}  ${t.name}: ${Number.isFinite(t.value) ? t.value.toFixed(0) : '–'} ms (goal ≤ ${t.goal} ms)`);
  }
}
