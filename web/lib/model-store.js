// model-store.js - model bytes, downloaded once and shared: by every caller
// in this thread (one promise per URL), by every worker, frame and tab of
// this origin (a Web Lock per URL, then the Cache API), and by later visits
// (the same versioned cache the service worker serves from offline, web/sw.js).
// It runs where the bytes are used: in the engine worker for the model a
// widget shows (worker.js, asked by client.js loadUrl()), on the page's
// thread for "Make all models available offline" and the training film.
// No UI strings here (the worker carries none): a DownloadError's words are
// made on the page (lib/download.js).
//
//   getModel({ url, sha256, cacheName, onProgress, signal, storeWhen })
//     → Promise<{ bytes: Uint8Array, from: 'cache'|'network', storing: Promise<{ stored: boolean, storeError }>,
//                 startedAt (performance.now() when the shared download began) }>
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

import { abortReason, fetchWithProgress, DownloadError } from './download.js';

const inFlight = new Map(); // url → job: { promise, listeners: Set, waiters, ctrl, handedOut, startedAt }

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

/** The cached Response for url in cacheName, or null (none, no Cache API, storage blocked). */
async function lookUp(cacheName, url) {
  if (!cacheName) return null;
  try {
    return (await globalThis.caches?.match(url, { cacheName })) ?? null;
  } catch {
    return null;
  }
}

const storedListeners = new Set();
/**
 * fn({ url, cacheName, putAt }) after each model this thread puts in a cache
 * (putAt: when the write began, epoch ms). Returns the unsubscribe.
 * storedElsewhere(info) tells them of one that another thread stored
 * (the engine worker, through client.js).
 */
export function onStored(fn) {
  storedListeners.add(fn);
  return () => storedListeners.delete(fn);
}

/** A model stored by another thread of this page (its worker): onStored's listeners hear of it. */
export function storedElsewhere(info) {
  for (const fn of storedListeners) fn(info);
}

/**
 * Put verified bytes in the cache; the error (a quota, usually) is returned,
 * not thrown. The Response takes its own copy of the bytes at once (a
 * BufferSource body is copied when the Response is made), so the caller's
 * may be transferred while the write goes on.
 */
function store(cacheName, url, bytes, when) {
  if (!cacheName || !globalThis.caches) return Promise.resolve({ stored: false, storeError: null });
  let response;
  try {
    response = new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes.length) } });
  } catch (err) {
    return Promise.resolve({ stored: false, storeError: err });
  }
  return Promise.resolve(when).catch(() => {}).then(() => openCache(cacheName)).then(async (cache) => {
    if (!cache) return { stored: false, storeError: null };
    const putAt = performance.timeOrigin + performance.now();
    await cache.put(url, response);
    for (const fn of storedListeners) fn({ url, cacheName, putAt });
    return { stored: true, storeError: null };
  }).catch((err) => ({ stored: false, storeError: err }));
}

async function fetchVerified(url, sha256, progress, signal) {
  let bytes = await fetchWithProgress(url, progress, { signal });
  if (await matches(bytes, sha256)) return bytes;
  // A stale copy on the way (an HTTP cache, a proxy): once more, straight from the server.
  bytes = await fetchWithProgress(url, progress, { signal, cache: 'reload' });
  if (await matches(bytes, sha256)) return bytes;
  throw new DownloadError('checksum', 'download.checksum');
}

async function obtain(url, sha256, cacheName, progress, signal, storeWhen, looked) {
  // One look in the named cache (caches.match: no caches.open first, one round trip to the browser fewer).
  const hit = await (looked ?? lookUp(cacheName, url));
  if (hit) {
    const bytes = new Uint8Array(await hit.arrayBuffer());
    if (await matches(bytes, sha256)) {
      progress(bytes.length, bytes.length);
      return { bytes, from: 'cache', storing: Promise.resolve({ stored: true, storeError: null }) };
    }
    await (await openCache(cacheName))?.delete(url).catch(() => {}); // stale or corrupt: never used
  }
  const bytes = await fetchVerified(url, sha256, progress, signal);
  return { bytes, from: 'network', storing: store(cacheName, url, bytes, storeWhen) };
}

/** Whether `url` is already in the cache `cacheName` (for "available offline" counts). */
export async function isStored(url, cacheName) {
  const cache = await openCache(cacheName);
  return !!cache && !!(await cache.match(new URL(url, location.href).href).catch(() => null));
}

/** The job for `key`: the download (or the look in the cache) that every caller of that URL shares. */
function startJob(key, { sha256, cacheName, storeWhen }) {
  const ctrl = new AbortController();
  const job = { listeners: new Set(), waiters: 0, ctrl, handedOut: false, startedAt: globalThis.performance?.now() ?? 0 };
  const progress = (loaded, total) => { for (const fn of job.listeners) fn(loaded, total); };
  const locks = globalThis.navigator?.locks;
  let result;
  if (locks) {
    // The cache is looked at while the lock is asked for (two round trips to
    // the browser at once, not one after the other); that look counts only if
    // the lock was free at once: after waiting for another tab's download, look again.
    const early = lookUp(cacheName, key);
    const name = `alignscope-model ${key}`;
    // The lock is held until the bytes are in the cache (another tab waiting
    // for it then finds them there); the bytes go to the callers as soon as they are verified.
    result = new Promise((resolve, reject) => {
      const run = (looked) => obtain(key, sha256, cacheName, progress, ctrl.signal, storeWhen, looked)
        .then((r) => { resolve(r); return r.storing; }, reject);
      locks.request(name, { ifAvailable: true }, (lock) => (lock ? run(early) : locks.request(name, () => run(null))))
        .catch(reject);
    });
  } else {
    result = obtain(key, sha256, cacheName, progress, ctrl.signal, storeWhen, null);
  }
  // Done: later callers start afresh (and find the bytes in the cache).
  job.promise = result.finally(() => { if (inFlight.get(key) === job) inFlight.delete(key); });
  job.promise.catch(() => { /* each caller hears of it */ });
  inFlight.set(key, job);
  return job;
}

/**
 * storeWhen: a promise the cache write waits for (the page's first heatmap:
 * writing 5 MB competes with the first load; until then the Response holds
 * its own copy of the bytes). The first caller of a shared download sets it.
 */
export function getModel({ url, sha256 = null, cacheName = null, onProgress = null, signal = null, storeWhen = null }) {
  const key = new URL(url, globalThis.location?.href).href;
  const job = inFlight.get(key) ?? startJob(key, { sha256, cacheName, storeWhen });
  if (onProgress) job.listeners.add(onProgress);
  job.waiters += 1;
  return new Promise((resolve, reject) => {
    let gone = false; // this caller stopped waiting (its signal): the result is not its any more
    const done = () => { job.waiters -= 1; if (onProgress) job.listeners.delete(onProgress); signal?.removeEventListener('abort', onAbort); };
    // The last widget that stops waiting stops the download.
    const onAbort = () => { gone = true; done(); if (job.waiters === 0) { job.ctrl.abort(signal.reason); if (inFlight.get(key) === job) inFlight.delete(key); } reject(abortReason(signal)); };
    if (signal?.aborted) { onAbort(); return; }
    signal?.addEventListener('abort', onAbort, { once: true });
    // The first caller to hear gets the bytes themselves, later ones a copy each: every caller owns what it gets.
    job.promise.then((r) => {
      if (gone) return;
      done();
      const bytes = job.handedOut ? r.bytes.slice() : r.bytes;
      job.handedOut = true;
      resolve({ ...r, bytes, startedAt: job.startedAt });
    }, (err) => { if (!gone) { done(); reject(err); } });
  });
}
