// byhand.test.mjs - "attention by hand" in Debian's Chromium: the exercise
// stays the default mode; the mode switch shows cross-attention,
// self-attention and causal self-attention with the numbers a plain loop
// (written here) gives for what the inputs hold; editing a Q entry moves its
// row's weights; the causal mask is drawn (−∞, greyed, weight 0); the
// additive score's terms follow an edit of W₁; the reader's mode and
// numbers survive a change of UI language; the radios work from the
// keyboard; axe finds nothing serious in any mode (light on a desktop, dark
// on a phone); on a phone the page does not scroll sideways (the wide
// tables scroll inside focusable regions).
// Screenshots: tests/artifacts/byhand-*-{desktop,phone}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, gotoReady, ARTIFACTS, REPO, PHONE, DESKTOP } from './support.mjs';
import { KINDS_EXAMPLE } from '../../web/lib/kinds.js';

const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
// axe-core's probes set inline styles, which the page's CSP refuses (and logs).
const pageErrors = (errors) => errors.filter((e) => !/^Applying inline style violates/.test(e));
const CARD = '#app .as-byhand-card';
let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

// The reference: Q Kᵀ ÷ √2, the mask, a row-wise softmax, the weighted sum, as three plain loops.
function reference(Q, K, V, causal) {
  return Q.map((q, i) => {
    const e = K.map((k, j) => (causal && j > i ? 0 : Math.exp((q[0] * k[0] + q[1] * k[1]) / Math.SQRT2)));
    const sum = e.reduce((a, b) => a + b, 0);
    const w = e.map((x) => x / sum);
    return { w, z: [0, 1].map((c) => w.reduce((s, x, j) => s + x * V[j][c], 0)) };
  });
}
const f3 = (x) => (Math.abs(x) < 5e-4 ? 0 : x).toFixed(3).replace('-', '−');

async function mode(page, m) {
  await page.locator(`${CARD} .as-bh-modes input[value="${m}"]`).check();
  await page.waitForSelector(`${CARD}[data-mode="${m}"]`);
}
const weightsShown = (page) => page.$$eval(`${CARD} .as-bh-weights tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll('.as-bh-weight')].map((c) => c.textContent)));
const outputsShown = (page) => page.$$eval(`${CARD} .as-bh-weights tbody tr`, (rows) => rows.map((r) => r.lastElementChild.textContent));
const assertWeights = async (page, want, msg) => {
  assert.deepEqual(await weightsShown(page), want.map((r) => r.w.map(f3)), `${msg}: weights`);
  assert.deepEqual(await outputsShown(page), want.map((r) => `(${r.z.map(f3).join(', ')})`), `${msg}: outputs`);
};

async function audit(page, label) {
  if (!(await page.evaluate(() => typeof globalThis.axe === 'object'))) await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await globalThis.axe.run(document.querySelector('#app .as-byhand-card'), { resultTypes: ['violations'] }))
    .violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => n.target.join(' ')) })));
  const bad = v.filter((x) => x.impact === 'serious' || x.impact === 'critical');
  assert.deepEqual(bad, [], `${label}: axe found\n${JSON.stringify(v, null, 2)}`);
}

test('by hand: the exercise by default, the three kinds and the additive score, edits, the mask, a new UI language', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: DESKTOP });
  try {
    await gotoReady(page, env.url('index.html#s=Open+the+file'));
    // The exercise is the default mode, with its numbers.
    assert.equal(await page.getAttribute(CARD, 'data-mode'), 'scores');
    assert.equal(await page.locator(`${CARD} .as-bh-modes input[value="scores"]`).isChecked(), true);
    assert.match(await page.textContent(`${CARD} .as-byhand-result`), /\(0\.757, 0\.102, 0\.038, 0\.102\)/);
    // The note speaks of the exercise's expected answer: the exercise itself is on the page, with the card's numbers.
    assert.match(await page.textContent(`${CARD} .as-exercise`), /^The exercise \(from the teaching notes\): A query has dot-product scores \(3, 1, 0, 1\) against four keys with values \(1, 0\), \(0, 1\), \(−?-?1, 0\), \(0, −?-?1\)\..*divided by √d = √2\. Expected: weights ≈ \(0\.787, 0\.106, 0\.039, 0\.106\) and context ≈ \(0\.748, 0(\.000)?\)/);
    assert.match(await page.textContent(`${CARD} .as-note`), /^About the expected answer: the exercise above gives/);
    await audit(page, 'the exercise');

    // Cross-attention: queries from the decoder states, keys and values from the encoder states (every W the identity).
    await mode(page, 'cross');
    const S = KINDS_EXAMPLE.decoder.map((r) => [...r]);
    const H = KINDS_EXAMPLE.encoder;
    await assertWeights(page, reference(S, H, H, false), 'cross');
    assert.equal(await page.locator(`${CARD} .as-bh-masked`).count(), 0, 'cross-attention masks nothing');
    await audit(page, 'cross-attention');
    // Typed directly, Q starts as the projections gave it; editing one entry moves that row's weights only.
    await page.locator(`${CARD} .as-bh-source input[value="direct"]`).check();
    await assertWeights(page, reference(S, H, H, false), 'cross, typed directly, before an edit');
    const before = await weightsShown(page);
    await page.getByLabel('Q row 2, column 1', { exact: true }).fill('3');
    S[1][0] = 3;
    await assertWeights(page, reference(S, H, H, false), 'cross, Q row 2 edited');
    const after = await weightsShown(page);
    assert.notDeepEqual(after[1], before[1], 'row 2 moved');
    assert.deepEqual([after[0], after[2]], [before[0], before[2]], 'the other rows did not');

    // Self-attention: Q, K and V all from X; nothing masked.
    await mode(page, 'self');
    const X = KINDS_EXAMPLE.sequence.map((r) => [...r]);
    await assertWeights(page, reference(X, X, X, false), 'self');
    assert.equal(await page.locator(`${CARD} .as-bh-masked`).count(), 0);
    // An edit of W_Q changes Q (shown) and the weights: Q = X W_Q.
    await page.getByLabel('WQ row 1, column 2', { exact: true }).fill('1');
    const Qs = X.map(([a, b]) => [a, a + b]);
    assert.deepEqual(await page.$$eval(`${CARD} table[data-matrix="Q"] tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent))), Qs.map((r) => r.map(f3)));
    await assertWeights(page, reference(Qs, X, X, false), 'self, W_Q edited');
    await audit(page, 'self-attention');

    // Causal self-attention: the same numbers, with the mask drawn.
    await mode(page, 'causal');
    await assertWeights(page, reference(Qs, X, X, true), 'causal');
    const scores = await page.$$eval(`${CARD} .as-bh-scores tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => ({ text: c.textContent, masked: c.classList.contains('as-bh-masked') }))));
    scores.forEach((row, i) => row.forEach((c, j) => {
      assert.equal(c.masked, j > i, `score (${i + 1}, ${j + 1}) masked iff j > i`);
      if (j > i) assert.equal(c.text, '−∞ (masked)');
      else assert.match(c.text, /^−?\d\.\d{3}$/);
    }));
    const w = await weightsShown(page);
    assert.deepEqual(w[0], ['1.000', '0.000', '0.000', '0.000'], 'row 1 attends only to itself');
    assert.equal(await page.locator(`${CARD} .as-bh-weights td.as-bh-masked`).count(), 6, 'the 6 masked weights are greyed');
    // Typed directly: an edit of Q row 3 moves row 3's weights; the masked one stays 0.
    await page.locator(`${CARD} .as-bh-source input[value="direct"]`).check();
    await page.getByLabel('Q row 3, column 2', { exact: true }).fill('-2');
    Qs[2][1] = -2;
    await assertWeights(page, reference(Qs, X, X, true), 'causal, Q row 3 edited');
    // Row 3 step by step, and what the live region says.
    await page.selectOption(`${CARD} .as-bh-panel select`, { value: '2' });
    const steps = await page.$$eval(`${CARD} .as-bh-steps tbody tr`, (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
    assert.equal(steps[3][1], '−∞ (masked)');
    assert.deepEqual(steps[3].slice(2, 4), ['0.000', '0.000'], 'exp and weight of the masked key');
    const row3 = reference(Qs, X, X, true)[2];
    assert.deepEqual(steps.slice(0, 3).map((r) => r[3]), row3.w.slice(0, 3).map(f3));
    const live = await page.textContent(`${CARD} .as-bh-panel .as-byhand-result`);
    assert.match(live, /Row 3: weights α = /);
    assert.ok(live.includes(`(${row3.z.map(f3).join(', ')})`), live);
    assert.match(live, /Position 3 sees itself and the positions before it; the one later position is masked/);
    await audit(page, 'causal self-attention');
    await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'byhand-causal-desktop.png') });

    // The additive score: an edit of W₁ shows in each term.
    await mode(page, 'additive');
    const terms = () => page.$$eval(`${CARD} .as-bh-terms tbody tr`, (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
    assert.deepEqual((await terms())[0], ['(1.000, 0.000)', '(1.000, 0.000)', '(0.000, 1.000)', '(1.000, 1.000)', '(0.762, 0.762)', '1.523']);
    await page.getByLabel('W₁ row 1, column 1', { exact: true }).fill('2');
    const t1 = (await terms())[0];
    assert.deepEqual(t1.slice(1), ['(2.000, 0.000)', '(0.000, 1.000)', '(2.000, 1.000)', `(${f3(Math.tanh(2))}, ${f3(Math.tanh(1))})`, f3(Math.tanh(2) + Math.tanh(1))]);
    // W₁ = [[2, 0], [0, 1]], W₂s = (0, 1): h = (1,0), (0,1), (−1,0), (0,−1) give sums (2,1), (0,2), (−2,1), (0,0).
    const e = [Math.tanh(2) + Math.tanh(1), Math.tanh(2), Math.tanh(1) - Math.tanh(2), 0];
    const alpha = e.map((x) => Math.exp(x) / e.reduce((s, y) => s + Math.exp(y), 0));
    assert.deepEqual(await page.$$eval(`${CARD} .as-bh-soft tbody tr`, (rows) => rows.map((r) => r.children[3].textContent)), alpha.map(f3), 'the softmax follows');
    assert.match(await page.textContent(`${CARD} .as-bh-panel .as-byhand-result`), new RegExp(`Weights α = \\(${alpha.map(f3).join(', ')}\\)`));
    await audit(page, 'the additive score');
    await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'byhand-additive-desktop.png') });

    // A new UI language builds the card again: the mode and the numbers stay.
    await page.selectOption('#ui-lang', 'fr');
    await page.waitForFunction(() => document.documentElement.lang === 'fr');
    assert.equal(await page.getAttribute(CARD, 'data-mode'), 'additive');
    assert.equal(await page.getByLabel('W₁ ligne 1, colonne 1', { exact: true }).inputValue(), '2');
    assert.equal((await terms())[0][1], '(2,000; 0,000)', 'French decimal comma');
    await mode(page, 'causal');
    assert.equal(await page.getByLabel('Q ligne 3, colonne 2', { exact: true }).inputValue(), '-2', 'Q typed directly stays');
    assert.equal(await page.locator(`${CARD} .as-bh-panel select`).inputValue(), '2', 'so does the row shown');
    assert.equal(await page.locator(`${CARD} .as-bh-scores td.as-bh-masked`).first().textContent(), '−∞ (masqué)');
    await page.selectOption('#ui-lang', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');

    // The keyboard: arrows move through the modes.
    await page.locator(`${CARD} .as-bh-modes input[value="causal"]`).focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector(`${CARD}[data-mode="additive"]`);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector(`${CARD}[data-mode="self"]`);
    // The exercise mode is still there, with its own numbers.
    await mode(page, 'scores');
    assert.match(await page.textContent(`${CARD} .as-byhand-result`), /\(0\.757, 0\.102, 0\.038, 0\.102\)/);
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});

test('by hand on a phone, dark: no sideways scroll, the wide tables scroll inside focusable regions', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: PHONE, isMobile: true, colorScheme: 'dark' });
  try {
    await gotoReady(page, env.url('index.html#s=Open+the+file'));
    for (const m of ['causal', 'additive', 'cross']) {
      await mode(page, m);
      const box = await page.evaluate((sel) => {
        const card = document.querySelector(sel);
        const wraps = [...card.querySelectorAll('.as-table-wrap')].filter((w) => w.scrollWidth > w.clientWidth + 1);
        return {
          page: document.documentElement.scrollWidth, card: card.getBoundingClientRect().right,
          overflowing: wraps.length, focusable: wraps.every((w) => w.tabIndex === 0 && w.getAttribute('role') === 'region' && w.hasAttribute('aria-labelledby')),
        };
      }, CARD);
      assert.ok(box.page <= PHONE.width, `${m}: the page is ${box.page} px wide`);
      assert.ok(box.card <= PHONE.width, `${m}: the card ends at ${box.card} px`);
      assert.ok(box.overflowing > 0, `${m}: a wide table scrolls inside its box`);
      assert.ok(box.focusable, `${m}: every box that scrolls is a labelled Tab stop`);
      await audit(page, `${m} on a phone`);
      if (m !== 'cross') await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, `byhand-${m}-phone.png`) });
    }
    assert.deepEqual(pageErrors(errors), []);
  } finally { await context.close(); }
});
