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
