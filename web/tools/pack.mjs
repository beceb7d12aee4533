#!/usr/bin/env node
// pack.mjs - the npm package: build/npm/ (its own package.json) and, with
// `npm pack`, build/alignscope-VERSION.tgz.
//
//   node web/tools/pack.mjs            (also: ./build.sh pack)
//
// The repository's package.json stays "private": it is the development
// project (test runner, dev dependencies, scripts); publishing it would ship
// the trainer and the tests. The package is made from it instead: the same
// name, version, description and licence, plus `exports`, `types` and
// `files`, and only what a page or a Node program needs:
//   engine.js (+ "."), alignscope.js (the element) and every module it
//   imports, worker.js, alignscope.css, gen/alignscope-{simd,scalar}.wasm,
//   models/index.json with the catalogue's default model and its file,
//   and the TypeScript declarations of npm/ (engine.d.ts, alignscope.d.ts).

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assemble } from './assemble.mjs';
import { collectModules } from './dist.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WEB = path.resolve(HERE, '..');
const REPO = path.resolve(WEB, '..');

export function buildPackage({ out = path.join(REPO, 'build', 'npm'), tarballDir = path.join(REPO, 'build'), quiet = false } = {}) {
  const log = quiet ? () => {} : (m) => console.log(m);
  const index = assemble({ quiet: true });
  const def = index.models.find((m) => m.id === index.default);
  if (!def) throw new Error(`pack: the catalogue's default ${index.default} is not in it`);
  fs.rmSync(out, { recursive: true, force: true });
  const put = (rel, data) => { fs.mkdirSync(path.dirname(path.join(out, rel)), { recursive: true }); fs.writeFileSync(path.join(out, rel), data); };
  const modules = collectModules(['alignscope.js', 'worker.js', 'engine.js']);
  for (const [rel, src] of Object.entries(modules)) put(rel, src);
  // A vendored library's licence goes with it (web/tools/vendor.mjs).
  for (const rel of Object.keys(modules).filter((r) => r.startsWith('vendor/'))) {
    const licence = rel.replace(/\.js$/, '.LICENSE.md');
    if (fs.existsSync(path.join(WEB, licence))) put(licence, fs.readFileSync(path.join(WEB, licence)));
  }
  // All three builds: the element picks one by feature detection (engine.js bestVariant).
  for (const rel of ['alignscope.css', 'gen/alignscope-relaxed.wasm', 'gen/alignscope-simd.wasm', 'gen/alignscope-scalar.wasm']) {
    if (!fs.existsSync(path.join(WEB, rel))) throw new Error(`pack: web/${rel} is missing (run ./build.sh wasm)`);
    put(rel, fs.readFileSync(path.join(WEB, rel)));
  }
  // One model, the default: the catalogue without the site's release cache (no service worker here).
  const { release, cache, report, ...rest } = index;
  put('models/index.json', `${JSON.stringify({ ...rest, default: def.id, models: [def] }, null, 2)}\n`);
  put(`models/${def.file}`, fs.readFileSync(path.join(WEB, 'models', def.file)));
  if (def.card) put(`models/${def.card}`, fs.readFileSync(path.join(WEB, 'models', def.card)));
  for (const f of ['engine.d.ts', 'alignscope.d.ts']) put(`types/${f}`, fs.readFileSync(path.join(REPO, 'npm', f)));
  const root = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const manifest = {
    name: root.name,
    version: root.version,
    description: root.description,
    license: root.license ?? 'UNLICENSED',
    type: 'module',
    main: './engine.js',
    types: './types/engine.d.ts',
    exports: {
      '.': { types: './types/engine.d.ts', default: './engine.js' },
      './engine': { types: './types/engine.d.ts', default: './engine.js' },
      './element': { types: './types/alignscope.d.ts', default: './alignscope.js' },
      './worker': './worker.js',
      './alignscope.css': './alignscope.css',
      './wasm/*': './gen/*',
      './models/*': './models/*',
      './package.json': './package.json',
    },
    sideEffects: ['./alignscope.js'],
    engines: { node: '>=20' },
  };
  put('package.json', `${JSON.stringify(manifest, null, 2)}\n`);
  put('README.md', `# ${root.name}\n\n${root.description}\n\nThe engine API (\`import { createEngine } from '${root.name}'\`), the \`<align-scope>\` element (\`${root.name}/element\`), its worker, the WebAssembly and the default model (\`${root.name}/models/index.json\`, \`${def.file}\`). See the project's README, "The npm package".\n`);
  fs.mkdirSync(tarballDir, { recursive: true });
  const name = execFileSync('npm', ['pack', out, '--pack-destination', tarballDir, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop();
  const tarball = path.join(tarballDir, name);
  log(`pack: ${path.relative(REPO, tarball)} (${(fs.statSync(tarball).size / 1e6).toFixed(1)} MB, ${Object.keys(modules).length} modules, model ${def.id})`);
  return { dir: out, tarball, manifest, model: def };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try { buildPackage(); } catch (err) { console.error(err.message); process.exit(1); }
}
