// The embeds in Chromium: the example page (two elements, one iframe) with
// the default model, one download of it for all three, its total weight;
// the iframe's height protocol (web/lib/embed-protocol.js, embed-resize.js):
// the frame takes its content's height and never scrolls inside itself,
// messages from other origins and malformed ones are ignored; the compact
// layout puts the view first on a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assemble } from '../../web/tools/assemble.mjs';
import { launch, countingServer, READY } from './support.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB = path.join(REPO, 'web');
const ARTIFACTS = path.join(REPO, 'tests', 'artifacts');
let browser;
let site;   // the alignscope site (web/)
let course; // another origin: the course page around the iframe
let catalog;
let def;

// The course page: the iframe, the resize script from the alignscope site,
// and a second frame of the course's own origin that tries to resize it.
function coursePage(req, res, rel) {
  if (rel === '/course.html') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin:0">
<h1>Course</h1>
<iframe id="as" src="${site.url}embed.html#s=Open+the+file&amp;view=heatmap" title="alignscope" width="100%" height="640" style="border:0;display:block"></iframe>
<iframe id="other" src="/other.html" title="other" width="10" height="10"></iframe>
<script src="${site.url}embed-resize.js"></script></body></html>`);
    return true;
  }
  if (rel === '/other.html') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><p>other</p>');
    return true;
  }
  return false;
}

before(async () => {
  catalog = assemble({ quiet: true });
  def = catalog.models.find((m) => m.id === catalog.default);
  site = await countingServer({ root: WEB });
  course = await countingServer({ root: path.join(WEB, 'tools') }); // serves only what coursePage answers
  course.fault = coursePage;
  browser = await launch();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await site?.close();
  await course?.close();
});

test('the example page: two elements and an iframe, the default model downloaded once, ≤ 8 MB in all', async () => {
  const html = fs.readFileSync(path.join(WEB, 'example-embed.html'), 'utf8');
  assert.doesNotMatch(html, /model=|[#&;]m=/, 'the example names no model: each embed shows the catalogue’s default');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } }); // with the service worker: its install counts in the page's bytes
  try {
    const page = await context.newPage();
    const bytesBefore = site.stats.bytes;
    const hitsBefore = site.hits.get(`/models/${def.file}`) ?? 0;
    await page.goto(`${site.url}example-embed.html`);
    await page.waitForFunction(() => [...document.querySelectorAll('align-scope')].every((el) => el.shadowRoot?.querySelector('.as-root[data-ready="true"]')), null, { timeout: 90_000 });
    await page.frameLocator('iframe.embed-frame').locator(READY).waitFor({ timeout: 90_000 });
    const bytes = site.stats.bytes - bytesBefore;
    const downloads = (site.hits.get(`/models/${def.file}`) ?? 0) - hitsBefore;
    console.log(`# example page: ${bytes} bytes for two elements and one iframe (${downloads} download of ${def.file})`);
    fs.writeFileSync(path.join(ARTIFACTS, 'embed-weight.json'), `${JSON.stringify({ bytes, modelDownloads: downloads, model: def.id }, null, 2)}\n`);
    assert.equal(downloads, 1, 'one download of the model for the three widgets');
    assert.ok(bytes <= 8e6, `${bytes} bytes ≤ 8 MB`);
  } finally {
    await context.close();
  }
});

// A steps-only embed has no heatmap: its start ends with its first translation. Its worker
// holds the model's Web Lock until the download is in the cache, and the cache write waits
// for that end; had it waited for a heatmap, every other widget of the origin would wait
// on the lock for ever (the example page hung when its steps element won the lock).
test('a steps-only embed that downloaded the model lets another widget of the origin load it', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  try {
    const steps = await context.newPage();
    await steps.goto(`${site.url}embed.html#s=Open+the+file&view=steps`);
    await steps.locator(READY).waitFor({ timeout: 60_000 });
    await steps.locator('.as-steps-card').waitFor();
    const heat = await context.newPage(); // the same origin: the same cache and locks
    await heat.goto(`${site.url}embed.html#s=Show+the+new+window&view=heatmap`);
    await heat.locator(READY).waitFor({ timeout: 30_000 });
    const cached = await heat.evaluate(async (file) => (await caches.keys()).length > 0
      && !!(await caches.match(new URL(`models/${file}`, location.href).href)), def.file);
    assert.ok(cached, 'the steps embed’s download was written to the cache');
  } finally {
    await context.close();
  }
});

/** The iframe's height, its document's height, and whether it can scroll inside. */
const frameBox = (page) => page.evaluate(() => {
  const f = document.getElementById('as');
  return { frame: Math.round(f.getBoundingClientRect().height) };
});
async function inner(page) {
  const frame = page.frames().find((f) => f.url().includes('/embed.html'));
  return frame.evaluate(() => ({ content: Math.ceil(document.documentElement.getBoundingClientRect().height), scroll: document.documentElement.scrollHeight, view: innerHeight }));
}
async function settled(page) {
  let last = null;
  for (let i = 0; i < 50; i++) {
    const now = { ...(await frameBox(page)), ...(await inner(page)) };
    if (last && JSON.stringify(now) === JSON.stringify(last) && Math.abs(now.frame - now.content) <= 1) return now;
    last = now;
    await page.waitForTimeout(150);
  }
  return last;
}

test('the iframe takes its content’s height (desktop and phone): it never scrolls inside itself', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    await page.goto(`${course.url}course.html`);
    await page.frameLocator('#as').locator(READY).waitFor({ timeout: 90_000 });
    const desktop = await settled(page);
    assert.ok(Math.abs(desktop.frame - desktop.content) <= 1, `iframe ${desktop.frame} px, content ${desktop.content} px`);
    assert.ok(desktop.scroll <= desktop.view, `no scrolling inside: ${desktop.scroll} ≤ ${desktop.view}`);
    await page.setViewportSize({ width: 360, height: 640 });
    const phone = await settled(page);
    assert.ok(Math.abs(phone.frame - phone.content) <= 1, `phone: iframe ${phone.frame} px, content ${phone.content} px`);
    assert.ok(phone.scroll <= phone.view, `phone: no scrolling inside: ${phone.scroll} ≤ ${phone.view}`);
    assert.notEqual(phone.frame, 640, 'the height came from the frame, not the attribute');
    // The compact layout: the heatmap first, the sentence after it.
    const frame = page.frames().find((f) => f.url().includes('/embed.html'));
    const tops = await frame.evaluate(() => ['heat', 'input'].map((a) => document.querySelector(`[data-area="${a}"]`).getBoundingClientRect().top));
    assert.ok(tops[0] < tops[1], `on a phone the heatmap (top ${tops[0]}) comes before the sentence (${tops[1]})`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'embed-iframe-phone.png'), fullPage: true });
  } finally {
    await context.close();
  }
});

test('height messages from another origin, or malformed ones, are ignored', async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 }, serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    await page.goto(`${course.url}course.html`);
    await page.frameLocator('#as').locator(READY).waitFor({ timeout: 90_000 });
    const before = (await settled(page)).frame;
    const siteOrigin = new URL(site.url).origin;
    const good = { type: 'alignscope:height', version: 1, origin: siteOrigin, height: 123 };
    // From the course's own origin (its window and its other frame): the shape is right, the origin is not.
    await page.evaluate((m) => window.postMessage(m, '*'), good);
    await page.frames().find((f) => f.url().endsWith('/other.html')).evaluate((m) => parent.postMessage(m, '*'), good);
    // From the alignscope frame itself, malformed.
    const embed = page.frames().find((f) => f.url().includes('/embed.html'));
    const bad = [null, 'height:123', { ...good, version: 2 }, { ...good, type: 'other' }, { ...good, height: '123' }, { ...good, height: 1e9 },
      { ...good, height: -5 }, { ...good, height: 12.5 }, { ...good, origin: 'https://elsewhere.example' }, { type: 'alignscope:height', version: 1, height: 123 }];
    for (const m of bad) await embed.evaluate((msg) => parent.postMessage(msg, '*'), m);
    await page.waitForTimeout(400);
    assert.equal((await frameBox(page)).frame, before, 'the iframe kept its height');
    // The same message, well formed, from the frame: taken (so the test can fail).
    await embed.evaluate((m) => parent.postMessage(m, '*'), good);
    await page.waitForFunction(() => Math.round(document.getElementById('as').getBoundingClientRect().height) === 123);
  } finally {
    await context.close();
  }
});
