// export.js - the heatmap as PNG and SVG (each with its legend and a caption:
// sentence, model, scale, step), the matrix as CSV and JSON (with the same).
// The text builders are pure (tested in Node); the PNG one needs a canvas.

import { t as tr, decimalMark } from '../i18n/index.js';
import { CONFIG } from '../config.js';
import { viridis, hex, textOn } from '../lib/colormap.js';
import { paletteColors, legendStops, colourMeaning, colourValue } from '../theme.js';
import { layoutHeatmap, shortLabel, fontsFor, PAD } from './heatmap-layout.js';
import { wrapLines } from '../lib/ribbons.js';
import { paint } from './heatmap.js';

export function xmlEscape(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }[c]));
}

/** One CSV field: quoted when needed; a leading = + - @ is prefixed with '
 *  so a spreadsheet never evaluates a word as a formula. */
export function csvField(value) {
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?[0-9.]+(e-?[0-9]+)?$/i.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * CSV: first row the source words, first column the target words. meta
 * ({ model, scale, divisor, step, … }): written first, one `#key,value` line
 * each, which spreadsheets show as text and CSV readers skip as comments
 * (pandas: comment='#').
 */
export function matrixCSV(vm, meta = null) {
  const lines = [];
  for (const [k, v] of Object.entries(meta ?? {})) if (v != null && v !== '') lines.push([`#${k}`, v].map(csvField).join(','));
  lines.push(['target \\ source', ...vm.colLabels].map(csvField).join(','));
  for (let t = 0; t < vm.T; t++) {
    const row = [vm.rowLabels[t]];
    for (let j = 0; j < vm.S; j++) row.push(vm.alpha[t * vm.S + j].toPrecision(7));
    lines.push(row.map(csvField).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** JSON with everything needed to redraw or check the matrix. */
export function matrixJSON(vm, meta = {}) {
  const alpha = [];
  for (let t = 0; t < vm.T; t++) alpha.push(Array.from(vm.alpha.subarray(t * vm.S, (t + 1) * vm.S), (x) => Number(x.toPrecision(7))));
  return JSON.stringify({
    tool: 'alignscope',
    ...meta,
    source: vm.colLabels,
    target: vm.rowLabels,
    alpha,
    rowEntropyBits: vm.entropies.map((x) => Number(x.toFixed(6))),
  }, null, 2);
}

/** The layout of an exported picture: every cell at the largest legible size. */
function printLayout(vm, measure) {
  const L = layoutHeatmap(vm, measure, 0); // narrowest fit: cells at their minimum… then widen for print
  return layoutHeatmap(vm, measure, L.width + vm.S * (CONFIG.cellMax - L.cell));
}

/**
 * A standalone SVG of the heatmap (legend included). colors: the theme's
 * (theme.js themeColors of the page, or paletteColors(dark)); colour: the
 * page's colour mode, 'absolute' or 'row'.
 */
export function heatmapSVG(vm, measure, { colors = paletteColors(false), title = '', colour = 'absolute', caption = [] } = {}) {
  const Lp = printLayout(vm, measure);
  const { muted, bg } = colors;
  const legendH = LEGEND_H;
  const W = Math.max(Lp.width, 260);
  // The caption (sentence, model, scale, step) under the legend, at 12 px (measure is at the labels' size).
  const capLines = caption.flatMap((c) => wrapLines(c, (s) => (measure(s) * 12) / CONFIG.labelPx, W - 2 * PAD));
  const H = Lp.height + legendH + (capLines.length ? capLines.length * CAPTION_LINE + PAD : 0);
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="13">`);
  out.push(`<title>${xmlEscape(title || tr('heat.svgTitle'))}</title>`);
  out.push(`<rect width="${W}" height="${H}" fill="${bg}"/>`);
  out.push(...svgHeatmapParts(vm, Lp, colors, colour));
  out.push(...svgLegend(Lp.gridX, Lp.height + 8, colors, colour));
  capLines.forEach((line, i) => out.push(`<text x="${PAD}" y="${Lp.height + legendH + (i + 0.8) * CAPTION_LINE}" font-size="12" fill="${muted}">${xmlEscape(line)}</text>`));
  out.push('</svg>');
  return out.join('\n');
}

/**
 * The heatmap's SVG elements (cells with their values, the words, the
 * entropy column) for layout Lp, in Lp's coordinates: heatmapSVG's figure,
 * and each small map of the worksheet's sheet (views/worksheet-export.js).
 */
export function svgHeatmapParts(vm, Lp, colors, colour = 'absolute') {
  const { fg, muted } = colors;
  const out = [];
  const { cell, gridX, gridY } = Lp;
  const deg = (Lp.theta * 180) / Math.PI;
  for (let t = 0; t < vm.T; t++) {
    for (let j = 0; j < vm.S; j++) {
      const a = vm.alpha[t * vm.S + j];
      const c = viridis(colourValue(a, vm.rowMax?.[t] ?? 1, colour));
      const x = gridX + j * cell;
      const y = gridY + t * cell;
      out.push(`<rect x="${x}" y="${y}" width="${cell}" height="${cell}" fill="${hex(c)}"><title>${xmlEscape(`${vm.rowLabels[t]} ← ${vm.colLabels[j]}: ${a.toFixed(4)}`)}</title></rect>`);
      if (cell >= CONFIG.cellValueMin) out.push(`<text x="${x + cell / 2}" y="${y + cell / 2}" font-size="11" text-anchor="middle" dominant-baseline="central" fill="${textOn(c)}">${a.toFixed(2).replace('.', decimalMark())}</text>`);
    }
  }
  for (let t = 0; t < vm.T; t++) out.push(`<text x="${gridX - 8}" y="${gridY + t * cell + cell / 2}" text-anchor="end" dominant-baseline="central" fill="${fg}">${xmlEscape(shortLabel(vm.rowLabels[t]))}</text>`);
  for (let j = 0; j < vm.S; j++) out.push(`<text transform="translate(${gridX + j * cell + cell / 2} ${gridY - 6}) rotate(${-deg})" fill="${fg}">${xmlEscape(shortLabel(vm.colLabels[j]))}</text>`);
  out.push(`<text x="${gridX + Lp.gridW + 8}" y="${gridY - 10}" font-size="11" fill="${muted}">${xmlEscape(tr('heat.entropyHead'))}</text>`);
  vm.entropies.forEach((e, t) => out.push(`<text x="${gridX + Lp.gridW + 8}" y="${gridY + t * cell + cell / 2}" font-size="11" dominant-baseline="central" fill="${muted}">${e.toFixed(2).replace('.', decimalMark())}</text>`));
  return out;
}

/** The colour legend at (x, y): the bar (200 × 12) and what its ends mean; its gradient's id is `id`. */
export function svgLegend(x, ly, colors, colour = 'absolute', id = 'as-viridis') {
  const { muted } = colors;
  const gridX = x;
  const out = [];
  // Legend: α from 0 to 1 (or, per row, from 0 to the row's maximum).
  const stops = legendStops();
  const meaning = colourMeaning(colour);
  out.push(`<defs><linearGradient id="${id}">`);
  stops.forEach((c, i) => out.push(`<stop offset="${(100 * i) / (stops.length - 1)}%" stop-color="${c}"/>`));
  out.push('</linearGradient></defs>');
  out.push(`<rect x="${gridX}" y="${ly}" width="200" height="12" fill="url(#${id})"/>`);
  out.push(`<text x="${gridX}" y="${ly + 28}" font-size="11" fill="${muted}">0</text><text x="${gridX + 100}" y="${ly + 28}" font-size="11" text-anchor="middle" fill="${muted}">α${colour === 'row' ? ' (per row)' : ''}</text><text x="${gridX + 200}" y="${ly + 28}" font-size="11" text-anchor="end" fill="${muted}">${xmlEscape(colour === 'row' ? 'row max' : '1')}</text>`);
  if (colour === 'row') out.push(`<desc>${xmlEscape(meaning.text)}</desc>`);
  return out;
}

/**
 * PNG of the heatmap at 2× for slides, in the page's theme colours, with the
 * colour legend and the caption (lines of text: sentence, model, scale, step)
 * under it. Resolves with a Blob.
 */
export function heatmapPNG(vm, colors, { colour = 'absolute', caption = [] } = {}) {
  const c = document.createElement('canvas');
  const ctx = c.getContext('2d');
  ctx.font = fontsFor().label;
  const L = printLayout(vm, (s) => ctx.measureText(s).width);
  const W = Math.max(L.width, 300);
  ctx.font = `12px ${CONFIG.labelFamily}`;
  const capLines = caption.flatMap((t) => wrapLines(t, (s) => ctx.measureText(s).width, W - 2 * PAD));
  const H = L.height + LEGEND_H + (capLines.length ? capLines.length * CAPTION_LINE + PAD : 0);
  const scale = 2;
  c.width = W * scale;
  c.height = H * scale;
  ctx.scale(scale, scale);
  ctx.fillStyle = colors.bg;
  ctx.fillRect(0, 0, W, H);
  paint(ctx, vm, L, colors, { background: true, colour });
  paintLegend(ctx, L.gridX, L.height + 8, colors, colour);
  ctx.font = `12px ${CONFIG.labelFamily}`;
  ctx.fillStyle = colors.muted;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  capLines.forEach((line, i) => ctx.fillText(line, PAD, L.height + LEGEND_H + (i + 0.8) * CAPTION_LINE));
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG export failed'))), 'image/png'));
}

export const LEGEND_H = 46;
export const CAPTION_LINE = 17;

/** The colour legend on a canvas: the bar (200 × 12 px at x, y) and what its ends mean. */
export function paintLegend(ctx, x, y, colors, colour) {
  const g = ctx.createLinearGradient(x, 0, x + 200, 0);
  const stops = legendStops();
  stops.forEach((s, i) => g.addColorStop(i / (stops.length - 1), s));
  ctx.fillStyle = g;
  ctx.fillRect(x, y, 200, 12);
  ctx.font = `11px ${CONFIG.labelFamily}`;
  ctx.fillStyle = colors.muted;
  ctx.textBaseline = 'alphabetic';
  const m = colourMeaning(colour);
  ctx.textAlign = 'left';
  ctx.fillText(colour === 'row' ? m.low : '0', x, y + 28);
  ctx.textAlign = 'center';
  ctx.fillText('α', x + 100, y + 28);
  ctx.textAlign = 'right';
  ctx.fillText(colour === 'row' ? m.high : '1', x + 200, y + 28);
  ctx.textAlign = 'left';
}

/** A file name for the exports of one sentence and model: alignscope-MODEL-the-first-words. */
export function fileStem(model, text) {
  const m = String(model ?? 'model').replace(/\.alsc$/i, '').replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 40);
  const words = String(text ?? '').trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'sentence';
  return `alignscope-${m}-${words}`;
}
