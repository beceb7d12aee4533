// prestart.js - the page's engine, started before the page's own modules are
// all here. index.html runs boot.js as soon as its few modules have come (it
// does not wait for the cards, views and controllers that app.js imports);
// boot.js calls prestart(), which
//   - reads the catalogue (models/index.json, preloaded by index.html),
//   - starts the engine worker, which fetches and compiles the wasm,
//   - and starts downloading the model the link asks for (or the
//     catalogue's default) through the model store (lib/model-store.js
//     prefetchModel),
// all while the rest of the page's code loads and builds the cards. The
// widget that app.js mounts takes them over (takePrestart() → ui.js
// opts.prestart → controllers/models.js): the same worker, the same
// catalogue response, and the model store hands the download to the
// widget's own request for that model. Nothing is done twice; if the widget
// settles on another model (it resolves the link with the same functions, so
// only a changed link could do that), the prefetched one goes to the cache.
//
// Only the page does this (not the embed, the element, or the single-file
// build, which carries everything inline).

import { EngineClient } from '../client.js';
import { parseShareString, resolveModel } from '../state.js';
import { prefetchModel } from '../lib/model-store.js';
import { startupRecorder } from '../lib/startup.js';
import { setUiLanguage, pickUiLanguage, browserLanguages } from '../i18n/index.js';
import { engineStartOptions, requestCatalog } from './models.js';

let begun = null;
let taken = false;

/**
 * Begin (once per document): → { base, client, catalog: requestCatalog()'s
 * { url, response, json }, engine: Promise<{ options, started } | null>,
 * startup } or null where there is nothing to begin (the single-file build).
 */
export function prestart({ base = null, hash = globalThis.location?.hash ?? '' } = {}) {
  if (begun || globalThis.ALIGNSCOPE_INLINE) return begun;
  // (web/, where the worker, the catalogue and the models are; after the inline
  // check: the single-file build's modules are blob: URLs, no base for a URL.)
  base = new URL(base ?? '../', import.meta.url);
  // The UI language the widget will pick (ui.js: the link's uilang, else the
  // browser's): messages made before it mounts (a failed download) use it too.
  const link = parseShareString(hash);
  setUiLanguage(pickUiLanguage(link.uiLang, browserLanguages()));
  const startup = startupRecorder();
  const client = new EngineClient({ workerUrl: new URL('worker.js', base), workerType: 'module' });
  try { client.spawn(); } catch { /* the widget's start says why */ }
  const catalog = requestCatalog(base);
  const engine = catalog.json.then((cat) => {
    if (!cat || !Array.isArray(cat.models) || !cat.models.length) return null; // the widget reports it
    startup.mark('catalog', { detail: { models: cat.models.length, early: true } });
    const options = engineStartOptions(null, cat, base);
    const started = client.start(options);
    started.catch(() => { /* the widget awaits it and reports it */ });
    // The model the widget will show (models.js boot() resolves it the same way).
    const { model } = resolveModel(cat, link.model, { rejected: link.rejectedModel, fileModel: link.fileModel, canOpenFiles: true });
    const entry = cat.models.find((m) => m.id === model);
    if (entry?.file) {
      prefetchModel({ url: new URL(`models/${entry.file}`, base), sha256: entry.sha256, cacheName: cat.cache ?? null, storeWhen: startup.settled });
    }
    return { options, started };
  }, () => null);
  begun = { base: base.href, client, catalog, engine, startup };
  return begun;
}

/** What prestart() began, for the one widget that goes on from it (app.js); null after that, or if nothing was begun. */
export function takePrestart() {
  if (taken) return null;
  taken = true;
  return prestart();
}
