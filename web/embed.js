// embed.js - embed.html: one widget for an <iframe>, configured by the hash
// (#s=...&m=en-fr-int8&scale=1&step=0&view=heatmap). Shared links point at the full page.
// Its heatmap box has a fixed height and the frame posts its content height
// to the page around it (lib/embed-protocol.js), which sizes the iframe to
// fit (embed-resize.js): the frame never scrolls inside itself.

import { mountAlignscope } from './ui.js';
import { parseShareString } from './state.js';
import { CONFIG } from './config.js';
import { postContentHeight } from './lib/embed-protocol.js';
import { registerServiceWorker } from './controllers/offline.js';
import { loadUiLanguage, pickUiLanguage, browserLanguages } from './i18n/index.js';

const initial = parseShareString(location.hash);
// The cards are built in the UI language (its strings loaded first: i18n/core.js).
await loadUiLanguage(pickUiLanguage(initial.uiLang, browserLanguages())).catch(() => { /* English, then */ });
const app = mountAlignscope(document.getElementById('app'), {
  view: initial.view ?? 'heatmap',
  initial,
  syncUrl: true,
  shareBase: new URL('index.html', location.href).href,
  heatBoxPx: CONFIG.embedHeatBoxPx,
});
postContentHeight(window);
registerServiceWorker(import.meta.url);
// The document's language is the widget's UI language (uilang, else the browser's).
const setLang = () => { document.documentElement.lang = app.element.lang; };
app.element.addEventListener('as-ui-language', setLang);
setLang();
