// The render scheduler in the page (web/lib/scheduler.js, controllers/render.js):
// what a slider drag repaints, and in which order results are painted. These
// check behaviour, not time: counts of updates per card per frame (the page's
// ALIGNSCOPE_RENDER_LOG hook), which cards were off screen, which values were
// painted, and that the screen-reader table keeps its cells.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, gotoReady, DESKTOP } from './support.mjs';

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

describe('render scheduler', () => {
  test('a drag of 100 slider steps: each card on screen updates at most once per frame, the cards off screen not at all', async () => {
    const { page, errors, context } = await openLogged();
    const r = await drag(page, { steps: 100, perFrame: 2 });
    const seen = new Map();
    for (const [frame, kind, key] of r.log) {
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
