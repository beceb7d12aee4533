// Start-up, without a browser: the recorder of web/lib/startup.js (marks on
// this thread's timeline, once per document, closed by the paint), when a
// start-up is over (startupSettled), and index.html's early requests: the
// modulepreload list is exactly what boot.js imports, so the modules that
// start the engine (controllers/prestart.js) are asked for first and none
// is missing or left over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startupRecorder, startupSettled, STARTUP_PHASES, STARTUP_PREFIX, epochNow, pageTime } from '../../web/lib/startup.js';

const WEB = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

test('the first recorder marks each phase on this timeline (with its detail) until the paint; a second one does nothing', async () => {
  const rec = startupRecorder();
  const other = startupRecorder();
  assert.equal(rec.active, true);
  assert.equal(other.active, false, 'one recorder per document');
  other.mark('catalog');
  assert.equal(performance.getEntriesByName(`${STARTUP_PREFIX}catalog`).length, 0, 'the second recorder marks nothing');
  rec.mark('catalog', { detail: { models: 8 } });
  const [m] = performance.getEntriesByName(`${STARTUP_PREFIX}catalog`);
  assert.deepEqual(m.detail, { models: 8 });
  // A time from another thread's clock (epoch ms) lands where it happened on this one.
  const then = epochNow();
  rec.mark('compile', { at: pageTime(then) });
  assert.ok(Math.abs(performance.getEntriesByName(`${STARTUP_PREFIX}compile`)[0].startTime - pageTime(then)) < 1e-6);
  rec.mark('download', { at: -5 });
  assert.equal(performance.getEntriesByName(`${STARTUP_PREFIX}download`)[0].startTime, 0, 'never before the timeline begins');
  assert.throws(() => rec.mark('coffee'), /no phase coffee/);
  let settled = false;
  rec.settled.then(() => { settled = true; });
  rec.mark('paint');
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(settled, true, 'settled once the paint is marked');
  assert.equal(rec.active, false);
  rec.mark('translation');
  assert.equal(performance.getEntriesByName(`${STARTUP_PREFIX}translation`).length, 0, 'nothing after the paint');
  assert.deepEqual(STARTUP_PHASES, ['catalog', 'worker', 'download', 'compile', 'load', 'translation', 'paint']);
});

test('a start-up is over with the first heatmap, a failure, or a sentence that has no translation; not while loading', () => {
  assert.equal(startupSettled({ status: 'loading', firstHeatmap: false, error: null }), false);
  assert.equal(startupSettled({ status: 'ready', firstHeatmap: false, error: null }), false, 'ready, translating');
  assert.equal(startupSettled({ status: 'ready', firstHeatmap: true, error: null }), true);
  assert.equal(startupSettled({ status: 'failed', firstHeatmap: false, error: { stage: 'init' } }), true);
  assert.equal(startupSettled({ status: 'ready', firstHeatmap: false, error: { stage: 'translate' } }), true);
  assert.equal(startupSettled({ status: 'loading', firstHeatmap: false, error: { stage: 'load' } }), false, 'an error while still loading');
  // The step-through alone has no heatmap: its first translation ends the start (else its
  // worker's cache write, and the lock other widgets wait on, would wait for ever).
  assert.equal(startupSettled({ status: 'ready', view: 'steps', firstHeatmap: false, error: null, trace: null }), false, 'steps view, translating');
  assert.equal(startupSettled({ status: 'ready', view: 'steps', firstHeatmap: false, error: null, trace: { tokens: [] } }), true, 'steps view, translated');
  assert.equal(startupSettled({ status: 'ready', view: 'heatmap', firstHeatmap: false, error: null, trace: { tokens: [] } }), false, 'a heatmap view waits for its map');
});

// Static imports only (a dynamic import, such as a language's strings, is not preloaded).
const STATIC_IMPORT = /(?:\bimport\s*(?:[\w*{}\s,]+from\s*)?|\bexport\s*(?:[\w*{}\s,]+)\s*from\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;
function staticClosure(entry) {
  const seen = new Set();
  const visit = (rel) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const src = fs.readFileSync(path.join(WEB, rel), 'utf8');
    for (const m of src.matchAll(STATIC_IMPORT)) visit(path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[2])));
  };
  visit(entry);
  return seen;
}

test('index.html preloads the catalogue and every module boot.js imports, no more, before the page’s own script', () => {
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]);
  const needed = [...staticClosure('boot.js')].filter((f) => f !== 'boot.js');
  const missing = needed.filter((f) => !preloaded.includes(f));
  const extra = preloaded.filter((f) => !needed.includes(f));
  assert.deepEqual(missing, [], `add to web/index.html: ${missing.map((f) => `<link rel="modulepreload" href="${f}">`).join(' ')}`);
  assert.deepEqual(extra, [], `boot.js no longer imports these: drop them from web/index.html: ${extra.join(', ')}`);
  assert.equal(new Set(preloaded).size, preloaded.length, 'each once');
  assert.match(html, /<link rel="preload" href="models\/index.json" as="fetch" crossorigin>/, 'the catalogue, as fetch() asks for it (cors, same-origin credentials)');
  const order = (s) => html.indexOf(s);
  assert.ok(order('<script type="module" async src="boot.js">') > order('<link rel="modulepreload"'), 'boot.js after its preloads');
  assert.ok(order('<script type="module" src="app.js">') > order('<script type="module" async src="boot.js">'), 'boot.js before app.js');
  // The single-file build (web/tools/dist.mjs) drops this block, from its comment to boot.js's tag.
  assert.match(html, /<!-- Start-up[\s\S]*?<script type="module" async src="boot.js"><\/script>/);
  for (const f of needed) assert.ok(fs.existsSync(path.join(WEB, f)), f);
});
