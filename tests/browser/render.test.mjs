// The render scheduler in the page (web/lib/scheduler.js, controllers/render.js):
// what a slider drag repaints, and in which order results are painted; which
// controllers ask the engine while their cards are off screen (none of the
// comparison, the film, the pin and the beam until the card comes into view or
// the store goes quiet); that no card reads layout after writing it in one
// frame. These check behaviour, not time: counts of updates per card per frame
// (the page's ALIGNSCOPE_RENDER_LOG hook), which cards were off screen, which
// values were painted, the requests sent to the engine workers and their
// answers, the reads of layout within a frame, and that the screen-reader table
// keeps its cells.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, gotoReady, WEB, DESKTOP } from './support.mjs';

const SENTENCE = 'When you open a new window from the file menu, the program asks whether you want to save the changes';

const ALWAYS = ['input', 'model', 'steps'];
let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

/** The page at the top, with the render log on, its first result drawn and the far cards built. */
async function openLogged() {
  const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
  await page.addInitScript(() => { window.ALIGNSCOPE_RENDER_LOG = []; });
  await gotoReady(page, env.url(`index.html#s=${encodeURIComponent(SENTENCE)}`));
  await page.evaluate(() => window.scrollTo(0, 0));
  // Let the start settle (the far cards built, the quiet catch-up done).
  await page.waitForTimeout(800);
  return { page, errors, context };
}

/**
 * A drag of `steps` slider steps, `perFrame` input events in each animation
 * frame. → { frames (the browser's frames from the first step to the last
 * result's paint), log (entries during the drag), off (areas off screen all
 * along), painted (scoreScales of the heatmap paints, in order), values }
 */
function drag(page, { steps, perFrame }) {
  return page.evaluate(async ({ steps, perFrame }) => {
    const input = document.querySelector('#app .as-slider input[type="range"]');
    const log = window.ALIGNSCOPE_RENDER_LOG;
    const NEAR = 200; // controllers/render.js counts cards this near the screen as on it
    const offNow = () => [...document.querySelectorAll('#app [data-area]')]
      .filter((el) => { const r = el.getBoundingClientRect(); return r.bottom < -NEAR || r.top > innerHeight + NEAR; })
      .map((el) => el.dataset.area);
    const off = new Set(offNow());
    // The main map's last paint before the drag was at the slider's value now: its multiplier times
    // 2^value is the model's trained one, so the last value's multiplier is known before it is painted.
    const before = performance.getEntriesByName('alignscope:heatmap-paint').filter((e) => e.detail?.map === 'main' && e.detail.scoreScale != null).at(-1);
    const trained = before ? before.detail.scoreScale * 2 ** Number(input.value) : null;
    const painted = [];
    const po = new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail?.map === 'main') painted.push(e.detail.scoreScale); });
    po.observe({ entryTypes: ['mark'] });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const start = log.length;
    let frames = 0;
    const values = [];
    for (let i = 0; i < steps;) {
      for (let k = 0; k < perFrame && i < steps; k += 1, i += 1) {
        const v = -2 + (i + 1) * 0.05;
        input.value = String(v);
        values.push(input.value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }
      await new Promise((r) => requestAnimationFrame(r));
      frames += 1;
      for (const a of [...off]) if (!offNow().includes(a)) off.delete(a);
    }
    // The last result: let the worker answer and its frame paint (well before the store's quiet catch-up).
    // Until the last value's own paint: a result asked for earlier may still arrive first.
    const want = trained == null ? null : trained / 2 ** Number(values.at(-1));
    const lastPainted = () => painted.length > 0 && (want == null || Math.abs(painted.at(-1) - want) <= 1e-6 * want);
    const t0 = performance.now();
    while (performance.now() - t0 < 5000) {
      await new Promise((r) => requestAnimationFrame(r));
      frames += 1;
      if (lastPainted()) break;
    }
    for (let k = 0; k < 2; k++) { await new Promise((r) => requestAnimationFrame(r)); frames += 1; }
    po.disconnect();
    const during = log.slice(start);
    return { frames, log: during, off: [...off], painted: painted.filter((x) => x != null), values, want };
  }, { steps, perFrame });
}

/**
 * The page's init script that catches a read of layout after a DOM write in
 * the same animation frame (what forces the browser to lay the page out in
 * the middle of the frame). Every requestAnimationFrame callback is wrapped: a
 * MutationObserver's pending records (childList, attributes, text; a style
 * set from script is an attribute change) are dropped at the first callback
 * of each frame, so writes from before the frame do not count (the frame's
 * first read pays for those: the scheduler's measure phase); within the
 * frame, a read of layout (client*, offset*, scroll*, innerText,
 * getBoundingClientRect, getClientRects) while records are pending is a read
 * after a write. window.__layoutReads gets { what, write, stack, page } for
 * each: page, whether the reader is one of the page's own modules (a test's
 * own reads are not).
 */
function watchLayoutReads() {
  const reads = window.__layoutReads = [];
  const mo = new MutationObserver(() => {});
  const observe = () => mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.documentElement) observe(); else document.addEventListener('readystatechange', observe, { once: true });
  let frameTime = null;
  let inFrame = false;
  const raf = window.requestAnimationFrame;
  window.requestAnimationFrame = function requestAnimationFrame(cb) {
    return raf.call(window, (ts) => {
      if (ts !== frameTime) { frameTime = ts; mo.takeRecords(); }
      inFrame = true;
      try { return cb(ts); } finally { inFrame = false; }
    });
  };
  const check = (what) => {
    if (!inFrame) return;
    const records = mo.takeRecords();
    if (!records.length) return;
    const w = records.at(-1);
    const stack = new Error().stack.split('\n').slice(3, 10).map((l) => l.trim());
    reads.push({
      what, write: `${w.type} ${w.attributeName ?? ''} on ${w.target.nodeName}.${w.target.className?.baseVal ?? w.target.className ?? ''}`,
      stack, page: stack[0]?.includes(location.origin) ?? false,
    });
  };
  const getter = (proto, name) => {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    Object.defineProperty(proto, name, { ...d, get() { check(name); return d.get.call(this); } });
  };
  const method = (proto, name) => {
    const f = proto[name];
    Object.defineProperty(proto, name, { value: function (...args) { check(name); return f.apply(this, args); }, writable: true, configurable: true });
  };
  for (const n of ['clientWidth', 'clientHeight', 'clientLeft', 'clientTop', 'scrollWidth', 'scrollHeight', 'scrollLeft', 'scrollTop']) getter(Element.prototype, n);
  for (const n of ['offsetWidth', 'offsetHeight', 'offsetLeft', 'offsetTop', 'innerText']) getter(HTMLElement.prototype, n);
  for (const n of ['getBoundingClientRect', 'getClientRects']) method(Element.prototype, n);
}

/**
 * The page's init script that records what the page asks of its engine
 * workers, and their answers. window.__sent: { w (the worker, numbered as
 * first used), kind, type, id, scoreScale, log (the render log's length then) }
 * per request; kind: which controller sent it, told by the worker's model and
 * the request: 'training' (a film point's worker: model film:…), 'compare'
 * (the compared model's worker), and on the main model's worker 'beam' (a
 * search), 'pin' (a decode with an override), 'main' (the translation), null
 * for the rest. window.__replies: { w, type, id, log, paints } per answer,
 * paints: the `paints` count of each canvas of `canvases` just before the
 * page reads the answer.
 */
function watchWorkers({ main, compared, canvases }) {
  const sent = window.__sent = [];
  const replies = window.__replies = [];
  const ids = new WeakMap();
  const models = new WeakMap();
  let workers = 0;
  const idOf = (w) => { if (!ids.has(w)) ids.set(w, ++workers); return ids.get(w); };
  const logLength = () => window.ALIGNSCOPE_RENDER_LOG?.length ?? 0;
  const paints = () => Object.fromEntries(Object.entries(canvases).map(([k, sel]) => [k, Number(document.querySelector(sel)?.dataset.paints ?? 0)]));
  const kindOf = (model, msg) => {
    if (!['translate', 'beam', 'decode'].includes(msg.type)) return null;
    if (model?.startsWith('film:')) return 'training';
    if (model === compared) return 'compare';
    if (model !== main) return null;
    if (msg.type === 'beam') return 'beam';
    if (msg.type === 'decode') return msg.overrides?.length && msg.window == null ? 'pin' : null;
    return 'main';
  };
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function postMessage(msg, ...rest) {
    if (msg?.type === 'load') models.set(this, msg.modelId);
    const model = models.get(this) ?? null;
    sent.push({ w: idOf(this), kind: kindOf(model, msg ?? {}), type: msg?.type, id: msg?.id ?? null, scoreScale: msg?.scoreScale ?? null, log: logLength() });
    return post.call(this, msg, ...rest);
  };
  const d = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
  Object.defineProperty(Worker.prototype, 'onmessage', {
    ...d,
    set(fn) {
      const worker = this;
      d.set.call(this, typeof fn !== 'function' ? fn : function onmessage(e) {
        replies.push({ w: idOf(worker), type: e.data?.type, id: e.data?.id ?? null, log: logLength(), paints: paints() });
        return fn.call(this, e);
      });
    },
  });
}

describe('render scheduler', () => {
  test('a drag of 100 slider steps: each card on screen updates at most once per frame, the cards off screen not at all', async () => {
    const { page, errors, context } = await openLogged();
    const r = await drag(page, { steps: 100, perFrame: 2 });
    const seen = new Map();
    for (const [frame, kind, key] of r.log.filter(([, kind]) => kind === 'update' || kind === 'job')) {
      const k = `${frame} ${kind} ${key}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    const twice = [...seen].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'nothing runs twice in one frame');
    const updated = new Set(r.log.filter(([, kind]) => kind === 'update').map(([, , key]) => key));
    assert.ok(updated.has('heat'), `the heatmap card followed the drag: ${[...updated]}`);
    // A frame that brings every card up to date comes only after the store has
    // been quiet (300 ms): a loaded machine can stall the drag that long, and
    // then the cards off screen catch up, as they should. Other frames update
    // only the cards on screen.
    const settleFrames = new Set(r.log.filter(([, kind]) => kind === 'settle').map(([frame]) => frame));
    const offUpdates = r.log.filter(([frame, kind]) => kind === 'update' && !settleFrames.has(frame));
    console.log(`off screen during the drag: ${r.off.join(', ')}; ${r.frames} frames, ${r.painted.length} heatmap paints, ${settleFrames.size} quiet catch-ups`);
    assert.ok(r.off.filter((a) => !ALWAYS.includes(a)).length >= 3, `some cards were off screen all along: ${r.off}`);
    // (The sentence's and the model's cards are controls, cheap, and follow the store on screen or not: controllers/render.js `always`.)
    for (const area of r.off.filter((a) => !ALWAYS.includes(a))) {
      assert.ok(!offUpdates.some(([, , key]) => key === area), `${area} was off screen and updated in a frame that was not a quiet catch-up`);
    }
    // Every scheduler frame is one browser frame: the heatmap card updates at most once in each.
    const heatUpdates = r.log.filter(([, kind, key]) => kind === 'update' && key === 'heat').length;
    assert.ok(heatUpdates <= r.frames, `heat card updates (${heatUpdates}) ≤ the browser's frames (${r.frames})`);
    // Once the store is quiet, the cards off screen catch up (a screen reader, a find in the page).
    const caughtUp = await page.waitForFunction((off) => off.every((a) => window.ALIGNSCOPE_RENDER_LOG.some(([, kind, key]) => kind === 'update' && key === a)), r.off, { timeout: 5000 }).then(() => true, () => false);
    assert.ok(caughtUp, 'the cards off screen are brought up to date after the drag');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a pointer held on the slider: no quiet catch-up while it is down, however long between moves; one after it lets go', async () => {
    const { page, errors, context } = await openLogged();
    const slider = page.locator('#app .as-slider input[type="range"]');
    await slider.scrollIntoViewIfNeeded();
    const box = await slider.boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.4, y);
    await page.mouse.down();
    const down = await page.evaluate(() => window.ALIGNSCOPE_RENDER_LOG.length);
    // A slow device's drag: moves further apart than the quiet time (300 ms), the pointer down all along.
    await page.mouse.move(box.x + box.width * 0.6, y, { steps: 4 });
    await page.waitForTimeout(900);
    await page.mouse.move(box.x + box.width * 0.7, y, { steps: 2 });
    await page.waitForTimeout(900);
    const during = await page.evaluate((from) => window.ALIGNSCOPE_RENDER_LOG.slice(from), down);
    await page.mouse.up();
    assert.ok(during.some(([, kind, key]) => kind === 'update' && key === 'heat'), 'the drag moved the heatmap');
    assert.deepEqual(during.filter(([, kind]) => kind === 'quiet' || kind === 'settle'), [], 'no catch-up while the pointer is down');
    // Let go: the store goes quiet and the cards off screen catch up.
    await page.waitForFunction((from) => window.ALIGNSCOPE_RENDER_LOG.slice(from).some(([, kind]) => kind === 'quiet'), down, { timeout: 10_000 });
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('results are painted in the order they were asked for, the last one last: a value overtaken by a newer one is never painted', async () => {
    const { page, errors, context } = await openLogged();
    const r = await drag(page, { steps: 100, perFrame: 3 });
    assert.ok(r.painted.length >= 1, 'the drag was painted');
    assert.ok(r.want != null, 'the last value\'s multiplier was known (a paint before the drag)');
    // The slider moves one way: the score multiplier only falls. An older value painted after a newer one would break that.
    for (let i = 1; i < r.painted.length; i++) assert.ok(r.painted[i] <= r.painted[i - 1] + 1e-12, `paint ${i}: ${r.painted[i - 1]} then ${r.painted[i]}`);
    assert.ok(r.painted.length < 100, `intermediate values were dropped (${r.painted.length} paints for 100 steps)`);
    const last = await page.evaluate(() => document.querySelector('#app .as-slider input[type="range"]').value);
    assert.equal(last, r.values.at(-1));
    // The last paint is the last value's: the next paint (a theme change) shows the same multiplier.
    const again = await page.evaluate(async () => {
      const got = [];
      const po = new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail?.map === 'main') got.push(e.detail.scoreScale); });
      po.observe({ entryTypes: ['mark'] });
      document.querySelector('#app .as-root').dispatchEvent(new Event('as-theme'));
      await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      po.disconnect();
      return got.filter((x) => x != null);
    });
    assert.equal(again.at(-1), r.painted.at(-1), 'the figure ends on the drag’s last value');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the comparison, the film, the pin and the beam ask the engine nothing while their cards are off screen during a drag; each asks once its card comes into view, and fills it', async () => {
    // The film is of one model (the catalogue's films), compared with another model that has attention.
    const catalog = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'index.json'), 'utf8'));
    const main = catalog.films?.[0]?.model;
    assert.ok(main, 'the catalogue has a training film');
    const compared = catalog.models.find((m) => m.id !== main && m.attention !== 'none' && m.file !== catalog.models.find((x) => x.id === main).file)?.id;
    assert.ok(compared, 'a model to compare with');
    const AREAS = ['compare', 'training', 'pin', 'beam'];
    // The canvas of each card that shows only its controller's answers.
    const canvases = {
      compare: `#app .as-compare-col[data-model="${compared}"] canvas.as-heatmap-canvas`,
      training: '#app .as-training-box canvas.as-heatmap-canvas',
      pin: '#app .as-pin-col[data-pin="pinned"] canvas.as-heatmap-canvas',
      beam: '#app .as-beam-heat canvas.as-heatmap-canvas',
    };
    const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
    await page.addInitScript(() => { window.ALIGNSCOPE_RENDER_LOG = []; });
    await page.addInitScript(watchWorkers, { main, compared, canvases });
    const hash = new URLSearchParams({ s: 'Open the selected file and close the window', m: main, vs: compared, step: '1', pin: '1:@0' });
    await gotoReady(page, env.url(`index.html#${hash}`));
    const poll = { polling: 100, timeout: 120_000 };
    // The film opened (the keyboard: a pointer's press and release can land on different things while cards grow).
    await page.focus('#app .as-training-card .as-training-load');
    await page.keyboard.press('Enter');
    /** Every controller has asked, and every request has its answer; → the film's workers, in the order of their points. */
    const settled = () => page.waitForFunction((points) => {
      const asked = window.__sent.filter((m) => m.kind && m.id != null);
      const answered = (m) => window.__replies.some((r) => r.w === m.w && r.id === m.id);
      const film = new Set(asked.filter((m) => m.kind === 'training').map((m) => m.w));
      return ['compare', 'pin', 'beam'].every((k) => asked.some((m) => m.kind === k)) && film.size === points && asked.every(answered) ? [...film].sort((a, b) => a - b) : null;
    }, catalog.films[0].points, poll).then((h) => h.jsonValue());
    const filmWorkers = await settled();
    // The first screen, the store quiet again, every answer in.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => new Promise((r) => setTimeout(r, 700)));
    await settled();
    const NEAR = 200; // controllers/render.js counts cards this near the screen as on it
    const offScreen = () => page.evaluate((near) => Object.fromEntries([...document.querySelectorAll('#app [data-area]')]
      .map((el) => { const r = el.getBoundingClientRect(); return [el.dataset.area, r.bottom < -near || r.top > innerHeight + near]; })), NEAR);
    const off = await offScreen();
    for (const a of AREAS) assert.equal(off[a], true, `precondition: the ${a} card starts off screen`);
    /** The latest request of each controller (a film point's: per worker): kind or kind:worker → request. */
    const latest = (sent) => {
      const out = {};
      for (const m of sent) if (m.kind && m.id != null) out[m.kind === 'training' ? `training:${m.w}` : m.kind] = m;
      return out;
    };
    const before = latest(await page.evaluate(() => window.__sent));
    const v0 = Number(await page.$eval('#app .as-slider input[type="range"]', (el) => el.value));

    // 1. A drag with every one of these cards off screen: an input every 25 ms (a quiet store takes 300 ms).
    const drag = await page.evaluate(async () => {
      const input = document.querySelector('#app .as-slider input[type="range"]');
      const log = window.ALIGNSCOPE_RENDER_LOG;
      const start = { sent: window.__sent.length, log: log.length };
      for (let i = 1; i <= 40; i++) {
        input.value = String(i * 0.05);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 25));
      }
      const lastInput = log.length;
      // Until the store is quiet (the last results in): the controllers are woken then, by design.
      const t0 = performance.now();
      let quiet = -1;
      while (quiet < 0 && performance.now() - t0 < 20_000) {
        await new Promise((r) => setTimeout(r, 50));
        quiet = log.findIndex(([, kind], i) => i >= start.log && kind === 'quiet');
      }
      return { start, lastInput, quiet, value: Number(input.value) };
    });
    assert.ok(drag.quiet >= 0, 'the store went quiet after the drag');
    const window1 = (await page.evaluate(() => window.__sent)).slice(drag.start.sent).filter((m) => m.log <= drag.quiet);
    const count = (kind) => window1.filter((m) => m.kind === kind).length;
    console.log(`during the drag: ${count('main')} translations asked; compare ${count('compare')}, film ${count('training')}, pin ${count('pin')}, beam ${count('beam')}${drag.quiet < drag.lastInput ? ' (the store went quiet before the last input)' : ''}`);
    assert.ok(count('main') > 0, 'the drag was translated');
    for (const a of AREAS) assert.equal(count(a), 0, `the ${a} controller asked nothing while its card was off screen and the store busy`);

    // 2. Each card in turn: a drag with it off screen, then the store kept busy by steps of the
    //    step-through (which give these controllers nothing to do) and, once the drag's last
    //    result is in, the card scrolled into view. Only its coming into view can make its
    //    controller ask now: the store is not quiet, and nothing it follows changes any more.
    let value = drag.value;
    for (const area of AREAS) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.evaluate(() => new Promise((r) => setTimeout(r, 700)));
      assert.equal((await offScreen())[area], true, `${area} off screen again`);
      const r = await page.evaluate(async ({ area, kind, from }) => {
        const input = document.querySelector('#app .as-slider input[type="range"]');
        const next = document.querySelector('#app [aria-label="Next step"]');
        const back = document.querySelector('#app [aria-label="Previous step"]');
        const log = window.ALIGNSCOPE_RENDER_LOG;
        const start = { sent: window.__sent.length, log: log.length };
        const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
        // Ten slider inputs, back and forth between two values (a store change each), never `from`.
        for (let i = 1; i <= 10; i++) {
          input.value = String(from + (i % 2 ? 0.05 : 0.1));
          input.dispatchEvent(new Event('input', { bubbles: true }));
          await sleep(25);
        }
        let ticks = 0;
        const timer = setInterval(() => { ticks += 1; (ticks % 2 ? next : back).click(); }, 25);
        // The drag's last translation answered and in the store.
        const lastMain = window.__sent.filter((m) => m.kind === 'main').at(-1);
        const t0 = performance.now();
        while (!window.__replies.some((x) => x.w === lastMain.w && x.id === lastMain.id) && performance.now() - t0 < 20_000) await sleep(10);
        await sleep(150);
        const at = { sent: window.__sent.length, log: log.length };
        const offAsked = window.__sent.slice(start.sent, at.sent).filter((m) => m.kind === kind).length;
        document.querySelector(`#app [data-area="${area}"]`).scrollIntoView({ block: 'start' });
        let first = null;
        const t1 = performance.now();
        while (!first && performance.now() - t1 < 10_000) {
          await sleep(10);
          first = window.__sent.slice(at.sent).find((m) => m.kind === kind) ?? null;
        }
        clearInterval(timer);
        const quiet = log.slice(start.log, first ? first.log : log.length).some(([, k]) => k === 'quiet');
        return { first, offAsked, quiet, value: Number(input.value), ticks, stopped: log.length };
      }, { area, kind: area, from: value });
      assert.equal(r.offAsked, 0, `${area}: nothing asked while it was off screen`);
      assert.equal(r.quiet, false, `${area}: the store was busy all along (${r.ticks} steps)`);
      assert.ok(r.first, `${area}: its controller asked once its card came into view, before the store went quiet`);
      value = r.value;
      // It fills: its latest request is for the last value, answered, and the card painted after the answer.
      // (Once the store has gone quiet after the drag: every result of it is in.)
      const done = await page.waitForFunction(({ area, film, selector, stopped }) => {
        if (!window.ALIGNSCOPE_RENDER_LOG.slice(stopped).some(([, k]) => k === 'quiet')) return null;
        const last = window.__sent.filter((m) => m.kind === area && m.id != null && (area !== 'training' || m.w === film)).at(-1);
        const reply = last && window.__replies.find((x) => x.w === last.w && x.id === last.id);
        const paints = Number(document.querySelector(selector)?.dataset.paints ?? 0);
        return reply && paints > reply.paints[area] ? { last, value: Number(document.querySelector('#app .as-slider input[type="range"]').value) } : null;
      }, { area, film: filmWorkers[0], selector: canvases[area], stopped: r.stopped }, poll).then((h) => h.jsonValue());
      // Its multiplier is the last value's: the model's own at the start (before) × 2^(v0 − value).
      const key = area === 'training' ? `training:${filmWorkers[0]}` : area;
      const want = before[key].scoreScale * 2 ** (v0 - done.value);
      assert.ok(Math.abs(done.last.scoreScale - want) <= 1e-6 * want, `${area}: the latest request is for the last value (${done.last.scoreScale} vs ${want})`);
    }
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('no card reads layout after a write in the same frame: start-up, a slider drag, a new sentence, a resize (every card following the store)', async () => {
    const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
    // Every card as if on screen (the bench's "every card open"), so that each one's frame work runs.
    await page.addInitScript(() => { window.ALIGNSCOPE_RENDER_ALL_ON_SCREEN = true; });
    await page.addInitScript(watchLayoutReads);
    await gotoReady(page, env.url(`index.html#s=${encodeURIComponent(SENTENCE)}`));
    const poll = { polling: 100, timeout: 60_000 }; // not in animation frames: the waits' own reads stay out of them
    // The far cards built and drawn, the comparison's and the beam's work done.
    await page.waitForFunction(() => document.querySelector('#app .as-exercise-card .as-ex-plot *') && document.querySelector('#app .as-beam-card')?.dataset.busy === 'false', null, poll);
    await page.waitForTimeout(500);
    // A slider drag: an input every 25 ms.
    await page.evaluate(async () => {
      const input = document.querySelector('#app .as-slider input[type="range"]');
      for (let i = 1; i <= 40; i++) {
        input.value = String(-i * 0.05);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 25));
      }
    });
    await page.waitForTimeout(800);
    // A new sentence (the step-through builds its columns again and measures them).
    const count = await page.evaluate(() => Number(document.querySelector('#app .as-perf').dataset.count));
    await page.locator('#app textarea.as-input').fill('Open the selected file and close the window');
    await page.waitForFunction((n) => Number(document.querySelector('#app .as-perf').dataset.count) > n, count, poll);
    await page.waitForTimeout(800);
    // A narrower window and back (the ResizeObservers' redraws).
    await page.setViewportSize({ width: 900, height: 800 });
    await page.waitForTimeout(600);
    await page.setViewportSize(DESKTOP);
    await page.waitForTimeout(600);
    // The watch works: a write then a read in one frame, from the test, is caught (as not the page's).
    const control = await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => {
      const el = document.querySelector('#app .as-root');
      el.dataset.probe = '1';
      void el.offsetWidth;
      delete el.dataset.probe;
      resolve(window.__layoutReads.filter((r) => !r.page).length);
    })));
    assert.ok(control >= 1, 'the watch catches a read after a write within a frame');
    const reads = await page.evaluate(() => window.__layoutReads.filter((r) => r.page));
    assert.deepEqual(reads.map((r) => `${r.what} after ${r.write}\n  ${r.stack.join('\n  ')}`), [], 'no read of layout after a write in one frame');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the screen-reader table is updated in place: the same cells, new numbers', async () => {
    const { page, errors, context } = await openLogged();
    const before = await page.evaluate(() => {
      const cells = [...document.querySelectorAll('#app .as-table.as-matrix tbody td')];
      window.__cells = cells;
      window.__texts = cells.map((c) => c.firstChild);
      // A re-decode may end the translation earlier and a later one longer again: rows removed at
      // the end come back as new rows. The first row ever removed bounds what must be the same.
      window.__firstRemoved = Infinity;
      new MutationObserver((records) => { for (const r of records) for (const n of r.removedNodes) if (n.dataset?.row) window.__firstRemoved = Math.min(window.__firstRemoved, Number(n.dataset.row)); })
        .observe(document.querySelector('#app .as-table.as-matrix tbody'), { childList: true });
      return cells.map((c) => c.textContent);
    });
    assert.ok(before.length > 10, 'a table');
    await drag(page, { steps: 20, perFrame: 1 });
    await page.waitForFunction(() => { const c = document.querySelectorAll('#app .as-table.as-matrix tbody td'); return c.length > 0; });
    const after = await page.evaluate(() => {
      const cells = [...document.querySelectorAll('#app .as-table.as-matrix tbody td')];
      // A new value may end the translation a word earlier or later: rows come and go at the end
      // only. `kept`: the cells of the rows that stayed all along (each row: S words and the entropy).
      const perRow = document.querySelector('#app .as-table.as-matrix tbody tr').querySelectorAll('td').length;
      return { perRow, kept: Math.min(cells.length, window.__cells.length, window.__firstRemoved * perRow), texts: cells.map((c) => c.textContent) };
    });
    assert.ok(after.kept >= 5 * after.perRow, `at least 5 rows stayed all along (${after.kept / after.perRow})`);
    const same = await page.evaluate((kept) => [...document.querySelectorAll('#app .as-table.as-matrix tbody td')].slice(0, kept)
      .every((c, i) => c === window.__cells[i] && c.firstChild === window.__texts[i]), after.kept);
    assert.equal(same, true, 'the same cell elements and text nodes');
    assert.notDeepEqual(after.texts, before, 'with new numbers');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
