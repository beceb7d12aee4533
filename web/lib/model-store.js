// model-store.js - model bytes, downloaded once and shared: by every widget
// in this page (one promise per URL), by every frame and tab of this origin
// (a Web Lock per URL, then the Cache API), and by later visits (the same
// versioned cache the service worker serves from offline, web/sw.js).
//
//   getModel({ url, sha256, cacheName, onProgress, signal, storeWhen })
//     → Promise<{ bytes: Uint8Array, from: 'cache'|'network', storing: Promise<{ stored: boolean, storeError }> }>
//
// The bytes are the caller's own (the first caller of a shared download
// gets them, every other one a copy): it may transfer them to a worker. They
// come as soon as they are verified; writing them to the cache goes on
// behind (`storing`, which never rejects; onStored(fn) hears of each model
// stored), so the first heatmap does not wait for the disk.
//
// Bytes are checked against the catalogue's SHA-256 before they are used or
// stored. A cached entry that does not match is deleted and downloaded
// again; a download that does not match is downloaded once more past the
// HTTP cache, and refused if it still does not (DownloadError 'checksum').
// Without a cacheName (a catalogue without a release), without the Cache
// API (a page not served over https or from localhost) or without Web Locks,
// the corresponding sharing is skipped and the rest still holds.

import { fetchWithProgress, DownloadError } from '../client.js';
import { t } from '../i18n/index.js';

const inFlight = new Map(); // url → { promise, listeners: Set, waiters, ctrl }

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
/** SHA-256 of bytes as hex, or null where SubtleCrypto is missing (an insecure context). */
export async function sha256Hex(bytes) {
  if (!globalThis.crypto?.subtle) return null;
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}
async function matches(bytes, sha256) {
  if (!sha256) return true;
  const got = await sha256Hex(bytes);
  return got === null || got === sha256;
}

async function openCache(cacheName) {
  if (!cacheName || !globalThis.caches) return null;
  try { return await caches.open(cacheName); } catch { return null; } // e.g. storage blocked
}

const storedListeners = new Set();
/** fn({ url, cacheName }) after each model this page puts in a cache. Returns the unsubscribe. */
export function onStored(fn) {
  storedListeners.add(fn);
  return () => storedListeners.delete(fn);
}

/**
 * Put verified bytes in the cache; the error (a quota, usually) is returned,
 * not thrown. The Response takes its own copy of the bytes at once (a
 * BufferSource body is copied when the Response is made), so the caller's
 * may be transferred while the write goes on.
 */
function store(cache, cacheName, url, bytes, when) {
  if (!cache) return Promise.resolve({ stored: false, storeError: null });
  let response;
  try {
    response = new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes.length) } });
  } catch (err) {
    return Promise.resolve({ stored: false, storeError: err });
  }
  return Promise.resolve(when).catch(() => {}).then(() => cache.put(url, response)).then(() => {
    for (const fn of storedListeners) fn({ url, cacheName });
    return { stored: true, storeError: null };
  }, (err) => ({ stored: false, storeError: err }));
}

async function fetchVerified(url, sha256, progress, signal) {
  let bytes = await fetchWithProgress(url, progress, { signal });
  if (await matches(bytes, sha256)) return bytes;
  // A stale copy on the way (an HTTP cache, a proxy): once more, straight from the server.
  bytes = await fetchWithProgress(url, progress, { signal, cache: 'reload' });
  if (await matches(bytes, sha256)) return bytes;
  throw new DownloadError('checksum', t('download.checksum'));
}

async function obtain(url, sha256, cacheName, progress, signal, storeWhen) {
  const cache = await openCache(cacheName);
  if (cache) {
    const hit = await cache.match(url).catch(() => null);
    if (hit) {
      const bytes = new Uint8Array(await hit.arrayBuffer());
      if (await matches(bytes, sha256)) {
        progress(bytes.length, bytes.length);
        return { bytes, from: 'cache', storing: Promise.resolve({ stored: true, storeError: null }) };
      }
      await cache.delete(url).catch(() => {}); // stale or corrupt: never used
    }
  }
  const bytes = await fetchVerified(url, sha256, progress, signal);
  return { bytes, from: 'network', storing: store(cache, cacheName, url, bytes, storeWhen) };
}

/** Whether `url` is already in the cache `cacheName` (for "available offline" counts). */
export async function isStored(url, cacheName) {
  const cache = await openCache(cacheName);
  return !!cache && !!(await cache.match(new URL(url, location.href).href).catch(() => null));
}

/**
 * storeWhen: a promise the cache write waits for (the page's first heatmap:
 * writing 5 MB competes with the first load; until then the Response holds
 * its own copy of the bytes). The first caller of a shared download sets it.
 */
export function getModel({ url, sha256 = null, cacheName = null, onProgress = null, signal = null, storeWhen = null }) {
  const key = new URL(url, globalThis.location?.href).href;
  let job = inFlight.get(key);
  if (!job) {
    const ctrl = new AbortController();
    job = { listeners: new Set(), waiters: 0, ctrl };
    const progress = (loaded, total) => { for (const fn of job.listeners) fn(loaded, total); };
    const run = () => obtain(key, sha256, cacheName, progress, ctrl.signal, storeWhen);
    const locks = globalThis.navigator?.locks;
    // With Web Locks, the lock is held until the bytes are in the cache (another
    // tab waiting for it then finds them there), but the bytes go to the callers
    // as soon as they are verified.
    job.promise = (locks
      ? new Promise((resolve, reject) => {
        locks.request(`alignscope-model ${key}`, () => run().then((r) => { resolve(r); return r.storing; }, (err) => { reject(err); }))
          .catch(reject);
      })
      : run())
      .finally(() => { if (inFlight.get(key) === job) inFlight.delete(key); });
    inFlight.set(key, job);
  }
  if (onProgress) job.listeners.add(onProgress);
  job.waiters += 1;
  return new Promise((resolve, reject) => {
    const done = () => { job.waiters -= 1; if (onProgress) job.listeners.delete(onProgress); signal?.removeEventListener('abort', onAbort); };
    // The last widget that stops waiting stops the download.
    const onAbort = () => { done(); if (job.waiters === 0) { job.ctrl.abort(signal.reason); if (inFlight.get(key) === job) inFlight.delete(key); } reject(signal.reason ?? new DOMException('aborted', 'AbortError')); };
    if (signal?.aborted) { onAbort(); return; }
    signal?.addEventListener('abort', onAbort, { once: true });
    // The first caller to hear gets the bytes themselves, later ones a copy each: every caller owns what it gets.
    job.promise.then((r) => {
      done();
      const bytes = job.handedOut ? r.bytes.slice() : r.bytes;
      job.handedOut = true;
      resolve({ ...r, bytes });
    }, (err) => { done(); reject(err); });
  });
}
