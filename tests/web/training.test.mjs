// The training film's rules, in Node (web/lib/film.js, web/tools/assemble.mjs's
// assembleFilms): what a manifest must hold and the message when it does not,
// where its files may be, which film the page offers, what opening it
// downloads, and how sizes, shares of the budget and BLEU read, in English and
// in French; then assembleFilms on a folder of films, good and broken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { validateFilm, filmFilePath, filmFor, filmDownload, formatFraction, loadLabel, progressText, pointText, bleuText, FILM_MAX_POINTS } from '../../web/lib/film.js';
import { assembleFilms } from '../../web/tools/assemble.mjs';
import { setUiLanguage } from '../../web/i18n/all.js';

const HEX = (c) => c.repeat(64);
const MANIFEST = 'snapshots/en-fr-int8.json';
function manifest(over = {}) {
  return {
    model: 'en-fr-int8', updates: 6000, devSentences: 600, devBleu: 'corpus BLEU of lower-cased words', trajectoryCheck: {},
    snapshots: [
      { update: 60, fraction: 0.01, file: 'en-fr-int8-u60.alsc', bytes: 5107464, sha256: HEX('a'), devBleu: 0.37 },
      { update: 300, fraction: 0.05, file: 'en-fr-int8-u300.alsc', bytes: 5107464, sha256: HEX('b'), devBleu: 3.2 },
      { update: 6000, fraction: 1, file: '../en-fr-int8.alsc', bytes: 5107464, sha256: HEX('c'), devBleu: 16.18, shipped: true },
    ],
    ...over,
  };
}
const withPoint = (i, change) => { const m = manifest(); m.snapshots[i] = { ...m.snapshots[i], ...change }; return m; };
const refused = (json, pattern, opts = {}) => assert.throws(() => validateFilm(json, { manifest: MANIFEST, ...opts }), (err) => {
  assert.match(err.message, /^The training film’s list models\/snapshots\/en-fr-int8\.json cannot be used: /, 'the message names the manifest');
  assert.match(err.message, pattern);
  return true;
});

test('validateFilm: a good manifest, its points with their paths under models/ and their share of the budget', () => {
  setUiLanguage('en');
  const f = validateFilm(manifest(), { manifest: MANIFEST, model: 'en-fr-int8' });
  assert.equal(f.model, 'en-fr-int8');
  assert.equal(f.updates, 6000);
  assert.equal(f.devSentences, 600);
  assert.deepEqual(f.points.map((p) => p.path), ['snapshots/en-fr-int8-u60.alsc', 'snapshots/en-fr-int8-u300.alsc', 'en-fr-int8.alsc']);
  assert.deepEqual(f.points.map((p) => p.fraction), [0.01, 0.05, 1]);
  assert.deepEqual(f.points.map((p) => p.shipped), [false, false, true]);
  // Two points (the first film the training run makes) are enough; a point without BLEU is allowed.
  const two = manifest();
  two.snapshots.splice(1, 1);
  delete two.snapshots[0].devBleu;
  const g = validateFilm(two, { manifest: MANIFEST });
  assert.equal(g.points.length, 2);
  assert.equal(g.points[0].devBleu, null);
});

test('validateFilm: each broken field is refused with a message that says which', () => {
  setUiLanguage('en');
  refused(null, /not a film manifest/);
  refused([], /not a film manifest/);
  refused({ model: 'en-fr-int8', updates: 6000 }, /not a film manifest/);
  refused(manifest({ model: 'http://evil.example/x' }), /“model” is missing or not valid/);
  refused(manifest(), /it is the film of “en-fr-int8”, but the model list says “en-de”/, { model: 'en-de' });
  for (const updates of [0, -5, 1.5, '6000', null]) refused(manifest({ updates }), /“updates” is missing or not valid/);
  refused(manifest({ snapshots: manifest().snapshots.slice(2) }), /it lists 1 point; a film has 2 to 12/);
  refused(manifest({ snapshots: Array.from({ length: FILM_MAX_POINTS + 1 }, (_, i) => ({ update: i + 1, file: `u${i}.alsc`, bytes: 1, sha256: HEX('a') })) }), /lists 13 points/);
  refused(withPoint(1, { update: 0 }), /point 2 has no valid “update”/);
  refused(withPoint(1, { update: 7000 }), /point 2 has no valid “update”/);
  refused(withPoint(1, { update: 60 }), /not in order of training updates/);
  refused(withPoint(1, { update: 30 }), /not in order of training updates/);
  refused(withPoint(2, { update: 5000 }), /last point is not the end of training \(update 6,000\)/);
  for (const file of ['../../etc/passwd', '/abs.alsc', 'sub/dir.alsc', 'https://x.example/a.alsc', 'model.bin', '../../a.alsc', '.hidden.alsc', '', 42]) {
    refused(withPoint(0, { file }), /point 1 has no valid “file”/);
  }
  for (const bytes of [0, -1, 2.5, 1e12, '5107464']) refused(withPoint(0, { bytes }), /point 1 has no valid “bytes”/);
  for (const sha256 of ['abc', HEX('A'), HEX('g'), null]) refused(withPoint(0, { sha256 }), /point 1 has no valid “sha256”/);
  for (const devBleu of [-1, 101, NaN, '3.2']) refused(withPoint(1, { devBleu }), /point 2 has no valid “devBleu”/);
});

test('validateFilm speaks the UI language', () => {
  setUiLanguage('fr');
  assert.throws(() => validateFilm(manifest({ updates: 0 }), { manifest: MANIFEST }), /La liste du film de l’entraînement models\/snapshots\/en-fr-int8\.json est inutilisable : son champ « updates » manque/);
  setUiLanguage('en');
});

test('filmFilePath: next to the manifest, or one folder up (a catalogue model); nothing else', () => {
  assert.equal(filmFilePath(MANIFEST, 'a.alsc'), 'snapshots/a.alsc');
  assert.equal(filmFilePath(MANIFEST, '../en-fr-int8.alsc'), 'en-fr-int8.alsc');
  assert.equal(filmFilePath(MANIFEST, '../../en-fr-int8.alsc'), null);
  assert.equal(filmFilePath('film.json', '../en-fr-int8.alsc'), null, 'a manifest at the top of models/ cannot point out of it');
  assert.equal(filmFilePath('film.json', 'a.alsc'), 'a.alsc');
  assert.equal(filmFilePath(MANIFEST, 'a/../b.alsc'), null);
  assert.equal(filmFilePath(MANIFEST, '..\\b.alsc'), null);
});

const CATALOG = {
  default: 'en-fr-int8',
  models: [{ id: 'en-fr-int8', file: 'en-fr-int8.alsc', label: 'int8' }, { id: 'en-de', file: 'en-de.alsc' }, { id: 'en-es', file: 'en-es.alsc' }],
  films: [{ model: 'en-fr-int8', manifest: MANIFEST, sha256: HEX('d'), updates: 6000, points: 5, bytes: 25_537_320, shipped: 5_107_464 }],
};

test('filmFor: the film of the model in use, else the default model’s; none when the catalogue has none or a bad entry', () => {
  assert.equal(filmFor(CATALOG, 'en-fr-int8').film.model, 'en-fr-int8');
  assert.equal(filmFor(CATALOG, 'en-de').film.model, 'en-fr-int8', 'another model in use: still the default model’s film');
  assert.equal(filmFor(CATALOG, 'en-de').entry.id, 'en-fr-int8');
  const two = { ...CATALOG, films: [...CATALOG.films, { ...CATALOG.films[0], model: 'en-de', manifest: 'snapshots/en-de.json' }] };
  assert.equal(filmFor(two, 'en-de').film.model, 'en-de');
  assert.equal(filmFor(two, 'en-es').film.model, 'en-fr-int8');
  assert.equal(filmFor({ ...CATALOG, films: undefined }, 'en-fr-int8'), null);
  assert.equal(filmFor(null, 'x'), null);
  for (const bad of [{ manifest: '../x.json' }, { manifest: 'https://x/y.json' }, { model: 'not-listed' }, { points: 1 }, { manifest: 'a/b/c.json' }]) {
    assert.equal(filmFor({ ...CATALOG, films: [{ ...CATALOG.films[0], ...bad }] }, 'en-fr-int8'), null, JSON.stringify(bad));
  }
});

test('filmDownload and the button: the model in use is not downloaded again', () => {
  setUiLanguage('en');
  const film = CATALOG.films[0];
  assert.deepEqual(filmDownload(film, 'en-fr-int8'), { files: 4, bytes: 20_429_856, shared: true });
  assert.deepEqual(filmDownload(film, 'en-de'), { files: 5, bytes: 25_537_320, shared: false });
  assert.deepEqual(filmDownload({ ...film, shipped: 0 }, 'en-fr-int8'), { files: 5, bytes: 25_537_320, shared: false });
  assert.equal(loadLabel(filmDownload(film, 'en-fr-int8')), 'Load the training film (4 files, 20.4 MB)');
  assert.equal(loadLabel(filmDownload(film, 'en-de')), 'Load the training film (5 files, 25.5 MB)');
  assert.equal(loadLabel({ files: 1, bytes: 5_107_464 }), 'Load the training film (1 file, 5.1 MB)');
  assert.equal(loadLabel({ files: 2, bytes: 640_000 }), 'Load the training film (2 files, 640 kB)');
  setUiLanguage('fr');
  assert.equal(loadLabel(filmDownload(film, 'en-fr-int8')), 'Charger le film de l’entraînement (4 fichiers, 20,4 Mo)');
  setUiLanguage('en');
});

test('percentages of the budget, progress, update counts and BLEU, per language', () => {
  setUiLanguage('en');
  assert.deepEqual([0.01, 0.05, 0.2, 0.5, 1].map(formatFraction), ['1%', '5%', '20%', '50%', '100%']);
  assert.equal(formatFraction(0.005), '0.5%');
  assert.equal(formatFraction(0.0004), '0.04%');
  assert.equal(formatFraction(0.025), '2.5%');
  assert.equal(formatFraction(0.333), '33%');
  assert.equal(formatFraction(NaN), '?');
  assert.equal(progressText(3_200_000, 20_429_856), 'Downloading the training film: 3.2 MB of 20.4 MB (16%)…');
  assert.equal(progressText(0, 0), 'Downloading the training film: 0 kB of 0 kB (0%)…');
  assert.equal(progressText(30, 20), 'Downloading the training film: 0 kB of 0 kB (100%)…', 'never past 100 %');
  const f = validateFilm(manifest(), { manifest: MANIFEST });
  assert.equal(pointText(f.points[0], f.updates), 'Update 60 of 6,000 (1% of training)');
  assert.equal(pointText(f.points[2], f.updates), 'Update 6,000 of 6,000 (100% of training)');
  assert.equal(bleuText(f.points[0]), 'dev BLEU 0.4');
  assert.equal(bleuText(f.points[2]), 'dev BLEU 16.2');
  assert.equal(bleuText({ devBleu: null }), 'no dev BLEU given');
  setUiLanguage('fr');
  assert.equal(formatFraction(0.005), '0,5\u00a0%');
  assert.equal(pointText(f.points[0], f.updates), `Mise à jour 60 sur 6\u202f000 (1\u00a0% de l’entraînement)`);
  assert.equal(bleuText(f.points[2]), 'BLEU de développement 16,2');
  setUiLanguage('de');
  assert.equal(formatFraction(0.2), '20\u00a0%');
  setUiLanguage('en');
});

// ---- assembleFilms: a models/ folder with a film, good and broken ----

const sha = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
function modelsFolder() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-film-'));
  const models = path.join(root, 'models');
  const out = path.join(root, 'out');
  fs.mkdirSync(path.join(models, 'snapshots'), { recursive: true });
  fs.mkdirSync(out);
  const shippedBytes = Buffer.from('the shipped model');
  const earlyBytes = Buffer.from('the model after 60 updates');
  fs.writeFileSync(path.join(models, 'm.alsc'), shippedBytes);
  fs.writeFileSync(path.join(models, 'snapshots', 'm-u60.alsc'), earlyBytes);
  fs.writeFileSync(path.join(models, 'snapshots', 'not-listed.alsc'), 'x');
  const film = {
    model: 'm', updates: 100, devSentences: 5, devBleu: 'how',
    snapshots: [
      { update: 60, fraction: 0.6, file: 'm-u60.alsc', bytes: earlyBytes.length, sha256: sha(earlyBytes), devBleu: 1 },
      { update: 100, fraction: 1, file: '../m.alsc', bytes: shippedBytes.length, sha256: sha(shippedBytes), devBleu: 2, shipped: true },
    ],
  };
  const write = (f) => fs.writeFileSync(path.join(models, 'snapshots', 'm.json'), JSON.stringify(f));
  write(film);
  const index = { default: 'm', models: [{ id: 'm', file: 'm.alsc' }] };
  return { root, models, out, film, write, index, shippedBytes, earlyBytes };
}

test('assembleFilms copies a film’s manifest and snapshot files (not the catalogue model, not unlisted files) and summarises it', () => {
  const d = modelsFolder();
  try {
    const films = assembleFilms(d.models, d.out, d.index);
    const text = fs.readFileSync(path.join(d.models, 'snapshots', 'm.json'));
    assert.deepEqual(films, [{ model: 'm', manifest: 'snapshots/m.json', sha256: sha(text), updates: 100, points: 2, bytes: d.earlyBytes.length + d.shippedBytes.length, shipped: d.shippedBytes.length }]);
    assert.deepEqual(fs.readdirSync(path.join(d.out, 'snapshots')).sort(), ['m-u60.alsc', 'm.json']);
    assert.deepEqual(fs.readFileSync(path.join(d.out, 'snapshots', 'm.json')), text, 'the manifest as it is (its SHA-256 is the catalogue’s)');
    // No folder, no film.
    fs.rmSync(path.join(d.models, 'snapshots'), { recursive: true });
    assert.deepEqual(assembleFilms(d.models, d.out, d.index), []);
  } finally {
    fs.rmSync(d.root, { recursive: true, force: true });
  }
});

test('assembleFilms refuses a film whose files are missing, changed, not catalogue models or of an unlisted model', () => {
  const cases = [
    [(d) => fs.rmSync(path.join(d.models, 'snapshots', 'm-u60.alsc')), /lists m-u60\.alsc, which is missing/],
    [(d) => fs.writeFileSync(path.join(d.models, 'snapshots', 'm-u60.alsc'), 'changed bytes'), /models\/snapshots\/m-u60\.alsc does not match its bytes and SHA-256/],
    [(d) => fs.writeFileSync(path.join(d.models, 'm.alsc'), 'the shipped model, retrained'), /models\/m\.alsc does not match/],
    [(d) => { d.film.snapshots[1].file = '../other.alsc'; fs.writeFileSync(path.join(d.models, 'other.alsc'), d.shippedBytes); d.write(d.film); }, /lists \.\.\/other\.alsc, which is not a model file of models\/index\.json/],
    [(d) => { d.film.model = 'q'; d.write(d.film); }, /is the film of q, which models\/index\.json does not list/],
    [(d) => { d.film.snapshots[0].file = '../../x.alsc'; d.write(d.film); }, /point 1 has no valid “file”/],
    [(d) => fs.writeFileSync(path.join(d.models, 'snapshots', 'm.json'), '{ not json'), /models\/snapshots\/m\.json: not JSON/],
  ];
  for (const [breakIt, pattern] of cases) {
    const d = modelsFolder();
    try {
      breakIt(d);
      assert.throws(() => assembleFilms(d.models, d.out, d.index), pattern);
    } finally {
      fs.rmSync(d.root, { recursive: true, force: true });
    }
  }
});

test('release.mjs: the films are not in the offline shell (the service worker never precaches them)', async () => {
  const { writeRelease } = await import('../../web/tools/release.mjs');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-film-release-'));
  try {
    fs.mkdirSync(path.join(root, 'models', 'snapshots'), { recursive: true });
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html>');
    fs.writeFileSync(path.join(root, 'models', 'm.alsc'), 'model');
    fs.writeFileSync(path.join(root, 'models', 'snapshots', 'm.json'), '{}');
    fs.writeFileSync(path.join(root, 'models', 'snapshots', 'm-u60.alsc'), 'early');
    fs.writeFileSync(path.join(root, 'models', 'index.json'), JSON.stringify({ default: 'm', models: [{ id: 'm', file: 'm.alsc' }], films: [{ model: 'm', manifest: 'snapshots/m.json' }] }));
    const r = writeRelease(root);
    assert.deepEqual(r.shell.map((f) => f.url).sort(), ['index.html', 'models/index.json']);
    assert.deepEqual(r.models.map((m) => m.url), ['models/m.alsc'], 'only catalogue models are the release’s models');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('argmaxColumns: one column when every row looks at the same word, S when the rows walk across the source', async () => {
  const { argmaxColumns } = await import('../../web/lib/film.js');
  const m = (rows) => ({ T: rows.length, S: rows[0].length, alpha: Float32Array.from(rows.flat()) });
  assert.deepEqual(argmaxColumns(m([[0.1, 0.7, 0.2], [0.1, 0.8, 0.1], [0.2, 0.6, 0.2]])), { columns: 1, S: 3 });
  assert.deepEqual(argmaxColumns(m([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.1, 0.2, 0.7]])), { columns: 3, S: 3 });
  assert.deepEqual(argmaxColumns({ T: 2, S: 3, alpha: null }), { columns: 0, S: 3 });
  setUiLanguage('en');
  const { t } = await import('../../web/i18n/all.js');
  assert.equal(t('training.columns', { n: 1, S: '4' }), 'The rows’ largest weights all fall on one of the 4 source words.');
  assert.equal(t('training.columns', { n: 3, S: '4' }), 'The rows’ largest weights fall on 3 of the 4 source words.');
});
