// training.js - the training film (cards/training.js draws it): the
// default model's weights at a few points of its own training, each
// translating the current sentence. Nothing is fetched until the reader
// opens the film; then
//   1. the manifest (the catalogue's film entry names it and its SHA-256;
//      lib/film.js checks its rules),
//   2. each point's file, one after another (one progress bar counts their
//      bytes), checked against the manifest's SHA-256 before it is used
//      (lib/model-store.js), and loaded into that point's own engine worker,
//   3. every point translates what the main model translates (the same text,
//      at the same relative scale), again whenever that or the scale changes.
// A point that fails (HTTP error, wrong SHA-256, the engine refuses the file)
// says so, naming the file; the others stay usable, and retry() tries again
// only what failed.
//
// One worker per point, as the comparison does (controllers/compare.js), not
// one worker loading the points in turn: a worker holds one model, and every
// new sentence or scale would then reload and re-check every file (5 MB each)
// before the scrubber could move. Memory allows it: an engine with the int8
// default model loaded and translating holds 16 MiB of wasm memory (measured,
// engine.memoryBytes()), and a film has at most FILM_MAX_POINTS points.
//
// The store's `film`:
//   { status: 'closed'|'manifest'|'open'|'failed', error (why the manifest failed),
//     manifest (lib/film.js validateFilm), model (the film's model id),
//     download: { loaded, total } | null,
//     points: [{ status: 'waiting'|'downloading'|'starting'|'ready'|'failed', error, info, trace, translateError }] }
// and `filmPoint`, the point the scrubber shows (an index into points).
//
// The film's files are not stored for offline use ("Make all models available
// offline" leaves them out, and the service worker does not precache them):
// only a point that is a catalogue model (the shipped one at the end) goes
// through the catalogue's cache, so it is shared with the model picker.

import { CONFIG } from '../config.js';
import { scaleFor } from '../state.js';
import { cutText } from '../lib/sentences.js';
import { EngineClient, DownloadError } from '../client.js';
import { getModel, sha256Hex } from '../lib/model-store.js';
import { filmFor, validateFilm } from '../lib/film.js';
import { engineStartOptions } from './models.js';
import { t } from '../i18n/index.js';

export const FILM_CLOSED = { status: 'closed', error: null, manifest: null, model: null, download: null, points: [] };

/**
 * @param store  the widget's store
 * @param opts   { workerUrl, workerType, inline (single-file build), base (URL of web/),
 *                 seen: { active(), onWake(fn) } — is the film's card on screen (controllers/render.js);
 *                 off it, the points translate nothing until it comes back or the store is quiet }
 * @returns { open(), retry(), setPoint(i), destroy() }
 */
export function createTraining(store, { workerUrl, workerType, inline, base, seen = null }) {
  let run = 0;                 // a newer open() (or destroy) makes an older one moot
  let abort = null;
  const slots = [];            // per point: { client, ready, asked }
  const counted = new Map();   // point index -> bytes downloaded so far (the progress bar)

  const film = () => store.get().film ?? FILM_CLOSED;
  const setFilm = (values) => store.set({ film: { ...film(), ...values } });
  const setPointState = (i, values) => {
    const points = film().points.slice();
    if (!points[i]) return;
    points[i] = { ...points[i], ...values };
    setFilm({ points });
  };
  const modelsUrl = (rel) => new URL(`models/${rel}`, base);

  function stopWorkers() {
    for (const s of slots.splice(0)) s?.client.stop();
  }

  /** Open the film: fetch and check the manifest, then download and start each point. */
  async function open() {
    const st = store.get();
    const chosen = filmFor(st.catalog, st.model);
    if (!chosen || inline?.index) return;
    const mine = ++run;
    abort?.abort();
    abort = new AbortController();
    stopWorkers();
    counted.clear();
    const { film: entry } = chosen;
    const name = `models/${entry.manifest}`;
    store.set({ film: { ...FILM_CLOSED, status: 'manifest', model: entry.model }, filmPoint: 0 });
    let manifest;
    try {
      let res;
      try {
        res = await fetch(modelsUrl(entry.manifest), { signal: AbortSignal.any([abort.signal, AbortSignal.timeout(CONFIG.catalogTimeoutMs)]) });
      } catch (err) {
        if (mine !== run || err.name === 'AbortError') return;
        throw new Error(t('training.manifestNetwork', { file: name }));
      }
      if (!res.ok) throw new Error(t('training.manifestHttp', { file: name, status: res.status }));
      const bytes = new Uint8Array(await res.arrayBuffer());
      const got = await sha256Hex(bytes);
      if (entry.sha256 && got !== null && got !== entry.sha256) throw new Error(t('training.manifestChecksum', { file: name }));
      let json;
      try { json = JSON.parse(new TextDecoder().decode(bytes)); } catch { throw new Error(t('training.badManifest', { file: name, why: t('training.why.json') })); }
      manifest = validateFilm(json, { manifest: entry.manifest, model: entry.model });
    } catch (err) {
      if (mine !== run) return;
      setFilm({ status: 'failed', error: err.message });
      return;
    }
    if (mine !== run) return;
    setFilm({
      status: 'open', manifest,
      points: manifest.points.map(() => ({ status: 'waiting', error: null, info: null, trace: null, translateError: null })),
    });
    await loadPoints(mine, manifest.points.map((_, i) => i));
  }

  /** The catalogue model whose file a point is (the shipped model at the end), or null. */
  const catalogueModelOf = (point) => store.get().catalog?.models.find((m) => m.file === point.path) ?? null;

  /** Download the points `which`, one after another; each starts in its own worker as soon as its bytes are in. */
  async function loadPoints(mine, which) {
    const st = store.get();
    const { points } = film().manifest;
    // The model in use is not downloaded again: its bytes come from the same store (and cache) as the picker's.
    const shared = (i) => catalogueModelOf(points[i])?.id === st.model && !st.local;
    for (const i of which) counted.set(i, 0);
    const total = which.filter((i) => !shared(i)).reduce((n, i) => n + points[i].bytes, 0);
    const progress = () => setFilm({ download: { loaded: which.filter((i) => !shared(i)).reduce((n, i) => n + (counted.get(i) ?? 0), 0), total } });
    progress();
    const started = [];
    for (const i of which) {
      if (mine !== run) return;
      started.push(loadPoint(mine, i, (loaded) => { if (!shared(i)) { counted.set(i, Math.min(loaded, points[i].bytes)); progress(); } }));
      await started[started.length - 1].downloaded;
    }
    await Promise.all(started.map((s) => s.done));
    if (mine === run) setFilm({ download: null });
  }

  /** One point: its worker starts while its file downloads. -> { downloaded, done } (promises that never reject). */
  function loadPoint(mine, i, onBytes) {
    const point = film().manifest.points[i];
    const file = `models/${point.path}`;
    slots[i]?.client.stop();
    const client = new EngineClient({ workerUrl, workerType });
    const slot = { client, ready: false, asked: null };
    slots[i] = slot;
    const current = () => mine === run && slots[i] === slot;
    setPointState(i, { status: 'downloading', error: null, info: null, trace: null, translateError: null });
    const catalog = store.get().catalog;
    const engineStarted = client.start(engineStartOptions(inline, catalog, base));
    engineStarted.catch(() => {}); // reported below, after the download
    const shippedModel = catalogueModelOf(point);
    const downloaded = getModel({
      url: modelsUrl(point.path), sha256: point.sha256,
      // A catalogue model goes through the catalogue's cache (shared with the picker); the other points are not kept offline.
      cacheName: shippedModel ? catalog?.cache ?? null : null,
      signal: abort.signal,
      onProgress: (loaded) => { if (current()) onBytes(loaded); },
    }).then((r) => ({ bytes: r.bytes }), (err) => ({ err }));
    const done = (async () => {
      const got = await downloaded;
      if (!current()) return;
      if (got.err) {
        if (got.err.name === 'AbortError') return;
        const why = got.err instanceof DownloadError && got.err.kind === 'checksum' ? t('training.checksum') : got.err.message;
        fail(i, t('training.failedDownload', { file, why }));
        return;
      }
      onBytes(point.bytes);
      setPointState(i, { status: 'starting' });
      try {
        await engineStarted;
      } catch (err) {
        if (current()) fail(i, t('training.failedStart', { file, why: err.message }));
        return;
      }
      let info;
      try {
        info = await client.load(`film:${point.update}`, got.bytes);
      } catch (err) {
        if (current()) fail(i, t('training.failedOpen', { file, why: err.message }));
        return;
      }
      if (!current()) return;
      slot.ready = true;
      client.onResult = (trace) => { if (current()) setPointState(i, { trace, translateError: null }); };
      client.onError = (err, where) => {
        if (!current()) return;
        if (where === 'translate') setPointState(i, { trace: null, translateError: t('training.cannotTranslate', { why: err.message }) });
        else { slot.ready = false; fail(i, t('training.engineStopped', { file, why: err.message })); }
      };
      setPointState(i, { status: 'ready', info });
      ask(i);
    })();
    return { downloaded, done };
  }

  function fail(i, message) {
    slots[i]?.client.stop();
    setPointState(i, { status: 'failed', error: message, info: null, trace: null });
  }

  /** What the film translates: what the main model last translated, else the sentence itself. */
  function textOf(st) {
    if (st.trace?.text) return st.trace.text;
    return st.sentence?.trim() ? cutText(st.sentence, CONFIG.maxSentenceChars) : '';
  }

  /** Ask point i to translate the current text at the current scale (once per text and scale; the client coalesces). */
  function ask(i) {
    const st = store.get();
    const slot = slots[i];
    const info = st.film?.points[i]?.info;
    const text = textOf(st);
    if (!slot?.ready || !info || !text || (seen && !seen.active())) return;
    // A cut part (the main model read its first tokens only): each point reads as many.
    const cutSource = !!(st.trace?.text && st.trace.cut);
    const key = `${text}\u0000${st.scale}\u0000${cutSource}`;
    if (slot.asked === key) return;
    slot.asked = key;
    slot.client.translate({ text, scoreScale: scaleFor(info, st.scale).scoreScale, topK: CONFIG.topK, cutSource, sentence: st.sentence, part: null });
  }

  /** Try again what failed: the manifest (the whole film), or the points that failed. */
  async function retry() {
    const f = film();
    if (f.status === 'failed' || !f.manifest) { open(); return; }
    const failed = f.points.map((p, i) => (p.status === 'failed' ? i : -1)).filter((i) => i >= 0);
    if (!failed.length) return;
    await loadPoints(run, failed);
  }

  function setPoint(i) {
    const n = film().points.length;
    if (!n) return;
    store.set({ filmPoint: Math.max(0, Math.min(n - 1, Math.round(i))) });
  }

  const unsubscribe = store.subscribe((st, changed) => {
    // A new result of the main model (a new sentence, or part of one) or a new scale: every point translates it.
    if (changed.has('trace') || changed.has('scale') || (changed.has('sentence') && !st.trace)) {
      if (st.film?.status === 'open') queueMicrotask(askAll);
    }
  });
  const askAll = () => slots.forEach((_, i) => ask(i));
  const unwake = seen?.onWake(askAll);

  return {
    open, retry, setPoint,
    destroy() {
      run += 1;
      abort?.abort();
      stopWorkers();
      unsubscribe();
      unwake?.();
    },
  };
}
