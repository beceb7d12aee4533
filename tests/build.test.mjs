// build.sh's first step on a machine that lacks something: every mode that
// builds asks the same dependency step (deps GROUP...) before anything else,
// and where it cannot install (apt-get is hidden here, so nothing is ever
// installed by this test) it prints the exact apt-get line and exits 1
// before building, serving or fetching anything.
//
// The machine without emscripten is simulated with a PATH of links to every
// program on this one's PATH except emcc (and apt-get, apt, sudo).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HIDDEN = new Set(['emcc', 'em++', 'apt-get', 'apt', 'sudo']);
const LINE = 'apt-get install -y --no-install-recommends emscripten';
let bin;

before(() => {
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-path-'));
  for (const dir of (process.env.PATH ?? '').split(':')) {
    let names;
    try { names = fs.readdirSync(dir); } catch { continue; }
    for (const name of names) {
      if (HIDDEN.has(name) || fs.existsSync(path.join(bin, name))) continue;
      fs.symlinkSync(path.join(dir, name), path.join(bin, name));
    }
  }
  assert.ok(fs.existsSync(path.join(bin, 'bash')) && fs.existsSync(path.join(bin, 'node')), 'bash and node stay on the PATH');
});

after(() => fs.rmSync(bin, { recursive: true, force: true }));

/** ./build.sh MODE on the PATH without emcc: { status, out } (stdout and stderr together). */
function build(mode, env = {}) {
  const r = spawnSync('bash', [path.join(ROOT, 'build.sh'), mode], {
    cwd: ROOT, encoding: 'utf8', timeout: 60_000,
    // PORT 1: were the mode to get as far as serving, it would fail, not listen.
    env: { ...process.env, PATH: bin, PORT: '1', ...env },
  });
  assert.equal(r.error, undefined, `${mode}: ${r.error?.message}`);
  // eslint-disable-next-line no-control-regex
  return { status: r.status, out: `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '') };
}

test('the PATH of this test has no emcc', () => {
  const r = spawnSync('bash', ['-c', 'command -v emcc || echo none'], { encoding: 'utf8', env: { PATH: bin } });
  assert.equal(r.stdout.trim(), 'none');
});

for (const mode of ['wasm', 'serve', 'dist', 'pack']) {
  test(`./build.sh ${mode} without emscripten: names it, prints the exact apt-get line, exits 1 before building`, () => {
    const { status, out } = build(mode, { ALIGNSCOPE_NO_INSTALL: '1' });
    assert.equal(status, 1, out);
    // Only emscripten: everything else the mode needs (clang-19, lld-19, wasi-libc, …) is judged present.
    assert.match(out, new RegExp(`^\\[build\\] missing for \\./build\\.sh ${mode}: emscripten$`, 'm'), out);
    assert.ok(out.split('\n').some((l) => l.endsWith(`  ${LINE}`)), `the line to run:\n${out}`);
    assert.doesNotMatch(out, /\[build\] (wasm|npm|test models):|http:\/\//, 'nothing built, fetched or served');
  });
}

test('without ALIGNSCOPE_NO_INSTALL: as another user, the sudo line; as root without apt-get, what to install', () => {
  const { status, out } = build('wasm');
  assert.equal(status, 1, out);
  if (process.getuid?.() === 0) assert.match(out, /^\[build\] no apt-get here: install the Debian packages emscripten \(or their equivalents\), then run this again$/m, out);
  else assert.ok(out.split('\n').some((l) => l.endsWith(`  sudo ${LINE}`)), out);
});
