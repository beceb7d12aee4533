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

/** Links in DIR to every program on this PATH except the HIDDEN names: this machine without them. */
function linkPath(dir, hidden) {
  for (const from of (process.env.PATH ?? '').split(':')) {
    let names;
    try { names = fs.readdirSync(from); } catch { continue; }
    for (const name of names) {
      if (hidden.has(name) || fs.existsSync(path.join(dir, name))) continue;
      fs.symlinkSync(path.join(from, name), path.join(dir, name));
    }
  }
}

before(() => {
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-path-'));
  linkPath(bin, HIDDEN);
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

test('./build.sh deps without Xvfb and xdotool (the headed browser test\'s display and keys): names the packages xvfb and xdotool and puts them on the line', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-path-'));
  try {
    // Judged by their programs on the PATH (dep_ok): the package xvfb by Xvfb.
    linkPath(dir, new Set(['apt-get', 'apt', 'sudo', 'Xvfb', 'xdotool']));
    const { status, out } = build('deps', { PATH: dir, ALIGNSCOPE_NO_INSTALL: '1' });
    assert.equal(status, 1, out);
    assert.match(out, /^\[build\] missing for \.\/build\.sh deps: .*\bxvfb xdotool\b/m, out);
    assert.ok(out.split('\n').some((l) => / {2}apt-get install -y --no-install-recommends .*\bxvfb xdotool\b/.test(l)), `the line to run:\n${out}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A bare machine as dpkg sees it: a fake dpkg-query that knows none of the
// packages asked about and exits 1, as the real one does for a package that
// was never installed; and, as root, a fake apt-get that "installs" by
// leaving a mark that dpkg-query then reports every package installed.
// `./build.sh deps` once ended silently with status 1 on the first (errexit
// took dpkg-query's status) and, after a real install, reported the library
// packages it had just installed as "installed, yet not found" (it judged
// them by what dpkg had said before the install).
function fakeDpkg(dir, mark) {
  linkPath(dir, new Set(['dpkg-query', 'apt-get', 'apt', 'sudo']));
  fs.writeFileSync(path.join(dir, 'dpkg-query'), `#!/bin/bash
# dpkg-query -W -f=FORMAT PACKAGE...
shift 2
if [[ -e ${mark} ]]; then for p in "$@"; do echo "$p install ok installed"; done; exit 0; fi
for p in "$@"; do echo "dpkg-query: no packages found matching $p" >&2; done
exit 1
`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'apt-get'), `#!/bin/bash
echo "fake apt-get $*"
[[ $1 == install ]] && touch ${mark}
exit 0
`, { mode: 0o755 });
}

test('./build.sh deps where dpkg knows none of the packages: names the missing ones and the line, not a silent exit', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-dpkg-'));
  try {
    fakeDpkg(dir, path.join(dir, 'never-made'));
    const { status, out } = build('deps', { PATH: dir, ALIGNSCOPE_NO_INSTALL: '1' });
    assert.equal(status, 1, out);
    // The packages judged by dpkg (libraries, and PyTorch for Debian's python3); programs are judged on the PATH.
    assert.match(out, /^\[build\] missing for \.\/build\.sh deps: .*\bpython3-torch\b.*$/m, out);
    for (const p of ['libclang-rt-19-dev-wasm32', 'libopenblas0-pthread', 'libclang-rt-dev']) assert.match(out, new RegExp(`missing for .*\\b${p}\\b`), out);
    assert.ok(out.split('\n').some((l) => / {2}apt-get install -y --no-install-recommends .*python3-torch/.test(l)), `the line to run:\n${out}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('./build.sh deps as root after apt-get installs the libraries: asks dpkg again and succeeds', { skip: process.getuid?.() !== 0 && 'needs root' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-dpkg-'));
  try {
    const mark = path.join(dir, 'installed');
    fakeDpkg(dir, mark);
    const { status, out } = build('deps', { PATH: dir });
    assert.ok(fs.existsSync(mark), `apt-get install ran:\n${out}`);
    assert.match(out, /^fake apt-get install -y --no-install-recommends .*python3-torch/m, out);
    assert.doesNotMatch(out, /installed, yet not found/, out);
    assert.equal(status, 0, out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('RECIPE_CHANGES: a run with a change has its own name (so neither recipe restarts the other\'s state) and the card\'s rebuild line names it', () => {
  const source = fs.readFileSync(path.join(ROOT, 'build.sh'), 'utf8');
  const fn = (name) => source.match(new RegExp(`^${name}\\(\\) \\{[\\s\\S]*?^\\}`, 'm'))[0];
  const run = (env) => spawnSync('bash', ['-c', `MODEL_UPDATES_DEFAULT=18000\n${fn('recipe_tag')}\n${fn('model_rebuild')}\n` +
    'printf "%s|%s" "$(recipe_tag)" "$(model_rebuild fr additive)"'], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } }).stdout;
  assert.equal(run({}), '|./build.sh model');
  assert.equal(run({ RECIPE_CHANGES: '--layer-norm' }), '+layer-norm|RECIPE_CHANGES="--layer-norm" ./build.sh model');
  assert.equal(run({ RECIPE_CHANGES: '--layer-norm  --word-dropout 0.1' }), '+layer-norm+word-dropout+0.1|RECIPE_CHANGES="--layer-norm  --word-dropout 0.1" ./build.sh model');
  // mode_model and mode_model_export both name the run and the state with it
  assert.equal(source.match(/runs\/en-\$lang-\$kind\$\(recipe_tag\)/g).length, 3);
});
