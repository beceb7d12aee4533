// "Pin the finger" (web/cards/pin.js, controllers/pin.js) in Debian's
// Chromium: clicking a source word re-decodes with all the weight there and
// shows the new translation and heatmap beside the original, the changed
// words marked, as engine.js gives it in Node with the same override; the
// pinned step's α row in the new heatmap is the forced one; the sliders
// work from the keyboard; the link reproduces the output in a fresh page;
// bad pin links give a notice and leave the page (and any pin it had)
// working; on a phone the columns stack.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, ARTIFACTS, WEB, REPO, DESKTOP, PHONE, gotoReady as gotoReadyIn, beamFilled } from './support.mjs';
import { createEngine, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/engine.js';
import { figureMatrix } from '../../web/lib/figure.js';
import { rowOfStep, sourceWords } from '../../web/lib/words.js';
import { diffWords, translationWords, forcedRow, groupRow, pinChange, alphaRow } from '../../web/lib/pin.js';
import { parseShareString } from '../../web/state.js';

const SENTENCE = 'Close the selected file and open the window.';
const STEP = 6; // “ouvrez”: the model looks at “open”

let env;
let engine;
let info;
let original; // the model's own trace of SENTENCE
let pinLink = null; // the link the first test made (all the weight on the first word)
let weightsLink = null; // the link after the keyboard (weights written out)

// The page decodes with a beam of DEFAULT_BEAM_WIDTH, the pinned re-decode too (controllers/pin.js): so does the reference.
const decodeAsPage = (opts) => engine.beam(SENTENCE, { ...opts, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses[0];
const pinned = (pin) => decodeAsPage({ scoreScale: info.trainedScoreScale, topK: 5, overrides: [{ step: pin.step, weights: pin.at != null ? Array.from({ length: original.S }, (_, j) => (j === pin.at ? 1 : 0)) : pin.weights }] });
const hashPin = (page) => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('pin'));
// The pin card's results in the page: the two translations, their marked words, the heatmaps' marked rows and the pinned row's α.
const results = (page) => page.$eval('#app .as-pin-card', (card) => {
  const col = (kind) => {
    const c = card.querySelector(`.as-pin-col[data-pin="${kind}"]`);
    const canvas = c.querySelector('.as-heatmap-canvas');
    return {
      translation: c.querySelector('.as-pin-translation').textContent,
      marked: [...c.querySelectorAll('.as-pin-translation mark.as-pin-changed')].map((m) => m.textContent),
      markedRow: canvas?.dataset.markedRow ?? null,
      paints: Number(canvas?.dataset.paints ?? 0),
      alpha: c.querySelector('.as-heat-box').dataset.markedAlpha ? JSON.parse(c.querySelector('.as-heat-box').dataset.markedAlpha) : null,
    };
  };
  return {
    shown: !card.querySelector('.as-pin-results').hidden,
    original: col('original'), pinned: col('pinned'),
    summary: card.querySelector('.as-pin-summary').textContent,
    link: card.querySelector('.as-pin-link').value,
  };
});
// Wait until the card shows the result for the pin `value` (as the link writes it), painted.
async function waitForPin(page, value) {
  await page.waitForFunction((v) => {
    const card = document.querySelector('#app .as-pin-card');
    const canvas = card?.querySelector('.as-pin-col[data-pin="pinned"] .as-heatmap-canvas');
    return new URLSearchParams(location.hash.slice(1)).get('pin') === v && !card.querySelector('.as-pin-results').hidden
      && card.querySelector('.as-pin-busy').hidden && Number(canvas?.dataset.paints ?? 0) > 0;
  }, value, { timeout: SLOW }).catch(async (err) => {
    // Where the card stopped, so a failure says which condition never came.
    const shown = await page.evaluate(() => {
      const card = document.querySelector('#app .as-pin-card');
      const q = (sel) => card?.querySelector(sel);
      const r = card?.getBoundingClientRect();
      return {
        hash: location.hash.slice(0, 200), resultsHidden: q('.as-pin-results')?.hidden, busyHidden: q('.as-pin-busy')?.hidden,
        paints: q('.as-pin-col[data-pin="pinned"] .as-heatmap-canvas')?.dataset.paints ?? null, error: q('.as-pin-error')?.textContent,
        step: q('.as-pin-step')?.textContent, said: q('.as-pin-said')?.textContent, notice: document.querySelector('#app .as-notice')?.textContent?.slice(0, 200),
        card: r && { top: Math.round(r.top), bottom: Math.round(r.bottom), innerHeight }, focus: document.activeElement?.outerHTML?.slice(0, 120),
        status: document.querySelector('#app .as-status')?.textContent?.slice(0, 120),
      };
    }).catch((e) => String(e));
    throw new Error(`the pin ${value} was not shown: ${JSON.stringify(shown)}`, { cause: err });
  });
  // The card's text follows the store at once, the canvas in the next frame: one more frame for both.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}
// axe-core on the pin card (as tests/browser/a11y.test.mjs audits the page): no serious or critical violation.
const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
async function audit(page, label) {
  await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await globalThis.axe.run(document.querySelector('#app .as-pin-card'), { resultTypes: ['violations'] }))
    .violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(' » ')) })));
  assert.deepEqual(v.filter((x) => x.impact === 'serious' || x.impact === 'critical'), [], `${label}: axe found ${JSON.stringify(v)}`);
}
// axe's own probes set inline styles, which the page's CSP refuses (and logs).
const pageErrors = (errors) => errors.filter((e) => !/^Applying inline style violates/.test(e));

// More patience than support.mjs's default: this machine's two cores are often shared by several Chromiums.
const SLOW = 180_000;
async function gotoReady(page, url) {
  page.setDefaultTimeout(SLOW);
  await gotoReadyIn(page, url, { timeout: SLOW });
  // The beam card is just above this one and grows when its search is drawn: a click on a
  // word button while it grows is pressed on the button and released elsewhere.
  await beamFilled(page, { timeout: SLOW });
}
const noticeOf = (page) => page.$eval('#app .as-notice', (n) => n.querySelector('[data-topic="pin"]')?.textContent ?? null);

/** The page shows `pin` as engine.js gives it in Node: translation, marked words, heatmap row. */
function checkAgainstNode(got, pin, label) {
  const ref = pinned(pin);
  assert.ok(got.shown, `${label}: the results are shown`);
  assert.equal(got.original.translation, original.translation, `${label}: the original translation`);
  assert.equal(got.pinned.translation, ref.translation, `${label}: the pinned translation is the engine’s`);
  const d = diffWords(translationWords(original), translationWords(ref));
  assert.deepEqual(got.pinned.marked, translationWords(ref).filter((_, i) => d.changedB[i]), `${label}: the changed words are marked in the pinned translation`);
  assert.deepEqual(got.original.marked, translationWords(original).filter((_, i) => d.changedA[i]), `${label}: and in the original`);
  // The heatmaps: word level, each with the pinned step's row marked.
  const mA = figureMatrix(original, info, false);
  const mB = figureMatrix(ref, info, false);
  assert.equal(got.original.markedRow, String(rowOfStep(mA, pin.step)));
  assert.equal(got.pinned.markedRow, String(rowOfStep(mB, pin.step)));
  assert.ok(got.original.paints > 0 && got.pinned.paints > 0, 'both heatmaps painted');
  // The pinned row in the new heatmap is the forced one (a one-piece target word: its row is the step's).
  assert.equal(mB.rowGroups[rowOfStep(mB, pin.step)].count, 1, 'precondition: the pinned target word is one piece');
  const forced = groupRow(forcedRow(pin, original.S), sourceWords(original));
  assert.equal(got.pinned.alpha.length, forced.length);
  got.pinned.alpha.forEach((a, j) => assert.ok(Math.abs(a - forced[j]) <= 1e-4, `${label}: α[${j}] = ${a}, forced ${forced[j]}`));
  // What the card says: the size of the change and of the output's.
  const ch = pinChange(alphaRow(original, pin.step), forcedRow(pin, original.S), sourceWords(original));
  assert.match(got.summary, new RegExp(`${ch.tv.toFixed(2)} of the weight moved`), got.summary);
  assert.match(got.summary, d.distance === 0 ? /the same translation/ : new RegExp(`${d.distance} word edit`), got.summary);
  return { ref, d, ch };
}

before(async () => {
  env = await startBrowser();
  const catalog = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'index.json'), 'utf8'));
  const entry = catalog.models.find((m) => m.id === catalog.default);
  engine = await createEngine({ variant: 'scalar' });
  info = engine.load(new Uint8Array(fs.readFileSync(path.join(WEB, 'models', entry.file))));
  original = decodeAsPage({ scoreScale: info.trainedScoreScale, topK: 5 });
  assert.ok(original.alpha && original.T > STEP + 1, 'the default model translates the sentence past the pinned step, with attention');
});

after(async () => { await env?.close(); });

describe('pin the finger', () => {
  test('clicking a source word re-decodes: the new translation and heatmap beside the original, changed words marked, the forced row in the heatmap', async () => {
    const { page, errors } = await openPage(env.browser, { viewport: { width: DESKTOP.width, height: 900 } });
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE, step: String(STEP) })}`));
    const card = page.locator('#app .as-pin-card');
    await card.scrollIntoViewIfNeeded();
    // Numbered as the step view numbers it: at word level, “Fermez” (two pieces) is one step.
    const mA = figureMatrix(original, info, false);
    assert.ok(rowOfStep(mA, STEP) < STEP, 'precondition: a word of several pieces before the step');
    assert.equal(await card.locator('.as-pin-step').textContent(), `Step ${rowOfStep(mA, STEP) + 1} of ${mA.T}: the decoder writes “${original.target[STEP].text}”`);
    assert.equal(await page.textContent('#app .as-step-count'), `step ${rowOfStep(mA, STEP) + 1} / ${mA.T}`, 'as the step view says');
    assert.equal(await card.locator('.as-pin-results').isHidden(), true, 'no results before a pin');
    assert.equal(await card.locator('.as-heatmap-canvas').count(), 0, 'and no heatmaps of its own');
    const first = sourceWords(original)[0];
    assert.equal(first.count, 1, 'precondition: the first source word is one piece');
    const n = sourceWords(original).length;
    await card.getByRole('button', { name: `Put all the weight on “${first.text}” (1 of ${n})` }).click();
    await waitForPin(page, `${STEP}:@0`);
    const got = await results(page);
    const { d } = checkAgainstNode(got, { step: STEP, at: 0 }, 'all on the first word');
    assert.ok(d.distance > 0, 'this pin changes the output (so the marks are tested)');
    assert.match(got.summary, new RegExp(`At step ${rowOfStep(mA, STEP) + 1}, where the decoder writes “${original.target[STEP].text}”, all the weight was put on “${first.text}”`));
    assert.equal(await card.getByRole('button', { name: `Put all the weight on “${first.text}” (1 of ${n})` }).getAttribute('aria-pressed'), 'true');
    pinLink = got.link;
    // The address follows the store after a short pause (controllers/share.js).
    await page.waitForFunction((hash) => location.hash === hash, new URL(pinLink).hash, { timeout: 10_000 }).catch(() => {});
    assert.equal(new URL(pinLink).hash, await page.evaluate(() => location.hash), 'the card’s link is the page’s');
    await card.screenshot({ path: path.join(ARTIFACTS, 'pin-desktop-light.png') });
    await audit(page, 'pinned, desktop, light');

    // The keyboard: End on another word's slider puts all the weight there; ArrowLeft gives some back to the others.
    const words = sourceWords(original);
    const target = words.findIndex((w) => w.text === 'open');
    assert.ok(target > 0 && words[target].count === 1, 'precondition: “open” is one piece');
    const range = card.getByRole('slider', { name: `Weight on “open” (${target + 1} of ${n})` });
    await range.focus();
    await page.keyboard.press('End');
    await waitForPin(page, `${STEP}:@${words[target].first}`);
    checkAgainstNode(await results(page), { step: STEP, at: words[target].first }, 'all on “open”, from the keyboard');
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
    // 0.9 stays on “open”; the others had nothing, so they share the 0.1 evenly.
    const rest = Number((0.1 / (original.S - 1)).toFixed(4));
    const weights = Array.from({ length: original.S }, (_, j) => (j === words[target].first ? 0.9 : rest));
    const value = `${STEP}:${weights.join(',')}`;
    await waitForPin(page, value);
    checkAgainstNode(await results(page), { step: STEP, weights }, 'weights set with the arrow keys');
    assert.equal(await range.getAttribute('aria-valuetext'), '0.90');
    weightsLink = (await results(page)).link;

    // Reset removes the pin, its results and its key in the link.
    await card.getByRole('button', { name: 'Reset (remove the pin)' }).click();
    await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).get('pin'));
    assert.equal(await card.locator('.as-pin-results').isHidden(), true);
    assert.equal(await card.locator('.as-heatmap-canvas').count(), 0, 'its heatmaps go with it');
    await audit(page, 'no pin, desktop, light');
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });

  test('the link reproduces the same output in a fresh page', async () => {
    assert.ok(pinLink && weightsLink, 'the first test made the links');
    for (const [link, label] of [[pinLink, 'STEP:@INDEX'], [weightsLink, 'STEP:W,W,…']]) {
      const pin = parseShareString(new URL(link).hash).pin;
      assert.ok(pin, `${label}: the link carries a pin`);
      const { page, errors } = await openPage(env.browser);
      await gotoReady(page, link);
      await waitForPin(page, new URLSearchParams(new URL(link).hash.slice(1)).get('pin'));
      checkAgainstNode(await results(page), pin, `${label} link`);
      assert.equal(await noticeOf(page), null, 'no notice');
      assert.deepEqual(errors, []);
      await page.context().close();
    }
  });

  test('bad pin links give a notice and leave the page working, and a pinned page keeps its pin', async () => {
    const S = original.S;
    const link = (pin) => `index.html#${new URLSearchParams({ s: SENTENCE, step: '2', pin })}`;
    // Opened fresh: a step past the translation, then weights that are not numbers.
    for (const [value, why] of [
      ['99:@0', new RegExp(`it pins step 99 \\(counted from 0\\), but this translation has only ${original.T} steps`)],
      [`2:${['NaN', ...Array(S - 1).fill('0.1')].join(',')}`, /its weight 1 \(“NaN”\) is not a number/],
    ]) {
      const { page, errors } = await openPage(env.browser);
      await gotoReady(page, env.url(link(value)));
      await page.waitForFunction(() => document.querySelector('#app .as-notice [data-topic="pin"]'), null, { timeout: SLOW });
      assert.match(await noticeOf(page), why);
      const card = page.locator('#app .as-pin-card');
      assert.equal(await card.locator('.as-pin-results').isHidden(), true, `${value}: no pin`);
      assert.equal(await page.textContent('#app .as-translation'), original.translation, `${value}: the translation is there`);
      if (value === '99:@0') await page.locator('#app .as-input-card').screenshot({ path: path.join(ARTIFACTS, 'pin-bad-link-desktop-light.png') });
      // The page works: a click pins.
      await card.getByRole('button', { name: `Put all the weight on “${sourceWords(original)[1].text}” (2 of ${sourceWords(original).length})` }).click();
      await waitForPin(page, '2:@1');
      checkAgainstNode(await results(page), { step: 2, at: 1 }, `after ${value}`);
      assert.equal(await noticeOf(page), null, 'a good pin clears the notice');
      assert.deepEqual(errors, []);

      // Pasted over the pinned page: each bad value is said, and the pin shown stays.
      if (value !== '99:@0') { await page.context().close(); continue; }
      const before = await results(page);
      for (const [bad, reason] of [
        ['2:1,1', new RegExp(`gives 2 weights, but the model reads this sentence as ${S} source positions`)],
        [`2:${['1', '-0.5', ...Array(S - 2).fill('0')].join(',')}`, /its weight 2 \(-0\.5\) is negative/],
        [`2:${Array(S).fill('0').join(',')}`, /all its weights are 0/],
        [`2:${['abc', ...Array(S - 1).fill('1')].join(',')}`, /its weight 1 \(“abc”\) is not a number/],
        ['40:@1', /it pins step 40/],
        [`2:@${S}`, new RegExp(`puts all the weight on source position ${S} .*has ${S} source positions`)],
      ]) {
        await page.evaluate((h) => { location.hash = h; }, new URL(env.url(link(bad))).hash);
        await page.waitForFunction((w) => new RegExp(w.source).test(document.querySelector('#app .as-notice [data-topic="pin"]')?.textContent ?? ''), { source: reason.source }, { timeout: SLOW });
        const now = await results(page);
        assert.equal(now.pinned.translation, before.pinned.translation, `${bad}: the previous pin's result stays`);
        assert.equal(now.link, before.link, `${bad}: and its link`);
      }
      assert.deepEqual(errors, []);
      await page.context().close();
    }
  });

  test('on a phone (dark) the two columns stack and nothing overflows the screen', async () => {
    const { page, errors } = await openPage(env.browser, { viewport: PHONE, isMobile: true, colorScheme: 'dark' });
    await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE, step: String(STEP), pin: `${STEP}:@0` })}`));
    await waitForPin(page, `${STEP}:@0`);
    const boxes = await page.$$eval('#app .as-pin-col', (els) => els.map((c) => { const r = c.getBoundingClientRect(); return { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width) }; }));
    assert.equal(boxes.length, 2);
    assert.ok(boxes[0].x === boxes[1].x && boxes[1].y > boxes[0].y, `one under the other: ${JSON.stringify(boxes)}`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scrolling of the page');
    // Every slider row fits the card.
    const overflow = await page.$$eval('#app .as-pin-weight', (els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).length);
    assert.equal(overflow, 0);
    await page.locator('#app .as-pin-card').screenshot({ path: path.join(ARTIFACTS, 'pin-phone-dark.png') });
    await audit(page, 'pinned, phone, dark');
    assert.deepEqual(pageErrors(errors), []);
    await page.context().close();
  });
});
