// heatmap.js - the alignment heatmap: target words as rows, source words as
// columns, colour = α (viridis) or, per row, α ÷ the row's maximum. Canvas,
// drawn at devicePixelRatio, at most once per animation frame however many
// changes arrive. Hover, tap or keyboard-focus a cell to read its value and
// highlight the word pair; hover a word to highlight its row or column. The
// current decoder step's row is marked with ▶ and an outline. Two fingers
// (or Ctrl + wheel) zoom. This module puts the figure together and owns
// when it is laid out and painted; its parts:
//   heatmap-layout.js   where every cell and label goes (pure)
//   heatmap-fit.js      the first-screen fit of the page's main map (pure)
//   heatmap-paint.js    the pixels: labels and cells layers, the exports' whole figure
//   heatmap-sticky.js   the label strips that stay in view while the map scrolls
//   heatmap-input.js    pointer, pinch, wheel and keys
//   heatmap-readout.js  the readout line and the canvas's name in words
//
// Nothing here reads layout after writing it in a frame: the box's width
// and client size come from a ResizeObserver, the scroll position from the
// scroll event, and the box's top (for the first-screen fit) is read in the
// scheduler's measure phase, before the frame's writes (measure()); so is
// the box's width when a map is laid out before the observer has reported.

import { CONFIG } from '../config.js';
import { h } from '../lib/dom.js';
import { frameTask } from '../lib/frame.js';
import { themeColors } from '../theme.js';
import { layoutHeatmap, fontsFor, shortLabel } from './heatmap-layout.js';
import { firstScreenFit } from './heatmap-fit.js';
import { paint, sizeCanvas } from './heatmap-paint.js';
import { createSticky } from './heatmap-sticky.js';
import { attachInput } from './heatmap-input.js';
import { describe, canvasLabel, cellValue } from './heatmap-readout.js';

export { paint } from './heatmap-paint.js';

let heatmapCount = 0;

/**
 * @param {HTMLElement} container
 * @param {{ onPick?: (t: number, j: number|null) => void, onZoom?: (zoom: number) => void, onPaint?: (vm) => void, frame?: object }} handlers
 *   onPick: a cell or a row label was clicked, tapped or chosen with Enter;
 *   onPaint: the canvas was just painted with vm (in the animation frame);
 *   frame: the widget's render scheduler (lib/scheduler.js), to paint after the frame's DOM changes
 *   name: the map's name in its paint marks (alignscope:heatmap-paint), "main" for the page's heatmap
 */
export function render(container, { onPick, onZoom, onPaint = null, frame: queue = null, name = null } = {}) {
  const canvas = h('canvas', { class: 'as-heatmap-canvas', tabindex: '0', role: 'img', dataset: { paints: '0' } });
  const colHead = h('canvas', { class: 'as-heat-sticky as-heat-colhead', 'aria-hidden': 'true', hidden: true });
  // Offscreen layers (not in the document): the words, and the cells.
  const labels = document.createElement('canvas');
  const cellsLayer = document.createElement('canvas');
  const rowHead = h('canvas', { class: 'as-heat-sticky as-heat-rowhead', 'aria-hidden': 'true', hidden: true });
  const corner = h('canvas', { class: 'as-heat-sticky as-heat-corner', 'aria-hidden': 'true', hidden: true });
  const scroller = h('div', { class: 'as-heatmap-scroll' }, h('div', { class: 'as-heat-stack' }, canvas, colHead, rowHead, corner));
  const moreRight = h('div', { class: 'as-heat-more', 'aria-hidden': 'true', hidden: true }, '›');
  const readout = h('p', { class: 'as-readout', 'aria-live': 'polite' }, '\u00a0');
  // A tapped cell's value, large, just above the finger: a phone's cells are too small to print it,
  // and the readout line under the map may be under the fold. (The readout says it to a screen reader.)
  const bubble = h('div', { class: 'as-heat-bubble', 'aria-hidden': 'true', hidden: true });
  const frameBox = h('div', { class: 'as-heat-frame' }, scroller, moreRight, bubble);
  const empty = h('p', { class: 'as-empty', hidden: true });
  container.append(empty, frameBox, readout);

  // The view's state (heatmap-input.js reads and writes it too).
  const s = {
    vm: null,      // { rowLabels, colLabels, alpha, T, S, entropies, rowMax }
    L: null,       // the layout (heatmap-layout.js)
    opts: { colour: 'absolute', zoom: 1, labelPx: CONFIG.labelPx, cellMax: CONFIG.cellMax, cellMin: CONFIG.cellMin, reserve: CONFIG.heatBoxReservePx, boxPx: 0, fitFirstScreen: false, fitWhole: false, screenBottom: null, place: null },
    hover: null,   // { kind, t?, j? }
    active: null,  // the selected cell { t, j } (keyboard cursor, or the cell last tapped)
    marked: -1,
    sticky: createSticky({ colHead, rowHead, corner, moreRight, scroller }),
  };
  // The scroll box: as tall as the window less `reserve`, never less than heatBoxMinPx; the cells fit it.
  // boxPx > 0 fixes it instead (a self-sizing iframe: its window is as tall as its content, so the box must not follow the window).
  const boxHeight = () => { scroller.style.maxHeight = s.opts.boxPx > 0 ? `${s.opts.boxPx}px` : `max(${CONFIG.heatBoxMinPx}px, calc(100vh - ${s.opts.reserve}px))`; };
  boxHeight();
  let needLayout = true;
  let firstPicture = true; // the next layout is the first since the box was shown (it waits for a measure phase to read its top)
  let laidOutHeight = 0; // the box height the layout was made for (px)
  let boxWidth = 0;      // the container's width (ResizeObserver)
  let readWidth = 0;     // the same, read in a measure phase before the observer's first report (widthRead: it was)
  let widthRead = false;
  let boxSize = null;    // { w, h } of the scroll box's client area (ResizeObserver)
  let colors = null;     // the theme's colours, read from the CSS when first needed
  let docTop = null;     // the scroll box's top in the page as if every box were scrolled to its start (or where a
                         // lesson's step shows it: opts.place), as measured before a frame's writes (the container's:
                         // the box is its first child while a map is shown; the container is there while a message
                         // stands in for the map, too)
  let screenBottom = null; // where the first screen ends: the window's bottom, or the top of a bar fixed over it (opts.screenBottom)
  const measureCtx = document.createElement('canvas').getContext('2d');
  let measuredPx = 0;
  const measureText = (str) => measureCtx.measureText(str).width;
  const fits = () => s.opts.fitFirstScreen && s.opts.boxPx === 0;

  /** The layout for the matrix shown, the box as last observed and the top as last measured. */
  function computeLayout() {
    const o = s.opts;
    const avail = Math.max(260, boxWidth || readWidth || 600);
    if (measuredPx !== o.labelPx) { measureCtx.font = fontsFor(o.labelPx).label; measuredPx = o.labelPx; }
    const boxFit = o.boxPx > 0 ? o.boxPx : Math.max(CONFIG.heatBoxMinPx, (window.innerHeight || 800) - o.reserve);
    const room = (screenBottom ?? window.innerHeight ?? 0) - (docTop ?? Infinity) - (o.marginPx ?? CONFIG.firstScreenMarginPx);
    const fit = fits() ? firstScreenFit(s.vm, measureText, avail, boxFit, room, o) : { availHeight: boxFit, cellMin: o.cellMin };
    return { L: layoutHeatmap(s.vm, measureText, avail, { ...fit, zoom: o.zoom, labelPx: o.labelPx, cellMax: o.cellMax }), boxFit };
  }
  function layout() {
    // Without a scheduler (a view on its own) the top is read here, as the paint's first read.
    if (fits() && docTop == null) readTop();
    firstPicture = false;
    const { L, boxFit } = computeLayout();
    s.L = L;
    bubble.hidden = true; // its cell moved
    laidOutHeight = boxFit;
    needLayout = false;
    // The top used may be a frame old (the cards above were written after it was read): look again
    // at the start of the next frame, and lay out again only if the fit comes out otherwise.
    if (fits() && queue) queue.measure(`${jobKey}-top`, checkTop);
  }
  // The top as if the page and every box around the map were scrolled to their start, so the fit does
  // not change as the reader scrolls: in presenter mode the widget's root is the box that scrolls
  // (position: fixed, overflow: auto), not the document. (Reads only: the measure phase's layout is clean.)
  const readTop = () => {
    const boxTop = container.getBoundingClientRect().top;
    const innerHeight = window.innerHeight || 0;
    // A lesson's step shows the map's row at the window's top (opts.place): the top is where that puts it.
    const placed = s.opts.place?.();
    if (placed) { docTop = boxTop - placed.from + placed.at; screenBottom = Math.min(innerHeight, placed.bottom); return; }
    let top = boxTop + (window.scrollY || 0);
    const pageBox = document.scrollingElement;
    for (let el = container.parentElement ?? container.getRootNode().host; el && el !== pageBox; el = el.parentElement ?? el.getRootNode().host) top += el.scrollTop;
    docTop = top;
    screenBottom = Math.min(innerHeight, s.opts.screenBottom?.() ?? innerHeight);
  };
  const readBoxWidth = () => { readWidth = Math.round(container.clientWidth); widthRead = true; };
  // A map laid out before the ResizeObserver has reported (a box just made or just
  // shown) reads its width in the next frame's measure phase and paints then.
  const widthUnknown = () => !boxWidth && !widthRead;
  function checkTop() {
    if (!s.vm || !fits() || !s.L) return;
    const was = docTop - screenBottom;
    readTop();
    if (Math.abs(docTop - screenBottom - was) <= 1) return;
    const { L } = computeLayout();
    if (L.cell !== s.L.cell || L.height !== s.L.height || L.width !== s.L.width) { needLayout = true; draw(); }
  }

  // The one place the canvas is painted: in an animation frame.
  const paintNow = () => {
    const { vm } = s;
    if (!vm) return;
    if (needLayout && widthUnknown()) {
      // Without a scheduler (a view on its own) it is the paint's first read.
      if (!queue) readBoxWidth();
      else {
        // (the first picture's top read in the same measure phase: see below)
        queue.measure(`${jobKey}-width`, () => { readBoxWidth(); if (firstPicture && fits()) { readTop(); firstPicture = false; } frame.request(); });
        return;
      }
    }
    // The first picture in a box just shown, fitted to the first screen, waits for the next frame's
    // measure phase: the top read in this frame's was from before its writes, and the cards above
    // change height when the first result comes (a loading line goes; on a loaded machine the model's
    // arrival and the first result are handled in one frame). Fitted to that room, the map was laid out
    // again a frame later (checkTop): a second paint and a jump. (No read of layout after a write.)
    if (needLayout && firstPicture && fits() && queue) {
      firstPicture = false;
      queue.measure(`${jobKey}-top`, () => { readTop(); frame.request(); });
      return;
    }
    const relaid = needLayout;
    if (needLayout) layout();
    const L = s.L;
    const dpr = window.devicePixelRatio || 1;
    // getComputedStyle forces a style pass: read the theme once, again only when it changes (redraw()).
    colors ??= themeColors(container);
    const focused = canvas.getRootNode().activeElement === canvas;
    const state = { hover: s.hover, active: s.active, marked: s.marked, focused: focused || !!s.active?.picked, colour: s.opts.colour };
    // The first picture in a box just shown: the ResizeObserver has not
    // measured the scroll box yet. Its client area follows from the layout
    // (the box is as wide as the card and at most laidOutHeight tall), so the
    // label strips are decided now, not in a second paint once it reports;
    // a guess it contradicts (a scroll bar's width) is corrected then.
    if (relaid && !boxSize && boxWidth) boxSize = { w: boxWidth, h: Math.min(L.height, laidOutHeight) };
    if (relaid) { s.sticky.update(L, boxSize); keepMarkedInView(); }
    // The words, the step and the highlight: drawn offscreen (no page style
    // to resolve for its fonts) when they change, copied every frame.
    const labelsChanged = relaid || stripsDirty;
    stripsDirty = false;
    if (labelsChanged) paint(sizeCanvas(labels, L.width, L.height, dpr), vm, L, colors, { ...state, layer: 'labels' });
    const cctx = sizeCanvas(cellsLayer, L.width, L.height, dpr);
    cctx.clearRect(0, 0, L.width, L.height);
    paint(cctx, vm, L, colors, { ...state, layer: 'cells' });
    // The canvas on the page only copies the two layers, in device pixels:
    // setting a font (or even a transform) on a canvas in the document makes
    // the browser bring the page's styles up to date first.
    const ctx = sizeCanvas(canvas, L.width, L.height, dpr, { device: true });
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(labels, 0, 0);
    ctx.drawImage(cellsLayer, 0, 0);
    if (labelsChanged) s.sticky.paint(labels, L, dpr, colors.bg);
    canvas.dataset.paints = String(Number(canvas.dataset.paints) + 1);
    // Where the cells are (tests tap them; a screen reader has the table instead).
    Object.assign(canvas.dataset, { cell: String(L.cell), gridX: String(L.gridX), gridY: String(L.gridY) });
    // For the render-budget bench and the render test: which decode this frame shows, and on which
    // map (name: 'main' for the page's heatmap; the other cards' maps paint their own decodes).
    performance.mark?.('alignscope:heatmap-paint', { detail: { scoreScale: vm.trace?.scoreScale ?? null, map: name } });
    onPaint?.(vm);
  };
  // Its own key in the widget's queue: the comparison puts several heatmaps on one queue.
  const jobKey = `heatmap-${++heatmapCount}`;
  const frame = queue
    ? { request: () => queue.add(jobKey, paintNow, { last: true }), cancel: () => queue.drop(jobKey), flush: () => queue.flush() }
    : frameTask(paintNow);
  let stripsDirty = true;
  /** Paint in the next frame; alphaOnly: only the numbers changed (not the words, step or highlight). */
  const draw = (alphaOnly = false) => { if (!alphaOnly) stripsDirty = true; frame.request(); };
  const setReadout = (cur) => { readout.textContent = describe(s.vm, cur, s.opts.colour); };
  const describeCanvas = () => canvas.setAttribute('aria-label', canvasLabel(s.vm, s.opts.colour));

  /** The bubble over cell cur ({ t, j }), or none (null). Read in a tap's handler, not in a frame. */
  function tapped(cur) {
    const { vm, L } = s;
    bubble.hidden = !(vm && L && cur);
    if (bubble.hidden) return;
    const fr = frameBox.getBoundingClientRect();
    const cr = canvas.getBoundingClientRect();
    const x = cr.left - fr.left + L.gridX + (cur.j + 0.5) * L.cell;
    bubble.replaceChildren(h('strong', null, cellValue(vm, cur.t, cur.j)), h('span', null, `${shortLabel(vm.rowLabels[cur.t])} ← ${shortLabel(vm.colLabels[cur.j])}`));
    // Centred over the cell, kept inside the map's box at its edges.
    bubble.style.left = `${Math.max(CONFIG.tapBubbleHalfPx, Math.min(fr.width - CONFIG.tapBubbleHalfPx, x))}px`;
    bubble.style.top = `${cr.top - fr.top + L.gridY + cur.t * L.cell}px`;
  }
  attachInput({ canvas, scroller }, s, { draw, readout: setReadout, tapped, pick: (t, j) => onPick?.(t, j), zoom: (z) => onZoom?.(z) });

  // Keep the current step's row in view of a scrolling map (the box scrolls, not the page).
  // (From the scroll position and box size as last seen: no layout is forced.)
  scroller.addEventListener('scroll', () => { bubble.hidden = true; s.sticky.scrollTop = scroller.scrollTop; s.sticky.scrollLeft = scroller.scrollLeft; s.sticky.moreRight(s.L, boxSize); }, { passive: true });
  function keepMarkedInView() {
    const { L, marked, sticky } = s;
    if (!L || marked < 0 || !sticky.top || !boxSize) return;
    const y = L.gridY + marked * L.cell;
    if (y < sticky.scrollTop + L.gridY) scroller.scrollTop = sticky.scrollTop = Math.max(0, y - L.gridY);
    else if (y + L.cell > sticky.scrollTop + boxSize.h) scroller.scrollTop = sticky.scrollTop = y + L.cell - boxSize.h + 8;
  }

  const ro = typeof ResizeObserver === 'function' ? new ResizeObserver((entries) => {
    for (const e of entries) {
      if (e.target === container) {
        const w = Math.round(e.contentRect.width);
        if (w && w !== boxWidth) { boxWidth = w; needLayout = true; if (s.vm) draw(); }
      } else {
        // The scroll box's client area (its size without scroll bars); a
        // hidden box, or one shown before its first picture (its min-height,
        // empty), has none: unmeasured, not 0 × 0, so the first picture's guess is used.
        boxSize = s.L && scroller.clientWidth ? { w: scroller.clientWidth, h: scroller.clientHeight } : null;
        if (s.sticky.update(s.L, boxSize) && s.vm) draw();
      }
    }
  }) : null;
  ro?.observe(container);
  ro?.observe(scroller);
  const onWindowResize = () => { needLayout = true; docTop = null; if (s.vm) { if (fits() && queue) queue.measure(`${jobKey}-top`, readTop); draw(); } };
  addEventListener('resize', onWindowResize);

  return {
    element: canvas,
    /** The scheduler's measure phase (before the frame's writes): the box's top, for the first-screen fit, and its width until the ResizeObserver reports. */
    measure() { if (fits()) readTop(); if (widthUnknown()) readBoxWidth(); },
    /** Show a new matrix (or a message instead: { message }). */
    update(next) {
      if (!next || next.message) {
        s.vm = null;
        frame.cancel();
        scroller.hidden = true;
        moreRight.hidden = true;
        readout.hidden = true;
        bubble.hidden = true;
        empty.hidden = false;
        empty.textContent = next?.message ?? '';
        return;
      }
      const vm = s.vm;
      const sameShape = vm && vm.T === next.T && vm.S === next.S;
      const sameLabels = sameShape && vm.rowLabels.every((l, t) => l === next.rowLabels[t]) && vm.colLabels.every((l, j) => l === next.colLabels[j]);
      s.vm = next;
      if (scroller.hidden) { scroller.hidden = false; readout.hidden = false; empty.hidden = true; needLayout = true; firstPicture = true; }
      if (!sameShape) { s.hover = null; s.active = null; bubble.hidden = true; }
      if (!sameLabels) needLayout = true;
      // (an erasure map's name says its colour scale's end, which moves with its numbers)
      if (!sameLabels || next.erasure) describeCanvas();
      setReadout(s.hover || s.active);
      if (!bubble.hidden && s.active) bubble.firstChild.textContent = cellValue(next, s.active.t, s.active.j);
      draw(sameLabels);
    },
    /** Colour mode, zoom, type size, largest and smallest cell, the room left above and below the box, or a fixed box height; fitFirstScreen: shrink a map that nearly fits the first screen to fit it (the page's main map), fitWhole: as far as cellMin (presenter mode), screenMin: the first-screen fit's smallest cell (default CONFIG.firstScreenCellMin), marginPx: room to leave under the map (default CONFIG.firstScreenMarginPx), screenBottom: () → px, the top of a bar fixed over the window's bottom (the lesson bar), read before a frame's writes, or the window's bottom when none; place: () → { from, at, bottom } | null, a first screen placed elsewhere (a lesson's step: the map's row, now at `from` px, shown at `at` px, the screen ending at `bottom`), read before a frame's writes: { colour, zoom, labelPx, cellMax, cellMin, reserve, boxPx, fitFirstScreen, fitWhole, screenMin, marginPx, screenBottom, place }. */
    setOptions(next) {
      const changed = Object.keys(next).filter((k) => next[k] !== s.opts[k]);
      if (!changed.length) return;
      s.opts = { ...s.opts, ...next };
      if (changed.some((k) => k !== 'colour')) needLayout = true;
      if (changed.includes('colour') && s.vm) describeCanvas();
      if (changed.includes('reserve') || changed.includes('boxPx')) boxHeight();
      if (s.vm) { setReadout(s.hover || s.active); draw(); }
    },
    setMarkedRow(t) {
      if (t === s.marked) return;
      s.marked = t;
      canvas.dataset.markedRow = String(t);
      keepMarkedInView();
      draw();
    },
    /** The fitted cell size at zoom 1 (for the zoom controls). */
    get layout() { return s.L; },
    /** The theme or the size changed: read the colours again, lay out again, paint. */
    redraw() { colors = null; if (s.vm) { needLayout = true; draw(); } },
    /** Something over or above the map may have changed its room (the lesson bar came, went or changed
     *  height): the next frame measures it, and the map is laid out again only if its fit comes out otherwise. */
    refit() { if (queue && fits() && s.L) queue.measure(`${jobKey}-top`, checkTop); },
    /** Paint now if a paint is pending (tests, exports). */
    flush() { frame.flush(); },
    destroy() { ro?.disconnect(); frame.cancel(); queue?.drop(`${jobKey}-top`); queue?.drop(`${jobKey}-width`); removeEventListener('resize', onWindowResize); },
  };
}
