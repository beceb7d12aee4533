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
