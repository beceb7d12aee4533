// The ribbons' geometry (web/lib/ribbons.js): each band is α × bandMax wide
// at both ends, centred under its source word, and a step's bands arrive at
// the target word side by side, together bandMax wide (a row of α sums to
// 1); "all steps" has every row's bands with opacity α; the layout keeps
// words apart and centres the rows; the SVG export escapes words and says
// the step in its caption; captions wrap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layoutRibbons, rowBands, allBands, bandPath, tweenBand, topWeights, wrapLines, easeOut } from '../../web/lib/ribbons.js';
import { ribbonsSVG, describeRow } from '../../web/views/ribbons.js';
import { paletteColors } from '../../web/theme.js';

// A matrix as lib/figure.js makes it: 3 target rows over 4 source words, each row summing to 1.
const m = {
  T: 3, S: 4,
  rowLabels: ['Ouvrez', 'le', '</s>'],
  colLabels: ['Open', 'the', '<file>', 'internationalisation-everywhere'],
  alpha: new Float32Array([
    0.70, 0.10, 0.15, 0.05,
    0.05, 0.80, 0.10, 0.05,
    0.25, 0.25, 0.25, 0.25,
  ]),
};
const measure = (s) => s.length * 7;
const close = (a, b, eps, msg) => assert.ok(Math.abs(a - b) <= eps, `${msg}: ${a} vs ${b}`);

test('layout: every word box holds its (shortened) label and a band of α = 1; rows centred, never overlapping', () => {
  const L = layoutRibbons(m, measure, 300, { bandMax: 40, gap: 6, pad: 8, padX: 8 });
  for (const row of [L.source, L.target]) {
    row.forEach((s, i) => {
      assert.ok(s.w >= 48, `box ${i} fits a band of α = 1 (${s.w})`);
      assert.ok(s.w >= measure(s.label) + 16, `box ${i} fits “${s.label}”`);
      if (i) assert.ok(s.x >= row[i - 1].x + row[i - 1].w + 6 - 1e-9, `box ${i} after box ${i - 1}`);
      close(s.cx, s.x + s.w / 2, 1e-9, 'centre');
    });
    const left = row[0].x;
    const right = L.width - (row.at(-1).x + row.at(-1).w);
    close(left, right, 1e-6, 'the row is centred');
    assert.ok(left >= 8 - 1e-9, 'inside the padding');
  }
  assert.equal(L.source[3].label.length, 18, 'a long word is shortened as the heatmap shortens it');
  assert.ok(L.width >= 300, 'at least the box it is shown in');
  assert.ok(L.bandBottom - L.bandTop > 0 && L.height > L.bandBottom);
  // A wide box: the figure is as wide as the box, the rows still centred.
  const W = layoutRibbons(m, measure, 2000);
  assert.equal(W.width, 2000);
  close(W.source[0].x, 2000 - (W.source.at(-1).x + W.source.at(-1).w), 1e-6, 'centred in a wide box');
});

test('one step: band widths are α × bandMax, centred under their source words, side by side at the target word', () => {
  const L = layoutRibbons(m, measure, 600, { bandMax: 40 });
  for (let t = 0; t < m.T; t++) {
    const bands = rowBands(m.alpha, m.S, t, L);
    assert.equal(bands.length, m.S);
    let total = 0;
    bands.forEach((b, j) => {
      const a = m.alpha[t * m.S + j];
      close(b.width, a * 40, 1e-9, `width of band ${j} at step ${t}`);
      close(b.sx1 - b.sx0, b.width, 1e-9, 'source end as wide as the band');
      close(b.tx1 - b.tx0, b.width, 1e-9, 'target end as wide as the band');
      close((b.sx0 + b.sx1) / 2, L.source[j].cx, 1e-9, 'centred under its source word');
      if (j) close(b.tx0, bands[j - 1].tx1, 1e-9, 'arrives beside the previous band');
      assert.equal(b.t, t);
      assert.equal(b.j, j);
      total += b.width;
    });
    close(total, 40, 1e-4, `the bands of step ${t} together are bandMax wide (α sums to 1)`);
    close((bands[0].tx0 + bands.at(-1).tx1) / 2, L.target[t].cx, 1e-4, 'centred on the target word');
  }
  // Proportional: twice the weight, twice the width.
  const b = rowBands(m.alpha, m.S, 0, L);
  close(b[2].width / b[1].width, 1.5, 1e-5, '0.15 : 0.10');
});

test('all steps: every row’s bands, each with opacity = α (its width still α × bandMax)', () => {
  const L = layoutRibbons(m, measure, 600, { bandMax: 30 });
  const bands = allBands(m.alpha, m.T, m.S, L);
  assert.equal(bands.length, m.T * m.S);
  for (const b of bands) {
    const a = m.alpha[b.t * m.S + b.j];
    close(b.opacity, a, 1e-9, `opacity of ${b.t},${b.j}`);
    close(b.width, a * 30, 1e-9, 'width');
  }
  // The same geometry as the single steps.
  for (let t = 0; t < m.T; t++) assert.deepEqual(bands.filter((b) => b.t === t).map((b) => b.tx0), rowBands(m.alpha, m.S, t, L).map((b) => b.tx0));
  // A single step's bands are fully drawn (opacity 1: the colour says how much).
  assert.ok(rowBands(m.alpha, m.S, 0, L).every((b) => b.opacity === 1));
});

test('paths, glides and words in order of weight', () => {
  const b = { sx0: 10, sx1: 30, tx0: 100, tx1: 120 };
  assert.equal(bandPath(b, 0, 100), 'M10 0C10 50 100 50 100 100L120 100C120 50 30 50 30 0Z');
  const a = { sx0: 0, sx1: 10, tx0: 0, tx1: 10, width: 10 };
  const z = { sx0: 20, sx1: 60, tx0: 100, tx1: 140, width: 40, t: 1, j: 0 };
  assert.deepEqual(tweenBand(a, z, 0), { ...z, sx0: 0, sx1: 10, tx0: 0, tx1: 10, width: 10 });
  assert.deepEqual(tweenBand(a, z, 1), z);
  close(tweenBand(a, z, 0.5).width, 25, 1e-12, 'half way');
  assert.equal(easeOut(0), 0);
  assert.equal(easeOut(1), 1);
  assert.ok(easeOut(0.5) > 0.5, 'fast start');
  assert.deepEqual(topWeights(m, 0, 2).map((w) => [w.label, Number(w.alpha.toFixed(2))]), [['Open', 0.7], ['<file>', 0.15]]);
  assert.deepEqual(topWeights(m, 2, 4).map((w) => w.j), [0, 1, 2, 3], 'ties: the earlier word first');
});

test('captions wrap at spaces; a word longer than the line stays whole', () => {
  assert.deepEqual(wrapLines('aa bb cc dd', measure, 35), ['aa bb', 'cc dd']);
  assert.deepEqual(wrapLines('a verylongwordindeed b', measure, 30), ['a', 'verylongwordindeed', 'b']);
  assert.deepEqual(wrapLines('  ', measure, 30), []);
});

test('the SVG export: bands, escaped words, the caption, the current word', () => {
  const caption = ['“Open the <file>” → “Ouvrez le”', 'Model: toy · step 2 of 3'];
  const doc = ribbonsSVG(m, 1, (s) => s.length * 7, { colors: paletteColors(false), caption });
  assert.ok(doc.svg.startsWith('<svg'));
  assert.ok(!doc.svg.includes('<file>'), 'no raw < from a word');
  assert.ok(doc.svg.includes('&lt;file&gt;'));
  assert.equal((doc.svg.match(/<path /g) ?? []).length, m.S, 'one band per source word');
  assert.ok(doc.svg.includes('Model: toy · step 2 of 3'));
  assert.ok(doc.height > doc.layout.height, 'the caption is under the figure');
  // Band widths in the document: the first path's source end is α × bandMax wide.
  const d = doc.svg.match(/<path d="M([0-9.]+) [0-9.]+C.*?L[0-9.]+ [0-9.]+C[0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ ([0-9.]+) /);
  close(Number(d[2]) - Number(d[1]), 0.05 * doc.layout.bandMax, 0.02, 'the first band of step 2');
  const all = ribbonsSVG(m, 1, (s) => s.length * 7, { all: true });
  assert.equal((all.svg.match(/<path /g) ?? []).length, m.T * m.S, 'all steps: every band');
  assert.match(all.svg, /fill-opacity="0\.8000"/, 'opacity = α');
  assert.match(describeRow(m, 1), /step 2 of 3: writing “le”, the decoder weights most “the” 0\.80, “<file>” 0\.10, “Open” 0\.05/);
});
