// embed.js - embed.html: one widget for an <iframe>, configured by the hash
// (#s=...&m=en-fr&scale=1&step=0&view=heatmap). Shared links point at the full page.

import { mountAlignscope } from './ui.js';
import { parseShareString } from './state.js';

const initial = parseShareString(location.hash);
const app = mountAlignscope(document.getElementById('app'), {
  view: initial.view ?? 'heatmap',
  initial,
  syncUrl: true,
  shareBase: new URL('index.html', location.href).href,
});
// The document's language is the widget's UI language (uilang, else the browser's).
const setLang = () => { document.documentElement.lang = app.element.lang; };
app.element.addEventListener('as-ui-language', setLang);
setLang();
