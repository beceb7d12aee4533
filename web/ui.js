// ui.js - one complete alignscope widget: the store, the controllers and the
// cards, put together into a root node. Used by the page (app.js), the
// custom element (alignscope.js) and the iframe embed (embed.html); every
// mount has its own worker, its own state and its own element ids, so
// several can share a page.
//
//   store (state.js)            every piece of state, shareable or not
//   controllers/translation.js  state → tokens → what to translate → worker → trace
//   controllers/models.js       catalogue, downloads, files from disk → info
//   controllers/share.js        state ⇄ link (the URL hash)
//   controllers/presenter.js    presenter mode (full screen, large type)
//   controllers/compare.js      the models shown beside the main one (one worker each)
//   controllers/pin.js          the translation again with one step's attention pinned (cards/pin.js)
//   controllers/training.js     the training film: the default model at points of its training (one worker each)
//   controllers/beam.js         beam search on what the main model translated (its worker)
//   controllers/quiz.js         the predict-then-reveal game (cards/quiz.js)
//   cards/*.js                  one module per card: heading, intro, controls, rendering
//                               (cards/ribbons.js: the step's weights as bands, full view only)
//
// Cards update from the store's changes (update(state, changed)); the
// heatmap paints in an animation frame, at most once per frame.

import { h, uid } from './lib/dom.js';
import { frameQueue, offscreenLag } from './lib/frame.js';
import { figureMatrix } from './lib/figure.js';
import { rowOfStep } from './lib/words.js';
import { stepOfRow } from './lib/steps.js';
import { createStore, defaultShareState, noticePatch, beamNotices } from './state.js';
import { checkPin, pinProblemText, pinToString, samePin } from './lib/pin.js';
import { EngineClient } from './client.js';
import { createModels, LOCAL } from './controllers/models.js';
import { createTranslation } from './controllers/translation.js';
import { createShare, shareWhyText, noHostedCopyText } from './controllers/share.js';
import { createPresenter } from './controllers/presenter.js';
import { createCompare } from './controllers/compare.js';
import { createPin } from './controllers/pin.js';
import { createTraining, FILM_CLOSED } from './controllers/training.js';
import { createBeam } from './controllers/beam.js';
import { DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from './lib/beam.js';
import { createQuiz } from './controllers/quiz.js';
import { setUiLanguage, pickUiLanguage, browserLanguages, t } from './i18n/index.js';
import * as inputCard from './cards/input.js';
import * as modelCard from './cards/model.js';
import * as heatmapCard from './cards/heatmap.js';
import * as sliderCard from './cards/slider.js';
import * as stepsCard from './cards/steps.js';
import * as theoryCard from './cards/theory.js';
import * as byhandCard from './cards/byhand.js';
import * as compareCard from './cards/compare.js';
import * as pinCard from './cards/pin.js';
import * as trainingCard from './cards/training.js';
import * as ribbonsCard from './cards/ribbons.js';
import * as beamCard from './cards/beam.js';
import * as offlineCard from './cards/offline.js';
import * as quizCard from './cards/quiz.js';
import { createOffline } from './controllers/offline.js';
import { startupRecorder, startupSettled } from './lib/startup.js';

// In the single-file build modules are blob: URLs, which cannot be a base for
// relative URLs; everything there comes packed in ALIGNSCOPE_INLINE instead.
const MODULE_BASE = (() => {
  try { return new URL('./', import.meta.url); } catch { return new URL('./', location.href); }
})();

/** Values that follow from others, computed inside store.set() (state.js). */
function derive(st, changed) {
  const patch = {};
  if (changed.has('trace') || changed.has('pieces') || changed.has('info')) patch.matrix = st.trace && st.info ? figureMatrix(st.trace, st.info, st.pieces) : null;
  // The comparison's models: a matrix for each that has a translation.
  if (changed.has('compared') || changed.has('pieces')) {
    patch.compareMatrices = Object.fromEntries(Object.entries(st.compared ?? {})
      .filter(([, c]) => c.trace && c.info).map(([id, c]) => [id, figureMatrix(c.trace, c.info, st.pieces)]));
  }
  // A shorter translation: the step is clamped to it.
  if (changed.has('trace') && st.trace && st.step > st.trace.T - 1) patch.step = st.trace.T - 1;
  return patch;
}

/**
 * @param {HTMLElement} root        where to build the widget (light DOM or a shadow root's child)
 * @param {object} opts
 *   view: 'full'|'heatmap'|'steps'; initial: partial share state;
 *   syncUrl: keep location.hash in step with the state (the page and embed.html);
 *   shareBase: URL that shared links point to; inline: the single-file build's packed bytes;
 *   localFiles: offer "Open a model file…" and take a .alsc file dropped anywhere on the page;
 *   theme: 'light'|'dark' to force one;
 *   heatBoxPx: a fixed height for the heatmap's box (embed.html: the iframe grows to its content, so nothing may follow its height);
 *   uiLang: the UI language when the state names none ('fr'; else the browser's, else English);
 *   prestart: what controllers/prestart.js began for this page (app.js: takePrestart()), carried on from.
 */
export function mountAlignscope(root, opts = {}) {
  const inline = opts.inline ?? globalThis.ALIGNSCOPE_INLINE ?? null;
  const base = opts.base ? new URL(opts.base, location.href) : MODULE_BASE;
  const shareBase = opts.shareBase ?? new URL('index.html', base).href;
  const localFiles = !!opts.localFiles;
  // A model value that is not an id (a URL, a path, a file from someone's
  // disk) never reaches the store's `model`: it waits in modelRequest until
  // the catalogue can say what is shown instead.
  // A malformed pin= (pinError) is said under the sentence once the UI language is set.
  const { rejectedModel, fileModel, pinError, rejectedBeam, rejectedLp, rejectedQuiz, ...initial } = opts.initial || {};
  const store = createStore({
    ...defaultShareState(),
    ...initial,
    // runtime state: the engine and models
    status: 'starting', error: null, progress: null, catalog: null, info: null, build: null,
    local: null, localFile: null, modelRequest: { rejected: rejectedModel ?? null, fileModel: fileModel ?? null }, pickerRev: 0,
    // the input and the translation
    draft: null, tokenCount: null, plan: null, part: 0, translated: null, trace: null, matrix: null, timing: null,
    // the page around them
    notices: {}, link: null, dragging: false, presenter: false, zoom: 1, firstHeatmap: false,
    // the comparison (cards/compare.js): each compared model's state and matrix
    compared: {}, compareMatrices: {},
    // the pinned attention (cards/pin.js, controllers/pin.js): the re-decode beside the main one
    pinned: null,
    // the training film (cards/training.js): closed until the reader opens it; the point on screen
    film: FILM_CLOSED, filmPoint: 0,
    // beam search (controllers/beam.js, cards/beam.js)
    beamResult: null, beamBusy: null, beamError: null, beamVisible: false,
    // the quiz (controllers/quiz.js): the game being played, while `quiz` names a mode
    quizPlay: null,
  }, { derive });
  const view = store.get().view;
  const has = { heat: view !== 'steps', steps: view !== 'heatmap', full: view === 'full' };
  // Only the full view has the pin card: elsewhere a link's pin is not applied (nor written back).
  if (!has.full && store.get().pin) store.set({ pin: null });
  // The quiz is a card of the full view; the compact embeds ignore the key.
  if (!has.full && store.get().quiz) store.set({ quiz: null });
  const quizLinkNotice = (value) => store.set(noticePatch(store.get(), 'quizLink', t('quiz.badLink', { value })));

  const wrapper = h('div', { class: 'as-root', dataset: { view } });
  if (opts.theme === 'dark' || opts.theme === 'light') wrapper.dataset.theme = opts.theme;

  // ---------- controllers ----------
  // What controllers/prestart.js began for this page (its worker, the catalogue's request, the model's download).
  const early = opts.prestart && !inline && opts.prestart.base === base.href ? opts.prestart : null;
  // This widget's start-up as performance marks (lib/startup.js; the first widget of a document only).
  const startup = early?.startup ?? startupRecorder();
  const client = early?.client ?? new EngineClient({ workerUrl: inline?.workerUrl ?? new URL('worker.js', MODULE_BASE), workerType: inline?.workerType ?? 'module' });
  const models = createModels(store, { client, inline, base, localFiles, startup, prestart: early });
  const translation = createTranslation(store, { client, startup });
  const share = createShare(store, { syncUrl: !!opts.syncUrl, shareBase, apply: (p) => api.setState(p) });
  const presenter = createPresenter(store, { element: wrapper });
  const workerUrl = inline?.workerUrl ?? new URL('worker.js', MODULE_BASE);
  const compare = has.full ? createCompare(store, { workerUrl, workerType: inline?.workerType ?? 'module', inline, base }) : null;
  const pin = has.full ? createPin(store, { client }) : null;
  const training = has.full ? createTraining(store, { workerUrl, workerType: inline?.workerType ?? 'module', inline, base }) : null;
  const beam = has.full ? createBeam(store, { client }) : null;
  const quiz = has.full ? createQuiz(store) : null;
  // A link to this view (with `extra` shareable values: the quiz card's link to a
  // quiz not yet started), or why there can be none: { link } | { why }.
  const linkOrWhy = (extra = null) => {
    const st = store.get();
    if (st.local) return { why: shareWhyText(st) };
    if (!shareBase) return { why: noHostedCopyText() };
    return { link: share.link(extra) };
  };
  const quizLink = (mode) => linkOrWhy({ quiz: mode });
  const modelTag = () => { const st = store.get(); return st.local ? `${LOCAL}${st.local.name}` : st.model; };

  // ---------- cards ----------
  const id = (p) => uid(p);
  const ids = { input: id('sentence'), hint: id('hint'), notice: id('notice'), model: id('model'), modelInfo: id('modelinfo'), fileHint: id('filehint'), tableCap: id('tablecap'), shareWhy: id('sharewhy'), link: id('link') };
  const cards = [];
  // One animation frame for what a result changes in the table, the step view and the timing line.
  const frame = frameQueue();
  // A sticky card sits in a wrapper that fills its grid area: Chromium bounds a
  // sticky grid item by the whole grid, so a sticky card that is itself the
  // item slides over the cards below it; in the wrapper it stays in its area.
  const areas = [];
  // Cards far below the first screen wait (`later`, the first build only):
  // their grid areas stay empty until the first result has been painted, or
  // the start is over without one (mountLater), so that the first heatmap
  // does not wait for their DOM, their layout and their first update.
  // add(area, () => card, { later: true }) defers; a card (or a function) without it is built at once.
  let later = null; // [{ area, make, sticky, slot }]
  let laterFrame = 0;
  let laterTimer = 0;
  const add = (area, card, { sticky = false, later: wait = false } = {}) => {
    // A `later` card is one far below the first screen: built now or deferred, it lags while off screen.
    if (wait) { const make = card; card = () => lagOffscreen(make()); }
    if (typeof card === 'function') {
      if (wait && later) {
        const slot = h('div', { class: 'as-area as-later', dataset: { area } });
        areas.push(slot);
        later.push({ area, make: card, sticky, slot });
        return null;
      }
      card = card();
    }
    const el = sticky ? h('div', { class: 'as-area' }, card.element) : card.element;
    el.dataset.area = area;
    areas.push(el);
    cards.push(card);
    return card;
  };
  function mountLater() {
    const waiting = later;
    later = null;
    if (!waiting) return;
    const st = store.get();
    const all = new Set(Object.keys(st));
    for (const { area, make, sticky, slot } of waiting) {
      const card = make();
      if (sticky) { slot.classList.remove('as-later'); slot.append(card.element); } else {
        card.element.dataset.area = area;
        slot.replaceWith(card.element);
        areas[areas.indexOf(slot)] = card.element;
      }
      cards.push(card);
      card.update(st, all);
    }
    if (st.trace && st.info) wrapper.dataset.ready = 'true';
  }
  // A card far below the first screen follows the store at once only while
  // it is near the screen; off it, its updates wait until the store is quiet
  // (lib/frame.js offscreenLag), so that a slider drag or a step-through
  // redraws what the reader sees and not the ribbons, the comparison, the
  // pinned attention, the film and the quiz beneath it as well.
  function lagOffscreen(card) {
    const { update, flush, destroy } = card;
    const lag = offscreenLag(card.element, (st, changed) => update.call(card, st, changed));
    card.update = lag.update;
    card.flush = () => { lag.flush(); flush?.call(card); };
    card.destroy = () => { lag.destroy(); destroy?.call(card); };
    return card;
  }
  // In the frame after the one that paints the first result (rAF callbacks run
  // in the order they were asked for: the heatmap's paint first), then a task:
  // after that frame is on screen.
  const mountLaterSoon = () => {
    if (!later || laterFrame) return;
    laterFrame = requestAnimationFrame(() => { laterTimer = setTimeout(mountLater, 0); });
  };
  const grid = h('div', { class: 'as-grid' });
  // What the reader set inside a card that the store does not hold (the by-hand numbers, the ribbons' "All steps").
  const memo = { byhand: {}, ribbons: {}, beam: {} };
  let heat = null;
  let compared = null;
  let pinView = null;
  let film = null;
  let beamed = null;
  // Offline: the full view of a served copy ("Make all models available offline").
  const offline = has.full && !inline ? createOffline(store, { base }) : null;
  // The cards take their words from the UI language as they are built: a new
  // language builds them again from the store (translation, step, model,
  // compared models and all stay; nothing is asked of the engine again).
  let built = false;
  function buildCards() {
    frame.cancel();
    for (const c of cards) c.flush?.();
    for (const c of cards.splice(0)) c.destroy?.();
    areas.length = 0;
    // Only the first build waits (a new language rebuilds every card at once).
    later = has.full && !built && !startupSettled(store.get()) ? [] : null;
    built = true;
    // In quiz mode the quiz is the first screen.
    const quizFirst = !!store.get().quiz;
    add('input', inputCard.mount(store, { ids, frame, actions: { retry: () => models.retry(), presenter: () => presenter.toggle() } }));
    heat = has.heat ? add('heat', heatmapCard.mount(store, { ids, headingId: id('ht'), frame, boxPx: opts.heatBoxPx, startup, actions: { copyLink: () => share.copy(), modelTag } })) : null;
    if (has.heat) add('slider', sliderCard.mount(store, { headingId: id('st') }), { sticky: true });
    if (has.steps) add('steps', stepsCard.mount(store, { headingId: id('sp'), frame }), { sticky: true });
    // The ribbons: the step's weights as bands, in step with the heatmap and the step-through.
    if (has.full) add('ribbons', () => ribbonsCard.mount(store, { headingId: id('rb'), frame, memo: memo.ribbons, actions: { modelTag } }), { later: true });
    add('model', modelCard.mount(store, {
      ids, headingId: id('md'), localFiles, full: has.full, withFiles: !inline?.index,
      modelsUrl: (f) => new URL(`models/${f}`, base).href,
      actions: { pick: (v) => models.pick(v), openFile: (f) => models.openFile(f) },
    }));
    compared = null;
    beamed = null;
    pinView = null;
    film = null;
    if (has.full) add('compare', () => (compared = compareCard.mount(store, { headingId: id('cm'), frame, actions: { setStep: (s) => api.goStep(s) } })), { later: true });
    if (has.full) add('beam', () => (beamed = beamCard.mount(store, { headingId: id('bm'), frame, memo: memo.beam })), { later: true });
    if (has.full) {
      add('pin', () => (pinView = pinCard.mount(store, {
        headingId: id('pn'), frame,
        actions: { setPin: (p) => pin.set(p), clearPin: () => pin.clear(), setStep: (s) => api.goStep(s), link: () => linkOrWhy() },
      })), { later: true });
    }
    if (training) add('training', () => (film = trainingCard.mount(store, { headingId: id('tf'), frame, actions: { open: () => training.open(), retry: () => training.retry(), setPoint: (i) => training.setPoint(i) } })), { later: true });
    if (quiz) {
      add('quiz', () => quizCard.mount(store, {
        headingId: id('qz'),
        actions: { ...quiz, setStep: (s) => store.set({ step: s }), link: quizLink },
      }), { later: !quizFirst });
    }
    if (has.full) add('theory', () => theoryCard.mount(store, { headingId: id('th') }), { later: true });
    if (has.full) add('byhand', () => byhandCard.mount(store, { headingId: id('bh'), memo: memo.byhand }), { later: true });
    if (offline) add('offline', () => offlineCard.mount(store, { headingId: id('of'), actions: { makeAllAvailable: () => offline.makeAllAvailable() } }), { later: true });
    grid.replaceChildren(...areas);
  }
  const applyUiLanguage = (st) => { wrapper.lang = setUiLanguage(pickUiLanguage(st.uiLang ?? opts.uiLang, browserLanguages())); };
  applyUiLanguage(store.get());
  // The engine starts before the cards are built (its messages are in the UI
  // language, set just above): the catalogue request and the worker's modules
  // are on their way while this thread makes the DOM; what boot() does next
  // waits for the catalogue, so the cards are there by then.
  models.boot();
  // A link's beam width or length penalty out of range: say so (in the UI language), keep the card's own.
  const setBeamNotices = (asked) => {
    if (!has.full) return;
    const st = store.get();
    const n = beamNotices(asked, { width: st.beam ?? DEFAULT_BEAM_WIDTH, lengthPenalty: st.beamLp ?? DEFAULT_LENGTH_PENALTY });
    store.set(noticePatch({ ...st, ...noticePatch(st, 'beam', n.beam) }, 'beamLp', n.beamLp));
  };
  if (rejectedBeam != null || rejectedLp != null) setBeamNotices({ rejectedBeam, rejectedLp });
  // A quiz= value this page does not know (state.js): said in the UI language.
  if (has.full && rejectedQuiz != null) quizLinkNotice(rejectedQuiz);
  buildCards();
  wrapper.append(grid);
  root.append(wrapper);

  // The step-only layout has no heatmap box to say why there is no picture: the notice does.
  const stepsOnlyNotice = (st, changed) => {
    if (view === 'steps' && (changed.has('trace') || changed.has('error'))) store.set(noticePatch(st, 'translate', !st.trace && st.error?.stage === 'translate' ? st.error.message : null));
  };
  function render(st, changed) {
    if (changed.has('uiLang')) {
      const before = wrapper.lang;
      applyUiLanguage(st);
      if (wrapper.lang !== before) {
        buildCards();
        changed = new Set(Object.keys(st));
        wrapper.dispatchEvent(new CustomEvent('as-ui-language', { detail: wrapper.lang }));
      }
    }
    for (const c of cards) c.update(st, changed);
    if (changed.has('presenter')) wrapper.dataset.presenter = String(!!st.presenter);
    // While a quiz runs, alignscope.css hides every card that could give its answers away.
    if (changed.has('quiz')) wrapper.dataset.quiz = has.full && st.quiz ? 'on' : 'off';
    // Ready (tests and embedders wait for it) once every card is there.
    if (later && (st.trace || startupSettled(st))) mountLaterSoon();
    else if (st.trace && st.info && !later) wrapper.dataset.ready = 'true';
    stepsOnlyNotice(st, changed);
  }
  store.subscribe(render);
  render(store.get(), new Set(Object.keys(store.get())));

  // Canvas colours come from CSS variables: repaint when the theme changes.
  const darkQuery = matchMedia('(prefers-color-scheme: dark)');
  const repaint = () => { heat?.redraw(); compared?.redraw(); pinView?.redraw(); film?.redraw(); beamed?.redraw(); };
  wrapper.addEventListener('as-theme', repaint);
  darkQuery.addEventListener('change', repaint);
  // P toggles presenter mode (not while typing in a field); Escape leaves it,
  // from a field too (in full screen the browser takes Escape itself:
  // controllers/presenter.js follows fullscreenchange). On the document, so
  // that Escape works wherever the focus is (on the page's body too).
  const onKey = (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Escape' && store.get().presenter) { presenter.toggle(false); e.preventDefault(); return; }
    const t = e.composedPath?.()[0] ?? e.target;
    if (t instanceof HTMLElement && (t.isContentEditable || /^(TEXTAREA|INPUT|SELECT)$/.test(t.tagName))) return;
    if ((e.key === 'p' || e.key === 'P') && wrapper.contains(e.target instanceof Node ? e.target : null)) { presenter.toggle(); e.preventDefault(); }
  };
  wrapper.addEventListener('keydown', onKey);
  // Escape with the focus outside the widget (nothing focused: the body) while it covers the screen.
  const onDocKey = (e) => { if (e.key === 'Escape' && store.get().presenter && !wrapper.contains(e.target instanceof Node ? e.target : null)) onKey(e); };
  document.addEventListener('keydown', onDocKey);

  // ---------- public API ----------
  const api = {
    store,
    element: wrapper,
    /** Apply a partial share state (attributes, a pasted link). */
    setState(patch) {
      const before = store.get();
      if (patch.rejectedModel != null) models.check(before.model, patch.rejectedModel);
      // A link made with a file from a disk: say why this shows another model
      // (unless the reader has a file of their own open right now).
      if (patch.fileModel != null && !before.local) models.check(before.model, null, patch.fileModel);
      if (has.full && patch.rejectedQuiz != null) quizLinkNotice(patch.rejectedQuiz);
      const next = {};
      for (const k of ['sentence', 'model', 'scale', 'step', 'pieces', 'colour', 'uiLang', 'beam', 'beamLp', ...(has.full ? ['quiz'] : [])]) if (patch[k] !== undefined && patch[k] !== before[k]) next[k] = patch[k];
      if (['rejectedBeam', 'rejectedLp', 'beam', 'beamLp'].some((k) => patch[k] != null)) setBeamNotices(patch);
      if (patch.compare !== undefined && patch.compare.join(',') !== (before.compare ?? []).join(',')) next.compare = patch.compare;
      // A pasted pin link: a malformed pin is said and the pin shown stays; a good one replaces it.
      if (has.full && patch.pinError) store.set(noticePatch(store.get(), 'pin', pinProblemText(patch.pinError)));
      if (has.full && patch.pin !== undefined && !samePin(patch.pin, before.pin)) {
        // About the sentence shown now: checked at once, so a pin that does not fit leaves the current one in place.
        const problem = next.sentence === undefined && next.model === undefined && before.trace ? checkPin(patch.pin, before.trace) : null;
        if (problem) store.set(noticePatch(store.get(), 'pin', pinProblemText(problem, pinToString(patch.pin))));
        else Object.assign(next, { pin: patch.pin }, noticePatch(store.get(), 'pin', null));
      }
      if (!Object.keys(next).length) return;
      if (next.sentence !== undefined) Object.assign(next, { draft: null, part: 0 });
      store.set(next);
      if (next.model && before.catalog && models.check(next.model) !== before.model) models.load();
    },
    /** Move `delta` steps of the step-through: target words at word level, pieces with "Show subword pieces" (lib/steps.js). */
    step(delta) {
      const st = store.get();
      if (!st.matrix) return;
      const row = Math.max(0, Math.min(st.matrix.T - 1, rowOfStep(st.matrix, st.step) + delta)); // ±Infinity: the first, the last
      api.goStep(stepOfRow(st.matrix, row));
    },
    /** Go to decoder step s (a piece; clamped). */
    goStep(s) {
      const st = store.get();
      // The step-through is hidden during a quiz, and its step is where the quiz starts.
      if (!st.trace || (has.full && st.quiz)) return;
      store.set({ step: Math.max(0, Math.min(st.trace.T - 1, s)) });
    },
    /** Presenter mode on, off, or toggled (no argument). */
    presenter(on) { presenter.toggle(on); },
    shareLink: () => share.link(),
    setTheme(theme) {
      if (theme === 'dark' || theme === 'light') wrapper.dataset.theme = theme; else delete wrapper.dataset.theme;
      requestAnimationFrame(repaint);
    },
    destroy() {
      cancelAnimationFrame(laterFrame);
      clearTimeout(laterTimer);
      later = null;
      frame.cancel();
      for (const c of cards) c.destroy?.();
      translation.destroy();
      models.destroy();
      share.destroy();
      presenter.destroy();
      document.removeEventListener('keydown', onDocKey);
      compare?.destroy();
      pin?.destroy();
      training?.destroy();
      beam?.destroy();
      quiz?.destroy();
      offline?.destroy();
      darkQuery.removeEventListener('change', repaint);
      wrapper.remove();
    },
  };
  if (pinError && has.full) store.set(noticePatch(store.get(), 'pin', pinProblemText(pinError)));
  return api;
}
