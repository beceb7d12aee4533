// heatmap.js - the alignment heatmap: target words as rows, source words as
// columns, colour = α (viridis) or, per row, α ÷ the row's maximum. Canvas,
// drawn at devicePixelRatio, at most once per animation frame however many
// changes arrive. Hover, tap or keyboard-focus a cell to read its value and
// highlight the word pair; hover a word to highlight its row or column. The
// current decoder step's row is marked with ▶ and an outline. When a long
// sentence makes the map scroll, the word labels stay in view: three small
// canvases, stuck to the top and left edges of the scroll box, repaint just
// the labels over the cells, and a › at the right edge says more lies that
// way. Two fingers (or Ctrl + wheel) zoom.

import { t as tr, num, decimalMark } from '../i18n/index.js';
import { CONFIG } from '../config.js';
import { h } from '../lib/dom.js';
import { viridisCSS, textOnViridis, divergingCSS, textOnDiverging } from '../lib/colormap.js';
import { fmt } from '../lib/math.js';
import { frameTask } from '../lib/frame.js';
import { themeColors, colourValue } from '../theme.js';
import { layoutHeatmap, hitTest, shortLabel, fontsFor, firstScreenFloor } from './heatmap-layout.js';

let heatmapCount = 0;

/**
 * @param {HTMLElement} container
 * @param {{ onPick?: (t: number, j: number|null) => void, onZoom?: (zoom: number) => void, onPaint?: (vm) => void, frame?: object }} handlers
 *   onPick: a cell or a row label was clicked, tapped or chosen with Enter;
 *   onPaint: the canvas was just painted with vm (in the animation frame);
 *   frame: the widget's frameQueue (lib/frame.js), to paint after the frame's DOM changes
 */
export function render(container, { onPick, onZoom, onPaint = null, frame: queue = null } = {}) {
  const canvas = h('canvas', { class: 'as-heatmap-canvas', tabindex: '0', role: 'img', dataset: { paints: '0' } });
  const colHead = h('canvas', { class: 'as-heat-sticky as-heat-colhead', 'aria-hidden': 'true', hidden: true });
  // Offscreen layers (not in the document): the words, and the cells.
  const labels = document.createElement('canvas');
  const cellsLayer = document.createElement('canvas');
  const rowHead = h('canvas', { class: 'as-heat-sticky as-heat-rowhead', 'aria-hidden': 'true', hidden: true });
  const corner = h('canvas', { class: 'as-heat-sticky as-heat-corner', 'aria-hidden': 'true', hidden: true });
  const scroller = h('div', { class: 'as-heatmap-scroll' }, h('div', { class: 'as-heat-stack' }, canvas, colHead, rowHead, corner));
  // A fade and › at the box's right edge while more of the map lies to the
  // right: touch screens hide scroll bars, and the entropy column is last.
  const moreRight = h('div', { class: 'as-heat-more', 'aria-hidden': 'true', hidden: true }, '›');
  const readout = h('p', { class: 'as-readout', 'aria-live': 'polite' }, '\u00a0');
  const empty = h('p', { class: 'as-empty', hidden: true });
  container.append(empty, h('div', { class: 'as-heat-frame' }, scroller, moreRight), readout);

  let vm = null;       // { rowLabels, colLabels, alpha, T, S, entropies, rowMax }
  let opts = { colour: 'absolute', zoom: 1, labelPx: CONFIG.labelPx, cellMax: CONFIG.cellMax, cellMin: CONFIG.cellMin, reserve: CONFIG.heatBoxReservePx, boxPx: 0, fitFirstScreen: false, fitWhole: false };
  // The scroll box: as tall as the window less `reserve`, never less than heatBoxMinPx; the cells fit it.
  // boxPx > 0 fixes it instead (a self-sizing iframe: its window is as tall as its content, so the box must not follow the window).
  const boxHeight = () => { scroller.style.maxHeight = opts.boxPx > 0 ? `${opts.boxPx}px` : `max(${CONFIG.heatBoxMinPx}px, calc(100vh - ${opts.reserve}px))`; };
  boxHeight();
  let L = null;
  let needLayout = true;
  let laidOutHeight = 0; // the box height the layout was made for (px)
  let hover = null;    // { kind, t?, j? }
  let active = null;   // the selected cell { t, j } (keyboard cursor, or the cell last tapped)
  let marked = -1;
  let boxWidth = 0;
  let pointerAt = -1e9; // time of the last pointerdown: a focus that follows it is the pointer's
  let colors = null;    // the theme's colours, read from the CSS when first needed
  const measureCtx = document.createElement('canvas').getContext('2d');
  let measuredPx = 0;
  const measure = (s) => measureCtx.measureText(s).width;

  function layout() {
    const avail = Math.max(260, boxWidth || container.clientWidth || 600);
    if (measuredPx !== opts.labelPx) { measureCtx.font = fontsFor(opts.labelPx).label; measuredPx = opts.labelPx; }
    const boxFit = opts.boxPx > 0 ? opts.boxPx : Math.max(CONFIG.heatBoxMinPx, (window.innerHeight || 800) - opts.reserve);
    const fit = opts.fitFirstScreen && opts.boxPx === 0 ? firstScreenFit(avail, boxFit) : { availHeight: boxFit, cellMin: opts.cellMin };
    L = layoutHeatmap(vm, measure, avail, { ...fit, zoom: opts.zoom, labelPx: opts.labelPx, cellMax: opts.cellMax });
    laidOutHeight = boxFit;
    needLayout = false;
  }

  // The box is as tall as the window less `reserve`: scrolled to, the whole
  // map is in view. But a map that starts on the first screen and nearly fits
  // under it (a short sentence on a laptop: 5 rows of 64 px reach 50 px below
  // a 768 px window) is shrunk to end above the fold, so the figure is whole
  // on opening, with the score-scale control in the card's header beside it
  // (a 12-word sentence at 1366 × 900), down to the floor heatmap-layout.js
  // firstScreenFloor sets; a longer map keeps its cells and scrolls. The room is measured from the document's top, not the
  // scroll position, so the cells do not change as the page scrolls.
  // Returns the height to fit the cells to and the smallest cell: { availHeight, cellMin } (px).
  function firstScreenFit(avail, boxFit) {
    const boxOnly = { availHeight: boxFit, cellMin: opts.cellMin };
    const room = (window.innerHeight || 0) - (scroller.getBoundingClientRect().top + (window.scrollY || 0)) - (opts.marginPx ?? CONFIG.firstScreenMarginPx);
    if (room <= 0) return boxOnly;
    const fitOpts = { labelPx: opts.labelPx, cellMax: opts.cellMax };
    const whole = layoutHeatmap(vm, measure, avail, { ...fitOpts, ...boxOnly });
    // Already above the fold, or cells too small to shrink (the floor must not exceed the width's fit).
    const cellMin = firstScreenFloor(opts.cellMin, whole.fitted, opts.fitWhole);
    if (whole.height <= room || cellMin === null) return boxOnly;
    // The slanted labels' height is estimated before the cell is known: fit, then take off what the estimate missed.
    let availHeight = room;
    for (let tries = 0; tries < 2; tries += 1) {
      const shrunk = layoutHeatmap(vm, measure, avail, { ...fitOpts, availHeight, cellMin });
      if (shrunk.height <= room) return { availHeight, cellMin };
      availHeight -= shrunk.height - room;
    }
    return boxOnly;
  }

  /** Size canvas c to w × hgt CSS px at dpr; its context, in CSS px (device: in device px, set once). */
  function sizeCanvas(c, w, hgt, dpr, { device = false } = {}) {
    const ctx = c.getContext('2d');
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(hgt * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(hgt * dpr);
      if (c.isConnected) { c.style.width = `${w}px`; c.style.height = `${hgt}px`; }
      if (device) ctx.setTransform(1, 0, 0, 1, 0, 0);
    }
    if (!device) ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return ctx;
  }

  // Which label strips must stay in view: those of a direction that scrolls.
  // Decided from the layout and the scroll box's size as last observed (a
  // ResizeObserver reports it after layout), never by reading scrollHeight
  // in a frame, which would force a layout of the whole page.
  let stickTop = false;
  let stickLeft = false;
  let boxSize = null; // { w, h } of the scroll box's client area
  function updateSticky() {
    if (!L || !boxSize) return false;
    const top = L.height > boxSize.h + 1;
    const left = L.width > boxSize.w + 1;
    const changed = top !== stickTop || left !== stickLeft;
    stickTop = top;
    stickLeft = left;
    colHead.hidden = !stickTop;
    rowHead.hidden = !stickLeft;
    corner.hidden = !(stickTop && stickLeft);
    showMoreRight();
    return changed;
  }
  // From the layout, the box size and the scroll position as last seen (no layout is forced).
  function showMoreRight() {
    const more = !scroller.hidden && stickLeft && !!L && !!boxSize && scrollLeft + boxSize.w < L.width - 2;
    if (moreRight.hidden === more) moreRight.hidden = !more;
  }

  // The one place the canvas is painted: in an animation frame.
  const paintNow = () => {
    if (!vm) return;
    const relaid = needLayout;
    if (needLayout) layout();
    const dpr = window.devicePixelRatio || 1;
    // getComputedStyle forces a style pass: read the theme once, again only when it changes (redraw()).
    colors ??= themeColors(container);
    const focused = canvas.getRootNode().activeElement === canvas;
    const state = { hover, active, marked, focused: focused || !!active?.picked, colour: opts.colour };
    // The first picture in a box just shown: the ResizeObserver has not
    // measured the scroll box yet. Its client area follows from the layout
    // (the box is as wide as the card and at most laidOutHeight tall), so the
    // label strips are decided now, not in a second paint once it reports;
    // a guess it contradicts (a scroll bar's width) is corrected then.
    if (relaid && !boxSize && boxWidth) boxSize = { w: boxWidth, h: Math.min(L.height, laidOutHeight) };
    if (relaid) { updateSticky(); keepMarkedInView(); }
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
    // The sticky strips are the labels' edges on an opaque background.
    if (labelsChanged) {
      const strip = (c, w, hgt) => {
        const x = sizeCanvas(c, w, hgt, dpr, { device: true });
        x.fillStyle = colors.bg;
        x.fillRect(0, 0, c.width, c.height);
        x.drawImage(labels, 0, 0, c.width, c.height, 0, 0, c.width, c.height);
      };
      if (stickTop) strip(colHead, L.width, L.gridY);
      if (stickLeft) strip(rowHead, L.gridX, L.height);
      if (stickTop && stickLeft) strip(corner, L.gridX, L.gridY);
    }
    finishPaint();
  };
  const finishPaint = () => {
    canvas.dataset.paints = String(Number(canvas.dataset.paints) + 1);
    // Where the cells are (tests tap them; a screen reader has the table instead).
    Object.assign(canvas.dataset, { cell: String(L.cell), gridX: String(L.gridX), gridY: String(L.gridY) });
    // For the render-budget bench (tests/bench/render_budget.mjs): which decode this frame shows.
    performance.mark?.('alignscope:heatmap-paint', { detail: { scoreScale: vm.trace?.scoreScale ?? null } });
    onPaint?.(vm);
  };
  const own = queue ? null : frameTask(paintNow);
  // Its own key in the widget's queue: the comparison puts several heatmaps on one queue.
  const jobKey = `heatmap-${++heatmapCount}`;
  const frame = queue
    ? { request: () => queue.add(jobKey, paintNow, { last: true }), cancel: () => queue.drop(jobKey), flush: () => queue.flush() }
    : own;
  let stripsDirty = true;
  /** Paint in the next frame; alphaOnly: only the numbers changed (not the words, step or highlight). */
  const draw = (alphaOnly = false) => { if (!alphaOnly) stripsDirty = true; frame.request(); };

  /** Pointer position in heatmap coordinates; over a stuck label strip, the label's. */
  function pointAt(e) {
    const r = canvas.getBoundingClientRect();
    let x = e.clientX - r.left;
    let y = e.clientY - r.top;
    const sr = scroller.getBoundingClientRect();
    if (stickTop && scroller.scrollTop > 0 && e.clientY - sr.top < L.gridY) y = e.clientY - sr.top;
    if (stickLeft && scroller.scrollLeft > 0 && e.clientX - sr.left < L.gridX) x = e.clientX - sr.left;
    return [x, y];
  }

  function describe(cur) {
    if (!vm || !cur) return '\u00a0';
    if (vm.difference) return describeDifference(cur);
    const { t, j } = cur;
    if (cur.kind === 'row' || (t != null && j == null)) {
      const row = Array.from(vm.alpha.subarray(t * vm.S, (t + 1) * vm.S));
      const best = row.indexOf(Math.max(...row));
      return tr('heat.readRow', { t: num(t + 1), row: vm.rowLabels[t], col: vm.colLabels[best], a: fmt(row[best]), h: fmt(vm.entropies[t], 2) });
    }
    if (cur.kind === 'col') {
      let best = 0;
      for (let tt = 1; tt < vm.T; tt++) if (vm.alpha[tt * vm.S + j] > vm.alpha[best * vm.S + j]) best = tt;
      return tr('heat.readCol', { j: num(j + 1), col: vm.colLabels[j], row: vm.rowLabels[best], a: fmt(vm.alpha[best * vm.S + j]) });
    }
    const a = vm.alpha[t * vm.S + j];
    const rel = opts.colour === 'row' ? tr('heat.readCellRel', { r: fmt(colourValue(a, vm.rowMax[t], 'row'), 2) }) : '';
    return tr('heat.readCell', { row: vm.rowLabels[t], col: vm.colLabels[j], a: fmt(a), rel, t: num(t + 1), j: num(j + 1) });
  }
  // A difference map (lib/compare.js): cells are α_A − α_B, the side column ½ Σ |α_A − α_B|.
  function describeDifference(cur) {
    const { t, j } = cur;
    const signed = (x) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${fmt(Math.abs(x))}`;
    if (cur.kind === 'row' || (t != null && j == null)) {
      const row = Array.from(vm.alpha.subarray(t * vm.S, (t + 1) * vm.S));
      const best = row.reduce((b, x, k) => (Math.abs(x) > Math.abs(row[b]) ? k : b), 0);
      return tr('heat.diffReadRow', { t: num(t + 1), row: vm.rowLabels[t], col: vm.colLabels[best], d: signed(row[best]), tv: fmt(vm.entropies[t], 2) });
    }
    if (cur.kind === 'col') {
      let best = 0;
      for (let tt = 1; tt < vm.T; tt++) if (Math.abs(vm.alpha[tt * vm.S + j]) > Math.abs(vm.alpha[best * vm.S + j])) best = tt;
      return tr('heat.diffReadCol', { j: num(j + 1), col: vm.colLabels[j], row: vm.rowLabels[best], d: signed(vm.alpha[best * vm.S + j]) });
    }
    return tr('heat.diffReadCell', { row: vm.rowLabels[t], col: vm.colLabels[j], d: signed(vm.alpha[t * vm.S + j]), t: num(t + 1), j: num(j + 1) });
  }
  const setReadout = (cur) => { readout.textContent = describe(cur); };
  const describeCanvas = () => {
    if (vm.difference) {
      canvas.setAttribute('aria-label', tr('heat.diffCanvasLabel', { T: num(vm.T), S: num(vm.S) }));
      return;
    }
    canvas.setAttribute('aria-label', tr('heat.canvasLabel', { T: num(vm.T), S: num(vm.S), row: opts.colour === 'row' ? tr('heat.canvasRow') : '' }));
  };

  // Two pointers on the map: pinch to zoom (one pointer scrolls as usual).
  const pointers = new Map();
  let pinch = null;
  const spread = () => { const [a, b] = [...pointers.values()]; return Math.hypot(a.x - b.x, a.y - b.y); };
  scroller.addEventListener('pointerdown', (e) => {
    pointerAt = performance.now();
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 2) pinch = { d0: spread(), z0: opts.zoom };
  });
  scroller.addEventListener('pointermove', (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pinch && pointers.size === 2 && pinch.d0 > 0) onZoom?.(pinch.z0 * (spread() / pinch.d0));
  });
  const lift = (e) => { pointers.delete(e.pointerId); if (pointers.size < 2) pinch = null; };
  scroller.addEventListener('pointerup', lift);
  scroller.addEventListener('pointercancel', lift);
  scroller.addEventListener('wheel', (e) => {
    if (!e.ctrlKey || !vm) return;
    e.preventDefault();
    onZoom?.(opts.zoom * (e.deltaY < 0 ? CONFIG.zoomStep : 1 / CONFIG.zoomStep));
  }, { passive: false });

  canvas.addEventListener('pointermove', (e) => {
    if (!L || e.pointerType === 'touch') return;
    const hit = hitTest(L, ...pointAt(e));
    if (JSON.stringify(hit) !== JSON.stringify(hover)) {
      hover = hit;
      canvas.style.cursor = hit && (hit.kind === 'cell' || hit.kind === 'row') ? 'pointer' : 'default';
      draw();
      setReadout(hover || active);
    }
  });
  canvas.addEventListener('pointerleave', () => { if (!hover) return; hover = null; draw(); setReadout(active); });
  // A click or a tap selects what is under it: a cell (its value in the
  // readout, the step view to its row) or a row label (the step).
  canvas.addEventListener('click', (e) => {
    if (!L || pinch) return;
    const hit = hitTest(L, ...pointAt(e));
    if (!hit || hit.t == null) return;
    if (hit.kind === 'cell') active = { kind: 'cell', t: hit.t, j: hit.j, picked: true };
    draw();
    setReadout(hit.kind === 'cell' ? active : hit);
    onPick?.(hit.t, hit.kind === 'cell' ? hit.j : null);
  });
  canvas.addEventListener('focus', () => {
    // Focus from the keyboard starts the cursor on the current step's row;
    // focus that a click or a tap brings leaves the choice to that click.
    if (performance.now() - pointerAt < 800) return;
    if (!active && vm) active = { kind: 'cell', t: Math.max(0, marked), j: 0 };
    draw();
    setReadout(active);
  });
  canvas.addEventListener('blur', () => draw());
  canvas.addEventListener('keydown', (e) => {
    if (!vm) return;
    // + and − zoom, 0 fits (as the buttons do).
    const zoomKeys = { '+': CONFIG.zoomStep, '=': CONFIG.zoomStep, '-': 1 / CONFIG.zoomStep, '0': 0 };
    if (e.key in zoomKeys && !e.ctrlKey && !e.metaKey && !e.altKey) {
      onZoom?.(zoomKeys[e.key] ? opts.zoom * zoomKeys[e.key] : 1);
      e.preventDefault();
      return;
    }
    if (!active) return;
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0], Home: [0, -1e9], End: [0, 1e9] };
    if (moves[e.key]) {
      const [dt, dj] = moves[e.key];
      active = { kind: 'cell', t: Math.min(vm.T - 1, Math.max(0, active.t + dt)), j: Math.min(vm.S - 1, Math.max(0, active.j + dj)) };
      e.preventDefault();
      e.stopPropagation();
      draw();
      setReadout(active);
      scrollCellIntoView(active);
    } else if (e.key === 'Enter') {
      onPick?.(active.t, active.j);
      e.preventDefault();
    }
  });

  // The stuck label strips cover gridX px on the left and gridY px on top.
  function scrollCellIntoView({ t, j }) {
    if (!L) return;
    const x = L.gridX + j * L.cell;
    const y = L.gridY + t * L.cell;
    if (x < scroller.scrollLeft + L.gridX) scroller.scrollLeft = Math.max(0, x - L.gridX);
    else if (x + L.cell > scroller.scrollLeft + scroller.clientWidth) scroller.scrollLeft = x + L.cell - scroller.clientWidth + 8;
    if (y + L.cell > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = y + L.cell - scroller.clientHeight + 8;
    else if (y < scroller.scrollTop + L.gridY) scroller.scrollTop = Math.max(0, y - L.gridY);
  }
  // Keep the current step's row in view of a scrolling map (the box scrolls, not the page).
  // (From the scroll position and box size as last seen: no layout is forced.)
  let scrollTop = 0;
  let scrollLeft = 0;
  scroller.addEventListener('scroll', () => { scrollTop = scroller.scrollTop; scrollLeft = scroller.scrollLeft; showMoreRight(); }, { passive: true });
  function keepMarkedInView() {
    if (!L || marked < 0 || !stickTop || !boxSize) return;
    const y = L.gridY + marked * L.cell;
    if (y < scrollTop + L.gridY) scroller.scrollTop = scrollTop = Math.max(0, y - L.gridY);
    else if (y + L.cell > scrollTop + boxSize.h) scroller.scrollTop = scrollTop = y + L.cell - boxSize.h + 8;
  }

  const ro = typeof ResizeObserver === 'function' ? new ResizeObserver((entries) => {
    for (const e of entries) {
      if (e.target === container) {
        const w = Math.round(e.contentRect.width);
        if (w && w !== boxWidth) { boxWidth = w; needLayout = true; if (vm) draw(); }
      } else {
        // The scroll box's client area (its size without scroll bars); a
        // hidden box (no matrix yet) has none: unmeasured, not 0 × 0.
        boxSize = scroller.clientWidth ? { w: scroller.clientWidth, h: scroller.clientHeight } : null;
        if (updateSticky() && vm) draw();
      }
    }
  }) : null;
  ro?.observe(container);
  ro?.observe(scroller);
  const onWindowResize = () => { needLayout = true; if (vm) draw(); };
  addEventListener('resize', onWindowResize);

  return {
    element: canvas,
    /** Show a new matrix (or a message instead: { message }). */
    update(next) {
      if (!next || next.message) {
        vm = null;
        frame.cancel();
        scroller.hidden = true;
        moreRight.hidden = true;
        readout.hidden = true;
        empty.hidden = false;
        empty.textContent = next?.message ?? '';
        return;
      }
      const sameShape = vm && vm.T === next.T && vm.S === next.S;
      const sameLabels = sameShape && vm.rowLabels.every((l, t) => l === next.rowLabels[t]) && vm.colLabels.every((l, j) => l === next.colLabels[j]);
      vm = next;
      if (scroller.hidden) { scroller.hidden = false; readout.hidden = false; empty.hidden = true; needLayout = true; }
      if (!sameShape) { hover = null; active = null; }
      if (!sameLabels) {
        needLayout = true;
        describeCanvas();
      }
      setReadout(hover || active);
      draw(sameLabels);
    },
    /** Colour mode, zoom, type size, largest and smallest cell, the room left above and below the box, or a fixed box height; fitFirstScreen: shrink a map that nearly fits the first screen to fit it (the page's main map), fitWhole: as far as cellMin (presenter mode), marginPx: room to leave under the map (default CONFIG.firstScreenMarginPx): { colour, zoom, labelPx, cellMax, cellMin, reserve, boxPx, fitFirstScreen, fitWhole }. */
    setOptions(next) {
      const changed = Object.keys(next).filter((k) => next[k] !== opts[k]);
      if (!changed.length) return;
      opts = { ...opts, ...next };
      if (changed.some((k) => k !== 'colour')) needLayout = true;
      if (changed.includes('colour') && vm) describeCanvas();
      if (changed.includes('reserve') || changed.includes('boxPx')) boxHeight();
      if (vm) { setReadout(hover || active); draw(); }
    },
    setMarkedRow(t) {
      if (t === marked) return;
      marked = t;
      canvas.dataset.markedRow = String(t);
      keepMarkedInView();
      draw();
    },
    /** The fitted cell size at zoom 1 (for the zoom controls). */
    get layout() { return L; },
    /** The theme or the size changed: read the colours again, lay out again, paint. */
    redraw() { colors = null; if (vm) { needLayout = true; draw(); } },
    /** Paint now if a paint is pending (tests, exports). */
    flush() { frame.flush(); },
    destroy() { ro?.disconnect(); frame.cancel(); removeEventListener('resize', onWindowResize); },
  };
}

/**
 * Draw the heatmap onto a 2-d context, all of it (the PNG export) or one
 * layer. layer 'labels': what depends on the words, the step and the
 * highlight (words, ▶, highlight bands, the "H bits" head); 'cells': what
 * depends on α (cells, their values, entropies, outlines). The page keeps
 * the labels in an offscreen canvas and copies them under the cells every
 * frame: a re-decode (the slider) redraws only the cells, with one font.
 * colour: 'absolute' (α) or 'row' (α ÷ the row's maximum, vm.rowMax).
 */
export function paint(ctx, vm, L, colors, { hover = null, active = null, marked = -1, focused = false, background = false, layer, colour = 'absolute' } = {}) {
  if (layer !== 'cells') ctx.clearRect(0, 0, L.width, L.height);
  if (background) {
    ctx.fillStyle = colors.bg;
    ctx.fillRect(0, 0, L.width, L.height);
  }
  const hiRow = hover?.t ?? (focused ? active?.t : undefined);
  const hiCol = hover?.j ?? (focused ? active?.j : undefined);
  if (layer !== 'cells') paintLabels(ctx, vm, L, colors, { hiRow, hiCol, marked });
  if (layer !== 'labels') paintCells(ctx, vm, L, colors, { hover, active, marked, focused, hiRow, colour });
}

function paintLabels(ctx, vm, L, colors, { hiRow, hiCol, marked }) {
  const { T, S, cell, gridX, gridY, fonts } = L;
  const k = fonts.labelPx / CONFIG.labelPx;
  const base = ctx.getTransform(); // the device-pixel scale the caller set
  const bold = `bold ${fonts.label}`;
  const cos = Math.cos(-L.theta);
  const sin = Math.sin(-L.theta);
  // Column j's label runs up along the slant from (x, y): one transform each.
  const slant = (j) => ctx.setTransform(base.a * cos, base.b + base.a * sin, -base.d * sin, base.d * cos,
    base.e + base.a * (gridX + j * cell + cell / 2), base.f + base.d * (gridY - 6));

  // Row/column highlight bands behind the labels.
  ctx.fillStyle = colors.hl;
  if (hiRow != null) ctx.fillRect(4, gridY + hiRow * cell, gridX - 6, cell);
  if (hiCol != null) {
    ctx.font = bold;
    const w = ctx.measureText(shortLabel(vm.colLabels[hiCol])).width;
    slant(hiCol);
    ctx.fillRect(-4, -11 * k, w + 8, 22 * k);
    ctx.setTransform(base);
  }
  // Each font is set once: setting ctx.font parses it.
  ctx.textBaseline = 'middle';
  for (const strong of [false, true]) {
    ctx.font = strong ? bold : fonts.label;
    ctx.fillStyle = strong ? colors.fg : colors.muted;
    ctx.textAlign = 'right';
    for (let t = 0; t < T; t++) {
      if ((t === hiRow || t === marked) === strong) ctx.fillText(shortLabel(vm.rowLabels[t]), gridX - 8, gridY + t * cell + cell / 2);
    }
    ctx.textAlign = 'left';
    for (let j = 0; j < S; j++) {
      if ((j === hiCol) !== strong) continue;
      slant(j);
      ctx.fillText(shortLabel(vm.colLabels[j]), 0, 0);
    }
    ctx.setTransform(base);
  }
  // Current step: ▶.
  if (marked >= 0 && marked < T) {
    ctx.fillStyle = colors.accent;
    ctx.font = fonts.label;
    ctx.fillText('▶', 6, gridY + marked * cell + cell / 2);
  }
  ctx.font = fonts.value;
  ctx.fillStyle = colors.muted;
  ctx.fillText(vm.difference ? tr('heat.diffHead') : tr('heat.entropyHead'), gridX + L.gridW + 8, gridY - 10);
}

function paintCells(ctx, vm, L, colors, { hover, active, marked, focused, hiRow, colour }) {
  const { T, S, cell, gridX, gridY, fonts } = L;
  ctx.font = fonts.value;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  const values = cell >= CONFIG.cellValueMin;
  const dec = decimalMark();
  for (let t = 0; t < T; t++) {
    const rowMax = vm.rowMax?.[t] ?? 1;
    for (let j = 0; j < S; j++) {
      const a = vm.alpha[t * S + j];
      if (vm.difference) {
        // α_A − α_B in [-1, 1] on the diverging scale; the value keeps its sign.
        ctx.fillStyle = divergingCSS(a);
        ctx.fillRect(gridX + j * cell, gridY + t * cell, cell, cell);
        if (values) {
          ctx.fillStyle = textOnDiverging(a);
          ctx.fillText(`${a > 0.005 ? '+' : a < -0.005 ? '−' : ''}${Math.abs(a).toFixed(2)}`, gridX + j * cell + cell / 2, gridY + t * cell + cell / 2 + 0.5);
        }
        continue;
      }
      const v = colourValue(a, rowMax, colour);
      ctx.fillStyle = viridisCSS(v);
      ctx.fillRect(gridX + j * cell, gridY + t * cell, cell, cell);
      if (values) {
        ctx.fillStyle = textOnViridis(v);
        ctx.fillText(dec === '.' ? a.toFixed(2) : a.toFixed(2).replace('.', dec), gridX + j * cell + cell / 2, gridY + t * cell + cell / 2 + 0.5);
      }
    }
  }
  // Thin separators so neighbouring equal colours stay countable.
  ctx.strokeStyle = colors.bg;
  ctx.globalAlpha = 0.35;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let j = 1; j < S; j++) { ctx.moveTo(gridX + j * cell + 0.5, gridY); ctx.lineTo(gridX + j * cell + 0.5, gridY + L.gridH); }
  for (let t = 1; t < T; t++) { ctx.moveTo(gridX, gridY + t * cell + 0.5); ctx.lineTo(gridX + L.gridW, gridY + t * cell + 0.5); }
  ctx.stroke();
  ctx.globalAlpha = 1;

  // Entropy column.
  ctx.textAlign = 'left';
  const maxH = vm.difference ? 1 : Math.log2(Math.max(2, S)); // entropy in bits, or total variation (0 … 1)
  for (let t = 0; t < T; t++) {
    const y = gridY + t * cell;
    ctx.globalAlpha = 0.25;
    ctx.fillStyle = colors.muted;
    ctx.fillRect(gridX + L.gridW + 6, y + cell - 4, (L.entW - 10) * Math.min(1, vm.entropies[t] / maxH), 2);
    ctx.globalAlpha = 1;
    ctx.fillStyle = t === hiRow ? colors.fg : colors.muted;
    ctx.fillText(vm.entropies[t].toFixed(2).replace('.', decimalMark()), gridX + L.gridW + 8, y + cell / 2);
  }

  // Current step: an outline around its row.
  if (marked >= 0 && marked < T) {
    ctx.strokeStyle = colors.accent;
    ctx.lineWidth = 2.5;
    ctx.strokeRect(gridX - 1, gridY + marked * cell - 1, L.gridW + 2, cell + 2);
  }
  // Hovered / selected cell outline.
  const cur = hover?.kind === 'cell' ? hover : focused && active ? active : null;
  if (cur) {
    ctx.strokeStyle = colors.fg;
    ctx.lineWidth = 2;
    ctx.strokeRect(gridX + cur.j * cell + 1, gridY + cur.t * cell + 1, cell - 2, cell - 2);
  }
  if (hover?.kind === 'row' || hover?.kind === 'col') {
    ctx.strokeStyle = colors.fg;
    ctx.lineWidth = 1.5;
    if (hover.kind === 'row') ctx.strokeRect(gridX + 0.5, gridY + hover.t * cell + 0.5, L.gridW - 1, cell - 1);
    else ctx.strokeRect(gridX + hover.j * cell + 0.5, gridY + 0.5, cell - 1, L.gridH - 1);
  }
}
