// steps.js - the step-through card: the decoder moving its finger over the
// source, one decoder step at a time. At step t: the finger (α_t as
// intensity and bars, a pointer that glides to the largest weight), the
// context vector c_t, the top candidates of the next-word softmax (over the
// VOCABULARY), and the word emitted. It steps through the heatmap's matrix
// (st.matrix, lib/steps.js): at word level (the default) one step is a target
// word, its bars are the word's row of the heatmap (α over source words) and
// the pieces that make it are sub-steps inside it; with "Show subword pieces"
// one step is one piece (one decoder step). The candidates and c_t belong to
// one decoder step: the piece shown. The store's `step` is always the decoder
// step. Elements are built once per sentence and level and updated in place
// per step, so their transitions play (and are off under prefers-reduced-motion).
// Under the steps, the local window's what-if (cards/local.js).

import { CONFIG } from '../config.js';
import { h, uid, prefersReducedMotion } from '../lib/dom.js';
import { diverging, rgb } from '../lib/colormap.js';
import { fmt } from '../lib/math.js';
import { fixedSummary } from '../lib/catalog.js';
import { displayPiece, CONTINUES_MARK } from '../lib/words.js';
import { stepView, stepOfRow, stepMovedBy, rowTexts } from '../lib/steps.js';
import { beamChangeAt } from '../lib/beam.js';
import { t as tr, num } from '../i18n/index.js';
import { paintWeight } from '../views/weight.js';
import { mountLocal } from './local.js';

/**
 * The card. frame: the widget's render scheduler (a re-decode of the same
 * sentence, the slider, redraws in the next animation frame). actions:
 * { setWindow(d | null) } for the local window (controllers/local.js), or
 * none for a step-through without it.
 * Returns { element, update(state, changed), stop(), redraw(), destroy() }.
 */
export function mount(store, { headingId, frame = null, actions = null }) {
  const scrubId = uid('scrub');
  const back = h('button', { type: 'button', class: 'as-btn as-icon', 'aria-label': tr('steps.back') }, '◀');
  const play = h('button', { type: 'button', class: 'as-btn as-icon as-play', 'aria-label': tr('steps.play'), 'aria-pressed': 'false' }, '▶');
  const fwd = h('button', { type: 'button', class: 'as-btn as-icon', 'aria-label': tr('steps.next') }, '▶▶');
  // Loop: playback starts again from the first step (a projector left running in class).
  const loop = h('button', { type: 'button', class: 'as-btn as-btn-small as-loop', 'aria-pressed': 'false', title: tr('steps.loopTitle') }, tr('steps.loop'));
  const scrub = h('input', { type: 'range', id: scrubId, class: 'as-range as-scrub', min: '0', max: '0', step: '1', value: '0' });
  const counter = h('output', { for: scrubId, class: 'as-step-count' }, tr('steps.counter', { t: num(0), n: num(0) }));
  const emitted = h('p', { class: 'as-emitted', 'aria-live': 'polite' });
  const emittedNote = h('span', { class: 'as-small as-muted' });
  const stepWord = h('p', { class: 'as-small as-step-word' });
  // At word level, the pieces of a word of several: one button each (the sub-steps).
  const subSteps = h('div', { class: 'as-substeps', role: 'group', 'aria-label': tr('steps.subStepsLabel'), hidden: true });
  const pointer = h('span', { class: 'as-finger-mark as-finger-pointer', 'aria-hidden': 'true' }, '▼');
  // tabindex 0: on a phone the row scrolls sideways, and the keyboard must reach it (axe: scrollable-region-focusable).
  const finger = h('div', { class: 'as-finger', role: 'list', tabindex: '0', 'aria-label': tr('steps.fingerLabel') });
  const fingerBox = h('div', { class: 'as-finger-box' }, pointer, finger);
  const fingerNote = h('p', { class: 'as-small as-muted' });
  const fingerHead = h('h3', { class: 'as-step-head' });
  // One canvas for the context vector's numbers (hundreds of them: as
  // elements, their colours alone cost a style pass per step).
  const ctxStrip = h('canvas', { class: 'as-ctx-strip', role: 'img' });
  const ctxNote = h('p', { class: 'as-small as-muted' });
  const ctxHead = h('h3', { class: 'as-step-head' });
  const cands = h('ol', { class: 'as-cands' });
  const candNote = h('p', { class: 'as-small as-muted' });
  const candHead = h('h3', { class: 'as-step-head' }, tr('steps.nextWord'));
  // Where the beam wrote another word than this step's most likely one (lib/beam.js beamChangeAt).
  const beamNote = h('p', { class: 'as-small as-beam-note', hidden: true });

  const panel = h('div', { class: 'as-steps', tabindex: '0', role: 'group', 'aria-label': tr('steps.panelLabel') },
    h('div', { class: 'as-step-controls' },
      back, play, fwd, loop,
      h('label', { for: scrubId, class: 'as-visually-hidden' }, tr('steps.scrubLabel')),
      scrub, counter),
    h('div', { class: 'as-step-grid' },
      h('section', { class: 'as-step-block as-step-wide' }, fingerHead, fingerBox, fingerNote),
      h('section', { class: 'as-step-block as-step-wide' }, h('h3', { class: 'as-step-head' }, tr('steps.soFar')), emitted, stepWord, subSteps),
      h('section', { class: 'as-step-block' }, candHead, cands, candNote, beamNote),
      h('section', { class: 'as-step-block' }, ctxHead, ctxStrip, ctxNote)));
  const local = actions?.setWindow ? mountLocal(store, { frame, actions: { setWindow: actions.setWindow, setStep: (s) => goStep(s) } }) : null;
  if (local) panel.append(local.element);
  const element = h('section', { class: 'as-card as-steps-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, tr('steps.heading')), panel);

  let trace = null;
  let info = null;
  let matrix = null;   // the heatmap's (st.matrix): what one step is
  let step = 0;        // the decoder step (store `step`)
  let view = null;     // lib/steps.js stepView(matrix, step)
  let timer = null;
  let cols = [];       // per matrix column (a source word, or a piece): { col, bar, val, chip }
  let geometry = null; // cached centres of the finger's columns (reading them forces a layout)
  let fingerScroll = 0;
  let candItems = [];
  let words = [];      // per matrix row: its span in "Translation so far"
  let leads = [];      // per matrix row: the whitespace before it
  let pieceButtons = [];
  let sourceKey = '';
  let targetKey = '';
  const rows = () => matrix?.T ?? 0;

  const onStep = (t) => store.set({ step: t });
  // Move to decoder step t (clamped to the trace).
  function goStep(t) {
    if (!trace) return;
    const next = Math.max(0, Math.min(trace.T - 1, t));
    if (next !== storeStep()) onStep(next);
  }
  // The store's step, not the drawn one: keys pressed faster than the frames
  // that draw them (Home, then ArrowRight at once) each move from the last.
  const storeStep = () => store.get().step ?? 0;
  const goRow = (r) => { if (matrix) goStep(stepOfRow(matrix, r)); };
  const nextStep = () => (view && view.next >= 0 ? view.next : -1);
  function setPlaying(on) {
    if (timer) { clearInterval(timer); timer = null; }
    play.textContent = on ? '❚❚' : '▶';
    play.setAttribute('aria-label', on ? tr('steps.pause') : tr('steps.play'));
    play.setAttribute('aria-pressed', on ? 'true' : 'false');
    if (!on || !trace || !view) return;
    if (nextStep() < 0) onStep(0);
    timer = setInterval(() => {
      if (trace && nextStep() < 0 && loop.getAttribute('aria-pressed') === 'true') { onStep(0); return; }
      if (!trace || nextStep() < 0) { setPlaying(false); return; }
      onStep(nextStep());
    }, prefersReducedMotion() ? CONFIG.playIntervalReducedMs : CONFIG.playIntervalMs);
  }
  back.addEventListener('click', () => { setPlaying(false); if (view?.prev >= 0) goStep(view.prev); });
  fwd.addEventListener('click', () => { setPlaying(false); if (view?.next >= 0) goStep(view.next); });
  play.addEventListener('click', () => setPlaying(!timer));
  loop.addEventListener('click', () => loop.setAttribute('aria-pressed', String(loop.getAttribute('aria-pressed') !== 'true')));
  scrub.addEventListener('input', () => { setPlaying(false); goRow(Number(scrub.value)); });
  // The keys work wherever the focus is inside the card (the panel, its
  // buttons, the finger's row, a piece): arrows step, Home and End jump,
  // space plays. The range input steps itself (its own arrows, Home, End).
  element.addEventListener('keydown', (e) => {
    if (!view || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target === scrub || local?.element.contains(e.target)) return; // the range and the window's radios move themselves
    const onButton = e.target instanceof HTMLButtonElement;
    const keys = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1 };
    if (e.key in keys) { setPlaying(false); if (matrix) goStep(stepMovedBy(matrix, storeStep(), keys[e.key])); e.preventDefault(); }
    else if (e.key === 'Home') { setPlaying(false); goStep(0); e.preventDefault(); }
    else if (e.key === 'End') { setPlaying(false); goStep(view.lastStep); e.preventDefault(); }
    else if ((e.key === ' ' || e.key === 'Spacebar') && !onButton) { setPlaying(!timer); e.preventDefault(); }
  });

  // ---- built once per sentence and level (or model) ----
  function buildSource() {
    const hasAlpha = !!matrix.alpha;
    const pieces = matrix.level === 'pieces' && !matrix.identity;
    fingerHead.replaceChildren(...(hasAlpha
      ? [tr('steps.fingerHead'), h('sub', null, 't'), tr(pieces ? 'steps.fingerHeadPieces' : 'steps.fingerHeadEnd')]
      : [tr('steps.noFinger')]));
    ctxHead.replaceChildren(...(hasAlpha
      ? [tr('steps.ctxHead'), h('sub', null, 't'), ' = Σ', h('sub', null, 'j'), ' α', h('sub', null, 'tj'), ' h', h('sub', null, 'j')]
      : [tr('steps.ctxHeadNone')]));
    finger.classList.toggle('as-finger-none', !hasAlpha);
    pointer.hidden = !hasAlpha;
    finger.setAttribute('aria-label', hasAlpha ? tr('steps.fingerLabel') : tr('steps.fingerLabelNone'));
    // One column per matrix column: a source word (its pieces' α summed), or a piece.
    const words = trace.sourceWords?.length ? trace.sourceWords : null;
    const wordOfPiece = (j) => (words ? words.find((w) => j >= w.first && j < w.first + w.count) : null);
    cols = matrix.colGroups.map((g) => {
      const members = trace.source.slice(g.first, g.first + g.count);
      const unk = members.some((p) => p.unknown);
      const w = pieces ? wordOfPiece(g.first) : null;
      const piece = w && w.count > 1 ? tr('steps.pieceOf', { i: num(g.first - w.first + 1), n: num(w.count), word: w.text }) : '';
      const bar = hasAlpha ? h('span', { class: 'as-bar' }) : null;
      const val = hasAlpha ? h('span', { class: 'as-bar-val', 'aria-hidden': 'true' }) : null;
      const chip = h('span', { class: `as-chip${unk ? ' as-unk' : ''}`, title: unk ? tr('steps.unkTitle') : piece ? tr('steps.aPieceOf', { word: w.text }) : null }, g.text);
      const col = h('div', { class: 'as-fcol', role: 'listitem' },
        hasAlpha ? h('span', { class: 'as-bar-box', 'aria-hidden': 'true' }, bar) : null, val, chip);
      return { col, bar, val, chip, text: g.text, said: `${g.text}${unk ? tr('steps.unknownWord') : ''}${piece}` };
    });
    finger.replaceChildren(...cols.map((c) => c.col));
    geometry = null;
    const unknown = matrix.colGroups.filter((g) => trace.source.slice(g.first, g.first + g.count).some((p) => p.unknown)).map((g) => `“${g.text}”`);
    fingerNote.dataset.unknown = unknown.length ? tr('steps.dashed', { n: unknown.length, words: `${unknown.slice(0, 6).join(', ')}${unknown.length > 6 ? ', …' : ''}`, vocab: info?.srcVocabSize ? num(info.srcVocabSize) : '' }) : '';
    const D = trace.contextDim;
    const oneWay = info?.architecture?.unidirectional;
    ctxNote.textContent = hasAlpha
      ? tr('steps.ctxNote', { n: D, units: oneWay ? tr('steps.ctxOneWay', { n: num(D) }) : tr('steps.ctxTwoWay', { half: num(D / 2) }) })
      : tr('steps.ctxNoteNone', { n: D, formula: fixedSummary(info).formula.slice(4) });
  }

  function buildTarget() {
    // "Translation so far": one span per step (a word, or a piece), spaced as the translation is.
    const texts = rowTexts(trace, matrix);
    words = texts.map((x) => h('span', { class: 'as-word' }, x.text));
    leads = texts.map((x) => x.lead);
    const K = trace.topK;
    if (candItems.length !== K) {
      candItems = Array.from({ length: K }, (_, k) => {
        const tok = h('span', { class: 'as-cand-tok' });
        const fill = h('span');
        const p = h('span', { class: 'as-cand-p' });
        // The chosen candidate is marked per step (drawStep): greedy takes the
        // first, a beam sometimes another.
        const chosen = h('span', { class: 'as-visually-hidden' }, tr('steps.chosen'));
        const li = h('li', {}, tok, h('span', { class: 'as-cand-bar', 'aria-hidden': 'true' }, fill), p, chosen);
        return { li, tok, fill, p, chosen };
      });
      cands.replaceChildren(...candItems.map((c) => c.li));
    }
    const vocab = info?.tgtVocabSize ? num(info.tgtVocabSize) : '?';
    candNote.textContent = info?.tokenizer === 'subwords'
      ? tr('steps.candNotePieces', { vocab, k: num(K), mark: CONTINUES_MARK })
      : tr('steps.candNote', { vocab, k: num(K) });
    if (trace.beamWidth > 1) candNote.textContent += tr('steps.candNoteBeam', { k: num(trace.beamWidth) });
    pieceButtons = [];
  }

  // The sub-steps of a word of several pieces: "piece 1 of 2" … as buttons.
  function drawSubSteps(v) {
    const several = v.count > 1;
    subSteps.hidden = !several;
    if (!several) { if (pieceButtons.length) { subSteps.replaceChildren(); pieceButtons = []; } return; }
    if (pieceButtons.length !== v.count || pieceButtons.first !== v.first) {
      pieceButtons = Array.from({ length: v.count }, (_, i) => {
        const p = trace.target[v.first + i];
        const b = h('button', { type: 'button', class: 'as-btn as-btn-small as-substep', 'aria-pressed': 'false' },
          tr('steps.subStep', { i: num(i + 1), n: num(v.count), piece: p.isEnd ? '</s>' : p.text }));
        b.addEventListener('click', () => { setPlaying(false); goStep(v.first + i); });
        return b;
      });
      pieceButtons.first = v.first;
      subSteps.replaceChildren(h('span', { class: 'as-small as-muted' }, tr('steps.subStepsHead')), ...pieceButtons);
    }
    pieceButtons.forEach((b, i) => b.setAttribute('aria-pressed', String(i === v.piece)));
  }

  // ---- the pointer: over the column with the largest weight ----
  // The columns' places are read once per sentence and size (geometry), and
  // never in the frame that wrote them: with the render scheduler, in the next
  // frame's measure phase (before its writes), and the pointer is placed then.
  function readGeometry() {
    geometry = cols.length ? { width: finger.clientWidth, cols: cols.map((c) => ({ left: c.col.offsetLeft - finger.offsetLeft, width: c.col.offsetWidth })) } : null;
    fingerScroll = finger.scrollLeft;
  }
  function measureGeometry() {
    if (!frame) { readGeometry(); placePointer(); return; }
    frame.measure('steps-geometry', () => { readGeometry(); frame.add('steps-pointer', placePointer); });
  }
  function placePointer() {
    const best = view?.best ?? -1;
    const g = geometry?.cols[best];
    if (!g) return;
    // Keep the finger in view on narrow screens (the row scrolls sideways).
    if (g.left < fingerScroll || g.left + g.width > fingerScroll + geometry.width) {
      fingerScroll = Math.max(0, g.left - geometry.width / 2);
      finger.scrollLeft = fingerScroll;
    }
    // The pointer glides (a CSS transition on transform) to the largest weight.
    pointer.style.transform = `translateX(${g.left - fingerScroll + g.width / 2}px) translateX(-50%)`;
  }

  // ---- per step: update in place ----
  function drawStep() {
    if (!trace || !matrix) return;
    const v = stepView(matrix, step);
    view = v;
    const t = step; // the decoder step: the piece whose candidates and c_t are shown
    const n = v.rows;
    scrub.value = String(v.row);
    scrub.setAttribute('aria-valuetext', tr('steps.valuetext', { t: num(v.row + 1), n: num(n), word: v.word }));
    counter.textContent = tr('steps.counter', { t: num(v.row + 1), n: num(n) });
    back.disabled = v.prev < 0;
    fwd.disabled = v.next < 0;

    const row = v.bars;
    const best = v.best;
    for (let j = 0; j < cols.length; j++) {
      const c = cols[j];
      if (row) {
        const a = row[j];
        paintWeight(c, a);
        c.col.setAttribute('aria-label', `${c.said}: ${fmt(a)}`);
        c.col.dataset.alpha = String(a);
      } else c.col.setAttribute('aria-label', c.said);
      c.col.classList.toggle('as-best', j === best);
    }
    if (best >= 0) {
      if (geometry) placePointer();
      else measureGeometry();
    }
    const pieces = matrix.level === 'pieces' && !matrix.identity;
    fingerNote.textContent = (row
      ? tr(pieces ? 'steps.fingerNotePieces' : 'steps.fingerNote', { n: cols.length, word: cols[best].text, a: fmt(row[best]) })
      : tr('steps.fingerNoteNone', { formula: fixedSummary(info).formula, words: fixedSummary(info).words }))
      + (fingerNote.dataset.unknown ?? '');

    const D = trace.contextDim;
    const ctx = trace.context.subarray(t * D, (t + 1) * D);
    const { lo, hi } = drawContext(ctxStrip, ctx);
    ctxStrip.setAttribute('aria-label', tr('steps.ctxLabel', { n: D, lo: fmt(lo, 2), hi: fmt(hi, 2) }));

    const K = trace.topK;
    for (let k = 0; k < K; k++) {
      const p = trace.topProbs[t * K + k];
      const piece = displayPiece(trace.topTokens[t][k], { subwords: info?.tokenizer === 'subwords' });
      // A screen reader would say "·at" as "at": it hears that the piece continues a word.
      if (piece.continues) {
        candItems[k].tok.replaceChildren(h('span', { 'aria-hidden': 'true' }, piece.text),
          h('span', { class: 'as-visually-hidden' }, tr('steps.candContinues', { piece: piece.text.slice(CONTINUES_MARK.length) })));
      } else candItems[k].tok.textContent = piece.text;
      candItems[k].fill.style.width = `${(p * 100).toFixed(1)}%`;
      candItems[k].p.textContent = tr('steps.percent', { p: fmt(p * 100, 1) });
      const isChosen = trace.topIds[t * K + k] === trace.target[t].id;
      candItems[k].li.classList.toggle('as-chosen', isChosen);
      candItems[k].chosen.hidden = !isChosen;
    }
    const change = beamChangeAt(trace, t);
    beamNote.hidden = !change;
    beamNote.dataset.step = change ? String(t) : '';
    beamNote.textContent = change ? tr('steps.beamChanged', {
      k: num(trace.beamWidth), chosen: change.chosen.label, p: fmt(change.chosen.p, 3),
      top: displayPiece(change.top.token, { subwords: info?.tokenizer === 'subwords' }).text, q: fmt(change.top.p, 3),
    }) : '';
    // At word level the candidates are those of the piece shown: say which.
    candHead.textContent = v.count > 1 ? tr('steps.nextPiece', { i: num(v.piece + 1), n: num(v.count) }) : tr('steps.nextWord');

    // The translation so far, detokenised: the same elements, one more shown per step.
    const shown = [];
    words.forEach((w, k) => { w.classList.toggle('as-current', k === v.row); if (k <= v.row) shown.push(leads[k], w); });
    const w = trace.target[t];
    emittedNote.textContent = w.isEnd ? tr('steps.emitsEnd', { t: num(v.row + 1) }) : w.copiedFrom >= 0 ? tr('steps.copied', { word: trace.source[w.copiedFrom].text }) : '';
    emitted.replaceChildren(...shown, emittedNote);
    const piece = w.isEnd ? '</s>' : w.text;
    const of = wordOf(t);
    stepWord.textContent = w.isEnd ? '' : of.count > 1
      ? tr(pieces ? 'steps.writesPiece' : 'steps.writesWordPieces', { piece, i: num(of.index + 1), n: num(of.count), word: of.text })
      : tr('steps.writesWord', { word: of.text });
    drawSubSteps(pieces ? { count: 1 } : v);
  }
  // The target word decoder step t belongs to: { text, index, count }.
  function wordOf(t) {
    const tw = trace.targetWords?.length ? trace.targetWords : null;
    const g = tw?.find((x) => t >= x.first && t < x.first + x.count);
    return g ? { text: g.text, index: t - g.first, count: g.count } : { text: trace.target[t].text, index: 0, count: 1 };
  }

  function setTrace(st) {
    trace = st.trace && st.info && st.matrix ? st.trace : null;
    info = st.info;
    matrix = trace ? st.matrix : null;
    panel.hidden = !trace;
    if (!trace) { setPlaying(false); frame?.drop('steps'); frame?.drop('steps-geometry'); frame?.drop('steps-pointer'); sourceKey = ''; targetKey = ''; view = null; return; }
    const sk = JSON.stringify([matrix.level, matrix.colLabels, trace.source.map((p) => [p.text, p.unknown]), !!trace.alpha, trace.contextDim, info?.srcVocabSize]);
    const tk = JSON.stringify([matrix.level, matrix.rowLabels, trace.target.map((p) => p.text), trace.topK, info?.tgtVocabSize, trace.beamWidth]);
    const built = sk !== sourceKey || tk !== targetKey;
    if (sk !== sourceKey) { buildSource(); sourceKey = sk; }
    if (tk !== targetKey) { buildTarget(); targetKey = tk; }
    scrub.max = String(rows() - 1);
    step = Math.max(0, Math.min(trace.T - 1, st.step));
    // A new sentence draws now; a re-decode of the same one (the slider) in the next frame.
    if (built || !frame) { frame?.drop('steps'); drawStep(); } else frame.add('steps', drawStep);
  }

  // Sizes change the columns' places: measure again, and put the pointer back over its column.
  const ro = typeof ResizeObserver === 'function' ? new ResizeObserver(() => { geometry = null; if (view?.best >= 0) measureGeometry(); }) : null;
  ro?.observe(finger);
  finger.addEventListener('scroll', () => { fingerScroll = finger.scrollLeft; }, { passive: true });
  // The number under the pointer, as the cells' titles used to say.
  ctxStrip.addEventListener('pointermove', (e) => {
    if (!trace) return;
    const D = trace.contextDim;
    const r = ctxStrip.getBoundingClientRect();
    const cols = Math.min(D, CTX_COLS);
    const scale = r.width / (cols * 8); // the canvas is drawn 8 px a cell and shown at the strip's width
    const k = Math.min(D - 1, Math.max(0, Math.floor((e.clientX - r.left) / (8 * scale)) + cols * Math.floor((e.clientY - r.top) / (CTX_CELL_H * scale))));
    ctxStrip.title = `c_t[${k}] = ${trace.context[step * D + k].toFixed(3)}`;
  });

  return {
    element,
    update(st, changed) {
      local?.update(st, changed);
      if (changed.has('trace') || changed.has('info') || changed.has('matrix')) {
        // A new model stops playback (its steps are about another translation).
        if (changed.has('info')) setPlaying(false);
        setTrace(st);
      } else if (changed.has('step') && trace) {
        step = Math.max(0, Math.min(trace.T - 1, st.step));
        frame?.drop('steps');
        drawStep();
      }
    },
    stop() { setPlaying(false); },
    redraw() { local?.redraw(); },
    destroy() { setPlaying(false); ro?.disconnect(); local?.destroy(); frame?.drop('steps-geometry'); frame?.drop('steps-pointer'); },
  };
}

// The context vector strip: CTX_COLS cells a row, CTX_CELL_H px tall, purple < 0 < orange.
const CTX_COLS = 64;
const CTX_CELL_H = 12;
function drawContext(canvas, values) {
  const D = values.length;
  const cols = Math.min(D, CTX_COLS);
  const rowsN = Math.ceil(D / cols);
  const dpr = globalThis.devicePixelRatio || 1;
  const w = cols * 8;
  const hgt = rowsN * CTX_CELL_H;
  if (canvas.width !== w * dpr || canvas.height !== hgt * dpr) { canvas.width = w * dpr; canvas.height = hgt * dpr; }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = 0; k < D; k++) {
    const v = values[k];
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
    ctx.fillStyle = rgb(diverging(v));
    ctx.fillRect((k % cols) * 8, Math.floor(k / cols) * CTX_CELL_H, 7, CTX_CELL_H - 1);
  }
  return { lo, hi };
}
