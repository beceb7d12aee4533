// Unit tests for the page's pure modules (no browser): URL state, the
// by-hand numbers, entropy, exports, the single-file worker bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseShareString, serializeShareState, parseScale, parseStep, scaleFor, defaultShareState } from '../../web/state.js';
import { computeByHand, EXERCISE } from '../../web/cards/byhand.js';
import { CONFIG } from '../../web/config.js';
import { entropyBits, rowEntropies, softmaxSteps } from '../../web/lib/math.js';
import { matrixCSV, matrixJSON, heatmapSVG, csvField } from '../../web/views/export.js';
import { layoutHeatmap, hitTest } from '../../web/views/heatmap-layout.js';
import { bundleClassic } from '../../web/tools/dist.mjs';

const close = (a, b, tol, msg) => assert.ok(Math.abs(a - b) <= tol, `${msg}: ${a} vs ${b}`);

test('share state round-trips through the URL hash', () => {
  const st = { sentence: 'Open the file & the <window>?', model: 'en-fr', scale: 2 ** 1.35, step: 3, view: 'full' };
  const back = parseShareString(`#${serializeShareState(st)}`);
  assert.equal(back.sentence, st.sentence);
  assert.equal(back.model, 'en-fr');
  close(back.scale, st.scale, 1e-5, 'scale');
  assert.equal(back.step, 3);
});

test('URL parsing is strict: unknown keys ignored, numbers range-checked, sentence capped', () => {
  const p = parseShareString('#s=' + 'a'.repeat(5000) + '&evil=1&scale=1e9&step=-1&m=../../etc&view=weird');
  assert.equal(p.sentence.length, 2000);
  assert.deepEqual(Object.keys(p), ['sentence', 'rejectedModel', 'problems']);
  assert.deepEqual(p.problems.map((q) => [q.key, q.reason]), [['s', 'sentenceCut'], ['scale', 'badValue'], ['step', 'badValue'], ['view', 'badValue']], 'each value left out or cut is reported');
  assert.equal(p.rejectedModel, '../../etc', 'a refused model value is reported, not used');
  assert.equal(parseScale('0.0625'), 0.0625);
  assert.equal(parseScale('64'), 64);
  assert.equal(parseScale('65'), null);
  assert.equal(parseScale('0.01'), null);
  assert.equal(parseScale('NaN'), null);
  assert.equal(parseScale('Infinity'), null);
  assert.equal(parseScale('0x10'), null);
  assert.equal(parseStep('12'), 12);
  assert.equal(parseStep('1.5'), null);
  assert.equal(parseStep('99999'), null);
  assert.deepEqual(parseShareString('#%E0%A4%A'), {}); // malformed escapes: nothing, no throw
  assert.equal(parseShareString('?s=hi&view=steps').view, 'steps');
  assert.equal(defaultShareState().scale, 1);
});

test('a model is only ever an id: URLs and paths are refused and reported', () => {
  for (const m of ['https://evil.example/m.alsc', '//evil.example/m.alsc', 'http:x', '/models/en-fr.alsc', '../en-fr', 'data:application/octet-stream;base64,AAAA', 'blob:http://x/1', 'en fr', 'a'.repeat(65)]) {
    const p = parseShareString(`#m=${encodeURIComponent(m)}`);
    assert.equal(p.model, undefined, m);
    assert.equal(p.rejectedModel, m, m);
  }
  assert.deepEqual(parseShareString('#m=en-fr'), { model: 'en-fr' });
  assert.deepEqual(parseShareString('#m='), {}, 'an empty value is simply absent');
});

test('scaleFor: divisor √d for scaled dot, 1 for additive; engine gets the multiplier', () => {
  const add = scaleFor({ trainedScoreScale: 1 }, 4);
  assert.equal(add.divisor, 4);
  assert.equal(add.scoreScale, 0.25);
  const sd = scaleFor({ trainedScoreScale: 1 / Math.sqrt(40) }, 1);
  close(sd.trainedDivisor, Math.sqrt(40), 1e-9, 'trained divisor');
  close(sd.scoreScale, 1 / Math.sqrt(40), 1e-12, 'multiplier');
});

test('attention by hand: the seed exercise, exact', () => {
  const a = computeByHand(EXERCISE.scores, EXERCISE.values, 1);
  [0.7573, 0.1025, 0.0377, 0.1025].forEach((w, i) => close(a.weights[i], w, 5e-5, `weight ${i}`));
  close(a.weights.reduce((x, y) => x + y, 0), 1, 1e-12, 'sum');
  close(a.context[0], 0.720, 5e-4, 'context x');
  close(a.context[1], 0, 1e-12, 'context y');
  close(a.sum, Math.exp(3) + 2 * Math.E + 1, 1e-9, 'Σ e^score');
  const b = computeByHand(EXERCISE.scores, EXERCISE.values, Math.sqrt(2));
  close(b.context[0], 0.548, 5e-4, 'scaled context x');
  assert.ok(b.entropy > a.entropy, 'a bigger divisor flattens the weights');
});

test('softmax stays finite for huge scores', () => {
  const s = softmaxSteps([1000, 999, -1000], 1);
  close(s.weights[0], 1 / (1 + Math.exp(-1)), 1e-12, 'w0');
  assert.ok(s.weights.every(Number.isFinite));
});

test('entropy: one-hot 0 bits, uniform log2 S bits', () => {
  assert.equal(entropyBits([1, 0, 0, 0]), 0);
  close(entropyBits([0.25, 0.25, 0.25, 0.25]), 2, 1e-12, 'uniform');
  const e = rowEntropies(new Float32Array([1, 0, 0.5, 0.5]), 2, 2);
  close(e[0], 0, 1e-12, 'row 0');
  close(e[1], 1, 1e-7, 'row 1');
  assert.deepEqual(rowEntropies(null, 2, 2), []);
});

const vm = {
  T: 2, S: 3, rowLabels: ['<le>', '</s>'], colLabels: ['=cmd()', 'a,"b"', 'x'],
  alpha: new Float32Array([0.5, 0.25, 0.25, 0.1, 0.2, 0.7]), entropies: [1.5, 1.157],
};

test('CSV export: quoted, formula-safe, one row per target word', () => {
  const csv = matrixCSV(vm).trim().split('\r\n');
  assert.equal(csv.length, 3);
  assert.ok(csv[0].includes("'=cmd()"), 'leading = neutralised');
  assert.ok(csv[0].includes('"a,""b"""'), 'comma and quotes quoted');
  assert.equal(csv[1].split(',').slice(1).map(Number).reduce((a, b) => a + b, 0), 1);
  assert.equal(csvField('-0.5'), '-0.5');
});

test('JSON export carries the matrix and labels', () => {
  const j = JSON.parse(matrixJSON(vm, { model: 'm' }));
  assert.deepEqual(j.source, vm.colLabels);
  assert.deepEqual(j.alpha[1], [0.1, 0.2, 0.7]);
  assert.equal(j.model, 'm');
});

test('SVG export escapes every label', () => {
  const svg = heatmapSVG(vm, (s) => s.length * 7);
  assert.ok(!svg.includes('<le>'), 'raw < from a label must not appear');
  assert.ok(svg.includes('&lt;le&gt;'));
  assert.ok(svg.startsWith('<svg'));
  assert.equal((svg.match(/<rect x=/g) || []).length, 6 + 1);
});

test('heatmap layout fits, scrolls past the minimum cell, and hit-tests', () => {
  const measure = (s) => s.length * 7;
  const small = layoutHeatmap({ rowLabels: ['a', 'b'], colLabels: ['x', 'y', 'z'] }, measure, 800);
  assert.equal(small.cell, CONFIG.cellMax, 'a short sentence grows to the largest legible cell');
  const many = layoutHeatmap({ rowLabels: ['a'], colLabels: Array(100).fill('w') }, measure, 400);
  assert.equal(many.cell, CONFIG.cellMin);
  assert.ok(many.width > 400, 'wide sentences scroll instead of shrinking below the minimum');
  const L = small;
  assert.deepEqual(hitTest(L, L.gridX + L.cell * 1.5, L.gridY + L.cell * 0.5), { kind: 'cell', t: 0, j: 1 });
  assert.deepEqual(hitTest(L, L.gridX - 5, L.gridY + L.cell * 1.5), { kind: 'row', t: 1 });
  assert.equal(hitTest(L, L.width - 1, L.height - 1), null);
});

test('single-file worker bundle: imports and exports become plain scopes', async () => {
  const modules = {
    'worker.js': "import { a, b as c } from './lib/x.js';\nexport const w = a + c;\n",
    'lib/x.js': "export function a0() {}\nexport const a = 1;\nconst bb = 2;\nexport { bb as b };\nexport class K {}\nconst u = import.meta.url;\n",
  };
  const src = bundleClassic('worker.js', modules);
  assert.ok(!/\bimport\s*[{*]/.test(src) && !/^export/m.test(src) && !src.includes('import.meta'));
  const self = { location: { href: 'blob:x' } };
  const m = new Function('self', `${src}\nreturn __m;`)(self);
  assert.equal(m['worker.js'].w, 3);
  assert.equal(typeof m['lib/x.js'].K, 'function');
});

test('page sources: no HTML parsing of strings, no eval, strict CSP in every page', async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const web = new URL('../../web/', import.meta.url).pathname;
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && !['tools', 'gen', 'models'].includes(e.name)) walk(p);
      else if (e.isFile()) files.push(p);
    }
  };
  walk(web);
  for (const f of files.filter((x) => x.endsWith('.js'))) {
    const src = fs.readFileSync(f, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    assert.ok(!/\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\b|setTimeout\(\s*['"`]/.test(src), `${f} parses strings as code or HTML`);
  }
  const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self';";
  for (const f of files.filter((x) => x.endsWith('.html'))) {
    const html = fs.readFileSync(f, 'utf8');
    assert.ok(html.includes(`content="${csp}`), `${f} has the strict CSP`);
    assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/i.test(html), `${f} has an inline script`);
    assert.ok(!/<style|\sstyle="|\son[a-z]+=/i.test(html), `${f} has inline style or an inline handler`);
  }
});
