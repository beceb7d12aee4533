// Offline after one visit, in Chromium with the service worker (web/sw.js):
// dist/ (content-hashed wasm and models) and web/ as `./build.sh serve`
// serves it; a second visit with the network off; stale or corrupt cache
// entries and a model whose hash does not match; switching back to a model
// downloads nothing; "Make all models available offline" with its progress
// and a quota error in words; the manifest makes the page installable; the
// standalone file's "Copy link"; dist/'s scripts are bundles (two requests
// by the first heatmap, the languages precached as chunks of their own).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildDist } from '../../web/tools/dist.mjs';
import { HASHED_NAME } from '../../web/tools/release.mjs';
import { launch, countingServer, READY } from './support.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB = path.join(REPO, 'web');
let tmp;
let dist;
let browser;
let server;   // dist/
let webServer; // web/
let catalog;  // dist/models/index.json
let def;      // the default model's entry

const sha = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
const readyIn = (page, timeout = 60_000) => page.waitForSelector(`#app ${READY}`, { timeout });

/** A first visit: the page, its heatmap, the service worker in control and the model in its cache. */
async function firstVisit(context, base) {
  const page = await context.newPage();
  await page.goto(`${base}index.html#s=Open+the+file`);
  await readyIn(page);
  await page.evaluate(async () => { await navigator.serviceWorker.ready; });
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
  // This server's catalogue (dist/ and web/ are different releases).
  await page.waitForFunction(async (b) => {
    const cat = await (await fetch(`${b}models/index.json`)).json();
    const model = cat.models.find((m) => m.id === cat.default);
    return (await caches.keys()).includes(cat.cache) && !!(await (await caches.open(cat.cache)).match(`${b}models/${model.file}`));
  }, base, { timeout: 30_000 });
  return page;
}

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-offline-'));
  dist = buildDist({ out: path.join(tmp, 'dist'), quiet: true }).out;
  catalog = JSON.parse(fs.readFileSync(path.join(dist, 'models', 'index.json'), 'utf8'));
  def = catalog.models.find((m) => m.id === catalog.default);
  server = await countingServer({ root: dist });
  webServer = await countingServer({ root: WEB });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await webServer?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('dist/ names the wasm and the models by content hash', () => {
  test('every model and both wasm files carry the first 16 hex digits of their SHA-256, and the catalogue lists them', () => {
    const named = [...catalog.models.map((m) => `models/${m.file}`), catalog.wasm.simd, catalog.wasm.scalar];
    for (const rel of named) {
      assert.match(rel, HASHED_NAME, rel);
      const buf = fs.readFileSync(path.join(dist, rel));
      assert.equal(rel.match(/\.([0-9a-f]{16})\.\w+$/)[1], sha(buf).slice(0, 16), `${rel} is named by its content`);
    }
    for (const m of catalog.models) assert.equal(m.sha256, sha(fs.readFileSync(path.join(dist, 'models', m.file))), m.id);
    assert.ok(!fs.existsSync(path.join(dist, 'gen', 'alignscope-simd.wasm')), 'no unhashed copy is left');
  });

  test('the server marks hashed files immutable and the rest no-cache', async () => {
    const model = await fetch(`${server.url}models/${def.file}`, { method: 'HEAD' });
    assert.match(model.headers.get('cache-control'), /immutable/);
    const page = await fetch(`${server.url}index.html`, { method: 'HEAD' });
    assert.equal(page.headers.get('cache-control'), 'no-cache');
  });
});

describe('dist/ is bundled: no module waterfall', () => {
  /** A cold visit with no service worker: → { page, context, scripts: the .js paths the server was asked for by the first heatmap }. */
  async function coldScripts(hash) {
    const context = await browser.newContext({ serviceWorkers: 'block', locale: 'en-US' });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    server.hits.clear();
    await page.goto(`${server.url}index.html${hash}`);
    await page.waitForFunction(() => performance.getEntriesByName('alignscope:first-heatmap').length > 0, null, { timeout: 90_000 });
    // Counted once the heatmap is there: what came before it, and anything since (nothing more should).
    const scripts = [...server.hits.keys()].filter((p) => p.endsWith('.js')).sort();
    return { page, context, scripts, errors };
  }

  test('the page asks for two scripts by its first heatmap, its bundle and the worker’s; a French page one more, its language', async () => {
    for (const [hash, want] of [['#s=Open+the+file', [/^\/app\.js$/, /^\/worker\.js$/]], ['#uilang=fr&s=Open+the+file', [/^\/app\.js$/, /^\/chunks\/fr\.[A-Za-z0-9]+\.js$/, /^\/worker\.js$/]]]) {
      const { page, context, scripts, errors } = await coldScripts(hash);
      try {
        assert.equal(scripts.length, want.length, `${hash}: ${scripts.join(', ')}`);
        want.forEach((re, i) => assert.match(scripts[i], re, hash));
        for (const p of scripts) assert.equal(server.hits.get(p), 1, `${p} once`);
        await readyIn(page); // and it works
        assert.deepEqual(errors, [], hash);
      } finally {
        await context.close();
      }
    }
  });

  test('dist/ holds the bundles, minified, and none of web/’s modules; the service worker precaches exactly its files', () => {
    for (const dir of ['cards', 'controllers', 'views', 'lib', 'i18n']) assert.ok(!fs.existsSync(path.join(dist, dir)), `no ${dir}/`);
    for (const f of ['app.js', 'worker.js', 'embed.js', 'alignscope.js', 'engine.js']) {
      const text = fs.readFileSync(path.join(dist, f), 'utf8');
      assert.ok(!/^import\s.*from\s*['"]\.\.?\//m.test(text) && !/\bfrom"\.\.?\/(?!chunks\/)/.test(text), `${f} imports nothing but its chunks`);
      assert.ok(text.split('\n').length < 40, `${f} is minified (${text.split('\n').length} lines)`);
    }
    const release = JSON.parse(fs.readFileSync(path.join(dist, 'gen', 'release.js'), 'utf8').replace(/^[\s\S]*?ALIGNSCOPE_RELEASE = /, '').replace(/;\s*$/, ''));
    const shell = new Set(release.shell.map((f) => f.url));
    for (const f of shell) assert.ok(fs.existsSync(path.join(dist, f)), `precached ${f} exists`);
    const scripts = fs.readdirSync(dist, { recursive: true }).map((f) => f.split(path.sep).join('/')).filter((f) => f.endsWith('.js') && f !== 'sw.js' && f !== 'gen/release.js');
    assert.deepEqual(scripts.filter((f) => !shell.has(f)), [], 'every script is precached');
    assert.ok(scripts.some((f) => /^chunks\/fr\.[A-Za-z0-9]+\.js$/.test(f)), 'the French strings are a chunk of their own');
  });

  test('offline, a language the first visit never showed still comes: its chunk was precached', async () => {
    const context = await browser.newContext();
    try {
      const page = await firstVisit(context, server.url);
      await context.setOffline(true);
      await page.locator('#ui-lang').selectOption('de');
      await page.waitForFunction(() => document.documentElement.lang === 'de' && document.querySelector('#app .as-root').lang === 'de', null, { timeout: 30_000 });
      assert.equal(await page.locator('#app .as-input-card').getAttribute('aria-label'), 'Satz und Übersetzung');
    } finally {
      await context.close();
    }
  });
});

for (const [name, getBase] of [['dist/', () => server.url], ['web/ (./build.sh serve)', () => webServer.url]]) {
  test(`${name}: a second visit works with the network off, from one versioned cache`, async () => {
    const base = getBase();
    const context = await browser.newContext();
    try {
      const page = await firstVisit(context, base);
      const caches = await page.evaluate(() => caches.keys());
      const ours = caches.filter((c) => c.startsWith('alignscope-'));
      const cat = await page.evaluate(async (u) => (await fetch(u)).json(), `${base}models/index.json`);
      assert.deepEqual(ours, [cat.cache], 'one cache, named after this release');
      await context.setOffline(true);
      await page.reload();
      await readyIn(page);
      const translation = await page.locator('#app .as-translation').first().textContent();
      assert.ok(translation.trim().length > 0, 'a translation is shown offline');
      assert.ok(await page.locator('#app canvas').first().isVisible(), 'the heatmap is drawn offline');
    } finally {
      await context.close();
    }
  });
}

test('a corrupt model or page file in the cache is refetched, never used', async () => {
  const context = await browser.newContext();
  try {
    const page = await firstVisit(context, server.url);
    const modelPath = `/models/${def.file}`;
    const before = server.hits.get(modelPath) ?? 0;
    // Same length, wrong bytes; and a module replaced by one that would break the page.
    await page.evaluate(async ([cache, modelUrl, appUrl, size]) => {
      const c = await caches.open(cache);
      await c.put(modelUrl, new Response(new Uint8Array(size).fill(7)));
      await c.put(appUrl, new Response('throw new Error("stale app.js");', { headers: { 'Content-Type': 'text/javascript' } }));
    }, [catalog.cache, `${server.url}models/${def.file}`, `${server.url}app.js`, def.bytes]);
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.reload();
    await readyIn(page);
    // Fetched again: from the server, or from the HTTP cache where the file is immutable; checked either way (below).
    assert.ok((server.hits.get(modelPath) ?? 0) <= before + 1);
    assert.deepEqual(errors.filter((m) => m.includes('stale app.js')), [], 'the corrupt module was not run');
    const stored = await page.evaluate(async ([cache, url]) => {
      const r = await (await caches.open(cache)).match(url);
      const d = await crypto.subtle.digest('SHA-256', await r.arrayBuffer());
      return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
    }, [catalog.cache, `${server.url}models/${def.file}`]);
    assert.equal(stored, def.sha256, 'the cache holds the right bytes again');
  } finally {
    await context.close();
  }
});

test('a model whose bytes do not match the catalogue’s SHA-256 is refused and not stored', async () => {
  const other = catalog.models.find((m) => m.id !== def.id && m.file.endsWith('.alsc'));
  const wrong = fs.readFileSync(path.join(dist, 'models', other.file)); // a valid model, but not this one
  let served = 0;
  server.fault = (req, res, rel) => {
    if (rel !== `/models/${def.file}`) return false;
    served += 1;
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': wrong.length, 'Cache-Control': 'no-store' }).end(wrong);
    return true;
  };
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}index.html`);
    await page.getByText(/does not match the SHA-256/).first().waitFor({ timeout: 60_000 });
    assert.equal(served, 2, 'downloaded once more past the HTTP cache before giving up');
    assert.equal(await page.locator(`#app ${READY}`).count(), 0, 'nothing was translated with it');
    const cached = await page.evaluate(async ([cache, url]) => !!(await (await caches.open(cache)).match(url)), [catalog.cache, `${server.url}models/${def.file}`]);
    assert.equal(cached, false, 'the wrong bytes were not stored');
  } finally {
    server.fault = null;
    await context.close();
  }
});

test('switching back to a model already used downloads nothing', async () => {
  const context = await browser.newContext();
  try {
    const page = await firstVisit(context, server.url);
    const other = catalog.models.find((m) => m.id !== def.id && m.attention !== 'none');
    const count = (m) => server.hits.get(`/models/${m.file}`) ?? 0;
    const select = page.locator('#app .as-model-card select.as-select');
    const start = { def: count(def), other: count(other) };
    const bytesBefore = server.stats.bytes;
    for (const id of [other.id, def.id, other.id, def.id]) {
      await select.selectOption(id);
      // Until the cards show this model's translation (data-model: the model
      // of the result on screen; ready is set once and stays): a switch that
      // went on before the download ended would cancel it and download again.
      await page.waitForFunction((want) => document.querySelector('#app .as-root')?.dataset.model === want
        && !document.querySelector('#app progress:not([hidden])'), id, { timeout: 60_000 });
    }
    assert.equal(count(def), start.def, 'the default model was not requested again');
    assert.equal(count(other), start.other + 1, 'the other model was downloaded once');
    const moved = server.stats.bytes - bytesBefore;
    assert.ok(moved <= other.bytes + 100_000, `four switches moved ${moved} bytes: one download of ${other.id} (${other.bytes})`);
  } finally {
    await context.close();
  }
});

test('“Make all models available offline” stores every model, with progress; offline, any of them opens', async () => {
  const context = await browser.newContext();
  try {
    const page = await firstVisit(context, server.url);
    const button = page.getByRole('button', { name: 'Make all models available offline' });
    await button.click();
    const status = page.locator('#app .as-offline-status');
    await page.waitForFunction(() => /Storing model \d+ of \d+/.test(document.querySelector('#app .as-offline-status').textContent), null, { timeout: 30_000 });
    await page.waitForFunction((n) => document.querySelector('#app .as-offline-status').textContent.includes(`All ${n} models`), catalog.models.length, { timeout: 180_000 });
    assert.equal(await status.getAttribute('data-error'), 'false');
    await context.setOffline(true);
    const last = catalog.models.at(-1);
    await page.locator('#app .as-model-card select.as-select').selectOption(last.id);
    await page.waitForFunction((want) => document.querySelector('#app .as-root')?.dataset.model === want, last.id, { timeout: 60_000 });
  } finally {
    await context.close();
  }
});

test('a storage quota error while storing the models is shown in words', async () => {
  const context = await browser.newContext();
  // The browser's storage is "full" for every model but the first one opened.
  await context.addInitScript((keep) => {
    const put = Cache.prototype.put;
    Cache.prototype.put = function (req, res) {
      const url = typeof req === 'string' ? req : req.url;
      if (url.endsWith('.alsc') && !url.includes(keep)) return Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
      return put.call(this, req, res);
    };
  }, def.file);
  try {
    const page = await firstVisit(context, server.url);
    await page.getByRole('button', { name: 'Make all models available offline' }).click();
    const status = page.locator('#app .as-offline-status[data-error="true"]');
    await status.waitFor({ timeout: 120_000 });
    const text = await status.textContent();
    assert.match(text, /1 of \d+ models are available offline/);
    assert.match(text, /storage quota is full/);
    assert.match(text, /press the button again/);
    assert.equal(await page.getByRole('button', { name: 'Make all models available offline' }).isEnabled(), true, 'the button can be pressed again');
  } finally {
    await context.close();
  }
});

test('the web app manifest makes the page installable', async () => {
  const context = await browser.newContext();
  try {
    const page = await firstVisit(context, server.url);
    const manifest = await page.evaluate(async () => {
      const href = document.querySelector('link[rel="manifest"]').href;
      return (await fetch(href)).json();
    });
    assert.equal(manifest.short_name, 'alignscope');
    for (const icon of manifest.icons.filter((i) => i.type === 'image/png')) {
      const buf = Buffer.from(await (await fetch(new URL(icon.src, server.url))).arrayBuffer());
      assert.deepEqual([...buf.subarray(1, 4)], [0x50, 0x4e, 0x47], `${icon.src} is a PNG`);
      assert.equal(buf.readUInt32BE(16), Number(icon.sizes.split('x')[0]), `${icon.src} is ${icon.sizes}`);
    }
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    // A Playwright context is an incognito profile, where nothing installs; any other reason would be the page's.
    assert.deepEqual(installabilityErrors.filter((e) => e.errorId !== 'in-incognito'), [], 'Chromium finds nothing in the page that stops installing it');
  } finally {
    await context.close();
  }
});

test('the standalone file’s “Copy link” explains that a link needs a hosted copy, or uses the base it was built with', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${pathToFileURL(path.join(dist, 'alignscope-standalone.html')).href}#s=Open+the+file`);
    await readyIn(page);
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByText(/A link needs a hosted copy/).first().waitFor();
    assert.equal(await page.locator('#app input.as-link:visible').count(), 0, 'no file:// link is offered (by any card)');
    const out = path.join(tmp, 'dist-with-base');
    const { standalone } = buildDist({ out, quiet: true, shareBase: 'https://course.example.org/alignscope/' });
    await page.goto(`${pathToFileURL(standalone).href}#s=Open+the+file`);
    await readyIn(page);
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.waitForFunction(() => [...document.querySelectorAll('#app input')].some((i) => i.value.startsWith('https://course.example.org/alignscope/#')));
    fs.rmSync(out, { recursive: true, force: true });
    assert.throws(() => buildDist({ out, quiet: true, shareBase: 'file:///tmp/x.html' }), /http\(s\) address/);
  } finally {
    await context.close();
  }
});
