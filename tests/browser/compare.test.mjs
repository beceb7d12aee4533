// The side-by-side comparison (web/cards/compare.js, controllers/compare.js)
// in Debian's Chromium: a link with vs= restores the columns, each column
// shows what engine.js gives for its model in Node, the difference heatmap's
// numbers are those of lib/compare.js on the Node traces, so are each
// column's score spread and the note that compares them, the step marks a row
// in every column, a model without attention says why it has no heatmap, the
// columns stack on a phone, and an id that is not in the list is said so.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../support/chromium.mjs';
import { startServer } from '../../web/tools/serve.mjs';
import { assemble } from '../../web/tools/assemble.mjs';
import { createEngine, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/engine.js';
import { figureMatrix } from '../../web/lib/figure.js';
import { differenceMatrix, mean, scoreSpread, spreadVerdict } from '../../web/lib/compare.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB = path.join(REPO, 'web');
const ARTIFACTS = path.join(REPO, 'tests', 'artifacts');
const SENTENCE = 'Open the selected file and close the window.';

let server;
let browser;
let catalog;
let main;      // the default model's entry
let other;     // another model of the same pair, with attention
let none;      // the no-attention baseline of the same pair, if listed
const traces = new Map(); // id -> { trace, info } from engine.js in Node

async function nodeTrace(entry) {
  const engine = await createEngine({ variant: 'scalar' });
  const info = engine.load(new Uint8Array(fs.readFileSync(path.join(WEB, 'models', entry.file))));
  // Decoded as the page decodes (a link without beam=: the default beam's best hypothesis, the compared columns too).
  const trace = engine.beam(SENTENCE, { scoreScale: info.trainedScoreScale > 0 ? info.trainedScoreScale : 1, topK: 5, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses[0];
  return { trace, info };
}

// In the page (an argument of waitForFunction): n columns, each with a translation or a message.
const columnsReady = (n) => {
  const cols = [...document.querySelectorAll('#app .as-compare-col')];
  const settled = (c) => {
    const msg = c.querySelector('.as-compare-message');
    return c.querySelector('.as-compare-translation').textContent || (!msg.hidden && !/^(Translating|Downloading|Checking|Starting)/.test(msg.textContent));
  };
  return cols.length === n && cols.every(settled);
};

before(async () => {
  catalog = assemble({ quiet: true });
  main = catalog.models.find((m) => m.id === catalog.default);
  const samePair = catalog.models.filter((m) => m.id !== main.id && m.source === main.source && m.target === main.target);
  other = samePair.find((m) => m.attention !== 'none');
  none = samePair.find((m) => m.attention === 'none') ?? null;
  assert.ok(other, 'the catalogue needs a second model of the default pair to compare');
  for (const m of [main, other, none].filter(Boolean)) traces.set(m.id, await nodeTrace(m));
  server = await startServer({ root: WEB, port: 0 });
  browser = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

function pageUrl(hash) {
  return `http://127.0.0.1:${server.port}/index.html#${hash}`;
}

describe('compare models side by side', () => {
  test('a vs= link restores the columns; each shows its model’s translation, heatmap and step; the difference is α_A − α_B', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const ids = [other.id, ...(none ? [none.id] : [])];
    const q = new URLSearchParams({ s: SENTENCE, m: main.id, vs: ids.join(',') });
    await page.goto(pageUrl(q.toString()));
    await page.waitForFunction(columnsReady, 1 + ids.length, { timeout: 90_000 });
    await page.waitForFunction(() => [...document.querySelectorAll('#app .as-compare-col .as-heatmap-canvas')].filter((c) => c.offsetParent).every((c) => Number(c.dataset.paints) > 0), null, { timeout: 30_000 })
      .catch(async (e) => { console.log(await page.$$eval('#app .as-compare-col', (els) => els.map((c) => [c.dataset.model, c.querySelector('.as-heatmap-canvas')?.dataset.paints, !!c.querySelector('.as-heatmap-canvas')?.offsetParent, c.innerText.slice(0, 200)]))); throw e; });

    const cols = await page.$$eval('#app .as-compare-col', (els) => els.map((c) => ({
      model: c.dataset.model,
      translation: c.querySelector('.as-compare-translation').textContent,
      message: c.querySelector('.as-compare-message').hidden ? null : c.querySelector('.as-compare-message').textContent,
      heatmapShown: !c.querySelector('.as-heat-box').hidden,
      markedRow: c.querySelector('.as-heatmap-canvas')?.dataset.markedRow ?? null,
    })));
    assert.deepEqual(cols.map((c) => c.model), ['main', ...ids], 'the columns follow the link, the main model first');
    for (const [i, id] of [main.id, ...ids].entries()) {
      const { trace } = traces.get(id);
      assert.equal(cols[i].translation, trace.translation, `${id}: the page shows what the engine translates`);
    }
    assert.ok(cols[0].heatmapShown && cols[1].heatmapShown, 'attention models have a heatmap');
    if (none) {
      assert.equal(cols[2].heatmapShown, false, 'the no-attention model has no heatmap');
      assert.match(cols[2].message, /no attention/i, 'and says why');
    }

    // Each attention column's score spread (before and after the divisor, at the
    // trained divisor) is lib/compare.js's on the Node trace; the note under the
    // columns names the one the softmax sees most widely spread, and says
    // whether it has the sharper rows, as spreadVerdict does on those numbers.
    const spreadTexts = await page.$$eval('#app .as-compare-col .as-compare-spread', (els) => els.map((e) => (e.hidden ? '' : e.textContent)));
    const measured = [];
    for (const [i, id] of [main.id, ...ids].entries()) {
      const { trace, info } = traces.get(id);
      const expected = info.attention === 'none' ? null : scoreSpread(trace);
      if (!expected) { assert.equal(spreadTexts[i], '', `${id}: no attention, no spread`); continue; }
      const shown = spreadTexts[i].match(/σ = ([\d.,]*\d) before the divisor; ÷ ([\d.,]*\d), the softmax sees σ = ([\d.,]*\d)/);
      assert.ok(shown, spreadTexts[i]);
      const [raw, divisor, seen] = shown.slice(1).map((x) => Number(x.replace(/,/g, '')));
      for (const [got, want, what] of [[raw, expected.raw, 'raw'], [divisor, expected.divisor, 'divisor'], [seen, expected.seen, 'seen']]) {
        assert.ok(Math.abs(got - want) <= 0.01 + 0.01 * Math.abs(want), `${id} ${what}: page ${got}, Node ${want}`);
      }
      measured.push({ name: cols[i].model === 'main' ? main.label : catalog.models.find((m) => m.id === id).label, spread: expected, entropy: mean(figureMatrix(trace, info, false).entropies) });
    }
    const verdict = spreadVerdict(measured);
    const spreadNote = await page.$eval('#app .as-compare-spread-note', (e) => (e.hidden ? '' : e.textContent));
    if (verdict) {
      assert.ok(spreadNote.startsWith(`Now: ${verdict.wide.name} hands the softmax the most widely spread scores`), spreadNote);
      assert.match(spreadNote, verdict.agrees ? /and has the sharpest rows/ : /yet its rows are not the sharpest/);
    }

    // The difference heatmap's mean total variation is that of the Node traces.
    const a = figureMatrix(traces.get(main.id).trace, traces.get(main.id).info, false);
    const b = figureMatrix(traces.get(other.id).trace, traces.get(other.id).info, false);
    const d = differenceMatrix(a, b);
    const note = await page.textContent('#app .as-compare-diff-note');
    if (d.reason) assert.equal(note, '');
    else assert.match(note, new RegExp(`Mean over rows: ${mean(d.entropies).toFixed(2)}`), note);
    assert.equal(await page.$eval('#app .as-compare-diff', (el) => el.hidden), false, 'the difference is shown');

    // The step-through's step is marked in every column.
    await page.click('#app [aria-label="Next step"]');
    await page.click('#app [aria-label="Next step"]');
    await page.waitForFunction(() => [...document.querySelectorAll('#app .as-compare-col .as-heatmap-canvas')].filter((c) => c.offsetParent).every((c) => c.dataset.markedRow === '2'), null, { timeout: 10_000 });

    // The link carries the comparison; removing a model takes it out of the link.
    assert.match(await page.evaluate(() => location.hash), new RegExp(`vs=${encodeURIComponent(ids.join(','))}`));
    await page.click(`#app .as-compare-col[data-model="${other.id}"] button`);
    await page.waitForFunction((id) => !document.querySelector(`#app .as-compare-col[data-model="${id}"]`), other.id);
    await page.waitForFunction((id) => !(new URLSearchParams(location.hash.slice(1)).get('vs') ?? '').split(',').includes(id), other.id);
    await page.screenshot({ path: path.join(ARTIFACTS, 'compare-desktop-light.png'), fullPage: false });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a phone the columns stack and nothing overflows the screen', async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const ids = [other.id, ...(none ? [none.id] : [])];
    await page.goto(pageUrl(new URLSearchParams({ s: SENTENCE, m: main.id, vs: ids.join(',') }).toString()));
    await page.waitForFunction(columnsReady, 1 + ids.length, { timeout: 90_000 });
    const boxes = await page.$$eval('#app .as-compare-col', (els) => els.map((c) => { const r = c.getBoundingClientRect(); return { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width) }; }));
    assert.ok(boxes.every((b) => b.x === boxes[0].x), `one column under the other: ${JSON.stringify(boxes)}`);
    assert.ok(boxes.every((b, i) => i === 0 || b.y > boxes[i - 1].y), 'in order, top to bottom');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scrolling of the page');
    // Each heatmap, its entropy column included, fits its column (smaller cells
    // than the main map's), so nothing is hidden off to the right.
    const fits = await page.$$eval('#app .as-compare-col .as-heatmap-scroll', (els) => els.map((el) => ({ scroll: el.scrollWidth, box: el.clientWidth })));
    assert.ok(fits.length >= 1 && fits.every((f) => f.scroll <= f.box + 1), `every heatmap fits its column: ${JSON.stringify(fits)}`);
    assert.equal(await page.locator('#app .as-compare-col .as-heat-more:visible').count(), 0, 'no › cue where nothing is hidden');
    // The checkboxes: each model's name and its training budget, one run of
    // text beside its box that wraps under itself (not a ragged second column).
    const options = await page.$$eval('#app .as-compare-option', (els) => els.map((l) => {
      const r = l.querySelector(':scope > span').getBoundingClientRect();
      return { id: l.querySelector('input').value, text: l.textContent, left: Math.round(r.left), right: Math.round(r.right) };
    }));
    assert.equal(options.length, catalog.models.length - 1, 'every model but the main one is offered');
    for (const o of options) {
      const m = catalog.models.find((x) => x.id === o.id);
      assert.ok(o.text.includes(m.label), `${o.id}: its name (${o.text})`);
      if (m.updates > 0) assert.ok(o.text.includes(`${Math.round(m.updates).toLocaleString('en-US')} updates`), `${o.id}: its budget (${o.text})`);
      assert.ok(Math.abs(o.left - options[0].left) <= 1 && o.right <= 360, `${o.id}: its text is one block beside the box, on screen (${JSON.stringify(options)})`);
    }
    await page.locator('#app .as-compare-card').screenshot({ path: path.join(ARTIFACTS, 'compare-phone-light.png') });
    await page.close();
  });

  test('a model id that is not in the list is said under the sentence and left out of the comparison and the link; the others still work', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pageUrl(new URLSearchParams({ s: SENTENCE, m: main.id, vs: `no-such-model,${other.id}` }).toString()));
    await page.waitForFunction(columnsReady, 2, { timeout: 90_000 });
    assert.match(await page.textContent('#app .as-notice [data-topic="link.vs"]'), /There is no model “no-such-model”/);
    assert.equal(await page.locator('#app .as-compare-col[data-model="no-such-model"]').count(), 0, 'no column for it');
    await page.waitForFunction((id) => new URLSearchParams(location.hash.slice(1)).get('vs') === id, other.id);
    assert.equal(await page.textContent(`#app .as-compare-col[data-model="${other.id}"] .as-compare-translation`), traces.get(other.id).trace.translation);
    await page.close();
  });
});
