// render_budget.mjs - how fast the page answers, in Chromium, on the real
// page with the default model: the √d slider dragged across a 30-word
// sentence (input event → the animation frame that paints the heatmap of
// that value or a later one), the longest main-thread task while dragging,
// and keystroke → the frame that shows the character. On a desktop profile
// and under 4× CPU throttling (CDP Emulation.setCPUThrottlingRate), the
// phone profile of issue 12.
//
//   node tests/bench/render_budget.mjs [--drags N] [--quick] [--json FILE] [--root DIR]
//   (--quick: one short drag and a few keys, to check that it works;
//   --root: serve another copy of web/, e.g. an older build to compare with,
//   which must mark its heatmap paints the same way, see views/heatmap.js)
//   (also run by ./build.sh bench, in its Chromium section)
//
// Needs web/gen/*.wasm (./build.sh wasm) and the models (models/index.json).
// Timings are reported, not asserted: run it on an idle machine.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
export const BUDGET_SENTENCE = 'When you open a new window from the file menu, the program asks whether you want to save the changes to the current document before it closes the old one';
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];
const TARGETS = { sliderP90Desktop: 16, sliderP90Throttled: 60, longestTask: 50, keystroke: 50 };

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN; };

/** Longest task on the page's main thread (µs → ms) from a Chromium trace. */
function longestMainThreadTask(traceBuffer) {
  const events = JSON.parse(traceBuffer.toString('utf8')).traceEvents ?? [];
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  let max = 0;
  let count50 = 0;
  // Where the main thread's time goes: the timeline's own phases (a script's
  // event handlers and callbacks, style, layout, paint, the compositor's commit,
  // garbage collection), summed over the drag.
  const phases = { FunctionCall: 'script', EventDispatch: 'script', FireAnimationFrame: 'script', TimerFire: 'script',
    UpdateLayoutTree: 'style', Layout: 'layout', PrePaint: 'paint', Paint: 'paint', Layerize: 'commit', Commit: 'commit',
    MinorGC: 'gc', MajorGC: 'gc', 'V8.GC_SCAVENGER': 'gc' };
  const breakdown = {};
  for (const e of events) {
    if (e.ph !== 'X' || !mains.has(`${e.pid}:${e.tid}`)) continue;
    if (phases[e.name]) breakdown[phases[e.name]] = (breakdown[phases[e.name]] ?? 0) + (e.dur ?? 0) / 1000;
    if (e.name !== 'RunTask' && e.name !== 'ThreadControllerImpl::RunTask') continue;
    const ms = (e.dur ?? 0) / 1000;
    if (ms > max) max = ms;
    if (ms > 50) count50 += 1;
  }
  return { maxMs: max, over50: count50, breakdown };
}

/**
 * One drag of the slider across and back with the mouse (CDP input events).
 * base: the engine multiplier painted at slider value 0 (the trained one), so
 * that a paint's multiplier says which slider value it shows.
 */
async function dragSlider(page, browser, { moves, trace, base }) {
  await page.evaluate(() => document.querySelector('#app .as-slider button')?.click()); // back to the trained value
  await page.waitForTimeout(300);
  const slider = page.locator('#app .as-slider input[type="range"]');
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  await page.evaluate(() => {
    // Listeners once per page; each drag starts with empty records.
    if (!window.__budget) {
      const input = document.querySelector('#app .as-slider input[type="range"]');
      input.addEventListener('input', (e) => window.__budget.inputs.push({ t: e.timeStamp, v: Number(input.value) }));
      new PerformanceObserver((list) => {
        const perf = document.querySelector('#app .as-perf');
        for (const m of list.getEntries()) {
          if (m.name === 'alignscope:heatmap-paint') window.__budget.paints.push({ t: m.startTime, s: m.detail?.scoreScale, rt: Number(perf.dataset.roundTripMs), worker: Number(perf.dataset.workerMs) });
        }
      }).observe({ type: 'mark' });
    }
    window.__budget = { inputs: [], paints: [] };
  });
  const y = box.y + box.height / 2;
  const x0 = box.x + 4;
  const x1 = box.x + box.width - 4;
  await page.mouse.move(x0 + (x1 - x0) * 0.4, y);
  if (trace) await browser.startTracing(page, { categories: ['devtools.timeline', 'toplevel'] });
  await page.mouse.down();
  for (let i = 1; i <= moves; i++) {
    const f = i / moves; // across and back, the way a teacher drags it
    await page.mouse.move(x0 + (x1 - x0) * (f < 0.5 ? 2 * f : 2 - 2 * f), y);
    await page.waitForTimeout(12);
  }
  await page.mouse.up();
  await page.waitForTimeout(800);
  const longest = trace ? longestMainThreadTask(await browser.stopTracing()) : null;
  const { inputs, paints } = await page.evaluate(() => window.__budget);
  // The slider value a paint shows: multiplier = base / 2^value.
  const valueOf = (s) => Math.log2(base / s);
  // Input i is answered by the first paint after it that shows its value or a later input's.
  const lat = [];
  for (let i = 0; i < inputs.length; i++) {
    const later = inputs.slice(i).map((x) => x.v);
    const p = paints.find((q) => q.t >= inputs[i].t && q.s > 0 && later.some((v) => Math.abs(v - valueOf(q.s)) < 1e-3));
    if (p) lat.push(p.t - inputs[i].t);
  }
  return {
    inputs: inputs.length, paints: paints.length, answered: lat.length, p50: quantile(lat, 0.5), p90: quantile(lat, 0.9), max: lat.length ? Math.max(...lat) : NaN, longest,
    // The worker's share: its decode, and the round trip through postMessage, per painted result.
    workerMedian: quantile(paints.map((q) => q.worker).filter(Number.isFinite), 0.5), roundTripMedian: quantile(paints.map((q) => q.rt).filter(Number.isFinite), 0.5),
  };
}

async function keystrokes(page, n) {
  const box = page.locator('#app textarea');
  await box.focus();
  await page.keyboard.press('End');
  await page.evaluate(() => {
    const ta = document.querySelector('#app textarea');
    window.__keys = [];
    ta.addEventListener('keydown', (e) => {
      const t0 = e.timeStamp;
      requestAnimationFrame(() => window.__keys.push(performance.now() - t0));
    });
  });
  for (let i = 0; i < n; i++) {
    await page.keyboard.type(' x'[i % 2], { delay: 0 });
    await page.waitForTimeout(90);
  }
  await page.waitForTimeout(500);
  const lat = await page.evaluate(() => window.__keys);
  return { keys: lat.length, p50: quantile(lat, 0.5), p90: quantile(lat, 0.9), max: Math.max(...lat) };
}

/** Runs the measurements; returns { chromium, sentence, words, desktop, throttled4x }. */
export async function renderBudget({ drags = 2, moves = 60, keys = 24, root = join(ROOT, 'web') } = {}) {
  const { chromium } = await import('playwright-core');
  const { startServer } = await import('../../web/tools/serve.mjs');
  const { assemble } = await import('../../web/tools/assemble.mjs');
  if (!existsSync(join(ROOT, 'web', 'gen', 'alignscope-simd.wasm'))) throw new Error('web/gen/alignscope-simd.wasm is missing: run ./build.sh wasm');
  const catalog = assemble({ quiet: true });
  const server = await startServer({ root, port: 0, mounts: { '/models/': join(ROOT, 'web', 'models'), '/gen/': join(ROOT, 'web', 'gen') } });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: LAUNCH_ARGS });
  const out = { chromium: browser.version(), model: catalog.default, sentence: BUDGET_SENTENCE, words: BUDGET_SENTENCE.split(/\s+/).length };
  try {
    for (const [name, rate] of [['desktop', 1], ['throttled4x', 4]]) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${server.url}#s=${encodeURIComponent(BUDGET_SENTENCE)}`);
      await page.waitForSelector('#app .as-root[data-ready="true"]', { timeout: 60_000 });
      await page.waitForTimeout(300);
      const base = await page.evaluate(() => performance.getEntriesByName('alignscope:heatmap-paint').at(-1)?.detail?.scoreScale);
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
      const runs = [];
      for (let d = 0; d < drags; d++) runs.push(await dragSlider(page, browser, { moves, trace: d === 0, base }));
      const typed = await keystrokes(page, keys);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      out[name] = { cpuThrottling: rate, slider: mergeRuns(runs), keystroke: typed };
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return out;
}

function mergeRuns(runs) {
  return {
    inputs: runs.reduce((a, r) => a + r.inputs, 0), paints: runs.reduce((a, r) => a + r.paints, 0), answered: runs.reduce((a, r) => a + r.answered, 0),
    p50Ms: Math.max(...runs.map((r) => r.p50)), p90Ms: Math.max(...runs.map((r) => r.p90)), maxMs: Math.max(...runs.map((r) => r.max)),
    longestTaskMs: runs[0].longest?.maxMs ?? null, tasksOver50ms: runs[0].longest?.over50 ?? null,
    mainThreadMs: runs[0].longest?.breakdown ?? null,
    workerDecodeMedianMs: Math.max(...runs.map((r) => r.workerMedian)), roundTripMedianMs: Math.max(...runs.map((r) => r.roundTripMedian)),
  };
}

/** Markdown lines for a renderBudget() result. */
export function budgetLines(r) {
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—');
  const lines = [`Render budget (tests/bench/render_budget.mjs; ${r.words}-word sentence, model ${r.model}, Chromium ${r.chromium}):`, '',
    '| profile | slider input → paint p50 | p90 | max | worker decode / round trip (median) | inputs / paints | longest main-thread task while dragging | tasks > 50 ms | keystroke → paint p50 / p90 |', '|---|---|---|---|---|---|---|---|---|'];
  for (const [name, p] of [['desktop', r.desktop], ['4× CPU throttling', r.throttled4x]]) {
    if (!p) continue;
    lines.push(`| ${name} | ${f(p.slider.p50Ms)} ms | ${f(p.slider.p90Ms)} ms | ${f(p.slider.maxMs)} ms | ${f(p.slider.workerDecodeMedianMs)} / ${f(p.slider.roundTripMedianMs)} ms | ${p.slider.inputs} / ${p.slider.paints} | ${f(p.slider.longestTaskMs)} ms | ${p.slider.tasksOver50ms ?? '—'} | ${f(p.keystroke.p50)} / ${f(p.keystroke.p90)} ms |`);
  }
  const split = [['desktop', r.desktop], ['4× CPU throttling', r.throttled4x]].filter(([, p]) => p?.slider.mainThreadMs);
  if (split.length) {
    lines.push('', 'Main-thread time during one drag, by phase (ms, summed; nested events count in each phase they are):', '',
      '| profile | script | style | layout | paint | commit | gc |', '|---|---|---|---|---|---|---|');
    for (const [name, p] of split) {
      const m = p.slider.mainThreadMs;
      lines.push(`| ${name} | ${['script', 'style', 'layout', 'paint', 'commit', 'gc'].map((k) => f(m[k] ?? 0)).join(' | ')} |`);
    }
  }
  return lines;
}

/** Target rows for results.md (bench.mjs). */
export function budgetTargets(r) {
  const rows = [];
  if (r.desktop) rows.push({ name: 'slider input → paint, 30 words, desktop (p90)', value: r.desktop.slider.p90Ms, goal: TARGETS.sliderP90Desktop });
  if (r.throttled4x) rows.push({ name: 'slider input → paint, 30 words, 4× CPU throttling (p90)', value: r.throttled4x.slider.p90Ms, goal: TARGETS.sliderP90Throttled });
  for (const [name, p] of [['desktop', r.desktop], ['4× throttling', r.throttled4x]]) {
    if (p?.slider.longestTaskMs != null) rows.push({ name: `longest main-thread task while dragging, ${name}`, value: p.slider.longestTaskMs, goal: TARGETS.longestTask });
    if (p) rows.push({ name: `keystroke → paint, ${name} (p90)`, value: p.keystroke.p90, goal: TARGETS.keystroke });
  }
  return rows.map((t) => ({ ...t, met: Number.isFinite(t.value) ? t.value <= t.goal : null, unit: 'ms', lowerIsBetter: true, orEqual: true }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const drags = args.includes('--drags') ? Number(args[args.indexOf('--drags') + 1]) : quick ? 1 : 2;
  const root = args.includes('--root') ? resolve(args[args.indexOf('--root') + 1]) : undefined;
  const r = await renderBudget({ ...(quick ? { drags, moves: 16, keys: 6 } : { drags }), ...(root ? { root } : {}) });
  const file = args.includes('--json') ? args[args.indexOf('--json') + 1] : join(ROOT, 'tests', 'artifacts', 'render-budget.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  console.log(budgetLines(r).join('\n'));
  for (const t of budgetTargets(r)) console.log(`${t.met ? 'met ' : 'MISS'}  ${t.name}: ${Number.isFinite(t.value) ? t.value.toFixed(1) : '—'} ms (goal ≤ ${t.goal} ms)`);
  console.log(`wrote ${file}`);
}
