// lesson.js - the lesson path's controller: the store's `lesson` and
// `lessonStep` (a link's, or started from the lesson card) become the
// step's state (lib/lesson.js lessonStepPatch: the sentence, the slider's
// scale, the step-through's step, …) and its card in view, marked so that
// presenter mode shows it beside the figure. Next and back from the lesson
// bar's buttons or the keys (N or Page Down, B or Page Up: a presenter's
// clicker sends those; not while typing in a field). A teacher's lesson file
// is read here: one that does not parse or check is said, with its line and
// field, and nothing on the page changes. "Save this step" appends the
// page's state as a step to the teacher's own path (runtime: lessonDraft),
// whose link is made by controllers/share.js.

import { parseLesson, lessonStepPatch, stepFromState, lessonParam, LESSON_MAX_STEPS } from '../lib/lesson.js';
import { lessonProblemText } from '../state.js';

const KEYS = { next: ['n', 'N', 'PageDown'], back: ['b', 'B', 'PageUp'] };

/**
 * @param store
 * @param opts { grid: the cards' grid (a step's card is found there by its area), keyTarget: where the keys are heard,
 *               linkOf(hash): a link to the page with that hash, or why none ({ link } | { why }: controllers/share.js) }
 * @returns { start(lesson, i), go(i), next(), back(), end(), openFile(file), save({ card, text, title }), clearDraft(), draftLink(), barTop(), placeOf(area), destroy() }
 */
export function createLesson(store, { grid, keyTarget, linkOf }) {
  let pendingReveal = null; // the card to bring into view once it is built (a far card waits for the first result)
  // The step's card stays where it was brought while the cards above it change height (the step's
  // translation reaches them, off-screen ones a moment later), until the reader scrolls, taps or types.
  let holding = null;

  const cardOf = (area) => grid.querySelector(`:scope > [data-area="${area}"]:not(.as-later)`);
  function mark() {
    const st = store.get();
    const area = st.lesson ? st.lesson.steps[st.lessonStep]?.card : null;
    for (const el of grid.querySelectorAll(':scope > [data-lesson-target]')) if (el.dataset.area !== area) delete el.dataset.lessonTarget;
    const el = area ? cardOf(area) : null;
    if (el) el.dataset.lessonTarget = 'true';
    return el;
  }
  // The bar's top while it is shown over the window's bottom (px), or Infinity.
  const barTop = () => grid.querySelector(':scope > .as-lesson-bar:not([hidden])')?.getBoundingClientRect().top ?? Infinity;
  const besideEachOther = (a, b) => {
    const r = a.getBoundingClientRect(), c = b.getBoundingClientRect();
    return r.top < c.bottom && c.top < r.bottom && (r.left >= c.right || c.left >= r.right);
  };
  // What a step brings to the window's top: its card, or the main map's card when the step's card is beside it
  // and starts lower (the step view on a laptop, under the model card): the map is then whole, its column
  // labels not under its card's sticky header, and the step's card beside it. (Presenter mode lays the step's
  // card out beside the figure itself.)
  function leadOf(el) {
    const heat = cardOf('heat');
    if (store.get().presenter || !heat || heat === el || !besideEachOther(el, heat)) return el;
    return heat.getBoundingClientRect().top < el.getBoundingClientRect().top ? heat : el;
  }
  function reveal() {
    const el = mark();
    if (!el || !pendingReveal) return;
    pendingReveal = null;
    holding = leadOf(el);
    holding.scrollIntoView({ block: 'start', behavior: 'auto' });
  }
  // Cards are built later (the far ones) and again (a new UI language): mark and reveal them when they come.
  const observer = new MutationObserver(() => reveal());
  observer.observe(grid, { childList: true });
  const top = () => parseFloat(getComputedStyle(holding).scrollMarginTop) || 0;
  const resized = typeof ResizeObserver === 'function' ? new ResizeObserver(() => {
    if (holding?.isConnected && Math.abs(holding.getBoundingClientRect().top - top()) > 2) holding.scrollIntoView({ block: 'start', behavior: 'auto' });
  }) : null;
  resized?.observe(grid);
  const doc = grid.ownerDocument;
  const release = () => { holding = null; };
  const RELEASE = ['wheel', 'touchstart', 'pointerdown', 'keydown'];
  for (const type of RELEASE) doc.addEventListener(type, release, { capture: true, passive: true });

  // The step's state, the keys that differ; a new sentence drops the draft and the part, as a link's does (controllers/links.js).
  function applyStep(st) {
    const patch = lessonStepPatch(st.lesson, st.lessonStep);
    const next = {};
    for (const [k, v] of Object.entries(patch)) {
      const same = k === 'compare' ? v.join(',') === (st.compare ?? []).join(',') : k === 'pin' ? JSON.stringify(v) === JSON.stringify(st.pin) : v === st[k];
      if (!same) next[k] = v;
    }
    if (next.sentence !== undefined) Object.assign(next, { draft: null, part: 0 });
    pendingReveal = true;
    if (Object.keys(next).length) store.set(next);
    reveal();
  }

  const unsubscribe = store.subscribe((st, changed) => {
    if (changed.has('lesson') || changed.has('lessonStep')) {
      if (st.lesson) applyStep(st); else { holding = null; mark(); }
    }
  });

  const go = (i) => {
    const st = store.get();
    if (!st.lesson) return;
    const to = Math.max(0, Math.min(st.lesson.steps.length - 1, i));
    if (to !== st.lessonStep) store.set({ lessonStep: to });
  };
  const onKey = (e) => {
    if (!store.get().lesson || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.composedPath?.()[0] ?? e.target;
    if (t instanceof HTMLElement && (t.isContentEditable || /^(TEXTAREA|INPUT|SELECT)$/.test(t.tagName))) return;
    const delta = KEYS.next.includes(e.key) ? 1 : KEYS.back.includes(e.key) ? -1 : 0;
    if (!delta) return;
    e.preventDefault();
    go(store.get().lessonStep + delta);
  };
  keyTarget.addEventListener('keydown', onKey);

  // Start at step i (the same lesson again: that step shown again).
  const start = (lesson, i = 0) => {
    const st = store.get();
    if (st.lesson === lesson && st.lessonStep === i) applyStep(st);
    else store.set({ lesson, lessonStep: i, lessonFileError: null });
  };

  // A link's lesson: its step's state from the start.
  if (store.get().lesson) applyStep(store.get());

  return {
    start,
    go,
    next: () => go(store.get().lessonStep + 1),
    back: () => go(store.get().lessonStep - 1),
    end() { store.set({ lesson: null, lessonStep: 0 }); },
    /** A teacher's lesson file: started, or its fault said (the page as it was). → true when it started */
    async openFile(file) {
      let text;
      try { text = await file.text(); } catch { text = null; }
      const parsed = text == null ? { error: { line: 1, reason: 'unreadable' } } : parseLesson(text);
      if (parsed.error) { store.set({ lessonFileError: lessonProblemText(parsed.error, 'file') }); return false; }
      start(parsed.lesson, 0);
      return true;
    },
    /** "Save this step": the page's state as a step of the teacher's own path. */
    save({ card, text, title = '' }) {
      const draft = store.get().lessonDraft;
      if (draft.length >= LESSON_MAX_STEPS || !text.trim()) return false;
      store.set({ lessonDraft: [...draft, stepFromState(store.get(), { card, text: text.trim(), title: title.trim() })] });
      return true;
    },
    clearDraft() { store.set({ lessonDraft: [] }); },
    barTop,
    /**
     * Where this step shows the row of the card of `area` (reads only: call it before a frame's writes). The
     * step's card (or the map's beside it: leadOf) is brought to the window's top (its scroll-margin-top,
     * `at` px; it is at `from` px now) and the bar covers the window from `bottom` down.
     * → { from, at, bottom }, or null when no lesson runs or the step's card is neither that card nor
     * beside it (on a phone the step view is under the map).
     */
    placeOf(area) {
      const target = grid.querySelector(':scope > [data-lesson-target]');
      const card = cardOf(area);
      const bottom = barTop();
      if (!store.get().lesson || !target || !card || bottom === Infinity) return null;
      if (target !== card && !besideEachOther(target, card)) return null;
      const lead = leadOf(target);
      return { from: lead.getBoundingClientRect().top, at: parseFloat(getComputedStyle(lead).scrollMarginTop) || 0, bottom };
    },
    /** The link of the teacher's path so far ({ link } | { why } | null with no step saved). */
    draftLink() {
      const steps = store.get().lessonDraft;
      if (!steps.length) return null;
      return linkOf(new URLSearchParams({ lesson: lessonParam({ title: null, steps }), ls: '1' }).toString());
    },
    destroy() {
      unsubscribe(); observer.disconnect(); resized?.disconnect(); keyTarget.removeEventListener('keydown', onKey);
      for (const type of RELEASE) doc.removeEventListener(type, release, { capture: true });
    },
  };
}
