// The start-up benchmark (tests/bench/startup.mjs) keeps working: its quick
// mode (2 cold loads in Chromium) gives a well-formed, self-consistent
// result, its Markdown has a row per phase and its target row agrees with
// its numbers. No time is asserted: timings belong to `./build.sh bench`.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PHASES, startupLines, startupTargets } from './startup.mjs';
import { STARTUP_PHASES } from '../../web/lib/startup.js';
import { runGroup } from '../support/run-group.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const skip = existsSync(join(ROOT, 'web', 'gen', 'alignscope-simd.wasm')) ? false : 'web/gen not built: run ./build.sh wasm';

test('startup.mjs --quick: every phase of 2 cold loads, once each, in order; the build and the model; its Markdown and target', { skip, timeout: 170_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-startup-'));
  try {
    const out = join(dir, 'startup.json');
    const r = await runGroup([join(ROOT, 'tests', 'bench', 'startup.mjs'), '--quick', '--json', out], 160_000);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout.slice(-2000)}`);
    const res = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(JSON.parse(r.stdout), res, '--quick prints the JSON it writes');
    assert.equal(res.runs, 2);
    assert.equal(res.samples.length, 2);
    assert.deepEqual(PHASES, [...STARTUP_PHASES], 'the bench reads the phases the page marks');
    for (const phase of PHASES) {
      const p = res.phases[phase];
      assert.deepEqual(p.count, [1, 1], `${phase} marked once per load`);
      assert.ok(p.medianMs > 0 && p.minMs > 0 && p.minMs <= p.medianMs, `${phase}: ${JSON.stringify(p)}`);
    }
    for (const s of res.samples) {
      const at = Object.fromEntries(s.marks.map((m) => [m.phase, m.at]));
      for (const [a, b] of [['download', 'load'], ['compile', 'load'], ['load', 'translation'], ['translation', 'paint']]) {
        assert.ok(at[a] <= at[b], `${a} before ${b}: ${JSON.stringify(at)}`);
      }
      assert.equal(s.firstHeatmap, at.paint, 'first paint is the first heatmap');
    }
    // The phases' own durations fit inside the time from navigation to their end.
    for (const phase of ['download', 'compile', 'load']) {
      const p = res.phases[phase];
      assert.ok(p.durationMedianMs > 0 && p.durationMedianMs <= p.medianMs, `${phase}: ${JSON.stringify(p)}`);
    }
    assert.equal(res.firstHeatmap.medianMs, res.phases.paint.medianMs);
    assert.ok(['relaxed', 'simd', 'scalar'].includes(res.build), res.build);
    assert.deepEqual(res.compiledBuilds, [res.build], 'the build the page shows is the one the worker compiled');
    assert.equal(res.streamed, true, 'serve.mjs sends application/wasm: compiled while it streams');
    const index = JSON.parse(readFileSync(join(ROOT, 'web', 'models', 'index.json'), 'utf8'));
    assert.equal(res.model.id, index.default);
    assert.equal(res.model.bytes, statSync(join(ROOT, 'web', 'models', res.model.file)).size);
    assert.deepEqual(res.model.downloaded, [res.model.bytes], 'every load downloaded the whole model');
    assert.deepEqual(res.model.from, ['network'], 'cold: from the network, not a cache');

    const lines = startupLines(res);
    const rows = lines.filter((l) => /^\| (?!phase|---)/.test(l));
    assert.equal(rows.length, PHASES.length, lines.join('\n'));
    assert.match(lines.join('\n'), new RegExp(`${res.model.file}`));
    const [target, ...more] = startupTargets(res);
    assert.equal(more.length, 0);
    assert.equal(target.value, res.phases.paint.medianMs);
    assert.equal(target.goal, 500);
    assert.equal(target.met, target.value <= target.goal);
    assert.equal(target.lowerIsBetter, true);
    assert.equal(target.orEqual, true);
    assert.equal(target.unit, 'ms');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
