// ribbons.js - the ribbons figure: source words in a row on top, target
// words below, and from each source word a band to the word being written,
// as wide as its weight α (geometry: lib/ribbons.js). On the page it is an
// SVG of bands (role="img", described in words) between two rows of word
// buttons, all placed from one layout; the bands glide to the next step's
// widths in animation frames (not under prefers-reduced-motion). "All steps"
// draws every target word's bands at once, each with opacity α. Hover or
// focus a word to pick out its bands. The exports are drawn from one export
// layout (exportLayout) and one list of parts (figureParts): a standalone SVG
// document (ribbonsSVG), or a canvas (paintRibbons: the PNG and the
// animation's frames).

import { CONFIG } from '../config.js';
import { h, svg, prefersReducedMotion } from '../lib/dom.js';
import { frameTask } from '../lib/frame.js';
import { fmt } from '../lib/math.js';
import { layoutRibbons, rowBands, allBands, bandPath, tweenBand, easeOut, topWeights, wrapLines } from '../lib/ribbons.js';
import { RIBBONS, paletteColors } from '../theme.js';
import { t as tr, num } from '../i18n/index.js';

// The words are set at RIBBONS.wordWeight, and measured so.
const fontOf = (px) => `${RIBBONS.wordWeight} ${px}px ${CONFIG.labelFamily}`;

/** A text measurer at `px` (a canvas context: no layout of the page). */
export function measurer(px) {
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = fontOf(px);
  return (s) => ctx.measureText(s).width;
}

/** What the figure says in words at row `t` (the SVG's aria-label). */
export function describeRow(m, t, { all = false } = {}) {
  const top = topWeights(m, t, 3).map((w) => tr('ribbons.weight', { word: w.label, a: fmt(w.alpha, 2) })).join(', ');
  const key = all ? 'ribbons.labelAll' : 'ribbons.label';
  return tr(key, { t: num(t + 1), n: num(m.T), word: m.rowLabels[t], top });
}

/**
 * The figure on the page.
 * @param {HTMLElement} container
 * @param {{ onPick?: (row: number) => void, frame?: object }} handlers
 *   onPick: a target word was clicked (or chosen with the arrow keys): its row;
 *   frame: the widget's render scheduler, so a result redraws once, with the other cards
 */
export function render(container, { onPick, frame: queue = null } = {}) {
  const bands = svg('g', { class: 'as-rb-bands' });
  const figure = svg('svg', { class: 'as-rb-svg', role: 'img', 'aria-label': '', focusable: 'false' }, bands);
  const sourceRow = h('div', { class: 'as-rb-row as-rb-source', role: 'group', 'aria-label': tr('ribbons.sourceRow') });
  const targetRow = h('div', { class: 'as-rb-row as-rb-target', role: 'group', 'aria-label': tr('ribbons.targetRow') });
  const box = h('div', { class: 'as-rb-box' }, figure, sourceRow, targetRow);
  // Hidden until update() gives it a matrix (and its words).
  const scroller = h('div', { class: 'as-rb-scroll', hidden: true }, box);
  // The weights of the current step for a screen reader, largest first.
  const list = h('ul', { class: 'as-visually-hidden as-rb-list' });
  container.append(scroller, list);

  let vm = null;
  let row = 0;
  let all = false;
  let L = null;
  let opts = { labelPx: RIBBONS.labelPx, bandMax: RIBBONS.bandMax, bandHeight: RIBBONS.bandHeight };
  let boxWidth = 0;       // the container's width (ResizeObserver)
  let readWidth = 0;      // the same, read in a measure phase before the observer's first report (widthRead: it was)
  let widthRead = false;
  let viewWidth = 0;      // the scroller's client width, as last observed
  let scrollLeft = 0;
  let needLayout = true;
  let labelsKey = '';
  let sourceButtons = [];
  let targetButtons = [];
  let paths = [];         // one <path> per band drawn
  let items = [];         // the hidden list's <li>s, reused (a step changes only their text)
  let shown = null;       // the bands as drawn now (a step's S bands), for the glide
  let glide = 0;          // the glide's animation frame
  let hover = null;       // { side: 's'|'t', i } whose bands stand out
  let pinned = null;      // the same, chosen by a tap (touch has no hover)
  let focusIn = { s: 0, t: 0 }; // the roving tab stop of each row

  function layout() {
    const avail = Math.max(280, boxWidth || readWidth || 600);
    L = layoutRibbons(vm, measurer(opts.labelPx), avail, { labelPx: opts.labelPx, bandMax: opts.bandMax, bandHeight: opts.bandHeight, gap: RIBBONS.gap, maxGap: RIBBONS.maxGap, pad: RIBBONS.pad });
    needLayout = false;
    box.style.width = `${L.width}px`;
    box.style.height = `${L.height}px`;
    box.style.font = fontOf(opts.labelPx);
    figure.setAttribute('width', String(L.width));
    figure.setAttribute('height', String(L.height));
    figure.setAttribute('viewBox', `0 0 ${L.width} ${L.height}`);
    const place = (b, slot, top) => Object.assign(b.style, { left: `${slot.x}px`, width: `${slot.w}px`, top: `${top}px`, height: `${L.wordH}px` });
    sourceButtons.forEach((b, j) => place(b, L.source[j], L.pad));
    targetButtons.forEach((b, t) => place(b, L.target[t], L.bandBottom));
    figure.dataset.bandMax = String(L.bandMax);
  }

  function buildWords() {
    const key = JSON.stringify([vm.colLabels, vm.rowLabels]);
    if (key === labelsKey) return;
    labelsKey = key;
    hover = null;
    pinned = null;
    focusIn = { s: 0, t: row };
    sourceButtons = vm.colLabels.map((label, j) => {
      const b = h('button', { type: 'button', class: 'as-rb-word', dataset: { side: 's', i: String(j) }, tabindex: j === 0 ? '0' : '-1', title: label }, label);
      // A tap pins the word's bands out (touch has no hover); a second tap lets go.
      b.addEventListener('click', () => { pinned = pinned?.side === 's' && pinned.i === j ? null : { side: 's', i: j }; highlight(); });
      b.setAttribute('aria-pressed', 'false');
      return b;
    });
    targetButtons = vm.rowLabels.map((label, t) => {
      const b = h('button', { type: 'button', class: 'as-rb-word as-rb-tword', dataset: { side: 't', i: String(t) }, tabindex: t === row ? '0' : '-1', title: label }, label);
      b.addEventListener('click', () => onPick?.(t));
      return b;
    });
    sourceRow.replaceChildren(...sourceButtons);
    targetRow.replaceChildren(...targetButtons);
    needLayout = true;
    shown = null;
  }

  // ---- drawing ----
  function setPaths(drawn) {
    // One <path> per band; as many as needed, reused (a step changes only their shapes).
    while (paths.length < drawn.length) { const p = svg('path', { class: 'as-rb-band' }); bands.append(p); paths.push(p); }
    while (paths.length > drawn.length) paths.pop().remove();
    drawn.forEach((b, k) => {
      const p = paths[k];
      p.setAttribute('d', bandPath(b, L.bandTop, L.bandBottom));
      if (p.dataset.t !== String(b.t)) p.dataset.t = String(b.t);
      if (p.dataset.j !== String(b.j)) p.dataset.j = String(b.j);
    });
  }
  function setTargets(drawn) {
    // What each band is (not how far its glide has come): tests and the readers of the DOM see the step's α.
    drawn.forEach((b, k) => {
      const p = paths[k];
      p.dataset.alpha = b.alpha.toFixed(6);
      p.dataset.width = b.width.toFixed(3);
      p.setAttribute('fill-opacity', all ? b.opacity.toFixed(4) : String(RIBBONS.bandOpacity));
      p.classList.toggle('as-rb-current', b.t === row);
    });
  }

  function stopGlide() { if (glide) { cancelAnimationFrame(glide); glide = 0; } }

  // The screen reader's list of the step's weights: the same <li>s, new text.
  function setList(words) {
    while (items.length < words.length) { const li = h('li', null, ''); list.append(li); items.push(li); }
    while (items.length > words.length) items.pop().remove();
    words.forEach((w, k) => {
      const text = tr('ribbons.listItem', { word: w.label, a: fmt(w.alpha, 3) });
      const node = items[k].firstChild;
      if (node.data !== text) node.data = text;
    });
  }

  const readBoxWidth = () => { readWidth = Math.round(container.clientWidth); widthRead = true; };
  function drawNow() {
    if (!vm) return;
    // Laid out before the ResizeObserver has reported (the figure just made or shown): the
    // width is read in the next frame's measure phase, before its writes, and drawn then.
    // (Without a scheduler it is the draw's first read.)
    if (needLayout && !boxWidth && !widthRead) {
      if (!queue) readBoxWidth();
      else { queue.measure('ribbons-width', () => { readBoxWidth(); draw(); }); return; }
    }
    if (needLayout) { layout(); shown = null; }
    stopGlide();
    figure.dataset.mode = all ? 'all' : 'step';
    figure.dataset.row = String(row);
    if (all) {
      const list = allBands(vm.alpha, vm.T, vm.S, L);
      setPaths(list);
      setTargets(list);
      shown = null;
    } else {
      const next = rowBands(vm.alpha, vm.S, row, L);
      const from = shown && shown.length === next.length && shown[0].t !== row ? shown : null;
      setPaths(from ?? next);
      setTargets(next);
      if (from && !prefersReducedMotion() && typeof requestAnimationFrame === 'function') {
        const t0 = performance.now();
        const stepGlide = (now) => {
          const f = Math.min(1, (now - t0) / RIBBONS.tweenMs);
          const e = easeOut(f);
          shown = next.map((b, j) => tweenBand(from[j], b, e));
          setPaths(shown);
          glide = f < 1 ? requestAnimationFrame(stepGlide) : 0;
        };
        glide = requestAnimationFrame(stepGlide);
      } else {
        setPaths(next);
      }
      shown = next;
    }
    // The words: the current target word, the source word the step looks at most.
    const best = topWeights(vm, row, 1)[0]?.j ?? -1;
    sourceButtons.forEach((b, j) => {
      const a = vm.alpha[row * vm.S + j];
      b.classList.toggle('as-rb-best', j === best);
      b.setAttribute('aria-label', tr('ribbons.sourceWord', { word: vm.colLabels[j], a: fmt(a, 2) }));
    });
    // The target row's Tab stop is the current word, unless the focus is on that row already.
    const focusOnTargets = targetRow.contains(targetRow.getRootNode().activeElement);
    targetButtons.forEach((b, t) => {
      const current = t === row;
      if (current) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
      if (!focusOnTargets) b.setAttribute('tabindex', current ? '0' : '-1');
    });
    highlight();
    keepTargetInView();
  }
  // What the figure says in words (its label, the hidden list) needs no layout: it is set
  // at once, with the step, so the figure never reads as an unlabelled image while its
  // drawing waits for a frame (a card just built, or rebuilt in another language).
  function describe() {
    figure.setAttribute('aria-label', describeRow(vm, row, { all }));
    setList(topWeights(vm, row, vm.S));
  }
  const own = queue ? null : frameTask(drawNow);
  const draw = queue ? () => queue.add('ribbons', drawNow) : () => own.request();

  // ---- highlight: a hovered, focused or tapped word's bands ----
  function highlight() {
    const on = hover ?? pinned;
    let any = false;
    for (const p of paths) {
      const mine = !!on && (on.side === 's' ? p.dataset.j === String(on.i) : p.dataset.t === String(on.i));
      p.classList.toggle('as-rb-hi', mine);
      any ||= mine;
    }
    figure.classList.toggle('as-rb-dim', any);
    figure.dataset.highlight = on && any ? `${on.side}${on.i}` : '';
    for (const b of [...sourceButtons, ...targetButtons]) b.classList.toggle('as-rb-on', !!on && b.dataset.side === on.side && b.dataset.i === String(on.i));
    sourceButtons.forEach((b, j) => b.setAttribute('aria-pressed', String(pinned?.i === j)));
  }
  const wordOf = (e) => e.target.closest?.('.as-rb-word');
  const hoverFrom = (b) => (b ? { side: b.dataset.side, i: Number(b.dataset.i) } : null);
  box.addEventListener('pointerover', (e) => { if (e.pointerType === 'touch') return; hover = hoverFrom(wordOf(e)); highlight(); });
  box.addEventListener('pointerleave', () => { hover = null; highlight(); });
  box.addEventListener('focusin', (e) => {
    const b = wordOf(e);
    if (!b) return;
    hover = hoverFrom(b);
    // The row's tab stop follows the focus (one Tab stop per row; arrows move along it).
    const rowButtons = b.dataset.side === 's' ? sourceButtons : targetButtons;
    rowButtons.forEach((x) => x.setAttribute('tabindex', x === b ? '0' : '-1'));
    focusIn[b.dataset.side] = Number(b.dataset.i);
    highlight();
  });
  box.addEventListener('focusout', (e) => { if (!box.contains(e.relatedTarget)) { hover = null; highlight(); } });
  box.addEventListener('keydown', (e) => {
    const b = wordOf(e);
    if (!b || !vm) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9 };
    if (!(e.key in moves)) return;
    const side = b.dataset.side;
    const rowButtons = side === 's' ? sourceButtons : targetButtons;
    const i = Math.max(0, Math.min(rowButtons.length - 1, Number(b.dataset.i) + moves[e.key]));
    e.preventDefault();
    e.stopPropagation();
    rowButtons[i].focus();
    // On the target row the arrows step the decoder (as they do in the step-through).
    if (side === 't') onPick?.(i);
  });

  // Keep the current target word in view when the figure scrolls sideways (a phone).
  scroller.addEventListener('scroll', () => { scrollLeft = scroller.scrollLeft; }, { passive: true });
  function keepTargetInView() {
    if (!L || !viewWidth || L.width <= viewWidth + 1) return;
    const s = L.target[row];
    if (s.x < scrollLeft || s.x + s.w > scrollLeft + viewWidth) scroller.scrollLeft = scrollLeft = Math.max(0, s.cx - viewWidth / 2);
  }

  const ro = typeof ResizeObserver === 'function' ? new ResizeObserver((entries) => {
    for (const e of entries) {
      if (e.target === container) {
        const w = Math.round(e.contentRect.width);
        if (w && w !== boxWidth) { boxWidth = w; needLayout = true; if (vm) draw(); }
      } else viewWidth = scroller.clientWidth;
    }
  }) : null;
  ro?.observe(container);
  ro?.observe(scroller);

  return {
    /** Show matrix m (lib/figure.js) at row r; null clears. */
    update(m, r) {
      vm = m?.alpha ? m : null;
      scroller.hidden = !vm;
      if (!vm) { stopGlide(); labelsKey = ''; setList([]); return; }
      row = Math.max(0, Math.min(vm.T - 1, r));
      buildWords();
      describe();
      draw();
    },
    setRow(r) {
      if (!vm) return;
      const next = Math.max(0, Math.min(vm.T - 1, r));
      if (next === row) return;
      row = next;
      describe();
      draw();
    },
    setAll(on) { if (all === !!on) return; all = !!on; shown = null; if (vm) { describe(); draw(); } },
    /** Type size, band width and height (a phone's lower bands). */
    setOptions(next) {
      if (Object.keys(next).every((k) => next[k] === opts[k])) return;
      opts = { ...opts, ...next };
      needLayout = true;
      if (vm) draw();
    },
    /** Focus the current target word (after a step chosen here). */
    focusCurrent() { targetButtons[row]?.focus(); },
    flush() { queue?.flush(); own?.flush(); },
    get layout() { return L; },
    destroy() { stopGlide(); ro?.disconnect(); own?.cancel(); queue?.drop('ribbons'); queue?.drop('ribbons-width'); },
  };
}

// ---------- the standalone SVG (exports, animation frames) ----------

function xmlEscape(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }[c]));
}

/**
 * The figure as exported: its layout at least `width` wide, and the caption
 * (lines of text: sentence, model, scale, step) wrapped under it.
 * measure(text, px): text width in px at that size (measureAt()).
 *   -> { L, lines, lineH, capPx, width, height }
 */
export function exportLayout(m, measure, { caption = [], labelPx = RIBBONS.labelPx, bandMax = RIBBONS.bandMax, bandHeight = RIBBONS.bandHeight, width = 0 } = {}) {
  const L = layoutRibbons(m, (s) => measure(s, labelPx), Math.max(width, 320), { labelPx, bandMax, bandHeight, gap: RIBBONS.gap, maxGap: RIBBONS.maxGap, pad: RIBBONS.pad });
  const capPx = RIBBONS.captionPx;
  const lines = caption.flatMap((c) => wrapLines(c, (s) => measure(s, capPx), L.width - 2 * L.pad));
  const lineH = Math.round(capPx * 1.45);
  return { L, lines, lineH, capPx, width: L.width, height: L.height + (lines.length ? lines.length * lineH + L.pad : 0) };
}

/** What is drawn for row t: the bands, with their colour and opacity, and each word's look. */
function figureParts(m, t, L, colors, all) {
  const { fg, muted, bg, accent } = colors;
  const bands = (all ? allBands(m.alpha, m.T, m.S, L) : rowBands(m.alpha, m.S, t, L))
    .map((b) => ({ ...b, fill: !all || b.t === t ? accent : fg, op: all ? b.opacity : RIBBONS.bandOpacity }))
    .filter((b) => b.op > 0.001);
  const best = topWeights(m, t, 1)[0]?.j ?? -1;
  // The word being written on the accent colour; the word looked at most with the accent's outline.
  const word = (slot, y, strong, current) => ({
    slot, y, fill: current ? accent : bg, stroke: current || strong ? accent : muted,
    strokeWidth: strong ? 2.5 : 1, strokeOpacity: current || strong ? 1 : 0.5, text: current ? bg : fg,
  });
  const words = [...L.source.map((s, j) => word(s, L.pad, j === best, false)), ...L.target.map((s, k) => word(s, L.bandBottom, false, k === t))];
  return { bands, words };
}

/**
 * The figure at row `t` as a standalone SVG document, with its caption under
 * it. colors: theme.js themeColors or paletteColors. Returns { svg, width, height, layout }.
 */
export function ribbonsSVG(m, t, measure, { colors = paletteColors(false), all = false, title = '', ...opts } = {}) {
  const X = exportLayout(m, measure, opts);
  const { L } = X;
  const H = X.height;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${L.width}" height="${H}" viewBox="0 0 ${L.width} ${H}" font-family="${xmlEscape(CONFIG.labelFamily)}" font-size="${L.labelPx}">`);
  out.push(`<title>${xmlEscape(title || describeRow(m, t, { all }))}</title>`);
  out.push(`<rect width="${L.width}" height="${H}" fill="${colors.bg}"/>`);
  const parts = figureParts(m, t, L, colors, all);
  for (const b of parts.bands) {
    out.push(`<path d="${bandPath(b, L.bandTop, L.bandBottom)}" fill="${b.fill}" fill-opacity="${b.op.toFixed(4)}"><title>${xmlEscape(`${m.colLabels[b.j]} → ${m.rowLabels[b.t]}: α = ${b.alpha.toFixed(4)}`)}</title></path>`);
  }
  for (const w of parts.words) {
    out.push(`<rect x="${w.slot.x}" y="${w.y}" width="${w.slot.w}" height="${L.wordH}" rx="6" fill="${w.fill}" stroke="${w.stroke}" stroke-width="${w.strokeWidth}" stroke-opacity="${w.strokeOpacity}"/>`);
    out.push(`<text x="${w.slot.cx}" y="${w.y + L.wordH / 2}" text-anchor="middle" dominant-baseline="central" fill="${w.text}" font-weight="${RIBBONS.wordWeight}">${xmlEscape(w.slot.label)}</text>`);
  }
  X.lines.forEach((line, i) => out.push(`<text x="${L.pad}" y="${L.height + (i + 0.75) * X.lineH}" font-size="${X.capPx}" fill="${colors.muted}">${xmlEscape(line)}</text>`));
  out.push('</svg>');
  return { svg: out.join('\n'), width: L.width, height: H, layout: L };
}

/**
 * The same figure painted on a 2-d context at (x, y), in CSS px of the
 * context's transform (the PNG and the animation's frames: a canvas that
 * holds an SVG image cannot be recorded, so they do not go through one).
 * X: exportLayout(). Returns X.height.
 */
export function paintRibbons(ctx, m, t, X, { colors = paletteColors(false), all = false, x = 0, y = 0 } = {}) {
  const { L } = X;
  ctx.save();
  ctx.translate(x, y);
  ctx.fillStyle = colors.bg;
  ctx.fillRect(0, 0, L.width, X.height);
  const parts = figureParts(m, t, L, colors, all);
  for (const b of parts.bands) {
    ctx.globalAlpha = b.op;
    ctx.fillStyle = b.fill;
    ctx.fill(new Path2D(bandPath(b, L.bandTop, L.bandBottom)));
  }
  ctx.globalAlpha = 1;
  ctx.font = fontOf(L.labelPx);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const w of parts.words) {
    const box = new Path2D();
    box.roundRect(w.slot.x + 0.5, w.y + 0.5, w.slot.w - 1, L.wordH - 1, 6);
    ctx.fillStyle = w.fill;
    ctx.fill(box);
    ctx.globalAlpha = w.strokeOpacity;
    ctx.strokeStyle = w.stroke;
    ctx.lineWidth = w.strokeWidth;
    ctx.stroke(box);
    ctx.globalAlpha = 1;
    ctx.fillStyle = w.text;
    ctx.fillText(w.slot.label, w.slot.cx, w.y + L.wordH / 2 + 1);
  }
  ctx.font = `${X.capPx}px ${CONFIG.labelFamily}`;
  ctx.fillStyle = colors.muted;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  X.lines.forEach((line, i) => ctx.fillText(line, L.pad, L.height + (i + 0.75) * X.lineH));
  ctx.restore();
  return X.height;
}

/** PNG of the figure at row t, at RIBBONS.exportScale. Resolves with a Blob. */
export function ribbonsPNG(m, t, measure, { colors = paletteColors(false), all = false, ...opts } = {}) {
  const X = exportLayout(m, measure, opts);
  const scale = RIBBONS.exportScale;
  const c = document.createElement('canvas');
  c.width = Math.round(X.width * scale);
  c.height = Math.round(X.height * scale);
  const ctx = c.getContext('2d');
  ctx.scale(scale, scale);
  paintRibbons(ctx, m, t, X, { colors, all });
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG export failed'))), 'image/png'));
}

/** measure(text, px) for the exports, from one canvas context (the words' font at that size). */
export function measureAt() {
  const ctx = document.createElement('canvas').getContext('2d');
  let px = 0;
  return (s, size) => { if (size !== px) { ctx.font = fontOf(size); px = size; } return ctx.measureText(s).width; };
}
