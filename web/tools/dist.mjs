#!/usr/bin/env node
// dist.mjs - the deployable page.
//
//   node web/tools/dist.mjs [--out dist]
//
// 1. dist/        the page for any static host: GitHub Pages, a course
//                 site, `python3 -m http.server`. Its scripts are bundled and
//                 minified by esbuild (npm, a dev dependency), one file per
//                 entry: app.js (the page: boot.js's start of the engine
//                 first, then every card), worker.js (the engine worker),
//                 embed.js (the iframe), alignscope.js (the element) and
//                 engine.js (the engine API); no module is fetched after
//                 another (no waterfall). Only what is loaded on demand is a
//                 chunk of its own (chunks/: the UI languages other than
//                 English, the GIF encoder), named by content. The rest of
//                 web/ (HTML, CSS, icons, models, wasm, sw.js,
//                 embed-resize.js) is copied; web/ stays plain modules.
//                 The wasm and the models are named by content hash
//                 (NAME.<16 hex>.EXT, listed in models/index.json; the
//                 training films' files too, listed in their manifests), so a
//                 host may mark them immutable; gen/release.js lists the
//                 release for the service worker (web/tools/release.mjs).
//                 The films are there to fetch on demand, not precached.
// 2. dist/alignscope-standalone.html
//                 ONE self-contained file that works opened from disk
//                 (file://, where fetch() of a .wasm or a model is refused):
//                 every ES module travels as text in a JSON block and is turned
//                 into a blob: module at start-up (imports rewritten to the
//                 blobs); the worker is such a blob module; the WebAssembly
//                 (both variants) and the default model are base64 in a second
//                 JSON block and are handed to the worker as bytes. It has
//                 no training film (its catalogue lists only that model).
//                 Its CSP is still strict but different from the served
//                 page's: the one inline script and the one inline stylesheet
//                 are allowed by their SHA-256 hashes, modules and the worker
//                 by `blob:`; there is no 'unsafe-inline' and no eval.
//                 Its "Copy link" needs a hosted copy to point at: the
//                 address given as --share-base URL (or ALIGNSCOPE_SHARE_BASE),
//                 else the button explains that a link needs a hosted copy.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { assemble } from './assemble.mjs';
import { hashedName, writeRelease } from './release.mjs';
import { writeVendor } from './vendor.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WEB = path.resolve(HERE, '..');
const REPO = path.resolve(WEB, '..');

// Files the standalone page needs, starting from app.js and worker.js.
const ENTRY_MODULES = ['app.js', 'worker.js'];
const IMPORT_RE = /(\bimport\s*(?:[\w*{}\s,]+from\s*)?|\bexport\s*(?:[\w*{}\s,]+)\s*from\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\2/g;

function copyTree(src, dst, skip) {
  fs.mkdirSync(dst, { recursive: true });
  for (const ent of fs.readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, ent.name);
    if (skip(from, ent)) continue;
    const to = path.join(dst, ent.name);
    if (ent.isDirectory()) copyTree(from, to, skip);
    else if (ent.isFile()) fs.copyFileSync(from, to);
  }
  if (!fs.readdirSync(dst).length) fs.rmdirSync(dst); // (a folder of modules only: bundled instead)
}

/** Every module reachable from the entries, as { 'views/heatmap.js': source }. */
export function collectModules(entries = ENTRY_MODULES) {
  const out = {};
  const visit = (rel) => {
    if (out[rel] !== undefined) return;
    const file = path.join(WEB, rel);
    if (!fs.existsSync(file)) throw new Error(`dist: ${rel} is missing (build the engine first: ./build.sh wasm)`);
    const src = fs.readFileSync(file, 'utf8');
    out[rel] = src;
    for (const m of src.matchAll(IMPORT_RE)) visit(path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[3])));
  };
  entries.forEach(visit);
  return out;
}

/**
 * The worker as ONE classic script: Chromium refuses module workers (and
 * imports inside workers) from blob: URLs on file:// pages, but runs a
 * classic blob worker. Each module becomes a function scope; `import {a, b as
 * c} from './x.js'` becomes `const { a, b: c } = __m["x.js"]`; `export`
 * keywords are dropped and the exported names returned.
 */
export function bundleClassic(entry, modules) {
  const order = [];
  const seen = new Set();
  const deps = (rel) => [...modules[rel].matchAll(IMPORT_RE)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[3])));
  const visit = (rel) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    deps(rel).forEach(visit);
    order.push(rel);
  };
  visit(entry);
  const parts = ['"use strict";', 'const __m = Object.create(null);'];
  for (const rel of order) {
    let src = modules[rel];
    const exported = [];
    src = src.replace(/^\s*import\s*\{([^}]*)\}\s*from\s*(['"])(\.{1,2}\/[^'"]+)\2\s*;?/gm, (m, names, q, spec) => {
      const dep = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
      const binds = names.split(',').map((n) => n.trim()).filter(Boolean).map((n) => n.replace(/\s+as\s+/, ': '));
      return `const { ${binds.join(', ')} } = __m[${JSON.stringify(dep)}];`;
    });
    src = src.replace(/^\s*import\s*\*\s*as\s+(\w+)\s+from\s*(['"])(\.{1,2}\/[^'"]+)\2\s*;?/gm, (m, name, q, spec) => `const ${name} = __m[${JSON.stringify(path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec)))}];`);
    if (/^\s*import\s+[^(]/m.test(src)) throw new Error(`dist: ${rel} has an import form the classic worker bundle does not handle`);
    src = src.replace(/^export\s+((?:async\s+)?function\*?|class|const|let|var)\s+([\w$]+)/gm, (m, kw, name) => { exported.push(name); return `${kw} ${name}`; });
    src = src.replace(/^export\s*\{([^}]*)\}\s*;?/gm, (m, names) => {
      for (const n of names.split(',').map((x) => x.trim()).filter(Boolean)) {
        const [local, as] = n.split(/\s+as\s+/);
        exported.push(as ? `${as}: ${local}` : local);
      }
      return '';
    });
    if (/^export\s/m.test(src)) throw new Error(`dist: ${rel} has an export form the classic worker bundle does not handle`);
    // import.meta is a syntax error in a classic script; the bytes come packed anyway.
    src = src.replace(/\bimport\.meta\.url\b/g, 'self.location.href').replace(/\bimport\.meta\b/g, '({ url: self.location.href })');
    parts.push(`__m[${JSON.stringify(rel)}] = (() => {\n${src}\nreturn { ${exported.join(', ')} };\n})();`);
  }
  return parts.join('\n');
}

const sha256 = (text) => `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;
// JSON inside <script type="application/json">: "<" escaped so no text can end the block.
const jsonBlock = (obj) => JSON.stringify(obj).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

// Start-up: modules → blob: URLs (dependencies first), then run app.js.
const BOOTSTRAP = `
const modules = JSON.parse(document.getElementById('as-modules').textContent);
const data = JSON.parse(document.getElementById('as-data').textContent);
const urls = new Map();
const dir = (p) => p.includes('/') ? p.slice(0, p.lastIndexOf('/') + 1) : '';
function resolve(from, spec) {
  const parts = (dir(from) + spec).split('/');
  const out = [];
  for (const part of parts) { if (part === '..') out.pop(); else if (part !== '.' && part !== '') out.push(part); }
  return out.join('/');
}
function blobUrl(name) {
  if (urls.has(name)) return urls.get(name);
  if (!(name in modules)) throw new Error('missing module ' + name);
  const src = modules[name].replace(${IMPORT_RE.toString()}, (m, pre, q, spec) => pre + q + blobUrl(resolve(name, spec)) + q);
  const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
  urls.set(name, url);
  return url;
}
// The worker is one classic script (see dist.mjs: bundleClassic).
const workerUrl = URL.createObjectURL(new Blob([modules['worker.classic.js']], { type: 'text/javascript' }));
globalThis.ALIGNSCOPE_INLINE = { ...data, workerUrl, workerType: 'classic' };
import(blobUrl('app.js')).catch((err) => {
  const p = document.createElement('p');
  p.textContent = 'alignscope could not start: ' + err.message;
  document.getElementById('app').append(p);
});
`.trim();

// What dist/ bundles: each entry with everything it imports, in one file
// (its own build: two entries sharing ui.js would otherwise share a chunk,
// one request more for each). splitting: what an entry imports dynamically
// (a UI language, the GIF encoder) becomes a chunk, loaded when needed.
const BUNDLES = [
  { entry: 'app.js', splitting: true },
  { entry: 'embed.js', splitting: true },
  { entry: 'alignscope.js', splitting: true },
  { entry: 'worker.js', splitting: false },
  { entry: 'engine.js', splitting: false },
];
// The scripts dist/ keeps as they are: the service worker (a classic script,
// with the release file it imports) and the classic script for a page around an iframe.
const UNBUNDLED = new Set(['sw.js', 'embed-resize.js', 'gen/release.js']);

/** esbuild, from node_modules (a dev dependency; ./build.sh dist installs it). */
function esbuild() {
  try {
    return createRequire(import.meta.url)('esbuild');
  } catch (err) {
    throw new Error(`dist: esbuild is missing (${err.code ?? err.message}): run ./build.sh deps, or npm ci`);
  }
}

/**
 * web/'s entries bundled and minified into `out` (BUNDLES). Returns the
 * files written, relative to out. node: imports (engine.js reads its wasm
 * from disk in Node) stay imports, never taken in a browser.
 */
export function bundle(out) {
  const { buildSync } = esbuild();
  const written = new Set();
  for (const { entry, splitting } of BUNDLES) {
    const r = buildSync({
      entryPoints: [path.join(WEB, entry)], absWorkingDir: WEB, outdir: out, outbase: WEB,
      bundle: true, splitting, format: 'esm', minify: true, target: 'es2022', charset: 'utf8',
      entryNames: '[dir]/[name]', chunkNames: 'chunks/[name].[hash]', external: ['node:*'],
      legalComments: 'eof', metafile: true, logLevel: 'silent',
    });
    for (const w of r.warnings) console.warn(`dist: ${entry}: ${w.text}`);
    for (const f of Object.keys(r.metafile.outputs)) written.add(path.relative(out, path.resolve(WEB, f)).split(path.sep).join('/'));
  }
  return [...written].sort();
}

/** Rename dist's wasm and models to content-hashed names; the catalogue lists them. */
function hashNames(out) {
  const indexPath = path.join(out, 'models', 'index.json');
  const index = JSON.parse(fs.readFileSync(indexPath, 'utf8'));
  const rename = (rel) => {
    const hashed = hashedName(rel, fs.readFileSync(path.join(out, rel)));
    fs.renameSync(path.join(out, rel), path.join(out, hashed));
    return hashed;
  };
  const renamed = new Map(); // a catalogue model's file -> its hashed name
  for (const m of index.models) {
    const hashed = path.posix.basename(rename(`models/${m.file}`));
    renamed.set(m.file, hashed);
    m.file = hashed;
  }
  // The training films (assemble.mjs): their snapshot files are hashed too, the
  // shipped model at the end takes the catalogue's new name, and the manifest
  // (named as before: the catalogue points at it) is rewritten, with its new SHA-256.
  for (const film of index.films ?? []) {
    const manifestPath = path.join(out, 'models', film.manifest);
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    const dir = path.posix.dirname(`models/${film.manifest}`);
    for (const p of manifest.snapshots) {
      if (p.file.startsWith('../')) p.file = `../${renamed.get(p.file.slice(3)) ?? p.file.slice(3)}`;
      else p.file = path.posix.basename(rename(`${dir}/${p.file}`));
    }
    const text = `${JSON.stringify(manifest, null, 2)}\n`;
    fs.writeFileSync(manifestPath, text);
    film.sha256 = crypto.createHash('sha256').update(text).digest('hex');
  }
  index.wasm = Object.fromEntries(['relaxed', 'simd', 'scalar'].map((v) => [v, rename(`gen/alignscope-${v}.wasm`)]));
  fs.writeFileSync(indexPath, `${JSON.stringify(index, null, 2)}\n`);
}

/** The standalone page's link base: an http(s) URL, or '' (no hosted copy: "Copy link" says so). */
function checkShareBase(value) {
  if (!value) return '';
  let url;
  try { url = new URL(value); } catch { throw new Error(`dist: --share-base ${JSON.stringify(value)} is not a URL`); }
  if (!/^https?:$/.test(url.protocol)) throw new Error(`dist: --share-base must be an http(s) address of a hosted copy, not ${url.protocol}`);
  return url.href.split('#')[0];
}

export function buildDist({ out = path.join(REPO, 'dist'), quiet = false, shareBase = process.env.ALIGNSCOPE_SHARE_BASE ?? '' } = {}) {
  const base = checkShareBase(shareBase);
  const log = quiet ? () => {} : (m) => console.log(m);
  const index = assemble({ quiet });
  // dist/ ships every vendored library (web/vendor/: the module and its licence), or stops.
  writeVendor(WEB, { strict: true });
  for (const f of ['engine.js', 'gen/alignscope-relaxed.wasm', 'gen/alignscope-simd.wasm', 'gen/alignscope-scalar.wasm']) {
    if (!fs.existsSync(path.join(WEB, f))) throw new Error(`dist: web/${f} is missing (run ./build.sh wasm)`);
  }
  fs.rmSync(out, { recursive: true, force: true });
  // Everything but the tools and the modules (bundled below, with what they import).
  const isModule = (from, ent) => ent.name.endsWith('.js') && !UNBUNDLED.has(path.relative(WEB, from).split(path.sep).join('/'));
  copyTree(WEB, out, (from, ent) => (ent.isDirectory() && from === path.join(WEB, 'tools')) || ent.name.startsWith('.') || (ent.isFile() && isModule(from, ent)));
  const bundled = bundle(out);
  // The page's one bundle begins the engine itself (app.js imports boot.js first): no
  // modulepreload list and no separate boot.js there.
  const indexPath = path.join(out, 'index.html');
  const page = fs.readFileSync(indexPath, 'utf8');
  const startBlock = /<!-- Start-up[\s\S]*?<script type="module" async src="boot.js"><\/script>\n/;
  if (!startBlock.test(page)) throw new Error('dist: index.html no longer matches its start-up block');
  fs.writeFileSync(indexPath, page.replace(startBlock, () => [
    '<!-- Start-up: the catalogue is asked for at once; app.js is the page in one bundle',
    '     (web/tools/dist.mjs), which starts the engine worker first (controllers/prestart.js). -->',
    '<link rel="preload" href="models/index.json" as="fetch" crossorigin>', ''].join('\n')));
  hashNames(out);
  const release = writeRelease(out);
  log(`dist: ${path.relative(REPO, out)}/ (static site, release ${release.version}; ${bundled.length} scripts bundled: ${bundled.join(', ')})`);

  // ---- single file ----
  const modules = collectModules(ENTRY_MODULES);
  modules['worker.classic.js'] = bundleClassic('worker.js', modules);
  delete modules['worker.js'];
  const def = index.models.find((m) => m.id === index.default) ?? index.models[0];
  const b64 = (p) => fs.readFileSync(p).toString('base64');
  const data = {
    index: { default: def.id, models: [def] },
    models: { [def.id]: b64(path.join(WEB, 'models', def.file)) },
    wasm: Object.fromEntries(['relaxed', 'simd', 'scalar'].map((v) => [v, b64(path.join(WEB, `gen/alignscope-${v}.wasm`))])),
    shareBase: base,
  };
  const css = `${fs.readFileSync(path.join(WEB, 'alignscope.css'), 'utf8')}\n${fs.readFileSync(path.join(WEB, 'page.css'), 'utf8')}`;
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(BOOTSTRAP)} 'wasm-unsafe-eval' blob:`,
    `style-src ${sha256(css)}`,
    'img-src data: blob:',
    'worker-src blob:',
    'connect-src data: blob:',
  ].join('; ');
  let html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  const replaceOnce = (re, text) => {
    if (!re.test(html)) throw new Error(`dist: index.html no longer matches ${re}`);
    html = html.replace(re, () => text);
  };
  replaceOnce(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, `<meta http-equiv="Content-Security-Policy" content="${csp}">`);
  replaceOnce(/<link rel="stylesheet" href="alignscope.css">\s*<link rel="stylesheet" href="page.css">/, `<style>${css}</style>`);
  replaceOnce(/<script type="module" src="app.js"><\/script>/, '');
  // The catalogue, the wasm, the model and every module travel inside the file (as-data, as-modules):
  // nothing to fetch or begin early (from its comment to boot.js's script tag).
  replaceOnce(/<!-- Start-up[\s\S]*?<script type="module" async src="boot.js"><\/script>\s*/, '');
  // No manifest, icon file or service worker from file://: the file holds everything.
  replaceOnce(/<link rel="manifest"[^>]*>\s*/, '');
  replaceOnce(/<link rel="icon"[^>]*>/, '<link rel="icon" href="data:,">');
  replaceOnce(/<\/body>/, `<script type="application/json" id="as-modules">${jsonBlock(modules)}</script>\n<script type="application/json" id="as-data">${jsonBlock(data)}</script>\n<script type="module">${BOOTSTRAP}</script>\n</body>`);
  const file = path.join(out, 'alignscope-standalone.html');
  fs.writeFileSync(file, html);
  log(`dist: ${path.relative(REPO, file)} (${(fs.statSync(file).size / 1024).toFixed(0)} KiB, opens from disk)`);
  return { out, standalone: file };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--out');
  const b = args.indexOf('--share-base');
  try {
    buildDist({ out: i >= 0 ? path.resolve(args[i + 1]) : undefined, ...(b >= 0 ? { shareBase: args[b + 1] } : {}) });
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
