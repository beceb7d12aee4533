// support.mjs - what the Chromium tests share: the browser, its flags (the
// same as page.test.mjs), the served page's CSP and a server that counts
// requests per path.
import { chromium } from 'playwright-core';
import { startServer } from '../../web/tools/serve.mjs';

export const CHROMIUM = '/usr/bin/chromium';
export const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; worker-src 'self' blob:; connect-src 'self' data: blob:";
export const READY = '.as-root[data-ready="true"]';

export const launch = () => chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });

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
