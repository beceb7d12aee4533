// frame.js - work that belongs to the next animation frame, at most once per
// frame however often it is asked for (a slider dragged at 120 events/s
// paints at the display's rate, and a result that touches three parts of
// the figure paints it once).

/** frameTask(fn): request() runs fn in the next frame, once; flush() runs it now if pending. */
export function frameTask(fn) {
  let id = 0;
  const raf = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (f) => setTimeout(f, 16);
  const caf = typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame : clearTimeout;
  const run = () => { id = 0; fn(); };
  return {
    request() { if (!id) id = raf(run); },
    flush() { if (id) { caf(id); run(); } },
    cancel() { if (id) { caf(id); id = 0; } },
    get pending() { return id !== 0; },
  };
}

/**
 * frameQueue(): jobs for the next animation frame, one per key (a newer job
 * replaces an older one of the same key), run in the order their keys were
 * first queued. The cards share one per widget, so that a result updates
 * the table, the step view and the timing line in the same frame.
 */
//
// Jobs added with { last: true } (the canvas paints) run after the others:
// a canvas that sets ctx.font makes the browser bring the page's styles up
// to date on the spot, so painting after every DOM change of the frame
// costs one style pass, not two.
export function frameQueue() {
  const jobs = new Map();
  const lastJobs = new Map();
  const task = frameTask(() => {
    const run = [...jobs.values(), ...lastJobs.values()];
    jobs.clear();
    lastJobs.clear();
    for (const fn of run) fn();
  });
  return {
    add(key, fn, { last = false } = {}) { (last ? lastJobs : jobs).set(key, fn); task.request(); },
    drop(key) { jobs.delete(key); lastJobs.delete(key); },
    flush() { task.flush(); },
    cancel() { jobs.clear(); lastJobs.clear(); task.cancel(); },
  };
}

/**
 * offscreenLag(element, update, { rootMargin, quietMs, maxMs }):
 * update(state, changed) as the store calls it, for a card that is usually
 * below the screen. While the card is on screen (or within rootMargin of
 * it) each call goes straight through. While it is not, the calls are
 * gathered (their changed keys merged) and made once, with the latest
 * state it was given (every change of the store comes through update, so
 * that is the store's state): when the card comes near the screen, before the page is printed,
 * or once the store has been quiet for quietMs (but never more than maxMs
 * after the first call gathered). So a slider drag redraws only what the
 * reader can see, and every card is up to date soon after it stops (for a
 * screen reader's reading, a find in the page).
 * → { update(state, changed), flush(), destroy() }
 */
export function offscreenLag(element, update, { rootMargin = '200px 0px', quietMs = 300, maxMs = 1500 } = {}) {
  if (typeof IntersectionObserver !== 'function') return { update, flush() {}, destroy() {} };
  let near = true; // until the observer first says otherwise (it reports after the first layout)
  let pending = null; // the changed keys gathered, a Set
  let latest = null;  // the state of the last call gathered
  let since = 0;      // when the first of them came (ms)
  let timer = 0;
  const flush = () => {
    clearTimeout(timer);
    timer = 0;
    if (!pending) return;
    const changed = pending;
    pending = null;
    update(latest, changed);
  };
  const io = new IntersectionObserver((entries) => {
    near = entries.at(-1).isIntersecting;
    if (near) flush();
  }, { rootMargin });
  io.observe(element);
  addEventListener('beforeprint', flush);
  return {
    update(state, changed) {
      if (near) { flush(); update(state, changed); return; }
      if (!pending) { pending = new Set(); since = performance.now(); }
      for (const k of changed) pending.add(k);
      latest = state;
      clearTimeout(timer);
      timer = setTimeout(flush, Math.max(0, Math.min(quietMs, since + maxMs - performance.now())));
    },
    flush,
    destroy() { clearTimeout(timer); io.disconnect(); removeEventListener('beforeprint', flush); pending = null; latest = null; },
  };
}
