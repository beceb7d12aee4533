// heatmap-layout.js - where every cell and label of the alignment heatmap
// goes. Pure: the canvas view, the PNG export and the SVG export all draw
// from the same layout, so they always agree.

import { CONFIG } from '../config.js';

export const PAD = 10;
const MARKER_W = 16; // room for the ▶ that marks the current step

/** Shorten a label for display ("internationalisation" → "internationali…"). */
export function shortLabel(text, max = CONFIG.labelMaxChars) {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/** The fonts of a heatmap whose labels are `labelPx` tall (cell values scale with the cell). */
export function fontsFor(labelPx = CONFIG.labelPx, cell = 0) {
  const valuePx = Math.max(11, Math.min(Math.round(labelPx * 1.2), Math.round(cell * 0.3)));
  return { labelPx, label: `${labelPx}px ${CONFIG.labelFamily}`, value: `${valuePx}px ${CONFIG.valueFamily}`, valuePx };
}

/**
 * @param {{ rowLabels: string[], colLabels: string[] }} m
 * @param {(text: string) => number} measure  label width in CSS px at `labelPx`
 * @param {number} availWidth                 width of the box to fit
 * @param {object} [opts]
 *   availHeight: height of the box to fit (rows); 0 = width only
 *   zoom: × the fitted cell (the zoom buttons, a pinch); labelPx: label size;
 *   cellMax: the largest cell at zoom 1; cellMin: the smallest before the map
 *   scrolls instead of shrinking
 */
export function layoutHeatmap({ rowLabels, colLabels }, measure, availWidth, { availHeight = 0, zoom = 1, labelPx = CONFIG.labelPx, cellMax = CONFIG.cellMax, cellMin = CONFIG.cellMin } = {}) {
  const T = rowLabels.length;
  const S = colLabels.length;
  const k = labelPx / CONFIG.labelPx; // everything around the cells scales with the type
  const markerW = Math.round(MARKER_W * k);
  const rowW = Math.ceil(Math.max(24, ...rowLabels.map((l) => measure(shortLabel(l))))) + 12 + markerW;
  const colW = Math.max(10, ...colLabels.map((l) => measure(shortLabel(l))));
  const entW = Math.round(CONFIG.entropyColumn * k);
  const fitW = Math.floor((availWidth - 2 * PAD - rowW - entW) / Math.max(1, S));
  // Rows fit the box's height too, but only as far as the labels above them leave room.
  const labelGuess = Math.ceil(colW * Math.sin((CONFIG.labelAngleDeg * Math.PI) / 180)) + 24;
  const fitH = availHeight > 0 ? Math.floor((availHeight - 2 * PAD - labelGuess) / Math.max(1, T)) : Infinity;
  const fitted = Math.max(cellMin, Math.min(cellMax, fitW, fitH));
  const cell = Math.max(8, Math.round(fitted * zoom));
  // Slanted labels are cell·sin θ apart: steepen the slant for narrow cells
  // so neighbouring words never overlap (15 px ≈ one line of 13 px text).
  const theta = Math.max((CONFIG.labelAngleDeg * Math.PI) / 180, Math.asin(Math.min(1, (15 * k) / cell)));
  const labelH = Math.ceil(colW * Math.sin(theta) + 14 * k * Math.cos(theta)) + 10;
  const gridX = PAD + rowW;
  const gridY = PAD + labelH;
  const gridW = S * cell;
  const gridH = T * cell;
  // The last slanted source label may stick out to the right of the grid.
  const overhang = Math.max(0, Math.ceil(colW * Math.cos(theta)) - cell / 2 - entW);
  const width = gridX + gridW + entW + overhang + PAD;
  const height = gridY + gridH + PAD;
  return { T, S, cell, fitted, theta, rowW, labelH, gridX, gridY, gridW, gridH, entW, width, height, markerW, fonts: fontsFor(labelPx, cell) };
}

/** Which part of the heatmap is at (x, y) in CSS px: a cell, a row label, a column label, or nothing. */
export function hitTest(L, x, y) {
  const inCols = x >= L.gridX && x < L.gridX + L.gridW;
  const inRows = y >= L.gridY && y < L.gridY + L.gridH;
  const j = Math.floor((x - L.gridX) / L.cell);
  const t = Math.floor((y - L.gridY) / L.cell);
  if (inCols && inRows) return { kind: 'cell', t, j };
  if (inRows && x < L.gridX && x >= PAD) return { kind: 'row', t };
  if (y < L.gridY && y >= PAD) {
    // Slanted labels: walk back along the slant to the column it starts from.
    const up = L.gridY - 6 - y;
    const jj = Math.floor((x - up / Math.tan(L.theta) - L.gridX) / L.cell);
    if (jj >= 0 && jj < L.S) return { kind: 'col', j: jj };
    if (inCols) return { kind: 'col', j };
  }
  return null;
}

/**
 * The smallest cell the page's main map may shrink to so that it ends above
 * the fold on opening (views/heatmap.js firstScreenFit), or null when it
 * should not shrink at all. `cellMin`: the map's own floor; `fitted`: the
 * cell its box alone gives. The figure and the score-scale control in its
 * header are meant to be seen together: a 12-word sentence's map shrinks to
 * fit a 1366 × 900 screen, with cells of at least CONFIG.firstScreenCellMin
 * (below CONFIG.cellValueMin they print no values; a tap, the readout or
 * the zoom gives them). Never to less than `ratio` of its cells
 * (CONFIG.firstScreenShrinkMin, then CONFIG.firstScreenShrinkLast where that
 * cannot end above the fold): a long sentence keeps legible cells and scrolls. `whole`
 * (presenter mode: one screen, nothing cut off): down to cellMin itself.
 * `screenMin`: the first screen's own floor (CONFIG.firstScreenCellMinPhone
 * on a phone, whose cells print no values at any size the width allows).
 */
export function firstScreenFloor(cellMin, fitted, whole = false, ratio = CONFIG.firstScreenShrinkMin, screenMin = CONFIG.firstScreenCellMin) {
  const floor = whole ? cellMin : Math.max(cellMin, screenMin, Math.ceil(fitted * ratio));
  return fitted > floor ? floor : null;
}
