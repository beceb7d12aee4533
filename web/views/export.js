// export.js - the heatmap as PNG and SVG, the matrix as CSV and JSON.
// The text builders are pure (tested in Node); the PNG one needs a canvas.

import { t as tr, decimalMark } from '../i18n/index.js';
import { CONFIG } from '../config.js';
import { viridis, hex, textOn } from '../lib/colormap.js';
import { paletteColors, legendStops, colourMeaning, colourValue } from '../theme.js';
import { layoutHeatmap, shortLabel, fontsFor } from './heatmap-layout.js';
import { paint } from './heatmap.js';

function xmlEscape(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }[c]));
}

/** One CSV field: quoted when needed; a leading = + - @ is prefixed with '
 *  so a spreadsheet never evaluates a word as a formula. */
export function csvField(value) {
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?[0-9.]+(e-?[0-9]+)?$/i.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV: first row the source words, first column the target words. */
export function matrixCSV(vm) {
  const lines = [['target \\ source', ...vm.colLabels].map(csvField).join(',')];
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
export function heatmapSVG(vm, measure, { colors = paletteColors(false), title = '', colour = 'absolute' } = {}) {
  const Lp = printLayout(vm, measure);
  const { fg, muted, bg } = colors;
  const legendH = 46;
  const W = Math.max(Lp.width, 260);
  const H = Lp.height + legendH;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="13">`);
  out.push(`<title>${xmlEscape(title || tr('heat.svgTitle'))}</title>`);
  out.push(`<rect width="${W}" height="${H}" fill="${bg}"/>`);
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
  // Legend: α from 0 to 1 (or, per row, from 0 to the row's maximum).
  const ly = Lp.height + 8;
  const stops = legendStops();
  const meaning = colourMeaning(colour);
  out.push('<defs><linearGradient id="as-viridis">');
  stops.forEach((c, i) => out.push(`<stop offset="${(100 * i) / (stops.length - 1)}%" stop-color="${c}"/>`));
  out.push('</linearGradient></defs>');
  out.push(`<rect x="${gridX}" y="${ly}" width="200" height="12" fill="url(#as-viridis)"/>`);
  out.push(`<text x="${gridX}" y="${ly + 28}" font-size="11" fill="${muted}">0</text><text x="${gridX + 100}" y="${ly + 28}" font-size="11" text-anchor="middle" fill="${muted}">α${colour === 'row' ? ' (per row)' : ''}</text><text x="${gridX + 200}" y="${ly + 28}" font-size="11" text-anchor="end" fill="${muted}">${xmlEscape(colour === 'row' ? 'row max' : '1')}</text>`);
  if (colour === 'row') out.push(`<desc>${xmlEscape(meaning.text)}</desc>`);
  out.push('</svg>');
  return out.join('\n');
}

/** PNG of the heatmap at 2× for slides, in the page's theme colours. Resolves with a Blob. */
export function heatmapPNG(vm, colors, { colour = 'absolute' } = {}) {
  const c = document.createElement('canvas');
  const ctx = c.getContext('2d');
  ctx.font = fontsFor().label;
  const L = printLayout(vm, (s) => ctx.measureText(s).width);
  const scale = 2;
  c.width = L.width * scale;
  c.height = L.height * scale;
  ctx.scale(scale, scale);
  paint(ctx, vm, L, colors, { background: true, colour });
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG export failed'))), 'image/png'));
}
