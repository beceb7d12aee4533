// Runs the C kernel tests (tests/c/kernels_test.c) natively and as wasm with
// SIMD128: both twins each time (natively the SIMD twin goes through
// src/native/wasm_simd128.h), and twin against twin. Each prints
// one line per kernel with its max error against a double-precision
// reference; any FAIL line or a non-zero exit fails the test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './support/alsc.mjs';

const PROGRAMS = {
  native: [join(ROOT, 'build', 'native', 'kernels_test')],
  wasm: [process.execPath, join(ROOT, 'build', 'wasm', 'kernels_test.js')],
};
const EXPECTED_VARIANTS = { native: ['scalar', 'wasmsimd'], wasm: ['scalar', 'wasmsimd'] };
const KERNELS = ['matvec', 'matvec_p24', 'i8_matvec_q32', 'dot_scores', 'additive_scores', 'softmax', 'softmax_masked', 'context', 'tanh', 'exp', 'gru_update', 'block_layer_norm', 'top_k', 'sum_exp'];

function run(which, extra = []) {
  const [cmd, ...args] = PROGRAMS[which];
  if (!existsSync(args[0] ?? cmd)) throw new Error(`${args[0] ?? cmd} missing: run ./build.sh native && ./build.sh wasm`);
  const r = spawnSync(cmd, [...args, ...extra], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

for (const which of Object.keys(PROGRAMS)) {
  test(`kernels against a double-precision reference (${which})`, () => {
    const { status, out } = run(which);
    for (const line of out.split('\n').filter((l) => /max_err=/.test(l))) console.log(`# ${which}: ${line}`);
    assert.equal(status, 0, out);
    assert.match(out, /RESULT PASS/);
    assert.doesNotMatch(out, /FAIL/);
    for (const variant of EXPECTED_VARIANTS[which]) {
      for (const kernel of KERNELS) {
        assert.match(out, new RegExp(`^${kernel}\\s+${variant}\\s+max_err=\\S+ .* ok$`, 'm'), `${kernel} ${variant} not reported`);
      }
    }
    // native: the same SIMD twin through src/native/wasm_simd128.h
    assert.match(out, which === 'wasm' ? /isa=wasmsimd / : /isa=wasmsimd-native /);
    assert.match(out, /^twin:matvec .* ok$/m);
    assert.match(out, /^twin:elementwise .* ok$/m);
    assert.match(out, /^twin:softmax_masked .* ok$/m);
    assert.match(out, /^twin:matvec_p24 .* ok$/m);
    assert.match(out, /^twin:i8_matvec_q32 .* ok$/m);
    assert.match(out, /^twin:block_layer_norm .* ok$/m);
  });

  test(`kernel checks can fail (${which}, tolerances scaled to 0)`, () => {
    const { status, out } = run(which, ['--tolerance-scale', '0']);
    assert.notEqual(status, 0);
    assert.match(out, /RESULT FAIL/);
  });
}

test('the scalar wasm build contains no SIMD instructions, the simd build does', (t) => {
  const probe = spawnSync('wasm-dis', ['--version'], { encoding: 'utf8' });
  if (probe.error) { t.skip('wasm-dis (binaryen) not installed'); return; }
  const simdOps = (file) => {
    const r = spawnSync('wasm-dis', [join(ROOT, 'web', 'gen', file)], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, r.stderr);
    return (r.stdout.match(/\b(v128|[fi](8x16|16x8|32x4|64x2))\b/g) ?? []).length;
  };
  const scalar = simdOps('alignscope-scalar.wasm'), simd = simdOps('alignscope-simd.wasm');
  console.log(`# SIMD instructions: scalar build ${scalar}, simd build ${simd}`);
  assert.equal(scalar, 0);
  assert.ok(simd > 100);
});
