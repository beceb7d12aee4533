// offline.js - the offline controller: registers the service worker (web/sw.js,
// which keeps this release's page and wasm), and "Make all models available
// offline": every model of the catalogue into the release's cache, through
// the same model store the picker uses (web/lib/model-store.js), with its
// progress and, when the browser refuses the space, why, in words. It writes
// `offline` in the store ({ busy, done, total, loaded, size, stored, message,
// error }); cards/offline.js draws it.

import { getModel, isStored, onStored } from '../lib/model-store.js';
import { formatBytes } from '../client.js';
import { t, num } from '../i18n/index.js';
import { startupSettled } from '../lib/startup.js';

/** Whether this copy can work offline at all: a service worker and the Cache API, from http(s). */
export function offlineSupported() {
  return !globalThis.ALIGNSCOPE_INLINE && /^https?:$/.test(location.protocol) && 'serviceWorker' in navigator && !!globalThis.caches;
}

/**
 * Register sw.js next to the page's modules (`base`: a URL in web/'s folder).
 * Resolves with the registration, or null where offline is not possible
 * (file://, http from a host other than localhost, storage blocked).
 */
export async function registerServiceWorker(base) {
  if (!offlineSupported()) return null;
  try {
    return await navigator.serviceWorker.register(new URL('sw.js', base).href, { scope: new URL('./', base).href });
  } catch {
    return null; // e.g. a browser that blocks service workers here: the page still works online
  }
}

const isQuota = (err) => err?.name === 'QuotaExceededError' || /quota/i.test(String(err?.message ?? ''));

async function usageText() {
  try {
    const { usage, quota } = await navigator.storage.estimate();
    return usage != null && quota ? t('offline.usage', { usage: formatBytes(usage), quota: formatBytes(quota) }) : '';
  } catch {
    return '';
  }
}

/** @returns { refresh(), makeAllAvailable(), destroy() } */
export function createOffline(store, { base }) {
  const modelUrl = (m) => new URL(`models/${m.file}`, base).href;
  const patch = (p) => store.set({ offline: { ...(store.get().offline ?? {}), ...p } });
  // The count follows the catalogue and every model that finished loading (it is stored then);
  // the first count waits for the first heatmap (the card is far below it, and a look in the
  // cache for every model would compete with the first load).
  let settled = false;
  const unsubscribe = store.subscribe((st, changed) => {
    const first = !settled && startupSettled(st);
    if (first) settled = true;
    if (!settled || st.offline?.busy) return;
    if (first || changed.has('catalog') || (changed.has('status') && st.status === 'ready')) refresh();
  });
  // A model opened from the list is written to the cache after it is on screen (lib/model-store.js): count it then.
  const unheard = onStored(({ cacheName }) => {
    const st = store.get();
    if (settled && !st.offline?.busy && cacheName === st.catalog?.cache) refresh();
  });

  /** How many of the catalogue's models are stored already. */
  async function refresh() {
    const cat = store.get().catalog;
    if (!cat?.cache || !offlineSupported()) { patch({ supported: false }); return; }
    let stored = 0;
    for (const m of cat.models) if (await isStored(modelUrl(m), cat.cache)) stored += 1;
    patch({ supported: true, stored, total: cat.models.length });
  }

  async function makeAllAvailable() {
    const cat = store.get().catalog;
    if (!cat?.cache || store.get().offline?.busy) return;
    const size = cat.models.reduce((n, m) => n + (m.bytes || 0), 0);
    // Ask the browser not to evict the models under storage pressure (it may say no; they are still stored).
    try { await navigator.storage?.persist?.(); } catch { /* fine */ }
    patch({ busy: true, error: null, done: 0, total: cat.models.length, loaded: 0, size, message: t('offline.storing', { n: cat.models.length, size: formatBytes(size) }) });
    let loadedBefore = 0;
    let done = 0;
    for (const m of cat.models) {
      try {
        const r = await getModel({
          url: modelUrl(m), sha256: m.sha256, cacheName: cat.cache,
          onProgress: (loaded) => patch({ loaded: loadedBefore + loaded, message: t('offline.storingOne', { i: num(done + 1), n: cat.models.length, name: m.label, loaded: formatBytes(loadedBefore + loaded), size: formatBytes(size) }) }),
        });
        const { stored, storeError } = await r.storing;
        if (!stored) throw storeError ?? new Error(t('offline.notStored'));
      } catch (err) {
        const usage = await usageText();
        const why = isQuota(err)
          ? t('offline.quota', { name: m.label, usage })
          : t('offline.failed', { name: m.label, why: err.message });
        patch({ busy: false, error: err?.name ?? 'Error', done, message: t('offline.partial', { done: num(done), n: cat.models.length, why }) });
        await refresh();
        return;
      }
      done += 1;
      loadedBefore += m.bytes || 0;
      patch({ done, loaded: loadedBefore });
    }
    patch({ busy: false, done, stored: done, message: t('offline.done', { n: done, size: formatBytes(size) }) });
  }

  return { refresh, makeAllAvailable, destroy() { unsubscribe(); unheard(); } };
}
