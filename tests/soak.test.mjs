// No leaks over time: 10,000 translations (sentence, score scale and topK
// changing, refused inputs and tokenisations mixed in) in one WebAssembly
// instance leave its memory size and its heap in use exactly where they were
// after the first 100. With models/en-fr.alsc present, a few hundred more on
// the real model. `./build.sh soak` runs the long version (SOAK_N).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT, VARIANTS, modelBytes, requireBuilt } from './support/alsc.mjs';
import { describeSoak, soak } from './support/soak.mjs';

requireBuilt();
const REAL = join(ROOT, 'models', 'en-fr.alsc');

for (const variant of VARIANTS) {
  test(`10,000 translations leave memory and heap unchanged (${variant}, test model)`, async () => {
    const r = await soak({ variant, model: modelBytes('additive'), n: 10_000 });
    console.log(`# ${describeSoak('test model additive', r)}`);
    assert.equal(r.failures, 0);
    assert.ok(r.heapBefore > 0, 'the build reports its heap (asw_heap_bytes)');
    assert.equal(r.heapAfter, r.heapBefore, 'heap bytes in use');
    assert.equal(r.after, r.before, 'wasm memory size');
    assert.equal(r.peak, r.before, 'no growth in between either');
  });
}

test('a few hundred translations on models/en-fr.alsc leave memory and heap unchanged', async (t) => {
  if (!existsSync(REAL)) {
    t.skip('models/en-fr.alsc not present (./build.sh model makes it)');
    return;
  }
  const r = await soak({ variant: 'simd', model: new Uint8Array(readFileSync(REAL)), n: 300, warmup: 30 });
  console.log(`# ${describeSoak('models/en-fr.alsc', r)}`);
  assert.equal(r.failures, 0);
  assert.equal(r.heapAfter, r.heapBefore, 'heap bytes in use');
  assert.equal(r.after, r.before, 'wasm memory size');
});
