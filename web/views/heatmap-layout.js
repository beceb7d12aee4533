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

/**
 * @param {{ rowLabels: string[], colLabels: string[] }} m
 * @param {(text: string) => number} measure  label width in CSS px
 * @param {number} availWidth                 width of the box to fit
 */
export function layoutHeatmap({ rowLabels, colLabels }, measure, availWidth) {
  const T = rowLabels.length;
  const S = colLabels.length;
  const rowW = Math.ceil(Math.max(24, ...rowLabels.map((l) => measure(shortLabel(l))))) + 12 + MARKER_W;
  const colW = Math.max(10, ...colLabels.map((l) => measure(shortLabel(l))));
  const entW = CONFIG.entropyColumn;
  const fit = Math.floor((availWidth - 2 * PAD - rowW - entW) / Math.max(1, S));
  const cell = Math.max(CONFIG.cellMin, Math.min(CONFIG.cellMax, fit));
  // Slanted labels are cell·sin θ apart: steepen the slant for narrow cells
  // so neighbouring words never overlap (15 px ≈ one line of 13 px text).
  const theta = Math.max((CONFIG.labelAngleDeg * Math.PI) / 180, Math.asin(Math.min(1, 15 / cell)));
  const labelH = Math.ceil(colW * Math.sin(theta) + 14 * Math.cos(theta)) + 10;
  const gridX = PAD + rowW;
  const gridY = PAD + labelH;
  const gridW = S * cell;
  const gridH = T * cell;
  // The last slanted source label may stick out to the right of the grid.
  const overhang = Math.max(0, Math.ceil(colW * Math.cos(theta)) - cell / 2 - entW);
  const width = gridX + gridW + entW + overhang + PAD;
  const height = gridY + gridH + PAD;
  return { T, S, cell, theta, rowW, labelH, gridX, gridY, gridW, gridH, entW, width, height, markerW: MARKER_W };
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
