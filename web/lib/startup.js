// startup.js - the page's start-up, as performance marks on its own
// timeline, so that a benchmark (tests/bench/startup.mjs) or a reader with
// the browser's performance panel can see where the time from navigation to
// the first heatmap goes:
//
//   alignscope:startup:catalog      models/index.json read
//   alignscope:startup:worker       the engine worker's module is running
//   alignscope:startup:download     the model's bytes are here and verified (in the worker, which downloads them)
//   alignscope:startup:compile      the wasm is compiled and instantiated (in the worker)
//   alignscope:startup:load         the engine has read the model (in the worker)
//   alignscope:startup:translation  the first translation is done (in the worker)
//   alignscope:startup:paint        the first heatmap is painted (= alignscope:first-heatmap)
//
// Each mark's startTime is when that phase ended, in ms from navigation; its
// detail says what ran ({ ms } its own duration where known). The worker has
// its own clock (its timeOrigin is its own start): it sends epoch times
// (performance.timeOrigin + performance.now(), epochNow()) and the page puts
// them on its timeline (pageTime()).
//
// Only the first widget of a document records (several widgets on one page
// would mix their phases), and only until its first heatmap is painted: what
// happens at start-up is marked every time it happens, so a phase that is
// marked twice is work done twice (tests/browser/startup.test.mjs).

export const STARTUP_PREFIX = 'alignscope:startup:';
/** The phases, in the order they end on a normal start. */
export const STARTUP_PHASES = Object.freeze(['catalog', 'worker', 'download', 'compile', 'load', 'translation', 'paint']);

/** Now, on a clock that every thread of this page shares (ms since the epoch). */
export const epochNow = () => performance.timeOrigin + performance.now();
/** An epochNow() of any thread → this thread's performance timeline. */
export const pageTime = (epochMs) => epochMs - performance.timeOrigin;

const INERT = Object.freeze({ active: false, settled: Promise.resolve(), mark() {}, close() {} });
let claimed = false;

/**
 * The recorder of this document's start-up, for the first widget that asks
 * (or controllers/prestart.js, on its behalf); later ones (and runtimes
 * without performance.mark) get one that does nothing.
 *   mark(phase, { at, detail })   at: a time on this page's timeline (default now)
 *   close()                       start-up is over: nothing more is marked
 *   settled                       a promise, resolved once it is over
 * mark('paint') closes it.
 */
export function startupRecorder() {
  if (claimed || typeof globalThis.performance?.mark !== 'function') return INERT;
  claimed = true;
  let open = true;
  let settle;
  const settled = new Promise((resolve) => { settle = resolve; });
  const close = () => { open = false; settle(); };
  return {
    get active() { return open; },
    settled,
    mark(phase, { at = performance.now(), detail = null } = {}) {
      if (!open) return;
      if (!STARTUP_PHASES.includes(phase)) throw new Error(`startup: no phase ${phase}`);
      // A worker's time can land a hair before the page's own zero (rounding); never before it.
      performance.mark(STARTUP_PREFIX + phase, { startTime: Math.max(0, at), detail });
      if (phase === 'paint') close();
    },
    close,
  };
}

/**
 * Whether a widget's start-up is over (store state): its first heatmap is
 * painted, or it cannot be (the start failed, the sentence has no
 * translation, or the view is the step-through alone, which has no heatmap:
 * its first translation ends the start). Work that must not compete with the
 * first heatmap (the service worker's install, the offline count, the model's
 * cache write) waits for it. The cache write holds the Web Lock that other
 * widgets' workers wait on for the same model, so a start that never settled
 * would keep them waiting for ever (a steps-only embed beside a heatmap did).
 */
export function startupSettled(st) {
  return !!st.firstHeatmap || st.status === 'failed' || (st.status === 'ready' && !!st.error)
    || (st.view === 'steps' && st.status === 'ready' && !!st.trace);
}
