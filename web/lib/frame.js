// frame.js - work that belongs to the next animation frame, at most once per
// frame however often it is asked for (a view used on its own, outside a
// widget: the widget's cards share its render scheduler, lib/scheduler.js).

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
