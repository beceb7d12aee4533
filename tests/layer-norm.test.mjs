// Layer normalisation (arch_flags layer_norm, models/FORMAT.md 4.1) under every
// attention kind, f32 and int8: random networks with random gains and shifts,
// written by export.py, run by the native CLI against PyTorch
// (tests/support/layer_norm_kinds_check.py), within the parity test's
// TOLERANCES. The trained additive test model's parity on every build is
// tests/parity.test.mjs's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

import { PYTHON, ROOT, TEST_MODELS, TOLERANCES, requireBuilt } from './support/alsc.mjs';

requireBuilt();

test('layer norm with every attention kind, f32 and int8: the engine gives PyTorch\'s tokens, alpha and scores', () => {
  const run = spawnSync(PYTHON, [join(ROOT, 'tests', 'support', 'layer_norm_kinds_check.py'), TEST_MODELS,
    join(ROOT, 'build', 'native', 'alignscope'), JSON.stringify(TOLERANCES)], { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } });
  for (const line of run.stdout.trim().split('\n')) console.log(`# ${line}`);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^10 passed, 0 failed$/m);
  for (const kind of ['additive', 'dot', 'general', 'scaled_dot', 'none']) {
    for (const weights of ['f32', 'int8']) assert.match(run.stdout, new RegExp(`^${kind} ${weights}: .*: ok$`, 'm'));
  }
});
