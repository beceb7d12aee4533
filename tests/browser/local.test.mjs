// The step-through's local window (web/cards/local.js, controllers/local.js)
// in Debian's Chromium: choosing D re-decodes with Luong's local-m window and
// shows the windowed translation and heatmap beside the global ones, the
// changed words marked, as engine.js gives it in Node with the same window
// (centred with the global translation's T); the sentence says where the two
// part and why, from the result; D = 0 on a one-word source is global
// attention (the same translation, the same heatmap); the report's numbers
// under it (and the erasure card's) are the model's own where the report
// measured it, else its kind's measured model's, named; a bad win= in a link
// gives a notice and the window shown stays.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, ARTIFACTS, WEB, REPO, DESKTOP, gotoReady as gotoReadyIn } from './support.mjs';
import { createEngine, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/engine.js';
import { diffWords, translationWords } from '../../web/lib/pin.js';
import { windowWhy } from '../../web/lib/local.js';

const SENTENCE = 'Open the red file'; // “fichier rouge”: the noun before its adjective, off the diagonal
const ONE_WORD = 'file';

let env;
let engine;
let info;

const decodeAsPage = (text, opts = {}) => engine.beam(text, { scoreScale: info.trainedScoreScale, topK: 5, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY, ...opts }).hypotheses[0];
const SLOW = 180_000;
async function gotoReady(page, url) {
  page.setDefaultTimeout(SLOW);
  await gotoReadyIn(page, url, { timeout: SLOW });
}
const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
async function audit(page, label) {
  await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await globalThis.axe.run(document.querySelector('#app .as-steps-card'), { resultTypes: ['violations'] }))
    .violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(' » ')) })));
  assert.deepEqual(v.filter((x) => x.impact === 'serious' || x.impact === 'critical'), [], `${label}: axe found ${JSON.stringify(v)}`);
}
const pageErrors = (errors) => errors.filter((e) => !/^Applying inline style violates/.test(e));

// The window's results in the page.
const results = (page) => page.$eval('#app .as-steps-card .as-local', (el) => {
  const col = (kind) => {
    const c = el.querySelector(`.as-local-col[data-local="${kind}"]`);
    const canvas = c?.querySelector('.as-heatmap-canvas');
    return c && {
      translation: c.querySelector('.as-local-translation').textContent,
      line: c.querySelector('.as-local-translation + p').textContent,
      marked: [...c.querySelectorAll('mark.as-local-changed')].map((m) => m.textContent),
      markedRow: canvas?.dataset.markedRow ?? null,
      paints: Number(canvas?.dataset.paints ?? 0),
      image: canvas?.toDataURL() ?? null,
    };
  };
  return {
    shown: !el.querySelector('.as-local-results').hidden,
    global: col('global'), window: col('window'),
    why: el.querySelector('.as-local-why').textContent,
    select: el.querySelector('input[type="radio"]:checked')?.value ?? null,
    report: el.querySelector('.as-local-report').hidden ? null : el.querySelector('.as-local-report').textContent,
  };
});
async function waitForWindow(page, d) {
  await page.waitForFunction((want) => {
    const el = document.querySelector('#app .as-steps-card .as-local');
    const canvas = el?.querySelector('.as-local-col[data-local="window"] .as-heatmap-canvas');
    return el && el.querySelector('input[type="radio"]:checked')?.value === want && !el.querySelector('.as-local-results').hidden
      && Number(canvas?.dataset.paints ?? 0) > 0;
  }, String(d), { timeout: SLOW });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

before(async () => {
  env = await startBrowser();
  const catalog = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'index.json'), 'utf8'));
  const entry = catalog.models.find((m) => m.id === catalog.default);
  engine = await createEngine({ variant: 'scalar' });
  info = engine.load(new Uint8Array(fs.readFileSync(path.join(WEB, 'models', entry.file))));
});

after(async () => { await env?.close(); });

describe('the local window', () => {
  test('D from the control: the windowed output and heatmap beside the global ones, the changed words marked, the sentence from the result', async () => {
    const global = decodeAsPage(SENTENCE);
    const local = decodeAsPage(SENTENCE, { window: 0, windowSteps: global.T });
    const d = diffWords(translationWords(global), translationWords(local));
    assert.ok(d.distance > 0, 'precondition: D = 0 changes this sentence');
    const { page, errors } = await openPage(env.browser, { viewport: { width: DESKTOP.width, height: 900 } });
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE })}`));
    const card = page.locator('#app .as-steps-card');
    const group = card.getByRole('group', { name: 'Local window (Luong’s local-m): half width D, in source positions either side of the diagonal' });
    const off = group.getByRole('radio', { name: 'off: global attention' });
    await group.scrollIntoViewIfNeeded();
    assert.equal(await off.isChecked(), true);
    assert.equal(await card.locator('.as-local-results').isHidden(), true, 'off: no results');
    assert.equal(await card.locator('.as-local .as-heatmap-canvas').count(), 0, 'and no heatmaps of its own');
    // The keyboard: focus the group's choice, and one step on is D = 0.
    await off.focus();
    await page.keyboard.press('ArrowRight');
    await waitForWindow(page, 0);
    const got = await results(page);
    assert.equal(got.global.translation, global.translation);
    assert.equal(got.window.translation, local.translation, 'the windowed translation is the engine’s with the same window');
    assert.deepEqual(got.window.marked, translationWords(local).filter((_, i) => d.changedB[i]));
    assert.deepEqual(got.global.marked, translationWords(global).filter((_, i) => d.changedA[i]));
    assert.ok(got.global.paints > 0 && got.window.paints > 0, 'both heatmaps painted');
    const y = windowWhy(global, local, 0);
    assert.equal(got.global.markedRow, String(y.step), 'the row where they part is marked');
    assert.match(got.why, new RegExp(`With a window of D = 0, ${d.distance} words? of ${translationWords(global).length} changed\\.`));
    assert.match(got.why, new RegExp(`The two part at step ${y.step + 1}, where with global attention the model writes “${y.word}”: there it looked most at “${y.looked}”`));
    assert.match(got.why, /zone économique européenne/, 'outside the window: the diagonal’s failure is said');
    await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('win') === '0', null, { timeout: 10_000 });
    // The report's numbers for this kind of attention, as report.py wrote them (index.json's report.local): the default
    // model was not measured, so they are its kind's measured model's, and the card says which model that was.
    const file = JSON.parse(fs.readFileSync(path.join(REPO, 'models', 'report', 'local-attention.json'), 'utf8'));
    const measured = file.kinds[info.attention];
    const catalog = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'index.json'), 'utf8'));
    assert.notEqual(measured.id, catalog.default, 'precondition: the default model is not the one the report measured');
    const measuredOn = `These numbers were measured on ${measured.id} (${catalog.models.find((m) => m.id === measured.id).updates.toLocaleString('en-US')} training updates), the report’s model with the same kind of attention, not on the model in use.`;
    assert.ok(got.report.includes(`this kind of attention scores ${measured.global.bleu.toFixed(1)} BLEU`), got.report);
    assert.ok(got.report.endsWith(` ${measuredOn}`), got.report);
    for (const d of [1, 2, 4]) {
      const m = measured.windows[d].minus_global.bleu;
      assert.ok(got.report.includes(`D = ${d} ${m > 0 ? '+' : m < 0 ? '−' : ''}${Math.abs(m).toFixed(1)}`), `D = ${d}: ${got.report}`);
    }
    const erasureReport = page.locator('#app .as-erasure-card .as-er-report');
    await erasureReport.scrollIntoViewIfNeeded();
    const pct = (x) => `${(100 * x).toFixed(1)}%`;
    assert.equal(await erasureReport.textContent(), `On the held-out UI test (${file.sentences.toLocaleString('en-US')} sentences; REPORT.md), the most-attended and the most-needed source word were the same at ${pct(measured.agreement.share)} of ${measured.compared.toLocaleString('en-US')} decoder steps for this kind of attention (90% interval ${pct(measured.agreement.ci90[0])} to ${pct(measured.agreement.ci90[1])}). ${measuredOn}`);

    // D = 2 from the control: another decode.
    await group.scrollIntoViewIfNeeded();
    await group.getByRole('radio', { name: '2', exact: true }).check();
    await waitForWindow(page, 2);
    assert.equal((await results(page)).window.translation, decodeAsPage(SENTENCE, { window: 2, windowSteps: global.T }).translation);
    await card.screenshot({ path: path.join(ARTIFACTS, 'local-window-desktop.png') });
    await audit(page, 'window on');
    // Off: the results and their heatmaps go, and so does win= in the link.
    await off.check();
    await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).get('win'));
    assert.equal(await card.locator('.as-local-results').isHidden(), true);
    assert.equal(await card.locator('.as-local .as-heatmap-canvas').count(), 0);
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });

  test('D = 0 on a one-word source is global attention: the same translation, the same heatmap', async () => {
    const global = decodeAsPage(ONE_WORD);
    assert.equal(global.S, 1, 'precondition: one source position (the model reads no </s>)');
    const { page, errors } = await openPage(env.browser);
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: ONE_WORD, win: '0' })}`));
    await waitForWindow(page, 0);
    const got = await results(page);
    assert.equal(got.window.translation, got.global.translation);
    assert.equal(got.global.translation, global.translation);
    assert.deepEqual(got.window.marked, []);
    assert.equal(got.window.image, got.global.image, 'the two heatmaps are the same picture');
    assert.match(got.why, /the translation is the same as with global attention/);
    assert.ok([null, '-1'].includes(got.global.markedRow), 'no row outlined');
    assert.doesNotMatch(got.global.line, /outlined/, 'and the line under it says none is');
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });

  test('the model the report measured: its own numbers, said as this model’s, with no other model named', async () => {
    const file = JSON.parse(fs.readFileSync(path.join(REPO, 'models', 'report', 'local-attention.json'), 'utf8'));
    const measured = file.kinds.additive;
    const { page, errors } = await openPage(env.browser);
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE, m: measured.id })}`));
    const localReport = page.locator('#app .as-steps-card .as-local-report');
    await page.waitForFunction((id) => document.querySelector('#app .as-steps-card .as-local-report')?.dataset.measuredOn === id, measured.id);
    const said = await localReport.textContent();
    assert.ok(said.startsWith(`On the held-out UI test (${file.sentences.toLocaleString('en-US')} sentences, greedy; REPORT.md), this model scores ${measured.global.bleu.toFixed(1)} BLEU`), said);
    assert.doesNotMatch(said, /measured on/);
    const erasureReport = page.locator('#app .as-erasure-card .as-er-report');
    await erasureReport.scrollIntoViewIfNeeded();
    const pct = (x) => `${(100 * x).toFixed(1)}%`;
    assert.equal(await erasureReport.textContent(), `On the held-out UI test (${file.sentences.toLocaleString('en-US')} sentences; REPORT.md), this model’s most-attended and most-needed source word were the same at ${pct(measured.agreement.share)} of ${measured.compared.toLocaleString('en-US')} decoder steps (90% interval ${pct(measured.agreement.ci90[0])} to ${pct(measured.agreement.ci90[1])}).`);
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });

  test('a bad win= gives a notice and the window shown stays', async () => {
    const { page, errors } = await openPage(env.browser);
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE, win: '9' })}`));
    const notice = () => page.$eval('#app .as-notice', (n) => n.querySelector('[data-topic="link.win"]')?.textContent ?? null);
    assert.equal(await notice(), 'win=“9” was left out: win takes a whole number from 0 to 5.');
    assert.equal((await results(page)).select, 'off', 'opened with a bad value: off');
    // A good link, then a bad one pasted over it: the good window stays.
    await page.evaluate((h) => { location.hash = h; }, `#${new URLSearchParams({ s: SENTENCE, win: '1' })}`);
    await waitForWindow(page, 1);
    assert.equal(await notice(), null, 'a good link clears the notice');
    await page.evaluate((h) => { location.hash = h; }, `#${new URLSearchParams({ s: SENTENCE, win: '-3' })}`);
    await page.waitForFunction(() => document.querySelector('#app .as-notice [data-topic="link.win"]'));
    assert.match(await notice(), /win=“-3” was left out/);
    const got = await results(page);
    assert.equal(got.select, '1', 'the last valid window stays');
    assert.equal(got.shown, true);
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });
});
