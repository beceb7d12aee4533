// i18n.test.mjs (browser) - the UI languages in Chromium: the browser's
// language picks the default, the uilang URL key and the switcher override
// it (an unknown key falls back with no error), a new language keeps what
// is on screen, <html lang> follows, and German and French fit a 360 px
// phone (screenshots in tests/artifacts/, and no text wider than its box or
// than the screen).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, gotoReady, ARTIFACTS, PHONE, REPO } from './support.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const heading = (page) => page.locator('#app .as-heat-card h2').textContent();

test('the browser’s language picks the UI language; <html lang> follows; the model pair does not change it', async () => {
  const { page, context, errors } = await openPage(env.browser, { locale: 'de-DE' });
  try {
    await gotoReady(page, env.url('index.html#s=Open+the+file'));
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    assert.equal(await heading(page), 'Alignment-Heatmap');
    assert.equal(await page.locator('#ui-lang').inputValue(), 'de');
    assert.equal(await page.locator('#theme-toggle').textContent(), 'Dunkles Design');
    assert.equal(await page.title(), 'alignscope — sehen, wohin ein Übersetzer schaut');
    // The model still translates English into French: the translation is the model's, not the UI's.
    assert.match(await page.locator('#app .as-translation').textContent(), /\S/);
    assert.equal(await page.locator('#app .as-input-card label').first().textContent(), 'Englischer Satz');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the “Trained on … Debian sentence pairs” line is in the UI language, its number in the locale’s digits, on opening and after the switcher (it stayed English)', async () => {
  // The default model's count (models/index.json), its digits grouped as each locale writes them.
  const catalog = JSON.parse(fs.readFileSync(path.join(REPO, 'models', 'index.json'), 'utf8'));
  const pairs = catalog.models.find((m) => m.id === catalog.default).trainPairs;
  assert.ok(Number.isInteger(pairs) && pairs >= 1000, 'precondition: the default model says how many pairs it was trained on');
  const digits = (lang) => new Intl.NumberFormat(lang).format(pairs).replace(/\./g, '\\.');
  const want = { en: new RegExp(`^Trained on ${digits('en')} Debian sentence pairs`), fr: new RegExp(`^Entraîné sur ${digits('fr')} paires de phrases de Debian`),
    de: new RegExp(`^Trainiert auf ${digits('de')} Satzpaaren aus Debian`), es: new RegExp(`^Entrenado con ${digits('es')} pares de frases de Debian`) };
  const line = (page) => page.locator('#app .as-trained-on').textContent();
  for (const [locale, lang] of [['fr-FR', 'fr'], ['de-DE', 'de'], ['es-ES', 'es']]) {
    const { page, context, errors } = await openPage(env.browser, { locale });
    try {
      await gotoReady(page, env.url('index.html#s=Open+the+file'));
      assert.match(await line(page), want[lang], `${lang} on opening`);
      // The switcher, to English and back: the card is built again in the new language.
      await page.locator('#ui-lang').selectOption('en');
      await page.waitForFunction(() => document.documentElement.lang === 'en');
      await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#app .as-trained-on').textContent), want.en.source);
      await page.locator('#ui-lang').selectOption(lang);
      await page.waitForFunction((l) => document.documentElement.lang === l, lang);
      await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#app .as-trained-on').textContent), want[lang].source)
        .catch(async () => assert.fail(`${lang} after the switcher: ${await line(page)}`));
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  }
});

test('the uilang key overrides the browser; an unknown key falls back to the browser, then English, with no error', async () => {
  for (const [locale, hash, want, headingText] of [
    ['de-DE', 'uilang=fr', 'fr', 'Carte de chaleur de l’alignement'],
    ['es-ES', 'uilang=xx', 'es', 'Mapa de calor del alineamiento'],
    ['ja-JP', 'uilang=klingon', 'en', 'Alignment heatmap'],
  ]) {
    const { page, context, errors } = await openPage(env.browser, { locale });
    try {
      await gotoReady(page, env.url(`index.html#s=Open+the+file&${hash}`));
      assert.equal(await page.getAttribute('html', 'lang'), want, `${locale} ${hash}`);
      assert.equal(await heading(page), headingText);
      assert.deepEqual(errors, [], `${locale} ${hash}`);
    } finally { await context.close(); }
  }
});

test('the switcher changes every card’s words, keeps the translation, the step and the by-hand numbers, and goes into the link', async () => {
  const { page, context, errors } = await openPage(env.browser, { locale: 'en-GB' });
  try {
    await gotoReady(page, env.url('index.html#s=Open+the+file&step=1'));
    const translation = await page.locator('#app .as-translation').textContent();
    const count = await page.locator('#app .as-perf').getAttribute('data-count');
    await page.locator('#app .as-byhand-card input[type=number]').first().fill('2.5');
    await page.selectOption('#ui-lang', 'es');
    await page.waitForFunction(() => document.documentElement.lang === 'es');
    assert.equal(await heading(page), 'Mapa de calor del alineamiento');
    assert.equal(await page.locator('#app .as-steps-card h2').textContent(), 'El decodificador paso a paso');
    assert.equal(await page.locator('#app .as-theory-card h2').textContent(), 'Cómo calcula la atención');
    assert.equal(await page.locator('#app .as-byhand-card h2').textContent(), 'La atención a mano');
    assert.match(await page.locator('#app .as-step-count').textContent(), /^paso 2 \/ \d+$/);
    assert.equal(await page.locator('#app .as-translation').textContent(), translation, 'the translation on screen stays');
    assert.equal(await page.locator('#app .as-perf').getAttribute('data-count'), count, 'nothing was translated again');
    assert.equal(await page.locator('#app .as-byhand-card input[type=number]').first().inputValue(), '2.5', 'the reader’s numbers stay');
    assert.match(await page.locator('#app .as-byhand-card .as-byhand-result').textContent(), /0,\d{3}/, 'Spanish decimal comma');
    await page.waitForFunction(() => location.hash.includes('uilang=es'));
    // Typing not yet translated (the pause before translating) survives a switch, and is translated.
    const before = Number(await page.locator('#app .as-perf').getAttribute('data-count'));
    await page.locator('#app textarea.as-input').fill('Open the new file');
    await page.selectOption('#ui-lang', 'fr');
    await page.waitForFunction(() => document.documentElement.lang === 'fr');
    assert.equal(await page.locator('#app textarea.as-input').inputValue(), 'Open the new file');
    await page.waitForFunction((n) => Number(document.querySelector('#app .as-perf').dataset.count) > n, before);
    await page.waitForFunction(() => location.hash.includes('s=Open+the+new+file'));
    await page.selectOption('#ui-lang', 'es');
    await page.waitForFunction(() => location.hash.includes('uilang=es'));
    // A reload keeps the choice (it is in the link).
    await gotoReady(page, page.url());
    assert.equal(await page.getAttribute('html', 'lang'), 'es');
    assert.equal(await page.locator('#ui-lang').inputValue(), 'es');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

/** Text that does not fit: elements wider than their box (outside scrollers) or reaching past the screen. */
function overflowReport() {
  const vw = document.documentElement.clientWidth;
  const out = [];
  if (document.documentElement.scrollWidth > vw + 1) out.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${vw} px screen`);
  const scrolls = (el) => /(auto|scroll)/.test(getComputedStyle(el).overflowX);
  const hiddenForSight = (el) => el.closest('.as-visually-hidden, [hidden], .skip, .page-lang > span') !== null;
  const inScroller = (el) => { for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) return true; return false; };
  for (const el of document.querySelectorAll('#page *')) {
    if (hiddenForSight(el) || inScroller(el) || scrolls(el)) continue;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || el.tagName === 'CANVAS' || el.tagName === 'svg') continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const name = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} “${(el.textContent || '').trim().slice(0, 40)}”`;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && cs.overflowX !== 'visible') out.push(`${name}: text ${el.scrollWidth} px in a ${el.clientWidth} px box`);
    if (r.right > vw + 1 || r.left < -1) out.push(`${name}: from ${Math.round(r.left)} to ${Math.round(r.right)} px on a ${vw} px screen`);
  }
  // Text clipped by an ellipsis or hidden overflow would show above; buttons and
  // labels that wrap are fine. A word longer than its box overflows visibly:
  for (const el of document.querySelectorAll('#page button, #page label, #page h1, #page h2, #page h3, #page h4, #page summary, #page th, #page option')) {
    if (hiddenForSight(el) || inScroller(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width && el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName.toLowerCase()} “${el.textContent.trim().slice(0, 40)}”: ${el.scrollWidth} px of text in ${el.clientWidth} px`);
  }
  return [...new Set(out)];
}

for (const lang of ['de', 'fr', 'es']) {
  test(`${lang} at 360 px: nothing wider than its box or the screen (screenshot)`, async () => {
    const { page, context, errors } = await openPage(env.browser, { viewport: PHONE, locale: `${lang}`, isMobile: true });
    try {
      await gotoReady(page, env.url(`index.html#s=Show+the+new+window&uilang=${lang}`));
      // The table and the comparison open: their words count too.
      await page.locator('#app .as-heat-card .as-toolbar button').first().click();
      await page.locator('#app details.as-models summary').click().catch(() => {});
      await page.screenshot({ path: path.join(ARTIFACTS, `ui-${lang}-phone.png`), fullPage: true });
      const report = await page.evaluate(overflowReport);
      assert.deepEqual(report, [], `${lang} overflows at 360 px:\n${report.join('\n')}`);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}

test('the desktop in French and German (screenshots)', async () => {
  for (const lang of ['fr', 'de']) {
    const { page, context } = await openPage(env.browser, { locale: lang });
    try {
      await gotoReady(page, env.url(`index.html#s=Show+the+new+window&uilang=${lang}`));
      await page.screenshot({ path: path.join(ARTIFACTS, `ui-${lang}-desktop.png`) });
      assert.deepEqual(await page.evaluate(overflowReport), []);
    } finally { await context.close(); }
  }
});
