// worker.js - runs the engine off the main thread.
//
// Protocol (every message is a plain object):
//   → { type: 'init', variant?: 'relaxed'|'simd'|'scalar', wasmBytes?: ArrayBuffer, wasmUrls?: { relaxed, simd, scalar } }
//     (no variant: the worker's own bestVariant(); the page sends the one it detected;
//     wasmUrls: dist/'s content-hashed file names, from the catalogue)
//   ← { type: 'ready', variant, timing: { startedAt, initAt, compiledAt, streamed } }
//   → { type: 'load', modelId, loadId, bytes: ArrayBuffer }
//   → { type: 'load', modelId, loadId, url, sha256?, cacheName?, storeWhenSettled? }
//     (a catalogue model: this worker downloads it itself, through
//     lib/model-store.js: the Cache API and a Web Lock shared with every
//     thread of the origin, checked against sha256; storeWhenSettled: the
//     cache write waits for 'settled'. A newer load stops an older download.)
//   ← { type: 'progress', loadId, loaded, total }      (at most one per PROGRESS_MS, and the last)
//   ← { type: 'downloaded', loadId, bytes, from: 'cache'|'network', startedAt, doneAt }
//   ← { type: 'loaded', modelId, loadId, info, timing: { startAt, doneAt } }
//     (a refused file: { type: 'error', stage: 'load', phase: 'check', loadId, code, message },
//     and the engine keeps the model it had; a failed download: phase 'download',
//     with the DownloadError's kind, key, values, status, loaded, total
//     (lib/download.js: the page makes its words); an engine that did not start: phase 'engine')
//   → { type: 'settled' }   the page's first heatmap is on screen: downloads may be cached now
//   ← { type: 'stored', url, cacheName, putAt }   a downloaded model was written to the cache
//   → { type: 'translate', id, text, scoreScale, topK, beamWidth?, lengthPenalty?, overrides?, cutSource? }
//   ← { type: 'result', id, trace, workerMs, doneAt }
//     (overrides: [{ step, weights }], engine.translate's pinned attention;
//     beamWidth > 1: engine.beam's best hypothesis is the trace, with its
//     logProb, score and stepLogProbs; the trace says how it was decoded in
//     beamWidth (1: greedy, engine.translate) and lengthPenalty)
//   → { type: 'decode', id, text, scoreScale, topK, beamWidth?, lengthPenalty?, overrides?, cutSource?, window?, windowSteps? }
//   ← { type: 'decode-result', id, trace, workerMs }
//     (the same translation as a request of its own, beside the main one:
//     the pinned attention of cards/pin.js, or the local window of the
//     step-through (window: D, windowSteps: the global translation's T;
//     engine.translate's); a refusal is { type: 'error', stage: 'decode', id, code, message })
//   → { type: 'beam', id, text, scoreScale, topK, beamWidth, lengthPenalty, overrides?, cutSource? }
//   ← { type: 'beam-result', id, hypotheses, greedy, beamWidth, lengthPenalty, workerMs }
//     (engine.beam, and engine.translate's greedy trace of the same text for
//     the card to compare; a refusal is { type: 'error', stage: 'beam', id, code, message })
//     (cutSource: read the first maxSourceTokens tokens of a longer text, engine.translate's)
//   → { type: 'tokenize', id, text }            (the page's live token count)
//   ← { type: 'tokens', id, starts, ends }      (UTF-16 spans of the model's tokens)
//   → { type: 'mathcheck', id, seed, keys, draws }  (the math check card's curves, lib/mathcheck.js,
//     scored by engine.dotScores: the engine's own dot-product kernel; no model needed)
//   ← { type: 'mathcheck-result', id, curves, workerMs }
//   → { type: 'erasure', id, sourceIds, targetIds, scoreScale, groups }
//   ← { type: 'erasure-result', id, method, base, drop, erasable, T, G, workerMs, cached }
//     (the erasure card's map, lib/erasure.js erasureMap over engine.forceScore:
//     sourceIds the tokens the trace read (not its </s>), targetIds the emitted ones,
//     groups [[first, count], …] the heatmap's columns over the S source positions;
//     method 'mask' (attention masked) or 'delete' (the no-attention model);
//     kept per (model, sentence, output, scoreScale, columns): ERASURE_CACHE answers;
//     a refusal is { type: 'error', stage: 'erasure', id, code, message })
//   → { type: 'cancel', id }   stop the erasure or mathcheck request `id` (its reply: an error with cancelled: true)
//     (those two run in slices of a few ms, lib/slices.js: a translation or token count asked
//     for meanwhile is answered between slices; one whose model a load replaced meanwhile stops,
//     its reply an error with superseded: true)
//   ← { type: 'error', id?, loadId?, stage, code?, message, cancelled?, superseded? }
// Typed arrays in a trace are copied out of wasm memory before they are
// transferred, so the engine's memory is never detached.
// Times (startedAt, …, doneAt) are epoch ms (performance.timeOrigin +
// performance.now()): this worker's clock starts at its own creation, so the
// page puts them on its timeline itself (lib/startup.js pageTime).

import { bestVariant, createEngine } from './engine.js';
import { mathCurvesSteps } from './lib/mathcheck.js';
import { erasureSteps } from './lib/erasure.js';
import { runInSlices } from './lib/slices.js';
import { getModel, onStored } from './lib/model-store.js';

const epochNow = () => performance.timeOrigin + performance.now();
// When this module started running (its imports fetched and evaluated).
const startedAt = epochNow();

let engine = null;
let enginePromise = null;
// The newest load, and the download it runs (a newer load stops it).
let latestLoadId = 0;
let downloading = null;
// Resolved by the page's 'settled': a model downloaded for the first heatmap
// is written to the cache only once that heatmap is on screen.
let settle;
const settled = new Promise((resolve) => { settle = resolve; });
const PROGRESS_MS = 50;
// The erasure maps computed for the model loaded now (a load empties it), newest last:
// key -> the reply's fields. A few: the page asks again for the sentence and level it shows.
const ERASURE_CACHE = 8;
const erasures = new Map();
// Bumped by every model load: work in slices (below) on an older model stops.
let modelGeneration = 0;
// The requests running in slices (erasure, mathcheck), by id: { cancelled }.
// Between slices the worker answers what came meanwhile (a translation, a
// token count), and a 'cancel' from the page stops the request.
const slicedJobs = new Map();
const SLICE_MS = 8;

/**
 * Run a generator of work (lib/slices.js) in slices for request `id`.
 * Rejects with err.cancelled when the page cancelled it, and with
 * err.superseded when `needsModel` and a model load came meanwhile.
 */
async function sliced(id, steps, { needsModel }) {
  const job = { cancelled: false };
  const generation = modelGeneration;
  slicedJobs.set(id, job);
  try {
    return await runInSlices(steps, {
      sliceMs: SLICE_MS,
      stop: () => (job.cancelled ? Object.assign(new Error('cancelled by the page'), { cancelled: true })
        : needsModel && generation !== modelGeneration ? Object.assign(new Error('superseded by a model load'), { superseded: true }) : null),
    });
  } finally {
    slicedJobs.delete(id);
  }
}
onStored((info) => postMessage({ type: 'stored', ...info }));

function fail(stage, err, id, loadId, extra = {}) {
  const download = err?.name === 'DownloadError'
    ? { kind: err.kind, key: err.key, values: err.values, loaded: err.loaded, total: err.total } : {};
  // A request stopped in slices (sliced() below) says why, so the page can tell it from a failure.
  const stopped = err?.cancelled ? { cancelled: true } : err?.superseded ? { superseded: true } : {};
  postMessage({ type: 'error', id, loadId, stage, code: err?.code ?? null, status: err?.status ?? null, message: String(err?.message ?? err), ...download, ...stopped, ...extra });
}

/** A catalogue model's bytes, downloaded (or read from the cache) here; its progress to the page. */
async function download(msg) {
  downloading?.abort();
  const ctrl = new AbortController();
  downloading = ctrl;
  let last = -Infinity;
  const onProgress = (loaded, total) => {
    const now = performance.now();
    if (now - last < PROGRESS_MS && loaded !== total) return;
    last = now;
    postMessage({ type: 'progress', loadId: msg.loadId, loaded, total });
  };
  try {
    const r = await getModel({ url: msg.url, sha256: msg.sha256 ?? null, cacheName: msg.cacheName ?? null, signal: ctrl.signal,
      storeWhen: msg.storeWhenSettled ? settled : null, onProgress });
    postMessage({ type: 'downloaded', loadId: msg.loadId, bytes: r.bytes.length, from: r.from, startedAt: performance.timeOrigin + r.startedAt, doneAt: epochNow() });
    return r.bytes;
  } finally {
    if (downloading === ctrl) downloading = null;
  }
}

function copyTrace(tr) {
  const transfer = [];
  const out = {};
  for (const [k, v] of Object.entries(tr)) {
    if (ArrayBuffer.isView(v)) {
      const c = v.slice();
      transfer.push(c.buffer);
      out[k] = c;
    } else {
      out[k] = v;
    }
  }
  return { trace: out, transfer };
}

/** The erasure map of one request (lib/erasure.js), from the cache when this model computed it already. */
async function erasureFor(msg) {
  if (!engine?.info) throw new Error('alignscope: no model loaded');
  const sourceIds = Int32Array.from(msg.sourceIds ?? []);
  const targetIds = Int32Array.from(msg.targetIds ?? []);
  const groups = (msg.groups ?? []).map(([first, count]) => ({ first, count }));
  const key = `${msg.scoreScale}|${sourceIds.join(',')}|${targetIds.join(',')}|${(msg.groups ?? []).join(';')}`;
  const hit = erasures.get(key);
  if (hit) {
    erasures.delete(key);
    erasures.set(key, hit);
    return { ...hit, cached: true };
  }
  // The encoder's positions: the tokens, and the </s> a model with architecture.sourceEos reads after them
  // (as_model_source_positions).
  const info = engine.info;
  const S = sourceIds.length + (info.architecture?.sourceEos ? 1 : 0);
  const method = info.attention === 'none' ? 'delete' : 'mask';
  const score = (src, keep) => engine.forceScore(src, targetIds, { keep, scoreScale: msg.scoreScale }).logProbs;
  const map = await sliced(msg.id, erasureSteps({ sourceIds, targetIds, S, groups, method }, score), { needsModel: true });
  const value = { method, base: map.base, drop: map.drop, erasable: map.erasable, T: map.T, G: map.G, cached: false };
  erasures.set(key, value);
  if (erasures.size > ERASURE_CACHE) erasures.delete(erasures.keys().next().value);
  return value;
}

self.onmessage = async (event) => {
  const msg = event.data || {};
  try {
    if (msg.type === 'init') {
      const initAt = epochNow();
      const variant = msg.variant || bestVariant();
      const opts = { variant };
      if (msg.wasmBytes) opts.wasmBytes = new Uint8Array(msg.wasmBytes);
      else if (msg.wasmUrls?.[variant]) opts.wasmUrl = msg.wasmUrls[variant];
      enginePromise = createEngine(opts);
      engine = await enginePromise;
      postMessage({ type: 'ready', variant, timing: { startedAt, initAt, compiledAt: epochNow(), streamed: engine.streamed } });
    } else if (msg.type === 'settled') {
      settle();
    } else if (msg.type === 'cancel') {
      const job = slicedJobs.get(msg.id);
      if (job) job.cancelled = true;
    } else if (msg.type === 'load') {
      latestLoadId = msg.loadId;
      if (!msg.url) downloading?.abort();
      let bytes;
      try {
        bytes = msg.url ? await download(msg) : new Uint8Array(msg.bytes);
      } catch (err) {
        fail('load', err, msg.id, msg.loadId, { phase: 'download' });
        return;
      }
      // (The download ran while the wasm compiled: the engine is awaited only now.)
      try {
        if (!engine) engine = await (enginePromise ?? Promise.reject(new Error('the engine was not started')));
      } catch (err) {
        fail('load', err, msg.id, msg.loadId, { phase: 'engine' });
        return;
      }
      // A newer load came meanwhile: this one's bytes are cached, not loaded over it.
      if (msg.loadId !== latestLoadId) return;
      const startAt = epochNow();
      let info;
      try {
        info = engine.load(bytes);
      } catch (err) {
        fail('load', err, msg.id, msg.loadId, { phase: 'check' });
        return;
      }
      erasures.clear();
      modelGeneration += 1;
      postMessage({ type: 'loaded', modelId: msg.modelId, loadId: msg.loadId, info: { ...info }, timing: { startAt, doneAt: epochNow() } });
    } else if (msg.type === 'translate' || msg.type === 'decode') {
      const t0 = performance.now();
      const opts = { scoreScale: msg.scoreScale, topK: msg.topK, overrides: msg.overrides ?? [], cutSource: !!msg.cutSource,
        window: msg.window ?? null, windowSteps: msg.windowSteps ?? 0 };
      // The page's decoding (controllers/translation.js): a beam's best
      // hypothesis, or greedy at width 1 (or when none is asked for).
      const width = msg.beamWidth ?? 1;
      const tr = width === 1 ? engine.translate(msg.text, opts)
        : engine.beam(msg.text, { ...opts, beamWidth: width, lengthPenalty: msg.lengthPenalty }).hypotheses[0];
      const { trace, transfer } = copyTrace(tr);
      trace.beamWidth = width;
      trace.lengthPenalty = width === 1 ? null : msg.lengthPenalty;
      if (opts.window != null) trace.window = opts.window;
      postMessage({ type: msg.type === 'decode' ? 'decode-result' : 'result', id: msg.id, trace, workerMs: performance.now() - t0, doneAt: epochNow() }, transfer);
    } else if (msg.type === 'beam') {
      const t0 = performance.now();
      const result = engine.beam(msg.text, {
        scoreScale: msg.scoreScale, topK: msg.topK, beamWidth: msg.beamWidth, lengthPenalty: msg.lengthPenalty,
        overrides: msg.overrides ?? [], cutSource: !!msg.cutSource,
      });
      const transfer = [];
      const hypotheses = result.hypotheses.map((h) => {
        const copied = copyTrace(h);
        transfer.push(...copied.transfer);
        return copied.trace;
      });
      const greedyCopy = copyTrace(engine.translate(msg.text, { scoreScale: msg.scoreScale, topK: msg.topK, overrides: msg.overrides ?? [], cutSource: !!msg.cutSource }));
      transfer.push(...greedyCopy.transfer);
      postMessage({ type: 'beam-result', id: msg.id, hypotheses, greedy: greedyCopy.trace, beamWidth: result.beamWidth,
        lengthPenalty: result.lengthPenalty, workerMs: performance.now() - t0 }, transfer);
    } else if (msg.type === 'mathcheck') {
      if (!engine) engine = await enginePromise;
      const t0 = performance.now();
      const curves = await sliced(msg.id, mathCurvesSteps({ seed: msg.seed, keys: msg.keys, draws: msg.draws },
        (q, keys, count, stride) => engine.dotScores(q, keys, count, stride)), { needsModel: false });
      postMessage({ type: 'mathcheck-result', id: msg.id, curves, workerMs: performance.now() - t0 });
    } else if (msg.type === 'erasure') {
      const t0 = performance.now();
      const reply = await erasureFor(msg);
      postMessage({ type: 'erasure-result', id: msg.id, ...reply, base: reply.base.slice(), drop: reply.drop.slice(), erasable: reply.erasable.slice(),
        workerMs: performance.now() - t0 });
    } else if (msg.type === 'tokenize') {
      const tokens = engine.tokenize(msg.text);
      const starts = Int32Array.from(tokens, (t) => t.start);
      const ends = Int32Array.from(tokens, (t) => t.end);
      postMessage({ type: 'tokens', id: msg.id, starts, ends }, [starts.buffer, ends.buffer]);
    }
  } catch (err) {
    fail(msg.type, err, msg.id, msg.loadId);
  }
};
