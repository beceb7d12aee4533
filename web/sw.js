// sw.js - the service worker: the page works offline after one visit.
//
// What one release is comes from gen/release.js (web/tools/release.mjs):
// every shell file (HTML, modules, CSS, wasm, catalogue, manifest, icons)
// and every model, each with its SHA-256, and a version derived from those
// hashes. The browser compares this script and the imported release.js byte
// for byte on each visit, so a new release is noticed without a number
// bumped by hand.
//
//   install   fetch every shell file (bypassing the HTTP cache), check each
//             against its hash and store it in the cache RELEASE.cache
//             (`alignscope-VERSION`);
//             one file that does not match (a half-finished upload) fails the
//             install, and the previous release keeps serving, whole.
//   activate  delete every other cache of ours (RELEASE.cachePrefix): a release replaces the
//             last one whole, versions never mix.
//   fetch     a file of this release: from the cache when its bytes still
//             match their hash, else from the network (a stale or corrupt
//             entry is dropped and refetched, never used). Shell files that
//             arrive verified are stored again. Models are stored by the page
//             (web/lib/model-store.js) when it opens them, into the same
//             cache; here they are only served from it, after the same check.
//             Anything else goes to the network untouched.
/* global ALIGNSCOPE_RELEASE */
importScripts('gen/release.js');

const RELEASE = ALIGNSCOPE_RELEASE;
const CACHE = RELEASE.cache; // CACHE_PREFIX + version (web/tools/release.mjs)
const SCOPE = new URL('./', self.location.href);
const HASHES = new Map();
for (const f of [...RELEASE.shell, ...RELEASE.models]) HASHES.set(new URL(f.url, SCOPE).href, f.sha256);
const SHELL = new Set(RELEASE.shell.map((f) => new URL(f.url, SCOPE).href));

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
async function matches(response, sha256) {
  const bytes = await response.clone().arrayBuffer();
  return hex(await crypto.subtle.digest('SHA-256', bytes)) === sha256;
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const url of SHELL) {
      const res = await fetch(url, { cache: 'reload' });
      if (!res.ok) throw new Error(`sw: ${url}: HTTP ${res.status}`);
      if (!(await matches(res, HASHES.get(url)))) throw new Error(`sw: ${url} does not match release ${RELEASE.version}`);
      await cache.put(url, res);
    }
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith(RELEASE.cachePrefix) && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

/** The release's URL for a request: '/dir/' is its index.html; query and hash are not part of a file. */
function releaseUrl(request) {
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  if (url.pathname.endsWith('/')) url.pathname += 'index.html';
  return url.href;
}

async function respond(request, url) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(url);
  if (hit) {
    if (await matches(hit, HASHES.get(url))) return hit;
    await cache.delete(url); // stale or corrupt: never served
  }
  const res = await fetch(request.mode === 'navigate' ? url : request, { cache: hit ? 'reload' : 'default' });
  if (res.ok && SHELL.has(url) && await matches(res, HASHES.get(url))) await cache.put(url, res.clone());
  return res;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || !request.url.startsWith(SCOPE.href)) return;
  const url = releaseUrl(request);
  if (!HASHES.has(url)) return;
  event.respondWith(respond(request, url));
});
