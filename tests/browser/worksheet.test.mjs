// worksheet.test.mjs - the alignment worksheet in Debian's Chromium: a link
// with 5 sentences, their ticks and notes opens as that sheet; each small
// map's rows and columns are the words of the translation Node's engine
// makes of its sentence with the page's model, scale and decoding, and its
// labels are lib/worksheet.js's of that translation; ticks and notes made
// from the keyboard go into the link and survive a reload; a 6-sentence
// link keeps 5 and says which it left out, and a sentence the model cannot
// read is left out and named; the print button prints the card alone on one
// A4 page with the ticks and notes as text; the PNG and SVG exports carry
// every map; on a phone nothing is wider than the screen; French words; axe
// finds nothing serious. Screenshots: tests/artifacts/worksheet-{projector,phone}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, gotoReady, painted, ARTIFACTS, REPO, WEB, PHONE } from './support.mjs';
import { createEngine, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/engine.js';
import { figureMatrix } from '../../web/lib/figure.js';
import { alignmentShape, modelConfidence } from '../../web/lib/worksheet.js';

const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const pageErrors = (errors) => errors.filter((e) => !/^Applying inline style violates/.test(e));
const CARD = '#app .as-worksheet-card';
const PROJECTOR = { width: 1920, height: 1080 };
const SMALL_PHONE = { width: 360, height: 640 };
const FIVE = ['Open the file', 'Show the new window', 'Close the window', 'Save the document', 'Delete the old files'];
let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

// What a model (the page's default, en-fr-int8, unless said) makes of each sentence here in Node, as the page decodes, at a level.
let reference = null;
async function translations(texts, { model = 'en-fr-int8', pieces = false } = {}) {
  reference ??= { engine: await createEngine({ variant: 'simd' }), model: null, info: null, cache: new Map() };
  if (reference.model !== model) {
    reference.info = reference.engine.load(fs.readFileSync(path.join(WEB, 'models', `${model}.alsc`)));
    reference.model = model;
  }
  const { engine, info, cache } = reference;
  return texts.map((text) => {
    const key = `${model}|${pieces}|${text}`;
    if (!cache.has(key)) {
      const trace = engine.beam(text, { scoreScale: info.trainedScoreScale > 0 ? info.trainedScoreScale : 1, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses[0];
      const matrix = figureMatrix(trace, info, pieces);
      cache.set(key, { translation: trace.translation, rows: matrix.rowLabels, cols: matrix.colLabels, shape: alignmentShape(matrix).shape, confidence: modelConfidence(trace).geometricMean });
    }
    return cache.get(key);
  });
}
after(() => reference?.engine.dispose());

const linkOf = (texts, { wx = null, wn = null, extra = '' } = {}) => {
  const p = new URLSearchParams({ s: 'Show the new window', ws: texts.join('\n') });
  if (wx) p.set('wx', wx);
  if (wn) p.set('wn', wn);
  return env.url(`index.html#${p}${extra}`);
};

async function sheetReady(page, n) {
  await page.waitForSelector(CARD, { state: 'attached' });
  await page.locator(CARD).scrollIntoViewIfNeeded();
  await page.waitForFunction(([sel, count]) => {
    const card = document.querySelector(sel);
    return card?.dataset.state === 'ready' && card.querySelectorAll('.as-ws-item[data-state="ready"]').length === count;
  }, [CARD, n]);
  await painted(page);
}

/** What the card shows of each sentence. */
const sheetOnPage = (page) => page.$$eval(`${CARD} .as-ws-item`, (items) => items.map((li) => {
  const c = li.querySelector('.as-ws-map');
  return {
    text: li.querySelector('.as-ws-text').value,
    translation: li.querySelector('.as-ws-translation').textContent,
    wrong: li.querySelector('.as-ws-wrong').checked,
    notes: li.querySelector('.as-ws-notes').value,
    rows: JSON.parse(c.dataset.rows ?? 'null'),
    cols: JSON.parse(c.dataset.cols ?? 'null'),
    painted: c.width > 0 && !c.hidden,
    label: c.getAttribute('aria-label'),
    shape: li.dataset.shape,
    confidence: Number(li.dataset.confidence),
    labels: li.querySelector('.as-ws-labels').textContent,
  };
}));

async function checkMaps(page, texts, { english = true, model, pieces } = {}) {
  const shown = await sheetOnPage(page);
  const ref = await translations(texts, { model, pieces });
  assert.deepEqual(shown.map((s) => s.text), texts);
  shown.forEach((s, i) => {
    assert.equal(s.translation, ref[i].translation, `sentence ${i + 1}'s translation`);
    assert.deepEqual(s.rows, ref[i].rows, `map ${i + 1}: a row per word of the translation`);
    assert.deepEqual(s.cols, ref[i].cols, `map ${i + 1}: a column per word of the sentence`);
    assert.ok(s.painted, `map ${i + 1} is painted`);
    assert.equal(s.shape, ref[i].shape, `map ${i + 1}'s shape`);
    assert.ok(Math.abs(s.confidence - ref[i].confidence) < 1e-5, `map ${i + 1}'s confidence ${s.confidence} vs ${ref[i].confidence}`);
    if (english) assert.match(s.label, new RegExp(`^Map ${i + 1}: ${ref[i].rows.length} rows \\(the translation\\) by ${ref[i].cols.length} columns`));
  });
  return shown;
}

async function audit(page, label) {
  if (!(await page.evaluate(() => typeof globalThis.axe === 'object'))) await page.evaluate(AXE);
  const v = await page.evaluate(async (sel) => (await globalThis.axe.run(document.querySelector(sel), { resultTypes: ['violations'] }))
    .violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(' ')) })), CARD);
  const bad = v.filter((x) => x.impact === 'serious' || x.impact === 'critical');
  assert.deepEqual(bad, [], `${label}: axe found\n${JSON.stringify(v, null, 2)}`);
}

const hashSheet = (page) => page.evaluate(() => { const p = new URLSearchParams(location.hash.slice(1)); return { ws: p.get('ws'), wx: p.get('wx'), wn: p.get('wn') }; });

test('worksheet on a projector: a link’s 5 sentences, ticks and notes; each map is the translation’s; edits go into the link and survive a reload', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: PROJECTOR });
  try {
    await gotoReady(page, linkOf(FIVE, { wx: '2,4', wn: 'good\n\n“the” lost\n\nfiles → fichiers' }));
    await sheetReady(page, 5);
    const first = await checkMaps(page, FIVE);
    assert.deepEqual(first.map((s) => s.wrong), [false, true, false, true, false]);
    assert.deepEqual(first.map((s) => s.notes), ['good', '', '“the” lost', '', 'files → fichiers']);
    assert.equal(await page.textContent(`${CARD} .as-ws-count`), '5 of 5 sentences on the sheet');
    assert.equal(await page.locator(`${CARD} .as-ws-add`).isDisabled(), true, 'a full sheet takes no more');
    assert.match(await page.textContent(`${CARD} .as-ws-legend-shapes`), /mean entropy is above 1\.5 bits/);
    assert.match(await page.textContent(`${CARD} .as-ws-legend-confidence`), /geometric mean of the probabilities/);
    // One colour scale and one cell size: every map's cells are the same size.
    assert.equal(new Set(await page.$$eval(`${CARD} .as-ws-map`, (cs) => cs.map((c) => c.dataset.cell))).size, 1);
    await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'worksheet-projector.png') });

    // From the keyboard: tick sentence 1 (Space), untick 2, write a note on sentence 2.
    await page.locator(`${CARD} .as-ws-item[data-index="1"] .as-ws-wrong`).focus();
    await page.keyboard.press('Space');
    await page.locator(`${CARD} .as-ws-item[data-index="2"] .as-ws-wrong`).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.type('la nouvelle fenêtre, mais diffuse');
    await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('wn')?.includes('la nouvelle fenêtre, mais diffuse'));
    await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('wx') === '1,4');
    const before = await hashSheet(page);
    assert.deepEqual(before, { ws: FIVE.join('\n'), wx: '1,4', wn: 'good\nla nouvelle fenêtre, mais diffuse\n“the” lost\n\nfiles → fichiers' });
    // Reload: the same sheet.
    await page.reload();
    await page.waitForSelector('#app .as-root[data-ready="true"]');
    await sheetReady(page, 5);
    const again = await checkMaps(page, FIVE);
    assert.deepEqual(again.map((s) => s.wrong), [true, false, false, true, false]);
    assert.deepEqual(again.map((s) => s.notes), ['good', 'la nouvelle fenêtre, mais diffuse', '“the” lost', '', 'files → fichiers']);

    // Remove one, add one by typing it: the maps follow, and the link.
    await page.locator(`${CARD} .as-ws-item[data-index="3"] .as-ws-remove`).click();
    await page.locator(`${CARD} .as-ws-add-text`).fill('Open the new file');
    await page.keyboard.press('Enter');
    const edited = [...FIVE.slice(0, 2), ...FIVE.slice(3), 'Open the new file'];
    await page.waitForFunction((ws) => new URLSearchParams(location.hash.slice(1)).get('ws') === ws, edited.join('\n'));
    await sheetReady(page, 5);
    const after = await checkMaps(page, edited);
    assert.deepEqual(after.map((s) => s.notes), ['good', 'la nouvelle fenêtre, mais diffuse', '', 'files → fichiers', ''], 'the notes went with their sentences');
    await audit(page, 'projector, light');
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});

test('worksheet: a 6-sentence link keeps 5 and says which it left out; a sentence the model cannot read is left out and named', async () => {
  const { page, context, errors } = await openPage(env.browser);
  try {
    const six = [FIVE[0], '\u0001\u0002', ...FIVE.slice(1)];
    await gotoReady(page, linkOf(six, { wx: '1,6', wn: 'one\nunread\n\n\n\nsix' }));
    const notice = () => page.textContent('#app .as-notice');
    assert.match(await notice(), /The worksheet \(ws\) has more than 5 sentences: the first 5 are kept, and this one was left out with its tick and notes: “Delete the old files”\./);
    await page.waitForSelector(CARD, { state: 'attached' });
    await page.locator(CARD).scrollIntoViewIfNeeded();
    // The model reads nothing in the second: it goes, and the notice names it.
    await page.waitForFunction(() => /The worksheet’s sentence “\u0001\u0002” \(ws\) was left out: The model reads no words in this text\./.test(document.querySelector('#app .as-notice')?.textContent ?? ''));
    const kept = FIVE.slice(0, 4);
    await sheetReady(page, 4);
    const shown = await checkMaps(page, kept);
    assert.deepEqual(shown.map((s) => s.wrong), [true, false, false, false]);
    assert.deepEqual(shown.map((s) => s.notes), ['one', '', '', '']);
    await page.waitForFunction((ws) => new URLSearchParams(location.hash.slice(1)).get('ws') === ws, kept.join('\n'));
    assert.match(await notice(), /has more than 5 sentences/, 'both are said');
    // A sentence typed by the student that the model cannot read stays, and its map says why.
    await page.locator(`${CARD} .as-ws-add-text`).fill('\u0001');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${CARD} .as-ws-item[data-index="5"][data-state="error"]`);
    assert.equal(await page.textContent(`${CARD} .as-ws-item[data-index="5"] .as-ws-note`), 'The model reads no words in this text.');
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});

const pdfPages = (buf) => (buf.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;

test('worksheet: its print is the card alone on one A4 page, ticks and notes as text; PNG and SVG carry every map', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: { width: 1280, height: 900 } });
  try {
    await gotoReady(page, linkOf(FIVE, { wx: '3', wn: 'a note\n\nwrong word order' }));
    await sheetReady(page, 5);
    // The print dialog itself is the browser's: the button's part is what it sets before it.
    await page.evaluate(() => { window.print = () => {}; });
    await page.locator(`${CARD} .as-ws-print`).click();
    await page.emulateMedia({ media: 'print' });
    const r = await page.evaluate(() => {
      const shown = (el) => !!el && getComputedStyle(el).display !== 'none' && el.getClientRects().length > 0;
      return {
        cards: [...document.querySelectorAll('#app .as-grid > [data-area]')].filter(shown).map((c) => c.dataset.area),
        controls: [...document.querySelectorAll('#app button, #app input, #app select, #app textarea.as-input')].filter(shown).length,
        maps: [...document.querySelectorAll('#app .as-ws-map')].filter(shown).length,
        texts: [...document.querySelectorAll('#app .as-ws-print-text')].filter(shown).map((e) => e.textContent),
        ticks: [...document.querySelectorAll('#app .as-ws-print-tick')].filter(shown).map((e) => e.textContent[0]),
        notes: [...document.querySelectorAll('#app .as-ws-print-notes')].filter(shown).map((e) => e.textContent),
      };
    });
    assert.deepEqual(r, { cards: ['worksheet'], controls: 0, maps: 5, texts: FIVE, ticks: ['☐', '☐', '☒', '☐', '☐'], notes: ['Notes: a note', 'Notes: wrong word order'] });
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'worksheet-print.pdf'), pdf);
    assert.equal(pdfPages(pdf), 1, 'one A4 page');
    // After the dialog the page prints as before (the translation and the heatmap).
    await page.evaluate(() => dispatchEvent(new Event('afterprint')));
    assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('#app .as-grid > .as-card')].filter((c) => getComputedStyle(c).display !== 'none').map((c) => c.dataset.area)), ['input', 'heat']);
    await page.emulateMedia({ media: 'screen' });

    const ref = await translations(FIVE);
    const [svgDl] = await Promise.all([page.waitForEvent('download'), page.locator(`${CARD} .as-ws-svg`).click()]);
    assert.match(svgDl.suggestedFilename(), /^alignscope-en-fr-int8-worksheet\.svg$/);
    const svg = fs.readFileSync(await svgDl.path(), 'utf8');
    for (const [i, text] of FIVE.entries()) {
      assert.ok(svg.includes(`>${i + 1}. ${text}<`), `the SVG has sentence ${i + 1}`);
      assert.ok(svg.includes(`>→ ${ref[i].translation.replace(/'/g, '&apos;')}<`), `…and its translation`);
    }
    const cells = ref.reduce((n, r) => n + r.rows.length * r.cols.length, 0);
    assert.equal((svg.match(/<rect x="[^"]+" y="[^"]+" width="22" height="22"/g) ?? []).length, cells, 'every cell of every map');
    assert.ok(svg.includes('☒ Translation wrong') && svg.includes('Notes: wrong word order'));
    const [pngDl] = await Promise.all([page.waitForEvent('download'), page.locator(`${CARD} .as-ws-png`).click()]);
    const png = fs.readFileSync(await pngDl.path());
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.ok(png.readUInt32BE(16) >= 2 * 900 && png.readUInt32BE(20) > 2 * 400, `a 2× picture (${png.readUInt32BE(16)} × ${png.readUInt32BE(20)})`);
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});

test('worksheet on a phone (360 × 640), dark, in French: nothing wider than the screen; examples add; axe', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: SMALL_PHONE, colorScheme: 'dark', isMobile: true, locale: 'fr-FR' });
  try {
    await gotoReady(page, linkOf(FIVE.slice(0, 3), { wx: '1' }));
    await sheetReady(page, 3);
    assert.equal(await page.textContent(`${CARD} h2`), 'Fiche d’alignements');
    assert.match(await page.textContent(`${CARD} .as-ws-legend-shapes`), /dépasse 1,5 bits/);
    const fr = await checkMaps(page, FIVE.slice(0, 3), { english: false });
    assert.match(fr[0].label, /^Carte 1 : \d+ lignes \(la traduction\) sur \d+ colonnes/);
    // An example sentence of the model, from its list.
    const examples = page.locator(`${CARD} .as-ws-examples`);
    await examples.locator('summary').click();
    const example = await examples.locator('button').first().textContent();
    await examples.locator('button').first().click();
    await sheetReady(page, 4);
    assert.equal(await page.locator(`${CARD} .as-ws-item[data-index="4"] .as-ws-text`).inputValue(), example);
    const wide = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      card: [...document.querySelectorAll('#app .as-worksheet-card *')].filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((el) => el.className),
    }));
    assert.deepEqual(wide, { page: 0, card: [] }, 'nothing wider than the phone');
    await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'worksheet-phone.png') });
    await audit(page, 'phone, dark, French');
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});

test('worksheet at the heatmap’s level: a subword model’s maps are of words, and of pieces with “Show subword pieces”', async () => {
  const { page, context, errors } = await openPage(env.browser);
  try {
    const texts = ['Delete the unsaved files', 'Open the file'];
    await gotoReady(page, linkOf(texts, { extra: '&m=en-fr' }));
    await sheetReady(page, 2);
    const words = await checkMaps(page, texts, { model: 'en-fr' });
    const pieces = (await translations(texts, { model: 'en-fr', pieces: true }))[0];
    assert.notDeepEqual(pieces.cols, words[0].cols, 'the sentence has a word of several pieces');
    // The heatmap's own switch: the sheet follows.
    await page.evaluate(() => [...document.querySelectorAll('#app .as-heat-card button')].find((b) => b.textContent === 'Show subword pieces').click());
    await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .as-ws-map`)].every((c) => c.dataset.level === 'pieces'), CARD);
    await page.locator(CARD).scrollIntoViewIfNeeded();
    await sheetReady(page, 2);
    await checkMaps(page, texts, { model: 'en-fr', pieces: true });
    assert.match(await page.textContent(`${CARD} .as-ws-legend-level`), /subword pieces/);
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});
