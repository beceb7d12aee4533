// mathcheck.js - the math check behind cards/mathcheck.js. Whenever the
// draws the card shows change (its seed or its number of keys n; not d: the
// curves hold every d, so dragging d costs nothing), it asks the widget's
// engine worker (client.mathCheck) for the curves: the draws of
// lib/mathcheck.js scored by the engine's own dot-product kernel. Only once
// the engine runs and while the card is on screen (or the store is quiet):
// off screen the latest request waits. One request at a time; newer ones
// replace each other meanwhile, and the last one asked for is sent next.
// What happens goes into the store:
//   mathResult  the curves of the last request that worked (lib/mathcheck.js mathCurves), with its key
//   mathBusy    true while the worker computes curves the store does not show yet
//   mathError   why the last request failed (the curves before it are kept), else null

import { mathRequest } from '../lib/mathcheck.js';
import { t } from '../i18n/index.js';

/**
 * @param opts { client (the widget's EngineClient), seen: { active(), onWake(fn) } for the card's area }
 * @returns { destroy() }
 */
export function createMathCheck(store, { client, seen = null }) {
  let inFlight = null;
  let pending = null;
  let stopped = false;
  let failedKey = null; // the request whose error the store shows: not asked again until another one

  function send(req) {
    inFlight = req;
    pending = null;
    if (!store.get().mathBusy) store.set({ mathBusy: true });
    client.mathCheck(req).then(
      ({ curves }) => settle(req, { mathResult: { ...curves, key: req.key }, mathError: null }),
      (err) => { failedKey = req.key; settle(req, { mathError: t('math.failed', { why: err.message }) }); });
  }

  function settle(req, patch) {
    if (stopped) return;
    inFlight = null;
    const next = pending;
    pending = null;
    // Shown even when a newer request waits (n dragged on): the card follows the drag, one answer
    // at a time, and says it is busy until the last one is in.
    const again = next && next.key !== req.key;
    store.set({ ...patch, mathBusy: !!again });
    if (again) send(next);
  }

  function run() {
    if (stopped) return;
    const st = store.get();
    // The engine runs once the widget has started it (models.js sets `build`); the card must be seen.
    if (!st.build || (seen && !seen.active())) return;
    const req = mathRequest(st);
    if (inFlight) { pending = req.key === inFlight.key ? null : req; return; }
    if (req.key === st.mathResult?.key || req.key === failedKey) { if (st.mathBusy) store.set({ mathBusy: false }); return; }
    failedKey = null;
    send(req);
  }

  const unsubscribe = store.subscribe((st, changed) => {
    // A restarted engine (the page's Retry) may answer what the old one failed: ask again.
    if (changed.has('status') && st.status === 'ready') failedKey = null;
    if (['mathSeed', 'mathKeys', 'build', 'status'].some((k) => changed.has(k))) queueMicrotask(run);
  });
  const unwake = seen?.onWake(run);
  queueMicrotask(run);

  return {
    destroy() { stopped = true; unsubscribe(); unwake?.(); },
  };
}
