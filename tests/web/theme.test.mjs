// theme.js and alignscope.css declare the figure's colours once each side:
// the canvas reads the stylesheet's custom properties, the exports fall
// back to PALETTE. This proves the two agree, for both themes (and that the
// system-dark block repeats the dark theme exactly).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { PALETTE, paletteColors, legendStops, colourMeaning, colourValue } from '../../web/theme.js';

const css = fs.readFileSync(new URL('../../web/alignscope.css', import.meta.url), 'utf8');
const norm = (v) => v.replace(/\s+/g, '').toLowerCase();
function block(selectorStart) {
  const i = css.indexOf(selectorStart);
  assert.ok(i >= 0, `alignscope.css has ${selectorStart}`);
  const open = css.indexOf('{', i);
  const body = css.slice(open + 1, css.indexOf('}', open));
  return Object.fromEntries([...body.matchAll(/--as-([a-z-]+):\s*([^;]+);/g)].map((m) => [m[1], norm(m[2])]));
}

test('PALETTE is what alignscope.css declares, light and dark', () => {
  const light = block('.as-root {');
  const dark = block('.as-root[data-theme="dark"] {');
  const system = block('.as-root:not([data-theme="light"]) {');
  for (const [name, value] of Object.entries(PALETTE.light)) assert.equal(light[name], norm(value), `light --as-${name}`);
  for (const [name, value] of Object.entries(PALETTE.dark)) assert.equal(dark[name], norm(value), `dark --as-${name}`);
  assert.deepEqual(system, dark, 'prefers-color-scheme: dark repeats the dark theme');
  assert.equal(light['is-dark'], '0');
  assert.equal(dark['is-dark'], '1');
});

test('export colours, the legend and the per-row scale', () => {
  assert.equal(paletteColors(true).bg, PALETTE.dark.surface);
  assert.equal(paletteColors(false).accent, PALETTE.light.accent);
  const stops = legendStops();
  assert.equal(stops.length, 11);
  assert.equal(stops[0], '#440154');
  assert.equal(stops[10], '#fde725');
  assert.match(colourMeaning('row').text, /own largest/);
  assert.equal(colourValue(0.2, 0.4, 'row'), 0.5);
  assert.equal(colourValue(0.2, 0.4, 'absolute'), 0.2);
  assert.equal(colourValue(0, 0, 'row'), 0);
});

test('text on every colour of the α and diverging scales has at least 4.5:1 contrast (WCAG AA)', async () => {
  const { viridis, diverging, textOn } = await import('../../web/lib/colormap.js');
  const linear = (c) => { const x = c / 255; return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  const hexRgb = (h) => (h === '#fff' ? [255, 255, 255] : h === '#000' ? [0, 0, 0] : [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
  for (let i = 0; i <= 200; i++) {
    for (const bg of [viridis(i / 200), diverging(-1 + i / 100)]) {
      const a = lum(bg), b = lum(hexRgb(textOn(bg)));
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      assert.ok(ratio >= 4.5, `${bg} with ${textOn(bg)}: ${ratio.toFixed(2)}:1`);
    }
  }
});
