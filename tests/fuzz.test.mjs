// A short libFuzzer run of every harness (tests/fuzz/fuzz_model_load.c,
// tests/fuzz/fuzz_tokenize.c, tests/fuzz/fuzz_force_score.c, tests/fuzz/fuzz_window_decode.c) through `./build.sh fuzz`, after replaying every
// input in tests/fuzz/regressions/. Fails on any crash, sanitizer report or
// broken invariant, and when clang or libFuzzer is missing (./build.sh deps
// installs them): a fuzz run that silently does nothing would prove nothing.
// FUZZ_TEST_SECONDS sets the time per harness (default 12); `./build.sh fuzz`
// alone runs longer (FUZZ_SECONDS, default 120).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './support/alsc.mjs';

const SECONDS = Math.max(1, Number(process.env.FUZZ_TEST_SECONDS ?? 12) || 12); // 0 would mean "forever" to libFuzzer
const HARNESSES = ['model_load', 'tokenize', 'force_score', 'window_decode'];

test(`fuzz: regressions replayed, then ${SECONDS} s of libFuzzer per harness, no crashes`, () => {
  // The harnesses are built first, with their own time: compiling the library
  // with sanitizers takes longer than the fuzzing on a busy 2-core machine.
  const built = spawnSync(join(ROOT, 'build.sh'), ['fuzz-build'], { encoding: 'utf8', timeout: 400_000 });
  assert.ok(!built.error && built.status === 0, `./build.sh fuzz-build failed: ${built.error ?? ''}${built.stdout}${built.stderr}`);
  const r = spawnSync(join(ROOT, 'build.sh'), ['fuzz'], {
    encoding: 'utf8', env: { ...process.env, FUZZ_SECONDS: String(SECONDS) }, timeout: (60 + 4 * SECONDS) * 1000,
  });
  const out = `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
  for (const line of out.split('\n').filter((l) => /fuzz: \w+: /.test(l))) console.log(`# ${line.replace(/^\[build\] /, '')}`);
  assert.ok(!r.error, `./build.sh fuzz did not finish: ${r.error}`);
  assert.equal(r.status, 0, `./build.sh fuzz failed (a crash, or clang/libFuzzer missing):\n${out}`);
  for (const name of HARNESSES) {
    const m = out.match(new RegExp(`fuzz: ${name}: (\\d+) executions in \\d+ s, (\\d+) crashes`));
    assert.ok(m, `no report for ${name}:\n${out}`);
    assert.ok(Number(m[1]) > 100, `${name}: only ${m[1]} executions`);
    assert.equal(Number(m[2]), 0);
    const dir = join(ROOT, 'tests', 'fuzz', 'regressions', name); // none yet for a new harness
    const regressions = existsSync(dir) ? readdirSync(dir) : [];
    if (regressions.length) assert.match(out, new RegExp(`fuzz: ${name}: regressions: ${regressions.length} inputs replayed, 0 crashes`));
  }
});
