// ui.js - one complete alignscope widget: the store, the controllers and the
// cards, put together into a root node. Used by the page (app.js), the
// custom element (alignscope.js) and the iframe embed (embed.html); every
// mount has its own worker, its own state and its own element ids, so
// several can share a page. The modules it wires (the store, controllers/,
// cards/) are listed in README.md, "What each folder holds".

import { h, uid } from './lib/dom.js';
import { createStore, defaultShareState, noticePatch } from './state.js';
import { runtimeState, deriveState } from './runtime-state.js';
import { stepMovedBy } from './lib/steps.js';
import { EngineClient } from './client.js';
import { createModels } from './controllers/models.js';
import { createTranslation } from './controllers/translation.js';
import { createShare } from './controllers/share.js';
import { createPresenter } from './controllers/presenter.js';
import { createFullControllers } from './controllers/full.js';
import { BUILTIN_LESSONS } from './lib/lesson.js';
import { createLocal } from './controllers/local.js';
import { createRender } from './controllers/render.js';
import { createLinks } from './controllers/links.js';
import { createUiLanguage } from './controllers/uilang.js';
import * as inputCard from './cards/input.js';
import * as modelCard from './cards/model.js';
import * as heatmapCard from './cards/heatmap.js';
import * as sliderCard from './cards/slider.js';
import * as stepsCard from './cards/steps.js';
import * as theoryCard from './cards/theory.js';
import * as byhandCard from './cards/byhand.js';
import * as compareCard from './cards/compare.js';
import * as pinCard from './cards/pin.js';
import * as erasureCard from './cards/erasure.js';
import * as trainingCard from './cards/training.js';
import * as ribbonsCard from './cards/ribbons.js';
import * as beamCard from './cards/beam.js';
import * as offlineCard from './cards/offline.js';
import * as quizCard from './cards/quiz.js';
import * as mathCard from './cards/mathcheck.js';
import * as worksheetCard from './cards/worksheet.js';
import * as exerciseCard from './cards/exercise.js';
import * as lessonCard from './cards/lesson.js';
import { startupRecorder, startupSettled } from './lib/startup.js';

// The single-file build's modules are blob: URLs, no base for relative URLs: it packs everything in ALIGNSCOPE_INLINE.
const MODULE_BASE = (() => {
  try { return new URL('./', import.meta.url); } catch { return new URL('./', location.href); }
})();

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
 *   prestart: what controllers/prestart.js began for this page (app.js: takePrestart()), carried on from;
 *   pageKeys: P and Escape work with the focus anywhere in the document (the page that is this widget alone).
 */
export function mountAlignscope(root, opts = {}) {
  const inline = opts.inline ?? globalThis.ALIGNSCOPE_INLINE ?? null;
  const base = opts.base ? new URL(opts.base, location.href) : MODULE_BASE;
  const shareBase = opts.shareBase ?? new URL('index.html', base).href;
  const localFiles = !!opts.localFiles;
  const { rejectedModel, fileModel, pinError, rejectedBeam, rejectedLp, rejectedQuiz, problems, ...initial } = opts.initial || {};
  const store = createStore({ ...defaultShareState(), ...initial, ...runtimeState({ rejectedModel, fileModel }) }, { derive: deriveState });
  const view = store.get().view;
  const has = { heat: view !== 'steps', steps: view !== 'heatmap', full: view === 'full' };
  // Only the full view has the pin, quiz, math check and worksheet cards: elsewhere a link's values for them are not applied (nor written back).
  if (!has.full) store.set({ pin: null, quiz: null, mathD: null, mathKeys: null, mathSeed: null, sheet: [], lesson: null, lessonStep: 0 });

  const wrapper = h('div', { class: 'as-root', dataset: { view, presenter: String(!!store.get().presenter), quiz: has.full && store.get().quiz ? 'on' : 'off', ...(opts.theme === 'dark' || opts.theme === 'light' ? { theme: opts.theme } : {}) } });
  const grid = h('div', { class: 'as-grid' });
  const render = createRender(store, { wrapper, grid });
  // What a controller that only feeds one card asks: is that card on screen, and tell me when it is.
  const seen = (area) => ({ active: () => render.active(area), onWake: (fn) => render.onWake(area, fn) });

  // ---------- controllers ----------
  // What controllers/prestart.js began for this page (its worker, the catalogue's request, the model's download);
  // this widget's start-up as performance marks (lib/startup.js; the first widget of a document only).
  const early = opts.prestart && !inline && opts.prestart.base === base.href ? opts.prestart : null;
  const startup = early?.startup ?? startupRecorder();
  const workerUrl = inline?.workerUrl ?? new URL('worker.js', MODULE_BASE);
  const workerType = inline?.workerType ?? 'module';
  const client = early?.client ?? new EngineClient({ workerUrl, workerType });
  const models = createModels(store, { client, inline, base, localFiles, startup, prestart: early });
  const translation = createTranslation(store, { client, startup });
  const links = createLinks(store, { models, full: has.full });
  const share = createShare(store, { syncUrl: !!opts.syncUrl, shareBase, apply: (p) => links.apply(p) });
  const presenter = createPresenter(store, { element: wrapper, keyTarget: opts.pageKeys ? document : wrapper });
  const full = has.full ? createFullControllers(store, { client, workerUrl, workerType, inline, base, seen, grid, keyTarget: opts.pageKeys ? document : wrapper, share }) : {};
  const { pin, training, quiz, offline, lesson } = full;
  const local = has.steps ? createLocal(store, { client, seen: seen('steps') }) : null; // the step-through's local window

  // ---------- cards ----------
  const ids = { input: uid('sentence'), hint: uid('hint'), notice: uid('notice'), model: uid('model'), modelInfo: uid('modelinfo'), fileHint: uid('filehint'), tableCap: uid('tablecap'), shareWhy: uid('sharewhy'), link: uid('link') };
  const frame = render.frame;
  // What the reader set inside a card that the store does not hold (the by-hand numbers, the ribbons' "All steps").
  const memo = { byhand: {}, ribbons: {}, beam: {} };
  const far = { later: true }; // a card built after the first screen
  // While a lesson runs its bar is fixed over the window's bottom: in presenter mode the main map's first screen ends at the bar's top.
  const lessonBarTop = lesson ? lesson.barTop : () => Infinity;
  // The cards take their words from the UI language as they are built: a new
  // language builds them again from the store (translation, step, model,
  // compared models and all stay; nothing is asked of the engine again).
  // Only the first build defers the far cards; in quiz mode the quiz is the first screen.
  let first = true;
  const buildCards = () => render.build(() => {
    const { add } = render;
    add('input', inputCard.mount(store, { ids, frame, actions: { retry: () => models.retry(), presenter: () => presenter.toggle() } }), { always: true });
    if (has.heat) add('heat', heatmapCard.mount(store, { ids, headingId: uid('ht'), frame, boxPx: opts.heatBoxPx, screenBottom: lessonBarTop, lessonPlace: lesson ? () => lesson.placeOf('heat') : null, startup, actions: { copyLink: () => share.copy(), modelTag: models.tag } }), { always: true }); // its table: screen readers' step
    const sliderHeadingId = has.heat ? uid('st') : null; // the math check card links to it
    if (has.heat) add('slider', sliderCard.mount(store, { headingId: sliderHeadingId }), { sticky: true });
    if (has.steps) add('steps', stepsCard.mount(store, { headingId: uid('sp'), frame, actions: { setWindow: (d) => local.set(d) } }), { sticky: true, always: true });
    if (has.full) add('ribbons', () => ribbonsCard.mount(store, { headingId: uid('rb'), frame, memo: memo.ribbons, actions: { modelTag: models.tag } }), far);
    add('model', modelCard.mount(store, {
      ids, headingId: uid('md'), localFiles, full: has.full, withFiles: !inline?.index,
      modelsUrl: (f) => new URL(`models/${f}`, base).href,
      actions: { pick: (v) => models.pick(v), openFile: (f) => models.openFile(f) },
    }), { always: true });
    if (!has.full) return;
    add('compare', () => compareCard.mount(store, { headingId: uid('cm'), frame, actions: { setStep: (st) => api.goStep(st) } }), far);
    add('exercise', () => exerciseCard.mount(store, { headingId: uid('ex'), frame }), far);
    add('beam', () => beamCard.mount(store, { headingId: uid('bm'), frame, memo: memo.beam }), far);
    add('pin', () => pinCard.mount(store, { headingId: uid('pn'), frame, actions: { setPin: (p) => pin.set(p), clearPin: () => pin.clear(), setStep: (st) => api.goStep(st), link: () => share.linkOrWhy() } }), far);
    add('erasure', () => erasureCard.mount(store, { headingId: uid('er'), frame, actions: { setStep: (st) => api.goStep(st) } }), far);
    add('training', () => trainingCard.mount(store, { headingId: uid('tf'), frame, actions: { open: () => training.open(), retry: () => training.retry(), setPoint: (i) => training.setPoint(i) } }), far);
    add('quiz', () => quizCard.mount(store, { headingId: uid('qz'), actions: { ...quiz, setStep: (s) => store.set({ step: s }), link: (mode) => share.linkOrWhy({ quiz: mode }) } }), { later: !store.get().quiz });
    add('theory', () => theoryCard.mount(store, { headingId: uid('th') }), far);
    add('byhand', () => byhandCard.mount(store, { headingId: uid('bh'), memo: memo.byhand }), far);
    add('mathcheck', () => mathCard.mount(store, { headingId: uid('mc'), sliderHeadingId }), far);
    add('worksheet', () => worksheetCard.mount(store, { headingId: uid('ws'), actions: { link: () => share.linkOrWhy(), modelTag: models.tag } }), far);
    add('lesson', () => lessonCard.mount(store, { headingId: uid('ls'), actions: { ...lesson, startBuiltin: () => lesson.start(BUILTIN_LESSONS.attention, 0) } }), far);
    add('lessonbar', lessonCard.mountBar(store, { actions: lesson }), { always: true });
    if (offline) add('offline', () => offlineCard.mount(store, { headingId: uid('of'), actions: { makeAllAvailable: () => offline.makeAllAvailable() } }), far);
  }, { defer: first && has.full && !startupSettled(store.get()) });
  const uiLanguage = createUiLanguage(store, { wrapper, fallback: opts.uiLang, rebuild: () => buildCards() });
  uiLanguage.apply();
  // The engine starts before the cards are built (its messages are in the UI
  // language, set just above): the catalogue request and the worker's modules
  // are on their way while this thread makes the DOM; what boot() does next
  // waits for the catalogue, so the cards are there by then.
  models.boot();
  // A link's refused values, said in the UI language.
  links.start({ pinError, rejectedBeam, rejectedLp, rejectedQuiz, problems });
  buildCards();
  first = false;
  wrapper.append(grid);
  root.append(wrapper);
  // Mounted before its language's strings came (app.js, embed.js and alignscope.js wait for them; other callers may not).
  uiLanguage.started();

  store.subscribe((st, changed) => {
    if (uiLanguage.changed(st, changed)) return; // every card built again, with the whole state
    render.changed(st, changed);
    if (changed.has('presenter')) wrapper.dataset.presenter = String(!!st.presenter);
    // While a quiz runs, alignscope.css hides every card that could give its answers away.
    if (changed.has('quiz')) wrapper.dataset.quiz = has.full && st.quiz ? 'on' : 'off';
    // The step-only layout has no heatmap box to say why there is no picture: the notice does.
    if (view === 'steps' && (changed.has('trace') || changed.has('error'))) store.set(noticePatch(st, 'translate', !st.trace && st.error?.stage === 'translate' ? st.error.message : null));
  });

  // ---------- public API ----------
  const api = {
    store,
    element: wrapper,
    /** Apply a partial share state (attributes, a pasted link): controllers/links.js. */
    setState: (patch) => links.apply(patch),
    /** Move `delta` rows of the step-through (words, or pieces with "Show subword pieces"). */
    step(delta) { const st = store.get(); if (st.matrix) api.goStep(stepMovedBy(st.matrix, st.step, delta)); },
    /** Go to decoder step s (a piece; clamped). */
    goStep(s) { // (the step-through is hidden during a quiz, and its step is where the quiz starts)
      const st = store.get();
      if (st.trace && !(has.full && st.quiz)) store.set({ step: Math.max(0, Math.min(st.trace.T - 1, s)) });
    },
    /** Presenter mode on, off, or toggled (no argument). */
    presenter(on) { presenter.toggle(on); },
    shareLink: () => share.link(),
    setTheme(theme) {
      if (theme === 'dark' || theme === 'light') wrapper.dataset.theme = theme; else delete wrapper.dataset.theme;
      requestAnimationFrame(render.repaint);
    },
    destroy() {
      render.destroy();
      for (const c of [translation, models, share, presenter, local, ...Object.values(full), uiLanguage]) c?.destroy();
      wrapper.remove();
    },
  };
  return api;
}
