// heatmap-paint.js - the alignment heatmap's pixels: the whole figure (the
// PNG export, the GIF) or one of its two layers (the page's canvas keeps the
// labels in an offscreen layer and redraws only the cells when the numbers
// change), and sizing a canvas at devicePixelRatio. Draws from the layout
// of heatmap-layout.js, so the canvas and the exports always agree.

import { t as tr, decimalMark } from '../i18n/index.js';
import { CONFIG } from '../config.js';
import { viridisCSS, textOnViridis, divergingCSS, textOnDiverging } from '../lib/colormap.js';
import { colourValue } from '../theme.js';
import { shortLabel } from './heatmap-layout.js';

/** Size canvas c to w × hgt CSS px at dpr; its context, in CSS px (device: in device px, set once). */
export function sizeCanvas(c, w, hgt, dpr, { device = false } = {}) {
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
  ctx.fillText(vm.difference ? tr('heat.diffHead') : vm.erasure ? tr('erasure.sideHead') : tr('heat.entropyHead'), gridX + L.gridW + 8, gridY - 10);
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
      if (vm.erasure) {
        // An erasure map (cards/erasure.js): the drop in log p, nats, on the diverging scale
        // to ± vm.erasure.scale; a column that cannot be removed (NaN) in the grid colour.
        const x = gridX + j * cell, y = gridY + t * cell;
        const v = Number.isFinite(a) ? Math.max(-1, Math.min(1, a / vm.erasure.scale)) : NaN;
        ctx.fillStyle = Number.isFinite(v) ? divergingCSS(v) : colors.grid;
        ctx.fillRect(x, y, cell, cell);
        if (values) {
          ctx.fillStyle = Number.isFinite(v) ? textOnDiverging(v) : colors.muted;
          const text = Number.isFinite(a) ? `${a >= 0.05 ? '+' : a <= -0.05 ? '−' : ''}${Math.abs(a).toFixed(1)}` : '—';
          ctx.fillText(dec === '.' ? text : text.replace('.', dec), x + cell / 2, y + cell / 2 + 0.5);
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
  // (entropy in bits, total variation 0 … 1, or an erasure map's row ρ, −1 … 1: its bar shows ρ above 0)
  const maxH = vm.difference || vm.erasure ? 1 : Math.log2(Math.max(2, S));
  for (let t = 0; t < T; t++) {
    const y = gridY + t * cell;
    const side = vm.entropies[t];
    ctx.globalAlpha = 0.25;
    ctx.fillStyle = colors.muted;
    if (side > 0) ctx.fillRect(gridX + L.gridW + 6, y + cell - 4, (L.entW - 10) * Math.min(1, side / maxH), 2);
    ctx.globalAlpha = 1;
    ctx.fillStyle = t === hiRow ? colors.fg : colors.muted;
    const text = Number.isFinite(side) ? `${side < 0 ? '−' : ''}${Math.abs(side).toFixed(2)}` : '—';
    ctx.fillText(text.replace('.', decimalMark()), gridX + L.gridW + 8, y + cell / 2);
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
