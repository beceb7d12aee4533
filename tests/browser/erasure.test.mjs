// "Where it looked vs what it needed" (web/cards/erasure.js,
// controllers/erasure.js, the worker's 'erasure') in Debian's Chromium:
//   - the erasure map's rows and columns are the heatmap's (its numbers
//     table's labels and counts), at word level and, with "Show subword
//     pieces", at piece level, on the subword model; the attention copy
//     beside it has them too; one agreement row per target row;
//   - the no-attention model: no attention map (the card says so), the
//     erasure map still shown, by deletion, with the rows and columns the
//     page's words have (engine.js in Node, lib/figure.js);
//   - axe-core on the card: no serious or critical violation; phone: the two
//     maps stack;
//   - the map of a long paste (seconds of the worker's time) keeps no later
//     translation waiting: the next sentence's result comes first, and the
//     old map is cancelled (the worker runs it in slices, lib/slices.js).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, ARTIFACTS, WEB, REPO, DESKTOP, PHONE, gotoReady as gotoReadyIn } from './support.mjs';
import { createEngine, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/engine.js';
import { figureMatrix } from '../../web/lib/figure.js';

// "Reconfigure" and "shortcuts" are several pieces to the subword model, in and out.
const SENTENCE = 'Reconfigure the keyboard shortcuts.';
const SLOW = 180_000; // as pin.test.mjs: this machine's cores are shared by several Chromiums
const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const pageErrors = (errors) => errors.filter((e) => !/^Applying inline style violates/.test(e));

let env;
let engine;
before(async () => {
  env = await startBrowser();
  engine = await createEngine({ variant: 'scalar' });
});
after(async () => { await env?.close(); });

/** The page's labels for `model` at a level, from engine.js in Node (the page decodes with a beam). */
function expected(model, pieces) {
  const info = engine.load(new Uint8Array(fs.readFileSync(path.join(WEB, 'models', `${model}.alsc`))));
  const trace = engine.beam(SENTENCE, { scoreScale: info.trainedScoreScale, topK: 5, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses[0];
  const m = figureMatrix(trace, info, pieces);
  return { rows: m.rowLabels, cols: m.colLabels };
}

async function gotoReady(page, url) {
  page.setDefaultTimeout(SLOW);
  await gotoReadyIn(page, url, { timeout: SLOW });
}

/** Wait until the card shows a painted erasure map at `level`; then what it shows. */
async function shown(page, level) {
  await page.waitForFunction((lv) => {
    const card = document.querySelector('#app .as-erasure-card');
    const canvas = card?.querySelector('.as-er-col[data-map="erasure"] .as-heatmap-canvas');
    return card?.dataset.state === 'ready' && card.dataset.level === lv && Number(canvas?.dataset.paints ?? 0) > 0;
  }, level, { timeout: SLOW });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.$eval('#app .as-erasure-card', (card) => {
    const box = card.querySelector('.as-er-col[data-map="erasure"] .as-heat-box');
    const looked = card.querySelector('.as-er-col[data-map="attention"]');
    return {
      rows: JSON.parse(box.dataset.rows), cols: JSON.parse(box.dataset.cols), method: card.dataset.method,
      lookedCanvas: !!looked.querySelector('.as-heatmap-canvas:not([hidden])') && !looked.querySelector('.as-heatmap-scroll').hidden,
      lookedLabel: looked.querySelector('.as-heatmap-canvas').getAttribute('aria-label'),
      lookedMessage: looked.querySelector('.as-empty').hidden ? '' : looked.querySelector('.as-empty').textContent,
      agreeRows: [...card.querySelectorAll('.as-er-agree tbody th')].map((th) => th.textContent),
      numbersCols: [...card.querySelectorAll('.as-er-numbers thead th')].slice(1, -1).map((th) => th.textContent),
      sentence: card.querySelector('.as-er-sentence').textContent,
      erasureLabel: box.querySelector('.as-heatmap-canvas').getAttribute('aria-label'),
    };
  });
}

/** The main heatmap's rows and columns, from its numbers table (views/table.js). */
const heatmapLabels = (page) => page.$eval('#app .as-heat-card .as-table-box table', (table) => ({
  rows: [...table.querySelectorAll('tbody th')].map((th) => th.textContent),
  cols: [...table.querySelectorAll('thead th')].slice(1, -1).map((th) => th.textContent),
}));

async function audit(page, label) {
  await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await globalThis.axe.run(document.querySelector('#app .as-erasure-card'), { resultTypes: ['violations'] }))
    .violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(' » ')) })));
  assert.deepEqual(v.filter((x) => x.impact === 'serious' || x.impact === 'critical'), [], `${label}: axe found ${JSON.stringify(v)}`);
}

describe('erasure card', () => {
  test('the subword model: the erasure map has the heatmap’s rows and columns at word and at piece level', async () => {
    const { page, errors } = await openPage(env.browser, { viewport: { width: DESKTOP.width, height: 900 } });
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE, m: 'en-fr-int8' })}`));
    const card = page.locator('#app .as-erasure-card');
    await card.scrollIntoViewIfNeeded();
    const words = await shown(page, 'words');
    const heat = await heatmapLabels(page);
    const want = expected('en-fr-int8', false);
    assert.deepEqual(heat, want, 'precondition: the heatmap shows the page’s words');
    assert.ok(want.cols.length < expected('en-fr-int8', true).cols.length, 'precondition: a word of several pieces');
    assert.deepEqual({ rows: words.rows, cols: words.cols }, heat, 'words: the heatmap’s rows and columns');
    assert.deepEqual(words.agreeRows, heat.rows, 'one agreement row per target word');
    assert.deepEqual(words.numbersCols, heat.cols, 'the numbers table’s columns');
    assert.equal(words.method, 'mask');
    assert.ok(words.lookedCanvas, 'the attention copy is drawn');
    assert.match(words.lookedLabel, new RegExp(`^Alignment heatmap: ${heat.rows.length} target words \\(rows\\) by ${heat.cols.length} source words`));
    assert.match(words.erasureLabel, new RegExp(`^Erasure map: ${heat.rows.length} target rows by ${heat.cols.length} source columns`));
    assert.match(words.sentence, /mean Spearman ρ = [+−]?\d\.\d\d over \d+ rows/);
    await card.screenshot({ path: path.join(ARTIFACTS, 'erasure-desktop.png') });
    await audit(page, 'words, desktop');

    // "Show subword pieces": the card follows the heatmap's level.
    await page.locator('#app .as-heat-card').getByRole('button', { name: 'Show subword pieces' }).click();
    await card.scrollIntoViewIfNeeded();
    const pieces = await shown(page, 'pieces');
    await page.waitForFunction((n) => document.querySelectorAll('#app .as-heat-card .as-table-box thead th').length === n + 2, pieces.cols.length);
    const heatPieces = await heatmapLabels(page);
    assert.deepEqual(heatPieces, expected('en-fr-int8', true));
    assert.deepEqual({ rows: pieces.rows, cols: pieces.cols }, heatPieces, 'pieces: the heatmap’s rows and columns');
    assert.deepEqual(pieces.agreeRows, heatPieces.rows);
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });

  test('the no-attention model: no attention map, said; the erasure map still shown', async () => {
    const { page, errors } = await openPage(env.browser, { viewport: PHONE });
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE, m: 'en-fr-none' })}`));
    const card = page.locator('#app .as-erasure-card');
    await card.scrollIntoViewIfNeeded();
    const got = await shown(page, 'words');
    const want = expected('en-fr-none', false);
    assert.deepEqual({ rows: got.rows, cols: got.cols }, want);
    assert.equal(got.method, 'delete');
    assert.equal(got.lookedCanvas, false, 'no attention map');
    assert.match(got.lookedMessage, /no attention/);
    assert.match(await card.locator('.as-er-method').textContent(), /deleting it from the sentence/);
    assert.match(got.sentence, /The output needed “.+” most/);
    // A phone: the maps stack (the erasure map below where the attention map would be).
    const [a, b] = await Promise.all(['attention', 'erasure'].map((k) => card.locator(`.as-er-col[data-map="${k}"]`).boundingBox()));
    assert.ok(b.y >= a.y + a.height - 1, 'stacked on a phone');
    await card.screenshot({ path: path.join(ARTIFACTS, 'erasure-phone-none.png') });
    await audit(page, 'no attention, phone');
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });

  test('a long paste’s map keeps the next sentence waiting for nothing: that translation comes first, the old map is cancelled', async () => {
    const { page, errors } = await openPage(env.browser);
    // What the page and its engine worker say to each other, in order (the worker is the page's only one).
    await page.addInitScript(() => {
      window.__said = [];
      const post = Worker.prototype.postMessage;
      Worker.prototype.postMessage = function (m, t) {
        if (!this.__heard) {
          this.__heard = true;
          this.addEventListener('message', (e) => window.__said.push({ from: 'worker', type: e.data?.type, id: e.data?.id, cancelled: e.data?.cancelled ?? false }));
        }
        window.__said.push({ from: 'page', type: m?.type, id: m?.id, text: typeof m?.text === 'string' ? m.text.slice(0, 20) : null, sources: m?.sourceIds?.length ?? null });
        return post.call(this, m, t);
      };
    });
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: 'Open the file' })}`));
    const box = page.locator('#app textarea.as-input');
    // One run-on sentence of 160 words (no sentence end to split it at): the page translates its
    // first 100 tokens, and the erasure card then asks for their map (once the store is quiet):
    // a hundred forced decodes.
    const long = Array.from({ length: 40 }, () => 'save the file').join(' and ');
    await box.evaluate((el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, long);
    await page.waitForFunction(() => window.__said.some((m) => m.from === 'page' && m.type === 'erasure' && m.sources >= 60), null, { timeout: SLOW });
    const mapId = await page.evaluate(() => window.__said.findLast((m) => m.type === 'erasure').id);
    await box.evaluate((el) => { el.value = 'Close the window'; el.dispatchEvent(new Event('input', { bubbles: true })); });
    await page.waitForFunction(() => document.querySelector('#app .as-translation')?.textContent && window.__said.some((m) => m.from === 'page' && m.type === 'translate' && m.text === 'Close the window')
      && window.__said.some((m, i, all) => m.from === 'worker' && m.type === 'result' && m.id === all.findLast((x) => x.type === 'translate').id), null, { timeout: SLOW });
    const said = await page.evaluate(() => window.__said);
    const translateId = said.findLast((m) => m.type === 'translate' && m.text === 'Close the window').id;
    const at = (pred) => said.findIndex(pred);
    const resultAt = at((m) => m.from === 'worker' && m.type === 'result' && m.id === translateId);
    const mapReplyAt = at((m) => m.from === 'worker' && m.id === mapId);
    assert.ok(resultAt > 0, 'the short sentence was translated');
    assert.ok(mapReplyAt < 0 || mapReplyAt > resultAt, `the translation came before the long map's reply: ${JSON.stringify(said.slice(-12))}`);
    // The page cancels the long map once the new translation is in the store; the worker's answer
    // to the cancel is an error that says so, and the page shows no error for it.
    await page.waitForFunction((id) => window.__said.some((m) => m.from === 'page' && m.type === 'cancel' && m.id === id), mapId, { timeout: SLOW });
    await page.waitForFunction((id) => window.__said.some((m) => m.from === 'worker' && m.id === id), mapId, { timeout: SLOW });
    const reply = await page.evaluate((id) => window.__said.find((m) => m.from === 'worker' && m.id === id), mapId);
    assert.deepEqual([reply.type, reply.cancelled], ['error', true]);
    // The card goes on to the new sentence's map; a cancel is not an error.
    const now = await shown(page, 'words');
    assert.deepEqual(now.cols, ['Close', 'the', 'window'], 'the map of the sentence on screen');
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });
});
