// client.js - the main thread's side of the worker: start, load, translate.
//
// translate() coalesces: at most one request is in flight; while it runs,
// newer requests replace each other and only the latest is sent next. So a
// slider dragged at 120 events/s costs one decode per worker round trip and
// the picture always ends on the latest value. Each answer of the sentence
// on screen is reported as it comes (the figure moves with the drag, once a
// round trip); one for a text that has since changed is not.

import { t, num, fixed } from './i18n/core.js';
import { CONFIG } from './config.js';
import { STATUS_CODES } from './engine.js';
import { DownloadError, fetchWithProgress as fetchBytes } from './lib/download.js';
import { storedElsewhere } from './lib/model-store.js';

export { DownloadError };

/**
 * True when `err` carries the engine's status `name` (e.g.
 * 'AS_ERR_INPUT_TOO_LONG'). The names come from engine.js, the one place JS
 * knows them; asking for one it does not know is a bug, caught at once.
 */
export function statusIs(err, name) {
  if (!STATUS_CODES.includes(name)) throw new Error(`statusIs: no engine status ${name}`);
  return err?.code === name;
}

export class EngineClient {
  /** @param {{ workerUrl: URL|string, onResult: Function, onError: Function }} opts */
  constructor({ workerUrl, workerType = 'module', onResult, onError }) {
    this.workerUrl = workerUrl;
    this.workerType = workerType;
    this.onResult = onResult;
    this.onError = onError;
    this.worker = null;
    this.initialised = false; // start() has sent this worker its 'init'
    this.workerError = null;  // the worker failed before start() (its script, say)
    this.nextId = 1;
    this.inFlight = null;    // { id, params, sentAt }
    this.pending = null;     // latest params waiting for the worker
    this.waiters = new Map(); // type -> { resolve, reject, timer }
    this.lastRoundTripMs = NaN;
    this.roundTrips = [];
    this.loadId = 0;
    // The requests answered by id beside translate() (tokenize, beam, decode, mathCheck, erasure; #ask):
    // id -> { answer (the reply's type), stage (its error's), loadId (null: no model needed), value(msg), resolve, reject }
    this.asked = new Map();
    this.loadCallbacks = null; // loadUrl()'s { loadId, onProgress, onDownloaded }
    this.pageSettled = false;  // settle() was called: every worker of this client may cache at once
  }

  /**
   * Create the worker without starting its engine, so that its modules load
   * while the page still works out how to start it (the catalogue names the
   * wasm, models.js boot()); start() then uses it. Throws where no worker can
   * be made (start() says so). Does nothing when there is a worker already.
   */
  spawn() {
    if (this.worker) return;
    this.workerError = null;
    this.worker = new Worker(this.workerUrl, { type: this.workerType, name: 'alignscope-engine' });
    this.worker.onmessage = (e) => this.#onMessage(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      const err = new Error(e.message ? t('engine.failedWhy', { why: e.message }) : t('engine.failed'));
      // Kept: a worker that fails before start() (spawned ahead) is reported by start().
      this.workerError = err;
      this.#rejectAll(err);
      this.onError?.(err, 'worker');
    };
    this.worker.onmessageerror = () => this.#rejectAll(new Error(t('engine.unreadable')));
    if (this.pageSettled) this.worker.postMessage({ type: 'settled' });
  }

  /**
   * The page's first heatmap is on screen (or its start is over): a model
   * the worker downloaded with storeWhenSettled is written to the cache now.
   */
  settle() {
    if (this.pageSettled) return;
    this.pageSettled = true;
    this.worker?.postMessage({ type: 'settled' });
  }

  /**
   * Start the worker and the engine: `variant` ('relaxed', 'simd' or
   * 'scalar', engine.js bestVariant() on this thread), `wasmBytes` that
   * build's module when the page carries it inline, `wasmUrls` { relaxed,
   * simd, scalar } where the catalogue names the wasm by content hash
   * (dist/). Resolves with the worker's 'ready' message: { variant,
   * timing: { startedAt, initAt, compiledAt, streamed } } (epoch ms, worker.js).
   */
  start({ wasmBytes, wasmUrls, variant } = {}) {
    // A worker spawned ahead (spawn()) and not started yet is used; any other is replaced.
    if (this.initialised || !this.worker) {
      this.stop();
      try {
        this.spawn();
      } catch (err) {
        return Promise.reject(new Error(t('engine.cannotStart', { why: err.message })));
      }
    }
    if (this.workerError) {
      // It failed before its start: said once, and the next start() makes a new one.
      const err = this.workerError;
      this.stop();
      return Promise.reject(err);
    }
    this.initialised = true;
    const p = this.#expect('ready', CONFIG.engineStartTimeoutMs);
    const msg = { type: 'init', variant };
    if (wasmUrls) msg.wasmUrls = Object.fromEntries(Object.entries(wasmUrls).map(([k, u]) => [k, String(u)]));
    const transfer = [];
    if (wasmBytes) {
      const copy = wasmBytes.slice().buffer;
      msg.wasmBytes = copy;
      transfer.push(copy);
    }
    this.worker.postMessage(msg, transfer);
    return p;
  }

  /**
   * Load model bytes (Uint8Array). Resolves with the model info, or rejects
   * with the engine's error (code, message); the engine then keeps the model
   * it had. A newer load supersedes an older one: the older promise rejects
   * and its late answer is ignored. Translations asked for before the load
   * are dropped (their results would describe the previous model).
   * onTiming({ startAt, doneAt }): when the worker's engine read the model
   * (epoch ms, worker.js). transfer: the caller gives the bytes away (they
   * are detached here, not copied; a view of part of a buffer is copied anyway).
   */
  load(modelId, bytes, { onTiming = null, transfer = false } = {}) {
    const p = this.#expect('loaded', CONFIG.requestTimeoutMs);
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const copy = transfer && whole ? bytes.buffer : bytes.slice().buffer;
    this.inFlight = null;
    this.pending = null;
    this.loadId += 1;
    this.worker.postMessage({ type: 'load', modelId, loadId: this.loadId, bytes: copy }, [copy]);
    return p.then((m) => { if (m.timing) onTiming?.(m.timing); return m.info; });
  }

  /**
   * Load a catalogue model that the worker downloads itself (worker.js: the
   * model store, its cache and SHA-256 check run there; the bytes never come
   * to this thread). Resolves with the model info; rejects with a
   * DownloadError (its words made here, in the UI language), the engine's
   * error (code, message) for a file it refuses, or, where the engine did
   * not start, an error with phase 'engine'. A newer load supersedes it, as
   * with load(), and stops its download. The timeout counts from the bytes'
   * arrival: a download has its own (lib/download.js: no byte for stallMs).
   *   onProgress(loaded, total)      the download, as it goes
   *   onDownloaded({ bytes, from, startedAt, doneAt })   verified (epoch ms)
   *   onTiming({ startAt, doneAt })  when the engine read the model (epoch ms)
   *   storeWhenSettled               the cache write waits for settle()
   */
  loadUrl(modelId, { url, sha256 = null, cacheName = null, storeWhenSettled = false, onProgress = null, onDownloaded = null, onTiming = null } = {}) {
    const p = this.#expect('loaded', null);
    this.inFlight = null;
    this.pending = null;
    this.loadId += 1;
    this.loadCallbacks = { loadId: this.loadId, onProgress, onDownloaded };
    this.worker.postMessage({ type: 'load', modelId, loadId: this.loadId, url: String(url), sha256, cacheName, storeWhenSettled });
    return p.then((m) => { if (m.timing) onTiming?.(m.timing); return m.info; });
  }

  /**
   * Ask for a translation; results arrive through onResult(trace, params,
   * roundTripMs, workerMs, doneAt), doneAt the worker's epoch ms.
   */
  translate(params) {
    if (!this.worker) return;
    if (this.inFlight) {
      this.pending = params;
      return;
    }
    this.#send(params);
  }

  /**
   * The model's tokens of `text`, as [{ start, end }] (UTF-16), for the live
   * token count and for cutting a long text into sentences. Rejects when a
   * model load overtakes it (its answer would be about the old model).
   */
  tokenize(text) {
    return this.#ask({ type: 'tokenize', text }, 'tokens', 'tokenize',
      (msg) => Array.from(msg.starts, (start, i) => ({ start, end: msg.ends[i] })));
  }

  /**
   * A beam search (engine.beam): resolves to { hypotheses, greedy (the
   * greedy trace of the same text), beamWidth, lengthPenalty, workerMs },
   * best hypothesis first; rejects with the
   * engine's message (err.code) or when a model load overtakes it.
   */
  beam({ text, scoreScale, topK, beamWidth, lengthPenalty, overrides, cutSource = false }) {
    return this.#ask({ type: 'beam', text, scoreScale, topK: topK ?? CONFIG.topK, beamWidth, lengthPenalty, overrides: overrides ?? [], cutSource },
      'beam-result', 'beam', ({ hypotheses, greedy, beamWidth: width, lengthPenalty: lp, workerMs }) => ({ hypotheses, greedy, beamWidth: width, lengthPenalty: lp, workerMs }));
  }

  /**
   * One translation beside the main one (the pinned attention of
   * cards/pin.js): it neither replaces nor waits for translate()'s requests
   * and is never reported through onResult. Resolves to { trace, workerMs };
   * rejects with the engine's error (err.code, e.g. AS_ERR_BAD_ATTENTION_OVERRIDE)
   * or, when a model load overtakes it, with err.superseded set. window,
   * windowSteps: the local window of the step-through (engine.translate's).
   */
  decode({ text, scoreScale, topK, beamWidth, lengthPenalty, overrides, cutSource = false, window = null, windowSteps = 0 }) {
    return this.#ask({ type: 'decode', text, scoreScale, topK: topK ?? CONFIG.topK, beamWidth, lengthPenalty, overrides: overrides ?? [], cutSource,
      window, windowSteps },
      'decode-result', 'decode', (msg) => ({ trace: msg.trace, workerMs: msg.workerMs }));
  }

  /**
   * The math check's curves (worker.js 'mathcheck', lib/mathcheck.js
   * mathCurves, scored by the engine's own dot-product kernel): resolves to
   * { curves, workerMs }; rejects with the engine's error. No model is needed,
   * so a model load does not overtake it.
   */
  mathCheck({ seed, keys, draws }) {
    return this.#ask({ type: 'mathcheck', seed, keys, draws }, 'mathcheck-result', 'mathcheck',
      (msg) => ({ curves: msg.curves, workerMs: msg.workerMs }), { needsModel: false });
  }

  /**
   * The erasure card's map (worker.js 'erasure', lib/erasure.js erasureMap):
   * the output `targetIds` scored again with each column group of the
   * source removed. Resolves to { method, base, drop, erasable, T, G,
   * workerMs, cached }; rejects with the engine's error (err.code) or, when
   * a model load overtakes it, with err.superseded set. signal (an
   * AbortSignal): aborting it stops the worker's computation (it runs in
   * slices, worker.js) and rejects at once with err.cancelled set.
   */
  erasure({ sourceIds, targetIds, scoreScale, groups }, { signal = null } = {}) {
    return this.#ask({ type: 'erasure', sourceIds: Array.from(sourceIds), targetIds: Array.from(targetIds), scoreScale, groups },
      'erasure-result', 'erasure', ({ method, base, drop, erasable, T, G, workerMs, cached }) => ({ method, base, drop, erasable, T, G, workerMs, cached }),
      { signal });
  }

  /**
   * Send `message` with a new id; resolve with value(reply) when the worker's
   * `answer` (or an error of `stage`) comes back with that id. A request about
   * the model (needsModel) that a model load overtook rejects with
   * err.superseded: its answer is about the old model.
   */
  #ask(message, answer, stage, value, { needsModel = true, signal = null } = {}) {
    if (!this.worker) return Promise.reject(new Error(t('engine.notRunning')));
    if (signal?.aborted) return Promise.reject(cancelled());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const entry = { answer, stage, loadId: needsModel ? this.loadId : null, value, resolve, reject };
      this.asked.set(id, entry);
      this.worker.postMessage({ ...message, id });
      signal?.addEventListener('abort', () => {
        if (this.asked.get(id) !== entry) return; // answered already
        // The worker's reply (an error saying it stopped, or an answer already on its way) is dropped when it comes.
        entry.resolve = entry.reject = () => {};
        this.worker?.postMessage({ type: 'cancel', id });
        reject(cancelled());
      }, { once: true });
    });
  }

  get busy() {
    return this.inFlight !== null;
  }

  stop() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.initialised = false;
    this.workerError = null;
    this.inFlight = null;
    this.pending = null;
    this.#rejectAll(new Error('stopped'));
  }

  #send(params) {
    const id = this.nextId++;
    this.inFlight = { id, params, sentAt: performance.now() };
    this.worker.postMessage({ type: 'translate', id, text: params.text, scoreScale: params.scoreScale, topK: params.topK ?? CONFIG.topK,
      beamWidth: params.beamWidth, lengthPenalty: params.lengthPenalty, overrides: params.overrides ?? [], cutSource: !!params.cutSource });
  }

  /** A promise for the worker's next `type` message; timeoutMs null: no timer until #arm(). */
  #expect(type, timeoutMs) {
    const old = this.waiters.get(type);
    if (old) { clearTimeout(old.timer); old.reject(new Error('superseded')); }
    return new Promise((resolve, reject) => {
      this.waiters.set(type, { resolve, reject, timer: 0 });
      if (timeoutMs != null) this.#arm(type, timeoutMs);
    });
  }

  #arm(type, timeoutMs) {
    const w = this.waiters.get(type);
    if (!w) return;
    clearTimeout(w.timer);
    w.timer = setTimeout(() => {
      if (this.waiters.get(type) !== w) return;
      this.waiters.delete(type);
      w.reject(new Error(t('engine.timeout', { s: num(Math.round(timeoutMs / 1000)) })));
    }, timeoutMs);
  }

  #settle(type, value) {
    const w = this.waiters.get(type);
    if (!w) return;
    this.waiters.delete(type);
    clearTimeout(w.timer);
    w.resolve(value);
  }

  #rejectAll(err) {
    for (const [, w] of this.waiters) { clearTimeout(w.timer); w.reject(err); }
    this.waiters.clear();
    for (const [, w] of this.asked) w.reject(err);
    this.asked.clear();
  }

  #onMessage(msg) {
    const w = this.asked.get(msg.id);
    if (w && (msg.type === w.answer || (msg.type === 'error' && msg.stage === w.stage))) {
      this.asked.delete(msg.id);
      if (w.loadId !== null && w.loadId !== this.loadId) w.reject(Object.assign(new Error('superseded by a model load'), { code: null, superseded: true }));
      else if (msg.type === 'error') w.reject(Object.assign(new Error(msg.message), { code: msg.code ?? null, status: msg.status ?? null }));
      else w.resolve(w.value(msg));
      return;
    }
    if (msg.type === 'stored') {
      // A model the worker wrote to the cache: this page's listeners (the offline count) hear of it.
      performance.mark?.('alignscope:model-stored', { startTime: Math.max(0, msg.putAt - performance.timeOrigin), detail: { url: msg.url, cacheName: msg.cacheName } });
      storedElsewhere({ url: msg.url, cacheName: msg.cacheName, putAt: msg.putAt });
      return;
    }
    // The answer to a load that a newer load replaced: nobody waits for it.
    if (['loaded', 'progress', 'downloaded'].includes(msg.type) || (msg.type === 'error' && msg.stage === 'load')) {
      if (msg.loadId !== this.loadId) return;
    }
    if (msg.type === 'progress' || msg.type === 'downloaded') {
      const cb = this.loadCallbacks?.loadId === msg.loadId ? this.loadCallbacks : null;
      if (msg.type === 'progress') cb?.onProgress?.(msg.loaded, msg.total);
      else {
        this.#arm('loaded', CONFIG.requestTimeoutMs);
        cb?.onDownloaded?.({ bytes: msg.bytes, from: msg.from, startedAt: msg.startedAt, doneAt: msg.doneAt });
      }
      return;
    }
    if (msg.type === 'ready' || msg.type === 'loaded') {
      this.#settle(msg.type, msg);
      return;
    }
    if (msg.type === 'result' || (msg.type === 'error' && msg.stage === 'translate')) {
      // A request sent before the latest load: its result is about the old model.
      if (!this.inFlight || this.inFlight.id !== msg.id) return;
      const done = this.inFlight;
      this.inFlight = null;
      const rt = performance.now() - done.sentAt;
      if (msg.type === 'result') {
        this.lastRoundTripMs = rt;
        this.roundTrips.push(rt);
        if (this.roundTrips.length > 200) this.roundTrips.shift();
      }
      const next = this.pending;
      this.pending = null;
      if (next) this.#send(next);
      // While the slider is dragged there is always a newer request waiting: a result of the same
      // text is still newer than the one on screen, so it is reported (the figure follows the drag
      // once a round trip, in order). A result for another text, or an error, is about to be replaced.
      const sameText = next && next.text === done.params.text && next.sentence === done.params.sentence;
      if (msg.type === 'result' && (!next || sameText)) this.onResult?.(msg.trace, done.params, rt, msg.workerMs, msg.doneAt);
      else if (msg.type === 'error' && !next) this.onError?.(Object.assign(new Error(msg.message), { code: msg.code, status: msg.status }), 'translate', done.params);
      return;
    }
    if (msg.type === 'error') {
      const w = this.waiters.get(msg.stage === 'init' ? 'ready' : 'loaded');
      // A failed download is made again here, so that its words are in the page's UI language.
      const err = msg.phase === 'download' && msg.kind
        ? new DownloadError(msg.kind, msg.key, msg.values ?? {}, { loaded: msg.loaded, total: msg.total, status: msg.status })
        : Object.assign(new Error(msg.message), { code: msg.code, status: msg.status, ...(msg.phase ? { phase: msg.phase } : {}) });
      if (w) {
        this.waiters.delete(msg.stage === 'init' ? 'ready' : 'loaded');
        clearTimeout(w.timer);
        w.reject(err);
      } else {
        this.onError?.(err, msg.stage);
      }
    }
  }
}

/** The rejection of a request its caller cancelled (#ask's signal). */
const cancelled = () => Object.assign(new Error('cancelled'), { code: null, cancelled: true });

/** "3.2 MB" (decimal megabytes, as download sizes are usually given). */
export function formatBytes(n) {
  if (!(n >= 0)) return '?';
  if (n < 1e6) return t('bytes.kB', { n: num(Math.round(n / 1e3)) });
  return t('bytes.MB', { n: fixed(n / 1e6, 1) });
}

// A DownloadError's message in the UI language (lib/download.js): its values
// are raw (bytes, seconds), made into words here.
DownloadError.words = (key, v) => {
  if (key === 'download.truncated') return t(key, { loaded: num(v.loaded), n: v.total });
  return t(key, { ...v, ...(v.s != null ? { s: num(v.s) } : {}), ...(v.loaded != null ? { loaded: formatBytes(v.loaded) } : {}), ...(v.total != null ? { total: formatBytes(v.total) } : {}) });
};

/** lib/download.js's fetchWithProgress, with the page's stall time (config.js). */
export function fetchWithProgress(url, onProgress, { stallMs = CONFIG.downloadStallMs, ...opts } = {}) {
  return fetchBytes(url, onProgress, { stallMs, ...opts });
}

/** base64 → Uint8Array (for the single-file build's inlined bytes). */
export function fromBase64(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
