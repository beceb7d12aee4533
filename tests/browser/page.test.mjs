// Browser tests of the page, in Debian's Chromium driven by playwright-core.
// They serve web/ on an ephemeral port, build the single-file page into a
// temporary folder, and compare what the page shows against engine.js run
// here in Node on the same model and sentence. The server sends the page's
// Content-Security-Policy as an HTTP header on every response (not only the
// <meta> tag), and serves /models/ from a temporary test catalogue: the real
// models of models/index.json plus the toy models of build/test-models (one
// per attention kind, including the attention-free baseline), so that the
// committed catalogue stays real-models-only. Measurements (page weight,
// load → first heatmap, slider re-decode time) are printed and written to
// tests/artifacts/metrics.json; screenshots go to tests/artifacts/.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../web/tools/serve.mjs';
import { assemble } from '../../web/tools/assemble.mjs';
import { buildDist } from '../../web/tools/dist.mjs';
import { createEngine } from '../../web/engine.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB = path.join(REPO, 'web');
const ARTIFACTS = path.join(REPO, 'tests', 'artifacts');
const CHROMIUM = '/usr/bin/chromium';
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];
const READY = '#app .as-root[data-ready="true"]';
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; worker-src 'self' blob:; connect-src 'self' data: blob:";
const TOY_MODELS = [['toy-dot', 'dot'], ['toy-general', 'general'], ['toy-scaled-dot', 'scaled_dot'], ['toy-none', 'none']];
const metrics = {};
// Set by a test to make the server misbehave on one path: { path, mode }.
let fault = null;

let server;
let browser;
let standalone;
let tmpDir;
let catalog;
let nodeEngine;
let nodeInfo;
let testCatalog;
let modelsDir;
let modelBytes;

/** The test catalogue: the real models plus one toy model per attention kind. */
function makeTestCatalogue(dir, real) {
  fs.mkdirSync(dir, { recursive: true });
  const models = [];
  for (const m of real.models) {
    fs.symlinkSync(path.join(WEB, 'models', m.file), path.join(dir, m.file));
    models.push(m);
  }
  for (const [id, kind] of TOY_MODELS) {
    const src = path.join(REPO, 'build', 'test-models', `${kind}.alsc`);
    assert.ok(fs.existsSync(src), `${src} is missing: run ./build.sh models (the browser tests need the toy models)`);
    fs.copyFileSync(src, path.join(dir, `${id}.alsc`));
    models.push({ id, file: `${id}.alsc`, label: `Toy model (${kind} attention)`, source: 'en', target: 'fr', attention: kind, bytes: fs.statSync(src).size });
  }
  const index = { default: real.default, models };
  fs.writeFileSync(path.join(dir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  return index;
}

/** Misbehaviours of a model download, injected by the server itself. */
function misbehave(req, res, rel) {
  if (!fault || rel !== fault.path) return false;
  const body = fs.readFileSync(path.join(modelsDir, path.basename(rel)));
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length, 'Cache-Control': 'no-store', 'Content-Security-Policy': CSP });
  // Half a megabyte every 40 ms; then, after `upTo` bytes, break the
  // connection ('close') or keep it open and send nothing more ('stall').
  const { upTo, mode } = fault;
  let off = 0;
  const tick = () => {
    if (res.destroyed) return;
    if (off >= upTo) {
      if (mode === 'close') res.destroy();
      return;
    }
    const end = Math.min(upTo, off + 512 * 1024);
    res.write(body.subarray(off, end));
    off = end;
    setTimeout(tick, 40);
  };
  tick();
  return true;
}

before(async () => {
  catalog = assemble({ quiet: true });
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-dist-'));
  standalone = buildDist({ out: path.join(tmpDir, 'dist'), quiet: true }).standalone;
  modelsDir = path.join(tmpDir, 'models');
  testCatalog = makeTestCatalogue(modelsDir, catalog);
  server = await startServer({ root: WEB, port: 0, mounts: { '/models/': modelsDir }, headers: () => ({ 'Content-Security-Policy': CSP }), intercept: misbehave });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  nodeEngine = await createEngine({ variant: 'scalar' });
  const def = catalog.models.find((m) => m.id === catalog.default);
  modelBytes = fs.readFileSync(path.join(WEB, 'models', def.file));
  nodeInfo = nodeEngine.load(new Uint8Array(modelBytes));
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  nodeEngine?.dispose();
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
  if (Object.keys(metrics).length) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'metrics.json'), `${JSON.stringify(metrics, null, 2)}\n`);
    console.log(`# page metrics: ${JSON.stringify(metrics)}`);
  }
});

/** A fresh page that records console errors, uncaught exceptions and CSP violations. */
async function openPage({ viewport = { width: 1280, height: 800 }, colorScheme = 'light', reducedMotion = 'reduce' } = {}) {
  const context = await browser.newContext({ viewport, colorScheme, reducedMotion, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error' || /Refused to|Content Security Policy/i.test(m.text())) errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await context.addInitScript(() => {
    globalThis.__cspViolations = [];
    addEventListener('securitypolicyviolation', (e) => globalThis.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`), true);
  });
  return { page, errors, context };
}

/** The file the test server sent for a URL path. */
const servedFile = (p) => (p.startsWith('/models/') ? path.join(modelsDir, p.slice('/models/'.length)) : path.join(WEB, p));

/** Wait for the page's error status and return its text. */
async function failureText(page) {
  await page.waitForSelector('#app .as-status.as-error', { timeout: 30_000 });
  return page.locator('#app .as-status').textContent();
}

async function decodeCount(page, scope = '#app') {
  return Number(await page.locator(`${scope} .as-perf`).getAttribute('data-count')) || 0;
}

/** Wait until more decodes than `n` have been drawn. */
async function waitForDecode(page, n, scope = '#app') {
  const perf = page.locator(`${scope} .as-perf`); // locators see into shadow roots
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if ((Number(await perf.getAttribute('data-count')) || 0) > n) return;
    await page.waitForTimeout(20);
  }
  throw new Error(`no new decode in ${scope} within 20 s`);
}

/** The matrix the page shows, through its own "JSON" export button. */
async function exportedMatrix(page, scope = '#app') {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`${scope} button[data-export="json"]`).click()]);
  return JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
}

function assertRowsSumToOne(alpha) {
  assert.ok(alpha.length > 0, 'the matrix has rows');
  alpha.forEach((row, t) => {
    const sum = row.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) <= 1e-3, `row ${t} sums to ${sum}`);
  });
}

const meanEntropy = (m) => m.rowEntropyBits.reduce((a, b) => a + b, 0) / m.rowEntropyBits.length;

describe('alignscope page in Chromium', { timeout: 170_000 }, () => {
  test('loads with no console errors; page weight and time to first heatmap', async () => {
    const { page, errors, context } = await openPage();
    const bytesBefore = server.stats.bytes;
    const paths = new Set();
    page.on('request', (r) => paths.add(new URL(r.url()).pathname));
    await page.goto(server.url);
    await page.waitForSelector(READY);
    const firstHeatmap = await page.evaluate(() => performance.getEntriesByName('alignscope:first-heatmap')[0]?.startTime);
    assert.ok(firstHeatmap > 0, 'first-heatmap mark');
    await page.waitForTimeout(200);
    const bytes = server.stats.bytes - bytesBefore;
    let gzipBytes = 0;
    for (const p of server.stats.byPath.keys()) gzipBytes += zlib.gzipSync(fs.readFileSync(servedFile(p))).length;
    metrics.defaultPageBytes = bytes;
    metrics.defaultPageBytesGzip = gzipBytes;
    metrics.defaultPageRequests = server.stats.byPath.size;
    metrics.navigationToFirstHeatmapMs = Math.round(firstHeatmap);
    metrics.largestFiles = [...server.stats.byPath].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([p, b]) => `${p} ${b}`);
    console.log(`# default page: ${bytes} bytes in ${server.stats.byPath.size} files (${gzipBytes} gzipped); navigation → first heatmap ${firstHeatmap.toFixed(0)} ms`);
    assert.ok(await page.locator('#app .as-translation').textContent(), 'a translation is shown');
    assert.ok(await page.locator('#app canvas.as-heatmap-canvas').isVisible());
    for (const p of paths) assert.ok(!p.includes('//'), `no other hosts: ${p}`);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('typing a sentence: heatmap rows sum to 1 and match engine.js in Node', async () => {
    const { page, errors, context } = await openPage();
    await page.goto(server.url);
    await page.waitForSelector(READY);
    const n = await decodeCount(page);
    const sentence = 'Delete the selected document and print the page!';
    await page.locator('#app textarea').fill('');
    await page.locator('#app textarea').pressSequentially(sentence, { delay: 15 });
    await page.waitForFunction((s) => document.querySelector('#app .as-hint, #app textarea')?.value === s, sentence);
    await waitForDecode(page, n);
    await page.waitForFunction(() => document.querySelector('#app .as-matrix caption'));
    const m = await exportedMatrix(page);
    assert.equal(m.sentence, sentence);
    assertRowsSumToOne(m.alpha);
    const ref = nodeEngine.translate(sentence, { scoreScale: m.scoreScale, topK: 5 });
    assert.deepEqual(m.source, ref.source.map((w) => w.text), 'columns are the user’s own words');
    assert.deepEqual(m.target, ref.target.map((w) => (w.isEnd ? '</s>' : w.text)));
    assert.equal(m.translation, ref.translation);
    for (let t = 0; t < ref.T; t++) for (let j = 0; j < ref.S; j++) {
      assert.ok(Math.abs(m.alpha[t][j] - ref.alpha[t * ref.S + j]) <= 1e-5, `α[${t}][${j}]`);
    }
    // The screen-reader table shows the same numbers (3 decimals).
    const firstRow = await page.locator('#app .as-matrix tbody tr').first().locator('td').allTextContents();
    for (let j = 0; j < ref.S; j++) assert.equal(firstRow[j], ref.alpha[j].toFixed(3));
    assert.equal(await page.locator('#app .as-matrix th[scope="col"]').count(), ref.S + 2);
    assert.equal(await page.locator('#app .as-translation').textContent(), ref.translation);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('√d slider: a bigger divisor gives higher row entropy; re-decode time per event', async () => {
    const { page, errors, context } = await openPage();
    await page.goto(`${server.url}#s=Print+the+new+document`);
    await page.waitForSelector(READY);
    const slider = page.locator('#app .as-slider input[type="range"]');
    const entropyAt = async (key) => {
      const n = await decodeCount(page);
      await slider.focus();
      await page.keyboard.press(key);
      await waitForDecode(page, n);
      return meanEntropy(await exportedMatrix(page));
    };
    const trained = meanEntropy(await exportedMatrix(page));
    const sharp = await entropyAt('Home');  // 1/16 of the trained divisor
    const flat = await entropyAt('End');    // 64 × the trained divisor
    assert.ok(sharp < trained && trained < flat, `entropy should grow with the divisor: ${sharp} < ${trained} < ${flat}`);
    assert.match(await page.locator('#app .as-slider output').textContent(), /^64(\.0+)?$|^64$/);
    await page.locator('#app .as-slider button').click(); // reset to trained
    await page.waitForFunction(() => document.querySelector('#app .as-slider input').value === '0');

    // One event at a time: the worker round trip and event → redrawn page.
    const timing = await page.evaluate(async () => {
      const input = document.querySelector('#app .as-slider input[type="range"]');
      const perf = document.querySelector('#app .as-perf');
      const rt = []; const e2e = [];
      for (let i = 0; i < 30; i++) {
        const before = Number(perf.dataset.count);
        const t0 = performance.now();
        input.value = String(-4 + (i % 20) * 0.5);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => { const mo = new MutationObserver(() => { if (Number(perf.dataset.count) > before) { mo.disconnect(); r(); } }); mo.observe(perf, { attributes: true }); });
        e2e.push(performance.now() - t0);
        rt.push(Number(perf.dataset.roundTripMs));
      }
      // A burst of 60 events in one task: coalesced, the last value wins.
      const before = Number(perf.dataset.count);
      for (let i = 0; i < 60; i++) { input.value = String(-4 + i * 0.1); input.dispatchEvent(new Event('input', { bubbles: true })); }
      await new Promise((r) => setTimeout(r, 600));
      const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
      return { roundTripMedian: median(rt), roundTripMax: Math.max(...rt), eventToRedrawMedian: median(e2e), burstDecodes: Number(perf.dataset.count) - before, finalValue: input.value };
    });
    metrics.sliderRoundTripMedianMs = Number(timing.roundTripMedian.toFixed(2));
    metrics.sliderRoundTripMaxMs = Number(timing.roundTripMax.toFixed(2));
    metrics.sliderEventToRedrawMedianMs = Number(timing.eventToRedrawMedian.toFixed(2));
    metrics.sliderBurst60EventsDecodes = timing.burstDecodes;
    console.log(`# slider re-decode: worker round trip median ${timing.roundTripMedian.toFixed(1)} ms (max ${timing.roundTripMax.toFixed(1)}), event → redrawn ${timing.eventToRedrawMedian.toFixed(1)} ms; 60-event burst → ${timing.burstDecodes} decodes`);
    assert.ok(timing.burstDecodes >= 1 && timing.burstDecodes < 60, 'bursts are coalesced');
    const last = await exportedMatrix(page);
    const expectDivisor = 1 / nodeInfo.trainedScoreScale * 2 ** Number(timing.finalValue);
    assert.ok(Math.abs(last.divisor / expectDivisor - 1) < 1e-6, 'the picture ends on the latest slider value');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('step keys move the marked heatmap row', async () => {
    const { page, errors, context } = await openPage();
    await page.goto(`${server.url}#s=Show+the+new+window&step=0`);
    await page.waitForSelector(READY);
    const marked = async () => ({
      canvas: Number(await page.locator('#app canvas.as-heatmap-canvas').getAttribute('data-marked-row')),
      table: Number(await page.locator('#app .as-matrix tr[aria-current="step"]').getAttribute('data-row')),
    });
    const T = await page.locator('#app .as-matrix tbody tr').count();
    assert.ok(T >= 2, 'a translation with at least two steps');
    assert.deepEqual(await marked(), { canvas: 0, table: 0 });
    await page.locator('#app .as-steps').focus();
    await page.keyboard.press('ArrowRight');
    assert.deepEqual(await marked(), { canvas: 1, table: 1 });
    await page.keyboard.press('End');
    assert.deepEqual(await marked(), { canvas: T - 1, table: T - 1 });
    await page.keyboard.press('ArrowLeft');
    assert.deepEqual(await marked(), { canvas: T - 2, table: T - 2 });
    assert.match(await page.locator('#app .as-step-count').textContent(), new RegExp(`step ${T - 1} / ${T}`));
    await page.keyboard.press('Home');
    assert.deepEqual(await marked(), { canvas: 0, table: 0 });
    await page.waitForFunction(() => /step=0/.test(location.hash));
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a copied link restores sentence, model, scale and step', async () => {
    const { page, errors, context } = await openPage();
    await page.goto(server.url);
    await page.waitForSelector(READY);
    let n = await decodeCount(page);
    await page.locator('#app textarea').fill('Close the current dialog');
    await waitForDecode(page, n);
    n = await decodeCount(page);
    await page.locator('#app .as-slider input').focus();
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowRight');
    await page.waitForFunction((k) => Number(document.querySelector('#app .as-perf').dataset.count) > k && !document.querySelector('#app .as-perf').closest('.as-root').querySelector('.as-status:not([hidden])'), n);
    await page.locator('#app .as-steps').focus();
    await page.keyboard.press('ArrowRight');
    await page.locator('#app .as-toolbar button', { hasText: 'Copy link' }).click();
    const link = await page.locator('#app input.as-link').inputValue();
    assert.match(link, /#s=Close\+the\+current\+dialog&m=[\w-]+&scale=[0-9.]+&step=1/);
    await page.waitForTimeout(300);
    const snapshot = async (p) => ({
      sentence: await p.locator('#app textarea').inputValue(),
      divisor: await p.locator('#app .as-slider output').textContent(),
      step: await p.locator('#app .as-step-count').textContent(),
      translation: await p.locator('#app .as-translation').textContent(),
      table: await p.locator('#app .as-matrix').textContent(),
    });
    const sent = await snapshot(page);
    const other = await openPage();
    await other.page.goto(link);
    await other.page.waitForSelector(READY);
    assert.deepEqual(await snapshot(other.page), sent);
    assert.deepEqual([...errors, ...other.errors], []);
    await other.context.close();
    await context.close();
  });

  test('a link carrying markup runs no script and inserts no element', async () => {
    const { page, errors, context } = await openPage();
    const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    await page.goto(`${server.url}#s=${encodeURIComponent(evil)}&m=${encodeURIComponent('"><img src=x onerror=alert(1)>')}&scale=${encodeURIComponent('1;alert(1)')}&step=1e9&x=<b>`);
    await page.waitForSelector(READY);
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('#app script, #app b').count(), 0);
    assert.equal(await page.locator('#app textarea').inputValue(), evil);
    const m = await exportedMatrix(page);
    assert.ok(m.source.includes('<') && m.source.includes('img'), 'the markup is shown as words');
    assert.equal(m.divisor, 1 / nodeInfo.trainedScoreScale, 'an invalid scale is ignored');
    assert.ok(errors.every((e) => !/Content Security Policy/i.test(e)), 'nothing even tried to run');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a failed model load says so and Retry recovers', async () => {
    const { page, context } = await openPage();
    await page.route('**/models/*.alsc', (r) => r.fulfill({ status: 404, body: 'gone' }));
    await page.goto(server.url);
    await page.waitForSelector('#app .as-status.as-error');
    assert.match(await page.locator('#app .as-status').textContent(), /Could not load the model/);
    const retry = page.locator('#app .as-status button', { hasText: 'Retry' });
    assert.ok(await retry.isVisible());
    await page.unroute('**/models/*.alsc');
    await retry.click();
    await page.waitForSelector(READY);
    assert.ok(await page.locator('#app .as-status').isHidden());
    await context.close();
  });

  test('a model without attention shows that there is no alignment', async () => {
    const none = testCatalog.models.find((m) => m.attention === 'none');
    assert.ok(none, 'the test catalogue has the attention-free toy model');
    const { page, errors, context } = await openPage();
    await page.goto(`${server.url}#m=${none.id}`);
    await page.waitForFunction(() => document.querySelector('#app .as-translation')?.textContent.trim());
    await page.waitForSelector('#app .as-empty:not([hidden])');
    assert.match(await page.locator('#app .as-empty').textContent(), /no attention/i);
    assert.ok(await page.locator('#app .as-slider input').isDisabled());
    assert.ok(await page.locator('#app .as-kinds + p, #app .as-note', { hasText: 'no attention' }).first().isVisible());
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('under the CSP sent as an HTTP header nothing is refused', async () => {
    const { page, errors, context } = await openPage();
    const res = await page.goto(`${server.url}#s=Open+the+selected+file`);
    assert.equal(res.headers()['content-security-policy'], CSP, 'the page itself comes with the header');
    await page.waitForSelector(READY);
    // Exercise what could trip a policy: the worker and its WebAssembly, the
    // exports (blob: and data: URLs), inline style properties, the theme toggle.
    await exportedMatrix(page);
    for (const kind of ['png', 'svg', 'csv']) {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`#app button[data-export="${kind}"]`).click()]);
      assert.ok(fs.statSync(await dl.path()).size > 100, `${kind} export`);
    }
    await page.locator('#theme-toggle').click();
    await page.locator('#app .as-toolbar button', { hasText: 'Numbers table' }).click();
    const n = await decodeCount(page);
    await page.locator('#app .as-slider input').focus();
    await page.keyboard.press('ArrowRight');
    await waitForDecode(page, n);
    assert.ok(page.workers().length >= 1, 'the engine runs in a worker');
    assert.ok(await page.evaluate(async () => (await fetch('worker.js')).headers.get('content-security-policy')), 'the worker script comes with the header too');
    assert.deepEqual(await page.evaluate(() => globalThis.__cspViolations), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a download whose body is short but consistent: the engine’s size check says the file is damaged; Retry', async () => {
    const { page, context } = await openPage();
    await page.route('**/models/en-fr.alsc', (r) => r.fulfill({ status: 200, contentType: 'application/octet-stream', body: modelBytes.subarray(0, 3_000_000) }));
    await page.goto(server.url);
    const text = await failureText(page);
    assert.match(text, /Could not load the model “.+”: the downloaded file is damaged or incomplete \(the file length does not match its header/);
    assert.match(text, /Press Retry/);
    await page.unroute('**/models/en-fr.alsc');
    await page.locator('#app .as-status button', { hasText: 'Retry' }).click();
    await page.waitForSelector(READY);
    assert.ok(await page.locator('#app .as-status').isHidden());
    await context.close();
  });

  test('a connection that breaks mid-download: progress in MB, then a clear message and Retry', async () => {
    const { page, errors, context } = await openPage();
    fault = { path: '/models/en-fr.alsc', mode: 'close', upTo: 4_000_000 };
    try {
      await page.goto(server.url);
      // Real progress, with bytes: "Downloading the model …: 2.1 MB of 11.9 MB (17 %)…"
      const mb = (modelBytes.length / 1e6).toFixed(1);
      await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#app .as-status-text')?.textContent ?? ''), `Downloading the model .+: [1-9][0-9.]* MB of ${mb.replace('.', '\\.')} MB \\([0-9]+ %\\)`);
      const bar = await page.locator('#app progress.as-progress').evaluate((p) => ({ value: p.value, max: p.max, shown: !p.hidden }));
      assert.ok(bar.shown && bar.value > 0 && bar.value < bar.max && bar.max === modelBytes.length, JSON.stringify(bar));
      const text = await failureText(page);
      assert.match(text, /Could not load the model “.+”: the connection broke after [0-9.]+ MB of [0-9.]+ MB|the download was cut short/);
      assert.match(text, /Press Retry/);
    } finally {
      fault = null;
    }
    await page.locator('#app .as-status button', { hasText: 'Retry' }).click();
    await page.waitForSelector(READY);
    // The broken transfer itself is logged by the browser as a failed resource; nothing else.
    assert.deepEqual(errors.filter((e) => !/Failed to load resource|ERR_|network error/i.test(e)), []);
    await context.close();
  });

  test('offline: the model request fails at once, the page says so, and Retry recovers', async () => {
    const { page, context } = await openPage();
    await page.route('**/models/en-fr.alsc', (r) => r.abort('internetdisconnected'));
    await page.goto(server.url);
    const text = await failureText(page);
    assert.match(text, /Could not load the model “.+”: the network request failed .*you may be offline/);
    await page.unroute('**/models/en-fr.alsc');
    await page.locator('#app .as-status button', { hasText: 'Retry' }).click();
    await page.waitForSelector(READY);
    await context.close();
  });

  test('a model URL or an unknown id in a link is refused visibly; only the site’s own models load', async () => {
    const { page, errors, context } = await openPage();
    const requested = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(`${server.url}#s=Open+the+file&m=${encodeURIComponent('https://evil.example/m.alsc')}`);
    await page.waitForSelector(READY);
    assert.match(await page.locator('#app .as-notice').textContent(), /The model “https:\/\/evil\.example\/m\.alsc” was not loaded: alignscope loads models only by their id/);
    assert.equal(await page.locator('#app select').inputValue(), catalog.default);
    assert.ok(requested.every((u) => u.startsWith(server.url)), 'no request left the site');
    await page.evaluate(() => { location.hash = '#s=Open+the+file&m=no-such-model'; });
    await page.waitForFunction(() => /There is no model “no-such-model”/.test(document.querySelector('#app .as-notice')?.textContent));
    assert.equal(await page.locator('#app select').inputValue(), catalog.default);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('bad input: a 10,000-character paste, punctuation only, emoji, RTL, combining marks, NUL', async () => {
    const { page, errors, context } = await openPage();
    await page.goto(`${server.url}#s=Open+the+file`);
    await page.waitForSelector(READY);
    const box = page.locator('#app textarea');
    // A paste of 10,000 characters: cut at 2000, said so, and the model's token limit explained.
    await box.focus();
    await page.keyboard.press('Control+A');
    const t0 = Date.now();
    await page.keyboard.insertText('word '.repeat(2000));
    await page.waitForFunction(() => /more than 100 source tokens/.test(document.querySelector('#app .as-empty:not([hidden])')?.textContent ?? ''));
    assert.ok(Date.now() - t0 < 8000, 'the message comes quickly');
    assert.equal((await box.inputValue()).length, 2000);
    assert.match(await page.locator('#app .as-notice').textContent(), /cut at 2000 characters.*at most 100 words and punctuation marks/);
    assert.match(await page.locator('#app .as-hint, #app p[id^="hint"]').first().textContent(), /2000 \/ 2000 characters/);
    const t1 = Date.now();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    assert.ok(Date.now() - t1 < 1000, 'the page still paints');
    // Odd but valid text is translated; its own words are the columns.
    const cases = [
      ['!!! ??? ...', ['!', '?', '.']],
      ['😀 Open the file 🎉', ['😀', '🎉']],
      ['مرحبا Open العالم', ['مرحبا', 'العالم']],
      ['e\u0301\u0301 cafe\u0301 menu', ['cafe\u0301']],
      ['Open\u0000the file', ['the', 'file']],
    ];
    for (const [text, words] of cases) {
      const n = await decodeCount(page);
      await box.evaluate((el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, text);
      await waitForDecode(page, n);
      const cols = await page.locator('#app .as-matrix th[scope="col"]').allTextContents();
      for (const w of words) assert.ok(cols.includes(w), `${JSON.stringify(text)}: column ${JSON.stringify(w)} in ${JSON.stringify(cols)}`);
      assert.ok((await page.locator('#app .as-translation').textContent()).length > 0);
      assert.ok(await page.locator('#app canvas.as-heatmap-canvas').isVisible());
    }
    assert.ok(await page.locator('#app .as-notice [data-topic="cut"]').count() === 0, 'the cut notice goes once the text is short again');
    // Nothing readable at all: a message, not a broken page.
    await box.evaluate((el) => { el.value = '\u0000\u200b'; el.dispatchEvent(new Event('input', { bubbles: true })); });
    await page.waitForFunction(() => /no words the model can read/.test(document.querySelector('#app .as-empty:not([hidden])')?.textContent ?? ''));
    assert.equal(await page.locator('#app .as-translation').textContent(), '—');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('two <align-scope> elements and an iframe on one page do not interfere', async () => {
    const { page, errors, context } = await openPage();
    await page.goto(`${server.url}example-embed.html`);
    await page.waitForSelector('#first .as-root[data-ready="true"]');
    await page.waitForSelector('#second .as-root[data-ready="true"]');
    const first = await page.locator('#first .as-translation').textContent();
    const second = await page.locator('#second .as-steps .as-step-count').textContent();
    assert.match(second, /^step 2 \//, 'the step attribute is applied');
    assert.notEqual(await page.locator('#first textarea').inputValue(), await page.locator('#second textarea').inputValue());
    assert.ok(await page.locator('#first .as-heatmap-canvas').isVisible());
    assert.equal(await page.locator('#first .as-steps-card').count(), 0, 'view="heatmap" has no step view');
    await page.locator('#second .as-steps').focus();
    await page.keyboard.press('ArrowLeft');
    assert.match(await page.locator('#second .as-step-count').textContent(), /^step 1 \//);
    assert.equal(await page.locator('#first .as-translation').textContent(), first);
    // Each widget lives in its own shadow root with its own stylesheet.
    const scoped = await page.evaluate(() => ['first', 'second'].map((id) => {
      const root = document.getElementById(id).shadowRoot;
      return { link: !!root?.querySelector('link[rel="stylesheet"][href$="alignscope.css"]'), cards: root?.querySelectorAll('.as-card').length ?? 0 };
    }).concat([{ lightDomCards: document.querySelectorAll('.as-card').length }]));
    assert.deepEqual(scoped, [{ link: true, cards: 3 }, { link: true, cards: 2 }, { lightDomCards: 0 }]);
    // Attribute changes update the element.
    const n = await decodeCount(page, '#first');
    await page.evaluate(() => document.getElementById('first').setAttribute('sentence', 'Open the list'));
    await waitForDecode(page, n, '#first');
    assert.equal(await page.locator('#first textarea').inputValue(), 'Open the list');
    // A model attribute that is a URL is refused, visibly, and nothing is fetched from it.
    await page.evaluate(() => document.getElementById('first').setAttribute('model', 'https://evil.example/x.alsc'));
    await page.locator('#first .as-notice', { hasText: 'was not loaded: alignscope loads models only by their id' }).waitFor();
    const frame = page.frameLocator('iframe.embed-frame');
    await frame.locator('#app .as-root[data-ready="true"]').waitFor();
    assert.ok(page.workers().length >= 2, `each element has its own worker (${page.workers().length})`);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the single-file build works from file:// with no console errors', async () => {
    const { page, errors, context } = await openPage();
    await page.goto(`${pathToFileURL(standalone).href}#s=Open+the+selected+file&step=1`);
    await page.waitForSelector(READY);
    const m = await exportedMatrix(page);
    assertRowsSumToOne(m.alpha);
    const ref = nodeEngine.translate('Open the selected file', { scoreScale: m.scoreScale });
    assert.equal(m.translation, ref.translation);
    assert.equal(Number(await page.locator('#app canvas.as-heatmap-canvas').getAttribute('data-marked-row')), 1);
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    assert.ok(!csp.includes('unsafe-inline') && !csp.includes("'unsafe-eval'"), csp);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('screenshots: desktop and phone, light and dark', async () => {
    const sizes = [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]];
    for (const [name, viewport] of sizes) {
      for (const scheme of ['light', 'dark']) {
        const { page, errors, context } = await openPage({ viewport, colorScheme: scheme });
        await page.goto(`${server.url}#s=Print+the+selected+page+and+close+the+window&step=1`);
        await page.waitForSelector(READY);
        await page.waitForTimeout(150);
        const file = path.join(ARTIFACTS, `page-${name}-${scheme}.png`);
        await page.screenshot({ path: file, fullPage: name === 'desktop' });
        assert.ok(fs.statSync(file).size > 10_000);
        // Nothing wider than the screen except inside scroll boxes.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${name}/${scheme}: page scrolls sideways by ${overflow}px`);
        assert.deepEqual(errors, []);
        await context.close();
      }
    }
    // A long sentence (30 words, unknown ones among them) scrolls inside its
    // box; the word labels stay in view, and the step view marks unknown words.
    const long = 'When you open a new window from the zorglub menu, the program asks whether you want to save the changes to the current document before it closes the old one';
    for (const [name, viewport, scheme] of [['desktop', sizes[0][1], 'light'], ['phone', sizes[1][1], 'dark']]) {
      const { page, errors, context } = await openPage({ viewport, colorScheme: scheme });
      await page.goto(`${server.url}#s=${encodeURIComponent(long)}&step=12`);
      await page.waitForSelector(READY);
      const scroller = page.locator('#app .as-heatmap-scroll');
      await scroller.evaluate((el) => { el.scrollTop = 250; el.scrollLeft = 150; });
      const scrolls = await scroller.evaluate((el) => ({ down: el.scrollHeight > el.clientHeight + 1, across: el.scrollWidth > el.clientWidth + 1 }));
      assert.ok(scrolls.down || scrolls.across, `${name}: a 30-word map scrolls in its box`);
      assert.equal(await page.locator('#app .as-heat-colhead').isVisible(), scrolls.down, `${name}: the source words stay on top while the map scrolls down`);
      assert.equal(await page.locator('#app .as-heat-rowhead').isVisible(), scrolls.across, `${name}: the target words stay on the left while it scrolls across`);
      await page.waitForTimeout(100);
      await page.locator('#app .as-heat-card').screenshot({ path: path.join(ARTIFACTS, `heatmap-long-${name}-${scheme}.png`) });
      assert.match(await page.locator('#app .as-steps-card').textContent(), /Dashed: “zorglub” is not among the \d+ words the model knows/);
      await page.locator('#app .as-steps-card').screenshot({ path: path.join(ARTIFACTS, `steps-long-${name}-${scheme}.png`) });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${name}/${scheme} long sentence: page scrolls sideways by ${overflow}px`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  });
});
