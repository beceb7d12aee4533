// compare.js - the models shown beside the main one (store key `compare`,
// URL `vs=`). Each compared model has its own engine worker (a worker holds
// one model), downloads its file once with progress, and translates what the
// main model translated — the same text, at the same relative √d scale,
// decoded as the main trace was (its beam width and length penalty) —
// whenever the main model has a new result. What happens goes into the
// store's `compared`: { [id]: { status, progress, info, trace, error } };
// its worker downloads the bytes itself through lib/model-store.js, so a
// model that is also (or later) the main one downloads once;
// cards/compare.js draws it.

import { comparedIds } from '../lib/compare.js';
import { scaleFor, linkNoticeAdd } from '../state.js';
import { CONFIG } from '../config.js';
import { EngineClient, DownloadError } from '../client.js';
import { engineStartOptions, loadCatalogModel } from './models.js';
import { t } from '../i18n/index.js';
import { own } from '../lib/own.js';

/**
 * @param store  the widget's store
 * @param opts   { workerUrl, workerType, inline (single-file build), base (URL of web/),
 *                 seen: { active(), onWake(fn) } — is the comparison's card on screen (controllers/render.js);
 *                 off it, the compared models translate nothing until it comes back or the store is quiet }
 * @returns { destroy() }
 */
export function createCompare(store, { workerUrl, workerType, inline, base, seen = null }) {
  const slots = new Map(); // id -> { client, abort, ready, asked }

  const patch = (id, values) => {
    const all = store.get().compared ?? {};
    if (!slots.has(id)) return; // removed meanwhile
    store.set({ compared: { ...all, [id]: { ...own(all, id), ...values } } });
  };

  function entryOf(id) {
    return store.get().catalog?.models.find((m) => m.id === id) ?? null;
  }

  async function open(id) {
    const entry = entryOf(id);
    const client = new EngineClient({ workerUrl, workerType });
    const slot = { client, abort: new AbortController(), ready: false, asked: null };
    slots.set(id, slot);
    store.set({ compared: { ...(store.get().compared ?? {}), [id]: { status: 'loading', progress: null, info: null, trace: null, error: null } } });
    if (!entry) {
      patch(id, { status: 'failed', error: t('compare.unknown', { id }) });
      return;
    }
    const name = entry.label || id;
    let stage = 'start';
    try {
      patch(id, { progress: { text: t('compare.starting'), value: null, max: null } });
      await client.start(engineStartOptions(inline, store.get().catalog, base));
      stage = 'download';
      // The single-file copy carries only its own model.
      if (inline?.index && !own(inline.models, id)) throw new Error(t('compare.singleFile'));
      const info = await loadCatalogModel(client, entry, {
        catalog: store.get().catalog, base, inline,
        onProgress: (progress) => patch(id, { progress }),
        onDownloaded: () => {
          if (slots.get(id) !== slot) return;
          stage = 'check';
          patch(id, { progress: { text: t('compare.checking', { name }), value: null, max: null } });
        },
      });
      if (slots.get(id) !== slot) return;
      slot.ready = true;
      client.onResult = (trace) => patch(id, { trace, error: null, status: 'ready' });
      client.onError = (err, where) => patch(id, where === 'translate'
        ? { trace: null, error: t('compare.cannotTranslate', { why: err.message }), status: 'ready' }
        : { status: 'failed', error: t('compare.engineStopped', { why: err.message }) });
      patch(id, { info, status: 'ready', progress: null });
      ask(id);
    } catch (err) {
      if (slots.get(id) !== slot || err.name === 'AbortError') return;
      const why = err instanceof DownloadError ? t('compare.retryHint', { why: err.message }) : err.message;
      patch(id, { status: 'failed', progress: null, error: t(stage === 'download' ? 'compare.failedDownload' : stage === 'check' ? 'compare.failedOpen' : 'compare.failedStart', { name, why }) });
    }
  }

  function close(id) {
    const slot = slots.get(id);
    if (!slot) return;
    slots.delete(id);
    slot.abort.abort();
    slot.client.stop();
    const { [id]: _gone, ...rest } = store.get().compared ?? {};
    store.set({ compared: rest });
  }

  /** Ask compared model `id` to translate what the main model last translated. */
  function ask(id) {
    const st = store.get();
    const slot = slots.get(id);
    const info = own(st.compared, id)?.info;
    if (!slot?.ready || !info || !st.trace || (seen && !seen.active())) return;
    // Decoded as the main model's trace was (a beam's best hypothesis, or greedy at width 1), so
    // the columns differ by their models, not by how they were searched.
    const beamWidth = st.trace.beamWidth ?? 1;
    const lengthPenalty = beamWidth === 1 ? undefined : st.trace.lengthPenalty ?? undefined;
    const key = `${st.trace.text}\u0000${st.scale}\u0000${!!st.trace.cut}\u0000${beamWidth}\u0000${lengthPenalty}`;
    if (slot.asked === key) return;
    slot.asked = key;
    // A cut part (the main model read its first tokens only): the compared model reads as many.
    slot.client.translate({ text: st.trace.text, scoreScale: scaleFor(info, st.scale).scoreScale, topK: CONFIG.topK, cutSource: !!st.trace.cut, beamWidth, lengthPenalty, sentence: st.sentence, part: null });
  }

  function sync(st) {
    if (!st.catalog) return;
    // Ids the catalogue lacks (a link's vs=nosuch, vs=constructor): said, and
    // left out of the comparison and so of the share link.
    const listed = (id) => st.catalog.models.some((m) => m.id === id);
    const unknown = (st.compare ?? []).filter((id) => !listed(id));
    if (unknown.length) {
      store.set({ compare: st.compare.filter(listed), ...linkNoticeAdd(st, { key: 'vs', reason: 'compareUnknown', ids: unknown }) });
      return; // the new `compare` syncs again
    }
    const wanted = comparedIds(st.compare, st.model);
    for (const id of [...slots.keys()]) if (!wanted.includes(id)) close(id);
    for (const id of wanted) if (!slots.has(id)) open(id);
  }

  const unsubscribe = store.subscribe((st, changed) => {
    if (changed.has('compare') || changed.has('catalog') || changed.has('model')) queueMicrotask(() => sync(store.get()));
    if (changed.has('trace') || changed.has('scale')) for (const id of slots.keys()) queueMicrotask(() => ask(id));
  });
  queueMicrotask(() => sync(store.get()));
  const unwake = seen?.onWake(() => { for (const id of slots.keys()) ask(id); });

  return {
    destroy() {
      unsubscribe();
      unwake?.();
      for (const id of [...slots.keys()]) close(id);
    },
  };
}
