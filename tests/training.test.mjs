// Training by update budget: straight, stopped-and-resumed and grown runs give
// the same weights bit for bit; a damaged or foreign state restarts
// (tests/support/training_check.py, on the made-up corpus, ~20 s).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
    assert.match(run.stdout, /^3 passed, 0 failed$/m);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
