// ribbons.js - the geometry of the ribbons figure (pure; tested in
// tests/web/ribbons.test.mjs). The lesson's picture: "the decoder weights all
// encoder states (thickness = weight α)". The source words sit in a row at
// the top, the target words in a row at the bottom; from each source word j
// to the target word being written runs a band whose width is α_j × bandMax.
//
//   at the source word: the band is centred under the word, α_j × bandMax wide;
//   at the target word: the bands arrive side by side in source order, so
//   together they are Σ_j α_j × bandMax = bandMax wide (a row of α sums to 1).
//
// "All steps" draws the whole bipartite graph: every target word's bands at
// once, each with opacity α. The matrix is the heatmap's (lib/figure.js): at
// the level of words or of subword pieces, rows = target, columns = source.

import { shortLabel } from '../views/heatmap-layout.js';

/**
 * Where the words go. Each word is a box at least `minWord` wide (a band of
 * α = 1 fits under it, and a finger can tap it); each row is centred in a
 * figure as wide as the wider row or the box it is shown in.
 * @param {{ rowLabels: string[], colLabels: string[] }} m
 * @param {(text: string) => number} measure  label width in CSS px at labelPx
 * @param {number} availWidth
 * @param {object} opts  labelPx, bandMax, bandHeight, gap (between words), maxGap (the
 *   most they spread apart where there is room), pad, padX (inside a word box)
 * @returns {{ width, height, source: Slot[], target: Slot[], bandTop, bandBottom, wordH, labelPx, bandMax }}
 *   Slot = { x, w, cx, label } (label shortened as the heatmap shortens it)
 */
export function layoutRibbons({ rowLabels, colLabels }, measure, availWidth, { labelPx = 15, bandMax = 40, bandHeight = 140, gap = 6, maxGap = gap, pad = 8, padX = 8 } = {}) {
  const minWord = bandMax + 8;
  const boxes = (labels) => labels.map((l) => {
    const label = shortLabel(l);
    return { label, w: Math.ceil(Math.max(minWord, measure(label) + 2 * padX)) };
  });
  const src = boxes(colLabels);
  const tgt = boxes(rowLabels);
  const rowWidth = (b, g = gap) => b.reduce((s, x) => s + x.w, 0) + g * Math.max(0, b.length - 1);
  const width = Math.ceil(Math.max(availWidth, rowWidth(src) + 2 * pad, rowWidth(tgt) + 2 * pad));
  // Where there is room, words spread apart (up to maxGap): the bands' slant shows where they go.
  const gapOf = (b) => (b.length < 2 ? gap : Math.min(maxGap, Math.max(gap, (width - 2 * pad - rowWidth(b, 0)) / (b.length - 1))));
  const place = (b) => {
    const g = gapOf(b);
    let x = (width - rowWidth(b, g)) / 2;
    return b.map(({ label, w }) => {
      const slot = { x, w, cx: x + w / 2, label };
      x += w + g;
      return slot;
    });
  };
  const wordH = Math.max(32, Math.round(labelPx * 1.5 + 10));
  const bandTop = pad + wordH;
  const bandBottom = bandTop + bandHeight;
  return { width, height: bandBottom + wordH + pad, source: place(src), target: place(tgt), bandTop, bandBottom, wordH, labelPx, bandMax, pad };
}

/**
 * The bands from every source word to target row `t`:
 *   [{ t, j, alpha, width, sx0, sx1, tx0, tx1, opacity }]
 * width = α × bandMax at both ends; sx0…sx1 under source word j, tx0…tx1 at
 * target word t (stacked in source order, centred on the word).
 */
export function rowBands(alpha, S, t, L, { opacity = null } = {}) {
  const out = [];
  const total = rowSum(alpha, S, t) * L.bandMax;
  let tx = L.target[t].cx - total / 2;
  for (let j = 0; j < S; j++) {
    const a = alpha[t * S + j];
    const width = a * L.bandMax;
    const sc = L.source[j].cx;
    out.push({ t, j, alpha: a, width, sx0: sc - width / 2, sx1: sc + width / 2, tx0: tx, tx1: tx + width, opacity: opacity ?? 1 });
    tx += width;
  }
  return out;
}

/** The whole bipartite graph: every row's bands, each with opacity = α. */
export function allBands(alpha, T, S, L) {
  const out = [];
  for (let t = 0; t < T; t++) for (const b of rowBands(alpha, S, t, L)) out.push({ ...b, opacity: b.alpha });
  return out;
}

function rowSum(alpha, S, t) {
  let s = 0;
  for (let j = 0; j < S; j++) s += alpha[t * S + j];
  return s;
}

/**
 * A band as an SVG path (also drawn on a canvas with Path2D): two cubic
 * curves that leave the source word straight down and reach the target word
 * straight down, joined by the band's ends.
 */
export function bandPath(b, y0, y1) {
  const ym = (y0 + y1) / 2;
  const r = (x) => Math.round(x * 100) / 100;
  return `M${r(b.sx0)} ${r(y0)}C${r(b.sx0)} ${r(ym)} ${r(b.tx0)} ${r(ym)} ${r(b.tx0)} ${r(y1)}L${r(b.tx1)} ${r(y1)}C${r(b.tx1)} ${r(ym)} ${r(b.sx1)} ${r(ym)} ${r(b.sx1)} ${r(y0)}Z`;
}

/** Between two sets of the same bands (a step to the next): the band at f ∈ [0, 1]. */
export function tweenBand(a, b, f) {
  const mix = (p, q) => p + (q - p) * f;
  return { ...b, width: mix(a.width, b.width), sx0: mix(a.sx0, b.sx0), sx1: mix(a.sx1, b.sx1), tx0: mix(a.tx0, b.tx0), tx1: mix(a.tx1, b.tx1) };
}

/** Ease out (fast start, soft landing), f ∈ [0, 1]. */
export const easeOut = (f) => 1 - (1 - f) ** 3;

/** The k largest weights of row t: [{ j, label, alpha }], largest first (ties: the earlier word). */
export function topWeights(m, t, k = 3) {
  const row = Array.from({ length: m.S }, (_, j) => ({ j, label: m.colLabels[j], alpha: m.alpha[t * m.S + j] }));
  return row.sort((a, b) => b.alpha - a.alpha || a.j - b.j).slice(0, k);
}

/**
 * Lines of at most maxWidth (measured) from a text, broken at spaces; a
 * single word wider than the line stays whole on its own line.
 */
export function wrapLines(text, measure, maxWidth) {
  const words = String(text).split(/\s+/).filter(Boolean);
  const lines = [];
  let line = '';
  for (const w of words) {
    const next = line ? `${line} ${w}` : w;
    if (line && measure(next) > maxWidth) { lines.push(line); line = w; } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}
