// The training film (web/cards/training.js, controllers/training.js) in
// Debian's Chromium: the page and its service worker fetch no snapshot and
// not the film's manifest until the reader opens the card; opening it
// downloads each snapshot once (the model in use not again); the scrubber,
// by keys and buttons, moves through the points and the update count, share
// of the budget, dev BLEU, translation and heatmap change with it; each
// point translates what engine.js gives for its file in Node, and the last
// point is the main model's own translation; a snapshot that answers 404,
// arrives corrupt (wrong SHA-256) or is refused by the engine says so,
// naming the file, while the other points work, and "Try again" recovers; a
// broken manifest says so with its name; another main model (the default
// among them) still shows the film's model's film; dist/'s content-hashed
// film works; no serious axe violation on the open card; phone and desktop
// screenshots.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { launch, countingServer, openPage, gotoReady, WEB, REPO, ARTIFACTS, PHONE, DESKTOP } from './support.mjs';
import { assemble } from '../../web/tools/assemble.mjs';
import { buildDist } from '../../web/tools/dist.mjs';
import { createEngine } from '../../web/engine.js';

const SENTENCE = 'Open the selected file';
const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const sha = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

let server;
let browser;
let catalog;
let film;       // the catalogue's film entry
let manifest;   // web/models/snapshots/ID.json
let points;     // manifest.snapshots with `path` (relative to web/) and Node's translation of SENTENCE
let main;       // the film's model's catalogue entry

const snapshotHits = () => [...server.hits].filter(([p]) => p.startsWith('/models/snapshots/')).reduce((n, [, c]) => n + c, 0);
const hitsOf = (p) => server.hits.get(`/${p}`) ?? 0;
const pageUrl = (hash) => `${server.url}index.html#${hash}`;
const card = '#app .as-training-card';

/**
 * Open the page on SENTENCE with the film's model in use (not the default:
 * the film is of the comparison models' additive member) and wait for its
 * first result (and, with sw, for its service worker to be installed).
 */
async function ready(page, { hash = new URLSearchParams({ s: SENTENCE, m: main.id }).toString(), sw = false } = {}) {
  await gotoReady(page, pageUrl(hash));
  if (sw) await page.evaluate(async () => { await navigator.serviceWorker.ready; });
}

/** Open the film and wait until every point is ready or failed. */
async function openFilm(page) {
  // What moved while the click happened (said if the film never opens).
  await page.evaluate(() => {
    const log = window.__filmClickLog = [];
    addEventListener('scroll', () => log.push(`scroll ${Math.round(performance.now())} y=${Math.round(scrollY)}`), { passive: true });
    new PerformanceObserver((l) => { for (const e of l.getEntries()) for (const s of e.sources) log.push(`shift ${Math.round(e.startTime)} ${s.node?.className ?? s.node?.nodeName} y ${Math.round(s.previousRect.y)}→${Math.round(s.currentRect.y)} h ${Math.round(s.previousRect.height)}→${Math.round(s.currentRect.height)}`); }).observe({ type: 'layout-shift' });
    for (const type of ['pointerdown', 'pointerup', 'click']) addEventListener(type, (e) => log.push(`${type} ${Math.round(performance.now())} on ${e.target.className}`), { capture: true });
  });
  // By the keyboard (focus, Enter): a pointer click can miss here. On a busy
  // machine the page scrolled between the pointer's down and up (the cards
  // above finish their work as they come into view and change height: the
  // log below caught it), so the up landed on the card's text and no click
  // came. That jump is the page's to fix (noted); this test is the film's.
  await page.focus(`${card} .as-training-load`);
  await page.keyboard.press('Enter');
  try {
    await page.waitForFunction((n) => {
      const el = document.querySelector('#app .as-training-card');
      const s = el?.querySelector('.as-training-status')?.textContent ?? '';
      const failed = /(\d+) points? could not be loaded/.exec(el?.querySelector('.as-training-error')?.textContent ?? '');
      const m = /^(\d+) of (\d+) points? (is|are) ready/.exec(s);
      return el?.dataset.status === 'failed' || (m && Number(m[1]) + Number(failed?.[1] ?? 0) === n);
    }, points.length, { timeout: 90_000 });
  } catch (err) {
    // Say what the card showed: a wait that ends without it cannot be told apart from a hang.
    const seen = await page.$eval(card, (el) => {
      const r = el.getBoundingClientRect();
      return {
        status: el.dataset.status,
        text: el.querySelector('.as-training-status')?.textContent,
        error: el.querySelector('.as-training-error')?.textContent,
        loadShown: !el.querySelector('.as-training-open')?.hidden,
        box: [Math.round(r.top), Math.round(r.bottom), innerHeight],
        focus: document.activeElement?.className,
        log: window.__filmClickLog,
      };
    }).catch((e) => `unreadable: ${e.message}`);
    throw new Error(`${err.message}\nthe card: ${JSON.stringify(seen)}`);
  }
}

/** What the card shows for its current point. */
const shown = (page) => page.$eval(card, (el) => ({
  point: el.querySelector('.as-training-film').dataset.point,
  head: el.querySelector('.as-training-point').textContent,
  translation: el.querySelector('.as-training-translation').textContent,
  message: el.querySelector('.as-training-message').hidden ? null : el.querySelector('.as-training-message').textContent,
  heatmap: !el.querySelector('.as-training-box').hidden,
  pixels: el.querySelector('.as-training-box canvas.as-heatmap-canvas')?.toDataURL() ?? null,
  valuetext: el.querySelector('.as-training-scrub').getAttribute('aria-valuetext'),
  earlier: el.querySelector('.as-training-earlier').disabled,
  later: el.querySelector('.as-training-later').disabled,
}));

/** Wait until point i is on screen with a translation (or a message). */
const pointShown = (page, i, { translated = true } = {}) => page.waitForFunction(({ i, translated }) => {
  const el = document.querySelector('#app .as-training-card');
  const canvas = el.querySelector('.as-training-box canvas.as-heatmap-canvas');
  return el.querySelector('.as-training-film').dataset.point === String(i)
    && (translated ? el.querySelector('.as-training-translation').textContent !== '' && Number(canvas?.dataset.paints ?? 0) > 0 : true);
}, { i, translated }, { timeout: 30_000 });

const percent = (f) => new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: f < 0.01 ? 2 : f < 0.1 ? 1 : 0 }).format(f);

before(async () => {
  catalog = assemble({ quiet: true });
  film = catalog.films?.[0];
  assert.ok(film, 'models/snapshots/ has a training film (models/train/snapshots.py)');
  main = catalog.models.find((m) => m.id === film.model);
  manifest = JSON.parse(fs.readFileSync(path.join(WEB, 'models', film.manifest), 'utf8'));
  assert.ok(manifest.snapshots.length >= 2);
  points = [];
  for (const p of manifest.snapshots) {
    const rel = path.posix.normalize(path.posix.join('models', path.posix.dirname(film.manifest), p.file));
    const engine = await createEngine({ variant: 'scalar' });
    const info = engine.load(new Uint8Array(fs.readFileSync(path.join(WEB, rel))));
    const trace = engine.translate(SENTENCE, { scoreScale: info.trainedScoreScale > 0 ? info.trainedScoreScale : 1, topK: 5 });
    points.push({ ...p, path: rel, translation: trace.translation });
  }
  server = await countingServer({ root: WEB });
  browser = await launch();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

describe('the training film', () => {
  test('nothing of the film is fetched until the card is opened; then each point loads, and the scrubber moves through them', async () => {
    const { page, context, errors } = await openPage(browser, { viewport: DESKTOP, serviceWorker: true });
    context.setDefaultTimeout(90_000);
    const before = snapshotHits();
    await ready(page, { sw: true });
    await page.waitForTimeout(500);
    assert.equal(snapshotHits(), before, 'the page load (and the service worker’s install) fetches no snapshot and not the manifest');
    // The button states the cost, from the catalogue: the model in use is not downloaded again.
    const fresh = points.filter((p) => p.path !== `models/${main.file}`);
    const mb = (fresh.reduce((n, p) => n + p.bytes, 0) / 1e6).toFixed(1);
    assert.equal(await page.textContent(`${card} .as-training-load`), `Load the training film (${fresh.length} file${fresh.length === 1 ? '' : 's'}, ${mb} MB)`);
    assert.equal(await page.$eval(`${card} .as-training-film`, (el) => el.hidden), true, 'closed by default');
    const mainHits = hitsOf(`models/${main.file}`);

    await openFilm(page);
    assert.equal(hitsOf(film.manifest.replace(/^/, 'models/')), 1, 'the manifest, once');
    for (const p of fresh) assert.equal(hitsOf(p.path), 1, `${p.path}, once`);
    assert.equal(hitsOf(`models/${main.file}`), mainHits, 'the model in use is not downloaded again');
    assert.match(await page.textContent(`${card} .as-training-status`), new RegExp(`^${points.length} of ${points.length} points are ready`));

    // The first point: its update, share of the budget, BLEU and translation.
    await pointShown(page, 0);
    const seen = [];
    for (let i = 0; i < points.length; i++) {
      if (i > 0) await page.click(`${card} .as-training-later`);
      await pointShown(page, i);
      const s = await shown(page);
      const p = points[i];
      assert.equal(s.head, `Update ${p.update.toLocaleString('en')} of ${manifest.updates.toLocaleString('en')} (${percent(p.update / manifest.updates)} of training) · dev BLEU ${p.devBleu.toFixed(1)}`);
      assert.equal(s.valuetext, s.head, 'the scrubber says the point to a screen reader');
      assert.equal(s.translation, p.translation, `point ${i}: what engine.js gives for ${p.path}`);
      assert.equal(s.heatmap, true);
      assert.equal(s.earlier, i === 0);
      assert.equal(s.later, i === points.length - 1);
      seen.push(s);
    }
    assert.notEqual(seen[0].pixels, seen.at(-1).pixels, 'the heatmap changes between the first point and the last');
    assert.notEqual(seen[0].head, seen.at(-1).head);
    // The last point is the shipped file: the main model's own translation.
    assert.equal(seen.at(-1).translation, await page.textContent('#app .as-translation'));
    await page.locator(card).screenshot({ path: path.join(ARTIFACTS, 'training-desktop-last.png') });

    // The keyboard: Home, End and the arrows on the range.
    await page.focus(`${card} .as-training-scrub`);
    await page.keyboard.press('Home');
    await pointShown(page, 0);
    await page.keyboard.press('ArrowRight');
    await pointShown(page, 1);
    await page.keyboard.press('End');
    await pointShown(page, points.length - 1);
    await page.keyboard.press('Home');
    await pointShown(page, 0);
    await page.locator(card).screenshot({ path: path.join(ARTIFACTS, 'training-desktop-first.png') });

    // A new sentence: every point translates it again.
    const other = 'Close the window';
    await page.fill('#app textarea.as-input', other);
    await page.waitForFunction((want) => document.querySelector('#app .as-training-translation').textContent === want, await nodeTranslation(points[0].path, other), { timeout: 30_000 });
    await page.$eval(`${card} .as-training-scrub`, (el) => { el.value = el.max; el.dispatchEvent(new Event('input', { bubbles: true })); });
    await page.waitForFunction(() => document.querySelector('#app .as-training-translation').textContent === document.querySelector('#app .as-translation').textContent, null, { timeout: 30_000 });

    // axe on the open card: nothing serious or critical.
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => (await globalThis.axe.run(document.querySelector('#app .as-training-card'), { resultTypes: ['violations'] })).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    assert.deepEqual(violations, []);
    assert.deepEqual(errors.filter((e) => !/^Applying inline style violates/.test(e)), []);
    await context.close();
  });

  test('a snapshot that answers 404, arrives corrupt or is refused by the engine says so by name; the others work; Try again recovers', async () => {
    const victim = points.find((p) => p.path !== `models/${main.file}`);
    const victimIndex = points.indexOf(victim);
    const last = points.length - 1;
    const setPoint = (page, i) => page.$eval(`${card} .as-training-scrub`, (el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', { bubbles: true })); }, i);
    const failedCount = (page) => page.waitForFunction(() => /^1 point could not be loaded; the others work\.$/.test(document.querySelector('#app .as-training-error').textContent)
      && !document.querySelector('#app .as-training-error').hidden, null, { timeout: 60_000 });
    /** The victim says `message`, without heatmap or translation, and the last point still works. */
    async function victimFails(page, message, label) {
      await failedCount(page);
      assert.equal(await page.isVisible(`${card} .as-training-retry`), true, `${label}: a retry button`);
      await setPoint(page, victimIndex);
      await pointShown(page, victimIndex, { translated: false });
      const bad = await shown(page);
      assert.match(bad.message, message, `${label}: ${bad.message}`);
      assert.equal(bad.heatmap, false);
      assert.equal(bad.translation, '');
      await setPoint(page, last);
      await pointShown(page, last);
      assert.equal((await shown(page)).translation, points[last].translation, `${label}: the last point still works`);
    }
    const only = (answer) => (req, res, rel) => (rel === `/${victim.path}` ? (answer(res), true) : false);
    const corrupt = (res) => {
      const bytes = fs.readFileSync(path.join(WEB, victim.path));
      bytes[bytes.length >> 1] ^= 0xff;
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length, 'Cache-Control': 'no-store' }).end(bytes);
    };

    // 404, then (Try again) corrupt bytes, then (Try again) the real file: only the victim is fetched again.
    {
      const { page, context } = await openPage(browser, { viewport: DESKTOP });
      context.setDefaultTimeout(90_000);
      try {
        server.fault = only((res) => res.writeHead(404, { 'Content-Type': 'text/plain' }).end('gone'));
        await ready(page);
        await openFilm(page);
        await victimFails(page, new RegExp(`^Could not download ${victim.path}: the server answered 404`), '404');
        await setPoint(page, victimIndex);
        await page.locator(card).screenshot({ path: path.join(ARTIFACTS, 'training-desktop-error.png') });
        server.fault = only(corrupt);
        await page.click(`${card} .as-training-retry`);
        await page.waitForFunction(() => /does not match the SHA-256/.test(document.querySelector('#app .as-training-message')?.textContent ?? ''), null, { timeout: 60_000 });
        await victimFails(page, new RegExp(`^Could not download ${victim.path}: the file does not match the SHA-256 in the film’s list`), 'corrupt');
        server.fault = null;
        const lastHits = hitsOf(points[last].path);
        await page.click(`${card} .as-training-retry`);
        await page.waitForFunction((n) => new RegExp(`^${n} of ${n} points are ready`).test(document.querySelector('#app .as-training-status').textContent), points.length, { timeout: 60_000 });
        assert.equal(await page.isVisible(`${card} .as-training-retry`), false);
        assert.equal(hitsOf(points[last].path), lastHits, 'a point that loaded is not fetched again');
        await setPoint(page, victimIndex);
        await pointShown(page, victimIndex);
        assert.equal((await shown(page)).translation, victim.translation);
      } finally {
        server.fault = null;
        await context.close();
      }
    }

    // The catalogue and the manifest list the junk file's true SHA-256: it passes the check, and the engine refuses it.
    {
      const junk = Buffer.from('this is not a model file at all, but its SHA-256 is listed');
      const m = JSON.parse(fs.readFileSync(path.join(WEB, 'models', film.manifest), 'utf8'));
      m.snapshots[victimIndex] = { ...m.snapshots[victimIndex], bytes: junk.length, sha256: sha(junk) };
      const mText = JSON.stringify(m);
      const cat = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'index.json'), 'utf8'));
      cat.films[0].sha256 = sha(Buffer.from(mText));
      const bodies = new Map([[`/models/${film.manifest}`, mText], ['/models/index.json', JSON.stringify(cat)], [`/${victim.path}`, junk]]);
      const { page, context } = await openPage(browser, { viewport: DESKTOP });
      context.setDefaultTimeout(90_000);
      server.fault = (req, res, rel) => (bodies.has(rel) ? (res.writeHead(200, { 'Cache-Control': 'no-store' }).end(bodies.get(rel)), true) : false);
      try {
        await ready(page);
        await openFilm(page);
        await victimFails(page, new RegExp(`^The engine refused ${victim.path}: `), 'refused by the engine');
      } finally {
        server.fault = null;
        await context.close();
      }
    }
  });

  test('a manifest that is missing or broken is named, and Try again opens the film once it is back', async () => {
    const manifestUrl = `/models/${film.manifest}`;
    const answer = (status, body) => (req, res, rel) => (rel === manifestUrl ? (res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(body), true) : false);
    const errorIs = (page, re) => page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#app .as-training-error')?.textContent ?? ''), re.source, { timeout: 60_000 });
    // 404, then (Try again) bytes that are not the catalogue's, then (Try again) the real one.
    {
      const { page, context } = await openPage(browser, { viewport: DESKTOP });
      context.setDefaultTimeout(90_000);
      try {
        server.fault = answer(404, 'no');
        await ready(page);
        await openFilm(page);
        await errorIs(page, new RegExp(`^Could not download the training film’s list \\(models/${film.manifest}\\): the server answered 404\\.$`));
        assert.equal(await page.$eval(`${card} .as-training-film`, (el) => el.hidden), true);
        assert.equal(await page.isVisible(`${card} .as-training-retry`), true);
        server.fault = answer(200, '{"model": "en-fr-int8"');
        await page.click(`${card} .as-training-retry`);
        await errorIs(page, new RegExp(`^The training film’s list \\(models/${film.manifest}\\) does not match the SHA-256 in the model list`));
        server.fault = null;
        await page.click(`${card} .as-training-retry`);
        await page.waitForFunction((n) => new RegExp(`^${n} of ${n} points are ready`).test(document.querySelector('#app .as-training-status')?.textContent ?? ''), points.length, { timeout: 60_000 });
      } finally {
        server.fault = null;
        await context.close();
      }
    }
    // The catalogue lists this manifest's own SHA-256: it arrives whole, and lib/film.js refuses what it says.
    {
      const broken = JSON.stringify({ ...manifest, updates: 0 });
      const cat = JSON.parse(fs.readFileSync(path.join(WEB, 'models', 'index.json'), 'utf8'));
      cat.films[0].sha256 = sha(Buffer.from(broken));
      const { page, context } = await openPage(browser, { viewport: DESKTOP });
      context.setDefaultTimeout(90_000);
      server.fault = (req, res, rel) => {
        if (rel === '/models/index.json') { res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(cat)); return true; }
        return answer(200, broken)(req, res, rel);
      };
      try {
        await ready(page);
        await openFilm(page);
        await errorIs(page, new RegExp(`^The training film’s list models/${film.manifest} cannot be used: its “updates” is missing or not valid\\.$`));
        assert.equal(await page.$eval(`${card} .as-training-film`, (el) => el.hidden), true);
      } finally {
        server.fault = null;
        await context.close();
      }
    }
  });

  test('another main model: the card says the film is of another model, and shows it on the current sentence; phone layout', async () => {
    // The smallest other model with attention (the download is the test's cost).
    const otherModel = catalog.models.filter((m) => m.id !== film.model && m.source === main.source && m.attention !== 'none').sort((a, b) => a.bytes - b.bytes)[0];
    assert.ok(otherModel);
    const { page, context, errors } = await openPage(browser, { viewport: PHONE, isMobile: true });
    context.setDefaultTimeout(90_000);
    await ready(page, { hash: new URLSearchParams({ s: SENTENCE, m: otherModel.id }).toString() });
    assert.equal(await page.textContent(`${card} .as-training-which`), `This film is of ${main.label}, not of the model in use (${otherModel.label}): it shows ${main.label} translating the current sentence.`);
    const mb = (points.reduce((n, p) => n + p.bytes, 0) / 1e6).toFixed(1);
    assert.equal(await page.textContent(`${card} .as-training-load`), `Load the training film (${points.length} files, ${mb} MB)`, 'every file counts: the model in use is another');
    await page.locator(card).screenshot({ path: path.join(ARTIFACTS, 'training-phone-closed.png') });
    await openFilm(page);
    await page.$eval(`${card} .as-training-scrub`, (el) => { el.value = el.max; el.dispatchEvent(new Event('input', { bubbles: true })); });
    await pointShown(page, points.length - 1);
    assert.equal((await shown(page)).translation, points.at(-1).translation, 'the film’s last point translates the current sentence');
    await page.$eval(`${card} .as-training-scrub`, (el) => { el.value = '0'; el.dispatchEvent(new Event('input', { bubbles: true })); });
    await pointShown(page, 0);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scrolling of the page');
    const box = await page.$eval(card, (el) => el.getBoundingClientRect().width);
    assert.ok(box <= PHONE.width, `the card fits the phone (${box} px)`);
    await page.locator(card).screenshot({ path: path.join(ARTIFACTS, 'training-phone.png') });
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('dist/: the film’s content-hashed files load through the rewritten manifest; the single file has no film', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-film-dist-'));
    const distServer = { s: null };
    try {
      const { out, standalone } = buildDist({ out: path.join(tmp, 'dist'), quiet: true });
      assert.doesNotMatch(fs.readFileSync(standalone, 'utf8'), /"films"/, 'the single file carries no film');
      const release = fs.readFileSync(path.join(out, 'gen', 'release.js'), 'utf8');
      assert.doesNotMatch(release, /snapshots\//, 'dist/’s service worker precaches no film');
      distServer.s = await countingServer({ root: out });
      const { page, context } = await openPage(browser, { viewport: DESKTOP });
      context.setDefaultTimeout(90_000);
      await gotoReady(page, `${distServer.s.url}index.html#${new URLSearchParams({ s: SENTENCE })}`);
      // Until every point is ready or failed (a failed point can never make it
      // "5 of 5": waiting for that alone turned any failure into a 90 s timeout); then none failed.
      await openFilm(page);
      const settled = await page.$eval(card, (el) => ({ status: el.querySelector('.as-training-status').textContent, error: el.querySelector('.as-training-error').textContent }));
      assert.match(settled.status, new RegExp(`^${points.length} of ${points.length} points are ready`), `dist/'s film: ${settled.error}`);
      const hashed = [...distServer.s.hits.keys()].filter((p) => p.startsWith('/models/snapshots/') && p.endsWith('.alsc'));
      assert.ok(hashed.length >= 1 && hashed.every((p) => /\.[0-9a-f]{16}\.alsc$/.test(p)), hashed.join(' '));
      await pointShown(page, 0);
      assert.equal((await shown(page)).translation, points[0].translation);
      await context.close();
    } finally {
      await distServer.s?.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

async function nodeTranslation(rel, text) {
  const engine = await createEngine({ variant: 'scalar' });
  const info = engine.load(new Uint8Array(fs.readFileSync(path.join(WEB, rel))));
  return engine.translate(text, { scoreScale: info.trainedScoreScale > 0 ? info.trainedScoreScale : 1, topK: 5 }).translation;
}
