// support.mjs - what the Chromium tests beside page.test.mjs share: Debian's
// Chromium with the flags page.test.mjs uses, the served page's CSP, a server
// that counts requests per path, the page served from web/ (the catalogue as
// ./build.sh serve has it), a page that records console errors, and waiting
// for the first result.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../support/chromium.mjs';
import { startServer } from '../../web/tools/serve.mjs';
import { assemble } from '../../web/tools/assemble.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WEB = path.join(REPO, 'web');
export const ARTIFACTS = path.join(REPO, 'tests', 'artifacts');
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; worker-src 'self' blob:; connect-src 'self' data: blob:";
// A widget with its first result, anywhere (the page's #app, an iframe, an element's shadow root).
export const READY = '.as-root[data-ready="true"]';
export const PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 800 };

export const launch = () => launchChromium();

/**
 * startServer() whose `hits` counts requests per path (200 and 304 alike)
 * and whose `intercept` can be swapped by a test (server.fault = fn).
 */
export async function countingServer(opts) {
  const hits = new Map();
  const holder = { fault: null };
  const s = await startServer({
    port: 0, headers: () => ({ 'Content-Security-Policy': CSP }), ...opts,
    intercept: (req, res, rel) => { hits.set(rel, (hits.get(rel) ?? 0) + 1); return holder.fault?.(req, res, rel) ?? false; },
  });
  s.hits = hits;
  Object.defineProperty(s, 'fault', { set(fn) { holder.fault = fn; }, get() { return holder.fault; } });
  return s;
}

/** The server and the browser: { url(path), browser, close() }; `launch` as launchChromium takes it (headless, env). */
export async function startBrowser({ launch: launchOptions } = {}) {
  assemble({ quiet: true });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const server = await startServer({ root: WEB, port: 0, headers: () => ({ 'Content-Security-Policy': CSP }) });
  const browser = await launchChromium(launchOptions);
  return {
    browser,
    url: (p) => new URL(p, server.url).href,
    async close() { await browser.close(); await server.close(); },
  };
}

/**
 * A fresh page in its own context; errors collects console errors and uncaught exceptions.
 * serviceWorker: false (the default) blocks the page's service worker, as page.test.mjs does:
 * its install fetches the whole release again into the Cache API (measured: about a third of
 * the CPU of a cold load), which only the tests of offline use need (offline.test.mjs, and
 * here with serviceWorker: true).
 */
export async function openPage(browser, { viewport = DESKTOP, colorScheme = 'light', locale = 'en-US', reducedMotion = 'reduce', isMobile = false, serviceWorker = false } = {}) {
  const context = await browser.newContext({ viewport, colorScheme, locale, reducedMotion, isMobile, hasTouch: isMobile, serviceWorkers: serviceWorker ? 'allow' : 'block' });
  // Waits and actions get 60 s, not Playwright's 30: test files run two at a
  // time, and a busy shared machine can take more than 30 s to load a page.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return { page, context, errors };
}

/** Open the page at `url` and wait for its first heatmap. */
export async function gotoReady(page, url, { ready = `#app ${READY}`, timeout = 60_000 } = {}) {
  await page.goto(url, { timeout: Math.max(timeout, 30_000) });
  await page.waitForSelector(ready, { timeout });
  await page.waitForFunction(() => Number(document.querySelector('#app .as-perf')?.dataset.count ?? 0) > 0, null, { timeout });
}

/**
 * Wait until the beam card has drawn its first search (its tree and its
 * heatmap). The card fills once the store has gone quiet after the first
 * translation (controllers/beam.js) and grows by about a thousand pixels
 * then: a test that jumps to a card below it and clicks before that can have
 * its target moved between the press and the release (no click at all).
 */
export async function beamFilled(page, { timeout = 60_000 } = {}) {
  await page.waitForFunction(() => {
    const card = document.querySelector('#app .as-beam-card');
    return card && card.dataset.busy === 'false' && !card.querySelector('.as-beam-body').hidden
      && Number(card.querySelector('.as-heatmap-canvas')?.dataset.paints ?? 0) > 0;
  }, null, { timeout });
  await painted(page);
}

/**
 * Wait until what the store has now is on screen: a key press or click sets
 * the store at once, and the render scheduler draws the cards on screen in
 * the next animation frame (the work that frame queues, in the one after).
 */
export async function painted(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}
