#!/usr/bin/env node
// assemble.mjs - put the models where the page finds them: models/index.json
// and the .alsc files it lists → web/models/ (only what changed is
// written, and what it no longer lists is removed); the training
// films (models/snapshots/ID.json and the files they list) → web/models/snapshots/,
// listed in the catalogue as `films`; the app icons; the npm libraries the
// page runs → web/vendor/ (web/tools/vendor.mjs); and the release
// (web/tools/release.mjs: hashes, version, web/gen/release.js).
//
//   node web/tools/assemble.mjs

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { writeRelease } from './release.mjs';
import { writeIcons } from './icons.mjs';
import { validateFilm } from '../lib/film.js';
import { writeVendor } from './vendor.mjs';
import { copyIfChanged, writeIfChanged } from './write-if-changed.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const OUT = path.join(REPO, 'web', 'models');

export function assemble({ quiet = false } = {}) {
  const log = quiet ? () => {} : (m) => console.log(m);
  const indexPath = path.join(REPO, 'models', 'index.json');
  if (!fs.existsSync(indexPath)) {
    throw new Error('models/index.json is missing; rebuild it with: /usr/bin/python3 models/train/catalogue.py');
  }
  const index = JSON.parse(fs.readFileSync(indexPath, 'utf8'));
  if (!Array.isArray(index.models) || !index.models.length) throw new Error('models/index.json has no models');
  // Files are written only when they change, atomically, and what the
  // catalogue no longer lists is removed at the end (a model dropped from it
  // must not linger in dist/): emptying the folder first would pull it from
  // under the pages that tests running in parallel are serving from it.
  fs.mkdirSync(OUT, { recursive: true });
  const written = new Set(['index.json']);
  const copy = (src, rel) => { copyIfChanged(src, path.join(OUT, rel)); written.add(rel); };
  for (const m of index.models) {
    if (!/^[A-Za-z0-9_.-]+\.alsc$/.test(m.file)) throw new Error(`models/index.json: bad file name ${JSON.stringify(m.file)}`);
    const src = path.join(REPO, 'models', m.file);
    if (!fs.existsSync(src)) throw new Error(`models/index.json lists ${m.file}, which is missing`);
    copy(src, m.file);
    m.bytes = fs.statSync(src).size;
    // The model card (Markdown, shown as text) goes along when it exists.
    if (m.card && /^[A-Za-z0-9_.-]+\.md$/.test(m.card) && fs.existsSync(path.join(REPO, 'models', m.card))) {
      copy(path.join(REPO, 'models', m.card), m.card);
    } else {
      delete m.card;
    }
  }
  // Example sentences (models/examples/, committed: picked from our own teacher's set).
  assembleExamples(path.join(REPO, 'models'), index);
  // The model report's figure and text (models/REPORT.md), when the zoo made them.
  if (index.report) {
    const files = [index.report.figure, index.report.text];
    if (files.every((f) => /^[A-Za-z0-9_./-]+\.(svg|md)$/.test(f ?? '') && !f.includes('..') && fs.existsSync(path.join(REPO, 'models', f)))) {
      for (const f of files) {
        copy(path.join(REPO, 'models', f), f);
      }
    } else {
      delete index.report;
    }
  }
  const films = assembleFilms(path.join(REPO, 'models'), OUT, index, written);
  if (films.length) index.films = films; else delete index.films;
  for (const rel of listFiles(OUT)) if (!written.has(rel)) fs.rmSync(path.join(OUT, rel), { force: true });
  // The app icons, then the release: every model's SHA-256 and the version
  // (from content hashes) in the catalogue, and web/gen/release.js for sw.js.
  writeIcons(path.join(REPO, 'web'));
  writeVendor(path.join(REPO, 'web'), { log: (m) => console.warn(m) });
  // The catalogue is written once, by writeRelease, with its hashes and release.
  const release = writeRelease(path.join(REPO, 'web'), { index });
  log(`assemble: ${index.models.length} model(s)${films.length ? `, ${films.length} training film(s)` : ''} from models/ → web/models/ (release ${release.version})`);
  return JSON.parse(fs.readFileSync(path.join(OUT, 'index.json'), 'utf8'));
}

/**
 * The page's example sentences, into each catalogue entry's `examples`
 * ({text, shows, set}, at most 12): first the lesson's sentences
 * (modelsDir/examples/lesson.json) that this model translates with the
 * swapped word order right, and the lesson's own example (`always`) for
 * every model; then modelsDir/examples/ID.json, picked from the teacher's set
 * by models/train/examples.py by what the model's alignments show. Both are
 * the project's own sentences (models/testsets/), so they are committed and a
 * clean clone shows them. An entry without any keeps no `examples`.
 */
export function assembleExamples(modelsDir, index) {
  const dir = path.join(modelsDir, 'examples');
  const read = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {});
  const lesson = read(path.join(dir, 'lesson.json')).sentences ?? [];
  for (const m of index.models) {
    const ours = lesson.filter((s) => s.always || s.right?.[m.id])
      .map((s) => ({ text: s.text, shows: ['reordering'], set: 'lesson' }));
    const picked = read(path.join(dir, `${m.id}.json`)).examples ?? [];
    const seen = new Set();
    const list = [...ours, ...picked]
      .filter((e) => typeof e.text === 'string' && e.text.length <= 300 && !seen.has(e.text) && seen.add(e.text))
      .slice(0, 12)
      .map((e) => ({ text: e.text, shows: (e.shows ?? []).filter((k) => typeof k === 'string'), set: String(e.set ?? '') }));
    if (list.length) m.examples = list; else delete m.examples;
  }
  return index;
}

/**
 * The training films (models/train/snapshots.py): every modelsDir/snapshots/NAME.json,
 * checked by lib/film.js's rules (the page's own), its model in the catalogue,
 * and every file it lists present with the bytes and SHA-256 the manifest
 * gives. The snapshot files and the manifest are copied to outDir/snapshots/;
 * a point that is a catalogue model ("../ID.alsc", the shipped one) is
 * already in outDir. They are not part of the page's download: the release
 * leaves models/snapshots/ out of the offline shell (release.mjs), and the
 * page fetches them only when the reader opens the film (cards/training.js).
 * Returns the catalogue's `films` (what the page states before fetching anything):
 *   [{ model, manifest: 'snapshots/NAME.json', sha256 (of the manifest), updates,
 *      points, bytes (all points' files), shipped (the bytes of the catalogue models among them) }]
 */
/** Every file below dir, as paths relative to it (temporary files of a write in progress left out). */
function listFiles(dir, rel = '') {
  const out = [];
  for (const ent of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${ent.name}` : ent.name;
    if (ent.isDirectory()) out.push(...listFiles(dir, r));
    else if (!ent.name.endsWith('.tmp')) out.push(r);
  }
  return out;
}

/** written: a Set of the paths (relative to outDir) this writes, for assemble()'s clean-up. */
export function assembleFilms(modelsDir, outDir, index, written = new Set()) {
  const dir = path.join(modelsDir, 'snapshots');
  if (!fs.existsSync(dir)) return [];
  const films = [];
  const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const where = `models/snapshots/${name}`;
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*\.json$/.test(name)) throw new Error(`${where}: bad file name`);
    const text = fs.readFileSync(path.join(dir, name));
    let json;
    try { json = JSON.parse(text.toString('utf8')); } catch (err) { throw new Error(`${where}: not JSON (${err.message})`); }
    const film = validateFilm(json, { manifest: `snapshots/${name}` });
    if (!index.models.some((m) => m.id === film.model)) throw new Error(`${where} is the film of ${film.model}, which models/index.json does not list`);
    let shipped = 0;
    const copies = [];
    for (const p of film.points) {
      const catalogued = index.models.some((m) => m.file === p.path);
      if (p.file.startsWith('../') && !catalogued) throw new Error(`${where} lists ${p.file}, which is not a model file of models/index.json`);
      const src = path.join(modelsDir, p.path);
      if (!fs.existsSync(src)) throw new Error(`${where} lists ${p.file}, which is missing (models/${p.path})`);
      const buf = fs.readFileSync(src);
      if (buf.length !== p.bytes || sha256(buf) !== p.sha256) throw new Error(`${where}: models/${p.path} does not match its bytes and SHA-256 in the manifest (rebuild it with models/train/snapshots.py)`);
      if (catalogued) shipped += p.bytes; else copies.push(p.path);
    }
    for (const rel of copies) { copyIfChanged(path.join(modelsDir, rel), path.join(outDir, rel)); written.add(rel); }
    writeIfChanged(path.join(outDir, 'snapshots', name), text);
    written.add(`snapshots/${name}`);
    films.push({
      model: film.model, manifest: `snapshots/${name}`, sha256: sha256(text), updates: film.updates,
      points: film.points.length, bytes: film.points.reduce((n, p) => n + p.bytes, 0), shipped,
    });
  }
  return films;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try { assemble(); } catch (err) { console.error(`assemble: ${err.message}`); process.exit(1); }
}
