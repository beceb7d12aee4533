// prestart.js - the page's engine, started before the page's own modules are
// all here. index.html runs boot.js as soon as its few modules have come (it
// does not wait for the cards, views and controllers that app.js imports, nor
// for the languages the page does not show: i18n/core.js); boot.js calls
// prestart(), which
//   - reads the catalogue (models/index.json, preloaded by index.html),
//   - starts the engine worker, which fetches the wasm and compiles it as it
//     streams in,
//   - downloads the model the link asks for (or the catalogue's default)
//     through the model store (checked against its SHA-256, cached for the
//     next visit once the first heatmap is painted),
//   - and hands the model to the worker, whose engine reads it,
// all while the rest of the page's code loads and builds the cards. The
// widget that app.js mounts goes on from there (takePrestart() → ui.js
// opts.prestart → controllers/models.js): the same worker, the catalogue
// that came, and the model already loaded, or its download or load under
// way. Nothing is done twice. If the widget wants another model after all
// (it resolves the link with the same functions, so only a link changed in
// between could do that), the prefetched one is not loaded (cancel()) and
// goes to the cache.
//
// Only the page does this (not the embed, the element, or the single-file
// build, which carries everything inline).

import { EngineClient } from '../client.js';
import { parseShareString, resolveModel } from '../state.js';
import { getModel } from '../lib/model-store.js';
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
 *     model: Promise<{ id, download: Promise<getModel()'s result>, loaded: Promise<info>,
 *                      last: [loaded, total] | null, onProgress, cancel() } | null> }
 * A rejection of download or loaded is the widget's to report (models.js).
 */
export function prestart({ base = null, hash = globalThis.location?.hash ?? '' } = {}) {
  if (begun || globalThis.ALIGNSCOPE_INLINE) return begun;
  // (web/, where the worker, the catalogue and the models are; after the inline
  // check: the single-file build's modules are blob: URLs, no base for a URL.)
  base = new URL(base ?? '../', import.meta.url);
  // The UI language the widget will pick (ui.js: the link's uilang, else the
  // browser's), with its strings: a message made before the widget (a failed
  // download) is in it too.
  const link = parseShareString(hash);
  const strings = loadUiLanguage(setUiLanguage(pickUiLanguage(link.uiLang, browserLanguages()))).catch(() => { /* English, then */ });
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
  const model = Promise.all([catalog.json, engine]).then(([cat, eng]) => (eng ? beginModel(cat, eng.started) : null), () => null);

  // The model the widget will show (models.js boot() resolves it the same way):
  // downloaded, then read by the engine once it has started.
  function beginModel(cat, started) {
    const { model: id } = resolveModel(cat, link.model, { rejected: link.rejectedModel, fileModel: link.fileModel, canOpenFiles: true });
    const entry = cat.models.find((m) => m.id === id);
    if (!entry?.file) return null;
    const m = { id, last: null, onProgress: null, cancelled: false, cancel() { m.cancelled = true; } };
    m.download = strings.then(() => getModel({
      url: new URL(`models/${entry.file}`, base), sha256: entry.sha256, cacheName: cat.cache ?? null, storeWhen: startup.settled,
      onProgress: (loaded, total) => { m.last = [loaded, total]; m.onProgress?.(loaded, total); },
    }));
    m.download.then((r) => startup.mark('download', {
      detail: { model: id, file: entry.file, bytes: r.bytes.length, from: r.from, ms: performance.now() - r.startedAt, early: true },
    }), () => {});
    m.loaded = Promise.all([m.download, started]).then(([r]) => {
      // The widget chose another model meanwhile: this one is not loaded over it.
      if (m.cancelled) throw Object.assign(new Error('superseded'), { superseded: true });
      // The bytes are this download's own (lib/model-store.js): moved to the worker, not copied.
      return client.load(id, r.bytes, {
        transfer: true,
        onTiming: (tm) => startup.mark('load', { at: pageTime(tm.doneAt), detail: { model: id, ms: tm.doneAt - tm.startAt, early: true } }),
      });
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
