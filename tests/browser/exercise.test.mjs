// The exercise card (web/cards/exercise.js: "Add attention to your seq2seq")
// in Debian's Chromium: the figure's points and the table's cells are the
// metrics files' numbers (the report's: models/report/en-fr-*.metrics.json,
// models/report/longest-tenth.json), the longest-10% row is marked (and the
// buckets it covers), the button puts the three models side by side in the
// comparison card on the reader's sentence (their columns translate it),
// axe-core finds nothing serious, and the card fits a 360-px phone and a
// 1920 × 1080 projector (screenshots in tests/artifacts/).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, ARTIFACTS, PHONE, startBrowser, openPage, gotoReady as gotoReadyIn, painted } from './support.mjs';

const SENTENCE = 'Open the selected file and close the window.';
const SLOW = 180_000; // the cores are shared by several Chromiums
const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const pageErrors = (errors) => errors.filter((e) => !/^Applying inline style violates/.test(e));
const read = (rel) => JSON.parse(fs.readFileSync(path.join(REPO, 'models', rel), 'utf8'));
// The report's models (models/train/report.py): the zoo's, one recipe and budget for all.
const IDS = { none: 'en-fr-none', additive: 'en-fr-additive', dot: 'en-fr-dot' };
const METRICS = Object.fromEntries(Object.entries(IDS).map(([kind, id]) => [kind, read(`report/${id}.metrics.json`)]));
const LONGEST = read('report/longest-tenth.json');

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

async function openCard(viewport) {
  const { page, errors } = await openPage(env.browser, { viewport });
  page.setDefaultTimeout(SLOW);
  await gotoReadyIn(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE, m: IDS.additive })}`), { timeout: SLOW });
  const card = page.locator('#app .as-exercise-card');
  await card.scrollIntoViewIfNeeded();
  await page.waitForSelector('#app .as-exercise-card[data-state="ready"] .as-ex-point');
  await painted(page);
  return { page, errors, card };
}

async function audit(page, label) {
  await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await globalThis.axe.run(document.querySelector('#app .as-exercise-card'), { resultTypes: ['violations'] }))
    .violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(' » ')) })));
  assert.deepEqual(v.filter((x) => x.impact === 'serious' || x.impact === 'critical'), [], `${label}: axe found ${JSON.stringify(v)}`);
}

/** What the card shows: each series' points, the table's rows, the sentence. */
const shown = (page) => page.$eval('#app .as-exercise-card', (card) => ({
  points: Object.fromEntries([...card.querySelectorAll('.as-ex-series')].map((g) => [g.dataset.kind,
    [...g.querySelectorAll('.as-ex-point')].map((p) => [p.dataset.words, Number(p.dataset.bleu)])])),
  rows: [...card.querySelectorAll('.as-ex-table tbody tr')].map((tr) => ({
    row: tr.dataset.row, words: tr.dataset.words ?? null, inLongest: tr.dataset.inLongest ?? null, longest: tr.dataset.longest === 'true',
    marked: tr.classList.contains('as-ex-longest'), head: tr.querySelector('th').textContent,
    bleu: Object.fromEntries([...tr.querySelectorAll('td[data-kind]')].map((td) => [td.dataset.kind, td.dataset.bleu === '' ? null : Number(td.dataset.bleu)])),
    background: getComputedStyle(tr.querySelector('th')).backgroundColor,
  })),
  sentence: card.querySelector('.as-ex-sentence').textContent,
  legend: card.querySelector('.as-ex-legend').textContent,
}));

describe('exercise card', () => {
  test('the figure and the table have the metrics files’ numbers; the longest-10% row is marked; axe finds nothing serious', async () => {
    const { page, errors } = await openCard({ width: 1280, height: 900 });
    const s = await shown(page);
    const kinds = ['none', 'additive', 'dot'];
    assert.deepEqual(Object.keys(s.points), kinds, 'one line per model');
    for (const kind of kinds) {
      const byLength = METRICS[kind].tests.ui_test.bleu_cased_13a_by_source_length;
      const want = [...Object.entries(byLength).map(([words, c]) => [words, c.bleu]), ['longest', LONGEST.models[kind].bleu]];
      assert.deepEqual(s.points[kind], want, `${kind}: the figure's points`);
      for (const [words, c] of Object.entries(byLength)) {
        const row = s.rows.find((r) => r.words === words);
        assert.equal(row.bleu[kind], c.bleu, `${kind} ${words}: the table`);
      }
      assert.equal(s.rows.find((r) => r.row === 'test').bleu[kind], METRICS[kind].tests.ui_test.bleu_cased_13a, `${kind}: test BLEU`);
      assert.equal(s.rows.find((r) => r.row === 'dev').bleu[kind], Math.round(METRICS[kind].best.dev_bleu * 100) / 100, `${kind}: validation BLEU`);
      assert.equal(LONGEST.models[kind].id, IDS[kind]);
      assert.match(s.legend, new RegExp(IDS[kind]), `the legend names ${IDS[kind]}`);
    }
    // The longest 10%: one row, marked and highlighted, last; the buckets it covers say how much of them.
    const longest = s.rows.filter((r) => r.longest);
    assert.equal(longest.length, 1);
    assert.ok(longest[0].marked && s.rows.at(-1).longest, 'the last row, marked');
    assert.equal(longest[0].head, `longest 10% (${LONGEST.min_words}+ words)`);
    for (const kind of kinds) assert.equal(longest[0].bleu[kind], LONGEST.models[kind].bleu, `${kind}: the longest row`);
    assert.notEqual(longest[0].background, s.rows[0].background, 'highlighted');
    assert.deepEqual(s.rows.filter((r) => r.inLongest).map((r) => [r.words, r.inLongest]),
      [['11-20', 'part'], ['21-30', 'all'], ['31-40', 'all'], ['41-50', 'all'], ['>50', 'all']], `${LONGEST.min_words} words falls inside 11-20`);
    // The sentence: the numbers of the longest 10% and what their intervals say.
    assert.match(s.sentence, new RegExp(`sources of ${LONGEST.min_words} words or more: ${LONGEST.sentences} of its 4,794 sentences`));
    assert.match(s.sentence, new RegExp(`scores ${LONGEST.models.none.bleu.toFixed(1)} BLEU`));
    assert.match(s.sentence, /additive attention \(Bahdanau\) scores 17\.8, \+12\.0 \(90% interval \+10\.8 to \+13\.2\): ahead of it/);
    assert.match(s.sentence, /dot-product attention \(Luong\) scores 6\.3, \+0\.6 \(90% interval −0\.1 to \+1\.2\): not told apart from it by this test/);
    await audit(page, 'desktop');
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });

  test('“side by side” puts the three models in the comparison card, on the reader’s sentence', async () => {
    const { page, errors, card } = await openCard({ width: 1280, height: 900 });
    await card.locator('.as-ex-side').click();
    // The store changed at once; the comparison card draws in the next frame and its columns translate.
    // (The no-attention column says so from the catalogue before its translation arrives: the wait is for
    // every column's translation, not for that note.)
    await page.waitForFunction((n) => {
      const cols = [...document.querySelectorAll('#app .as-compare-col')];
      return cols.length === n && cols.every((c) => c.querySelector('.as-compare-translation').textContent);
    }, 3);
    await painted(page);
    const cols = await page.$$eval('#app .as-compare-col', (cs) => cs.map((c) => ({ model: c.dataset.model, translation: c.querySelector('.as-compare-translation').textContent })));
    assert.deepEqual(cols.map((c) => c.model), ['main', IDS.none, IDS.dot], 'the main column is the additive model; none and dot beside it');
    assert.ok(cols.every((c) => c.translation.length > 0), 'each column translates the reader’s sentence');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.as-compare-card') != null), true, 'the focus is in the comparison card');
    assert.match(await page.evaluate(() => location.hash), /vs=en-fr-none%2Cen-fr-dot|vs=en-fr-none,en-fr-dot/, 'the link keeps it');
    assert.equal(await card.locator('.as-ex-side').getAttribute('aria-pressed'), 'true');
    assert.match(await card.locator('.as-ex-status').textContent(), /English → French \(no attention, int8\)/);
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });

  for (const [name, viewport] of [['phone', PHONE], ['projector', { width: 1920, height: 1080 }]]) {
    test(`${name}: the card fits its width; screenshot`, async () => {
      const { page, errors, card } = await openCard(viewport);
      const fit = await page.$eval('#app .as-exercise-card', (el) => ({
        card: el.getBoundingClientRect().width, plot: el.querySelector('.as-ex-plot').getBoundingClientRect().width,
        over: el.scrollWidth - el.clientWidth, page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      }));
      assert.ok(fit.plot <= fit.card, `the figure within the card: ${JSON.stringify(fit)}`);
      assert.ok(fit.over <= 1 && fit.page <= 1, `nothing wider than the screen: ${JSON.stringify(fit)}`);
      await audit(page, name);
      await card.screenshot({ path: path.join(ARTIFACTS, `exercise-${name}.png`) });
      assert.deepEqual(pageErrors(errors), []);
      await page.context().close();
    });
  }
});
