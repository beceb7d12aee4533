// theme.js - the colours of the figure, in one place, for the canvas, the
// PNG and the SVG export alike. alignscope.css declares the same values as
// custom properties (--as-*) for the light and dark themes; the canvas and
// the exports read them from there, with PALETTE as the fallback, and
// tests/web/theme.test.mjs proves that the stylesheet and PALETTE agree.

import { viridis, diverging, hex } from './lib/colormap.js';
import { t } from './i18n/index.js';

/** The theme colours the figure uses, by CSS custom property (without `--as-`). */
export const PALETTE = Object.freeze({
  light: Object.freeze({
    fg: '#1b1f24', muted: '#5b6470', surface: '#ffffff', accent: '#b4400b',
    highlight: 'rgba(180, 64, 11, 0.13)', grid: 'rgba(0, 0, 0, 0.08)',
    scaled: '#00756a',
  }),
  dark: Object.freeze({
    fg: '#e6e8eb', muted: '#a3acb7', surface: '#171b21', accent: '#ff9a5a',
    highlight: 'rgba(255, 154, 90, 0.18)', grid: 'rgba(255, 255, 255, 0.08)',
    scaled: '#4fd1c5',
  }),
});

/** The figure's colours as drawn: { fg, muted, bg, accent, hl, grid, dark }. */
export function paletteColors(dark) {
  const p = dark ? PALETTE.dark : PALETTE.light;
  return { fg: p.fg, muted: p.muted, bg: p.surface, accent: p.accent, hl: p.highlight, grid: p.grid, dark: !!dark };
}

/** The colours in force for element `el` (its theme, light or dark), from the CSS. */
export function themeColors(el) {
  const cs = getComputedStyle(el);
  const dark = cs.getPropertyValue('--as-is-dark').trim() === '1';
  const base = paletteColors(dark);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--as-fg', base.fg), muted: v('--as-muted', base.muted), bg: v('--as-surface', base.bg),
    accent: v('--as-accent', base.accent), hl: v('--as-highlight', base.hl), grid: v('--as-grid', base.grid), dark,
  };
}

/** The colour scale's stops, 0 … 1, as hex (legend bar, SVG gradient). */
export function legendStops(n = 11) {
  return Array.from({ length: n }, (_, i) => hex(viridis(i / (n - 1))));
}

/** The legend bar as a CSS background. */
export function legendGradientCSS() {
  return `linear-gradient(to right, ${legendStops().join(', ')})`;
}

/** The difference heatmap's legend bar (α_A − α_B from −1 to +1) as a CSS background. */
export function divergingGradientCSS(n = 11) {
  const stops = Array.from({ length: n }, (_, i) => hex(diverging(-1 + (2 * i) / (n - 1))));
  return `linear-gradient(to right, ${stops.join(', ')})`;
}

/** What the colour of a cell means, for the legend and the exports. */
export function colourMeaning(mode) {
  return mode === 'row'
    ? { low: t('heat.legendRowLow'), high: t('heat.legendRowHigh'), text: t('heat.legendRowText') }
    : { low: t('heat.legendLow'), high: t('heat.legendHigh'), text: t('heat.legendText') };
}

/** The value a cell's colour shows: α, or α ÷ its row's maximum. */
export function colourValue(alpha, rowMax, mode) {
  return mode === 'row' ? (rowMax > 0 ? alpha / rowMax : 0) : alpha;
}

/**
 * The ribbons figure (cards/ribbons.js, views/ribbons.js) and the animated
 * export (views/animation.js), in CSS px. bandMax: the width of a band of
 * α = 1 (a word box is at least this + 8 wide); bandHeight: from the source
 * row down to the target row; tweenMs: how long a band takes to move to the
 * next step's width (none under prefers-reduced-motion).
 */
export const RIBBONS = Object.freeze({
  labelPx: 15,
  bandMax: 40,
  bandHeight: 130, bandHeightPhone: 110,
  gap: 6, maxGap: 44, pad: 8,
  wordWeight: 600,      // the words' font weight (measured as drawn)
  tweenMs: 320,
  bandOpacity: 0.72,    // one step's bands (the rest of the colour is the background's)
  dimOpacity: 0.12,     // bands of the other words while one word is hovered or focused
  exportScale: 2,       // PNG: device pixels per CSS px
  captionPx: 13,
  // Animated export: one frame per decoder step.
  frameMs: 1100,        // each step is shown this long (the step-through's own pace)
  frameMinWidth: 640, frameMaxWidth: 1280,
});

/**
 * The beam search tree (cards/beam.js, lib/beam.js layoutBeamTree), in CSS
 * px: type size, a box's inner padding and height, a row per hypothesis,
 * the gap between steps and before a hypothesis's scores, the margin, the
 * strip of step numbers above (headPx: their type size, headH: its height); an
 * edge is edgeMin + edgeGain × p wide (p: its token's probability).
 */
export const BEAM_TREE = Object.freeze({ fontPx: 13, headPx: 11, padX: 6, boxH: 22, rowH: 32, colGap: 18, leafGap: 10, margin: 6, headH: 16, edgeMin: 1, edgeGain: 3 });

/**
 * The math check's charts (cards/mathcheck.js), in SVG user units (the
 * charts scale to their box, so these are proportions and type size): the
 * plot box inside its margins, the type, the band's opacity, the dash of the
 * scaled curve and of the reference lines, the dots at the current d, and
 * the bar strips of the current draw (barW per key, barGap between bars).
 * The colours are the theme's: --as-accent (raw), --as-scaled, --as-muted.
 */
export const MATH_CHECK = Object.freeze({
  width: 320, height: 196, left: 40, right: 18, top: 24, bottom: 30,
  fontPx: 11, bandOpacity: 0.2, lineWidth: 2, refWidth: 1.5, scaledDash: '6 4', refDash: '2 3', dotR: 3.5,
  barW: 10, barGap: 2, barH: 50,
});

/**
 * The alignment worksheet (cards/worksheet.js, views/worksheet-export.js),
 * in CSS px: every small map has cells of `cell` (all maps one size, on the
 * one colour scale, so they compare; a map wider than its column shrinks
 * its cells down to cellMin), words at labelPx. The PNG and SVG sheet:
 * `columns` maps side by side, each column exportColumn wide, gap apart,
 * text at textPx (headings headPx) on lines linePx apart, a margin of pad,
 * the PNG at exportScale device pixels per CSS px.
 */
export const WORKSHEET = Object.freeze({
  cell: 22, cellMin: 8, labelPx: 11,
  columns: 2, exportColumn: 440, gap: 28, textPx: 12, headPx: 13, linePx: 17, pad: 18, exportScale: 2,
});

/**
 * The exercise card's figure (cards/exercise.js): BLEU against source length,
 * one line per model, in SVG drawn at the card's own width in CSS px (so its
 * type stays textPx on a phone and a projector alike). Each model has a
 * colour per theme (Okabe-Ito hues, as models/REPORT.md's figure; darker on
 * white and lighter on the dark surface, each at least 3:1 against it), a
 * dash and a marker shape, so the lines are told apart without colour and in
 * print. height: the plot's height for a width (ratio, between min and max).
 */
export const EXERCISE = Object.freeze({
  kinds: Object.freeze({
    none: Object.freeze({ light: '#c24e00', dark: '#ff9c6b', dash: '2 3', marker: 'triangle' }),
    additive: Object.freeze({ light: '#0072b2', dark: '#56b4e9', dash: '', marker: 'circle' }),
    dot: Object.freeze({ light: '#8a6100', dark: '#e6b040', dash: '7 4', marker: 'square' }),
  }),
  left: 40, right: 12, top: 34, bottom: 40, textPx: 12, ratio: 0.5, minHeight: 230, maxHeight: 380,
  minWidth: 280, maxWidth: 960, lineWidth: 2.2, markerR: 4.5, whiskerWidth: 1.4, longestGap: 0.6,
  staggerBelow: 52, // px per bucket under which the bucket labels alternate between two rows
});
