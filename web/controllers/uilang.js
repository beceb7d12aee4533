// controllers/uilang.js - the widget's UI language: the one the state (or the
// mount's option, or the browser) wants, once its strings are here
// (i18n/core.js loads each when it is first shown); English until then, and
// the cards built again when they come. Building them again keeps the whole
// state (translation, step, model, compared models): nothing is asked of the
// engine again.

import { setUiLanguage, pickUiLanguage, browserLanguages, hasUiLanguage, loadUiLanguage } from '../i18n/index.js';

/**
 * @param store
 * @param {{ wrapper: HTMLElement, fallback?: string, rebuild: () => void }} opts
 *   wrapper: the widget's root (its lang attribute, its 'as-ui-language' event);
 *   fallback: the mount's uiLang, for a state that names none; rebuild: build every card again.
 */
export function createUiLanguage(store, { wrapper, fallback, rebuild }) {
  const wanted = (st) => pickUiLanguage(st.uiLang ?? fallback, browserLanguages());
  const apply = (st) => { const code = wanted(st); wrapper.lang = setUiLanguage(hasUiLanguage(code) ? code : 'en'); };
  // A language asked for before a newer one is not applied when its strings come.
  let seq = 0;
  let destroyed = false;
  const relanguage = () => {
    const before = wrapper.lang;
    apply(store.get());
    if (wrapper.lang === before) return false;
    rebuild();
    wrapper.dispatchEvent(new CustomEvent('as-ui-language', { detail: wrapper.lang }));
    return true;
  };
  const follow = (st) => {
    const mine = ++seq;
    loadUiLanguage(wanted(st)).catch(() => { /* English stays */ }).then(() => { if (mine === seq && !destroyed) relanguage(); });
  };
  return {
    /** Set the language the state wants, or English while its strings are not here (before the first build). */
    apply: () => apply(store.get()),
    /** After the first build: a language whose strings had not come yet (a caller that did not wait for them) follows. */
    started() { if (wanted(store.get()) !== wrapper.lang) follow(store.get()); },
    /** A store change; true when the cards were built again from the whole state (nothing else need follow it). */
    changed(st, changed) {
      if (!changed.has('uiLang')) return false;
      seq += 1;
      if (!hasUiLanguage(wanted(st))) { follow(st); return false; }
      return relanguage();
    },
    destroy() { destroyed = true; },
  };
}
