// render_budget.mjs - how fast the page answers, in Chromium, on the real
// page with the default model: the √d slider dragged across a 30-word
// sentence (input event → the animation frame that paints the main heatmap
// of that value or a later one), the longest main-thread task while
// dragging, keystroke → the frame that shows the character, and which
// card's work took longest in one frame (the render scheduler's timing
// hook, ALIGNSCOPE_RENDER_TIMING: each card's update and the paints it
// queued, controllers/render.js); on the desktop, a 10,000-character paste
// (page.test's bad input): paste → its translation on screen, and the
// longest main-thread task until the page is quiet. Four profiles (PROFILES):
//   desktop        1280×800
//   throttled4x    1280×800 under 4× CPU throttling (CDP
//                  Emulation.setCPUThrottlingRate), every card present
//                  (the cards off screen follow the store only once it is quiet)
//   everyCardOpen  1280×800, every card open: each follows the store as if
//                  on screen (ALIGNSCOPE_RENDER_ALL_ON_SCREEN), two models
//                  compared, the training film open, every <details> open
//   phone          360×740 at 3 device pixels per CSS pixel, touch (the
//                  slider dragged with touch events), 4× CPU throttling
//
//   node tests/bench/render_budget.mjs [--drags N] [--quick] [--json FILE] [--root DIR] [--profiles a,b]
//   (--quick: QUICK_RUN, one short drag and a few keys per profile, to check that it works;
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
const TARGETS = { sliderP90Desktop: 16, sliderP90Throttled: 60, sliderP90EveryCardOpen: 33, longestTask: 50, keystroke: 50 };
const DESKTOP = Object.freeze({ width: 1280, height: 800 });
/** The profiles, in the order they run and are reported. */
export const PROFILES = Object.freeze({
  desktop: { label: 'desktop', viewport: DESKTOP, rate: 1 },
  throttled4x: { label: '4× CPU throttling (every card present)', viewport: DESKTOP, rate: 4 },
  everyCardOpen: { label: 'desktop, every card open', viewport: DESKTOP, rate: 1, open: true },
  phone: { label: 'phone (360×740, 3× pixels, touch, 4× CPU throttling)', viewport: { width: 360, height: 740 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true, rate: 4, touch: true, slider: 'mini' },
});
// The models the "every card open" profile compares with the default one (when the catalogue has them).
const COMPARED = ['en-fr-dot', 'en-fr-general'];
// The slider card's range, and its compact copy in the heatmap's header (the phone's).
const SLIDER = '#app .as-slider input[type="range"]';
const MINI_SLIDER = '#app .as-heat-card input.as-mini-range';

// --quick (bench.test's check that every figure is reported, and ./build.sh bench --quick): one drag of
// 8 moves and 4 keys per profile. Each move waits for the page's answer, 4× slower in the throttled
// profiles (about 1.6 s a move on the phone here), so the moves are most of the run's time.
export const QUICK_RUN = Object.freeze({ drags: 1, moves: 8, keys: 4 });

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
 * Before any script of the page: the scheduler's timing hook on, every card
 * on screen where asked, and a record of each paint of the main heatmap
 * (window.__mainPaints: every heatmap marks alignscope:heatmap-paint; the
 * main one is the one whose canvas counted a paint just before the mark).
 */
function pageHooks(allOnScreen) {
  window.ALIGNSCOPE_RENDER_TIMING = [];
  if (allOnScreen) window.ALIGNSCOPE_RENDER_ALL_ON_SCREEN = true;
  // The main thread's long tasks (> 50 ms), for the long paste.
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration }); }).observe({ type: 'longtask' });
  // Recorded as they happen (a PerformanceObserver's callback can come late on a busy, throttled thread).
  window.__mainPaints = [];
  const mark = performance.mark.bind(performance);
  let seen = '0';
  performance.mark = function (name, opts) {
    const entry = mark(name, opts);
    if (name === 'alignscope:heatmap-paint') {
      const c = document.querySelector('#app .as-heat-card canvas.as-heatmap-canvas');
      if (c && c.dataset.paints !== seen) {
        seen = c.dataset.paints;
        const perf = document.querySelector('#app .as-perf');
        window.__mainPaints.push({ t: entry?.startTime ?? performance.now(), s: opts?.detail?.scoreScale, rt: Number(perf?.dataset.roundTripMs), worker: Number(perf?.dataset.workerMs) });
      }
    }
    return entry;
  };
}

/**
 * Where the frames' time went, per card, from ALIGNSCOPE_RENDER_TIMING's
 * [card, kind, key, ms, frame, end] entries: each card's costliest frame (its
 * measure, update and the jobs it queued, summed in that frame), its total
 * and the number of frames it worked in, costliest first.
 */
export function cardCosts(entries) {
  const perFrame = new Map(); // card -> Map(frame -> ms)
  for (const [card, , , ms, frame] of entries) {
    if (!perFrame.has(card)) perFrame.set(card, new Map());
    const f = perFrame.get(card);
    f.set(frame, (f.get(frame) ?? 0) + ms);
  }
  const out = [];
  for (const [card, frames] of perFrame) {
    const ms = [...frames.values()];
    out.push({ card, maxFrameMs: Math.max(...ms), totalMs: ms.reduce((a, b) => a + b, 0), frames: ms.length });
  }
  return out.sort((a, b) => b.maxFrameMs - a.maxFrameMs || b.totalMs - a.totalMs);
}

/** The "every card open" profile's opening: every <details>, the training film (its points ready), the compared columns. */
async function openEveryCard(page) {
  await page.evaluate(() => { for (const d of document.querySelectorAll('#app details')) d.open = true; });
  const load = page.locator('#app .as-training-load');
  if (await load.count()) {
    await load.first().click();
    await page.waitForFunction(() => {
      const el = document.querySelector('#app .as-training-card');
      const m = /^(\d+) of (\d+) points? (is|are) ready/.exec(el?.querySelector('.as-training-status')?.textContent ?? '');
      return el?.dataset.status === 'failed' || !!el?.querySelector('.as-training-error')?.textContent || (m && m[1] === m[2]);
    }, null, { timeout: 180_000 });
  }
  await page.waitForFunction(() => [...document.querySelectorAll('#app .as-compare-col')].every((c) => {
    const msg = c.querySelector('.as-compare-message');
    return c.querySelector('.as-compare-translation')?.textContent || (msg && !msg.hidden && !/^(Translating|Downloading|Checking|Starting)/.test(msg.textContent));
  }), null, { timeout: 120_000 });
}

/**
 * One drag of the slider across and back with the mouse, or a finger where
 * `cdp` is given (CDP input events). selector: which slider (the card's; on
 * the phone the compact copy in the heatmap's header, which a phone reader
 * drags while watching the rows). base: the engine multiplier painted at
 * slider value 0 (the trained one), so that a paint's multiplier says which
 * slider value it shows.
 */
async function dragSlider(page, browser, { moves, trace, base, cdp = null, selector = SLIDER }) {
  await page.evaluate(() => document.querySelector('#app .as-slider button')?.click()); // back to the trained value
  await page.waitForTimeout(300);
  const slider = page.locator(selector);
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  await page.evaluate((sel) => {
    // A listener once per page; each drag starts with empty records.
    if (!window.__budget) {
      const input = document.querySelector(sel);
      input.addEventListener('input', (e) => window.__budget.inputs.push({ t: e.timeStamp, v: Number(input.value) }));
    }
    window.__budget = { inputs: [], paintsFrom: window.__mainPaints.length, timingFrom: window.ALIGNSCOPE_RENDER_TIMING.length };
  }, selector);
  const y = box.y + box.height / 2;
  const x0 = box.x + 4;
  const x1 = box.x + box.width - 4;
  // The mouse, or a finger (CDP touch events: the phone profile).
  const touch = (type, x) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  const at = (f) => x0 + (x1 - x0) * f;
  if (cdp) await touch('touchStart', at(0.4)); else await page.mouse.move(at(0.4), y);
  if (trace) await browser.startTracing(page, { categories: ['devtools.timeline', 'toplevel'] });
  if (!cdp) await page.mouse.down();
  for (let i = 1; i <= moves; i++) {
    const f = i / moves; // across and back, the way a teacher drags it
    const x = at(f < 0.5 ? 2 * f : 2 - 2 * f);
    if (cdp) await touch('touchMove', x); else await page.mouse.move(x, y);
    await page.waitForTimeout(12);
  }
  if (cdp) await touch('touchEnd', 0); else await page.mouse.up();
  await page.waitForTimeout(800);
  const longest = trace ? longestMainThreadTask(await browser.stopTracing()) : null;
  const { inputs, paints, timing } = await page.evaluate(() => ({
    inputs: window.__budget.inputs, paints: window.__mainPaints.slice(window.__budget.paintsFrom), timing: window.ALIGNSCOPE_RENDER_TIMING.slice(window.__budget.timingFrom),
  }));
  // The slider value a paint shows: multiplier = base / 2^value.
  const valueOf = (s) => Math.log2(base / s);
  // Input i is answered by the first paint after it that shows its value or a later input's.
  const lat = [];
  for (let i = 0; i < inputs.length; i++) {
    const later = inputs.slice(i).map((x) => x.v);
    const p = paints.find((q) => q.t >= inputs[i].t && q.s > 0 && later.some((v) => Math.abs(v - valueOf(q.s)) < 1e-3));
    if (p) lat.push(p.t - inputs[i].t);
  }
  // The drag's work: up to the paint that answered its last input (the quiet catch-up after it is not the drag's).
  const last = inputs.length ? paints.find((q) => q.t >= inputs.at(-1).t && q.s > 0 && Math.abs(inputs.at(-1).v - valueOf(q.s)) < 1e-3) : null;
  const dragTiming = last ? timing.filter((e) => e[5] <= last.t + 1) : timing;
  return {
    inputs: inputs.length, paints: paints.length, answered: lat.length, p50: quantile(lat, 0.5), p90: quantile(lat, 0.9), max: lat.length ? Math.max(...lat) : NaN, longest,
    // The worker's share: its decode, and the round trip through postMessage, per painted result.
    workerMedian: quantile(paints.map((q) => q.worker).filter(Number.isFinite), 0.5), roundTripMedian: quantile(paints.map((q) => q.rt).filter(Number.isFinite), 0.5),
    timing: dragTiming,
  };
}

async function keystrokes(page, n) {
  const box = page.locator('#app textarea.as-input');
  await box.focus();
  await page.keyboard.press('End');
  await page.evaluate(() => {
    const ta = document.querySelector('#app textarea.as-input');
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

/**
 * A paste of 10,000 characters (2,000 kept, 400 tokens, the first 100 translated, page.test's
 * bad input) into the sentence box: { shownMs (paste → the translation's long-text note on
 * screen), longestTaskMs and tasksOver50 (the page's main thread, from the paste until 1.5 s
 * after it showed; PerformanceObserver 'longtask', from pageHooks) }.
 */
async function longPaste(page) {
  const box = page.locator('#app textarea.as-input');
  await box.focus();
  await page.keyboard.press('Control+A');
  const t0 = await page.evaluate(() => performance.now());
  await page.keyboard.insertText('word '.repeat(2000));
  await page.waitForFunction(() => /\b400\b/.test(document.querySelector('#app .as-translation-box .as-long-note:not([hidden])')?.textContent ?? ''), null, { timeout: 120_000 });
  const shownAt = await page.evaluate(() => performance.now());
  await page.waitForTimeout(1500);
  const tasks = await page.evaluate((from) => window.__longTasks.filter((x) => x.start >= from - 1), t0);
  return { shownMs: shownAt - t0, longestTaskMs: Math.max(0, ...tasks.map((x) => x.ms)), tasksOver50: tasks.filter((x) => x.ms > 50).length };
}

/**
 * Runs the measurements; returns { chromium, model, sentence, words, profiles: [names], [name]: { label,
 * cpuThrottling, viewport, slider, keystroke, cards, paste (desktop: longPaste()) } } for each profile run (PROFILES; `profiles` picks some).
 */
export async function renderBudget({ drags = 2, moves = 60, keys = 24, root = join(ROOT, 'web'), profiles = Object.keys(PROFILES) } = {}) {
  const { launchChromium } = await import('../support/chromium.mjs');
  const { startServer } = await import('../../web/tools/serve.mjs');
  const { assemble } = await import('../../web/tools/assemble.mjs');
  if (!existsSync(join(ROOT, 'web', 'gen', 'alignscope-simd.wasm'))) throw new Error('web/gen/alignscope-simd.wasm is missing: run ./build.sh wasm');
  for (const name of profiles) if (!PROFILES[name]) throw new Error(`render_budget: no profile ${name} (${Object.keys(PROFILES).join(', ')})`);
  const catalog = assemble({ quiet: true });
  const compared = COMPARED.filter((id) => id !== catalog.default && catalog.models.some((m) => m.id === id));
  const server = await startServer({ root, port: 0, mounts: { '/models/': join(ROOT, 'web', 'models'), '/gen/': join(ROOT, 'web', 'gen') } });
  const browser = await launchChromium();
  const out = { chromium: browser.version(), model: catalog.default, sentence: BUDGET_SENTENCE, words: BUDGET_SENTENCE.split(/\s+/).length, profiles: [] };
  try {
    for (const name of profiles) {
      const prof = PROFILES[name];
      const context = await browser.newContext({ viewport: prof.viewport, deviceScaleFactor: prof.deviceScaleFactor ?? 1, isMobile: !!prof.isMobile, hasTouch: !!prof.hasTouch });
      await context.addInitScript(pageHooks, !!prof.open);
      const page = await context.newPage();
      const hash = new URLSearchParams({ s: BUDGET_SENTENCE, ...(prof.open && compared.length ? { vs: compared.join(',') } : {}) });
      await page.goto(`${server.url}#${hash}`);
      await page.waitForSelector('#app .as-root[data-ready="true"]', { timeout: 60_000 });
      if (prof.open) await openEveryCard(page);
      await page.waitForTimeout(300);
      const base = await page.evaluate(() => window.__mainPaints.at(-1)?.s);
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: prof.rate });
      const runs = [];
      for (let d = 0; d < drags; d++) runs.push(await dragSlider(page, browser, { moves, trace: d === 0, base, cdp: prof.touch ? cdp : null, selector: prof.slider === 'mini' ? MINI_SLIDER : SLIDER }));
      const typed = await keystrokes(page, keys);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      const paste = name === 'desktop' ? await longPaste(page) : null;
      const open = prof.open ? await page.evaluate(() => ({
        compared: document.querySelectorAll('#app .as-compare-col').length - 1,
        filmPoints: document.querySelectorAll('#app .as-training-card .as-training-ticks > *').length || null,
        everyCardOnScreen: window.ALIGNSCOPE_RENDER_ALL_ON_SCREEN === true,
      })) : null;
      out[name] = {
        label: prof.label, cpuThrottling: prof.rate, viewport: `${prof.viewport.width}×${prof.viewport.height}`, deviceScaleFactor: prof.deviceScaleFactor ?? 1,
        input: prof.touch ? 'touch' : 'mouse', ...(open ? { open } : {}),
        slider: mergeRuns(runs), keystroke: typed, cards: cardCosts(runs.flatMap((r) => r.timing)), ...(paste ? { paste } : {}),
      };
      out.profiles.push(name);
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

const profileNames = (r) => (r.profiles ?? ['desktop', 'throttled4x']).filter((n) => r[n]);
const labelOf = (r, n) => r[n].label ?? PROFILES[n]?.label ?? n;

/** Markdown lines for a renderBudget() result. */
export function budgetLines(r) {
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—');
  const names = profileNames(r);
  const lines = [`Render budget (tests/bench/render_budget.mjs; ${r.words}-word sentence, model ${r.model}, Chromium ${r.chromium}):`, '',
    '| profile | slider input → paint p50 | p90 | max | worker decode / round trip (median) | inputs / paints | longest main-thread task while dragging | tasks > 50 ms | keystroke → paint p50 / p90 |', '|---|---|---|---|---|---|---|---|---|'];
  for (const n of names) {
    const p = r[n];
    lines.push(`| ${labelOf(r, n)} | ${f(p.slider.p50Ms)} ms | ${f(p.slider.p90Ms)} ms | ${f(p.slider.maxMs)} ms | ${f(p.slider.workerDecodeMedianMs)} / ${f(p.slider.roundTripMedianMs)} ms | ${p.slider.inputs} / ${p.slider.paints} | ${f(p.slider.longestTaskMs)} ms | ${p.slider.tasksOver50ms ?? '—'} | ${f(p.keystroke.p50)} / ${f(p.keystroke.p90)} ms |`);
  }
  const paste = names.map((n) => r[n].paste).find(Boolean);
  if (paste) lines.push('', `A 10,000-character paste (400 tokens, the first 100 translated), desktop: on screen ${f(paste.shownMs)} ms after the paste; longest main-thread task until quiet ${f(paste.longestTaskMs)} ms (${paste.tasksOver50} over 50 ms).`);
  const open = names.map((n) => r[n].open).find(Boolean);
  if (open) lines.push('', `Every card open: ${open.compared} model${open.compared === 1 ? '' : 's'} compared, the training film open${open.filmPoints ? ` (${open.filmPoints} points)` : ''}, every card following the store as if on screen.`);
  const withCards = names.filter((n) => r[n].cards?.length);
  if (withCards.length) {
    lines.push('', 'Which card’s work took longest in one frame of the drag (its update and the paints it queued, summed in that frame; the render scheduler’s timing hook; work no card’s update queued is named by its own key, e.g. heatmap-1-top: the main heatmap’s position check after a scroll), and the next two:', '',
      '| profile | longest | then | then |', '|---|---|---|---|');
    for (const n of withCards) {
      const c = r[n].cards;
      const cell = (x) => (x ? `${x.card} ${f(x.maxFrameMs)} ms (${f(x.totalMs)} ms in ${x.frames} frames)` : '—');
      lines.push(`| ${labelOf(r, n)} | **${cell(c[0])}** | ${cell(c[1])} | ${cell(c[2])} |`);
    }
  }
  const split = names.filter((n) => r[n].slider.mainThreadMs);
  if (split.length) {
    lines.push('', 'Main-thread time during one drag, by phase (ms, summed; nested events count in each phase they are):', '',
      '| profile | script | style | layout | paint | commit | gc |', '|---|---|---|---|---|---|---|');
    for (const n of split) {
      const m = r[n].slider.mainThreadMs;
      lines.push(`| ${labelOf(r, n)} | ${['script', 'style', 'layout', 'paint', 'commit', 'gc'].map((k) => f(m[k] ?? 0)).join(' | ')} |`);
    }
  }
  return lines;
}

/** The card whose work took longest in one frame, per profile: [{ profile, card, ms }] (bench.mjs prints them). */
export function longestCards(r) {
  return profileNames(r).filter((n) => r[n].cards?.length).map((n) => ({ profile: labelOf(r, n), card: r[n].cards[0].card, ms: r[n].cards[0].maxFrameMs }));
}

/** Target rows for results.md (bench.mjs); rows without a goal of the issue are context (goal null). */
export function budgetTargets(r) {
  const rows = [];
  const row = (name, value, goal) => rows.push({ name, value, goal });
  if (r.desktop) row('slider input → paint, 30 words, desktop (p90)', r.desktop.slider.p90Ms, TARGETS.sliderP90Desktop);
  if (r.throttled4x) row('slider input → paint, 30 words, 4× CPU throttling, every card present (p90)', r.throttled4x.slider.p90Ms, TARGETS.sliderP90Throttled);
  if (r.everyCardOpen) row('slider input → paint, 30 words, desktop, every card open (p90)', r.everyCardOpen.slider.p90Ms, TARGETS.sliderP90EveryCardOpen);
  if (r.phone) row('slider input → paint, 30 words, phone profile (p90)', r.phone.slider.p90Ms, null);
  for (const [name, p, goals] of [['desktop', r.desktop, true], ['4× throttling', r.throttled4x, true], ['every card open', r.everyCardOpen, false], ['phone', r.phone, false]]) {
    if (!p) continue;
    if (p.slider.longestTaskMs != null) row(`longest main-thread task while dragging, ${name}`, p.slider.longestTaskMs, goals ? TARGETS.longestTask : null);
    row(`keystroke → paint, ${name} (p90)`, p.keystroke.p90, goals ? TARGETS.keystroke : null);
  }
  if (r.desktop?.paste) row('longest main-thread task after a 10,000-character paste, desktop', r.desktop.paste.longestTaskMs, null);
  return rows.map((t) => ({ ...t, met: t.goal == null ? null : Number.isFinite(t.value) ? t.value <= t.goal : null, unit: 'ms', lowerIsBetter: true, orEqual: true }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const drags = args.includes('--drags') ? Number(args[args.indexOf('--drags') + 1]) : quick ? QUICK_RUN.drags : 2;
  const root = args.includes('--root') ? resolve(args[args.indexOf('--root') + 1]) : undefined;
  const profiles = args.includes('--profiles') ? args[args.indexOf('--profiles') + 1].split(',') : undefined;
  const r = await renderBudget({ ...(quick ? { ...QUICK_RUN, drags } : { drags }), ...(root ? { root } : {}), ...(profiles ? { profiles } : {}) });
  const file = args.includes('--json') ? args[args.indexOf('--json') + 1] : join(ROOT, 'tests', 'artifacts', 'render-budget.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  console.log(budgetLines(r).join('\n'));
  for (const t of budgetTargets(r)) console.log(`${t.goal == null ? 'info' : t.met ? 'met ' : 'MISS'}  ${t.name}: ${Number.isFinite(t.value) ? t.value.toFixed(1) : '—'} ms${t.goal == null ? '' : ` (goal ≤ ${t.goal} ms)`}`);
  for (const c of longestCards(r)) console.log(`longest card paint, ${c.profile}: ${c.card} (${c.ms.toFixed(1)} ms in one frame)`);
  console.log(`wrote ${file}`);
}
