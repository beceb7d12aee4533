// local.js - the step-through's local window (cards/local.js draws it): the
// main translation decoded again with Luong's local-m window of half width
// D (the store's `winD`, shareable as `win=`; null: off). It follows the
// store: whenever `winD` is set and there is a translation with attention,
// the same text is decoded at the same score scale and with the same
// decoding (beam width, length penalty) with engine.translate's window,
// centred with the main translation's length T (free decoding does not know
// its own beforehand: lib/local.js), through the worker's own request
// channel (client.decode), so the main translation is neither replaced nor
// delayed. At most one request is in flight; when it settles, the latest
// one wanted is sent if it is another.
//
// What happens goes into the store's `windowed`:
//   { for: the main trace, d: the half width, result: the windowed trace | null,
//     error: text | null, busy }
// An engine error keeps nothing from another request: the card says why.

import { CONFIG } from '../config.js';
import { t } from '../i18n/index.js';

/**
 * @param store   the widget's store
 * @param opts    { client: the main EngineClient (its decode() channel),
 *                  seen: { active(), onWake(fn) } — is the step-through on screen (controllers/render.js) }
 * @returns { set(d), destroy() }
 */
export function createLocal(store, { client, seen = null }) {
  let running = null; // { trace, d } in flight
  let overtaken = null; // the trace whose decode a model load overtook: its successor asks again

  const wanted = (st) => (st.winD != null && st.trace?.alpha && st.info ? { trace: st.trace, d: st.winD } : null);
  const same = (w, want) => w && want && w.for === want.trace && w.d === want.d;

  function sync() {
    const st = store.get();
    const want = wanted(st);
    if (!want) {
      if (st.windowed) store.set({ windowed: null });
      return;
    }
    if (same(st.windowed, want) && !st.windowed.busy) return;
    if (running || want.trace === overtaken || (seen && !seen.active())) return;
    decode(want);
  }

  async function decode(want) {
    running = want;
    const { trace, d } = want;
    store.set({ windowed: { for: trace, d, result: null, error: null, busy: true } });
    let next = null;
    try {
      const { trace: result } = await client.decode({
        text: trace.text, scoreScale: trace.scoreScale, topK: CONFIG.topK, cutSource: !!trace.cut,
        beamWidth: trace.beamWidth ?? 1, lengthPenalty: trace.lengthPenalty ?? undefined,
        window: d, windowSteps: trace.T,
      });
      next = { for: trace, d, result, error: null, busy: false };
    } catch (err) {
      if (err.superseded) overtaken = trace;
      else next = { for: trace, d, result: null, error: t('local.failed', { why: err.message }), busy: false };
    } finally {
      running = null;
    }
    const st = store.get();
    if (next && same(next, wanted(st))) store.set({ windowed: next });
    else if (st.windowed?.busy) store.set({ windowed: { ...st.windowed, busy: false } });
    sync();
  }

  const unsubscribe = store.subscribe((st, changed) => {
    if (changed.has('winD') || changed.has('trace') || changed.has('info')) queueMicrotask(sync);
  });
  queueMicrotask(sync);
  const unwake = seen?.onWake(sync);
  return {
    /** The half width from the card's control (null: off). */
    set(d) { store.set({ winD: d }); },
    destroy() { unsubscribe(); unwake?.(); },
  };
}
