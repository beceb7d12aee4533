#!/usr/bin/env node
// serve.mjs - a tiny static server for web/ (or dist/) on 127.0.0.1.
//
//   node web/tools/serve.mjs [--root DIR] [--port N]
//
// Correct MIME types (application/wasm for streaming compilation), no
// directory listings, no paths outside the root. Port 0 picks a free one.
// Caching as a static host should do it (README, "Caching"): every file has
// an ETag (size and modification time) and a Last-Modified, and a request
// with If-None-Match / If-Modified-Since that still matches gets 304 with no
// body; a content-hashed file (NAME.<16 hex>.wasm|alsc, dist/) is
// `immutable` for a year, everything else `no-cache` (revalidated each time).
// stats counts the bytes served (the browser tests report page weight).
// Tests can also map a URL prefix to another folder (`mounts`, e.g. a test
// model catalogue at /models/), add response headers (`headers(rel)`, e.g. a
// Content-Security-Policy), or answer a request themselves (`intercept`).

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HASHED_NAME } from './release.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const WEB_ROOT = path.resolve(HERE, '..');

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.alsc': 'application/octet-stream', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
  '.md': 'text/markdown; charset=utf-8', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
};

/** The cache headers of a file: its validators, and how long it may be kept. */
export function cacheHeaders(file, st) {
  return {
    'Cache-Control': HASHED_NAME.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
    ETag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`,
    'Last-Modified': new Date(Math.floor(st.mtimeMs / 1000) * 1000).toUTCString(),
  };
}

/** Whether a conditional request still matches (RFC 9110 13.1: If-None-Match wins over If-Modified-Since). */
export function notModified(req, validators) {
  const inm = req.headers['if-none-match'];
  if (inm) return inm.split(',').map((t) => t.trim().replace(/^W\//, '')).some((t) => t === '*' || t === validators.ETag);
  const ims = Date.parse(req.headers['if-modified-since'] ?? '');
  return Number.isFinite(ims) && Date.parse(validators['Last-Modified']) <= ims;
}

/**
 * Start serving `root`. Resolves with { server, url, port, stats, close() }.
 *   mounts:    { '/models/': '/some/dir' }: URL prefix → folder (instead of root)
 *   headers:   (rel) => ({ name: value }) extra headers for a served file
 *   intercept: (req, res, rel) => true if it answered the request itself
 */
export function startServer({ root = WEB_ROOT, port = 8000, host = '127.0.0.1', quiet = true, mounts = {}, headers = null, intercept = null } = {}) {
  const absRoot = path.resolve(root);
  const absMounts = Object.entries(mounts).map(([prefix, dir]) => [prefix.endsWith('/') ? prefix : `${prefix}/`, path.resolve(dir)]);
  const stats = { requests: 0, bytes: 0, byPath: new Map(), notModified: 0 };
  const server = http.createServer((req, res) => {
    stats.requests += 1;
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (rel.endsWith('/')) rel += 'index.html';
    if (intercept?.(req, res, rel)) return;
    const mount = absMounts.find(([prefix]) => rel.startsWith(prefix));
    const dir = mount ? mount[1] : absRoot;
    const file = path.resolve(dir, `.${mount ? rel.slice(mount[0].length - 1) : rel}`);
    if (file !== dir && !file.startsWith(dir + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`not found: ${rel}`);
        if (!quiet) console.log(`404 ${rel}`);
        return;
      }
      const type = MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
      const validators = cacheHeaders(file, st);
      if ((req.method === 'GET' || req.method === 'HEAD') && notModified(req, validators)) {
        stats.notModified += 1;
        res.writeHead(304, { ...validators, ...(headers?.(rel) ?? {}) }).end();
        return;
      }
      res.writeHead(200, {
        'Content-Type': type,
        'Content-Length': st.size,
        ...validators,
        'X-Content-Type-Options': 'nosniff',
        ...(headers?.(rel) ?? {}),
      });
      if (req.method === 'HEAD') { res.end(); return; }
      const stream = fs.createReadStream(file);
      stream.on('data', (chunk) => {
        stats.bytes += chunk.length;
        stats.byPath.set(rel, (stats.byPath.get(rel) ?? 0) + chunk.length);
      });
      stream.pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        server, port: actual, stats, url: `http://${host}:${actual}/`,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
  const root = opt('--root', WEB_ROOT);
  const port = Number(opt('--port', process.env.PORT ?? 8000));
  const s = await startServer({ root, port, quiet: false }).catch(async (err) => {
    if (err.code === 'EADDRINUSE') {
      console.error(`port ${port} is busy; using a free one`);
      return startServer({ root, port: 0, quiet: false });
    }
    throw err;
  });
  console.log(`alignscope: serving ${path.relative(process.cwd(), root) || '.'} at ${s.url}`);
  console.log('  press Ctrl+C to stop');
}
