// a11y.test.mjs - accessibility, audited in Chromium: axe-core on the page
// in every state a reader can put it in (heatmap, numbers table, step
// through, presenter mode, the comparison, theory and by hand), on the
// embeds (embed.html's three views, the <align-scope> elements of
// example-embed.html), light and dark, phone and desktop: no serious or
// critical violation. Then the keyboard: every Tab stop is on screen with a
// visible focus ring, the heatmap and the step view work from the keys, and
// the screen-reader table says which step is current.
// The results per page and size land in tests/artifacts/axe.json.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, gotoReady, ARTIFACTS, REPO, PHONE, DESKTOP } from './support.mjs';

const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const SIZES = { phone: PHONE, desktop: DESKTOP };
// axe-core's own probes set inline styles, which the page's CSP refuses (and
// logs); the page itself sets none (page.test.mjs checks its CSP reports).
const pageErrors = (errors) => errors.filter((e) => !/^Applying inline style violates/.test(e));
const results = [];
let env;
before(async () => { env = await startBrowser(); });
after(async () => {
  await env?.close();
  if (results.length) fs.writeFileSync(path.join(ARTIFACTS, 'axe.json'), `${JSON.stringify(results, null, 2)}\n`);
});

/** axe-core in the page (or a frame): every violation, with its nodes. */
async function audit(frame, { iframes = true } = {}) {
  if (!(await frame.evaluate(() => typeof globalThis.axe === 'object'))) await frame.evaluate(AXE);
  return frame.evaluate(async (opts) => {
    const r = await globalThis.axe.run(document, { resultTypes: ['violations'], iframes: opts.iframes });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' » ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`) }));
  }, { iframes });
}

/** Record and check one audit: no serious or critical violation (the whole list printed if there is one). */
async function check(label, frame, opts) {
  const v = await audit(frame, opts);
  const bad = v.filter((x) => x.impact === 'serious' || x.impact === 'critical');
  results.push({ page: label, serious: bad.length, violations: v.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.length })) });
  assert.deepEqual(bad, [], `${label}: axe found\n${JSON.stringify(v, null, 2)}`);
}

/** Wait until the comparison card shows all three columns translated and its difference map drawn. */
async function comparisonShown(page) {
  await page.waitForFunction(() => {
    const card = document.querySelector('#app .as-compare-card');
    const cols = [...(card?.querySelectorAll('.as-compare-col') ?? [])];
    const diff = card?.querySelector('.as-compare-diff');
    return cols.length === 3 && cols.every((c) => c.querySelector('.as-compare-translation').textContent.trim() !== '')
      && diff && !diff.hidden && diff.querySelector('.as-compare-diff-note').textContent !== '';
  }, null, { timeout: 90_000 });
}

for (const [size, viewport] of Object.entries(SIZES)) {
  for (const colorScheme of ['light', 'dark']) {
    test(`axe: the page, each view and card state, ${size}, ${colorScheme}`, async () => {
      const { page, context, errors } = await openPage(env.browser, { viewport, colorScheme, isMobile: size === 'phone' });
      try {
        await gotoReady(page, env.url('index.html#s=Show+the+new+window'));
        const tag = `index.html ${size} ${colorScheme}`;
        await check(`${tag}: heatmap, step view, theory, by hand`, page);
        await page.locator('#app .as-heat-card .as-toolbar button', { hasText: 'Numbers table' }).click();
        await page.locator('#app details.as-models summary').click();
        await page.locator('#app .as-heat-card .as-toolbar button', { hasText: 'Colour per row' }).click();
        await check(`${tag}: numbers table, per-row colour, the models compared`, page);
        await page.locator('#app .as-steps').focus();
        await page.keyboard.press('ArrowRight');
        await page.locator('#app .as-heat-card .as-heatmap-canvas').focus();
        await page.keyboard.press('ArrowDown');
        await check(`${tag}: a step taken, a heatmap cell read`, page);
        await page.locator('#app .as-byhand-card input[type=number]').nth(1).fill('');
        await check(`${tag}: by hand with a bad number`, page);
        await page.locator('#theme-toggle').click();
        await check(`${tag}: the other theme, chosen on the page`, page);
        await page.locator('#app .as-presenter-btn').click();
        await page.waitForSelector('#app .as-root[data-presenter="true"]');
        await check(`${tag}: presenter mode`, page);
        await page.keyboard.press('Escape');
        // The comparison: two catalogue models beside the main one (one without attention), and the difference map.
        await page.goto(env.url('index.html#s=Show+the+new+window&vs=en-fr-dot,en-fr-none'));
        await page.waitForSelector('#app .as-root[data-ready="true"]');
        await comparisonShown(page);
        await check(`${tag}: two models compared, with the difference heatmap`, page);
        await page.goto(env.url('index.html#s=Show+the+new+window&vs=en-fr-dot,en-fr-none&uilang=de'));
        await page.waitForSelector('#app .as-root[data-ready="true"]');
        await comparisonShown(page);
        await check(`${tag}: in German, with the comparison`, page);
        assert.deepEqual(pageErrors(errors), []);
      } finally { await context.close(); }
    });

    test(`axe: the embeds (embed.html views, <align-scope> elements), ${size}, ${colorScheme}`, async () => {
      const { page, context, errors } = await openPage(env.browser, { viewport, colorScheme, isMobile: size === 'phone' });
      try {
        for (const view of ['heatmap', 'steps', 'full']) {
          await gotoReady(page, env.url(`embed.html#s=Open+the+file&view=${view}`));
          await check(`embed.html view=${view} ${size} ${colorScheme}`, page);
        }
        await page.goto(env.url('example-embed.html'));
        await page.waitForFunction(() => [...document.querySelectorAll('align-scope')].every((el) => el.shadowRoot?.querySelector('.as-root[data-ready="true"]')), null, { timeout: 90_000 });
        // The iframe is embed.html, audited above on its own.
        await check(`example-embed.html (two <align-scope>) ${size} ${colorScheme}`, page, { iframes: false });
        assert.deepEqual(pageErrors(errors), []);
      } finally { await context.close(); }
    });
  }
}

/** Tab through the whole page: each stop, where it is and whether its focus shows. */
async function tabStops(page, max = 160) {
  const stops = [];
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const s = await page.evaluate(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      if (!el || el === document.body) return null;
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) || (cs.boxShadow && cs.boxShadow !== 'none');
      const vw = document.documentElement.clientWidth;
      const vh = window.innerHeight;
      // Clipped away by an ancestor (a scroller, a visually hidden box)?
      let clipped = false;
      for (let p = el.parentElement; p; p = p.parentElement) {
        const pcs = getComputedStyle(p);
        if (pcs.overflow !== 'visible' || pcs.clipPath !== 'none' || pcs.clip !== 'auto') {
          const pr = p.getBoundingClientRect();
          if (r.right <= pr.left || r.left >= pr.right || r.bottom <= pr.top || r.top >= pr.bottom || pr.width < 2 || pr.height < 2) { clipped = true; break; }
        }
      }
      const onScreen = r.width >= 2 && r.height >= 2 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh && !clipped && cs.visibility !== 'hidden' && Number(cs.opacity) > 0;
      return { name: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')} “${(el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30)}”`, onScreen, ring, rect: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)], key: el };
    });
    if (!s) break;
    const key = s.name + s.rect.join();
    if (stops.length && stops[0].key === key) break; // around the page once
    stops.push({ ...s, key });
  }
  return stops;
}

for (const [size, viewport] of Object.entries(SIZES)) {
  test(`every Tab stop is on screen and shows its focus (${size})`, async () => {
    const { page, context } = await openPage(env.browser, { viewport, isMobile: size === 'phone' });
    try {
      await gotoReady(page, env.url('index.html#s=Show+the+new+window'));
      // With the table shown too: its scrolling box is then a stop of its own.
      for (const withTable of [false, true]) {
        if (withTable) await page.locator('#app .as-heat-card .as-toolbar button', { hasText: 'Numbers table' }).click();
        const stops = await tabStops(page);
        assert.ok(stops.length > 25, `${stops.length} stops: the page is reachable by Tab`);
        const bad = stops.filter((s) => !s.onScreen || !s.ring);
        assert.deepEqual(bad.map((s) => `${s.name} at ${s.rect}: ${s.onScreen ? '' : 'off screen '}${s.ring ? '' : 'no focus ring'}`), [], `${size}${withTable ? ', table shown' : ''}`);
        const matrixBox = (s) => s.name.startsWith('div.as-table-wrap') && s.name.includes('“Attention weights α');
        if (withTable) assert.ok(stops.some(matrixBox), 'the shown table’s scrolling box is a Tab stop');
        else assert.ok(!stops.some(matrixBox), 'the screen-reader table, off screen, is not a Tab stop');
      }
    } finally { await context.close(); }
  });
}

test('keyboard paths: the heatmap’s cells, the step view, the slider; the screen-reader table announces the step', async () => {
  const { page, context } = await openPage(env.browser);
  try {
    await gotoReady(page, env.url('index.html#s=Show+the+new+window'));
    const live = page.locator('#app .as-table-live');
    assert.equal(await live.getAttribute('aria-live'), 'polite');
    assert.match(await live.textContent(), /^Step 1 of \d+: “.+”$/);
    // The heatmap: focus, arrows read cells, Enter moves the step there.
    await page.locator('#app .as-heat-card .as-heatmap-canvas').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    assert.match(await page.locator('#app .as-heat-card .as-readout').textContent(), /target step 2, source word 2/);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^step 2 \//.test(document.querySelector('#app .as-step-count').textContent));
    await page.waitForFunction(() => /^Step 2 of \d+: /.test(document.querySelector('#app .as-table-live').textContent));
    assert.equal(await page.locator('#app .as-matrix tr[aria-current="step"]').count(), 1);
    // The step view: arrows, End, Home.
    await page.locator('#app .as-steps').focus();
    await page.keyboard.press('End');
    const last = Number((await page.locator('#app .as-step-count').textContent()).match(/\/ (\d+)/)[1]);
    await page.waitForFunction((n) => document.querySelector('#app .as-table-live').textContent.startsWith(`Step ${n} of ${n}: `), last);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /^Step 2 of /.test(document.querySelector('#app .as-table-live').textContent));
    // The slider: the arrow keys change the divisor and re-decode.
    const before = await page.locator('#app .as-slider output').textContent();
    await page.locator('#app .as-slider input[type=range]').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((b) => document.querySelector('#app .as-slider output').textContent !== b, before);
    // In German the announcement is German.
    await page.selectOption('#ui-lang', 'de');
    await page.waitForFunction(() => /^Schritt \d+ von \d+: „/.test(document.querySelector('#app .as-table-live')?.textContent ?? ''));
  } finally { await context.close(); }
});
