// growth.mjs keeps working: its quick mode in Chromium gives a well-formed,
// internally consistent result (no timing is asserted: timings belong to
// `./build.sh bench` on an idle machine). Skipped when the page's build, the
// page's models or the kernel bench module are not there.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { CONFIG } from '../../web/config.js';
import { createEngine, VARIANTS } from '../../web/engine.js';
import { crossing, growthLines, growthTargets, GROWTH_LENGTHS_QUICK, TEXT_FILES } from './growth.mjs';
import { runGroup } from '../support/run-group.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NEEDED = ['web/gen/alignscope-simd.wasm', 'web/models/index.json', 'build/bench/kernels_bench.wasm', '/usr/bin/chromium'];
const missing = NEEDED.filter((f) => !existsSync(f.startsWith('/') ? f : join(ROOT, f)));
const skip = missing.length ? `not built (${missing[0]}): ./build.sh wasm, node web/tools/assemble.mjs, ./build.sh bench --build-only` : false;

test('crossing() interpolates between the grid points and says when the grid is too short', () => {
  const grid = [{ S: 1, vsOutput: 0.02 }, { S: 10, vsOutput: 0.08 }, { S: 20, vsOutput: 0.12 }, { S: 40, vsOutput: 0.6 }];
  const near = (x, y) => assert.ok(Math.abs(x - y) < 1e-9, `${x} vs ${y}`);
  near(crossing(grid, 0.1).S, 15);
  assert.equal(crossing(grid, 0.1).atOrBelow, false);
  near(crossing(grid, 0.5).S, 20 + (0.38 / 0.48) * 20);
  assert.deepEqual(crossing(grid, 0.01), { S: 1, atOrBelow: true });
  assert.equal(crossing(grid, 0.9), null);
});

test('growth.mjs --quick measures every length in Chromium, consistently', { skip, timeout: 170_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-growth-'));
  try {
    const out = join(dir, 'growth.json');
    const run = await runGroup([join(ROOT, 'tests', 'bench', 'growth.mjs'), '--quick', '--json', out], 160_000);
    assert.equal(run.status, 0, `${run.stderr}\n${run.stdout.slice(-2000)}`);
    const r = JSON.parse(readFileSync(out, 'utf8'));

    // The page's build, model and options.
    assert.ok(VARIANTS.includes(r.variant), r.variant);
    assert.ok(r.isa.length > 0);
    assert.deepEqual(r.options, { topK: CONFIG.topK, scoreScale: 1 });
    const catalog = JSON.parse(readFileSync(join(ROOT, 'web', 'models', 'index.json'), 'utf8'));
    const def = catalog.models.find((m) => m.id === catalog.default);
    assert.equal(r.modelFile, `web/models/${def.file}`);
    const engine = await createEngine({ variant: 'simd' });
    const info = engine.load(readFileSync(join(ROOT, r.modelFile)));
    assert.deepEqual([r.model.A, r.model.D, r.model.V, r.model.outputDim, r.model.attention, r.model.maxSourceTokens],
      [info.attentionDim, info.contextDim, info.tgtVocabSize, info.outputDim, info.attention, info.maxSourceTokens]);

    // One row per distinct prefix, S increasing, each the prefix nearest its target.
    assert.ok(r.rows.length >= 2 && r.rows.length <= GROWTH_LENGTHS_QUICK.length, `${r.rows.length} rows`);
    assert.deepEqual(r.rows.flatMap((x) => x.targets), GROWTH_LENGTHS_QUICK);
    const lines = TEXT_FILES.flatMap((f) => readFileSync(join(ROOT, f), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean));
    assert.equal(r.textLines, lines.length);
    const eos = info.architecture.sourceEos ? 1 : 0;
    let lastS = 0;
    for (const row of r.rows) {
      const tag = `S=${row.S}`;
      assert.ok(row.S > lastS, `${tag}: S increases`);
      lastS = row.S;
      assert.ok(row.S <= r.model.maxSourceTokens, tag);
      assert.equal(row.S, row.tokenizedS, `${tag}: the translation's S is the tokenizer's count`);
      const words = lines.slice(row.line).join(' ').split(/\s+/);
      const sOf = (k) => engine.tokenize(words.slice(0, k).join(' ')).length + eos;
      assert.equal(sOf(row.words), row.S, `${tag}: ${row.words} words from line ${row.line}`);
      const want = Math.min(row.targets[0], r.model.maxSourceTokens);
      for (const k of [row.words - 1, row.words + 1]) {
        if (k < 1 || k > words.length || sOf(k) > r.model.maxSourceTokens) continue;
        assert.ok(Math.abs(sOf(k) - want) >= Math.abs(row.S - want), `${tag}: ${k} words would be nearer ${want}`);
      }
      assert.ok(Number.isInteger(row.T) && row.T >= 1 && row.T <= info.maxTargetTokens, `${tag}: T=${row.T}`);
      for (const m of [row.wholeMs, row.decodeMs, row.wasmDecodeMs, row.coreUs]) {
        assert.ok(m.n >= 1 && m.min > 0 && m.median >= m.min, `${tag}: ${JSON.stringify(m)}`);
      }
      assert.ok(Math.abs(row.stepMs.median * row.T - row.decodeMs.median) < 1e-9 * row.decodeMs.median + 1e-12, `${tag}: step = decode / T`);
      for (const share of [row.share, row.shareMin]) assert.ok(share > 0 && share <= 1, `${tag}: share ${share}`);
      assert.ok(Math.abs(row.share - (row.T * row.coreUs.median) / 1e3 / row.decodeMs.median) < 1e-12, `${tag}: share = T × core / decode`);
      assert.ok(row.coreVsOutput > 0, tag);
    }
    engine.dispose();

    // The kernel grid and the output layer's product.
    assert.ok(r.output.rows === r.model.V && r.output.cols === r.model.outputDim && r.output.minUs > 0 && r.output.medianUs >= r.output.minUs);
    assert.ok(r.coreGrid.length >= 3 && r.coreGrid.every((g, i) => g.minUs > 0 && (i === 0 || g.S > r.coreGrid[i - 1].S)));
    for (const g of r.coreGrid) assert.ok(Math.abs(g.vsOutput - g.minUs / r.output.minUs) < 1e-12);
    for (const c of [r.crossings.p10, r.crossings.p50]) if (c) assert.ok(c.S >= r.coreGrid[0].S && c.S <= r.coreGrid.at(-1).S);

    // The Markdown: a row per length, and sentences computed from the numbers.
    const md = growthLines(r).join('\n');
    assert.match(md, /\| S \(target\) \| T \| whole ms \| decode ms \| ms\/step \| attention core µs\/step \| share % \|/);
    for (const row of r.rows) assert.match(md, new RegExp(`^\\| ${row.S} \\(${row.targets.join(', ')}\\) \\| ${row.T}`, 'm'));
    const last = r.rows.at(-1);
    assert.ok(md.includes(`${(100 * last.share).toFixed(1)} % at S = ${last.S}`), 'the share sentence');
    assert.ok(md.includes(r.variant) && md.includes(r.modelFile));
    const t = growthTargets(r);
    assert.equal(t.length, 1);
    assert.equal(t[0].goal, null);
    assert.equal(t[0].value, last.share);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
