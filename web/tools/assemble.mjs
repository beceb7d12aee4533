#!/usr/bin/env node
// assemble.mjs - put the models where the page finds them: models/index.json
// and models/*.alsc → web/models/. Until the real catalogue exists, falls
// back to the toy test models in build/test-models (with a warning).
//
//   node web/tools/assemble.mjs

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const OUT = path.join(REPO, 'web', 'models');

const TOY_KINDS = [
  ['en-fr', 'additive', 'English → French (toy, Bahdanau additive)'],
  ['toy-dot', 'dot', 'English → French (toy, Luong dot)'],
  ['toy-general', 'general', 'English → French (toy, Luong general)'],
  ['toy-scaled-dot', 'scaled_dot', 'English → French (toy, scaled dot product)'],
  ['toy-none', 'none', 'English → French (toy, no attention)'],
];

export function assemble({ quiet = false } = {}) {
  fs.mkdirSync(OUT, { recursive: true });
  const log = quiet ? () => {} : (m) => console.log(m);
  const indexPath = path.join(REPO, 'models', 'index.json');
  if (fs.existsSync(indexPath)) {
    const index = JSON.parse(fs.readFileSync(indexPath, 'utf8'));
    if (!Array.isArray(index.models) || !index.models.length) throw new Error('models/index.json has no models');
    for (const m of index.models) {
      if (!/^[A-Za-z0-9_.-]+\.alsc$/.test(m.file)) throw new Error(`models/index.json: bad file name ${JSON.stringify(m.file)}`);
      const src = path.join(REPO, 'models', m.file);
      if (!fs.existsSync(src)) throw new Error(`models/index.json lists ${m.file}, which is missing`);
      fs.copyFileSync(src, path.join(OUT, m.file));
      m.bytes = fs.statSync(src).size;
    }
    fs.writeFileSync(path.join(OUT, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
    log(`assemble: ${index.models.length} model(s) from models/ → web/models/`);
    return index;
  }
  const toyDir = path.join(REPO, 'build', 'test-models');
  if (!fs.existsSync(path.join(toyDir, 'additive.alsc'))) {
    throw new Error('no models/index.json and no build/test-models/additive.alsc; run: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 models/train/smoke.py build/test-models');
  }
  const models = [];
  for (const [id, kind, label] of TOY_KINDS) {
    const src = path.join(toyDir, `${kind}.alsc`);
    if (!fs.existsSync(src)) continue;
    const file = `${id}.alsc`;
    fs.copyFileSync(src, path.join(OUT, file));
    models.push({ id, file, label, source: 'en', target: 'fr', attention: kind, bytes: fs.statSync(src).size, bleu: null });
  }
  const index = { default: 'en-fr', models };
  fs.writeFileSync(path.join(OUT, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  log(`assemble: WARNING models/index.json not found; using ${models.length} toy model(s) from build/test-models → web/models/`);
  return index;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try { assemble(); } catch (err) { console.error(`assemble: ${err.message}`); process.exit(1); }
}
