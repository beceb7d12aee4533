// The native C test programs (tests/c/kernels_test.c, tests/c/engine_test.c)
// under ASan + UBSan + LeakSanitizer (clang) and under valgrind memcheck
// (gcc -O1 -g): zero errors, zero leaks. `./build.sh sanitize-build` makes
// them (called here, so `node --test tests/` needs nothing else); engine_test
// loads every test model, translates the parity sentences, and feeds bad
// files, bad text and a failure of each allocation in turn (see its header
// comment).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';

import { INT8_KINDS, KINDS, ROOT, TEST_MODELS } from './support/alsc.mjs';

const PROGRAMS = {
  kernels_test: [],
  engine_test: [...[...KINDS, ...INT8_KINDS.map((k) => `${k}-int8`), 'tutorial', 'subwords', 'layer-norm', 'layer-norm-int8'].map((k) => join(TEST_MODELS, `${k}.alsc`)), '--sentences', join(TEST_MODELS, 'sentences.txt')],
};
const SAN_ENV = {
  ASAN_OPTIONS: 'detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1',
  UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  LSAN_OPTIONS: 'report_objects=1',
};
const VALGRIND = ['--error-exitcode=1', '--leak-check=full', '--errors-for-leak-kinds=definite,indirect',
  '--show-leak-kinds=definite,indirect', '--track-origins=yes'];

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('sanitizers', () => {
  before(() => {
    const b = run(join(ROOT, 'build.sh'), ['sanitize-build']);
    assert.equal(b.status, 0, `./build.sh sanitize-build failed (clang and gcc are installed by ./build.sh deps):\n${b.out}`);
  });

  for (const [name, args] of Object.entries(PROGRAMS)) {
    test(`${name} under ASan + UBSan + LeakSanitizer: no errors, no leaks`, () => {
      const { status, out } = run(join(ROOT, 'build', 'sanitize', 'asan', name), args, SAN_ENV);
      const summary = out.split('\n').filter((l) => /^(engine_test:|RESULT)|allocations failed/.test(l));
      for (const l of summary) console.log(`# asan ${name}: ${l}`);
      assert.doesNotMatch(out, /ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: \w+Sanitizer/, out);
      assert.equal(status, 0, out);
      assert.match(out, /RESULT PASS/);
      if (name === 'engine_test') {
        const oom = out.match(/(\d+) allocations failed in turn/);
        assert.ok(oom && Number(oom[1]) > 10, 'allocation-failure injection ran (-DENGINE_TEST_FAIL_ALLOC)');
      }
    });

    test(`${name} under valgrind memcheck: 0 errors, 0 bytes lost`, () => {
      const probe = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });
      assert.ok(!probe.error, 'valgrind is not installed: run ./build.sh deps (package valgrind)');
      const { status, out } = run('valgrind', [...VALGRIND, join(ROOT, 'build', 'sanitize', 'valgrind', name), ...args]);
      const errors = out.match(/ERROR SUMMARY: (\d+) errors/);
      const lost = [...out.matchAll(/(definitely|indirectly) lost: ([\d,]+) bytes/g)].map((m) => `${m[1]} ${m[2]}`);
      const heap = out.match(/total heap usage: ([\d,]+) allocs, ([\d,]+) frees/);
      console.log(`# valgrind ${name}: ${errors?.[0] ?? 'no summary'}; ${heap ? `${heap[1]} allocs, ${heap[2]} frees` : ''}; ` +
        `${lost.length ? lost.join(', ') : 'all heap blocks freed'}`);
      assert.ok(errors, out);
      assert.equal(Number(errors[1]), 0, out);
      for (const m of out.matchAll(/(definitely|indirectly) lost: ([\d,]+) bytes/g)) assert.equal(m[2], '0', out);
      assert.equal(heap?.[1], heap?.[2], 'every allocation freed');
      assert.equal(status, 0, out);
      assert.match(out, /RESULT PASS/);
    });
  }
});
