// The README's benchmark tables are tests/bench/results.md as the last full
// `./build.sh bench` wrote it, pasted whole between two markers: a newcomer
// reads the README only, and hand-copied numbers drift from the run that
// made them. (Regenerate: `./build.sh bench`, then `node tests/bench/readme.mjs`.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { README, RESULTS_MD, benchBlock } from './readme.mjs';

test('the README carries tests/bench/results.md whole, between its markers', () => {
  const block = benchBlock(readFileSync(README, 'utf8'));
  assert.ok(block != null, 'the README has the bench markers');
  assert.equal(block.trim(), readFileSync(RESULTS_MD, 'utf8').trim(), 'run node tests/bench/readme.mjs after ./build.sh bench');
});
