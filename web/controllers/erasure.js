// erasure.js - the erasure map behind cards/erasure.js. For the translation
// on screen (the store's `trace`) at the heatmap's level (its `matrix`:
// words, or pieces with "Show subword pieces"), it asks the widget's engine
// worker (client.erasure) to score the same output again with each column's
// source positions removed (lib/erasure.js). Only while the card is on
// screen or focused (or the store is quiet): off screen the newest request
// waits. One request at a time; when it settles, the latest one wanted is
// sent if it is another, and one in flight that is no longer wanted (the
// reader typed another sentence) is cancelled: the worker stops it between
// two columns (worker.js runs it in slices). The worker keeps its answers per model, sentence,
// output, score scale and columns, so going back to a level or a sentence
// costs a message.
// What happens goes into the store's `erasure`:
//   { for: the trace it is about, columns: the column key (level and groups),
//     result: client.erasure's answer | null, error: text | null, busy }
// An engine error keeps nothing from another translation: the card says why.

import { groupPairs } from '../lib/erasure.js';
import { t } from '../i18n/index.js';

/** What the request for the store's translation is: { trace, columns (its key), groups } or null. */
export function erasureRequest(st) {
  const m = st.matrix;
  if (!st.trace || !st.info || !m || m.trace !== st.trace) return null;
  const groups = groupPairs(m.colGroups);
  return { trace: st.trace, columns: `${m.level}:${groups.join(';')}`, groups };
}

/**
 * @param opts { client (the widget's EngineClient), seen: { active(), onWake(fn) } for the card's area }
 * @returns { destroy() }
 */
export function createErasure(store, { client, seen = null }) {
  let running = null;   // the request in flight
  let abort = null;     // …and how to stop it once the translation on screen is another
  let stopped = false;
  let overtaken = null; // the trace whose request a model load overtook: the new model's trace asks again

  const same = (e, req) => e && e.for === req.trace && e.columns === req.columns;

  function sync() {
    if (stopped) return;
    const st = store.get();
    const req = erasureRequest(st);
    if (!req) {
      if (st.erasure && !st.trace) store.set({ erasure: null });
      return;
    }
    const e = st.erasure;
    // A map of a long sentence takes seconds of the worker's time: one that is no longer wanted
    // (another translation, or the other level) stops, and the one wanted follows when it has.
    if (running && (running.trace !== req.trace || running.columns !== req.columns)) abort?.abort();
    if ((same(e, req) && (e.result || e.error)) || running || req.trace === overtaken || (seen && !seen.active())) return;
    send(req);
  }

  async function send(req) {
    running = req;
    const ctrl = new AbortController();
    abort = ctrl;
    store.set({ erasure: { for: req.trace, columns: req.columns, result: null, error: null, busy: true } });
    const tr = req.trace;
    let next = null;
    try {
      // The tokens the trace read (the engine appends its </s> itself) and the tokens it emitted,
      // at the multiplier it was decoded with.
      const result = await client.erasure({
        sourceIds: tr.source.filter((p) => !p.isEnd).map((p) => p.id),
        targetIds: tr.target.map((p) => p.id),
        scoreScale: tr.scoreScale, groups: req.groups,
      }, { signal: ctrl.signal });
      next = { for: tr, columns: req.columns, result, error: null, busy: false };
    } catch (err) {
      if (err.superseded) overtaken = tr;
      else if (!err.cancelled) next = { for: tr, columns: req.columns, result: null, error: t('erasure.failed', { why: err.message }), busy: false };
    } finally {
      running = null;
      abort = null;
    }
    if (stopped) return;
    const st = store.get();
    if (next && same(next, erasureRequest(st) ?? {})) store.set({ erasure: next });
    else if (st.erasure?.busy) store.set({ erasure: { ...st.erasure, busy: false } });
    sync();
  }

  const unsubscribe = store.subscribe((st, changed) => {
    if (changed.has('matrix') || changed.has('trace') || changed.has('info')) queueMicrotask(sync);
  });
  const unwake = seen?.onWake(sync);
  queueMicrotask(sync);

  return {
    destroy() { stopped = true; abort?.abort(); unsubscribe(); unwake?.(); },
  };
}
