// models.js - the model controller: the catalogue (models/index.json), a
// download with progress and a clear message when it fails, a model file
// from the reader's disk (button or drop), and which model is in use. It
// talks to the engine worker (client.load) and writes what happens to the
// store (status, progress, info, local, notices); the cards draw it.
//
// Models are chosen only by id from this site's catalogue. Anything else
// (a URL, a path, an id that is not listed, a link made with a file from a
// disk) is refused visibly, and the default model is shown instead.

import { CONFIG } from '../config.js';
import { resolveModel, noticePatch } from '../state.js';
import { fromBase64, formatBytes, DownloadError } from '../client.js';
import { bestVariant } from '../engine.js';
import { t, num } from '../i18n/core.js';
import { epochNow, pageTime, startupSettled } from '../lib/startup.js';
import { frameTask } from '../lib/frame.js';
import { own } from '../lib/own.js';

// The picker's value while a model file from the reader's disk is in use
// (catalogue ids cannot contain ':', so it never collides with one).
export const LOCAL = 'file:';


/**
 * What EngineClient.start() needs: the build, picked here on the page's
 * thread by feature detection (relaxed SIMD, then SIMD128, then scalar;
 * engine.js bestVariant()), so the worker runs that one; and its module:
 * the single-file build's packed bytes, or the files the catalogue names by
 * content hash (dist/), or nothing (the worker fetches web/gen/ itself).
 * A build the page does not carry falls back to the next one down.
 */
export function engineStartOptions(inline, catalog = null, base = null) {
  let variant = bestVariant();
  const fallback = (have) => { if (!have[variant]) variant = have.simd && variant !== 'scalar' ? 'simd' : 'scalar'; };
  if (inline?.wasm) {
    fallback(inline.wasm);
    return { variant, wasmBytes: fromBase64(inline.wasm[variant]) };
  }
  if (catalog?.wasm && base) {
    fallback(catalog.wasm);
    return { variant, wasmUrls: Object.fromEntries(Object.entries(catalog.wasm).map(([k, f]) => [k, new URL(f, base)])) };
  }
  return { variant };
}

/**
 * Load catalogue model `entry` into `client`'s engine: the single-file
 * build's packed bytes, else the worker downloads it itself (client.loadUrl:
 * the model store runs there, one download per origin through its Web Lock
 * and cache, cached for the next visit, checked against the catalogue's
 * SHA-256; the bytes never come to this thread). Resolves with the model info.
 * onProgress({ text, value, max }) follows the download, in words;
 * onDownloaded({ bytes, from: 'inline'|'cache'|'network', startedAt, doneAt })
 * when the bytes are verified (epoch ms); onTiming: client.load's;
 * storeWhenSettled: the cache write waits for client.settle().
 * Used by the main model (below) and by the compared ones (compare.js).
 */
export function loadCatalogModel(client, entry, { catalog, base, inline, onProgress, onDownloaded = null, onTiming = null, storeWhenSettled = false }) {
  const packed = own(inline?.models, entry.id);
  if (packed) {
    const bytes = fromBase64(packed);
    const now = epochNow();
    onDownloaded?.({ bytes: bytes.length, from: 'inline', startedAt: now, doneAt: now });
    return client.load(entry.id, bytes, { transfer: true, onTiming });
  }
  onProgress(downloadProgress(entry));
  return client.loadUrl(entry.id, {
    url: new URL(`models/${entry.file}`, base), sha256: entry.sha256, cacheName: catalog?.cache ?? null, storeWhenSettled,
    onProgress: (loaded, total) => onProgress(downloadProgress(entry, loaded, total)), onDownloaded, onTiming,
  });
}

/**
 * A model's download in words, for the progress bar: { text, value, max }.
 * Without `loaded`, the download is about to begin.
 */
export function downloadProgress(entry, loaded = null, total = 0) {
  const name = entry.label || entry.id;
  const expected = entry.bytes || 0;
  if (loaded == null) return { text: expected ? t('load.downloadingSize', { name, size: formatBytes(expected) }) : t('load.downloading', { name }), value: 0, max: expected || null };
  const all = total || expected;
  return {
    text: all
      ? t('load.progressOf', { name, loaded: formatBytes(loaded), total: formatBytes(all), p: num(Math.floor((100 * Math.min(loaded, all)) / all)) })
      : t('load.progress', { name, loaded: formatBytes(loaded) }),
    value: all ? Math.min(all, loaded) : null, max: all || null,
  };
}

/**
 * The catalogue's request (models/index.json), begun: { response, json }
 * (promises; the JSON parsed once, null for an HTTP error). controllers/prestart.js
 * begins it before the widget exists; loadCatalog() reads what came.
 */
export function requestCatalog(base) {
  const url = new URL('models/index.json', base);
  const response = fetch(url, { signal: AbortSignal.timeout(CONFIG.catalogTimeoutMs) });
  const json = response.then((res) => (res.ok ? res.json() : null));
  response.catch(() => {});
  json.catch(() => {});
  return { url, response, json };
}

/** What the reader can do about a refused file, by the engine's code. */
function fileHintFor(code) {
  if (code === 'AS_ERR_BAD_MAGIC') return ` ${t('file.hintMagic')}`;
  if (code === 'AS_ERR_VERSION_TOO_NEW') return ` ${t('file.hintNewer')}`;
  if (/TOO_SHORT|SIZE_MISMATCH|CHECKSUM/.test(code ?? '')) return ` ${t('file.hintDamaged')}`;
  return '';
}

/** What went wrong while fetching or opening a model, in words, with what to do next. */
function loadErrorMessage(name, stage, err) {
  const head = t('load.head', { name });
  if (err instanceof DownloadError) {
    return `${head} ${err.message}${err.kind === 'truncated' ? t('load.incomplete') : ''}. ${t('load.retry')}`;
  }
  if (stage === 'check' && err.code) {
    const damaged = /SIZE_MISMATCH|TOO_SHORT|CHECKSUM|BAD_MAGIC|TRUNCATED/.test(err.code);
    return `${head} ${damaged ? t('load.damaged') : t('load.refused')} (${err.message}). ${t('load.retry')}`;
  }
  return `${head} ${err.message}`;
}

const fileName = (file) => { const n = Array.from(String(file?.name || t('file.defaultName'))); return n.length > 120 ? `${n.slice(0, 119).join('')}…` : n.join(''); };
const activeName = (st) => (st.local ? st.local.name : st.catalog?.models.find((m) => m.id === st.model)?.label || st.model);

/**
 * @param store   the widget's store
 * @param opts    { client (EngineClient), inline (single-file build's packed bytes), base (URL of web/), localFiles,
 *                  startup (lib/startup.js recorder: the catalogue, the worker, the download, the compile, the load),
 *                  prestart (controllers/prestart.js: the catalogue's request and the engine's start, begun
 *                  before this widget; the first boot() goes on from them) }
 * @returns { boot(), pick(id), check(id, rejected, fileModel), openFile(file), retry(), destroy() }
 */
export function createModels(store, { client, inline, base, localFiles, startup = null, prestart = null }) {
  let loadSeq = 0;       // a newer load (or file) makes the answer of an older one moot
  const notice = (topic, text) => store.set(noticePatch(store.get(), topic, text));
  // Until the first heatmap is on screen (or the start is over without one),
  // a downloaded model waits to be written to the cache (the worker's model
  // store; client.settle() lets it go on).
  let settle;
  const settled = new Promise((resolve) => { settle = resolve; });
  const stopWatching = store.subscribe((st) => { if (startupSettled(st)) { settle(); startup?.close(); } });
  settled.then(() => { stopWatching(); client.settle(); });
  const progress = (text, value = null, max = null) => store.set({ progress: { text, value, max } });
  // prestart.js's model (downloading, or loading in the engine, or loaded) until a load takes it over.
  let earlyModel = null;

  async function boot() {
    store.set({ status: 'starting', error: null, progress: { text: t('load.starting'), value: null, max: null } });
    // What prestart.js began serves the first boot only (a retry starts afresh).
    const early = prestart;
    prestart = null;
    try {
      // The worker's modules load while the catalogue comes (start() below uses it; a
      // worker that cannot be made is reported there).
      try { client.spawn(); } catch { /* start() says why */ }
      // The catalogue first: in dist/ it names the wasm by its content hash.
      const catalog = store.get().catalog ?? await loadCatalog(early?.catalog);
      if (!early) startup?.mark('catalog', { detail: { models: catalog.models.length } }); // (prestart.js marked its own)
      // The engine prestart.js started from the same catalogue, or one started now.
      const begun = early ? await early.engine : null;
      const startOptions = begun?.options ?? engineStartOptions(inline, catalog, base);
      const started = begun?.started ?? client.start(startOptions);
      // Which model (check(), with the catalogue in hand): the store hears of it
      // in load()'s one store.set, after its download has started.
      const req = store.get().modelRequest ?? {};
      const r = resolveModel(catalog, store.get().model, { rejected: req.rejected, fileModel: req.fileModel, canOpenFiles: localFiles });
      earlyModel = begun && early ? await early.model : null;
      const resolved = { catalog, modelRequest: null, model: r.model, ...noticePatch(store.get(), 'model', r.notice) };
      // The worker downloads the model while it compiles the wasm, and reads
      // it once both are done (worker.js).
      const engineReady = started.then((ready) => {
        const tm = ready?.timing;
        if (tm && startup) {
          startup.mark('worker', { at: pageTime(tm.startedAt) });
          startup.mark('compile', { at: pageTime(tm.compiledAt), detail: { variant: ready.variant, streamed: !!tm.streamed, ms: tm.compiledAt - tm.initAt } });
        }
        store.set({ build: ready?.variant ?? startOptions.variant });
      });
      engineReady.catch(() => { /* boot's own catch below reports it */ });
      await load({ engineReady, patch: resolved });
    } catch (err) {
      store.set({ status: 'failed', error: { stage: 'init', message: err.message } });
    }
  }

  /** The catalogue, from a request begun earlier (requestCatalog) or now; its problems in words. */
  async function loadCatalog(request = null) {
    if (inline?.index) return inline.index;
    const { url, response, json } = request ?? requestCatalog(base);
    let res;
    try {
      res = await response;
    } catch (err) {
      throw new Error(err.name === 'TimeoutError'
        ? t('catalog.timeout', { path: url.pathname, s: num(CONFIG.catalogTimeoutMs / 1000) })
        : t('catalog.offline', { path: url.pathname }));
    }
    if (!res.ok) throw new Error(t('catalog.http', { status: res.status, path: url.pathname }));
    const cat = await json;
    if (!cat || !Array.isArray(cat.models) || cat.models.length === 0) throw new Error(t('catalog.malformed'));
    return cat;
  }

  /** Resolve a requested model against the catalogue; say why when it is not the one asked for. */
  function check(model, rejected = null, fromFile = null) {
    const st = store.get();
    if (!st.catalog) {
      const req = st.modelRequest ?? {};
      store.set({ modelRequest: { rejected: rejected ?? req.rejected ?? null, fileModel: fromFile ?? req.fileModel ?? null } });
      return model;
    }
    const r = resolveModel(st.catalog, model, { rejected, fileModel: fromFile, canOpenFiles: localFiles });
    store.set({ ...noticePatch(st, 'model', r.notice), model: r.model });
    return r.model;
  }

  /** engineReady: the engine's start (boot); if it fails, that failure is
   *  thrown to boot (an 'init' error, not a model's).
   *  patch: state to set with the load's own (boot: the catalogue and the model). */
  async function load({ engineReady = null, patch = null } = {}) {
    const seq = ++loadSeq;
    const st = { ...store.get(), ...patch };
    const entry = st.catalog.models.find((m) => m.id === st.model);
    const name = entry?.label || st.model;
    // The progress bar moves at most once a frame: a download from a fast host
    // comes in many chunks, and each store.set() goes through every card.
    let latest = null;
    const shown = frameTask(() => { if (seq === loadSeq && latest) store.set({ progress: latest }); });
    let stage = 'download';
    // The bytes are verified (in the worker): what is left is the engine's reading them.
    const downloaded = () => {
      if (seq !== loadSeq || stage !== 'download') return;
      stage = 'check';
      shown.cancel();
      progress(t('load.checking'));
    };
    // prestart.js's model, if it is this one: its download and its load in the
    // engine are under way (or done) and are carried on, not begun again. Any
    // other load supersedes it in the worker (client.js: a newer load's id), which
    // stops its download and never loads it over this one.
    const adopt = earlyModel?.id === entry?.id ? earlyModel : null;
    earlyModel = null;
    let loading;
    if (adopt) {
      adopt.onProgress = (loaded, total) => { latest = downloadProgress(entry, loaded, total); shown.request(); };
      adopt.onDownloaded = downloaded;
      latest = adopt.last ? downloadProgress(entry, ...adopt.last) : downloadProgress(entry);
      shown.request();
      loading = adopt.loaded;
    } else {
      // The download starts before the cards hear of the load (its first steps,
      // a lock and a look in the cache, wait on other threads meanwhile).
      loading = loadCatalogModel(client, entry, {
        catalog: st.catalog, base, inline, storeWhenSettled: true,
        onProgress: (p) => { latest = p; shown.request(); },
        onDownloaded: (d) => {
          startup?.mark('download', { at: pageTime(d.doneAt), detail: { model: entry.id, file: entry.file, bytes: d.bytes, from: d.from, ms: d.doneAt - d.startedAt } });
          downloaded();
        },
        onTiming: (tm) => startup?.mark('load', { at: pageTime(tm.doneAt), detail: { model: entry.id, ms: tm.doneAt - tm.startAt } }),
      });
    }
    loading.catch(() => { /* awaited below */ });
    store.set({ ...patch, ...noticePatch(noticePatch(st, 'file', null), 'share', null), status: 'loading', info: null, trace: null, error: null, local: null });
    // (The download, or its start in the worker, may have been quicker than the line above.)
    if (adopt?.downloadedAt) downloaded();
    try {
      const info = await loading;
      if (seq !== loadSeq) return;
      store.set({ info, status: 'ready', progress: null });
    } catch (err) {
      shown.cancel();
      // Neither the download's nor the engine's word on the file: did the engine start at all?
      if (engineReady && !(err instanceof DownloadError) && !err.code) {
        const failed = await engineReady.then(() => null, (e) => e);
        if (failed) throw failed;
      }
      if (seq !== loadSeq) return;
      store.set({ status: 'failed', error: { stage: 'load', message: loadErrorMessage(name, stage, err) } });
    }
  }

  /** Why no model can be opened right now, or null. */
  function engineBusy() {
    const st = store.get();
    if (!client.worker || st.status === 'starting') return st.status === 'starting' ? t('file.busyStarting') : t('file.busyStopped');
    if (st.status === 'loading' || st.status === 'checking') return t('file.busyLoading');
    return null;
  }

  // ---------- a model file from the reader's disk ----------
  // The engine checks the file (magic, version, every size, checksum) and
  // either takes it or refuses it with a code and a message; refused, it
  // keeps the model it had, and so does the page: the sentence, the slider,
  // the step and the translation on screen stay as they were.
  async function openFile(file) {
    if (!file) return;
    const name = fileName(file);
    const refuse = (why) => notice('file', t('file.notLoaded', { name, why }));
    const busy = engineBusy();
    if (busy) return refuse(busy);
    if (file.size > CONFIG.maxModelFileBytes) return refuse(t('file.tooBig', { size: formatBytes(file.size), max: formatBytes(CONFIG.maxModelFileBytes) }));
    let bytes;
    try {
      bytes = new Uint8Array(await file.arrayBuffer());
    } catch (err) {
      return refuse(t('file.unreadable', { why: err.message }));
    }
    return openLocal({ name, size: bytes.length, bytes });
  }

  async function openLocal(local) {
    const busy = engineBusy();
    if (busy) {
      notice('file', t('file.notLoaded', { name: local.name, why: busy }));
      store.set({ pickerRev: (store.get().pickerRev ?? 0) + 1 }); // the picker goes back to the model in use
      return;
    }
    const before = store.get();
    const seq = ++loadSeq; // picking a model from the list meanwhile wins
    const current = before.info ? activeName(before) : null;
    store.set({ ...noticePatch(before, 'file', null), status: 'checking', progress: { text: t('file.checking', { name: local.name, size: formatBytes(local.size) }), value: null, max: null } });
    try {
      const info = await client.load(`${LOCAL}${local.name}`, local.bytes);
      if (seq !== loadSeq) return;
      let n = noticePatch(store.get(), 'model', null);
      n = noticePatch(n, 'share', null);
      store.set({ ...n, info, trace: null, local: { name: local.name, size: local.size }, localFile: { ...local, info }, status: 'ready', error: null, progress: null });
    } catch (err) {
      if (seq !== loadSeq) return;
      // The load dropped any translation in flight: back to 'ready', the translation controller asks again.
      store.set({
        ...noticePatch(store.get(), 'file', `${t('file.refused', { name: local.name, why: err.message })}${/[.!?]$/.test(err.message) ? '' : '.'}${fileHintFor(err.code)}${current ? ` ${t('file.stillUsing', { name: current })}` : ''}`),
        status: before.status, error: before.error, progress: null, pickerRev: (store.get().pickerRev ?? 0) + 1,
      });
    }
  }

  /** The picker chose `id` (a catalogue id, or LOCAL for the file opened before). */
  function pick(id) {
    store.set(noticePatch(store.get(), 'model', null));
    if (id === LOCAL) {
      const f = store.get().localFile;
      if (f) openLocal(f);
      return;
    }
    store.set({ model: id });
    load();
  }

  function retry() {
    const st = store.get();
    if (client.worker && st.error?.stage === 'load') load();
    else boot();
  }

  // Drop a .alsc file anywhere on the page. Only drags that carry files are
  // taken (text dragged into the sentence box behaves as usual), and a file
  // dropped anywhere never makes the browser navigate away from the page.
  let dragDepth = 0;
  const carriesFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  const onDragEnter = (e) => { if (!carriesFiles(e)) return; e.preventDefault(); dragDepth += 1; store.set({ dragging: true }); };
  const onDragOver = (e) => { if (!carriesFiles(e)) return; e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; store.set({ dragging: true }); };
  const onDragLeave = (e) => { if (!carriesFiles(e)) return; dragDepth = Math.max(0, dragDepth - 1); if (dragDepth === 0) store.set({ dragging: false }); };
  const onDrop = (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    dragDepth = 0;
    store.set({ dragging: false });
    const files = Array.from(e.dataTransfer.files ?? []);
    if (files.length === 1) openFile(files[0]);
    else notice('file', t('file.many', { n: files.length }));
  };
  const dragEvents = [['dragenter', onDragEnter], ['dragover', onDragOver], ['dragleave', onDragLeave], ['drop', onDrop]];
  if (localFiles) for (const [type, fn] of dragEvents) addEventListener(type, fn);

  return {
    boot, pick, check, openFile, retry, load,
    /** The model shown, as the exports and the worksheet name it: its id, or LOCAL + the file's name. */
    tag() { const st = store.get(); return st.local ? `${LOCAL}${st.local.name}` : st.model; },
    destroy() {
      settle();
      if (localFiles) for (const [type, fn] of dragEvents) removeEventListener(type, fn);
    },
  };
}
