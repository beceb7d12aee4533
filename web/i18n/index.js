// i18n/index.js - the UI language and its strings, as the page's modules
// import them: i18n/core.js (English, and the others loaded when shown:
// loadUiLanguage). Every language at once: i18n/all.js.

export * from './core.js';
