// prestart.js - the page's engine, started before the page's own modules are
// all here. index.html runs boot.js as soon as its few modules have come (it
// does not wait for the cards, views and controllers that app.js imports, nor
// for the languages the page does not show: i18n/core.js); boot.js calls
// prestart(), which
//   - reads the catalogue (models/index.json, preloaded by index.html),
//   - starts the engine worker, which fetches the wasm and compiles it as it
//     streams in,
//   - asks that worker for the model the link names (or the catalogue's
//     default): the worker downloads it through the model store (checked
//     against its SHA-256, cached for the next visit once the first heatmap
//     is painted) while it compiles, and its engine reads it,
//   - and begins loading the strings of the UI language the page will show,
// all while the rest of the page's code loads and builds the cards (in dist/
// the page is one bundle: boot.js's part of it runs first). The widget that
// app.js mounts goes on from there (takePrestart() → ui.js opts.prestart →
// controllers/models.js): the same worker, the catalogue that came, and the
// model already loaded, or its download or load under way. Nothing is done
// twice. If the widget wants another model after all (it resolves the link
// with the same functions, so only a link changed in between could do
// that), its load supersedes this one in the worker, which stops this
// download and never loads it over the other.
//
// Only the page does this (not the embed, the element, or the single-file
// build, which carries everything inline).

import { EngineClient } from '../client.js';
import { parseShareString, resolveModel } from '../state.js';
import { startupRecorder, pageTime } from '../lib/startup.js';
import { setUiLanguage, pickUiLanguage, browserLanguages, loadUiLanguage, num } from '../i18n/core.js';
import { engineStartOptions, requestCatalog } from './models.js';

let begun = null;
let taken = false;

const usable = (cat) => !!cat && Array.isArray(cat.models) && cat.models.length > 0;

/**
 * Begin (once per document). → null where there is nothing to begin (the
 * single-file build), else
 *   { base (href of web/), client (EngineClient, spawned), startup (lib/startup.js recorder),
 *     catalog: requestCatalog()'s { url, response, json },
 *     engine: Promise<{ options, started } | null>   (null: no usable catalogue; the widget says why)
 *     model: Promise<{ id, loaded: Promise<info>, last: [loaded, total] | null, downloadedAt (epoch ms) | null,
 *                      onProgress(loaded, total), onDownloaded(d) (the widget's, once it takes it over) } | null> }
 * A rejection of loaded is the widget's to report (models.js).
 * base: web/ (boot.js gives its own directory: in dist/'s bundle this module has no URL of its own).
 */
export function prestart({ base = null, hash = globalThis.location?.hash ?? '' } = {}) {
  if (begun || globalThis.ALIGNSCOPE_INLINE) return begun;
  // (web/, where the worker, the catalogue and the models are; after the inline
  // check: the single-file build's modules are blob: URLs, no base for a URL.)
  base = new URL(base ?? '../', import.meta.url);
  // The UI language the widget will pick (ui.js: the link's uilang, else the
  // browser's): its strings are asked for now (app.js awaits them before it
  // mounts the widget; a download's error is put in words only there).
  const link = parseShareString(hash);
  loadUiLanguage(setUiLanguage(pickUiLanguage(link.uiLang, browserLanguages()))).catch(() => { /* English, then */ });
  const startup = startupRecorder();
  const client = new EngineClient({ workerUrl: new URL('worker.js', base), workerType: 'module' });
  try { client.spawn(); } catch { /* the widget's start says why */ }
  const catalog = requestCatalog(base);
  const engine = catalog.json.then((cat) => {
    if (!usable(cat)) return null;
    startup.mark('catalog', { detail: { models: cat.models.length, early: true } });
    const options = engineStartOptions(null, cat, base);
    const started = client.start(options);
    started.catch(() => { /* the widget awaits it and reports it */ });
    return { options, started };
  }, () => null);
  const model = Promise.all([catalog.json, engine]).then(([cat, eng]) => (eng ? beginModel(cat) : null), () => null);
  // The cache write of the model waits for the first heatmap (lib/model-store.js storeWhen, in the worker).
  startup.settled.then(() => client.settle());

  // The model the widget will show (models.js boot() resolves it the same way):
  // the worker downloads it, checks it and reads it once its engine has started
  // (client.js loadUrl(): the bytes never come to this thread).
  function beginModel(cat) {
    const { model: id } = resolveModel(cat, link.model, { rejected: link.rejectedModel, fileModel: link.fileModel, canOpenFiles: true });
    const entry = cat.models.find((m) => m.id === id);
    if (!entry?.file) return null;
    const m = { id, last: null, downloadedAt: null, onProgress: null, onDownloaded: null };
    m.loaded = client.loadUrl(id, {
      url: new URL(`models/${entry.file}`, base), sha256: entry.sha256, cacheName: cat.cache ?? null, storeWhenSettled: true,
      onProgress: (loaded, total) => { m.last = [loaded, total]; m.onProgress?.(loaded, total); },
      onDownloaded: (d) => {
        m.downloadedAt = d.doneAt;
        startup.mark('download', { at: pageTime(d.doneAt), detail: { model: id, file: entry.file, bytes: d.bytes, from: d.from, ms: d.doneAt - d.startedAt, early: true } });
        m.onDownloaded?.(d);
      },
      onTiming: (tm) => startup.mark('load', { at: pageTime(tm.doneAt), detail: { model: id, ms: tm.doneAt - tm.startAt, early: true } }),
    });
    m.loaded.catch(() => { /* the widget awaits it and reports it */ });
    return m;
  }

  // The document's first Intl.NumberFormat loads ICU's number data (ms of
  // work): made now, while the page's other modules are still on their way,
  // not while the cards are built (i18n/core.js keeps it for num()).
  num(0);
  begun = { base: base.href, client, catalog, engine, model, startup };
  return begun;
}

/** What prestart() began, for the one widget that goes on from it (app.js); null after that, or if nothing was begun. */
export function takePrestart() {
  if (taken) return null;
  taken = true;
  return prestart();
}
