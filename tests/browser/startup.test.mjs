// startup.test.mjs - the page's start-up in Chromium, cold (a fresh context):
// every phase it marks (web/lib/startup.js, `alignscope:startup:<phase>`)
// is there, once, in an order that makes sense; nothing is fetched, posted
// to the worker or started twice; the wasm is compiled as it streams; the
// service worker and the model's cache write wait for the first heatmap; the
// model is downloaded by the engine worker (the page posts its URL, never its
// bytes); only the UI language shown has its strings fetched; a
// link's model is the one fetched early; a download that fails before the
// page's own modules are here still speaks the link's language. No timings
// are asserted (they belong to tests/bench/startup.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, countingServer, openPage, WEB, ARTIFACTS, DESKTOP, PHONE } from './support.mjs';
import { assemble } from '../../web/tools/assemble.mjs';
import { STARTUP_PHASES, STARTUP_PREFIX } from '../../web/lib/startup.js';
import { setUiLanguage, t } from '../../web/i18n/all.js';

let server;
let browser;
let catalog;
let def;

before(async () => {
  catalog = assemble({ quiet: true });
  def = catalog.models.find((m) => m.id === catalog.default);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  server = await countingServer({ root: WEB });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// Before any script of the page: what it posts to workers (by message type),
// the workers it makes, when it registers a service worker and when it writes
// to the Cache API (performance.now(), on the page's timeline).
function recordStartup() {
  const seen = { posted: {}, loads: [], fetched: [], workers: 0, swRegisteredAt: null, cachePuts: [] };
  window.__startup = seen;
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (msg, ...rest) {
    const type = msg?.type ?? '?';
    seen.posted[type] = (seen.posted[type] ?? 0) + 1;
    if (type === 'load') seen.loads.push({ url: msg.url ?? null, bytes: msg.bytes?.byteLength ?? null });
    return post.call(this, msg, ...rest);
  };
  // What this thread fetches itself (the engine worker's requests are its own).
  const fetchNative = window.fetch;
  window.fetch = function (input, ...rest) {
    seen.fetched.push(String(input?.url ?? input));
    return fetchNative.call(this, input, ...rest);
  };
  const Native = window.Worker;
  window.Worker = class extends Native { constructor(...a) { super(...a); seen.workers += 1; } };
  const register = navigator.serviceWorker?.register;
  if (register) {
    navigator.serviceWorker.register = function (...a) {
      seen.swRegisteredAt ??= performance.now();
      return register.apply(this, a);
    };
  }
  const put = Cache.prototype.put;
  Cache.prototype.put = function (req, res) {
    seen.cachePuts.push({ url: typeof req === 'string' ? req : req.url, at: performance.now() });
    return put.call(this, req, res);
  };
}

/**
 * Open `hash` cold and wait for the first heatmap: → { page, context, errors,
 * marks: { phase: [{ at, detail }] }, firstHeatmap }. serviceWorkers: 'block'
 * keeps the service worker's install (which fetches every file of the
 * release once the first heatmap is there) out of the server's counts.
 */
async function coldLoad(hash = '', { viewport = DESKTOP, serviceWorkers = 'allow' } = {}) {
  const context = await browser.newContext({ viewport, colorScheme: 'light', locale: 'en-US', reducedMotion: 'reduce', serviceWorkers });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await context.addInitScript(recordStartup);
  server.hits.clear();
  await page.goto(`${server.url}index.html${hash}`);
  await page.waitForFunction((p) => performance.getEntriesByName(`${p}paint`).length > 0, STARTUP_PREFIX, { timeout: 90_000 });
  const got = await page.evaluate((p) => ({
    marks: performance.getEntriesByType('mark').filter((m) => m.name.startsWith(p)).map((m) => ({ phase: m.name.slice(p.length), at: m.startTime, detail: m.detail })),
    firstHeatmap: performance.getEntriesByName('alignscope:first-heatmap').map((m) => m.startTime),
  }), STARTUP_PREFIX);
  const marks = {};
  for (const m of got.marks) (marks[m.phase] ??= []).push(m);
  return { page, context, errors, marks, firstHeatmap: got.firstHeatmap };
}

const at = (marks, phase) => marks[phase][0].at;

test('a cold load marks every phase once, in order: download and compile before load, load before the first translation, before the first paint', async () => {
  const { page, context, errors, marks, firstHeatmap } = await coldLoad();
  try {
    for (const phase of STARTUP_PHASES) assert.equal(marks[phase]?.length, 1, `${phase}: marked ${marks[phase]?.length ?? 0} times`);
    assert.deepEqual(Object.keys(marks).sort(), [...STARTUP_PHASES].sort(), 'no other phase');
    for (const [a, b] of [['catalog', 'download'], ['worker', 'compile'], ['download', 'load'], ['compile', 'load'], ['load', 'translation'], ['translation', 'paint']]) {
      assert.ok(at(marks, a) <= at(marks, b), `${a} (${at(marks, a).toFixed(1)} ms) before ${b} (${at(marks, b).toFixed(1)} ms)`);
    }
    assert.ok(at(marks, 'catalog') > 0);
    // The paint is the page's first-heatmap mark, made once, at the same moment.
    assert.deepEqual(firstHeatmap, [at(marks, 'paint')]);
    // What ran: the default model, all of its bytes, from the network (a cold cache); the build the page names.
    const dl = marks.download[0].detail;
    assert.equal(dl.model, def.id);
    assert.equal(dl.bytes, fs.statSync(path.join(WEB, 'models', def.file)).size);
    assert.equal(dl.from, 'network');
    const compile = marks.compile[0].detail;
    assert.ok(['relaxed', 'simd', 'scalar'].includes(compile.variant), compile.variant);
    assert.equal(await page.locator('#app .as-perf').getAttribute('data-build'), compile.variant);
    // serve.mjs sends application/wasm: the worker compiled it while it streamed in.
    assert.equal(compile.streamed, true, 'WebAssembly.instantiateStreaming');
    assert.equal(marks.load[0].detail.model, def.id);
    assert.ok(marks.translation[0].detail.steps >= 1 && marks.paint[0].detail.rows >= 1);
    assert.deepEqual(errors, []);
    await page.screenshot({ path: path.join(ARTIFACTS, 'startup-first-heatmap-desktop.png') });
  } finally {
    await context.close();
  }
});

test('nothing is done twice at load: one catalogue, one model and one wasm request, one worker, one init, one load, one translation', async () => {
  const { page, context, errors } = await coldLoad('', { serviceWorkers: 'block' });
  try {
    const recorded = await page.evaluate(() => window.__startup);
    const hits = Object.fromEntries(server.hits);
    assert.equal(hits['/models/index.json'], 1, 'the catalogue (preloaded by index.html, then read once)');
    assert.equal(hits[`/models/${def.file}`], 1, 'the model');
    const wasm = Object.keys(hits).filter((p) => p.endsWith('.wasm'));
    assert.equal(wasm.length, 1, `one build of the wasm: ${wasm.join(', ')}`);
    assert.equal(hits[wasm[0]], 1, 'fetched once (compiled while it streamed)');
    assert.equal(hits['/worker.js'], 1);
    // English: no other language's strings are asked for (i18n/core.js loads the one shown).
    for (const lang of ['fr', 'de', 'es']) assert.equal(hits[`/i18n/${lang}.js`] ?? 0, 0, lang);
    // The worker downloads the model: the page posts its URL, never its bytes, and fetches no model itself.
    assert.deepEqual(recorded.loads, [{ url: `${server.url}models/${def.file}`, bytes: null }]);
    assert.deepEqual(recorded.fetched.filter((u) => u.endsWith('.alsc')), [], 'no model fetched on the page’s thread');
    // Until the first heatmap: one engine worker, started once, loaded once, asked to translate once.
    assert.equal(recorded.workers, 1, 'one worker');
    assert.equal(recorded.posted.init, 1, 'one init');
    assert.equal(recorded.posted.load, 1, 'one model load');
    assert.equal(recorded.posted.translate, 1, 'one translation');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the service worker’s install and the model’s cache write wait for the first heatmap', async () => {
  const { page, context, errors, marks } = await coldLoad('#s=Open+the+file');
  try {
    const paint = at(marks, 'paint');
    // The engine worker writes the model (its model store); the page marks when that write began (client.js).
    const stored = () => performance.getEntriesByName('alignscope:model-stored').map((m) => ({ url: m.detail.url, at: m.startTime }));
    await page.waitForFunction(() => window.__startup.swRegisteredAt !== null
      && performance.getEntriesByName('alignscope:model-stored').some((m) => m.detail.url.endsWith('.alsc')), null, { timeout: 30_000 });
    const recorded = await page.evaluate(() => window.__startup);
    assert.ok(recorded.swRegisteredAt >= paint, `service worker registered at ${recorded.swRegisteredAt.toFixed(1)} ms, first heatmap at ${paint.toFixed(1)} ms`);
    const puts = [...recorded.cachePuts, ...await page.evaluate(stored)];
    const put = puts.find((p) => p.url.endsWith(`/models/${def.file}`));
    assert.ok(put, `the model is cached: ${JSON.stringify(puts)}`);
    assert.ok(put.at >= paint, `cache write at ${put.at.toFixed(1)} ms, first heatmap at ${paint.toFixed(1)} ms`);
    // …and it is the bytes the catalogue names.
    const cached = await page.evaluate(async ([cache, url]) => {
      const res = await (await caches.open(cache)).match(url);
      return res ? Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', await res.arrayBuffer())), (b) => b.toString(16).padStart(2, '0')).join('') : null;
    }, [catalog.cache, `${server.url}models/${def.file}`]);
    assert.equal(cached, def.sha256);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a link’s model is the one fetched early, and the only one; on a phone too', async () => {
  const other = catalog.models.find((m) => m.id !== def.id && m.attention !== 'none');
  assert.ok(other, 'the catalogue needs a second model');
  const { page, context, errors, marks } = await coldLoad(`#m=${other.id}&s=Open+the+file`, { viewport: PHONE, serviceWorkers: 'block' });
  try {
    assert.equal(marks.download[0].detail.model, other.id);
    assert.equal(marks.load[0].detail.model, other.id);
    const models = [...server.hits.keys()].filter((p) => p.endsWith('.alsc'));
    assert.deepEqual(models, [`/models/${other.file}`], 'only the linked model is downloaded');
    assert.equal(await page.locator('#app .as-model-card select.as-select').inputValue(), other.id);
    assert.deepEqual(errors, []);
    await page.screenshot({ path: path.join(ARTIFACTS, 'startup-first-heatmap-phone.png') });
  } finally {
    await context.close();
  }
});

test('a page in French asks for the French strings once, and no other language’s', async () => {
  const { page, context, errors } = await coldLoad('#uilang=fr&s=Open+the+file', { serviceWorkers: 'block' });
  try {
    const hits = Object.fromEntries(server.hits);
    assert.equal(hits['/i18n/fr.js'], 1);
    for (const lang of ['de', 'es']) assert.equal(hits[`/i18n/${lang}.js`] ?? 0, 0, lang);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'fr');
    setUiLanguage('fr');
    const label = t('input.cardLabel');
    setUiLanguage('en');
    assert.equal(await page.locator('#app .as-input-card').getAttribute('aria-label'), label, 'the cards are in French from the start');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a model download that fails before the page’s cards exist says so in the link’s language', async () => {
  const { page, context } = await openPage(browser);
  server.fault = (req, res, rel) => {
    if (rel !== `/models/${def.file}`) return false;
    res.writeHead(404, 'Not Found', { 'Content-Type': 'text/plain' }).end('gone');
    return true;
  };
  try {
    await page.goto(`${server.url}index.html#uilang=fr&s=Open+the+file`);
    await page.waitForSelector('#app .as-status.as-error', { timeout: 60_000 });
    const text = await page.locator('#app .as-status').textContent();
    setUiLanguage('fr');
    const expected = t('download.http', { status: '404 Not Found', path: `/models/${def.file}` });
    setUiLanguage('en');
    assert.ok(text.includes(expected), `“${text}” says “${expected}”`);
  } finally {
    server.fault = null;
    await context.close();
  }
});
