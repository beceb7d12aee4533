// print.test.mjs - printing: the translation, the heatmap with its legend
// and a caption (sentence, model, scale) on one page, no controls, in the
// UI language. Checked under print media in Chromium, and in its PDF.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, gotoReady, ARTIFACTS, DESKTOP, PHONE } from './support.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

/** Under print media: what is shown, and the controls that are not. */
function printedReport() {
  const shown = (el) => !!el && getComputedStyle(el).display !== 'none' && el.getClientRects().length > 0 && el.closest('[hidden]') === null;
  const app = document.querySelector('#app .as-root');
  const controls = [...document.querySelectorAll('button, input, select, textarea, progress, [role="toolbar"]')].filter(shown).map((el) => `${el.tagName.toLowerCase()} “${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}”`);
  const cards = [...app.querySelectorAll('.as-grid > .as-card')].filter(shown).map((c) => c.dataset.area);
  return {
    controls,
    cards,
    translation: shown(app.querySelector('.as-translation')) ? app.querySelector('.as-translation').textContent : null,
    heatmap: shown(app.querySelector('.as-heatmap-canvas')) ? app.querySelector('.as-heatmap-canvas').getBoundingClientRect().width : 0,
    legend: shown(app.querySelector('.as-legend')) && shown(app.querySelector('.as-legend-bar')),
    caption: shown(app.querySelector('.as-print-caption')) ? app.querySelector('.as-print-caption').textContent : null,
  };
}

const pdfPages = (buf) => (buf.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;

for (const [name, viewport, colorScheme] of [['desktop', DESKTOP, 'light'], ['phone', PHONE, 'dark']]) {
  test(`print (${name}, ${colorScheme}): translation, heatmap, legend and caption on one page, no controls`, async () => {
    const { page, context } = await openPage(env.browser, { viewport, colorScheme });
    try {
      await gotoReady(page, env.url('index.html#s=Show+the+new+window&scale=2'));
      const translation = await page.locator('#app .as-translation').textContent();
      // On screen the caption is not shown.
      assert.equal(await page.locator('#app .as-print-caption').isVisible(), false);
      await page.emulateMedia({ media: 'print' });
      const r = await page.evaluate(printedReport);
      assert.deepEqual(r.controls, [], 'no controls in print');
      assert.deepEqual(r.cards, ['input', 'heat'], 'only the translation and the figure');
      assert.equal(r.translation, translation);
      assert.ok(r.heatmap > 100, 'the heatmap is printed');
      assert.ok(r.legend, 'the legend is printed');
      assert.match(r.caption, /^Sentence: “Show the new window” · translation: “.+” · model: .+ · score divisor [\d.]+ \(2\.00 × the trained value\) · colour: /);
      const pdf = await page.pdf({ format: 'A4', printBackground: true });
      fs.writeFileSync(path.join(ARTIFACTS, `print-${name}.pdf`), pdf);
      assert.equal(pdfPages(pdf), 1, 'one page');
      await page.screenshot({ path: path.join(ARTIFACTS, `print-${name}.png`), fullPage: true });
    } finally { await context.close(); }
  });
}

test('print: a long sentence still fits one page; the caption is in the UI language', async () => {
  const { page, context } = await openPage(env.browser, { locale: 'fr-FR' });
  try {
    const long = 'Open the file that you saved in the folder of documents and show the preferences of the new window on the screen';
    await gotoReady(page, env.url(`index.html#s=${encodeURIComponent(long)}`));
    await page.emulateMedia({ media: 'print' });
    const r = await page.evaluate(printedReport);
    assert.match(r.caption, /^Phrase : « Open the file/);
    assert.deepEqual(r.controls, []);
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    assert.equal(pdfPages(pdf), 1, 'one page');
  } finally { await context.close(); }
});
