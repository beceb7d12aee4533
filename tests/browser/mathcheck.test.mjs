// mathcheck.test.mjs - the math check card in Debian's Chromium: its numbers
// (the sentence, the means and bands over the draws at every d, the current
// draw's scores and weights, the bars' captions) are those of the same
// seeded draw computed here in Node: the draw from lib/mathcheck.js's
// generator (mulberry32 + Box–Muller, the one the page's worker uses), the
// scores, statistics, means and quantiles in double precision by the plain
// loops below (the page's come from the engine's dot-product kernel in
// WebAssembly). The d and n sliders work from the keyboard and go into the
// link, "New draw" changes the seed and the link reproduces the draw; a link
// with d, keys and seed out of range gives the nearest valid values and
// notices; the scaled dot-product model's d is marked on every curve (and
// the sentence about the √d slider is a keyboard-reachable link to it), an
// additive model's is not; German words; axe finds nothing serious (light on
// a projector, dark on a phone); nothing is wider than a phone.
// Screenshots: tests/artifacts/mathcheck-{projector,phone}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, gotoReady, ARTIFACTS, REPO, WEB, PHONE, DESKTOP } from './support.mjs';
import { drawSeeds, drawVectors } from '../../web/lib/mathcheck.js';
import { createEngine } from '../../web/engine.js';
import { CONFIG } from '../../web/config.js';

const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const pageErrors = (errors) => errors.filter((e) => !/^Applying inline style violates/.test(e));
const CARD = '#app .as-math-card';
const PROJECTOR = { width: 1920, height: 1080 };
const POWERS = Array.from({ length: 11 }, (_, k) => 2 ** k);
const STATS = ['sd', 'top', 'entropy', 'grad'];
let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

// ---- the reference: the same draws, everything else computed here -------

function stats(e, divisor) {
  const x = e.map((v) => v / divisor);
  const n = x.length;
  let mean = 0;
  for (const v of x) mean += v / n;
  let ss = 0;
  for (const v of x) ss += (v - mean) * (v - mean);
  let m = -Infinity;
  for (const v of x) if (v > m) m = v;
  const ex = x.map((v) => Math.exp(v - m));
  const sum = ex.reduce((a, b) => a + b, 0);
  const w = ex.map((v) => v / sum);
  return {
    sd: Math.sqrt(ss / (n - 1)), top: Math.max(...w), w,
    entropy: w.reduce((h, p) => (p > 0 ? h - p * Math.log2(p) : h), 0),
    grad: Math.max(...w.map((p) => p * (1 - p))),
  };
}
const quantile = (values, q) => {
  const s = [...values].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const i = Math.floor(at);
  return i + 1 < s.length ? s[i] + (at - i) * (s[i + 1] - s[i]) : s[i];
};

const cache = new Map();
/** { [d]: { raw|scaled: { sd|top|entropy|grad: { mean, lo, hi } }, scores (draw 0) } } for a seed and n keys. */
function reference(seed, keys) {
  const id = `${seed}:${keys}`;
  if (cache.has(id)) return cache.get(id);
  const D = CONFIG.mathDMax;
  const per = Object.fromEntries(POWERS.map((d) => [d, { raw: {}, scaled: {}, scores: null }]));
  for (const d of POWERS) for (const k of ['raw', 'scaled']) for (const s of STATS) per[d][k][s] = [];
  for (const [i, drawSeed] of drawSeeds(seed, CONFIG.mathDraws).entries()) {
    const v = drawVectors(drawSeed, keys + 1, D);
    for (const d of POWERS) {
      const e = [];
      for (let j = 1; j <= keys; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += v[c] * v[j * D + c];
        e.push(dot);
      }
      if (i === 0) per[d].scores = e;
      const raw = stats(e, 1), scaled = stats(e, Math.sqrt(d));
      for (const s of STATS) { per[d].raw[s].push(raw[s]); per[d].scaled[s].push(scaled[s]); }
    }
  }
  for (const d of POWERS) {
    for (const k of ['raw', 'scaled']) {
      for (const s of STATS) {
        const xs = per[d][k][s];
        per[d][k][s] = { mean: xs.reduce((a, b) => a + b, 0) / xs.length, lo: quantile(xs, CONFIG.mathBand[0]), hi: quantile(xs, CONFIG.mathBand[1]) };
      }
    }
  }
  cache.set(id, per);
  return per;
}

// ---- reading the page -----------------------------------------------------

/** A number as the page prints it (U+2212 minus, English grouping), and how many decimals it shows. */
const parse = (text) => {
  const s = text.trim().replace(/\u2212/g, '-').replace(/(\d),(\d{3})/g, '$1$2');
  return { x: Number(s), digits: (s.split('.')[1] ?? '').length };
};
/** The shown number is the reference rounded, give or take the f32 kernel's rounding. */
function near(shown, want, label) {
  const { x, digits } = typeof shown === 'string' ? parse(shown) : shown;
  assert.ok(Number.isFinite(x), `${label}: “${shown}” is a number`);
  const tol = 0.5 * 10 ** -digits + 2e-4 * Math.max(1, Math.abs(want));
  assert.ok(Math.abs(x - want) <= tol, `${label}: the page shows ${x}, Node computes ${want}`);
}
const numbersIn = (text) => [...text.replace(/\u2212/g, '-').replace(/(\d),(\d{3})/g, '$1$2').matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => ({ x: Number(m[0]), digits: (m[0].split('.')[1] ?? '').length }));

async function mathReady(page, { seed, keys, d }) {
  await page.locator(CARD).scrollIntoViewIfNeeded();
  await page.waitForSelector(`${CARD}[data-state="ready"][data-seed="${seed}"][data-keys="${keys}"][data-d="${d}"]`);
}

/** Every number the card shows, against the reference for its seed, n and d. */
async function checkCard(page, { seed, keys, d }) {
  const ref = reference(seed, keys);
  const r = ref[d];
  const sentence = await page.textContent(`${CARD} .as-mc-sentence`);
  const got = numbersIn(sentence);
  const where = `seed ${seed}, n ${keys}, d ${d}: “${sentence}”`;
  if (d === 1) {
    assert.equal(got.length, 9, where);
    [[got[0], 1], [got[1], 1], [got[2], r.raw.sd.mean], [got[3], r.raw.top.mean], [got[4], r.raw.entropy.mean], [got[5], Math.log2(keys)], [got[7], r.raw.grad.mean], [got[8], CONFIG.mathDraws]].forEach(([s, w], i) => near(s, w, `${where} #${i}`));
  } else {
    assert.equal(got.length, 14, where);
    const want = [d, Math.sqrt(d), r.raw.sd.mean, r.scaled.sd.mean, r.raw.top.mean, r.scaled.top.mean, r.raw.entropy.mean, r.scaled.entropy.mean, Math.log2(keys), 1, r.raw.grad.mean, r.scaled.grad.mean, 0.25, CONFIG.mathDraws];
    want.forEach((w, i) => near(got[i], w, `${where} #${i}`));
  }
  // The means and bands at every d.
  const rows = await page.$$eval(`${CARD} .as-mc-means tbody tr`, (trs) => trs.map((tr) => ({
    d: Number(tr.dataset.d), current: tr.getAttribute('aria-current') === 'true',
    cells: Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.f, { mean: td.querySelector('.as-mc-mean').textContent, band: td.querySelector('.as-mc-band').textContent }])),
  })));
  assert.deepEqual(rows.map((x) => x.d), POWERS);
  assert.deepEqual(rows.filter((x) => x.current).map((x) => x.d), [d], 'the current d’s row is marked');
  for (const row of rows) {
    for (const k of ['raw', 'scaled']) {
      for (const s of STATS) {
        const cell = row.cells[`${k}-${s}`];
        const want = ref[row.d][k][s];
        near(cell.mean, want.mean, `mean ${k} ${s} at d=${row.d}`);
        const [lo, hi] = cell.band.split(' – ');
        near(lo, want.lo, `band low ${k} ${s} at d=${row.d}`);
        near(hi, want.hi, `band high ${k} ${s} at d=${row.d}`);
      }
    }
  }
  // The current draw (draw 0) at d: its scores and both softmaxes, and the bars' captions.
  const draw = await page.$$eval(`${CARD} .as-mc-draw-table tbody tr`, (trs) => trs.map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.f, td.textContent]))));
  assert.equal(draw.length, keys);
  const raw = stats(r.scores, 1), scaled = stats(r.scores, Math.sqrt(d));
  draw.forEach((row, j) => {
    near(row.score, r.scores[j], `score of key ${j + 1}`);
    near(row.scaled, r.scores[j] / Math.sqrt(d), `scaled score of key ${j + 1}`);
    near(row['alpha-raw'], raw.w[j], `raw α of key ${j + 1}`);
    near(row['alpha-scaled'], scaled.w[j], `scaled α of key ${j + 1}`);
  });
  for (const [kind, s] of [['raw', raw], ['scaled', scaled]]) {
    const caption = numbersIn(await page.textContent(`${CARD} .as-mc-bar-caption[data-kind="${kind}"]`));
    near(caption[0], s.top, `${kind} bars: top weight`);
    assert.equal(caption[1].x, s.w.indexOf(s.top) + 1, `${kind} bars: the top key`);
    assert.equal(await page.locator(`${CARD} .as-mc-bar-plot[data-kind="${kind}"] rect`).count(), keys);
  }
  return { sentence, scores: r.scores };
}

async function audit(page, label) {
  if (!(await page.evaluate(() => typeof globalThis.axe === 'object'))) await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await globalThis.axe.run(document.querySelector('#app .as-math-card'), { resultTypes: ['violations'] }))
    .violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(' ')) })));
  const bad = v.filter((x) => x.impact === 'serious' || x.impact === 'critical');
  assert.deepEqual(bad, [], `${label}: axe found\n${JSON.stringify(v, null, 2)}`);
}

const hashHas = (page, part) => page.waitForFunction((p) => new URLSearchParams(location.hash.slice(1)).toString().split('&').includes(p), part);

test('math check on a projector: the numbers of a seeded draw are Node’s; d and n from the keyboard; a new draw; the link reproduces it', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: PROJECTOR });
  try {
    await gotoReady(page, env.url('index.html#s=Show+the+new+window&d=256&keys=10&seed=7'));
    await mathReady(page, { seed: 7, keys: 10, d: 256 });
    const first = await checkCard(page, { seed: 7, keys: 10, d: 256 });
    assert.match(first.sentence, /^At d = 256 the raw scores spread 16 times as wide as the scaled ones/);
    assert.equal(await page.locator(`${CARD} .as-mc-chart svg .as-mc-line-raw`).count(), 4, 'four charts, a raw curve each');
    assert.equal(await page.locator(`${CARD} .as-mc-chart svg .as-mc-line-scaled`).count(), 4);
    await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'mathcheck-projector.png') });

    // d from the keyboard: one step right is the next power of two; the link follows.
    await page.locator(`${CARD} .as-mc-d`).focus();
    await page.keyboard.press('ArrowRight');
    await mathReady(page, { seed: 7, keys: 10, d: 512 });
    assert.equal(await page.getAttribute(`${CARD} .as-mc-d`, 'aria-valuetext'), 'd = 512');
    const at512 = await checkCard(page, { seed: 7, keys: 10, d: 512 });
    await hashHas(page, 'd=512');
    // n from the keyboard: End is 50 keys, drawn again; the first ten keep their scores (the draws are nested).
    await page.locator(`${CARD} .as-mc-n`).focus();
    await page.keyboard.press('End');
    await mathReady(page, { seed: 7, keys: 50, d: 512 });
    const fifty = await checkCard(page, { seed: 7, keys: 50, d: 512 });
    assert.deepEqual(fifty.scores.slice(0, 10), at512.scores);
    await hashHas(page, 'keys=50');

    // A new draw: another seed, in the link, and Node's numbers for it.
    await page.locator(`${CARD} .as-mc-draw`).click();
    await page.waitForSelector(`${CARD}[data-state="ready"]:not([data-seed="7"])`);
    const seed = Number(await page.getAttribute(CARD, 'data-seed'));
    assert.ok(Number.isInteger(seed) && seed >= 0 && seed <= CONFIG.mathSeedMax, `seed ${seed}`);
    assert.equal(await page.textContent(`${CARD} .as-mc-seed`), `seed ${seed}`);
    const drawn = await checkCard(page, { seed, keys: 50, d: 512 });
    await hashHas(page, `seed=${seed}`);
    // The link, opened afresh, shows that same draw.
    const link = await page.evaluate(() => location.href);
    const second = await openPage(env.browser, { viewport: PROJECTOR });
    try {
      await gotoReady(second.page, link);
      await mathReady(second.page, { seed, keys: 50, d: 512 });
      assert.equal(await second.page.textContent(`${CARD} .as-mc-sentence`), drawn.sentence);
    } finally { await second.context.close(); }
    await audit(page, 'projector, light');
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});

test('math check on a phone, dark: a link out of range gives the nearest values and says so; nothing wider than the phone', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: PHONE, colorScheme: 'dark', isMobile: true });
  try {
    await gotoReady(page, env.url('index.html#s=Show+the+new+window&d=3000&keys=1&seed=-5'));
    const notices = await page.textContent('#app .as-notice');
    assert.match(notices, /d=“3000” is not a value it takes \(a power of two from 1 to 1,024\): the nearest, d=1024, is shown\./);
    assert.match(notices, /keys=“1” is not a value it takes \(a whole number from 2 to 50\): the nearest, keys=2, is shown\./);
    assert.match(notices, /seed=“-5” is not a value it takes \(a whole number from 0 to 4,294,967,295\): the nearest, seed=0, is shown\./);
    await mathReady(page, { seed: 0, keys: 2, d: 1024 });
    await checkCard(page, { seed: 0, keys: 2, d: 1024 });
    // The link now carries the values shown.
    await hashHas(page, 'd=1024');
    await hashHas(page, 'keys=2');
    await hashHas(page, 'seed=0');
    // d = 1: the sentence says that dividing by √1 changes nothing.
    await page.locator(`${CARD} .as-mc-d`).focus();
    await page.keyboard.press('Home');
    await mathReady(page, { seed: 0, keys: 2, d: 1 });
    await checkCard(page, { seed: 0, keys: 2, d: 1 });
    const wide = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      card: [...document.querySelectorAll('#app .as-math-card *')].filter((el) => !el.closest('.as-table-wrap, .as-visually-hidden') && el.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((el) => el.className?.baseVal ?? el.className),
    }));
    assert.deepEqual(wide, { page: 0, card: [] }, 'nothing wider than the phone (the tables scroll inside their regions)');
    await page.locator(`${CARD} .as-mc-d`).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await mathReady(page, { seed: 0, keys: 2, d: 64 });
    await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'mathcheck-phone.png') });
    await page.locator(`${CARD} details`).first().locator('summary').click();
    await audit(page, 'phone, dark, the numbers table open');
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});

test('math check: the scaled dot-product model’s d is marked on every curve, an additive model has none; in German', async () => {
  const engine = await createEngine({ variant: 'simd' });
  const keyDim = engine.load(fs.readFileSync(path.join(WEB, 'models', 'en-fr-scaled_dot.alsc'))).keyDim;
  engine.dispose();
  const { page, context, errors } = await openPage(env.browser, { viewport: DESKTOP });
  try {
    await gotoReady(page, env.url('index.html#s=Show+the+new+window&m=en-fr-scaled_dot'));
    await mathReady(page, { seed: CONFIG.mathDefaultSeed, keys: CONFIG.mathDefaultKeys, d: CONFIG.mathDefaultD });
    await checkCard(page, { seed: CONFIG.mathDefaultSeed, keys: CONFIG.mathDefaultKeys, d: CONFIG.mathDefaultD });
    await page.waitForSelector(`${CARD} .as-mc-model[data-d="${keyDim}"]`);
    assert.match(await page.textContent(`${CARD} .as-mc-model`), new RegExp(`scaled dot products of d = ${keyDim} numbers .*divides by √${keyDim} = ${Math.sqrt(keyDim).toFixed(2)}`));
    assert.equal(await page.locator(`${CARD} .as-mc-model-line`).count(), 4);
    assert.deepEqual(await page.$$eval(`${CARD} .as-mc-model-label`, (els) => els.map((e) => e.textContent)), Array(4).fill(`model d = ${keyDim}`));
    await audit(page, 'desktop, light, with the model marked');
    // The sentence about the √d slider is a link to it: from the keyboard, Enter on it brings the slider card into view
    // and puts the focus on the slider; the address (the page's state) does not change.
    const link = page.locator(`${CARD} .as-mc-model a.as-mc-slider-link`);
    assert.equal(await link.textContent(), 'The √d slider above moves that divisor.');
    const hashBefore = await page.evaluate(() => location.hash);
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.closest('.as-slider-card') && document.activeElement.type === 'range');
    const landed = await page.evaluate(() => {
      const r = document.activeElement.closest('.as-slider-card').getBoundingClientRect();
      return { inView: r.top >= -1 && r.top < innerHeight, heading: document.querySelector(`#app .as-slider-card h2`).id, href: document.querySelector('#app .as-mc-slider-link').getAttribute('href'), hash: location.hash };
    });
    assert.ok(landed.inView, 'the slider card is in view');
    assert.equal(landed.href, `#${landed.heading}`, 'the link names the slider card');
    assert.equal(landed.hash, hashBefore, 'the link left the address alone');
    // The additive model: no d to mark, and the card says why; no link.
    await page.goto(env.url('index.html#s=Show+the+new+window&m=en-fr-int8'));
    await page.waitForSelector(`${CARD} .as-mc-model[data-d=""]`);
    assert.match(await page.textContent(`${CARD} .as-mc-model`), /does not score with dot products/);
    assert.equal(await page.locator(`${CARD} .as-mc-slider-link`).isHidden(), true, 'nothing to jump to');
    assert.equal(await page.locator(`${CARD} .as-mc-model-line`).count(), 0);
    // German: the card's own words.
    await page.goto(env.url('index.html#s=Show+the+new+window&m=en-fr-int8&uilang=de&d=16'));
    await page.waitForFunction(() => document.querySelector('#app .as-math-card h2')?.textContent === 'Nachgerechnet: Warum durch √d teilen');
    await mathReady(page, { seed: CONFIG.mathDefaultSeed, keys: CONFIG.mathDefaultKeys, d: 16 });
    assert.match(await page.textContent(`${CARD} .as-mc-sentence`), /^Bei d = 16 streuen die rohen Scores 4-mal so weit wie die skalierten \(Standardabweichung \d,\d+ gegen \d,\d+\)/);
    await audit(page, 'desktop, German');
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});
