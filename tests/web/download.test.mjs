// The page's model download (web/client.js fetchWithProgress) in Node 20,
// against a local server that misbehaves: it must report progress with
// bytes, and fail with a DownloadError of the right kind, never hang.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { fetchWithProgress, DownloadError, formatBytes } from '../../web/client.js';

const BODY = new Uint8Array(300_000).map((_, i) => i & 255);
let server;
let base;
let requestCount = 0;

before(async () => {
  server = http.createServer((req, res) => {
    requestCount += 1;
    const send = (upTo, then) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': BODY.length });
      res.write(BODY.subarray(0, upTo));
      then();
    };
    if (req.url === '/ok') send(BODY.length, () => res.end());
    else if (req.url === '/close') send(100_000, () => setTimeout(() => res.destroy(), 20));
    else if (req.url === '/stall') send(100_000, () => { /* keep the socket open, send nothing */ });
    else if (req.url === '/headers-only') res.writeHead(200, { 'Content-Length': BODY.length }); // and nothing
    else res.writeHead(404).end('not found');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

async function failure(p) {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof DownloadError, `a DownloadError, not ${err}`);
    return err;
  }
  assert.fail('the download should have failed');
}

test('a whole download: the bytes, and progress that ends at the total', async () => {
  const seen = [];
  const bytes = await fetchWithProgress(`${base}/ok`, (loaded, total) => seen.push([loaded, total]));
  assert.deepEqual(bytes, BODY);
  assert.deepEqual(seen[0], [0, BODY.length], 'progress starts at 0 of the total');
  assert.deepEqual(seen.at(-1), [BODY.length, BODY.length]);
});

test('404: an http error naming the status', async () => {
  const err = await failure(fetchWithProgress(`${base}/missing.alsc`));
  assert.equal(err.kind, 'http');
  assert.equal(err.status, 404);
  assert.match(err.message, /404/);
});

test('a connection closed before Content-Length bytes: a network error with how far it got', async () => {
  const err = await failure(fetchWithProgress(`${base}/close`));
  assert.equal(err.kind, 'network');
  assert.match(err.message, /connection broke after 100 kB of 300 kB/);
});

test('a stalled body or a server that never sends: aborted after stallMs, not waited on forever', async () => {
  for (const url of ['/stall', '/headers-only']) {
    const t0 = Date.now();
    const err = await failure(fetchWithProgress(`${base}${url}`, null, { stallMs: 300 }));
    assert.equal(err.kind, 'stalled', url);
    assert.ok(Date.now() - t0 < 3000, `${url}: gave up in ${Date.now() - t0} ms`);
  }
});

test('no server at all: a network error that suggests being offline', async () => {
  const closed = http.createServer();
  await new Promise((r) => closed.listen(0, '127.0.0.1', r));
  const { port } = closed.address();
  await new Promise((r) => closed.close(r));
  const err = await failure(fetchWithProgress(`http://127.0.0.1:${port}/m.alsc`));
  assert.equal(err.kind, 'network');
  assert.match(err.message, /offline/);
});

test('a body shorter than its Content-Length that ends cleanly: truncated', async () => {
  const realFetch = globalThis.fetch;
  globalThis.fetch = async () => new Response(new Blob([BODY.subarray(0, 1000)]).stream(), { headers: { 'content-length': String(BODY.length) } });
  try {
    const err = await failure(fetchWithProgress('http://x.invalid/m.alsc'));
    assert.equal(err.kind, 'truncated');
    assert.match(err.message, /1,000 of 300,000 bytes/);
  } finally {
    globalThis.fetch = realFetch;
  }
});

test('an outer abort (the reader picked another model) stops the download at once, as an AbortError', async () => {
  // Aborted at the first progress report, long before the stall timeout would end it.
  for (const url of ['/stall', '/ok']) {
    const ctrl = new AbortController();
    const t0 = Date.now();
    const err = await fetchWithProgress(`${base}${url}`, () => ctrl.abort(), { signal: ctrl.signal, stallMs: 10_000 }).then(
      () => assert.fail(`${url}: the download should have been aborted`), (e) => e);
    assert.equal(err.name, 'AbortError', `${url}: ${err}`);
    assert.ok(!(err instanceof DownloadError), `${url}: an abort is not a download failure`);
    assert.ok(Date.now() - t0 < 3000, `${url}: stopped in ${Date.now() - t0} ms, not by the stall timeout`);
  }
  // Aborted before it starts: the same, at once, with nothing requested.
  const ctrl = new AbortController();
  ctrl.abort();
  const t0 = Date.now();
  const requests = requestCount;
  const err = await fetchWithProgress(`${base}/stall`, null, { signal: ctrl.signal, stallMs: 10_000 }).catch((e) => e);
  assert.equal(err.name, 'AbortError');
  assert.ok(Date.now() - t0 < 3000, `aborted beforehand: stopped in ${Date.now() - t0} ms`);
  assert.equal(requestCount, requests, 'no request made');
});

test('formatBytes', () => {
  assert.equal(formatBytes(11_886_028), '11.9 MB');
  assert.equal(formatBytes(512_000), '512 kB');
});
