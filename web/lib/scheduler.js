// scheduler.js - the page's one render scheduler. Pure logic (the frame,
// the timers and the visibility reports are given to it), so it is tested
// in Node (tests/web/scheduler.test.mjs); controllers/render.js connects it
// to the DOM (an IntersectionObserver per widget, focus, print).
//
// A store change does not update any card: it marks every card's inputs as
// changed (the keys merge) and asks for one animation frame. In that frame
//   1. measure: the reads of layout queued for it (measure(key, fn)) and the
//      `measure()` of each card about to update, before anything is written;
//   2. update: each card whose inputs changed and that is active (on screen,
//      within the observer's margin, or holding the focus) once, with the
//      latest state and every key that changed since its last update;
//   3. jobs: the work the cards queued (add(key, fn), one per key, a newer
//      job replacing an older one), then the `last` jobs (canvas paints: a
//      canvas that sets a font brings the page's styles up to date, so it
//      paints after every DOM change of the frame).
// A card that is not active keeps its changes until it becomes active (it
// then updates in the next frame) or until the store has been quiet for
// `quietMs` (a screen reader's reading, a find in the page: every card is
// current soon after a drag ends, none is touched during it; a pointer held
// on a control, hold(true), keeps the store from going quiet until it lets
// go: a slow device's drag can pause longer than quietMs between two
// moves, and a catch-up then would repaint the far cards mid-drag), or flushAll()
// (before printing). So a slider drag of 100 steps updates each card on
// screen at most once per frame and the cards below the screen not at all.
//
// Controllers whose work only feeds one card (the comparison, the film, the
// pinned attention) ask active(area) before working and onWake(area, fn) to
// be told when that card becomes active or the store has gone quiet.
//
// The frame-queue part (add, drop, flush, cancel) is what the cards and
// views share; it runs in the same
// frame as the updates, so a result is painted in the frame it arrives in.

/**
 * @param {object} [env]
 *   raf(fn) → id, caf(id): the animation frame (default requestAnimationFrame);
 *   setTimer(fn, ms) → id, clearTimer(id) (default setTimeout);
 *   quietMs: how long the store must be quiet before inactive cards catch up;
 *   onFrame(state): after a frame's updates and jobs (the widget's "ready" flag);
 *   log: an array that receives [frame, 'update'|'job', key] per run,
 *        [frame, 'settle'] for a frame that brings every card up to date
 *        (the store was quiet, a print, the first ready), and [frame, 'quiet']
 *        when the store has been quiet for quietMs, before the controllers are
 *        woken (frame: the last one run) (the browser tests' hook)
 *   onTime(card, kind, key, ms, frame): what each measure, update and job of a
 *        frame cost ('measure'|'update'|'job'), credited to the card whose update
 *        queued it (a job queued outside any update: its own key), timed with
 *        now() (the bench's hook: tests/bench/render_budget.mjs; none by default)
 */
export function createScheduler({ raf, caf, setTimer, clearTimer, quietMs = 300, onFrame = null, log = null, onTime = null, now = () => performance.now() } = {}) {
  raf ??= typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (f) => setTimeout(f, 16);
  caf ??= typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame : clearTimeout;
  setTimer ??= setTimeout;
  clearTimer ??= clearTimeout;
  const cards = new Map();   // key -> { update, measure, near, focused, always, pending: Set | null }
  const wakers = new Map();  // key -> Set of fn
  const measures = new Map();
  const jobs = new Map();
  const lastJobs = new Map();
  let state = null;
  let frameId = 0;
  let frames = 0;
  let quietTimer = 0;
  let held = false; // a pointer holds a control (a slider's drag): never quiet until it lets go
  let settle = false; // the next frame brings every card up to date (quiet, print)
  let running = false;
  const updates = new Map(); // key -> updates so far
  // With onTime: the card whose update runs now, and which card queued each job (job key -> card).
  let updating = null;
  const owners = new Map();
  const timed = (card, kind, key, fn) => {
    if (!onTime) { fn(); return; }
    const t0 = now();
    try { fn(); } finally { onTime(card, kind, key, now() - t0, frames); }
  };

  const isActive = (c) => c.always || c.near || c.focused;
  const request = () => { if (!frameId && !running) frameId = raf(frame) || -1; };
  // While the store is quiet every card catches up, so a controller woken
  // then (onWake) must find its card active even where it is off screen.
  let quietWake = false;
  const wake = (key) => { for (const fn of wakers.get(key) ?? []) fn(); };

  function frame() {
    frameId = 0;
    running = true;
    frames += 1;
    try {
      const all = settle;
      settle = false;
      if (all) log?.push([frames, 'settle']);
      const due = [];
      for (const [key, c] of cards) if (c.pending && (all || isActive(c))) due.push([key, c]);
      // 1. Reads of layout, before this frame writes anything.
      const reads = [...measures.entries()];
      measures.clear();
      for (const [key, fn] of reads) timed(owners.get(key) ?? key, 'measure', key, fn);
      for (const [key, c] of due) if (c.measure) timed(key, 'measure', key, () => c.measure(state));
      // 2. Each due card once, with every key changed since its last update.
      for (const [key, c] of due) {
        if (!cards.has(key)) continue; // removed by an earlier card's update (a rebuild)
        const changed = c.pending;
        c.pending = null;
        updates.set(key, (updates.get(key) ?? 0) + 1);
        log?.push([frames, 'update', key]);
        updating = key;
        try { timed(key, 'update', key, () => c.update(state, changed)); } finally { updating = null; }
      }
      // 3. The queued work, then the paints. (Work queued by these jobs waits for the next frame.)
      const run = [...jobs.entries(), ...lastJobs.entries()];
      jobs.clear();
      lastJobs.clear();
      for (const [key, fn] of run) { log?.push([frames, 'job', key]); timed(owners.get(key) ?? key, 'job', key, fn); }
      onFrame?.(state);
    } finally {
      running = false;
    }
    if (jobs.size || lastJobs.size || measures.size || settle) request();
  }

  function onQuiet() {
    quietTimer = 0;
    if (held) return; // the release starts the quiet time again
    log?.push([frames, 'quiet']);
    settle = true;
    request();
    quietWake = true;
    try { for (const key of wakers.keys()) wake(key); } finally { quietWake = false; }
  }

  return {
    /** The store changed: `changed` is the set of keys (store.subscribe's arguments). */
    changed(st, changed) {
      state = st;
      for (const c of cards.values()) {
        c.pending ??= new Set();
        for (const k of changed) c.pending.add(k);
      }
      request();
      clearTimer(quietTimer);
      quietTimer = setTimer(onQuiet, quietMs);
    },
    /**
     * A card: update(state, changed) in a frame; measure(state): its reads of
     * layout, before the frame's writes. always: updates whether on screen or
     * not (a cheap card of controls). It starts near the screen (until the
     * first visibility report) with nothing pending: the caller gives it its
     * first state.
     */
    card(key, { update, measure = null, always = false }) {
      cards.set(key, { update, measure, always, near: true, focused: false, pending: null });
      queueMicrotask(() => { if (cards.has(key)) wake(key); });
    },
    remove(key) { cards.delete(key); },
    /** Visibility (an IntersectionObserver's report) or focus of a card changed. */
    setNear(key, near) { this.set(key, { near }); },
    setFocused(key, focused) { this.set(key, { focused }); },
    set(key, values) {
      const c = cards.get(key);
      if (!c) return;
      const was = isActive(c);
      Object.assign(c, values);
      if (!was && isActive(c)) {
        if (c.pending) request();
        wake(key);
      }
    },
    /** Is the card on screen (or holding the focus), or is the store quiet (inside an onWake call)? False for a card not built yet. */
    active(key) { const c = cards.get(key); return !!c && (quietWake || isActive(c)); },
    /** fn() when the card `key` becomes active, or the store has been quiet for quietMs. → unsubscribe */
    onWake(key, fn) {
      if (!wakers.has(key)) wakers.set(key, new Set());
      wakers.get(key).add(fn);
      return () => wakers.get(key)?.delete(fn);
    },
    /** A read of layout for the next frame, before its writes (one per key). */
    measure(key, fn) { if (onTime && updating) owners.set(key, updating); measures.set(key, fn); request(); },
    add(key, fn, { last = false } = {}) { if (onTime && updating) owners.set(key, updating); (last ? lastJobs : jobs).set(key, fn); request(); },
    drop(key) { jobs.delete(key); lastJobs.delete(key); measures.delete(key); },
    /** Run the pending frame now, if one is pending (tests, exports). */
    flush() { if (frameId) { caf(frameId); frame(); } },
    /** A pointer holds a control (true) or let go of it (false): while held the store is never quiet; quietMs after the release it is. */
    hold(on) {
      if (on === held) return;
      held = on;
      if (!on) { clearTimer(quietTimer); quietTimer = setTimer(onQuiet, quietMs); }
    },
    /** Bring every card up to date in the next frame, active or not (the widget's first "ready"). */
    settleSoon() { settle = true; request(); },
    /** Bring every card up to date now, active or not (before printing). */
    flushAll() { settle = true; if (frameId) caf(frameId); frameId = 0; frame(); },
    cancel() { jobs.clear(); lastJobs.clear(); measures.clear(); if (frameId) caf(frameId); frameId = 0; },
    /** { frames, updates: { key: n } } since the start (tests). */
    stats: () => ({ frames, updates: Object.fromEntries(updates) }),
    destroy() { this.cancel(); clearTimer(quietTimer); cards.clear(); wakers.clear(); },
  };
}
