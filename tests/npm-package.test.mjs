// The npm package (web/tools/pack.mjs): packed with `npm pack`, installed
// from the tarball into a new project with no registry (--offline), then
// used as its README says: the engine API under Node translates a sentence
// with the packaged default model, and <align-scope> from node_modules
// renders a heatmap in Chromium. The declarations cover the element's
// attributes and events and every export of the engine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildPackage } from '../web/tools/pack.mjs';
import * as engineModule from '../web/engine.js';
import { launch, countingServer } from './browser/support.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let tmp;
let project;
let pkg;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-npm-'));
  pkg = buildPackage({ out: path.join(tmp, 'pkg'), tarballDir: tmp, quiet: true });
  project = path.join(tmp, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'course-site', private: true, type: 'module' }));
  execFileSync('npm', ['install', pkg.tarball, '--offline', '--no-audit', '--no-fund', '--silent'], { cwd: project, stdio: 'pipe' });
});

after(() => { if (tmp) fs.rmSync(tmp, { recursive: true, force: true }); });

test('the tarball holds the element, the worker, the wasm, the default model, the engine API and the declarations', () => {
  const files = execFileSync('tar', ['tzf', pkg.tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
  for (const f of ['alignscope.js', 'worker.js', 'engine.js', 'ui.js', 'alignscope.css', 'gen/alignscope-simd.wasm', 'gen/alignscope-scalar.wasm',
    'models/index.json', `models/${pkg.model.file}`, 'types/engine.d.ts', 'types/alignscope.d.ts', 'package.json']) assert.ok(files.includes(f), f);
  assert.equal(files.filter((f) => f.endsWith('.alsc')).length, 1, 'one model: the default');
  assert.ok(!files.some((f) => f.startsWith('tools/') || f.startsWith('tests/')), 'no tools, no tests');
  const root = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const index = JSON.parse(fs.readFileSync(path.join(REPO, 'models', 'index.json'), 'utf8'));
  assert.equal(pkg.model.id, index.default, 'the model is the catalogue’s default');
  assert.equal(pkg.manifest.version, root.version);
  assert.ok(!pkg.manifest.private, 'the package is publishable; the repository’s package.json stays private');
  assert.ok(pkg.manifest.exports['.'] && pkg.manifest.exports['./element'] && pkg.manifest.exports['./worker']);
  console.log(`# npm package: ${(fs.statSync(pkg.tarball).size / 1e6).toFixed(2)} MB packed, ${files.length} files`);
});

test('installed from the tarball, the engine API translates a sentence under Node', () => {
  const script = `
    import fs from 'node:fs';
    import { createEngine } from 'alignscope';
    const index = JSON.parse(fs.readFileSync(new URL(import.meta.resolve('alignscope/models/index.json')), 'utf8'));
    const model = index.models.find((m) => m.id === index.default);
    const bytes = fs.readFileSync(new URL(import.meta.resolve('alignscope/models/' + model.file)));
    const engine = await createEngine({ variant: 'auto' });
    const info = engine.load(new Uint8Array(bytes));
    const r = engine.translate('Open the file', { scoreScale: info.trainedScoreScale });
    console.log(JSON.stringify({ translation: r.translation, T: r.T, S: r.S, rows: Array.from({ length: r.T }, (_, t) => r.alpha.slice(t * r.S, (t + 1) * r.S).reduce((a, b) => a + b, 0)) }));`;
  fs.writeFileSync(path.join(project, 'use.mjs'), script);
  const out = JSON.parse(execFileSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8' }));
  assert.ok(out.translation.length > 0);
  assert.ok(out.T > 0 && out.S > 0);
  for (const s of out.rows) assert.ok(Math.abs(s - 1) < 1e-4, 'each α row sums to 1');
});

test('installed from the tarball, <align-scope> renders a heatmap in Chromium and says so in an event', async () => {
  fs.writeFileSync(path.join(project, 'index.html'), `<!doctype html><html><head><meta charset="utf-8"><title>course</title>
<script type="module" src="node_modules/alignscope/alignscope.js"></script></head>
<body><align-scope sentence="Open the file" view="heatmap"></align-scope></body></html>`);
  const server = await countingServer({ root: project, headers: () => ({}) });
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.addInitScript(() => document.addEventListener('alignscope-result', (e) => { window.lastResult = e.detail; }));
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction(() => document.querySelector('align-scope').shadowRoot?.querySelector('.as-root[data-ready="true"]'), null, { timeout: 90_000 });
    const detail = await page.waitForFunction(() => window.lastResult).then((h) => h.jsonValue());
    assert.equal(detail.sentence, 'Open the file');
    assert.ok(detail.translation.length > 0);
    const painted = await page.evaluate(() => {
      const c = document.querySelector('align-scope').shadowRoot.querySelector('canvas');
      return c.width > 0 && c.height > 0;
    });
    assert.ok(painted, 'the heatmap canvas is drawn');
  } finally {
    await browser.close();
    await server.close();
  }
});

test('the declarations cover every attribute and event of the element and every export of the engine', () => {
  const el = fs.readFileSync(path.join(REPO, 'npm', 'alignscope.d.ts'), 'utf8');
  const src = fs.readFileSync(path.join(REPO, 'web', 'alignscope.js'), 'utf8');
  const attrs = JSON.parse(src.match(/const ATTRS = (\[[^\]]*\])/)[1].replace(/'/g, '"'));
  const declared = el.match(/interface AlignScopeAttributes \{([\s\S]*?)\n\}/)[1];
  // A name with a hyphen is quoted in TypeScript ('ui-lang'?:).
  for (const a of attrs) assert.match(declared, new RegExp(`\\n  ('${a}'|${a})\\?:`), `attribute ${a}`);
  for (const ev of src.matchAll(/emit\('([a-z-]+)'/g)) assert.ok(el.includes(`'${ev[1]}': CustomEvent`), `event ${ev[1]}`);
  const eng = fs.readFileSync(path.join(REPO, 'npm', 'engine.d.ts'), 'utf8');
  for (const name of Object.keys(engineModule)) assert.match(eng, new RegExp(`export declare (const|function|class) ${name}\\b`), `engine export ${name}`);
  // Every public method of class Engine, read from its source (two-space indent, no #), so a new one needs its declaration.
  const engineSrc = fs.readFileSync(path.join(REPO, 'web', 'engine.js'), 'utf8');
  const engineClass = engineSrc.match(/\nclass Engine \{([\s\S]*?)\n\}/)[1];
  const methods = [...engineClass.matchAll(/\n  ([a-zA-Z]\w*)\(/g)].map((m) => m[1]).filter((m) => m !== 'constructor');
  for (const method of ['load', 'translate', 'beam', 'forceScore', 'windowMask', 'tokenize', 'dotScores', 'dispose']) assert.ok(methods.includes(method), `class Engine has ${method} (the source reader works)`);
  for (const method of methods) assert.match(eng, new RegExp(`\\n  ${method}\\(`), `Engine.${method} is declared in npm/engine.d.ts`);
  for (const type of ['ForceScoreOptions', 'ForceScoreResult', 'ForceScoreError']) assert.match(eng, new RegExp(`export interface ${type}\\b`), `${type} is declared`);
});
