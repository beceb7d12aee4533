// colormap.js - colour-blind-safe scales for α (viridis) and signed values
// (a blue–orange diverging scale for the context vector).

// Viridis sampled at 11 evenly spaced points (matplotlib's table).
const VIRIDIS = [
  [68, 1, 84], [72, 36, 117], [65, 68, 135], [53, 95, 141], [42, 120, 142], [33, 145, 140],
  [34, 168, 132], [68, 191, 112], [122, 209, 81], [189, 223, 38], [253, 231, 37],
];
// Purple (negative) – light grey (0) – orange (positive): ColorBrewer PuOr, safe for
// the common colour-vision deficiencies.
const PUOR = [[45, 0, 75], [128, 115, 172], [216, 218, 235], [247, 247, 247], [254, 224, 182], [224, 130, 20], [127, 59, 8]];

function interpolate(table, x) {
  const t = Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0)) * (table.length - 1);
  const i = Math.min(table.length - 2, Math.floor(t));
  const f = t - i;
  const a = table[i];
  const b = table[i + 1];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f));
}

/** [r, g, b] for x in [0, 1]. */
export function viridis(x) {
  return interpolate(VIRIDIS, x);
}

// 256 steps of viridis as CSS colours and text colours: the heatmap paints
// hundreds of cells a frame, and building each colour string costs more
// than the rectangle.
const LUT_N = 256;
const VIRIDIS_CSS = Array.from({ length: LUT_N }, (_, i) => rgb(interpolate(VIRIDIS, i / (LUT_N - 1))));
const VIRIDIS_TEXT = Array.from({ length: LUT_N }, (_, i) => textOn(interpolate(VIRIDIS, i / (LUT_N - 1))));
const lutIndex = (x) => Math.round(Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0)) * (LUT_N - 1));

/** viridis(x) as a CSS colour, from a 256-step table. */
export function viridisCSS(x) {
  return VIRIDIS_CSS[lutIndex(x)];
}

/** The text colour that reads on viridisCSS(x). */
export function textOnViridis(x) {
  return VIRIDIS_TEXT[lutIndex(x)];
}

/** [r, g, b] for v in [-1, 1] (values beyond are clamped). */
export function diverging(v) {
  return interpolate(PUOR, (v + 1) / 2);
}

// The diverging scale as CSS colours and text colours, 256 steps over [-1, 1]
// (the difference heatmap paints hundreds of cells a frame).
const PUOR_CSS = Array.from({ length: LUT_N }, (_, i) => rgb(interpolate(PUOR, i / (LUT_N - 1))));
const PUOR_TEXT = Array.from({ length: LUT_N }, (_, i) => textOn(interpolate(PUOR, i / (LUT_N - 1))));

/** diverging(v) as a CSS colour, v in [-1, 1]. */
export function divergingCSS(v) {
  return PUOR_CSS[lutIndex((v + 1) / 2)];
}

/** The text colour that reads on divergingCSS(v). */
export function textOnDiverging(v) {
  return PUOR_TEXT[lutIndex((v + 1) / 2)];
}

export function rgb([r, g, b]) {
  return `rgb(${r} ${g} ${b})`;
}

export function hex([r, g, b]) {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Black or white text, whichever has the higher WCAG contrast on this
 * background. Where the two are closest (relative luminance ~0.18) pure
 * black still gives 4.58:1, so every colour of the scales meets 4.5:1.
 */
export function textOn([r, g, b]) {
  const linear = (c) => { const x = c / 255; return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  const lum = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  return (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) ? '#000' : '#fff';
}
