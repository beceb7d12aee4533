// film.js - the training film's rules and words (pure; tested in
// tests/web/training.test.mjs): what a film manifest must hold, where its
// files are, which film the page offers, and how its sizes, shares of the
// training budget and BLEU read.
//
// A film (models/train/snapshots.py) is a catalogue model's weights at a few
// points of its own training (the shipped one: the zoo's additive model,
// en-fr-additive), each an .alsc file, and a manifest
//   models/snapshots/ID.json = { model, updates, devSentences, devBleu (how it was measured),
//     trajectoryCheck, snapshots: [{ update, fraction, file, bytes, sha256, devBleu, shipped? }] }
// where `file` is relative to models/snapshots/ and the last point, the end of
// training, is that model's catalogue file itself ("../ID.alsc").
// web/tools/assemble.mjs checks each film, copies it to web/models/snapshots/
// and lists it in the catalogue as
//   index.films = [{ model, manifest ('snapshots/ID.json'), sha256 (of the manifest), points, bytes, shipped }]
// (`bytes`: every point's file; `shipped`: the bytes of the points that are
// catalogue models, which the page may already have), so the page can say
// what opening the film costs without fetching anything.

import { MODEL_ID, CONFIG } from '../config.js';
import { formatBytes } from '../client.js';
import { t, num, fixed, uiLanguage } from '../i18n/index.js';

/** A film has at least two points (a start and the end) and at most this many. */
export const FILM_MAX_POINTS = 12;

const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\.alsc$/;
const SHA256 = /^[0-9a-f]{64}$/;
const isCount = (x) => Number.isInteger(x) && x > 0;

/**
 * Where a manifest's `file` is, relative to models/: 'x.alsc' next to the
 * manifest, or '../x.alsc' (a catalogue model, the shipped one) one folder up.
 * Anything else (a path, a URL, a second '..') -> null.
 *   filmFilePath('snapshots/en-fr-additive.json', '../en-fr-additive.alsc') -> 'en-fr-additive.alsc'
 */
export function filmFilePath(manifestPath, file) {
  if (typeof manifestPath !== 'string' || typeof file !== 'string') return null;
  const dir = manifestPath.includes('/') ? manifestPath.slice(0, manifestPath.lastIndexOf('/')) : '';
  if (FILE_NAME.test(file)) return dir ? `${dir}/${file}` : file;
  const up = /^\.\.\/([^/]+)$/.exec(file);
  if (up && FILE_NAME.test(up[1]) && dir && !dir.includes('/')) return up[1];
  return null;
}

/**
 * Check a parsed manifest. Returns
 *   { model, updates, devSentences, devBleuHow, points: [{ update, fraction, file, path, bytes, sha256, devBleu, shipped }] }
 * (`path`: the file relative to models/; `fraction`: update ÷ updates;
 * `devBleu`: a number, or null when the manifest has none) or throws an
 * Error that names the manifest and says what is wrong with it.
 * expect: { model, manifest } (the catalogue's film entry) when known.
 */
export function validateFilm(json, { manifest, model = null } = {}) {
  const fail = (why) => { throw new Error(t('training.badManifest', { file: `models/${manifest}`, why })); };
  if (!json || typeof json !== 'object' || Array.isArray(json) || !Array.isArray(json.snapshots)) fail(t('training.why.shape'));
  if (typeof json.model !== 'string' || !MODEL_ID.test(json.model)) fail(t('training.why.field', { field: 'model' }));
  if (model && json.model !== model) fail(t('training.why.model', { got: json.model, want: model }));
  if (!isCount(json.updates)) fail(t('training.why.field', { field: 'updates' }));
  const n = json.snapshots.length;
  if (n < 2 || n > FILM_MAX_POINTS) fail(t('training.why.count', { n, max: num(FILM_MAX_POINTS) }));
  const points = json.snapshots.map((p, i) => {
    const bad = (field) => fail(t('training.why.point', { i: num(i + 1), field }));
    if (!p || typeof p !== 'object') bad('snapshots');
    if (!isCount(p.update) || p.update > json.updates) bad('update');
    const path = filmFilePath(manifest, p.file);
    if (!path) bad('file');
    if (!isCount(p.bytes) || p.bytes > CONFIG.maxModelFileBytes) bad('bytes');
    if (typeof p.sha256 !== 'string' || !SHA256.test(p.sha256)) bad('sha256');
    if (p.devBleu != null && !(Number.isFinite(p.devBleu) && p.devBleu >= 0 && p.devBleu <= 100)) bad('devBleu');
    return { update: p.update, fraction: p.update / json.updates, file: p.file, path, bytes: p.bytes, sha256: p.sha256, devBleu: p.devBleu ?? null, shipped: p.shipped === true };
  });
  if (points.some((p, i) => i > 0 && p.update <= points[i - 1].update)) fail(t('training.why.order'));
  if (points[n - 1].update !== json.updates) fail(t('training.why.last', { updates: num(json.updates) }));
  return {
    model: json.model,
    updates: json.updates,
    devSentences: isCount(json.devSentences) ? json.devSentences : null,
    devBleuHow: typeof json.devBleu === 'string' ? json.devBleu.slice(0, 300) : '',
    points,
  };
}

/**
 * The film to offer beside `mainModel`: the catalogue's film of that model,
 * else the default model's, else the first; null when the catalogue has none.
 * Entries that are not well formed are passed over.
 *   -> { film: the catalogue's film entry, entry: its model's catalogue entry }
 */
export function filmFor(catalog, mainModel) {
  const models = catalog?.models ?? [];
  const films = (Array.isArray(catalog?.films) ? catalog.films : []).filter((f) => f && typeof f.manifest === 'string'
    && /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)?\.json$/.test(f.manifest) && !f.manifest.includes('..')
    && models.some((m) => m.id === f.model) && isCount(f.points) && f.points >= 2);
  const film = films.find((f) => f.model === mainModel) ?? films.find((f) => f.model === catalog?.default) ?? films[0];
  return film ? { film, entry: models.find((m) => m.id === film.model) } : null;
}

/**
 * What opening the film downloads: every point, less the catalogue model at
 * its end when that is the model in use (the page has its bytes already).
 *   -> { files, bytes, shared (true when the model in use is left out) }
 */
export function filmDownload(film, mainModel) {
  const shared = film.model === mainModel && film.shipped > 0;
  return shared
    ? { files: film.points - 1, bytes: Math.max(0, film.bytes - film.shipped), shared }
    : { files: film.points, bytes: film.bytes, shared };
}

/** A share of the training budget, 0 … 1, as the UI language writes a percentage ("1 %", "0.5 %", "100 %"). */
export function formatFraction(fraction) {
  if (!Number.isFinite(fraction)) return '?';
  const p = fraction * 100;
  const digits = p > 0 && p < 1 ? 2 : p < 10 ? 1 : 0; // at most: 1 % stays "1 %", 0.5 % "0.5 %"
  return new Intl.NumberFormat(uiLanguage(), { style: 'percent', maximumFractionDigits: digits }).format(fraction);
}

/** The button: "Load the training film (4 files, 20.4 MB)". */
export function loadLabel(download) {
  return t('training.load', { n: download.files, size: formatBytes(download.bytes) });
}

/** The download's progress: "3.2 MB of 20.4 MB (16 %)". */
export function progressText(loaded, total) {
  return t('training.progress', { loaded: formatBytes(loaded), total: formatBytes(total), p: formatFraction(total > 0 ? Math.min(1, loaded / total) : 0) });
}

/** "update 60 of 6,000 (1 % of training)". */
export function pointText(point, updates) {
  return t('training.point', { update: num(point.update), updates: num(updates), p: formatFraction(point.fraction) });
}

/** "dev BLEU 16.2", or that the manifest gives none. */
export function bleuText(point) {
  return point.devBleu == null ? t('training.noBleu') : t('training.bleu', { bleu: fixed(point.devBleu, 1) });
}

/**
 * How many different source columns the rows' largest weights fall on (a
 * figure matrix, lib/figure.js): 1 when every target word looks at the same
 * source word, as early in training; up to S when the rows walk across the
 * source, as an alignment does. -> { columns, S } (columns 0 without α).
 */
export function argmaxColumns(m) {
  if (!m?.alpha) return { columns: 0, S: m?.S ?? 0 };
  const seen = new Set();
  for (let r = 0; r < m.T; r++) {
    let best = 0;
    for (let j = 1; j < m.S; j++) if (m.alpha[r * m.S + j] > m.alpha[r * m.S + best]) best = j;
    seen.add(best);
  }
  return { columns: seen.size, S: m.S };
}
