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
