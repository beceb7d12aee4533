// The static-host side of offline and caching, in Node: serve.mjs's
// validators and 304s, the immutable mark on content-hashed names, the
// release version's derivation from content (web/tools/release.mjs), and
// the README's iframe snippet being embed-resize.js's own check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web/tools/serve.mjs';
import { writeRelease, releaseVersion, hashedName, HASHED_NAME, sha256Hex } from '../../web/tools/release.mjs';
import { HEIGHT_MESSAGE, MAX_EMBED_HEIGHT } from '../../web/lib/embed-protocol.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('serve.mjs: ETag and Last-Modified on every file; If-None-Match and If-Modified-Since answer 304 with no body', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-serve-'));
  fs.writeFileSync(path.join(dir, 'a.js'), 'export const a = 1;\n');
  const hashed = hashedName('m.alsc', Buffer.from('model'));
  fs.writeFileSync(path.join(dir, hashed), 'model');
  const s = await startServer({ root: dir, port: 0 });
  try {
    const first = await fetch(`${s.url}a.js`);
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag');
    const lastModified = first.headers.get('last-modified');
    assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/);
    assert.ok(Date.parse(lastModified) > 0);
    assert.equal(first.headers.get('cache-control'), 'no-cache');
    await first.text();
    const bytes = s.stats.bytes;
    const inm = await fetch(`${s.url}a.js`, { headers: { 'If-None-Match': etag } });
    assert.equal(inm.status, 304);
    assert.equal(await inm.text(), '');
    assert.equal(inm.headers.get('etag'), etag);
    const ims = await fetch(`${s.url}a.js`, { headers: { 'If-Modified-Since': lastModified } });
    assert.equal(ims.status, 304);
    assert.equal(s.stats.bytes, bytes, 'no body bytes for a 304');
    assert.equal((await fetch(`${s.url}a.js`, { headers: { 'If-None-Match': '"other"' } })).status, 200);
    assert.equal((await fetch(`${s.url}a.js`, { headers: { 'If-Modified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' } })).status, 200);
    // If-None-Match wins over If-Modified-Since (RFC 9110).
    assert.equal((await fetch(`${s.url}a.js`, { headers: { 'If-None-Match': '"other"', 'If-Modified-Since': lastModified } })).status, 200);
    fs.writeFileSync(path.join(dir, 'a.js'), 'export const a = 22;\n'); // a new size: a new ETag
    assert.equal((await fetch(`${s.url}a.js`, { headers: { 'If-None-Match': etag } })).status, 200);
    const imm = await fetch(`${s.url}${hashed}`);
    assert.equal(imm.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  } finally {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('release.mjs: hashed names, and a version that follows every byte of the page and its models', () => {
  assert.match(hashedName('gen/alignscope-simd.wasm', Buffer.from('x')), HASHED_NAME);
  assert.equal(hashedName('a.alsc', Buffer.from('x')), `a.${sha256Hex(Buffer.from('x')).slice(0, 16)}.alsc`);
  assert.equal(releaseVersion([['a', '1'], ['b', '2']]), releaseVersion([['b', '2'], ['a', '1']]), 'order does not matter');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-release-'));
  try {
    fs.mkdirSync(path.join(root, 'models'));
    fs.mkdirSync(path.join(root, 'tools'));
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html>');
    fs.writeFileSync(path.join(root, 'tools', 'x.mjs'), 'tool');
    fs.writeFileSync(path.join(root, 'models', 'm.alsc'), 'model bytes');
    fs.writeFileSync(path.join(root, 'models', 'index.json'), JSON.stringify({ default: 'm', models: [{ id: 'm', file: 'm.alsc' }] }));
    const r1 = writeRelease(root);
    const cat = JSON.parse(fs.readFileSync(path.join(root, 'models', 'index.json'), 'utf8'));
    assert.equal(cat.release, r1.version);
    assert.equal(cat.cache, r1.cache);
    assert.equal(cat.models[0].sha256, sha256Hex(Buffer.from('model bytes')));
    assert.deepEqual(r1.shell.map((f) => f.url).sort(), ['index.html', 'models/index.json'], 'no tools, no models, no release file in the shell');
    const js = fs.readFileSync(path.join(root, 'gen', 'release.js'), 'utf8');
    assert.match(js, new RegExp(`"version":"${r1.version}"`));
    assert.equal(writeRelease(root).version, r1.version, 'the same content, the same version (the catalogue’s own release field does not count)');
    fs.writeFileSync(path.join(root, 'models', 'm.alsc'), 'model bytes!');
    const r2 = writeRelease(root);
    assert.notEqual(r2.version, r1.version, 'a changed model makes a new release');
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html> ');
    assert.notEqual(writeRelease(root).version, r2.version, 'a changed page file makes a new release');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the README’s iframe snippet is embed-resize.js’s check, word for word, and speaks protocol version 1', () => {
  const file = fs.readFileSync(path.join(REPO, 'web', 'embed-resize.js'), 'utf8');
  const block = file.split('// --- snippet ---\n')[1].split('  // --- end of snippet ---')[0];
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const dedented = block.split('\n').map((l) => l.replace(/^ {2}/, '')).join('\n');
  assert.ok(readme.includes(dedented), 'README.md holds the snippet of web/embed-resize.js');
  assert.ok(block.includes(`m.type !== '${HEIGHT_MESSAGE.type}'`) && block.includes(`m.version !== ${HEIGHT_MESSAGE.version}`));
  assert.ok(block.includes(`m.height > ${MAX_EMBED_HEIGHT}`));
});
