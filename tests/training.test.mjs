// Training by update budget: straight, stopped-and-resumed and grown runs give
// the same weights bit for bit; a damaged or foreign state restarts
// (tests/support/training_check.py, on the made-up corpus, ~20 s).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { PYTHON, ROOT, TEST_MODELS, requireBuilt } from './support/alsc.mjs';

requireBuilt();

test('an update budget makes the same model however the run is cut', () => {
  const work = mkdtempSync(join(tmpdir(), 'alignscope-train-'));
  try {
    const run = spawnSync(PYTHON, [join(ROOT, 'tests', 'support', 'training_check.py'), join(TEST_MODELS, 'toy-data'), work],
      { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^4 passed, 0 failed$/m);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

// ./build.sh runs (models/train/runs.py): where each resumable run stands,
// read from its state; a damaged state is named, not fatal; no runs, no error.
test('runs.py reports each state: its update, budget and curve; a damaged one is named', () => {
  const root = mkdtempSync(join(tmpdir(), 'alignscope-runs-'));
  try {
    const runsPy = join(ROOT, 'models', 'train', 'runs.py');
    const list = (dir, models = TEST_MODELS) => {
      const run = spawnSync(PYTHON, [runsPy, '--root', dir, '--models', models, '--json'], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stdout + run.stderr);
      return JSON.parse(run.stdout);
    };
    assert.deepEqual(list(join(root, 'absent')), []);
    // The smoke training's subword run (build.sh models): 300 updates of 300, done.
    const [toy] = list(TEST_MODELS).filter((r) => r.run === 'state-subwords');
    assert.ok(toy, 'the smoke training keeps a state in state-subwords');
    assert.equal(toy.update, toy.updates);
    assert.equal(toy.finished, true);
    assert.equal(toy.hours_left, 0);
    assert.ok(Array.isArray(toy.curve) && toy.curve.every((p) => p.update <= toy.update && Number.isFinite(p.dev_bleu)));
    // Its export is found by the phases its metrics carry; elsewhere it is not exported yet.
    assert.match(toy.exported_as, /subwords\.alsc$/);
    const [unexported] = list(TEST_MODELS, root).filter((r) => r.run === 'state-subwords');
    assert.equal(unexported.exported_as, null);
    mkdirSync(join(root, 'en-xx-additive'));
    writeFileSync(join(root, 'en-xx-additive', 'state.pt'), 'not a state');
    const [damaged] = list(root);
    assert.equal(damaged.run, 'en-xx-additive');
    assert.match(damaged.error, /state\.pt cannot be read/);
    const text = spawnSync(PYTHON, [runsPy, '--root', root], { encoding: 'utf8' });
    assert.equal(text.status, 0);
    assert.match(text.stdout, /^en-xx-additive: state\.pt cannot be read .*the next run starts it afresh$/m);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
