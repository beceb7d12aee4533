#!/usr/bin/env node
// vendor.mjs - the npm libraries the page itself runs, copied from
// node_modules/ (installed from package.json's dependencies by `npm ci`,
// ./build.sh deps) into web/vendor/ (git-ignored), each as one ES module
// with its licence: the page is ES modules under a CSP of script-src 'self',
// so a library must be a file of the site. assemble.mjs calls this, so
// `./build.sh serve`, `./build.sh dist` (dist/vendor/, and the standalone
// page, which packs every module) and the test server all have them.
//
//   gifenc  the animated GIF export (views/animation.js), MIT
//
//   node web/tools/vendor.mjs

import fs from 'node:fs';
import { writeIfChanged } from './write-if-changed.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');

/** name → { module: its ES module in the package, licence: its licence file, out: the file in web/vendor/ }. */
export const VENDORED = Object.freeze({
  gifenc: { module: 'dist/gifenc.esm.js', licence: 'LICENSE.md', out: 'gifenc.js' },
});

/**
 * Copy every vendored library into WEB/vendor/: the module with a header
 * naming the package, its version and its licence (so the licence travels
 * with the code into the single-file page too), and the licence file beside
 * it. A library missing from node_modules is reported, not fatal
 * (strict: throw), so a page without `npm ci` still serves; the feature that
 * needs it says so when used.
 * Returns [{ name, version, file }] of what was written.
 */
export function writeVendor(web = path.join(REPO, 'web'), { modules = path.join(REPO, 'node_modules'), strict = false, log = () => {} } = {}) {
  const out = path.join(web, 'vendor');
  fs.mkdirSync(out, { recursive: true });
  const done = [];
  for (const [name, v] of Object.entries(VENDORED)) {
    const dir = path.join(modules, name);
    const src = path.join(dir, v.module);
    if (!fs.existsSync(src)) {
      const msg = `vendor: node_modules/${name} is missing (run npm ci, or ./build.sh deps): the page's ${name} feature will not work`;
      if (strict) throw new Error(msg);
      log(msg);
      fs.rmSync(path.join(out, v.out), { force: true });
      continue;
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const licence = fs.readFileSync(path.join(dir, v.licence), 'utf8').trim();
    // The source map is not shipped: its comment would make devtools ask for it.
    const code = fs.readFileSync(src, 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n');
    const header = `/*! ${name} ${pkg.version} (${pkg.license}), from npm, copied by web/tools/vendor.mjs.\n${licence.replace(/\*\//g, '* /')}\n*/\n`;
    writeIfChanged(path.join(out, v.out), header + code); // only when the bytes change: the release's hashes and the ETags stay put
    writeIfChanged(path.join(out, `${name}.LICENSE.md`), `${licence}\n`);
    done.push({ name, version: pkg.version, file: `vendor/${v.out}` });
  }
  return done;
}


if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    for (const v of writeVendor(undefined, { strict: true })) console.log(`vendor: ${v.name} ${v.version} → web/${v.file}`);
  } catch (err) { console.error(err.message); process.exit(1); }
}
