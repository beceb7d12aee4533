// worksheet-export.js - the alignment worksheet as one PNG or SVG: a title,
// the sheet's maps side by side (WORKSHEET.columns to a row), each under its
// sentence and translation and over its labels, the "translation wrong"
// tick and the notes, and one colour legend with what the labels mean. The
// maps are the heatmap's own drawing (heatmap-paint.js paint for the PNG,
// export.js svgHeatmapParts for the SVG) from the heatmap's layout
// (heatmap-layout.js); both pictures come from one sheet layout here.
//
// A block (what the card gives for each sentence):
//   { head: [text] (the sentence, its translation), vm: a figure matrix or null, note: text when vm is null,
//     after: [text] (labels, tick, notes) }

import { CONFIG } from '../config.js';
import { WORKSHEET as W, paletteColors } from '../theme.js';
import { layoutHeatmap } from './heatmap-layout.js';
import { paint } from './heatmap-paint.js';
import { wrapLines } from '../lib/ribbons.js';
import { svgHeatmapParts, svgLegend, paintLegend, xmlEscape, LEGEND_H } from './export.js';

const font = (px, bold = false) => `${bold ? 'bold ' : ''}${px}px ${CONFIG.labelFamily}`;

/**
 * Where everything goes. measure(text, px, bold) -> width in CSS px.
 * -> { width, height, title: [{ text, y }], blocks: [{ x, y, head, vm, L (its map's layout, null without one), mapY, note, after }],
 *      legendY, legend: [{ text, y }] } (a block's lines' y are from its own top)
 */
export function layoutSheet(blocks, measure, { title = '', legend = [], columns = W.columns } = {}) {
  const cols = Math.max(1, Math.min(columns, blocks.length || 1));
  const colW = W.exportColumn;
  const width = W.pad * 2 + cols * colW + (cols - 1) * W.gap;
  const wrap = (text, px, bold, maxW) => wrapLines(text, (s) => measure(s, px, bold), maxW);
  let y = W.pad;
  const titleLines = wrap(title, W.headPx + 3, true, width - 2 * W.pad).map((text) => { y += W.linePx + 3; return { text, y }; });
  y += W.linePx / 2;
  const placed = [];
  for (let r = 0; r < blocks.length; r += cols) {
    let rowH = 0;
    blocks.slice(r, r + cols).forEach((b, c) => {
      const x = W.pad + c * (colW + W.gap);
      let by = 0;
      const head = b.head.flatMap((text, i) => wrap(text, W.headPx, i === 0, colW).map((line) => { by += W.linePx; return { text: line, y: by, bold: i === 0 }; }));
      by += 4;
      const L = b.vm ? layoutHeatmap(b.vm, (s) => measure(s, W.labelPx, false), colW, { labelPx: W.labelPx, cellMax: W.cell, cellMin: W.cellMin }) : null;
      const mapY = by;
      by += L ? L.height : W.linePx;
      const after = b.after.flatMap((text) => wrap(text, W.textPx, false, colW).map((line) => { by += W.linePx; return { text: line, y: by }; }));
      rowH = Math.max(rowH, by);
      placed.push({ x, y, head, vm: b.vm, L, mapY, note: b.note ?? '', after });
    });
    y += rowH + W.gap;
  }
  const legendY = y;
  y += LEGEND_H;
  const legendLines = legend.flatMap((text) => wrap(text, W.textPx, false, width - 2 * W.pad)).map((text) => { y += W.linePx; return { text, y }; });
  return { width, height: Math.ceil(y + W.pad), title: titleLines, blocks: placed, legendY, legend: legendLines };
}

/** The sheet as a standalone SVG (colors: theme.js paletteColors or themeColors). */
export function worksheetSVG(blocks, measure, { colors = paletteColors(false), title = '', legend = [] } = {}) {
  const S = layoutSheet(blocks, measure, { title, legend });
  const { fg, muted, bg } = colors;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${S.width}" height="${S.height}" viewBox="0 0 ${S.width} ${S.height}" font-family="system-ui, sans-serif" font-size="${W.textPx}">`);
  out.push(`<title>${xmlEscape(title)}</title>`);
  out.push(`<rect width="${S.width}" height="${S.height}" fill="${bg}"/>`);
  for (const l of S.title) out.push(`<text x="${W.pad}" y="${l.y}" font-size="${W.headPx + 3}" font-weight="bold" fill="${fg}">${xmlEscape(l.text)}</text>`);
  for (const b of S.blocks) {
    out.push(`<g transform="translate(${b.x} ${b.y})">`);
    for (const l of b.head) out.push(`<text y="${l.y}" font-size="${W.headPx}"${l.bold ? ' font-weight="bold"' : ''} fill="${fg}">${xmlEscape(l.text)}</text>`);
    if (b.L) out.push(`<g transform="translate(0 ${b.mapY})" font-size="${W.labelPx}">`, ...svgHeatmapParts(b.vm, b.L, colors), '</g>');
    else out.push(`<text y="${b.mapY + W.linePx}" fill="${muted}">${xmlEscape(b.note)}</text>`);
    for (const l of b.after) out.push(`<text y="${l.y}" fill="${fg}">${xmlEscape(l.text)}</text>`);
    out.push('</g>');
  }
  out.push(...svgLegend(W.pad, S.legendY, colors, 'absolute', 'as-ws-viridis'));
  for (const l of S.legend) out.push(`<text x="${W.pad}" y="${l.y}" fill="${muted}">${xmlEscape(l.text)}</text>`);
  out.push('</svg>');
  return out.join('\n');
}

/** The sheet as a PNG (WORKSHEET.exportScale × CSS px) in `colors`: resolves with a Blob. */
export function worksheetPNG(blocks, colors, { title = '', legend = [] } = {}) {
  const c = document.createElement('canvas');
  const ctx = c.getContext('2d');
  const measure = (s, px, bold) => { ctx.font = font(px, bold); return ctx.measureText(s).width; };
  const S = layoutSheet(blocks, measure, { title, legend });
  c.width = S.width * W.exportScale;
  c.height = S.height * W.exportScale;
  ctx.scale(W.exportScale, W.exportScale);
  ctx.fillStyle = colors.bg;
  ctx.fillRect(0, 0, S.width, S.height);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  const text = (s, x, y, px, fill, bold = false) => { ctx.font = font(px, bold); ctx.fillStyle = fill; ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic'; ctx.fillText(s, x, y); };
  for (const l of S.title) text(l.text, W.pad, l.y, W.headPx + 3, colors.fg, true);
  for (const b of S.blocks) {
    for (const l of b.head) text(l.text, b.x, b.y + l.y, W.headPx, colors.fg, l.bold);
    if (b.L) {
      ctx.save();
      ctx.translate(b.x, b.y + b.mapY);
      // paint() clears its own rectangle first: background puts the sheet's colour back under it.
      paint(ctx, b.vm, b.L, colors, { background: true });
      ctx.restore();
    } else text(b.note, b.x, b.y + b.mapY + W.linePx, W.textPx, colors.muted);
    for (const l of b.after) text(l.text, b.x, b.y + l.y, W.textPx, colors.fg);
  }
  paintLegend(ctx, W.pad, S.legendY, colors, 'absolute');
  for (const l of S.legend) text(l.text, W.pad, l.y, W.textPx, colors.muted);
  return new Promise((resolve, reject) => c.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG export failed'))), 'image/png'));
}
