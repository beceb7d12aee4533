// The beam search card (web/cards/beam.js, controllers/beam.js) in Debian's
// Chromium: the default width (DEFAULT_BEAM_WIDTH, the page's decoding too)
// draws the prefix tree of engine.beam's hypotheses (as engine.js gives them
// in Node), best first, each leaf with its log p and score, and the main
// translation is #1; width 1 is exactly the greedy translation, for the
// main heatmap too; the page decodes with beam by default, #beam=1 and the
// control beside the translation give greedy, and the step-through says
// where the beam kept another word than the top candidate; clicking a second
// hypothesis shows its text and its own heatmap (the cells' colours are its
// α, not the first's), and the keyboard picks hypotheses too; links with
// beam=0, 9 or 1000 get a notice and the default width; a width the engine
// refuses (forced through the client) is reported and the previous tree
// stays; requests are coalesced; on a phone the tree scrolls sideways in its
// box and the heatmap comes below it. Screenshots at desktop and phone; axe
// on the card with a hypothesis picked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, gotoReady, beamFilled, ARTIFACTS, REPO, WEB, PHONE, DESKTOP } from './support.mjs';
import { createEngine } from '../../web/engine.js';
import { buildBeamTree, differenceFromBest, differenceAtLevel, beamChangeAt, tokenLabel, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/lib/beam.js';
import { figureMatrix } from '../../web/lib/figure.js';
import { viridis } from '../../web/lib/colormap.js';

// #2 writes “de ouvrir” where #1 writes “d'ouvrir”: from there on it looks elsewhere.
const SENTENCE = 'Cannot open the file';
const CARD = '#app .as-beam-card';
const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

let env;
let info;
let beam4;   // engine.beam(SENTENCE) in Node, the default width and penalty
let greedy;  // engine.translate(SENTENCE) in Node
// The lesson's first sentence: on the default model the beam writes another word than greedy at some step.
const CAT = 'The cat sat on the mat.';
let catBeam, catGreedy, catChange; // the default decoding's trace, greedy's, and the first step the beam changed

before(async () => {
  env = await startBrowser();
  const catalog = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'index.json'), 'utf8'));
  const entry = catalog.models.find((m) => m.id === catalog.default);
  const engine = await createEngine({ variant: 'scalar' });
  info = engine.load(new Uint8Array(fs.readFileSync(path.join(WEB, 'models', entry.file))));
  const opts = { scoreScale: info.trainedScoreScale, topK: 5 };
  beam4 = engine.beam(SENTENCE, { ...opts, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses;
  greedy = engine.translate(SENTENCE, opts);
  catBeam = { ...engine.beam(CAT, { ...opts, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses[0], beamWidth: DEFAULT_BEAM_WIDTH };
  catGreedy = engine.translate(CAT, opts);
  catChange = [...Array(catBeam.T).keys()].find((t) => beamChangeAt(catBeam, t));
  engine.dispose();
  assert.notEqual(catBeam.translation, catGreedy.translation, 'beam and greedy differ on the lesson sentence');
  assert.ok(catChange != null);
  assert.ok(beam4.length >= 2, 'the default model gives this sentence several hypotheses');
});
after(async () => { await env?.close(); });

/** Open the page at `hash`, bring the beam card into view, wait for its tree (data-count) at `width`. */
async function openCard(page, hash, { width = DEFAULT_BEAM_WIDTH } = {}) {
  page.setDefaultTimeout(90_000); // a busy machine
  await page.goto('about:blank'); // a new document, not a hash change
  await gotoReady(page, env.url(`index.html#${hash}`));
  await page.locator(CARD).scrollIntoViewIfNeeded();
  await page.waitForFunction(({ sel, k }) => {
    const card = document.querySelector(sel);
    return card?.dataset.width === String(k) && card.dataset.busy === 'false' && card.querySelector('.as-beam-svg');
  }, { sel: CARD, k: width }, { timeout: 60_000 });
}

const cardState = (page) => page.$eval(CARD, (card) => ({
  width: card.dataset.width,
  count: Number(card.dataset.count),
  pick: card.dataset.pick,
  radios: [...card.querySelectorAll('.as-beam-option')].map((l) => l.querySelector('.as-beam-option-text > span:nth-child(2)').textContent),
  leaves: [...card.querySelectorAll('.as-beam-leaf')].map((l) => ({ rank: Number(l.dataset.rank), text: l.textContent })),
  nodes: card.querySelectorAll('.as-beam-node').length,
  edges: card.querySelectorAll('.as-beam-edge').length,
  onNodes: [...card.querySelectorAll('.as-beam-node.as-on text')].map((t) => t.textContent),
  picked: card.querySelector('.as-beam-translation').textContent,
  parting: card.querySelector('.as-beam-parting').textContent,
  looking: card.querySelector('.as-beam-looking').textContent,
  greedyNote: card.querySelector('.as-beam-greedy').textContent,
  caption: card.querySelector('.as-beam-for').textContent,
  error: card.querySelector('.as-beam-error').hidden ? null : card.querySelector('.as-beam-error').textContent,
  widthValue: card.querySelector('input[type=range]').value,
}));

/** The colour at a spot of cell (t, j) of the card's heatmap, away from the number printed in its middle. */
const cellColour = (page, t, j) => page.$eval(`${CARD} canvas.as-heatmap-canvas`, (c, [tt, jj]) => {
  const dpr = c.width / c.clientWidth;
  const cell = Number(c.dataset.cell);
  const x = (Number(c.dataset.gridX) + (jj + 0.15) * cell) * dpr;
  const y = (Number(c.dataset.gridY) + (tt + 0.15) * cell) * dpr;
  return Array.from(c.getContext('2d').getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3));
}, [t, j]);
const near = (a, b, tol = 4) => a.every((v, i) => Math.abs(v - b[i]) <= tol);

test('off screen, the card fills once the page is quiet; a reader who then jumps to the pin card below it sees that card stay put', async () => {
  const { page, errors } = await openPage(env.browser);
  page.setDefaultTimeout(90_000);
  await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: SENTENCE })}`));
  // Never scrolled to: the tree and the heatmap come all the same (before, the search waited for the card to be seen,
  // and the card grew by about a thousand pixels when it was: the pin card below went off the screen).
  assert.ok(await page.$eval(CARD, (c) => c.getBoundingClientRect().top > innerHeight), 'precondition: the card starts below the screen');
  await beamFilled(page);
  assert.equal(await page.evaluate(() => scrollY), 0, 'nothing scrolled the page');
  assert.equal((await cardState(page)).radios.length, beam4.length, 'the hypotheses of the default width');
  // Jump to the pin card (its bottom edge at the screen's, the beam card's end above it on the screen) and watch it.
  const tops = await page.evaluate(async () => {
    const pin = document.querySelector('#app .as-pin-card');
    scrollTo(0, pin.getBoundingClientRect().bottom + scrollY - innerHeight);
    const seen = [];
    for (let i = 0; i < 30; i++) { seen.push(Math.round(pin.getBoundingClientRect().top)); await new Promise((r) => requestAnimationFrame(r)); }
    return seen;
  });
  assert.equal(new Set(tops).size, 1, `the pin card stays where the reader went: tops ${tops.join(',')}`);
  assert.ok(await page.$eval(CARD, (c) => c.getBoundingClientRect().bottom > 0), 'precondition: the beam card ends on the screen');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the default width: the tree of the engine’s hypotheses, best first; a second one picked by click shows its text and its own heatmap', async () => {
  const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
  try {
    await openCard(page, `s=${encodeURIComponent(SENTENCE)}`);
    const st = await cardState(page);
    const tree = buildBeamTree(beam4);
    assert.equal(st.width, String(DEFAULT_BEAM_WIDTH));
    assert.equal(st.count, beam4.length);
    assert.equal(await page.locator('#app .as-translation').textContent(), beam4[0].translation, 'the main translation is #1');
    assert.deepEqual(st.radios, beam4.map((h) => h.translation), 'the hypotheses, in the engine’s order (best first)');
    assert.equal(st.nodes, tree.nodes.length, 'one box per shared prefix, as lib/beam.js builds the tree');
    assert.equal(st.edges, tree.nodes.length - 1);
    assert.deepEqual(st.leaves.map((l) => l.rank).sort(), beam4.map((_, r) => r));
    for (const l of st.leaves) {
      const h = beam4[l.rank];
      assert.match(l.text, new RegExp(`^#${l.rank + 1} · log p ${fmtRe(h.logProb, 2)} · normalised ${fmtRe(h.score, 3)}$`), 'each leaf: its rank, log p and score');
    }
    assert.equal(st.pick, '0', '#1 is picked first');
    assert.equal(st.picked, beam4[0].translation);
    // (a piece that continues the word before it, like the apostrophe of "d'", is drawn as ·piece)
    const continues = (target, t) => t > 0 && !target[t].isEnd && target[t].word === target[t - 1].word;
    assert.deepEqual(st.onNodes, ['<s>', ...beam4[0].target.map((x, t) => (x.isEnd ? '</s>' : `${continues(beam4[0].target, t) ? '·' : ''}${x.text}`))], 'the picked path is highlighted');
    assert.match(st.caption, new RegExp(`For “${SENTENCE}” with width ${DEFAULT_BEAM_WIDTH} and λ = 1\\.0: ${beam4.length} hypotheses`));
    assert.match(await page.locator(`${CARD} .as-beam-formula`).textContent(), /normalised score = log p\(y \| x\) \/ Tλ/, 'the card states the formula');
    assert.match(await page.locator(`${CARD} .as-beam-svg`).getAttribute('aria-label'), new RegExp(`A tree of ${beam4.length} hypotheses`));

    // The cell where #2's α differs most from #1's: its colour there follows the picked hypothesis.
    const m1 = figureMatrix(beam4[0], info, false);
    const m2 = figureMatrix(beam4[1], info, false);
    let best = { d: -1 };
    for (let t = 0; t < Math.min(m1.T, m2.T); t++) for (let j = 0; j < m1.S; j++) {
      const d = Math.abs(m1.alpha[t * m1.S + j] - m2.alpha[t * m2.S + j]);
      if (d > best.d) best = { d, t, j };
    }
    assert.ok(best.d > 0.2, `#2 looks elsewhere than #1 somewhere (largest difference ${best.d})`);
    const colourOf = (m) => viridis(m.alpha[best.t * m.S + best.j]);
    const paints = async () => Number(await page.locator(`${CARD} canvas.as-heatmap-canvas`).getAttribute('data-paints'));
    await page.waitForFunction((sel) => Number(document.querySelector(`${sel} canvas.as-heatmap-canvas`)?.dataset.paints) > 0, CARD);
    assert.ok(near(await cellColour(page, best.t, best.j), colourOf(m1)), 'with #1 picked, the heatmap shows #1’s α');

    const before = await paints();
    await page.locator(`${CARD} .as-beam-leaf[data-rank="1"]`).click();
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.pick === '1', CARD);
    await page.waitForFunction(([sel, p]) => Number(document.querySelector(`${sel} canvas.as-heatmap-canvas`).dataset.paints) > p, [CARD, before]);
    const two = await cardState(page);
    assert.equal(two.picked, beam4[1].translation, 'its translation');
    assert.equal(await page.locator(`${CARD} .as-beam-option[data-rank="1"] input`).isChecked(), true, 'the list follows the tree');
    const got = await cellColour(page, best.t, best.j);
    assert.ok(near(got, colourOf(m2)), `the heatmap shows #2’s α at (${best.t}, ${best.j}): ${got} vs ${colourOf(m2)}`);
    assert.ok(!near(got, colourOf(m1)), 'which is not #1’s');
    // What it does differently, in numbers that are the engine's.
    // Named at the heatmap's level (words: a word's row, its words' columns), as the card writes it.
    const diff = differenceFromBest(beam4[1], beam4[0]);
    const lv = differenceAtLevel(diff, m2, m1);
    const re = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(two.parting, new RegExp(`parts from #1 at step ${lv.step + 1}: it writes “${re(lv.wrote)}” where #1 writes “${re(lv.bestWrote)}”`));
    assert.ok(diff.most?.tv > 0.2, 'this sentence: #2 looks elsewhere after it parts');
    assert.match(two.looking, new RegExp(`their attention differs most at step ${lv.most.step + 1} \\(the marked row\\): it looks most at “${re(lv.most.col)}” \\(α = ${fmtRe(lv.most.a, 3)}\\) where #1 looks most at “${re(lv.most.bestCol)}” \\(α = ${fmtRe(lv.most.bestA, 3)}\\); there the two rows differ by ${fmtRe(diff.most.tv, 2)}`));
    // The marked row is that step's (the matrix is word-level: its word's row).
    const row = m2.rowGroups.findIndex((g) => diff.most.step >= g.first && diff.most.step < g.first + g.count);
    assert.equal(await page.locator(`${CARD} canvas.as-heatmap-canvas`).getAttribute('data-marked-row'), String(row), 'the row where their attention differs most is marked');
    // The keyboard: the radio group is one Tab stop; arrows pick, Enter too.
    await page.locator(`${CARD} .as-beam-option[data-rank="1"] input`).focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.pick === '2', CARD);
    assert.equal((await cardState(page)).picked, beam4[2].translation);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.pick === '1', CARD);
    // A box of the tree that #2 does not pass: the best hypothesis through it (#1).
    const box = tree.paths[0].find((id) => !tree.nodes[id].ranks.includes(1));
    await page.locator(`${CARD} .as-beam-node[data-node="${box}"]`).click();
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.pick === '0', CARD);
    // The width chosen travels in the link; the penalty when chosen.
    await page.locator(`${CARD} input[type=range]`).first().focus();
    await page.keyboard.press('ArrowRight');
    const wider = String(DEFAULT_BEAM_WIDTH + 1);
    await page.waitForFunction((k) => new RegExp(`(^#|&)beam=${k}(&|$)`).test(location.hash), wider);
    await page.waitForFunction(({ sel, k }) => document.querySelector(sel).dataset.width === k, { sel: CARD, k: wider });
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(({ sel, k }) => document.querySelector(sel).dataset.width === k, { sel: CARD, k: String(DEFAULT_BEAM_WIDTH) });
    await page.locator(`${CARD} .as-beam-option[data-rank="1"] input`).check();
    await page.waitForTimeout(100);
    await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'beam-desktop-light.png') });
    // axe on the card as drawn, a hypothesis picked: no serious or critical violation.
    await page.evaluate(AXE);
    const violations = await page.evaluate(async (sel) => (await globalThis.axe.run(document.querySelector(sel), { resultTypes: ['violations'] })).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), CARD);
    assert.deepEqual(violations, []);
    assert.deepEqual(errors.filter((e) => !/^Applying inline style violates/.test(e)), []);
  } finally { await context.close(); }
});

test('at piece level (“Show subword pieces”, pieces=1) the sentences name pieces: where #2 parts from #1 and where it looks, and the marked row is the piece\'s', async () => {
  const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
  try {
    await openCard(page, `s=${encodeURIComponent(SENTENCE)}&pieces=1`);
    const before = Number(await page.locator(`${CARD} canvas.as-heatmap-canvas`).getAttribute('data-paints'));
    await page.locator(`${CARD} .as-beam-leaf[data-rank="1"]`).click();
    await page.waitForFunction(([sel, p]) => document.querySelector(sel).dataset.pick === '1'
      && Number(document.querySelector(`${sel} canvas.as-heatmap-canvas`).dataset.paints) > p, [CARD, before]);
    const st = await cardState(page);
    const diff = differenceFromBest(beam4[1], beam4[0]);
    const [p2, p1] = [figureMatrix(beam4[1], info, true), figureMatrix(beam4[0], info, true)];
    const [w2, w1] = [figureMatrix(beam4[1], info, false), figureMatrix(beam4[0], info, false)];
    const lp = differenceAtLevel(diff, p2, p1);
    const lw = differenceAtLevel(diff, w2, w1);
    // The sentence is one whose levels differ (else this proves nothing): #1's “d'” is the pieces “d” and “'”.
    assert.notEqual(lp.bestWrote, lw.bestWrote, `precondition: the pieces where they part are not words (${lp.bestWrote} / ${lw.bestWrote})`);
    const re = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(st.parting, new RegExp(`parts from #1 at step ${lp.step + 1}: it writes “${re(lp.wrote)}” where #1 writes “${re(lp.bestWrote)}”`), st.parting);
    assert.equal(lp.step, diff.step, 'at piece level the step is the decoder step');
    assert.ok(diff.most?.tv > 0.2, 'this sentence: #2 looks elsewhere after it parts');
    assert.match(st.looking, new RegExp(`their attention differs most at step ${diff.most.step + 1} \\(the marked row\\): it looks most at “${re(beam4[1].source[diff.most.col].text)}” \\(α = ${fmtRe(diff.most.a, 3)}\\) where #1 looks most at “${re(beam4[0].source[diff.most.bestCol].text)}”`), st.looking);
    assert.equal(await page.locator(`${CARD} canvas.as-heatmap-canvas`).getAttribute('data-marked-row'), String(diff.most.step), 'the marked row is the piece\'s (the decoder step\'s)');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('width 1 is greedy: exactly the main translation, and the card says so', async () => {
  const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
  try {
    await openCard(page, `s=${encodeURIComponent(SENTENCE)}`);
    await page.locator(`${CARD} input[type=range]`).first().focus();
    await page.keyboard.press('Home');
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.width === '1', CARD);
    const st = await cardState(page);
    const main = await page.locator('#app .as-translation').textContent();
    assert.equal(st.count, 1, 'one hypothesis');
    assert.equal(st.radios[0], main, 'width 1 gives the main heatmap’s translation');
    assert.equal(main, greedy.translation);
    assert.match(st.greedyNote, /greedy search, the translation the page shows when greedy decoding is chosen\. Here it gives exactly that translation: “/);
    assert.equal(await page.locator('#app .as-decoding-text').textContent(), 'Greedy decoding', 'the card\'s width is the page\'s decoding');
    assert.equal(await page.locator(`${CARD} .as-beam-leaf`).count(), 1);
    // The address follows the store after a short pause (controllers/share.js).
    await page.waitForFunction(() => /(^#|&)beam=1(&|$)/.test(location.hash));
    // A link with beam=1 opens at width 1.
    const other = await openPage(env.browser, { viewport: DESKTOP });
    await openCard(other.page, `s=${encodeURIComponent(SENTENCE)}&beam=1&lp=0.5`, { width: 1 });
    assert.equal((await cardState(other.page)).radios[0], greedy.translation);
    assert.match((await cardState(other.page)).caption, /width 1 and λ = 0\.5/);
    await other.context.close();
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the page decodes with beam by default; the control beside the translation and #beam=1 give greedy; the step-through says what the beam changed', async () => {
  const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
  page.setDefaultTimeout(90_000);
  const translationIs = (text) => page.waitForFunction((want) => document.querySelector('#app .as-translation')?.textContent === want, text, { timeout: 60_000 });
  try {
    await gotoReady(page, env.url(`index.html#s=${encodeURIComponent(CAT)}&step=${catChange}`));
    await translationIs(catBeam.translation);
    assert.equal(await page.locator('#app .as-decoding-text').textContent(), `Beam search, width ${DEFAULT_BEAM_WIDTH}, λ = 1`);
    // the step where the beam kept another word: the note names both
    const note = page.locator('#app .as-beam-note');
    await page.waitForFunction((t) => document.querySelector('#app .as-beam-note')?.dataset.step === String(t), catChange);
    assert.equal(await note.isVisible(), true);
    const c = beamChangeAt(catBeam, catChange);
    assert.match(await note.textContent(), new RegExp(`^Here the beam changed the word: it kept “${tokenLabel(catBeam, catChange).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}” \\(p = ${c.chosen.p.toFixed(3)}\\) over the top candidate “`));
    assert.equal(await page.locator('#app .as-cands li.as-chosen').count(), c.rank >= 0 ? 1 : 0, 'the chosen candidate is the marked one');
    // a step where it wrote the top candidate: no note
    const same = [...Array(catBeam.T).keys()].find((t) => !beamChangeAt(catBeam, t));
    await page.evaluate((t) => { location.hash = location.hash.replace(/step=\d+/, `step=${t}`); }, same);
    await page.waitForFunction(() => document.querySelector('#app .as-beam-note')?.hidden === true);
    // greedy, one click away: the translation, the link, the control
    await page.locator('#app .as-decoding-btn').click();
    await translationIs(catGreedy.translation);
    await page.waitForFunction(() => /(^#|&)beam=1(&|$)/.test(location.hash));
    assert.equal(await page.locator('#app .as-decoding-text').textContent(), 'Greedy decoding');
    assert.equal(await page.locator('#app .as-beam-note').isVisible(), false, 'greedy changes nothing');
    // and back
    await page.locator('#app .as-decoding-btn').click();
    await translationIs(catBeam.translation);
    // a link with beam=1 opens greedy
    await page.goto('about:blank');
    await gotoReady(page, env.url(`index.html#s=${encodeURIComponent(CAT)}&beam=1`));
    await translationIs(catGreedy.translation);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('links with beam=0, 9 or 1000 (or lp=9) get a clear notice; the page decodes with its own width and works', async () => {
  const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
  try {
    for (const bad of ['0', '9', '1000']) {
      await openCard(page, `s=${encodeURIComponent(SENTENCE)}&beam=${bad}`);
      const notice = await page.locator('#app .as-notice [data-topic="beam"]').textContent();
      assert.equal(notice, `This link asks for beam width “${bad}”, but the width must be a whole number from 1 to 8 (1 is greedy). The page decodes with width ${DEFAULT_BEAM_WIDTH}.`);
      const st = await cardState(page);
      assert.equal(st.width, String(DEFAULT_BEAM_WIDTH));
      assert.equal(st.widthValue, String(DEFAULT_BEAM_WIDTH));
      assert.equal(st.count, beam4.length);
      assert.equal(await page.locator('#app .as-translation').textContent(), beam4[0].translation, 'the page keeps working, with its own width');
      // Picking a width answers the notice: it goes.
      await page.locator(`${CARD} input[type=range]`).first().focus();
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction(() => !document.querySelector('#app .as-notice [data-topic="beam"]'));
    }
    await openCard(page, `s=${encodeURIComponent(SENTENCE)}&beam=3&lp=9`, { width: 3 });
    assert.match(await page.locator('#app .as-notice [data-topic="beamLp"]').textContent(), /length penalty “9”, but it must be a number from 0 to 4.*decodes with λ = 1\./);
    // A pasted link (hash change) with a bad width keeps the width in use.
    await page.evaluate((s) => { location.hash = `#s=${encodeURIComponent(s)}&beam=1000`; }, SENTENCE);
    await page.waitForFunction(() => /beam width “1000”.*decodes with width 3\./.test(document.querySelector('#app .as-notice [data-topic="beam"]')?.textContent ?? ''));
    assert.equal((await cardState(page)).width, '3');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a width the engine refuses, forced through the client, is shown; the previous tree stays; requests are coalesced; progress shows', async () => {
  const { page, errors, context } = await openPage(env.browser, { viewport: DESKTOP });
  // The page's side of the worker: count beam requests, let the test force a width past the
  // card's control, and hold requests back (__heldPosts, an array while held) so that a search
  // is seen under way for as long as the test looks: a refused width answers within a frame or
  // two, and under load its answer can arrive before the frame that would show the progress bar.
  await context.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    globalThis.__beamSent = [];
    globalThis.__heldPosts = null;
    Worker.prototype.postMessage = function (msg, ...rest) {
      if (msg?.type === 'beam') {
        if (globalThis.__forceBeamWidth != null) msg = { ...msg, beamWidth: globalThis.__forceBeamWidth };
        globalThis.__beamSent.push(msg.beamWidth);
        if (globalThis.__heldPosts) { globalThis.__heldPosts.push(() => post.call(this, msg, ...rest)); return undefined; }
      }
      return post.call(this, msg, ...rest);
    };
  });
  try {
    await openCard(page, `s=${encodeURIComponent(SENTENCE)}`);
    const good = await cardState(page);
    assert.equal(good.error, null);
    await page.evaluate(() => { globalThis.__forceBeamWidth = 9; globalThis.__heldPosts = []; });
    await page.locator(`${CARD} input[type=range]`).nth(1).focus();
    await page.keyboard.press('ArrowRight'); // λ 1.0 → 1.1: a new search, sent with width 9 (held back)
    // While the search runs, the card shows its progress bar and says what it searches.
    // (data-busy is written in the same update as the bar's hidden flag: no frame to wait for.)
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.busy === 'true' && globalThis.__heldPosts.length >= 1, CARD);
    assert.ok(await page.locator(`${CARD} .as-beam-progress`).isVisible(), 'progress is shown while a search runs');
    // (It names the card's own width: the 9 is forced into the worker's message, past the card.)
    assert.equal(await page.locator(`${CARD} .as-beam-status`).textContent(), `Searching with width ${DEFAULT_BEAM_WIDTH}…`, 'the status says a search runs');
    await page.evaluate(() => { const held = globalThis.__heldPosts; globalThis.__heldPosts = null; for (const send of held) send(); });
    await page.waitForFunction((sel) => !document.querySelector(`${sel} .as-beam-error`).hidden, CARD);
    assert.ok(await page.locator(`${CARD} .as-beam-progress`).isHidden(), 'the progress bar goes with the answer');
    const bad = await cardState(page);
    assert.equal(bad.error, 'The engine refused the beam width: the beam width must be a whole number from 1 to 8. The tree below is from the last search that worked.');
    assert.equal(await page.locator(`${CARD} .as-beam-error`).getAttribute('role'), 'alert');
    for (const k of ['width', 'count', 'radios', 'leaves', 'nodes', 'caption', 'picked']) assert.deepEqual(bad[k], good[k], `the previous tree stays: ${k}`);
    // The engine works again once the width is sane; the error goes.
    await page.evaluate(() => { globalThis.__forceBeamWidth = null; });
    await page.keyboard.press('ArrowRight'); // λ = 1.2
    await page.waitForFunction((sel) => document.querySelector(`${sel} .as-beam-error`).hidden && /λ = 1\.2:/.test(document.querySelector(`${sel} .as-beam-for`).textContent), CARD);
    // Coalesced: widths asked for in one go are one search; asked for one task apart, while
    // searches run, fewer searches than requests (timing decides how many) — the last one wins.
    const burst = async ({ sel, apart, widths }) => {
      const input = document.querySelector(`${sel} input[type=range]`);
      const n0 = globalThis.__beamSent.length;
      for (const k of widths) {
        input.value = String(k);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        if (apart) await new Promise((r) => setTimeout(r, 0));
      }
      const last = String(widths.at(-1));
      await new Promise((r) => { const done = () => (document.querySelector(sel).dataset.width === last && document.querySelector(sel).dataset.busy === 'false' ? r() : setTimeout(done, 30)); done(); });
      await new Promise((r) => setTimeout(r, 300)); // nothing older arrives after it
      return { sent: globalThis.__beamSent.slice(n0), shown: document.querySelector(sel).dataset.width };
    };
    const together = await page.evaluate(burst, { sel: CARD, apart: false, widths: [2, 3, 4, 5, 6, 7, 8] });
    assert.deepEqual(together.sent, [8], 'seven widths in one task: one search, of the last');
    assert.equal(together.shown, '8');
    const apart = await page.evaluate(burst, { sel: CARD, apart: true, widths: [7, 6, 5, 4, 3, 2] });
    assert.ok(apart.sent.length <= 6 && apart.sent.at(-1) === 2, `the last request is searched last: ${JSON.stringify(apart.sent)}`);
    assert.equal(apart.shown, '2', 'and its answer is the one shown');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('on a phone the tree scrolls sideways inside its box, the heatmap comes below, the page does not scroll sideways', async () => {
  const { page, errors, context } = await openPage(env.browser, { viewport: PHONE, isMobile: true });
  try {
    await openCard(page, `s=${encodeURIComponent('Open the selected file and close the window.')}`);
    const box = page.locator(`${CARD} .as-beam-tree`);
    const geo = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    assert.ok(geo.scroll > geo.client, `the tree is wider than the screen and scrolls in its box: ${JSON.stringify(geo)}`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scrolling of the page');
    await page.locator(`${CARD} .as-beam-option[data-rank="1"]`).tap();
    await page.waitForFunction((sel) => document.querySelector(sel).dataset.pick === '1', CARD);
    const y = async (sel) => (await page.locator(sel).boundingBox()).y;
    assert.ok(await y(`${CARD} .as-beam-heat`) > await y(`${CARD} .as-beam-tree`), 'the heatmap is below the tree');
    assert.ok(await y(`${CARD} .as-beam-heat`) > await y(`${CARD} .as-beam-list`), 'and below the list');
    await page.waitForTimeout(100);
    await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'beam-phone-light.png') });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

/** The page's number format (en: fixed decimals, U+2212 minus), escaped for a RegExp. */
function fmtRe(x, digits) {
  return Number(x.toFixed(digits)).toFixed(digits).replace(/^-/, '\u2212').replace(/\./g, '\\.');
}
