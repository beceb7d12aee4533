// render.js - how the widget's cards follow the store: one render scheduler
// (lib/scheduler.js) per widget, told which cards are on screen (one
// IntersectionObserver), which holds the focus, and when the page is about
// to be printed; the cards' grid areas; and the cards far below the first
// screen that are built only once the first result is painted.
//
// Each card is registered by its grid area: add(area, card | () => card,
// { sticky, later, always }). sticky: the card sits in a wrapper that fills
// its grid area (Chromium bounds a sticky grid item by the whole grid, so a
// sticky card that is itself the item slides over the cards below it).
// later (the first build only): the area stays empty until the first
// result has been painted, or the start is over without one, so that the
// first heatmap does not wait for these cards' DOM, layout and first update.
// always: a card of controls, cheap to update, that follows the store on
// screen or not (the sentence and its notices, the model picker, the step-through's
// words, which the heatmap's taps and keys move).

import { h } from '../lib/dom.js';
import { createScheduler } from '../lib/scheduler.js';
import { startupSettled } from '../lib/startup.js';

// Cards this near the screen count as on it: they are drawn before they scroll in.
const NEAR = '200px 0px';

/**
 * @param store
 * @param opts { wrapper: the widget's element (its data-ready is set here), grid: the element the areas go in }
 * @returns { frame (the scheduler: the cards' frame queue), add, build(fn, { defer }), active(area),
 *            onWake(area, fn), repaint(), flush(), destroy() }
 */
export function createRender(store, { wrapper, grid }) {
  let later = null;       // [{ area, make, sticky, slot, always }] while the far cards wait
  let laterTimer = 0;
  const cards = new Map(); // area -> card
  const areas = [];        // the grid's children, in order
  const areaOf = new Map(); // card element -> area
  // The browser tests' hook: a page that sets ALIGNSCOPE_RENDER_LOG to an array gets every update and job in it.
  const log = Array.isArray(globalThis.ALIGNSCOPE_RENDER_LOG) ? globalThis.ALIGNSCOPE_RENDER_LOG : null;
  // The render bench's (tests/bench/render_budget.mjs): ALIGNSCOPE_RENDER_TIMING, an array, gets
  // [card, kind, key, ms, frame, when it ended] for each measure, update and job; ALIGNSCOPE_RENDER_ALL_ON_SCREEN
  // makes every card follow the store as if it were on screen (its "every card open" profile).
  const timing = Array.isArray(globalThis.ALIGNSCOPE_RENDER_TIMING) ? globalThis.ALIGNSCOPE_RENDER_TIMING : null;
  const allOnScreen = globalThis.ALIGNSCOPE_RENDER_ALL_ON_SCREEN === true;
  const onTime = timing ? (card, kind, key, ms, n) => timing.push([card, kind, key, ms, n, performance.now()]) : null;
  const frame = createScheduler({ log, onFrame, onTime });
  const io = typeof IntersectionObserver === 'function'
    ? new IntersectionObserver((entries) => { for (const e of entries) { const a = areaOf.get(e.target); if (a) frame.setNear(a, e.isIntersecting); } }, { rootMargin: NEAR })
    : null;

  function register(area, card, always) {
    cards.set(area, card);
    areaOf.set(card.element, area);
    frame.card(area, { update: (st, changed) => card.update(st, changed), measure: card.measure ? (st) => card.measure(st) : null, always: always || allOnScreen });
    io?.observe(card.element);
    // Its first state at once (it was built for it).
    const st = store.get();
    card.update(st, new Set(Object.keys(st)));
  }

  function add(area, card, { sticky = false, later: wait = false, always = false } = {}) {
    if (typeof card === 'function') {
      if (wait && later) {
        const slot = h('div', { class: 'as-area as-later', dataset: { area } });
        areas.push(slot);
        later.push({ area, make: card, sticky, slot, always });
        return null;
      }
      card = card();
    }
    const el = sticky ? h('div', { class: 'as-area' }, card.element) : card.element;
    el.dataset.area = area;
    areas.push(el);
    register(area, card, always);
    return card;
  }

  function mountLater() {
    const waiting = later;
    later = null;
    if (!waiting) return;
    for (const { area, make, sticky, slot, always } of waiting) {
      const card = make();
      if (sticky) { slot.classList.remove('as-later'); slot.append(card.element); } else {
        card.element.dataset.area = area;
        slot.replaceWith(card.element);
        areas[areas.indexOf(slot)] = card.element;
      }
      register(area, card, always);
    }
    // Ready in the next frame, after what is pending there.
    frame.add('ready', () => {});
  }

  // After every frame: ready (tests and embedders wait for it) once every
  // card is there and has drawn the translation; the far cards are built in
  // a task after the frame that painted the first result (or once the start
  // is over without one), so that frame reaches the screen first.
  // The first time, every card (on screen or not) is brought up to date first, in one frame:
  // what a test or an embedder reads once ready is the translation's.
  let settling = false;
  function onFrame(st) {
    if (!st) return;
    // Which model's translation the cards show now ('' while a model loads or
    // nothing is translated): ready is set once, this follows every switch.
    const shown = st.trace && st.info ? (st.local ? 'file' : st.model ?? '') : '';
    if (wrapper.dataset.model !== shown) wrapper.dataset.model = shown;
    if (later) {
      if (!laterTimer && (st.trace || startupSettled(st))) laterTimer = setTimeout(mountLater, 0);
    } else if (st.trace && st.info && wrapper.dataset.ready !== 'true') {
      if (settling) wrapper.dataset.ready = 'true';
      else { settling = true; frame.settleSoon(); }
    }
  }

  function clear() {
    frame.cancel();
    for (const c of cards.values()) c.flush?.();
    for (const [area, c] of cards) { frame.remove(area); io?.unobserve(c.element); c.destroy?.(); }
    cards.clear();
    areaOf.clear();
    areas.length = 0;
  }

  // A card that holds the focus counts as on screen (a keyboard or screen-reader user is in it).
  let focused = null;
  const focusTo = (target) => {
    let area = null;
    for (const [el, a] of areaOf) if (target && el.contains(target)) area = a;
    if (area === focused) return;
    if (focused) frame.setFocused(focused, false);
    focused = area;
    if (area) frame.setFocused(area, true);
  };
  const onFocusIn = (e) => focusTo(e.composedPath?.()[0] ?? e.target);
  const onFocusOut = (e) => { if (!e.relatedTarget || !wrapper.contains(e.relatedTarget)) focusTo(null); };
  wrapper.addEventListener('focusin', onFocusIn);
  wrapper.addEventListener('focusout', onFocusOut);
  // A pointer dragging a range control (the slider, the heatmap header's compact copy) holds the
  // quiet catch-up until it lets go: on a slow phone two moves can be further apart than the
  // quiet time, and the cards far below would then repaint in the middle of the drag
  // (tests/bench/render_budget.mjs's phone profile: the beam card's map, in 53 of its frames).
  const dragging = new Set(); // pointer ids
  const onPointerDown = (e) => {
    const target = e.composedPath?.()[0] ?? e.target;
    if (target?.tagName !== 'INPUT' || target.type !== 'range') return;
    dragging.add(e.pointerId);
    frame.hold(true);
  };
  const onPointerEnd = (e) => { if (dragging.delete(e.pointerId) && !dragging.size) frame.hold(false); };
  const onBlur = () => { dragging.clear(); frame.hold(false); };
  wrapper.addEventListener('pointerdown', onPointerDown);
  addEventListener('pointerup', onPointerEnd);
  addEventListener('pointercancel', onPointerEnd);
  addEventListener('blur', onBlur);
  // A printout shows every card as the store has it.
  const onPrint = () => frame.flushAll();
  addEventListener('beforeprint', onPrint);
  // Canvas colours come from CSS variables: repaint when the theme changes.
  const repaint = () => { for (const c of cards.values()) c.redraw?.(); };
  const darkQuery = matchMedia('(prefers-color-scheme: dark)');
  wrapper.addEventListener('as-theme', repaint);
  darkQuery.addEventListener('change', repaint);

  return {
    frame,
    add,
    /** (Re)build the cards: fn() adds them; defer: the far cards wait (the first build). */
    build(fn, { defer = false } = {}) {
      clear();
      later = defer ? [] : null;
      fn();
      grid.replaceChildren(...areas);
    },
    /** The store changed (store.subscribe's arguments). */
    changed: (st, changed) => frame.changed(st, changed),
    /** Is the card of `area` on screen (or focused)? Controllers that only feed it work while it is. */
    active: (area) => frame.active(area),
    onWake: (area, fn) => frame.onWake(area, fn),
    /** The theme changed: every canvas reads its colours again. */
    repaint,
    destroy() {
      clearTimeout(laterTimer);
      later = null;
      clear();
      io?.disconnect();
      frame.destroy();
      wrapper.removeEventListener('focusin', onFocusIn);
      wrapper.removeEventListener('focusout', onFocusOut);
      wrapper.removeEventListener('pointerdown', onPointerDown);
      removeEventListener('pointerup', onPointerEnd);
      removeEventListener('pointercancel', onPointerEnd);
      removeEventListener('blur', onBlur);
      removeEventListener('beforeprint', onPrint);
      darkQuery.removeEventListener('change', repaint);
    },
  };
}
