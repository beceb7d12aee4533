// app.js - the page: one full widget whose state lives in the URL hash,
// a theme toggle, and page-wide keys (step, play; presenter mode's P and
// Escape are controllers/presenter.js's, asked for with pageKeys).

// boot.js first: index.html runs it on its own, ahead of this module's
// imports; in dist/'s one bundle (web/tools/dist.mjs) this import puts its
// start of the engine before everything else.
import './boot.js';
import { mountAlignscope } from './ui.js';
import { parseShareString } from './state.js';
import { registerServiceWorker } from './controllers/offline.js';
import { t, tParts, uiLanguage, UI_LANGUAGES, loadUiLanguage, pickUiLanguage, browserLanguages } from './i18n/index.js';
import { startupSettled } from './lib/startup.js';
import { takePrestart } from './controllers/prestart.js';

const initial = parseShareString(location.hash);
// The strings of the UI language the widget will show (the link's, else the
// browser's; prestart.js asked for them already): the cards are built in it.
await loadUiLanguage(pickUiLanguage(initial.uiLang, browserLanguages())).catch(() => { /* English, then */ });

const app = mountAlignscope(document.getElementById('app'), {
  view: 'full',
  initial: { ...initial, view: 'full' },
  syncUrl: true,
  // The single-file build's links point at the hosted copy it was built with, or nowhere ('').
  shareBase: globalThis.ALIGNSCOPE_INLINE ? (globalThis.ALIGNSCOPE_INLINE.shareBase ?? '') : location.href.split('#')[0],
  localFiles: true,
  // The catalogue, the worker and the model download boot.js began (controllers/prestart.js).
  prestart: takePrestart(),
  // P and Escape (presenter mode) with the focus anywhere on the page (controllers/presenter.js).
  pageKeys: true,
});

// Offline after one visit (web/sw.js); nothing happens from file://. Registered
// once the first heatmap is on screen (or the start is over without one): the
// install fetches and hashes every file of the release, which would otherwise
// compete with the first load for the network and the CPU.
{
  let registered = false;
  const register = () => { if (!registered) { registered = true; unsubscribe(); registerServiceWorker(import.meta.url); } };
  const unsubscribe = app.store.subscribe((st) => { if (startupSettled(st)) register(); });
  if (startupSettled(app.store.get())) register();
}

// Theme: follows the system until the user picks; the choice is remembered.
const toggle = document.getElementById('theme-toggle');
const page = document.getElementById('page');
const systemDark = matchMedia('(prefers-color-scheme: dark)');
function applyTheme(theme) {
  const dark = theme ? theme === 'dark' : systemDark.matches;
  for (const el of [document.documentElement, page, app.element]) {
    if (theme) el.dataset.theme = theme; else delete el.dataset.theme;
  }
  toggle.setAttribute('aria-pressed', String(dark));
  toggle.textContent = dark ? t('page.themeLight') : t('page.themeDark');
  requestAnimationFrame(() => app.element.dispatchEvent(new Event('as-theme')));
}
let saved = null;
try { saved = localStorage.getItem('alignscope-theme'); } catch { /* storage blocked */ }
applyTheme(saved === 'dark' || saved === 'light' ? saved : null);
toggle.addEventListener('click', () => {
  const next = toggle.getAttribute('aria-pressed') === 'true' ? 'light' : 'dark';
  try { localStorage.setItem('alignscope-theme', next); } catch { /* fine */ }
  applyTheme(next);
});
systemDark.addEventListener('change', () => { if (!document.documentElement.dataset.theme) applyTheme(null); });

// The UI language: the widget picked it (the link's uilang, else the
// browser's languages, else English); the page's own words, <html lang> and
// the switcher follow it. Choosing another sets `uilang` in the store, so
// the link carries it and a reload keeps it.
const langSelect = document.getElementById('ui-lang');
langSelect.replaceChildren(...UI_LANGUAGES.map((l) => {
  const o = document.createElement('option');
  o.value = l.code;
  o.lang = l.code;
  o.textContent = l.name;
  return o;
}));
function applyPageLanguage() {
  const lang = uiLanguage();
  document.documentElement.lang = lang;
  document.title = t('page.title');
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  const kbd = (text) => { const k = document.createElement('kbd'); k.textContent = text; return k; };
  document.getElementById('page-keys').replaceChildren(...tParts('page.keys', { left: kbd('←'), right: kbd('→'), space: kbd(t('page.keySpace')), p: kbd('P'), esc: kbd(t('page.keyEsc')) }));
  langSelect.value = lang;
  applyTheme(currentTheme());
}
const currentTheme = () => (document.documentElement.dataset.theme || null);
langSelect.addEventListener('change', () => app.store.set({ uiLang: langSelect.value }));
app.element.addEventListener('as-ui-language', applyPageLanguage);
applyPageLanguage();

// Page-wide keys for the step view, unless the user is typing or on a control.
document.addEventListener('keydown', (e) => {
  const t = e.target;
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
  if (t !== document.body && t !== document.documentElement && t.id !== 'app') return;
  if (e.key === 'ArrowRight') { app.step(1); e.preventDefault(); }
  if (e.key === 'ArrowLeft') { app.step(-1); e.preventDefault(); }
  // Home and End: the first and the last step (in the step card they work wherever its focus is: cards/steps.js).
  if (e.key === 'Home') { app.step(-Infinity); e.preventDefault(); }
  if (e.key === 'End') { app.step(Infinity); e.preventDefault(); }
  // (Not while a quiz hides the step-through: its step is where the quiz starts.)
  if (e.key === ' ' && app.element.dataset.quiz !== 'on') { app.element.querySelector('.as-play')?.click(); e.preventDefault(); }
});
