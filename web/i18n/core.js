// i18n/core.js - the UI language: which one is in force, and looking up
// its strings. Every string of the interface lives in one file per language
// (en.js, fr.js, de.js, es.js: flat objects, key → text); the code asks for
// a key, never concatenates words. `{name}` in a string is a placeholder
// filled from the params; a value that is an object ({ one, other, … }) is
// a plural, its form picked with Intl.PluralRules for params.n. Numbers are
// formatted with Intl.NumberFormat for the language (num(), fixed()).
//
// One UI language per document: the page (or the embed) sets it; the model's
// language pair is a separate thing and never changes it.
// tests/web/i18n.test.mjs proves every language has every key, the same
// placeholders, and no string left in English.
//
// This module carries English (every other language falls back to it, key by
// key); the others are loaded when they are shown (loadUiLanguage: a dynamic
// import, one small module, in dist/ a chunk of its own), so a page in
// English never downloads French, German or Spanish, and one in French
// downloads French and no other. i18n/index.js is what the page's modules import (this module);
// i18n/all.js brings every language at once, for Node (the tests, scripts).
// A widget asks for its language's strings before it shows words in it
// (app.js, embed.js, alignscope.js await them; ui.js builds its cards again
// once a language chosen later has come).

import en from './en.js';

/** The UI languages, by code, with their own name for the switcher. */
export const UI_LANGUAGES = Object.freeze([
  Object.freeze({ code: 'en', name: 'English' }),
  Object.freeze({ code: 'fr', name: 'Français' }),
  Object.freeze({ code: 'de', name: 'Deutsch' }),
  Object.freeze({ code: 'es', name: 'Español' }),
]);
/** The strings of each UI language this document has (English always; loadUiLanguage adds the rest). */
export const STRINGS = { en };
const CODES = UI_LANGUAGES.map((l) => l.code);

/** Add a language's strings (loadUiLanguage, i18n/all.js). */
export function addUiLanguage(code, strings) {
  if (!CODES.includes(code)) throw new Error(`i18n: ${code} is not a UI language`);
  STRINGS[code] = strings;
}

// Each language's module, for loadUiLanguage (written out: the single-file
// build finds the modules it must carry by their import specifiers).
const LOADERS = { fr: () => import('./fr.js'), de: () => import('./de.js'), es: () => import('./es.js') };

/** Whether the strings of UI language `code` are here (English always is). */
export function hasUiLanguage(code) { return Object.hasOwn(STRINGS, code); }

/** Make sure the strings of UI language `code` are here (a dynamic import where they are not). */
export async function loadUiLanguage(code) {
  if (!CODES.includes(code) || STRINGS[code]) return;
  addUiLanguage(code, (await LOADERS[code]()).default);
}

let current = 'en';
const numberFormats = new Map();
const pluralRules = new Map();

/** 'fr' for 'fr', 'fr-CA', 'FR_be'; null when it is not a UI language. */
export function uiLanguageOf(tag) {
  if (typeof tag !== 'string') return null;
  const base = tag.trim().toLowerCase().split(/[-_]/)[0];
  return CODES.includes(base) ? base : null;
}

/**
 * The UI language for an explicit choice (the URL key `uilang`, the
 * element's `ui-lang`) and the browser's list (navigator.languages): the
 * choice if it is a UI language, else the first of the browser's that is,
 * else English. Never throws.
 */
export function pickUiLanguage(choice, browserLanguages = []) {
  const chosen = uiLanguageOf(choice);
  if (chosen) return chosen;
  for (const tag of Array.isArray(browserLanguages) ? browserLanguages : []) {
    const code = uiLanguageOf(tag);
    if (code) return code;
  }
  return 'en';
}

/** The browser's languages, or [] where there is no navigator (Node). */
export function browserLanguages() {
  const nav = globalThis.navigator;
  if (!nav) return [];
  return nav.languages?.length ? [...nav.languages] : nav.language ? [nav.language] : [];
}

export function setUiLanguage(code) { current = uiLanguageOf(code) ?? 'en'; return current; }
export function uiLanguage() { return current; }

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (m, name) => (params && params[name] !== undefined ? String(params[name]) : m));
}

/**
 * The string `key` in the UI language (English where a language lacks it,
 * the key itself where English does too), placeholders filled. A plural
 * takes its form from params.n; `{n}` in it is n formatted for the language.
 */
export function t(key, params) {
  // Own keys only: a key is never an inherited name ("constructor").
  const has = (o) => o != null && Object.hasOwn(o, key);
  let v = has(STRINGS[current]) ? STRINGS[current][key] : has(en) ? en[key] : undefined;
  if (v === undefined) return key;
  if (typeof v === 'object') {
    const n = params?.n ?? 0;
    v = v[pluralOf(n)] ?? v.other;
    params = { ...params, n: typeof n === 'number' ? num(n) : n };
  }
  return fill(v, params);
}

/** Intl.PluralRules' category of n in the UI language ('one', 'other', …). */
export function pluralOf(n, lang = current) {
  let r = pluralRules.get(lang);
  if (!r) { r = new Intl.PluralRules(lang); pluralRules.set(lang, r); }
  return r.select(n);
}

function numberFormat(lang, digits) {
  const key = `${lang}|${digits}`;
  let f = numberFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(lang, digits == null ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
    numberFormats.set(key, f);
  }
  return f;
}

/** A count or size in the UI language: 1,234 / 1 234 / 1.234. */
export function num(x) { return numberFormat(current, null).format(x); }

/** Fixed decimals in the UI language, no grouping: 0.757 / 0,757. */
export function fixed(x, digits) { return numberFormat(current, digits).format(x); }

/**
 * The string `key` split at its placeholders, each replaced by the node (or
 * text) given for it: for sentences with markup inside (a <strong>, a <sub>),
 * so a translation can move the marked words where its grammar needs them.
 *   tParts('x', { query: h('strong', null, t('x.query')) }) → ['Read … ', <strong>, ' …']
 */
export function tParts(key, nodes = {}) {
  const text = t(key);
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/\{(\w+)\}/g)) {
    if (!(m[1] in nodes)) continue;
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(nodes[m[1]]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** The UI language's decimal mark ('.' or ','), for hot loops that use toFixed (canvas cells). */
export function decimalMark() {
  return fixed(0.5, 1).includes(',') ? ',' : '.';
}
