// The engine worker downloads and checks the model itself (web/worker.js
// 'load' with a url; the page's thread never holds the bytes), here in Node
// with the worker's module run in this thread (self = globalThis) against a
// local server: progress messages that end at the total, 'downloaded' before
// 'loaded', the SHA-256 checked (a mismatch is downloaded once more, then
// refused as a DownloadError's kind, key and values, for the page to put in
// words), an HTTP status named, a newer load that stops an older download
// and is never overwritten by it, and a refused file named by the engine's
// code. Node has no Cache API or Web Locks: that sharing is the browser
// tests' (tests/browser/startup.test.mjs, offline.test.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MODEL = path.join(REPO, 'build', 'test-models', 'additive.alsc');
const WASM = path.join(REPO, 'web', 'gen', 'alignscope-scalar.wasm');
const skip = !fs.existsSync(MODEL) ? 'build/test-models not built (./build.sh models)' : !fs.existsSync(WASM) ? 'web/gen not built (./build.sh wasm)' : false;

let server;
let base;
let bytes;
let sha;
const hits = new Map();
const posted = [];
let waiters = [];

before(async () => {
  if (skip) return;
  bytes = fs.readFileSync(MODEL);
  sha = crypto.createHash('sha256').update(bytes).digest('hex');
  server = http.createServer((req, res) => {
    hits.set(req.url, (hits.get(req.url) ?? 0) + 1);
    if (req.url === '/model.alsc') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length });
      // In pieces, so that there is progress to report.
      let off = 0;
      const next = () => {
        if (off >= bytes.length) { res.end(); return; }
        res.write(bytes.subarray(off, off + 16_384));
        off += 16_384;
        setTimeout(next, 2);
      };
      next();
    } else if (req.url === '/slow.alsc') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length });
      res.write(bytes.subarray(0, 1000)); // and then nothing, until the client goes away
    } else if (req.url === '/junk.alsc') {
      const junk = Buffer.alloc(4096, 7);
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': junk.length }).end(junk);
    } else {
      res.writeHead(404, 'Not Found').end('gone');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  // The worker's globals: its messages come here; `self.onmessage` is what it sets.
  globalThis.self = globalThis;
  globalThis.postMessage = (msg) => {
    posted.push(msg);
    waiters = waiters.filter((w) => !(w.until(msg) && (w.resolve(msg), true)));
  };
  await import('../../web/worker.js');
  await send({ type: 'init', variant: 'scalar', wasmBytes: fs.readFileSync(WASM).buffer.slice(0) }, (m) => m.type === 'ready' || m.type === 'error');
});

after(() => {
  server?.closeAllConnections();
  server?.close();
});

/** Post `msg` to the worker; resolves with the first message it posts back that `until` accepts. */
function send(msg, until) {
  const p = new Promise((resolve) => waiters.push({ until, resolve }));
  globalThis.onmessage({ data: msg });
  return p;
}
const answer = (loadId) => (m) => m.loadId === loadId && (m.type === 'loaded' || m.type === 'error');

test('a url load: progress to the total, then downloaded (verified), then loaded; the bytes never leave the worker', { skip }, async () => {
  posted.length = 0;
  const done = await send({ type: 'load', modelId: 'toy', loadId: 1, url: `${base}/model.alsc`, sha256: sha }, answer(1));
  assert.equal(done.type, 'loaded', JSON.stringify(done));
  assert.equal(done.info.attention, 'additive');
  const mine = posted.filter((m) => m.loadId === 1);
  const progress = mine.filter((m) => m.type === 'progress');
  assert.ok(progress.length >= 1, 'progress is reported');
  assert.deepEqual([progress.at(-1).loaded, progress.at(-1).total], [bytes.length, bytes.length], 'the last progress is the whole file');
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].loaded >= progress[i - 1].loaded);
  const downloaded = mine.find((m) => m.type === 'downloaded');
  assert.ok(downloaded, 'downloaded is posted');
  assert.equal(downloaded.bytes, bytes.length);
  assert.equal(downloaded.from, 'network');
  assert.ok(downloaded.startedAt <= downloaded.doneAt && downloaded.doneAt <= done.timing.startAt, 'downloaded, then read by the engine');
  assert.ok(mine.indexOf(downloaded) < mine.indexOf(done));
  for (const m of mine) assert.ok(!Object.values(m).some((v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v)), `${m.type} carries no bytes`);
});

test('a SHA-256 mismatch: downloaded once more, then refused as a DownloadError the page can put in words', { skip }, async () => {
  hits.delete('/model.alsc');
  const err = await send({ type: 'load', modelId: 'toy', loadId: 2, url: `${base}/model.alsc`, sha256: '0'.repeat(64) }, answer(2));
  assert.equal(err.type, 'error');
  assert.equal(err.stage, 'load');
  assert.equal(err.phase, 'download');
  assert.equal(err.kind, 'checksum');
  assert.equal(err.key, 'download.checksum');
  assert.equal(hits.get('/model.alsc'), 2, 'once more past the HTTP cache before giving up');
});

test('an HTTP error names its status and path; a file the engine refuses is named by its code', { skip }, async () => {
  const missing = await send({ type: 'load', modelId: 'gone', loadId: 3, url: `${base}/missing.alsc` }, answer(3));
  assert.equal(missing.phase, 'download');
  assert.equal(missing.kind, 'http');
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.values, { status: '404 Not Found', path: '/missing.alsc' });
  const junk = await send({ type: 'load', modelId: 'junk', loadId: 4, url: `${base}/junk.alsc` }, answer(4));
  assert.equal(junk.phase, 'check');
  assert.equal(junk.code, 'AS_ERR_BAD_MAGIC', JSON.stringify(junk));
});

test('a newer load stops an older download, and the older one is never loaded over it', { skip }, async () => {
  posted.length = 0;
  const older = send({ type: 'load', modelId: 'slow', loadId: 5, url: `${base}/slow.alsc` }, answer(5));
  await new Promise((r) => setTimeout(r, 50));
  const newer = await send({ type: 'load', modelId: 'toy', loadId: 6, url: `${base}/model.alsc`, sha256: sha }, answer(6));
  assert.equal(newer.type, 'loaded');
  const old = await older;
  assert.equal(old.type, 'error', 'the older download was stopped');
  assert.equal(posted.filter((m) => m.type === 'loaded' && m.loadId === 5).length, 0);
});
