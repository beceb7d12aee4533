// slices.js - long work in the engine worker, cut into slices so that the
// page's own requests are answered between them (web/worker.js).
//
// The worker runs one JavaScript thread. An erasure map of a 100-token
// sentence is 100 forced decodes (seconds on a slow machine), and the math
// check's curves are a few hundred thousand scores; run in one go, the
// translation of the next sentence the reader types waits behind them. Such
// work is written as a generator that yields after each unit (a column, a
// draw): finish() runs it in one go (Node, tests), runInSlices() runs it a
// few milliseconds at a time, giving the worker's message queue a turn in
// between, and stops it when `stop()` names a reason (the page cancelled
// it, or another model was loaded under it).

/** Run a generator of work to its end in one go; its return value. */
export function finish(steps) {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * A promise that resolves in a new task, after the messages already queued
 * for this thread: a MessageChannel's message, because a timer chain is
 * clamped to 4 ms a turn after a few turns (HTML timers' nesting rule).
 */
export function nextTask() {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => { port1.close(); resolve(); };
    port2.postMessage(null);
  });
}

/**
 * Run `steps` (a generator that yields between units of work) in slices of
 * about `sliceMs`, with a new task between slices. After each break,
 * stop() may return an Error, which is thrown (the rest is not run).
 * Resolves to the generator's return value.
 */
export async function runInSlices(steps, { sliceMs = 8, stop = () => null, yieldTo = nextTask, now = () => performance.now() } = {}) {
  let sliceStart = now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (now() - sliceStart >= sliceMs) {
      await yieldTo();
      const why = stop();
      if (why) {
        steps.return();
        throw why;
      }
      sliceStart = now();
    }
  }
}
