// web/tools/vendor.mjs: the npm library the page runs (gifenc, for the
// animated GIF export) is copied from node_modules into vendor/ as one ES
// module that carries its licence, with the licence file beside it; it is
// the package.json dependency's own version, and it works (a 2-frame GIF in
// Node). Without node_modules it says what to run, and dist (strict) stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeVendor, VENDORED } from '../../web/tools/vendor.mjs';

const REPO = path.resolve(import.meta.dirname, '..', '..');

test('gifenc: copied with its licence, the version package.json asks for, and it encodes', async () => {
  const web = fs.mkdtempSync(path.join(os.tmpdir(), 'as-vendor-'));
  try {
    const done = writeVendor(web, { strict: true });
    assert.deepEqual(done.map((d) => d.name), Object.keys(VENDORED));
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    assert.ok(pkg.dependencies?.gifenc, 'gifenc is a dependency (shipped), not a devDependency');
    const installed = JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules', 'gifenc', 'package.json'), 'utf8')).version;
    assert.equal(done[0].version, installed);
    const code = fs.readFileSync(path.join(web, 'vendor', 'gifenc.js'), 'utf8');
    assert.ok(code.startsWith(`/*! gifenc ${installed} (MIT)`), 'the module names itself and its licence');
    assert.match(code, /Permission is hereby granted, free of charge/, 'and carries the licence text');
    assert.doesNotMatch(code, /sourceMappingURL/, 'no map is shipped, so none is asked for');
    assert.match(fs.readFileSync(path.join(web, 'vendor', 'gifenc.LICENSE.md'), 'utf8'), /^The MIT License/);
    const { GIFEncoder, quantize, applyPalette } = await import(pathToFileURL(path.join(web, 'vendor', 'gifenc.js')).href);
    const gif = GIFEncoder();
    for (const c of [[255, 0, 0], [0, 0, 255]]) {
      const rgba = new Uint8Array(4 * 4).map((_, i) => (i % 4 === 3 ? 255 : c[i % 4]));
      const palette = quantize(rgba, 4);
      gif.writeFrame(applyPalette(rgba, palette), 2, 2, { palette, delay: 100 });
    }
    gif.finish();
    const bytes = Buffer.from(gif.bytes());
    assert.equal(bytes.subarray(0, 6).toString('latin1'), 'GIF89a');
    assert.equal(bytes.at(-1), 0x3b, 'ends with the trailer');
    // A second run with the same bytes leaves the files alone (the release's hashes stay).
    const before = fs.statSync(path.join(web, 'vendor', 'gifenc.js')).mtimeMs;
    writeVendor(web, { strict: true });
    assert.equal(fs.statSync(path.join(web, 'vendor', 'gifenc.js')).mtimeMs, before);
  } finally {
    fs.rmSync(web, { recursive: true, force: true });
  }
});

test('without node_modules: a message that says what to run; strict (dist) refuses', () => {
  const web = fs.mkdtempSync(path.join(os.tmpdir(), 'as-vendor-'));
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'as-nomodules-'));
  try {
    const said = [];
    assert.deepEqual(writeVendor(web, { modules: empty, log: (m) => said.push(m) }), []);
    assert.match(said.join('\n'), /node_modules\/gifenc is missing \(run npm ci, or \.\/build\.sh deps\)/);
    assert.throws(() => writeVendor(web, { modules: empty, strict: true }), /gifenc is missing/);
  } finally {
    fs.rmSync(web, { recursive: true, force: true });
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
